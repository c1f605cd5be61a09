//! The batch writer: everything derived from a batch of stored games, written in the
//! caller's transaction, the same way whether the games were just imported or are read back
//! by a rebuild: a rebuild must derive what the imports did (its digest checks that), so
//! both go through this one writer, which hands the games to each [`Derived`] part in turn.

use rusqlite::Transaction;

use crate::derived::index::PositionIndex;
use crate::derived::name_index::{BatchNames, NameCache};
use crate::derived::openings::BatchOpenings;
use crate::derived::segments;
use crate::derived::summary::{BatchSummary, Facts};
use crate::derived::tally::{self, Kind};
use crate::derived::{BatchInput, Derived, StoredGame, Written};
use crate::storage::merge;
use crate::write::import::MergeWork;
use crate::write::prepare::Prepared;

/// Every derived part of a batch, gathered game by game.
#[derive(Debug, Default)]
pub(crate) struct DerivedBatch<'a> {
    index: PositionIndex,
    summary: BatchSummary,
    openings: BatchOpenings,
    names: BatchNames<'a>,
}

/// Empties every derived table (the tallies, which two parts keep, once).
pub(crate) fn clear_all(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    for clear in [
        PositionIndex::CLEAR,
        tally::CLEAR,
        BatchOpenings::CLEAR,
        BatchSummary::CLEAR,
        BatchNames::CLEAR,
    ] {
        tx.execute_batch(clear)?;
    }
    Ok(())
}

impl<'a> DerivedBatch<'a> {
    /// A stored game: its id, what the summaries take from it, and its White, Black, Event
    /// and Site values.
    pub fn add(&mut self, id: u32, facts: &Facts<'_>, names: [Option<&'a str>; 4]) {
        let game = StoredGame { id, facts, names };
        self.index.add(&game);
        self.summary.add(&game);
        self.openings.add(&game);
        self.names.add(&game);
    }

    /// Writes the batch's derived data in `tx`, part by part: the index and tree segments
    /// of `prepared` (with `ids[i]` the id of its game `i`, `None` if not stored, and
    /// `variant_ids` the ids of its variants in their numbering), then the summaries, the
    /// openings and the name index of the games added.
    pub fn write(
        self,
        tx: &Transaction<'_>,
        prepared: &Prepared,
        ids: &[Option<u32>],
        variant_ids: &[i64],
        names: &mut NameCache,
    ) -> rusqlite::Result<Written> {
        let mut input = BatchInput {
            prepared,
            ids,
            variant_ids,
            names,
        };
        let mut out = Written {
            games: ids.iter().flatten().count() as u64,
            ..Written::default()
        };
        self.index.write(tx, &mut input, &mut out)?;
        self.summary.write(tx, &mut input, &mut out)?;
        self.openings.write(tx, &mut input, &mut out)?;
        self.names.write(tx, &mut input, &mut out)?;
        Ok(out)
    }
}

impl Written {
    /// The tallies the batch may have filled a tier of: none if it stored no games.
    fn tallies(&self) -> &'static [Kind] {
        match self.games {
            0 => &[],
            _ => &[Kind::Names, Kind::Openings],
        }
    }

    /// Merges the tallies' tiers the batch may have filled, each in a transaction of its own:
    /// an import, between batches. The index's segments are merged apart, a bounded part at
    /// a time (see [`Written::merge_work`]).
    pub fn merge_tallies(&self, conn: &mut rusqlite::Connection) -> rusqlite::Result<()> {
        for kind in self.tallies() {
            merge::merge_tiers(conn, kind)?;
        }
        Ok(())
    }

    /// The merge work on the index's segments that the batch brings, by variant: in
    /// proportion to the entries it wrote for each variant whose index grew (see
    /// [`segments`]).
    pub fn merge_work(&self, work: MergeWork) -> impl Iterator<Item = (i64, u64)> + '_ {
        self.grown
            .iter()
            .map(move |&(v, entries)| (v, entries.saturating_mul(work.per_entry).max(work.least)))
    }

    /// The same merges inside `tx`: a rebuild, all in one transaction.
    pub fn merge_in(&self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        for &(v, _) in &self.grown {
            segments::merge_some(tx, v, u64::MAX, &mut || false)?;
        }
        for kind in self.tallies() {
            while merge::merge_step(tx, kind)? {}
        }
        Ok(())
    }
}
