//! The explorer over the games a filter keeps (players, events, sites, dates, results), and the
//! lists of a position's games worth reading: its most recent games and its shortest decisive
//! ones.
//!
//! Unfiltered, the explorer adds up the opening tree's rows. A filter the tree cannot answer
//! starts from the cheaper side: the position's first visits in the position index, kept when
//! their game passes the filter; or, when the filter keeps fewer games than reached the
//! position (one player among many), those games, each replayed to its first visit. Either
//! way a game counts once for the position, at its first visit, and once for its move then,
//! as unfiltered.

use std::collections::HashMap;

use kabir_rules::{Move, Position};

use crate::error::DbError;
use crate::read::query::{Contribution, Explorer, GameFilter, GameId};
use crate::read::search::SearchHit;
use crate::storage::codec::{self, GameResult, Posting};
use crate::storage::database::{Database, Layout};
use crate::write::record::well_formed;

/// A game replayed (a row read at random, a few hundred moves decoded) costs about as much as
/// this many index entries read and checked (measured at a million games: 33 µs against 0.8):
/// the kept games are replayed only when they are this many times fewer than the games that
/// reached the position.
const REPLAY_COST: u64 = 64;

/// The conditions of a filtered explorer, with what was found of them once, for every
/// position of a tree.
pub(crate) struct Kept {
    /// The conditions, empty texts taken as none.
    filter: GameFilter,
    /// The games the name index gives for the filter's texts (`Some(None)`: it gives none).
    named: Option<Option<Vec<GameId>>>,
}

/// A kept game, ready to replay.
struct KeptGame {
    id: GameId,
    start_fen: String,
    standard_start: bool,
    moves: Vec<Move>,
    result: GameResult,
    plies: u16,
}

impl Kept {
    pub(crate) fn new(filter: &GameFilter) -> Kept {
        let text = |t: &Option<String>| t.clone().filter(|t| !t.is_empty());
        let mut filter = GameFilter {
            player: text(&filter.player),
            event: text(&filter.event),
            site: text(&filter.site),
            ..filter.clone()
        };
        // A colour says which side the player had; without a player it keeps every game.
        if filter.player.is_none() {
            filter.color = None;
        }
        Kept {
            filter,
            named: None,
        }
    }

    /// Whether every game is kept (the variant aside, which the position decides).
    fn keeps_all(&self) -> bool {
        GameFilter {
            variant: None,
            ..self.filter.clone()
        }
        .is_empty()
    }

    /// Whether the filter asks only for names and a result, which the name index and every
    /// index entry answer without reading the games.
    fn names_and_result(&self) -> bool {
        GameFilter {
            variant: None,
            result: None,
            player: None,
            color: None,
            event: None,
            site: None,
            ..self.filter.clone()
        }
        .is_empty()
    }

    /// Whether the filter asks only for a result, which every index entry carries.
    fn result_only(&self) -> bool {
        GameFilter {
            variant: None,
            result: None,
            ..self.filter.clone()
        }
        .is_empty()
    }

    /// The filter for games of `pos`'s variant; `None` when it asks for another variant.
    fn for_variant(&self, pos: &Position) -> Option<GameFilter> {
        let id = pos.variant().id();
        match self.filter.variant.as_deref() {
            Some(v) if v != id => None,
            _ => Some(GameFilter {
                variant: Some(id.to_string()),
                ..self.filter.clone()
            }),
        }
    }
}

/// Replays games to the first time they stand at a position.
struct Replay<'a> {
    target: &'a Position,
    /// Its pieces: no move adds a piece in these games (a promotion replaces one), so a game
    /// with fewer can never reach it again.
    pieces: u32,
    standard: Position,
    starts: HashMap<String, Position>,
}

