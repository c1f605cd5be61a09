//! Game records as text: the game reader, move syntax, and the writer.
//!
//! Syntax is separate from the rules: [`reader`] splits a file into games and tokens,
//! [`san`] reads the text of one move and [`tags`] names the tag pairs and results; none of
//! them knows the rules. Resolving a move's text against a position uses the rules core.

pub mod game;
pub mod reader;
pub mod resolve;
pub mod san;
pub mod span;
pub mod tags;
mod write;

pub use resolve::{ResolveError, resolve};
pub use write::{LineWriter, check_mark, san, san_plus, write_game, write_tags};
