//! Opening suites: the positions that games of a variant reach after exactly a number of
//! plies, with how many games reached each, and the line most of them played to it, for
//! engine matches that start their games from them (`kabir export --openings`).
//!
//! The suite is read from the games' stored moves in one pass, only as far as the ply asked
//! for: neither the opening tree nor the openings' tallies can answer it, the tree counting a
//! game at its first visit of a position whatever the ply, the tallies keeping lines of at
//! most [`OPENING_PLIES`](crate::storage::schema::OPENING_PLIES) plies of the standard start
//! only, and neither honouring a filter on players, events or dates.
//!
//! A game stands in one position after `n` plies, so a position reached by several lines
//! (a transposition) counts each of its games once. Positions are told apart by their
//! position string without its clocks: two games that reach the same position with different
//! halfmove clocks or move numbers (from different set-up starts) are one position.

use std::collections::HashMap;
use std::sync::Arc;

use kabir_rules::{Move, Position, Status, Variant};

use crate::error::DbError;
use crate::read::query::GameFilter;
use crate::storage::codec::{self, GameResult, MOVE_BYTES};
use crate::storage::database::Database;
use crate::write::record::well_formed;

/// What [`Database::opening_suite`] collects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuiteQuery {
    /// The positions after exactly this many plies (0: the games' start positions).
    pub plies: u32,
    /// Only positions that at least this many games reached (0 is taken as 1). Positions
    /// where the rules end the game are never kept.
    pub min_games: u64,
    /// At most this many positions, the most played first (all when `None`).
    pub limit: Option<usize>,
}

/// One position of a suite.
#[derive(Debug, Clone, PartialEq)]
pub struct SuitePosition {
    /// The position, with the clocks of [`SuitePosition::line`].
    pub position: Position,
    /// The games that stood in it after the suite's plies.
    pub games: u64,
    /// Of those, the games White won.
    pub white: u64,
    /// The drawn games.
    pub draws: u64,
    /// The games Black won.
    pub black: u64,
    /// The different lines (start position and moves) that led to it.
    pub lines: usize,
    /// The start position of its most played line.
    pub start: Position,
    /// Whether that start is the variant's start position.
    pub standard_start: bool,
    /// The most played line's moves from `start` (among lines played by as many games, the
    /// one whose first game has the lowest id).
    pub line: Vec<Move>,
    /// The same moves in canonical SAN with check marks.
    pub line_san: Vec<String>,
    /// The games that played the most played line.
    pub line_games: u64,
    /// The lowest id of the games that reached the position.
    pub first_game: u32,
}

impl SuitePosition {
    /// The games without a result (`*`).
    pub fn unfinished(&self) -> u64 {
        self.games
            .saturating_sub(self.white + self.draws + self.black)
    }

    /// White's score in percent over the games with a result (a draw is half a point);
    /// `None` when no game has one.
    pub fn white_score(&self) -> Option<f64> {
        let decided = self.white + self.draws + self.black;
        (decided > 0)
            .then(|| (self.white as f64 + self.draws as f64 / 2.0) * 100.0 / decided as f64)
    }

    /// The position's string without its clocks, as EPD writes a position: `board side
    /// castling ep`, or, in a variant whose position strings have a waiting order, the whole
    /// position string (the order follows the clocks, and an EPD line cannot leave them out).
    pub fn epd_fields(&self) -> String {
        let fen = self.position.to_fen();
        let fields: Vec<&str> = fen.split(' ').collect();
        if fields.len() > 6 {
            fen
        } else {
            fields[..fields.len().min(4)].join(" ")
        }
    }
}

/// An opening suite of one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    /// The variant's id.
    pub variant: String,
    /// The suite's plies.
    pub plies: u32,
    /// The games read: those matching the filter that are at least `plies` long.
    pub games: u64,
    /// The positions they reached, all of them (before the minimum and the limit).
    pub reached: usize,
    /// The positions left out, before the limit, because the rules end the game there
    /// (mate, stalemate, a bare king): no game can start from them.
    pub over: usize,
    /// The positions kept: most games first, then by [`SuitePosition::epd_fields`].
    pub positions: Vec<SuitePosition>,
}

/// A line to a position: the index of its start among the starts met, and its moves.
type LineKey = (usize, Vec<Move>);

#[derive(Default)]
struct Group {
    games: u64,
    results: [u64; 3],
    first_game: u32,
    /// Each line: its games and its first game's id.
    lines: HashMap<LineKey, (u64, u32)>,
}

