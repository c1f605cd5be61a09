//! Grand Shatranj N W (RULES.md): its pieces on an empty board and in blocked positions, the
//! non-capturing moves that never attack, the pawn's double step, and promotion to lost pieces
//! with waiting pawns.

use crate::rules_common::*;
use kabir::notation::san;
use kabir::rules::Position;

fn gs() -> std::sync::Arc<kabir::rules::Variant> {
    variant("grand-shatranj-nw")
}

/// A position with the given pieces, White to move unless `side` says otherwise.
fn at_pos(pieces: &[(&str, &str)], side: &str) -> Position {
    setup(&gs(), pieces, side, "-")
}

#[test]
fn oliphant_on_an_empty_board() {
    let p = at_pos(&[("e5", "O"), ("a10", "K"), ("j10", "k")], "w");
    assert_eq!(
        dests(&p, "e5"),
        set("f6 g7 h8 i9 d6 c7 b8 a9 f4 g3 h2 i1 d4 c3 b2 a1 e6 e4 d5 f5")
    );
}

#[test]
fn oliphant_distances_one_to_four_with_blockers() {
    // Along a1-e5: square 1 is b2, 2 is c3, 3 is d4, 4 is e5. Black men block (and can be
    // taken); the Oliphant's other moves are the orthogonal steps a2 and b1.
    let cases: [(&[&str], &str); 6] = [
        (&[], "b2 c3 d4 e5"),
        // Square 1 taken: the jump to 2 and the second stages from 2 remain.
        (&["b2"], "b2 c3 d4 e5"),
        // Square 2 taken: a step to 1, then a jump over 2 to 3; 4 needs 2 empty.
        (&["c3"], "b2 c3 d4"),
        // Squares 1 and 2 taken: only the first stages, which capture and end the move.
        (&["b2", "c3"], "b2 c3"),
        // Square 3 taken: 4 by jumping over it from 2.
        (&["d4"], "b2 c3 d4 e5"),
        // Squares 1, 2 and 3 taken.
        (&["b2", "c3", "d4"], "b2 c3"),
    ];
    for (blockers, expected) in cases {
        let mut pieces = vec![("a1", "O"), ("j1", "K"), ("j10", "k")];
        pieces.extend(blockers.iter().map(|&s| (s, "p")));
        let p = at_pos(&pieces, "w");
        let mut want = set(expected);
        want.extend(set("a2 b1"));
        assert_eq!(dests(&p, "a1"), want, "blockers {blockers:?}");
    }
    // Own men block without being taken: with a white man on c3, square 3 is reached through
    // square 1, and 2 and 4 are not reached.
    let p = at_pos(&[("a1", "O"), ("c3", "N"), ("j1", "K"), ("j10", "k")], "w");
    assert_eq!(dests(&p, "a1"), set("b2 d4 a2 b1"));
}

#[test]
fn oliphant_orthogonal_step_never_captures() {
    let p = at_pos(&[("e5", "O"), ("e6", "n"), ("a1", "K"), ("j10", "k")], "w");
    assert!(!dests(&p, "e5").contains("e6"));
    // A king beside it orthogonally is not attacked by it.
    let p = at_pos(&[("e5", "O"), ("a1", "K"), ("e6", "k")], "w");
    assert!(!p.is_check());
}

#[test]
fn lightning_warmachine_moves_in_two_stages_orthogonally() {
    let p = at_pos(&[("e5", "L"), ("a10", "K"), ("j10", "k")], "w");
    assert_eq!(
        dests(&p, "e5"),
        set("e6 e7 e8 e9 e4 e3 e2 e1 d5 c5 b5 a5 f5 g5 h5 i5")
    );
    // Along a1-a5 with a black man on a3 (square 2): a2, a3 (taken), a4 (a2 then the jump).
    let p = at_pos(&[("a1", "L"), ("a3", "p"), ("j2", "K"), ("j10", "k")], "w");
    assert_eq!(dests(&p, "a1"), set("a2 a3 a4 b1 c1 d1 e1"));
}

