//! The opening tree: for each position that games first reach before ply [`TREE_PLIES`] and
//! each move played from it there, the games that played it, their results, their total
//! length and the lowest of their ids. The explorer adds these up instead of reading every
//! game's index entry; what lies beyond the tree it finds in the position index (see
//! `docs/DATABASE.md`).
//!
//! A tree row is keyed by the position's Zobrist hash, a second 64-bit key of the position
//! ([`check_key`]) and the move, so that two positions with the same hash never share a row.
//! Each batch of games writes its rows with its index segment (table `tree`, one blob per
//! tree bucket); a query sums the rows of every segment.

use kabir_rules::check_key::KeyedPosition;
pub(crate) use kabir_rules::check_key::check_key;
use kabir_rules::{Move, Position};

use crate::storage::codec::{GameResult, MOVE_BYTES};
use crate::storage::merge::merge_sorted;
use crate::storage::schema::{TREE_EXAMPLES, TREE_PLIES};

/// A walk through a game's positions that keeps the position's check key and counts the
/// plies played.
struct Walk {
    keyed: KeyedPosition,
    /// The position stands before move `ply + 1`.
    ply: usize,
}

impl Walk {
    fn new(start: &Position, key: Option<u64>) -> Walk {
        Walk {
            keyed: KeyedPosition::new(start, key),
            ply: 0,
        }
    }

    fn key(&self) -> u64 {
        self.keyed.key()
    }

    fn play(&mut self, m: Move) {
        self.keyed.play(m);
        self.ply += 1;
    }
}

/// A game's first visit of a position before [`TREE_PLIES`]: what its tree row is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FirstVisit {
    pub hash: u64,
    pub check: u64,
    pub ply: u16,
}

/// What the tree takes from one game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GameTree {
    /// Its first visits of the positions it reached before [`TREE_PLIES`], in ply order.
    pub visits: Vec<FirstVisit>,
    /// The plies from [`TREE_PLIES`] on at which it stood in a position it had reached
    /// before [`TREE_PLIES`] (rare: a return), in order. Their index entries are kept with
    /// the tree's, since the tree counts the game for that position already.
    pub returns: Vec<u16>,
}

impl GameTree {
    /// Whether the index entry at `ply` belongs with the tree (its position is covered by
    /// the tree for this game) rather than in the position index proper.
    #[inline]
    pub fn covers(&self, ply: u16) -> bool {
        ply < TREE_PLIES || (!self.returns.is_empty() && self.returns.binary_search(&ply).is_ok())
    }
}

/// The tree's part of a game: `hashes` are the hashes of its positions (the start and after
/// each move), `moves` its moves from `start`, whose check key is `start_key` if known. The
/// first plies are played again to compute their check keys; later positions only when their
/// hash is one of the first plies' (a possible return), to tell a return from a hash
/// collision.
pub(crate) fn game_tree(
    start: &Position,
    start_key: Option<u64>,
    moves: &[Move],
    hashes: &[u64],
) -> GameTree {
    let shallow = hashes.len().min(TREE_PLIES as usize);
    let mut walk = Walk::new(start, start_key);
    let mut keys: Vec<(u64, u64)> = Vec::with_capacity(shallow);
    let mut out = GameTree {
        visits: Vec::with_capacity(shallow),
        returns: Vec::new(),
    };
    for (ply, &hash) in hashes.iter().enumerate().take(shallow) {
        if ply > 0 {
            let Some(&m) = moves.get(ply - 1) else { break };
            walk.play(m);
        }
        let key = (hash, walk.key());
        if !keys.contains(&key) {
            out.visits.push(FirstVisit {
                hash,
                check: key.1,
                ply: ply as u16,
            });
        }
        keys.push(key);
    }
    if hashes.len() <= shallow {
        return out;
    }
    // A filter of the first plies' hashes (8 bits of each): most later positions are told
    // apart by one test.
    let mut filter = [0u64; 4];
    for &(h, _) in &keys {
        filter[(h >> 62) as usize] |= 1 << ((h >> 56) & 63);
    }
    let later = hashes.get(shallow..).unwrap_or(&[]);
    for (i, &hash) in later.iter().enumerate() {
        if filter[(hash >> 62) as usize] & 1 << ((hash >> 56) & 63) == 0 {
            continue;
        }
        if !keys.iter().any(|k| k.0 == hash) {
            continue;
        }
        let ply = shallow + i;
        while walk.ply < ply {
            let Some(&m) = moves.get(walk.ply) else { break };
            walk.play(m);
        }
        if walk.ply == ply && keys.contains(&(hash, walk.key())) {
            out.returns.push(ply as u16);
        }
    }
    out
}

