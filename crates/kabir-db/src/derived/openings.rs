//! The openings of the statistics, consolidated and ranked by their counts, so that the most
//! common openings of a database are found without reading a row per game.
//!
//! Each imported batch stores its games' first [`OPENING_PLIES`] plies with their counts as a
//! tally of kind [`Kind::Openings`] (see `tally`): the *recent* openings. When a variant's
//! recent openings grow past [`RECENT_BYTES`] (or a sixteenth of its consolidated ones, if
//! more), and at the end of an import that added enough, they are merged with the variant's
//! *consolidated* openings, in a transaction of their own:
//! - list 0 (`opening_chunk.list = 0`): every line with its counts, in line order, in chunks
//!   of about [`CHUNK_BYTES`]; `opening_head` has the variant's games and the first line of
//!   each chunk, for finding a line;
//! - list `k` (1 to [`OPENING_PLIES`]): the first `k` plies of the lines (a shorter game's
//!   whole line) that 2 games or more began with, most games first and, among as many games,
//!   in line order: the order of the report.
//!
//! The `n` most common openings of `k` plies are then the `n` best of the lines that list `k`
//! gives, read from its top, with the recent counts added, and of the recent lines. The list
//! is read only until no line left unread can do better than the `n`-th found: a line not read
//! yet has no more consolidated games than the last one read (and, with as many, comes after it
//! in line order), so its total is bounded by that count plus its recent games. A recent line
//! that might still do better is looked up in list 0 when there are a few, and the list is read
//! further otherwise; below 2 games, list 0 is read from its start, where the lines of one game
//! come in line order. The answer is the same as adding up every line, whatever the counts.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::FastMap;
use crate::derived::tally::{self, Kind, OpeningRow, Openings};
use crate::derived::{BatchInput, Derived, StoredGame, Written};
use crate::storage::codec::{MOVE_BYTES, damaged};
use crate::storage::schema::{OPENING_PLIES, RANKED_OPENINGS_FROM};

/// Bytes of a chunk of list 0. A chunk holds about 1,700 lines and fits a page of 64 KiB.
const CHUNK_BYTES: usize = 32 * 1024;

/// Bytes of the first chunk of a ranked list; each next one is twice as big, up to
/// [`CHUNK_BYTES`]: most reports need only the first few dozen lines.
const FIRST_RANKED_CHUNK: usize = 1024;

/// A variant's recent openings are consolidated during an import when they pass this many
/// bytes (about 100,000 lines), or a sixteenth of its consolidated ones if more: a query reads
/// all recent lines, and a consolidation rewrites all lines.
const RECENT_BYTES: i64 = 2 << 20;
const RECENT_SHARE: i64 = 16;

/// At the end of an import, recent openings of this many bytes (about 3,400 lines) or more,
/// and at least a sixty-fourth of the consolidated ones, are consolidated, so that a report
/// after an import reads few recent lines whatever the number of games.
const SETTLE_BYTES: i64 = 64 << 10;
const SETTLE_SHARE: i64 = 64;

/// Recent lines looked up in list 0 at most, rather than reading the ranked list further.
const LOOKUPS: usize = 32;

/// The first [`OPENING_PLIES`] moves of a game, without an allocation.
type Line = ([u8; OPENING_PLIES * MOVE_BYTES], usize);

/// The openings' part of a batch: the counts of the first plies of its games from the
/// standard start, stored as one recent tally.
#[derive(Debug, Default)]
pub(crate) struct BatchOpenings {
    openings: FastMap<(i64, Line), OpeningRow>,
    games: u64,
}

impl Derived<'_> for BatchOpenings {
    // The recent tallies are emptied with the names' (`tally::CLEAR`).
    const CLEAR: &'static str = "DELETE FROM opening_chunk; DELETE FROM opening_head;";

    fn add(&mut self, game: &StoredGame<'_, '_>) {
        let f = game.facts;
        self.games += 1;
        if !f.standard_start {
            return;
        }
        let line = &f.moves_blob[..f.moves_blob.len().min(OPENING_PLIES * MOVE_BYTES)];
        let mut key: Line = ([0; OPENING_PLIES * MOVE_BYTES], line.len());
        key.0[..line.len()].copy_from_slice(line);
        let row = self
            .openings
            .entry((f.variant, key))
            .or_insert_with(|| OpeningRow::new(line));
        row.games += 1;
        match f.result {
            "1-0" => row.white += 1,
            "1/2-1/2" => row.draws += 1,
            "0-1" => row.black += 1,
            _ => {}
        }
        row.plies += u64::from(f.plies);
    }

    /// Stores the batch's openings as a recent tally, one part per variant.
    fn write(
        self,
        tx: &Transaction<'_>,
        _: &mut BatchInput<'_>,
        _: &mut Written,
    ) -> rusqlite::Result<()> {
        let mut rows: Vec<(i64, OpeningRow)> = self
            .openings
            .into_iter()
            .map(|((variant, _), row)| (variant, row))
            .collect();
        rows.sort_by(|a, b| (a.0, a.1.line()).cmp(&(b.0, b.1.line())));
        let mut parts: Vec<(i64, Vec<u8>)> = Vec::new();
        for (variant, row) in rows {
            if parts.last().is_none_or(|p| p.0 != variant) {
                parts.push((variant, Vec::new()));
            }
            if let Some(p) = parts.last_mut() {
                row.write(&mut p.1);
            }
        }
        tally::insert(tx, Kind::Openings, self.games, &parts)
    }
}

