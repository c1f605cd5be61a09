//! Tallies: derived data kept as sorted blobs, one set per imported batch, merged in tiers like
//! the position index (every level, since they are small): the games of each name (the name
//! index) and the counts of each opening (for statistics). A query reads the blobs of every
//! tally of its kind and adds them up (the openings' tallies are the recent ones, consolidated
//! now and then: see `openings`). See `docs/DATABASE.md`.

use rusqlite::{Connection, Transaction, params};

use crate::derived::tree::{get_varint, put_varint};
use crate::storage::codec::{MOVE_BYTES, damaged};
use crate::storage::merge::{self, Run, Tiered, merge_sorted};
use crate::storage::schema::OPENING_PLIES;

/// A kind of tally (the `tally.kind` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The games of each name: part `field << 8 | bucket` (see `name_index`).
    Names = 1,
    /// The games of each opening: part = the variant's id.
    Openings = 2,
}

/// The statements that empty the tallies of every kind, which the parts that keep tallies
/// (the name index and the openings) share.
pub(crate) const CLEAR: &str = "DELETE FROM tally_part; DELETE FROM tally;";

/// Stores a batch's tally: its parts, each a blob of rows.
pub(crate) fn insert(
    tx: &Transaction<'_>,
    kind: Kind,
    games: u64,
    parts: &[(i64, Vec<u8>)],
) -> rusqlite::Result<()> {
    if parts.is_empty() {
        return Ok(());
    }
    tx.prepare_cached("INSERT INTO tally (kind, level, games) VALUES (?1, 0, ?2)")?
        .execute(params![kind as i64, games as i64])?;
    let id = tx.last_insert_rowid();
    let mut stmt =
        tx.prepare_cached("INSERT INTO tally_part (tally, part, rows) VALUES (?1, ?2, ?3)")?;
    for (part, rows) in parts {
        if !rows.is_empty() {
            stmt.execute(params![id, part, rows])?;
        }
    }
    Ok(())
}

/// The blobs of `part` in every tally of `kind`.
pub(crate) fn part(conn: &Connection, kind: Kind, part: i64) -> rusqlite::Result<Vec<Vec<u8>>> {
    conn.prepare_cached(
        "SELECT p.rows FROM tally t JOIN tally_part p ON p.tally = t.id
         WHERE t.kind = ?1 AND p.part = ?2",
    )?
    .query_map(params![kind as i64, part], |r| r.get(0))?
    .collect()
}