/// Writes `v` as LEB128.
#[inline]
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a LEB128 value at `*at`, moving past it; `None` if the bytes end first or it is too
/// long.
#[inline]
pub(crate) fn get_varint(blob: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *blob.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// One row of the tree: a position (by its two keys) and a move played from it (the no-move
/// mark for the games that ended there), with the games that played it at their first visit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TreeRow {
    pub hash: u64,
    pub check: u64,
    pub mv: [u8; MOVE_BYTES],
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// The sum of the games' lengths in plies.
    pub plies: u64,
    /// The lowest ids of the games, ascending: `min(games, TREE_EXAMPLES)` of them.
    pub examples: [u32; TREE_EXAMPLES],
}

impl TreeRow {
    /// A row of one game.
    pub fn of_game(
        hash: u64,
        check: u64,
        mv: [u8; MOVE_BYTES],
        game: u32,
        result: GameResult,
        plies: u16,
    ) -> TreeRow {
        let mut examples = [0; TREE_EXAMPLES];
        examples[0] = game;
        TreeRow {
            hash,
            check,
            mv,
            games: 1,
            white: u64::from(result == GameResult::WhiteWins),
            draws: u64::from(result == GameResult::Draw),
            black: u64::from(result == GameResult::BlackWins),
            plies: u64::from(plies),
            examples,
        }
    }

    /// Adds a game with a higher id than the row's.
    #[inline]
    pub fn push_game(&mut self, game: u32, result: GameResult, plies: u16) {
        if let Some(slot) = usize::try_from(self.games)
            .ok()
            .and_then(|n| self.examples.get_mut(n))
        {
            *slot = game;
        }
        self.games += 1;
        match result {
            GameResult::WhiteWins => self.white += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::BlackWins => self.black += 1,
            GameResult::Unknown => {}
        }
        self.plies += u64::from(plies);
    }

    /// The sort key of rows in a blob.
    #[inline]
    pub fn key(&self) -> (u64, u64, [u8; MOVE_BYTES]) {
        (self.hash, self.check, self.mv)
    }

    pub fn unfinished(&self) -> u64 {
        self.games
            .saturating_sub(self.white + self.draws + self.black)
    }

    /// The examples kept.
    pub fn examples(&self) -> &[u32] {
        let n = usize::try_from(self.games).map_or(TREE_EXAMPLES, |g| g.min(TREE_EXAMPLES));
        &self.examples[..n]
    }

    /// Adds the games of another row with the same key (of other games).
    pub fn add(&mut self, o: &TreeRow) {
        let mut merged = [0u32; TREE_EXAMPLES];
        let (a, b) = (self.examples(), o.examples());
        let (mut i, mut j) = (0, 0);
        for slot in merged
            .iter_mut()
            .take((a.len() + b.len()).min(TREE_EXAMPLES))
        {
            let take_a = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => x <= y,
                (Some(_), None) => true,
                _ => false,
            };
            if take_a {
                *slot = a[i];
                i += 1;
            } else {
                *slot = b[j];
                j += 1;
            }
        }
        self.examples = merged;
        self.games += o.games;
        self.white += o.white;
        self.draws += o.draws;
        self.black += o.black;
        self.plies += o.plies;
    }

    /// Layout: hash (u64 LE), check key (u64 LE), move (3 bytes), then LEB128 values: games,
    /// white wins, draws, black wins, the sum of lengths, and the examples (the first, then
    /// each one's distance from the one before).
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.hash.to_le_bytes());
        out.extend_from_slice(&self.check.to_le_bytes());
        out.extend_from_slice(&self.mv);
        for v in [self.games, self.white, self.draws, self.black, self.plies] {
            put_varint(out, v);
        }
        let mut last = 0u32;
        for &id in self.examples() {
            put_varint(out, u64::from(id - last));
            last = id;
        }
    }
}

/// Reads the rows of a tree blob in order. A blob that does not decode ends the rows early
/// and sets `damaged`.
pub(crate) struct Rows<'a> {
    blob: &'a [u8],
    at: usize,
    pub damaged: bool,
}

