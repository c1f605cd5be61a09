//! `kabir index`: maintenance of what a database derives from its games.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use kabir::db::Database;

use super::query::DbArgs;

/// Maintain what a database derives from its games: the position index, the opening tree,
/// the statistics summaries and the name index.
#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(subcommand)]
    pub command: IndexCommand,
}

#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Recompute the position index, the opening tree, the statistics summaries and the name
    /// index from the stored games, in one transaction.
    ///
    /// A database made by an earlier version of kabir needs it once for the explorer,
    /// statistics and searches by name to answer from these tables (until then they read
    /// every game: the same answers, more slowly). On a database whose derived tables are
    /// current it is a check: it says whether the recomputed tables are the same as the
    /// stored ones (exit status 1 if not). The games themselves are not changed.
    Rebuild(RebuildArgs),
    /// Merge each variant's index segments (one per imported batch, merged in tiers) into
    /// one, in one transaction.
    ///
    /// A position lookup reads one row per segment, so queries answer a little faster after
    /// it (imports keep at most 31 segments a tier: 44 at a million games); the answers are
    /// the same. It rewrites the whole position index: on a million Tamerlane games,
    /// minutes, and temporary disk space up to the index's size. An import of more games
    /// makes new segments again.
    Compact(CompactArgs),
}

#[derive(Debug, Args)]
pub struct CompactArgs {
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct RebuildArgs {
    #[command(flatten)]
    pub db: DbArgs,
    /// A variant definition file (TOML) of stored games whose variant is not built in; repeat
    /// for several.
    #[arg(long, value_name = "PATH")]
    pub variant_file: Vec<PathBuf>,
    /// Print only the summary, no progress.
    #[arg(long, short)]
    pub quiet: bool,
}

/// How often progress is shown on a terminal.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

pub fn run(args: &IndexArgs, out: &mut dyn Write) -> Result<bool> {
    match &args.command {
        IndexCommand::Rebuild(a) => rebuild(a, out),
        IndexCommand::Compact(a) => compact(a, out),
    }
}

fn must_exist(db: &std::path::Path) -> Result<()> {
    if !db.exists() {
        bail!(
            "cannot open the database: {}: no such database file (make one with `kabir import \
             --db PATH FILE...`)",
            db.display()
        );
    }
    Ok(())
}

fn compact(args: &CompactArgs, out: &mut dyn Write) -> Result<bool> {
    must_exist(&args.db.db)?;
    let mut db = Database::create_or_open(&args.db.db).context("cannot open the database")?;
    let started = Instant::now();
    let before = db.segment_count().context("cannot read the database")?;
    db.compact()
        .context("cannot compact the database's index")?;
    let after = db.segment_count().context("cannot read the database")?;
    if before == after {
        writeln!(
            out,
            "nothing to merge: {after} index segments, one per variant"
        )?;
    } else {
        writeln!(
            out,
            "merged {before} index segments into {after} in {:.2} s",
            started.elapsed().as_secs_f64()
        )?;
    }
    Ok(true)
}

fn rebuild(args: &RebuildArgs, out: &mut dyn Write) -> Result<bool> {
    must_exist(&args.db.db)?;
    let mut registry = kabir::variants::Registry::builtin();
    for path in &args.variant_file {
        registry.add(kabir::variants::load_file(path)?)?;
    }
    let mut db = Database::create_or_open(&args.db.db).context("cannot open the database")?;
    let started = Instant::now();
    let show = !args.quiet && std::io::stderr().is_terminal();
    let mut last = Instant::now();
    let done = db
        .rebuild(&registry, |games, total| {
            if show && last.elapsed() >= PROGRESS_EVERY {
                last = Instant::now();
                eprint!("\rkabir index rebuild: {games} of {total} games");
            }
        })
        .context("cannot rebuild the database's index")?;
    if show {
        eprint!("\r\x1b[K");
    }
    let state = match (done.was_current, done.unchanged) {
        (false, _) => {
            "they were not current (an earlier version made the file, or a rebuild \
                       was interrupted); queries now use them"
        }
        (true, Some(true)) => "they are the same as the ones stored before",
        (true, _) => "they differ from the ones stored before, which they replace",
    };
    writeln!(
        out,
        "rebuilt the derived tables of {} games ({} positions) in {:.2} s; {state}",
        done.games,
        done.positions,
        started.elapsed().as_secs_f64()
    )?;
    // A check that found differences says so in its status too.
    Ok(done.unchanged != Some(false))
}
