//! Coordinate moves (`e2e3`, `e9e10r`, `k2wc`): from-square, to-square, and the lowercase
//! letter of what a promoting piece becomes.
//!
//! Every move kind is written this way without ambiguity: a waiting pawn of pawns makes no
//! ordinary moves (so `a10e5` from its square is a lift or relocation) and a king never moves
//! onto its own piece (so `f2e2` onto an own piece is a swap).

use super::position::{Move, MoveKind, Position};
use super::variant::Variant;

/// The suffix for a promotion: the new kind's letters, lowercase and without primes. A pawn of
/// pawns' arrival (it stays a pawn of pawns) has none.
fn suffix(variant: &Variant, m: &Move, pos: &Position) -> String {
    let Some(k) = m.promotion else {
        return String::new();
    };
    let moved = match m.kind {
        MoveKind::Swap => pos.kind_at(m.to),
        _ => pos.kind_at(m.from),
    };
    if moved.is_some_and(|old| variant.kind(old).base == variant.kind(k).base) {
        return String::new();
    }
    variant
        .kind(k)
        .symbol
        .trim_end_matches('\'')
        .to_ascii_lowercase()
}

impl Move {
    /// The move in coordinate notation, for the position it is played in.
    pub fn to_uci(&self, pos: &Position) -> String {
        let variant = pos.variant();
        let g = variant.geometry();
        format!(
            "{}{}{}",
            g.name(self.from),
            g.name(self.to),
            suffix(variant, self, pos)
        )
    }

    /// Finds the legal move written in coordinate notation, if there is one.
    pub fn from_uci(text: &str, pos: &Position) -> Option<Move> {
        pos.legal_moves()
            .into_iter()
            .find(|m| m.to_uci(pos).eq_ignore_ascii_case(text))
    }
}
