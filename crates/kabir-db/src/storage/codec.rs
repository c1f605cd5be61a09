//! Byte layouts stored in the database: moves, index entries and content hashes.
//!
//! Every layout here is part of the schema (see `docs/DATABASE.md`): changing one needs a new
//! schema version and a migration.

use kabir_rules::{Move, MoveKind, PieceKind, Square};

/// Bytes per stored move.
pub const MOVE_BYTES: usize = 3;

/// The encoding of "no move" (the last position of a game): no board has square 255.
const NO_MOVE: [u8; MOVE_BYTES] = [0xff, 0xff, 0xff];

fn kind_code(kind: MoveKind) -> u8 {
    match kind {
        MoveKind::Normal => 0,
        MoveKind::Lift => 1,
        MoveKind::Relocation => 2,
        MoveKind::Swap => 3,
    }
}

/// A move as three bytes: from-square, to-square, then the move kind (2 high bits) and the
/// promotion kind plus one (6 low bits, 0 for none).
pub fn encode_move(m: Move) -> [u8; MOVE_BYTES] {
    let promo = m.promotion.map_or(0, |k| k.0.saturating_add(1) & 0x3f);
    [m.from.0, m.to.0, kind_code(m.kind) << 6 | promo]
}

/// Reads a move written by [`encode_move`]; `None` for the no-move marker.
pub fn decode_move(b: [u8; MOVE_BYTES]) -> Option<Move> {
    if b == NO_MOVE {
        return None;
    }
    let kind = match b[2] >> 6 {
        0 => MoveKind::Normal,
        1 => MoveKind::Lift,
        2 => MoveKind::Relocation,
        _ => MoveKind::Swap,
    };
    let promo = b[2] & 0x3f;
    Some(Move {
        from: Square(b[0]),
        to: Square(b[1]),
        kind,
        promotion: if promo == 0 {
            None
        } else {
            Some(PieceKind(promo - 1))
        },
    })
}

/// A game's moves as one blob.
pub fn encode_moves(moves: &[Move]) -> Vec<u8> {
    // Sized first and filled in place: three bytes copied as such, with no test of the
    // capacity and no call to copy them per move.
    let mut out = vec![0; moves.len() * MOVE_BYTES];
    for (bytes, &m) in out.chunks_exact_mut(MOVE_BYTES).zip(moves) {
        bytes.copy_from_slice(&encode_move(m));
    }
    out
}

/// The moves of a blob written by [`encode_moves`]; `None` if it is not one.
pub fn decode_moves(blob: &[u8]) -> Option<Vec<Move>> {
    if !blob.len().is_multiple_of(MOVE_BYTES) {
        return None;
    }
    blob.chunks_exact(MOVE_BYTES)
        .map(|c| decode_move([c[0], c[1], c[2]]))
        .collect()
}

/// A game's result: the rules crate's, stored as its text in `game.result` and as a two-bit
/// code in index entries.
pub use kabir_rules::GameResult;

/// The result in column `idx` of `row` (the text `game.result` holds); an error for any other
/// text, which no import stores.
pub(crate) fn result_column(row: &rusqlite::Row<'_>, idx: usize) -> rusqlite::Result<GameResult> {
    let text: String = row.get(idx)?;
    GameResult::from_ascii(text.as_bytes()).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            idx,
            rusqlite::types::Type::Text,
            format!("not a game result: {text:?}").into(),
        )
    })
}

/// The two-bit code of a result in an index entry's flags. The codes are part of the file
/// format: they never change.
fn result_code(result: GameResult) -> u8 {
    match result {
        GameResult::WhiteWins => 0,
        GameResult::Draw => 1,
        GameResult::BlackWins => 2,
        GameResult::Unknown => 3,
    }
}

/// The result of a two-bit code ([`result_code`]).
fn result_from_code(c: u8) -> GameResult {
    match c & 3 {
        0 => GameResult::WhiteWins,
        1 => GameResult::Draw,
        2 => GameResult::BlackWins,
        _ => GameResult::Unknown,
    }
}

