//! Importing batches of games: parallel derivation (see `prepare`), one writer, one
//! transaction per batch.

use crate::read::query::Special;
use std::sync::mpsc::TryRecvError;

use rusqlite::{OptionalExtension, Transaction, params};

use crate::FastMap;
use crate::derived::Written;
use crate::derived::name_index::NameCache;
use crate::derived::segments;
use crate::derived::tally::{self, Kind};
use crate::error::DbError;
use crate::read::query::GameId;
use crate::storage::codec::to_sql;
use crate::storage::database::{CACHE_KIB, Database, IMPORT_CACHE_KIB};
use crate::write::batch::DerivedBatch;
use crate::write::prepare::{Entry, Prepared, ReadyGame, prepare, prepare_reusing};
use crate::write::record::{self, Derived, GameRecord, RecordError};

/// Bytes of page cache an import keeps per stored game for the indexes every batch changes
/// (see [`Importer::fit_cache`]): their size with room to spare.
const INDEX_BYTES_PER_GAME: i64 = 48;

/// The most page cache an import takes, in KiB: enough for the indexes of about 5 million
/// games; beyond, they are read and written again in part.
const IMPORT_CACHE_MAX_KIB: i64 = 256 * 1024;

/// How much of the index's segment merges an import's batch carries out, in index entries
/// rewritten: `per_entry` for each entry the batch wrote, and at least `least`. A merge under
/// way is taken up where it stopped by the next batch, of this import or a later one.
///
/// The default ([`MERGE_WORK`](crate::MERGE_WORK) per entry, at least
/// [`MERGE_WORK_MIN`](crate::MERGE_WORK_MIN)) keeps pace with the merges that imports start.
/// Less makes each batch cheaper and leaves more segments (more rows per look-up) for longer;
/// `kabir index compact` merges them all at any time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeWork {
    /// Entries rewritten per entry the batch wrote.
    pub per_entry: u64,
    /// The least a batch rewrites, when any merge is under way.
    pub least: u64,
}

impl Default for MergeWork {
    fn default() -> MergeWork {
        MergeWork {
            per_entry: segments::MERGE_WORK,
            least: segments::MERGE_WORK_MIN,
        }
    }
}

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

