//! `kabir import` through the real binary: samples, re-import, bad games, a killed import.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::cli_common::{count, generated, integrity, kabir, samples};

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
    // 22 games, all stored: the pychess-style shatranj game has the same moves as the
    // annotated one, but other players.
    assert!(
        text.contains("games read: 22, imported: 22, duplicates: 0, rejected: 0"),
        "{text}"
    );
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 22);
    let again = kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .args(samples())
        .output()
        .unwrap();
    let text = String::from_utf8(again.stdout).unwrap();
    assert!(text.contains("imported: 0, duplicates: 22"), "{text}");
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 22);
    assert_eq!(integrity(&db), "ok");
}

/// The quick start of README.md, run as written (its database put in a temporary directory):
/// every sample game is stored.
#[test]
fn the_readme_quick_start_stores_every_sample() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let quick_start = &readme[readme.find("## Quick start").unwrap()..];
    let line = quick_start
        .lines()
        .find(|l| l.contains("cargo run") && l.contains(" import "))
        .expect("the quick start imports the samples");
    let import = line
        .split("&&")
        .find(|c| c.contains(" import "))
        .unwrap()
        .split_once(" -- ")
        .unwrap()
        .1;
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    let mut words = import.split_whitespace();
    while let Some(word) = words.next() {
        if word == "--db" {
            let name = words.next().unwrap();
            args.push("--db".into());
            args.push(dir.path().join(name).into());
        } else if let Some((folder, suffix)) = word.split_once("/*") {
            // The shell's expansion of the pattern.
            let mut files: Vec<_> = std::fs::read_dir(root.join(folder))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.to_string_lossy().ends_with(suffix))
                .collect();
            files.sort();
            args.extend(files.into_iter().map(Into::into));
        } else {
            args.push(word.into());
        }
    }
    assert_eq!(
        args.first().map(|a| a.to_str()),
        Some(Some("import")),
        "{line}"
    );
    let out = kabir().args(&args).current_dir(root).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("games read: 22, imported: 22"), "{text}");
    let db = dir.path().join("kabir.db");
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 22);
    // What the README says of it.
    assert!(
        quick_start.contains("(22 games,"),
        "the README's count of the samples"
    );
}

fn same_moves() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/db/same-moves.pgn")
}

/// Runs `kabir import --format json` with `args`; returns the duplicates' objects and the
/// summary.
fn import_json(
    db: &std::path::Path,
    args: &[&str],
    files: &[std::path::PathBuf],
) -> (Vec<serde_json::Value>, serde_json::Value) {
    let out = kabir()
        .args(["import", "--format", "json", "--db"])
        .arg(db)
        .args(args)
        .args(files)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = lines.pop().unwrap()["summary"].clone();
    assert!(summary.is_object());
    (lines, summary)
}

/// (file name, game number, line, id of the game it repeats) of each duplicate.
fn duplicates(lines: &[serde_json::Value]) -> Vec<(String, u64, u64, u64)> {
    lines
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap();
            let name = std::path::Path::new(file).file_name().unwrap();
            (
                name.to_string_lossy().into_owned(),
                d["game"].as_u64().unwrap(),
                d["line"].as_u64().unwrap(),
                d["duplicate_of"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn games_with_the_same_moves_and_other_players_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let (dups, summary) = import_json(&db, &[], &[same_moves()]);
    // Six games: four with one line of moves (other players; another round; another result;
    // and the first again with a comment and an Annotator tag), one with other moves.
    assert_eq!(summary["games"], 6);
    assert_eq!(summary["imported"], 5);
    assert_eq!(summary["duplicates"], 1);
    assert_eq!(summary["duplicate_rule"], "record");
    assert!(summary["error"].is_null());
    assert_eq!(duplicates(&dups), vec![("same-moves.pgn".into(), 6, 59, 1)]);
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 5);
    assert_eq!(
        count(&db, "SELECT count(DISTINCT content) FROM game"),
        2,
        "four of the games share their moves"
    );
    // Importing it again adds nothing: each game is a duplicate of itself.
    let (dups, summary) = import_json(&db, &[], &[same_moves()]);
    assert_eq!(
        (summary["imported"].as_u64(), summary["duplicates"].as_u64()),
        (Some(0), Some(6))
    );
    let of: Vec<u64> = duplicates(&dups).iter().map(|d| d.3).collect();
    assert_eq!(of, vec![1, 2, 3, 4, 5, 1]);
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 5);
    assert_eq!(integrity(&db), "ok");
}

