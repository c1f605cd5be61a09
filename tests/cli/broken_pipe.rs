//! A reader that stops early (`kabir ... | head`) ends the command quietly: nothing on standard
//! error, in every output format, and exit status 0, or 1 when `kabir validate` has read an
//! invalid game.

use std::io::Read;
use std::process::{Command, Stdio};

fn kabir() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("kabir"))
}

/// Runs `cmd`, reads the first bytes of its output, closes the pipe and returns the exit
/// status and standard error.
fn stop_reading_early(mut cmd: Command) -> (std::process::ExitStatus, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A file large enough that its report outgrows a pipe's buffer: its check marks are taken
/// out, so every check is a warning, reported in every format.
fn games() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.pgn");
    let out = kabir()
        .args([
            "generate",
            "--variant",
            "shatranj",
            "--games",
            "3000",
            "--seed",
            "5",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap().replace('+', "");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn validate_stops_quietly_in_every_format() {
    let (_dir, path) = games();
    for format in ["table", "json", "csv"] {
        let mut cmd = kabir();
        cmd.args(["validate", "--format", format]).arg(&path);
        let (status, stderr) = stop_reading_early(cmd);
        assert!(status.success(), "{format}: {status:?} {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{format}: {stderr}");
    }
}

#[test]
fn generate_stops_quietly() {
    let mut cmd = kabir();
    cmd.args(["generate", "--variant", "tamerlane", "--games", "2000"]);
    let (status, stderr) = stop_reading_early(cmd);
    assert!(status.success(), "{status:?} {stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn database_commands_stop_quietly_in_every_format() {
    let (dir, path) = games();
    let db = dir.path().join("games.db");
    let status = kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .arg(&path)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    for format in ["pgn", "csv", "json"] {
        let mut cmd = kabir();
        cmd.args(["export", "--format", format, "--db"]).arg(&db);
        let (status, stderr) = stop_reading_early(cmd);
        assert!(status.success(), "export {format}: {status:?} {stderr}");
        assert_eq!(stderr, "", "export {format}");
    }
    for format in ["table", "csv", "json"] {
        let mut cmd = kabir();
        cmd.args([
            "search", "--moves", "", "--limit", "3000", "--format", format, "--db",
        ])
        .arg(&db);
        let (status, stderr) = stop_reading_early(cmd);
        assert!(status.success(), "search {format}: {status:?} {stderr}");
        assert_eq!(stderr, "", "search {format}");
    }
}

/// Runs `cmd` with its standard output a pipe whose reader has already gone: its first write
/// fails.
fn closed_pipe(mut cmd: Command) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    cmd.stdout(writer).stderr(Stdio::piped()).output().unwrap()
}

#[test]
fn every_printing_command_stops_quietly_at_a_closed_pipe() {
    let (dir, path) = games();
    let db = dir.path().join("games.db");
    let status = kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .arg(&path)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let db = db.to_string_lossy().into_owned();
    let path = path.to_string_lossy().into_owned();
    for args in [
        vec!["completions", "zsh"],
        vec!["completions", "bash"],
        vec!["man"],
        vec!["--help"],
        vec!["validate", "--help"],
        vec!["variants"],
        vec!["perft", "--variant", "shatranj", "2"],
        vec!["generate", "--variant", "shatranj", "-n", "20"],
        vec!["validate", &path],
        vec!["export", "--db", &db],
        vec!["search", "--db", &db],
        vec!["explore", "--db", &db],
        vec!["stats", "--db", &db],
        vec!["show", "1", "--db", &db],
        vec!["diagram"],
    ] {
        let mut cmd = kabir();
        cmd.args(&args);
        let out = closed_pipe(cmd);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

/// 2,000 games, every other one invalid (an illegal first move), enough to outgrow a pipe's
/// buffer.
fn invalid_games() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = kabir()
        .args([
            "generate",
            "--variant",
            "shatranj",
            "--games",
            "2000",
            "--seed",
            "9",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut games: Vec<String> = text
        .split("[Event ")
        .filter(|g| !g.is_empty())
        .map(|g| format!("[Event {g}"))
        .collect();
    assert_eq!(games.len(), 2000);
    for g in games.iter_mut().step_by(2) {
        let bad = g.replacen("\n1. ", "\n1. Qa8 ", 1);
        assert_ne!(&bad, g);
        *g = bad;
    }
    let path = dir.path().join("bad.pgn");
    std::fs::write(&path, games.concat()).unwrap();
    (dir, path)
}

/// `kabir validate bad.pgn | head -1`: the games read had errors, and the status says so.
#[test]
fn validate_says_it_found_invalid_games_when_the_reader_stops_early() {
    let (dir, path) = invalid_games();
    for format in ["human", "table", "json", "csv"] {
        let mut cmd = kabir();
        cmd.args(["validate", "--format", format]).arg(&path);
        let (status, stderr) = stop_reading_early(cmd);
        assert_eq!(status.code(), Some(1), "{format}: {stderr}");
        assert_eq!(stderr, "", "{format}");
        // CSV writes its header before reading a game: a reader gone from the start leaves
        // no game read, and the status 0.
        if format != "csv" {
            let mut cmd = kabir();
            cmd.args(["validate", "--format", format]).arg(&path);
            let out = closed_pipe(cmd);
            assert_eq!(out.status.code(), Some(1), "{format}");
        }
    }
    // Files being written are completed: the games go on being read, quietly.
    let fixed = dir.path().join("fixed.pgn");
    let mut cmd = kabir();
    cmd.args(["validate", "--fix"]).arg(&fixed).arg(&path);
    let out = closed_pipe(cmd);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let count = |p: &std::path::Path| {
        std::fs::read_to_string(p)
            .unwrap()
            .matches("[Event ")
            .count()
    };
    assert_eq!(count(&fixed), 1000);
    assert_eq!(count(&dir.path().join("fixed.rejects.pgn")), 1000);
}

/// A reader gone from standard output or standard error does not stop an import, whose output
/// is the database: every valid game is stored, and the status says some were invalid.
#[test]
fn import_goes_on_when_its_readers_have_gone() {
    let (dir, path) = invalid_games();
    let stored = |db: &std::path::Path| {
        let out = kabir()
            .args(["search", "--limit", "5000", "--format", "csv", "--db"])
            .arg(db)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).lines().count() - 1
    };
    for (n, format) in ["text", "json"].into_iter().enumerate() {
        let db = dir.path().join(format!("stdout-{n}.db"));
        let mut cmd = kabir();
        cmd.args(["import", "--format", format, "--db"])
            .arg(&db)
            .arg(&path);
        let out = closed_pipe(cmd);
        assert_eq!(out.status.code(), Some(1), "{format}");
        assert_eq!(stored(&db), 1000, "{format}");
    }
    // The problems of the invalid games go to standard error.
    let db = dir.path().join("stderr.db");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = kabir()
        .args(["import", "--db"])
        .arg(&db)
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(writer)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    assert_eq!(stored(&db), 1000);
}
