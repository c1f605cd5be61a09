//! The derived tables (opening tree, statistics summaries, name index) against brute force and
//! against the paths that do without them: random game sets imported in random batch splits,
//! with duplicates under both rules and appends, give the explorer, position search, name
//! search and statistics that replaying every stored game gives; `Database::rebuild` gives the
//! same derived data again; a file whose derived tables are stale answers the same.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use kabir::db::{
    Database, DuplicateRule, GameFilter, GameId, GameQuery, GameRecord, GroupBy, MergeWork,
    ReportQuery, SortKey, StoredGame, TreeQuery,
};
use kabir::generate::{Options, random_game_from};
use kabir::rules::{Color, Game, Move, Position};
use kabir::variants::Registry;

use crate::db_common::{temp_db, variant};

const NAMES: [&str; 8] = [
    "Carl Abbas",
    "carla",
    "ÉMILE Zaman",
    "émile",
    "Ali \"the bold\"",
    "Timur",
    "ab",
    "?",
];

/// A record of `game` with tags drawn from small pools (some tags left out).
fn record(game: &Game, rng: &mut ChaCha8Rng) -> GameRecord {
    let v = game.start().variant().clone();
    let result = *["1-0", "0-1", "1/2-1/2", "*"].choose(rng).unwrap();
    let date = match rng.random_range(0..4) {
        0 => "????.??.??".to_string(),
        1 => "14??.??.??".to_string(),
        _ => format!(
            "{}.0{}.11",
            rng.random_range(1390..1410),
            rng.random_range(1..9)
        ),
    };
    let values = [
        ("Event", format!("Cup {}", rng.random_range(0..4))),
        (
            "Site",
            ["Samarkand", "Basra", "Bagdad"]
                .choose(rng)
                .unwrap()
                .to_string(),
        ),
        ("Date", date),
        ("Round", rng.random_range(1..5).to_string()),
        ("White", NAMES.choose(rng).unwrap().to_string()),
        ("Black", NAMES.choose(rng).unwrap().to_string()),
    ];
    let mut tags: Vec<(String, String)> = Vec::new();
    for (name, value) in values {
        if rng.random_bool(0.9) {
            tags.push((name.to_string(), value));
        }
    }
    tags.push(("Result".to_string(), result.to_string()));
    GameRecord {
        variant: v,
        start: game.start().clone(),
        moves: game.moves().to_vec(),
        tags: tags.clone(),
        result: result.to_string(),
        pgn: kabir::notation::write_game(game, &tags),
        replayed: None,
    }
}

/// Knights out and back: positions reached again, before and after the tree's last ply.
fn shuffling(rng: &mut ChaCha8Rng) -> Game {
    let v = variant("shatranj");
    let mut game = Game::new(Position::start(&v));
    let play = |game: &mut Game, uci: &str| {
        let m = Move::from_uci(uci, game.position()).unwrap();
        game.play(m).unwrap();
    };
    if rng.random_bool(0.5) {
        play(&mut game, "e2e3");
        play(&mut game, "e7e6");
    }
    for _ in 0..rng.random_range(1..8) {
        for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            play(&mut game, uci);
        }
    }
    for _ in 0..rng.random_range(0..6) {
        let Some(&m) = game.legal_moves().choose(rng) else {
            break;
        };
        game.play(m).unwrap();
    }
    game
}