/// Imports batches of games into a database opened for writing.
pub struct Importer<'db> {
    db: &'db mut Database,
    merge_tiers: bool,
    merge_work: MergeWork,
    rule: DuplicateRule,
    names: NameCache,
    /// Batches committed by this importer.
    committed: u64,
    /// The merge work on the index's segments that batches brought and that is not done
    /// yet, in entries, by variant id.
    owed: Vec<(i64, u64)>,
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
            merge_work: MergeWork::default(),
            rule: DuplicateRule::default(),
            names: NameCache::default(),
            committed: 0,
            owed: Vec::new(),
            panic_in: None,
        })
    }

    /// Merges each variant's index segments into one (after many small imports).
    pub fn compact(&mut self) -> Result<(), DbError> {
        if self.read_only {
            return Err(DbError::OpenedReadOnly);
        }
        for v in self.variant_ids()? {
            segments::merge_all(&mut self.conn, v).map_err(|e| self.err(e))?;
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

    /// How much merging of the index's segments each batch does (see [`MergeWork`]).
    pub fn set_merge_work(&mut self, work: MergeWork) {
        self.merge_work = work;
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
        let stats = self.write(prepared, drop)?;
        self.pay(u64::MAX, &mut || false)?;
        Ok(stats)
    }

    /// Imports a stream of batches of records ([`GameRecord`]) or games made ready
    /// ([`ReadyGame`]), each sorted for the index on all cores and then written. A batch is
    /// sorted while the one before it is written, and the next is taken from `batches` only
    /// once the sorted one goes to be written, so two batches are in memory here at a time
    /// while the caller makes a third; records are made ready here, games made ready by the
    /// caller (while it reads them, say) leave only the sorting and the writing to this stage.
    /// The index's merges that the batches bring are done while the writer waits for the
    /// next batch, and what is left of them once the last is written (see
    /// `docs/DATABASE.md`, "The position index"). `on_batch` sees each committed batch's
    /// stats; the totals are returned. Stops at the first error: the batches committed before
    /// it stay.
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
        // The first import of a new file need not wait for the disk at each commit: a mark
        // makes a file cut off by a stop of the system known as such (see
        // `Database::begin_unsynced`).
        let unsynced = if rollback {
            self.db.begin_unsynced()?
        } else {
            None
        };
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
        let outcome = std::thread::scope(|scope| {
            if let Some(conn) = checkpointer {
                scope.spawn(move || {
                    while commits.recv().is_ok() {
                        while commits.try_recv().is_ok() {}
                        let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                    }
                });
            }
            let handle = scope.spawn(move || {
                // Each batch owes merge work (see `Importer::pay`), which the writer does
                // while no batch is ready for it, taking the next one as soon as it is:
                // merging right after each batch kept the batches after it waiting. At most
                // `MERGE_CARRY` batches' work is put off when a batch is taken, and all of it
                // is done before the import ends, so the index is left as merged as before.
                let mut ready: Option<Prepared> = None;
                let mut carry = 0u64;
                let mut failed = false;
                loop {
                    let prepared = match ready.take() {
                        Some(p) => p,
                        None if writer.owed() == 0 => match from_main.recv() {
                            Ok(p) => p,
                            Err(_) => break,
                        },
                        None => {
                            let mut closed = false;
                            let paid = writer.pay(u64::MAX, &mut || {
                                if ready.is_none() && !closed {
                                    match from_main.try_recv() {
                                        Ok(p) => ready = Some(p),
                                        Err(TryRecvError::Disconnected) => closed = true,
                                        Err(TryRecvError::Empty) => {}
                                    }
                                }
                                ready.is_some() || closed
                            });
                            let _ = to_checkpointer.send(());
                            if let Err(e) = paid {
                                let _ = to_main.send(Err(e));
                                failed = true;
                                break;
                            }
                            if closed {
                                break;
                            }
                            continue;
                        }
                    };
                    let excess = writer.owed().saturating_sub(carry);
                    if excess > 0
                        && let Err(e) = writer.pay(excess, &mut || false)
                    {
                        let _ = to_main.send(Err(e));
                        failed = true;
                        break;
                    }
                    writer.fit_cache();
                    let before = writer.owed();
                    let r = writer.write(prepared, |e| {
                        let _ = spare_entries.send(e);
                    });
                    carry = writer
                        .owed()
                        .saturating_sub(before)
                        .saturating_mul(MERGE_CARRY);
                    failed = r.is_err();
                    let _ = to_checkpointer.send(());
                    if to_main.send(r).is_err() || failed {
                        failed = true;
                        break;
                    }
                }
                if !failed {
                    if let Err(e) = writer.pay(u64::MAX, &mut || false) {
                        let _ = to_main.send(Err(e));
                    }
                    let _ = to_checkpointer.send(());
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
        });
        // Whatever stopped the import, what it committed is synced before it returns.
        if let Some(key) = unsynced {
            let ended = self.db.end_unsynced(&key);
            if outcome.is_ok() {
                ended?;
            }
        }
        outcome?;
        Ok(totals)
    }

    /// Sizes SQLite's page cache for the next batch of an import: [`IMPORT_CACHE_KIB`] for
    /// the pages the batch appends, and room for the indexes that every batch changes all
    /// over (the duplicate key `game_key`, about 27 bytes a game, and the key of `tree`).
    /// With those evicted by the appended pages, a game's duplicate check read a 64 KiB page
    /// and its insert wrote one back: a million games read 14 GB and wrote 21 GB beyond the
    /// 12.7 GB database.
    fn fit_cache(&self) {
        let games: i64 = self
            .db
            .conn
            .query_row("SELECT coalesce(max(id), 0) FROM game", [], |r| r.get(0))
            .unwrap_or(0);
        let kib = IMPORT_CACHE_KIB as i64 + (games.max(0) * INDEX_BYTES_PER_GAME / 1024);
        let kib = kib.min(IMPORT_CACHE_MAX_KIB);
        let _ = self
            .db
            .conn
            .execute_batch(&format!("PRAGMA cache_size = -{kib}"));
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
        let (stats, mut written) = written.map_err(|e| match e {
            WriteError::Sql(e) => db.err(e),
            WriteError::TooManyGames => DbError::TooManyGames,
        })?;
        self.names.commit(std::mem::take(&mut written.names));
        self.committed += 1;
        if self.merge_tiers {
            written.merge_tallies(&mut db.conn).map_err(|e| db.err(e))?;
            for (v, work) in written.merge_work(self.merge_work) {
                match self.owed.iter_mut().find(|(o, _)| *o == v) {
                    Some((_, owed)) => *owed = owed.saturating_add(work),
                    None => self.owed.push((v, work)),
                }
            }
        }
        Ok(stats)
    }

    /// The merge work owed, in entries (see [`Importer::pay`]).
    fn owed(&self) -> u64 {
        self.owed.iter().map(|&(_, w)| w).sum()
    }

    /// Does up to `limit` entries of the merge work owed, variant by variant, each in a
    /// transaction of its own, stopping early when `stop` says so between tree buckets.
    /// Work owed for a variant with no merge under way is dropped: there is nothing to do.
    fn pay(&mut self, mut limit: u64, stop: &mut dyn FnMut() -> bool) -> Result<(), DbError> {
        while limit > 0
            && let Some(&(v, owed)) = self.owed.first()
        {
            let budget = owed.min(limit);
            let progress = segments::merge_after_batch(&mut self.db.conn, v, budget, stop)
                .map_err(|e| self.db.err(e))?;
            limit = limit.saturating_sub(progress.merged);
            let left = owed.saturating_sub(progress.merged);
            if progress.under_way && left > 0 {
                self.owed[0].1 = left;
                if progress.merged < budget {
                    // Stopped.
                    return Ok(());
                }
            } else {
                self.owed.remove(0);
            }
        }
        Ok(())
    }
}

/// The batches' worth of merge work an import's writer may put off when it takes a batch
/// (see [`Importer::import_all`]).
const MERGE_CARRY: u64 = 2;

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
    stmts: &mut GameStatements<'_>,
    variant: i64,
    d: &Derived,
    rule: DuplicateRule,
) -> rusqlite::Result<Option<GameId>> {
    let mut rows = match rule {
        DuplicateRule::Record => {
            stmts
                .lookup
                .query(params![to_sql(d.content), to_sql(d.record), variant])?
        }
        DuplicateRule::Moves => stmts.lookup.query(params![to_sql(d.content), variant])?,
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
            let roster = record::roster_of_columns(4, text)?;
            let result = row.get_ref(3)?.as_str()?;
            if !record::same_record_fields(result, &roster, d.result.as_str(), &d.roster_values()) {
                continue;
            }
        }
        if let Ok(id) = u32::try_from(row.get::<_, i64>(0)?) {
            let id = GameId(id);
            first = Some(first.map_or(id, |f| f.min(id)));
        }
    }
    Ok(first)
}

/// The statements a batch runs for each game, prepared once for the batch: looked up in the
/// connection's cache for every game, they were a few percent of the writer's time.
struct GameStatements<'tx> {
    /// The stored games with a game's key, under the batch's duplicate rule. No ORDER BY:
    /// the first is found among the few rows with the key (SQLite would sort them in a
    /// temporary B-tree, on every game).
    lookup: rusqlite::CachedStatement<'tx>,
    game: rusqlite::CachedStatement<'tx>,
    text: rusqlite::CachedStatement<'tx>,
    promotion: rusqlite::CachedStatement<'tx>,
}

