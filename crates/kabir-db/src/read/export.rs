//! Games as the rows of a columnar export (`kabir export --format parquet`): everything stored
//! about a game, its moves in SAN and coordinates, and the hash of every position, the same
//! hash the database's position index keys by, so that the rows join with a database's.
//!
//! A game comes from a database ([`ExportedGame::from_stored`]) or straight from a game file
//! ([`ExportedGame::from_record`]); both give the same rows for the same game.

use kabir_notation::game::TokenKind;
use kabir_notation::reader::{Reader, ReaderOptions};
use kabir_notation::{check_mark, san_into};
use kabir_rules::variants::Registry;
use kabir_rules::{Move, Position};

use crate::read::answer::GameAnswerError;
use crate::read::query::StoredGame;
use crate::storage::codec::GameResult;
use crate::write::record::{
    self, GameEnd, GameRecord, ROSTER, RecordError, SpecialMoves, well_formed,
};

/// A move of an exported game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExportedMove<'a> {
    /// Canonical SAN with its check mark, as in the game's canonical text.
    pub san: &'a str,
    /// Coordinate notation (as in `kabir explore`'s `uci`).
    pub uci: &'a str,
}

/// Strings end to end in one buffer: one allocation for all the moves of a game rather than
/// one for each move, on a path that handles hundreds of millions of moves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Texts {
    text: String,
    /// Where each string ends in `text`.
    ends: Vec<u32>,
}

impl Texts {
    fn with_capacity(n: usize) -> Texts {
        Texts {
            text: String::with_capacity(n * 6),
            ends: Vec::with_capacity(n),
        }
    }

    /// Ends the string being written at the end of `text`.
    fn close(&mut self) {
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let s = self.text.get(start..end as usize).unwrap_or("");
            start = end as usize;
            s
        })
    }
}

/// One game as exported.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportedGame {
    /// The variant's id.
    pub variant: String,
    /// Tag pairs in canonical order.
    pub tags: Vec<(String, String)>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: GameResult,
    /// What the rules say of the last position.
    pub end: GameEnd,
    /// The start position's string.
    pub start_fen: String,
    /// Whether the game starts from its variant's start position.
    pub standard_start: bool,
    /// Its special moves, counted (promotions by kind in the order of the kinds' ids).
    pub special: SpecialMoves,
    san: Texts,
    uci: Texts,
    /// The hash of every position: before each move, then the final one (one more than the
    /// moves).
    pub hashes: Vec<u64>,
}

impl ExportedGame {
    /// The rows of a valid game read from a file (see [`GameRecord::from_replay`]): what the
    /// importer would store for it. Refused as the importer refuses it.
    pub fn from_record(mut record: GameRecord) -> Result<ExportedGame, RecordError> {
        // The replay has checked the moves and hashed the positions: only the moves'
        // coordinates are left to write, and their SAN are those of the canonical text.
        let san = main_line_san(
            std::mem::take(&mut record.pgn).into_bytes(),
            record.moves.len(),
        );
        let notated = notate(&record.start, &record.moves, san, false);
        // Refuses what the importer refuses, a move that does not fit named by its ply.
        let d = record::derive(record, None)?;
        let (_, san, uci) = notated.ok_or(RecordError::MalformedMove { ply: 0 })?;
        let mut special = d.special;
        // By kind id, as the database lists them.
        special.promotions_by_kind.sort();
        Ok(ExportedGame {
            variant: d.variant.id().to_string(),
            tags: d.tags,
            result: d.result,
            end: d.end,
            start_fen: d.start_fen,
            standard_start: d.standard_start,
            special,
            san,
            uci,
            hashes: d.hashes,
        })
    }

