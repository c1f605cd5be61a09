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
        (
            "fen-too-many-ranks.pgn",
            1,
            &[("bad-fen", 2, 44)],
            "9 ranks",
        ),
        (
            "fen-unknown-piece.pgn",
            1,
            &[("bad-fen", 2, 46)],
            "unknown piece \"X\"",
        ),
        (
            "fen-two-kings.pgn",
            1,
            &[("bad-fen", 2, 46)],
            "at most 1 is allowed",
        ),
        (
            "fen-no-side-to-move.pgn",
            1,
            &[("bad-fen", 2, 50)],
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

// Memory bounded whatever the file's shape, and problems shown in time linear in the game.
// A limit on the data segment (`ulimit -d`, which counts the allocator's mappings) turns a
// reading that takes memory with the file into a failure; the sizes are such that the
// reading before these were bounded took several times the limit.

/// Runs kabir with `args` and its data segment limited to `mb` megabytes.
fn kabir_within(mb: u64, args: &[&std::ffi::OsStr]) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -d {} && exec \"$0\" \"$@\"", mb * 1024))
        .arg(assert_cmd::cargo::cargo_bin("kabir"))
        .args(args)
        .output()
        .unwrap()
}

/// The summary of `kabir validate --format json` output.
fn summary(out: &std::process::Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or_default();
    let v: Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("{e}: {line}\n{}", String::from_utf8_lossy(&out.stderr)));
    v["summary"].clone()
}