impl Database {
    /// The positions games of `variant` matching `filter` reach after exactly `q.plies`
    /// plies, reached by at least `q.min_games` of them, most games first and, among as
    /// many, in the order of their position strings. Games shorter than `q.plies` are left
    /// out; the filter's own variant is replaced by `variant`.
    ///
    /// # Errors
    ///
    /// [`DbError::Corrupt`] if a game's start position or moves do not replay, and the
    /// errors of reading the database.
    pub fn opening_suite(
        &self,
        variant: &Arc<Variant>,
        filter: &GameFilter,
        q: &SuiteQuery,
    ) -> Result<Suite, DbError> {
        let mut filter = filter.clone();
        filter.variant = Some(variant.id().to_string());
        filter.min_plies = Some(filter.min_plies.unwrap_or(0).max(q.plies));
        let plies = q.plies as usize;
        let corrupt = |id: u32, what: String| DbError::Corrupt {
            path: self.path.clone(),
            detail: format!("game {id}: {what}"),
        };
        let mut starts: Vec<(String, Position)> = Vec::new();
        let mut groups: HashMap<String, Group> = HashMap::new();
        let mut games = 0u64;
        self.read(|layout| {
            let (clause, mut args) = self.filter_sql(&filter, layout)?;
            args.push(Box::new(
                i64::try_from(plies.saturating_mul(MOVE_BYTES)).unwrap_or(i64::MAX),
            ));
            let sql = format!(
                "SELECT g.id, g.start_fen, substr(g.moves, 1, ?{}), g.result
                 FROM game g LEFT JOIN variant v ON v.id = g.variant{clause} ORDER BY g.id",
                args.len()
            );
            let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
            let mut rows = stmt
                .query(rusqlite::params_from_iter(args.iter()))
                .map_err(|e| self.err(e))?;
            while let Some(r) = rows.next().map_err(|e| self.err(e))? {
                let id: u32 = r.get(0).map_err(|e| self.err(e))?;
                let start_fen: String = r.get(1).map_err(|e| self.err(e))?;
                let blob: Vec<u8> = r.get(2).map_err(|e| self.err(e))?;
                let result = codec::result_column(r, 3).map_err(|e| self.err(e))?;
                let moves = codec::decode_moves(&blob)
                    .filter(|m| m.len() == plies)
                    .ok_or_else(|| corrupt(id, "its moves do not decode".to_string()))?;
                let start = match starts.iter().position(|(f, _)| *f == start_fen) {
                    Some(i) => i,
                    None => {
                        let pos = Position::from_fen(variant, &start_fen).map_err(|e| {
                            corrupt(id, format!("its start position {start_fen:?}: {e}"))
                        })?;
                        starts.push((start_fen, pos));
                        starts.len() - 1
                    }
                };
                let mut pos = starts[start].1.clone();
                for (i, &m) in moves.iter().enumerate() {
                    if !well_formed(&pos, m) {
                        return Err(corrupt(id, format!("its move {} does not fit", i + 1)));
                    }
                    pos.play_unchecked(m);
                }
                games += 1;
                let g = groups.entry(without_clocks(&pos.to_fen())).or_default();
                if g.games == 0 {
                    g.first_game = id;
                }
                g.games += 1;
                match result {
                    GameResult::WhiteWins => g.results[0] += 1,
                    GameResult::Draw => g.results[1] += 1,
                    GameResult::BlackWins => g.results[2] += 1,
                    GameResult::Unknown => {}
                }
                g.lines.entry((start, moves)).or_insert((0, id)).0 += 1;
            }
            Ok(())
        })?;
        let reached = groups.len();
        let mut kept: Vec<(String, Group)> = groups
            .into_iter()
            .filter(|(_, g)| g.games >= q.min_games.max(1))
            .collect();
        kept.sort_by(|a, b| b.1.games.cmp(&a.1.games).then_with(|| a.0.cmp(&b.0)));
        let standard = Position::start(variant);
        let mut positions = Vec::with_capacity(kept.len().min(q.limit.unwrap_or(usize::MAX)));
        let mut over = 0;
        for (_, g) in kept {
            if q.limit.is_some_and(|n| positions.len() >= n) {
                break;
            }
            let lines = g.lines.len();
            let Some(((start, line), (line_games, _))) = g
                .lines
                .into_iter()
                .min_by(|a, b| b.1.0.cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)))
            else {
                continue;
            };
            let start_pos = starts[start].1.clone();
            let mut pos = start_pos.clone();
            let mut legal = Vec::new();
            let mut line_san = Vec::with_capacity(line.len());
            for &m in &line {
                pos.legal_moves_into(&mut legal);
                line_san.push(kabir_notation::san_plus(&pos, m, &legal));
                pos.play_unchecked(m);
            }
            if matches!(pos.status(), Status::Over { .. }) {
                over += 1;
                continue;
            }
            positions.push(SuitePosition {
                position: pos,
                games: g.games,
                white: g.results[0],
                draws: g.results[1],
                black: g.results[2],
                lines,
                standard_start: start_pos == standard,
                start: start_pos,
                line,
                line_san,
                line_games,
                first_game: g.first_game,
            });
        }
        Ok(Suite {
            variant: variant.id().to_string(),
            plies: q.plies,
            games,
            reached,
            over,
            positions,
        })
    }
}

