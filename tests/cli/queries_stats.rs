//! `kabir stats` through the real binary, and every query command on an empty and on a
//! missing database.

use crate::queries_common::*;
use kabir::db::{GameEnd, Special, StoredGame};
use kabir::rules::MoveKind;

fn sum(items: &serde_json::Value, field: &str) -> u64 {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x[field].as_u64().unwrap())
        .sum()
}

#[test]
fn totals_equal_the_game_count() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    let n = games.len() as u64;
    let s = json(&db, &["stats"]);
    assert_eq!(s["games"].as_u64().unwrap(), n);
    assert_eq!(s["results"]["games"].as_u64().unwrap(), n);
    let count =
        |pred: &dyn Fn(&StoredGame) -> bool| games.iter().filter(|g| pred(g)).count() as u64;
    assert_eq!(
        s["results"]["white_wins"].as_u64().unwrap(),
        count(&|g| g.result.as_str() == "1-0")
    );
    assert_eq!(
        s["results"]["draws"].as_u64().unwrap(),
        count(&|g| g.result.as_str() == "1/2-1/2")
    );
    assert_eq!(sum(&s["terminations"], "games"), n);
    assert_eq!(sum(&s["lengths"]["buckets"], "games"), n);
    assert_eq!(
        s["lengths"]["max"].as_u64().unwrap(),
        games.iter().map(|g| u64::from(g.plies)).max().unwrap()
    );
    for e in s["terminations"].as_array().unwrap() {
        let end = GameEnd::parse(e["termination"].as_str().unwrap()).unwrap();
        assert_eq!(e["games"].as_u64().unwrap(), count(&|g| g.end == end));
    }
    let special = |name: &str| {
        s["special"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap()
            .clone()
    };
    let swaps: u64 = games
        .iter()
        .map(|g| g.moves.iter().filter(|m| m.kind == MoveKind::Swap).count() as u64)
        .sum();
    assert_eq!(special("king swap")["moves"].as_u64().unwrap(), swaps);
    assert_eq!(
        special("lift")["games"].as_u64().unwrap(),
        count(&|g| g.special.count[Special::Lift] > 0)
    );
    assert_eq!(
        special("adventitious king")["moves"].as_u64().unwrap(),
        games
            .iter()
            .map(|g| g.special.count[Special::AdventitiousKing])
            .sum::<u64>()
    );
    // Openings: games from their variant's start, most played first.
    let openings = s["openings"].as_array().unwrap();
    assert!(!openings.is_empty() && openings.len() <= 10);
    assert!(
        openings
            .windows(2)
            .all(|w| w[0]["games"].as_u64() >= w[1]["games"].as_u64())
    );
    // Groups add up to the whole.
    for by in ["variant", "termination", "year"] {
        let s = json(&db, &["stats", "--by", by]);
        assert_eq!(s["by"], by);
        assert_eq!(sum(&s["groups"], "games"), n, "{by}");
    }
    let s = json(&db, &["stats", "--by", "variant"]);
    for g in s["groups"].as_array().unwrap() {
        let v = g["key"].as_str().unwrap();
        assert_eq!(g["games"].as_u64().unwrap(), count(&|x| x.variant == v));
    }
    let s = json(&db, &["stats", "--by", "year"]);
    let unknown = s["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["key"] == "????")
        .unwrap();
    assert_eq!(
        unknown["games"].as_u64().unwrap(),
        count(&|g| !g
            .tag("Date")
            .unwrap_or("?")
            .starts_with(|c: char| c.is_ascii_digit()))
    );
    // Filters apply: a variant's stats count its games.
    let s = json(&db, &["stats", "--variant", "shatranj"]);
    assert_eq!(
        s["games"].as_u64().unwrap(),
        count(&|g| g.variant == "shatranj")
    );
    // Players: every side of every game with a known name, by colour and variant.
    let s = json(&db, &["stats", "--player", "player 1"]);
    let p = &s["players"].as_array().unwrap()[0];
    assert_eq!(p["name"], "Player 1");
    let white = count(&|g| g.tag("White") == Some("Player 1"));
    let black = count(&|g| g.tag("Black") == Some("Player 1"));
    assert_eq!(p["as_white"]["games"].as_u64().unwrap(), white);
    assert_eq!(p["as_black"]["games"].as_u64().unwrap(), black);
    assert_eq!(p["total"]["games"].as_u64().unwrap(), white + black);
    let wins = count(&|g| {
        (g.tag("White") == Some("Player 1") && g.result.as_str() == "1-0")
            || (g.tag("Black") == Some("Player 1") && g.result.as_str() == "0-1")
    });
    assert_eq!(p["total"]["wins"].as_u64().unwrap(), wins);
    let by_variant: u64 = p["by_variant"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x[1]["games"].as_u64().unwrap())
        .sum();
    assert_eq!(by_variant, white + black);
    let s = json(&db, &["stats", "--by", "player", "--top", "3"]);
    assert_eq!(s["players"].as_array().unwrap().len(), 3);
    // The table and the CSV show the same numbers.
    let table = ok(&db, &["stats", "--by", "termination"]);
    assert!(table.starts_with(&format!("games: {n}\n")), "{table}");
    assert!(table.contains("by termination"));
    let csv = ok(&db, &["stats", "--format", "csv"]);
    assert!(csv.contains(&format!("summary,,games,{n}\n")), "{csv}");
    assert!(csv.contains("terminations,checkmate,games,"), "{csv}");
}

/// The query commands on a database without games and on a missing file.
#[test]
fn empty_and_missing_databases() {
    let dir = tempfile::tempdir().unwrap();
    let empty_pgn = dir.path().join("empty.pgn");
    std::fs::write(&empty_pgn, "").unwrap();
    let db = dir.path().join("empty.db");
    kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(&empty_pgn)
        .assert()
        .success();
    let commands: [&[&str]; 8] = [
        &["search"],
        &["search", "--variant", "shatranj", "--moves", "e3"],
        &["explore"],
        &["explore", "--variant", "tamerlane", "--depth", "3"],
        &["stats"],
        &["stats", "--by", "player"],
        &["export"],
        &["export", "--format", "csv"],
    ];
    for args in commands {
        let out = run(&db, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(all.contains("holds no games"), "{args:?}: {all}");
    }
    let s = json(&db, &["stats"]);
    assert_eq!(s["games"], 0);
    let s = json(&db, &["search"]);
    assert_eq!(s["total"], 0);
    let out = run(&db, &["show", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no games"));

    let missing = dir.path().join("missing.db");
    for args in [
        &["search"][..],
        &["explore"],
        &["stats"],
        &["export"],
        &["show", "1"],
    ] {
        let out = run(&missing, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no such database file"), "{args:?}: {err}");
        assert!(!missing.exists(), "{args:?} created the file");
    }
    // KABIR_DB names the database when --db is not given.
    let out = kabir()
        .args(["stats", "--format", "json"])
        .env("KABIR_DB", &db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// Openings by (variant, moves): games, White wins, draws, Black wins and plies in all.
type Openings = std::collections::BTreeMap<(String, String), (u64, u64, u64, u64, u64)>;

/// Openings of any length up to the bound are every game's first plies, counted as brute
/// force counts them (they are summed in one pass over the games sorted by opening, not held
/// in a map of them all); the bounds of `--opening-plies` and `--top` are refused past.
#[test]
fn long_openings_count_as_brute_force_and_the_bounds_hold() {
    use std::collections::BTreeMap;
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    let registry = kabir::variants::Registry::builtin();
    for plies in [7usize, 200] {
        let p = plies.to_string();
        let s = json(
            &db,
            &[
                "stats",
                "--opening-plies",
                &p,
                "--top",
                "10000",
                "--player",
                "player",
            ],
        );
        let mut want: Openings = BTreeMap::new();
        for g in &games {
            let white = g.tag("White").unwrap_or("").to_ascii_lowercase();
            let black = g.tag("Black").unwrap_or("").to_ascii_lowercase();
            if !(white.contains("player") || black.contains("player")) {
                continue;
            }
            let start = g.position_at(&registry, 0).unwrap();
            if start != kabir::rules::Position::start(start.variant()) {
                continue;
            }
            let mut pos = start;
            let mut line = Vec::new();
            for &m in g.moves.iter().take(plies) {
                line.push(kabir::notation::san(&pos, m, &pos.legal_moves()));
                pos.play_unchecked(m);
            }
            let e = want.entry((g.variant.clone(), line.join(" "))).or_default();
            e.0 += 1;
            e.1 += u64::from(g.result.as_str() == "1-0");
            e.2 += u64::from(g.result.as_str() == "1/2-1/2");
            e.3 += u64::from(g.result.as_str() == "0-1");
            e.4 += u64::from(g.plies);
        }
        let openings = s["openings"].as_array().unwrap();
        assert!(openings.len() > 20, "{plies}: {}", openings.len());
        let got: Openings = openings
            .iter()
            .map(|o| {
                let r = &o["results"];
                let games = o["games"].as_u64().unwrap();
                let total = (o["average_plies"].as_f64().unwrap() * games as f64).round() as u64;
                (
                    (
                        o["variant"].as_str().unwrap().to_string(),
                        o["key"].as_str().unwrap().to_string(),
                    ),
                    (
                        games,
                        r["white_wins"].as_u64().unwrap(),
                        r["draws"].as_u64().unwrap(),
                        r["black_wins"].as_u64().unwrap(),
                        total,
                    ),
                )
            })
            .collect();
        assert_eq!(got, want, "--opening-plies {plies}");
    }
    for (option, past) in [("--opening-plies", "201"), ("--top", "10001")] {
        let out = run(&db, &["stats", option, past]);
        assert_eq!(out.status.code(), Some(2), "{option} {past}");
    }
}

/// Games without a move from the standard start have an opening row of their own, named
/// `(no moves)` in the table, JSON and CSV alike, whether the summaries answer or the games
/// are read (a condition, or openings longer than the summaries keep).
#[test]
fn games_without_moves_have_a_named_opening_row() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("empty.pgn");
    std::fs::write(
        &file,
        "[Event \"e\"]\n[Variant \"Shatranj\"]\n[Result \"*\"]\n\n*\n\n\
         [Event \"f\"]\n[Variant \"Shatranj\"]\n[Result \"1-0\"]\n\n1. e3 e6 1-0\n",
    )
    .unwrap();
    let db = dir.path().join("empty.db");
    assert!(
        kabir()
            .args(["import", "--db"])
            .arg(&db)
            .arg(&file)
            .output()
            .unwrap()
            .status
            .success()
    );
    for conditions in [&[][..], &["--event", "e"], &["--opening-plies", "6"]] {
        let mut args = vec!["stats", "--by", "opening"];
        args.extend(conditions);
        let s = json(&db, &args);
        let keys: Vec<&str> = s["openings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["key"].as_str().unwrap())
            .collect();
        assert!(keys.contains(&"(no moves)"), "{conditions:?}: {keys:?}");
        assert!(!keys.contains(&""), "{conditions:?}: {keys:?}");
        assert_eq!(s["groups"], s["openings"]);
        let table = ok(&db, &args);
        assert!(table.contains("│ (no moves) │ shatranj │ 1 "), "{table}");
        args.extend(["--format", "csv"]);
        let csv = ok(&db, &args);
        assert!(csv.contains("openings,(no moves),key,(no moves)"), "{csv}");
        assert!(!csv.contains("openings,,"), "{csv}");
    }
}

/// A game the rules ended (here by a bare king, 1-0) written with the result `*` is the
/// warning `result-unfinished`, and is recorded with the rules' result: `stats` counts it once,
/// as a White win ended by a bare king, not also as unfinished; the same game written `1-0`
/// is then a duplicate of it.
#[test]
fn a_star_on_a_game_the_rules_ended_is_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("star.pgn");
    let game = |result: &str| {
        format!(
            "[Event \"e\"]\n[White \"Ann\"]\n[Black \"Bob\"]\n[Result \"{result}\"]\n\
             [Variant \"Shatranj\"]\n[FEN \"1k6/2R5/8/8/8/8/5r2/6K1 w - - 0 1\"]\n\n\
             1. Kxf2 Ka8 {result}\n\n"
        )
    };
    std::fs::write(&file, game("*") + &game("1-0")).unwrap();
    let validate = kabir()
        .args(["validate", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8(validate.stdout).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["valid"], true, "{text}");
    assert_eq!(first["warnings"][0]["kind"], "result-unfinished", "{text}");
    assert!(
        first["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("bare king (1-0)"),
        "{text}"
    );
    let db = dir.path().join("star.db");
    let import = kabir()
        .args(["import", "--db"])
        .arg(&db)
        .arg(&file)
        .output()
        .unwrap();
    let report = String::from_utf8(import.stdout).unwrap();
    assert!(
        report.contains("imported: 1, duplicates: 1"),
        "{report}{}",
        String::from_utf8_lossy(&import.stderr)
    );
    for conditions in [&[][..], &["--player", "Ann"]] {
        let mut args = vec!["stats"];
        args.extend(conditions);
        let s = json(&db, &args);
        assert_eq!(s["games"], 1, "{conditions:?}");
        assert_eq!(s["results"]["white_wins"], 1, "{conditions:?}");
        assert_eq!(s["results"]["unfinished"], 0, "{conditions:?}");
        let ends: Vec<(String, u64)> = s["terminations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["termination"].as_str().unwrap().to_string(),
                    e["games"].as_u64().unwrap(),
                )
            })
            .filter(|e| e.1 > 0)
            .collect();
        assert_eq!(ends, [("bare king".to_string(), 1)], "{conditions:?}");
    }
    let export = ok(&db, &["export"]);
    assert!(
        export.contains("[Result \"1-0\"]") && export.contains("Ka8 1-0"),
        "{export}"
    );
}
