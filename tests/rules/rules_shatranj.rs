//! Shatranj and Knavish Shatranj: stalemate, the bare king with Fairy-Stockfish's timing,
//! promotion to a ferz, and Knavish's ban on permanent check (which needs a game's history).

use crate::rules_common::*;
use kabir::rules::{Game, IllegalMove, Outcome, Position, Status, Termination};

fn over(termination: Termination, outcome: Outcome) -> Status {
    Status::Over {
        termination,
        outcome,
    }
}

#[test]
fn stalemate_loses_for_the_stalemated_side() {
    // White king a1: a2 covered by the black ferz b3, b1 and b2 by the black king c2; a1 itself
    // is not attacked. White's pawn h2 is blocked by the black pawn h3 and has nothing to take
    // on g3. No legal move, not in check: White loses.
    for v in [shatranj(), knavish()] {
        let p = pos(&v, "8/8/8/8/8/1q5p/2k4P/K7 w - - 0 1");
        assert!(!p.is_check());
        assert!(p.legal_moves().is_empty());
        assert_eq!(
            p.status(),
            over(Termination::Stalemate, Outcome::BlackWins),
            "{}",
            v.id()
        );
    }
}

#[test]
fn checkmate_wins() {
    // King a1 in check from the rook c1 (b1 between is empty); a2 and b2 covered by the king
    // b3, b1 by the rook. White is bare against one piece, which does not end the game by
    // itself: it is checkmate.
    let p = pos(&shatranj(), "8/8/8/8/8/1k6/8/K1r5 w - - 0 1");
    assert_eq!(p.status(), over(Termination::Checkmate, Outcome::BlackWins));
}

#[test]
fn bare_king_against_one_piece_gets_one_reply() {
    let v = shatranj();
    // RULES.md: still in play with Black to move. Black's king d7: c6, d6, e6 are on the
    // rook's rank 6; c7, c8, d8, e7, e8 are free. 5 moves.
    let p = pos(&v, "8/3k4/5R2/8/4K3/8/8/8 b - - 0 1");
    assert_eq!(p.status(), Status::Ongoing);
    assert_eq!(moves(&p), set("d7c7 d7c8 d7d8 d7e7 d7e8"));
    // After any of them White has won.
    for m in moves(&p) {
        let after = play(&p, &m);
        assert_eq!(
            after.status(),
            over(Termination::BareKing, Outcome::WhiteWins),
            "{m}"
        );
        assert!(after.legal_moves().is_empty());
    }
    assert_eq!(perft(&p, 1), 5);
    assert_eq!(perft(&p, 2), 0);
}

#[test]
fn capturing_the_last_piece_draws() {
    let v = shatranj();
    // The rook d6 checks the king d7 and is not guarded (the king e4 reaches d5, not d6).
    // Black: c7, c8, e7, e8, and d7xd6 (c6, e6 on rank 6 and d8 on the file are covered). 5.
    let p = pos(&v, "8/3k4/3R4/8/4K3/8/8/8 b - - 0 1");
    assert_eq!(moves(&p), set("d7c7 d7c8 d7e7 d7e8 d7d6"));
    assert_eq!(
        play(&p, "d7d6").status(),
        over(Termination::BareKing, Outcome::Draw)
    );
    assert_eq!(
        play(&p, "d7e8").status(),
        over(Termination::BareKing, Outcome::WhiteWins)
    );
}

#[test]
fn bare_king_against_two_pieces_loses_at_once() {
    let v = shatranj();
    // Two white rooks: Black, to move, has lost already.
    let p = pos(&v, "8/3k4/5R2/8/4K3/8/8/7R b - - 0 1");
    assert_eq!(p.status(), over(Termination::BareKing, Outcome::WhiteWins));
    assert!(p.legal_moves().is_empty());
    // The bared side not to move: White to move with a rook against a bare king has won.
    let p = pos(&v, "8/3k4/5R2/8/4K3/8/8/8 w - - 0 1");
    assert_eq!(p.status(), over(Termination::BareKing, Outcome::WhiteWins));
    // Colours reversed: a bare white king against two black pieces.
    let p = pos(&v, "8/3k4/5r2/8/4K3/8/8/7r w - - 0 1");
    assert_eq!(p.status(), over(Termination::BareKing, Outcome::BlackWins));
    // Two bare kings: a draw.
    let p = pos(&v, "8/3k4/8/8/4K3/8/8/8 w - - 0 1");
    assert_eq!(p.status(), over(Termination::BareKing, Outcome::Draw));
}

