//! Game records and position strings collected from other programs and publications
//! (`tests/data/real-world/`, with their provenance in `PROVENANCE.md` there), read as a new
//! user reads them: every file gives the answer its provenance calls for, the transcribed
//! historical games valid with the option they need.

use serde_json::Value;

use crate::cli_common::kabir;

fn file(name: &str) -> String {
    format!(
        "{}/tests/data/real-world/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// What `kabir validate --format json` says of a file: the exit status, each game's object and
/// the summary.
struct Validated {
    code: i32,
    games: Vec<Value>,
    summary: Value,
}

fn validate(name: &str, extra: &[&str]) -> Validated {
    let out = kabir()
        .args(["validate", "--format", "json"])
        .args(extra)
        .arg(file(name))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut games: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = games.pop().unwrap()["summary"].clone();
    Validated {
        code: out.status.code().unwrap(),
        games,
        summary,
    }
}

/// The kinds of a game's problems, errors or warnings, with their line and column.
fn problems(game: &Value, key: &str) -> Vec<(String, u64, u64)> {
    game[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap().to_string(),
                p["line"].as_u64().unwrap(),
                p["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Every `.pgn` file of the folder is checked below: a file added without a test fails here.
#[test]
fn every_file_has_its_expectation() {
    let dir = format!("{}/tests/data/real-world", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pgn"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "as-suli-diamond-averbakh.pgn",
            "cutechess-shatranj-results.pgn",
            "engine-fens.pgn",
            "fsf-issue833.pgn",
            "mansuba-dilarams-legacy-asprinted.pgn",
            "mansuba-dilarams-legacy-despaced.pgn",
            "sayyal-tabiya-de.pgn",
            "tamerlane-cikay-fen.pgn",
        ]
    );
}

/// Averbakh's line of al-Suli's diamond, in German notation (`F` for the Fers, `!!`): valid,
/// with the alias letter noted, and so with German letters too.
#[test]
fn al_suli_diamond() {
    for extra in [&[][..], &["--piece-letters", "de"]] {
        let v = validate("as-suli-diamond-averbakh.pgn", extra);
        assert_eq!((v.code, v.games.len()), (0, 2), "{extra:?}");
        assert_eq!(v.summary["valid"], 2);
        let warned = problems(&v.games[0], "warnings");
        assert_eq!(
            warned,
            [
                ("non-canonical".to_string(), 13, 92),
                ("non-canonical".to_string(), 13, 106)
            ]
        );
        assert_eq!(v.games[0]["plies"], 21);
    }
}

/// Cute Chess's own expectations (bare king, mate, stalemate) agree with kabir's rules: a
/// result that contradicted the position would be an error.
#[test]
fn cutechess_results() {
    let v = validate("cutechess-shatranj-results.pgn", &[]);
    assert_eq!(v.code, 0);
    assert_eq!(
        (v.summary["games"].clone(), v.summary["valid"].clone()),
        (11.into(), 11.into())
    );
    let ends: Vec<&str> = v
        .games
        .iter()
        .map(|g| g["final"]["status"].as_str().unwrap())
        .collect();
    // Games 4 and 6: the bared king has its move still to play; after it the other side has
    // won, as Cute Chess's result says (Fairy-Stockfish's timing, docs/RULES.md).
    let over = "over";
    let ongoing = "ongoing";
    assert_eq!(
        ends,
        [
            ongoing, over, over, ongoing, over, ongoing, over, over, over, over, over
        ]
    );
}

/// Position strings as engines write them: Sjaak II's missing fields and monty's `KQkq` are
/// read with a warning at the field; `--strict` makes them errors.
#[test]
fn engine_position_strings() {
    let v = validate("engine-fens.pgn", &[]);
    assert_eq!((v.code, v.summary["valid"].clone()), (0, 8.into()));
    assert_eq!(v.summary["warnings_by_kind"]["fen-assumed"], 2);
    assert_eq!(
        problems(&v.games[3], "warnings"),
        [("fen-assumed".to_string(), 52, 53)]
    );
    assert!(
        v.games[3]["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("swap (castling) and en passant fields are missing")
    );
    assert_eq!(
        problems(&v.games[4], "warnings"),
        [("fen-assumed".to_string(), 66, 53)]
    );
    // pychess's "Chaturanga" start (kings on e1 and d8) is a legal Shatranj position.
    assert_eq!(v.games[2]["valid"], true);

    let strict = validate("engine-fens.pgn", &["--strict"]);
    assert_eq!(
        (strict.code, strict.summary["invalid"].clone()),
        (1, 2.into())
    );
    assert_eq!(strict.summary["errors_by_kind"]["fen-assumed"], 2);
}

/// Fairy-Stockfish's test cases: the bare king that loses, and two bare kings drawn.
#[test]
fn fairy_stockfish_issue_833() {
    let v = validate("fsf-issue833.pgn", &[]);
    assert_eq!((v.code, v.summary["valid"].clone()), (0, 2.into()));
    let results: Vec<&str> = v
        .games
        .iter()
        .map(|g| g["final"]["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["white-wins", "draw"]);
}

/// Dilaram's legacy as chessvariants.com prints it (`N f5 x g7+`, commas, `mate.`) is no
/// game file: errors at the place; with the spaces inside moves removed it is valid, its
/// `G` for the general (ferz) read as an alias.
#[test]
fn dilarams_legacy() {
    let printed = validate("mansuba-dilarams-legacy-asprinted.pgn", &[]);
    assert_eq!(printed.code, 1);
    let errors = problems(&printed.games[0], "errors");
    assert_eq!(errors[0], ("syntax".to_string(), 13, 8));

    let v = validate("mansuba-dilarams-legacy-despaced.pgn", &[]);
    assert_eq!((v.code, v.summary["valid"].clone()), (0, 1.into()));
    let game = &v.games[0];
    assert_eq!(game["plies"], 15);
    assert_eq!(game["final"]["termination"], "checkmate");
    assert_eq!(
        problems(game, "warnings"),
        [("non-canonical".to_string(), 13, 4)]
    );
}

/// The Sayyal tabiya in German letters: an error that names the set without the option,
/// valid with `--piece-letters de` (no warning: the moves are canonical in German).
#[test]
fn sayyal_in_german_letters() {
    let v = validate("sayyal-tabiya-de.pgn", &[]);
    assert_eq!(v.code, 1);
    let e = &v.games[0]["errors"][0];
    assert_eq!(
        (e["line"].clone(), e["column"].clone()),
        (11.into(), 31.into())
    );
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("S is the knight in German (--piece-letters de)"),
        "{message}"
    );

    let de = validate("sayyal-tabiya-de.pgn", &["--piece-letters", "de"]);
    assert_eq!((de.code, de.summary["valid"].clone()), (0, 1.into()));
    assert_eq!(de.games[0]["plies"], 15);
    assert_eq!(de.summary["warnings"], 0);

    // What is stored and written keeps the variant's own letters.
    let dir = tempfile::tempdir().unwrap();
    let fixed = dir.path().join("fixed.pgn");
    kabir()
        .args(["validate", "--piece-letters", "de", "--fix"])
        .arg(&fixed)
        .arg(file("sayyal-tabiya-de.pgn"))
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&fixed).unwrap();
    assert!(text.contains("4. Ne2 d6 5. Rg1 c6"), "{text}");
}

/// cikay/Tamerlane-Chess writes its own alphabet (`i`, `92` for eleven empty cells): not
/// kabir's position strings, refused at the first character that is no piece of Tamerlane
/// (its `f` and `d` are aliases of the general and the war engine), inside the tag.
#[test]
fn cikay_tamerlane_alphabet() {
    let v = validate("tamerlane-cikay-fen.pgn", &[]);
    assert_eq!(v.code, 1);
    assert_eq!(
        problems(&v.games[0], "errors"),
        [("bad-fen".to_string(), 10, 11)]
    );
    assert!(
        v.games[0]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("unknown piece \"i\"")
    );
}