impl<'tx> GameStatements<'tx> {
    fn new(tx: &'tx Transaction<'_>, rule: DuplicateRule) -> rusqlite::Result<Self> {
        Ok(GameStatements {
            lookup: tx.prepare_cached(match rule {
                DuplicateRule::Record => {
                    "SELECT id, start_fen, moves, result, event, site, date, round, white, black
                     FROM game WHERE content = ?1 AND record = ?2 AND variant = ?3"
                }
                DuplicateRule::Moves => {
                    "SELECT id, start_fen, moves FROM game WHERE content = ?1 AND variant = ?2"
                }
            })?,
            game: tx.prepare_cached(
                "INSERT INTO game (variant, content, record, start_fen, standard_start, moves,
                     plies, result, termination, event, site, date, round, white, black, swaps,
                     lifts, relocations, promotions, arrivals, adventitious_kings,
                     citadel_entries)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                     ?17, ?18, ?19, ?20, ?21, ?22)",
            )?,
            text: tx
                .prepare_cached("INSERT INTO game_text (game, tags, pgn) VALUES (?1, ?2, ?3)")?,
            promotion: tx
                .prepare_cached("INSERT INTO promotion (game, kind, count) VALUES (?1, ?2, ?3)")?,
        })
    }
}

/// Whether two derived games of one variant are duplicates under `rule`.
fn same_game(a: &Derived, b: &Derived, rule: DuplicateRule) -> bool {
    a.start_fen == b.start_fen
        && a.moves_blob == b.moves_blob
        && match rule {
            DuplicateRule::Moves => true,
            DuplicateRule::Record => record::same_record_fields(
                a.result.as_str(),
                &a.roster_values(),
                b.result.as_str(),
                &b.roster_values(),
            ),
        }
}

