//! Importing batches of games: parallel derivation, one writer, one transaction per batch.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;
use rusqlite::{OptionalExtension, Transaction, params};

use kabir_rules::{Position, Variant};

use super::codec::{GameFields, GameResult, MOVE_BYTES, move_at, to_sql};
use super::database::{CACHE_KIB, Database, IMPORT_CACHE_KIB};
use super::error::DbError;
use super::index::{self, SegmentWriter};
use super::name_index::{BatchNames, NameCache};
use super::query::GameId;
use super::record::{self, Derived, GameRecord, RecordError};
use super::schema::{
    BUCKET_BITS, TREE_BUCKET_BITS, TREE_PLIES, bucket, buckets_of_tree_bucket, tree_bucket,
};
use super::summary::BatchSummary;
use super::tally::{self, Kind};
use super::tree::{GameTree, TreeRow, check_key};

/// A record that was not stored, by its place in the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The record's place in the batch, counted from 0.
    pub index: usize,
    /// Why it was refused.
    pub error: RecordError,
}

/// A record that was not stored because the database holds the same game, by its place in
/// the batch, with the stored game it matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Duplicate {
    /// The record's place in the batch, counted from 0.
    pub index: usize,
    /// The game stored before (by an earlier import or earlier in the batch) that the record
    /// repeats.
    pub of: GameId,
}

/// When an imported game counts as one the database already holds, and is not stored again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum DuplicateRule {
    /// The same game record: variant, start position, moves, result and the Seven Tag
    /// Roster values (Event, Site, Date, Round, White, Black; an absent one counts as
    /// unknown, `?`) all equal. Comments, annotations and other tags do not count.
    #[default]
    Record,
    /// The same moves: variant, start position and moves equal, whoever played them and
    /// whatever the tags and result say.
    Moves,
}

/// What one batch did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Games stored.
    pub imported: u64,
    /// Games already in the database or earlier in the batch (by the importer's
    /// [`DuplicateRule`]), not stored again.
    pub duplicates: u64,
    /// Each duplicate, with the game it matched, in batch order.
    pub duplicate_of: Vec<Duplicate>,
    /// Records refused as malformed.
    pub rejected: Vec<Rejected>,
    /// Index entries written (one per position of each stored game).
    pub positions: u64,
}

impl BatchStats {
    /// Adds another batch's counts to these (rejections and duplicates are counted, not
    /// kept).
    pub fn add(&mut self, other: &BatchStats) {
        self.imported += other.imported;
        self.duplicates += other.duplicates;
        self.positions += other.positions;
    }
}

/// A variant's start position, its position string and its check key.
type Standard = (Position, String, u64);

/// A game record made ready to store: its moves encoded, its keys computed and what the
/// index and the opening tree take from it worked out, as [`Importer::import_all`] would do
/// with the whole batch. Made where the record is made (on the thread that read the game,
/// say), that work is spread over the reading threads instead of holding up the writer, and
/// it takes about half the record's memory while it waits in a batch.
#[derive(Debug)]
pub struct ReadyGame(Result<Derived, RecordError>);

impl From<GameRecord> for ReadyGame {
    fn from(record: GameRecord) -> ReadyGame {
        thread_local! {
            /// The start position of the variant of the last record made ready on this
            /// thread, its position string and its check key, with that variant: worked out
            /// once, not for every game.
            static STANDARD: RefCell<Option<(Arc<Variant>, Standard)>> =
                const { RefCell::new(None) };
        }
        STANDARD.with(|cell| {
            let mut standard = cell.borrow_mut();
            if !standard
                .as_ref()
                .is_some_and(|(v, _)| Arc::ptr_eq(v, &record.variant))
            {
                let p = Position::start(&record.variant);
                let fen = p.to_fen();
                let key = check_key(&p);
                *standard = Some((record.variant.clone(), (p, fen, key)));
            }
            ReadyGame(record::derive(record, standard.as_ref().map(|(_, s)| s)))
        })
    }
}

impl ReadyGame {
    /// Why the game cannot be stored, if it cannot: the importer reports it as rejected.
    pub fn error(&self) -> Option<&RecordError> {
        self.0.as_ref().err()
    }

    /// The bytes the game takes in a batch until the batch is written: itself, and the index
    /// entries and opening tree visits made of it when the batch is sorted.
    pub fn batch_bytes(&self) -> usize {
        let Ok(d) = &self.0 else {
            return size_of::<ReadyGame>();
        };
        let strings: usize = d
            .tags
            .iter()
            .map(|(k, v)| size_of::<(String, String)>() + k.capacity() + v.capacity())
            .sum();
        let promotions: usize = d
            .special
            .promotions_by_kind
            .iter()
            .map(|(k, _)| size_of::<(String, u64)>() + k.capacity())
            .sum();
        size_of::<ReadyGame>()
            + d.start_fen.capacity()
            + d.moves_blob.capacity()
            + d.hashes.capacity() * size_of::<u64>()
            + d.tree.visits.capacity() * size_of::<super::tree::FirstVisit>()
            + d.tree.returns.capacity() * size_of::<u16>()
            + strings
            + promotions
            + d.pgn.capacity()
            + d.hashes.len() * ENTRY_BATCH_BYTES
            + d.tree.visits.len() * size_of::<Visit>()
    }
}

