//! Every failure says its cause, once: a full disk (a file-size limit) during an import, a
//! full device as standard output or as an output file, a database in a directory the
//! importer cannot write, a new database in a directory that is missing or cannot be written,
//! an SQLite error, an impossible date in a filter. Each exits with status 2, never panics,
//! and a database is left intact.

use std::path::{Path, PathBuf};

use crate::cli_common::{count, kabir, samples};

/// The message of a failed command (standard error), after checking its status is 2 and that
/// it says no part of itself twice (as "no such table: x: no such table: x" did).
fn failure(out: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let message = stderr
        .lines()
        .find_map(|l| l.strip_prefix("kabir: "))
        .unwrap_or_else(|| panic!("no error message: {stderr}"));
    let parts: Vec<&str> = message.split(": ").collect();
    for (i, part) in parts.iter().enumerate() {
        assert!(
            !parts[i + 1..].contains(part),
            "{part:?} is said twice: {message}"
        );
    }
    stderr
}

#[test]
fn an_sqlite_error_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .args(samples())
        .assert()
        .code(0);
    let conn = rusqlite::Connection::open(&db).unwrap();
    // Statistics on the whole database read the summaries (see docs/DATABASE.md).
    conn.execute_batch("DROP TABLE summary").unwrap();
    drop(conn);
    let out = kabir().args(["stats", "--db"]).arg(&db).output().unwrap();
    let stderr = failure(&out);
    assert!(stderr.contains("games.db"), "{stderr}");
    assert_eq!(
        stderr.matches("no such table: summary").count(),
        1,
        "{stderr}"
    );
    // Nor rusqlite's wrapping of SQLite's code, which repeats it.
    assert!(!stderr.contains("Error code"), "{stderr}");
}

#[test]
fn a_missing_database_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("missing.db");
    let out = kabir().args(["search", "--db"]).arg(&db).output().unwrap();
    let stderr = failure(&out);
    assert_eq!(stderr.matches("missing.db").count(), 1, "{stderr}");
    assert!(stderr.contains("no such database file"), "{stderr}");
}

#[test]
fn an_impossible_date_in_a_filter_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .args(samples())
        .assert()
        .code(0);
    for (args, says) in [
        (["search", "--from", "2021.13.45"], "no month 13"),
        (["stats", "--to", "2021.02.30"], "days 01 to 28"),
        (["export", "--from", "2100.02.29"], "days 01 to 28"),
        (["search", "--to", "2021.04.31"], "days 01 to 30"),
        (["search", "--from", "2021.00"], "no month 00"),
        (
            ["search", "--from", "2021.1.5"],
            "expected YYYY, YYYY.MM or YYYY.MM.DD",
        ),
    ] {
        let out = kabir().args(args).arg("--db").arg(&db).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(says) && stderr.contains(args[2]),
            "{args:?}: {stderr}"
        );
    }
    // Partial dates and real ones stay valid.
    for args in [
        ["search", "--from", "2021"],
        ["search", "--to", "2021.03"],
        ["search", "--from", "2020.02.29"],
        ["stats", "--to", "2000-02-29"],
    ] {
        kabir().args(args).arg("--db").arg(&db).assert().code(0);
    }
}

