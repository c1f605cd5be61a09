//! Tamerlane's special rules, each in a small position whose legal moves are counted by hand
//! from RULES.md (the counts are explained next to each position).
//!
//! Coordinates are (file, rank) with a = 1. White's last rank is 10, Black's is 1. A white
//! pawn captures on (x-1, y+1) and (x+1, y+1). The pawn of pawns is `PP`, `PP'` after one
//! arrival (waiting on the last rank, or lifted), `PP''` after two.

use crate::rules_common::*;
use kabir::rules::{MoveKind, Outcome, Position, Status, Termination};

fn t(pieces: &[(&str, &str)], side: &str, swaps: &str) -> Position {
    setup(&tamerlane(), pieces, side, swaps)
}

// ---------------------------------------------------------------------------------------------
// Promotion

#[test]
fn each_ordinary_pawn_promotes_to_its_piece_and_the_pawn_of_kings_to_a_prince() {
    // White pawn on e9, kings a1 (White) and k10 (Black). White's moves: the king's a2, b1, b2
    // and the promotion on e10 (d10 and f10 are empty: no captures). 4 moves.
    let cases = [
        ("PK", "S"),
        ("PG", "G"),
        ("PV", "V"),
        ("PZ", "Z"),
        ("PT", "T"),
        ("PN", "N"),
        ("PR", "R"),
        ("PE", "E"),
        ("PC", "C"),
        ("PW", "W"),
    ];
    for (pawn, piece) in cases {
        let p = t(&[("a1", "K"), ("k10", "k"), ("e9", pawn)], "w", "-");
        let promo = format!("e9e10{}", piece.to_ascii_lowercase());
        assert_eq!(moves(&p), set(&format!("a1a2 a1b1 a1b2 {promo}")), "{pawn}");
        let after = play(&p, &promo);
        assert_eq!(at(&after, "e10"), piece, "{pawn}");
        assert_eq!(at(&after, "e9"), "");
    }
    // Black: pawn of rooks on e2 goes to e1 as a rook. Black's king k10: j10, j9, k9. 4 moves.
    let p = t(&[("a1", "K"), ("k10", "k"), ("e2", "pr")], "b", "-");
    assert_eq!(moves(&p), set("k10j10 k10j9 k10k9 e2e1r"));
    assert_eq!(at(&play(&p, "e2e1r"), "e1"), "r");
    // The promotion by capture: the pawn of kings takes on d10 and becomes a prince there.
    let p = t(
        &[("a1", "K"), ("k10", "k"), ("e9", "PK"), ("d10", "v")],
        "w",
        "-",
    );
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2 e9e10s e9d10s"));
    assert_eq!(at(&play(&p, "e9d10s"), "d10"), "S");
}

// ---------------------------------------------------------------------------------------------
// The pawn of pawns: first arrival, lift

#[test]
fn first_arrival_the_pawn_of_pawns_waits_immune_and_makes_no_ordinary_moves() {
    // White: king a1, pawn of pawns e9. Black: king k10, rook b10 (covering b1 and b2).
    // White's moves: a1a2 (b1, b2 covered) and e9e10, the first arrival: 2 moves.
    let p = t(
        &[("a1", "K"), ("k10", "k"), ("b10", "r"), ("e9", "PP")],
        "w",
        "-",
    );
    assert_eq!(moves(&p), set("a1a2 e9e10"));
    let arrived = play(&p, "e9e10");
    assert_eq!(at(&arrived, "e10"), "PP'");
    assert_eq!(
        arrived.to_fen(),
        "1r2PP'5k/12/11/11/11/11/11/11/12/K10 b - - 0 1"
    );
    // Black: rook a10, c10, d10 (e10 is immune: no capture, and it blocks f10..j10), b9..b1
    // (9 squares): 12; king j10, j9, k9: 3. 15 moves.
    assert_eq!(moves(&arrived).len(), 15);
    assert!(!moves(&arrived).contains("b10e10"));
    // Black moves the rook to c10; White has no lift (see below) and the waiting pawn makes no
    // ordinary moves: only the king's a2, b1, b2.
    let p = play(&arrived, "b10c10");
    assert!(moves_from(&p, "e10").is_empty());
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2"));
    // The lift candidates: forks need two black pieces on (x-1, y+1) and (x+1, y+1): c10 and
    // k10 are 8 files apart, so none. Single targets: the rook (from b9 or d9) and the king
    // (from j9) both still have moves. So no lift.
}

