//! What can go wrong with a game database.

use std::path::PathBuf;

/// An error from the game database.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("{}: no such database file", path.display())]
    NotFound { path: PathBuf },
    #[error("{}: is a directory, not a database file", path.display())]
    IsDirectory { path: PathBuf },
    #[error("{}: the file is read-only; cannot write to the database", path.display())]
    ReadOnly { path: PathBuf },
    #[error("{}: not a kabir game database (the file is not SQLite, or is damaged)", path.display())]
    NotADatabase { path: PathBuf },
    #[error("{}: an SQLite database of another program, not a kabir game database", path.display())]
    ForeignDatabase { path: PathBuf },
    #[error(
        "{}: schema version {found} is newer than this program knows (at most {known}); \
         use a newer kabir",
        path.display()
    )]
    NewerSchema {
        path: PathBuf,
        found: u32,
        known: u32,
    },
    #[error(
        "{}: schema version {found} is older than {known}; open it for writing once to migrate it",
        path.display()
    )]
    OlderSchema {
        path: PathBuf,
        found: u32,
        known: u32,
    },
    #[error("{}: the database is damaged: {detail}", path.display())]
    Corrupt { path: PathBuf, detail: String },
    #[error(
        "{}: the database is locked by another writer (waited {waited_ms} ms); try again when \
         the other import has finished",
        path.display()
    )]
    Busy { path: PathBuf, waited_ms: u64 },
    #[error(
        "{}: a write to the database was interrupted and must be rolled back, which needs \
         write access to the file and its directory",
        path.display()
    )]
    Interrupted { path: PathBuf },
    #[error("the database was opened read-only")]
    OpenedReadOnly,
    #[error("the database holds more games than game ids allow")]
    TooManyGames,
    #[error("{}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

impl DbError {
    /// Turns an SQLite error into the most specific error for the file at `path`.
    pub(crate) fn from_sqlite(
        path: &std::path::Path,
        source: rusqlite::Error,
        busy_ms: u64,
    ) -> DbError {
        use rusqlite::ErrorCode;
        let path = path.to_path_buf();
        if let rusqlite::Error::SqliteFailure(f, _) = &source
            && f.extended_code == rusqlite::ffi::SQLITE_READONLY_ROLLBACK
        {
            return DbError::Interrupted { path };
        }
        match source.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => DbError::NotADatabase { path },
            Some(ErrorCode::DatabaseCorrupt) => DbError::Corrupt {
                path,
                detail: source.to_string(),
            },
            Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => DbError::Busy {
                path,
                waited_ms: busy_ms,
            },
            Some(ErrorCode::ReadOnly) => DbError::ReadOnly { path },
            _ => DbError::Sqlite { path, source },
        }
    }
}
