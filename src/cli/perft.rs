//! `kabir perft`: count the legal move tree.

use anyhow::Result;
use clap::Args;

use super::args::{VariantArgs, position};

/// Count the leaf nodes of the legal move tree to a depth (move generator test).
///
/// The last line of output is always the total as a plain integer.
#[derive(Debug, Args)]
pub struct PerftArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Start from this position string instead of the start position.
    #[arg(long, value_name = "POSITION")]
    pub fen: Option<String>,
    /// Print every legal move with its count first.
    #[arg(long)]
    pub divide: bool,
    /// Depth in plies.
    pub depth: u32,
}

pub fn run(args: &PerftArgs, out: &mut dyn std::io::Write) -> Result<()> {
    let variant = args.variant.resolve(None)?;
    let mut pos = position(&variant, args.fen.as_deref())?;
    if args.divide && args.depth > 0 {
        let mut total = 0;
        let mut rows: Vec<(String, u64)> = kabir::rules::divide(&mut pos, args.depth)
            .into_iter()
            .map(|(m, n)| (m.to_uci(&pos), n))
            .collect();
        rows.sort();
        for (m, n) in rows {
            writeln!(out, "{m} {n}")?;
            total += n;
        }
        writeln!(out, "{total}")?;
    } else {
        writeln!(out, "{}", kabir::rules::perft(&mut pos, args.depth))?;
    }
    Ok(())
}