/// Every part of every tally of `kind`: (part, blob).
pub(crate) fn all(conn: &Connection, kind: Kind) -> rusqlite::Result<Vec<(i64, Vec<u8>)>> {
    conn.prepare_cached(
        "SELECT p.part, p.rows FROM tally t JOIN tally_part p ON p.tally = t.id
         WHERE t.kind = ?1",
    )?
    .query_map(params![kind as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
    .collect()
}

/// The tallies of one kind are kept in tiers, every level merged (they are small).
impl Tiered for Kind {
    const TABLE: &'static str = "tally";
    const OWNER: &'static str = "kind";
    const FANOUT: i64 = 8;

    fn owner(&self) -> i64 {
        *self as i64
    }

    fn merge(&self, tx: &Transaction<'_>, level: i64, runs: &[Run]) -> rusqlite::Result<()> {
        merge(tx, *self, level, runs)
    }

    /// Openings: a consolidation that is due.
    fn settle_step(&self, tx: &Transaction<'_>) -> rusqlite::Result<bool> {
        match self {
            Kind::Openings => crate::derived::openings::consolidate_step(tx),
            Kind::Names => Ok(false),
        }
    }
}

/// Merges every tally of `kind` into one (openings: into the consolidated ones).
pub(crate) fn merge_all(tx: &Transaction<'_>, kind: Kind) -> rusqlite::Result<()> {
    match kind {
        Kind::Openings => crate::derived::openings::consolidate_all(tx),
        Kind::Names => merge::merge_all(tx, &kind),
    }
}

/// Replaces the tallies `runs` by one of `level`, part by part.
fn merge(tx: &Transaction<'_>, kind: Kind, level: i64, runs: &[Run]) -> rusqlite::Result<()> {
    let ids: Vec<i64> = runs.iter().map(|r| r.id).collect();
    let placeholders = vec!["?"; ids.len()].join(",");
    let games: i64 = runs.iter().map(|r| r.games).sum();
    let mut parts: std::collections::BTreeMap<i64, Vec<Vec<u8>>> = Default::default();
    {
        let mut stmt = tx.prepare(&format!(
            "SELECT part, rows FROM tally_part WHERE tally IN ({placeholders}) ORDER BY tally"
        ))?;
        let mut rows = stmt.query(rusqlite::params_from_iter(&ids))?;
        while let Some(r) = rows.next()? {
            parts.entry(r.get(0)?).or_default().push(r.get(1)?);
        }
    }
    tx.execute(
        &format!("DELETE FROM tally_part WHERE tally IN ({placeholders})"),
        rusqlite::params_from_iter(&ids),
    )?;
    tx.execute(
        &format!("DELETE FROM tally WHERE id IN ({placeholders})"),
        rusqlite::params_from_iter(&ids),
    )?;
    tx.prepare_cached("INSERT INTO tally (kind, level, games) VALUES (?1, ?2, ?3)")?
        .execute(params![kind as i64, level, games])?;
    let id = tx.last_insert_rowid();
    let mut insert =
        tx.prepare_cached("INSERT INTO tally_part (tally, part, rows) VALUES (?1, ?2, ?3)")?;
    for (part, blobs) in parts {
        let merged = match kind {
            Kind::Names => merge_names(&blobs),
            Kind::Openings => merge_openings(&blobs),
        }
        .ok_or_else(|| damaged("a tally does not decode"))?;
        insert.execute(params![id, part, merged])?;
    }
    Ok(())
}

/// At the end of an import: consolidates the openings that it left enough of (see
/// `openings`), in a transaction of its own.
pub(crate) fn settle(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    crate::derived::openings::settle(&tx)?;
    tx.commit()
}

/// A name's games in a names blob: rows sorted by name id, each the id's distance from the
/// row before (LEB128), the number of games, and the game ids (the first, then distances).
pub(crate) fn encode_names<'a>(
    rows: impl IntoIterator<Item = (u64, &'a [u32])>,
    out: &mut Vec<u8>,
) {
    let mut last_name = 0u64;
    for (name, games) in rows {
        put_varint(out, name - last_name);
        last_name = name;
        put_varint(out, games.len() as u64);
        let mut last = 0u32;
        for &g in games {
            put_varint(out, u64::from(g - last));
            last = g;
        }
    }
}

/// The rows of a names blob; `None` if it does not decode.
pub(crate) fn decode_names(blob: &[u8]) -> Option<Vec<(u64, Vec<u32>)>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut name = 0u64;
    while at < blob.len() {
        name = name.checked_add(get_varint(blob, &mut at)?)?;
        let n = usize::try_from(get_varint(blob, &mut at)?).ok()?;
        let mut games = Vec::with_capacity(n.min(blob.len()));
        let mut last = 0u32;
        for _ in 0..n {
            last = last.checked_add(u32::try_from(get_varint(blob, &mut at)?).ok()?)?;
            games.push(last);
        }
        out.push((name, games));
    }
    Some(out)
}

/// The games of the names `wanted` (ascending) in a names blob, added to `out`; `None` if the
/// blob does not decode. Rows of other names are skipped without being collected.
pub(crate) fn games_of_names(blob: &[u8], wanted: &[u64], out: &mut Vec<u32>) -> Option<()> {
    let mut at = 0;
    let mut name = 0u64;
    let mut w = 0;
    while at < blob.len() && w < wanted.len() {
        name = name.checked_add(get_varint(blob, &mut at)?)?;
        let n = get_varint(blob, &mut at)?;
        while wanted.get(w).is_some_and(|&x| x < name) {
            w += 1;
        }
        if wanted.get(w) != Some(&name) {
            at = skip_varints(blob, at, n)?;
            continue;
        }
        let mut last = 0u32;
        for _ in 0..n {
            let d = get_varint(blob, &mut at)?;
            last = last.checked_add(u32::try_from(d).ok()?)?;
            out.push(last);
        }
    }
    Some(())
}

/// The position after `n` varints from `at`. A name's games are passed over eight bytes at a
/// time, counting the bytes that end a varint: a search for a few letters matches a few
/// names of a part and passes over the games of all the others.
fn skip_varints(blob: &[u8], mut at: usize, mut n: u64) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while n > 0 {
        let Some(chunk) = blob.get(at..at + 8) else {
            break;
        };
        let word = u64::from_le_bytes(chunk.try_into().ok()?);
        let ends = u64::from((!word & HIGH).count_ones());
        // The n-th varint ends in this word: the bytes after its end are not to be passed.
        if ends >= n {
            break;
        }
        at += 8;
        n -= ends;
    }
    while n > 0 {
        let b = *blob.get(at)?;
        at += 1;
        if b < 0x80 {
            n -= 1;
        }
    }
    Some(at)
}

