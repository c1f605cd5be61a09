//! Opening database files: what is refused, and with which error.

use std::time::Duration;

use kabir::db::{Database, DbError, ReportQuery, SCHEMA_VERSION};
use kabir::variants::Registry;

use crate::db_common::{records, temp_db};

fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_new_database_has_the_current_schema() {
    let (_dir, path) = temp_db();
    let db = Database::create_or_open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
    let mode: String = db
        .connection()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(db);
    // Opening again changes nothing; read-only opening works.
    Database::create_or_open(&path).unwrap();
    let mut db = Database::open(&path).unwrap();
    assert!(db.is_read_only());
    assert!(matches!(db.importer(), Err(DbError::OpenedReadOnly)));
}

#[test]
fn read_only_open_never_creates_a_file() {
    let (dir, path) = temp_db();
    let err = Database::open(&path).unwrap_err();
    assert!(matches!(err, DbError::NotFound { .. }), "{err}");
    assert!(files_in(dir.path()).is_empty());

    let mut db = Database::create_or_open(&path).unwrap();
    db.importer()
        .unwrap()
        .import_batch(records("shatranj", 1, 0..3, 20))
        .unwrap();
    drop(db);
    let before = files_in(dir.path());
    let db = Database::open(&path).unwrap();
    assert_eq!(db.game_count().unwrap(), 3);
    drop(db);
    assert_eq!(files_in(dir.path()), before);
}

#[test]
fn a_newer_schema_is_refused() {
    let (_dir, path) = temp_db();
    drop(Database::create_or_open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    for err in [
        Database::open(&path).unwrap_err(),
        Database::create_or_open(&path).unwrap_err(),
    ] {
        assert!(
            matches!(err, DbError::NewerSchema { found, known, .. }
                if found == SCHEMA_VERSION + 1 && known == SCHEMA_VERSION),
            "{err}"
        );
        assert!(err.to_string().contains("newer"));
    }
}

#[test]
fn an_older_schema_is_migrated_when_opened_for_writing() {
    let (_dir, path) = temp_db();
    // Version 0 of a kabir file: marked, but without tables yet.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "application_id", kabir::db::APPLICATION_ID)
        .unwrap();
    drop(conn);
    let err = Database::open(&path).unwrap_err();
    assert!(
        matches!(err, DbError::OlderSchema { found: 0, .. }),
        "{err}"
    );
    let db = Database::create_or_open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
    drop(db);
    Database::open(&path).unwrap();
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for err in [
        Database::open(dir.path()).unwrap_err(),
        Database::create_or_open(dir.path()).unwrap_err(),
    ] {
        assert!(matches!(err, DbError::IsDirectory { .. }), "{err}");
    }
}

#[test]
fn a_file_that_is_not_a_database_is_refused() {
    let (_dir, path) = temp_db();
    std::fs::write(&path, b"[Event \"not a database\"]\n".repeat(200)).unwrap();
    for err in [
        Database::open(&path).unwrap_err(),
        Database::create_or_open(&path).unwrap_err(),
    ] {
        assert!(matches!(err, DbError::NotADatabase { .. }), "{err}");
    }
    // The file is left as it was.
    assert!(std::fs::read(&path).unwrap().starts_with(b"[Event"));
}

#[test]
fn another_programs_database_is_refused() {
    let (_dir, path) = temp_db();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT)")
        .unwrap();
    drop(conn);
    for err in [
        Database::open(&path).unwrap_err(),
        Database::create_or_open(&path).unwrap_err(),
    ] {
        assert!(matches!(err, DbError::ForeignDatabase { .. }), "{err}");
    }
}

#[test]
fn a_damaged_database_is_reported() {
    let (_dir, path) = temp_db();
    let mut db = Database::create_or_open(&path).unwrap();
    db.importer()
        .unwrap()
        .import_batch(records("tamerlane", 1, 0..30, 60))
        .unwrap();
    drop(db);
    // Overwrite pages after the header with noise.
    let mut bytes = std::fs::read(&path).unwrap();
    let len = bytes.len();
    for (i, b) in bytes[16384..len].iter_mut().enumerate() {
        *b = (i * 7 + 3) as u8;
    }
    std::fs::write(&path, bytes).unwrap();
    let outcome = Database::open(&path).and_then(|db| {
        db.integrity_check()?;
        db.report(&ReportQuery::default(), &Registry::builtin())
            .map(|_| ())
    });
    let err = outcome.unwrap_err();
    assert!(
        matches!(err, DbError::Corrupt { .. } | DbError::NotADatabase { .. }),
        "{err}"
    );
}

#[test]
fn a_read_only_file_is_refused_for_writing() {
    let (_dir, path) = temp_db();
    drop(Database::create_or_open(&path).unwrap());
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    let err = Database::create_or_open(&path).unwrap_err();
    assert!(matches!(err, DbError::ReadOnly { .. }), "{err}");
    // Queries still work.
    assert_eq!(Database::open(&path).unwrap().game_count().unwrap(), 0);
}

