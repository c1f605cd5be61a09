//! Games read and replayed on all cores and handed on in input order: the first stage of
//! validating, importing and exporting a game file.
//!
//! ```
//! use kabir_notation::replay::parallel::{ReplayOptions, replay_games};
//! use kabir_rules::variants::Registry;
//!
//! let text = "[Variant \"shatranj\"]\n\n1. e3 e6 *\n\n[Variant \"shatranj\"]\n\n1. e5 *\n";
//! let registry = Registry::builtin();
//! let mut valid = Vec::new();
//! replay_games(
//!     text.as_bytes(),
//!     &registry,
//!     ReplayOptions::default(),
//!     |_raw, replay| replay.is_valid(),
//!     |number, ok| -> Result<(), kabir_notation::reader::ReadError> {
//!         valid.push((number, ok));
//!         Ok(())
//!     },
//! )?;
//! assert_eq!(valid, [(1, true), (2, false)]);
//! # Ok::<(), kabir_notation::reader::ReadError>(())
//! ```

use std::io::Read;

use crate::game::RawGame;
use crate::parallel::read_parallel;
use crate::reader::{ReadError, ReaderOptions};
use crate::replay::{Replay, replay, replay_unhashed};
use kabir_rules::variants::Registry;

/// How [`replay_games`] replays each game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Keep each position's hash, for an index of positions ([`replay`]); without it the
    /// replay only checks the game ([`replay_unhashed`]), which is faster.
    pub hashes: bool,
    /// Report every move written in coordinate form, instead of one warning for a game
    /// written entirely so ([`Replay::group_coordinate_warnings`]), and make what a lenient
    /// reading of the `FEN` tag assumed an error ([`Replay::strict_position_strings`]).
    pub strict: bool,
    /// The most bytes one game's text may take; `None` for the reader's default
    /// ([`ReaderOptions::max_game_bytes`]).
    pub max_game_bytes: Option<usize>,
}

/// Reads every game of `input` and replays it, both on all cores (see
/// [`read_parallel`]); hands each game and its replay to `work` on the worker thread that
/// replayed it (which keeps what it needs: what it drops is freed where it was made), and what
/// `work` gave to `each`, in input order, with the game's number (from 1).
///
/// Stops at the first error of reading the input or of `each`.
pub fn replay_games<R, T, E>(
    input: R,
    registry: &Registry,
    options: ReplayOptions,
    work: impl Fn(RawGame, Replay) -> T + Sync,
    each: impl FnMut(u64, T) -> Result<(), E>,
) -> Result<(), E>
where
    R: Read,
    T: Send,
    E: From<ReadError>,
{
    let defaults = ReaderOptions::default();
    read_parallel(
        input,
        ReaderOptions {
            max_game_bytes: options.max_game_bytes.unwrap_or(defaults.max_game_bytes),
            piece_letters: registry.piece_letters(),
            ..defaults
        },
        |raw| {
            let mut r = if options.hashes {
                replay(&raw, registry)
            } else {
                replay_unhashed(&raw, registry)
            };
            if options.strict {
                r.strict_position_strings();
            } else {
                r.group_coordinate_warnings(&raw);
            }
            work(raw, r)
        },
        each,
    )
}