#[test]
fn games_written_one_a_line_take_memory_of_a_block_not_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lines.pgn");
    // 40 MB: the whole file was one block, about 190 MB to validate.
    let lines = |n: usize| -> String {
        (0..n)
            .map(|i| format!("[Event \"{i:07}\"] [Variant \"Shatranj\"] 1. e3 *\n"))
            .collect()
    };
    let game_len = lines(1).len();
    let games = (40 << 20) / game_len;
    std::fs::write(&path, lines(games)).unwrap();
    let out = kabir_within(
        120,
        &[
            "validate".as_ref(),
            "--format=json".as_ref(),
            "-q".as_ref(),
            path.as_os_str(),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(&out);
    assert_eq!(
        (s["games"].as_u64(), s["valid"].as_u64()),
        (Some(games as u64), Some(games as u64))
    );
    // Imported: 12 MB took about 500 MB, every game made ready before the first was stored.
    let small = dir.path().join("small.pgn");
    let few = (12 << 20) / game_len;
    std::fs::write(&small, lines(few)).unwrap();
    let db = dir.path().join("lines.db");
    let out = kabir_within(
        350,
        &[
            "import".as_ref(),
            "-q".as_ref(),
            "--db".as_ref(),
            db.as_os_str(),
            small.as_os_str(),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&format!("imported: {few},")), "{said}");
}

#[test]
fn blank_lines_and_zero_bytes_take_no_memory_of_their_size() {
    let dir = tempfile::tempdir().unwrap();
    // 64 MB of line ends: no game at all (they took about 150 MB).
    let blank = dir.path().join("blank.pgn");
    std::fs::write(&blank, b"\n".repeat(64 << 20)).unwrap();
    let out = kabir_within(
        80,
        &[
            "validate".as_ref(),
            "--format=json".as_ref(),
            blank.as_os_str(),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(summary(&out)["games"].as_u64(), Some(0));
    // The same, then a game: it is read, on its line.
    let mut then = b"\r\n".repeat(20 << 20);
    then.extend_from_slice(b"[Variant \"Shatranj\"]\n\n1. e3 Ke3 *\n");
    std::fs::write(&blank, then).unwrap();
    let out = kabir_within(
        80,
        &[
            "validate".as_ref(),
            "--format=json".as_ref(),
            blank.as_os_str(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let game: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(game["errors"][0]["kind"], "illegal-move");
    assert_eq!(game["errors"][0]["line"], (20 << 20) + 3);
    // 128 MB of zero bytes: one game, too large to read, at line 1 (the reading held all
    // of it, and more).
    let zeros = dir.path().join("zeros.pgn");
    std::fs::write(&zeros, vec![0u8; 128 << 20]).unwrap();
    let out = kabir_within(
        150,
        &[
            "validate".as_ref(),
            "--format=json".as_ref(),
            zeros.as_os_str(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let game: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(game["errors"][0]["kind"], "game-too-large");
    assert_eq!(game["errors"][0]["line"], 1);
    assert_eq!(summary(&out)["games"].as_u64(), Some(1));
}

#[test]
fn a_game_over_the_limit_is_an_error_and_the_games_after_it_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pgn");
    let comment = "long notes.\n".repeat((3 << 20) / 12);
    let text = format!(
        "{HEADER}1. e3 e6 *\n\n[Event \"big\"]\n{HEADER}1. e3 {{{comment}}} e6 *\n\n\
         [Event \"after\"]\n{HEADER}1. e3 e6 *\n"
    );
    std::fs::write(&path, &text).unwrap();
    let out = kabir()
        .args(["validate", "--format", "json", "--max-game-size", "1M"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let games: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v.get("summary").is_none())
        .collect();
    assert_eq!(games.len(), 3);
    assert_eq!(games[1]["errors"][0]["kind"], "game-too-large");
    assert_eq!(games[1]["errors"][0]["line"], 5);
    assert!(
        games[1]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("1 MiB"),
        "{}",
        games[1]
    );
    assert_eq!(games[2]["errors"].as_array().map(Vec::len), Some(0));
    assert_eq!(games[2]["line"], 10 + (3 << 20) / 12);
    // Under the default limit the game is read.
    let (code, problems, _, games) = validate(&path);
    assert_eq!((code, problems.len(), games.len()), (0, 0, 3));
    // Imported: the others are stored, the game too large is reported and not copied to
    // the rejects (its text was not kept).
    let db = dir.path().join("big.db");
    let rejects = dir.path().join("rejects.pgn");
    let out = kabir()
        .args(["import", "--max-game-size", "1M", "--db"])
        .arg(&db)
        .arg("--rejects")
        .arg(&rejects)
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(":5:1: error[game-too-large]"), "{said}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("imported: 2,"));
    assert_eq!(std::fs::read(&rejects).unwrap_or_default(), b"");
}

#[test]
fn a_compressed_comment_of_a_gigabyte_is_passed_in_bounded_memory() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.pgn.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(format!("{HEADER}1. e3 {{").as_bytes())
        .unwrap();
    let block = vec![b'x'; 1 << 20];
    for _ in 0..1024 {
        gz.write_all(&block).unwrap();
    }
    gz.write_all(format!("}} e6 *\n\n[Event \"after\"]\n{HEADER}1. e3 e6 *\n").as_bytes())
        .unwrap();
    gz.finish().unwrap();
    let out = kabir_within(
        150,
        &[
            "validate".as_ref(),
            "--format=json".as_ref(),
            path.as_os_str(),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = summary(&out);
    assert_eq!(
        (s["games"].as_u64(), s["valid"].as_u64()),
        (Some(2), Some(1))
    );
}

#[test]
fn many_problems_on_one_line_are_shown_in_linear_time() {
    // 64,000 duplicate tags on one line took over 300 s to show, each problem reading the
    // whole line again; a comment of 180,000 tag lines over 280 s.
    let dir = tempfile::tempdir().unwrap();
    let tags = dir.path().join("tags.pgn");
    let line = format!(
        "[Variant \"Shatranj\"] {}\n\n1. e3 *\n",
        "[Event \"x\"] ".repeat(64_000)
    );
    std::fs::write(&tags, line).unwrap();
    let out = kabir().arg("validate").arg(&tags).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.matches("warning[duplicate-tag]").count(),
        10 + 1,
        "{text}"
    );
    assert!(
        text.contains(
            ":1:154: note: 63989 more warning[duplicate-tag] in game 1, from this one on"
        ),
        "{text}"
    );
    // The source line is shown around the caret, not whole.
    assert!(text.lines().all(|l| l.chars().count() < 300));
    let comment = dir.path().join("comment.pgn");
    let text = format!(
        "{HEADER}1. e3 {{\n{}}} *\n",
        "[Event \"x\"]\n".repeat(180_000)
    );
    std::fs::write(&comment, text).unwrap();
    let out = kabir().arg("validate").arg(&comment).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("more warning[duplicate-tag] in game 2"),
        "{text}"
    );
}
