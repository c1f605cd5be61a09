//! Game records as text: the game reader and the writer.

mod write;

pub use write::write_game;
