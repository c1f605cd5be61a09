//! A reader that stops early (`kabir ... | head`) ends the command quietly: exit status 0 and
//! nothing on standard error, in every output format.

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
