//! `kabir search` and `kabir export` through the real binary: exact counts against brute force
//! over every stored game, positions, opening lines, paging, formats, re-import of exported
//! games, and arguments that look like SQL.

use crate::queries_common::*;
use kabir::db::{Database, GameEnd, Special, StoredGame};
use kabir::rules::{MoveKind, Position};
use kabir::variants::Registry;

fn total(db: &std::path::Path, args: &[&str]) -> u64 {
    let mut a = vec!["search", "--limit", "0"];
    a.extend(args);
    json(db, &a)["total"].as_u64().unwrap()
}

fn ids(db: &std::path::Path, args: &[&str]) -> Vec<u64> {
    let mut a = vec!["search"];
    a.extend(args);
    json(db, &a)["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect()
}

fn brute(games: &[StoredGame], pred: impl Fn(&StoredGame) -> bool) -> u64 {
    games.iter().filter(|g| pred(g)).count() as u64
}

#[test]
fn tag_filters_count_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    // The samples, 40 + 40 + 20 generated games and 3 transpositions.
    let n = games.len() as u64;
    assert_eq!(total(&db, &[]), n);
    let tag = |g: &StoredGame, k: &str| g.tag(k).unwrap_or("").to_ascii_lowercase();
    assert_eq!(
        total(&db, &["--variant", "tamerlane"]),
        brute(&games, |g| g.variant == "tamerlane")
    );

    assert_eq!(
        total(&db, &["--player", "PLAYER 3"]),
        brute(&games, |g| tag(g, "White") == "player 3"
            || tag(g, "Black") == "player 3")
    );
    assert_eq!(
        total(&db, &["--player", "player 3", "--color", "black"]),
        brute(&games, |g| tag(g, "Black") == "player 3")
    );
    assert_eq!(total(&db, &["--player", "Timur", "--color", "white"]), 1);
    assert_eq!(total(&db, &["--player", "Timur", "--color", "black"]), 0);
    assert_eq!(
        total(&db, &["--event", "cup 1", "--site", "town"]),
        brute(&games, |g| tag(g, "Event") == "cup 1")
    );
    // Dates: a year includes all of it; unknown dates never match a range.
    let dated = |from: &str, to: &str| {
        brute(&games, |g| {
            let d = g.tag("Date").unwrap_or("");
            d.as_bytes().first().is_some_and(u8::is_ascii_digit) && (from..=to).contains(&d)
        })
    };
    assert!(dated("1400", "1400.??.??") >= 1);
    assert_eq!(
        total(&db, &["--from", "1400", "--to", "1400"]),
        dated("1400", "1400.??.??")
    );
    assert_eq!(total(&db, &["--from", "2000"]), dated("2000", "9999"));
    assert_eq!(
        total(&db, &["--from", "1985.03", "--to", "1990"]),
        brute(&games, |g| {
            let d = g.tag("Date").unwrap_or("");
            d.as_bytes().first().is_some_and(u8::is_ascii_digit)
                && ("1985.03"..="1990.??.??").contains(&d)
        })
    );
    for result in ["1-0", "0-1", "1/2-1/2", "*"] {
        assert_eq!(
            total(&db, &["--result", result]),
            brute(&games, |g| g.result.as_str() == result)
        );
    }
    assert_eq!(
        total(&db, &["--result", "white"]),
        total(&db, &["--result", "1-0"])
    );
    for (arg, end) in [
        ("checkmate", GameEnd::Checkmate),
        ("stalemate", GameEnd::Stalemate),
        ("bare-king", GameEnd::BareKing),
        ("citadel-draw", GameEnd::CitadelDraw),
        ("other", GameEnd::Other),
    ] {
        assert_eq!(
            total(&db, &["--termination", arg]),
            brute(&games, |g| g.end == end),
            "{arg}"
        );
    }
    assert_eq!(
        total(&db, &["--min-plies", "10", "--max-plies", "40"]),
        brute(&games, |g| (10..=40).contains(&g.plies))
    );
    let has = |g: &StoredGame, k: MoveKind| g.moves.iter().any(|m| m.kind == k);
    assert_eq!(
        total(&db, &["--with", "swap"]),
        brute(&games, |g| has(g, MoveKind::Swap))
    );
    assert!(total(&db, &["--with", "swap"]) >= 1);
    assert_eq!(
        total(&db, &["--with", "lift"]),
        brute(&games, |g| has(g, MoveKind::Lift))
    );
    assert_eq!(
        total(&db, &["--with", "citadel-draw"]),
        brute(&games, |g| g.end == GameEnd::CitadelDraw)
    );
    assert_eq!(
        total(&db, &["--with", "promotion"]),
        brute(&games, |g| g.special.count[Special::Promotion] > 0)
    );
    let promoted_to = |kind: &str| {
        brute(&games, |g| {
            g.special
                .promotions_by_kind
                .iter()
                .any(|(k, n)| k == kind && *n > 0)
        })
    };
    // A kind promoted to in some Tamerlane game (the samples have promotions).
    let kind = games
        .iter()
        .filter(|g| g.variant == "tamerlane")
        .find_map(|g| g.special.promotions_by_kind.first())
        .map(|(k, _)| k.clone())
        .expect("a promotion");
    assert!(promoted_to(&kind) >= 1);
    assert_eq!(total(&db, &["--promotion-to", &kind]), promoted_to(&kind));
    // By letter, with the variant.
    let v = kabir::variants::builtin("tamerlane").unwrap();
    let letter = v
        .kind(v.kind_by_id(&kind).unwrap())
        .symbol
        .to_ascii_lowercase();
    if letter.len() == 1 {
        assert_eq!(
            total(&db, &["--promotion-to", &letter, "--variant", "tamerlane"]),
            promoted_to(&kind)
        );
    }
    // A piece no variant has, or a letter the variant gives no piece, is refused with what
    // is accepted.
    for args in [
        &["search", "--promotion-to", "<script>"][..],
        &["search", "--promotion-to", "Q", "--variant", "tamerlane"],
    ] {
        let out = run(&db, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("--promotion-to"), "{stderr}");
        assert!(stderr.contains("vizir"), "{stderr}");
    }
}

