//! `kabir import`: replay game files and store the valid games in a database.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use kabir::db::{BatchStats, Database, GameRecord, RecordError};
use kabir::notation::game::RawGame;
use kabir::replay::Replay;

use super::args::VariantArgs;
use super::input::replay_file_with;
use super::validate::write_tables;

/// Import game files into a database (SQLite, one file).
///
/// Every game is replayed; valid games are stored with their tags, moves, result,
/// termination, special moves and the hash of every position. Invalid games are reported as
/// `kabir validate` reports them (on standard error) and not stored; with --rejects they are
/// written out exactly as read. Games already in the database (same variant, start position
/// and moves) are counted as duplicates and not stored again, so importing a file twice adds
/// nothing. Each batch is committed atomically: after a crash, run the same import again.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The database file (created if missing).
    #[arg(
        long,
        env = "KABIR_DB",
        default_value = "kabir.db",
        value_name = "PATH"
    )]
    pub db: PathBuf,
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Write the invalid games, exactly as read, to this file.
    #[arg(long, value_name = "FILE")]
    pub rejects: Option<PathBuf>,
    /// Games per transaction (a few batches are in memory at once, so this bounds memory).
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// Do not print invalid games' problems, only the summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Game files (`-` for standard input; `.gz` and `.zst` are decompressed).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
}

#[derive(Default)]
struct Totals {
    files: usize,
    read: u64,
    imported: u64,
    duplicates: u64,
    rejected: u64,
    positions: u64,
}

impl Totals {
    fn add(&mut self, s: &BatchStats) {
        self.imported += s.imported;
        self.duplicates += s.duplicates;
        self.rejected += s.rejected.len() as u64;
        self.positions += s.positions;
    }
}

/// What the worker threads make of a game read.
enum Read {
    /// A valid game's record, ready to store.
    Stored(Box<GameRecord>),
    /// A game not to store, reported and kept with the rejects.
    Rejected(Box<RawGame>, Why),
}

/// Why a game is not stored.
enum Why {
    /// It is invalid: its replay says how.
    Invalid(Box<Replay>),
    /// It is valid, but the database refuses it.
    Refused(RecordError),
}

/// The most records a batch reserves room for at once (a larger `--batch` grows as it fills).
const MAX_RESERVED: usize = 20_000;

/// Imports; returns whether every game read was valid.
pub fn run(args: &ImportArgs, out: &mut dyn Write) -> Result<bool> {
    let registry = args.variant.registry()?;
    // The error names the file.
    let db = Database::create_or_open(&args.db).context("cannot open the database")?;
    // Three stages run side by side: the worker threads read and replay games and make their
    // records; a database thread derives each batch's index entries while its own writer
    // commits the batch before (`Importer::import_all`); this thread hands the batches on. The
    // channel holds none, so a few batches are in memory at most, whatever the input's size.
    let (batches, to_writer) = std::sync::mpsc::sync_channel::<Vec<GameRecord>>(0);
    let (stats_out, stats_in) = std::sync::mpsc::channel::<BatchStats>();
    let writer = std::thread::spawn(move || -> Result<()> {
        let mut db = db;
        let mut importer = db.importer()?;
        importer.import_all(to_writer, |stats| {
            let _ = stats_out.send(stats.clone());
        })?;
        Ok(())
    });
    let mut rejects: Option<BufWriter<File>> = None;
    let progress = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    let started = Instant::now();
    let mut totals = Totals::default();
    // Each batch is allocated at its full size once: a record is large (its start position
    // is kilobytes), and a growing vector would copy them all again at each doubling.
    let capacity = usize::try_from(args.batch).map_or(MAX_RESERVED, |b| b.min(MAX_RESERVED));
    let mut batch: Vec<GameRecord> = Vec::with_capacity(capacity);
    let report = |totals: &Totals| {
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        let line = format!(
            "{} games read, {} imported, {} duplicates, {} rejected ({:.0} games/s)",
            totals.read,
            totals.imported,
            totals.duplicates,
            totals.rejected,
            totals.read as f64 / secs
        );
        match &progress {
            Some(bar) => bar.set_message(line),
            None => eprintln!("kabir import: {line}"),
        }
    };
    let flush = |batch: &mut Vec<GameRecord>, totals: &mut Totals| -> Result<()> {
        let full = std::mem::replace(batch, Vec::with_capacity(capacity));
        if !full.is_empty() && batches.send(full).is_err() {
            // The writer stopped; its error is reported when it is joined.
            anyhow::bail!("the database writer stopped");
        }
        for stats in stats_in.try_iter() {
            totals.add(&stats);
            report(totals);
        }
        Ok(())
    };
    for path in &args.files {
        totals.files += 1;
        // Records (with their canonical text) are made on the worker threads, and a valid
        // game's text and replay are dropped there.
        let work = |raw: RawGame, r: Replay| match GameRecord::from_replay(r, &raw) {
            Ok(record) => match record.check() {
                Ok(()) => Read::Stored(Box::new(record)),
                Err(e) => Read::Rejected(Box::new(raw), Why::Refused(e)),
            },
            Err(r) => Read::Rejected(Box::new(raw), Why::Invalid(r)),
        };
        replay_file_with(path, &registry, true, work, |number, read| {
            totals.read += 1;
            let (mut raw, why) = match read {
                Read::Stored(record) => {
                    batch.push(*record);
                    if batch.len() as u64 >= args.batch {
                        flush(&mut batch, &mut totals)?;
                    }
                    return Ok(());
                }
                Read::Rejected(raw, why) => (*raw, why),
            };
            raw.number = number;
            totals.rejected += 1;
            if !args.quiet {
                let stderr = std::io::stderr();
                let mut err = stderr.lock();
                let write = |err: &mut dyn Write| -> Result<()> {
                    match &why {
                        Why::Refused(e) => writeln!(
                            err,
                            "kabir import: {path}:{}: game {} not stored: {e}",
                            raw.start.line, raw.number
                        )?,
                        Why::Invalid(r) => write_tables(err, path, &raw, r)?,
                    }
                    Ok(())
                };
                match &progress {
                    Some(bar) => bar.suspend(|| write(&mut err))?,
                    None => write(&mut err)?,
                }
            }
            if let Some(rejects_path) = &args.rejects {
                if rejects.is_none() {
                    rejects = Some(BufWriter::new(File::create(rejects_path).with_context(
                        || format!("cannot create {}", rejects_path.display()),
                    )?));
                }
                if let Some(f) = rejects.as_mut() {
                    f.write_all(&raw.source)?;
                    if !raw.source.ends_with(b"\n") {
                        f.write_all(b"\n")?;
                    }
                }
            }
            Ok(())
        })?;
    }
    let sent = flush(&mut batch, &mut totals);
    drop(batches);
    let written = writer
        .join()
        .map_err(|_| anyhow::anyhow!("the database writer failed"))?;
    written.context("cannot import into the database")?;
    sent?;
    for stats in stats_in.try_iter() {
        totals.add(&stats);
    }
    if let Some(mut f) = rejects {
        f.flush()?;
    }
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    let secs = started.elapsed().as_secs_f64();
    writeln!(
        out,
        "files: {}, games read: {}, imported: {}, duplicates: {}, rejected: {}, positions: {}, time: {:.2} s ({:.0} games/s)",
        totals.files,
        totals.read,
        totals.imported,
        totals.duplicates,
        totals.rejected,
        totals.positions,
        secs,
        totals.read as f64 / secs.max(1e-9)
    )?;
    Ok(totals.rejected == 0)
}