/// A random set: short games (which share their openings and transpose), longer ones that
/// reach positions beyond the tree, games from a position string, and shuffles.
fn games(seed: u64) -> Vec<GameRecord> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for name in ["tamerlane", "shatranj"] {
        let v = variant(name);
        let n = rng.random_range(8..30);
        for i in 0..n {
            let max_plies = *[2, 4, 6, 15, 16, 17, 30, 60].choose(&mut rng).unwrap();
            let opts = Options {
                max_plies,
                capture_bias: 0.5,
            };
            // Few seeds: many games share their first moves.
            let g = random_game_from(Position::start(&v), rng.random_range(0..3), i % 7, &opts);
            out.push(record(&g, &mut rng));
        }
    }
    let v = variant("shatranj");
    let start = Position::from_fen(
        &v,
        "rnbkqbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBKQBNR b - - 0 1",
    )
    .unwrap();
    for i in 0..rng.random_range(0..5) {
        let opts = Options {
            max_plies: 20,
            capture_bias: 0.5,
        };
        out.push(record(
            &random_game_from(start.clone(), 5, i, &opts),
            &mut rng,
        ));
    }
    for _ in 0..rng.random_range(1..5) {
        let g = shuffling(&mut rng);
        out.push(record(&g, &mut rng));
    }
    // The same moves with other tags: a duplicate by moves, another game by record.
    for i in 0..3 {
        let mut r = out[i * 5 % out.len()].clone();
        r.tags.retain(|(k, _)| k != "White");
        r.tags
            .push(("White".to_string(), "Someone Else".to_string()));
        out.push(r);
    }
    out.shuffle_with(&mut rng);
    out
}

trait ShuffleWith {
    fn shuffle_with(&mut self, rng: &mut ChaCha8Rng);
}

impl<T> ShuffleWith for Vec<T> {
    fn shuffle_with(&mut self, rng: &mut ChaCha8Rng) {
        for i in (1..self.len()).rev() {
            let j = rng.random_range(0..=i);
            self.swap(i, j);
        }
    }
}

/// Imports `recs` in random batches over several sessions, some records twice, under both
/// duplicate rules.
fn import(path: &std::path::Path, recs: &[GameRecord], seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut rest: Vec<GameRecord> = recs.to_vec();
    // Some records come again in a later batch.
    for _ in 0..rng.random_range(0..6) {
        let r = recs.choose(&mut rng).unwrap().clone();
        let at = rng.random_range(0..=rest.len());
        rest.insert(at, r);
    }
    while !rest.is_empty() {
        let mut db = Database::create_or_open(path).unwrap();
        let mut imp = db.importer().unwrap();
        imp.set_duplicate_rule(if rng.random_bool(0.5) {
            DuplicateRule::Record
        } else {
            DuplicateRule::Moves
        });
        imp.set_merge_tiers(rng.random_bool(0.7));
        // Often a little merge work a batch, so that merges are left under way, between
        // batches and between imports.
        if rng.random_bool(0.5) {
            imp.set_merge_work(MergeWork {
                per_entry: rng.random_range(0..=1),
                least: rng.random_range(1..=300),
            });
        }
        let session = rng.random_range(1..=rest.len());
        let mut batches = Vec::new();
        let mut taken: Vec<GameRecord> = rest.drain(..session).collect();
        while !taken.is_empty() {
            let n = rng.random_range(1..=taken.len().min(9));
            batches.push(taken.drain(..n).collect::<Vec<_>>());
        }
        imp.import_all(batches, |_| {}).unwrap();
        // Now and then everything merged: the openings become consolidated ones, and later
        // batches add recent ones to them.
        if rng.random_bool(0.3) {
            db.compact().unwrap();
        }
    }
}

fn stored(db: &Database) -> Vec<StoredGame> {
    let n = db.game_count().unwrap() as u32;
    (1..=n).map(|id| db.game(id).unwrap().unwrap()).collect()
}

fn positions(g: &StoredGame, registry: &Registry) -> Vec<Position> {
    (0..=g.moves.len())
        .map(|ply| g.position_at(registry, ply).unwrap())
        .collect()
}

/// A move of the explorer: uci, games, [white, draws, black, unfinished], total plies,
/// examples.
type BruteMove = (String, u64, [u64; 4], u64, Vec<u32>);

/// The explorer by brute force: games, ended here, moves.
type Brute = (u64, u64, Vec<BruteMove>);

