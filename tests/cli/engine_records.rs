//! Game records as engines and other programs write them, through the real binary: moves
//! played on after two bare kings (a warning; the game is stored whole and ends in the
//! draw), `#` on the capture that bares the enemy king with check, files joined with their
//! byte-order marks, tags given twice, and variations nested deeper than memory would hold
//! at a few kilobytes a level.
//!
//! `tests/data/engine/` holds records written by Fairy-Stockfish (pyffish 0.0.90, the SAN of
//! `get_san_moves`): a Shatranj game played at random with a strong preference for captures
//! from the start position until two bare kings remained, and three king moves after them
//! (`shatranj-fairy-stockfish-bare-kings.pgn`); a Knavish Shatranj ending where the king takes
//! the last piece and both kings walk on (`knavish-bare-kings.pgn`); and a Shatranj ending
//! whose last move, a rook taking the last black piece with check, Fairy-Stockfish marks `#`
//! (`shatranj-bare-king-mate-mark.pgn`).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/engine")
        .join(name)
}

/// `kabir validate --format json`: the exit code and the object of each game.
fn validate(path: &Path, extra: &[&str]) -> (i32, Vec<Value>) {
    let out = kabir()
        .args(["validate", "--format", "json"])
        .args(extra)
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let games = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("summary").is_none())
        .collect();
    (out.status.code().unwrap(), games)
}

/// A game's problems: kind, whether an error, line, column, ply.
fn problems(game: &Value) -> Vec<(String, bool, u64, u64, Option<u64>)> {
    ["errors", "warnings"]
        .iter()
        .flat_map(|k| game[k].as_array().unwrap().iter())
        .map(|p| {
            (
                p["kind"].as_str().unwrap().to_string(),
                p["error"].as_bool().unwrap(),
                p["line"].as_u64().unwrap(),
                p["column"].as_u64().unwrap(),
                p["ply"].as_u64(),
            )
        })
        .collect()
}

fn warning(
    kind: &str,
    line: u64,
    column: u64,
    ply: Option<u64>,
) -> (String, bool, u64, u64, Option<u64>) {
    (kind.to_string(), false, line, column, ply)
}

