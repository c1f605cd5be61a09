//! What can go wrong with a game database.

use std::path::PathBuf;

/// An error from the game database.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DbError {
    /// [`Database::open`](crate::Database::open) was given a path where no file exists (it
    /// never creates one).
    #[error("{}: no such database file", path.display())]
    NotFound {
        /// The path given.
        path: PathBuf,
    },
    /// The path names a directory.
    #[error("{}: is a directory, not a database file", path.display())]
    IsDirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The file cannot be written: its permissions make it read-only (found before opening
    /// it for writing), or SQLite was refused a write.
    #[error("{}: the file is read-only; cannot write to the database", path.display())]
    ReadOnly {
        /// The database file.
        path: PathBuf,
    },
    /// SQLite cannot create its journal because the database's directory is not writable.
    #[error(
        "{}: cannot write to the database: its directory {} is not writable, and SQLite \
         needs to create its journal (the file's name with -journal, or -wal and -shm) \
         beside the database file",
        path.display(),
        directory.display()
    )]
    ReadOnlyDirectory {
        /// The database file.
        path: PathBuf,
        /// The directory holding it (`.` for a bare file name).
        directory: PathBuf,
    },
    /// A write failed for lack of space: SQLite's own "full" error, or the operating
    /// system's (no space left on the device, or a disk quota exceeded).
    #[error("{}: database or disk is full", path.display())]
    DiskFull {
        /// The database file.
        path: PathBuf,
    },
    /// A write went past the process's file-size limit (`EFBIG`).
    #[error(
        "{}: file too large: the file-size limit of this process (`ulimit -f`) was reached",
        path.display()
    )]
    FileTooLarge {
        /// The database file.
        path: PathBuf,
    },
    /// The file is not an SQLite database, or (opened for queries) an empty one
    /// with no tables.
    #[error("{}: not a kabir game database (the file is not SQLite, or is damaged)", path.display())]
    NotADatabase {
        /// The file.
        path: PathBuf,
    },
    /// The file is an SQLite database whose application id is not kabir's, and it is not
    /// empty (an empty SQLite file is taken over as a new database when opened for writing).
    #[error("{}: an SQLite database of another program, not a kabir game database", path.display())]
    ForeignDatabase {
        /// The file.
        path: PathBuf,
    },
    /// The file was written by a newer kabir, whose schema this one cannot read.
    #[error(
        "{}: schema version {found} is newer than this program knows (at most {known}); \
         use a newer kabir",
        path.display()
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// The schema version the file records.
        found: u32,
        /// The newest schema version this code knows.
        known: u32,
    },
    /// Opened for queries only, the file's schema is older than the queries can read; opening
    /// it for writing migrates it.
    #[error(
        "{}: schema version {found} is too old to read (this program writes version {known}); \
         open it for writing once, as `kabir import` does, to migrate it",
        path.display()
    )]
    OlderSchema {
        /// The database file.
        path: PathBuf,
        /// The schema version the file records.
        found: u32,
        /// The schema version this code writes.
        known: u32,
    },
    /// The schema version the file records (`PRAGMA user_version`) is not that of the tables
    /// it has: another program changed the number.
    #[error(
        "{}: the file records schema version {found} (PRAGMA user_version), but its tables \
         are those of version {tables}: another program changed the number (if nothing else \
         was changed, `PRAGMA user_version = {tables}` puts it back)",
        path.display()
    )]
    SchemaMismatch {
        /// The database file.
        path: PathBuf,
        /// The schema version the file records.
        found: u32,
        /// The schema version its tables match.
        tables: u32,
    },
    /// The file is damaged: SQLite found it corrupt (or its integrity check failed), its
    /// tables are those of no schema version, or a stored value cannot be read back (a
    /// column of the wrong type, moves that do not decode).
    #[error("{}: the database is damaged: {detail}", path.display())]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What was found wrong.
        detail: String,
    },
    /// Another connection held the database locked for longer than the busy timeout (see
    /// [`Database::set_busy_timeout`](crate::Database::set_busy_timeout)).
    #[error(
        "{}: the database is locked by another writer (waited {waited_ms} ms); try again when \
         the other import has finished",
        path.display()
    )]
    Busy {
        /// The database file.
        path: PathBuf,
        /// The busy timeout that ran out, in milliseconds.
        waited_ms: u64,
    },
    /// An import that committed without waiting for the disk (the first import of a new
    /// file, see `docs/DATABASE.md`, "Journal") was filling the file when the system stopped:
    /// its last writes may never have reached the disk, and the file may be damaged in ways
    /// no check is sure to find.
    #[error(
        "{}: an import was filling this new database when the system stopped, before its \
         writes were on disk, so it may be damaged: delete it and import the games again",
        path.display()
    )]
    Unsynced {
        /// The database file.
        path: PathBuf,
    },
    /// The system could not write the file's data to disk when asked to (`fsync`).
    #[error("{}: cannot write the database to disk: {error}", path.display())]
    Sync {
        /// The database file.
        path: PathBuf,
        /// The operating system's error.
        error: std::io::Error,
    },
    /// A commit was cut short (by a crash) and its journal must be played back, but the file
    /// or its directory cannot be written to do it.
    #[error(
        "{}: a write to the database was interrupted and must be rolled back, which needs \
         write access to the file and its directory",
        path.display()
    )]
    Interrupted {
        /// The database file.
        path: PathBuf,
    },
    /// A write (import, compaction, rebuild) was asked of a database opened with
    /// [`Database::open`](crate::Database::open), which is for queries only.
    #[error("the database was opened read-only")]
    OpenedReadOnly,
    /// A rebuild found stored games of a variant the given registry does not know.
    #[error(
        "{}: the database holds games of variant {variant:?}, which is not built in: give its \
         definition file (--variant-file)",
        path.display()
    )]
    UnknownVariant {
        /// The database file.
        path: PathBuf,
        /// The variant's name as stored.
        variant: String,
    },
    /// An import would give a game an id beyond the range of game ids (`u32`).
    #[error("the database holds more games than game ids allow")]
    TooManyGames,
    /// The import's writer thread stopped on a bug (a panic): the batches committed before
    /// it are kept, the one it was writing was rolled back.
    #[error(
        "{}: the import stopped: its database writer failed unexpectedly ({message}); the \
         batches committed before are kept, the rest was not stored",
        path.display()
    )]
    WriterFailed {
        /// The database file.
        path: PathBuf,
        /// The panic's message (`no message` when it was not text).
        message: String,
    },
    /// Any other SQLite error. Its message is part of this error's own (`source` is not
    /// set, so that a printed chain of causes says it once).
    #[error("{}: {}", path.display(), sqlite_message(error, *os_error))]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The error as rusqlite gave it.
        error: rusqlite::Error,
        /// The operating system's error number behind an I/O error, when SQLite has one.
        os_error: Option<i32>,
    },
}