fn merge_names(blobs: &[Vec<u8>]) -> Option<Vec<u8>> {
    let mut all: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
    for b in blobs {
        for (name, games) in decode_names(b)? {
            all.entry(name).or_default().extend(games);
        }
    }
    for games in all.values_mut() {
        games.sort_unstable();
    }
    let mut out = Vec::new();
    encode_names(all.iter().map(|(&n, g)| (n, g.as_slice())), &mut out);
    Some(out)
}

/// The most bytes of an opening line (the summaries keep [`OPENING_PLIES`] plies).
pub(crate) const LINE_BYTES: usize = OPENING_PLIES * MOVE_BYTES;

/// The games that began with one line (or were that line, when shorter), and their results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct OpeningRow {
    line: [u8; LINE_BYTES],
    len: u8,
    pub games: u64,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// The sum of the games' lengths.
    pub plies: u64,
}

impl OpeningRow {
    /// A row of no games for `line` (at most [`LINE_BYTES`] of it).
    pub fn new(line: &[u8]) -> OpeningRow {
        let n = line.len().min(LINE_BYTES);
        let mut row = OpeningRow {
            len: n as u8,
            ..OpeningRow::default()
        };
        row.line[..n].copy_from_slice(&line[..n]);
        row
    }

    /// Keeps only the first `bytes` of the line.
    pub fn truncate(&mut self, bytes: usize) {
        let n = usize::from(self.len).min(bytes);
        self.line[n..].fill(0);
        self.len = n as u8;
    }

    /// The moves (3 bytes each).
    pub fn line(&self) -> &[u8] {
        &self.line[..usize::from(self.len).min(LINE_BYTES)]
    }

    pub fn add(&mut self, o: &OpeningRow) {
        self.games += o.games;
        self.white += o.white;
        self.draws += o.draws;
        self.black += o.black;
        self.plies += o.plies;
    }

    /// Layout: the line's length in bytes (one byte), the line, then LEB128 values: games,
    /// white wins, draws, black wins, the sum of lengths.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.len);
        out.extend_from_slice(self.line());
        for v in [self.games, self.white, self.draws, self.black, self.plies] {
            put_varint(out, v);
        }
    }
}

/// Reads the rows of an openings blob in order; a blob that does not decode ends early and
/// sets `damaged`.
pub(crate) struct Openings<'a> {
    blob: &'a [u8],
    at: usize,
    pub damaged: bool,
}

impl<'a> Openings<'a> {
    pub fn new(blob: &'a [u8]) -> Openings<'a> {
        Openings {
            blob,
            at: 0,
            damaged: false,
        }
    }

    fn read(&mut self) -> Option<OpeningRow> {
        let n = *self.blob.get(self.at)? as usize;
        if n > LINE_BYTES {
            return None;
        }
        let mut row = OpeningRow::new(self.blob.get(self.at + 1..self.at + 1 + n)?);
        self.at += 1 + n;
        let mut v = [0u64; 5];
        for x in &mut v {
            *x = get_varint(self.blob, &mut self.at)?;
        }
        [row.games, row.white, row.draws, row.black, row.plies] = v;
        Some(row)
    }
}

impl Iterator for Openings<'_> {
    type Item = OpeningRow;

