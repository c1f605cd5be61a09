//! A user's own variant, loaded from a definition file with --variant-file.

use assert_cmd::Command;

fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

#[test]
fn a_user_variant_loads_and_plays() {
    // tests/data/variants/mini.toml: 5x5, White K c1, G d1, R e1, pawns a2-e2; Black mirrored
    // on ranks 5 and 4. Counted by hand: each pawn steps to rank 3 (5 moves); the king goes to
    // the empty b1 (b2, c2, d2 and d1 are its own pieces); guard and rook are boxed in.
    // perft 1 = 6.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/variants/mini.toml");
    let out = kabir()
        .args(["perft", "--variant-file", path, "1"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "6");
}

#[test]
fn a_broken_definition_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/variants/mini.toml"
    ))
    .unwrap()
    .replace("moves = \"king\"", "moves = \"nonesuch\"");
    std::fs::write(&path, text).unwrap();
    kabir()
        .args(["perft", "--variant-file"])
        .arg(&path)
        .arg("1")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("nonesuch"));
}

#[test]
fn a_missing_definition_file_is_a_clear_error() {
    kabir()
        .args(["perft", "--variant-file", "/nonexistent/x.toml", "1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/nonexistent/x.toml"));
}

#[test]
fn extreme_vectors_in_a_definition_are_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("far.toml");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/variants/mini.toml"
    ))
    .unwrap()
    .replace(
        "moves = [{ slide = [1, 0] }]",
        "moves = [{ slide = [1, 0] }, { leap = [127, -128] }, { legs = [{ step = [-128, 127] }, { step = [1, 1], min = 2 }] }]",
    );
    std::fs::write(&path, text).unwrap();
    // The far jumps never land on a 5x5 board, so the counts are the plain variant's. By
    // hand: after each White pawn step Black has 4 pawn steps (one is blocked), its king's
    // Kd5, and 1 or 2 pawn captures (a3: 1, b3/c3/d3: 2, e3: 1); after Kb1, 6 moves.
    // 6 + 7 + 7 + 7 + 6 + 6 = 39.
    kabir()
        .args(["perft", "--variant-file"])
        .arg(&path)
        .arg("2")
        .assert()
        .code(0)
        .stdout("39\n");
}

/// Runs kabir with `args` and its data segment limited to 64 MB (`ulimit -d`), so that a file
/// read whole without a limit makes it fail for want of memory instead of taking the machine's:
/// exit status (-1 when killed by a signal) and standard error.
fn within_64_mb(args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -d 65536 && exec \"$0\" \"$@\"")
        .arg(assert_cmd::cargo::cargo_bin("kabir"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_definition_file_is_read_to_one_mebibyte_at_most() {
    let said = "/dev/zero: a variant definition is at most 1 MiB; this file is larger";
    let (code, err) = within_64_mb(&["perft", "--variant-file", "/dev/zero", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(said), "{err}");
    // A query command, on a database.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/shatranj.pgn");
    kabir()
        .args(["import", "-q", "--db"])
        .arg(&db)
        .arg(sample)
        .assert()
        .code(0);
    let db = db.to_str().unwrap();
    let (code, err) = within_64_mb(&["search", "--db", db, "--variant-file", "/dev/zero"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(said), "{err}");
    // A definition of exactly 1 MiB (padded with a comment) loads; one byte more does not.
    let mini = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/variants/mini.toml"
    ))
    .unwrap();
    let padded = |size: usize| {
        let comment = format!("\n# {}\n", "x".repeat(size - mini.len() - 4));
        let text = format!("{mini}{comment}");
        assert_eq!(text.len(), size);
        let path = dir.path().join(format!("mini-{size}.toml"));
        std::fs::write(&path, text).unwrap();
        path
    };
    kabir()
        .args(["perft", "--variant-file"])
        .arg(padded(1 << 20))
        .arg("1")
        .assert()
        .code(0)
        .stdout("6\n");
    let big = padded((1 << 20) + 1);
    kabir()
        .args(["perft", "--variant-file"])
        .arg(&big)
        .arg("1")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "{}: a variant definition is at most 1 MiB",
            big.display()
        )));
}

/// The names other programs give a variant (`[names]`) are accepted in a `Variant` tag, in any
/// case; one that is another variant's name is refused, naming both.
#[test]
fn the_names_other_programs_give_a_variant_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let mini = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/variants/mini.toml"
    ))
    .unwrap();
    let named = mini.replace(
        "\n[board]",
        "\n[names]\nuci = \"mini5\"\nxboard = \"5x5mini\"\ntags = [\"Mini Five\"]\n\n[board]",
    );
    assert_ne!(named, mini);
    let path = dir.path().join("named.toml");
    std::fs::write(&path, &named).unwrap();
    let games = dir.path().join("games.pgn");
    std::fs::write(
        &games,
        "[Variant \"MINI5\"]\n\n1. a3 *\n\n[Variant \"5x5Mini\"]\n\n1. a3 *\n\n\
         [Variant \"mini five\"]\n\n1. a3 *\n",
    )
    .unwrap();
    let out = kabir()
        .args(["validate", "--format", "json", "--variant-file"])
        .arg(&path)
        .arg(&games)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let variants: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|g| g.get("game").is_some())
        .map(|g| g["variant"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(variants, ["mini", "mini", "mini"], "{text}");
    assert!(out.status.success(), "{text}");

    // A name of the built-in Shatranj: which variant a tag means would be a guess.
    let shared = dir.path().join("shared.toml");
    std::fs::write(
        &shared,
        named.replace("tags = [\"Mini Five\"]", "tags = [\"Chatrang\"]"),
    )
    .unwrap();
    kabir()
        .args(["validate", "--variant-file"])
        .arg(&shared)
        .arg(&games)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "variant mini: the name \"Chatrang\" is already variant shatranj's",
        ));
}
