//! Every piece kind alone on a board (kings placed out of the way): the exact set of squares it
//! may move to, worked out by hand from RULES.md, and the citadel neighbourhoods of Tamerlane.
//!
//! Coordinates are (file, rank) with a = 1. Tamerlane's citadels: `wc` at (12, 2), right of k2;
//! `bc` at (0, 9), left of a9.

use crate::rules_common::*;
use kabir::rules::{Outcome, Status, Termination};

/// The Tamerlane piece on f5 with White's king on a1 and Black's on k9, neither on any line of
/// the tested piece (checked square by square in each comment below).
fn tamerlane_f5(piece: &str, extra: &[(&str, &str)]) -> kabir::rules::Position {
    let v = tamerlane();
    let mut list = vec![("a1", "K"), ("k9", "k"), ("f5", piece)];
    list.extend_from_slice(extra);
    setup(&v, &list, "w", "-")
}

#[test]
fn tamerlane_king_prince_and_adventitious_king_step_once_in_every_direction() {
    let v = tamerlane();
    // One step in each of the 8 directions from f5.
    let eight = set("e4 e5 e6 f4 f6 g4 g5 g6");
    let king = setup(&v, &[("f5", "K"), ("k9", "k")], "w", "-");
    assert_eq!(dests(&king, "f5"), eight);
    // The prince and the adventitious king move alike (White's king on a1 makes two royals).
    assert_eq!(dests(&tamerlane_f5("S", &[]), "f5"), eight);
    assert_eq!(dests(&tamerlane_f5("A", &[]), "f5"), eight);
}

#[test]
fn tamerlane_general_and_vizir() {
    // General (ferz): the four diagonal neighbours. Vizir (wazir): the four orthogonal ones.
    assert_eq!(dests(&tamerlane_f5("G", &[]), "f5"), set("e4 e6 g4 g6"));
    assert_eq!(dests(&tamerlane_f5("V", &[]), "f5"), set("e5 g5 f4 f6"));
}

#[test]
fn tamerlane_giraffe_from_a1_as_in_the_rules() {
    let v = tamerlane();
    // RULES.md: from a1 via b2, then up the b-file at least 3 squares (b3, b4 passed): b5..b10
    // (6 squares); or along rank 2 at least 3 squares (c2, d2 passed): e2..k2 (7 squares).
    // Rank 2 continues into White's citadel wc after k2, but a giraffe may not enter it.
    let both = set("b5 b6 b7 b8 b9 b10 e2 f2 g2 h2 i2 j2 k2");
    let kings = [("k5", "K"), ("f9", "k")];
    let with = |extra: &[(&str, &str)], side: &str| {
        let mut list = kings.to_vec();
        list.extend_from_slice(extra);
        setup(&v, &list, side, "-")
    };
    assert_eq!(dests(&with(&[("a1", "Z")], "w"), "a1"), both);
    // The same for a black giraffe: wc is Black's enemy citadel, closed to non-royals.
    assert_eq!(dests(&with(&[("a1", "z")], "b"), "a1"), both);

    let up = set("b5 b6 b7 b8 b9 b10");
    let right = set("e2 f2 g2 h2 i2 j2 k2");
    // The diagonal step must land on an empty square: b2 occupied stops everything (a piece on
    // b2 is not captured, the giraffe cannot stop there).
    assert!(dests(&with(&[("a1", "Z"), ("b2", "v")], "w"), "a1").is_empty());
    // b3 or b4 occupied: only the rank-2 branch is left.
    assert_eq!(dests(&with(&[("a1", "Z"), ("b3", "v")], "w"), "a1"), right);
    assert_eq!(dests(&with(&[("a1", "Z"), ("b4", "v")], "w"), "a1"), right);
    // c2 or d2 occupied: only the b-file branch.
    assert_eq!(dests(&with(&[("a1", "Z"), ("c2", "v")], "w"), "a1"), up);
    assert_eq!(dests(&with(&[("a1", "Z"), ("d2", "v")], "w"), "a1"), up);
    // An enemy on b7 is captured there and blocks b8..b10; an own piece there blocks b7 too.
    assert_eq!(
        dests(&with(&[("a1", "Z"), ("b7", "v")], "w"), "a1"),
        &set("b5 b6 b7") | &right
    );
    assert_eq!(
        dests(&with(&[("a1", "Z"), ("b7", "V")], "w"), "a1"),
        &set("b5 b6") | &right
    );
    // An enemy on e2, the first square the rank branch may stop on: captured, f2..k2 blocked.
    assert_eq!(
        dests(&with(&[("a1", "Z"), ("e2", "v")], "w"), "a1"),
        &up | &set("e2")
    );
}