    fn next(&mut self) -> Option<OpeningRow> {
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

/// The rows of several blobs (each sorted by line) merged in line order, equal lines added
/// up, given to `each`; `None` if a blob does not decode.
pub(crate) fn merge_openings_with(
    blobs: &[&[u8]],
    mut each: impl FnMut(&OpeningRow),
) -> Option<()> {
    let mut lists: Vec<Openings<'_>> = blobs.iter().map(|b| Openings::new(b)).collect();
    // The bytes past a line's length are zero: (line, length) orders and equals as the line.
    merge_sorted(
        &mut lists,
        |r| (r.line, r.len),
        OpeningRow::add,
        |r| each(&r),
    );
    if lists.iter().any(|l| l.damaged) {
        return None;
    }
    Some(())
}

fn merge_openings(blobs: &[Vec<u8>]) -> Option<Vec<u8>> {
    let blobs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
    let mut out = Vec::new();
    merge_openings_with(&blobs, |r| r.write(&mut out))?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    proptest! {
        /// Passing over varints a word at a time lands where decoding them one by one does,
        /// and finds a cut one short.
        #[test]
        fn skipping_varints_is_decoding_them(
            values in proptest::collection::vec(any::<u64>().prop_map(|v| v >> (v % 64)), 0..40),
            tail in proptest::collection::vec(0u8..0x80, 0..12),
            cut in any::<bool>(),
            n in 0u64..60,
        ) {
            let mut blob = Vec::new();
            for &v in &values {
                put_varint(&mut blob, v);
            }
            blob.extend_from_slice(&tail);
            if cut {
                blob.push(0x80);
            }
            let mut at = 0;
            let mut want = Some(0);
            for _ in 0..n {
                if get_varint(&blob, &mut at).is_none() {
                    want = None;
                    break;
                }
                want = Some(at);
            }
            prop_assert_eq!(skip_varints(&blob, 0, n), want);
        }
    }

    #[test]
    fn names_round_trip_and_select() {
        let rows: Vec<(u64, Vec<u32>)> = vec![(3, vec![1, 5, 9]), (70, vec![2]), (71, vec![])];
        let mut blob = Vec::new();
        encode_names(rows.iter().map(|(n, g)| (*n, g.as_slice())), &mut blob);
        assert_eq!(decode_names(&blob), Some(rows));
        let mut out = Vec::new();
        games_of_names(&blob, &[3, 70], &mut out).unwrap();
        assert_eq!(out, vec![1, 5, 9, 2]);
        out.clear();
        games_of_names(&blob, &[4, 70, 100], &mut out).unwrap();
        assert_eq!(out, vec![2]);
        assert!(decode_names(&blob[..blob.len() - 1]).is_none() || blob.len() == 1);
        let merged = merge_names(&[blob.clone(), {
            let mut b = Vec::new();
            encode_names([(3u64, &[4u32, 20][..]), (5, &[6][..])], &mut b);
            b
        }])
        .unwrap();
        assert_eq!(
            decode_names(&merged).unwrap(),
            vec![
                (3, vec![1, 4, 5, 9, 20]),
                (5, vec![6]),
                (70, vec![2]),
                (71, vec![])
            ]
        );
    }

    #[test]
    fn openings_round_trip_and_merge() {
        let row = |line: &[u8], games| OpeningRow {
            games,
            white: 1,
            plies: 40,
            ..OpeningRow::new(line)
        };
        let blob = |rows: &[OpeningRow]| {
            let mut b = Vec::new();
            for r in rows {
                r.write(&mut b);
            }
            b
        };
        let a = [row(&[], 1), row(&[1, 2, 3], 2), row(&[1, 2, 4], 1)];
        let b = [row(&[1, 2, 3], 5), row(&[9, 9, 9], 1)];
        let (a, b) = (blob(&a), blob(&b));
        assert_eq!(Openings::new(&a).count(), 3);
        let mut m = Vec::new();
        merge_openings_with(&[&a, &b, &[]], |r| m.push(*r)).unwrap();
        assert_eq!(m.len(), 4);
        assert_eq!(m[0].line(), &[] as &[u8]);
        assert_eq!(m[1].line(), &[1, 2, 3]);
        assert_eq!((m[1].games, m[1].white, m[1].plies), (7, 2, 80));
        assert_eq!(m[3].line(), &[9, 9, 9]);
        assert!(merge_openings_with(&[&a[..a.len() - 1]], |_| {}).is_none());
        let long = [13u8; 14];
        assert!(merge_openings_with(&[&long], |_| {}).is_none());
    }
}
