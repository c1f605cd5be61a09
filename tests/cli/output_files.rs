//! The files commands write: an output that is a file the command reads (a game file,
//! standard input, the variant file, the database or its journal), however its path is
//! spelled, is refused before anything is written (exit status 2, both paths named, the input
//! byte for byte as it was); and an output is replaced only when the command completed it, so
//! that a command that fails or is interrupted leaves the previous file as it was.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::cli_common::{generated, integrity, kabir, samples};

/// The standard error of a refused command, after checking its status is 2 and that it names
/// each of `paths`.
fn refused(out: &Output, paths: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("never writes over a file it reads"),
        "{stderr}"
    );
    for p in paths {
        assert!(stderr.contains(p), "{p} not named: {stderr}");
    }
    stderr
}

/// Names in `dir` starting with a dot: temporary files left behind.
fn hidden(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// A game file of the samples' Shatranj games and an invalid one (so that rejects are
/// written), in `dir`.
fn games(dir: &Path) -> PathBuf {
    let path = dir.join("g.pgn");
    let mut text = std::fs::read_to_string(&samples()[3]).unwrap();
    text.push_str("\n[Variant \"Shatranj\"]\n\n1. Qa8 *\n");
    std::fs::write(&path, text).unwrap();
    path
}

/// A database of the samples in `dir`.
fn database(dir: &Path) -> PathBuf {
    let db = dir.join("g.db");
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .args(samples())
        .assert()
        .code(0);
    db
}

#[test]
fn validate_never_writes_over_its_game_file_however_it_is_spelled() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = games(d);
    let before = std::fs::read(&path).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    let mut spellings = vec![
        "g.pgn".to_string(),
        "./g.pgn".to_string(),
        "sub/../g.pgn".to_string(),
        "sub//..//g.pgn".to_string(),
        path.to_string_lossy().into_owned(),
    ];
    #[cfg(unix)]
    {
        std::fs::hard_link(&path, d.join("hard.pgn")).unwrap();
        std::os::unix::fs::symlink("g.pgn", d.join("link.pgn")).unwrap();
        std::os::unix::fs::symlink(".", d.join("here")).unwrap();
        spellings.extend(
            ["hard.pgn", "link.pgn", "here/g.pgn", "here/sub/../link.pgn"].map(String::from),
        );
    }
    for spelled in &spellings {
        for option in ["--fix", "--rejects"] {
            let out = kabir()
                .current_dir(d)
                .args(["validate", option, spelled, "g.pgn"])
                .output()
                .unwrap();
            refused(&out, &[spelled, "g.pgn", option]);
            assert_eq!(std::fs::read(&path).unwrap(), before, "{option} {spelled}");
        }
    }
    // Standard input when it is the file.
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("kabir"))
        .current_dir(d)
        .args(["validate", "--fix", "./g.pgn", "-"])
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    refused(&out, &["./g.pgn", "standard input"]);
    // The rejects written beside --fix by default, over the game file.
    std::fs::copy(&path, d.join("out.rejects.pgn")).unwrap();
    let out = kabir()
        .current_dir(d)
        .args(["validate", "--fix", "out.pgn", "out.rejects.pgn"])
        .output()
        .unwrap();
    refused(&out, &["out.rejects.pgn"]);
    assert!(!d.join("out.pgn").exists());
    // Two outputs to one file.
    let out = kabir()
        .current_dir(d)
        .args([
            "validate",
            "--fix",
            "a.pgn",
            "--rejects",
            "./a.pgn",
            "g.pgn",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("are the same file") && stderr.contains("./a.pgn"),
        "{stderr}"
    );
    assert!(!d.join("a.pgn").exists());
    assert_eq!(hidden(d), Vec::<String>::new());
}

