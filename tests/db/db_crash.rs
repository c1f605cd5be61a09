//! A crash (`kill -9`) in the middle of an import leaves a consistent database holding exactly
//! the batches committed, and running the import again completes it.

use std::process::{Command, Stdio};
use std::time::Duration;

use kabir::db::{Database, DbError, GameRecord};

use crate::db_common::records;

const CHILD_ENV: &str = "KABIR_DB_CRASH_CHILD";
const BATCH: u64 = 20;
const BATCHES: u64 = 30;

fn batch(i: u64) -> Vec<GameRecord> {
    records("tamerlane", 77, i * BATCH..(i + 1) * BATCH, 120)
}

/// Run as a child process by `kill_during_import`: imports every batch, in order.
#[test]
fn child_import() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut db = Database::create_or_open(&path).expect("open");
    let mut importer = db.importer().expect("importer");
    // A pause between batches keeps the child running long enough to be killed on any
    // machine; the writer thread commits meanwhile.
    let slow = (0..BATCHES).map(|i| {
        std::thread::sleep(Duration::from_millis(10));
        batch(i)
    });
    // Each committed batch is told on standard output, so that the parent need not open the
    // file to know (an open connection would keep the import in WAL mode).
    importer
        .import_all(slow, |_| {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "committed");
            let _ = out.flush();
        })
        .expect("import");
}

