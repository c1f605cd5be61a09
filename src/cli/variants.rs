//! `kabir variants`: the built-in variants.

use anyhow::Result;
use clap::Args;

/// List the built-in variants with a one-line description each.
#[derive(Debug, Args)]
pub struct VariantsArgs {
    /// Also print each variant's aliases and start position.
    #[arg(long)]
    pub verbose: bool,
}

pub fn run(args: &VariantsArgs, out: &mut dyn std::io::Write) -> Result<()> {
    for v in kabir::variants::builtins() {
        writeln!(out, "{:<22} {}", v.id(), v.description())?;
        if args.verbose {
            writeln!(out, "{:<22} aliases: {}", "", v.aliases().join(", "))?;
            writeln!(out, "{:<22} start: {}", "", v.start_fen())?;
        }
    }
    Ok(())
}