    /// The rows of a stored game; an error if its variant is not in `variants` or it does
    /// not replay (a damaged database).
    pub fn from_stored(
        g: &StoredGame,
        variants: &Registry,
    ) -> Result<ExportedGame, GameAnswerError> {
        let start = g.position_at(variants, 0)?;
        let san = main_line_san(g.pgn.as_bytes().to_vec(), g.moves.len());
        let (hashes, san, uci) = notate(&start, &g.moves, san, true).ok_or_else(|| {
            match g.position_at(variants, g.moves.len()) {
                Err(e) => e,
                Ok(_) => GameAnswerError::Corrupt {
                    id: g.id,
                    detail: "a stored move is not legal in its position".to_string(),
                },
            }
        })?;
        let standard_start = start == Position::start(start.variant());
        Ok(ExportedGame {
            variant: g.variant.clone(),
            tags: g.tags.clone(),
            result: g.result,
            end: g.end,
            start_fen: g.start_fen.clone(),
            standard_start,
            special: g.special.clone(),
            san,
            uci,
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
            !k.eq_ignore_ascii_case(kabir_notation::tags::RESULT)
                && !ROSTER.iter().any(|r| k.eq_ignore_ascii_case(r))
        })
    }

    /// The moves, in order.
    pub fn moves(&self) -> impl Iterator<Item = ExportedMove<'_>> {
        self.san
            .iter()
            .zip(self.uci.iter())
            .map(|(san, uci)| ExportedMove { san, uci })
    }

    /// The number of moves (plies).
    pub fn plies(&self) -> usize {
        self.san.len()
    }
}

/// The SAN of the main line of a game's canonical text (with check marks, without glyphs),
/// if it has exactly `plies` of them. The canonical text is what the importer stores and
/// what the replay has already written: reading it back costs a fraction of working the SAN
/// out again, which needs every legal move of every position.
fn main_line_san(pgn: Vec<u8>, plies: usize) -> Option<Texts> {
    if pgn.is_empty() {
        return (plies == 0).then(Texts::default);
    }
    let mut reader = Reader::of_bytes(pgn, ReaderOptions::default(), 0, 1);
    let raw = reader.next()?.ok()?;
    let mut out = Texts::with_capacity(plies);
    let mut depth = 0u32;
    for t in &raw.tokens {
        match t.kind {
            TokenKind::VariationStart => depth += 1,
            TokenKind::VariationEnd => depth = depth.saturating_sub(1),
            TokenKind::Move(_) if depth == 0 => {
                let bytes = raw.bytes(t.span);
                let end = bytes.iter().rposition(|&b| b != b'!' && b != b'?')? + 1;
                out.text
                    .push_str(std::str::from_utf8(bytes.get(..end)?).ok()?);
                out.close();
                if out.len() > plies {
                    return None;
                }
            }
            _ => {}
        }
    }
    (out.len() == plies).then_some(out)
}