/// What an index entry counts for in a batch's memory: an [`Entry`] with room to spare (its
/// buffer is allocated a quarter larger than the batch needs, and kept for later batches).
const ENTRY_BATCH_BYTES: usize = size_of::<Entry>() * 3 / 2;

/// An index entry while a batch is sorted: 16 bytes, so that placing and sorting move little,
/// in two words, so that placing one takes two stores. The entries of a group share the top
/// bits of their hashes (at least 8, the tree buckets'), which the entry leaves to its group
/// to make room for the move.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    /// The hash without its top 8 bits, above the move's last byte.
    low: u64,
    /// The batch-local game (bits 0-31), the ply (32-47) and the move's first two bytes.
    rest: u64,
}

const _: () = assert!(TREE_BUCKET_BITS >= 8 && BUCKET_BITS >= 8);

impl Entry {
    /// The entry of a game's position at `ply`, with the move `mv` played from it (encoded:
    /// taken while the game's moves are read in order, rather than when the entries are
    /// written in hash order).
    #[inline]
    fn new(hash: u64, game: u32, ply: u16, mv: [u8; MOVE_BYTES]) -> Entry {
        let [a, b, c] = mv;
        Entry {
            low: (hash << 8) | c as u64,
            rest: game as u64 | (ply as u64) << 32 | (u16::from_le_bytes([a, b]) as u64) << 48,
        }
    }

    /// The hash without its top 8 bits: entries of a group are in hash order in this order.
    #[inline]
    fn key(&self) -> u64 {
        self.low >> 8
    }

    /// The hash, for an entry of a group whose hashes' top `bits` bits are `top`.
    #[inline]
    fn hash(&self, top: u64, bits: u32) -> u64 {
        (top << (64 - bits)) | (self.key() & (u64::MAX >> bits))
    }

    #[inline]
    fn game(&self) -> u32 {
        self.rest as u32
    }

    #[inline]
    fn ply(&self) -> u16 {
        (self.rest >> 32) as u16
    }

    #[inline]
    fn mv(&self) -> [u8; MOVE_BYTES] {
        let [a, b] = ((self.rest >> 48) as u16).to_le_bytes();
        [a, b, self.low as u8]
    }
}

/// A game's first visit of a position before the tree's last ply, while a batch is sorted.
#[derive(Debug, Clone, Copy, Default)]
struct Visit {
    hash: u64,
    check: u64,
    game: u32,
    mv: [u8; 3],
}

/// Items cut into groups by a counting sort: group `g` is `items[offsets[g]..offsets[g + 1]]`.
struct Groups<T> {
    items: Vec<T>,
    offsets: Vec<usize>,
}

/// [`Groups`] being filled: each item is written once, into the room counted for its group.
struct Placing<T> {
    /// Empty: the items are written into its spare capacity.
    items: Vec<T>,
    offsets: Vec<usize>,
    /// Where the next item of each group goes.
    next: Vec<usize>,
}

impl<T: Copy + Default> Placing<T> {
    /// Room for the items counted per group in `counts` (one more than the groups, the first
    /// 0: `counts[g + 1]` is group `g`'s count), in the memory of `items` (emptied first).
    fn new(mut counts: Vec<usize>, mut items: Vec<T>) -> Placing<T> {
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let total = counts.last().copied().unwrap_or(0);
        items.clear();
        if items.capacity() < total {
            // Grown by `reserve`, a buffer would double, and the memory it leaves (kept by
            // the allocator) would not fit it again: a batch a little larger than the first
            // would add half as much again to the import's peak. A new one has room to
            // spare, which is not touched (nor resident) until a batch needs it.
            drop(std::mem::take(&mut items));
            items = Vec::with_capacity(total + total / 4);
        }
        Placing {
            items,
            next: counts.clone(),
            offsets: counts,
        }
    }

    /// Places the next item of group `g`.
    #[inline]
    fn push(&mut self, g: usize, item: T) {
        if let Some(slot) = self.next.get_mut(g) {
            if let Some(e) = self.items.spare_capacity_mut().get_mut(*slot) {
                e.write(item);
            }
            *slot += 1;
        }
    }

    /// The groups, once every one has had as many items pushed as counted. Written in place,
    /// the items are not filled with defaults first: a pass over tens of megabytes a batch,
    /// all overwritten at once.
    #[allow(unsafe_code)]
    fn finish(mut self) -> Groups<T> {
        let total = self.offsets.last().copied().unwrap_or(0);
        let full = total <= self.items.capacity()
            && self.offsets.first() == Some(&0)
            && self
                .offsets
                .windows(2)
                .zip(&self.next)
                .all(|(w, &next)| w[0] <= w[1] && next == w[1]);
        if full {
            // SAFETY: the groups' ranges `offsets[g]..offsets[g + 1]` are in order and
            // cover `0..total` (checked above), and `total` is within the capacity. Group
            // `g`'s items went to `offsets[g]`, `offsets[g] + 1`, ... up to `next[g]`, which
            // is `offsets[g + 1]` now (checked above; it only ever grew by one): every slot
            // below `total` is within the capacity and was written by `push` with an
            // initialized `T` (`Copy`, so there is nothing to drop).
            unsafe { self.items.set_len(total) };
        } else {
            // The counting and the placing disagree: a bug, not a matter of input.
            debug_assert!(full, "groups placed unlike counted");
            self.items.clear();
            self.items.resize(total, T::default());
        }
        Groups {
            items: self.items,
            offsets: self.offsets,
        }
    }
}