impl<'a> Replay<'a> {
    fn new(target: &'a Position) -> Replay<'a> {
        Replay {
            target,
            pieces: target.occupied().count(),
            standard: Position::start(target.variant()),
            starts: HashMap::new(),
        }
    }

    /// The index entry of the game's first visit of the target, if it reaches it; the error
    /// says what of the stored game is damaged.
    fn first_visit(&mut self, g: &KeptGame) -> Result<Option<Posting>, &'static str> {
        let mut here = if g.standard_start {
            self.standard.clone()
        } else if let Some(p) = self.starts.get(&g.start_fen) {
            p.clone()
        } else {
            let p = Position::from_fen(self.target.variant(), &g.start_fen)
                .map_err(|_| "bad start position")?;
            self.starts.insert(g.start_fen.clone(), p.clone());
            p
        };
        let target = self.target.hash();
        for ply in 0..=g.moves.len() {
            if here.hash() == target && here == *self.target {
                return Ok(Some(Posting {
                    hash: target,
                    game: g.id.0,
                    ply: u16::try_from(ply).unwrap_or(u16::MAX),
                    mv: g.moves.get(ply).copied(),
                    result: g.result,
                    standard_start: g.standard_start,
                    plies: g.plies,
                }));
            }
            let Some(&m) = g.moves.get(ply) else {
                break;
            };
            if here.occupied().count() < self.pieces {
                break;
            }
            if !well_formed(&here, m) {
                return Err("a stored move does not fit its position");
            }
            here.play_unchecked(m);
        }
        Ok(None)
    }
}

/// A position's games worth reading ([`Database::explore_games`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExplorerGames {
    /// Its most recent games by the Date tag, newest first; games of an unknown year last,
    /// then by id. A month or day not known counts as the first of the year or month.
    pub recent: Vec<SearchHit>,
    /// Its decisive games (`1-0`, `0-1`), shortest first, then by id.
    pub decisive: Vec<SearchHit>,
}

/// The order of [`ExplorerGames::recent`], as SQL (fixed text).
const RECENT_ORDER: &str = "coalesce(g.date GLOB '[0-9][0-9][0-9][0-9]*', 0) DESC, \
     replace(g.date, '?', '0') DESC, g.id";

impl Database {
    /// The opening explorer for a position counting only the games `filter` keeps, with up
    /// to `examples` game ids per move: [`Database::explore`] when it keeps every game. A game
    /// counts once for the position, at its first visit, and once for the move it played
    /// then. The filter's variant, if given, must be the position's (else no game is kept).
    pub fn explore_filtered(
        &self,
        pos: &Position,
        filter: &GameFilter,
        examples: usize,
    ) -> Result<Explorer, DbError> {
        self.read(|layout| self.explore_kept(pos, &mut Kept::new(filter), examples, layout))
    }

    pub(crate) fn explore_kept(
        &self,
        pos: &Position,
        kept: &mut Kept,
        examples: usize,
        layout: Layout,
    ) -> Result<Explorer, DbError> {
        if kept.keeps_all() && kept.for_variant(pos).is_some() {
            return self.explore_in(pos, examples, layout);
        }
        let found: Vec<Contribution> = self
            .kept_visits(pos, kept, layout)?
            .iter()
            .map(Contribution::of_visit)
            .collect();
        self.tally(pos, &found, examples)
    }

    /// The first visit of `pos` of each game the filter keeps, in id order.
    fn kept_visits(
        &self,
        pos: &Position,
        kept: &mut Kept,
        layout: Layout,
    ) -> Result<Vec<Posting>, DbError> {
        let Some(filter) = kept.for_variant(pos) else {
            return Ok(Vec::new());
        };
        if kept.keeps_all() || kept.result_only() {
            let mut visits = self.first_visits(pos, layout)?;
            if let Some(r) = filter.result {
                visits.retain(|p| p.result == r);
            }
            return Ok(visits);
        }
        if kept.named.is_none() {
            kept.named = Some(self.named_games(&filter, layout)?);
        }
        let named = kept.named.as_ref().and_then(Option::as_ref);
        if let Some(named) = named {
            let reached = if layout.current {
                self.position_games(pos, layout)?.total()
            } else {
                u64::MAX
            };
            if (named.len() as u64).saturating_mul(REPLAY_COST) < reached {
                return self.replayed_visits(pos, &filter, layout);
            }
        }
        let mut visits = self.first_visits(pos, layout)?;
        if visits.is_empty() {
            return Ok(visits);
        }
        let keep = match named {
            Some(named) if kept.names_and_result() => named.clone(),
            _ => {
                let among = GameFilter {
                    games: Some(visits.iter().map(|p| GameId(p.game)).collect()),
                    ..filter.clone()
                };
                self.kept_ids(&among, layout)?
            }
        };
        visits.retain(|p| {
            keep.binary_search(&GameId(p.game)).is_ok()
                && filter.result.is_none_or(|r| r == p.result)
        });
        Ok(visits)
    }