#[test]
fn import_never_writes_over_its_database_or_its_game_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = games(d);
    let game_file = std::fs::read(&path).unwrap();
    let db = database(d);
    let stored = std::fs::read(&db).unwrap();
    for rejects in ["g.db", "./g.db", "g.db-journal", "g.db-wal"] {
        let out = kabir()
            .current_dir(d)
            .args(["import", "--db", "g.db", "--rejects", rejects, "g.pgn"])
            .output()
            .unwrap();
        refused(&out, &[rejects, "the database g.db"]);
        assert_eq!(std::fs::read(&db).unwrap(), stored, "--rejects {rejects}");
    }
    assert!(!d.join("g.db-journal").exists() && !d.join("g.db-wal").exists());
    assert_eq!(integrity(&db), "ok");
    // Its own game file, into a database not made yet: neither is made.
    let out = kabir()
        .current_dir(d)
        .args(["import", "--db", "x.db", "--rejects", "g.pgn", "g.pgn"])
        .output()
        .unwrap();
    refused(&out, &["--rejects g.pgn", "the game file g.pgn"]);
    assert_eq!(std::fs::read(&path).unwrap(), game_file);
    assert!(!d.join("x.db").exists());
    // A database not made yet is the file its name will be. Through a folder that does not
    // exist the path leads nowhere: refused too, before the database is made.
    let out = kabir()
        .current_dir(d)
        .args([
            "import",
            "--db",
            "new.db",
            "--rejects",
            "sub/../new.db",
            "g.pgn",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("sub/.. does not exist"), "{stderr}");
    assert!(!d.join("new.db").exists());
    std::fs::create_dir(d.join("sub")).unwrap();
    let out = kabir()
        .current_dir(d)
        .args([
            "import",
            "--db",
            "new.db",
            "--rejects",
            "sub/../new.db",
            "g.pgn",
        ])
        .output()
        .unwrap();
    refused(&out, &["sub/../new.db", "the database new.db"]);
    assert!(!d.join("new.db").exists());
    // A folder as --rejects is found before the database is made, too.
    let out = kabir()
        .current_dir(d)
        .args(["import", "--db", "new.db", "--rejects", "sub", "g.pgn"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--rejects sub: it is a directory"),
        "{stderr}"
    );
    assert!(!d.join("new.db").exists());
    assert_eq!(hidden(d), Vec::<String>::new());
}

#[test]
fn export_never_writes_over_its_database() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = database(d);
    let stored = std::fs::read(&db).unwrap();
    let mut outputs = vec!["g.db", "./g.db", "g.db-journal", "g.db-shm"];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("g.db", d.join("games.csv")).unwrap();
        outputs.push("games.csv");
    }
    for output in outputs {
        let out = kabir()
            .current_dir(d)
            .args(["export", "--db", "g.db", "--format", "csv", "-o", output])
            .output()
            .unwrap();
        refused(&out, &[output, "the database g.db"]);
        assert_eq!(std::fs::read(&db).unwrap(), stored, "-o {output}");
    }
    assert!(!d.join("g.db-journal").exists() && !d.join("g.db-shm").exists());
    // The database still answers.
    kabir().args(["search", "--db"]).arg(&db).assert().code(0);
}

#[test]
fn pictures_and_generated_games_never_write_over_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = database(d);
    let stored = std::fs::read(&db).unwrap();
    // A database whose name ends in .svg, as a picture file's does.
    std::fs::copy(&db, d.join("g.svg")).unwrap();
    for args in [
        vec!["stats", "--db", "g.svg", "--chart", "g.svg"],
        vec!["explore", "--db", "g.svg", "--diagram", "./g.svg"],
        vec!["show", "1", "--db", "g.svg", "--diagram", "g.svg"],
        vec!["diagram", "--db", "g.svg", "--db-game", "1", "-o", "g.svg"],
    ] {
        let out = kabir().current_dir(d).args(&args).output().unwrap();
        refused(&out, &["the database g.svg"]);
        assert_eq!(std::fs::read(d.join("g.svg")).unwrap(), stored, "{args:?}");
    }
    // A variant file.
    let defs = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/kabir-rules/src/variants/defs/shatranj.toml");
    std::fs::copy(defs, d.join("v.toml")).unwrap();
    let definition = std::fs::read(d.join("v.toml")).unwrap();
    let out = kabir()
        .current_dir(d)
        .args(["generate", "--variant-file", "v.toml", "-o", "./v.toml"])
        .output()
        .unwrap();
    refused(&out, &["./v.toml", "the variant file v.toml"]);
    assert_eq!(std::fs::read(d.join("v.toml")).unwrap(), definition);
    assert_eq!(hidden(d), Vec::<String>::new());
}

