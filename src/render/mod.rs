//! Drawing positions for people: as text for a terminal ([`text`]).
//!
//! Rendering only reads a [`Position`](crate::rules::Position); it knows nothing of files or
//! the database, so every command (and other programs) can draw boards the same way.

pub mod text;

pub use text::{Charset, TextBoard};
