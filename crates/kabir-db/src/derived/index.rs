//! The position index: sorted segments of fixed-size entries, split into hash buckets.
//!
//! Each imported batch adds one *segment* per variant. A segment stores its entries (see
//! [`Posting`]) sorted by (hash, game, ply), cut into one blob per hash bucket (the top
//! [`BUCKET_BITS`] bits of the hash). Finding a hash reads the bucket's blob of every segment
//! and binary-searches each. Segments are merged in tiers (like a log-structured merge tree,
//! see `derived::segments`) so that a bucket never has more than a few blobs per level. See
//! `docs/DATABASE.md`.

use rusqlite::{OptionalExtension, Transaction, params};

use crate::derived::tree::{Rows, TreeRow};
use crate::derived::{BatchInput, Derived, StoredGame, Written};
use crate::storage::codec::{GameFields, GameResult, POSTING_BYTES, Posting, postings_with_hash};
use crate::storage::database::Layout;
use crate::storage::schema::{
    BUCKET_BITS, TREE_BUCKET_BITS, bucket, buckets_of_tree_bucket, tree_bucket,
};
use crate::write::prepare::Prepared;

/// The position index's and the opening tree's part of a batch, which it takes from the
/// prepared batch (its positions grouped by bucket) rather than game by game.
#[derive(Debug, Default)]
pub(crate) struct PositionIndex;

impl Derived<'_> for PositionIndex {
    const CLEAR: &'static str = "DELETE FROM posting; DELETE FROM tree; DELETE FROM segment;";

    fn add(&mut self, _: &StoredGame<'_, '_>) {}

    fn write(
        self,
        tx: &Transaction<'_>,
        batch: &mut BatchInput<'_>,
        out: &mut Written,
    ) -> rusqlite::Result<()> {
        let (positions, grown) = write_index(tx, batch.prepared, batch.ids, batch.variant_ids)?;
        out.positions = positions;
        out.grown = grown;
        Ok(())
    }
}

/// Writes a stored batch's part of the position index and of the opening tree: one segment
/// per variant, with `ids[i]` the id of the batch's game `i` (`None`: not stored). Returns
/// the entries written and, for each variant whose index grew, its entries written.
fn write_index(
    tx: &Transaction<'_>,
    prepared: &Prepared,
    ids: &[Option<u32>],
    variant_ids: &[i64],
) -> rusqlite::Result<(u64, Vec<(i64, u64)>)> {
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
        grown.push((*variant, writer.postings));
        writer.finish(tx, Some((first, last)))?;
    }
    Ok((positions, grown))
}

/// Writes one segment, tree bucket by tree bucket.
pub(crate) struct SegmentWriter {
    variant: i64,
    segment: i64,
    pub(crate) postings: u64,
}

impl SegmentWriter {
    /// Starts a segment of `level` for `variant`; `games` is recorded for information.
    pub(crate) fn new(
        tx: &Transaction<'_>,
        variant: i64,
        level: i64,
        games: u64,
    ) -> rusqlite::Result<SegmentWriter> {
        tx.prepare_cached(
            "INSERT INTO segment (variant, level, games, postings) VALUES (?1, ?2, ?3, 0)",
        )?
        .execute(params![variant, level, games as i64])?;
        Ok(SegmentWriter {
            variant,
            segment: tx.last_insert_rowid(),
            postings: 0,
        })
    }

    /// Goes on writing `segment` of `variant`, which a merge under way started.
    pub(crate) fn resume(variant: i64, segment: i64) -> SegmentWriter {
        SegmentWriter {
            variant,
            segment,
            postings: 0,
        }
    }