impl<T: Copy + Send> Groups<T> {
    /// Sorts each group on its own, in parallel: much faster than one sort of millions of
    /// items. Items are placed in (game, ply) order, so a stable key need not name them.
    fn sort_each<K: Ord>(&mut self, key: impl Fn(&T) -> K + Sync) {
        let mut slices: Vec<&mut [T]> = Vec::with_capacity(self.offsets.len());
        let mut rest: &mut [T] = &mut self.items;
        for w in self.offsets.windows(2) {
            let (head, tail) = rest.split_at_mut(w[1] - w[0]);
            slices.push(head);
            rest = tail;
        }
        slices
            .into_par_iter()
            .for_each(|s| s.sort_unstable_by_key(|x| key(x)));
    }

    fn group(&self, g: usize) -> &[T] {
        match (self.offsets.get(g), self.offsets.get(g + 1)) {
            (Some(&a), Some(&b)) => self.items.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }
}

impl Groups<Entry> {
    /// Sorts each group by (hash, game, ply), in parallel, where the entries of a group share
    /// the top `shared` bits of their hashes. The entries are placed in (game, ply) order, so
    /// a stable sort by hash is enough, and the hashes are evenly spread: a counting sort on
    /// the next bits leaves runs of a few entries (the same position, mostly), which is
    /// several times faster than comparing entries.
    fn sort_each_by_hash(&mut self, shared: u32) {
        let mut slices: Vec<&mut [Entry]> = Vec::with_capacity(self.offsets.len());
        let mut rest: &mut [Entry] = &mut self.items;
        for w in self.offsets.windows(2) {
            let (head, tail) = rest.split_at_mut(w[1] - w[0]);
            slices.push(head);
            rest = tail;
        }
        slices.into_par_iter().for_each_init(
            || (Vec::new(), Vec::new()),
            |(scratch, counts), s| sort_by_hash(s, shared, scratch, counts),
        );
    }
}

/// Sorts `entries` stably by hash, where their hashes share the top `shared` bits (see
/// [`Groups::sort_each_by_hash`]); `scratch` and `counts` are working memory.
fn sort_by_hash(
    entries: &mut [Entry],
    shared: u32,
    scratch: &mut Vec<Entry>,
    counts: &mut Vec<usize>,
) {
    let n = entries.len();
    if n <= SMALL_SORT {
        insertion_sort_by_hash(entries);
        return;
    }
    // About one digit per two entries, from the bits below the shared ones: runs of two
    // cost less to sort by insertion than twice as many counters to clear, sum and read.
    let bits = (usize::BITS - (n - 1).leading_zeros() - 1)
        .min(16)
        .min(64 - shared);
    // The shared bits include the 8 the entries leave out: the key's digits are the hash's.
    let digit = |key: u64| ((key << shared) >> (64 - bits)) as usize;
    counts.clear();
    counts.resize((1 << bits) + 1, 0);
    for e in entries.iter() {
        counts[digit(e.key()) + 1] += 1;
    }
    let (mut sum, mut longest) = (0, 0);
    for c in counts.iter_mut() {
        longest = longest.max(*c);
        sum += *c;
        *c = sum;
    }
    // The scratch is overwritten below: filled with defaults only where it grows.
    if scratch.len() < n {
        scratch.resize(n, Entry::default());
    }
    let scratch = &mut scratch[..n];
    for e in entries.iter() {
        let slot = &mut counts[digit(e.key())];
        if let Some(s) = scratch.get_mut(*slot) {
            *s = *e;
        }
        *slot += 1;
    }
    // Each digit's entries now end where the next digit's start, and go back sorted.
    if longest <= SMALL_SORT {
        // Runs are short: one insertion pass sorts them all, since an entry moves back only
        // past larger hashes, which are all of its own digit.
        insertion_sort_into(scratch, entries);
        return;
    }
    let mut start = 0;
    for &end in &counts[..1 << bits] {
        let (from, to) = (&scratch[start..end], &mut entries[start..end]);
        if from.len() > SMALL_SORT {
            // Many entries with one digit: positions played in many games, mostly.
            to.copy_from_slice(from);
            to.sort_by_key(|e| e.key());
        } else if let ([e], [slot]) = (from, &mut *to) {
            *slot = *e;
        } else {
            insertion_sort_into(from, to);
        }
        start = end;
    }
}

/// Runs of at most this many entries are sorted by insertion.
const SMALL_SORT: usize = 24;

/// Sorts a few entries stably by hash.
fn insertion_sort_by_hash(entries: &mut [Entry]) {
    for i in 1..entries.len() {
        let e = entries[i];
        let mut j = i;
        while j > 0 && entries[j - 1].key() > e.key() {
            entries[j] = entries[j - 1];
            j -= 1;
        }
        entries[j] = e;
    }
}

/// Copies `from` into `to` (as long) sorted stably by hash, by insertion: for entries in
/// runs of a few.
fn insertion_sort_into(from: &[Entry], to: &mut [Entry]) {
    let n = from.len().min(to.len());
    for (i, &e) in from[..n].iter().enumerate() {
        let mut j = i;
        while j > 0 && to[j - 1].key() > e.key() {
            to[j] = to[j - 1];
            j -= 1;
        }
        to[j] = e;
    }
}

/// A batch after derivation: ready for the writer.
pub(crate) struct Prepared {
    games: Vec<Result<Derived, RecordError>>,
    /// Entries of the position index proper, for the positions beyond the opening tree (hash,
    /// batch-local game number, ply, move; the rest of each posting comes from the game when
    /// it is written), grouped by (variant number, bucket): group `g` is variant
    /// `g >> BUCKET_BITS`, bucket `g & (buckets - 1)`. Sorted by (hash, game, ply) within each
    /// group.
    entries: Groups<Entry>,
    /// The entries of the positions the tree covers, grouped by (variant number, tree
    /// bucket) and sorted the same way.
    covered: Groups<Entry>,
    /// The games' first visits before the tree's last ply, grouped by (variant number, tree
    /// bucket) and sorted by (hash, check key, move, game): the tree's rows in order.
    visits: Groups<Visit>,
    /// The variants of the batch, numbered in order of appearance.
    variants: Vec<Arc<Variant>>,
}

impl Prepared {
    /// The first record that could not be derived, by its place in the batch.
    pub(crate) fn first_error(&self) -> Option<(usize, &RecordError)> {
        self.games
            .iter()
            .enumerate()
            .find_map(|(i, g)| g.as_ref().err().map(|e| (i, e)))
    }