impl<'a> Rows<'a> {
    pub fn new(blob: &'a [u8]) -> Rows<'a> {
        Rows {
            blob,
            at: 0,
            damaged: false,
        }
    }

    /// Moves past the rows of hashes below `hash`, reading of each only its hash and the
    /// lengths of its numbers: a lookup passes most rows of a blob, and decoding them whole
    /// was most of its time. A row cut short sets `damaged`; the counts of rows passed are
    /// not checked, since nothing is read from them.
    pub fn skip_below(&mut self, hash: u64) {
        while let Some(head) = self.blob.get(self.at..self.at + 19) {
            let Some(key) = head.first_chunk::<8>() else {
                break;
            };
            if u64::from_le_bytes(*key) >= hash {
                return;
            }
            let mut at = self.at + 19;
            let Some(games) = get_varint(self.blob, &mut at) else {
                break;
            };
            // Four more counts, then an example for each game up to TREE_EXAMPLES.
            let mut numbers =
                4 + usize::try_from(games).map_or(TREE_EXAMPLES, |g| g.min(TREE_EXAMPLES));
            while numbers > 0 {
                let Some(&b) = self.blob.get(at) else {
                    break;
                };
                at += 1;
                numbers -= usize::from(b < 0x80);
            }
            if numbers > 0 {
                break;
            }
            self.at = at;
        }
        if self.at < self.blob.len() {
            self.damaged = true;
            self.at = self.blob.len();
        }
    }

    fn read(&mut self) -> Option<TreeRow> {
        let b = self.blob.get(self.at..self.at + 19)?;
        let hash = u64::from_le_bytes(b[0..8].try_into().ok()?);
        let check = u64::from_le_bytes(b[8..16].try_into().ok()?);
        let mv = [b[16], b[17], b[18]];
        self.at += 19;
        let mut v = [0u64; 5];
        for x in &mut v {
            *x = get_varint(self.blob, &mut self.at)?;
        }
        let [games, white, draws, black, plies] = v;
        if white.checked_add(draws)?.checked_add(black)? > games {
            return None;
        }
        let mut examples = [0u32; TREE_EXAMPLES];
        let mut last = 0u32;
        let n = usize::try_from(games).map_or(TREE_EXAMPLES, |g| g.min(TREE_EXAMPLES));
        for slot in examples.iter_mut().take(n) {
            last = last.checked_add(u32::try_from(get_varint(self.blob, &mut self.at)?).ok()?)?;
            *slot = last;
        }
        Some(TreeRow {
            hash,
            check,
            mv,
            games,
            white,
            draws,
            black,
            plies,
            examples,
        })
    }
}

impl Iterator for Rows<'_> {
    type Item = TreeRow;

    fn next(&mut self) -> Option<TreeRow> {
        if self.at >= self.blob.len() {
            return None;
        }
        let row = self.read();
        if row.is_none() {
            self.damaged = true;
            self.at = self.blob.len();
        }
        row
    }
}

