//! Every failure says its cause: an impossible date in a filter. Each exits with status 2.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

fn samples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files
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
