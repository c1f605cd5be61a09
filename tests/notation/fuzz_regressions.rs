//! Every input that ever made a fuzz target (`fuzz/`) fail, replayed through the same checks:
//! `tests/data/fuzz-regressions/TARGET/*`. Also runs the checks on the repository's own game
//! and definition files, so that the checks themselves are known to pass on good input.

use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != ".gitkeep"))
        .collect();
    out.sort();
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Replays the regression inputs of one target; returns how many there were.
fn replay_all(target: &str, check: fn(&[u8])) -> usize {
    let dir = root().join("tests/data/fuzz-regressions").join(target);
    let list = files(&dir);
    for path in &list {
        let data = std::fs::read(path).unwrap();
        let name = path.display().to_string();
        if let Err(e) = std::panic::catch_unwind(|| check(&data)) {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{name}: {why}");
        }
    }
    list.len()
}

#[test]
fn reader_regressions() {
    replay_all("reader", crate::fuzz_common::reader);
}

#[test]
fn fen_regressions() {
    replay_all("fen", crate::fuzz_common::fen);
}

#[test]
fn san_replay_regressions() {
    replay_all("san_replay", crate::fuzz_common::san_replay);
}

#[test]
fn grammar_regressions() {
    replay_all("grammar", crate::fuzz_common::grammar);
}

#[test]
fn variant_definition_regressions() {
    replay_all("variant_definition", crate::fuzz_common::variant_definition);
}

#[test]
fn the_checks_pass_on_the_repository_files() {
    let mut games = files(&root().join("samples"));
    games.extend(files(&root().join("tests/data/validate")));
    for path in &games {
        let data = std::fs::read(path).unwrap();
        crate::fuzz_common::reader(&data);
        crate::fuzz_common::grammar(&data);
        let mut moves = vec![3u8];
        moves.extend_from_slice(&data);
        crate::fuzz_common::san_replay(&moves);
    }
    for id in kabir::variants::builtin_ids() {
        let v = kabir::variants::builtin(&id).unwrap();
        let ids = kabir::variants::builtin_ids();
        let pick = ids.iter().position(|i| *i == id).unwrap() as u8;
        let mut fen = vec![pick];
        fen.extend_from_slice(v.start_fen().as_bytes());
        crate::fuzz_common::fen(&fen);
        crate::fuzz_common::grammar(v.start_fen().as_bytes());
        let path = root().join(format!("crates/kabir-rules/src/variants/defs/{id}.toml"));
        let def = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        crate::fuzz_common::variant_definition(&def);
    }
}