/// One entry of the position index: a position (by hash) reached in a game at a ply, with the
/// move played from it and what the explorer needs to know about the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    pub hash: u64,
    pub game: u32,
    pub ply: u16,
    /// The move played from the position; `None` at the game's last position.
    pub mv: Option<Move>,
    pub result: GameResult,
    /// Whether the game began at its variant's start position (ply 0 then needs no replay to
    /// be verified).
    pub standard_start: bool,
    /// The game's length in plies.
    pub plies: u16,
}

/// Bytes per index entry.
pub const POSTING_BYTES: usize = 20;

/// What every index entry of one game holds about the game, ready to encode.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GameFields {
    game: [u8; 4],
    flags: u8,
    plies: [u8; 2],
}

impl GameFields {
    pub(crate) fn new(game: u32, result: GameResult, standard_start: bool, plies: u16) -> Self {
        GameFields {
            game: game.to_le_bytes(),
            flags: result_code(result) | u8::from(standard_start) << 2,
            plies: plies.to_le_bytes(),
        }
    }

    /// The entry of the game's position `hash` at `ply`, with the encoded move played from it
    /// (see [`Posting::write`]).
    #[inline]
    pub(crate) fn entry(&self, hash: u64, ply: u16, mv: [u8; 3]) -> [u8; POSTING_BYTES] {
        let mut b = [0u8; POSTING_BYTES];
        b[0..8].copy_from_slice(&hash.to_le_bytes());
        b[8..12].copy_from_slice(&self.game);
        b[12..14].copy_from_slice(&ply.to_le_bytes());
        b[14..17].copy_from_slice(&mv);
        b[17] = self.flags;
        b[18..20].copy_from_slice(&self.plies);
        b
    }
}

/// The encoded move `ply` of an encoded move list (see [`encode_moves`]), or the mark of no
/// move after the last.
#[inline]
pub(crate) fn move_at(moves_blob: &[u8], ply: u16) -> [u8; MOVE_BYTES] {
    let at = ply as usize * MOVE_BYTES;
    match moves_blob.get(at..at + MOVE_BYTES) {
        Some(&[a, b, c]) => [a, b, c],
        _ => NO_MOVE,
    }
}

impl Posting {
    /// The sort key inside a segment.
    #[inline]
    pub fn key(&self) -> (u64, u32, u16) {
        (self.hash, self.game, self.ply)
    }

    /// Layout (little-endian): hash u64, game u32, ply u16, move (3 bytes), flags u8 (result in
    /// bits 0-1, standard start in bit 2), game length u16.
    pub fn write(&self, out: &mut Vec<u8>) {
        let game = GameFields::new(self.game, self.result, self.standard_start, self.plies);
        out.extend_from_slice(&game.entry(
            self.hash,
            self.ply,
            self.mv.map_or(NO_MOVE, encode_move),
        ));
    }

    /// Reads entry `i` of a segment blob.
    pub fn read(blob: &[u8], i: usize) -> Option<Posting> {
        let b = blob.get(i * POSTING_BYTES..(i + 1) * POSTING_BYTES)?;
        let u16_at = |at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
        Some(Posting {
            hash: u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            game: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
            ply: u16_at(12),
            mv: decode_move([b[14], b[15], b[16]]),
            result: result_from_code(b[17]),
            standard_start: b[17] & 4 != 0,
            plies: u16_at(18),
        })
    }

    /// The hash of entry `i` of a segment blob (for binary search).
    fn hash_at(blob: &[u8], i: usize) -> u64 {
        blob.get(i * POSTING_BYTES..i * POSTING_BYTES + 8)
            .map_or(u64::MAX, |b| {
                u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            })
    }
}

/// Number of entries in a segment blob.
pub fn posting_count(blob: &[u8]) -> usize {
    blob.len() / POSTING_BYTES
}

/// The entries of a segment blob, in its order.
pub fn postings(blob: &[u8]) -> impl Iterator<Item = Posting> + '_ {
    (0..posting_count(blob)).filter_map(|i| Posting::read(blob, i))
}