/// White king a1, waiting pawn of pawns a10, black king k10 and knights c6, e6: the fork
/// square is d5. `extra` adds pieces.
fn fork_position(extra: &[(&str, &str)]) -> Position {
    let mut list = vec![
        ("a1", "K"),
        ("a10", "PP'"),
        ("k10", "k"),
        ("c6", "n"),
        ("e6", "n"),
    ];
    list.extend_from_slice(extra);
    t(&list, "w", "-")
}

#[test]
fn a_lift_forks_two_pieces() {
    // Squares attacking two black pieces: only d5 (c6 and e6). Squares attacking one: b5 and
    // f5 (a knight, which has moves), j9 (the king, which has moves). So one lift, a10d5, and
    // the king's a2, b1, b2 (no knight reaches them): 4 moves.
    let p = fork_position(&[]);
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2 a10d5"));
    assert_eq!(moves_of_kind(&p, MoveKind::Lift), set("a10d5"));
    let lifted = play(&p, "a10d5");
    assert_eq!(at(&lifted, "d5"), "PP'");
    assert_eq!(at(&lifted, "a10"), "");
    // Black after any of the 4: king j10 j9 k9 (3), knight c6: a5 a7 b4 b8 d4 d8 e5 e7 (8),
    // knight e6: c5 c7 d4 d8 f4 f8 g5 g7 (8); none lands on d5. 19 each: perft(2) = 4 * 19.
    assert_eq!(perft(&p, 1), 4);
    assert_eq!(perft(&p, 2), 76);
    // From d5 the lifted pawn moves as a pawn: d6, c6, e6 (captures).
    let p = play(&lifted, "k10k9");
    assert_eq!(dests(&p, "d5"), set("d6 c6 e6"));
}

#[test]
fn a_lift_removes_the_occupant_of_either_colour() {
    // A white vizir on d5 (its moves d4 d6 c5 e5 added): 3 + 4 + the lift = 8 moves.
    let p = fork_position(&[("d5", "V")]);
    assert_eq!(moves(&p).len(), 8);
    let lifted = play(&p, "a10d5");
    assert_eq!(at(&lifted, "d5"), "PP'");
    assert!(!board_of(&lifted).contains('V'));
    // A black vizir on d5: it adds no lift of its own (from c4 or e4 it alone is attacked, and
    // it has moves). 3 + 1 = 4 moves, and the lift removes it.
    let p = fork_position(&[("d5", "v")]);
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2 a10d5"));
    let lifted = play(&p, "a10d5");
    assert_eq!(at(&lifted, "d5"), "PP'");
    assert!(!board_of(&lifted).contains('v'));
}

#[test]
fn a_lift_never_lands_on_a_royal_or_an_immune_piece() {
    // A white prince on d5 (two royals, so it may step onto attacked squares): the king's 3,
    // the prince's 8 (c4 c5 c6x d4 d6 e4 e5 e6x), no lift onto the royal. 11 moves.
    let p = fork_position(&[("d5", "S")]);
    assert_eq!(moves(&p).len(), 11);
    assert!(moves_of_kind(&p, MoveKind::Lift).is_empty());

    // Black's waiting pawn of pawns on d1 (its last rank) is immune; from d1 a white pawn would
    // fork the black vizirs c2 and e2. White: king a5 (a4 a6 b4 b5 b6; b4 is not covered by
    // the vizirs on rank 2), waiting pawn a10. The vizirs have moves and nothing else is forked.
    let base = [
        ("a5", "K"),
        ("a10", "PP'"),
        ("k10", "k"),
        ("c2", "v"),
        ("e2", "v"),
    ];
    let mut list = base.to_vec();
    list.push(("d1", "pp'"));
    let p = t(&list, "w", "-");
    assert_eq!(moves(&p), set("a5a4 a5a6 a5b4 a5b5 a5b6"));
    // With d1 empty the fork is there: 6 moves.
    let p = t(&base, "w", "-");
    assert_eq!(moves_of_kind(&p, MoveKind::Lift), set("a10d1"));
    assert_eq!(moves(&p).len(), 6);
}

