//! Shared helpers for the tests that run the real `kabir` binary on files: the command, the
//! bundled samples, and a few questions asked of the database it leaves.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

/// The bundled `samples/*.pgn`, sorted by name.
pub fn samples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    files
}

/// The one integer `sql` selects from `db`.
pub fn count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// `PRAGMA integrity_check` of `db`: "ok" when the file is sound.
pub fn integrity(db: &Path) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

/// Writes `games` random games of `variant` (seeded) to `path` with `kabir generate`.
pub fn generated(path: &Path, variant: &str, games: u32, seed: u64) {
    kabir()
        .args(["generate", "--variant", variant, "-n", &games.to_string()])
        .args(["--seed", &seed.to_string(), "-o"])
        .arg(path)
        .assert()
        .code(0);
}

/// Sets `command` to run with its files limited to `limit` bytes (`ulimit -f`): a write past
/// it fails with "file too large" (kabir ignores SIGXFSZ), as on a full disk.
#[allow(unsafe_code)]
#[cfg(unix)]
pub fn limit_file_size(command: &mut std::process::Command, limit: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only `setrlimit`, which is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            let rlimit = libc::rlimit {
                rlim_cur: limit as libc::rlim_t,
                rlim_max: limit as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
