//! The opening explorer over a database made from game files: imports the valid games into
//! a new database and prints, for the start position of a variant, the moves played from it
//! with their games and results, and the same one move deeper.
//!
//! ```text
//! cargo run --release --example explore -- samples/tamerlane.pgn samples/shatranj.pgn
//! ```
//!
//! The database is written to a temporary folder and removed at the end.

use std::error::Error;
use std::fs::File;
use std::io::BufReader;

use kabir::db::{Database, Explorer, GameRecord};
use kabir::notation::reader::Reader;
use kabir::replay::replay;
use kabir::rules::Position;
use kabir::variants::Registry;

fn main() -> Result<(), Box<dyn Error>> {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        return Err("usage: explore FILE...".into());
    }
    let registry = Registry::builtin();
    let mut records = Vec::new();
    let mut skipped = 0;
    for path in &files {
        for raw in Reader::new(BufReader::new(File::open(path)?)) {
            let raw = raw?;
            match GameRecord::from_replay(replay(&raw, &registry), &raw) {
                Ok(record) => records.push(record),
                Err(_) => skipped += 1,
            }
        }
    }
    let Some(variant) = records.first().map(|r| r.variant.clone()) else {
        return Err("no valid game in the files".into());
    };

    let dir = std::env::temp_dir().join(format!("kabir-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let result = (|| -> Result<(), Box<dyn Error>> {
        let mut db = Database::create_or_open(dir.join("games.db"))?;
        let stats = db.importer()?.import_batch(records)?;
        println!(
            "imported {} games ({} duplicates, {skipped} invalid skipped)\n",
            stats.imported, stats.duplicates
        );
        let start = Position::start(&variant);
        let explorer = db.explore(&start, 3)?;
        print_explorer(variant.name(), &explorer);
        if let Some(first) = explorer.moves.first() {
            let next = start.after(first.mv);
            print_explorer(
                &format!("{} after {}", variant.name(), first.san),
                &db.explore(&next, 3)?,
            );
        }
        Ok(())
    })();
    std::fs::remove_dir_all(&dir)?;
    result
}

fn print_explorer(title: &str, ex: &Explorer) {
    println!("{title}: {} games", ex.games);
    println!("  move        games   share   1-0  1/2   0-1    *");
    for m in &ex.moves {
        let r = &m.results;
        println!(
            "  {:<10} {:>6} {:>6.1}% {:>5} {:>4} {:>5} {:>4}",
            m.san, m.games, m.share_pct, r.white_wins, r.draws, r.black_wins, r.unfinished
        );
    }
    if ex.ended_here > 0 {
        println!("  ({} games ended here)", ex.ended_here);
    }
    println!();
}
