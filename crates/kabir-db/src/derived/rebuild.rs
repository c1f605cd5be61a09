//! Rebuilding everything derived from the stored games (the position index, the opening tree,
//! the statistics summaries and the name index), and a digest of it that does not depend on
//! how it was split into segments and tallies.

use std::collections::{BTreeMap, HashMap};

use rusqlite::{Transaction, params};

use kabir_rules::Position;
use kabir_rules::variants::Registry;

use crate::derived::name_index::NameCache;
use crate::derived::openings;
use crate::derived::summary::Facts;
use crate::derived::tally::{self, Kind};
use crate::derived::tree::merge_blobs;
use crate::error::DbError;
use crate::read::query::count;
use crate::storage::codec::{self, ContentHasher, Posting, damaged};
use crate::storage::database::Database;
use crate::storage::schema::{DERIVED_CURRENT, TREE_BUCKET_BITS, bucket, buckets_of_tree_bucket};
use crate::write::batch::{self, DerivedBatch};
use crate::write::prepare::prepare;
use crate::write::record::{GameEnd, GameRecord, roster_of_columns};
use kabir_notation::tags::Roster;

/// Games rebuilt per step (as a batch of an import).
const REBUILD_BATCH: i64 = 5_000;

/// What a rebuild did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebuilt {
    /// Games whose derived data was computed.
    pub games: u64,
    /// Index entries written (one per position of each game).
    pub positions: u64,
    /// Whether the derived data was current before (`false` for a file migrated from an
    /// earlier version, or after an interrupted rebuild).
    pub was_current: bool,
    /// With `was_current`: whether the rebuilt data is the same as it was (the digests agree).
    pub unchanged: Option<bool>,
}

/// A stored game as the rebuild reads it.
struct StoredRow {
    id: u32,
    variant: i64,
    variant_name: String,
    start_fen: String,
    moves: Vec<u8>,
    result: String,
    end: String,
    plies: u32,
    /// Event, Site, Date, Round, White, Black (no result).
    roster: Roster<String>,
    special: [u64; 7],
}

impl Database {
    /// Computes everything derived from the stored games again (the position index, the
    /// opening tree, the statistics summaries and the name index) and marks it current, in
    /// one transaction: a crash leaves the file as it was. `variants` must know every stored
    /// game's variant (the built-ins, and the definition files of others). `progress` is told
    /// the games done and the total as it goes.
    pub fn rebuild(
        &mut self,
        variants: &Registry,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<Rebuilt, DbError> {
        if self.read_only {
            return Err(DbError::OpenedReadOnly);
        }
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| DbError::from_sqlite(&self.path, e, self.busy_ms, 0))?;
        let db = DbRef {
            path: &self.path,
            busy_ms: self.busy_ms,
        };
        let out = rebuild_in(&tx, db, variants, &mut progress)?;
        tx.commit().map_err(|e| db.err(e))?;
        Ok(out)
    }

    /// A digest of the derived data's content: the same for the same games, however the data
    /// is split into segments and tallies (and whatever the names' ids). `None` for a file
    /// older than version 3.
    pub fn derived_digest(&self) -> Result<Option<u64>, DbError> {
        self.read(|layout| {
            if !layout.tree {
                return Ok(None);
            }
            digest(&self.conn, layout.beyond)
                .map(Some)
                .map_err(|e| self.err(e))
        })
    }
}

/// What errors need of the database while its connection is borrowed by a transaction.
#[derive(Clone, Copy)]
struct DbRef<'a> {
    path: &'a std::path::Path,
    busy_ms: u64,
}

impl DbRef<'_> {
    fn err(&self, e: rusqlite::Error) -> DbError {
        DbError::from_sqlite(self.path, e, self.busy_ms, 0)
    }

    fn corrupt(&self, detail: String) -> DbError {
        DbError::Corrupt {
            path: self.path.to_path_buf(),
            detail,
        }
    }
}