/// Writes out the moves of a game played from `start`: their SAN (`san` if given, else
/// worked out from the legal moves of each position), their coordinates and, with `hashes`,
/// the hash of every position. `None` if a move does not fit.
///
/// Positions are played only as far as needed: to the end for hashes or SAN, else to the last
/// promotion (whose coordinates name the new piece only when it changes kind).
fn notate(
    start: &Position,
    moves: &[Move],
    san: Option<Texts>,
    hashes: bool,
) -> Option<(Vec<u64>, Texts, Texts)> {
    let g = start.variant().geometry();
    let play_to = if hashes || san.is_none() {
        moves.len()
    } else {
        moves
            .iter()
            .rposition(|m| m.promotion.is_some())
            .map_or(0, |i| i + 1)
    };
    let mut pos = start.clone();
    let mut legal = Vec::new();
    let mut seen = Vec::with_capacity(if hashes { moves.len() + 1 } else { 0 });
    let mut uci = Texts::with_capacity(moves.len());
    let mut written = match san {
        Some(_) => None,
        None => Some(Texts::with_capacity(moves.len())),
    };
    for (i, &m) in moves.iter().enumerate() {
        if i >= play_to {
            uci.text.push_str(g.name(m.from));
            uci.text.push_str(g.name(m.to));
            uci.close();
            continue;
        }
        if !well_formed(&pos, m) {
            return None;
        }
        if hashes {
            seen.push(pos.hash());
        }
        if m.promotion.is_some() {
            uci.text.push_str(&m.to_uci(&pos));
        } else {
            uci.text.push_str(g.name(m.from));
            uci.text.push_str(g.name(m.to));
        }
        uci.close();
        if let Some(w) = &mut written {
            pos.legal_moves_into(&mut legal);
            san_into(&mut w.text, &pos, m, &legal);
            pos.play_unchecked(m);
            w.text.push_str(check_mark(&pos));
            w.close();
        } else {
            pos.play_unchecked(m);
        }
    }
    if hashes {
        seen.push(pos.hash());
    }
    let san = san.or(written)?;
    Some((seen, san, uci))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Database, GameId};
    use kabir_rules::generate::{Options, random_game};

    /// A game exported from a database and the same game exported from its record give the
    /// same rows, and the hashes are the ones the index stores.
    #[test]
    fn stored_and_read_games_export_alike() {
        let v = kabir_rules::variants::builtin("tamerlane").unwrap();
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
            let stored = db.game(GameId(i as u32 + 1)).unwrap().unwrap();
            let a = ExportedGame::from_stored(&stored, &registry).unwrap();
            let b = ExportedGame::from_record(r).unwrap();
            assert_eq!(a, b);
            assert_eq!(a.hashes, expected_hashes);
            assert_eq!(a.hashes.len(), a.plies() + 1);
            let text: Vec<String> = a.moves().map(|m| m.san.to_string()).collect();
            assert_eq!(Ok(text), stored.san_moves(&registry));
            let others: Vec<&str> = a.other_tags().map(|(k, _)| k.as_str()).collect();
            assert_eq!(others, ["Annotator"]);
        }
    }

    /// The SAN read back from a replayed game's canonical text are the ones worked out from
    /// the legal moves, whatever the text had: coordinates, glyphs, missing check marks,
    /// comments and variations.
    #[test]
    fn san_of_the_canonical_text_are_the_worked_out_ones() {
        let registry = Registry::builtin();
        let mut read_back = 0;
        for name in ["tamerlane", "shatranj"] {
            let v = kabir_rules::variants::builtin(name).unwrap();
            for i in 0..6 {
                let game = random_game(&v, 9, i, &Options::default());
                let result = game.status().outcome().map_or("*", |o| o.as_pgn());
                let record = GameRecord::from_game(
                    v.clone(),
                    &game,
                    Vec::new(),
                    result.to_string(),
                    String::new(),
                );
                // With no text, the SAN are worked out from the legal moves.
                let worked_out = ExportedGame::from_record(record).unwrap();
                let mut text = format!("[Variant \"{}\"]\n[Result \"{result}\"]\n\n", v.id());
                let moves: Vec<ExportedMove<'_>> = worked_out.moves().collect();
                for (ply, m) in moves.iter().enumerate() {
                    if ply % 2 == 0 {
                        text.push_str(&format!("{}. ", ply / 2 + 1));
                    }
                    match ply % 7 {
                        3 => text.push_str(m.uci),
                        5 => {
                            text.push_str(m.san.trim_end_matches(['+', '#']));
                            text.push_str("!?");
                        }
                        _ => text.push_str(m.san),
                    }
                    text.push(' ');
                    if ply == 0 && moves.len() > 1 {
                        text.push_str(&format!("{{a note}} (1. {} {} $1) ", m.san, moves[1].san));
                    }
                }
                text.push_str(result);
                text.push('\n');
                let raw = kabir_notation::reader::Reader::new(text.as_bytes())
                    .next()
                    .unwrap()
                    .unwrap();
                let replayed = kabir_notation::replay::replay(&raw, &registry);
                let record = GameRecord::from_replay(replayed, &raw).unwrap();
                let plies = record.moves.len();
                if main_line_san(record.pgn.clone().into_bytes(), plies).is_some() {
                    read_back += 1;
                }
                let exported = ExportedGame::from_record(record).unwrap();
                assert_eq!(exported.moves().collect::<Vec<_>>(), moves, "{text}");
                assert_eq!(exported.hashes, worked_out.hashes);
                assert_eq!(exported.special, worked_out.special);
            }
        }
        assert_eq!(read_back, 12, "every canonical text held its moves");
    }

    #[test]
    fn a_move_that_does_not_fit_is_refused() {
        let v = kabir_rules::variants::builtin("shatranj").unwrap();
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
