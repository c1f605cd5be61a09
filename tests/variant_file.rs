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