#[test]
fn a_pawn_promotes_to_a_ferz() {
    let v = shatranj();
    // White: king a1 (a2 b1 b2) and the pawn d7, which can only go to d8 (c8 and e8 empty).
    // Black keeps a pawn on h3 so that it is not bare. 4 moves.
    let p = pos(&v, "7k/3P4/8/8/8/7p/8/K7 w - - 0 1");
    assert_eq!(moves(&p), set("a1a2 a1b1 a1b2 d7d8q"));
    let after = play(&p, "d7d8q");
    assert_eq!(at(&after, "d8"), "Q");
    assert_eq!(
        after.to_fen(),
        "3Q3k/8/8/8/8/7p/8/K7 b - - 0 1",
        "the ferz is written q, as in Fairy-Stockfish"
    );
    // Black: king h8 (g8 g7 h7), pawn e2 to e1. White keeps a pawn on h2. 4 moves.
    let p = pos(&v, "7k/8/8/8/8/8/4p2P/K7 b - - 0 1");
    assert_eq!(moves(&p), set("h8g8 h8g7 h8h7 e2e1q"));
    assert_eq!(at(&play(&p, "e2e1q"), "e1"), "q");
}

#[test]
fn the_start_position_perft() {
    // RULES.md's independent figures.
    let p = Position::start(&shatranj());
    assert_eq!(perft(&p, 1), 16);
    assert_eq!(perft(&p, 4), 68_122);
    let p = Position::start(&knavish());
    assert_eq!(perft(&p, 4), 44_102);
}

// ---------------------------------------------------------------------------------------------
// Knavish Shatranj: permanent check is illegal.

/// White king a1 and rook a2; Black king h8. Both sides keep a blocked pawn (b6, b7) so that
/// neither king is bare.
const PERPETUAL: &str = "7k/1p6/1P6/8/8/8/R7/K7 w - - 0 1";

fn game(moves: &str) -> Game {
    let p = pos(&knavish(), PERPETUAL);
    let mut g = Game::new(p);
    for m in moves.split_whitespace() {
        let mv = mv(g.position(), m);
        g.play(mv).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    g
}

#[test]
fn a_check_that_repeats_a_position_in_a_series_of_checks_is_refused() {
    // 1. Ra2-h2+ Kh8-g8 2. Rh2-g2+ Kg8-h8: now Rg2-h2+ would bring back the position after
    // move 1 (rook h2, king h8, Black to move), and every white move since then gave check.
    let g = game("a2h2 h8g8 h2g2 g8h8");
    let repeat = mv(g.position(), "g2h2");
    assert!(g.position().legal_moves().contains(&repeat));
    assert!(g.is_permanent_check(repeat));
    assert!(!g.legal_moves().contains(&repeat));
    // Everything else stays legal. Rook g2: g1, g3..g8 (7), a2..f2 (6), h2 (1) = 14; king a1:
    // a2, b1, b2 (3); the pawn b6 is blocked. 17 moves, 16 in the game.
    assert_eq!(g.position().legal_moves().len(), 17);
    assert_eq!(g.legal_moves().len(), 16);
    let mut g2 = g.clone();
    assert_eq!(g2.play(repeat), Err(IllegalMove::PermanentCheck));
    assert_eq!(g2.moves().len(), 4, "the refused move is not played");
    // A check that repeats nothing is fine: Rg2-g8+ along rank 8.
    let check = mv(g.position(), "g2g8");
    assert!(g.position().after(check).is_check());
    assert!(g2.play(check).is_ok());
}

#[test]
fn a_repetition_without_checks_or_with_a_quiet_move_between_is_allowed() {
    // Quiet shuffling: the position after a2b2 comes back with no check at all.
    let mut g = game("a2b2 h8g8 b2a2 g8h8");
    let m = mv(g.position(), "a2b2");
    assert!(!g.is_permanent_check(m));
    assert!(g.play(m).is_ok());
    // Checks with a quiet move between: 1. Rh2+ Kg8 2. Ra2 (no check) Kh8 3. Rh2+ repeats the
    // position after move 1, but not every white move since then gave check.
    let mut g = game("a2h2 h8g8 h2a2 g8h8");
    let m = mv(g.position(), "a2h2");
    assert!(g.position().after(m).is_check());
    assert!(!g.is_permanent_check(m));
    assert!(g.play(m).is_ok());
}

#[test]
fn shatranj_has_no_permanent_check_rule() {
    // The same series in classic Shatranj: the repeating check is legal.
    let p = pos(&shatranj(), PERPETUAL);
    let mut g = Game::new(p);
    for m in "a2h2 h8g8 h2g2 g8h8 g2h2".split_whitespace() {
        let mv = mv(g.position(), m);
        assert!(g.play(mv).is_ok(), "{m}");
    }
}