#[test]
fn sorted_and_paged() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    let mut by_plies: Vec<(u32, u32)> = games.iter().map(|g| (g.plies, g.id.0)).collect();
    // Longest first; ties in id order.
    by_plies.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let want: Vec<u64> = by_plies[7..17].iter().map(|p| u64::from(p.1)).collect();
    let got = ids(
        &db,
        &[
            "--sort",
            "plies",
            "--reverse",
            "--limit",
            "10",
            "--offset",
            "7",
        ],
    );
    assert_eq!(got, want);
    let n = games.len() as u64;
    let offset = (n - 5).to_string();
    let page = json(&db, &["search", "--limit", "10", "--offset", &offset]);
    assert_eq!(page["total"].as_u64().unwrap(), n);
    assert_eq!(page["games"].as_array().unwrap().len(), 5);
    assert_eq!(ids(&db, &["--limit", "3"]), vec![1, 2, 3]);
    assert_eq!(ids(&db, &["--limit", "2", "--reverse"]), vec![n, n - 1]);
    // The table says how many match and which are shown.
    let table = ok(&db, &["search", "--variant", "shatranj", "--limit", "4"]);
    let n = total(&db, &["--variant", "shatranj"]);
    assert!(
        table.starts_with(&format!("{n} games match, showing 1-4")),
        "{table}"
    );
    let csv = ok(&db, &["search", "--limit", "0", "--format", "csv"]);
    assert_eq!(csv.lines().count(), games.len() + 1);
    assert!(csv.starts_with("id,variant,white,black,event,site,date,result,plies,termination"));
    let pgn = ok(&db, &["search", "--event", "order", "--format", "pgn"]);
    assert_eq!(pgn.matches("[Event \"Order").count(), 3);
}

#[test]
fn position_search_equals_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    let registry = Registry::builtin();
    let mut targets: Vec<Position> = Vec::new();
    for name in ["shatranj", "knavish-shatranj", "tamerlane"] {
        targets.push(Position::start(&kabir::variants::builtin(name).unwrap()));
    }
    // Positions along some games, including their last ones.
    for g in games.iter().step_by(9) {
        for ply in [1, 2, 4, 10, g.moves.len()] {
            if let Ok(p) = g.position_at(&registry, ply.min(g.moves.len())) {
                targets.push(p);
            }
        }
    }
    for target in &targets {
        let want = reached(&games, target);
        assert!(!want.is_empty());
        let fen = target.to_fen();
        let page = json(
            &db,
            &[
                "search",
                "--fen",
                &fen,
                "--variant",
                target.variant().id(),
                "--limit",
                "0",
            ],
        );
        let got: Vec<(u32, u32)> = page["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                (
                    g["id"].as_u64().unwrap() as u32,
                    g["ply"].as_u64().unwrap() as u32,
                )
            })
            .collect();
        assert_eq!(got, want, "{fen}");
        assert_eq!(page["total"].as_u64().unwrap(), want.len() as u64);
    }
    // A position and a tag condition together.
    let start = Position::start(&kabir::variants::builtin("shatranj").unwrap());
    let want = reached(&games, &start)
        .iter()
        .filter(|(id, _)| games[*id as usize - 1].result.as_str() == "1-0")
        .count() as u64;
    let fen = start.to_fen();
    assert_eq!(
        total(
            &db,
            &["--fen", &fen, "--variant", "shatranj", "--result", "1-0"]
        ),
        want
    );
}

