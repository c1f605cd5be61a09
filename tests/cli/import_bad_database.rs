//! `kabir import` through the real binary on databases it must not damage: a read-only file,
//! a damaged file, a file from a newer kabir, a directory, two imports into one file at once,
//! and games it cannot store. Each gives a clear error (exit status 2) or waits; the file is
//! left as it was, and `PRAGMA integrity_check` says `ok` after every run.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::cli_common::{count, integrity, kabir, samples};

fn games(db: &Path) -> i64 {
    count(db, "SELECT count(*) FROM game")
}

/// A database holding the samples, checkpointed into its main file.
fn sample_db(dir: &Path, name: &str) -> PathBuf {
    let db = dir.join(name);
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .args(samples())
        .assert()
        .code(0);
    assert_eq!(integrity(&db), "ok");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    db
}

/// Runs `kabir import` of the samples into `db`; returns stderr after asserting the status.
fn import_fails(db: &Path, code: i32) -> String {
    let out = kabir()
        .args(["import", "--quiet", "--db"])
        .arg(db)
        .args(samples())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    stderr
}

#[test]
fn a_read_only_database_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path(), "ro.db");
    let before = std::fs::read(&db).unwrap();
    let count = games(&db);
    let mut perms = std::fs::metadata(&db).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&db, perms).unwrap();
    let stderr = import_fails(&db, 2);
    assert!(
        stderr.contains("ro.db") && stderr.contains("read-only"),
        "{stderr}"
    );
    assert!(
        std::fs::read(&db).unwrap() == before,
        "the file was written to"
    );
    assert_eq!(games(&db), count);
    assert_eq!(integrity(&db), "ok");
}

#[test]
fn a_damaged_database_is_reported_and_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path(), "damaged.db");
    let mut bytes = std::fs::read(&db).unwrap();
    // Keep the header page, overwrite the rest with noise.
    let len = bytes.len();
    for (i, b) in bytes[4096..len].iter_mut().enumerate() {
        *b = (i * 7 + 3) as u8;
    }
    std::fs::write(&db, &bytes).unwrap();
    let stderr = import_fails(&db, 2);
    assert!(
        stderr.contains("damaged.db") && stderr.contains("damaged"),
        "{stderr}"
    );
    // Nothing past the 100-byte file header (whose change counter an opened write
    // transaction may bump) is written.
    let after = std::fs::read(&db).unwrap();
    assert_eq!(after.len(), bytes.len());
    assert!(
        after[100..] == bytes[100..],
        "the damaged file was written to"
    );
}

#[test]
fn a_database_from_a_newer_kabir_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path(), "newer.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", kabir::db::SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    let before = std::fs::read(&db).unwrap();
    let stderr = import_fails(&db, 2);
    assert!(stderr.contains("newer"), "{stderr}");
    assert!(
        std::fs::read(&db).unwrap() == before,
        "the file was written to"
    );
    assert_eq!(integrity(&db), "ok");
}

/// A kabir file whose recorded schema version another program set back (to 0, as an empty
/// new file has, or to an older version) is refused with one line naming both versions, by
/// the import (which would otherwise run the schema script again and fail on a table that
/// exists, printing the script) and by the queries; a file missing a table of its version is
/// damaged. None of them writes to it, and putting the number back makes it whole.
#[test]
fn a_database_whose_schema_version_was_reset_says_so_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let version = kabir::db::SCHEMA_VERSION;
    for reset in [0, version - 2] {
        let db = sample_db(dir.path(), &format!("reset-{reset}.db"));
        let count = games(&db);
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", reset).unwrap();
        drop(conn);
        let before = std::fs::read(&db).unwrap();
        let query = kabir().args(["search", "--db"]).arg(&db).output().unwrap();
        assert_eq!(query.status.code(), Some(2));
        for stderr in [
            import_fails(&db, 2),
            String::from_utf8_lossy(&query.stderr).into_owned(),
        ] {
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(
                stderr.contains(&format!("reset-{reset}.db"))
                    && stderr.contains(&format!("records schema version {reset}"))
                    && stderr.contains(&format!("those of version {version}")),
                "{stderr}"
            );
            assert!(!stderr.contains("CREATE"), "{stderr}");
        }
        assert!(
            std::fs::read(&db).unwrap() == before,
            "the file was written to"
        );
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", version).unwrap();
        drop(conn);
        kabir()
            .args(["import", "--quiet", "--db"])
            .arg(&db)
            .args(samples())
            .assert()
            .code(0);
        assert_eq!(games(&db), count);
        assert_eq!(integrity(&db), "ok");
    }
    let db = sample_db(dir.path(), "dropped.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("DROP TABLE opening_chunk; DROP TABLE opening_head")
        .unwrap();
    drop(conn);
    let stderr = import_fails(&db, 2);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("damaged") && stderr.contains("a table or column is missing"),
        "{stderr}"
    );
}

