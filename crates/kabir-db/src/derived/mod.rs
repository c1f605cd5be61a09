//! The data derived from the stored games, all of which a rebuild can compute again: the
//! position index and opening tree, the statistics summaries, the name index and the
//! openings' tallies.

pub(crate) mod index;
pub(crate) mod name_index;
pub mod names;
pub(crate) mod openings;
pub(crate) mod rebuild;
pub(crate) mod summary;
pub(crate) mod tally;
pub(crate) mod tree;
