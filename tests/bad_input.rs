//! The bad-input catalogue: `kabir validate` on one small file per kind of defect
//! (`tests/data/bad-input/`), and on huge inputs generated here rather than committed. For
//! each: the exit status and every problem reported, as (kind, line, column).

use assert_cmd::Command;
use serde_json::Value;

fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

/// A reported problem: kind, line, column.
type Reported = (String, u64, u64);

/// Validates `path`; returns the exit status, every problem of every game (errors first
/// within a game, as reported), the messages, and the game objects.
fn validate(path: &std::path::Path) -> (i32, Vec<Reported>, Vec<String>, Vec<Value>) {
    let out = kabir()
        .args(["validate", "--format", "json"])
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut problems = Vec::new();
    let mut messages = Vec::new();
    let mut games = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v.get("summary").is_some() {
            continue;
        }
        for key in ["errors", "warnings"] {
            for p in v[key].as_array().unwrap() {
                problems.push((
                    p["kind"].as_str().unwrap().to_string(),
                    p["line"].as_u64().unwrap(),
                    p["column"].as_u64().unwrap(),
                ));
                messages.push(p["message"].as_str().unwrap().to_string());
            }
        }
        games.push(v);
    }
    (out.status.code().unwrap(), problems, messages, games)
}

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/bad-input")
        .join(name)
}

fn owned(list: &[(&str, u64, u64)]) -> Vec<Reported> {
    list.iter()
        .map(|&(k, l, c)| (k.to_string(), l, c))
        .collect()
}

/// A file of the catalogue: name, exit status, every problem as (kind, line, column), and a
/// phrase the first message must contain.
type Case<'a> = (&'a str, i32, &'a [(&'a str, u64, u64)], &'a str);

