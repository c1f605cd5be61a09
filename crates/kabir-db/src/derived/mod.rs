//! The data derived from the stored games, all of which a rebuild can compute again: the
//! position index and opening tree, the statistics summaries, the openings' tallies and the
//! name index. Each is a [`Derived`] part of a batch: the batch writer
//! (`write::batch`) hands every part the same stored games, whether an import has just
//! stored them or a rebuild reads them back, and a rebuild empties each part's tables first.

pub(crate) mod index;
pub(crate) mod name_index;
pub mod names;
pub(crate) mod openings;
pub(crate) mod rebuild;
pub(crate) mod segments;
pub(crate) mod summary;
pub(crate) mod tally;
pub(crate) mod tree;

use rusqlite::Transaction;

use crate::derived::name_index::NameCache;
use crate::derived::summary::Facts;
use crate::write::prepare::Prepared;

/// A stored game as the derived data take it, one by one.
pub(crate) struct StoredGame<'g, 'a> {
    /// Its id.
    pub id: u32,
    /// What the summaries and the openings take from it.
    pub facts: &'g Facts<'g>,
    /// Its White, Black, Event and Site values.
    pub names: [Option<&'a str>; 4],
}

/// What every part of a batch may read or update as it writes: the batch's games as
/// prepared (replayed, with their positions grouped), the ids they were stored under
/// (`ids[i]` for game `i`, `None` if not stored), the ids of the batch's variants in their
/// numbering, and the name ids looked up so far.
pub(crate) struct BatchInput<'b> {
    pub prepared: &'b Prepared,
    pub ids: &'b [Option<u32>],
    pub variant_ids: &'b [i64],
    pub names: &'b mut NameCache,
}

/// What a batch's derived data took.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Index entries written.
    pub positions: u64,
    /// The variants whose index grew, with the entries written of each.
    pub grown: Vec<(i64, u64)>,
    /// The games stored.
    pub games: u64,
    /// The names looked up and stored, for the importer's cache once committed.
    pub names: Vec<(String, i64)>,
}

/// One kind of derived data: the tables it owns and what a batch of stored games adds to
/// them. A part is gathered game by game in memory, then written at once in the caller's
/// transaction.
pub(crate) trait Derived<'a>: Default {
    /// The statements that empty its tables, which a rebuild runs before deriving them
    /// again.
    const CLEAR: &'static str;

    /// Takes one stored game of the batch.
    fn add(&mut self, game: &StoredGame<'_, 'a>);

    /// Writes what the batch adds, in `tx`, and notes in `out` what it took.
    fn write(
        self,
        tx: &Transaction<'_>,
        batch: &mut BatchInput<'_>,
        out: &mut Written,
    ) -> rusqlite::Result<()>;
}