    /// The batch's game `i`, derived.
    pub(crate) fn derived(&self, i: usize) -> Option<&Derived> {
        self.games.get(i).and_then(|g| g.as_ref().ok())
    }

    /// The ids of the batch's variants, in their numbering.
    pub(crate) fn variant_names(&self) -> impl Iterator<Item = &str> {
        self.variants.iter().map(|v| v.id())
    }
}

/// Replays and hashes a batch on all cores.
pub(crate) fn prepare(records: Vec<GameRecord>) -> Prepared {
    prepare_reusing(records, Vec::new())
}

/// [`prepare`] for records or games made ready, with the index entries in `entries`
/// (emptied): the buffer of a batch written before, tens of megabytes that would otherwise be
/// handed back to the system and faulted in again.
fn prepare_reusing<G: Into<ReadyGame> + Send>(games: Vec<G>, entries: Vec<Entry>) -> Prepared {
    // Records not made ready yet are made ready here, on all cores.
    let mut games: Vec<Result<Derived, RecordError>> =
        games.into_par_iter().map(|g| g.into().0).collect();
    let mut variants: Vec<Arc<Variant>> = Vec::new();
    let numbers: Vec<u16> = games
        .iter()
        .map(|g| match g {
            Ok(d) => match variants.iter().position(|v| v.id() == d.variant.id()) {
                Some(i) => i as u16,
                None => {
                    variants.push(d.variant.clone());
                    (variants.len() - 1) as u16
                }
            },
            Err(_) => 0,
        })
        .collect();
    let buckets = 1usize << BUCKET_BITS;
    let tree_buckets = 1usize << TREE_BUCKET_BITS;
    let group = |vn: u16, hash: u64| vn as usize * buckets + bucket(hash) as usize;
    let tree_group = |vn: u16, hash: u64| vn as usize * tree_buckets + tree_bucket(hash) as usize;
    let mut counts = vec![0usize; variants.len() * buckets + 1];
    let mut covered_counts = vec![0usize; variants.len() * tree_buckets + 1];
    let mut visit_counts = vec![0usize; variants.len() * tree_buckets + 1];
    for (g, &vn) in games.iter().zip(&numbers) {
        if let Ok(d) = g {
            let (first, later) = d.hashes.split_at(d.hashes.len().min(TREE_PLIES as usize));
            for &h in first {
                covered_counts[tree_group(vn, h) + 1] += 1;
            }
            if d.tree.returns.is_empty() {
                for &h in later {
                    counts[group(vn, h) + 1] += 1;
                }
            } else {
                for (i, &h) in later.iter().enumerate() {
                    if d.tree.covers((first.len() + i) as u16) {
                        covered_counts[tree_group(vn, h) + 1] += 1;
                    } else {
                        counts[group(vn, h) + 1] += 1;
                    }
                }
            }
            for v in &d.tree.visits {
                visit_counts[tree_group(vn, v.hash) + 1] += 1;
            }
        }
    }
    let mut entries = Placing::new(counts, entries);
    let mut covered = Placing::new(covered_counts, Vec::new());
    let mut visits = Placing::new(visit_counts, Vec::new());
    // Games in order and plies in order: each group is filled in (game, ply) order.
    for (i, (g, &vn)) in games.iter_mut().zip(&numbers).enumerate() {
        let Ok(d) = g else { continue };
        let game = i as u32;
        // The moves are read in ply order; after the last move, `move_at` says there is none.
        let mut moves = d.moves_blob.chunks_exact(MOVE_BYTES);
        let mut entry = |hash: u64, ply: u16| {
            let mv = match moves.next() {
                Some(&[a, b, c]) => [a, b, c],
                _ => move_at(&d.moves_blob, ply),
            };
            Entry::new(hash, game, ply, mv)
        };
        let (first, later) = d.hashes.split_at(d.hashes.len().min(TREE_PLIES as usize));
        for (ply, &hash) in first.iter().enumerate() {
            covered.push(tree_group(vn, hash), entry(hash, ply as u16));
        }
        // Plies fit in 16 bits (a game has at most `u16::MAX` moves).
        let later = later
            .iter()
            .enumerate()
            .map(|(i, &h)| (TREE_PLIES + i as u16, h));
        if d.tree.returns.is_empty() {
            for (ply, hash) in later {
                entries.push(group(vn, hash), entry(hash, ply));
            }
        } else {
            for (ply, hash) in later {
                if d.tree.covers(ply) {
                    covered.push(tree_group(vn, hash), entry(hash, ply));
                } else {
                    entries.push(group(vn, hash), entry(hash, ply));
                }
            }
        }
        for v in &d.tree.visits {
            visits.push(
                tree_group(vn, v.hash),
                Visit {
                    hash: v.hash,
                    check: v.check,
                    game,
                    mv: move_at(&d.moves_blob, v.ply),
                },
            );
        }
        // Placed, the game's hashes (a third of what it holds) are not needed again: the
        // memory goes back while the batch is written.
        d.hashes = Vec::new();
        d.tree = GameTree::default();
    }
    let mut entries = entries.finish();
    let mut covered = covered.finish();
    let mut visits = visits.finish();
    entries.sort_each_by_hash(BUCKET_BITS);
    covered.sort_each_by_hash(TREE_BUCKET_BITS);
    visits.sort_each(|v| (v.hash, v.check, v.mv, v.game));
    Prepared {
        games,
        entries,
        covered,
        visits,
        variants,
    }
}

/// Imports batches of games into a database opened for writing.
pub struct Importer<'db> {
    db: &'db mut Database,
    merge_tiers: bool,
    rule: DuplicateRule,
    names: NameCache,
    /// Batches committed by this importer.
    committed: u64,
    /// The batch (counted from 0) in whose writing to panic, for tests only.
    panic_in: Option<u64>,
}