fn brute_explore(games: &[(StoredGame, Vec<Position>)], q: &Position, examples: usize) -> Brute {
    let mut total = 0;
    let mut ended = 0;
    let mut by_move: BTreeMap<String, (u64, [u64; 4], u64, Vec<u32>)> = BTreeMap::new();
    for (g, ps) in games {
        if g.variant != q.variant().id() {
            continue;
        }
        let Some(f) = ps.iter().position(|p| p == q) else {
            continue;
        };
        total += 1;
        let Some(m) = g.moves.get(f) else {
            ended += 1;
            continue;
        };
        let e = by_move.entry(m.to_uci(q)).or_default();
        e.0 += 1;
        let r = match g.result.as_str() {
            "1-0" => 0,
            "1/2-1/2" => 1,
            "0-1" => 2,
            _ => 3,
        };
        e.1[r] += 1;
        e.2 += u64::from(g.plies);
        e.3.push(g.id.0);
    }
    let mut moves: Vec<BruteMove> = by_move
        .into_iter()
        .map(|(uci, (n, r, plies, mut ex))| {
            ex.sort_unstable();
            ex.truncate(examples);
            (uci, n, r, plies, ex)
        })
        .collect();
    moves.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    (total, ended, moves)
}

fn explore(db: &Database, q: &Position, examples: usize) -> Brute {
    let ex = db.explore(q, examples).unwrap();
    let moves = ex
        .moves
        .iter()
        .map(|m| {
            let r = &m.results;
            let plies = (m.average_plies * m.games as f64).round() as u64;
            (
                m.uci.clone(),
                m.games,
                [r.white_wins, r.draws, r.black_wins, r.unfinished],
                plies,
                m.examples.iter().map(|g| g.0).collect(),
            )
        })
        .collect();
    (ex.games, ex.ended_here, moves)
}

/// A copy of the database whose derived tables are marked stale: queries take the paths
/// that do without them.
fn stale_copy(path: &std::path::Path, dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let copy = dir.join(name);
    std::fs::copy(path, &copy).unwrap();
    let conn = rusqlite::Connection::open(&copy).unwrap();
    conn.execute("UPDATE meta SET value = 'stale' WHERE key = 'derived'", [])
        .unwrap();
    copy
}

/// Whether a tag holds the needle, both folded as searches fold names (case and accents).
fn contains(tag: Option<&str>, needle: &str) -> bool {
    let fold = kabir::db::names::fold_name;
    fold(tag.unwrap_or("")).contains(&fold(needle))
}

/// Statistics: the summaries (and the openings, consolidated or recent) give the report that
/// reading every game gives.
fn same_reports(db: &Database, stale: &Database, registry: &Registry) {
    for by in [
        None,
        Some(GroupBy::Variant),
        Some(GroupBy::Termination),
        Some(GroupBy::Year),
        Some(GroupBy::Result),
        Some(GroupBy::Opening),
    ] {
        for (opening_plies, top) in [
            (4, 10),
            (4, 1),
            (1, 3),
            (2, 100),
            (3, 25),
            (3, 0),
            (0, 5),
            (6, 4),
        ] {
            for variant in [None, Some("shatranj"), Some("knavish-shatranj")] {
                let q = ReportQuery {
                    filter: GameFilter {
                        variant: variant.map(str::to_string),
                        ..GameFilter::default()
                    },
                    by,
                    opening_plies,
                    top,
                };
                assert_eq!(
                    db.report(&q, registry).unwrap(),
                    stale.report(&q, registry).unwrap(),
                    "{by:?} {opening_plies} {top} {variant:?}"
                );
            }
        }
    }
}

