//! Random playouts: after every move the incremental hash equals the hash computed from
//! scratch, taking a move back restores the position exactly (string and hash), the position
//! string reads back, every move's coordinate string names it alone, and a legal move never
//! leaves its side's only royal attacked.

use crate::rules_common::*;
use kabir::rules::{Move, MoveKind, Position};

/// SplitMix64: a tiny seeded generator, so that every run plays the same games.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A position as a piece list, side to move and swap field.
type Setup<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);

/// Everything that must come back after an undo.
fn snapshot(p: &Position) -> (String, u64) {
    (p.to_fen(), p.hash())
}

/// The same pieces, side to move, swap rights, counters and hash.
fn same(a: &Position, b: &Position) -> bool {
    a == b
        && a.hash() == b.hash()
        && a.halfmove_clock() == b.halfmove_clock()
        && a.fullmove_number() == b.fullmove_number()
}

/// Whether a move is one of the rare kinds worth steering the playouts towards.
fn special(p: &Position, m: &Move) -> bool {
    m.kind != MoveKind::Normal || m.promotion.is_some() || p.is_capture(*m)
}

/// Plays `games` random games of at most `plies` plies from `start`, checking every move.
/// Returns how many moves of each special kind were played (lift, relocation, swap).
fn playouts(start: &Position, games: usize, plies: usize, seed: u64) -> [usize; 3] {
    let mut rng = Rng(seed);
    let mut seen = [0; 3];
    for _ in 0..games {
        let mut p = start.clone();
        for _ in 0..plies {
            let moves = p.legal_moves();
            if moves.is_empty() {
                assert!(p.status().is_over(), "no move but not over: {}", p.to_fen());
                break;
            }
            assert!(
                !p.status_with(true).is_over(),
                "over with moves: {}",
                p.to_fen()
            );
            // Every move: the hash after it, its undo, the check rule.
            let before = p.clone();
            let before_fen = p.to_fen();
            let us = p.turn();
            for &m in &moves {
                let undo = p.play_unchecked(m);
                assert_eq!(p.hash(), p.compute_hash(), "{before_fen} after {m:?}");
                let royals = p.royals(us);
                if royals.count() == 1 {
                    let sq = royals.first().unwrap();
                    assert!(
                        !p.is_attacked(sq, !us),
                        "{before_fen}: {m:?} leaves the royal attacked"
                    );
                }
                p.undo(undo);
                assert!(same(&p, &before), "{before_fen}: undo of {m:?}");
            }
            // Pick one, steering half the time towards special moves when there are some.
            let specials: Vec<Move> = moves.iter().copied().filter(|m| special(&p, m)).collect();
            let m = if !specials.is_empty() && rng.below(2) == 0 {
                specials[rng.below(specials.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            match m.kind {
                MoveKind::Lift => seen[0] += 1,
                MoveKind::Relocation => seen[1] += 1,
                MoveKind::Swap => seen[2] += 1,
                MoveKind::Normal => {}
            }
            // Coordinate strings name one move each (`Move::from_uci` finds the move by it).
            let names: std::collections::HashSet<String> =
                moves.iter().map(|m| m.to_uci(&p)).collect();
            assert_eq!(names.len(), moves.len(), "{before_fen}");
            let uci = m.to_uci(&p);
            let undo = p.play_unchecked(m);
            let text = p.to_fen();
            let again = Position::from_fen(p.variant(), &text)
                .unwrap_or_else(|e| panic!("{text} (after {uci} in {before_fen}): {e}"));
            assert!(same(&again, &p), "{text} reads back differently");
            // Undo once more with the strings compared, then replay.
            p.undo(undo);
            assert_eq!(p.to_fen(), before_fen);
            assert_eq!(p.hash(), before.hash());
            p.play_unchecked(m);
        }
    }
    seen
}

#[test]
fn shatranj_playouts() {
    let v = shatranj();
    playouts(&Position::start(&v), 300, 60, 1);
    // Endgames, where bare kings and promotions happen.
    playouts(&pos(&v, "4k3/1pp5/8/8/8/8/5PP1/3K3R w - - 0 1"), 100, 80, 2);
}

#[test]
fn knavish_playouts() {
    let v = knavish();
    playouts(&Position::start(&v), 300, 60, 3);
}

#[test]
fn tamerlane_playouts() {
    let v = tamerlane();
    let mut total = [0; 3];
    let mut add = |seen: [usize; 3]| {
        for i in 0..3 {
            total[i] += seen[i];
        }
    };
    add(playouts(&Position::start(&v), 200, 50, 4));
    // Positions close to the special rules: pawns of pawns one step from their arrivals, kings
    // that may swap, royals next to the citadels.
    let positions: [Setup; 5] = [
        // Each side's pawn of pawns one step from its first arrival, pawns of kings in play.
        (
            &[
                ("f1", "K"),
                ("a9", "PP"),
                ("f4", "PK"),
                ("f10", "k"),
                ("k2", "pp"),
                ("f7", "pk"),
            ],
            "w",
            "Kk",
        ),
        // Waiting pawns of pawns (one arrival) and knights to fork on d6 and d3.
        (
            &[
                ("f1", "K"),
                ("a10", "PP'"),
                ("c4", "N"),
                ("e4", "N"),
                ("f10", "k"),
                ("k1", "pp'"),
                ("c7", "n"),
                ("e7", "n"),
            ],
            "w",
            "Kk",
        ),
        // Two arrivals: the relocation squares f3 and f8 are occupied for now.
        (
            &[
                ("e1", "K"),
                ("a10", "PP''"),
                ("f3", "PK"),
                ("e10", "k"),
                ("k1", "pp''"),
                ("f8", "pk"),
            ],
            "b",
            "Kk",
        ),
        // Royals and rooks around the citadels.
        (
            &[
                ("j2", "K"),
                ("k2", "A"),
                ("i2", "R"),
                ("k10", "k"),
                ("a9", "a"),
                ("a1", "r"),
            ],
            "w",
            "-",
        ),
        // Black in check with swap partners.
        (
            &[
                ("e1", "K"),
                ("a1", "R"),
                ("e8", "R"),
                ("e10", "k"),
                ("c5", "pr"),
            ],
            "b",
            "Kk",
        ),
    ];
    for (i, (pieces, side, swaps)) in positions.iter().enumerate() {
        add(playouts(
            &setup(&v, pieces, side, swaps),
            40,
            60,
            10 + i as u64,
        ));
    }
    // The playouts did reach the special moves.
    assert!(
        total.iter().all(|&n| n > 0),
        "lifts, relocations, swaps: {total:?}"
    );
}

#[test]
fn undo_restores_a_lift_a_relocation_a_swap_and_a_third_arrival() {
    let v = tamerlane();
    let fork = fen(
        &v,
        &[
            ("a1", "K"),
            ("a10", "PP'"),
            ("k10", "k"),
            ("c6", "n"),
            ("e6", "n"),
        ],
        "w",
        "-",
    );
    let relocation = fen(&v, &[("a1", "K"), ("c10", "PP''"), ("k10", "k")], "w", "-");
    let swap = fen(
        &v,
        &[("c10", "K"), ("e5", "PR"), ("k5", "k"), ("c1", "r")],
        "w",
        "K",
    );
    let third = fen(
        &v,
        &[("a1", "K"), ("c9", "PP''"), ("f4", "PK"), ("k10", "k")],
        "w",
        "-",
    );
    let cases = [
        ("lift", fork.as_str(), "a10d5"),
        ("relocation", relocation.as_str(), "c10f3"),
        ("swap", swap.as_str(), "c10e5r"),
        ("third arrival", third.as_str(), "c9c10a"),
    ];
    for (name, text, uci) in cases {
        let mut p = pos(&v, text);
        let before = snapshot(&p);
        let m = mv(&p, uci);
        let undo = p.play_unchecked(m);
        assert_ne!(p.hash(), before.1, "{name}");
        assert_eq!(p.hash(), p.compute_hash(), "{name}");
        p.undo(undo);
        assert_eq!(snapshot(&p), before, "{name}");
        assert_eq!(p, pos(&v, text), "{name}");
    }
}