#[test]
fn earl_non_capturing_diagonal_never_captures_nor_checks() {
    let p = at_pos(&[("e5", "E"), ("a1", "K"), ("j1", "k")], "w");
    assert_eq!(
        dests(&p, "e5"),
        set("e1 e2 e3 e4 e6 e7 e8 e9 e10 a5 b5 c5 d5 f5 g5 h5 i5 j5 \
             f6 g7 h8 i9 d6 c7 b8 a9 f4 g3 h2 i1 d4 c3 b2")
    );
    // A black man on the diagonal blocks it and is not taken.
    let p = at_pos(&[("e5", "E"), ("g7", "n"), ("a1", "K"), ("j1", "k")], "w");
    let d = dests(&p, "e5");
    assert!(
        d.contains("f6") && !d.contains("g7") && !d.contains("h8"),
        "{d:?}"
    );
    // A king on its diagonal is not in check, and may step onto a square only the diagonal
    // reaches.
    let p = at_pos(&[("e5", "E"), ("a1", "K"), ("h8", "k")], "b");
    assert!(!p.is_check());
    assert!(dests(&p, "h8").contains("g7"));
    // But the check it gives along a rook line counts: Ee5-e8 is not check, Ee5-d6 neither,
    // Ee5-h5 is (the king on h8 stands on the h-file).
    let p = at_pos(&[("e5", "E"), ("a1", "K"), ("h8", "k")], "w");
    assert!(!p.after(mv(&p, "e5d6")).is_check());
    assert!(p.after(mv(&p, "e5h5")).is_check());
}

#[test]
fn baron_and_archbishop_steps_never_capture_nor_check() {
    let p = at_pos(&[("e5", "B"), ("a1", "K"), ("j10", "k")], "w");
    assert_eq!(
        dests(&p, "e5"),
        set("d7 f7 c6 g6 c4 g4 d3 f3 d4 d5 d6 e4 e6 f4 f5 f6")
    );
    let p = at_pos(
        &[
            ("e5", "B"),
            ("e6", "n"),
            ("f6", "n"),
            ("d7", "n"),
            ("a1", "K"),
            ("j10", "k"),
        ],
        "w",
    );
    let d = dests(&p, "e5");
    assert!(
        d.contains("d7") && !d.contains("e6") && !d.contains("f6"),
        "{d:?}"
    );
    // A king next to the Baron or orthogonally next to the Archbishop is not in check.
    assert!(!at_pos(&[("e5", "B"), ("a1", "K"), ("f6", "k")], "b").is_check());
    assert!(!at_pos(&[("e5", "A"), ("a1", "K"), ("e6", "k")], "b").is_check());
    let p = at_pos(&[("e5", "A"), ("a1", "K"), ("j9", "k")], "w");
    assert_eq!(
        dests(&p, "e5"),
        set("f6 g7 h8 i9 j10 d6 c7 b8 a9 f4 g3 h2 i1 d4 c3 b2 e6 e4 d5 f5")
    );
    let p = at_pos(&[("e5", "A"), ("e6", "n"), ("a1", "K"), ("j9", "k")], "w");
    assert!(!dests(&p, "e5").contains("e6"));
    // A step that uncovers or makes a check still counts: Ae5-e6 puts the Archbishop on the
    // diagonal of the king on h9.
    let p = at_pos(&[("e5", "A"), ("a1", "K"), ("h9", "k")], "w");
    assert!(p.after(mv(&p, "e5e6")).is_check());
}

#[test]
fn jumpers_on_an_empty_board() {
    let p = at_pos(&[("e5", "J"), ("a1", "K"), ("j10", "k")], "w");
    assert_eq!(
        dests(&p, "e5"),
        set("d4 d5 d6 e4 e6 f4 f5 f6 c3 c5 c7 e3 e7 g3 g5 g7")
    );
    let p = at_pos(&[("e5", "M"), ("a1", "K"), ("j10", "k")], "w");
    assert_eq!(
        dests(&p, "e5"),
        set("e4 e6 d5 f5 e3 e7 c5 g5 d7 f7 c6 g6 c4 g4 d3 f3")
    );
    let p = at_pos(&[("e5", "H"), ("a1", "K"), ("j10", "k")], "w");
    assert_eq!(
        dests(&p, "e5"),
        set("d4 d6 f4 f6 c3 c7 g3 g7 d7 f7 c6 g6 c4 g4 d3 f3")
    );
    // Jumps pass over occupied squares.
    let p = at_pos(
        &[
            ("e5", "J"),
            ("e6", "n"),
            ("f6", "n"),
            ("a1", "K"),
            ("j10", "k"),
        ],
        "w",
    );
    assert!(dests(&p, "e5").is_superset(&set("e6 e7 f6 g7")));
}