#[test]
fn tamerlane_giraffe_in_the_centre() {
    // From f5 the diagonal steps are e4, e6, g4, g6; from each, two outward straight lines,
    // at least 3 squares beyond the step square:
    //   g6 -> up g9 g10, right j6 k6;  g4 -> down g1, right j4 k4;
    //   e6 -> up e9 e10, left b6 a6;   e4 -> down e1, left b4 a4.  14 squares.
    assert_eq!(
        dests(&tamerlane_f5("Z", &[]), "f5"),
        set("g9 g10 j6 k6 g1 j4 k4 e9 e10 b6 a6 e1 b4 a4")
    );
}

#[test]
fn tamerlane_picket_slides_diagonally_at_least_two() {
    // f5: NE g6 (too near) h7 i8 j9 k10; NW e6 (too near) d7 c8 b9 a10; SE g4 (too near) h3
    // i2 j1; SW e4 (too near) d3 c2 b1.  4 + 4 + 3 + 3 = 14.
    let ne = set("h7 i8 j9 k10");
    let rest = set("d7 c8 b9 a10 h3 i2 j1 d3 c2 b1");
    assert_eq!(dests(&tamerlane_f5("T", &[]), "f5"), &ne | &rest);
    // A piece on the passed square g6, of either colour, blocks the whole NE line (g6 itself
    // is too near to be captured).
    assert_eq!(dests(&tamerlane_f5("T", &[("g6", "V")]), "f5"), rest);
    assert_eq!(dests(&tamerlane_f5("T", &[("g6", "v")]), "f5"), rest);
    // An enemy on h7 is captured; i8 and beyond are blocked.
    assert_eq!(
        dests(&tamerlane_f5("T", &[("h7", "v")]), "f5"),
        &set("h7") | &rest
    );
}

#[test]
fn tamerlane_rook_slides_and_stops_at_pieces() {
    // f-file: f1..f4, f6..f10 (9); rank 5: a5..e5, g5..k5 (10). 19 squares.
    let all = set("f1 f2 f3 f4 f6 f7 f8 f9 f10 a5 b5 c5 d5 e5 g5 h5 i5 j5 k5");
    assert_eq!(dests(&tamerlane_f5("R", &[]), "f5"), all);
    // Enemy on f8 (captured, f9 f10 blocked), own piece on c5 (c5 a5 b5 blocked): 13.
    assert_eq!(
        dests(&tamerlane_f5("R", &[("f8", "v"), ("c5", "V")]), "f5"),
        set("f1 f2 f3 f4 f6 f7 f8 d5 e5 g5 h5 i5 j5 k5")
    );
}

#[test]
fn tamerlane_leapers_are_not_blocked() {
    // Knight (2,1), elephant (2,2), camel (3,1), war engine (2,0), from f5. Each set is the
    // same with the eight squares around f5 filled by own generals.
    let ring = [
        ("e4", "G"),
        ("e5", "G"),
        ("e6", "G"),
        ("f4", "G"),
        ("f6", "G"),
        ("g4", "G"),
        ("g5", "G"),
        ("g6", "G"),
    ];
    let cases = [
        ("N", "d4 d6 e3 e7 g3 g7 h4 h6"),
        ("E", "d3 d7 h3 h7"),
        ("C", "c4 c6 i4 i6 e2 g2 e8 g8"),
        ("W", "d5 h5 f3 f7"),
    ];
    for (piece, expected) in cases {
        assert_eq!(
            dests(&tamerlane_f5(piece, &[]), "f5"),
            set(expected),
            "{piece}"
        );
        assert_eq!(
            dests(&tamerlane_f5(piece, &ring), "f5"),
            set(expected),
            "{piece} inside a ring of its own pieces"
        );
    }
    // A leaper captures on its landing square but not on its own pieces: war engine with an
    // enemy on d5 and an own piece on h5.
    assert_eq!(
        dests(&tamerlane_f5("W", &[("d5", "v"), ("h5", "V")]), "f5"),
        set("d5 f3 f7")
    );
}