#[test]
fn a_lift_may_win_a_piece_that_has_no_legal_move_but_never_lands_in_a_citadel() {
    // Black elephant k3 (jumps to i1 and i5, both held by black pieces: general i1, pawn i5):
    // it has no move. Squares attacking k3 for a white pawn: j2 and wc (12,2); a lift may not
    // go to a citadel, so only j2 (from where i3, empty, is the other diagonal). Other single
    // targets: pawn i5 (from h4, j4; it can step to i4), king f10 (from e9, g9; it can move),
    // general i1 (no square attacks rank 1 from below). No fork.
    // White: king a1 (a2 b1 b2) and the lift: 4 moves.
    let p = t(
        &[
            ("a1", "K"),
            ("a10", "PP'"),
            ("f10", "k"),
            ("k3", "e"),
            ("i1", "g"),
            ("i5", "pr"),
        ],
        "w",
        "-",
    );
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2 a10j2"));
}

#[test]
fn a_lift_may_win_a_pinned_piece() {
    // Black general f9 pinned to its king f10 by the white rook f1: its moves e8, g8 (and
    // captures there) leave the file. A pawn on e8 or g8 attacks it; nothing else qualifies
    // (the king f10, attacked from e9 or g9, can move). White: king a1 (3), rook f1 along
    // rank 1 (b1..e1, g1..k1: 9) and up the file (f2..f8, f9 capture: 8), lifts e8 and g8:
    // 3 + 17 + 2 = 22.
    let p = t(
        &[
            ("a1", "K"),
            ("f1", "R"),
            ("a10", "PP'"),
            ("f10", "k"),
            ("f9", "g"),
        ],
        "w",
        "-",
    );
    assert_eq!(moves_of_kind(&p, MoveKind::Lift), set("a10e8 a10g8"));
    assert_eq!(moves(&p).len(), 22);
    // With the rook on g1 instead the general is free (it could take the pawn on e8 or g8):
    // no lift. King 3, rook b1..f1 (5), h1..k1 (4), g2..g10 (9): 21.
    let p = t(
        &[
            ("a1", "K"),
            ("g1", "R"),
            ("a10", "PP'"),
            ("f10", "k"),
            ("f9", "g"),
        ],
        "w",
        "-",
    );
    assert!(moves_of_kind(&p, MoveKind::Lift).is_empty());
    assert_eq!(moves(&p).len(), 21);
}

#[test]
fn a_lift_obeys_the_check_rule() {
    // The waiting pawn on e10 shields White's king c10 from the black rook h10. Lifting it to
    // the fork square d5 (black knights c6, e6) would open rank 10: illegal. White's moves:
    // king b10 d10 b9 c9 d9 (none covered by the knights or the rook): 5.
    let shielded = [
        ("c10", "K"),
        ("e10", "PP'"),
        ("k1", "k"),
        ("c6", "n"),
        ("e6", "n"),
    ];
    let mut list = shielded.to_vec();
    list.push(("h10", "r"));
    let p = t(&list, "w", "-");
    assert_eq!(moves(&p), set("c10b10 c10d10 c10b9 c10c9 c10d9"));
    // Without the rook the lift is legal: 6 moves.
    let p = t(&shielded, "w", "-");
    assert_eq!(moves_of_kind(&p, MoveKind::Lift), set("e10d5"));
    assert_eq!(moves(&p).len(), 6);

    // In check, a lift that blocks the check is legal. White king a3, checked along rank 3 by
    // the rook k3; black vizirs c4, e4 (fork square d3, on the checking line). King: a2, a4,
    // b2 (b3 on the rank, b4 covered by the vizir c4). 4 moves.
    let p = t(
        &[
            ("a3", "K"),
            ("f10", "PP'"),
            ("k10", "k"),
            ("k3", "r"),
            ("c4", "v"),
            ("e4", "v"),
        ],
        "w",
        "-",
    );
    assert!(p.is_check());
    assert_eq!(moves(&p), set("a3a2 a3a4 a3b2 f10d3"));
}

// ---------------------------------------------------------------------------------------------
// The pawn of pawns: second and third arrivals