#[test]
fn a_second_writer_waits_or_fails_clearly() {
    let (_dir, path) = temp_db();
    let _first = Database::create_or_open(&path).unwrap();
    // Another writer holds the write lock.
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut db = Database::create_or_open(&path).unwrap();
    db.set_busy_timeout(Duration::from_millis(100)).unwrap();
    let recs = records("shatranj", 3, 0..5, 30);
    let err = db
        .importer()
        .unwrap()
        .import_batch(recs.clone())
        .unwrap_err();
    assert!(matches!(err, DbError::Busy { .. }), "{err}");
    assert!(err.to_string().contains("locked by another writer"));
    // Once the lock is released, the same import goes through.
    holder.execute_batch("ROLLBACK").unwrap();
    let stats = db.importer().unwrap().import_batch(recs).unwrap();
    assert_eq!(stats.imported, 5);
}

#[test]
fn two_importers_at_once_both_succeed() {
    let (_dir, path) = temp_db();
    drop(Database::create_or_open(&path).unwrap());
    let all = records("tamerlane", 8, 0..120, 40);
    let (a, b) = (all[..80].to_vec(), all[40..].to_vec());
    let run = |recs: Vec<kabir::db::GameRecord>| {
        let path = path.clone();
        std::thread::spawn(move || {
            let mut db = Database::create_or_open(&path).unwrap();
            let batches: Vec<_> = recs.chunks(10).map(|c| c.to_vec()).collect();
            db.importer().unwrap().import_all(batches, |_| {}).unwrap()
        })
    };
    let (ta, tb) = (run(a), run(b));
    let (sa, sb) = (ta.join().unwrap(), tb.join().unwrap());
    assert_eq!(sa.imported + sb.imported, 120);
    assert_eq!(sa.duplicates + sb.duplicates, 40);
    let db = Database::open(&path).unwrap();
    assert_eq!(db.game_count().unwrap(), 120);
    db.integrity_check().unwrap();
}

/// The file's journal mode and synchronisation level as `db` sees them.
fn journal(db: &Database) -> (String, i64) {
    let c = db.connection();
    let mode = c
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    (
        mode,
        c.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap(),
    )
}

/// 30 Tamerlane records in batches of 10.
fn thirty_in_batches() -> Vec<Vec<kabir::db::GameRecord>> {
    records("tamerlane", 8, 0..30, 40)
        .chunks(10)
        .map(|c| c.to_vec())
        .collect()
}

#[test]
fn an_import_alone_with_the_file_writes_through_a_rollback_journal() {
    let (_dir, path) = temp_db();
    let mut db = Database::create_or_open(&path).unwrap();
    // Readers that come during the import see whole batches only.
    let mut seen = Vec::new();
    let stats = db
        .importer()
        .unwrap()
        .import_all(thirty_in_batches(), |_| {
            seen.push(Database::open(&path).unwrap().game_count().unwrap());
        })
        .unwrap();
    assert_eq!(stats.imported, 30);
    // Every commit synced (FULL, 2): nothing committed is lost to a power failure.
    assert_eq!(journal(&db), ("truncate".to_string(), 2));
    assert!(seen.iter().all(|n| n % 10 == 0), "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert_eq!(Database::open(&path).unwrap().game_count().unwrap(), 30);
    db.integrity_check().unwrap();
}

#[test]
fn an_import_beside_an_open_reader_stays_in_wal_mode() {
    let (_dir, path) = temp_db();
    drop(Database::create_or_open(&path).unwrap());
    let mut db = Database::create_or_open(&path).unwrap();
    let reader = Database::open(&path).unwrap();
    let mut seen = Vec::new();
    db.importer()
        .unwrap()
        .import_all(thirty_in_batches(), |_| {
            seen.push(reader.game_count().unwrap())
        })
        .unwrap();
    // WAL keeps NORMAL (1): a sync per checkpoint, not per commit.
    assert_eq!(journal(&db), ("wal".to_string(), 1));
    assert!(seen.iter().all(|n| n % 10 == 0), "{seen:?}");
    assert_eq!(reader.game_count().unwrap(), 30);
    drop(reader);
    db.integrity_check().unwrap();
}

/// A copy of the database made by the first release with schema version 1.
fn version_1_copy(dir: &std::path::Path) -> std::path::PathBuf {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/db/v1.db");
    let path = dir.join("v1.db");
    std::fs::copy(fixture, &path).unwrap();
    path
}

fn has_record_column(path: &std::path::Path) -> bool {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.prepare("SELECT record FROM game").is_ok()
}

#[test]
fn a_version_1_database_migrates_in_one_transaction() {
    let (dir, _) = temp_db();
    let path = version_1_copy(dir.path());
    // A game whose move key cannot be read stops the migration half-way through computing
    // the record keys: nothing of it stays.
    let conn = rusqlite::Connection::open(&path).unwrap();
    let content: i64 = conn
        .query_row("SELECT content FROM game WHERE id = 12", [], |r| r.get(0))
        .unwrap();
    conn.execute("UPDATE game SET content = 'not a key' WHERE id = 12", [])
        .unwrap();
    drop(conn);
    let err = Database::create_or_open(&path).unwrap_err();
    // Text in a column of numbers: written by another program, a damaged file.
    assert!(matches!(err, DbError::Corrupt { .. }), "{err}");
    let db = Database::open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), 1);
    assert_eq!(db.game_count().unwrap(), 21);
    db.integrity_check().unwrap();
    drop(db);
    assert!(!has_record_column(&path));

    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE game SET content = ?1 WHERE id = 12", [content])
        .unwrap();
    drop(conn);
    let db = Database::create_or_open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(db.game_count().unwrap(), 21);
    db.integrity_check().unwrap();
    let unset: i64 = db
        .connection()
        .query_row("SELECT count(*) FROM game WHERE record = 0", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(unset, 0);
    drop(db);
    assert!(has_record_column(&path));
}