/// The checks after a crash: SQLite's own, and that games and index agree.
fn check_consistent(path: &std::path::Path) -> u64 {
    let db = Database::open(path).unwrap();
    db.integrity_check().unwrap();
    let c = db.connection();
    let n: i64 = c
        .query_row("SELECT count(*) FROM game", [], |r| r.get(0))
        .unwrap();
    let (positions, indexed): (i64, i64) = c
        .query_row(
            "SELECT (SELECT coalesce(sum(plies + 1), 0) FROM game),
                    (SELECT coalesce(sum(length(entries)), 0) / 20 FROM posting)
                    + (SELECT coalesce(sum(length(entries) + coalesce(length(beyond), 0)), 0)
                       / 20 FROM tree)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(positions, indexed);
    let texts: i64 = c
        .query_row("SELECT count(*) FROM game_text", [], |r| r.get(0))
        .unwrap();
    assert_eq!(texts, n);
    // Whole batches only.
    assert_eq!(n as u64 % BATCH, 0, "{n} games");
    n as u64
}

#[test]
fn kill_during_import() {
    let (_dir, path) = crate::db_common::temp_db();
    let exe = std::env::current_exe().unwrap();
    let mut last = 0;
    for round in 0..3u64 {
        let mut child = Command::new(&exe)
            .args([
                "db_crash::child_import",
                "--exact",
                "--test-threads=1",
                "--nocapture",
            ])
            .env(CHILD_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait until this round has committed a batch, then a little more.
        let mut heard = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        while std::io::BufRead::read_line(&mut heard, &mut line).unwrap_or(0) > 0
            && line.trim() != "committed"
        {
            line.clear();
        }
        std::thread::sleep(Duration::from_millis(7 * round + 3));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let n = check_consistent(&path);
        assert!(n >= last);
        // The first import, into the new file, committed without waiting for the disk: its
        // mark stays after the kill (the next writer removes it), and the file still opens.
        if round == 0 && cfg!(target_os = "linux") {
            assert_eq!(unsynced_marks(&path), 1);
        }
        last = n;
    }
    assert_eq!(
        unsynced_marks(&path),
        0,
        "the rounds after the first removed the mark"
    );
    assert!(
        last < BATCH * BATCHES,
        "the child finished before it was killed"
    );
    // Running the import again completes it: what was committed counts as duplicates.
    let mut db = Database::create_or_open(&path).unwrap();
    let totals = db
        .importer()
        .unwrap()
        .import_all((0..BATCHES).map(batch), |_| {})
        .unwrap();
    assert_eq!(totals.duplicates, last);
    assert_eq!(totals.imported + totals.duplicates, BATCH * BATCHES);
    drop(db);
    assert_eq!(check_consistent(&path), BATCH * BATCHES);
}

/// The keys of `meta` that mark imports committing without waiting for the disk.
fn unsynced_marks(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM meta WHERE key LIKE 'unsynced %'",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

fn add_mark(path: &std::path::Path, key: &str) {
    rusqlite::Connection::open(path)
        .unwrap()
        .execute("INSERT INTO meta (key, value) VALUES (?1, 'import')", [key])
        .unwrap();
}

/// The first import of a new file commits without waiting for the disk, under a mark that
/// names the system's start: finished, it leaves no mark; a mark of another start (the
/// system stopped during such an import, so the file may be half written) makes every
/// opening fail with an error that says so; a mark of this start whose process is gone (it
/// was killed: its writes are whole in the system's memory) is removed by the next writer.
#[test]
fn a_new_file_cut_off_by_a_stop_of_the_system_is_refused() {
    let (_dir, path) = crate::db_common::temp_db();
    let mut db = Database::create_or_open(&path).unwrap();
    let totals = db
        .importer()
        .unwrap()
        .import_all((0..3).map(batch), |_| {})
        .unwrap();
    assert_eq!(totals.imported, 3 * BATCH);
    drop(db);
    assert_eq!(unsynced_marks(&path), 0);
    assert_eq!(check_consistent(&path), 3 * BATCH);

    if cfg!(target_os = "linux") {
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
        add_mark(&path, &format!("unsynced {} {} 0", boot.trim(), u32::MAX));
        assert_eq!(
            check_consistent(&path),
            3 * BATCH,
            "a mark of this start reads"
        );
        drop(Database::create_or_open(&path).unwrap());
        assert_eq!(
            unsynced_marks(&path),
            0,
            "the writer removed the mark of a process gone"
        );
    }

    add_mark(&path, "unsynced 00000000-0000-0000-0000-000000000000 1 0");
    for err in [
        Database::open(&path).unwrap_err(),
        Database::create_or_open(&path).unwrap_err(),
    ] {
        assert!(matches!(err, DbError::Unsynced { .. }), "{err}");
        let message = err.to_string();
        assert!(
            message.contains("when the system stopped")
                && message.contains("import the games again"),
            "{message}"
        );
    }
}

/// A panic in the import's writer thread (a bug) is an error of the import, never a success
/// with the totals of the batches before it; the batch it was writing is rolled back, and
/// the database holds whole batches, takes the rest afterwards and is consistent.
#[test]
fn a_panic_in_the_writer_fails_the_import_and_leaves_whole_batches() {
    let (_dir, path) = crate::db_common::temp_db();
    let mut db = Database::create_or_open(&path).unwrap();
    let mut importer = db.importer().unwrap();
    importer.panic_in_batch(3);
    let mut heard = 0;
    let err = importer
        .import_all((0..8).map(batch), |_| heard += 1)
        .unwrap_err();
    assert!(matches!(err, DbError::WriterFailed { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("writer failed unexpectedly") && message.contains("panic_in_batch"),
        "{message}"
    );
    assert!(heard <= 3, "{heard} batches heard of");
    drop(importer);
    drop(db);
    assert_eq!(check_consistent(&path), 3 * BATCH);
    let mut db = Database::create_or_open(&path).unwrap();
    let totals = db
        .importer()
        .unwrap()
        .import_all((0..8).map(batch), |_| {})
        .unwrap();
    assert_eq!((totals.duplicates, totals.imported), (3 * BATCH, 5 * BATCH));
    drop(db);
    assert_eq!(check_consistent(&path), 8 * BATCH);
}

#[test]
fn a_failed_batch_leaves_nothing_behind() {
    let (_dir, path) = crate::db_common::temp_db();
    let _keep_wal = Database::create_or_open(&path).unwrap();
    let mut db = Database::create_or_open(&path).unwrap();
    db.importer().unwrap().import_batch(batch(0)).unwrap();
    // A competing writer makes the next batch fail after derivation, before anything is
    // written; the batch leaves no trace and can be imported later.
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    db.set_busy_timeout(Duration::from_millis(50)).unwrap();
    assert!(db.importer().unwrap().import_batch(batch(1)).is_err());
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(check_consistent(&path), BATCH);
    let stats = db.importer().unwrap().import_batch(batch(1)).unwrap();
    assert_eq!(stats.imported, BATCH);
    assert_eq!(check_consistent(&path), 2 * BATCH);
}

#[test]
fn a_read_only_open_rolls_back_a_commit_cut_short() {
    let (dir, path) = crate::db_common::temp_db();
    let mut db = Database::create_or_open(&path).unwrap();
    db.importer().unwrap().import_batch(batch(0)).unwrap();
    drop(db);
    // A transaction too large for its page cache writes into the file before it commits, with
    // the pages' old contents in a finished rollback journal. A copy of the file and journal
    // taken then is what a crash at that moment leaves behind.
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer
        .execute_batch(
            "PRAGMA journal_mode = TRUNCATE; PRAGMA cache_size = 2;
             BEGIN; DELETE FROM game_text; DELETE FROM game;",
        )
        .unwrap();
    let crashed = dir.path().join("crashed.db");
    let journal = |p: &std::path::Path| {
        let mut s = p.as_os_str().to_owned();
        s.push("-journal");
        std::path::PathBuf::from(s)
    };
    std::fs::copy(&path, &crashed).unwrap();
    std::fs::copy(journal(&path), journal(&crashed)).unwrap();
    writer.execute_batch("ROLLBACK").unwrap();
    drop(writer);
    // Without the journal played back, SQLite refuses a read-only connection.
    let plain =
        rusqlite::Connection::open_with_flags(&crashed, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    assert!(
        plain
            .query_row("SELECT count(*) FROM game", [], |r| r.get::<_, i64>(0))
            .is_err()
    );
    drop(plain);
    assert_eq!(check_consistent(&crashed), BATCH);
    assert_eq!(
        std::fs::metadata(journal(&crashed)).map_or(0, |m| m.len()),
        0
    );
}
