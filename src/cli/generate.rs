//! `kabir generate`: random legal games.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use rayon::prelude::*;

use kabir::generate::{Options, random_game};
use kabir::rules::{Game, Status};

use super::args::VariantArgs;
use super::output::{Files, Output};

/// Play random legal games (reproducible by seed) and write them as a game file.
///
/// Captures are preferred (see --capture-bias) so that games often end by the rules:
/// checkmate, stalemate, bare king, citadel draw.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Number of games.
    #[arg(long, short = 'n', default_value_t = 1)]
    pub games: u64,
    /// Random seed; the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop a game after this many plies.
    #[arg(long, default_value_t = 400)]
    pub max_plies: usize,
    /// Chance (0-1) of choosing among captures when there are any.
    #[arg(long, default_value_t = 0.7)]
    pub capture_bias: f64,
    /// The games' tags: `fixed` (Event "kabir generate", both players "random SEED", no
    /// date or site) or `varied` (players from a pool of 3,000 names, 320 events, 120 sites,
    /// dates from 1900 to 2024, rounds 1-12, reproducible by seed like the moves, which do
    /// not change with this), for trying searches by name and statistics.
    #[arg(long, value_enum, default_value_t = TagsArg::Fixed)]
    pub tags: TagsArg,
    /// Output file (default: standard output), replaced once every game is written.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Which tags generated games get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TagsArg {
    Fixed,
    Varied,
}

/// Games are made in parallel in chunks of this many, then written in order.
const CHUNK: u64 = 4096;

pub fn run(args: &GenerateArgs, out: &mut dyn Write) -> Result<()> {
    let variant = args.variant.resolve(None)?;
    if !(0.0..=1.0).contains(&args.capture_bias) {
        anyhow::bail!("--capture-bias must be between 0 and 1");
    }
    let options = Options {
        max_plies: args.max_plies,
        capture_bias: args.capture_bias,
    };
    let mut files = Files::new();
    files.variant_file(args.variant.variant_file.as_deref());
    if let Some(path) = &args.output {
        files.write("--output", path);
    }
    files.check()?;
    let mut file = args.output.as_deref().map(Output::create).transpose()?;
    let out: &mut dyn Write = match &mut file {
        Some(f) => f,
        None => out,
    };
    let mut start = 0;
    while start < args.games {
        let end = (start + CHUNK).min(args.games);
        let texts: Vec<String> = (start..end)
            .into_par_iter()
            .map(|i| {
                let game = random_game(&variant, args.seed, i, &options);
                kabir::notation::write_game(&game, &headers(&game, args.seed, i, args.tags))
            })
            .collect();
        for t in texts {
            out.write_all(t.as_bytes())?;
        }
        start = end;
    }
    match file {
        Some(f) => f.commit(),
        None => Ok(()),
    }
}

fn headers(game: &Game, seed: u64, index: u64, which: TagsArg) -> Vec<(String, String)> {
    let status = game.status();
    let mut tags = match which {
        TagsArg::Fixed => vec![
            ("Event".to_string(), "kabir generate".to_string()),
            ("Site".to_string(), "?".to_string()),
            ("Date".to_string(), "????.??.??".to_string()),
            ("Round".to_string(), (index + 1).to_string()),
            ("White".to_string(), format!("random {seed}")),
            ("Black".to_string(), format!("random {seed}")),
        ],
        TagsArg::Varied => kabir::generate::varied_tags(seed, index),
    };
    tags.extend([
        (
            "Result".to_string(),
            status.outcome().map_or("*", |o| o.as_pgn()).to_string(),
        ),
        (
            "Variant".to_string(),
            game.position().variant().name().to_string(),
        ),
    ]);
    if let Status::Over { termination, .. } = status {
        tags.push(("Termination".to_string(), termination.as_str().to_string()));
    }
    tags
}
