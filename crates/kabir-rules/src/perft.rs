//! Perft: counting the leaf nodes of the legal move tree, the standard test of a move generator.

use super::position::{Move, Position};

/// The number of move sequences of length `depth` from `pos`. A position where the game is over
/// by the rules has no moves, so nothing is counted below it.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    let mut stack: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(128)).collect();
    count(pos, depth, &mut stack)
}

fn count(pos: &mut Position, depth: u32, stack: &mut [Vec<Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let Some((moves, rest)) = stack.split_first_mut() else {
        return 1;
    };
    pos.legal_moves_into(moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for &m in moves.iter() {
        let undo = pos.play_unchecked(m);
        total += count(pos, depth - 1, rest);
        pos.undo(undo);
    }
    total
}

/// Each legal move with the perft count below it.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let moves = pos.legal_moves();
    moves
        .into_iter()
        .map(|m| {
            let undo = pos.play_unchecked(m);
            let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
            pos.undo(undo);
            (m, n)
        })
        .collect()
}