/// Queries read a version-1 file as it is (what version 2 adds is for importing only); an
/// import migrates it.
#[test]
fn a_version_1_database_opens_read_only_without_a_change() {
    let (dir, _) = temp_db();
    let path = version_1_copy(dir.path());
    let before = std::fs::read(&path).unwrap();
    let db = Database::open(&path).unwrap();
    assert_eq!(db.schema_version().unwrap(), 1);
    assert_eq!(db.game_count().unwrap(), 21);
    assert!(db.game(21).unwrap().is_some());
    drop(db);
    assert!(std::fs::read(&path).unwrap() == before);
    assert!(!has_record_column(&path));
}

/// A version-1 file: queries read it as it is (read-only, without the derived tables), the
/// same after its migration (derived tables stale until rebuilt), after an import into it,
/// and after `rebuild`, which makes them current.
#[test]
fn a_version_1_database_answers_the_same_before_and_after_its_rebuild() {
    use kabir::db::{GameFilter, GameQuery, GroupBy, TreeQuery};
    use kabir::rules::Position;
    let (dir, _) = temp_db();
    let path = version_1_copy(dir.path());
    let registry = Registry::builtin();
    let answers = |db: &Database| {
        let mut out = Vec::new();
        for name in ["shatranj", "tamerlane", "knavish-shatranj"] {
            let v = kabir::variants::builtin(name).unwrap();
            let start = Position::start(&v);
            let tree = TreeQuery {
                depth: 3,
                ..TreeQuery::default()
            };
            out.push(format!("{:?}", db.explore_tree(&start, &tree).unwrap()));
            let page = db
                .search(&GameQuery {
                    position: Some(start),
                    limit: Some(4),
                    ..GameQuery::default()
                })
                .unwrap();
            out.push(format!("{page:?}"));
        }
        for by in [
            None,
            Some(GroupBy::Variant),
            Some(GroupBy::Year),
            Some(GroupBy::Result),
        ] {
            let q = ReportQuery {
                by,
                ..ReportQuery::default()
            };
            out.push(format!("{:?}", db.report(&q, &registry).unwrap()));
        }
        for player in ["a", "timur", "random"] {
            let f = GameFilter {
                player: Some(player.to_string()),
                ..GameFilter::default()
            };
            out.push(format!("{:?}", db.find_games(&f, 50, 0).unwrap()));
        }
        out
    };
    let same = |a: Vec<String>, b: Vec<String>| {
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert_eq!(x, y, "answer {i}");
        }
    };
    let read_only = answers(&Database::open(&path).unwrap());
    let db = Database::create_or_open(&path).unwrap();
    assert!(!db.derived_current().unwrap());
    same(answers(&db), read_only);
    drop(db);
    // Imported into while stale: still answered without the derived tables.
    let mut db = Database::create_or_open(&path).unwrap();
    db.importer()
        .unwrap()
        .import_batch(records("shatranj", 31, 0..12, 40))
        .unwrap();
    assert!(!db.derived_current().unwrap());
    let appended = answers(&db);
    let done = db.rebuild(&registry, |_, _| {}).unwrap();
    assert_eq!(
        (done.games, done.was_current, done.unchanged),
        (33, false, None)
    );
    assert!(db.derived_current().unwrap());
    same(answers(&db), appended);
    let again = db.rebuild(&registry, |_, _| {}).unwrap();
    assert_eq!(again.unchanged, Some(true));
    db.integrity_check().unwrap();
}