/// Whether the file has consolidated openings (from version [`RANKED_OPENINGS_FROM`]): before,
/// all openings are in the tallies.
fn ranked_layout(conn: &Connection) -> rusqlite::Result<bool> {
    let version: i64 = conn
        .prepare_cached("PRAGMA user_version")?
        .query_row([], |r| r.get(0))?;
    Ok(version >= i64::from(RANKED_OPENINGS_FROM))
}

/// The variants with recent openings due for consolidation: those with at least
/// `min_bytes` of them and at least a `share`-th of their consolidated openings' bytes.
fn due(tx: &Transaction<'_>, min_bytes: i64, share: i64) -> rusqlite::Result<Vec<i64>> {
    tx.prepare_cached(
        "SELECT p.part FROM tally t JOIN tally_part p ON p.tally = t.id
         LEFT JOIN opening_head h ON h.variant = p.part
         WHERE t.kind = ?1
         GROUP BY p.part
         HAVING sum(length(p.rows)) >= max(?2, coalesce(max(h.bytes), 0) / ?3)
         ORDER BY p.part",
    )?
    .query_map(params![Kind::Openings as i64, min_bytes, share], |r| {
        r.get(0)
    })?
    .collect()
}

/// Consolidates the recent openings of one variant whose recent openings are due during an
/// import, if there is one; returns whether there was.
pub(crate) fn consolidate_step(tx: &Transaction<'_>) -> rusqlite::Result<bool> {
    match due(tx, RECENT_BYTES, RECENT_SHARE)?.first() {
        Some(&v) => consolidate(tx, v, CHUNK_BYTES).map(|()| true),
        None => Ok(false),
    }
}

/// At the end of an import: consolidates the variants that the import left with enough
/// recent openings.
pub(crate) fn settle(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    for v in due(tx, SETTLE_BYTES, SETTLE_SHARE)? {
        consolidate(tx, v, CHUNK_BYTES)?;
    }
    Ok(())
}

/// Consolidates every variant's recent openings.
pub(crate) fn consolidate_all(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    consolidate_all_in(tx, CHUNK_BYTES)
}

fn consolidate_all_in(tx: &Transaction<'_>, chunk_bytes: usize) -> rusqlite::Result<()> {
    for v in due(tx, 0, i64::MAX)? {
        consolidate(tx, v, chunk_bytes)?;
    }
    Ok(())
}

/// The lines of list 0 of `variant`, one blob (empty if none).
fn consolidated_rows(conn: &Connection, variant: i64) -> rusqlite::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut stmt = conn.prepare_cached(
        "SELECT rows FROM opening_chunk WHERE variant = ?1 AND list = 0 ORDER BY chunk",
    )?;
    let mut rows = stmt.query([variant])?;
    while let Some(r) = rows.next()? {
        out.extend_from_slice(r.get_ref(0)?.as_blob()?);
    }
    Ok(out)
}

/// Merges the recent openings of `variant` into its consolidated ones. List 0 is written chunk
/// by chunk as the lines come, and the ranked lists are kept encoded until they are sorted, so
/// that what a consolidation holds is the lines read and the ranked lines, not copies of all.
fn consolidate(tx: &Transaction<'_>, variant: i64, chunk_bytes: usize) -> rusqlite::Result<()> {
    let mut blobs = tally::part(tx, Kind::Openings, variant)?;
    blobs.push(consolidated_rows(tx, variant)?);
    // Everything to merge is read: the old rows go, and the new ones take their keys.
    tx.prepare_cached("DELETE FROM opening_chunk WHERE variant = ?1")?
        .execute([variant])?;
    tx.prepare_cached(
        "DELETE FROM tally_part WHERE part = ?1 AND tally IN (SELECT id FROM tally WHERE kind = ?2)",
    )?
    .execute(params![variant, Kind::Openings as i64])?;
    tx.prepare_cached(
        "DELETE FROM tally WHERE kind = ?1
         AND NOT EXISTS (SELECT 1 FROM tally_part p WHERE p.tally = tally.id)",
    )?
    .execute([Kind::Openings as i64])?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO opening_chunk (variant, list, chunk, rows) VALUES (?1, ?2, ?3, ?4)",
    )?;
    let mut lists = Lists::new(chunk_bytes);
    let mut failed: Option<rusqlite::Error> = None;
    let merged = {
        let refs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
        tally::merge_openings_with(&refs, |r| {
            if let Some((i, chunk)) = lists.add(r)
                && failed.is_none()
                && let Err(e) = insert.execute(params![variant, 0, i, chunk])
            {
                failed = Some(e);
            }
        })
    };
    drop(blobs);
    merged.ok_or_else(|| damaged("a tally of openings does not decode"))?;
    if let Some(e) = failed {
        return Err(e);
    }
    if let Some((i, chunk)) = lists.last_chunk() {
        insert.execute(params![variant, 0, i, chunk])?;
    }
    lists.write(tx, variant)
}