#[test]
fn tamerlane_pawns_step_forward_and_capture_diagonally_forward() {
    let v = tamerlane();
    // White pawn of rooks on f5: f6 forward; e6 and g6 hold enemies, captured.
    let p = tamerlane_f5("PR", &[("e6", "v"), ("g6", "v")]);
    assert_eq!(dests(&p, "f5"), set("f6 e6 g6"));
    // A piece in front blocks the step (even an enemy: pawns do not capture straight on).
    let p = tamerlane_f5("PR", &[("e6", "v"), ("g6", "v"), ("f6", "v")]);
    assert_eq!(dests(&p, "f5"), set("e6 g6"));
    // Empty diagonals are not moves; no double step from the pawn's start rank 3.
    let p = setup(&v, &[("a1", "K"), ("k9", "k"), ("f3", "PR")], "w", "-");
    assert_eq!(dests(&p, "f3"), set("f4"));
    // Black pawns go down: f8 -> f7 only (no double step), and capture towards rank 1.
    let p = setup(&v, &[("a1", "K"), ("k9", "k"), ("f8", "pr")], "b", "-");
    assert_eq!(dests(&p, "f8"), set("f7"));
    let p = setup(
        &v,
        &[
            ("a1", "K"),
            ("k9", "k"),
            ("f5", "pr"),
            ("e4", "V"),
            ("g6", "V"),
        ],
        "b",
        "-",
    );
    assert_eq!(dests(&p, "f5"), set("f4 e4"));
}

#[test]
fn shatranj_pieces() {
    let v = shatranj();
    // Black keeps a pawn on a7 (out of every line below): a bare black king would have lost
    // already under the bare-king rule.
    let at_d4 = |piece: &str| {
        setup(
            &v,
            &[("h1", "K"), ("h8", "k"), ("a7", "p"), ("d4", piece)],
            "w",
            "-",
        )
    };
    // Ferz (q): the diagonal neighbours. Alfil (b): (2,2) jumps. Knight: (2,1).
    assert_eq!(dests(&at_d4("Q"), "d4"), set("c3 c5 e3 e5"));
    assert_eq!(dests(&at_d4("B"), "d4"), set("b2 b6 f2 f6"));
    assert_eq!(dests(&at_d4("N"), "d4"), set("b3 b5 c2 c6 e2 e6 f3 f5"));
    // Rook: d1..d3, d5..d8, a4..c4, e4..h4 = 14.
    assert_eq!(
        dests(&at_d4("R"), "d4"),
        set("d1 d2 d3 d5 d6 d7 d8 a4 b4 c4 e4 f4 g4 h4")
    );
    let king = setup(&v, &[("d4", "K"), ("h8", "k"), ("a7", "p")], "w", "-");
    assert_eq!(dests(&king, "d4"), set("c3 c4 c5 d3 d5 e3 e4 e5"));
    // The alfil jumps over pieces on c3, c5, e3, e5.
    let p = setup(
        &v,
        &[
            ("h1", "K"),
            ("h8", "k"),
            ("a7", "p"),
            ("d4", "B"),
            ("c3", "P"),
            ("c5", "P"),
            ("e3", "P"),
            ("e5", "P"),
        ],
        "w",
        "-",
    );
    assert_eq!(dests(&p, "d4"), set("b2 b6 f2 f6"));
    // Pawn: one step, no double step from rank 2; diagonal only to capture.
    let p = setup(
        &v,
        &[("h1", "K"), ("h8", "k"), ("d2", "P"), ("e3", "p")],
        "w",
        "-",
    );
    assert_eq!(dests(&p, "d2"), set("d3 e3"));
}

#[test]
fn knavish_knave_and_debtor_from_c3_as_in_the_rules() {
    let v = knavish();
    // Black keeps a pawn on h7 (a bare king would have lost already).
    let at_c3 = |piece: &str| {
        setup(
            &v,
            &[("h1", "K"), ("h8", "k"), ("h7", "p"), ("c3", piece)],
            "w",
            "-",
        )
    };
    // RULES.md: knave (±1,±2) or (±2,0): b5, d5, b1, d1, a3, e3.
    assert_eq!(dests(&at_c3("V"), "c3"), set("b5 d5 b1 d1 a3 e3"));
    // Debtor (±2,±1) or (0,±2): a2, a4, e2, e4, c1, c5.
    assert_eq!(dests(&at_c3("D"), "c3"), set("a2 a4 e2 e4 c1 c5"));
    // Both jump: the same with every neighbour of c3 occupied by own pawns.
    let ring = ["b2", "b3", "b4", "c2", "c4", "d2", "d3", "d4"];
    for (piece, expected) in [("V", "b5 d5 b1 d1 a3 e3"), ("D", "a2 a4 e2 e4 c1 c5")] {
        let mut list = vec![("h1", "K"), ("h8", "k"), ("h7", "p"), ("c3", piece)];
        list.extend(ring.iter().map(|s| (*s, "P")));
        assert_eq!(dests(&setup(&v, &list, "w", "-"), "c3"), set(expected));
    }
}