#[test]
fn second_arrival_jumps_to_f3_when_it_is_empty() {
    // A lifted pawn of pawns (one arrival) on c9; black vizir d10. White: king 3, c9c10 and
    // c9d10 (both second arrivals): 5 moves.
    let p = t(
        &[("a1", "K"), ("k10", "k"), ("c9", "PP'"), ("d10", "v")],
        "w",
        "-",
    );
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2 c9c10 c9d10"));
    for m in ["c9c10", "c9d10"] {
        let after = play(&p, m);
        assert_eq!(at(&after, "f3"), "PP''", "{m}");
        assert_eq!(at(&after, "c10"), "");
        assert_eq!(at(&after, "c9"), "");
    }
    let after = play(&p, "c9d10");
    assert_eq!(
        at(&after, "d10"),
        "",
        "the captured vizir is gone and the pawn went on"
    );
    // From f3 it moves as a pawn again.
    let p = play(&after, "k10k9");
    assert_eq!(dests(&p, "f3"), set("f4"));

    // Black's relocation square is f8.
    let p = t(&[("a1", "K"), ("k10", "k"), ("c2", "pp'")], "b", "-");
    let after = play(&p, "c2c1");
    assert_eq!(at(&after, "f8"), "pp''");
    assert_eq!(at(&after, "c1"), "");
}

#[test]
fn second_arrival_waits_while_f3_is_occupied_then_relocates() {
    // f3 holds a white vizir. White: king 3, vizir f2 f4 e3 g3 (4), c9c10: 8 moves.
    let p = t(
        &[("a1", "K"), ("k10", "k"), ("c9", "PP'"), ("f3", "V")],
        "w",
        "-",
    );
    assert_eq!(moves(&p).len(), 8);
    let waiting = play(&p, "c9c10");
    assert_eq!(at(&waiting, "c10"), "PP''");
    assert_eq!(at(&waiting, "f3"), "V");
    // While f3 is occupied: no relocation, no ordinary move from c10. King 3 + vizir 4 = 7.
    let p = play(&waiting, "k10j10");
    assert!(moves_from(&p, "c10").is_empty());
    assert_eq!(moves(&p).len(), 7);
    // The vizir leaves f3; next turn the relocation c10f3 is a legal whole move:
    // king 3 + vizir on f4 (f3 f5 e4 g4) 4 + relocation 1 = 8.
    let p = play_all(&p, "f3f4 j10k10");
    assert_eq!(moves_of_kind(&p, MoveKind::Relocation), set("c10f3"));
    assert_eq!(moves(&p).len(), 8);
    let relocated = play(&p, "c10f3");
    assert_eq!(at(&relocated, "f3"), "PP''");
    assert_eq!(at(&relocated, "c10"), "");
    // It is optional: White may keep waiting (other moves stay legal) - and it never captures:
    // with a black vizir on f3 there is no relocation. King 3 moves only.
    let p = t(
        &[("a1", "K"), ("k10", "k"), ("c10", "PP''"), ("f3", "v")],
        "w",
        "-",
    );
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2"));
}

#[test]
fn third_arrival_makes_an_adventitious_king_and_the_pawn_of_kings_a_prince() {
    // Pawn of pawns with two arrivals on c9, pawn of kings on f4. White: king 3, f4f5, c9c10a:
    // 5 moves.
    let p = t(
        &[("a1", "K"), ("k10", "k"), ("c9", "PP''"), ("f4", "PK")],
        "w",
        "-",
    );
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2 f4f5 c9c10a"));
    let after = play(&p, "c9c10a");
    assert_eq!(at(&after, "c10"), "A");
    assert_eq!(at(&after, "f4"), "S");
    assert_eq!(
        after.royals(kabir::rules::Color::White).count(),
        3,
        "king, adventitious king, prince"
    );
    // Without a pawn of kings only the adventitious king appears.
    let p = t(&[("a1", "K"), ("k10", "k"), ("c9", "PP''")], "w", "-");
    let after = play(&p, "c9c10a");
    assert_eq!(at(&after, "c10"), "A");
    assert_eq!(after.royals(kabir::rules::Color::White).count(), 2);
}

