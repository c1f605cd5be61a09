//! The chess anchor of `benches/anchor.sh`: what the established Rust chess crates
//! (pgn-reader and shakmaty) do for the work of `kabir validate`, on one thread.
//!
//! ```sh
//! chess-anchor FILE.pgn
//! chess-anchor generate --seed S --plies MEAN --bytes N -o FILE.pgn
//! ```
//!
//! The first form reads every game of a chess PGN file, resolves each SAN move against the
//! position (which checks it is legal) and plays it, then prints one line:
//! `games G plies P bytes B seconds T`. An illegal or unreadable move, or a game that cannot be
//! read, stops it with a message and exit status 1.
//!
//! The second writes seeded random legal chess games until the file holds at least N bytes.
//! Each game stops at a length drawn uniformly between half and one and a half times MEAN
//! plies, or earlier when it is over (mate, stalemate, insufficient material), so that its
//! files can be given the length of kabir's generated games.
use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::time::Instant;

use pgn_reader::{Reader, SanPlus, Skip, Visitor};
use shakmaty::san::SanPlus as SanMove;
use shakmaty::{Chess, Color, Outcome, Position};

/// Replays the main line of each game from the standard start.
struct Replayer {
    plies: u64,
}

/// A game's state while its moves are read: the position, or the first problem found.
struct Game {
    pos: Chess,
    ply: u64,
}

impl Visitor for Replayer {
    type Tags = ();
    type Movetext = Game;
    type Output = Result<(), String>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<Self::Output, Game> {
        ControlFlow::Continue(Game {
            pos: Chess::default(),
            ply: 0,
        })
    }

    fn san(&mut self, game: &mut Game, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        match san_plus.san.to_move(&game.pos) {
            Ok(m) => {
                game.pos.play_unchecked(m);
                game.ply += 1;
                ControlFlow::Continue(())
            }
            Err(e) => ControlFlow::Break(Err(format!(
                "ply {}: {san_plus} is not a legal move: {e}",
                game.ply + 1
            ))),
        }
    }

    fn begin_variation(&mut self, _game: &mut Game) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, game: Game) -> Self::Output {
        self.plies += game.ply;
        Ok(())
    }
}

fn replay(path: &str) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let bytes = file.metadata().map_err(|e| format!("{path}: {e}"))?.len();
    let start = Instant::now();
    let mut reader = Reader::new(file);
    let mut visitor = Replayer { plies: 0 };
    let mut games = 0u64;
    while let Some(game) = reader
        .read_game(&mut visitor)
        .map_err(|e| format!("{path}: game {}: {e}", games + 1))?
    {
        games += 1;
        game.map_err(|e| format!("{path}: game {games}, {e}"))?;
    }
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "games {games} plies {} bytes {bytes} seconds {seconds:.4}",
        visitor.plies
    );
    Ok(())
}

/// SplitMix64: a few lines of arithmetic are enough for reproducible random games, and keep
/// the anchor's dependencies to the two crates it measures.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0); the bias of the modulo is irrelevant here.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn generate(seed: u64, mean: u64, bytes: u64, out: &str) -> Result<(), String> {
    let file = std::fs::File::create(out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = BufWriter::new(file);
    let mut rng = Rng(seed);
    let mut written = 0u64;
    let mut round = 0u64;
    let (low, span) = (mean / 2, mean.max(1));
    let mut text = String::new();
    while written < bytes {
        round += 1;
        let length = low + rng.below(span + 1);
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        while (moves.len() as u64) < length && !pos.is_game_over() {
            let legal = pos.legal_moves();
            let m = legal[rng.below(legal.len() as u64) as usize];
            moves.push(SanMove::from_move_and_play_unchecked(&mut pos, m).to_string());
        }
        let result = match pos.outcome() {
            Outcome::Known(shakmaty::KnownOutcome::Decisive {
                winner: Color::White,
            }) => "1-0",
            Outcome::Known(shakmaty::KnownOutcome::Decisive {
                winner: Color::Black,
            }) => "0-1",
            Outcome::Known(shakmaty::KnownOutcome::Draw) => "1/2-1/2",
            Outcome::Unknown => "*",
        };
        text.clear();
        text.push_str(&format!(
            "[Event \"chess-anchor generate\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n\
             [Round \"{round}\"]\n[White \"random {seed}\"]\n[Black \"random {seed}\"]\n\
             [Result \"{result}\"]\n\n"
        ));
        // Lines of at most 79 characters, as kabir writes them.
        let mut line = 0usize;
        let mut word = |text: &mut String, token: &str| {
            if line > 0 && line + 1 + token.len() > 79 {
                text.push('\n');
                line = 0;
            } else if line > 0 {
                text.push(' ');
                line += 1;
            }
            text.push_str(token);
            line += token.len();
        };
        for (i, m) in moves.iter().enumerate() {
            if i % 2 == 0 {
                word(&mut text, &format!("{}.", i / 2 + 1));
            }
            word(&mut text, m);
        }
        word(&mut text, result);
        text.push_str("\n\n");
        w.write_all(text.as_bytes())
            .map_err(|e| format!("{out}: {e}"))?;
        written += text.len() as u64;
    }
    w.flush().map_err(|e| format!("{out}: {e}"))
}

fn usage() -> String {
    "usage: chess-anchor FILE.pgn\n       chess-anchor generate --seed S --plies MEAN --bytes N -o FILE.pgn"
        .to_string()
}

fn run(args: &[String]) -> Result<(), String> {
    match args {
        [path] if path != "generate" => replay(path),
        [command, rest @ ..] if command == "generate" => {
            let (mut seed, mut mean, mut bytes, mut out) = (None, None, None, None);
            let mut it = rest.iter();
            while let Some(flag) = it.next() {
                let value = it.next().ok_or_else(usage)?;
                let number = || value.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
                match flag.as_str() {
                    "--seed" => seed = Some(number()?),
                    "--plies" => mean = Some(number()?),
                    "--bytes" => bytes = Some(number()?),
                    "-o" => out = Some(value.clone()),
                    _ => return Err(usage()),
                }
            }
            match (seed, mean, bytes, out) {
                (Some(s), Some(m), Some(b), Some(o)) => generate(s, m, b, &o),
                _ => Err(usage()),
            }
        }
        _ => Err(usage()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chess-anchor: {e}");
            ExitCode::FAILURE
        }
    }
}
