//! Shared helpers for the query command tests: a database built through the real binary
//! from `samples/` and generated games, and brute-force answers computed with the library.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use kabir::db::{Database, StoredGame};
use kabir::generate::{Options, random_game};
use kabir::rules::Position;
use kabir::variants::Registry;

// The binary and the bundled samples, as the other tests that run the binary have them.
pub use crate::cli_common::{kabir, samples};

/// Runs `kabir ARGS --db DB`.
pub fn run(db: &Path, args: &[&str]) -> Output {
    kabir().args(args).arg("--db").arg(db).output().unwrap()
}

/// Runs and expects exit status 0; returns standard output.
pub fn ok(db: &Path, args: &[&str]) -> String {
    let out = run(db, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "kabir {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs with `--format json` and parses the answer.
pub fn json(db: &Path, args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    serde_json::from_str(&ok(db, &a)).unwrap()
}

/// Games written by the library with varied tags: `n` random games of `variant`.
pub fn generated_pgn(variant: &str, n: u64, seed: u64) -> String {
    let v = kabir::variants::builtin(variant).unwrap();
    let options = Options {
        max_plies: 60,
        ..Options::default()
    };
    let mut text = String::new();
    for i in 0..n {
        let game = random_game(&v, seed, i, &options);
        let result = game
            .status()
            .outcome()
            .map_or(["1-0", "0-1", "1/2-1/2", "*"][(i % 4) as usize], |o| {
                o.as_pgn()
            });
        let tags = vec![
            ("Event".to_string(), format!("Cup {}", i % 3)),
            ("Site".to_string(), format!("Town {}", i % 2)),
            (
                "Date".to_string(),
                format!("19{:02}.0{}.1{}", 80 + i % 20, 1 + i % 9, i % 10),
            ),
            ("Round".to_string(), i.to_string()),
            ("White".to_string(), format!("Player {}", i % 5)),
            ("Black".to_string(), format!("Player {}", (i + 2) % 7)),
            ("Result".to_string(), result.to_string()),
            ("Variant".to_string(), v.name().to_string()),
        ];
        let mut g = kabir::notation::write_game(&game, &tags);
        // The writer writes the rules' result; keep the one claimed in the tags.
        if game.status().outcome().is_none() && result != "*" {
            let cut = g.trim_end().len() - 1;
            g.truncate(cut);
            g.push_str(result);
            g.push('\n');
        }
        text.push_str(&g);
        text.push('\n');
    }
    text
}

/// Three short shatranj games that reach one position by different move orders.
pub const TRANSPOSITIONS: &str = r#"[Event "Order A"]
[Variant "Shatranj"]
[Result "*"]

1. e3 e6 2. d3 d6 3. Nf3 *

[Event "Order B"]
[Variant "Shatranj"]
[Result "1-0"]

1. d3 d6 2. e3 e6 3. Nc3 1-0

[Event "Order C"]
[Variant "Shatranj"]
[Result "0-1"]

1. e3 d6 2. d3 e6 0-1
"#;

/// Builds the test database in `dir`: the samples, 40 tamerlane and 40 shatranj games with
/// varied tags, 20 `kabir generate` games of knavish shatranj, and the transpositions.
pub fn build_db(dir: &Path) -> PathBuf {
    let db = dir.join("games.db");
    let t = dir.join("tamerlane.pgn");
    let s = dir.join("shatranj.pgn");
    let k = dir.join("knavish.pgn");
    let x = dir.join("transpositions.pgn");
    std::fs::write(&t, generated_pgn("tamerlane", 40, 11)).unwrap();
    std::fs::write(&s, generated_pgn("shatranj", 40, 12)).unwrap();
    std::fs::write(&x, TRANSPOSITIONS).unwrap();
    kabir()
        .args([
            "generate",
            "--variant",
            "knavish-shatranj",
            "--games",
            "20",
            "--seed",
            "3",
        ])
        .arg("-o")
        .arg(&k)
        .assert()
        .success();
    let out = kabir()
        .arg("import")
        .arg("--db")
        .arg(&db)
        .args(samples())
        .args([&t, &s, &k, &x])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

/// Every stored game, read through the library.
pub fn all_games(db: &Path) -> Vec<StoredGame> {
    let d = Database::open(db).unwrap();
    let n = d.game_count().unwrap() as u32;
    (1..=n).map(|id| d.game(id).unwrap().unwrap()).collect()
}

/// Brute force: each game of the position's variant that reached it, with the first ply.
pub fn reached(games: &[StoredGame], target: &Position) -> Vec<(u32, u32)> {
    let registry = Registry::builtin();
    let mut out = Vec::new();
    for g in games {
        if g.variant != target.variant().id() {
            continue;
        }
        for ply in 0..=g.moves.len() {
            if g.position_at(&registry, ply).unwrap() == *target {
                out.push((g.id.0, ply as u32));
                break;
            }
        }
    }
    out
}

/// The id of the game with this Event tag (and White tag, when given).
pub fn id_of(games: &[StoredGame], event: &str, white: Option<&str>) -> u32 {
    games
        .iter()
        .find(|g| g.tag("Event") == Some(event) && white.is_none_or(|w| g.tag("White") == Some(w)))
        .unwrap_or_else(|| panic!("no game {event:?}"))
        .id
        .0
}
