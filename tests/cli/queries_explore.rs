//! `kabir explore` and `kabir show` through the real binary: the explorer's counts against
//! brute force, children that add up to their parent, trees, and boards.

use crate::queries_common::*;
use kabir::rules::Position;
use kabir::variants::Registry;

/// Checks one explorer node (JSON) and its subtree: moves add up to the games that
/// continued, results add up, each move's next position counts at least its games.
fn check_node(node: &serde_json::Value) -> u64 {
    let games = node["games"].as_u64().unwrap();
    let ended = node["ended_here"].as_u64().unwrap();
    let moves = node["moves"].as_array().unwrap();
    let sum: u64 = moves.iter().map(|m| m["games"].as_u64().unwrap()).sum();
    assert_eq!(sum, games - ended, "{node}");
    let r = &node["results"];
    assert_eq!(r["games"].as_u64().unwrap(), games);
    let mut checked = 1;
    for m in moves {
        let r = &m["results"];
        let parts: u64 = ["white_wins", "draws", "black_wins", "unfinished"]
            .iter()
            .map(|k| r[*k].as_u64().unwrap())
            .sum();
        assert_eq!(parts, m["games"].as_u64().unwrap());
        assert!(m["examples"].as_array().unwrap().len() <= 3);
        if let Some(next) = m.get("next") {
            // Transpositions can only add games to the next position.
            assert!(next["games"].as_u64().unwrap() >= m["games"].as_u64().unwrap());
            checked += check_node(next);
        }
    }
    checked
}

#[test]
fn explorer_counts_equal_brute_force_and_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    let registry = Registry::builtin();
    for name in ["shatranj", "knavish-shatranj", "tamerlane"] {
        let v = kabir::variants::builtin(name).unwrap();
        let start = Position::start(&v);
        let ex = json(&db, &["explore", "--variant", name]);
        let reached = reached(&games, &start);
        assert_eq!(
            ex["games"].as_u64().unwrap(),
            reached.len() as u64,
            "{name}"
        );
        assert!(
            ex["counting"]
                .as_str()
                .unwrap()
                .contains("transpositions included")
        );
        check_node(&ex);
        // Each move's count equals the games that played it at their first visit.
        for m in ex["moves"].as_array().unwrap() {
            let uci = m["uci"].as_str().unwrap();
            let want = reached
                .iter()
                .filter(|(id, ply)| {
                    let g = &games[*id as usize - 1];
                    g.moves.get(*ply as usize).is_some_and(|mv| {
                        mv.to_uci(&g.position_at(&registry, *ply as usize).unwrap()) == uci
                    })
                })
                .count() as u64;
            assert_eq!(m["games"].as_u64().unwrap(), want, "{name} {uci}");
        }
        // The tree: every node adds up.
        let tree = json(
            &db,
            &[
                "explore",
                "--variant",
                name,
                "--depth",
                "4",
                "--breadth",
                "3",
            ],
        );
        assert!(check_node(&tree) > 4);
    }
    // Transpositions: the three games reach the position after e3 e6 d3 d6.
    let ex = json(
        &db,
        &["explore", "--variant", "shatranj", "--moves", "e3 e6 d3 d6"],
    );
    let v = kabir::variants::builtin("shatranj").unwrap();
    let (_, target) = kabir::notation::play_line(&Position::start(&v), "e3 e6 d3 d6").unwrap();
    let want = reached(&games, &target).len() as u64;
    assert!(want >= 3);
    assert_eq!(ex["games"].as_u64().unwrap(), want);
    check_node(&ex);
    // "Order C" ended there.
    assert!(ex["ended_here"].as_u64().unwrap() >= 1);
    // The same position as a position string, and the search, agree.
    let fen = target.to_fen();
    let by_fen = json(&db, &["explore", "--variant", "shatranj", "--fen", &fen]);
    assert_eq!(by_fen["games"], ex["games"]);
    let search = json(&db, &["search", "--variant", "shatranj", "--fen", &fen]);
    assert_eq!(search["total"], ex["games"]);
    // Positions deep in games, at their ends too.
    for g in games.iter().step_by(13) {
        for ply in [3, 10, g.moves.len()] {
            let ply = ply.min(g.moves.len());
            let p = g.position_at(&registry, ply).unwrap();
            let ex = json(
                &db,
                &["explore", "--variant", &g.variant, "--fen", &p.to_fen()],
            );
            assert_eq!(
                ex["games"].as_u64().unwrap(),
                reached(&games, &p).len() as u64
            );
            check_node(&ex);
        }
    }
}

