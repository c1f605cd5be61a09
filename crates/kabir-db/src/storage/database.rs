//! Opening and creating database files.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::DbError;
use crate::storage::schema::{self, APPLICATION_ID, DERIVED_CURRENT, READABLE_FROM, Step, VERSION};

/// How long a writer waits for another writer's transaction before giving up.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// How much of a file a read-only connection maps into memory: all of it, up to 1 TiB (the
/// limit SQLite is built with, `.cargo/config.toml`). A query reads a few hundred scattered
/// rows of the position index and the opening tree, each in its own 64 KiB page: read with
/// `pread`, each page is copied whole from the system's cache (about 35 MB per `explore` at a
/// million games, a third of its time); mapped, only the few kilobytes it looks at are
/// touched. Writers keep reading through SQLite's page cache.
const READ_MMAP_BYTES: i64 = 1 << 40;

/// The start of the keys of `meta` that mark imports committing without waiting for the disk
/// (see `Database::begin_unsynced`): `unsynced <boot id> <process id> <n>`.
const UNSYNCED: &str = "unsynced ";
/// Just after every such key.
const UNSYNCED_END: &str = "unsynced!";
/// The schema version that brought `meta`.
const META_FROM: u32 = 3;

/// Tells apart the marks of one process's connections.
static NEXT_MARK: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// What names this start of the system, where the system says (Linux): writes that did not
/// wait for the disk are safe in its memory until it stops.
fn boot_id() -> Option<String> {
    if cfg!(target_os = "linux") {
        std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty() && !s.contains(' '))
    } else {
        None
    }
}

/// Whether a process of this id runs (where [`boot_id`] is known, Linux's `/proc` says).
fn process_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// A game database file.
///
/// [`Database::create_or_open`] opens one for writing (its [`importer`](Database::importer)
/// stores games), [`Database::open`] for queries only: the opening explorer
/// ([`explore`](Database::explore)), games by position
/// ([`search_position`](Database::search_position)), by tags and more
/// ([`search`](Database::search)), statistics ([`report`](Database::report)).
///
/// ```
/// use kabir_db::{Database, GameRecord};
/// use kabir_rules::generate::{Options, random_game};
/// use kabir_rules::Position;
///
/// let shatranj = kabir_rules::variants::builtin("shatranj")?;
/// let options = Options { max_plies: 40, ..Options::default() };
/// let records: Vec<GameRecord> = (0..10)
///     .map(|i| {
///         let game = random_game(&shatranj, 7, i, &options);
///         let result = game.status().outcome().map_or("*", |o| o.as_pgn()).to_string();
///         let tags = vec![("Round".into(), i.to_string()), ("Result".into(), result.clone())];
///         let text = kabir_notation::write_game(&game, &tags);
///         GameRecord::from_game(shatranj.clone(), &game, tags, result, text)
///     })
///     .collect();
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("games.db");
/// let mut db = Database::create_or_open(&path)?;
/// assert_eq!(db.importer()?.import_batch(records)?.imported, 10);
/// drop(db);
///
/// let db = Database::open(&path)?;
/// let start = Position::start(&shatranj);
/// // Every game starts at the start position, at ply 0.
/// let hits = db.search_position(&start)?;
/// assert_eq!(hits.len(), 10);
/// assert!(hits.iter().all(|h| h.ply == 0));
/// let first = db.game(hits[0].game)?.expect("a stored game");
/// assert_eq!(first.variant, "shatranj");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Database {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    pub(crate) read_only: bool,
    pub(crate) busy_ms: u64,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("path", &self.path)
            .field("read_only", &self.read_only)
            .finish()
    }
}

impl Drop for Database {
    /// A writer leaves the file in rollback-journal mode when it is the last connection, so
    /// that a later read-only open needs no `-wal` or `-shm` file and creates none. With other
    /// connections open the switch fails at once and the file stays in WAL mode.
    fn drop(&mut self) {
        if !self.read_only {
            let _ = self.conn.busy_timeout(Duration::ZERO);
            let _ = self
                .conn
                .query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()));
        }
    }
}