impl Database {
    /// An importer writing to this database.
    pub fn importer(&mut self) -> Result<Importer<'_>, DbError> {
        if self.read_only {
            return Err(DbError::OpenedReadOnly);
        }
        Ok(Importer {
            db: self,
            merge_tiers: true,
            rule: DuplicateRule::default(),
            names: NameCache::default(),
            committed: 0,
            panic_in: None,
        })
    }

    /// Merges each variant's index segments into one (after many small imports).
    pub fn compact(&mut self) -> Result<(), DbError> {
        if self.read_only {
            return Err(DbError::OpenedReadOnly);
        }
        for v in self.variant_ids()? {
            index::merge_all(&mut self.conn, v).map_err(|e| self.err(e))?;
        }
        let merged = (|| {
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            for kind in [Kind::Names, Kind::Openings] {
                tally::merge_all(&tx, kind)?;
            }
            tx.commit()
        })();
        merged.map_err(|e| self.err(e))
    }

    /// The number of position index segments, over all variants: a lookup reads one row of
    /// each of its variant's (see [`Database::compact`]).
    pub fn segment_count(&self) -> Result<u64, DbError> {
        self.conn
            .query_row("SELECT count(*) FROM segment", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| self.err(e))
    }

    fn variant_ids(&self) -> Result<Vec<i64>, DbError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM variant ORDER BY id")
            .map_err(|e| self.err(e))?;
        stmt.query_map([], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))
    }
}

