//! Making a batch ready to write: the records replayed and keyed (on the reading threads, or
//! on all cores here), then the index entries and the opening tree's visits cut into groups
//! by variant and bucket and sorted, so that the writer only has to encode and store them.

use std::cell::RefCell;
use std::sync::Arc;

use rayon::prelude::*;

use kabir_rules::{Position, Variant};

use crate::derived::tree::{GameTree, check_key};
use crate::storage::codec::{MOVE_BYTES, move_at};
use crate::storage::schema::{BUCKET_BITS, TREE_BUCKET_BITS, TREE_PLIES, bucket, tree_bucket};
use crate::write::record::{self, Derived, GameRecord, RecordError};

/// A variant's start position, its position string and its check key.
type Standard = (Position, String, u64);

/// A game record made ready to store: its moves encoded, its keys computed and what the
/// index and the opening tree take from it worked out, as
/// [`Importer::import_all`](crate::Importer::import_all) would do with the whole batch. Made
/// where the record is made (on the thread that read the game, say), that work is spread over
/// the reading threads instead of holding up the writer, and it takes about half the
/// record's memory while it waits in a batch.
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
            + d.tree.visits.capacity() * size_of::<crate::derived::tree::FirstVisit>()
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
pub(crate) struct Entry {
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
    pub(crate) fn hash(&self, top: u64, bits: u32) -> u64 {
        (top << (64 - bits)) | (self.key() & (u64::MAX >> bits))
    }

    #[inline]
    pub(crate) fn game(&self) -> u32 {
        self.rest as u32
    }

    #[inline]
    pub(crate) fn ply(&self) -> u16 {
        (self.rest >> 32) as u16
    }

    #[inline]
    pub(crate) fn mv(&self) -> [u8; MOVE_BYTES] {
        let [a, b] = ((self.rest >> 48) as u16).to_le_bytes();
        [a, b, self.low as u8]
    }
}

/// A game's first visit of a position before the tree's last ply, while a batch is sorted.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Visit {
    pub hash: u64,
    pub check: u64,
    pub game: u32,
    pub mv: [u8; 3],
}

/// Items cut into groups by a counting sort: group `g` is `items[offsets[g]..offsets[g + 1]]`.
pub(crate) struct Groups<T> {
    pub(crate) items: Vec<T>,
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

    pub(crate) fn group(&self, g: usize) -> &[T] {
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
    pub(crate) games: Vec<Result<Derived, RecordError>>,
    /// Entries of the position index proper, for the positions beyond the opening tree (hash,
    /// batch-local game number, ply, move; the rest of each posting comes from the game when
    /// it is written), grouped by (variant number, bucket): group `g` is variant
    /// `g >> BUCKET_BITS`, bucket `g & (buckets - 1)`. Sorted by (hash, game, ply) within each
    /// group.
    pub(crate) entries: Groups<Entry>,
    /// The entries of the positions the tree covers, grouped by (variant number, tree
    /// bucket) and sorted the same way.
    pub(crate) covered: Groups<Entry>,
    /// The games' first visits before the tree's last ply, grouped by (variant number, tree
    /// bucket) and sorted by (hash, check key, move, game): the tree's rows in order.
    pub(crate) visits: Groups<Visit>,
    /// The variants of the batch, numbered in order of appearance.
    pub(crate) variants: Vec<Arc<Variant>>,
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
pub(crate) fn prepare_reusing<G: Into<ReadyGame> + Send>(
    games: Vec<G>,
    entries: Vec<Entry>,
) -> Prepared {
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
