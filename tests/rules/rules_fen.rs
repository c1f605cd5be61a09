//! Position strings: round trips, and errors that say what is wrong and at which character
//! (1-based) of the string. Every column below was counted by hand on the string above it.

use std::sync::Arc;

use crate::rules_common::*;
use kabir::rules::{FenErrorKind, Position, Variant};

/// The error for a position string: its column and a fragment of its message.
fn err(v: &Arc<Variant>, text: &str, column: usize, says: &str) {
    let e = Position::from_fen(v, text).expect_err(text);
    assert_eq!(e.column, e.column.min(text.chars().count() + 1));
    assert!(
        e.message.contains(says),
        "{text}: message {:?} should say {says:?}",
        e.message
    );
    assert_eq!(e.column, column, "{text}: {}", e.message);
}

/// Each refusal carries the kind of problem, for callers that act on it rather than print it.
#[test]
fn errors_say_their_kind() {
    let s = shatranj();
    let board = "3k4/8/8/8/8/8/8/3KR3";
    for (text, kind) in [
        ("", FenErrorKind::Empty),
        ("3k4/8/8/8/8/8/3KR3 w - - 0 1", FenErrorKind::Board),
        ("3k4/8/8/8/8/8/8/3KX3 w - - 0 1", FenErrorKind::UnknownPiece),
        (board, FenErrorKind::Side),
        (&format!("{board} x - - 0 1"), FenErrorKind::Side),
        (&format!("{board} w - e3 0 1"), FenErrorKind::EnPassant),
        (&format!("{board} w K - 0 1"), FenErrorKind::Swap),
        (&format!("{board} w - - x 1"), FenErrorKind::Counter),
        (&format!("{board} w - - 0 1 x"), FenErrorKind::FieldCount),
        ("3k4/8/8/8/8/8/8/4R3 w - - 0 1", FenErrorKind::Impossible),
    ] {
        let e = Position::from_fen(&s, text).expect_err(text);
        assert_eq!(e.kind, kind, "{text:?}: {}", e.message);
    }
}

#[test]
fn start_positions_round_trip() {
    for v in kabir::variants::builtins() {
        let p = Position::start(&v);
        assert_eq!(p.to_fen(), v.start_fen());
        pos(&v, v.start_fen());
    }
    // The Tamerlane start position as RULES.md and the task describe it.
    let v = tamerlane();
    let p = pos(
        &v,
        "e1c1w1w1c1e/1rntzvkgztnr/prpnptpzpvpkpgpepcpwpp/11/11/11/11/PPPWPCPEPGPKPVPZPTPNPR/RNTZGKVZTNR1/E1C1W1W1C1E w Kk - 0 1",
    );
    // Spot checks against RULES.md's list: f2 king, a3 pawn of pawns, k3 pawn of rooks,
    // f8 black pawn of kings, k8 black pawn of pawns, a8 black pawn of rooks.
    assert_eq!(at(&p, "f2"), "K");
    assert_eq!(at(&p, "a3"), "PP");
    assert_eq!(at(&p, "k3"), "PR");
    assert_eq!(at(&p, "f9"), "k");
    assert_eq!(at(&p, "f8"), "pk");
    assert_eq!(at(&p, "k8"), "pp");
    assert_eq!(at(&p, "a8"), "pr");
    assert_eq!(at(&p, "wc"), "");
    assert_eq!(at(&p, "bc"), "");
}

#[test]
fn special_states_round_trip() {
    let v = tamerlane();
    for text in [
        // Primes for the pawn of pawns' arrivals, both colours.
        "4PP'6/12/11/11/11/11/11/11/12/5K4k b - - 3 40",
        "5k5/12/11/11/11/11/11/11/12/K3pp''6 w K - 0 7",
        "5k5/12/11/11/11/11/11/2PP''8/12/5K5 w k - 0 7",
        // An adventitious king in each side's own citadel; a prince; swap fields.
        "5k5/a11/11/11/11/11/11/11/11A/5K5 w - - 12 60",
        "5k5/12/11/11/11/3s7/11/11/12/5K5 b Kk - 0 9",
        // A black king in White's citadel: the game is over (a draw), the string is fine.
        "11/12/11/11/11/11/11/11/11k/5K5 w - - 0 30",
    ] {
        pos(&v, text);
    }
    let s = shatranj();
    pos(&s, "8/3k4/5R2/8/4K3/8/8/8 b - - 0 1");
    // Knavish letters v (knave) and d (debtor).
    pos(
        &knavish(),
        "rvdqkdvr/pppppppp/8/8/8/8/PPPPPPPP/RVDQKDVR w - - 0 1",
    );
    // Missing trailing fields take their defaults; runs of spaces are one separator.
    let p = Position::from_fen(&s, "3k4/8/8/8/8/8/8/3KR3 w").unwrap();
    assert_eq!(p.to_fen(), "3k4/8/8/8/8/8/8/3KR3 w - - 0 1");
    let p = Position::from_fen(&s, " 3k4/8/8/8/8/8/8/3KR3   b  -  - 5 9 ").unwrap();
    assert_eq!(p.to_fen(), "3k4/8/8/8/8/8/8/3KR3 b - - 5 9");
}