#[test]
fn the_pawn_of_pawns_from_start_to_adventitious_king() {
    // One pawn of pawns through all its states, with a black king shuffling on k10/k9:
    // e9e10 (first arrival, waits), lift to d5 forking c6/e6, d5xe6, e6e7 ... e9e10 (second
    // arrival, to f3), f3f4 ... f9f10 (third arrival: adventitious king).
    let p = t(
        &[
            ("a1", "K"),
            ("e9", "PP"),
            ("k10", "k"),
            ("c6", "n"),
            ("e6", "n"),
        ],
        "w",
        "-",
    );
    let p = play_all(
        &p,
        "e9e10 k10k9 e10d5 k9k10 d5e6 c6e5 e6e7 k10k9 e7e8 k9k10",
    );
    assert_eq!(at(&p, "e8"), "PP'");
    let p = play_all(&p, "e8e9 k10k9 e9e10");
    assert_eq!(at(&p, "e10"), "");
    assert_eq!(at(&p, "f3"), "PP''");
    let p = play_all(
        &p,
        "k9k10 f3f4 k10k9 f4f5 k9k10 f5f6 k10k9 f6f7 k9k10 f7f8 k10k9 f8f9 k9k8",
    );
    let p = play(&p, "f9f10a");
    assert_eq!(at(&p, "f10"), "A");
}

// ---------------------------------------------------------------------------------------------
// Several royals

#[test]
fn with_two_royals_there_is_no_check_rule_and_royals_may_be_captured() {
    // White king a1 attacked by the rook a10; White also has a prince on e5. With two royals
    // nothing is forced: king a2 (still on the file) b1 b2, prince d4 d5 d6 e4 e6 f4 f5 f6: 11.
    let p = t(
        &[("a1", "K"), ("e5", "S"), ("k10", "k"), ("a10", "r")],
        "w",
        "-",
    );
    assert!(p.is_check());
    assert_eq!(moves(&p).len(), 11);
    assert!(moves(&p).contains("a1a2"));
    // White ignores the king. Black: rook a9..a2 (8), a1 taking the king, b10..j10 (9); king
    // j10 j9 k9: 21 moves.
    let p = play(&p, "e5e6");
    assert_eq!(moves(&p).len(), 21);
    let p = play(&p, "a10a1");
    assert_eq!(at(&p, "a1"), "r");
    // Now the prince is White's only royal: protected again. Its 8 squares are all safe.
    assert_eq!(dests(&p, "e6"), set("d5 d6 d7 e5 e7 f5 f6 f7"));
    assert!(!p.status().is_over());
}

#[test]
fn a_move_that_creates_a_second_royal_may_leave_the_king_attacked() {
    // White king a1 in check from the rook a10; vizir h5 cannot help. Pawn of kings c9.
    // Legal: king b1, b2 (a2 stays on the file), and c9c10s, which makes a prince: then White
    // has two royals and the king may stay attacked. The vizir's moves leave the sole king in
    // check: illegal. 3 moves.
    let base = [("a1", "K"), ("h5", "V"), ("k10", "k"), ("a10", "r")];
    let with = |sq: &'static str, pawn: &'static str| {
        let mut list = base.to_vec();
        list.push((sq, pawn));
        t(&list, "w", "-")
    };
    let p = with("c9", "PK");
    assert_eq!(moves(&p), set("a1b1 a1b2 c9c10s"));
    // The third arrival of the pawn of pawns (an adventitious king) likewise.
    let p = with("c9", "PP''");
    assert_eq!(moves(&p), set("a1b1 a1b2 c9c10a"));
    // The second arrival makes no royal: it is illegal here.
    let p = with("c9", "PP'");
    assert_eq!(moves(&p), set("a1b1 a1b2"));
}

// ---------------------------------------------------------------------------------------------
// The king swap

#[test]
fn no_swap_while_not_in_check_and_other_moves_exist() {
    // King e5 (8 moves) and vizir a1 (a2 b1): 10 moves, no swap.
    let p = t(&[("e5", "K"), ("a1", "V"), ("k10", "k")], "w", "Kk");
    assert_eq!(moves(&p).len(), 10);
    assert!(moves_of_kind(&p, MoveKind::Swap).is_empty());
}

