//! `kabir validate` on files with one defect each: the reported kind, line and column, and
//! the exit status. Also: samples and generated games validate clean; --fix keeps every game.

use std::io::Write;

use serde_json::Value;

use crate::cli_common::{kabir, samples};

fn data(name: &str) -> String {
    format!("{}/tests/data/validate/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A reported problem: kind, whether it is an error, line, column, text.
type Reported = (String, bool, u64, u64, String);

/// Runs validate with JSON output; returns the exit code, the problems of the first game and
/// its JSON object.
fn problems(file: &str, extra: &[&str]) -> (i32, Vec<Reported>, Value) {
    let out = kabir()
        .args(["validate", "--format", "json"])
        .args(extra)
        .arg(data(file))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let mut list = Vec::new();
    for key in ["errors", "warnings"] {
        for p in first[key].as_array().unwrap() {
            list.push((
                p["kind"].as_str().unwrap().to_string(),
                p["error"].as_bool().unwrap(),
                p["line"].as_u64().unwrap(),
                p["column"].as_u64().unwrap(),
                p["text"].as_str().unwrap().to_string(),
            ));
        }
    }
    (out.status.code().unwrap(), list, first)
}

fn assert_one_error(file: &str, kind: &str, line: u64, column: u64, text: &str) -> Value {
    let (code, list, game) = problems(file, &[]);
    assert_eq!(code, 1, "{file}: {list:?}");
    let errors: Vec<_> = list.iter().filter(|p| p.1).collect();
    assert_eq!(errors.len(), 1, "{file}: {list:?}");
    let e = errors[0];
    assert_eq!(
        (e.0.as_str(), e.2, e.3, e.4.as_str()),
        (kind, line, column, text),
        "{file}"
    );
    game
}

#[test]
fn illegal_move_lists_close_legal_moves() {
    let game = assert_one_error("illegal.pgn", "illegal-move", 5, 17, "Qe7");
    let e = &game["errors"][0];
    assert_eq!(e["ply"], 4);
    assert_eq!(
        e["position"],
        "rnbkqbnr/pppp1ppp/4p3/8/8/4PN2/PPPP1PPP/RNBKQB1R b - - 1 2"
    );
    let legal: Vec<&str> = e["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        legal.contains(&"Ke7") && legal.contains(&"Ne7"),
        "{legal:?}"
    );
}

#[test]
fn ambiguous_move_lists_the_candidates() {
    let game = assert_one_error("ambiguous.pgn", "ambiguous-move", 7, 4, "Rd1");
    assert_eq!(
        game["errors"][0]["legal"],
        serde_json::json!(["Rad1", "Rhd1"])
    );
}

#[test]
fn move_after_checkmate() {
    let game = assert_one_error("after-end.pgn", "move-after-end", 7, 9, "Kg8");
    assert!(
        game["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("checkmate")
    );
}

#[test]
fn draw_claimed_after_checkmate() {
    assert_one_error(
        "result-contradicts.pgn",
        "result-contradicts",
        7,
        9,
        "1/2-1/2",
    );
}

#[test]
fn white_wins_claimed_when_white_was_stalemated() {
    let game = assert_one_error("stalemate-claim.pgn", "result-contradicts", 7, 10, "1-0");
    assert_eq!(game["final"]["termination"], "stalemate");
    assert_eq!(game["final"]["outcome"], "black-wins");
}

#[test]
fn result_tag_disagrees_with_movetext() {
    assert_one_error("result-mismatch.pgn", "result-mismatch", 5, 10, "0-1");
}

#[test]
fn unknown_variant_names_the_known_ones() {
    let game = assert_one_error("unknown-variant.pgn", "unknown-variant", 2, 1, "Chess960");
    let msg = game["errors"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("shatranj") && msg.contains("tamerlane"),
        "{msg}"
    );
}

#[test]
fn missing_variant_is_an_error_unless_a_default_is_given() {
    assert_one_error("missing-variant.pgn", "missing-variant", 1, 1, "");
    let (code, list, game) = problems("missing-variant.pgn", &["--variant", "shatranj"]);
    assert_eq!((code, list.len()), (0, 0));
    assert_eq!(game["variant"], "shatranj");
}

#[test]
fn bad_fen_tag() {
    // The column of the character where the position string goes wrong, inside the tag.
    let game = assert_one_error("bad-fen.pgn", "bad-fen", 4, 15, " ");
    assert!(
        game["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("3 ranks")
    );
}

#[test]
fn syntax_error_with_line_and_column() {
    assert_one_error("syntax.pgn", "syntax", 5, 7, "{");
}

#[test]
fn illegal_move_in_a_variation_only() {
    assert_one_error("variation-illegal.pgn", "illegal-move", 5, 16, "Nc3");
}

#[test]
fn warnings_do_not_invalidate() {
    let (code, list, _) = problems("warnings.pgn", &[]);
    assert_eq!(code, 0);
    let kinds: Vec<_> = list.iter().map(|p| (p.0.as_str(), p.1, p.2, p.3)).collect();
    assert_eq!(
        kinds,
        [
            ("non-canonical", false, 5, 4),
            ("non-canonical", false, 5, 26),
            ("non-canonical", false, 5, 39)
        ]
    );
    let (code, list, _) = problems("check-mark.pgn", &[]);
    assert_eq!(code, 0);
    assert_eq!(list[0].0, "check-mark");
}

#[test]
fn samples_validate_clean() {
    let files = samples();
    assert!(files.len() >= 4);
    let out = kabir()
        .args(["validate", "--format", "json"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut games = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v.get("summary").is_some() {
            assert_eq!(v["summary"]["invalid"], 0);
            assert_eq!(v["summary"]["warnings"], 0);
            continue;
        }
        games += 1;
        assert_eq!(v["valid"], true, "{line}");
        assert!(v["warnings"].as_array().unwrap().is_empty(), "{line}");
    }
    assert!(games >= 13);
}

#[test]
fn generated_games_validate_clean_for_every_variant() {
    for variant in ["shatranj", "knavish-shatranj", "tamerlane"] {
        let games = kabir()
            .args([
                "generate",
                "--variant",
                variant,
                "--games",
                "200",
                "--seed",
                "9",
            ])
            .output()
            .unwrap();
        assert!(games.status.success());
        let out = kabir()
            .args(["validate", "--quiet", "--format", "json", "-"])
            .write_stdin(games.stdout)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let v: Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(v["summary"]["games"], 200, "{variant}");
        assert_eq!(v["summary"]["valid"], 200, "{variant}: {text}");
        assert_eq!(v["summary"]["warnings"], 0, "{variant}: {text}");
        assert_eq!(out.status.code(), Some(0));
    }
}

#[test]
fn fix_writes_valid_games_canonically_and_keeps_rejects_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("mixed.pgn");
    let good = std::fs::read_to_string(data("warnings.pgn")).unwrap();
    let bad = std::fs::read_to_string(data("illegal.pgn")).unwrap();
    std::fs::File::create(&input)
        .unwrap()
        .write_all(format!("{good}\n{bad}").as_bytes())
        .unwrap();
    let fixed = dir.path().join("fixed.pgn");
    kabir()
        .args(["validate", "--quiet", "--fix"])
        .arg(&fixed)
        .arg(&input)
        .assert()
        .code(1);
    let fixed_text = std::fs::read_to_string(&fixed).unwrap();
    assert!(
        fixed_text.contains("1. e3 e6 2. d3 Nf6 3. Qd2 Nc6 4. Nf3 *"),
        "{fixed_text}"
    );
    let rejects = std::fs::read_to_string(dir.path().join("fixed.rejects.pgn")).unwrap();
    assert_eq!(rejects.trim(), bad.trim());
    // The canonical file validates clean, and writing it again changes nothing.
    let again = dir.path().join("again.pgn");
    kabir()
        .args(["validate", "--quiet", "--fix"])
        .arg(&again)
        .arg(&fixed)
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), fixed_text);
}

#[test]
fn compressed_input_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("games.pgn.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(std::fs::read(data("warnings.pgn")).unwrap().as_slice())
        .unwrap();
    enc.finish().unwrap();
    kabir()
        .args(["validate", "--quiet"])
        .arg(&gz)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("games"));
    kabir()
        .args(["validate", "/nonexistent/file.pgn"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/nonexistent/file.pgn"));
}