/// `/dev/full` as standard output: every command that prints says it could not write it, and
/// why; as an output file it is named. A full standard error does not make a command panic.
#[cfg(target_os = "linux")]
#[test]
fn a_full_device_is_said_with_what_was_written_to_it() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .args(samples())
        .assert()
        .code(0);
    let db = db.to_string_lossy().into_owned();
    let sample = samples()[0].to_string_lossy().into_owned();
    let run = |args: &[&str], stdout: std::process::Stdio, stderr: std::process::Stdio| {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("kabir"))
            .args(args)
            .stdout(stdout)
            .stderr(stderr)
            .output()
            .unwrap()
    };
    let full_file = || std::fs::File::options().write(true).open(full).unwrap();
    for args in [
        vec!["completions", "zsh"],
        vec!["man"],
        vec!["--help"],
        vec!["--version"],
        vec!["variants"],
        vec!["perft", "--variant", "shatranj", "2"],
        vec!["generate", "--variant", "shatranj"],
        vec!["validate", &sample],
        vec!["export", "--db", &db],
        vec!["search", "--db", &db],
        vec!["explore", "--db", &db, "--variant", "shatranj"],
        vec!["stats", "--db", &db],
        vec!["show", "1", "--db", &db],
        vec!["diagram"],
        vec!["import", "--db", &db, &sample],
    ] {
        let out = run(&args, full_file().into(), std::process::Stdio::piped());
        let stderr = failure(&out);
        assert!(
            stderr.contains("cannot write standard output: No space left on device"),
            "{args:?}: {stderr}"
        );
    }
    for args in [
        ["export", "--db", &db, "-o", "/dev/full"],
        ["generate", "--variant", "shatranj", "-o", "/dev/full"],
    ] {
        let out = run(
            &args,
            std::process::Stdio::piped(),
            std::process::Stdio::piped(),
        );
        let stderr = failure(&out);
        assert!(
            stderr.contains("cannot write /dev/full: No space left on device"),
            "{args:?}: {stderr}"
        );
    }
    // What is said on a full standard error is lost, not a panic (exit status 101).
    let out = run(
        &["show", "99", "--db", &db],
        std::process::Stdio::null(),
        full_file().into(),
    );
    assert_eq!(out.status.code(), Some(1));
    let out = run(
        &["validate", "--format", "csv", &sample],
        std::process::Stdio::null(),
        full_file().into(),
    );
    assert_eq!(out.status.code(), Some(2));
}

#[cfg(unix)]
mod unix {
    use std::os::unix::process::CommandExt;

    use super::*;

    /// `count` Tamerlane games in `dir`.
    fn tamerlane_games(dir: &Path, count: u32) -> PathBuf {
        let path = dir.join("games.pgn");
        kabir()
            .args([
                "generate",
                "--variant",
                "tamerlane",
                "--seed",
                "19",
                "--games",
            ])
            .arg(count.to_string())
            .arg("-o")
            .arg(&path)
            .assert()
            .code(0);
        path
    }