#[test]
fn every_file_of_the_catalogue() {
    let catalogue: &[Case] = &[
        ("empty.pgn", 0, &[], ""),
        ("whitespace.pgn", 0, &[], ""),
        ("invalid-utf8-tag.pgn", 1, &[("syntax", 1, 12)], "UTF-8"),
        ("invalid-utf8-comment.pgn", 1, &[("syntax", 4, 5)], "UTF-8"),
        // The byte order mark is skipped and not counted; the game is read.
        ("bom.pgn", 1, &[("illegal-move", 4, 7)], "no legal move"),
        ("crlf.pgn", 1, &[("illegal-move", 5, 8)], "no legal move"),
        ("cr-only.pgn", 1, &[("illegal-move", 5, 8)], "no legal move"),
        (
            "unterminated-tag.pgn",
            1,
            &[("syntax", 1, 13)],
            "close the tag value",
        ),
        (
            "unterminated-comment.pgn",
            1,
            &[("syntax", 3, 7), ("missing-result", 5, 1)],
            "close the comment",
        ),
        (
            "unterminated-variation.pgn",
            1,
            &[
                ("syntax", 4, 8),
                ("syntax", 3, 10),
                ("missing-result", 5, 1),
            ],
            "result only at the end",
        ),
        (
            "move-number-order.pgn",
            0,
            &[("move-number", 4, 1)],
            "expected move number 3",
        ),
        (
            "result-in-movetext.pgn",
            1,
            &[("syntax", 3, 10)],
            "result only at the end",
        ),
        (
            "unknown-variant.pgn",
            1,
            &[("unknown-variant", 1, 1)],
            "Chess960",
        ),
        ("fen-too-many-ranks.pgn", 1, &[("bad-fen", 2, 1)], "9 ranks"),
        (
            "fen-unknown-piece.pgn",
            1,
            &[("bad-fen", 2, 1)],
            "unknown piece \"X\"",
        ),
        (
            "fen-two-kings.pgn",
            1,
            &[("bad-fen", 2, 1)],
            "at most 1 is allowed",
        ),
        (
            "fen-no-side-to-move.pgn",
            1,
            &[("bad-fen", 2, 1)],
            "side to move is missing",
        ),
        (
            "illegal-in-variation.pgn",
            1,
            &[("illegal-move", 3, 16)],
            "no legal move",
        ),
        (
            "after-checkmate.pgn",
            1,
            &[("move-after-end", 4, 9)],
            "checkmate",
        ),
        (
            "ends-mid-move.pgn",
            1,
            &[("syntax", 3, 13), ("missing-result", 3, 14)],
            "destination square",
        ),
    ];
    let mut covered: Vec<&str> = vec!["garbage.bin"];
    for &(file, code, expected, phrase) in catalogue {
        let (got_code, problems, messages, _) = validate(&data(file));
        assert_eq!(problems, owned(expected), "{file}: {messages:?}");
        assert_eq!(got_code, code, "{file}");
        if let Some(first) = messages.first() {
            assert!(first.contains(phrase), "{file}: {first}");
        }
        covered.push(file);
    }
    // Every file of the catalogue is checked here.
    let mut files: Vec<String> = std::fs::read_dir(data(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    covered.sort();
    assert_eq!(files, covered);
}

#[test]
fn binary_garbage() {
    let (code, problems, _, games) = validate(&data("garbage.bin"));
    assert_eq!(code, 1);
    assert_eq!(games.len(), 1);
    assert_eq!(problems[0], ("syntax".to_string(), 1, 1));
    assert!(problems.contains(&("missing-variant".to_string(), 1, 1)));
    assert!(
        problems
            .iter()
            .all(|p| ["syntax", "missing-variant", "missing-result"].contains(&p.0.as_str())),
        "{problems:?}"
    );
}

/// Writes generated input to a temporary file and validates it.
fn validate_text(text: &[u8]) -> (i32, Vec<Reported>, Vec<String>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pgn");
    std::fs::write(&path, text).unwrap();
    validate(&path)
}

const HEADER: &str = "[Variant \"Shatranj\"]\n\n";

#[test]
fn a_ten_megabyte_comment() {
    let line = "no play at all.\n";
    let lines = (10 << 20) / line.len();
    let body = line.repeat(lines);
    let good = format!("{HEADER}1. e3 {{{body}}} e6 *\n");
    let (code, problems, _, games) = validate_text(good.as_bytes());
    assert_eq!((code, problems.len(), games.len()), (0, 0, 1));
    // A defect after it is placed by counting every line of the comment.
    let bad = format!("{HEADER}1. e3 {{{body}}} Qe7 *\n");
    let (code, problems, _, _) = validate_text(bad.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(problems, owned(&[("illegal-move", 3 + lines as u64, 3)]));
}

#[test]
fn variations_nested_ten_thousand_deep() {
    const DEPTH: usize = 10_000;
    let nest = |innermost: &str| {
        format!(
            "{HEADER}1. e3 {}{innermost}{} e6 *\n",
            "(1. d3 ".repeat(DEPTH),
            ")".repeat(DEPTH)
        )
    };
    let (code, problems, _, games) = validate_text(nest("d6").as_bytes());
    assert_eq!((code, problems.len()), (0, 0), "{problems:?}");
    assert_eq!(games[0]["plies"], 2);
    // An illegal move in the deepest variation only.
    let (code, problems, _, _) = validate_text(nest("Qd7").as_bytes());
    assert_eq!(code, 1);
    assert_eq!(
        problems,
        owned(&[("illegal-move", 3, 7 + 7 * DEPTH as u64)])
    );
}

#[test]
fn a_game_of_a_hundred_thousand_plies() {
    // Knights out and back: Shatranj has no repetition or move-count rule by default.
    let mut text = String::from(HEADER);
    for n in (1..=50_000).step_by(2) {
        text.push_str(&format!("{n}. Nf3 Nf6 {}. Ng1 Ng8\n", n + 1));
    }
    let good = format!("{text}*\n");
    let (code, problems, _, games) = validate_text(good.as_bytes());
    assert_eq!((code, problems.len()), (0, 0), "{problems:?}");
    assert_eq!(games[0]["plies"], 100_000);
    let bad = format!("{text}50001. Ke3 *\n");
    let (code, problems, _, _) = validate_text(bad.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(problems, owned(&[("illegal-move", 2 + 25_000 + 1, 8)]));
}

#[test]
fn a_tag_value_of_one_megabyte() {
    let value = "Abu Bakr as-Suli ".repeat((1 << 20) / 17);
    let text = format!("[White \"{value}\"]\n[Variant \"Shatranj\"]\n\n1. e3 e6 2. Ke3 *\n");
    let (code, problems, _, games) = validate_text(text.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(problems, owned(&[("illegal-move", 4, 13)]));
    assert_eq!(games[0]["white"].as_str(), Some(value.as_str()));
}

#[test]
fn a_result_tag_that_is_no_result_is_not_written_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("odd.pgn");
    std::fs::write(
        &input,
        "[Variant \"Shatranj\"]\n[Result \"0-0\"]\n\n1. e3 e6\n",
    )
    .unwrap();
    let fixed = dir.path().join("fixed.pgn");
    kabir()
        .args(["validate", "--quiet", "--fix"])
        .arg(&fixed)
        .arg(&input)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&fixed).unwrap();
    assert!(
        text.contains("[Result \"*\"]") && text.contains("1. e3 e6 *"),
        "{text}"
    );
    let (code, problems, _, _) = validate(&fixed);
    assert_eq!((code, problems), (0, vec![]));
}