/// A position string without its halfmove clock and move number (fields 5 and 6).
fn without_clocks(fen: &str) -> String {
    fen.split(' ')
        .enumerate()
        .filter(|&(i, _)| i != 4 && i != 5)
        .map(|(_, f)| f)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::record::GameRecord;
    use kabir_rules::Game;

    fn record(v: &Arc<Variant>, line: &[&str], result: &str) -> GameRecord {
        let mut game = Game::new(Position::start(v));
        for uci in line {
            let m = Move::from_uci(uci, game.position()).unwrap();
            game.play(m).unwrap();
        }
        GameRecord::from_game(
            v.clone(),
            &game,
            Vec::new(),
            result.to_string(),
            String::new(),
        )
    }

    /// Transposed lines count each game once, in one position; the most played line is kept;
    /// shorter games and other positions below the minimum are left out.
    #[test]
    fn transpositions_count_each_game_once() {
        let v = kabir_rules::variants::builtin("shatranj").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut db = Database::create_or_open(dir.path().join("t.db")).unwrap();
        let a = ["g1f3", "g8f6", "b1c3", "b8c6"];
        let b = ["b1c3", "b8c6", "g1f3", "g8f6"];
        let c = ["b1c3", "g8f6", "g1f3", "b8c6"];
        let other = ["e2e3", "e7e6", "d2d3", "d7d6"];
        let records = vec![
            record(&v, &a, "1-0"),
            record(&v, &b, "0-1"),
            record(&v, &b, "1/2-1/2"),
            record(&v, &c, "*"),
            record(&v, &other, "1-0"),
            record(&v, &a[..3], "1-0"),
        ];
        db.importer().unwrap().import_batch(records).unwrap();
        let q = SuiteQuery {
            plies: 4,
            min_games: 2,
            limit: None,
        };
        let suite = db.opening_suite(&v, &GameFilter::default(), &q).unwrap();
        assert_eq!((suite.games, suite.reached), (5, 2));
        assert_eq!(suite.positions.len(), 1);
        let p = &suite.positions[0];
        assert_eq!(
            (p.games, p.white, p.draws, p.black, p.unfinished()),
            (4, 1, 1, 1, 1)
        );
        assert_eq!((p.lines, p.line_games, p.first_game), (3, 2, 1));
        assert_eq!(p.line_san, ["Nc3", "Nc6", "Nf3", "Nf6"]);
        assert!(p.standard_start);
        assert_eq!(p.white_score(), Some(50.0));
        assert_eq!(
            p.epd_fields(),
            "r1bkqb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BKQB1R w - -"
        );
        // Every position, most games first, then by position string; then at most one.
        let all = SuiteQuery { min_games: 0, ..q };
        let suite = db.opening_suite(&v, &GameFilter::default(), &all).unwrap();
        let games: Vec<u64> = suite.positions.iter().map(|p| p.games).collect();
        assert_eq!(games, [4, 1]);
        let one = SuiteQuery {
            limit: Some(1),
            ..all
        };
        assert_eq!(
            db.opening_suite(&v, &GameFilter::default(), &one)
                .unwrap()
                .positions
                .len(),
            1
        );
        // A filter narrows the games read.
        let white_wins = GameFilter {
            result: Some(GameResult::WhiteWins),
            ..GameFilter::default()
        };
        let suite = db.opening_suite(&v, &white_wins, &all).unwrap();
        assert_eq!(suite.games, 2);
        // Plies 0: the start position, every game.
        let start = SuiteQuery { plies: 0, ..all };
        let suite = db
            .opening_suite(&v, &GameFilter::default(), &start)
            .unwrap();
        assert_eq!(suite.positions[0].games, 6);
        assert!(suite.positions[0].line.is_empty());
    }
}
