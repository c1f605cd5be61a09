//! Shared helpers for the database tests: records from generated games, replays.
#![allow(dead_code)]

use std::sync::Arc;

use kabir::db::GameRecord;
use kabir::generate::{Options, random_game};
use kabir::rules::{Game, Position, Variant};

pub fn variant(name: &str) -> Arc<Variant> {
    kabir::variants::builtin(name).expect("built-in variant")
}

pub fn record_of(game: &Game, variant: &Arc<Variant>, n: u64) -> GameRecord {
    let result = game
        .status()
        .outcome()
        .map_or("*", |o| o.as_pgn())
        .to_string();
    let tags = vec![
        ("Event".to_string(), format!("Test event {}", n % 3)),
        ("Site".to_string(), "Samarkand".to_string()),
        ("Date".to_string(), format!("14{:02}.01.01", n % 50)),
        ("Round".to_string(), n.to_string()),
        ("White".to_string(), format!("White {}", n % 5)),
        ("Black".to_string(), format!("Black {}", n % 7)),
        ("Result".to_string(), result.clone()),
    ];
    let pgn = kabir::notation::write_game(game, &tags);
    GameRecord {
        variant: variant.clone(),
        start: game.start().clone(),
        moves: game.moves().to_vec(),
        tags,
        result,
        pgn,
        replayed: None,
    }
}

/// `n` random games of a variant, game `i` of seed `seed`, at most `max_plies` plies.
pub fn records(
    name: &str,
    seed: u64,
    range: std::ops::Range<u64>,
    max_plies: usize,
) -> Vec<GameRecord> {
    let v = variant(name);
    let opts = Options {
        max_plies,
        ..Options::default()
    };
    range
        .map(|i| record_of(&random_game(&v, seed, i, &opts), &v, i))
        .collect()
}

/// Every position of a record, the start included.
pub fn positions(r: &GameRecord) -> Vec<Position> {
    let mut pos = r.start.clone();
    let mut out = vec![pos.clone()];
    for &m in &r.moves {
        pos.play_unchecked(m);
        out.push(pos.clone());
    }
    out
}

pub fn temp_db() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("games.db");
    (dir, path)
}