/// The entries of a sorted segment blob whose hash is `hash`.
pub fn postings_with_hash(blob: &[u8], hash: u64) -> impl Iterator<Item = Posting> + '_ {
    let n = posting_count(blob);
    // First entry with a hash not below `hash`.
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if Posting::hash_at(blob, mid) < hash {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (lo..n).map_while(move |i| Posting::read(blob, i).filter(|p| p.hash == hash))
}

/// The sort key (hash, game, ply) of an encoded entry, as one number that orders alike.
#[inline]
fn raw_key(e: &[u8]) -> u128 {
    let mut k = [0u8; 16];
    k[..14].copy_from_slice(&e[..14]);
    let k = u128::from_le_bytes(k);
    // Little-endian fields: the hash in the low 64 bits, then game and ply; reordered so that
    // the hash is the most significant, the ply the least.
    ((k as u64 as u128) << 48) | ((k >> 64) as u32 as u128) << 16 | (k >> 96) as u16 as u128
}

/// Appends the entries of `blobs` (each in (hash, game, ply) order) to `out` in that order,
/// copying their bytes as they are; returns how many. A segment merge takes this rather than
/// decoding, sorting and encoding again. A blob found out of order (damaged) leaves the
/// result sorted all the same; entries with equal keys keep the order of their blobs.
///
/// Hashes are uniform, so rather than merging (a heap of the blobs' next entries, whose
/// comparisons the processor cannot predict), the entries are counted into about as many
/// ranges of hash as there are entries, put in place range by range, and each range's few
/// entries sorted.
pub(crate) fn merge_entries(blobs: &[&[u8]], out: &mut Vec<u8>) -> u64 {
    let start = out.len();
    let total: usize = blobs.iter().map(|b| b.len() / POSTING_BYTES).sum();
    let entries = || blobs.iter().flat_map(|b| b.chunks_exact(POSTING_BYTES));
    let hash = |e: &[u8]| u64::from_le_bytes(e[..8].try_into().unwrap_or([0; 8]));
    let (low, high) = entries().fold((u64::MAX, 0), |(lo, hi), e| {
        let h = hash(e);
        (lo.min(h), hi.max(h))
    });
    // The ranges: `bits` bits of the hash from the highest one in which the entries' hashes
    // differ down, so that every hash of a range is below every hash of the next.
    let differ = 64 - (low ^ high).leading_zeros();
    let bits = (usize::BITS - total.leading_zeros())
        .clamp(1, RANGE_BITS)
        .min(differ.max(1));
    let shift = differ.saturating_sub(bits);
    let range = |e: &[u8]| ((hash(e) >> shift) as usize) & ((1 << bits) - 1);
    let mut next = vec![0u32; (1 << bits) + 1];
    for e in entries() {
        next[range(e) + 1] += 1;
    }
    for r in 1..next.len() {
        next[r] += next[r - 1];
    }
    // Where each range begins, kept for the sorting below; `next` moves on as entries land.
    let begins = next.clone();
    out.resize(start + total * POSTING_BYTES, 0);
    let placed = &mut out[start..];
    for e in entries() {
        let slot = &mut next[range(e)];
        let at = *slot as usize * POSTING_BYTES;
        placed[at..at + POSTING_BYTES].copy_from_slice(e);
        *slot += 1;
    }
    for w in begins.windows(2) {
        let (from, to) = (w[0] as usize, w[1] as usize);
        if to - from > 1 {
            sort_entries(&mut placed[from * POSTING_BYTES..to * POSTING_BYTES]);
        }
    }
    total as u64
}

/// Ranges of hash at most for [`merge_entries`]: 65,536, whose counts stay in a fast cache.
const RANGE_BITS: u32 = 16;