fn check(seed: u64) {
    let (dir, path) = temp_db();
    let recs = games(seed);
    import(&path, &recs, seed);
    let db = Database::open(&path).unwrap();
    assert!(db.derived_current().unwrap());
    let registry = Registry::builtin();
    let games: Vec<(StoredGame, Vec<Position>)> = stored(&db)
        .into_iter()
        .map(|g| {
            let ps = positions(&g, &registry);
            (g, ps)
        })
        .collect();
    let copy = stale_copy(&path, dir.path(), "stale.db");
    let stale = Database::open(&copy).unwrap();
    assert!(!stale.derived_current().unwrap());

    // Every position of every stored game, and the start positions.
    let mut queries: Vec<Position> = vec![
        Position::start(&variant("tamerlane")),
        Position::start(&variant("shatranj")),
    ];
    for (_, ps) in games.iter() {
        queries.extend(ps.iter().cloned());
    }
    queries.dedup();
    for q in &queries {
        for examples in [1, 3, 8, 12, 13] {
            let want = brute_explore(&games, q, examples);
            assert_eq!(explore(&db, q, examples), want, "{q:?} {examples}");
        }
        let tree = TreeQuery {
            depth: 2,
            breadth: 2,
            ..TreeQuery::default()
        };
        assert_eq!(
            db.explore_tree(q, &tree).unwrap(),
            stale.explore_tree(q, &tree).unwrap()
        );
        let hits = db.search_position(q).unwrap();
        assert_eq!(hits, stale.search_position(q).unwrap());
        for (descending, offset, limit) in
            [(false, 0, 3), (false, 2, 5), (true, 0, 4), (true, 1, 100)]
        {
            let query = GameQuery {
                position: Some(q.clone()),
                sort: SortKey::Id,
                descending,
                offset,
                limit: Some(limit),
                ..GameQuery::default()
            };
            let page = db.search(&query).unwrap();
            assert_eq!(page.total, hits.len() as u64);
            let mut want: Vec<(u32, u32)> = hits.iter().map(|h| (h.game.0, h.ply)).collect();
            if descending {
                want.reverse();
            }
            let want: Vec<(u32, u32)> = want.into_iter().skip(offset).take(limit).collect();
            let got: Vec<(u32, u32)> = page
                .games
                .iter()
                .map(|h| (h.game.id.0, h.ply.unwrap()))
                .collect();
            assert_eq!(got, want, "{q:?}");
            let ids: Vec<u32> = db.search_ids(&query).unwrap().iter().map(|g| g.0).collect();
            let want_ids: Vec<u32> = want.iter().map(|w| w.0).collect();
            assert_eq!(ids, want_ids, "search_ids {q:?}");
        }
        // Every order, with a condition that leaves the index short of the answer: the ids
        // are the search's, all pages at once.
        for sort in SortKey::ALL {
            for descending in [false, true] {
                let query = GameQuery {
                    position: Some(q.clone()),
                    filter: GameFilter {
                        min_plies: Some(3),
                        ..GameFilter::default()
                    },
                    sort,
                    descending,
                    limit: None,
                    ..GameQuery::default()
                };
                let listed: Vec<GameId> = db
                    .search(&query)
                    .unwrap()
                    .games
                    .iter()
                    .map(|h| h.game.id)
                    .collect();
                assert_eq!(db.search_ids(&query).unwrap(), listed, "{sort:?} {q:?}");
            }
        }
    }

    // A variant's games, counted from the summary, as the games count them (a variant with
    // no game too).
    let mut variants = db.variants().unwrap();
    variants.push("courier".to_string());
    for v in variants {
        let f = GameFilter {
            variant: Some(v.clone()),
            ..GameFilter::default()
        };
        assert_eq!(
            db.count_games(&f).unwrap(),
            stale.count_games(&f).unwrap(),
            "{v}"
        );
    }

    // Names: substrings ignoring case and accents, by colour, with other conditions.
    for needle in [
        "carl", "CARL", "émile", "ÉMILE", "emile", "mile", "a", "ab", "\"the", "?", "", "zz",
        "bold\"",
        // A NUL ends an FTS5 query's text: such a needle is looked for among all names.
        "car\0l", "\0carl",
    ] {
        for color in [None, Some(Color::White), Some(Color::Black)] {
            let f = GameFilter {
                player: Some(needle.to_string()),
                color,
                ..GameFilter::default()
            };
            let want: Vec<u32> = games
                .iter()
                .filter(|(g, _)| match color {
                    Some(Color::White) => contains(g.tag("White"), needle),
                    Some(Color::Black) => contains(g.tag("Black"), needle),
                    None => contains(g.tag("White"), needle) || contains(g.tag("Black"), needle),
                })
                .map(|(g, _)| g.id.0)
                .collect();
            assert_eq!(db.count_games(&f).unwrap(), want.len() as u64, "{needle}");
            let page = db
                .search(&GameQuery {
                    filter: f.clone(),
                    limit: Some(5),
                    offset: 1,
                    ..GameQuery::default()
                })
                .unwrap();
            assert_eq!(page.total, want.len() as u64);
            let ids: Vec<u32> = page.games.iter().map(|h| h.game.id.0).collect();
            assert_eq!(
                ids,
                want.iter().skip(1).take(5).copied().collect::<Vec<_>>()
            );
            for sort in SortKey::ALL {
                let query = GameQuery {
                    filter: f.clone(),
                    sort,
                    descending: true,
                    ..GameQuery::default()
                };
                let listed: Vec<GameId> = db
                    .search(&query)
                    .unwrap()
                    .games
                    .iter()
                    .map(|h| h.game.id)
                    .collect();
                assert_eq!(listed.len(), want.len());
                assert_eq!(db.search_ids(&query).unwrap(), listed, "{needle} {sort:?}");
            }
            let with = GameFilter {
                event: Some("cup 1".to_string()),
                site: Some("SAM".to_string()),
                result: Some(kabir::rules::GameResult::WhiteWins),
                ..f.clone()
            };
            assert_eq!(
                db.count_games(&with).unwrap(),
                stale.count_games(&with).unwrap()
            );
            assert_eq!(
                db.find_games(&with, 100, 0).unwrap(),
                stale.find_games(&with, 100, 0).unwrap()
            );
        }
    }

    same_reports(&db, &stale, &registry);
    assert_eq!(db.game_count().unwrap(), games.len() as u64);
    drop(db);
    drop(stale);

    // A rebuild computes the same derived data, whatever the batches were; the stale copy
    // becomes current with the same data.
    let mut db = Database::create_or_open(&path).unwrap();
    let before = db.derived_digest().unwrap().unwrap();
    let done = db.rebuild(&registry, |_, _| {}).unwrap();
    assert!(done.was_current);
    assert_eq!(done.unchanged, Some(true));
    assert_eq!(db.derived_digest().unwrap(), Some(before));
    let mut stale = Database::create_or_open(&copy).unwrap();
    let done = stale.rebuild(&registry, |_, _| {}).unwrap();
    assert!(!done.was_current);
    assert_eq!(done.unchanged, None);
    assert_eq!(stale.derived_digest().unwrap(), Some(before));
    for q in queries.iter().step_by(3) {
        assert_eq!(db.explore(q, 3).unwrap(), stale.explore(q, 3).unwrap());
    }
    drop(stale);
    // After the rebuild every opening is consolidated; an append adds recent ones again.
    let again = stale_copy(&path, dir.path(), "stale-after.db");
    same_reports(&db, &Database::open(&again).unwrap(), &registry);
    let extra: Vec<GameRecord> = self::games(seed ^ 0xadd).into_iter().take(12).collect();
    db.importer()
        .unwrap()
        .import_all(vec![extra], |_| {})
        .unwrap();
    let again = stale_copy(&path, dir.path(), "stale-appended.db");
    same_reports(&db, &Database::open(&again).unwrap(), &registry);
    let digest = db.derived_digest().unwrap();
    let done = db.rebuild(&registry, |_, _| {}).unwrap();
    assert_eq!(done.unchanged, Some(true));
    assert_eq!(db.derived_digest().unwrap(), digest);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    #[test]
    fn derived_tables_answer_as_brute_force(seed in any::<u64>()) {
        check(seed);
    }
}

