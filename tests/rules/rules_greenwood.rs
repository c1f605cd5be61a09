//! Eric Greenwood's Tamerlane variants 1-5 (RULES.md): the pieces they change or add, on an
//! empty board and in blocked positions, and the Tamerlane rules they keep.

use crate::rules_common::*;

/// A position of variant `n` with the given pieces, White to move, no swap rights.
fn gw(n: u8, pieces: &[(&str, &str)]) -> kabir::rules::Position {
    let v = variant(&format!("tamerlane-greenwood-{n}"));
    setup(&v, pieces, "w", "-")
}

const KINGS: [(&str, &str); 2] = [("a1", "K"), ("l10", "k")];

fn with_kings<'a>(pieces: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut all = KINGS.to_vec();
    all.extend_from_slice(pieces);
    all
}

#[test]
fn guard_moves_like_a_king_and_is_not_royal() {
    let p = gw(1, &with_kings(&[("f5", "U")]));
    assert_eq!(dests(&p, "f5"), set("e4 e5 e6 f4 f6 g4 g5 g6"));
    // Attacked, it is no check.
    let p = gw(1, &with_kings(&[("f5", "U"), ("f8", "r")]));
    assert!(!p.is_check());
}

#[test]
fn giraffe_needs_three_two_or_one_straight_squares() {
    // From a1 the giraffe turns at b2 and goes up the b-file or along rank 2.
    let cases = [
        (1, "b5 b6 b7 b8 b9 b10 e2 f2 g2 h2 i2 j2 k2 l2"),
        (2, "b4 b5 b6 b7 b8 b9 b10 d2 e2 f2 g2 h2 i2 j2 k2 l2"),
        (3, "b4 b5 b6 b7 b8 b9 b10 d2 e2 f2 g2 h2 i2 j2 k2 l2"),
        (4, "b3 b4 b5 b6 b7 b8 b9 b10 c2 d2 e2 f2 g2 h2 i2 j2 k2 l2"),
    ];
    for (n, expected) in cases {
        let p = gw(n, &[("a1", "Z"), ("f9", "K"), ("l10", "k")]);
        assert_eq!(dests(&p, "a1"), set(expected), "variant {n}");
    }
    // The corner square must be empty; a man on the line stops it (and may be taken where
    // it could stop).
    let p = gw(
        4,
        &[
            ("a1", "Z"),
            ("b4", "n"),
            ("c2", "N"),
            ("f9", "K"),
            ("l10", "k"),
        ],
    );
    assert_eq!(dests(&p, "a1"), set("b3 b4"));
    let p = gw(4, &[("a1", "Z"), ("b2", "n"), ("f9", "K"), ("l10", "k")]);
    assert!(dests(&p, "a1").is_empty());
}

#[test]
fn variant_5_giraffe_goes_either_way_round() {
    // From a1: diagonal first (b2, then up the b-file or along rank 2, two or more), or
    // straight first (two or more up the a-file or along rank 1) then one diagonal outward.
    let p = gw(5, &[("a1", "Z"), ("f9", "K"), ("l10", "k")]);
    assert_eq!(
        dests(&p, "a1"),
        set("b4 b5 b6 b7 b8 b9 b10 d2 e2 f2 g2 h2 i2 j2 k2 l2")
    );
    // With b2 blocked only the straight-first paths remain: up a2, a3 then b4, ...
    let p = gw(5, &[("a1", "Z"), ("b2", "N"), ("f9", "K"), ("l10", "k")]);
    assert_eq!(
        dests(&p, "a1"),
        set("b4 b5 b6 b7 b8 b9 b10 d2 e2 f2 g2 h2 i2 j2 k2 l2")
    );
    // ... and a man on the a-file stops those beyond it, one on c1 those along rank 1.
    let p = gw(
        5,
        &[
            ("a1", "Z"),
            ("b2", "N"),
            ("a4", "N"),
            ("c1", "N"),
            ("f9", "K"),
            ("l10", "k"),
        ],
    );
    assert_eq!(dests(&p, "a1"), set("b4"));
}

#[test]
fn variant_2_elephant_war_engine_general_and_picket() {
    let p = gw(2, &with_kings(&[("f5", "E"), ("g6", "N"), ("g4", "n")]));
    // One or two diagonally, jumping the square between.
    assert_eq!(dests(&p, "f5"), set("e4 e6 g4 d3 d7 h3 h7"));
    let p = gw(2, &with_kings(&[("f5", "W"), ("f6", "N")]));
    assert_eq!(dests(&p, "f5"), set("f4 f3 f7 e5 d5 g5 h5"));
    // The general: diagonal steps and one straight back (down for White, up for Black).
    let p = gw(2, &with_kings(&[("f5", "G")]));
    assert_eq!(dests(&p, "f5"), set("e4 e6 g4 g6 f4"));
    let v = variant("tamerlane-greenwood-2");
    let p = setup(&v, &[("a1", "K"), ("l10", "k"), ("f5", "g")], "b", "-");
    assert_eq!(dests(&p, "f5"), set("e4 e6 g4 g6 f6"));
    // The picket is a whole bishop (variant 1's needs two squares at least).
    let p = gw(2, &with_kings(&[("f5", "T"), ("g6", "n"), ("e4", "N")]));
    assert_eq!(dests(&p, "f5"), set("g6 e6 d7 c8 b9 a10 g4 h3 i2 j1"));
    let p = gw(1, &with_kings(&[("f5", "T"), ("h7", "n"), ("e4", "N")]));
    assert_eq!(dests(&p, "f5"), set("h7 d7 c8 b9 a10 h3 i2 j1"));
}

#[test]
fn variant_3_queen_and_its_pawn() {
    let p = gw(3, &with_kings(&[("f5", "Q"), ("f7", "n"), ("d5", "N")]));
    let d = dests(&p, "f5");
    assert!(d.is_superset(&set("f6 f7 e5 g6 h7 l5 f1 b1")), "{d:?}");
    assert!(
        !d.contains("f8") && !d.contains("d5") && !d.contains("c5"),
        "{d:?}"
    );
    // The pawn of queens promotes to a queen.
    let p = gw(3, &with_kings(&[("c9", "PQ")]));
    assert_eq!(moves_from(&p, "c9"), set("c9c10q"));
}

#[test]
fn tamerlane_rules_carry_over() {
    // Citadels beside l2 and a9; the king swap right in the start position; the pawn of
    // pawns relocates to g3 on its second arrival.
    for n in 1..=5 {
        let v = variant(&format!("tamerlane-greenwood-{n}"));
        let g = v.geometry();
        assert_eq!(g.parse("wc").map(|s| g.coords(s)), Some((13, 2)));
        assert_eq!(g.parse("bc").map(|s| g.coords(s)), Some((0, 9)));
        let start = kabir::rules::Position::start(&v);
        assert!(start.swap_available(kabir::rules::Color::White));
    }
    let v = variant("tamerlane-greenwood-1");
    let p = setup(&v, &[("a9", "PP'"), ("a1", "K"), ("l10", "k")], "w", "-");
    let after = play(&p, "a9a10");
    assert_eq!(at(&after, "g3"), "PP''");
}