/// A ranked list while it is made: its lines encoded one after the other, and for each its
/// games, where it starts and its length, to be sorted.
#[derive(Default)]
struct RankedLines {
    bytes: Vec<u8>,
    rows: Vec<(u64, u32, u32)>,
}

impl RankedLines {
    fn push(&mut self, r: &OpeningRow) {
        let start = self.bytes.len();
        r.write(&mut self.bytes);
        self.rows
            .push((r.games, start as u32, (self.bytes.len() - start) as u32));
    }

    /// Most games first and, among as many, in line order (the order they came in).
    fn sort(&mut self) {
        self.rows
            .sort_by_key(|&(games, ..)| std::cmp::Reverse(games));
    }

    /// The encoded lines in their order.
    fn lines(&self) -> impl Iterator<Item = &[u8]> {
        self.rows.iter().map(|&(_, start, len)| {
            self.bytes
                .get(start as usize..(start + len) as usize)
                .unwrap_or(&[])
        })
    }
}

/// The consolidated lists of a variant while they are made from its lines in line order.
struct Lists {
    chunk_bytes: usize,
    /// The chunk of list 0 being filled, and its number.
    chunk: Vec<u8>,
    chunk_number: i64,
    /// Bytes of list 0 so far.
    bytes: usize,
    /// The first line of each chunk: its length in bytes, then the bytes.
    firsts: Vec<u8>,
    games: u64,
    /// The line of each length being added up.
    runs: [Option<OpeningRow>; OPENING_PLIES],
    /// Lines of 2 games or more, by length, in line order until [`Lists::ranked`].
    ranked: [RankedLines; OPENING_PLIES],
}

impl Lists {
    fn new(chunk_bytes: usize) -> Lists {
        Lists {
            chunk_bytes,
            chunk: Vec::new(),
            chunk_number: -1,
            bytes: 0,
            firsts: Vec::new(),
            games: 0,
            runs: [None; OPENING_PLIES],
            ranked: Default::default(),
        }
    }

    /// Adds the next line; returns the chunk of list 0 it completed, if it did, with its
    /// number.
    fn add(&mut self, r: &OpeningRow) -> Option<(i64, Vec<u8>)> {
        self.games += r.games;
        let mut full = None;
        if self.chunk_number < 0 || self.chunk.len() >= self.chunk_bytes {
            let next = Vec::with_capacity(self.chunk_bytes.min(1 << 20) + 64);
            let done = std::mem::replace(&mut self.chunk, next);
            if self.chunk_number >= 0 {
                full = Some((self.chunk_number, done));
            }
            self.chunk_number += 1;
            self.firsts.push(r.line().len() as u8);
            self.firsts.extend_from_slice(r.line());
        }
        let before = self.chunk.len();
        r.write(&mut self.chunk);
        self.bytes += self.chunk.len() - before;
        for (k, (run, ranked)) in self.runs.iter_mut().zip(&mut self.ranked).enumerate() {
            let bytes = (k + 1) * MOVE_BYTES;
            let line = &r.line()[..r.line().len().min(bytes)];
            match run {
                Some(c) if c.line() == line => c.add(r),
                _ => {
                    if let Some(done) = run.take()
                        && done.games >= 2
                    {
                        ranked.push(&done);
                    }
                    let mut c = *r;
                    c.truncate(bytes);
                    *run = Some(c);
                }
            }
        }
        full
    }

    /// The last chunk of list 0, once every line is added (`None` if there were none).
    fn last_chunk(&mut self) -> Option<(i64, Vec<u8>)> {
        if self.chunk_number < 0 || self.chunk.is_empty() {
            return None;
        }
        Some((self.chunk_number, std::mem::take(&mut self.chunk)))
    }

    /// The ranked lists: by length, lines of 2 games or more, most games first and in line
    /// order among as many.
    fn ranked(&mut self) -> [RankedLines; OPENING_PLIES] {
        let mut out = std::mem::take(&mut self.ranked);
        for (run, ranked) in self.runs.iter_mut().zip(&mut out) {
            if let Some(done) = run.take()
                && done.games >= 2
            {
                ranked.push(&done);
            }
            ranked.sort();
        }
        out
    }

