//! Game records as text: position strings, the game reader and the writer.
//!
//! Syntax only: nothing here knows the rules. [`reader`] splits a file into games and tokens,
//! [`san`] reads the text of one move, [`tags`] names the tag pairs and results.

pub mod game;
pub mod reader;
pub mod san;
pub mod span;
pub mod tags;