#[test]
fn explorer_table_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let table = ok(&db, &["explore", "--variant", "shatranj", "--moves", "e3"]);
    assert!(table.contains("transpositions included"), "{table}");
    assert!(table.contains("counted once"), "{table}");
    assert!(table.contains("all moves"), "{table}");
    assert!(table.contains("1... e6"), "{table}");
    let tree = ok(&db, &["explore", "--variant", "shatranj", "--depth", "2"]);
    assert!(tree.contains("\n│   1... "), "{tree}");
    let csv = ok(
        &db,
        &[
            "explore",
            "--variant",
            "shatranj",
            "--format",
            "csv",
            "--depth",
            "2",
        ],
    );
    let mut rows = csv.lines();
    assert!(
        rows.next()
            .unwrap()
            .starts_with("depth,line,move,uci,games,share_pct")
    );
    let root: Vec<&str> = rows.next().unwrap().split(',').collect();
    let first: u64 = csv
        .lines()
        .skip(2)
        .filter(|l| l.starts_with("1,"))
        .map(|l| l.split(',').nth(4).unwrap().parse::<u64>().unwrap())
        .sum();
    let ex = json(&db, &["explore", "--variant", "shatranj"]);
    assert_eq!(
        root[4].parse::<u64>().unwrap(),
        ex["games"].as_u64().unwrap()
    );
    assert_eq!(first, ex["continued"].as_u64().unwrap());
    // The database's only variant is taken when --variant is left out.
    let one = dir.path().join("one.db");
    kabir()
        .arg("import")
        .arg("--db")
        .arg(&one)
        .arg(dir.path().join("transpositions.pgn"))
        .assert()
        .success();
    let ex = json(&one, &["explore", "--moves", "e3"]);
    assert_eq!(ex["variant"], "shatranj");
    // Orders A and C begin with e3.
    assert_eq!(ex["games"], 2);
}

#[test]
fn show_draws_the_board_at_a_ply() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    let timur = id_of(&games, "Sample game", Some("Timur"));
    let text = ok(&db, &["show", &timur.to_string(), "--ply", "5"]);
    assert!(text.contains("│ White   │ Timur"), "{text}");
    assert!(text.contains("3. [Nc4]"), "{text}");
    assert!(text.contains("board after ply 5 (3. Nc4)"), "{text}");
    assert!(
        text.contains("Black to move; citadels in brackets"),
        "{text}"
    );
    let registry = Registry::builtin();
    let g = &games[timur as usize - 1];
    let fen = g.position_at(&registry, 5).unwrap().to_fen();
    assert!(text.contains(&format!("position: {fen}")), "{text}");
    // Rank 4 after 3. Nc4: the knight on c4.
    let rank4 = text
        .lines()
        .find(|l| l.trim_start().starts_with("4 "))
        .unwrap();
    let cells: Vec<&str> = rank4.split_whitespace().collect();
    assert_eq!(&cells[..5], &["4", "│", "·", "·", "N"], "{rank4}");
    // The citadel game: the king stands in Black's citadel, drawn left of rank 9.
    let citadel = id_of(&games, "Citadel", None).to_string();
    let text = ok(&db, &["show", &citadel, "--ascii"]);
    assert!(text.is_ascii());
    let rank9 = text
        .lines()
        .find(|l| l.trim_start().starts_with("9 "))
        .unwrap();
    assert!(rank9.contains("[K]"), "{text}");
    assert!(text.contains("termination citadel draw"));
    // The start position, drawn from Black's side.
    let shatranj = id_of(&games, "Casual correspondence game", None).to_string();
    let text = ok(&db, &["show", &shatranj, "--ply", "0", "--flip", "--ascii"]);
    assert!(text.contains("board the start position:"), "{text}");
    let first = text
        .lines()
        .find(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(" | "))
        .unwrap();
    assert_eq!(first.trim(), "1 | R N B Q K B N R |", "{text}");
    // No such game; no such ply.
    let out = run(&db, &["show", "9999"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no game 9999"));
    let out = run(&db, &["show", &timur.to_string(), "--ply", "999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has only 16 plies"));
}

/// The moves of a tree (JSON), level by level: for each depth, the moves listed there in the
/// order explored, each as its line from the root.
fn levels(root: &serde_json::Value) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut level: Vec<(String, &serde_json::Value)> = vec![(String::new(), root)];
    while !level.is_empty() {
        let mut here = Vec::new();
        let mut next = Vec::new();
        for (line, node) in level {
            for m in node["moves"].as_array().unwrap() {
                let line = format!("{line} {}", m["uci"].as_str().unwrap());
                here.push(line.clone());
                if let Some(n) = m.get("next") {
                    next.push((line, n));
                }
            }
        }
        if !here.is_empty() {
            out.push(here);
        }
        level = next;
    }
    out
}