    /// Writes the ranked lists and the head, once list 0's chunks are written.
    fn write(mut self, tx: &Transaction<'_>, variant: i64) -> rusqlite::Result<()> {
        if self.chunk_number < 0 {
            tx.prepare_cached("DELETE FROM opening_head WHERE variant = ?1")?
                .execute([variant])?;
            return Ok(());
        }
        let mut insert = tx.prepare_cached(
            "INSERT INTO opening_chunk (variant, list, chunk, rows) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (k, ranked) in self.ranked().iter().enumerate() {
            let mut chunk = Vec::new();
            let mut size = FIRST_RANKED_CHUNK.min(self.chunk_bytes);
            let mut n = 0i64;
            for line in ranked.lines() {
                chunk.extend_from_slice(line);
                if chunk.len() >= size {
                    insert.execute(params![variant, k as i64 + 1, n, chunk])?;
                    chunk.clear();
                    n += 1;
                    size = (size * 2).min(self.chunk_bytes);
                }
            }
            if !chunk.is_empty() {
                insert.execute(params![variant, k as i64 + 1, n, chunk])?;
            }
        }
        tx.prepare_cached(
            "INSERT OR REPLACE INTO opening_head (variant, games, bytes, firsts)
             VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![
            variant,
            self.games as i64,
            self.bytes as i64,
            self.firsts
        ])?;
        Ok(())
    }
}

/// Every variant's openings for the digest of derived data: the blobs of its recent openings
/// and of its consolidated ones, each in line order, to be merged.
pub(crate) fn all_rows(conn: &Connection) -> rusqlite::Result<Vec<(i64, Vec<Vec<u8>>)>> {
    let mut out: std::collections::BTreeMap<i64, Vec<Vec<u8>>> = Default::default();
    for (variant, blob) in tally::all(conn, Kind::Openings)? {
        out.entry(variant).or_default().push(blob);
    }
    if ranked_layout(conn)? {
        let heads: Vec<i64> = conn
            .prepare("SELECT DISTINCT variant FROM opening_chunk")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        for v in heads {
            out.entry(v).or_default().push(consolidated_rows(conn, v)?);
        }
    }
    Ok(out.into_iter().collect())
}

/// Whether the consolidated openings agree with themselves: the ranked lists and the heads
/// are what list 0 gives, and list 0 is in line order.
pub(crate) fn consistent(conn: &Connection) -> rusqlite::Result<bool> {
    if !ranked_layout(conn)? {
        return Ok(true);
    }
    let variants: Vec<i64> = conn
        .prepare("SELECT variant FROM opening_head UNION SELECT variant FROM opening_chunk")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for v in variants {
        if !consistent_variant(conn, v)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn consistent_variant(conn: &Connection, variant: i64) -> rusqlite::Result<bool> {
    let head: Option<(i64, i64, Vec<u8>)> = conn
        .query_row(
            "SELECT games, bytes, firsts FROM opening_head WHERE variant = ?1",
            [variant],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let mut lists: Vec<(i64, Vec<u8>)> = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT list, rows FROM opening_chunk WHERE variant = ?1 ORDER BY list, chunk",
        )?;
        let mut rows = stmt.query([variant])?;
        while let Some(r) = rows.next()? {
            let list: i64 = r.get(0)?;
            let blob = r.get_ref(1)?.as_blob()?;
            match lists.last_mut() {
                Some((l, all)) if *l == list => all.extend_from_slice(blob),
                _ => lists.push((list, blob.to_vec())),
            }
        }
    }
    let Some((games, bytes, firsts)) = head else {
        return Ok(lists.is_empty());
    };
    let mut made = Lists::new(usize::MAX);
    let mut want_firsts = Vec::new();
    let mut want_bytes = 0i64;
    {
        let mut stmt = conn.prepare(
            "SELECT rows FROM opening_chunk WHERE variant = ?1 AND list = 0 ORDER BY chunk",
        )?;
        let mut rows = stmt.query([variant])?;
        let mut last: Option<OpeningRow> = None;
        while let Some(r) = rows.next()? {
            let blob = r.get_ref(0)?.as_blob()?;
            want_bytes += blob.len() as i64;
            let mut it = Openings::new(blob);
            for (i, row) in it.by_ref().enumerate() {
                if i == 0 {
                    want_firsts.push(row.line().len() as u8);
                    want_firsts.extend_from_slice(row.line());
                }
                if last.is_some_and(|l| l.line() >= row.line()) || row.games == 0 {
                    return Ok(false);
                }
                last = Some(row);
                // One chunk, never full: only the counts and the ranked lists are wanted.
                let _ = made.add(&row);
            }
            if it.damaged {
                return Ok(false);
            }
        }
    }
    if made.games != games.max(0) as u64 || want_bytes != bytes || want_firsts != firsts {
        return Ok(false);
    }
    let mut want: Vec<(i64, Vec<u8>)> = Vec::new();
    for (k, ranked) in made.ranked().iter().enumerate() {
        if !ranked.rows.is_empty() {
            want.push((k as i64 + 1, ranked.lines().flatten().copied().collect()));
        }
    }
    let stored: Vec<&(i64, Vec<u8>)> = lists.iter().filter(|(l, _)| *l != 0).collect();
    Ok(stored.len() == want.len() && stored.iter().zip(&want).all(|(a, b)| *a == b))
}

/// The variants that have openings, recent or consolidated, in id order.
pub(crate) fn variants(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    let sql = if ranked_layout(conn)? {
        "SELECT p.part FROM tally t JOIN tally_part p ON p.tally = t.id WHERE t.kind = ?1
         UNION SELECT variant FROM opening_head ORDER BY 1"
    } else {
        "SELECT DISTINCT p.part FROM tally t JOIN tally_part p ON p.tally = t.id
         WHERE t.kind = ?1 ORDER BY 1"
    };
    conn.prepare_cached(sql)?
        .query_map([Kind::Openings as i64], |r| r.get(0))?
        .collect()
}

/// The most common openings of a variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Top {
    /// The variant's games from its standard start position.
    pub games: u64,
    /// At most `n` openings, most games first, in line order among as many games.
    pub rows: Vec<OpeningRow>,
}

