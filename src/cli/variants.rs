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
    // The definitions say all that is listed: building each variant's move tables would cost
    // tens of milliseconds for nothing shown.
    for d in kabir::variants::builtin_definitions() {
        writeln!(out, "{:<22} {}", d.id, d.description)?;
        if args.verbose {
            writeln!(out, "{:<22} aliases: {}", "", d.aliases.join(", "))?;
            writeln!(out, "{:<22} start: {}", "", d.start)?;
        }
    }
    Ok(())
}