/// The first visit of each game to `q`, by brute force.
fn brute_hits(games: &[(StoredGame, Vec<Position>)], q: &Position) -> Vec<(u32, u32)> {
    games
        .iter()
        .filter(|(g, _)| g.variant == q.variant().id())
        .filter_map(|(g, ps)| ps.iter().position(|p| p == q).map(|f| (g.id.0, f as u32)))
        .collect()
}

/// Explorer and position search at every position of every stored game against brute force.
fn same_as_brute_force(db: &Database, registry: &Registry) {
    let games: Vec<(StoredGame, Vec<Position>)> = stored(db)
        .into_iter()
        .map(|g| {
            let ps = positions(&g, registry);
            (g, ps)
        })
        .collect();
    let mut queries: Vec<Position> = games.iter().flat_map(|(_, ps)| ps.clone()).collect();
    queries.dedup();
    for q in &queries {
        assert_eq!(explore(db, q, 5), brute_explore(&games, q, 5), "{q:?}");
        let hits: Vec<(u32, u32)> = db
            .search_position(q)
            .unwrap()
            .iter()
            .map(|h| (h.game.0, h.ply))
            .collect();
        assert_eq!(hits, brute_hits(&games, q), "{q:?}");
        let page = db
            .search(&GameQuery {
                position: Some(q.clone()),
                sort: SortKey::Id,
                descending: true,
                limit: Some(2),
                ..GameQuery::default()
            })
            .unwrap();
        assert_eq!(page.total, hits.len() as u64);
    }
}