#[test]
fn wrong_shapes() {
    let s = shatranj();
    // Columns: "rnbkqbnr/" 1-9, "pppppppp/" 10-18, four "8/" 19-26, "PPPPPPPP/" 27-35,
    // "RNBKQBNR" 36-43, then ' ' 44, side 45.
    // Nine ranks: the ninth starts at 45.
    err(
        &s,
        "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR/8 w - - 0 1",
        45,
        "9 ranks",
    );
    // Seven ranks: the board field ends at 34, the missing rank would start at 35.
    err(
        &s,
        "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP w - - 0 1",
        35,
        "7 ranks",
    );
    // Nine cells in rank 6: the run "9" at 19.
    err(
        &s,
        "rnbkqbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",
        19,
        "too many cells",
    );
    // Seven cells in rank 7 ("ppppppp" 10-16): reported where the rank ends, at 17.
    err(
        &s,
        "rnbkqbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",
        17,
        "too few cells",
    );
    // A piece after a full rank: "3k4p" has the p at 4.
    err(&s, "3k4p/8/8/8/8/8/8/3KR3 w - - 0 1", 4, "too many cells");
    // A zero run: "3k4/" 1-4, six "8/" 5-16, "3K04" 17-20, the run "04" at 19.
    err(&s, "3k4/8/8/8/8/8/8/3K04 w - - 0 1", 19, "number from 1");

    let v = tamerlane();
    // Rank 9 has 12 cells (bc first). "5k5/" 1-4, then rank 9 "11" at 5-6: one cell short,
    // reported at its end, 7.
    err(
        &v,
        "5k5/11/11/11/11/11/11/11/12/5K5 w - - 0 1",
        7,
        "rank 9 has 12 cells (with the citadel bc)",
    );
    // Rank 2 written with 11 cells: "5k5/12/" 1-7, six "11/" 8-25, "11" 26-27, end at 28.
    err(
        &v,
        "5k5/12/11/11/11/11/11/11/11/5K5 w - - 0 1",
        28,
        "rank 2 has 12 cells (with the citadel wc)",
    );
    // Rank 10 with 12 cells: the run "12" at 1.
    err(
        &v,
        "12/12/11/11/11/11/11/11/12/5K5 w - - 0 1",
        1,
        "too many cells",
    );
}

#[test]
fn unknown_pieces() {
    let s = shatranj();
    // "rnbkqbnr/pppppppp/8/8/" 1-22, "3X4": 3 at 23, X at 24.
    err(
        &s,
        "rnbkqbnr/pppppppp/8/8/3X4/8/PPPPPPPP/RNBKQBNR w - - 0 1",
        24,
        "unknown piece \"X\"",
    );
    // Tamerlane letters are not Shatranj's: a giraffe z ("3K2z1" at 17-21, z at 20).
    err(
        &s,
        "3k4/8/8/8/8/8/8/3K2z1 w - - 0 1",
        20,
        "unknown piece \"z\"",
    );
    let v = tamerlane();
    // A pawn needs its type: "P" followed by a digit at 1; "PX" names no type.
    err(
        &v,
        "P10/12/11/11/11/11/11/11/12/5K4k w - - 0 1",
        1,
        "second letter",
    );
    err(
        &v,
        "11/12/11/11/11/4PX5/11/11/12/5K4k w - - 0 1",
        // "11/12/11/11/11/" 1-15, "4PX5": 4 at 16, P at 17.
        17,
        "unknown piece \"PX\"",
    );
    // Mixed case: "Pr" is not a pawn of rooks of either colour.
    err(
        &v,
        "11/12/11/11/11/4Pr5/11/11/12/5K4k w - - 0 1",
        17,
        "second letter",
    );
}

