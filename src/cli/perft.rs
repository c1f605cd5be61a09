//! `kabir perft`: count the legal move tree.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;

use kabir::rules::Variant;
use kabir::rules::epd::Epd;

use super::args::{VariantArgs, position};

/// Count the leaf nodes of the legal move tree to a depth (move generator test).
///
/// The last line of output is always the total as a plain integer.
///
/// With --epd, every line of an EPD file is a position: each is counted to DEPTH, and its
/// `D1`, `D2`... operations (the counts a perft suite expects at each depth) are checked, up
/// to DEPTH, or all of them when DEPTH is not given. A line is printed as `LINE: D<depth>
/// <count>`, followed by `ok` or `expected <count>` when the line has an operation for that
/// depth. The exit status is 1 if a count differs or a line is not a position of the variant.
#[derive(Debug, Args)]
pub struct PerftArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Start from this position string (or EPD line) instead of the start position.
    #[arg(long, value_name = "POSITION", conflicts_with = "epd")]
    pub fen: Option<String>,
    /// Count from every position of this EPD file (`-` for standard input) and check the
    /// lines' `D<depth> <count>` operations; blank lines are skipped.
    #[arg(long, value_name = "FILE")]
    pub epd: Option<PathBuf>,
    /// Print every legal move with its count first.
    #[arg(long, conflicts_with = "epd")]
    pub divide: bool,
    /// Depth in plies (with --epd: the deepest count; by default each line's deepest
    /// `D<depth>` operation).
    #[arg(required_unless_present = "epd")]
    pub depth: Option<u32>,
}

/// Counts; `Ok(false)` when an EPD file had a line that failed.
pub fn run(args: &PerftArgs, out: &mut dyn std::io::Write) -> Result<bool> {
    let variant = args.variant.resolve(None)?;
    if let Some(path) = &args.epd {
        return epd_file(&variant, path, args.depth, out);
    }
    let depth = args.depth.unwrap_or(0);
    let mut pos = position(&variant, args.fen.as_deref())?;
    if args.divide && depth > 0 {
        let mut total = 0;
        let mut rows: Vec<(String, u64)> = kabir::rules::divide(&mut pos, depth)
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
        writeln!(out, "{}", kabir::rules::perft(&mut pos, depth))?;
    }
    Ok(true)
}

/// The counts a line expects: its operations `D<depth> <count>`, by depth.
fn expected(epd: &Epd) -> Vec<(u32, Option<u64>)> {
    let mut out: Vec<(u32, Option<u64>)> = epd
        .operations
        .iter()
        .filter_map(|o| {
            let depth = o.opcode.strip_prefix('D')?.parse::<u32>().ok()?;
            let count = o.operands.first().and_then(|n| n.parse::<u64>().ok());
            Some((depth, count))
        })
        .collect();
    out.sort_by_key(|&(d, _)| d);
    out.dedup_by_key(|&mut (d, _)| d);
    out
}

fn epd_file(
    variant: &std::sync::Arc<Variant>,
    path: &std::path::Path,
    depth: Option<u32>,
    out: &mut dyn std::io::Write,
) -> Result<bool> {
    let name = path.display().to_string();
    let text = if name == "-" {
        std::io::read_to_string(std::io::stdin()).context("cannot read standard input")?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?
    };
    let mut total = 0u64;
    let (mut failed, mut differ, mut lines) = (0usize, 0usize, 0usize);
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        lines += 1;
        let read = Epd::parse(line)
            .map_err(kabir::rules::FenError::from)
            .and_then(|epd| epd.position(variant).map(|pos| (epd, pos)));
        let (epd, mut pos) = match read {
            Ok(x) => x,
            Err(e) => {
                eprintln!("{name}:{n}:{}: {}", e.column, e.message);
                failed += 1;
                continue;
            }
        };
        let checks = expected(&epd);
        let mut depths: Vec<(u32, Option<u64>)> = match depth {
            Some(d) => checks.iter().copied().filter(|&(k, _)| k < d).collect(),
            None => checks.clone(),
        };
        if let Some(d) = depth {
            depths.push((d, checks.iter().find(|&&(k, _)| k == d).and_then(|c| c.1)));
        }
        if depths.is_empty() {
            eprintln!(
                "{name}:{n}: no depth to count to: the line has no D<depth> operation; give DEPTH"
            );
            failed += 1;
            continue;
        }
        let mut last = 0;
        for (d, want) in depths {
            let got = kabir::rules::perft(&mut pos, d);
            last = got;
            write!(out, "{n}: D{d} {got}")?;
            match want {
                Some(w) if w == got => writeln!(out, " ok")?,
                Some(w) => {
                    writeln!(out, " expected {w}")?;
                    eprintln!("{name}:{n}: depth {d}: {got} leaf nodes where the line expects {w}");
                    differ += 1;
                }
                None => writeln!(out)?,
            }
        }
        total += last;
    }
    if lines == 0 {
        bail!("{name} has no EPD line");
    }
    writeln!(out, "{total}")?;
    if failed > 0 || differ > 0 {
        super::output::note(format_args!(
            "kabir perft: {differ} count(s) differ from their D operations, {failed} line(s) not \
             counted, of {lines}"
        ));
    }
    Ok(failed == 0 && differ == 0)
}
