//! The batch writer: everything derived from a batch of stored games, written in the
//! caller's transaction, the same way whether the games were just imported or are read back
//! by a rebuild: a rebuild must derive what the imports did (its digest checks that), so
//! both go through this one writer.

use rusqlite::Transaction;

use crate::derived::index::{SegmentWriter, Segments};
use crate::derived::name_index::{BatchNames, NameCache};
use crate::derived::summary::{BatchSummary, Facts};
use crate::derived::tally::Kind;
use crate::derived::tree::TreeRow;
use crate::storage::codec::{GameFields, GameResult};
use crate::storage::merge;
use crate::storage::schema::{BUCKET_BITS, TREE_BUCKET_BITS, buckets_of_tree_bucket};
use crate::write::prepare::Prepared;

/// The summaries' and the name index's part of a batch, gathered game by game.
#[derive(Debug, Default)]
pub(crate) struct DerivedBatch<'a> {
    summary: BatchSummary,
    names: BatchNames<'a>,
}

/// What a batch's derived data took.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Index entries written.
    pub positions: u64,
    /// The variants whose index grew.
    pub grown: Vec<i64>,
    /// The games stored.
    pub games: u64,
    /// The names looked up and stored, for the importer's cache once committed.
    pub names: Vec<(String, i64)>,
}

impl<'a> DerivedBatch<'a> {
    /// A stored game: its id, what the summaries take from it, and its White, Black, Event
    /// and Site values.
    pub fn add(&mut self, id: u32, facts: &Facts<'_>, names: [Option<&'a str>; 4]) {
        self.summary.add(facts);
        self.names.add(id, names);
    }

    /// Writes the batch's derived data in `tx`: the index and tree segments of `prepared`
    /// (with `ids[i]` the id of its game `i`, `None` if not stored, and `variant_ids` the ids
    /// of its variants in their numbering), then the summaries and the name index of the
    /// games added.
    pub fn write(
        self,
        tx: &Transaction<'_>,
        prepared: &Prepared,
        ids: &[Option<u32>],
        variant_ids: &[i64],
        names: &mut NameCache,
    ) -> rusqlite::Result<Written> {
        let (positions, grown) = write_index(tx, prepared, ids, variant_ids)?;
        self.summary.write(tx)?;
        let found = self.names.write(tx, names)?;
        Ok(Written {
            positions,
            grown,
            games: ids.iter().flatten().count() as u64,
            names: found,
        })
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

    /// Merges the tiers the batch may have filled (the index's of the variants that grew, and
    /// the tallies'), each merge in a transaction of its own: an import, between batches.
    pub fn merge_tiers(&self, conn: &mut rusqlite::Connection) -> rusqlite::Result<()> {
        for &v in &self.grown {
            merge::merge_tiers(conn, &Segments(v))?;
        }
        for kind in self.tallies() {
            merge::merge_tiers(conn, kind)?;
        }
        Ok(())
    }

    /// The same merges inside `tx`: a rebuild, all in one transaction.
    pub fn merge_in(&self, tx: &Transaction<'_>) -> rusqlite::Result<()> {
        for &v in &self.grown {
            while merge::merge_step(tx, &Segments(v))? {}
        }
        for kind in self.tallies() {
            while merge::merge_step(tx, kind)? {}
        }
        Ok(())
    }
}

/// Writes a stored batch's part of the position index and of the opening tree: one segment
/// per variant, with `ids[i]` the id of the batch's game `i` (`None`: not stored). Returns
/// the entries written and the variants whose index grew.
fn write_index(
    tx: &Transaction<'_>,
    prepared: &Prepared,
    ids: &[Option<u32>],
    variant_ids: &[i64],
) -> rusqlite::Result<(u64, Vec<i64>)> {
    // Groups come in (variant number, bucket) order, entries of a group in (hash, local game,
    // ply) order, tree visits in (hash, check key, move, local game) order. Ids grow with the
    // local number, so the orders hold with ids in place.
    let mut grown = Vec::new();
    let mut positions = 0;
    let buckets = 1usize << BUCKET_BITS;
    let tree_buckets = 1usize << TREE_BUCKET_BITS;
    // Each bucket's entries are encoded into one blob in a tight loop: what they hold of their
    // game (stored games only) is made once per game.
    let fields: Vec<Option<GameFields>> = prepared
        .games
        .iter()
        .zip(ids)
        .map(|(g, id)| match (g, id) {
            (Ok(d), Some(id)) => Some(GameFields::new(*id, d.result, d.standard_start, d.plies)),
            _ => None,
        })
        .collect();
    let tree_fields: Vec<Option<(u32, GameResult, u16)>> = prepared
        .games
        .iter()
        .zip(ids)
        .map(|(g, id)| match (g, id) {
            (Ok(d), Some(id)) => Some((*id, d.result, d.plies)),
            _ => None,
        })
        .collect();
    let mut blob = Vec::new();
    let mut beyond = Vec::new();
    let mut rows = Vec::new();
    for (vn, variant) in variant_ids.iter().enumerate() {
        let stored = prepared
            .games
            .iter()
            .zip(ids)
            .filter_map(|(g, id)| match (g, id) {
                (Ok(d), Some(id)) if d.variant.id() == prepared.variants[vn].id() => Some(*id),
                _ => None,
            });
        let (mut games, mut first, mut last) = (0u64, u32::MAX, 0u32);
        for id in stored {
            games += 1;
            first = first.min(id);
            last = last.max(id);
        }
        if games == 0 {
            continue;
        }
        let mut writer = SegmentWriter::new(tx, *variant, 0, games)?;
        for b in 0..tree_buckets {
            rows.clear();
            let mut row: Option<TreeRow> = None;
            for v in prepared.visits.group(vn * tree_buckets + b) {
                let Some(Some((id, result, plies))) = tree_fields.get(v.game as usize) else {
                    continue;
                };
                match &mut row {
                    Some(r) if r.key() == (v.hash, v.check, v.mv) => {
                        r.push_game(*id, *result, *plies);
                    }
                    _ => {
                        if let Some(r) = row.take() {
                            r.write(&mut rows);
                        }
                        row = Some(TreeRow::of_game(
                            v.hash, v.check, v.mv, *id, *result, *plies,
                        ));
                    }
                }
            }
            if let Some(r) = row {
                r.write(&mut rows);
            }
            blob.clear();
            let mut count = 0;
            for e in prepared.covered.group(vn * tree_buckets + b) {
                if let Some(Some(game)) = fields.get(e.game() as usize) {
                    let hash = e.hash(b as u64, TREE_BUCKET_BITS);
                    blob.extend_from_slice(&game.entry(hash, e.ply(), e.mv()));
                    count += 1;
                }
            }
            // The index's finer buckets of this tree bucket, in order: their entries are
            // in hash order together.
            beyond.clear();
            for fb in buckets_of_tree_bucket(b as i64) {
                for e in prepared.entries.group(vn * buckets + fb as usize) {
                    if let Some(Some(game)) = fields.get(e.game() as usize) {
                        let hash = e.hash(fb as u64, BUCKET_BITS);
                        beyond.extend_from_slice(&game.entry(hash, e.ply(), e.mv()));
                        count += 1;
                    }
                }
            }
            writer.push_tree_bucket(tx, b as i64, &rows, &blob, &beyond, count)?;
        }
        positions += writer.postings;
        writer.finish(tx, Some((first, last)))?;
        grown.push(*variant);
    }
    Ok((positions, grown))
}
