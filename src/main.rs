//! The `kabir` command line.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// kabir: the Shatranj family of chess games — rules, notation, validation and a game database.
#[derive(Debug, Parser)]
#[command(name = "kabir", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the built-in variants.
    Variants(cli::variants::VariantsArgs),
    /// Count the legal move tree to a depth (move generator test).
    Perft(cli::perft::PerftArgs),
    /// Play random legal games, reproducible by seed.
    Generate(cli::generate::GenerateArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = match &cli.command {
        Command::Variants(a) => cli::variants::run(a, &mut out),
        Command::Perft(a) => cli::perft::run(a, &mut out),
        Command::Generate(a) => cli::generate::run(a, &mut out),
    };
    let result = result.and_then(|()| out.flush().map_err(Into::into));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("kabir: {e:#}");
            ExitCode::from(2)
        }
    }
}