/// A tree with its `next` objects cut below `depth` (the moves at `depth` kept).
fn pruned(node: &serde_json::Value, depth: usize) -> serde_json::Value {
    let mut node = node.clone();
    for m in node["moves"].as_array_mut().unwrap() {
        let m = m.as_object_mut().unwrap();
        match m.get("next") {
            Some(n) if depth > 1 => {
                let n = pruned(n, depth - 1);
                m.insert("next".into(), n);
            }
            _ => {
                m.remove("next");
            }
        }
    }
    for k in [
        "variant",
        "counting",
        "truncated",
        "max_nodes",
        "complete_depth",
    ] {
        node.as_object_mut().unwrap().remove(k);
    }
    node
}

/// `kabir explore` of Tamerlane's start 40 moves deep, following 1,000 moves a position, within
/// `max` moves.
fn tree_args(max: &str) -> Vec<&str> {
    vec![
        "explore",
        "--variant",
        "tamerlane",
        "--depth",
        "40",
        "--breadth",
        "1000",
        "--max-nodes",
        max,
    ]
}

#[test]
fn a_tree_past_its_node_budget_is_cut_level_by_level_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let full = json(&db, &tree_args("200000"));
    assert_eq!(full["truncated"], false);
    assert!(full.get("max_nodes").is_none() && full.get("complete_depth").is_none());
    let all = levels(&full);
    let total: usize = all.iter().map(Vec::len).sum();
    assert!(total > 300, "{total} moves in the whole tree");
    let cut = json(&db, &tree_args("300"));
    assert_eq!(cut["truncated"], true, "{cut}");
    assert_eq!(cut["max_nodes"], 300);
    let complete = cut["complete_depth"].as_u64().unwrap() as usize;
    assert!(complete >= 1 && complete < all.len(), "{complete}");
    check_node(&cut);
    let got = levels(&cut);
    assert!(got.iter().map(Vec::len).sum::<usize>() <= 300);
    // Every move down to the complete depth, as the whole tree has them...
    assert_eq!(pruned(&cut, complete), pruned(&full, complete));
    assert_eq!(&got[..complete], &all[..complete]);
    // ...and at the next depth the moves of the first positions in the order explored (most
    // played lines first), short of the whole level.
    let partial = got.get(complete).map_or(&[][..], Vec::as_slice);
    assert_eq!(partial, &all[complete][..partial.len()]);
    assert!(partial.len() < all[complete].len());
    assert_eq!(got.len(), complete + usize::from(!partial.is_empty()));

    // The table says so in its head; CSV, whose rows are data, on standard error.
    let table = ok(&db, &tree_args("300"));
    assert!(
        table.contains(&format!(
            "truncated: the tree lists at most 300 moves (--max-nodes); it has every move to \
             depth {complete}"
        )),
        "{table}"
    );
    let mut csv_args = tree_args("300");
    csv_args.extend(["--format", "csv"]);
    let out = run(&db, &csv_args);
    assert_eq!(out.status.code(), Some(0));
    let rows = String::from_utf8(out.stdout).unwrap().lines().count();
    assert_eq!(rows - 2, got.iter().map(Vec::len).sum::<usize>());
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated: the tree lists at most 300"));
    // A tree within the bound says nothing of it.
    let small = ok(&db, &["explore", "--variant", "tamerlane", "--depth", "2"]);
    assert!(!small.contains("truncated"), "{small}");

    // The bound is a number of moves from 1 to 200,000.
    for bad in ["0", "200001", "-1", "many"] {
        let out = run(&db, &tree_args(bad));
        assert_eq!(out.status.code(), Some(2), "--max-nodes {bad}");
    }
}