    /// Writes one tree bucket: its rows, the index entries kept with them and the other
    /// index entries of the bucket (`count` entries in all), already encoded, each list in
    /// (hash, game, ply) order.
    pub(crate) fn push_tree_bucket(
        &mut self,
        tx: &Transaction<'_>,
        bucket: i64,
        rows: &[u8],
        entries: &[u8],
        beyond: &[u8],
        count: u64,
    ) -> rusqlite::Result<()> {
        if !rows.is_empty() || !entries.is_empty() || !beyond.is_empty() {
            let beyond = (!beyond.is_empty()).then_some(beyond);
            tx.prepare_cached(
                "INSERT INTO tree (variant, bucket, segment, rows, entries, beyond)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                self.variant,
                bucket,
                self.segment,
                rows,
                entries,
                beyond
            ])?;
        }
        self.postings += count;
        Ok(())
    }

    /// Writes the segment's entry count and the range of its game ids (`None`: unknown, as
    /// for segments written before version 3).
    pub(crate) fn finish(
        self,
        tx: &Transaction<'_>,
        games: Option<(u32, u32)>,
    ) -> rusqlite::Result<()> {
        tx.prepare_cached(
            "UPDATE segment SET postings = ?1, first_game = ?2, last_game = ?3 WHERE id = ?4",
        )?
        .execute(params![
            self.postings as i64,
            games.map(|g| g.0),
            games.map(|g| g.1),
            self.segment
        ])?;
        Ok(())
    }
}

/// Every index entry of `variant` whose hash is `hash`, in (game, ply) order: those of the
/// position index proper and, with `layout.tree` (a file of version 3 or later), those kept
/// with the opening tree.
pub(crate) fn lookup(
    conn: &rusqlite::Connection,
    variant: i64,
    hash: u64,
    layout: Layout,
) -> rusqlite::Result<Vec<Posting>> {
    let mut out = lookup_beyond(conn, variant, hash, layout)?;
    if layout.tree {
        let mut stmt =
            conn.prepare_cached("SELECT entries FROM tree WHERE variant = ?1 AND bucket = ?2")?;
        let mut rows = stmt.query(params![variant, tree_bucket(hash)])?;
        while let Some(row) = rows.next()? {
            let blob = row.get_ref(0)?.as_blob()?;
            out.extend(postings_with_hash(blob, hash));
        }
        out.sort_unstable_by_key(|p| (p.game, p.ply));
    }
    Ok(out)
}

/// The entries of `variant` whose hash is `hash` in the position index proper (not those
/// kept with the opening tree's aggregates), in (game, ply) order: from the tree rows
/// (`layout.beyond`) and from `posting`.
pub(crate) fn lookup_beyond(
    conn: &rusqlite::Connection,
    variant: i64,
    hash: u64,
    layout: Layout,
) -> rusqlite::Result<Vec<Posting>> {
    let mut out = Vec::new();
    if layout.beyond {
        let mut stmt = conn.prepare_cached(
            "SELECT CASE WHEN length(beyond) <= ?3 THEN beyond END, length(beyond) > ?3, rowid
             FROM tree WHERE variant = ?1 AND bucket = ?2 AND beyond IS NOT NULL",
        )?;
        let mut large = Vec::new();
        let mut rows = stmt.query(params![variant, tree_bucket(hash), IN_PLACE_BYTES])?;
        while let Some(row) = rows.next()? {
            beyond_of(row, 0, hash, &mut out, &mut large)?;
        }
        drop(rows);
        for rowid in large {
            beyond_in_place(conn, rowid, hash, &mut out)?;
        }
    }
    posting_rows(conn, variant, hash, &mut out)?;
    out.sort_unstable_by_key(|p| (p.game, p.ply));
    Ok(out)
}

/// `beyond` blobs larger than this are read in place rather than copied (see
/// [`beyond_in_place`]); smaller ones fit a page and are read where they lie.
const IN_PLACE_BYTES: i64 = 48 * 1024;

/// Reads a tree row's `beyond` entries of `hash` as the look-ups select them: columns `at`
/// (the blob, if small), `at + 1` (whether it is large) and `at + 2` (the row's rowid, kept
/// in `large` to be read in place once the statement is done).
fn beyond_of(
    row: &rusqlite::Row<'_>,
    at: usize,
    hash: u64,
    out: &mut Vec<Posting>,
    large: &mut Vec<i64>,
) -> rusqlite::Result<()> {
    if let Some(blob) = row.get_ref(at)?.as_blob_or_null()? {
        out.extend(postings_with_hash(blob, hash));
    } else if row.get::<_, Option<bool>>(at + 1)? == Some(true) {
        large.push(row.get(at + 2)?);
    }
    Ok(())
}