#[test]
fn duplicates_moves_keeps_the_move_only_rule() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let (dups, summary) = import_json(&db, &["--duplicates", "moves"], &[same_moves()]);
    assert_eq!(summary["imported"], 2);
    assert_eq!(summary["duplicates"], 4);
    assert_eq!(summary["duplicate_rule"], "moves");
    let games: Vec<(u64, u64)> = duplicates(&dups).iter().map(|d| (d.1, d.3)).collect();
    assert_eq!(games, vec![(2, 1), (3, 1), (4, 1), (6, 1)]);
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 2);
    // The record rule then adds the other records of those moves, and the moves rule finds
    // every game again.
    let (_, summary) = import_json(&db, &[], &[same_moves()]);
    assert_eq!(
        (summary["imported"].as_u64(), summary["duplicates"].as_u64()),
        (Some(3), Some(3))
    );
    let (_, summary) = import_json(&db, &["--duplicates", "moves"], &[same_moves()]);
    assert_eq!(
        (summary["imported"].as_u64(), summary["duplicates"].as_u64()),
        (Some(0), Some(6))
    );
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 5);
    // The text summary says how many.
    let out = kabir()
        .args(["import", "--duplicates", "moves", "--db"])
        .arg(&db)
        .arg(same_moves())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("imported: 0, duplicates: 6"), "{text}");
}

/// A copy of the database made by the first release with schema version 1 (`kabir import`
/// of `samples/*.pgn` and `tests/data/db/same-moves.pgn` at commit 4c63895), which kept one
/// game per line of moves.
fn version_1_database(dir: &std::path::Path) -> std::path::PathBuf {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/db/v1.db");
    let db = dir.join("v1.db");
    std::fs::copy(fixture, &db).unwrap();
    db
}

/// The sample files the version 1 fixture was made from: all but those added since.
fn version_1_samples() -> Vec<std::path::PathBuf> {
    let added = ["chaturanga.pgn", "courier.pgn"];
    let all = samples();
    let old: Vec<_> = all
        .iter()
        .filter(|p| !added.iter().any(|a| p.ends_with(a)))
        .cloned()
        .collect();
    assert_eq!(old.len() + added.len(), all.len(), "samples added: {all:?}");
    old
}

