//! Merging the position index's segments, a few tree buckets at a time.
//!
//! Each batch writes one segment per variant, and a look-up reads one `tree` row per segment,
//! so the segments are kept in tiers: once a variant has [`MERGE_FANOUT`] segments of one
//! level, they are merged into one of the next. A merge of large segments rewrites much of
//! the index, so it is not done at once: it is recorded (the new segment's `merge_next`, the
//! next tree bucket to merge, and its sources' `merge_into`), and each batch of an import
//! moves it on by a number of entries proportional to the batch's own
//! ([`MERGE_WORK`]), bucket by bucket, in a transaction of its own.
//!
//! A look-up needs to know nothing of this. A bucket's rows are moved from the sources to the
//! new segment in one transaction, so at every commit each index entry is in exactly one
//! row: the new segment's below `merge_next`, its sources' from there on. The new segment's
//! range of games covers its sources', and a position search ordering segments by their
//! first game reads them correctly when ranges overlap.

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use crate::derived::index::SegmentWriter;
use crate::derived::tree::merge_blobs;
use crate::storage::codec::{damaged, merge_entries};
use crate::storage::schema::{BUCKET_BITS, TREE_BUCKET_BITS, buckets_of_tree_bucket};

/// Segments of one level merged into one of the next level once there are this many. Every
/// segment takes part, however large: after `n` batches a variant keeps at most 31 segments
/// of each level from 0 to log32(n), and the merges under way, so that a look-up, which reads
/// one row per segment, stays fast without `kabir index compact`. Each entry is rewritten once
/// per level it climbs, so wide tiers make an import's merges cheap (once for most entries of
/// a million games, where tiers of 8 rewrote them twice), for a look-up's reading more rows
/// (`docs/PERFORMANCE.md`, "At scale").
pub const MERGE_FANOUT: i64 = 32;

/// Entries that merges under way may rewrite after a batch, per entry the batch wrote. An
/// entry climbs a level for every factor of [`MERGE_FANOUT`] the index grows by, so at a
/// rate of one entry per level per entry written the merges keep pace with the batches;
/// four covers the levels of about a million batches (32^4), and beyond, lower levels'
/// merges still come first.
pub const MERGE_WORK: u64 = 4;

/// The least work a batch does on merges under way, in entries, so that a run of small
/// imports still finishes a large merge: about 20 MB of entries.
pub const MERGE_WORK_MIN: u64 = 1 << 20;

/// A merge under way: the segment it writes, its level and its sources, and the next tree
/// bucket to merge.
#[derive(Debug)]
struct Pending {
    target: i64,
    variant: i64,
    next: i64,
    sources: Vec<i64>,
}