/// Adds the entries of `hash` in `posting` (segments written before version 5) to `out`.
fn posting_rows(
    conn: &rusqlite::Connection,
    variant: i64,
    hash: u64,
    out: &mut Vec<Posting>,
) -> rusqlite::Result<()> {
    let mut stmt =
        conn.prepare_cached("SELECT entries FROM posting WHERE variant = ?1 AND bucket = ?2")?;
    let mut rows = stmt.query(params![variant, bucket(hash)])?;
    while let Some(row) = rows.next()? {
        out.extend(postings_with_hash(row.get_ref(0)?.as_blob()?, hash));
    }
    Ok(())
}

/// The opening tree's rows of a position over every segment of its variant: one row per move
/// (rows of the same move added up, the lowest example ids kept), the ids of all their games
/// when every segment's row names them all, and the position index's entries of its hash
/// beyond the tree.
#[derive(Debug, Default)]
pub(crate) struct PositionRows {
    pub rows: Vec<TreeRow>,
    /// Ascending; `None` when a segment's row has more games than it names.
    pub ids: Option<Vec<u32>>,
    /// The entries of the hash in the position index proper, in (game, ply) order.
    pub beyond: Vec<Posting>,
}

/// The opening tree's rows of a position (by its hash and check key) and the index entries of
/// its hash beyond the tree, from every segment of `variant`, in one pass over the tree rows
/// of its bucket; `Err(())` inside if a blob is damaged. Needs a file of version 3 or later.
pub(crate) fn tree_rows(
    conn: &rusqlite::Connection,
    variant: i64,
    hash: u64,
    check: u64,
    layout: Layout,
) -> rusqlite::Result<Result<PositionRows, ()>> {
    let mut stmt = conn.prepare_cached(if layout.beyond {
        "SELECT rows, CASE WHEN length(beyond) <= ?3 THEN beyond END, length(beyond) > ?3, rowid
         FROM tree WHERE variant = ?1 AND bucket = ?2"
    } else {
        "SELECT rows, NULL, NULL, rowid FROM tree WHERE variant = ?1 AND bucket = ?2"
    })?;
    let mut rows = if layout.beyond {
        stmt.query(params![variant, tree_bucket(hash), IN_PLACE_BYTES])?
    } else {
        stmt.query(params![variant, tree_bucket(hash)])?
    };
    let mut large = Vec::new();
    // A position of the first plies has a row per move in each of hundreds of segments:
    // they are added up as they come rather than kept.
    let mut out = PositionRows {
        rows: Vec::new(),
        ids: Some(Vec::new()),
        beyond: Vec::new(),
    };
    while let Some(row) = rows.next()? {
        let blob = row.get_ref(0)?.as_blob()?;
        let mut it = Rows::new(blob);
        it.skip_below(hash);
        for r in it.by_ref() {
            if r.hash == hash && r.check == check {
                if let Some(ids) = &mut out.ids {
                    if r.examples().len() as u64 == r.games {
                        ids.extend_from_slice(r.examples());
                    } else {
                        out.ids = None;
                    }
                }
                match out.rows.iter_mut().find(|o| o.mv == r.mv) {
                    Some(o) => o.add(&r),
                    None => out.rows.push(r),
                }
            } else if r.hash > hash {
                break;
            }
        }
        if it.damaged {
            return Ok(Err(()));
        }
        beyond_of(row, 1, hash, &mut out.beyond, &mut large)?;
    }
    drop(rows);
    for rowid in large {
        beyond_in_place(conn, rowid, hash, &mut out.beyond)?;
    }
    posting_rows(conn, variant, hash, &mut out.beyond)?;
    out.beyond.sort_unstable_by_key(|p| (p.game, p.ply));
    if let Some(ids) = &mut out.ids {
        ids.sort_unstable();
        ids.dedup();
    }
    Ok(Ok(out))
}

/// A segment of the position index, with the range of its game ids (`None` for segments
/// written before version 3).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SegmentRange {
    pub id: i64,
    pub games: Option<(u32, u32)>,
}