fn rebuild_in(
    tx: &Transaction<'_>,
    db: DbRef<'_>,
    variants: &Registry,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Rebuilt, DbError> {
    let sql = |e| db.err(e);
    let was_current = tx
        .query_row("SELECT value FROM meta WHERE key = 'derived'", [], |r| {
            r.get::<_, String>(0)
        })
        .map(|v| v == DERIVED_CURRENT)
        .unwrap_or(false);
    // Every stored variant must be known before anything changes.
    let stored: Vec<(i64, String)> = tx
        .prepare("SELECT id, name FROM variant WHERE id IN (SELECT DISTINCT variant FROM game)")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()
        })
        .map_err(sql)?;
    let mut known = HashMap::new();
    for (id, name) in &stored {
        let v = variants
            .find(name)
            .filter(|v| v.id() == name)
            .ok_or_else(|| DbError::UnknownVariant {
                path: db.path.to_path_buf(),
                variant: name.clone(),
            })?;
        known.insert(*id, v.clone());
    }
    let before = if was_current {
        Some(digest(tx, true).map_err(sql)?)
    } else {
        None
    };
    batch::clear_all(tx).map_err(sql)?;
    tx.execute(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'",
        [],
    )
    .map_err(sql)?;
    let total: u64 = tx
        .query_row("SELECT count(*) FROM game", [], |r| count(r, 0))
        .map_err(sql)?;
    let mut names = NameCache::default();
    let (mut games, mut positions) = (0u64, 0u64);
    let mut after = 0i64;
    loop {
        let rows = read_games(tx, after).map_err(sql)?;
        let Some(last) = rows.last() else { break };
        after = i64::from(last.id);
        let promotions = read_promotions(tx, &rows).map_err(sql)?;
        let mut records = Vec::with_capacity(rows.len());
        for r in &rows {
            let Some(variant) = known.get(&r.variant) else {
                return Err(db.corrupt(format!("game {}: variant {}", r.id, r.variant_name)));
            };
            let start = Position::from_fen(variant, &r.start_fen)
                .map_err(|_| db.corrupt(format!("game {}: bad start position", r.id)))?;
            let moves = codec::decode_moves(&r.moves)
                .ok_or_else(|| db.corrupt(format!("game {}: bad moves", r.id)))?;
            let tags = r
                .roster
                .as_ref()
                .into_pairs()
                .into_iter()
                .filter_map(|(name, v)| v.map(|v| (name.to_string(), v.clone())))
                .collect();
            records.push(GameRecord {
                variant: variant.clone(),
                start,
                moves,
                tags,
                result: r.result.clone(),
                pgn: String::new(),
                replayed: None,
            });
        }
        let prepared = prepare(records);
        let ids: Vec<Option<u32>> = rows.iter().map(|r| Some(r.id)).collect();
        if let Some((i, e)) = prepared.first_error() {
            return Err(db.corrupt(format!("game {}: {e}", rows[i].id)));
        }
        let variant_ids: Vec<i64> = prepared
            .variant_names()
            .map(|name| {
                stored
                    .iter()
                    .find(|(_, n)| n == name)
                    .map(|(id, _)| *id)
                    .unwrap_or(0)
            })
            .collect();
        let mut batch = DerivedBatch::default();
        let no_promotions = Vec::new();
        for (i, r) in rows.iter().enumerate() {
            let Some(d) = prepared.derived(i) else {
                continue;
            };
            let facts = Facts {
                variant: r.variant,
                result: &r.result,
                end: GameEnd::parse(&r.end).unwrap_or(GameEnd::Other),
                plies: r.plies,
                date: r.roster.date.as_deref(),
                special: r.special,
                promotions: promotions.get(&r.id).unwrap_or(&no_promotions),
                standard_start: d.standard_start,
                moves_blob: &d.moves_blob,
            };
            batch.add(
                r.id,
                &facts,
                [
                    r.roster.white.as_deref(),
                    r.roster.black.as_deref(),
                    r.roster.event.as_deref(),
                    r.roster.site.as_deref(),
                ],
            );
        }
        let written = batch
            .write(tx, &prepared, &ids, &variant_ids, &mut names)
            .map_err(sql)?;
        positions += written.positions;
        written.merge_in(tx).map_err(sql)?;
        games += rows.len() as u64;
        progress(games, total);
    }
    // All openings consolidated: a report reads no recent ones.
    tally::merge_all(tx, Kind::Openings).map_err(sql)?;
    tx.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'derived'",
        params![DERIVED_CURRENT],
    )
    .map_err(sql)?;
    let unchanged = match before {
        Some(b) => Some(digest(tx, true).map_err(sql)? == b),
        None => None,
    };
    Ok(Rebuilt {
        games,
        positions,
        was_current,
        unchanged,
    })
}