impl Importer<'_> {
    /// Whether to merge the index's segments in tiers after each batch (on by default). Off,
    /// each batch leaves its own segment until [`Database::compact`].
    pub fn set_merge_tiers(&mut self, on: bool) {
        self.merge_tiers = on;
    }

    /// Which games count as duplicates ([`DuplicateRule::Record`] by default). The rule
    /// applies to the games being imported, against every game stored, whichever rule
    /// stored them; stored games are never changed.
    pub fn set_duplicate_rule(&mut self, rule: DuplicateRule) {
        self.rule = rule;
    }

    /// Makes the writing of batch `batch` (0: the first this importer writes) panic once its
    /// rows are written and before they are committed: for the tests of what a panic there
    /// does (an error, and whole batches in the database), with no other use.
    #[doc(hidden)]
    pub fn panic_in_batch(&mut self, batch: u64) {
        self.panic_in = Some(batch);
    }

    /// Derives and stores one batch, in one transaction.
    pub fn import_batch(&mut self, records: Vec<GameRecord>) -> Result<BatchStats, DbError> {
        let prepared = prepare(records);
        self.write(prepared, drop)
    }

    /// Imports a stream of batches of records ([`GameRecord`]) or games made ready
    /// ([`ReadyGame`]), each sorted for the index on all cores and then written. A batch is
    /// sorted while the one before it is written, and the next is taken from `batches` only
    /// once the sorted one goes to be written, so two batches are in memory here at a time
    /// while the caller makes a third; records are made ready here, games made ready by the
    /// caller (while it reads them, say) leave only the sorting and the writing to this stage.
    /// `on_batch` sees each committed batch's stats; the totals are returned. Stops at the
    /// first error: the batches committed before it stay.
    pub fn import_all<I, G>(
        &mut self,
        batches: I,
        mut on_batch: impl FnMut(&BatchStats),
    ) -> Result<BatchStats, DbError>
    where
        I: IntoIterator<Item = Vec<G>>,
        G: Into<ReadyGame> + Send,
    {
        let mut totals = BatchStats::default();
        let (to_writer, from_main) = std::sync::mpsc::sync_channel::<Prepared>(0);
        // The writer hands each batch's entry buffer back for a later batch.
        let (spare_entries, spares) = std::sync::mpsc::channel::<Vec<Entry>>();
        let (to_main, results) = std::sync::mpsc::channel::<Result<BatchStats, DbError>>();
        // Alone with the file, write it through a rollback journal: most of an import's pages
        // are new, and a rollback journal keeps no copy of those. Otherwise (another
        // connection is open) stay in WAL mode, where checkpoints (copying the WAL into the
        // database file) run on a connection of their own, so that the writer goes on with
        // the next batch meanwhile.
        let rollback = self.db.enter_rollback_journal();
        let _ = self
            .db
            .conn
            .execute_batch(&format!("PRAGMA cache_size = -{IMPORT_CACHE_KIB}"));
        let checkpointer = if rollback {
            None
        } else {
            rusqlite::Connection::open(&self.db.path).ok()
        };
        let (to_checkpointer, commits) = std::sync::mpsc::channel::<()>();
        if checkpointer.is_some() {
            let _ = self.db.conn.execute_batch("PRAGMA wal_autocheckpoint = 0");
        }
        let path = self.db.path.clone();
        // Lent to the writer thread for the scope only, so that the connection's settings can
        // be put back after a panic there.
        let writer = &mut *self;
        std::thread::scope(|scope| {
            if let Some(conn) = checkpointer {
                scope.spawn(move || {
                    while commits.recv().is_ok() {
                        while commits.try_recv().is_ok() {}
                        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                    }
                });
            }
            let handle = scope.spawn(move || {
                for prepared in from_main {
                    let r = writer.write(prepared, |e| {
                        let _ = spare_entries.send(e);
                    });
                    let failed = r.is_err();
                    let _ = to_checkpointer.send(());
                    if to_main.send(r).is_err() || failed {
                        break;
                    }
                }
                // The openings left recent by the import are consolidated, so that a report
                // afterwards reads few of them (see `openings`).
                if writer.merge_tiers
                    && let Err(e) = tally::settle(&mut writer.db.conn)
                {
                    let _ = to_main.send(Err(writer.db.err(e)));
                }
                let _ = writer.db.conn.execute_batch(&format!(
                    "PRAGMA wal_autocheckpoint = 1000; PRAGMA cache_size = -{CACHE_KIB}"
                ));
            });
            let mut outcome = Ok(());
            let mut take =
                |r: Result<BatchStats, DbError>, totals: &mut BatchStats| -> Result<(), DbError> {
                    let stats = r?;
                    totals.add(&stats);
                    on_batch(&stats);
                    Ok(())
                };
            for batch in batches {
                let prepared = prepare_reusing(batch, spares.try_recv().unwrap_or_default());
                if to_writer.send(prepared).is_err() {
                    break;
                }
                // The next batch is sorted while this one is written. Sorting and writing one
                // after the other made them the import's critical path: the reading threads
                // waited on them for a quarter of the time on two cores.
                if let Err(e) = results.try_iter().try_for_each(|r| take(r, &mut totals)) {
                    outcome = Err(e);
                    break;
                }
            }
            drop(to_writer);
            // A panic in the writer stops it between batches or inside one (rolled back as
            // its transaction is dropped): whatever was heard before, the import failed.
            if let Err(panic) = handle.join() {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|m| m.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "no message".to_string());
                return Err(DbError::WriterFailed {
                    path: path.clone(),
                    message,
                });
            }
            if outcome.is_ok() {
                for r in results.try_iter() {
                    if let Err(e) = take(r, &mut totals) {
                        outcome = Err(e);
                        break;
                    }
                }
            }
            outcome
        })
        .inspect_err(|e| {
            if matches!(e, DbError::WriterFailed { .. }) {
                // The writer did not get to put the connection's settings back.
                let _ = self.db.conn.execute_batch(&format!(
                    "PRAGMA wal_autocheckpoint = 1000; PRAGMA cache_size = -{CACHE_KIB}"
                ));
            }
        })?;
        Ok(totals)
    }

    /// Stores a derived batch: duplicates found, games inserted, one index segment per variant.
    /// `spare` gets the batch's entry buffer once written.
    fn write(
        &mut self,
        mut prepared: Prepared,
        spare: impl FnOnce(Vec<Entry>),
    ) -> Result<BatchStats, DbError> {
        let db = &mut *self.db;
        let rule = self.rule;
        let names = &mut self.names;
        let fault = self.panic_in == Some(self.committed);
        let written = (|| {
            let tx = db
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let stats = write_batch(&tx, &prepared, rule, names)?;
            if fault {
                panic!("the fault asked for by Importer::panic_in_batch");
            }
            tx.commit()?;
            Ok(stats)
        })();
        // The entry buffer goes back for the next batch, and the rest is freed, before the
        // index is merged, which may take a while.
        spare(std::mem::take(&mut prepared.entries.items));
        drop(prepared);
        // The transaction is over (rolled back on an error) before the error is read.
        let (stats, grown, found) = written.map_err(|e| match e {
            WriteError::Sql(e) => db.err(e),
            WriteError::TooManyGames => DbError::TooManyGames,
        })?;
        self.names.commit(found);
        self.committed += 1;
        if self.merge_tiers {
            for v in &grown {
                index::merge_tiers(&mut db.conn, *v).map_err(|e| db.err(e))?;
            }
            if stats.imported > 0 {
                for kind in [Kind::Names, Kind::Openings] {
                    tally::merge_tiers(&mut db.conn, kind).map_err(|e| db.err(e))?;
                }
            }
        }
        Ok(stats)
    }
}

