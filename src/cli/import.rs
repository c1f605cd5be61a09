//! `kabir import`: replay game files and store the valid games in a database.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;

use kabir::db::{
    BatchStats, Database, DbError, DuplicateRule, GameId, GameRecord, ReadyGame, RecordError,
};
use kabir::notation::game::RawGame;
use kabir::render::printable;
use kabir::replay::Replay;

use super::args::VariantArgs;
use super::diagnostic::{ColorArgs, Palette, write_game};
use super::input::{Replaying, file_size, replay_file_with};
use super::progress::{Counts, Progress};

/// Import game files into a database (SQLite, one file).
///
/// Every game is replayed; valid games are stored with their tags, moves, result,
/// termination, special moves and the hash of every position. Invalid games are reported as
/// `kabir validate` reports them (on standard error) and not stored; with --rejects they are
/// written out exactly as read. A game the database already holds (see --duplicates) is
/// counted as a duplicate and not stored again, so importing a file twice adds nothing. Each
/// batch is committed atomically: after a crash, run the same import again.
///
/// Exit status: 0 when every game read was valid, 1 when some game was invalid (the valid
/// ones are stored), 2 on an error that stopped the import (the summary then counts the
/// batches committed before it, which stay stored).
#[derive(Debug, Args)]
#[command(
    mut_arg("variant", |a| a.help(super::args::GAMES_VARIANT).long_help(None)),
    mut_arg("variant_file", |a| a.help(super::args::GAMES_VARIANT_FILE).long_help(None)),
)]
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
    /// Which games count as duplicates, not stored again. The rule applies to the games
    /// being imported, against every game stored (whichever rule stored it).
    #[arg(long, value_enum, value_name = "RULE", default_value_t = DuplicatesArg::Record)]
    pub duplicates: DuplicatesArg,
    /// Games per transaction, at most (a batch also ends at --batch-memory).
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// Memory per batch in MB, at most: a batch ends when its games would take more while they
    /// are sorted and written (the games and their index entries, estimated from their sizes).
    /// Two batches are in memory at once (one being read, one being written), so this bounds
    /// the import's memory; smaller batches make the import slower.
    #[arg(long, default_value_t = 64, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub batch_memory: u64,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print only the final summary: no progress, no problems of invalid games.
    #[arg(long, short)]
    pub quiet: bool,
    /// Report every move written in coordinate form in a rejected game (see `kabir validate
    /// --strict`).
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub color: ColorArgs,
    /// Game files (`-` for standard input; `.gz` and `.zst` are decompressed).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
}

/// When a game counts as one the database already holds, for `--duplicates`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DuplicatesArg {
    /// The same game record: variant, start position, moves, result and the Seven Tag Roster
    /// (Event, Site, Date, Round, White, Black) all equal. Comments and other tags do not
    /// count: the same moves played by other players, in another round or with another
    /// result are another game, and stored.
    Record,
    /// The same moves: variant, start position and moves equal, whoever played them and
    /// whatever the tags and result say (only the first such game is stored).
    Moves,
}

impl DuplicatesArg {
    fn rule(self) -> DuplicateRule {
        match self {
            DuplicatesArg::Record => DuplicateRule::Record,
            DuplicatesArg::Moves => DuplicateRule::Moves,
        }
    }

    fn name(self) -> &'static str {
        match self {
            DuplicatesArg::Record => "record",
            DuplicatesArg::Moves => "moves",
        }
    }
}

/// Output formats of `kabir import`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One summary line.
    #[value(alias = "table")]
    Text,
    /// JSON Lines: one object per duplicate (its file, game number and line, and the id of
    /// the stored game it repeats), then a summary object (schema in docs/DATABASE.md).
    Json,
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

/// Where a game sent to the database came from.
#[derive(Clone, Copy)]
struct Origin {
    /// Its file, by its place in the command line.
    file: usize,
    /// Its number in the file, from 1.
    number: u64,
    /// The line it starts on.
    line: u32,
}

/// One duplicate in `--format json`.
#[derive(Serialize)]
struct DuplicateReport<'a> {
    file: &'a str,
    game: u64,
    line: u32,
    /// The id of the stored game it repeats.
    duplicate_of: GameId,
}

/// The summary in `--format json`.
#[derive(Serialize)]
struct Summary {
    files: usize,
    games: u64,
    imported: u64,
    duplicates: u64,
    rejected: u64,
    positions: u64,
    seconds: f64,
    duplicate_rule: &'static str,
    /// Why the import stopped, if it did: the counts are then those of the committed batches.
    error: Option<String>,
}

#[derive(Serialize)]
struct SummaryLine {
    summary: Summary,
}

/// The origins of the batches sent to the database and not yet committed, in order.
#[derive(Default)]
struct InFlight(VecDeque<Vec<Origin>>);