/// The next games after id `after`, in id order.
fn read_games(tx: &Transaction<'_>, after: i64) -> rusqlite::Result<Vec<StoredRow>> {
    let mut stmt = tx.prepare_cached(
        "SELECT g.id, g.variant, v.name, g.start_fen, g.moves, g.result, g.termination, g.plies,
             g.event, g.site, g.date, g.round, g.white, g.black, g.swaps, g.lifts,
             g.relocations, g.promotions, g.arrivals, g.adventitious_kings, g.citadel_entries
         FROM game g JOIN variant v ON v.id = g.variant
         WHERE g.id > ?1 ORDER BY g.id LIMIT ?2",
    )?;
    stmt.query_map(params![after, REBUILD_BATCH], |r| {
        let mut special = [0u64; 7];
        for (i, s) in special.iter_mut().enumerate() {
            *s = count(r, 14 + i)?;
        }
        Ok(StoredRow {
            id: r.get(0)?,
            variant: r.get(1)?,
            variant_name: r.get(2)?,
            start_fen: r.get(3)?,
            moves: r.get(4)?,
            result: r.get(5)?,
            end: r.get(6)?,
            plies: r.get(7)?,
            roster: roster_of_columns(8, |i| r.get(i))?,
            special,
        })
    })?
    .collect()
}

/// The promotions by kind of the games `rows`.
fn read_promotions(
    tx: &Transaction<'_>,
    rows: &[StoredRow],
) -> rusqlite::Result<HashMap<u32, Vec<(String, u64)>>> {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return Ok(HashMap::new());
    };
    let mut out: HashMap<u32, Vec<(String, u64)>> = HashMap::new();
    let mut stmt = tx.prepare_cached(
        "SELECT game, kind, count FROM promotion WHERE game BETWEEN ?1 AND ?2 ORDER BY game, kind",
    )?;
    let mut found = stmt.query(params![first.id, last.id])?;
    while let Some(r) = found.next()? {
        out.entry(r.get(0)?)
            .or_default()
            .push((r.get(1)?, count(r, 2)?));
    }
    Ok(out)
}

