//! Random legal games, for tests and benchmarks.
//!
//! Games are reproducible: game `i` of a run with seed `s` depends only on `(s, i)`, so they
//! can be generated in parallel and in any order.

use std::sync::Arc;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::rules::{Game, Position, Variant};

/// How random games are played.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Stop after this many plies if the game has not ended.
    pub max_plies: usize,
    /// The chance (0-1) of picking among the captures when there are any; higher values end
    /// games by the rules (bare king, checkmate, stalemate) more often.
    pub capture_bias: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_plies: 400,
            capture_bias: 0.7,
        }
    }
}

/// The random number generator for game `index` of a run seeded with `seed`.
fn rng_for(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

/// Plays game `index` of a run: random legal moves from the start position until the game
/// ends by the rules or reaches `options.max_plies`.
pub fn random_game(variant: &Arc<Variant>, seed: u64, index: u64, options: &Options) -> Game {
    random_game_from(Position::start(variant), seed, index, options)
}

/// Like [`random_game`], from a given position.
pub fn random_game_from(start: Position, seed: u64, index: u64, options: &Options) -> Game {
    let mut rng = rng_for(seed, index);
    let mut game = Game::new(start);
    while game.moves().len() < options.max_plies {
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        let pos = game.position();
        let captures: Vec<_> = moves
            .iter()
            .copied()
            .filter(|&m| pos.is_capture(m))
            .collect();
        let pick = if !captures.is_empty() && rng.random_bool(options.capture_bias.clamp(0.0, 1.0))
        {
            captures.choose(&mut rng).copied()
        } else {
            moves.choose(&mut rng).copied()
        };
        match pick {
            Some(m) => game.play_unchecked(m),
            None => break,
        }
    }
    game
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_reproducible_and_legal() {
        let v = crate::variants::builtin("tamerlane").unwrap();
        let opts = Options {
            max_plies: 120,
            ..Options::default()
        };
        let a = random_game(&v, 7, 3, &opts);
        let b = random_game(&v, 7, 3, &opts);
        let c = random_game(&v, 7, 4, &opts);
        assert_eq!(a.moves(), b.moves());
        assert_ne!(a.moves(), c.moves());
        let mut replay = Game::new(Position::start(&v));
        for &m in a.moves() {
            replay.play(m).unwrap();
        }
        assert_eq!(replay.position(), a.position());
    }
}