/// What the worker threads make of a game read.
enum Read {
    /// A valid game, made ready to store, and the line it starts on.
    Stored(Box<ReadyGame>, u32),
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

/// Reading stopped because the database writer did; its own error says why.
#[derive(Debug, thiserror::Error)]
#[error("the database writer stopped")]
struct WriterStopped;

/// The most records a batch reserves room for at once (a larger `--batch` grows as it fills).
const MAX_RESERVED: usize = 20_000;

/// The bytes a game takes in a batch until the batch is written, with its origin.
fn batch_bytes(game: &ReadyGame) -> u64 {
    (game.batch_bytes() + size_of::<Origin>()) as u64
}

/// Imports; returns whether every game read was valid.
pub fn run(args: &ImportArgs, out: &mut dyn Write) -> Result<bool> {
    let registry = args.variant.registry()?;
    let palette = Palette::new(args.color.enabled(&std::io::stderr()));
    // The error names the file.
    let db = Database::create_or_open(&args.db).context("cannot open the database")?;
    let rule = args.duplicates.rule();
    // Three stages run side by side: the worker threads read and replay games and make them
    // ready to store; this thread gathers them into batches; a database thread sorts each
    // batch's index entries and its own writer commits it (`Importer::import_all`), one batch
    // at a time. The channel holds none, so two batches are in memory (one gathered, one
    // written), whatever the input's size.
    let (batches, to_writer) = std::sync::mpsc::sync_channel::<Vec<ReadyGame>>(0);
    let (stats_out, stats_in) = std::sync::mpsc::channel::<BatchStats>();
    let writer = std::thread::spawn(move || -> Result<(), DbError> {
        let mut db = db;
        let mut importer = db.importer()?;
        importer.set_duplicate_rule(rule);
        importer.import_all(to_writer, |stats| {
            let _ = stats_out.send(stats.clone());
        })?;
        Ok(())
    });
    let mut rejects: Option<BufWriter<File>> = None;
    let counts = Arc::new(Counts::default());
    // The total is known when every input is a file with a size.
    let total = args.files.iter().map(|f| file_size(f)).sum::<Option<u64>>();
    let progress = Progress::start("kabir import", Arc::clone(&counts), total, args.quiet);
    let started = Instant::now();
    let mut totals = Totals::default();
    let mut in_flight = InFlight::default();
    // Each batch is allocated at its full size once, not copied again at each doubling. A
    // batch ended by its memory holds about as many games as the one before, plus a margin.
    let most = usize::try_from(args.batch).map_or(MAX_RESERVED, |b| b.min(MAX_RESERVED));
    let memory = args.batch_memory.saturating_mul(1_000_000);
    let mut capacity = most;
    let mut batch: Vec<ReadyGame> = Vec::with_capacity(capacity);
    let mut origins: Vec<Origin> = Vec::with_capacity(capacity);
    let mut batch_size = 0u64;
    let report = |totals: &Totals| {
        counts.imported.store(totals.imported, Ordering::Relaxed);
        counts
            .duplicates
            .store(totals.duplicates, Ordering::Relaxed);
        counts.rejected.store(totals.rejected, Ordering::Relaxed);
    };
    // A committed batch: counted, its duplicates listed (JSON) and the games the database
    // refused reported, each by its place in the input.
    let committed = |stats: &BatchStats,
                     totals: &mut Totals,
                     in_flight: &mut InFlight,
                     out: &mut dyn Write|
     -> Result<()> {
        totals.imported += stats.imported;
        totals.duplicates += stats.duplicates;
        totals.rejected += stats.rejected.len() as u64;
        totals.positions += stats.positions;
        let origins = in_flight.0.pop_front().unwrap_or_default();
        if args.format == Format::Json {
            for d in &stats.duplicate_of {
                let Some(o) = origins.get(d.index) else {
                    continue;
                };
                serde_json::to_writer(
                    &mut *out,
                    &DuplicateReport {
                        file: &args.files[o.file],
                        game: o.number,
                        line: o.line,
                        duplicate_of: d.of,
                    },
                )?;
                out.write_all(b"\n")?;
            }
        }
        if !args.quiet {
            for r in &stats.rejected {
                if let Some(o) = origins.get(r.index) {
                    let line = format!(
                        "kabir import: {}:{}: game {} not stored: {}",
                        printable(&args.files[o.file]),
                        o.line,
                        o.number,
                        printable(&r.error.to_string())
                    );
                    progress.suspend(|| eprintln!("{line}"));
                }
            }
        }
        Ok(())
    };
    let flush = |batch: &mut Vec<ReadyGame>,
                 origins: &mut Vec<Origin>,
                 capacity: &mut usize,
                 totals: &mut Totals,
                 in_flight: &mut InFlight,
                 out: &mut dyn Write|
     -> Result<()> {
        *capacity = (batch.len() + batch.len() / 8 + 16).min(most);
        let full = std::mem::replace(batch, Vec::with_capacity(*capacity));
        let sent = std::mem::replace(origins, Vec::with_capacity(*capacity));
        if !full.is_empty() {
            in_flight.0.push_back(sent);
            if batches.send(full).is_err() {
                // The writer stopped; its error is reported when it is joined.
                return Err(WriterStopped.into());
            }
        }
        for stats in stats_in.try_iter() {
            committed(&stats, totals, in_flight, out)?;
            report(totals);
        }
        Ok(())
    };
    let mut read_all = || -> Result<()> {
        for (file, path) in args.files.iter().enumerate() {
            totals.files += 1;
            // Records (with their canonical text) are made and made ready to store on the
            // worker threads, and a valid game's text, replay and record are dropped there.
            let work = |raw: RawGame, r: Replay| match GameRecord::from_replay(r, &raw) {
                Ok(record) => match record.check() {
                    Ok(()) => Read::Stored(Box::new(ReadyGame::from(record)), raw.start.line),
                    Err(e) => Read::Rejected(Box::new(raw), Why::Refused(e)),
                },
                Err(r) => Read::Rejected(Box::new(raw), Why::Invalid(r)),
            };
            let how = Replaying {
                hashes: true,
                strict: args.strict,
                bytes: Some(Arc::clone(&counts.bytes)),
            };
            replay_file_with(path, &registry, how, work, |number, read| {
                totals.read += 1;
                counts.read.fetch_add(1, Ordering::Relaxed);
                let (mut raw, why) = match read {
                    Read::Stored(game, line) => {
                        let bytes = batch_bytes(&game);
                        // The game that would take the batch over its memory starts the next.
                        if !batch.is_empty() && batch_size + bytes > memory {
                            flush(
                                &mut batch,
                                &mut origins,
                                &mut capacity,
                                &mut totals,
                                &mut in_flight,
                                out,
                            )?;
                            batch_size = 0;
                        }
                        batch_size += bytes;
                        batch.push(*game);
                        origins.push(Origin { file, number, line });
                        if batch.len() as u64 >= args.batch {
                            flush(
                                &mut batch,
                                &mut origins,
                                &mut capacity,
                                &mut totals,
                                &mut in_flight,
                                out,
                            )?;
                            batch_size = 0;
                        }
                        return Ok(());
                    }
                    Read::Rejected(raw, why) => (*raw, why),
                };
                raw.number = number;
                totals.rejected += 1;
                counts.rejected.store(totals.rejected, Ordering::Relaxed);
                if !args.quiet {
                    let stderr = std::io::stderr();
                    let mut err = stderr.lock();
                    let write = |err: &mut dyn Write| -> Result<()> {
                        match &why {
                            Why::Refused(e) => writeln!(
                                err,
                                "kabir import: {}:{}: game {} not stored: {}",
                                printable(path),
                                raw.start.line,
                                raw.number,
                                printable(&e.to_string())
                            )?,
                            Why::Invalid(r) => write_game(err, path, &raw, r, palette)?,
                        }
                        Ok(())
                    };
                    progress.suspend(|| write(&mut err))?;
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
        Ok(())
    };
    // What was read before an input error is still stored: the batch being filled is sent,
    // and the writer finishes what it has before the error is reported.
    let read = read_all();
    let sent = flush(
        &mut batch,
        &mut origins,
        &mut capacity,
        &mut totals,
        &mut in_flight,
        out,
    );
    drop(batches);
    let written = writer
        .join()
        .map_err(|_| anyhow::anyhow!("the database writer failed"))?;
    for stats in stats_in.try_iter() {
        committed(&stats, &mut totals, &mut in_flight, out)?;
    }
    if let Some(mut f) = rejects {
        f.flush()?;
    }
    progress.finish();
    // The first cause: the writer's own error explains why it stopped taking batches.
    let failure: Option<anyhow::Error> = match (written, read, sent) {
        (Err(e), _, _) => Some(anyhow::Error::new(e).context("cannot import into the database")),
        (Ok(()), Err(e), _) | (Ok(()), Ok(()), Err(e)) => Some(e),
        (Ok(()), Ok(()), Ok(())) => None,
    };
    let secs = started.elapsed().as_secs_f64();
    match args.format {
        Format::Text => {
            let note = if failure.is_some() {
                " (stopped by an error: the counts are of the batches committed before it)"
            } else {
                ""
            };
            writeln!(
                out,
                "files: {}, games read: {}, imported: {}, duplicates: {}, rejected: {}, positions: {}, time: {:.2} s ({:.0} games/s){note}",
                totals.files,
                totals.read,
                totals.imported,
                totals.duplicates,
                totals.rejected,
                totals.positions,
                secs,
                totals.read as f64 / secs.max(1e-9)
            )?;
        }
        Format::Json => {
            let summary = Summary {
                files: totals.files,
                games: totals.read,
                imported: totals.imported,
                duplicates: totals.duplicates,
                rejected: totals.rejected,
                positions: totals.positions,
                seconds: secs,
                duplicate_rule: args.duplicates.name(),
                error: failure.as_ref().map(crate::error_message),
            };
            serde_json::to_writer(&mut *out, &SummaryLine { summary })?;
            out.write_all(b"\n")?;
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(totals.rejected == 0),
    }
}
