//! Drawing positions for people: as text for a terminal ([`text`]); text from files made safe
//! to show there ([`printable`](mod@printable)).
//!
//! Rendering only reads a [`Position`](kabir_rules::Position); it knows nothing of files or
//! the database, so every command (and other programs) can draw boards the same way.

pub mod printable;
pub mod text;

pub use printable::{printable, printable_lines};
pub use text::{Charset, TextBoard};