    /// The ids of the games a filter keeps, ascending.
    fn kept_ids(&self, filter: &GameFilter, layout: Layout) -> Result<Vec<GameId>, DbError> {
        let (clause, args) = self.filter_sql(filter, layout)?;
        let sql = format!("SELECT g.id FROM game g{clause} ORDER BY g.id");
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        stmt.query_map(rusqlite::params_from_iter(args.iter()), |r| r.get(0))
            .and_then(|rows| rows.collect::<Result<Vec<GameId>, _>>())
            .map_err(|e| self.err(e))
    }

    /// The first visit of `pos` of each game `filter` keeps, found by replaying the games one
    /// by one as they are read.
    fn replayed_visits(
        &self,
        pos: &Position,
        filter: &GameFilter,
        layout: Layout,
    ) -> Result<Vec<Posting>, DbError> {
        let (clause, args) = self.filter_sql(filter, layout)?;
        let sql = format!(
            "SELECT g.id, g.start_fen, g.standard_start, g.moves, g.result
             FROM game g{clause} ORDER BY g.id"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(args.iter()))
            .map_err(|e| self.err(e))?;
        let mut replay = Replay::new(pos);
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let read = |r: &rusqlite::Row<'_>| -> rusqlite::Result<_> {
                Ok((
                    r.get::<_, GameId>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, bool>(2)?,
                    r.get::<_, Vec<u8>>(3)?,
                    r.get::<_, String>(4)?,
                ))
            };
            let (id, start_fen, standard_start, blob, result) = read(r).map_err(|e| self.err(e))?;
            let corrupt = |what: &str| DbError::Corrupt {
                path: self.path.clone(),
                detail: format!("game {id}: {what}"),
            };
            let moves = codec::decode_moves(&blob).ok_or_else(|| corrupt("bad moves"))?;
            let result =
                GameResult::from_ascii(result.as_bytes()).ok_or_else(|| corrupt("bad result"))?;
            let plies = u16::try_from(moves.len()).unwrap_or(u16::MAX);
            let game = KeptGame {
                id,
                start_fen,
                standard_start,
                moves,
                result,
                plies,
            };
            if let Some(p) = replay.first_visit(&game).map_err(corrupt)? {
                out.push(p);
            }
        }
        Ok(out)
    }

    /// The games of `pos` worth reading, among those `filter` keeps: up to `n` of its most
    /// recent games and up to `n` of its shortest decisive ones, each with the ply of its first
    /// visit.
    pub fn explore_games(
        &self,
        pos: &Position,
        filter: &GameFilter,
        n: usize,
    ) -> Result<ExplorerGames, DbError> {
        self.read(|layout| {
            let visits = self.kept_visits(pos, &mut Kept::new(filter), layout)?;
            if visits.is_empty() || n == 0 {
                return Ok(ExplorerGames::default());
            }
            let plies: HashMap<GameId, u32> = visits
                .iter()
                .map(|p| (GameId(p.game), u32::from(p.ply)))
                .collect();
            let hits = |games| crate::read::search::hits_at(games, &plies);
            let all = GameFilter {
                games: Some(visits.iter().map(|p| GameId(p.game)).collect()),
                ..GameFilter::default()
            };
            let recent = self.list_games(&all, RECENT_ORDER, n, 0)?;
            // The index entries carry each game's result and length: only the listed rows
            // are read.
            let mut decisive: Vec<&Posting> = visits
                .iter()
                .filter(|p| matches!(p.result, GameResult::WhiteWins | GameResult::BlackWins))
                .collect();
            decisive.sort_unstable_by_key(|p| (p.plies, p.game));
            decisive.truncate(n);
            let decisive = if decisive.is_empty() {
                Vec::new()
            } else {
                let shortest = GameFilter {
                    games: Some(decisive.iter().map(|p| GameId(p.game)).collect()),
                    ..GameFilter::default()
                };
                self.list_games(&shortest, "g.plies, g.id", n, 0)?
            };
            Ok(ExplorerGames {
                recent: hits(recent),
                decisive: hits(decisive),
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::derived::names::fold_name;
    use crate::read::query::{StoredGame, TreeQuery};
    use crate::write::record::GameRecord;
    use kabir_rules::Color;
    use kabir_rules::generate::{Options, random_game};
    use std::collections::BTreeMap;

    const PLAYERS: [&str; 4] = ["Ånna Berg", "Bob", "carl Olsen", "Bob Anna"];
    const EVENTS: [&str; 3] = ["Open Cup", "Spring Open", "Club"];
    const DATES: [&str; 6] = [
        "2020.05.01",
        "2021.??.??",
        "2021.03.04",
        "????.??.??",
        "2019.12.31",
        "2021.03.05",
    ];
    const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

    /// Short random shatranj games, so that lines meet, with tags drawn from small pools; one
    /// rare player ("Zoë") so that a filter keeps far fewer games than reach the start.
    fn database(dir: &tempfile::TempDir) -> (Database, Vec<StoredGame>) {
        let v = kabir_rules::variants::builtin("shatranj").unwrap();
        let mut db = Database::create_or_open(dir.path().join("f.db")).unwrap();
        let mut records = Vec::new();
        for i in 0..400u64 {
            let options = Options {
                max_plies: (i % 13) as usize,
                ..Options::default()
            };
            let game = random_game(&v, 3, i % 150, &options);
            let pick = |n: u64, m: usize| (i.wrapping_mul(n) >> 3) as usize % m;
            let white = if i % 160 == 5 {
                "Zoë".to_string()
            } else {
                PLAYERS[pick(7, 4)].to_string()
            };
            let tags = vec![
                ("Event".to_string(), EVENTS[pick(11, 3)].to_string()),
                ("Date".to_string(), DATES[pick(13, 6)].to_string()),
                ("White".to_string(), white),
                ("Black".to_string(), PLAYERS[pick(17, 4)].to_string()),
            ];
            let result = RESULTS[pick(19, 4)].to_string();
            records.push(GameRecord::from_game(
                v.clone(),
                &game,
                tags,
                result,
                String::new(),
            ));
        }
        db.importer().unwrap().import_batch(records).unwrap();
        let games = (1..=400u32)
            .map(|id| db.game(GameId(id)).unwrap().unwrap())
            .collect();
        (db, games)
    }

    fn keeps(f: &GameFilter, g: &StoredGame) -> bool {
        let has = |tag: &str, text: &Option<String>| {
            text.as_ref()
                .is_none_or(|t| fold_name(g.tag(tag).unwrap_or("")).contains(&fold_name(t)))
        };
        let player = match f.color {
            Some(Color::White) => has("White", &f.player),
            Some(Color::Black) => has("Black", &f.player),
            None => f.player.is_none() || has("White", &f.player) || has("Black", &f.player),
        };
        let date = g.tag("Date").unwrap_or("????.??.??");
        let dated = date.as_bytes()[..4].iter().all(u8::is_ascii_digit);
        let from = f
            .date_from
            .as_ref()
            .is_none_or(|d| dated && date >= d.as_str());
        let to = f
            .date_to
            .as_ref()
            .is_none_or(|d| dated && &date[..d.len()] <= d.as_str());
        player
            && has("Event", &f.event)
            && has("Site", &f.site)
            && from
            && to
            && f.result.is_none_or(|r| r == g.result)
            && f.variant.as_ref().is_none_or(|v| *v == g.variant)
    }

    /// The first ply at which a game stands at `pos`.
    fn first_visit(g: &StoredGame, pos: &Position) -> Option<usize> {
        let mut here = Position::start(pos.variant());
        for ply in 0..=g.moves.len() {
            if here == *pos {
                return Some(ply);
            }
            if let Some(&m) = g.moves.get(ply) {
                here.play_unchecked(m);
            }
        }
        None
    }

    /// Games, results, games ended there; per move (uci): games, results, plies, lowest ids.
    type Counts = (
        u64,
        [u64; 4],
        u64,
        BTreeMap<String, (u64, [u64; 4], u64, Vec<u32>)>,
    );

    fn split(r: &crate::read::query::Results) -> [u64; 4] {
        [r.white_wins, r.draws, r.black_wins, r.unfinished]
    }

    fn brute(games: &[StoredGame], pos: &Position, f: &GameFilter, examples: usize) -> Counts {
        let mut out: Counts = (0, [0; 4], 0, BTreeMap::new());
        for g in games.iter().filter(|g| keeps(f, g)) {
            let Some(ply) = first_visit(g, pos) else {
                continue;
            };
            let mut r = crate::read::query::Results::default();
            r.add(g.result, 1);
            out.0 += 1;
            for (a, b) in out.1.iter_mut().zip(split(&r)) {
                *a += b;
            }
            let Some(&m) = g.moves.get(ply) else {
                out.2 += 1;
                continue;
            };
            let e = out.3.entry(m.to_uci(pos)).or_default();
            e.0 += 1;
            for (a, b) in e.1.iter_mut().zip(split(&r)) {
                *a += b;
            }
            e.2 += u64::from(g.plies);
            if e.3.len() < examples {
                e.3.push(g.id.0);
            }
        }
        out
    }

    fn counts(ex: &Explorer) -> Counts {
        let moves = ex
            .moves
            .iter()
            .map(|m| {
                let plies = (m.average_plies * m.games as f64).round() as u64;
                let ids = m.examples.iter().map(|g| g.0).collect();
                (m.uci.clone(), (m.games, split(&m.results), plies, ids))
            })
            .collect();
        (ex.games, split(&ex.results), ex.ended_here, moves)
    }

    fn filters() -> Vec<GameFilter> {
        let text = |s: &str| Some(s.to_string());
        vec![
            GameFilter::default(),
            GameFilter {
                player: text("anna"),
                ..GameFilter::default()
            },
            GameFilter {
                player: text("BOB"),
                color: Some(Color::Black),
                ..GameFilter::default()
            },
            GameFilter {
                player: text("zoe"),
                color: Some(Color::White),
                ..GameFilter::default()
            },
            GameFilter {
                player: text("zoe"),
                result: Some(GameResult::WhiteWins),
                ..GameFilter::default()
            },
            GameFilter {
                event: text("open"),
                ..GameFilter::default()
            },
            GameFilter {
                date_from: text("2020"),
                date_to: text("2021.03"),
                ..GameFilter::default()
            },
            GameFilter {
                result: Some(GameResult::Draw),
                ..GameFilter::default()
            },
            GameFilter {
                player: text("carl"),
                event: text("club"),
                date_from: text("2021.03.05"),
                result: Some(GameResult::BlackWins),
                ..GameFilter::default()
            },
            GameFilter {
                site: text("nowhere"),
                ..GameFilter::default()
            },
            GameFilter {
                variant: text("tamerlane"),
                ..GameFilter::default()
            },
        ]
    }

    /// The positions of the first plies of a few games: the start, positions many games
    /// reach and positions one game reaches.
    fn positions(games: &[StoredGame]) -> Vec<Position> {
        let mut out = Vec::new();
        for g in games.iter().step_by(41) {
            let mut here = Position::start(&kabir_rules::variants::builtin("shatranj").unwrap());
            for &m in g.moves.iter().take(4) {
                out.push(here.clone());
                here.play_unchecked(m);
            }
            out.push(here);
        }
        out
    }

    #[test]
    fn filtered_explorer_counts_what_replaying_the_kept_games_counts() {
        let dir = tempfile::tempdir().unwrap();
        let (db, games) = database(&dir);
        let mut nonzero = 0;
        for pos in positions(&games) {
            for f in filters() {
                for examples in [3, 20] {
                    let got = db.explore_filtered(&pos, &f, examples).unwrap();
                    let want = brute(&games, &pos, &f, examples);
                    assert_eq!(counts(&got), want, "{f:?} at {}", pos.to_fen());
                    if got.games > 0 && !f.is_empty() {
                        nonzero += 1;
                    }
                }
            }
        }
        assert!(nonzero > 50, "{nonzero}");
    }

    /// An explorer without the positions under its moves.
    fn flat(ex: &Explorer) -> Explorer {
        let mut ex = ex.clone();
        for m in &mut ex.moves {
            m.next = None;
        }
        ex
    }

    #[test]
    fn filtered_trees_count_each_position_as_the_explorer_does() {
        let dir = tempfile::tempdir().unwrap();
        let (db, _) = database(&dir);
        let v = kabir_rules::variants::builtin("shatranj").unwrap();
        let start = Position::start(&v);
        let q = TreeQuery {
            depth: 3,
            breadth: 2,
            ..TreeQuery::default()
        };
        for f in filters() {
            let tree = db.explore_tree_filtered(&start, &f, &q).unwrap();
            assert_eq!(
                flat(&tree.root),
                db.explore_filtered(&start, &f, 3).unwrap()
            );
            for m in tree.root.moves.iter().take(2) {
                let next = m.next.as_deref().expect("followed");
                assert_eq!(
                    flat(next),
                    db.explore_filtered(&start.after(m.mv), &f, 3).unwrap(),
                    "{f:?}"
                );
            }
        }
    }

    #[test]
    fn game_lists_are_the_newest_and_the_shortest_decisive_kept_games() {
        let dir = tempfile::tempdir().unwrap();
        let (db, games) = database(&dir);
        let key = |g: &StoredGame| {
            let d = g.tag("Date").unwrap_or("????.??.??").replace('?', "0");
            let known = !d.starts_with("0000");
            (std::cmp::Reverse((known, d)), g.id)
        };
        for pos in positions(&games).into_iter().step_by(3) {
            for f in filters() {
                let mut kept: Vec<&StoredGame> = games
                    .iter()
                    .filter(|g| keeps(&f, g) && first_visit(g, &pos).is_some())
                    .collect();
                let got = db.explore_games(&pos, &f, 5).unwrap();
                kept.sort_by_key(|g| key(g));
                let recent: Vec<u32> = kept.iter().take(5).map(|g| g.id.0).collect();
                let ids = |l: &[SearchHit]| l.iter().map(|h| h.game.id.0).collect::<Vec<_>>();
                assert_eq!(ids(&got.recent), recent, "{f:?}");
                kept.retain(|g| matches!(g.result, GameResult::WhiteWins | GameResult::BlackWins));
                kept.sort_by_key(|g| (g.plies, g.id));
                let decisive: Vec<u32> = kept.iter().take(5).map(|g| g.id.0).collect();
                assert_eq!(ids(&got.decisive), decisive, "{f:?}");
                for h in got.recent.iter().chain(&got.decisive) {
                    let g = &games[h.game.id.0 as usize - 1];
                    assert_eq!(h.ply, first_visit(g, &pos).map(|p| p as u32));
                }
            }
        }
    }
}