fn query<T: rusqlite::types::FromSql>(db: &Path, sql: &str) -> T {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn write(dir: &Path, name: &str, text: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn moves_after_two_bare_kings_are_a_warning_and_the_game_ends_in_the_draw() {
    let file = data("shatranj-fairy-stockfish-bare-kings.pgn");
    let (code, games) = validate(&file, &[]);
    assert_eq!(code, 0);
    let g = &games[0];
    assert_eq!(g["valid"], true);
    // 89. Kxf5 leaves the two kings after ply 177; 89... Kd7 is the first move after.
    assert_eq!(
        problems(g),
        [warning("moves-after-draw", 28, 47, Some(178))]
    );
    let w = &g["warnings"][0];
    assert!(
        w["message"].as_str().unwrap().contains("after ply 177"),
        "{w}"
    );
    assert_eq!(w["position"], "3k4/8/8/5K2/8/8/8/8 b - - 0 89");
    assert_eq!(g["plies"], 180);
    assert_eq!(g["end_ply"], 177);
    assert_eq!(g["final"]["termination"], "bare-king");
    assert_eq!(g["final"]["outcome"], "draw");

    // Stored whole: every move, every position indexed, the draw as its end.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let out = kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(
        summary.contains("imported: 1,") && summary.contains("rejected: 0"),
        "{summary}"
    );
    assert!(summary.contains("positions: 181,"), "{summary}");
    assert_eq!(query::<i64>(&db, "SELECT plies FROM game"), 180);
    assert_eq!(
        query::<String>(&db, "SELECT termination FROM game"),
        "bare king"
    );
    assert_eq!(query::<String>(&db, "SELECT result FROM game"), "1/2-1/2");
    let pgn: String = query(&db, "SELECT pgn FROM game_text");
    assert!(pgn.contains("89. Kxf5 Kd7 90. Kg5 Kc8 1/2-1/2"), "{pgn}");
    // The last position, three king moves after the draw, finds the game at ply 180.
    let out = kabir()
        .arg("search")
        .arg("--db")
        .arg(&db)
        .args([
            "--fen",
            "2k5/8/8/6K1/8/8/8/8 w - - 3 91",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(found["total"], 1, "{found}");
    assert_eq!(found["games"][0]["ply"], 180);

    // --fix writes it whole, and it reads back the same.
    let fixed = dir.path().join("fixed.pgn");
    kabir()
        .args(["validate", "-q", "--fix"])
        .arg(&fixed)
        .arg(&file)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&fixed).unwrap();
    assert!(text.contains("89. Kxf5 Kd7 90. Kg5 Kc8 1/2-1/2"), "{text}");
    let (code, again) = validate(&fixed, &[]);
    assert_eq!(code, 0);
    assert_eq!(again[0]["end_ply"], 177);
    assert_eq!(problems(&again[0])[0].0, "moves-after-draw");
}

#[test]
fn a_knavish_ending_played_on_after_the_king_takes_the_last_piece() {
    let (code, games) = validate(&data("knavish-bare-kings.pgn"), &[]);
    assert_eq!(code, 0);
    let g = &games[0];
    assert_eq!(problems(g), [warning("moves-after-draw", 12, 19, Some(3))]);
    assert_eq!(
        (g["plies"].as_u64(), g["end_ply"].as_u64()),
        (Some(7), Some(2))
    );
    assert_eq!(g["final"]["outcome"], "draw");
}

#[test]
fn moves_after_the_draw_in_variations_and_after_decisive_ends() {
    let dir = tempfile::tempdir().unwrap();
    let two_kings = "[FEN \"8/8/8/8/3k4/3R4/8/7K b - - 0 60\"]";
    let text = format!(
        "[Variant \"Shatranj\"]\n{two_kings}\n\n60... Kxd3 61. Kg2 (61. Kh2 Ke2) Ke4 1/2-1/2\n\n\
         [Variant \"Shatranj\"]\n{two_kings}\n\n60... Kxd3 61. Kg2 1-0\n\n\
         [Variant \"Shatranj\"]\n{two_kings}\n\n60... Kxd3 61. Kg5 1/2-1/2\n\n\
         [Variant \"Shatranj\"]\n[FEN \"8/8/8/3k4/8/3q4/8/R2R1K2 w - - 0 60\"]\n\n60. Rxd3+ Kc4 1-0\n\n\
         [Variant \"Shatranj\"]\n[FEN \"3k4/p7/3K4/8/8/8/8/7R w - - 0 60\"]\n\n60. Rh8# Kc7 1-0\n\n\
         [Variant \"Tamerlane\"]\n[FEN \"K10/12/k10/11/11/10r/11/11/12/10R w - - 0 1\"]\n\n1. Kbc+ Ka7 1/2-1/2\n"
    );
    let file = write(dir.path(), "ends.pgn", text.as_bytes());
    let (code, games) = validate(&file, &[]);
    assert_eq!(code, 1);
    // Each line that plays on past the draw is warned at its first such move.
    assert_eq!(
        problems(&games[0]),
        [
            warning("moves-after-draw", 4, 16, Some(2)),
            warning("moves-after-draw", 4, 25, Some(2)),
        ]
    );
    assert_eq!(games[0]["plies"], 3);
    // A result other than the draw contradicts the game's end.
    let p = problems(&games[1]);
    assert_eq!(p[0], ("result-contradicts".to_string(), true, 9, 20, None));
    // Past the draw the moves must still be legal.
    assert_eq!(
        problems(&games[2]),
        [("illegal-move".to_string(), true, 14, 16, Some(2))],
        "{}",
        games[2]
    );
    // After a bare king that loses, a checkmate or a citadel entered: errors.
    for (g, line, column) in [(3, 19, 11), (4, 24, 10), (5, 29, 9)] {
        assert_eq!(
            problems(&games[g])
                .into_iter()
                .filter(|p| p.1)
                .map(|p| (p.0, p.2, p.3))
                .collect::<Vec<_>>(),
            [("move-after-end".to_string(), line, column)],
            "{}",
            games[g]
        );
    }
}

#[test]
fn mate_mark_on_the_check_that_bares_the_king() {
    let (code, games) = validate(&data("shatranj-bare-king-mate-mark.pgn"), &[]);
    assert_eq!(code, 0);
    assert_eq!(problems(&games[0]), []);
    assert_eq!(games[0]["final"]["termination"], "bare-king");
    assert_eq!(games[0]["final"]["outcome"], "white-wins");

    let dir = tempfile::tempdir().unwrap();
    let fen = "[FEN \"8/8/8/3k4/8/3q4/8/R2R1K2 w - - 0 60\"]";
    let game = |moves: &str| format!("[Variant \"Shatranj\"]\n{fen}\n\n{moves}\n\n");
    let text = [
        // `+` is as right; the coordinate form (read the general way) accepts `#` too.
        game("60. Rxd3+ 1-0"),
        game("60. d1d3# 1-0"),
        // No mark is a missing one; `#` on a move that gives no check, or on a check that
        // does not win yet (the bared king still has its reply), is a wrong one.
        game("60. Rxd3 1-0"),
        "[Variant \"Shatranj\"]\n[FEN \"8/8/8/3k4/8/4q3/8/R3RK2 w - - 0 60\"]\n\n60. Rxe3# 1-0\n\n"
            .to_string(),
        "[Variant \"Shatranj\"]\n[FEN \"8/8/8/3k4/8/3q4/8/3R1K2 w - - 0 60\"]\n\n60. Rxd3# Kc4 1-0\n\n"
            .to_string(),
        // A check that enters the enemy citadel draws: `#` there is wrong.
        "[Variant \"Tamerlane\"]\n[FEN \"K10/12/k10/11/11/10r/11/11/12/10R w - - 0 1\"]\n\n1. Kbc# 1/2-1/2\n\n"
            .to_string(),
    ]
    .concat();
    let file = write(dir.path(), "marks.pgn", text.as_bytes());
    let (code, games) = validate(&file, &[]);
    assert_eq!(code, 0);
    let marks: Vec<Vec<String>> = games
        .iter()
        .map(|g| {
            problems(g)
                .into_iter()
                .filter(|p| p.0 == "check-mark")
                .map(|p| format!("{}:{}", p.2, p.3))
                .collect()
        })
        .collect();
    assert_eq!(
        marks,
        [
            vec![],
            vec![],
            vec!["14:5".to_string()],
            vec!["19:5".to_string()],
            vec!["24:5".to_string()],
            vec!["29:4".to_string()],
        ]
    );
    // The writer keeps `#` for checkmate.
    let fixed = dir.path().join("fixed.pgn");
    kabir()
        .args(["validate", "-q", "--fix"])
        .arg(&fixed)
        .arg(data("shatranj-bare-king-mate-mark.pgn"))
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&fixed).unwrap();
    assert!(text.contains("60. Rxd3+ 1-0"), "{text}");
}

#[test]
fn byte_order_marks_between_joined_files() {
    let dir = tempfile::tempdir().unwrap();
    let one = "\u{feff}[Variant \"Shatranj\"]\n[White \"A\"]\n\n1. e3 e6 *\n";
    let two = "\u{feff}[Variant \"Shatranj\"]\n[White \"B\"]\n\n1. d3 d6 *\n";
    let three = "\u{feff}[Variant \"Shatranj\"]\r\n[White \"C\"]\r\n\r\n1. c3 c6 *\r\n";
    let file = write(
        dir.path(),
        "joined.pgn",
        format!("{one}{two}{three}").as_bytes(),
    );
    let (code, games) = validate(&file, &[]);
    assert_eq!(code, 0);
    let seen: Vec<_> = games
        .iter()
        .map(|g| {
            (
                g["white"].clone(),
                g["line"].clone(),
                g["plies"].clone(),
                problems(g),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("A".into(), 1.into(), 2.into(), vec![]),
            ("B".into(), 5.into(), 2.into(), vec![]),
            ("C".into(), 9.into(), 2.into(), vec![]),
        ]
    );
    // Imported: all three.
    let db = dir.path().join("games.db");
    kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(&file)
        .assert()
        .code(0);
    assert_eq!(query::<i64>(&db, "SELECT count(*) FROM game"), 3);
}

#[test]
fn a_second_variant_or_result_tag_is_a_warning_naming_the_value_used() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[Event \"x\"]\n[Variant \"Shatranj\"]\n[Result \"1-0\"]\n[Variant \"Tamerlane\"]\n\
                [Result \"0-1\"]\n\n1. e3 e6 1-0\n";
    let file = write(dir.path(), "twice.pgn", text.as_bytes());
    let (code, games) = validate(&file, &[]);
    assert_eq!(code, 0);
    let g = &games[0];
    assert_eq!(g["variant"], "shatranj");
    assert_eq!(
        problems(g),
        [
            warning("duplicate-tag", 4, 1, None),
            warning("duplicate-tag", 5, 1, None),
        ]
    );
    let messages: Vec<&str> = g["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert!(
        messages[0].contains("Variant") && messages[0].contains("\"Shatranj\""),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("Result") && messages[1].contains("\"1-0\""),
        "{messages:?}"
    );
    assert_eq!(g["warnings"][0]["text"], "[Variant \"Tamerlane\"]");
    // The first is what is kept.
    let fixed = dir.path().join("fixed.pgn");
    kabir()
        .args(["validate", "-q", "--fix"])
        .arg(&fixed)
        .arg(&file)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&fixed).unwrap();
    assert_eq!(text.matches("[Variant ").count(), 1, "{text}");
    assert!(
        text.contains("[Result \"1-0\"]") && !text.contains("0-1"),
        "{text}"
    );
}

/// Runs `kabir validate` on `path` with its data segment limited to `mb` megabytes (`ulimit
/// -d`), so that a reading that needs more memory fails.
fn validate_within(path: &Path, mb: u64) -> (i32, Vec<Value>) {
    let kabir = assert_cmd::cargo::cargo_bin("kabir");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -d {} && exec \"$0\" validate --format json \"$1\"",
            mb * 1024
        ))
        .arg(&kabir)
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let games = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("summary").is_none())
        .collect();
    (out.status.code().unwrap_or(-1), games)
}