/// `explore --depth 40 --breadth 100000` on 2,000 Shatranj games, whose lines reach each
/// position by so many orders that the whole tree has millions of moves (gigabytes held),
/// answers within a data segment of 64 MB (`ulimit -d`), cut at the default bound.
#[test]
fn a_deep_wide_tree_of_thousands_of_games_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    let db = dir.path().join("games.db");
    kabir()
        .args([
            "generate",
            "--variant",
            "shatranj",
            "--games",
            "2000",
            "--seed",
            "1",
            "-o",
        ])
        .arg(&pgn)
        .assert()
        .success();
    kabir()
        .args(["import", "-q", "--db"])
        .arg(&db)
        .arg(&pgn)
        .assert()
        .success();
    for format in ["table", "json", "csv"] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -d {} && exec \"$0\" explore --db \"$1\" --depth 40 --breadth 100000 \
                 --format {format}",
                64 * 1024
            ))
            .arg(assert_cmd::cargo::cargo_bin("kabir"))
            .arg(&db)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr}");
        let text = String::from_utf8(out.stdout).unwrap();
        match format {
            "json" => {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(v["truncated"], true);
                assert_eq!(v["max_nodes"], 20_000);
                let n: usize = levels(&v).iter().map(Vec::len).sum();
                assert!(n <= 20_000 && n > 19_000, "{n}");
            }
            "csv" => {
                assert!(stderr.contains("truncated"), "{stderr}");
                assert!(text.lines().count() <= 20_002);
            }
            _ => assert!(text.contains("truncated: the tree lists at most 20000 moves")),
        }
    }
}

#[test]
fn a_move_that_cannot_be_read_is_said_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    for moves in ["Nz", "e3 Ng1g2f3"] {
        let out = run(&db, &["explore", "--variant", "shatranj", "--moves", moves]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("is not a move: expected"), "{stderr}");
        for rust_name in ["MissingDestination", "BadOrigin"] {
            assert!(!stderr.contains(rust_name), "{stderr}");
        }
    }
}

/// Whether a stored game passes the explorer's conditions, as `kabir search` reads them.
fn passes(g: &kabir::db::StoredGame, filter: &[&str]) -> bool {
    let tag = |name: &str| g.tag(name).unwrap_or("").to_lowercase();
    let mut ok = true;
    for pair in filter.chunks(2) {
        let v = pair[1].to_lowercase();
        ok &= match pair[0] {
            "--player" => match filter.iter().position(|a| *a == "--color") {
                Some(i) if filter[i + 1] == "white" => tag("White").contains(&v),
                Some(_) => tag("Black").contains(&v),
                None => tag("White").contains(&v) || tag("Black").contains(&v),
            },
            "--color" => true,
            "--event" => tag("Event").contains(&v),
            "--site" => tag("Site").contains(&v),
            "--from" => tag("Date").as_str() >= v.as_str(),
            "--to" => tag("Date").as_str() <= format!("{v}.99").as_str(),
            "--result" => g.result.as_str() == pair[1],
            other => panic!("{other}"),
        };
    }
    ok
}

const EXPLORE_FILTERS: &[&[&str]] = &[
    &["--player", "player 3"],
    &["--player", "PLAYER 1", "--color", "black"],
    &["--event", "cup 2"],
    &["--site", "town 1", "--result", "1-0"],
    &["--from", "1985", "--to", "1990.06"],
    &["--result", "1/2-1/2"],
    &["--player", "player 4", "--color", "white", "--from", "1990"],
];