#[test]
fn in_check_the_king_may_swap_onto_an_unattacked_square_once_per_game() {
    // White king e5 checked along the e-file by the rook e10. White also has: pawn of rooks c4,
    // general h2, vizir b10 (on the rook's rank: attacked). King moves: d4 d5 d6 f4 f5 f6 (e4
    // and e6 stay on the file): 6. No other piece can block or capture. Swaps: with c4 and h2
    // (unattacked squares), not with b10 (the rook covers rank 10): 2. Total 8.
    let p = t(
        &[
            ("e5", "K"),
            ("c4", "PR"),
            ("h2", "G"),
            ("b10", "V"),
            ("k10", "k"),
            ("e10", "r"),
        ],
        "w",
        "Kk",
    );
    assert_eq!(moves_of_kind(&p, MoveKind::Swap), set("e5c4 e5h2"));
    assert_eq!(moves(&p).len(), 8);
    let swapped = play(&p, "e5c4");
    assert_eq!(at(&swapped, "c4"), "K");
    assert_eq!(at(&swapped, "e5"), "PR");
    assert!(!swapped.swap_available(kabir::rules::Color::White));
    assert!(swapped.swap_available(kabir::rules::Color::Black));
    assert!(swapped.to_fen().contains(" b k - "));
    // Black checks again along the c-file (c9..c5 empty). No second swap. King: b3 b4 b5 d3 d4
    // d5 (c3 and c5 on the file): 6; vizir b10 takes the rook on c10: 1. 7 moves.
    let p = play(&swapped, "e10c10");
    assert!(p.is_check());
    assert!(moves_of_kind(&p, MoveKind::Swap).is_empty());
    assert_eq!(moves(&p).len(), 7);
    assert!(moves(&p).contains("b10c10"));
}

#[test]
fn with_no_other_move_the_king_may_swap() {
    // King a1 not in check but boxed: a2 own pawn, b1 and b2 covered by the rook b10. The pawn
    // a2 is blocked by the black pawn a3 (which covers b2) and has nothing to capture on b3.
    // Only move: the swap a1a2 (a2 is not attacked afterwards).
    let pieces = [
        ("a1", "K"),
        ("a2", "PR"),
        ("a3", "pr"),
        ("b10", "r"),
        ("k10", "k"),
    ];
    let p = t(&pieces, "w", "K");
    assert!(!p.is_check());
    assert_eq!(moves(&p), set("a1a2"));
    let after = play(&p, "a1a2");
    assert_eq!(at(&after, "a1"), "PR");
    assert_eq!(at(&after, "a2"), "K");
    // Black then: rook b9..b1 (9), a10 and c10..j10 (9): 18; king j10 j9 k9: 3; the pawn a3 is
    // blocked by the king. 21 moves, so perft(2) = 21.
    assert_eq!(perft(&p, 2), 21);
    // The pawn on a1 moves on as a pawn later.
    // Without the swap right, White has no move at all: stalemate, and White loses.
    let p = t(&pieces, "w", "-");
    assert!(moves(&p).is_empty());
    assert_eq!(
        p.status(),
        Status::Over {
            termination: Termination::Stalemate,
            outcome: Outcome::BlackWins
        }
    );
}

#[test]
fn a_pawn_swapped_onto_its_last_rank_promotes() {
    // King c10 checked along the c-file by the rook c1; pawn of rooks e5. King: b10 d10 b9 d9
    // (c9 on the file): 4. The pawn's step e6 does not help. Swap with e5: the pawn lands on
    // c10 and becomes a rook. 5 moves.
    let p = t(
        &[("c10", "K"), ("e5", "PR"), ("k5", "k"), ("c1", "r")],
        "w",
        "K",
    );
    assert_eq!(moves(&p), set("c10b10 c10d10 c10b9 c10d9 c10e5r"));
    let after = play(&p, "c10e5r");
    assert_eq!(at(&after, "c10"), "R");
    assert_eq!(at(&after, "e5"), "K");
}

