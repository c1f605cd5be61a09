//! Game records as text: the game reader, move syntax, and the writer.
//!
//! The format is specified in `notation-spec/README.md`. Reading is in two steps, as in
//! shakmaty: syntax first, with no knowledge of the rules, then resolution of each move
//! against a position.
//!
//! - [`reader`] splits a file into games ([`game::RawGame`]): tag pairs and movetext tokens,
//!   each with its place in the file ([`span::Span`]), and syntax errors and warnings.
//! - [`san`](mod@san) reads the text of one move into a [`san::SanPlus`], by [`grammar`], the
//!   notation's grammar written production by production in nom (moves, places and, from the
//!   rules core, position strings); [`tags`] names the tags kabir knows, the results, and the
//!   canonical tag order. None of these knows the rules.
//! - [`resolve`](mod@resolve) finds the legal move a move's text names, using the rules core;
//!   [`line`](mod@line) plays a line of moves written as text; [`tree`] reads a game's main
//!   line, variations and comments as a tree of resolved moves.

pub mod game;
pub mod grammar;
pub mod line;
pub mod parallel;
pub mod reader;
pub mod render;
pub mod replay;
pub mod resolve;
pub mod san;
pub mod span;
pub mod tags;
pub mod tree;
mod write;

pub use line::{LineError, play_line};
pub use resolve::{ResolveError, resolve};
pub use write::{LineWriter, check_mark, san, san_into, san_plus, write_game, write_tags};