#[test]
fn pawn_double_step_from_its_start_rank_only() {
    let p = at_pos(
        &[
            ("e3", "P"),
            ("f4", "P"),
            ("d8", "p"),
            ("a1", "K"),
            ("j10", "k"),
        ],
        "w",
    );
    assert_eq!(dests(&p, "e3"), set("e4 e5"));
    assert_eq!(dests(&p, "f4"), set("f5"));
    let p = at_pos(&[("e3", "P"), ("e4", "n"), ("a1", "K"), ("j10", "k")], "w");
    assert!(dests(&p, "e3").is_empty());
    let p = at_pos(&[("e3", "P"), ("e5", "n"), ("a1", "K"), ("j10", "k")], "w");
    assert_eq!(dests(&p, "e3"), set("e4"));
    let p = at_pos(&[("d8", "p"), ("a1", "K"), ("j10", "k")], "b");
    assert_eq!(dests(&p, "d8"), set("d7 d6"));
}

/// White with every piece kind of the start position (nothing lost), pawns on a9 and c9;
/// Black: king c7, a knight that can take the Earl (f2) or the knight (i1), an Earl on j10.
fn full_white() -> Position {
    at_pos(
        &[
            ("a1", "M"),
            ("b1", "B"),
            ("c1", "A"),
            ("d1", "J"),
            ("e1", "K"),
            ("f2", "E"),
            ("g1", "H"),
            ("h1", "O"),
            ("i1", "N"),
            ("j1", "L"),
            ("a9", "P"),
            ("c9", "P"),
            ("c7", "k"),
            ("h3", "n"),
            ("j10", "e"),
        ],
        "w",
    )
}

#[test]
fn promotion_is_chosen_among_lost_pieces() {
    // White has lost its Earl and its knight: the pawn becomes one of the two.
    let p = at_pos(
        &[
            ("a1", "M"),
            ("b1", "B"),
            ("c1", "A"),
            ("d1", "J"),
            ("e1", "K"),
            ("g1", "H"),
            ("h1", "O"),
            ("j1", "L"),
            ("c9", "P"),
            ("g7", "k"),
        ],
        "w",
    );
    assert_eq!(moves_from(&p, "c9"), set("c9c10e c9c10n"));
    let legal = p.legal_moves();
    assert_eq!(san(&p, mv(&p, "c9c10n"), &legal), "c10=N");
    // Nothing lost: no promotion at all, the pawn waits.
    let p = full_white();
    assert_eq!(moves_from(&p, "c9"), set("c9c10"));
}

#[test]
fn a_waiting_pawn_cannot_be_captured_and_promotes_on_the_next_loss() {
    let p = full_white();
    let p = play(&p, "c9c10");
    assert_eq!(at(&p, "c10"), "P");
    // The Earl on j10 runs along rank 10 up to the pawn but cannot take it.
    assert_eq!(dests(&p, "j10").intersection(&set("c10 d10")).count(), 1);
    assert!(!dests(&p, "j10").contains("c10"));
    // Taking the knight promotes the waiting pawn to a knight, as part of Black's move.
    let legal = p.legal_moves();
    let take = mv(&p, "h3i1");
    assert_eq!(san(&p, take, &legal), "Nxi1_c10=N");
    let after = play(&p, "h3i1");
    assert_eq!(at(&after, "c10"), "N");
    assert_eq!(at(&after, "i1"), "n");
    // From then on it is an ordinary knight, free to move and capturable.
    assert!(!dests(&after, "c10").is_empty());
    // Taking the Earl would turn the pawn into an Earl that attacks the black king on c7
    // down the c-file: that capture is illegal.
    assert!(!moves(&p).contains("h3f2"));
}