#[test]
fn variations_nested_two_hundred_thousand_deep_in_bounded_memory() {
    // A few kilobytes a level took 1.2 GB here; now a few hundred bytes do.
    const DEPTH: usize = 200_000;
    let dir = tempfile::tempdir().unwrap();
    let nest = |innermost: &str| {
        format!(
            "[Variant \"Shatranj\"]\n\n1. e3 {}{innermost}{} e6 *\n",
            "(1. d3 ".repeat(DEPTH),
            ")".repeat(DEPTH)
        )
    };
    let good = write(dir.path(), "deep.pgn", nest("d6").as_bytes());
    let (code, games) = validate_within(&good, 400);
    assert_eq!(code, 0);
    assert_eq!(
        (problems(&games[0]), games[0]["plies"].clone()),
        (vec![], 2.into())
    );
    // An illegal move in the deepest variation is found and placed.
    let bad = write(dir.path(), "deep-bad.pgn", nest("Qd7").as_bytes());
    let (code, games) = validate_within(&bad, 400);
    assert_eq!(code, 1);
    assert_eq!(
        problems(&games[0]),
        [(
            "illegal-move".to_string(),
            true,
            3,
            7 + 7 * DEPTH as u64,
            Some(2)
        )]
    );
}

#[test]
fn a_game_of_two_hundred_thousand_tags_is_stored_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("[Variant \"Shatranj\"]\n");
    for i in 0..200_000 {
        text.push_str(&format!(
            "[T{i} \"v{i}\"]{}",
            if i % 2 == 0 { " " } else { "\n" }
        ));
    }
    text.push_str("\n1. e3 e6 *\n");
    let file = write(dir.path(), "tags.pgn", text.as_bytes());
    let db = dir.path().join("games.db");
    kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .arg(&file)
        .assert()
        .code(0);
    let tags: String = query(&db, "SELECT tags FROM game_text");
    let tags: Vec<(String, String)> = serde_json::from_str(&tags).unwrap();
    // The seven-tag roster filled in, the Variant tag, and every one of the others.
    assert_eq!(tags.len(), 7 + 1 + 200_000);
    assert_eq!(
        tags.last().unwrap(),
        &("T199999".to_string(), "v199999".to_string())
    );
}