#[test]
fn a_directory_as_the_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = import_fails(dir.path(), 2);
    assert!(stderr.contains("is a directory"), "{stderr}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A file of `games` generated shatranj games in `dir`, named after `seed`.
fn shatranj_games(dir: &Path, seed: &str, games: u32) -> PathBuf {
    let path = dir.join(format!("games-{seed}.pgn"));
    kabir()
        .args([
            "generate",
            "--variant",
            "shatranj",
            "--games",
            &games.to_string(),
        ])
        .args(["--seed", seed, "-o"])
        .arg(&path)
        .assert()
        .code(0);
    path
}

/// `kabir import --quiet` of `files` into `db` with `options`, started and left running, its
/// standard error kept.
fn spawn_import(db: &Path, options: &[&str], files: &[&PathBuf]) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("kabir"))
        .args(["import", "--quiet"])
        .args(options)
        .arg("--db")
        .arg(db)
        .args(files)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn two_imports_into_one_database_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = |seed| shatranj_games(dir.path(), seed, 300);
    let (a, b, common) = (file("1"), file("2"), file("3"));
    // The same games imported one after the other: the expected contents.
    let reference = dir.path().join("reference.db");
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&reference)
        .args([&a, &b, &common])
        .assert()
        .code(0);
    let expected = games(&reference);
    assert!(expected > 800, "{expected}");

    let db = dir.path().join("shared.db");
    let spawn = |files: [&PathBuf; 2]| spawn_import(&db, &["--batch", "25"], &files);
    let (first, second) = (spawn([&a, &common]), spawn([&b, &common]));
    for child in [first, second] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(games(&db), expected);
    assert_eq!(integrity(&db), "ok");
}

/// Imports started together on a file that does not exist yet race to create the schema; a
/// loser must see the winner's database as a kabir database, not as another program's (it
/// did, now and then, when it read the header and the tables apart).
#[test]
fn imports_racing_to_create_a_database_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        shatranj_games(dir.path(), "5", 10),
        shatranj_games(dir.path(), "6", 10),
    );
    for round in 0..25 {
        let db = dir.path().join(format!("race-{round}.db"));
        let children: Vec<_> = [&a, &b, &a, &b]
            .into_iter()
            .map(|games| spawn_import(&db, &[], &[games]))
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(games(&db), 20, "round {round}");
    }
}

#[test]
fn a_valid_game_the_database_cannot_store_is_reported_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    // A valid game of 70,000 plies: knights going back and forth (no repetition rule by
    // default).
    let mut long = String::from("[Variant \"Shatranj\"]\n\n");
    for i in (1..=35_000).step_by(2) {
        long.push_str(&format!("{i}. Nf3 Nf6 {}. Ng1 Ng8 ", i + 1));
    }
    long.push_str("*\n\n");
    let good = "[Variant \"Shatranj\"]\n\n1. e3 e6 *\n";
    let input = dir.path().join("input.pgn");
    std::fs::write(&input, format!("{long}{good}")).unwrap();
    let db = dir.path().join("games.db");
    let rejects = dir.path().join("rejects.pgn");
    let out = kabir()
        .args(["import", "--db"])
        .arg(&db)
        .arg("--rejects")
        .arg(&rejects)
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("input.pgn:1: game 1 not stored: 70000 plies; at most 65535"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&rejects).unwrap(), long);
    assert_eq!(games(&db), 1);
    assert_eq!(integrity(&db), "ok");
}

/// A new database whose first import was cut off by a stop of the system (its mark in `meta`
/// names another start of the system) may be half written: every command refuses it with a
/// message that says what happened and what to do, and leaves it as it is. A first import
/// that ends leaves no mark.
#[test]
fn a_new_database_cut_off_by_a_stop_of_the_system_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path(), "stopped.db");
    assert_eq!(
        count(&db, "SELECT count(*) FROM meta WHERE key LIKE 'unsynced %'"),
        0
    );
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "INSERT INTO meta (key, value)
             VALUES ('unsynced 00000000-0000-0000-0000-000000000000 0000000001 0000000000', 'import')",
            [],
        )
        .unwrap();
    let before = std::fs::read(&db).unwrap();
    let stderr = import_fails(&db, 2);
    for args in [vec!["stats"], vec!["explore", "--variant", "shatranj"]] {
        let out = kabir().args(&args).arg("--db").arg(&db).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), stderr, "{args:?}");
    }
    assert!(
        stderr.contains("stopped.db")
            && stderr.contains("when the system stopped")
            && stderr.contains("delete it and import the games again")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    assert!(
        std::fs::read(&db).unwrap() == before,
        "the file was written to"
    );
}