// ---------------------------------------------------------------------------------------------
// Citadels. wc (White's) touches k1, k2, k3; bc (Black's) touches a8, a9, a10.

#[test]
fn a_royal_may_enter_the_enemy_citadel_and_the_game_is_drawn() {
    let v = tamerlane();
    // Black king on k2: j1 j2 j3 k1 k3, and wc (White's citadel, the enemy's for Black).
    let p = setup(&v, &[("a1", "K"), ("k2", "k")], "b", "-");
    assert_eq!(dests(&p, "k2"), set("j1 j2 j3 k1 k3 wc"));
    let drawn = play(&p, "k2wc");
    assert_eq!(
        drawn.status(),
        Status::Over {
            termination: Termination::Citadel,
            outcome: Outcome::Draw
        }
    );
    assert!(drawn.legal_moves().is_empty());
    assert_eq!(perft(&drawn, 1), 0);
    assert_eq!(board_of(&drawn), "11/12/11/11/11/11/11/11/11k/K10");

    // A black prince (Black has two royals) enters wc from k3 as well.
    let p = setup(&v, &[("a1", "K"), ("f9", "k"), ("k3", "s")], "b", "-");
    assert_eq!(dests(&p, "k3"), set("j2 j3 j4 k2 k4 wc"));
    assert!(play(&p, "k3wc").status().is_over());

    // A white king on a9 enters bc.
    let p = setup(&v, &[("a9", "K"), ("k1", "k")], "w", "-");
    assert_eq!(dests(&p, "a9"), set("a8 a10 b8 b9 b10 bc"));
    assert_eq!(
        play(&p, "a9bc").status(),
        Status::Over {
            termination: Termination::Citadel,
            outcome: Outcome::Draw
        }
    );
}

#[test]
fn only_the_adventitious_king_enters_its_own_citadel() {
    let v = tamerlane();
    // White adventitious king on k2 (White also has its king): k2's neighbours and wc.
    let p = setup(&v, &[("a1", "K"), ("f9", "k"), ("k2", "A")], "w", "-");
    assert_eq!(dests(&p, "k2"), set("j1 j2 j3 k1 k3 wc"));
    let inside = play(&p, "k2wc");
    assert!(
        !inside.status().is_over(),
        "entering one's own citadel ends nothing"
    );
    // The white king and a white prince may not.
    let p = setup(&v, &[("k2", "K"), ("f9", "k")], "w", "-");
    assert_eq!(dests(&p, "k2"), set("j1 j2 j3 k1 k3"));
    let p = setup(&v, &[("a1", "K"), ("f9", "k"), ("k3", "S")], "w", "-");
    assert_eq!(dests(&p, "k3"), set("j2 j3 j4 k2 k4"));
    // Black: adventitious king on a9 may enter bc, the black king may not.
    let p = setup(&v, &[("k1", "K"), ("f1", "k"), ("a9", "a")], "b", "-");
    assert_eq!(dests(&p, "a9"), set("a8 a10 b8 b9 b10 bc"));
    let p = setup(&v, &[("k1", "K"), ("a9", "k")], "b", "-");
    assert_eq!(dests(&p, "a9"), set("a8 a10 b8 b9 b10"));
    // From inside, the adventitious king steps out to the three neighbours only.
    let p = setup(&v, &[("k1", "K"), ("f1", "k"), ("bc", "a")], "b", "-");
    assert_eq!(dests(&p, "bc"), set("a8 a9 a10"));
}