enum WriteError {
    Sql(rusqlite::Error),
    TooManyGames,
}

impl From<rusqlite::Error> for WriteError {
    fn from(e: rusqlite::Error) -> Self {
        WriteError::Sql(e)
    }
}

/// The database id of a variant, created if new.
fn variant_id(tx: &Transaction<'_>, name: &str) -> rusqlite::Result<i64> {
    tx.prepare_cached("INSERT OR IGNORE INTO variant (name) VALUES (?1)")?
        .execute(params![name])?;
    tx.prepare_cached("SELECT id FROM variant WHERE name = ?1")?
        .query_row(params![name], |r| r.get(0))
}

/// The stored game that `d` repeats under `rule`, if any (the first stored, when several
/// are). Keys are hashes: the fields are compared too.
fn stored(
    tx: &Transaction<'_>,
    variant: i64,
    d: &Derived,
    rule: DuplicateRule,
) -> rusqlite::Result<Option<GameId>> {
    let mut stmt;
    // No ORDER BY: the first is found among the few rows with the key (SQLite would sort
    // them in a temporary B-tree, on every game).
    let mut rows = match rule {
        DuplicateRule::Record => {
            stmt = tx.prepare_cached(
                "SELECT id, start_fen, moves, result, event, site, date, round, white, black
                 FROM game WHERE content = ?1 AND record = ?2 AND variant = ?3",
            )?;
            stmt.query(params![to_sql(d.content), to_sql(d.record), variant])?
        }
        DuplicateRule::Moves => {
            stmt = tx.prepare_cached(
                "SELECT id, start_fen, moves FROM game WHERE content = ?1 AND variant = ?2",
            )?;
            stmt.query(params![to_sql(d.content), variant])?
        }
    };
    let mut first: Option<GameId> = None;
    while let Some(row) = rows.next()? {
        let fen = row.get_ref(1)?.as_str()?;
        let moves = row.get_ref(2)?.as_blob()?;
        if fen != d.start_fen || moves != d.moves_blob.as_slice() {
            continue;
        }
        if rule == DuplicateRule::Record {
            let text = |i| row.get_ref(i).and_then(|v| Ok(v.as_str_or_null()?));
            let roster = [text(4)?, text(5)?, text(6)?, text(7)?, text(8)?, text(9)?];
            let result = row.get_ref(3)?.as_str()?;
            if !record::same_record_fields(result, roster, d.result.as_str(), d.roster_values()) {
                continue;
            }
        }
        if let Ok(id) = u32::try_from(row.get::<_, i64>(0)?) {
            first = Some(first.map_or(id, |f| f.min(id)));
        }
    }
    Ok(first)
}

/// Whether two derived games of one variant are duplicates under `rule`.
fn same_game(a: &Derived, b: &Derived, rule: DuplicateRule) -> bool {
    a.start_fen == b.start_fen
        && a.moves_blob == b.moves_blob
        && match rule {
            DuplicateRule::Moves => true,
            DuplicateRule::Record => record::same_record_fields(
                a.result.as_str(),
                a.roster_values(),
                b.result.as_str(),
                b.roster_values(),
            ),
        }
}

