//! Perft from the start positions, through the real binary, against the figures in the rules
//! (RULES.md): independent counts for shatranj, knavish shatranj and tamerlane.

use assert_cmd::Command;

fn perft(args: &[&str]) -> u64 {
    let out = Command::cargo_bin("kabir")
        .unwrap()
        .arg("perft")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines().last().unwrap().trim().parse().unwrap()
}

#[test]
fn shatranj_start() {
    assert_eq!(perft(&["--variant", "shatranj", "4"]), 68_122);
    assert_eq!(perft(&["--variant", "shatranj", "5"]), 1_164_248);
    assert_eq!(perft(&["--variant", "shatranj", "6"]), 19_864_709);
}

#[test]
fn knavish_start() {
    assert_eq!(perft(&["--variant", "knavish-shatranj", "4"]), 44_102);
    assert_eq!(perft(&["--variant", "knavish-shatranj", "5"]), 707_594);
}

#[test]
fn tamerlane_start() {
    for (depth, n) in [(1, 24), (2, 576), (3, 14_518), (4, 365_893)] {
        assert_eq!(perft(&["--variant", "tamerlane", &depth.to_string()]), n);
    }
}

#[test]
fn divide_lists_every_move_and_ends_with_the_total() {
    let out = Command::cargo_bin("kabir")
        .unwrap()
        .args(["perft", "--variant", "shatranj", "--divide", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 17, "16 moves and the total");
    let sum: u64 = lines[..16]
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 256);
    assert_eq!(lines[16], "256");
    assert!(lines.contains(&"b1c3 16"), "{text}");
}

#[test]
fn perft_from_a_position_string() {
    // Counted by hand: the pawn's step e7-e8 (promoting to a ferz; d8 and f8 are empty, so no
    // capture), and the king's a2, b1, b2: 4. (Black keeps a rook so no side is bare.)
    let fen = "7k/4P2r/8/8/8/8/8/K7 w - - 0 1";
    assert_eq!(perft(&["--variant", "shatranj", "--fen", fen, "1"]), 4);
}

#[test]
fn bad_position_string_is_a_clear_error() {
    Command::cargo_bin("kabir")
        .unwrap()
        .args([
            "perft",
            "--variant",
            "shatranj",
            "--fen",
            "8/8/8 w - - 0 1",
            "1",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("3 ranks"));
}

#[test]
fn unknown_variant_names_the_known_ones() {
    Command::cargo_bin("kabir")
        .unwrap()
        .args(["perft", "--variant", "chess", "1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("tamerlane"));
}
