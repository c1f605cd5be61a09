//! `kabir import` through the real binary: samples, re-import, bad games, a killed import.

use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;

fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

fn count(db: &std::path::Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn integrity(db: &std::path::Path) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

fn samples() -> Vec<std::path::PathBuf> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/samples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files
}

#[test]
fn samples_import_once_and_reimport_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let out = kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .args(samples())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // 20 games; the pychess-style shatranj game has the same moves as the annotated one.
    assert!(
        text.contains("games read: 20, imported: 19, duplicates: 1, rejected: 0"),
        "{text}"
    );
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 19);
    let again = kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .args(samples())
        .output()
        .unwrap();
    let text = String::from_utf8(again.stdout).unwrap();
    assert!(text.contains("imported: 0, duplicates: 20"), "{text}");
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 19);
    assert_eq!(integrity(&db), "ok");
}

#[test]
fn bad_games_are_reported_and_kept_good_games_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let rejects = dir.path().join("rejects.pgn");
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/validate");
    let good = std::fs::read_to_string(format!("{data}/warnings.pgn")).unwrap();
    let bad = std::fs::read_to_string(format!("{data}/illegal.pgn")).unwrap();
    let input = dir.path().join("mixed.pgn");
    std::fs::write(&input, format!("{good}\n{bad}")).unwrap();
    let out = kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg("--rejects")
        .arg(&rejects)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("illegal-move") && err.contains("mixed.pgn:11:17"),
        "{err}"
    );
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 1);
    assert_eq!(
        std::fs::read_to_string(&rejects).unwrap().trim(),
        bad.trim()
    );
}

#[test]
fn the_database_path_comes_from_kabir_db_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("env.db");
    kabir()
        .arg("import")
        .env("KABIR_DB", &db)
        .args(samples())
        .assert()
        .code(0);
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 19);
}

#[test]
fn a_killed_import_leaves_whole_batches_and_rerunning_completes_it() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.pgn");
    let generated = kabir()
        .args([
            "generate",
            "--variant",
            "tamerlane",
            "--games",
            "3000",
            "--seed",
            "77",
            "-o",
        ])
        .arg(&games)
        .output()
        .unwrap();
    assert!(generated.status.success());
    let reference = dir.path().join("reference.db");
    kabir()
        .arg("import")
        .arg("--db")
        .arg(&reference)
        .arg(&games)
        .assert()
        .code(0);
    let expected = count(&reference, "SELECT count(*) FROM game");

    let db = dir.path().join("killed.db");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kabir"))
        .arg("import")
        .arg("--db")
        .arg(&db)
        .args(["--batch", "50", "--quiet"])
        .arg(&games)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once some batches are in, or whenever it has run a while.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(30));
        if db.exists()
            && rusqlite::Connection::open(&db)
                .and_then(|c| c.query_row("SELECT count(*) FROM game", [], |r| r.get::<_, i64>(0)))
                .is_ok_and(|n| n >= 100)
        {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(integrity(&db), "ok");
    let partial = count(&db, "SELECT count(*) FROM game");
    assert_eq!(
        partial % 50,
        0,
        "only whole batches of 50 are committed (found {partial})"
    );
    kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(&games)
        .assert()
        .code(0);
    assert_eq!(count(&db, "SELECT count(*) FROM game"), expected);
    assert_eq!(integrity(&db), "ok");
}

#[test]
fn the_new_variants_import_and_their_positions_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let root = env!("CARGO_MANIFEST_DIR");
    let out = kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(format!("{root}/samples/grand-shatranj-nw.pgn"))
        .arg(format!("{root}/samples/tamerlane-greenwood.pgn"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("games read: 7, imported: 7"), "{text}");
    // The waiting-pawns game after Black's Nxi1_c10=N, which promoted White's pawn on c10.
    let v = kabir::variants::builtin("grand-shatranj-nw").unwrap();
    let mut pos = kabir::rules::Position::from_fen(
        &v,
        "9e/P1P7/10/2k7/10/10/10/7n2/5E4/MBAJK1HONL w - - 0 1",
    )
    .unwrap();
    for uci in ["c9c10", "j10j9", "a9a10", "h3i1"] {
        let m = kabir::rules::Move::from_uci(uci, &pos).unwrap();
        pos = pos.after(m);
    }
    let db = kabir::db::Database::open(&db).unwrap();
    let hits = db.search_position(&pos).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].ply, 4);
    let game = db.game(hits[0].game).unwrap().unwrap();
    assert_eq!(game.variant, "grand-shatranj-nw");
    assert!(game.pgn.contains("Nxi1_c10=N"), "{}", game.pgn);
}