/// The `n` most common openings of `plies` plies (1 to [`OPENING_PLIES`]) of `variant`.
pub(crate) fn top(
    conn: &Connection,
    variant: i64,
    plies: usize,
    n: usize,
) -> rusqlite::Result<Top> {
    let bytes = plies.clamp(1, OPENING_PLIES) * MOVE_BYTES;
    let blobs = tally::part(conn, Kind::Openings, variant)?;
    let refs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
    let mut recent: Vec<OpeningRow> = Vec::new();
    let mut games = 0;
    tally::merge_openings_with(&refs, |r| {
        games += r.games;
        let line = &r.line()[..r.line().len().min(bytes)];
        match recent.last_mut() {
            Some(c) if c.line() == line => c.add(r),
            _ => {
                let mut c = *r;
                c.truncate(bytes);
                recent.push(c);
            }
        }
    })
    .ok_or_else(|| damaged("a tally of openings does not decode"))?;
    drop(blobs);
    let head = if ranked_layout(conn)? {
        conn.prepare_cached("SELECT games, firsts FROM opening_head WHERE variant = ?1")?
            .query_row([variant], |r| {
                Ok((r.get::<_, i64>(0)?.max(0) as u64, r.get::<_, Vec<u8>>(1)?))
            })
            .optional()?
    } else {
        None
    };
    let mut search = Search {
        conn,
        variant,
        plies: plies.clamp(1, OPENING_PLIES) as i64,
        bytes,
        seen: vec![false; recent.len()],
        recent,
        best: Best::new(n),
        firsts: Vec::new(),
    };
    if let Some((consolidated, firsts)) = head {
        games += consolidated;
        search.firsts = decode_firsts(&firsts).ok_or_else(|| damaged("opening_head.firsts"))?;
        search.run()?;
    }
    search.rest();
    Ok(Top {
        games,
        rows: search.best.into_sorted(),
    })
}

fn decode_firsts(blob: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < blob.len() {
        let n = usize::from(blob[at]);
        out.push(blob.get(at + 1..at + 1 + n)?.to_vec());
        at += 1 + n;
    }
    Some(out)
}

/// A line in the order of a report: more games first, then the line.
#[derive(Debug, Clone, Copy)]
struct Ranked(OpeningRow);

impl Ord for Ranked {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.games
            .cmp(&self.0.games)
            .then_with(|| self.0.line().cmp(o.0.line()))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Ranked {}

/// The `n` best lines offered so far, each line offered once with its total.
struct Best {
    n: usize,
    /// The worst kept on top.
    heap: BinaryHeap<Ranked>,
}

impl Best {
    fn new(n: usize) -> Best {
        Best {
            n,
            heap: BinaryHeap::with_capacity(n.min(4096) + 1),
        }
    }

    fn offer(&mut self, r: OpeningRow) {
        if self.n == 0 {
            return;
        }
        let r = Ranked(r);
        if self.heap.len() >= self.n && self.heap.peek().is_some_and(|w| r >= *w) {
            return;
        }
        self.heap.push(r);
        if self.heap.len() > self.n {
            self.heap.pop();
        }
    }

    /// The `n`-th best line, once there are `n`: what a line must beat to be in.
    fn bar(&self) -> Option<&OpeningRow> {
        if self.n > 0 && self.heap.len() >= self.n {
            self.heap.peek().map(|r| &r.0)
        } else {
            None
        }
    }

    fn into_sorted(self) -> Vec<OpeningRow> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.0)
            .collect()
    }
}