#[test]
fn an_exchange_between_two_last_rank_squares_is_not_an_arrival() {
    // King c10 in check from the rook c1; the waiting pawn of pawns e10 (one arrival). The swap
    // puts it on c10: still one arrival, still waiting. King 4 + swap 1 (no lift helps). 5.
    let p = t(
        &[("c10", "K"), ("e10", "PP'"), ("k5", "k"), ("c1", "r")],
        "w",
        "K",
    );
    assert_eq!(moves(&p), set("c10b10 c10d10 c10b9 c10d9 c10e10"));
    let after = play(&p, "c10e10");
    assert_eq!(at(&after, "c10"), "PP'");
    assert_eq!(at(&after, "e10"), "K");
    assert_eq!(at(&after, "f3"), "");

    // The same pawn on e5 (lifted earlier): the swap is its second arrival, and f3 being empty
    // it goes on to f3 at once.
    let p = t(
        &[("c10", "K"), ("e5", "PP'"), ("k5", "k"), ("c1", "r")],
        "w",
        "K",
    );
    assert_eq!(moves(&p), set("c10b10 c10d10 c10b9 c10d9 c10e5"));
    let after = play(&p, "c10e5");
    assert_eq!(at(&after, "c10"), "");
    assert_eq!(at(&after, "f3"), "PP''");
    assert_eq!(at(&after, "e5"), "K");

    // A waiting pawn swapped off its last rank moves as a pawn again and keeps its count: king
    // c5 in check from the rook c1, waiting pawn e10. After c5e10 the pawn on c5 steps to c6.
    let p = t(
        &[("c5", "K"), ("e10", "PP'"), ("k5", "k"), ("c1", "r")],
        "w",
        "K",
    );
    let after = play(&p, "c5e10");
    assert_eq!(at(&after, "c5"), "PP'");
    let p = play(&after, "k5k4");
    assert_eq!(dests(&p, "c5"), set("c6"));
}

// ---------------------------------------------------------------------------------------------
// The end of the game

#[test]
fn checkmate_loses() {
    // King a1: a1 and a2 covered by the rook a10, b1 and b2 by the rook b9. No other piece,
    // so no swap partner either.
    let p = t(
        &[("a1", "K"), ("k10", "k"), ("a10", "r"), ("b9", "r")],
        "w",
        "K",
    );
    assert!(p.legal_moves().is_empty());
    assert_eq!(
        p.status(),
        Status::Over {
            termination: Termination::Checkmate,
            outcome: Outcome::BlackWins
        }
    );
    assert_eq!(perft(&p, 1), 0);
    // The same for Black: king k10, rooks k1 and j2.
    let p = t(
        &[("a1", "K"), ("k10", "k"), ("k1", "R"), ("j2", "R")],
        "b",
        "-",
    );
    assert_eq!(
        p.status(),
        Status::Over {
            termination: Termination::Checkmate,
            outcome: Outcome::WhiteWins
        }
    );
}

#[test]
fn stalemate_loses_for_the_side_to_move() {
    // King a1 not attacked; a2 covered by the vizir a3, b1 and b2 by the rook b10.
    let p = t(
        &[("a1", "K"), ("k10", "k"), ("a3", "v"), ("b10", "r")],
        "w",
        "-",
    );
    assert!(!p.is_check());
    assert_eq!(
        p.status(),
        Status::Over {
            termination: Termination::Stalemate,
            outcome: Outcome::BlackWins
        }
    );
}

#[test]
fn the_start_position_perft() {
    // RULES.md's independent figures.
    let p = Position::start(&tamerlane());
    assert_eq!(perft(&p, 1), 24);
    assert_eq!(perft(&p, 2), 576);
    assert_eq!(perft(&p, 3), 14_518);
}