#[test]
fn opening_lines_in_any_order_or_exact() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    let v = kabir::variants::builtin("shatranj").unwrap();
    let (moves, target) = kabir::notation::play_line(&Position::start(&v), "e3 e6 d3 d6").unwrap();
    let any = reached(&games, &target);
    // The three transposition games at least.
    assert!(any.len() >= 3, "{any:?}");
    let line = [
        "search",
        "--variant",
        "shatranj",
        "--moves",
        "1. e3 e6 2. d3 d6",
    ];
    assert_eq!(
        ids(&db, &[&line[1..], &["--limit", "0"]].concat()),
        any.iter().map(|h| u64::from(h.0)).collect::<Vec<_>>()
    );
    let exact: Vec<u64> = games
        .iter()
        .filter(|g| g.variant == "shatranj" && g.moves.starts_with(&moves))
        .map(|g| u64::from(g.id.0))
        .collect();
    assert!(!exact.is_empty() && exact.len() < any.len());
    assert_eq!(
        ids(
            &db,
            &[&line[1..], &["--exact-order", "--limit", "0"]].concat()
        ),
        exact
    );
    // With a single variant in question, --variant may be left out only when the database
    // has one variant; here it has three.
    let out = run(&db, &["search", "--moves", "e3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("several variants"));
    // A bad move is named.
    let out = run(
        &db,
        &["search", "--variant", "shatranj", "--moves", "e3 e6 Nf5"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 3 \"Nf5\""), "{err}");
    assert!(err.contains("Nf3"), "{err}");
}

#[test]
fn sql_looking_arguments_are_data() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    for args in [
        &["--player", "'; DROP TABLE game; --"][..],
        &["--event", "%"],
        &["--site", "x' OR '1'='1"],
        &["--player", "\" OR 1=1 --", "--color", "white"],
    ] {
        assert_eq!(total(&db, args), 0, "{args:?}");
    }
    // Parsed values reject SQL outright.
    let out = run(&db, &["search", "--promotion-to", "vizir' OR 'a'='a"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&db, &["search", "--from", "1990' OR '1'='1"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&db, &["search", "--variant", "shatranj; DROP TABLE game"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(
        &db,
        &[
            "search",
            "--variant",
            "shatranj",
            "--moves",
            "'); DELETE FROM game; --",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = run(&db, &["stats", "--player", "x'); DROP TABLE game; --"]);
    assert_eq!(out.status.code(), Some(0));
    let out = run(
        &db,
        &["export", "--event", "' OR 1=1 --", "--format", "csv"],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    // Nothing changed.
    assert_eq!(total(&db, &[]), all_games(&db).len() as u64);
    Database::open(&db).unwrap().integrity_check().unwrap();
}

#[test]
fn exported_games_reimport_identically() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let out = dir.path().join("all.pgn");
    ok(&db, &["export", "--output", out.to_str().unwrap()]);
    let fresh = dir.path().join("fresh.db");
    let text = kabir()
        .arg("import")
        .arg("--db")
        .arg(&fresh)
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(text.status.code(), Some(0));

    let (a, b) = (all_games(&db), all_games(&fresh));
    let summary = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(
        summary.contains(&format!("imported: {}, duplicates: 0", a.len())),
        "{summary}"
    );
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "game {}", x.id);
    }
    // A filtered export in CSV and JSON: one row per game, moves that replay.
    let csv = ok(
        &db,
        &["export", "--variant", "tamerlane", "--format", "csv"],
    );
    assert_eq!(
        csv.lines().count(),
        a.iter().filter(|g| g.variant == "tamerlane").count() + 1
    );
    let lines = ok(
        &db,
        &["export", "--variant", "tamerlane", "--format", "json"],
    );
    let registry = Registry::builtin();
    let d = Database::open(&db).unwrap();
    let mut n = 0;
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let g = d.game(v["id"].as_u64().unwrap() as u32).unwrap().unwrap();
        let start = g.position_at(&registry, 0).unwrap();
        let (moves, _) = kabir::notation::play_line(&start, v["moves"].as_str().unwrap()).unwrap();
        assert_eq!(moves, g.moves);
        assert_eq!(v["plies"].as_u64().unwrap(), u64::from(g.plies));
        assert_eq!(v["tags"]["Event"].as_str(), g.tag("Event"));
        n += 1;
    }
    assert_eq!(n, a.iter().filter(|g| g.variant == "tamerlane").count());
    // Only the games asked for.
    let some = ok(&db, &["export", "--player", "timur"]);
    assert_eq!(some.matches("[Event ").count(), 1);
}

/// An export, a search or a game shown from a damaged database names the damage: a built-in
/// variant is never "not known here" because a game's stored start or moves do not replay,
/// and a game whose variant's row is gone is an error, not a game silently left out.
#[test]
fn a_damaged_database_is_exported_with_its_damage_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    let shatranj = |n: usize| {
        games
            .iter()
            .filter(|g| g.variant == "shatranj" && g.moves.len() > 4)
            .nth(n)
            .unwrap()
            .id
    };
    let damage = |name: &str, sql: &str| {
        let path = dir.path().join(name);
        std::fs::copy(&db, &path).unwrap();
        rusqlite::Connection::open(&path)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        path
    };
    let fails = |path: &std::path::Path, args: &[&str]| {
        let out = run(path, args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("not known here"), "{args:?}: {stderr}");
        assert!(stderr.contains("damaged"), "{args:?}: {stderr}");
        stderr
    };
    // Its third move's to-square moved off the board (bytes 6-8 are the third move).
    let (moves, start, text) = (shatranj(0), shatranj(1), shatranj(2));
    let bad = damage(
        "moves.db",
        &format!(
            "UPDATE game
             SET moves = CAST(substr(moves, 1, 6) || x'00ff00' || substr(moves, 10) AS BLOB)
             WHERE id = {moves};
             UPDATE game SET start_fen = 'not a position' WHERE id = {start};
             UPDATE game SET moves = 'e3 e6' WHERE id = {text};"
        ),
    );
    let m = moves.to_string();
    for args in [
        &["export", "--format", "csv"][..],
        &["export", "--format", "json"],
        &["show", &m],
        &["show", &m, "--format", "json"],
    ] {
        let stderr = fails(&bad, args);
        assert!(
            stderr.contains(&format!("game {moves}")) && stderr.contains("its move at ply 3"),
            "{args:?}: {stderr}"
        );
    }
    let s = start.to_string();
    let stderr = fails(&bad, &["show", &s, "--ply", "0"]);
    assert!(
        stderr.contains(&format!("game {start}")) && stderr.contains("its start position"),
        "{stderr}"
    );
    // Text where the moves' blob is kept.
    let t = text.to_string();
    let stderr = fails(&bad, &["show", &t]);
    assert!(stderr.contains("moves"), "{stderr}");
    // The variant's row gone: its games are not left out of a list or an export.
    let gone = damage(
        "variant.db",
        "PRAGMA foreign_keys = OFF; DELETE FROM variant WHERE name = 'shatranj'",
    );
    for args in [
        &["export"][..],
        &["export", "--format", "csv"],
        &["search", "--limit", "0"],
        &["show", &m],
    ] {
        let stderr = fails(&gone, args);
        assert!(
            stderr.contains("is missing from the variant table"),
            "{args:?}: {stderr}"
        );
    }
}

/// Games whose players are written in several scripts, with capitals and accents.
pub(crate) const NAMES_PGN: &str = "\
[Variant \"Shatranj\"]\n[White \"Ørjan Olsen\"]\n[Black \"Ñúñez\"]\n[Result \"*\"]\n\n1. e3 e6 *\n\n\
[Variant \"Shatranj\"]\n[White \"ΣΩΚΡΆΤΗΣ\"]\n[Black \"ИВАНОВ\"]\n[Result \"*\"]\n\n1. e3 e6 *\n\n\
[Variant \"Shatranj\"]\n[White \"σωκράτης\"]\n[Black \"иванов\"]\n[Result \"*\"]\n\n1. e3 e6 *\n";

/// Which texts find how many of [`NAMES_PGN`]'s games.
pub(crate) const NAMES_FOUND: [(&str, u64); 9] = [
    ("ørjan", 1),
    ("ØRJAN", 1),
    ("Nunez", 1),
    ("ÑÚÑEZ", 1),
    ("ΣΩΚΡΆΤΗΣ", 2),
    ("σωκρατης", 2),
    ("ИВАНОВ", 2),
    ("иванов", 2),
    // `ø` is a letter of its own, not `o` with a mark.
    ("orjan", 0),
];

#[test]
fn names_match_ignoring_case_and_accents_in_every_script() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("names.pgn");
    std::fs::write(&pgn, NAMES_PGN).unwrap();
    let db = dir.path().join("names.db");
    crate::cli_common::kabir()
        .args(["import", "-q", "--db"])
        .arg(&db)
        .arg(&pgn)
        .assert()
        .code(0);
    for (asked, games) in NAMES_FOUND {
        assert_eq!(total(&db, &["--player", asked]), games, "{asked}");
    }
    // With the name index or without it (a colour reads the games' own tags), alike.
    assert_eq!(total(&db, &["--player", "nunez", "--color", "black"]), 1);
    assert_eq!(total(&db, &["--player", "nunez", "--color", "white"]), 0);
}