// Which ways a search went, so that the tests can tell that they take them all: lookups,
// more than one chunk of a ranked list, list 0 from its start, and stopping early in it.
#[cfg(test)]
thread_local! {
    static WAYS: std::cell::Cell<[u32; 4]> = const { std::cell::Cell::new([0; 4]) };
}

#[cfg(test)]
fn went(way: usize) {
    WAYS.with(|w| {
        let mut a = w.get();
        a[way] += 1;
        w.set(a);
    });
}

#[cfg(not(test))]
#[inline(always)]
fn went(_: usize) {}

/// What reading the ranked list so far proves.
enum Check {
    /// Nothing yet: read on.
    More,
    /// Every line not read yet is out, except these recent ones (which may be none).
    Lookup(Vec<usize>),
}

/// The search for a variant's best lines (see the module's documentation).
struct Search<'c> {
    conn: &'c Connection,
    variant: i64,
    plies: i64,
    bytes: usize,
    /// The recent lines cut to `bytes`, in line order, and whether each was offered.
    recent: Vec<OpeningRow>,
    seen: Vec<bool>,
    best: Best,
    /// The first line of each chunk of list 0.
    firsts: Vec<Vec<u8>>,
}

impl Search<'_> {
    fn chunk(&self, list: i64, chunk: i64) -> rusqlite::Result<Option<Vec<u8>>> {
        self.conn
            .prepare_cached(
                "SELECT rows FROM opening_chunk WHERE variant = ?1 AND list = ?2 AND chunk = ?3",
            )?
            .query_row(params![self.variant, list, chunk], |r| r.get(0))
            .optional()
    }

    fn recent_index(&self, line: &[u8]) -> Option<usize> {
        self.recent.binary_search_by(|r| r.line().cmp(line)).ok()
    }

    /// Offers a consolidated line with its recent games added.
    fn offer_consolidated(&mut self, mut row: OpeningRow) {
        if let Some(i) = self.recent_index(row.line()) {
            row.add(&self.recent[i]);
            self.seen[i] = true;
        }
        self.best.offer(row);
    }

    /// What is proven once every line with more than `count` consolidated games, and every
    /// line with `count` up to `after` in line order, has been offered.
    fn check(&self, count: u64, after: Option<&[u8]>) -> Check {
        let Some(bar) = self.best.bar() else {
            return Check::More;
        };
        let beats = |games: u64, line: &[u8]| {
            games > bar.games || (games == bar.games && line < bar.line())
        };
        // A line without recent games that is not read yet comes after the last one read.
        let unread_can_beat = match after {
            Some(line) => beats(count, line),
            None => count >= bar.games,
        };
        if unread_can_beat {
            return Check::More;
        }
        let mut open = Vec::new();
        for (i, r) in self.recent.iter().enumerate() {
            if self.seen[i] {
                continue;
            }
            let most = if after.is_some_and(|a| r.line() < a) {
                count.saturating_sub(1)
            } else {
                count
            };
            if beats(most.saturating_add(r.games), r.line()) {
                open.push(i);
                if open.len() > LOOKUPS {
                    return Check::More;
                }
            }
        }
        Check::Lookup(open)
    }

    /// Reads the ranked list, then list 0 from its start if needed, until the best lines are
    /// known but for the recent lines not offered yet, which [`Search::rest`] offers as they
    /// are.
    fn run(&mut self) -> rusqlite::Result<()> {
        if self.best.n == 0 {
            return Ok(());
        }
        let mut last: Option<(u64, Vec<u8>)> = None;
        for chunk in 0.. {
            let Some(blob) = self.chunk(self.plies, chunk)? else {
                break;
            };
            let mut rows = Openings::new(&blob);
            for row in rows.by_ref() {
                last = Some((row.games, row.line().to_vec()));
                self.offer_consolidated(row);
            }
            if rows.damaged {
                return Err(damaged("a ranked list of openings does not decode"));
            }
            if let Some((count, line)) = &last
                && let Check::Lookup(open) = self.check(*count, Some(line))
            {
                return self.look_up(open);
            }
            if chunk > 0 {
                went(1);
            }
        }
        // Every line of 2 games or more is offered: the rest have 1 or none.
        if let Check::Lookup(open) = self.check(1, None) {
            return self.look_up(open);
        }
        went(2);
        self.single_lines()
    }

    /// Reads list 0 from its start, offering the lines of 1 game (and the recent lines before
    /// them, which have none), until the rest cannot beat the best.
    fn single_lines(&mut self) -> rusqlite::Result<()> {
        let mut run: Option<OpeningRow> = None;
        let mut next_recent = 0;
        let mut after: Option<Vec<u8>> = None;
        for chunk in 0.. {
            let Some(blob) = self.chunk(0, chunk)? else {
                break;
            };
            let mut rows = Openings::new(&blob);
            for row in rows.by_ref() {
                let line = &row.line()[..row.line().len().min(self.bytes)];
                match &mut run {
                    Some(c) if c.line() == line => c.add(&row),
                    _ => {
                        if let Some(done) = run.take() {
                            next_recent = self.single(done, next_recent);
                            after = Some(done.line().to_vec());
                        }
                        let mut c = row;
                        c.truncate(self.bytes);
                        run = Some(c);
                    }
                }
            }
            if rows.damaged {
                return Err(damaged("a list of openings does not decode"));
            }
            if let Some(a) = &after
                && let Check::Lookup(open) = self.check(1, Some(a))
            {
                went(3);
                return self.look_up(open);
            }
        }
        if let Some(done) = run {
            self.single(done, next_recent);
        }
        Ok(())
    }

    /// Offers a consolidated line if it has 1 game (lines of more were offered from the ranked
    /// list), after the recent lines before it from `next_recent` on, which have no
    /// consolidated games; returns where the recent lines after it begin.
    fn single(&mut self, row: OpeningRow, mut next_recent: usize) -> usize {
        while let Some(r) = self.recent.get(next_recent)
            && r.line() < row.line()
        {
            if !self.seen[next_recent] {
                self.seen[next_recent] = true;
                self.best.offer(*r);
            }
            next_recent += 1;
        }
        if row.games == 1 {
            self.offer_consolidated(row);
        }
        next_recent
    }

    /// Offers the recent lines `open` with their consolidated games, found in list 0.
    fn look_up(&mut self, open: Vec<usize>) -> rusqlite::Result<()> {
        if !open.is_empty() {
            went(0);
        }
        for i in open {
            let mut total = self.recent[i];
            if let Some(c) = self.consolidated(total.line())? {
                total.add(&c);
            }
            self.seen[i] = true;
            self.best.offer(total);
        }
        Ok(())
    }

    /// The consolidated games of a line of `bytes` (cut), from list 0.
    fn consolidated(&self, key: &[u8]) -> rusqlite::Result<Option<OpeningRow>> {
        let from = self
            .firsts
            .partition_point(|f| f.as_slice() <= key)
            .saturating_sub(1);
        let mut found: Option<OpeningRow> = None;
        for chunk in from as i64.. {
            let Some(blob) = self.chunk(0, chunk)? else {
                break;
            };
            let mut rows = Openings::new(&blob);
            for row in rows.by_ref() {
                match row.line()[..row.line().len().min(self.bytes)].cmp(key) {
                    Ordering::Less => {}
                    Ordering::Equal => match &mut found {
                        Some(f) => f.add(&row),
                        None => {
                            let mut f = row;
                            f.truncate(self.bytes);
                            found = Some(f);
                        }
                    },
                    Ordering::Greater => return Ok(found),
                }
            }
            if rows.damaged {
                return Err(damaged("a list of openings does not decode"));
            }
        }
        Ok(found)
    }

    /// Offers the recent lines not offered yet as they are: the search proved them out or
    /// without consolidated games (or there are no consolidated ones).
    fn rest(&mut self) {
        for (r, seen) in self.recent.iter().zip(&self.seen) {
            if !seen {
                self.best.offer(*r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::storage::schema::{MIGRATIONS, Step, VERSION};

    fn database() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        let tx = conn.transaction().unwrap();
        for steps in MIGRATIONS {
            for step in steps.iter() {
                match step {
                    Step::Sql(sql) => tx.execute_batch(sql).unwrap(),
                    Step::Run(run) => run(&tx).unwrap(),
                }
            }
        }
        tx.pragma_update(None, "user_version", VERSION).unwrap();
        tx.commit().unwrap();
        conn
    }

    /// A random line of up to [`OPENING_PLIES`] plies over `moves` different moves.
    fn line(rng: &mut ChaCha8Rng, moves: u8) -> Vec<u8> {
        let plies = if rng.random_bool(0.8) {
            OPENING_PLIES
        } else {
            rng.random_range(0..OPENING_PLIES)
        };
        (0..plies)
            .flat_map(|_| [1, rng.random_range(0..moves), 7])
            .collect()
    }

    fn row(rng: &mut ChaCha8Rng, line: &[u8]) -> OpeningRow {
        let games = if rng.random_bool(0.85) {
            1
        } else {
            rng.random_range(2..6)
        };
        let white = rng.random_range(0..=games);
        let draws = rng.random_range(0..=games - white);
        let black = rng.random_range(0..=games - white - draws);
        let mut r = OpeningRow::new(line);
        (r.games, r.white, r.draws, r.black) = (games, white, draws, black);
        r.plies = games * rng.random_range(1..90);
        r
    }

    /// The best `n` lines of `plies` plies of `all` by adding up every line.
    fn brute(all: &BTreeMap<Vec<u8>, OpeningRow>, plies: usize, n: usize) -> Top {
        let bytes = plies * MOVE_BYTES;
        let mut cut: BTreeMap<Vec<u8>, OpeningRow> = BTreeMap::new();
        let mut games = 0;
        for (l, r) in all {
            games += r.games;
            let key = l[..l.len().min(bytes)].to_vec();
            cut.entry(key).and_modify(|c| c.add(r)).or_insert_with(|| {
                let mut c = *r;
                c.truncate(bytes);
                c
            });
        }
        let mut rows: Vec<OpeningRow> = cut.into_values().collect();
        rows.sort_by_key(|r| Ranked(*r));
        rows.truncate(n);
        Top { games, rows }
    }

    /// Random batches of lines of two variants, consolidated now and then, with chunks of a
    /// few lines; every report equals brute force after each step.
    fn check(seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut conn = database();
        let moves = *[2u8, 3, 5, 40].get(rng.random_range(0..4)).unwrap();
        let chunk_bytes = rng.random_range(1..300);
        let mut all: [BTreeMap<Vec<u8>, OpeningRow>; 2] = Default::default();
        for step in 0..rng.random_range(1..12) {
            let tx = conn.transaction().unwrap();
            let mut parts = Vec::new();
            for (v, all) in all.iter_mut().enumerate() {
                if rng.random_bool(0.3) && step > 0 {
                    continue;
                }
                let n = rng.random_range(0..250);
                let mut batch: BTreeMap<Vec<u8>, OpeningRow> = BTreeMap::new();
                for _ in 0..n {
                    let l = line(&mut rng, moves);
                    let r = row(&mut rng, &l);
                    batch.entry(l).and_modify(|c| c.add(&r)).or_insert(r);
                }
                let mut blob = Vec::new();
                for (l, r) in &batch {
                    r.write(&mut blob);
                    all.entry(l.clone()).and_modify(|c| c.add(r)).or_insert(*r);
                }
                parts.push((v as i64 + 1, blob));
            }
            tally::insert(&tx, Kind::Openings, 1, &parts).unwrap();
            match rng.random_range(0..4) {
                0 => consolidate_all_in(&tx, chunk_bytes).unwrap(),
                1 => consolidate(&tx, rng.random_range(1..=2), chunk_bytes).unwrap(),
                2 => while crate::storage::merge::merge_step(&tx, &Kind::Openings).unwrap() {},
                _ => {}
            }
            tx.commit().unwrap();
            assert!(consistent(&conn).unwrap());
            for plies in 1..=OPENING_PLIES {
                for n in [1, 3, 10, 40, 1000] {
                    for (v, all) in all.iter().enumerate() {
                        let got = top(&conn, v as i64 + 1, plies, n).unwrap();
                        assert_eq!(got, brute(all, plies, n), "seed {seed} {plies} {n} {v}");
                    }
                }
            }
        }
        // The digest's view: every line once, with its total.
        for (v, blobs) in all_rows(&conn).unwrap() {
            let blobs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
            let mut merged = BTreeMap::new();
            tally::merge_openings_with(&blobs, |r| {
                merged.insert(r.line().to_vec(), *r);
            })
            .unwrap();
            assert_eq!(merged, all[v as usize - 1]);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn best_openings_are_those_of_brute_force(seed in any::<u64>()) {
            check(seed);
        }
    }

    #[test]
    fn searches_take_every_way() {
        WAYS.with(|w| w.set([0; 4]));
        for seed in 0..40 {
            check(seed);
        }
        let ways = WAYS.with(|w| w.get());
        assert!(ways.iter().all(|&n| n > 0), "{ways:?}");
    }

    #[test]
    fn a_changed_ranking_is_found() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut conn = database();
        let tx = conn.transaction().unwrap();
        let mut batch: BTreeMap<Vec<u8>, OpeningRow> = BTreeMap::new();
        for _ in 0..200 {
            let l = line(&mut rng, 3);
            let r = row(&mut rng, &l);
            batch.entry(l).and_modify(|c| c.add(&r)).or_insert(r);
        }
        let mut blob = Vec::new();
        for r in batch.values() {
            r.write(&mut blob);
        }
        tally::insert(&tx, Kind::Openings, 1, &[(1, blob)]).unwrap();
        consolidate_all_in(&tx, 64).unwrap();
        tx.commit().unwrap();
        assert!(consistent(&conn).unwrap());
        let first: Vec<u8> = conn
            .query_row(
                "SELECT rows FROM opening_chunk WHERE variant = 1 AND list = 2 AND chunk = 0",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let mut rows: Vec<OpeningRow> = Openings::new(&first).collect();
        rows.swap(0, 1);
        let mut changed = Vec::new();
        for r in &rows {
            r.write(&mut changed);
        }
        conn.execute(
            "UPDATE opening_chunk SET rows = ?1 WHERE variant = 1 AND list = 2 AND chunk = 0",
            [changed],
        )
        .unwrap();
        assert!(!consistent(&conn).unwrap());
    }
}
