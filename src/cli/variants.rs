//! `kabir variants`: the built-in variants.

use anyhow::Result;
use clap::Args;

/// List the built-in variants with a one-line description each.
#[derive(Debug, Args)]
pub struct VariantsArgs {
    /// Also print each variant's aliases, the names other programs give it and its start
    /// position.
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
            if let Some(line) = other_names(&d.names) {
                writeln!(out, "{:<22} {line}", "")?;
            }
            writeln!(out, "{:<22} start: {}", "", d.start)?;
        }
    }
    Ok(())
}

/// The names other programs give a variant, on one line (`None` when there are none):
/// `uci: shatranj; xboard: shatranj; ...; tags seen: Shatranj, shatranj`.
fn other_names(names: &kabir::rules::OtherNames) -> Option<String> {
    let mut parts: Vec<String> = [
        ("uci", &names.uci),
        ("xboard", &names.xboard),
        ("pychess", &names.pychess),
        ("fairy-stockfish", &names.fairy_stockfish),
    ]
    .into_iter()
    .filter_map(|(what, name)| name.as_ref().map(|n| format!("{what}: {n}")))
    .collect();
    if !names.tags.is_empty() {
        parts.push(format!("tags seen: {}", names.tags.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