#[test]
fn two_waiting_pawns_promote_in_order_of_arrival() {
    let p = play_all(&full_white(), "c9c10 j10j9 a9a10");
    // The order is part of the position string: c10 arrived first.
    assert!(p.to_fen().ends_with(" c10,a10"), "{}", p.to_fen());
    let after = play(&p, "h3i1");
    assert_eq!(at(&after, "c10"), "N");
    assert_eq!(at(&after, "a10"), "P");
    // One pawn waits now: six fields again.
    assert_eq!(after.to_fen().split(' ').count(), 6);
    // The other order is another position with another hash.
    let swapped = p.to_fen().replace("c10,a10", "a10,c10");
    let q = Position::from_fen(p.variant(), &swapped).unwrap();
    assert_ne!(q, p);
    assert_ne!(q.hash(), p.hash());
    assert_eq!(at(&q.after(mv(&q, "h3i1")), "a10"), "N");
}

#[test]
fn playing_and_taking_back_keeps_the_waiting_line() {
    // perft through make/undo equals perft through fresh copies of each position.
    let p = play_all(&full_white(), "c9c10 j10j9 a9a10");
    let mut total = 0;
    for m in p.legal_moves() {
        let child = Position::from_fen(p.variant(), &p.after(m).to_fen()).unwrap();
        total += child.legal_moves().len() as u64;
    }
    assert_eq!(perft(&p, 2), total);
}

#[test]
fn stalemate_is_a_draw() {
    use kabir::rules::{Outcome, Status};
    // Black king a10; White's king on c9 covers b10, b9 and b8, the Minister on b7 covers a9
    // by its knight move. Black to move has no move and is not in check.
    let p = at_pos(&[("a10", "k"), ("c9", "K"), ("b7", "M")], "b");
    assert!(p.legal_moves().is_empty(), "{:?}", moves(&p));
    assert!(!p.is_check());
    assert!(matches!(
        p.status(),
        Status::Over {
            outcome: Outcome::Draw,
            ..
        }
    ));
}

#[test]
fn the_waiting_order_example_of_the_notation_spec() {
    let v = gs();
    let text = "P1P6e/10/4k5/10/10/10/10/10/1BAJKMHON1/E8L w - - 0 60 c10,a10";
    let p = pos(&v, text);
    assert_eq!(p.waiting_pawns(kabir::rules::Color::White).count(), 2);
    // Without the field, the order is by file: a10 first.
    let by_file = Position::from_fen(&v, text.trim_end_matches(" c10,a10")).unwrap();
    assert!(
        by_file.to_fen().ends_with(" a10,c10"),
        "{}",
        by_file.to_fen()
    );
    // A square where no pawn waits is refused, naming the place.
    let e = Position::from_fen(&v, &text.replace("c10,a10", "c10,e8")).unwrap_err();
    assert!(e.to_string().contains("e8"), "{e}");
}

#[test]
fn a_wrong_waiting_order_is_reported_at_the_name() {
    let v = gs();
    let board = "P1P6e/10/4k5/10/10/10/10/10/1BAJKMHON1/E8L w - - 0 60 ";
    // Each case: the seventh field, the offset in it of the name at fault, the message.
    for (order, at, says) in [
        ("c10,", 4, "\"\" in the waiting order is not a square"),
        (",a10", 0, "\"\" in the waiting order is not a square"),
        (
            "c10x,a10",
            0,
            "\"c10x\" in the waiting order is not a square",
        ),
        ("c10,k11", 4, "\"k11\" in the waiting order is not a square"),
        ("c10,e8,zz", 4, "names e8, where no pawn waits"),
        ("c10,c10", 4, "c10 is named twice"),
        ("a10,c10,a10", 8, "a10 is named twice"),
    ] {
        let text = format!("{board}{order}");
        let e = Position::from_fen(&v, &text).unwrap_err();
        assert_eq!(e.column, board.len() + at + 1, "{text}: {e}");
        assert!(e.message.contains(says), "{text}: {e}");
    }
}
