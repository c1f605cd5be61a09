//! A second 64-bit key of a position, beside its Zobrist hash: a database that keys rows by
//! the hash stores this too, so that two positions with the same hash never share a row.

use crate::{Color, Move, Position, Square};

/// The SplitMix64 finaliser: a bijective mixer.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Sets the check key's terms apart from the hash's: each term is a piece's Zobrist key mixed
/// with this, and the terms are added, where the hash XORs the keys themselves.
const SALT: u64 = 0x5ca1_ab1e_c0ff_ee11;

/// A piece's term of the check key: nothing for an empty square.
#[inline]
fn square_term(pos: &Position, code: u8, sq: usize) -> u64 {
    if code == 0 {
        return 0;
    }
    mix(pos.variant().zobrist.piece(code, Square(sq as u8)) ^ SALT)
}

/// The terms of what is not on the board: the side to move, the swap rights and the pawns
/// waiting for a lost piece.
fn state_terms(pos: &Position) -> u64 {
    let mut k = 0u64;
    if pos.turn == Color::Black {
        k = k.wrapping_add(mix(SALT ^ 1));
    }
    for c in 0..2 {
        if pos.swap[c] {
            k = k.wrapping_add(mix(SALT ^ (2 + c as u64)));
        }
        let q = pos.queue[c];
        if q != 0 {
            k = k.wrapping_add(mix(mix(q as u64 ^ SALT ^ (4 + c as u64)) ^ (q >> 64) as u64));
        }
    }
    k
}

/// A second 64-bit key of a position, computed from everything its equality compares (every
/// square, the side to move, the swap rights, the waiting pawns) through the variant's Zobrist
/// keys, so it is as stable as they are. It is a sum of mixed keys where the hash is an XOR of
/// the keys, so the two are independent: two different positions share both only by a
/// coincidence of 128 bits. Stored in the opening tree; it must never change.
pub fn check_key(pos: &Position) -> u64 {
    let mut k = state_terms(pos);
    for sq in pos.occupied() {
        let i = sq.index();
        k = k.wrapping_add(square_term(pos, pos.board[i], i));
    }
    k
}

/// A position that keeps its check key up to date as moves are played: after each move only
/// the squares it changed are looked at.
#[derive(Debug, Clone)]
pub struct KeyedPosition {
    pos: Position,
    /// The sum of the board's terms.
    board_terms: u64,
}

impl KeyedPosition {
    /// The position `start`, whose check key is `key` when known.
    pub fn new(start: &Position, key: Option<u64>) -> KeyedPosition {
        let pos = start.clone();
        let key = key.unwrap_or_else(|| check_key(&pos));
        let board_terms = key.wrapping_sub(state_terms(&pos));
        KeyedPosition { pos, board_terms }
    }

    /// The position's check key.
    pub fn key(&self) -> u64 {
        self.board_terms.wrapping_add(state_terms(&self.pos))
    }

    /// The position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Plays `m`, a legal move of the position.
    pub fn play(&mut self, m: Move) {
        let undo = self.pos.play_unchecked(m);
        let Some(changes) = undo.changes() else {
            // More changes than the record holds: the terms counted again.
            self.board_terms = check_key(&self.pos).wrapping_sub(state_terms(&self.pos));
            return;
        };
        for (i, &(sq, old)) in changes.iter().enumerate() {
            // A square's first change holds what stood there before the move.
            if changes[..i].iter().any(|&(s, _)| s == sq) {
                continue;
            }
            let sq = usize::from(sq);
            let new = self.pos.board.get(sq).copied().unwrap_or(0);
            if new != old {
                self.board_terms = self
                    .board_terms
                    .wrapping_sub(square_term(&self.pos, old, sq))
                    .wrapping_add(square_term(&self.pos, new, sq));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Options, random_game};

    /// The position after `moves`, in coordinate form, from the start.
    fn play_uci(v: &std::sync::Arc<crate::Variant>, moves: &[&str]) -> Position {
        // (Shatranj's king starts on d1: `d1e2` is 1. e3 e6 2. Ke2.)
        let mut pos = Position::start(v);
        for text in moves {
            let m = pos
                .legal_moves()
                .into_iter()
                .find(|m| m.to_uci(&pos) == *text)
                .expect("a legal move");
            pos.play_unchecked(m);
        }
        pos
    }

    /// The key kept move by move is the key computed from scratch, and equal positions have
    /// equal keys while different ones (on these games) do not.
    #[test]
    fn check_keys_follow_the_game() {
        for name in ["tamerlane", "shatranj", "grand-shatranj-nw"] {
            let v = crate::variants::builtin(name).unwrap();
            // Moves that change more than their two squares, or a piece's kind: the key must
            // follow those too.
            let mut special = 0;
            for i in 0..6 {
                let game = random_game(&v, 9, i, &Options::default());
                let mut walk = KeyedPosition::new(game.start(), None);
                let mut pos = game.start().clone();
                let mut seen: Vec<(Position, u64)> = Vec::new();
                for &m in game.moves() {
                    assert_eq!(walk.key(), check_key(&pos));
                    for (p, k) in &seen {
                        assert_eq!(*p == pos, *k == walk.key(), "{name} {i}");
                    }
                    seen.push((pos.clone(), walk.key()));
                    special +=
                        usize::from(m.kind != crate::MoveKind::Normal || m.promotion.is_some());
                    walk.play(m);
                    pos.play_unchecked(m);
                }
                assert_eq!(walk.key(), check_key(&pos));
            }
            assert!(special > 0, "{name}: no special move played");
        }
    }

    /// Check keys are stored: these values must never change.
    #[test]
    fn check_keys_are_stable() {
        let key =
            |name: &str| check_key(&Position::start(&crate::variants::builtin(name).unwrap()));
        assert_eq!(key("shatranj"), 6_043_479_212_163_525_369);
        assert_eq!(key("tamerlane"), 8_363_860_712_276_425_999);
        let v = crate::variants::builtin("shatranj").unwrap();
        let after = play_uci(&v, &["e2e3", "e7e6", "d1e2"]);
        assert_eq!(check_key(&after), 7_723_973_773_622_406_493);
    }
}
