//! Import speed: generated games into a fresh database.
//!
//! `cargo bench --bench import` imports 100,000 random Tamerlane games and 100,000 random
//! shatranj games (generated first, on all cores, not timed) and prints games/s, positions/s,
//! bytes per game on disk, and the time SQLite takes to insert the same number of rows bare.
//! `KABIR_BENCH_GAMES` sets the number of games, `KABIR_BENCH_VARIANTS` the variants
//! (comma-separated), `KABIR_BENCH_BATCH` the batch size. Figures are recorded in
//! docs/PERFORMANCE.md.

use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rusqlite::{Connection, params};

use kabir::db::{Database, GameRecord, ReportQuery};
use kabir::generate::{Options, random_game};
use kabir::rules::Position;

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn records(variant: &str, n: u64) -> Vec<GameRecord> {
    let v = kabir::variants::builtin(variant).expect("built-in variant");
    (0..n)
        .into_par_iter()
        .map(|i| {
            let game = random_game(&v, 2024, i, &Options::default());
            let result = game
                .status()
                .outcome()
                .map_or("*", |o| o.as_pgn())
                .to_string();
            let tags = vec![
                ("Event".to_string(), "Import benchmark".to_string()),
                ("Site".to_string(), "kabir".to_string()),
                ("Date".to_string(), "2024.01.01".to_string()),
                ("Round".to_string(), i.to_string()),
                ("White".to_string(), format!("Player {}", i % 100)),
                ("Black".to_string(), format!("Player {}", (i + 37) % 100)),
                ("Result".to_string(), result.clone()),
                ("Variant".to_string(), variant.to_string()),
            ];
            let pgn = kabir::notation::write_game(&game, &tags);
            GameRecord::from_game(v.clone(), &game, tags, result, pgn)
        })
        .collect()
}

fn file_size(path: &Path) -> u64 {
    ["", "-wal"]
        .iter()
        .filter_map(|s| std::fs::metadata(format!("{}{s}", path.display())).ok())
        .map(|m| m.len())
        .sum()
}

/// Inserts `rows` rows of four integers into a table without keys or indexes, one prepared
/// statement, one transaction, with the database's journal and pages: its one commit waits for
/// the disk, as the import of a new file does once, at its end.
fn bare_insert(path: &Path, rows: u64) -> Duration {
    let _ = std::fs::remove_file(path);
    let conn = Connection::open(path).expect("open");
    // An import alone with its file writes through a rollback journal.
    conn.execute_batch("PRAGMA page_size = 65536")
        .expect("page size");
    conn.query_row("PRAGMA journal_mode = TRUNCATE", [], |_| Ok(()))
        .expect("journal");
    conn.execute_batch(
        "PRAGMA synchronous = FULL; PRAGMA cache_size = -65536;
         CREATE TABLE position (hash INTEGER, game INTEGER, ply INTEGER, move INTEGER);",
    )
    .expect("schema");
    let start = Instant::now();
    let tx = conn.unchecked_transaction().expect("begin");
    {
        let mut stmt = tx
            .prepare("INSERT INTO position VALUES (?1, ?2, ?3, ?4)")
            .expect("prepare");
        let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
        for i in 0..rows {
            h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9).wrapping_add(i);
            stmt.execute(params![
                h as i64,
                (i / 372) as i64,
                (i % 372) as i64,
                0x1234i64
            ])
            .expect("insert");
        }
    }
    tx.commit().expect("commit");
    let t = start.elapsed();
    drop(conn);
    let _ = std::fs::remove_file(path);
    for companion in ["-journal", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{companion}", path.display()));
    }
    t
}

fn main() {
    let n: u64 = env_or("KABIR_BENCH_GAMES", "100000")
        .parse()
        .unwrap_or(100_000);
    let batch: usize = env_or("KABIR_BENCH_BATCH", "10000")
        .parse()
        .unwrap_or(10_000);
    let variants = env_or("KABIR_BENCH_VARIANTS", "tamerlane,shatranj");
    let dir = tempfile::tempdir().expect("temporary directory");
    for variant in variants.split(',') {
        let t = Instant::now();
        let mut recs = records(variant, n);
        let plies: u64 = recs.iter().map(|r| r.moves.len() as u64).sum();
        println!(
            "{variant}: generated {n} games ({:.0} plies on average) in {:.1} s",
            plies as f64 / n as f64,
            t.elapsed().as_secs_f64()
        );
        let path = dir.path().join(format!("{variant}.db"));
        let mut db = Database::create_or_open(&path).expect("database");
        let mut batches = Vec::new();
        while !recs.is_empty() {
            let rest = recs.split_off(recs.len().min(batch));
            batches.push(std::mem::replace(&mut recs, rest));
        }
        let t = Instant::now();
        let totals = db
            .importer()
            .expect("importer")
            .import_all(batches, |_| {})
            .expect("import");
        let secs = t.elapsed().as_secs_f64();
        drop(db);
        let bytes = file_size(&path);
        println!(
            "{variant}: imported {} games, {} positions in {secs:.2} s: {:.0} games/s, \
             {:.0} positions/s, {:.0} bytes/game on disk",
            totals.imported,
            totals.positions,
            totals.imported as f64 / secs,
            totals.positions as f64 / secs,
            bytes as f64 / totals.imported.max(1) as f64
        );
        queries(&path, variant);
        let bare = bare_insert(&dir.path().join("bare.db"), totals.positions);
        println!(
            "{variant}: bare SQLite insert of {} rows (one per position): {:.2} s",
            totals.positions,
            bare.as_secs_f64()
        );
        let bare = bare_insert(&dir.path().join("bare.db"), totals.imported);
        println!(
            "{variant}: bare SQLite insert of {} rows (one per game): {:.3} s",
            totals.imported,
            bare.as_secs_f64()
        );
        let _ = std::fs::remove_file(&path);
    }
}

/// The best of five runs of `f`.
fn best<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut out = None;
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        out = Some(r);
    }
    (best, out.expect("ran"))
}

/// Query times on the imported database: search and explorer at the start position and at
/// the position 10 plies into game 1, and the totals.
fn queries(path: &Path, variant: &str) {
    let db = Database::open(path).expect("open");
    let v = kabir::variants::builtin(variant).expect("variant");
    let start = Position::start(&v);
    let game = db.game(1).expect("game").expect("game 1");
    let mut deep = Position::from_fen(&v, &game.start_fen).expect("start");
    for &m in game.moves.iter().take(10) {
        deep.play_unchecked(m);
    }
    for (name, pos) in [("start position", &start), ("10 plies deep", &deep)] {
        let (t, hits) = best(|| db.search_position(pos).expect("search"));
        println!(
            "{variant}: search at the {name}: {} games in {:.1} ms",
            hits.len(),
            t.as_secs_f64() * 1e3
        );
        let (t, ex) = best(|| db.explore(pos, 5).expect("explore"));
        println!(
            "{variant}: explorer at the {name}: {} games, {} moves in {:.1} ms",
            ex.games,
            ex.moves.len(),
            t.as_secs_f64() * 1e3
        );
    }
    let registry = kabir::variants::Registry::builtin();
    let (t, report) = best(|| {
        db.report(&ReportQuery::default(), &registry)
            .expect("report")
    });
    println!(
        "{variant}: stats over {} games in {:.1} ms",
        report.games,
        t.as_secs_f64() * 1e3
    );
}