    /// `kabir import` with the file-size limit of the process set to `limit` bytes.
    fn import_limited(db: &Path, games: &Path, limit: u64) -> std::process::Output {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("kabir"));
        command
            .args(["import", "--quiet", "--batch", "100", "--db"])
            .arg(db)
            .arg(games);
        crate::cli_common::limit_file_size(&mut command, limit);
        command.output().unwrap()
    }

    /// The `imported` count of the import's summary line.
    fn imported(stdout: &str) -> i64 {
        let after = stdout.split("imported: ").nth(1).expect("a summary");
        after[..after.find(',').unwrap()].parse().unwrap()
    }

    #[test]
    fn a_full_disk_stops_the_import_with_its_cause_and_the_database_intact() {
        let dir = tempfile::tempdir().unwrap();
        let games = tamerlane_games(dir.path(), 1500);
        let db = dir.path().join("games.db");
        // Room for a few batches of 100 games, not for 1,500.
        let out = import_limited(&db, &games, 4 << 20);
        let stderr = failure(&out);
        assert!(stderr.contains("file too large"), "{stderr}");
        assert!(stderr.contains("games.db"), "{stderr}");
        // The summary counts what was committed: whole batches, all stored.
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("stopped by an error"), "{stdout}");
        let committed = imported(&stdout);
        assert!(committed > 0 && committed < 1500, "{stdout}");
        assert_eq!(committed % 100, 0, "{stdout}");
        let database = kabir::db::Database::open(&db).unwrap();
        database.integrity_check().unwrap();
        assert_eq!(database.game_count().unwrap() as i64, committed);
        drop(database);
        assert_eq!(
            count(&db, "SELECT sum(plies + 1) FROM game"),
            count(&db, "SELECT sum(postings) FROM segment"),
            "the index holds the positions of the stored games"
        );
        // With room again, the same import completes it.
        kabir()
            .args(["import", "--quiet", "--db"])
            .arg(&db)
            .arg(&games)
            .assert()
            .code(0);
        assert_eq!(count(&db, "SELECT count(*) FROM game"), 1500);
    }

    /// A user whom permissions stop: nobody when the tests run as root, whom they do not.
    const NOBODY: u32 = 65534;

    #[allow(unsafe_code)]
    fn root() -> bool {
        // SAFETY: geteuid has no preconditions.
        unsafe { libc::geteuid() == 0 }
    }

    /// A command that runs `binary` as a user whom permissions stop (see [`NOBODY`]).
    #[allow(unsafe_code)]
    fn unprivileged(binary: &Path) -> std::process::Command {
        let mut command = std::process::Command::new(binary);
        if root() {
            // SAFETY: between fork and exec only `setgroups`, `setgid` and `setuid`, which
            // are async-signal-safe.
            unsafe {
                command.pre_exec(move || {
                    if libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setgid(NOBODY) != 0
                        || libc::setuid(NOBODY) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        command
    }

    /// The binary and a game file copied into `dir`, which everyone may enter: the other user
    /// may not reach the build's or the repository's folders (a clone in a private
    /// directory).
    fn reachable(dir: &Path) -> (PathBuf, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let binary = dir.join("kabir");
        std::fs::copy(assert_cmd::cargo::cargo_bin("kabir"), &binary).unwrap();
        std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
        let sample = dir.join("sample.pgn");
        std::fs::copy(&samples()[1], &sample).unwrap();
        std::fs::set_permissions(&sample, std::fs::Permissions::from_mode(0o644)).unwrap();
        (binary, sample)
    }

    /// A new database in a directory that cannot be written, or that is missing: the message
    /// names the directory and what is wrong with it (it said "unable to open database
    /// file"), and nothing is made.
    #[test]
    fn a_new_database_names_the_directory_it_cannot_be_made_in() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (binary, sample) = reachable(dir.path());
        let folder = dir.path().join("read-only");
        std::fs::create_dir(&folder).unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
        let db = folder.join("new.db");
        let out = unprivileged(&binary)
            .args(["import", "--quiet", "--db"])
            .arg(&db)
            .arg(&sample)
            .output()
            .unwrap();
        let stderr = failure(&out);
        let named = format!("the directory {} is not writable", folder.display());
        assert!(
            stderr.contains("cannot create the database") && stderr.contains(&named),
            "{stderr}"
        );
        assert!(stderr.contains("new.db"), "{stderr}");
        assert!(!db.exists());
        // An output file there: the same words.
        let out = unprivileged(&binary)
            .args(["generate", "--variant", "shatranj", "-o"])
            .arg(folder.join("games.pgn"))
            .output()
            .unwrap();
        let stderr = failure(&out);
        assert!(
            stderr.contains(&named) && stderr.contains("games.pgn"),
            "{stderr}"
        );
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A directory that does not exist.
        let missing = dir.path().join("missing");
        let out = kabir()
            .args(["import", "--quiet", "--db"])
            .arg(missing.join("new.db"))
            .arg(&sample)
            .output()
            .unwrap();
        let stderr = failure(&out);
        let named = format!("the directory {} does not exist", missing.display());
        assert!(stderr.contains(&named), "{stderr}");
        assert!(!missing.exists());
    }

    /// A writable database in a directory the importer cannot write to: SQLite cannot create
    /// its journal beside it, and the message says so (it said "the file is read-only"). Run
    /// as another user when the tests run as root, whom permissions do not stop.
    #[test]
    fn a_database_in_a_read_only_directory_says_why_it_cannot_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("read-only");
        std::fs::create_dir(&folder).unwrap();
        let db = folder.join("games.db");
        kabir()
            .args(["import", "--quiet", "--db"])
            .arg(&db)
            .arg(&samples()[0])
            .assert()
            .code(0);
        use std::os::unix::fs::PermissionsExt;
        if root() {
            std::os::unix::fs::chown(&db, Some(NOBODY), Some(NOBODY)).unwrap();
        }
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
        let before = std::fs::read(&db).unwrap();
        let (binary, sample) = reachable(dir.path());
        let as_user = |args: &[&str]| {
            unprivileged(&binary)
                .args(args)
                .arg("--db")
                .arg(&db)
                .output()
                .unwrap()
        };
        let sample = sample.to_string_lossy().into_owned();
        let out = as_user(&["import", "--quiet", &sample]);
        let stderr = failure(&out);
        assert!(
            stderr.contains("games.db")
                && stderr.contains("directory")
                && stderr.contains("not writable")
                && stderr.contains("journal"),
            "{stderr}"
        );
        assert!(!stderr.contains("the file is read-only"), "{stderr}");
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(
            std::fs::read(&db).unwrap() == before,
            "the file was written to"
        );
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
        // Queries need no journal: they read it.
        let out = as_user(&["stats"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