#[test]
fn impossible_positions() {
    let s = shatranj();
    // Two white kings, d5 and d1: "rnbkqbnr/pppppppp/8/" 1-20, "3K4/" 21-24 (K at 22), "8/8/"
    // 25-28, "PPPPPPPP/" 29-37, "RNBKQBNR" 38-45 with K at 41: the one written last.
    err(
        &s,
        "rnbkqbnr/pppppppp/8/3K4/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",
        41,
        "2 pieces of kind King",
    );
    // No black king at all.
    err(&s, "8/8/8/8/8/8/8/3KR3 w - - 0 1", 1, "black has no royal");
    // The side to move is missing: "3k4/" 1-4, six "8/" 5-16, "3KR3" 17-20; reported just
    // past the end, at 21. A wrong side letter is reported where it stands, at 22.
    err(&s, "3k4/8/8/8/8/8/8/3KR3", 21, "side to move is missing");
    err(&s, "3k4/8/8/8/8/8/8/3KR3 x", 22, "side to move \"x\"");
    // A pawn on its last rank: d8 (the P at 2), or a black one on g1 ("3K2p1" at 17-21, p at
    // 20).
    err(&s, "3P4/8/8/8/8/8/8/3K3k w - - 0 1", 2, "last rank at d8");
    err(&s, "3k4/8/8/8/8/8/8/3K2p1 w - - 0 1", 20, "last rank at g1");
    // White in check with Black to move: the rook h1 attacks d1 along rank 1. "3K3r" 17-20,
    // side at 22.
    err(
        &s,
        "3k4/8/8/8/8/8/8/3K3r b - - 0 1",
        22,
        "white is in check",
    );
    // No castling or en passant in these games: side at 22, the swap field at 24, the ep
    // field at 26.
    err(&s, "3k4/8/8/8/8/8/8/3K3R w KQkq - 0 1", 24, "no king swap");
    err(&s, "3k4/8/8/8/8/8/8/3K3R w - e3 0 1", 26, "no en passant");
    // Counters (halfmove at 28): not numbers; too many fields (the seventh at 32).
    err(&s, "3k4/8/8/8/8/8/8/3K3R w - - x 1", 28, "halfmove");
    err(&s, "3k4/8/8/8/8/8/8/3K3R w - - 0 1 7", 32, "at most 6");

    let v = tamerlane();
    // Rank 2 holds a white rook in wc: "5k5/" 1-4, "12/" 5-7, six "11/" 8-25, "5K5R": K at
    // 27, R at 29.
    err(
        &v,
        "5k5/12/11/11/11/11/11/11/5K5R/11 w - - 0 1",
        29,
        "white Rook may not stand in the citadel wc",
    );
    // A prince may not stand in its own citadel either, nor a black rook in bc (at 5).
    err(
        &v,
        "5k5/12/11/11/11/11/11/11/5K5S/11 w - - 0 1",
        29,
        "white Prince may not stand in the citadel wc",
    );
    err(
        &v,
        "5k5/r11/11/11/11/11/11/11/12/5K5 w - - 0 1",
        5,
        "black Rook may not stand in the citadel bc",
    );
    // The pawn of pawns without arrivals on its last rank (e10, the PP at 2); with one arrival
    // it waits there.
    err(
        &v,
        "4PP6/12/11/11/11/11/11/11/12/5K4k w - - 0 1",
        2,
        "last rank at e10",
    );
    pos(&v, "4PP'6/12/11/11/11/11/11/11/12/5K4k w - - 0 1");
    // Two black kings, f10 and a1: "5k5/" 1-4, "12/" 5-7, six "11/" 8-25, "12/" 26-28,
    // "k4K5" at 29: the black king written last.
    err(
        &v,
        "5k5/12/11/11/11/11/11/11/12/k4K5 w - - 0 1",
        29,
        "2 pieces of kind King",
    );
    // A swap right for a side without a king: White has only an adventitious king. "5k5/"
    // 1-4, "12/" 5-7, six "11/" 8-25, "12/" 26-28, "5A5" 29-31, w at 33, K at 35.
    err(
        &v,
        "5k5/12/11/11/11/11/11/11/12/5A5 w Kk - 0 1",
        35,
        "swap right but no piece",
    );
    // Black in check with White to move: the white rook a1 attacks the king a3 up the file.
    // "11/12/" 1-6, five "11/" 7-21, "k10/" 22-25, "12/" 26-28, "R4K5" 29-32, side at 34.
    err(
        &v,
        "11/12/11/11/11/11/11/k10/12/R4K5 w - - 0 1",
        34,
        "black is in check",
    );
    // With two royals a side may stand in check: the same with a black prince on k10.
    pos(&v, "10s/12/11/11/11/11/11/k10/12/R4K5 w - - 0 1");
}