/// Every column of the `game` table of version 1, by game.
fn version_1_rows(db: &std::path::Path) -> Vec<Vec<rusqlite::types::Value>> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT id, variant, content, start_fen, standard_start, moves, plies, result,
                 termination, white, black, event, site, date, round, swaps, lifts,
                 relocations, promotions, arrivals, adventitious_kings, citadel_entries,
                 (SELECT tags || pgn FROM game_text WHERE game = id)
             FROM game ORDER BY id",
        )
        .unwrap();
    stmt.query_map([], |r| (0..23).map(|i| r.get(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn user_version(db: &std::path::Path) -> i64 {
    count(db, "PRAGMA user_version")
}

#[test]
fn a_version_1_database_is_read_as_it_is_and_migrated_by_an_import() {
    let dir = tempfile::tempdir().unwrap();
    let db = version_1_database(dir.path());
    let before = version_1_rows(&db);
    assert_eq!(before.len(), 21);
    assert_eq!(user_version(&db), 1);
    // Queries read it without changing it.
    let bytes = std::fs::read(&db).unwrap();
    let out = kabir()
        .args(["stats", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read(&db).unwrap() == bytes,
        "a query changed the file"
    );

    // The import migrates it, then finds duplicates by the record rule: the samples' other
    // shatranj game and three same-moves records that version 1 had dropped are added.
    let mut files = version_1_samples();
    files.push(same_moves());
    let (dups, summary) = import_json(&db, &[], &files);
    assert_eq!(user_version(&db), kabir::db::SCHEMA_VERSION as i64);
    assert_eq!(summary["games"], 26);
    assert_eq!(summary["imported"], 4);
    assert_eq!(summary["duplicates"], 22);
    // Every game of version 1 is still there, as it was.
    let after = version_1_rows(&db);
    assert_eq!(after.len(), 25);
    assert_eq!(after[..21], before[..]);
    // The annotated repeat of same-moves.pgn's first game is a duplicate of game 20, stored
    // by version 1.
    assert!(
        duplicates(&dups).contains(&("same-moves.pgn".into(), 6, 59, 20)),
        "{dups:?}"
    );
    // Every record key is computed: the migrated games' keys are those an import computes.
    assert_eq!(count(&db, "SELECT count(DISTINCT record) FROM game"), 25);
    let (_, summary) = import_json(&db, &[], &files);
    assert_eq!(
        (summary["imported"].as_u64(), summary["duplicates"].as_u64()),
        (Some(0), Some(26))
    );
    let (_, summary) = import_json(&db, &["--duplicates", "moves"], &files);
    assert_eq!(
        (summary["imported"].as_u64(), summary["duplicates"].as_u64()),
        (Some(0), Some(26))
    );
    assert_eq!(integrity(&db), "ok");
}

#[test]
fn a_migrated_version_1_database_keeps_the_moves_rule_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = version_1_database(dir.path());
    let mut files = version_1_samples();
    files.push(same_moves());
    // Version 1 stored these files by moves: by moves, nothing of them is new.
    let (dups, summary) = import_json(&db, &["--duplicates", "moves"], &files);
    assert_eq!(user_version(&db), kabir::db::SCHEMA_VERSION as i64);
    assert_eq!(
        (summary["imported"].as_u64(), summary["duplicates"].as_u64()),
        (Some(0), Some(26))
    );
    // The samples' two shatranj games share their moves: both name game 4.
    let shatranj: Vec<u64> = duplicates(&dups)
        .iter()
        .filter(|d| d.0.starts_with("shatranj"))
        .map(|d| d.3)
        .collect();
    assert_eq!(shatranj, vec![4, 4]);
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 21);
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
    assert_eq!(count(&db, "SELECT count(*) FROM game"), 22);
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

#[test]
fn batches_end_at_their_memory_and_store_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.pgn");
    generated(&games, "tamerlane", 300, 7);
    let import = |name: &str, args: &[&str]| {
        let db = dir.path().join(name);
        let out = kabir()
            .arg("import")
            .arg("--db")
            .arg(&db)
            .args(args)
            .arg(&games)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("games read: 300, imported: 300"), "{text}");
        db
    };
    // A Tamerlane game takes about 17 kB in a batch: one batch of 300 by default, about ten
    // of 1 MB each (the last cut smaller), one segment of the index each, too few for a tier
    // to merge.
    let whole = import("whole.db", &[]);
    let small = import("small.db", &["--batch-memory", "1"]);
    let segments = "SELECT count(*) FROM segment";
    assert_eq!(count(&whole, segments), 1);
    let pieces = count(&small, segments);
    assert!(
        (2..kabir::db::MERGE_FANOUT).contains(&pieces),
        "{pieces} segments"
    );
    let batches = "SELECT count(*) FROM segment WHERE level = 0";
    assert_eq!(
        count(&small, batches),
        pieces,
        "a batch's segment was merged"
    );
    for sql in [
        "SELECT sum(postings) FROM segment",
        "SELECT sum(plies) FROM game",
        "SELECT count(DISTINCT record) FROM game",
    ] {
        assert_eq!(count(&whole, sql), count(&small, sql), "{sql}");
    }
    // The same games, in the same order, under the same ids.
    let moves = |db: &std::path::Path| -> Vec<(i64, Vec<u8>)> {
        let conn = rusqlite::Connection::open(db).unwrap();
        let mut stmt = conn
            .prepare("SELECT id, moves FROM game ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(moves(&whole), moves(&small));
    kabir()
        .args(["import", "--batch-memory", "0", "--db"])
        .arg(dir.path().join("none.db"))
        .arg(&games)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--batch-memory"));
}

/// The FEN `kabir show` gives for game `id` after `ply` plies.
fn position_of(db: &std::path::Path, id: u32, ply: u32) -> String {
    let out = kabir()
        .args(["show", "--db"])
        .arg(db)
        .arg(id.to_string())
        .args(["--ply", &ply.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("position: ").map(str::to_string))
        .expect("show prints the position")
}

/// The answers of the explorer and position search at a few positions of each variant.
fn answers(db: &std::path::Path, positions: &[(String, String)]) -> Vec<String> {
    let mut all = Vec::new();
    for (variant, fen) in positions {
        for args in [
            vec!["explore", "--format", "json"],
            vec!["search", "--format", "json", "--limit", "5"],
            vec![
                "search",
                "--format",
                "json",
                "--limit",
                "4",
                "--offset",
                "2",
                "--reverse",
            ],
        ] {
            let out = kabir()
                .args(&args)
                .args(["--variant", variant, "--fen", fen, "--db"])
                .arg(db)
                .output()
                .unwrap();
            assert!(out.status.success(), "{args:?} {fen}");
            all.push(String::from_utf8(out.stdout).unwrap());
        }
    }
    all
}

#[test]
fn index_compact_merges_segments_and_keeps_every_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (variant, seed) in [("tamerlane", "3"), ("shatranj", "4")] {
        let file = dir.path().join(format!("{variant}.pgn"));
        kabir()
            .args([
                "generate",
                "--variant",
                variant,
                "--games",
                "40",
                "--seed",
                seed,
                "-o",
            ])
            .arg(&file)
            .assert()
            .code(0);
        files.push(file);
    }
    let db = dir.path().join("games.db");
    kabir()
        .args(["import", "--quiet", "--batch", "2", "--db"])
        .arg(&db)
        .args(&files)
        .assert()
        .code(0);
    let segments = count(&db, "SELECT count(*) FROM segment");
    assert!(segments > 2, "{segments} segments");
    // Game ids 1-40 are Tamerlane, 41-80 Shatranj.
    let mut positions = Vec::new();
    for (variant, id) in [
        ("tamerlane", 1),
        ("tamerlane", 17),
        ("shatranj", 41),
        ("shatranj", 66),
    ] {
        for ply in [0, 3, 12, 30] {
            positions.push((variant.to_string(), position_of(&db, id, ply)));
        }
    }
    let before = answers(&db, &positions);

    let out = kabir()
        .args(["index", "compact", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout)
            .unwrap()
            .split(" in ")
            .next()
            .unwrap(),
        format!("merged {segments} index segments into 2")
    );
    assert_eq!(count(&db, "SELECT count(*) FROM segment"), 2);
    assert_eq!(integrity(&db), "ok");
    assert_eq!(answers(&db, &positions), before);

    // Compacting again has nothing to merge.
    kabir()
        .args(["index", "compact", "--db"])
        .arg(&db)
        .assert()
        .code(0)
        .stdout("nothing to merge: 2 index segments, one per variant\n");
}

#[test]
fn index_compact_of_a_missing_database_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.db");
    kabir()
        .args(["index", "compact", "--db"])
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no such database file"));
    assert!(!db.exists());
}

/// `--merge-work 0` leaves the index's merges to later: the import starts one (34 batches,
/// 32 of them its sources) but moves none of its buckets, the answers are those of a
/// database imported whole, a later default import takes the merge up, and compacting
/// leaves one segment.
#[test]
fn merge_work_0_leaves_merges_for_later() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.pgn");
    generated(&games, "tamerlane", 300, 11);
    let more = dir.path().join("more.pgn");
    generated(&more, "tamerlane", 40, 12);
    let import = |db: &std::path::Path, args: &[&str], file: &std::path::Path| {
        kabir()
            .arg("import")
            .arg("--db")
            .arg(db)
            .args(args)
            .arg(file)
            .assert()
            .code(0);
    };
    let whole = dir.path().join("whole.db");
    import(&whole, &[], &games);
    import(&whole, &[], &more);
    let deferred = dir.path().join("deferred.db");
    import(&deferred, &["--batch", "9", "--merge-work", "0"], &games);
    let under_way = "SELECT count(*) FROM segment WHERE merge_next IS NOT NULL";
    assert_eq!(count(&deferred, "SELECT count(*) FROM segment"), 35);
    assert_eq!(count(&deferred, under_way), 1);
    assert_eq!(
        count(
            &deferred,
            "SELECT count(*) FROM segment WHERE merge_next = 0"
        ),
        1,
        "no bucket merged"
    );
    import(&deferred, &[], &more);
    assert_eq!(
        count(&deferred, under_way),
        0,
        "the next import finishes it"
    );
    let explore = |db: &std::path::Path, moves: &str| -> String {
        let out = kabir()
            .args(["explore", "--variant", "tamerlane", "--format", "json"])
            .args(["--moves", moves, "--db"])
            .arg(db)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    for moves in ["", "1. Cj4", "1. c4"] {
        assert_eq!(explore(&deferred, moves), explore(&whole, moves), "{moves}");
    }
    kabir()
        .args(["index", "compact", "--db"])
        .arg(&deferred)
        .assert()
        .code(0);
    assert_eq!(count(&deferred, "SELECT count(*) FROM segment"), 1);
    assert_eq!(explore(&deferred, ""), explore(&whole, ""));
}