#[test]
fn a_side_whose_king_was_captured_has_no_swap() {
    // As above, with swap rights and a white vizir h5. In check with the swap right, White
    // may also swap the king onto h5 (not attacked): king a2 b1 b2, prince 8, swap 1: 12.
    let p = t(
        &[
            ("a1", "K"),
            ("e5", "S"),
            ("h5", "V"),
            ("k10", "k"),
            ("a10", "r"),
        ],
        "w",
        "Kk",
    );
    assert_eq!(moves_of_kind(&p, MoveKind::Swap), set("a1h5"));
    assert_eq!(
        moves(&p).len(),
        12 + 4,
        "the vizir's h4 h6 g5 i5 are legal too"
    );
    let p = play_all(&p, "e5e6 a10a1");
    // The king is gone, and with it White's swap right: the position string says so (and
    // reads back, which `play` checks).
    assert!(!p.swap_available(kabir::rules::Color::White));
    assert_eq!(p.to_fen(), "10k/12/11/11/4S6/7V3/11/11/12/r10 w k - 0 2");
    assert!(moves_of_kind(&p, MoveKind::Swap).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Finer points of the clarifications

#[test]
fn a_king_that_can_only_swap_still_has_a_legal_move_against_a_lift() {
    // Black king a10 boxed by its vizirs a9 and b10. A white pawn lifted to b9 attacks it
    // (and the empty c10); the white general c8 guards b9, so the king cannot take the pawn.
    // Without a swap right the king then has no legal move, so the lift is allowed. With the
    // swap right the king in check may swap (onto a9, which nothing attacks): it has a move,
    // and the lift is not allowed. No other lift: the vizirs can always move, no fork exists.
    let pieces = [
        ("f1", "K"),
        ("c8", "G"),
        ("e10", "PP'"),
        ("a10", "k"),
        ("a9", "v"),
        ("b10", "v"),
    ];
    let p = t(&pieces, "w", "-");
    assert_eq!(moves_of_kind(&p, MoveKind::Lift), set("e10b9"));
    let p = t(&pieces, "w", "k");
    assert!(moves_of_kind(&p, MoveKind::Lift).is_empty());
}

#[test]
fn a_lift_may_remove_the_checking_piece() {
    // The black knight b3 checks the king a1. A pawn lifted onto b3 removes it and forks the
    // vizirs a4 and c4. The king also has a2, b1, b2 (none attacked). 4 moves.
    let p = t(
        &[
            ("a1", "K"),
            ("k10", "PP'"),
            ("f10", "k"),
            ("b3", "n"),
            ("a4", "v"),
            ("c4", "v"),
        ],
        "w",
        "-",
    );
    assert!(p.is_check());
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2 k10b3"));
}

#[test]
fn only_the_king_being_attacked_opens_the_swap_and_the_king_must_end_safe() {
    // White king a1 (not attacked), prince e5 attacked by the rook e10, vizir h5. The prince in
    // danger does not open the swap: no swap among White's moves.
    let p = t(
        &[
            ("a1", "K"),
            ("e5", "S"),
            ("h5", "V"),
            ("k10", "k"),
            ("e10", "r"),
        ],
        "w",
        "K",
    );
    assert!(p.is_check(), "a royal is attacked");
    assert!(moves_of_kind(&p, MoveKind::Swap).is_empty());
    // Now the king a1 is attacked by the rook a10 and White has a prince too (no check rule).
    // Swapping onto h5 is fine; onto c10 (vizir there, on the rook's rank) is not, even with
    // two royals.
    let p = t(
        &[
            ("a1", "K"),
            ("e5", "S"),
            ("h5", "V"),
            ("c10", "V"),
            ("k10", "k"),
            ("a10", "r"),
        ],
        "w",
        "K",
    );
    assert_eq!(moves_of_kind(&p, MoveKind::Swap), set("a1h5"));
}

#[test]
fn a_swap_saves_from_checkmate() {
    // The checkmate of `checkmate_loses` plus a white vizir on h5: with the swap right the
    // king escapes to h5 (the vizir itself cannot help); without it, checkmate.
    let pieces = [
        ("a1", "K"),
        ("h5", "V"),
        ("k10", "k"),
        ("a10", "r"),
        ("b9", "r"),
    ];
    let p = t(&pieces, "w", "K");
    assert_eq!(moves(&p), set("a1h5"));
    assert_eq!(p.status(), Status::Ongoing);
    let p = t(&pieces, "w", "-");
    assert_eq!(
        p.status(),
        Status::Over {
            termination: Termination::Checkmate,
            outcome: Outcome::BlackWins
        }
    );
}

#[test]
fn a_second_arrival_by_swap_waits_when_the_king_takes_f3() {
    // A lifted pawn of pawns on f3; the king c10 in check from the rook c1 swaps with it. The
    // pawn arrives on c10 (second arrival) but the king now stands on f3: it waits on c10.
    let p = t(
        &[("c10", "K"), ("f3", "PP'"), ("k5", "k"), ("c1", "r")],
        "w",
        "K",
    );
    let after = play(&p, "c10f3");
    assert_eq!(at(&after, "c10"), "PP''");
    assert_eq!(at(&after, "f3"), "K");
}
