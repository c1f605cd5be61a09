//! Checks game files as `kabir validate` does, with the library alone: reads each game,
//! replays it through the rules and prints every problem with its place in the file.
//!
//! ```text
//! cargo run --release --example validate -- samples/tamerlane.pgn
//! ```
//!
//! Exits with status 1 if a game is invalid, 2 if a file cannot be read.

use std::fs::File;
use std::io::BufReader;
use std::process::ExitCode;

use kabir::notation::reader::Reader;
use kabir::replay::replay;
use kabir::variants::Registry;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: validate FILE...");
        return ExitCode::from(2);
    }
    let registry = Registry::builtin();
    let (mut games, mut invalid) = (0u64, 0u64);
    for path in &files {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(2);
            }
        };
        for game in Reader::new(BufReader::new(file)) {
            let game = match game {
                Ok(g) => g,
                Err(e) => {
                    eprintln!("{path}: {e}");
                    return ExitCode::from(2);
                }
            };
            let replayed = replay(&game, &registry);
            games += 1;
            if !replayed.is_valid() {
                invalid += 1;
            }
            for p in &replayed.problems {
                let severity = if p.error { "error" } else { "warning" };
                println!(
                    "{path}:{}:{}: {severity}: {} ({:?})",
                    p.line, p.column, p.message, p.text
                );
            }
        }
    }
    println!("{games} games, {invalid} invalid");
    if invalid > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