fn insert_game(tx: &Transaction<'_>, variant: i64, d: &Derived) -> Result<u32, WriteError> {
    let s = &d.special;
    // In `record::ROSTER` order: event, site, date, round, white, black.
    let roster = d.roster_values();
    tx.prepare_cached(
        "INSERT INTO game (variant, content, record, start_fen, standard_start, moves, plies,
             result, termination, event, site, date, round, white, black, swaps, lifts,
             relocations, promotions, arrivals, adventitious_kings, citadel_entries)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
             ?19, ?20, ?21, ?22)",
    )?
    .execute(params![
        variant,
        to_sql(d.content),
        to_sql(d.record),
        d.start_fen,
        d.standard_start,
        d.moves_blob,
        d.plies,
        d.result.as_str(),
        d.end.as_str(),
        roster[0],
        roster[1],
        roster[2],
        roster[3],
        roster[4],
        roster[5],
        s.swaps as i64,
        s.lifts as i64,
        s.relocations as i64,
        s.promotions as i64,
        s.arrivals as i64,
        s.adventitious_kings as i64,
        s.citadel_entries as i64,
    ])?;
    let id = tx.last_insert_rowid();
    let id = u32::try_from(id).map_err(|_| WriteError::TooManyGames)?;
    let tags = serde_json::to_string(&d.tags).unwrap_or_else(|_| "[]".to_string());
    tx.prepare_cached("INSERT INTO game_text (game, tags, pgn) VALUES (?1, ?2, ?3)")?
        .execute(params![id, tags, d.pgn])?;
    for (kind, count) in &s.promotions_by_kind {
        tx.prepare_cached("INSERT INTO promotion (game, kind, count) VALUES (?1, ?2, ?3)")?
            .execute(params![id, kind, *count as i64])?;
    }
    Ok(id)
}

/// What a batch's transaction did: its stats, the variants whose index grew and the names
/// looked up (for the importer's cache once committed).
type Written = (BatchStats, Vec<i64>, Vec<(String, i64)>);

/// The batch's rows, inside the caller's transaction.
fn write_batch(
    tx: &Transaction<'_>,
    prepared: &Prepared,
    rule: DuplicateRule,
    names: &mut NameCache,
) -> Result<Written, WriteError> {
    let mut stats = BatchStats::default();
    let variant_ids: Vec<i64> = prepared
        .variants
        .iter()
        .map(|v| variant_id(tx, v.id()))
        .collect::<Result<_, _>>()?;
    let variant_of = |d: &Derived| -> i64 {
        prepared
            .variants
            .iter()
            .position(|v| v.id() == d.variant.id())
            .and_then(|i| variant_ids.get(i).copied())
            .unwrap_or(0)
    };
    // Game ids by batch-local number; `None` for duplicates and rejected records.
    let mut ids: Vec<Option<u32>> = vec![None; prepared.games.len()];
    let mut seen: HashMap<(i64, u64), Vec<usize>> = HashMap::new();
    let mut games_per_variant: HashMap<i64, u64> = HashMap::new();
    for (i, g) in prepared.games.iter().enumerate() {
        let d = match g {
            Ok(d) => d,
            Err(e) => {
                stats.rejected.push(Rejected {
                    index: i,
                    error: e.clone(),
                });
                continue;
            }
        };
        let v = variant_of(d);
        let key = match rule {
            DuplicateRule::Record => d.record,
            DuplicateRule::Moves => d.content,
        };
        let earlier = seen.entry((v, key)).or_default();
        let in_batch = earlier.iter().find_map(|&j| match &prepared.games[j] {
            Ok(o) if same_game(o, d, rule) => ids[j],
            _ => None,
        });
        if let Some(of) = match in_batch {
            Some(of) => Some(of),
            None => stored(tx, v, d, rule)?,
        } {
            stats.duplicates += 1;
            stats.duplicate_of.push(Duplicate { index: i, of });
            continue;
        }
        earlier.push(i);
        ids[i] = Some(insert_game(tx, v, d)?);
        *games_per_variant.entry(v).or_default() += 1;
        stats.imported += 1;
    }
    let (positions, grown) = write_index(tx, prepared, &ids, &variant_ids)?;
    stats.positions = positions;
    let mut summary = BatchSummary::default();
    let mut batch_names = BatchNames::default();
    for (g, id) in prepared.games.iter().zip(&ids) {
        let (Ok(d), Some(id)) = (g, id) else { continue };
        summary.add(&d.facts(variant_of(d)));
        batch_names.add(*id, d.names());
    }
    summary.write(tx)?;
    let found = batch_names.write(tx, names)?;
    Ok((stats, grown, found))
}

/// Writes a stored batch's part of the position index and of the opening tree: one segment
/// per variant, with `ids[i]` the id of the batch's game `i` (`None`: not stored). Returns
/// the entries written and the variants whose index grew.
pub(crate) fn write_index(
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

/// Looks up the id of the variant named `name`, if the database has it.
pub(crate) fn find_variant(db: &Database, name: &str) -> Result<Option<i64>, DbError> {
    db.conn
        .prepare_cached("SELECT id FROM variant WHERE name = ?1")
        .and_then(|mut s| s.query_row(params![name], |r| r.get(0)).optional())
        .map_err(|e| db.err(e))
}