#[test]
fn a_filtered_explorer_counts_the_kept_games_that_reached_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let games = all_games(&db);
    let registry = Registry::builtin();
    let v = kabir::variants::builtin("tamerlane").unwrap();
    let start = Position::start(&v);
    let first = json(&db, &["explore", "--variant", "tamerlane"]);
    let line = first["moves"][0]["san"].as_str().unwrap().to_string();
    let after = kabir::notation::play_line(&start, &line).unwrap().1;
    let mut some = 0;
    for filter in EXPLORE_FILTERS {
        for (pos, moves) in [(&start, ""), (&after, line.as_str())] {
            let mut args = vec!["explore", "--variant", "tamerlane", "--moves", moves];
            args.extend_from_slice(filter);
            let ex = json(&db, &args);
            check_node(&ex);
            let kept: Vec<(u32, u32)> = reached(&games, pos)
                .into_iter()
                .filter(|(id, _)| passes(&games[*id as usize - 1], filter))
                .collect();
            assert_eq!(ex["games"].as_u64().unwrap(), kept.len() as u64, "{args:?}");
            some += usize::from(!kept.is_empty());
            for m in ex["moves"].as_array().unwrap() {
                let uci = m["uci"].as_str().unwrap();
                let want: Vec<u64> = kept
                    .iter()
                    .filter(|(id, ply)| {
                        let g = &games[*id as usize - 1];
                        g.moves.get(*ply as usize).is_some_and(|mv| {
                            mv.to_uci(&g.position_at(&registry, *ply as usize).unwrap()) == uci
                        })
                    })
                    .map(|(id, _)| u64::from(*id))
                    .collect();
                assert_eq!(
                    m["games"].as_u64().unwrap(),
                    want.len() as u64,
                    "{args:?} {uci}"
                );
                let examples: Vec<u64> = m["examples"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e.as_u64().unwrap())
                    .collect();
                assert_eq!(examples, want.iter().take(3).copied().collect::<Vec<_>>());
            }
        }
    }
    assert!(some >= 8, "{some}");
    // A filter narrows: the player's games are fewer than all.
    let all = first["games"].as_u64().unwrap();
    let one = json(
        &db,
        &["explore", "--variant", "tamerlane", "--player", "player 3"],
    );
    assert!(one["games"].as_u64().unwrap() < all);
}

#[test]
fn a_filtered_explorer_in_every_format_and_as_a_tree() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_db(dir.path());
    let f = [
        "--variant",
        "shatranj",
        "--player",
        "player 2",
        "--color",
        "white",
    ];
    let table = ok(&db, &[&["explore"][..], &f].concat());
    assert!(
        table.contains("only games of \"player 2\" as White"),
        "{table}"
    );
    let ex = json(&db, &[&["explore"][..], &f].concat());
    let csv = ok(&db, &[&["explore", "--format", "csv"][..], &f].concat());
    let top = csv.lines().nth(1).unwrap();
    assert!(
        top.starts_with(&format!("0,,,,{},", ex["games"])),
        "{top} {}",
        ex["games"]
    );
    // Each followed move's position is the filtered explorer of the position after it.
    let tree = json(
        &db,
        &[&["explore", "--depth", "2", "--breadth", "2"][..], &f].concat(),
    );
    let mut followed = 0;
    for m in tree["moves"].as_array().unwrap().iter().take(2) {
        let mut next = m["next"].clone();
        let alone = json(
            &db,
            &[&["explore", "--moves", m["san"].as_str().unwrap()][..], &f].concat(),
        );
        for k in ["games", "results", "ended_here", "moves"] {
            assert_eq!(next[k], alone[k], "{k}");
        }
        next["moves"] = serde_json::Value::Null;
        followed += 1;
    }
    assert!(followed > 0);
    // Values are read as `kabir search` reads them.
    let out = run(
        &db,
        &["explore", "--variant", "shatranj", "--color", "white"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--player"));
    let out = run(
        &db,
        &["explore", "--variant", "shatranj", "--from", "2021.02.30"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--from"));
}