#[test]
fn swap_fields_and_counters() {
    let v = tamerlane();
    let board = "5k5/12/11/11/11/11/11/11/12/5K5";
    // The swap field starts at 35: "-K" is wrong at its first character, "KKx" at its second
    // (a letter given twice comes before what follows it), "Kx" at the x.
    err(
        &v,
        &format!("{board} w -K - 0 1"),
        35,
        "'-' in the swap field",
    );
    err(&v, &format!("{board} w KKx - 0 1"), 36, "'K' given twice");
    err(
        &v,
        &format!("{board} w Kx - 0 1"),
        36,
        "'x' in the swap field",
    );
    err(&v, &format!("{board} w kk - 0 1"), 36, "'k' given twice");
    // Either order of the letters, and an uppercase side to move, are read.
    let p = Position::from_fen(&v, &format!("{board} W kK - 0 1")).unwrap();
    assert_eq!(p.to_fen(), format!("{board} w Kk - 0 1"));
    // Counters: a move number 0 reads as 1, leading zeros are read, and a clock too large
    // for its field is refused where the field starts (39).
    let p = Position::from_fen(&v, &format!("{board} b - - 007 0")).unwrap();
    assert_eq!(p.to_fen(), format!("{board} b - - 7 1"));
    err(
        &v,
        &format!("{board} w - - 99999999999 1"),
        39,
        "not a halfmove clock",
    );
    err(&v, &format!("{board} w - - 0 1x"), 41, "not a move number");
    // The counters are digits only (`number0`): a sign is refused.
    err(
        &v,
        &format!("{board} w - - +5 1"),
        39,
        "not a halfmove clock",
    );
    // Any blank space separates fields, a no-break space included.
    let p = Position::from_fen(&v, &format!("{board}\tw\u{a0}-\n- 0  1")).unwrap();
    assert_eq!(p.to_fen(), format!("{board} w - - 0 1"));
}

#[test]
fn board_characters() {
    let s = shatranj();
    // "3é4": the "é" at 2. Columns count characters: the "!" after "é" on rank 1 is at 21,
    // not at its byte offset.
    err(&s, "3é4/8/8/8/8/8/8/3K3k w - - 0 1", 2, "unexpected 'é'");
    err(&s, "3k4/8/8/8/8/8/8/3K3!k w - - 0 1", 20, "unexpected '!'");
    // "3KX3" at 17-20: the unknown X at 19. A prime after a letter makes another letter
    // ("4K'3": "K'" at 18).
    err(
        &s,
        "3k4/8/8/8/8/8/8/3KX3 w - - 0 1",
        19,
        "unknown piece \"X\"",
    );
    err(
        &s,
        "3k4/8/8/8/8/8/8/4K'3 w - - 0 1",
        18,
        "unknown piece \"K'\"",
    );
    // A run too long for any board: too many cells, where the run starts.
    err(
        &s,
        "3k4/8/8/8/8/8/8/99999999999999999999999 w - - 0 1",
        17,
        "too many cells",
    );
    let v = tamerlane();
    // A typed pawn's letter at the end of a rank: "5k5/" 1-4, "12/" 5-7, five "11/" 8-22,
    // "10P" with the P at 25, before the "/".
    err(
        &v,
        "5k5/12/11/11/11/11/11/10P/12/5K5 w - - 0 1",
        25,
        "second letter",
    );
    // Cells before a stray character are checked first: too many cells at 1 ("12" on
    // rank 10 before the "!").
    err(
        &v,
        "12!/12/11/11/11/11/11/11/12/5K5 w - - 0 1",
        1,
        "too many cells",
    );
}