fn table_rows(db: &Database, sql: &str) -> i64 {
    db.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A file written by version 4 keeps its index entries beyond the opening tree in `posting`
/// rows; version 5 writes them into the tree rows. Read as it is, migrated and appended to
/// (both layouts at once), merged into one segment (`posting` emptied) and rebuilt, it gives
/// the answers of brute force, and the digest of its derived data does not depend on the
/// layout.
#[test]
fn a_version_4_file_reads_appends_and_merges_alike() {
    let (dir, _) = temp_db();
    let path = dir.path().join("v4.db");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/db/v4.db"),
        &path,
    )
    .unwrap();
    let registry = Registry::builtin();
    let db = Database::open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), 4);
    assert!(table_rows(&db, "SELECT count(*) FROM posting") > 0);
    same_as_brute_force(&db, &registry);
    let digest = db.derived_digest().unwrap();
    drop(db);
    // Merged into the new layout alone, the same derived data.
    let copy = dir.path().join("v4-merged.db");
    std::fs::copy(&path, &copy).unwrap();
    let mut merged = Database::create_or_open(&copy).unwrap();
    merged.compact().unwrap();
    assert_eq!(table_rows(&merged, "SELECT count(*) FROM posting"), 0);
    assert_eq!(merged.derived_digest().unwrap(), digest);
    drop(merged);

    // One batch: not enough small segments for a tier merge, so both layouts stay.
    let mut db = Database::create_or_open(&path).unwrap();
    db.importer()
        .unwrap()
        .import_all(vec![games(5)], |_| {})
        .unwrap();
    assert_eq!(db.schema_version().unwrap(), kabir::db::SCHEMA_VERSION);
    assert!(table_rows(&db, "SELECT count(*) FROM posting") > 0);
    assert!(table_rows(&db, "SELECT count(*) FROM tree WHERE beyond IS NOT NULL") > 0);
    same_as_brute_force(&db, &registry);
    let appended = db.derived_digest().unwrap();
    assert_ne!(appended, digest);

    db.compact().unwrap();
    assert_eq!(table_rows(&db, "SELECT count(*) FROM posting"), 0);
    assert_eq!(
        table_rows(
            &db,
            "SELECT count(*) FROM segment GROUP BY variant ORDER BY 1 DESC"
        ),
        1
    );
    assert_eq!(db.derived_digest().unwrap(), appended);
    same_as_brute_force(&db, &registry);

    let rebuilt = db.rebuild(&registry, |_, _| {}).unwrap();
    assert_eq!(rebuilt.unchanged, Some(true));
    assert_eq!(db.derived_digest().unwrap(), appended);
    db.integrity_check().unwrap();
}