/// Starts the merges of full tiers of `variant`: while a level has [`MERGE_FANOUT`] segments
/// that are neither merging nor being written by a merge, the oldest of them become the
/// sources of a new segment of the next level, empty so far. Returns how many it started.
fn start_merges(tx: &Transaction<'_>, variant: i64) -> rusqlite::Result<usize> {
    let mut started = 0;
    loop {
        let level: Option<i64> = tx
            .prepare_cached(
                "SELECT level FROM segment
                 WHERE variant = ?1 AND merge_into IS NULL AND merge_next IS NULL
                 GROUP BY level HAVING count(*) >= ?2 ORDER BY level LIMIT 1",
            )?
            .query_row(params![variant, MERGE_FANOUT], |r| r.get(0))
            .optional()?;
        let Some(level) = level else {
            return Ok(started);
        };
        let sources: Vec<i64> = tx
            .prepare_cached(
                "SELECT id FROM segment
                 WHERE variant = ?1 AND level = ?2 AND merge_into IS NULL AND merge_next IS NULL
                 ORDER BY id LIMIT ?3",
            )?
            .query_map(params![variant, level, MERGE_FANOUT], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        start(tx, variant, level + 1, &sources)?;
        started += 1;
    }
}

/// Records a merge of `sources` into a new segment of `level`; returns its id.
fn start(tx: &Transaction<'_>, variant: i64, level: i64, sources: &[i64]) -> rusqlite::Result<i64> {
    let placeholders = vec!["?"; sources.len()].join(",");
    // The range of games is known only if every source's is (segments written before
    // version 3 have none).
    let (games, first, last, unknown): (i64, Option<i64>, Option<i64>, i64) = tx.query_row(
        &format!(
            "SELECT coalesce(sum(games), 0), min(first_game), max(last_game),
                    count(*) - count(first_game)
             FROM segment WHERE id IN ({placeholders})"
        ),
        rusqlite::params_from_iter(sources),
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    let (first, last) = match unknown {
        0 => (first, last),
        _ => (None, None),
    };
    tx.prepare_cached(
        "INSERT INTO segment (variant, level, games, postings, first_game, last_game, merge_next)
         VALUES (?1, ?2, ?3, 0, ?4, ?5, 0)",
    )?
    .execute(params![variant, level, games, first, last])?;
    let target = tx.last_insert_rowid();
    tx.execute(
        &format!("UPDATE segment SET merge_into = ? WHERE id IN ({placeholders})"),
        rusqlite::params_from_iter(std::iter::once(target).chain(sources.iter().copied())),
    )?;
    Ok(target)
}

/// The merge under way of `variant` to move on first: the one of the lowest level (the
/// cheapest, whose sources are the most numerous kind), the oldest among equals.
fn next_pending(tx: &Transaction<'_>, variant: i64) -> rusqlite::Result<Option<Pending>> {
    let found: Option<(i64, i64)> = tx
        .prepare_cached(
            "SELECT id, merge_next FROM segment
             WHERE variant = ?1 AND merge_next IS NOT NULL ORDER BY level, id LIMIT 1",
        )?
        .query_row(params![variant], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((target, next)) = found else {
        return Ok(None);
    };
    let sources = tx
        .prepare_cached("SELECT id FROM segment WHERE merge_into = ?1 ORDER BY id")?
        .query_map(params![target], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(Some(Pending {
        target,
        variant,
        next,
        sources,
    }))
}

/// Moves `merge` on by whole tree buckets until at least `budget` entries are merged, it is
/// done, or `stop` says so (asked before each bucket but the first); returns the entries
/// merged. A bucket's rows (of `tree`, and of `posting` for segments written before version
/// 5) are read from every source, merged (the opening tree rows added up, the entries
/// interleaved in key order) and written as the target's row; then the sources' rows of the
/// buckets done are deleted.
fn advance(
    tx: &Transaction<'_>,
    merge: &Pending,
    budget: u64,
    stop: &mut dyn FnMut() -> bool,
) -> rusqlite::Result<u64> {
    let Pending {
        target,
        variant,
        next,
        ref sources,
    } = *merge;
    let finish = |tx: &Transaction<'_>| -> rusqlite::Result<()> {
        tx.prepare_cached("DELETE FROM segment WHERE merge_into = ?1")?
            .execute(params![target])?;
        tx.prepare_cached("UPDATE segment SET merge_next = NULL WHERE id = ?1")?
            .execute(params![target])?;
        Ok(())
    };
    if sources.is_empty() {
        finish(tx)?;
        return Ok(0);
    }
    let placeholders = vec!["?"; sources.len()].join(",");
    let with = |head: &[i64]| -> Vec<i64> { head.iter().chain(sources).copied().collect() };
    // The sources' next bucket holding anything: `posting` rows are by the position index's
    // finer buckets, each part of the tree bucket that holds its hashes.
    let shift = BUCKET_BITS - TREE_BUCKET_BITS;
    let mut next_tree = tx.prepare(&format!(
        "SELECT bucket FROM tree WHERE variant = ? AND bucket >= ? AND segment IN ({placeholders})
         ORDER BY bucket LIMIT 1"
    ))?;
    let mut next_posting = tx.prepare(&format!(
        "SELECT bucket FROM posting
         WHERE variant = ? AND bucket >= ? AND segment IN ({placeholders})
         ORDER BY bucket LIMIT 1"
    ))?;
    let mut read = tx.prepare(&format!(
        "SELECT rows, entries, beyond FROM tree
         WHERE variant = ? AND bucket = ? AND segment IN ({placeholders}) ORDER BY segment"
    ))?;
    let mut read_posting = tx.prepare(&format!(
        "SELECT entries FROM posting
         WHERE variant = ? AND bucket BETWEEN ? AND ? AND segment IN ({placeholders})
         ORDER BY bucket, segment"
    ))?;
    let mut out = SegmentWriter::resume(variant, target);
    let (mut rows_blob, mut entries_blob, mut beyond_blob) = (Vec::new(), Vec::new(), Vec::new());
    let mut at = next;
    let mut done = false;
    while out.postings < budget && (at == next || !stop()) {
        let in_tree: Option<i64> = next_tree
            .query_row(rusqlite::params_from_iter(with(&[variant, at])), |r| {
                r.get(0)
            })
            .optional()?;
        let in_posting: Option<i64> = next_posting
            .query_row(
                rusqlite::params_from_iter(with(&[variant, at << shift])),
                |r| r.get::<_, i64>(0),
            )
            .optional()?
            .map(|b| b >> shift);
        let Some(b) = in_tree.into_iter().chain(in_posting).min() else {
            done = true;
            break;
        };
        let mut rows: Vec<Vec<u8>> = Vec::new();
        let (mut entries, mut beyond): (Vec<Vec<u8>>, Vec<Vec<u8>>) = (Vec::new(), Vec::new());
        let mut found = read.query(rusqlite::params_from_iter(with(&[variant, b])))?;
        while let Some(row) = found.next()? {
            rows.push(row.get(0)?);
            entries.push(row.get(1)?);
            if let Some(blob) = row.get_ref(2)?.as_blob_or_null()? {
                beyond.push(blob.to_vec());
            }
        }
        drop(found);
        let finer = buckets_of_tree_bucket(b);
        let mut found = read_posting.query(rusqlite::params_from_iter(with(&[
            variant,
            *finer.start(),
            *finer.end(),
        ])))?;
        while let Some(row) = found.next()? {
            beyond.push(row.get(0)?);
        }
        drop(found);
        rows_blob.clear();
        merge_blobs(&rows, &mut rows_blob)
            .ok_or_else(|| damaged("an opening tree row does not decode"))?;
        let mut count = 0;
        for (lists, blob) in [(&entries, &mut entries_blob), (&beyond, &mut beyond_blob)] {
            blob.clear();
            let slices: Vec<&[u8]> = lists.iter().map(Vec::as_slice).collect();
            count += merge_entries(&slices, blob);
        }
        out.push_tree_bucket(tx, b, &rows_blob, &entries_blob, &beyond_blob, count)?;
        at = b + 1;
    }
    // The merged rows are written before the old ones are deleted: a page freed in a
    // transaction and used again in it must first be copied into the rollback journal, so
    // deleting bucket by bucket as the merge went journaled about all it rewrote. Pages
    // freed here are used by later transactions at no cost.
    if at > next {
        tx.execute(
            &format!(
                "DELETE FROM tree
                 WHERE variant = ? AND bucket BETWEEN ? AND ? AND segment IN ({placeholders})"
            ),
            rusqlite::params_from_iter(with(&[variant, next, at - 1])),
        )?;
        tx.execute(
            &format!(
                "DELETE FROM posting
                 WHERE variant = ? AND bucket BETWEEN ? AND ? AND segment IN ({placeholders})"
            ),
            rusqlite::params_from_iter(with(&[
                variant,
                *buckets_of_tree_bucket(next).start(),
                *buckets_of_tree_bucket(at - 1).end(),
            ])),
        )?;
    }
    let merged = out.postings;
    tx.prepare_cached(
        "UPDATE segment SET postings = postings + ?1, merge_next = ?2 WHERE id = ?3",
    )?
    .execute(params![merged as i64, at, target])?;
    if done {
        finish(tx)?;
    }
    Ok(merged)
}

/// What [`merge_some`] did: the entries it merged, and whether a merge is still under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Progress {
    pub merged: u64,
    pub under_way: bool,
}

/// Starts the merges of `variant`'s full tiers and moves the merges under way on, the lowest
/// level first, until about `budget` entries are merged, none is left, or `stop` says so
/// (asked between tree buckets, once at least one is merged).
pub(crate) fn merge_some(
    tx: &Transaction<'_>,
    variant: i64,
    budget: u64,
    stop: &mut dyn FnMut() -> bool,
) -> rusqlite::Result<Progress> {
    let mut merged = 0u64;
    loop {
        start_merges(tx, variant)?;
        let Some(pending) = next_pending(tx, variant)? else {
            return Ok(Progress {
                merged,
                under_way: false,
            });
        };
        if merged >= budget || (merged > 0 && stop()) {
            return Ok(Progress {
                merged,
                under_way: true,
            });
        }
        // `advance` merges its first bucket whatever `stop` says: every call makes progress.
        merged = merged.saturating_add(advance(tx, &pending, budget - merged, stop)?);
    }
}

/// The merge work owed after batches: about `budget` entries of `variant` merged (see
/// [`MergeWork`](crate::MergeWork)), fewer if `stop` says so between tree buckets, in one
/// transaction of its own, so that no transaction rewrites more than a bounded part of the
/// index.
pub(crate) fn merge_after_batch(
    conn: &mut rusqlite::Connection,
    variant: i64,
    budget: u64,
    stop: &mut dyn FnMut() -> bool,
) -> rusqlite::Result<Progress> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let progress = merge_some(&tx, variant, budget, stop)?;
    tx.commit()?;
    Ok(progress)
}

/// Merges every segment of `variant` into one, whatever merges are under way: their
/// segments, written and unwritten, all become sources of the new one.
pub(crate) fn merge_all(conn: &mut rusqlite::Connection, variant: i64) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let (count, level): (i64, i64) = tx.query_row(
        "SELECT count(*), coalesce(max(level), 0) FROM segment WHERE variant = ?1",
        params![variant],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if count > 1 {
        let sources: Vec<i64> = tx
            .prepare("SELECT id FROM segment WHERE variant = ?1 ORDER BY id")?
            .query_map(params![variant], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let games: i64 = tx.query_row(
            "SELECT coalesce(sum(games), 0) FROM segment
             WHERE variant = ?1 AND merge_next IS NULL",
            params![variant],
            |r| r.get(0),
        )?;
        // Merges under way are dropped as such: what their segments hold is all merged below.
        tx.execute(
            "UPDATE segment SET merge_into = NULL, merge_next = NULL WHERE variant = ?1",
            params![variant],
        )?;
        let target = start(&tx, variant, level + 1, &sources)?;
        tx.execute(
            "UPDATE segment SET games = ?1 WHERE id = ?2",
            params![games, target],
        )?;
        if let Some(pending) = next_pending(&tx, variant)?.filter(|p| p.target == target) {
            advance(&tx, &pending, u64::MAX, &mut || false)?;
        }
    }
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Database, GameRecord, MergeWork};
    use kabir_rules::generate::{Options, random_game};
    use kabir_rules::{Position, variants};

    /// `n` random Tamerlane games as records, and the positions of every one.
    fn games(n: u64) -> (Vec<GameRecord>, Vec<Position>) {
        let variant = variants::builtin("tamerlane").expect("built-in variant");
        let options = Options {
            max_plies: 30,
            ..Options::default()
        };
        let mut positions = Vec::new();
        let records = (0..n)
            .map(|i| {
                let game = random_game(&variant, 5, i, &options);
                let mut pos = game.start().clone();
                positions.push(pos.clone());
                for &m in game.moves() {
                    pos.play_unchecked(m);
                    positions.push(pos.clone());
                }
                let tags = vec![("Result".to_string(), "*".to_string())];
                GameRecord {
                    variant: variant.clone(),
                    start: game.start().clone(),
                    moves: game.moves().to_vec(),
                    pgn: kabir_notation::write_game(&game, &tags),
                    tags,
                    result: "*".to_string(),
                    replayed: None,
                }
            })
            .collect();
        (records, positions)
    }

    /// A merge told to stop at every chance merges one tree bucket a call, goes on from there
    /// at the next, and ends with the segments a merge in one go leaves; look-ups answer the
    /// same after every call.
    #[test]
    fn a_stopped_merge_goes_on_where_it_stopped() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("games.db");
        let fanout = u64::try_from(MERGE_FANOUT).expect("fanout");
        let (records, positions) = games(5 * fanout);
        let mut db = Database::create_or_open(&path).expect("database");
        let mut importer = db.importer().expect("importer");
        importer.set_merge_work(MergeWork {
            per_entry: 0,
            least: 0,
        });
        let batches: Vec<Vec<GameRecord>> = records.chunks(5).map(<[_]>::to_vec).collect();
        importer.import_all(batches, |_| {}).expect("import");
        // A full tier of batches' segments, and the merge of them started but not moved on.
        assert_eq!(db.segment_count().expect("segments"), fanout + 1);
        let queries: Vec<&Position> = positions.iter().step_by(37).collect();
        let answers = |db: &Database| -> Vec<_> {
            queries
                .iter()
                .map(|q| db.search_position(q).expect("search"))
                .collect()
        };
        let before = answers(&db);
        assert!(before.iter().all(|hits| !hits.is_empty()));
        let variant: i64 = db
            .conn
            .query_row("SELECT id FROM variant", [], |r| r.get(0))
            .expect("variant");
        let buckets = |db: &Database| -> i64 {
            db.conn
                .query_row("SELECT count(DISTINCT bucket) FROM tree", [], |r| r.get(0))
                .expect("buckets")
        };
        let total = buckets(&db);
        let mut calls = 0;
        let mut merged = 0;
        loop {
            let mut asked = 0;
            let progress = merge_after_batch(&mut db.conn, variant, u64::MAX, &mut || {
                asked += 1;
                true
            })
            .expect("merge");
            calls += 1;
            merged += progress.merged;
            assert_eq!(answers(&db), before, "after call {calls}");
            if !progress.under_way {
                break;
            }
            assert!(progress.merged > 0, "call {calls} merged nothing");
            assert!(asked >= 1, "call {calls} never asked whether to stop");
            assert!(calls <= total + 1, "{calls} calls for {total} buckets");
        }
        assert!(calls >= total, "{calls} calls for {total} buckets");
        assert_eq!(db.segment_count().expect("segments"), 1);
        let entries: i64 = db
            .conn
            .query_row("SELECT sum(postings) FROM segment", [], |r| r.get(0))
            .expect("entries");
        assert_eq!(merged, entries as u64);
        assert_eq!(entries as usize, positions.len());
    }
}