/// The segments of `variant`.
pub(crate) fn segments(
    conn: &rusqlite::Connection,
    variant: i64,
) -> rusqlite::Result<Vec<SegmentRange>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, first_game, last_game FROM segment WHERE variant = ?1 AND games > 0",
    )?;
    stmt.query_map(params![variant], |r| {
        let first: Option<u32> = r.get(1)?;
        let last: Option<u32> = r.get(2)?;
        Ok(SegmentRange {
            id: r.get(0)?,
            games: first.zip(last),
        })
    })?
    .collect()
}

/// The entries of `hash` kept with the opening tree in one segment, in (game, ply) order: all
/// of those of its first `games` games (its last, if `descending`), and whether that is all
/// of them.
///
/// The blob is read in place, a few entries at a time: after a compaction or a rebuild a
/// segment holds every game, and the start position's entries alone are 20 bytes a game.
pub(crate) fn lookup_tree_segment(
    conn: &rusqlite::Connection,
    variant: i64,
    segment: i64,
    hash: u64,
    games: usize,
    descending: bool,
) -> rusqlite::Result<(Vec<Posting>, bool)> {
    let rowid: Option<i64> = conn
        .prepare_cached(
            "SELECT rowid FROM tree WHERE variant = ?1 AND bucket = ?2 AND segment = ?3",
        )?
        .query_row(params![variant, tree_bucket(hash), segment], |r| r.get(0))
        .optional()?;
    let Some(rowid) = rowid else {
        return Ok((Vec::new(), true));
    };
    let blob = conn.blob_open(rusqlite::MAIN_DB, c"tree", c"entries", rowid, true)?;
    let (start, end) = entry_range(&blob, hash)?;
    const CHUNK: usize = 256;
    let mut out: Vec<Posting> = Vec::new();
    let mut buf = vec![0u8; CHUNK * POSTING_BYTES];
    let mut seen = 0usize;
    let mut last_game = None;
    let (mut lo, mut hi) = (start, end);
    while lo < hi {
        let take = CHUNK.min(hi - lo);
        let at = if descending { hi - take } else { lo };
        let bytes = &mut buf[..take * POSTING_BYTES];
        blob.read_at_exact(bytes, at * POSTING_BYTES)?;
        for k in 0..take {
            let Some(p) = Posting::read(bytes, if descending { take - 1 - k } else { k }) else {
                continue;
            };
            if last_game != Some(p.game) {
                if seen == games {
                    out.sort_unstable_by_key(|p| (p.game, p.ply));
                    return Ok((out, false));
                }
                seen += 1;
                last_game = Some(p.game);
            }
            out.push(p);
        }
        if descending {
            hi -= take;
        } else {
            lo += take;
        }
    }
    out.sort_unstable_by_key(|p| (p.game, p.ply));
    Ok((out, true))
}

/// The range of the entries with `hash` in an entry blob read in place: the first not below
/// it, the first above it.
fn entry_range(blob: &rusqlite::blob::Blob<'_>, hash: u64) -> rusqlite::Result<(usize, usize)> {
    let n = blob.len() / POSTING_BYTES;
    let hash_at = |i: usize| -> rusqlite::Result<u64> {
        let mut b = [0u8; 8];
        blob.read_at_exact(&mut b, i * POSTING_BYTES)?;
        Ok(u64::from_le_bytes(b))
    };
    let first_not_below = |target: u64| -> rusqlite::Result<usize> {
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if hash_at(mid)? < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    };
    let start = first_not_below(hash)?;
    let end = match hash.checked_add(1) {
        Some(next) => first_not_below(next)?,
        None => n,
    };
    Ok((start, end))
}

/// Adds the entries of `hash` in the `beyond` blob of tree row `rowid` to `out`, read in
/// place: a blob larger than a page (a merged segment's) would otherwise be copied whole.
fn beyond_in_place(
    conn: &rusqlite::Connection,
    rowid: i64,
    hash: u64,
    out: &mut Vec<Posting>,
) -> rusqlite::Result<()> {
    let blob = conn.blob_open(rusqlite::MAIN_DB, c"tree", c"beyond", rowid, true)?;
    let (start, end) = entry_range(&blob, hash)?;
    let mut bytes = vec![0u8; (end - start) * POSTING_BYTES];
    blob.read_at_exact(&mut bytes, start * POSTING_BYTES)?;
    out.extend((0..end - start).filter_map(|i| Posting::read(&bytes, i)));
    Ok(())
}