fn insert_game(
    tx: &Transaction<'_>,
    stmts: &mut GameStatements<'_>,
    variant: i64,
    d: &Derived,
) -> Result<u32, WriteError> {
    let s = &d.special;
    let roster = d.roster_values();
    stmts.game.execute(params![
        variant,
        to_sql(d.content),
        to_sql(d.record),
        d.start_fen,
        d.standard_start,
        d.moves_blob,
        d.plies,
        d.result.as_str(),
        d.end.as_str(),
        roster.event,
        roster.site,
        roster.date,
        roster.round,
        roster.white,
        roster.black,
        s.count[Special::Swap] as i64,
        s.count[Special::Lift] as i64,
        s.count[Special::Relocation] as i64,
        s.count[Special::Promotion] as i64,
        s.count[Special::Arrival] as i64,
        s.count[Special::AdventitiousKing] as i64,
        s.count[Special::CitadelEntry] as i64,
    ])?;
    let id = tx.last_insert_rowid();
    let id = u32::try_from(id).map_err(|_| WriteError::TooManyGames)?;
    let tags = serde_json::to_string(&d.tags).unwrap_or_else(|_| "[]".to_string());
    stmts.text.execute(params![id, tags, d.pgn])?;
    for (kind, count) in &s.promotions_by_kind {
        stmts.promotion.execute(params![id, kind, *count as i64])?;
    }
    Ok(id)
}

/// The batch's rows, inside the caller's transaction.
fn write_batch(
    tx: &Transaction<'_>,
    prepared: &Prepared,
    rule: DuplicateRule,
    names: &mut NameCache,
) -> Result<(BatchStats, Written), WriteError> {
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
    // The batch's games by (variant, key): the last stored one in `seen`, each one's
    // predecessor with the same key in `earlier`. A list through the batch rather than a
    // vector per key: no allocation per game.
    let mut seen: FastMap<(i64, u64), usize> = FastMap::default();
    seen.reserve(prepared.games.len());
    let mut earlier: Vec<Option<usize>> = vec![None; prepared.games.len()];
    let mut games_per_variant: FastMap<i64, u64> = FastMap::default();
    let mut stmts = GameStatements::new(tx, rule)?;
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
        let last = seen.get(&(v, key)).copied();
        let mut in_batch = None;
        let mut at = last;
        while let Some(j) = at {
            if let Some(Ok(o)) = prepared.games.get(j)
                && same_game(o, d, rule)
                && let Some(id) = ids[j]
            {
                in_batch = Some(GameId(id));
                break;
            }
            at = earlier.get(j).copied().flatten();
        }
        if let Some(of) = match in_batch {
            Some(of) => Some(of),
            None => stored(&mut stmts, v, d, rule)?,
        } {
            stats.duplicates += 1;
            stats.duplicate_of.push(Duplicate { index: i, of });
            continue;
        }
        earlier[i] = last;
        seen.insert((v, key), i);
        ids[i] = Some(insert_game(tx, &mut stmts, v, d)?);
        *games_per_variant.entry(v).or_default() += 1;
        stats.imported += 1;
    }
    drop(stmts);
    let mut batch = DerivedBatch::default();
    for (g, id) in prepared.games.iter().zip(&ids) {
        let (Ok(d), Some(id)) = (g, id) else { continue };
        batch.add(*id, &d.facts(variant_of(d)), d.names());
    }
    let written = batch.write(tx, prepared, &ids, &variant_ids, names)?;
    stats.positions = written.positions;
    Ok((stats, written))
}

/// Looks up the id of the variant named `name`, if the database has it.
pub(crate) fn find_variant(db: &Database, name: &str) -> Result<Option<i64>, DbError> {
    db.conn
        .prepare_cached("SELECT id FROM variant WHERE name = ?1")
        .and_then(|mut s| s.query_row(params![name], |r| r.get(0)).optional())
        .map_err(|e| db.err(e))
}