/// The rows of several tree blobs (each sorted by key, of other games each) merged into one
/// blob in key order, rows with the same key added up; `None` if a blob does not decode.
pub(crate) fn merge_blobs(blobs: &[Vec<u8>], out: &mut Vec<u8>) -> Option<()> {
    let mut lists: Vec<Rows<'_>> = blobs.iter().map(|b| Rows::new(b)).collect();
    merge_sorted(&mut lists, TreeRow::key, TreeRow::add, |r| r.write(out));
    if lists.iter().any(|l| l.damaged) {
        return None;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_add_up() {
        let mut a = TreeRow::of_game(5, 6, [1, 2, 3], 40, GameResult::Draw, 100);
        let ids = [3, 90, 7, 12, 1000, 2, 41, 43, 44, 45, 46, 47, 48, 2000];
        for id in ids {
            a.add(&TreeRow::of_game(
                5,
                6,
                [1, 2, 3],
                id,
                GameResult::WhiteWins,
                10,
            ));
        }
        assert_eq!(a.games, 15);
        assert_eq!((a.white, a.draws, a.black, a.unfinished()), (14, 1, 0, 0));
        assert_eq!(a.plies, 240);
        // The lowest ids are kept, however they came.
        let mut lowest: Vec<u32> = ids.iter().copied().chain([40]).collect();
        lowest.sort_unstable();
        lowest.truncate(TREE_EXAMPLES);
        assert_eq!(a.examples().len(), TREE_EXAMPLES);
        assert_eq!(a.examples(), &lowest[..]);
        let b = TreeRow::of_game(u64::MAX, 0, [0xff; 3], u32::MAX, GameResult::Unknown, 0);
        let mut blob = Vec::new();
        a.write(&mut blob);
        b.write(&mut blob);
        let back: Vec<TreeRow> = Rows::new(&blob).collect();
        assert_eq!(back, vec![a, b]);
        let mut rows = Rows::new(&blob[..blob.len() - 1]);
        assert_eq!(rows.next(), Some(a));
        assert_eq!(rows.next(), None);
        assert!(rows.damaged);
    }

    /// Skipping lands on the first row of the hash asked for, whatever the rows before hold
    /// (large counts, many examples), as decoding them one by one would.
    #[test]
    fn skipping_lands_where_decoding_would() {
        let mut rows = Vec::new();
        for h in [1u64, 1, 4, 700, 700, 1 << 40, u64::MAX] {
            let mut r = TreeRow::of_game(
                h,
                h ^ 5,
                [h as u8, 0, 1],
                300 + h as u32,
                GameResult::Draw,
                400,
            );
            for id in 0..(h % 23) as u32 {
                r.add(&TreeRow::of_game(
                    h,
                    h ^ 5,
                    [h as u8, 0, 1],
                    id * 977,
                    GameResult::WhiteWins,
                    60_000,
                ));
            }
            rows.push(r);
        }
        let mut blob = Vec::new();
        for r in &rows {
            r.write(&mut blob);
        }
        for target in [0, 1, 2, 4, 5, 700, 701, 1 << 40, u64::MAX] {
            let mut skipped = Rows::new(&blob);
            skipped.skip_below(target);
            let expected: Vec<TreeRow> =
                rows.iter().filter(|r| r.hash >= target).copied().collect();
            assert_eq!(
                skipped.by_ref().collect::<Vec<_>>(),
                expected,
                "hash {target}"
            );
            assert!(!skipped.damaged);
        }
        // A row cut short is damage, found while skipping.
        let mut last = Vec::new();
        rows[rows.len() - 1].write(&mut last);
        for cut in [1, 5, 30] {
            let mut short = Rows::new(&blob[..blob.len() - last.len() - cut]);
            short.skip_below(u64::MAX);
            assert!(short.damaged, "cut {cut}");
            assert_eq!(short.next(), None);
        }
    }

    #[test]
    fn merged_rows_are_sorted_and_summed() {
        let r = |h, id| TreeRow::of_game(h, 1, [0; 3], id, GameResult::BlackWins, 3);
        let blob = |rows: &[TreeRow]| {
            let mut out = Vec::new();
            for row in rows {
                row.write(&mut out);
            }
            out
        };
        let mut out = Vec::new();
        merge_blobs(
            &[blob(&[r(2, 4), r(9, 1)]), blob(&[r(2, 3), r(9, 2)])],
            &mut out,
        )
        .unwrap();
        let merged: Vec<TreeRow> = Rows::new(&out).collect();
        assert_eq!(merged.len(), 2);
        assert_eq!((merged[0].hash, merged[0].games), (2, 2));
        assert_eq!(merged[0].examples(), &[3, 4]);
        assert_eq!(merged[1].examples(), &[1, 2]);
    }

    #[test]
    fn first_visits_and_returns() {
        let v = kabir_rules::variants::builtin("shatranj").unwrap();
        let mut game = kabir_rules::Game::new(Position::start(&v));
        // Knights out and back twice: the start position again at plies 4 and 8, then more
        // moves; and out and back once more past the tree's plies.
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let mut line: Vec<&str> = Vec::new();
        for _ in 0..2 {
            line.extend(shuffle);
        }
        line.extend(["b1c3", "b8c6", "c3b1", "c6b8"]);
        line.extend(shuffle);
        line.extend(shuffle);
        for uci in &line {
            let m = Move::from_uci(uci, game.position()).unwrap();
            game.play(m).unwrap();
        }
        let hashes: Vec<u64> = game.hashes().collect();
        let t = game_tree(game.start(), None, game.moves(), &hashes);
        let key = check_key(game.start());
        assert_eq!(game_tree(game.start(), Some(key), game.moves(), &hashes), t);
        // Plies 0-3 are new; 4 is the start again; 5-7 repeat 1-3; 8 is the start.
        let plies: Vec<u16> = t.visits.iter().map(|v| v.ply).collect();
        assert_eq!(plies, vec![0, 1, 2, 3, 9, 10, 11]);
        const { assert!(TREE_PLIES == 16) };
        assert_eq!(t.returns, vec![16, 17, 18, 19, 20]);
        assert!(t.covers(3) && t.covers(20) && !t.covers(21));
    }
}