/// An output that a command does not complete leaves the file there as it was, and no
/// temporary file beside it.
#[test]
fn a_failed_command_leaves_the_previous_output_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let path = games(d);
    let missing = d.join("missing.pgn");
    let previous = b"previous contents\n";
    for (option, name) in [("--fix", "fixed.pgn"), ("--rejects", "rejects.pgn")] {
        let output = d.join(name);
        std::fs::write(&output, previous).unwrap();
        // The second file cannot be read: the first one's games are not written.
        let out = kabir()
            .args(["validate", option])
            .arg(&output)
            .arg(&path)
            .arg(&missing)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(std::fs::read(&output).unwrap(), previous, "{option}");
    }
    let rejects = d.join("rejects.pgn");
    let out = kabir()
        .args(["import", "--db"])
        .arg(d.join("g.db"))
        .arg("--rejects")
        .arg(&rejects)
        .arg(&path)
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&rejects).unwrap(), previous);
    // The same commands complete their outputs when they can.
    kabir()
        .args(["validate", "--rejects"])
        .arg(&rejects)
        .arg(&path)
        .assert()
        .code(1);
    assert!(std::fs::read_to_string(&rejects).unwrap().contains("Qa8"));
    assert_eq!(hidden(d), Vec::<String>::new());
}

#[cfg(unix)]
mod unix {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};

    use super::*;

    /// `kabir export` with the file-size limit of the process set to `limit` bytes.
    fn export_limited(db: &Path, output: &Path, limit: u64) -> Output {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("kabir"));
        command
            .args(["export", "--db"])
            .arg(db)
            .arg("-o")
            .arg(output);
        crate::cli_common::limit_file_size(&mut command, limit);
        command.output().unwrap()
    }

    #[test]
    fn an_export_stopped_by_a_full_disk_leaves_the_previous_output() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let games = d.join("games.pgn");
        generated(&games, "tamerlane", 300, 7);
        let db = d.join("g.db");
        kabir()
            .args(["import", "--quiet", "--db"])
            .arg(&db)
            .arg(&games)
            .assert()
            .code(0);
        let output = d.join("out.pgn");
        std::fs::write(&output, "previous\n").unwrap();
        std::fs::set_permissions(&output, std::fs::Permissions::from_mode(0o640)).unwrap();
        // The export is about as large as the game file; the limit lets a tenth of it through.
        let limit = std::fs::metadata(&games).unwrap().len() / 10;
        let out = export_limited(&db, &output, limit);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("cannot write") && stderr.contains("out.pgn"),
            "{stderr}"
        );
        assert!(stderr.contains("too large"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&output).unwrap(), "previous\n");
        assert_eq!(hidden(d), Vec::<String>::new());
        // Completed, it replaces the file and keeps its permissions.
        kabir()
            .args(["export", "--db"])
            .arg(&db)
            .arg("-o")
            .arg(&output)
            .assert()
            .code(0);
        let text = std::fs::read_to_string(&output).unwrap();
        assert_eq!(text.matches("[Event ").count(), 300);
        let mode = std::fs::metadata(&output).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[allow(unsafe_code)]
    #[test]
    fn an_interrupted_command_leaves_the_previous_output() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let output = d.join("out.pgn");
        for signal in [libc::SIGINT, libc::SIGTERM] {
            std::fs::write(&output, "previous\n").unwrap();
            // Far more games than it can make before the signal.
            let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("kabir"));
            command
                .args(["generate", "--variant", "tamerlane", "-n", "1000000", "-o"])
                .arg(&output);
            // The signal's default action, even if the tests were started with it ignored
            // (kabir keeps an ignored signal ignored).
            // SAFETY: between fork and exec only `signal`, which is async-signal-safe.
            unsafe {
                command.pre_exec(move || {
                    libc::signal(signal, libc::SIG_DFL);
                    Ok(())
                });
            }
            let mut child = command.spawn().unwrap();
            // The signal once the temporary file is there, being written.
            let started = Instant::now();
            while hidden(d).is_empty() {
                assert!(
                    started.elapsed() < Duration::from_secs(60),
                    "no temporary file"
                );
                std::thread::sleep(Duration::from_millis(10));
            }
            // SAFETY: `kill` of the child started above.
            unsafe { libc::kill(child.id() as libc::pid_t, signal) };
            let signalled = Instant::now();
            let status = loop {
                if let Some(status) = child.try_wait().unwrap() {
                    break status;
                }
                if signalled.elapsed() > Duration::from_secs(60) {
                    child.kill().unwrap();
                    panic!("signal {signal} did not end kabir");
                }
                std::thread::sleep(Duration::from_millis(10));
            };
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(signal), "{status:?}");
            assert_eq!(std::fs::read_to_string(&output).unwrap(), "previous\n");
            assert_eq!(hidden(d), Vec::<String>::new(), "signal {signal}");
        }
    }
}