/// Sorts encoded entries by key, keeping the order of equal keys: by insertion for a few
/// (most ranges of [`merge_entries`] hold one to three), else through a list (a position many
/// games reach, such as the start, puts them all in one range).
fn sort_entries(entries: &mut [u8]) {
    let n = entries.len() / POSTING_BYTES;
    if n <= 16 {
        for i in 1..n {
            let mut j = i;
            while j > 0
                && raw_key(&entries[j * POSTING_BYTES..])
                    < raw_key(&entries[(j - 1) * POSTING_BYTES..])
            {
                let (a, b) = entries.split_at_mut(j * POSTING_BYTES);
                a[(j - 1) * POSTING_BYTES..].swap_with_slice(&mut b[..POSTING_BYTES]);
                j -= 1;
            }
        }
        return;
    }
    let mut list: Vec<[u8; POSTING_BYTES]> = entries
        .chunks_exact(POSTING_BYTES)
        .map(|c| c.try_into().unwrap_or([0; POSTING_BYTES]))
        .collect();
    list.sort_by_key(|e| raw_key(e));
    for (to, e) in entries.chunks_exact_mut(POSTING_BYTES).zip(&list) {
        to.copy_from_slice(e);
    }
}

/// A stable 64-bit hash of bytes (FNV-1a followed by the SplitMix64 finaliser). Stored in the
/// database, so it must never change.
pub struct ContentHasher(u64);