/// Runs `sql`, whose rows come ordered by (variant, bucket) in their first two columns: `add`
/// takes each row, and `flush` ends each (variant, bucket) after its last row.
fn by_bucket<S>(
    conn: &rusqlite::Connection,
    sql: &str,
    state: &mut S,
    mut add: impl FnMut(&mut S, &rusqlite::Row<'_>) -> rusqlite::Result<()>,
    mut flush: impl FnMut(&mut S, (i64, i64)) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(sql)?;
    let mut found = stmt.query([])?;
    let mut key: Option<(i64, i64)> = None;
    while let Some(r) = found.next()? {
        let k = (r.get(0)?, r.get(1)?);
        if let Some(prev) = key
            && prev != k
        {
            flush(state, prev)?;
        }
        key = Some(k);
        add(state, r)?;
    }
    match key {
        Some(last) => flush(state, last),
        None => Ok(()),
    }
}

/// Hashes the position index proper (its entries beyond the opening tree) by variant and
/// bucket of [`BUCKET_BITS`](crate::BUCKET_BITS), whatever rows hold them: `posting` rows (segments written
/// before version 5) or the `beyond` blobs of tree rows (with `beyond`, a file of version 5).
fn index_digest(
    conn: &rusqlite::Connection,
    beyond: bool,
    h: &mut ContentHasher,
) -> rusqlite::Result<()> {
    let variants: Vec<i64> = conn
        .prepare("SELECT id FROM variant ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut in_tree = match beyond {
        true => Some(conn.prepare(
            "SELECT beyond FROM tree WHERE variant = ?1 AND bucket = ?2 AND beyond IS NOT NULL",
        )?),
        false => None,
    };
    let mut in_posting = conn.prepare(
        "SELECT entries FROM posting WHERE variant = ?1 AND bucket BETWEEN ?2 AND ?3
         ORDER BY bucket, segment",
    )?;
    let mut entries: Vec<Posting> = Vec::new();
    for v in variants {
        for b in 0..1i64 << TREE_BUCKET_BITS {
            if let Some(stmt) = &mut in_tree {
                let mut found = stmt.query(params![v, b])?;
                while let Some(r) = found.next()? {
                    entries.extend(codec::postings(r.get_ref(0)?.as_blob()?));
                }
            }
            let finer = buckets_of_tree_bucket(b);
            let mut found = in_posting.query(params![v, finer.start(), finer.end()])?;
            while let Some(r) = found.next()? {
                entries.extend(codec::postings(r.get_ref(0)?.as_blob()?));
            }
            drop(found);
            entries.sort_unstable_by_key(Posting::key);
            for run in entries.chunk_by(|a, b| bucket(a.hash) == bucket(b.hash)) {
                h.field(&v.to_le_bytes());
                h.field(&bucket(run[0].hash).to_le_bytes());
                hash_sorted(run, h);
            }
            entries.clear();
        }
    }
    Ok(())
}

/// The digest of the derived data (see [`Database::derived_digest`]).
fn digest(conn: &rusqlite::Connection, beyond: bool) -> rusqlite::Result<u64> {
    let mut h = ContentHasher::default();
    let section = |name: &str, h: &mut ContentHasher| h.field(name.as_bytes());
    // The position index and the tree, bucket by bucket: entries sorted, rows added up.
    section("index", &mut h);
    index_digest(conn, beyond, &mut h)?;
    section("tree", &mut h);
    let mut state = (&mut h, Vec::<Posting>::new(), Vec::<Vec<u8>>::new());
    by_bucket(
        conn,
        "SELECT variant, bucket, entries, rows FROM tree ORDER BY variant, bucket, segment",
        &mut state,
        |(_, entries, rows), r| {
            entries.extend(codec::postings(r.get_ref(2)?.as_blob()?));
            rows.push(r.get(3)?);
            Ok(())
        },
        |(h, entries, rows), (v, b)| {
            let mut blob = Vec::new();
            merge_blobs(rows, &mut blob)
                .ok_or_else(|| damaged("an opening tree row does not decode"))?;
            rows.clear();
            // A bucket with entries beyond the tree only has rows from version 5 on, and
            // none before: the same data.
            if entries.is_empty() && blob.is_empty() {
                return Ok(());
            }
            h.field(&v.to_le_bytes());
            h.field(&b.to_le_bytes());
            hash_entries(entries, h);
            h.field(&blob);
            Ok(())
        },
    )?;
    // The names: each name's text and games, by field.
    section("names", &mut h);
    let texts: HashMap<i64, String> = conn
        .prepare("SELECT id, text FROM name")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut names: BTreeMap<(i64, String), Vec<u32>> = BTreeMap::new();
    for (part, blob) in tally::all(conn, Kind::Names)? {
        let rows = tally::decode_names(&blob)
            .ok_or_else(|| damaged("a tally of names does not decode"))?;
        for (id, games) in rows {
            let text = texts.get(&(id as i64)).cloned().unwrap_or_default();
            names.entry((part >> 8, text)).or_default().extend(games);
        }
    }
    for ((field, text), mut games) in names {
        games.sort_unstable();
        h.field(&field.to_le_bytes());
        h.field(text.as_bytes());
        for g in games {
            h.write(&g.to_le_bytes());
        }
    }
    // The openings, by variant: recent and consolidated lines added up; and whether the
    // consolidated lines' ranking agrees with them (a disagreement changes the digest).
    section("openings", &mut h);
    for (variant, blobs) in openings::all_rows(conn)? {
        let blobs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
        let mut blob = Vec::new();
        tally::merge_openings_with(&blobs, |r| r.write(&mut blob))
            .ok_or_else(|| damaged("a tally of openings does not decode"))?;
        h.field(&variant.to_le_bytes());
        h.field(&blob);
    }
    if !openings::consistent(conn)? {
        h.field(b"consolidated openings disagree with their ranking");
    }
    // The summaries, row by row in key order.
    for (table, order) in [
        ("summary", "variant, year, result, termination"),
        ("summary_length", "variant, plies"),
        ("summary_promotion", "variant, kind"),
    ] {
        section(table, &mut h);
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table} ORDER BY {order}"))?;
        let n = stmt.column_count();
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            for i in 0..n {
                match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Integer(v) => h.field(&v.to_le_bytes()),
                    rusqlite::types::ValueRef::Text(t) => h.field(t),
                    _ => h.field(b"?"),
                }
            }
        }
    }
    Ok(h.finish())
}

/// Hashes entries in their sorted order, and empties the list.
fn hash_entries(entries: &mut Vec<Posting>, h: &mut ContentHasher) {
    entries.sort_unstable_by_key(Posting::key);
    hash_sorted(entries, h);
    entries.clear();
}

/// Hashes entries already in (hash, game, ply) order.
fn hash_sorted(entries: &[Posting], h: &mut ContentHasher) {
    let mut blob = Vec::with_capacity(entries.len() * codec::POSTING_BYTES);
    for p in entries {
        p.write(&mut blob);
    }
    h.field(&blob);
}
