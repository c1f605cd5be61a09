//! Prints the positions of a game: each move in SAN and coordinates with the position after it
//! in FEN, then the final board drawn as text.
//!
//! ```text
//! cargo run --release --example positions -- samples/shatranj.pgn 2
//! ```
//!
//! The second argument is the game's number in the file (1 if left out).

use std::error::Error;
use std::fs::File;
use std::io::BufReader;

use kabir::notation::reader::Reader;
use kabir::render::text::TextBoard;
use kabir::replay::replay;
use kabir::variants::Registry;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: positions FILE [GAME]")?;
    let wanted: u64 = args.next().map_or(Ok(1), |n| n.parse())?;
    let mut reader = Reader::new(BufReader::new(File::open(&path)?));
    let index = wanted.checked_sub(1).ok_or("games are numbered from 1")?;
    let raw = reader
        .nth(usize::try_from(index)?)
        .ok_or_else(|| format!("{path} has no game {wanted}"))??;
    let replayed = replay(&raw, &Registry::builtin());
    for p in replayed.errors() {
        eprintln!("{path}:{}:{}: {}", p.line, p.column, p.message);
    }
    // A game with an error is shown as far as it could be replayed.
    let game = replayed
        .game
        .as_deref()
        .ok_or("the game could not be replayed")?;
    let mut pos = game.start().clone();
    println!("start  {}", pos.to_fen());
    for (ply, &m) in game.moves().iter().enumerate() {
        let san = kabir::notation::san_plus(&pos, m, &pos.legal_moves());
        let uci = m.to_uci(&pos);
        pos = pos.after(m);
        println!("{:>4}. {san:<10} {uci:<8} {}", ply + 1, pos.to_fen());
    }
    print!("\n{}", TextBoard::default().render(&pos));
    println!("{:?}", game.status());
    Ok(())
}
