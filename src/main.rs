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
    /// Check game files: replay every game and report each problem precisely.
    Validate(cli::validate::ValidateArgs),
    /// Import game files into a database (default kabir.db).
    Import(cli::import::ImportArgs),
    /// Draw a position as SVG or PNG.
    Diagram(cli::diagram::DiagramArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // Ok(false): the command ran but found invalid input (exit status 1).
    let result = match &cli.command {
        Command::Variants(a) => cli::variants::run(a, &mut out).map(|()| true),
        Command::Perft(a) => cli::perft::run(a, &mut out).map(|()| true),
        Command::Generate(a) => cli::generate::run(a, &mut out).map(|()| true),
        Command::Validate(a) => cli::validate::run(a, &mut out),
        Command::Import(a) => cli::import::run(a, &mut out),
        Command::Diagram(a) => cli::diagram::run(a, &mut out).map(|()| true),
    };
    let result = result.and_then(|ok| out.flush().map(|()| ok).map_err(Into::into));
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("kabir: {e:#}");
            ExitCode::from(2)
        }
    }
}