/// An SQLite error's own words: the message SQLite gave, or the description of its code,
/// with the operating system's error when there is one (without rusqlite's "Error code N"
/// wrapping, which repeats the code's description).
fn sqlite_message(e: &rusqlite::Error, os_error: Option<i32>) -> String {
    let text = match e {
        rusqlite::Error::SqliteFailure(_, Some(message)) => message.clone(),
        rusqlite::Error::SqliteFailure(f, None) => {
            rusqlite::ffi::code_to_str(f.extended_code).to_string()
        }
        // Without the statement it was in, which can be a whole script.
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        other => other.to_string(),
    };
    match os_error {
        Some(n) if n != 0 => format!("{text} ({})", std::io::Error::from_raw_os_error(n)),
        _ => text,
    }
}

impl DbError {
    /// Turns an SQLite error into the most specific error for the file at `path`.
    /// `os_error` is the operating system's error number behind it (SQLite's
    /// `sqlite3_system_errno`), if known; 0 is none.
    pub(crate) fn from_sqlite(
        path: &std::path::Path,
        source: rusqlite::Error,
        busy_ms: u64,
        os_error: i32,
    ) -> DbError {
        use rusqlite::{ErrorCode, ffi};
        let path = path.to_path_buf();
        let extended = match &source {
            rusqlite::Error::SqliteFailure(f, _) => f.extended_code,
            _ => 0,
        };
        if extended == ffi::SQLITE_READONLY_ROLLBACK {
            return DbError::Interrupted { path };
        }
        let code = source.sqlite_error_code();
        // An I/O error (or a file SQLite could not open or create: the journal beside an
        // open database) says its cause through the operating system's error number.
        let os_kind = (os_error != 0).then(|| std::io::Error::from_raw_os_error(os_error).kind());
        if matches!(
            code,
            Some(ErrorCode::SystemIoFailure | ErrorCode::CannotOpen)
        ) {
            use std::io::ErrorKind::{FileTooLarge, QuotaExceeded, StorageFull};
            match os_kind {
                Some(FileTooLarge) => return DbError::FileTooLarge { path },
                Some(StorageFull | QuotaExceeded) => return DbError::DiskFull { path },
                _ => {}
            }
        }
        let directory_not_writable = || {
            let directory = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            DbError::ReadOnlyDirectory {
                path: path.clone(),
                directory,
            }
        };
        if extended == ffi::SQLITE_READONLY_DIRECTORY
            || (code == Some(ErrorCode::CannotOpen)
                && matches!(
                    os_kind,
                    Some(
                        std::io::ErrorKind::PermissionDenied
                            | std::io::ErrorKind::ReadOnlyFilesystem
                    )
                ))
        {
            return directory_not_writable();
        }
        // A value of another type than the schema keeps in its column (text where the moves'
        // blob is) can only be written by another program: the file is damaged.
        if matches!(
            source,
            rusqlite::Error::InvalidColumnType(..)
                | rusqlite::Error::FromSqlConversionFailure(..)
                | rusqlite::Error::IntegralValueOutOfRange(..)
        ) {
            return DbError::Corrupt {
                path,
                detail: source.to_string(),
            };
        }
        match code {
            Some(ErrorCode::NotADatabase) => DbError::NotADatabase { path },
            Some(ErrorCode::DatabaseCorrupt) => DbError::Corrupt {
                path,
                detail: sqlite_message(&source, None),
            },
            Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => DbError::Busy {
                path,
                waited_ms: busy_ms,
            },
            Some(ErrorCode::ReadOnly) => DbError::ReadOnly { path },
            Some(ErrorCode::DiskFull) => DbError::DiskFull { path },
            Some(ErrorCode::SystemIoFailure | ErrorCode::CannotOpen) => DbError::Sqlite {
                path,
                error: source,
                os_error: (os_error != 0).then_some(os_error),
            },
            _ => DbError::Sqlite {
                path,
                error: source,
                os_error: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use rusqlite::ffi;

    use super::*;

    fn failure(code: i32, message: Option<&str>) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(ffi::Error::new(code), message.map(str::to_string))
    }

    /// An error of `code` with the system's error `errno`.
    fn classify(code: i32, errno: i32) -> DbError {
        DbError::from_sqlite(Path::new("d/g.db"), failure(code, None), 0, errno)
    }

    /// Linux's numbers (EFBIG, ENOSPC, EACCES, EIO).
    #[cfg(target_os = "linux")]
    #[test]
    fn io_errors_say_their_cause() {
        let e = classify(ffi::SQLITE_IOERR_WRITE, 27);
        assert!(matches!(e, DbError::FileTooLarge { .. }), "{e}");
        assert!(e.to_string().contains("file too large"), "{e}");
        let e = classify(ffi::SQLITE_IOERR_WRITE, 28);
        assert!(matches!(e, DbError::DiskFull { .. }), "{e}");
        let e = classify(ffi::SQLITE_CANTOPEN, 13);
        assert!(
            matches!(&e, DbError::ReadOnlyDirectory { directory, .. } if directory == Path::new("d")),
            "{e}"
        );
        // Another I/O error keeps the system's words.
        let e = classify(ffi::SQLITE_IOERR_FSYNC, 5);
        assert!(matches!(e, DbError::Sqlite { .. }), "{e}");
        assert!(e.to_string().contains("disk I/O error ("), "{e}");
    }

    #[test]
    fn sqlite_codes_become_their_errors() {
        let path = Path::new("g.db");
        let e = DbError::from_sqlite(path, failure(ffi::SQLITE_FULL, None), 0, 0);
        assert_eq!(e.to_string(), "g.db: database or disk is full");
        let e = DbError::from_sqlite(path, failure(ffi::SQLITE_READONLY_DIRECTORY, None), 0, 0);
        assert!(
            matches!(&e, DbError::ReadOnlyDirectory { directory, .. } if directory == Path::new(".")),
            "{e}"
        );
        let e = DbError::from_sqlite(path, failure(ffi::SQLITE_READONLY, None), 0, 0);
        assert!(matches!(e, DbError::ReadOnly { .. }), "{e}");
    }

    /// SQLite's message is said once, without rusqlite's wrapping of the code.
    #[test]
    fn an_sqlite_message_is_not_repeated() {
        let e = DbError::from_sqlite(
            Path::new("g.db"),
            failure(ffi::SQLITE_ERROR, Some("no such table: x")),
            0,
            0,
        );
        assert_eq!(e.to_string(), "g.db: no such table: x");
        assert!(std::error::Error::source(&e).is_none());
        let e = DbError::from_sqlite(Path::new("g.db"), failure(ffi::SQLITE_IOERR, None), 0, 0);
        assert_eq!(e.to_string(), "g.db: disk I/O error");
    }
}
