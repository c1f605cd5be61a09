//! How the database is kept on disk: opening a file and migrating its schema, the byte
//! layouts of moves and index entries, and the merge of sorted runs that keeps the derived
//! data's segments and tallies few.

pub(crate) mod codec;
pub(crate) mod database;
pub(crate) mod merge;
pub(crate) mod schema;