/// What a query can use of the file, read at the start of its read transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The file has the tables of version 3: index entries may be kept with the opening
    /// tree.
    pub tree: bool,
    /// The derived tables (the opening tree, the summaries, the name index) cover every
    /// stored game.
    pub current: bool,
    /// The file has the `beyond` column of version 5: tree rows may hold index entries of
    /// the position index proper.
    pub beyond: bool,
}

/// Plays back the rollback journal of a commit that a crash interrupted, as any writing
/// connection does when it first reads: the file returns to its last committed batch.
fn roll_back_interrupted(path: &Path) -> Result<(), DbError> {
    let interrupted = || DbError::Interrupted {
        path: path.to_path_buf(),
    };
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|_| interrupted())?;
    let _ = conn.busy_timeout(DEFAULT_BUSY_TIMEOUT);
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))
        .map_err(|_| interrupted())
}

fn check_not_directory(path: &Path) -> Result<Option<std::fs::Metadata>, DbError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(DbError::IsDirectory {
            path: path.to_path_buf(),
        }),
        Ok(m) => Ok(Some(m)),
        Err(_) => Ok(None),
    }
}

/// SQLite's page cache of a connection, in KiB.
pub(crate) const CACHE_KIB: u32 = 65_536;

/// The page cache while an import writes: its batches' pages are mostly new ones, written once,
/// so a larger cache buys the import little (16 MB and 64 MB import at the same speed), and the
/// memory goes to the batch sorted while another is written.
pub(crate) const IMPORT_CACHE_KIB: u32 = 16_384;