#[test]
fn no_other_piece_enters_a_citadel() {
    let v = tamerlane();
    // Black non-royal pieces on every kind of line that ends on wc (White's citadel). Kings on
    // e10 (White) and k9 (Black), off all these lines. The hand-made sets leave out wc.
    let cases = [
        // Knight j1 (10,1): h2, i3, k3; (12,2) is wc.
        ("j1", "n", "h2 i3 k3"),
        // Camel i1 (9,1): f2, h4, j4; (12,2) is wc.
        ("i1", "c", "f2 h4 j4"),
        // Elephant j4 (10,4): h2, h6; (12,2) is wc.
        ("j4", "e", "h2 h6"),
        // War engine j2: h2, j4; wc two squares right.
        ("j2", "w", "h2 j4"),
        // General k3: j2, j4; wc diagonally below right.
        ("k3", "g", "j2 j4"),
        // Vizir k2: j2, k1, k3; wc right.
        ("k2", "v", "j2 k1 k3"),
        // Picket i5: k7; g7 f8 e9 d10; g3 f2 e1; k3 (j4 passed), then wc would be next.
        ("i5", "t", "k7 g7 f8 e9 d10 g3 f2 e1 k3"),
        // Rook a2: a1, a3..a10, b2..k2; rank 2 would go on into wc.
        (
            "a2",
            "r",
            "a1 a3 a4 a5 a6 a7 a8 a9 a10 b2 c2 d2 e2 f2 g2 h2 i2 j2 k2",
        ),
    ];
    for (sq, piece, expected) in cases {
        let p = setup(&v, &[("e10", "K"), ("k9", "k"), (sq, piece)], "b", "-");
        assert_eq!(dests(&p, sq), set(expected), "black {piece} on {sq}");
    }
    // White's own non-royal pieces stay out of wc too: vizir k2, knight j3, rook a2.
    let cases = [
        ("k2", "V", "j2 k1 k3"),
        ("j3", "N", "h2 h4 i1 i5 k1 k5"),
        (
            "a2",
            "R",
            "a1 a3 a4 a5 a6 a7 a8 a9 a10 b2 c2 d2 e2 f2 g2 h2 i2 j2 k2",
        ),
    ];
    for (sq, piece, expected) in cases {
        let p = setup(&v, &[("e10", "K"), ("k9", "k"), (sq, piece)], "w", "-");
        assert_eq!(dests(&p, sq), set(expected), "white {piece} on {sq}");
    }
    // And White's pieces stay out of bc: a rook on e9 goes left to a9 and stops there.
    let p = setup(&v, &[("e1", "K"), ("k1", "k"), ("e9", "R")], "w", "-");
    assert_eq!(
        dests(&p, "e9"),
        set("a9 b9 c9 d9 f9 g9 h9 i9 j9 k9 e2 e3 e4 e5 e6 e7 e8 e10")
    );
}

#[test]
fn nothing_is_captured_in_a_citadel() {
    let v = tamerlane();
    // A white adventitious king in wc. The black rook on a2 sweeps rank 2 up to k2 but cannot
    // capture in wc (the same 19 squares as with wc empty).
    let p = setup(
        &v,
        &[("e10", "K"), ("wc", "A"), ("k9", "k"), ("a2", "r")],
        "b",
        "-",
    );
    assert_eq!(
        dests(&p, "a2"),
        set("a1 a3 a4 a5 a6 a7 a8 a9 a10 b2 c2 d2 e2 f2 g2 h2 i2 j2 k2")
    );
    // The black king on k3 is in check from the adventitious king in wc, which guards k1, k2,
    // k3. Its moves: j2 j3 j4 k4 (k2 guarded); a royal cannot capture into the citadel.
    let p = setup(&v, &[("e10", "K"), ("wc", "A"), ("k3", "k")], "b", "-");
    assert!(p.is_check());
    assert_eq!(dests(&p, "k3"), set("j2 j3 j4 k4"));
    // A black pawn on k3 would capture diagonally down into wc; it may not. It steps to k2.
    let p = setup(
        &v,
        &[("e10", "K"), ("wc", "A"), ("f7", "k"), ("k3", "pr")],
        "b",
        "-",
    );
    assert_eq!(dests(&p, "k3"), set("k2"));
}

#[test]
fn an_adventitious_king_in_its_own_citadel_is_never_attacked() {
    let v = tamerlane();
    // White's only royal is the adventitious king in wc (its king was captured earlier). The
    // black rook on a2 covers rank 2 up to k2, not wc: no check. Its moves: k1, k3 (k2 is
    // covered by the rook).
    let p = setup(&v, &[("wc", "A"), ("f9", "k"), ("a2", "r")], "w", "-");
    assert!(!p.is_check());
    assert_eq!(moves(&p), set("wck1 wck3"));
}
