//! Games as the rows of a columnar export (`kabir export --format parquet`): everything stored
//! about a game, its moves in SAN and coordinates, and the hash of every position, the same
//! hash the database's position index keys by, so that the rows join with a database's.
//!
//! A game comes from a database ([`ExportedGame::from_stored`]) or straight from a game file
//! ([`ExportedGame::from_record`]); both give the same rows for the same game.

use crate::notation::{check_mark, san};
use crate::rules::{Move, Position};
use crate::variants::Registry;

use super::query::StoredGame;
use super::record::{self, GameEnd, GameRecord, ROSTER, RecordError, SpecialMoves, well_formed};

/// A move of an exported game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedMove {
    /// Canonical SAN with its check mark, as in the game's canonical text.
    pub san: String,
    /// Coordinate notation (as in `kabir explore`'s `uci`).
    pub uci: String,
}

/// One game as exported.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportedGame {
    /// The variant's id.
    pub variant: String,
    /// Tag pairs in canonical order.
    pub tags: Vec<(String, String)>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    pub end: GameEnd,
    /// The start position's string.
    pub start_fen: String,
    /// Whether the game starts from its variant's start position.
    pub standard_start: bool,
    pub special: SpecialMoves,
    pub moves: Vec<ExportedMove>,
    /// The hash of every position: before each move, then the final one (one more than the
    /// moves).
    pub hashes: Vec<u64>,
}

impl ExportedGame {
    /// The rows of a valid game read from a file (see [`GameRecord::from_replay`]): what the
    /// importer would store for it. Refused as the importer refuses it.
    pub fn from_record(record: GameRecord) -> Result<ExportedGame, RecordError> {
        let notated = notate(&record.start, &record.moves);
        // Refuses what the importer refuses, a move that does not fit named by its ply.
        let d = record::derive(record, None)?;
        let (_, moves) = notated.ok_or(RecordError::MalformedMove { ply: 0 })?;
        let mut special = d.special;
        // By kind id, as the database lists them.
        special.promotions_by_kind.sort();
        Ok(ExportedGame {
            variant: d.variant.id().to_string(),
            tags: d.tags,
            result: d.result.as_str().to_string(),
            end: d.end,
            start_fen: d.start_fen,
            standard_start: d.standard_start,
            special,
            moves,
            hashes: d.hashes,
        })
    }

    /// The rows of a stored game; `None` if its variant is not in `variants` or its moves do
    /// not replay (a damaged database).
    pub fn from_stored(g: &StoredGame, variants: &Registry) -> Option<ExportedGame> {
        let variant = variants.find(&g.variant)?;
        let start = Position::from_fen(variant, &g.start_fen).ok()?;
        let (hashes, moves) = notate(&start, &g.moves)?;
        let standard_start = start == Position::start(variant);
        Some(ExportedGame {
            variant: g.variant.clone(),
            tags: g.tags.clone(),
            result: g.result.clone(),
            end: g.end,
            start_fen: g.start_fen.clone(),
            standard_start,
            special: g.special.clone(),
            moves,
            hashes,
        })
    }

    /// The value of a tag, if the game has it (names compared ignoring ASCII case, as the
    /// database's roster columns are filled).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The tags other than the Seven Tag Roster, in canonical order.
    pub fn other_tags(&self) -> impl Iterator<Item = &(String, String)> {
        self.tags.iter().filter(|(k, _)| {
            !k.eq_ignore_ascii_case(crate::notation::tags::RESULT)
                && !ROSTER.iter().any(|r| k.eq_ignore_ascii_case(r))
        })
    }

    /// The number of moves (plies).
    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}

/// Plays `moves` from `start`: the hash of every position and each move written out.
/// `None` if a move does not fit its position.
fn notate(start: &Position, moves: &[Move]) -> Option<(Vec<u64>, Vec<ExportedMove>)> {
    let mut pos = start.clone();
    let mut legal = Vec::new();
    let mut hashes = Vec::with_capacity(moves.len() + 1);
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        if !well_formed(&pos, m) {
            return None;
        }
        hashes.push(pos.hash());
        pos.legal_moves_into(&mut legal);
        let mut s = san(&pos, m, &legal);
        let uci = m.to_uci(&pos);
        pos.play_unchecked(m);
        s.push_str(check_mark(&pos));
        out.push(ExportedMove { san: s, uci });
    }
    hashes.push(pos.hash());
    Some((hashes, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Database;
    use crate::generate::{Options, random_game};

    /// A game exported from a database and the same game exported from its record give the
    /// same rows, and the hashes are the ones the index stores.
    #[test]
    fn stored_and_read_games_export_alike() {
        let v = crate::variants::builtin("tamerlane").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::create_or_open(dir.path().join("t.db")).unwrap();
        let mut records = Vec::new();
        let mut expected = Vec::new();
        for i in 0..6 {
            let game = random_game(&v, 5, i, &Options::default());
            let result = game
                .status()
                .outcome()
                .map_or("*", |o| o.as_pgn())
                .to_string();
            let tags = vec![
                ("Event".to_string(), format!("E{i}")),
                ("White".to_string(), "A".to_string()),
                ("Annotator".to_string(), "N".to_string()),
            ];
            expected.push(game.hashes().collect::<Vec<u64>>());
            records.push(GameRecord::from_game(
                v.clone(),
                &game,
                tags,
                result,
                String::new(),
            ));
        }
        db.importer()
            .unwrap()
            .import_batch(records.clone())
            .unwrap();
        let registry = Registry::builtin();
        for (i, (r, expected_hashes)) in records.into_iter().zip(expected).enumerate() {
            let stored = db.game(i as u32 + 1).unwrap().unwrap();
            let a = ExportedGame::from_stored(&stored, &registry).unwrap();
            let b = ExportedGame::from_record(r).unwrap();
            assert_eq!(a, b);
            assert_eq!(a.hashes, expected_hashes);
            assert_eq!(a.hashes.len(), a.moves.len() + 1);
            let text: Vec<String> = a.moves.iter().map(|m| m.san.clone()).collect();
            assert_eq!(Some(text), stored.san_moves(&registry));
            let others: Vec<&str> = a.other_tags().map(|(k, _)| k.as_str()).collect();
            assert_eq!(others, ["Annotator"]);
        }
    }

    #[test]
    fn a_move_that_does_not_fit_is_refused() {
        let v = crate::variants::builtin("shatranj").unwrap();
        let game = random_game(&v, 3, 1, &Options::default());
        let mut moves = game.moves().to_vec();
        moves.insert(0, moves[1]);
        let record = GameRecord {
            variant: v.clone(),
            start: game.start().clone(),
            moves,
            tags: Vec::new(),
            result: "*".to_string(),
            pgn: String::new(),
            replayed: None,
        };
        assert!(ExportedGame::from_record(record).is_err());
    }
}