impl Database {
    /// Opens a connection with `mode` flags.
    fn connect(path: &Path, mode: OpenFlags) -> Result<Database, DbError> {
        let flags = mode | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| DbError::from_sqlite(path, e, 0, 0))?;
        // `rarray(?)` binds a list of game ids as one parameter (see `GameFilter::games`).
        rusqlite::vtab::array::load_module(&conn)
            .map_err(|e| DbError::from_sqlite(path, e, 0, 0))?;
        // `kabir_fold(text)`: names as searches match them (see `names::fold_name`).
        conn.create_scalar_function(
            "kabir_fold",
            1,
            rusqlite::functions::FunctionFlags::SQLITE_UTF8
                | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
            |ctx| {
                Ok(match ctx.get_raw(0) {
                    rusqlite::types::ValueRef::Text(t) => Some(crate::derived::names::fold_name(
                        &String::from_utf8_lossy(t),
                    )),
                    _ => None,
                })
            },
        )
        .map_err(|e| DbError::from_sqlite(path, e, 0, 0))?;
        let mut db = Database {
            conn,
            path: path.to_path_buf(),
            read_only: !mode.contains(OpenFlags::SQLITE_OPEN_READ_WRITE),
            busy_ms: 0,
        };
        db.set_busy_timeout(DEFAULT_BUSY_TIMEOUT)?;
        Ok(db)
    }

    /// Maps the file into memory for reading (see [`READ_MMAP_BYTES`]); SQLite lowers the
    /// size to what it was built to allow.
    fn map_for_reading(&self) -> Result<(), DbError> {
        self.conn
            .query_row(&format!("PRAGMA mmap_size = {READ_MMAP_BYTES}"), [], |_| {
                Ok(())
            })
            .map_err(|e| self.err(e))
    }

    /// Opens an existing database for queries only. Never creates or changes a file, except to
    /// finish SQLite's recovery after a crash in the middle of a commit (see
    /// `docs/DATABASE.md`, "Journal"); refuses a database whose schema is newer than this
    /// code's, or too old for its queries to read without a migration.
    pub fn open(path: impl AsRef<Path>) -> Result<Database, DbError> {
        let path = path.as_ref();
        if check_not_directory(path)?.is_none() {
            return Err(DbError::NotFound {
                path: path.to_path_buf(),
            });
        }
        let db = Database::connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        db.map_for_reading()?;
        // The first read finds a commit that a crash cut short (see `snapshot` for why the
        // header and the tables are read together).
        let (db, (app, version, tables, shape)) = match db.snapshot() {
            Err(DbError::Interrupted { .. }) => {
                drop(db);
                roll_back_interrupted(path)?;
                let db = Database::connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
                db.map_for_reading()?;
                let header = db.snapshot()?;
                (db, header)
            }
            r => (db, r?),
        };
        if app != APPLICATION_ID {
            return Err(if app == 0 && version == 0 && !tables {
                DbError::NotADatabase {
                    path: path.to_path_buf(),
                }
            } else {
                DbError::ForeignDatabase {
                    path: path.to_path_buf(),
                }
            });
        }
        db.check_version(version)?;
        db.check_tables(version, shape)?;
        if version < READABLE_FROM {
            return Err(DbError::OlderSchema {
                path: path.to_path_buf(),
                found: version,
                known: VERSION,
            });
        }
        db.unsynced_marks(version)?;
        Ok(db)
    }

    /// Opens a database for importing and queries, creating the file if needed and migrating
    /// an older schema forward.
    pub fn create_or_open(path: impl AsRef<Path>) -> Result<Database, DbError> {
        let path = path.as_ref();
        if let Some(meta) = check_not_directory(path)?
            && meta.permissions().readonly()
        {
            return Err(DbError::ReadOnly {
                path: path.to_path_buf(),
            });
        }
        let mut db = Database::connect(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
        )?;
        let (app, version, tables, shape) = db.snapshot()?;
        if app != APPLICATION_ID && (app != 0 || version != 0 || tables) {
            return Err(DbError::ForeignDatabase {
                path: path.to_path_buf(),
            });
        }
        db.check_version(version)?;
        db.check_tables(version, shape)?;
        // A file that may be half written is refused before anything is written to it.
        let marks = db.unsynced_marks(version)?;
        // Index segments are blobs of tens of kilobytes: in pages of 64 KiB most of them fit
        // in one page instead of a chain of small ones, which makes imports much cheaper. A
        // page size takes effect only on a new file; an existing one keeps its own.
        db.conn
            .execute_batch("PRAGMA page_size = 65536")
            .map_err(|e| db.err(e))?;
        // WAL: readers never block the writer and a crash loses only uncommitted batches.
        // NORMAL synchronisation is durable to the last checkpoint and never corrupts in WAL.
        db.enter_wal()?;
        db.conn
            .execute_batch(&format!(
                "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -{CACHE_KIB};"
            ))
            .map_err(|e| db.err(e))?;
        if version < VERSION {
            db.migrate()?;
        }
        db.settle_unsynced(marks)?;
        Ok(db)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the database was opened with [`Database::open`].
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The schema version of the file.
    pub fn schema_version(&self) -> Result<u32, DbError> {
        self.header().map(|(_, v)| v)
    }

    /// How long to wait for another writer before failing with [`DbError::Busy`].
    pub fn set_busy_timeout(&mut self, timeout: Duration) -> Result<(), DbError> {
        self.busy_ms = timeout.as_millis().try_into().unwrap_or(u64::MAX);
        self.conn.busy_timeout(timeout).map_err(|e| self.err(e))
    }

    /// Switches to a rollback journal when no other connection has the file open (WAL mode
    /// cannot be left otherwise); returns whether it did. For bulk writing: pages appended to
    /// the file are written once, where WAL writes every page twice (to the log, then back
    /// into the file at a checkpoint). Another connection that opens the file later may
    /// switch it back to WAL between transactions, which SQLite allows: this connection then
    /// follows.
    pub(crate) fn enter_rollback_journal(&self) -> bool {
        let _ = self.conn.busy_timeout(Duration::ZERO);
        let switched = self
            .conn
            .query_row("PRAGMA journal_mode = TRUNCATE", [], |r| {
                r.get::<_, String>(0)
            })
            .is_ok_and(|m| m.eq_ignore_ascii_case("truncate"));
        let _ = self.conn.busy_timeout(Duration::from_millis(self.busy_ms));
        // A rollback journal needs every commit synced to leave nothing half-written after a
        // power failure; WAL mode keeps its NORMAL synchronisation (a sync per checkpoint).
        switched && self.conn.execute_batch("PRAGMA synchronous = FULL").is_ok()
    }

    /// The marks of the imports that are committing, or were, without waiting for the disk
    /// (see [`Database::begin_unsynced`]), as (key, process id) for those of the running
    /// system. A mark of an earlier start of the system is [`DbError::Unsynced`]: its import
    /// was cut off with writes perhaps still in memory.
    fn unsynced_marks(&self, version: u32) -> Result<Vec<(String, u32)>, DbError> {
        // `meta` came with schema version 3; older files know no such import.
        if version < META_FROM {
            return Ok(Vec::new());
        }
        let keys: Vec<String> = self
            .conn
            .prepare("SELECT key FROM meta WHERE key >= ?1 AND key < ?2")
            .and_then(|mut st| {
                st.query_map([UNSYNCED, UNSYNCED_END], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(|e| self.err(e))?;
        let boot = boot_id();
        let mut marks = Vec::with_capacity(keys.len());
        for key in keys {
            let mut words = key.strip_prefix(UNSYNCED).unwrap_or("").split(' ');
            let (mark_boot, pid) = (words.next(), words.next().and_then(|p| p.parse().ok()));
            match (boot.as_deref(), mark_boot, pid) {
                (Some(now), Some(then), Some(pid)) if now == then => marks.push((key, pid)),
                _ => {
                    return Err(DbError::Unsynced {
                        path: self.path.clone(),
                    });
                }
            }
        }
        Ok(marks)
    }

    /// Removes those of `marks` (see [`Database::unsynced_marks`]) that imports of this start
    /// of the system left when they were cut off (their process is gone): what they wrote is
    /// in the system's memory, whole, and is written to disk here first.
    fn settle_unsynced(&self, marks: Vec<(String, u32)>) -> Result<(), DbError> {
        let me = std::process::id();
        let gone: Vec<String> = marks
            .into_iter()
            .filter(|&(_, pid)| pid != me && !process_alive(pid))
            .map(|(key, _)| key)
            .collect();
        if gone.is_empty() {
            return Ok(());
        }
        self.sync_files()?;
        let mut delete = self
            .conn
            .prepare_cached("DELETE FROM meta WHERE key = ?1")
            .map_err(|e| self.err(e))?;
        for key in gone {
            delete.execute([key]).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Starts committing without waiting for the disk (`synchronous = OFF`), when that can
    /// lose nothing that was stored: the file holds no game, this connection writes it
    /// through a rollback journal, and the system can say when it was started (Linux). A mark
    /// in `meta`, committed and synced first, names this start of the system and this
    /// process: should the system stop before [`Database::end_unsynced`], every later
    /// opening of the file reports it ([`DbError::Unsynced`]) instead of reading what may be
    /// half written. A process killed meanwhile leaves its writes whole in the system's
    /// memory, and the next connection that writes removes its mark. Returns the mark's key.
    pub(crate) fn begin_unsynced(&self) -> Result<Option<String>, DbError> {
        let Some(boot) = boot_id() else {
            return Ok(None);
        };
        let empty: bool = self
            .conn
            .query_row("SELECT NOT EXISTS (SELECT 1 FROM game)", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if !empty {
            return Ok(None);
        }
        // Numbers of one width, and the row deleted with `secure_delete`: a file imported
        // twice the same way is the same bytes, whatever the processes' ids.
        let key = format!(
            "{UNSYNCED}{boot} {:010} {:010}",
            std::process::id(),
            NEXT_MARK.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        // Committed with `synchronous = FULL`: the mark is on disk before any write that
        // does not wait.
        self.conn
            .execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, 'import')",
                [&key],
            )
            .map_err(|e| self.err(e))?;
        self.conn
            .execute_batch("PRAGMA synchronous = OFF")
            .map_err(|e| self.err(e))?;
        Ok(Some(key))
    }

    /// Ends what [`Database::begin_unsynced`] began: everything written is synced to disk,
    /// then the mark is removed by a commit that waits for the disk.
    pub(crate) fn end_unsynced(&self, key: &str) -> Result<(), DbError> {
        self.conn
            .execute_batch("PRAGMA synchronous = FULL")
            .map_err(|e| self.err(e))?;
        // Another writer may have put the file in WAL mode meanwhile: its log is synced too.
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        self.sync_files()?;
        let deleted = self
            .conn
            .execute_batch("PRAGMA secure_delete = ON")
            .and_then(|()| self.conn.execute("DELETE FROM meta WHERE key = ?1", [key]));
        let _ = self.conn.execute_batch("PRAGMA secure_delete = OFF");
        deleted.map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Writes the file and its WAL, if it has one, to disk (`fsync`).
    fn sync_files(&self) -> Result<(), DbError> {
        let sync = |path: &Path| -> std::io::Result<()> {
            match std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(path)
            {
                Ok(file) => file.sync_all(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(e),
            }
        };
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        sync(Path::new(&wal))
            .and_then(|()| sync(&self.path))
            .map_err(|error| DbError::Sync {
                path: self.path.clone(),
                error,
            })
    }

    /// Runs SQLite's own consistency check; `Ok(())` when it answers `ok`.
    pub fn integrity_check(&self) -> Result<(), DbError> {
        let answer: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if answer == "ok" {
            Ok(())
        } else {
            Err(DbError::Corrupt {
                path: self.path.clone(),
                detail: answer,
            })
        }
    }

    /// Runs a query in one read transaction, so that all it reads comes from the same
    /// committed state (whole batches of an import running meanwhile, never part of one),
    /// with what the file offers to queries. Inside a transaction already, it runs in that.
    pub(crate) fn read<T>(
        &self,
        f: impl FnOnce(Layout) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        if !self.conn.is_autocommit() {
            return f(self.layout()?);
        }
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let out = f(self.layout()?)?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(out)
    }

    /// What the file offers to queries (see [`Layout`]).
    pub(crate) fn layout(&self) -> Result<Layout, DbError> {
        let version: i64 = self
            .conn
            .prepare_cached("PRAGMA user_version")
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(|e| self.err(e))?;
        if version < 3 {
            return Ok(Layout {
                tree: false,
                current: false,
                beyond: false,
            });
        }
        let derived: Option<String> = self
            .conn
            .prepare_cached("SELECT value FROM meta WHERE key = 'derived'")
            .and_then(|mut s| {
                use rusqlite::OptionalExtension;
                s.query_row([], |r| r.get(0)).optional()
            })
            .map_err(|e| self.err(e))?;
        Ok(Layout {
            tree: true,
            current: derived.as_deref() == Some(DERIVED_CURRENT),
            beyond: version >= i64::from(schema::BEYOND_IN_TREE_FROM),
        })
    }

    /// Whether the derived tables (the opening tree, the statistics summaries and the name
    /// index) cover every stored game, so that queries can use them. A file migrated from
    /// an earlier version gets them from [`Database::rebuild`].
    pub fn derived_current(&self) -> Result<bool, DbError> {
        self.read(|layout| Ok(layout.current))
    }

    /// The underlying connection, for plain-SQL reading (the schema is documented in
    /// `docs/DATABASE.md`).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Calls `stop` every `steps` virtual-machine steps of a statement and interrupts the
    /// statement when it returns true: how a server bounds the time of one query.
    pub fn interrupt_when<F>(&mut self, steps: i32, stop: F) -> Result<(), DbError>
    where
        F: FnMut() -> bool + Send + 'static,
    {
        self.conn
            .progress_handler(steps, Some(stop))
            .map_err(|e| self.err(e))
    }

    /// The typed error for an SQLite error that the last call on this connection returned,
    /// also for calls made through [`connection`](Self::connection).
    pub fn err(&self, e: rusqlite::Error) -> DbError {
        DbError::from_sqlite(&self.path, e, self.busy_ms, self.os_error())
    }

    /// The operating system's error number behind the connection's last I/O error (0 if
    /// none): what tells a full disk from a file-size limit or a read-only directory.
    #[allow(unsafe_code)]
    fn os_error(&self) -> i32 {
        // SAFETY: the handle is this open connection's, used on the thread that owns it;
        // `sqlite3_system_errno` only reads a number that the connection keeps.
        unsafe { rusqlite::ffi::sqlite3_system_errno(self.conn.handle()) }
    }

    fn header(&self) -> Result<(i32, u32), DbError> {
        let app: i32 = self
            .conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok((app, u32::try_from(version).unwrap_or(u32::MAX)))
    }

    /// Switches to WAL mode. The switch needs the file to itself for a moment, and SQLite does
    /// not wait for that on its own: retry until the busy timeout.
    fn enter_wal(&self) -> Result<(), DbError> {
        let start = std::time::Instant::now();
        loop {
            match self
                .conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
            {
                Ok(_) => return Ok(()),
                Err(e)
                    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                        && (start.elapsed().as_millis() as u64) < self.busy_ms =>
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(self.err(e)),
            }
        }
    }

    /// The header (see [`Database::header`]), whether the file has tables and the schema
    /// version they are those of (see [`schema::tables_version`]), read in one transaction.
    /// Another process may be creating the schema (header included, in one transaction):
    /// read together, all are from before it or all from after. Read apart, an empty header
    /// and the other's new tables made a kabir database look like another program's.
    fn snapshot(&self) -> Result<(i32, u32, bool, Option<u32>), DbError> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let (app, version) = self.header()?;
        let tables = self.has_tables()?;
        let shape = if app == APPLICATION_ID {
            schema::tables_version(&self.conn).map_err(|e| self.err(e))?
        } else {
            Some(0)
        };
        tx.commit().map_err(|e| self.err(e))?;
        Ok((app, version, tables, shape))
    }

    fn has_tables(&self) -> Result<bool, DbError> {
        self.conn
            .query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    fn check_version(&self, version: u32) -> Result<(), DbError> {
        if version > VERSION {
            return Err(DbError::NewerSchema {
                path: self.path.clone(),
                found: version,
                known: VERSION,
            });
        }
        Ok(())
    }

    /// Refuses a kabir file whose recorded schema version is not that of its tables (the
    /// number was changed by another program, or a table dropped): migrating it would fail
    /// on a table that exists, and reading it would miss what it holds.
    fn check_tables(&self, version: u32, shape: Option<u32>) -> Result<(), DbError> {
        match shape {
            Some(v) if v == version => Ok(()),
            Some(tables) => Err(DbError::SchemaMismatch {
                path: self.path.clone(),
                found: version,
                tables,
            }),
            None => Err(DbError::Corrupt {
                path: self.path.clone(),
                detail: format!(
                    "its tables are those of no schema version (it records version {version}): \
                     a table or column is missing"
                ),
            }),
        }
    }

    /// Brings the schema to [`VERSION`], in one transaction; safe when two processes race.
    fn migrate(&mut self) -> Result<(), DbError> {
        match migrate(&mut self.conn) {
            Ok(None) => Ok(()),
            Ok(Some(found)) => Err(DbError::NewerSchema {
                path: self.path.clone(),
                found,
                known: VERSION,
            }),
            // The transaction is over (rolled back): nothing of the migration is left.
            Err(e) => Err(self.err(e)),
        }
    }
}

/// Runs the migrations the file lacks, in one `BEGIN IMMEDIATE` transaction, re-reading the
/// version inside it. Returns the version found if it is newer than this code's.
fn migrate(conn: &mut Connection) -> rusqlite::Result<Option<u32>> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let version = u32::try_from(version).unwrap_or(u32::MAX);
    if version > VERSION {
        return Ok(Some(version));
    }
    if version == VERSION {
        return Ok(None);
    }
    for (i, steps) in schema::MIGRATIONS.iter().enumerate().skip(version as usize) {
        for step in steps.iter() {
            match step {
                Step::Sql(sql) => tx.execute_batch(sql)?,
                Step::Run(run) => run(&tx)?,
            }
        }
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.commit()?;
    Ok(None)
}