impl Default for ContentHasher {
    fn default() -> Self {
        ContentHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl ContentHasher {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Writes a length-prefixed field, so that field boundaries are part of the hash.
    pub fn field(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_le_bytes());
        self.write(bytes);
    }

    pub fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A u64 hash as an SQLite INTEGER (the same 64 bits).
#[inline]
pub fn to_sql(h: u64) -> i64 {
    h as i64
}

/// An SQLite INTEGER back to the u64 hash.
#[inline]
pub fn from_sql(h: i64) -> u64 {
    h as u64
}

/// The error for derived data that cannot be read: SQLite's own for a damaged file, so that
/// it is reported as one.
pub(crate) fn damaged(what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(what.to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_round_trip() {
        for kind in [
            MoveKind::Normal,
            MoveKind::Lift,
            MoveKind::Relocation,
            MoveKind::Swap,
        ] {
            for promotion in [None, Some(PieceKind(0)), Some(PieceKind(31))] {
                let m = Move {
                    from: Square(127),
                    to: Square(3),
                    kind,
                    promotion,
                };
                assert_eq!(decode_move(encode_move(m)), Some(m));
            }
        }
        assert_eq!(decode_moves(&[1, 2]), None);
    }

    #[test]
    fn postings_round_trip_and_search() {
        let mut blob = Vec::new();
        let mut all = Vec::new();
        for (i, hash) in [3u64, 5, 5, 5, 9, u64::MAX].into_iter().enumerate() {
            let p = Posting {
                hash,
                game: i as u32 + 1,
                ply: i as u16,
                mv: if i % 2 == 0 {
                    None
                } else {
                    Some(Move::normal(Square(1), Square(2)))
                },
                result: GameResult::Draw,
                standard_start: i == 1,
                plies: 400,
            };
            p.write(&mut blob);
            all.push(p);
        }
        assert_eq!(blob.len(), 6 * POSTING_BYTES);
        for (i, p) in all.iter().enumerate() {
            assert_eq!(Posting::read(&blob, i).as_ref(), Some(p));
        }
        assert_eq!(postings_with_hash(&blob, 5).count(), 3);
        assert_eq!(postings_with_hash(&blob, 4).count(), 0);
        assert_eq!(postings_with_hash(&blob, u64::MAX).count(), 1);
        assert_eq!(postings_with_hash(&blob[..7], 3).count(), 0);
    }

    /// Entries of a few sorted blobs merge into the order a sort of all of them gives, bytes
    /// unchanged, and a blob out of order still gives a sorted result.
    #[test]
    fn entry_blobs_merge_in_key_order() {
        let entry = |hash: u64, game: u32, ply: u16| Posting {
            hash,
            game,
            ply,
            mv: Some(Move::normal(Square(ply as u8), Square(9))),
            result: GameResult::WhiteWins,
            standard_start: game.is_multiple_of(2),
            plies: 77,
        };
        let lists = [
            vec![entry(1, 5, 0), entry(7, 5, 3), entry(u64::MAX, 6, 1)],
            vec![],
            vec![
                entry(1, 2, 9),
                entry(7, 5, 2),
                entry(7, 5, 4),
                entry(8, 1, 0),
            ],
            vec![entry(0, 300, 1), entry(1 << 63, 2, 0)],
        ];
        let blobs: Vec<Vec<u8>> = lists
            .iter()
            .map(|l| {
                let mut b = Vec::new();
                l.iter().for_each(|p| p.write(&mut b));
                b
            })
            .collect();
        let slices: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
        let mut out = vec![0xAA];
        assert_eq!(merge_entries(&slices, &mut out), 9);
        assert_eq!(out[0], 0xAA);
        let mut want: Vec<Posting> = lists.concat();
        want.sort_by_key(Posting::key);
        let got: Vec<Posting> = postings(&out[1..]).collect();
        assert_eq!(got, want);

        let mut reversed = Vec::new();
        lists[2].iter().rev().for_each(|p| p.write(&mut reversed));
        let mut out = Vec::new();
        assert_eq!(merge_entries(&[&reversed, &blobs[0]], &mut out), 7);
        let keys: Vec<_> = postings(&out).map(|p| p.key()).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{keys:?}");
    }

    /// Blobs of random entries, sorted each: some sharing a few hashes (as the positions all
    /// games reach do), some over all hashes or a narrow band of them, some empty, with equal
    /// keys across blobs; the merge is their concatenation sorted stably by key, byte for
    /// byte, and so is the merge of the same blobs unsorted.
    #[test]
    fn entry_blobs_merge_like_a_stable_sort() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for round in 0..200 {
            let sources = rng.random_range(0..10);
            let band: u64 = match round % 4 {
                0 => u64::MAX,
                1 => 1 << 54,
                2 => 3,
                _ => 1 << 20,
            };
            let base: u64 = rng.random();
            let mut blobs: Vec<Vec<u8>> = Vec::new();
            for _ in 0..sources {
                let n = rng.random_range(0..300);
                let mut list: Vec<[u8; POSTING_BYTES]> = (0..n)
                    .map(|_| {
                        let mut e = [0u8; POSTING_BYTES];
                        rng.fill(&mut e[..]);
                        let hash = base.wrapping_add(rng.random_range(0..=band.min(u64::MAX - 1)));
                        e[..8].copy_from_slice(&hash.to_le_bytes());
                        // Few games and plies, so that whole keys repeat too.
                        e[8..12].copy_from_slice(&rng.random_range(0..4u32).to_le_bytes());
                        e[12..14].copy_from_slice(&rng.random_range(0..3u16).to_le_bytes());
                        e
                    })
                    .collect();
                list.sort_by_key(|e| raw_key(e));
                blobs.push(list.concat());
            }
            let slices: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
            let mut want: Vec<[u8; POSTING_BYTES]> = blobs
                .iter()
                .flat_map(|b| b.chunks_exact(POSTING_BYTES))
                .map(|c| c.try_into().unwrap())
                .collect();
            want.sort_by_key(|e| raw_key(e));
            let mut out = vec![1, 2, 3];
            let n = merge_entries(&slices, &mut out);
            assert_eq!(n as usize, want.len(), "round {round}");
            assert_eq!(&out[..3], &[1, 2, 3]);
            assert_eq!(out[3..], want.concat(), "round {round}");

            // Out of order: sorted all the same.
            let shuffled: Vec<Vec<u8>> = blobs
                .iter()
                .map(|b| {
                    b.chunks_exact(POSTING_BYTES)
                        .rev()
                        .flatten()
                        .copied()
                        .collect()
                })
                .collect();
            let slices: Vec<&[u8]> = shuffled.iter().map(Vec::as_slice).collect();
            let mut out = Vec::new();
            merge_entries(&slices, &mut out);
            let keys: Vec<u128> = out.chunks_exact(POSTING_BYTES).map(raw_key).collect();
            assert!(keys.windows(2).all(|w| w[0] <= w[1]), "round {round}");
            assert_eq!(keys.len(), want.len());
        }
    }

    #[test]
    fn hashes_survive_sql() {
        for h in [0, 1, u64::MAX, 1 << 63] {
            assert_eq!(from_sql(to_sql(h)), h);
        }
    }
}
