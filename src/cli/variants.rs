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
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per variant (more with --verbose).
    Text,
    /// One JSON array: per variant its `id`, `name`, `aliases`, `names` (the names other
    /// programs give it: `uci`, `xboard`, `pychess`, `fairy_stockfish`, `tags`; fields no
    /// program uses left out), `description` and `start`.
    Json,
}

/// A variant as `--format json` lists it.
#[derive(serde::Serialize)]
struct Listed<'a> {
    id: &'a str,
    name: &'a str,
    aliases: &'a [String],
    names: &'a kabir::rules::OtherNames,
    description: &'a str,
    start: &'a str,
}

pub fn run(args: &VariantsArgs, out: &mut dyn std::io::Write) -> Result<()> {
    // The definitions say all that is listed: building each variant's move tables would cost
    // tens of milliseconds for nothing shown.
    let defs = kabir::variants::builtin_definitions();
    if args.format == Format::Json {
        let listed: Vec<Listed> = defs
            .iter()
            .map(|d| Listed {
                id: &d.id,
                name: &d.name,
                aliases: &d.aliases,
                names: &d.names,
                description: &d.description,
                start: &d.start,
            })
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&listed)?)?;
        return Ok(());
    }
    for d in defs {
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
