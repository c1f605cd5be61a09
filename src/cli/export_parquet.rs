//! `kabir export --format parquet`: the games as Parquet tables (see `kabir::columnar`), from
//! the database or straight from game files.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result};
use rayon::prelude::*;

use kabir::columnar::{ParquetExport, TABLES, Written};
use kabir::db::{ExportedGame, GameId, GameRecord, RecordError, StoredGame};
use kabir::notation::game::RawGame;
use kabir::render::printable;
use kabir::replay::Replay;

use super::diagnostic::{Palette, write_game};
use super::export::{ExportArgs, stored};
use super::input::{Replaying, file_size, replay_file_with};
use super::output::Files;
use super::progress::{Measure, Progress};
use super::query::empty_message;
use super::search::build_query;

/// Stored games read, then turned into rows on all cores, at a time.
const CHUNK: usize = 2048;

/// What an export has done so far, for its progress display.
#[derive(Debug, Default)]
struct Counts {
    /// Bytes read from the game files (before decompression).
    bytes: Arc<AtomicU64>,
    /// Games read from the files or the database.
    read: AtomicU64,
    /// Games written.
    games: AtomicU64,
    /// Moves written.
    moves: AtomicU64,
    /// Invalid games left out.
    rejected: AtomicU64,
}

impl Counts {
    fn line(&self, started: Instant) -> String {
        let games = self.games.load(Ordering::Relaxed);
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        format!(
            "{} games read, {games} exported, {} invalid, {} moves ({:.0} games/s)",
            self.read.load(Ordering::Relaxed),
            self.rejected.load(Ordering::Relaxed),
            self.moves.load(Ordering::Relaxed),
            games as f64 / secs
        )
    }

    fn exported(&self, g: &ExportedGame) {
        self.games.fetch_add(1, Ordering::Relaxed);
        self.moves.fetch_add(g.plies() as u64, Ordering::Relaxed);
    }
}

/// Exports; returns whether every game read was valid (always so from a database).
pub fn run(args: &ExportArgs, out: &mut dyn Write) -> Result<bool> {
    let Some(dir) = &args.out else {
        anyhow::bail!("--format parquet writes into a folder: give it with --out DIR");
    };
    if args.output.is_some() {
        anyhow::bail!("--format parquet writes into the folder --out DIR, not --output FILE");
    }
    let mut files = Files::new();
    files.variant_file(args.filter.variant.variant_file.as_deref());
    if args.files.is_empty() {
        files.database(&args.db.db);
    } else {
        files.game_files(&args.files);
    }
    files.write_folder("--out", dir, &TABLES).check()?;
    let started = Instant::now();
    let mut export = ParquetExport::create(dir, args.positions)
        .with_context(|| format!("cannot export to {}", dir.display()))?;
    let counts = Arc::new(Counts::default());
    let (written, rejected) = if args.files.is_empty() {
        (from_database(args, &mut export, &counts)?, 0)
    } else {
        from_files(args, &mut export, &counts)?
    };
    let written_files = export
        .finish()
        .with_context(|| format!("cannot export to {}", dir.display()))?;
    let secs = started.elapsed().as_secs_f64();
    debug_assert_eq!(written, written_files.games);
    summary(out, &written_files, rejected, secs)?;
    Ok(rejected == 0)
}

fn summary(out: &mut dyn Write, w: &Written, rejected: u64, secs: f64) -> Result<()> {
    let secs = secs.max(1e-9);
    writeln!(
        out,
        "games: {}, moves: {}, positions: {}, invalid games left out: {rejected}, files: {}, \
         time: {secs:.2} s ({:.0} games/s, {:.0} rows/s)",
        w.games,
        w.moves,
        w.positions,
        w.files.len(),
        w.games as f64 / secs,
        (w.games + w.moves + w.positions) as f64 / secs,
    )?;
    // Exact counts, as the rows are: the tables' sizes vary from bytes to gigabytes.
    let mut parts = Vec::new();
    for (table, &bytes) in TABLES.iter().zip(&w.bytes) {
        if bytes > 0 {
            parts.push(format!("{table} {bytes}"));
        }
    }
    writeln!(
        out,
        "bytes: {} ({})",
        w.bytes.iter().sum::<u64>(),
        parts.join(", ")
    )?;
    for f in &w.files {
        writeln!(out, "  {f}")?;
    }
    Ok(())
}

/// The games of the database (all, or those the conditions keep), with their ids. One thread
/// reads the stored games a chunk at a time while the chunk before is turned into rows on
/// all cores and written.
fn from_database(
    args: &ExportArgs,
    export: &mut ParquetExport,
    counts: &Arc<Counts>,
) -> Result<u64> {
    let db = args.db.open()?;
    let registry = args.filter.registry()?;
    if db.is_empty()? {
        super::output::note(format_args!("kabir export: {}", empty_message(&args.db)));
        return Ok(0);
    }
    let q = build_query(&db, &args.filter, &args.line, args.exact_order)?;
    let ids: Vec<GameId> = db.search(&q)?.games.iter().map(|h| h.game.id).collect();
    let done = Arc::new(AtomicU64::new(0));
    let progress = Progress::start_with(
        "kabir export",
        Arc::clone(&done),
        Some(ids.len() as u64),
        Measure::Games,
        args.quiet,
        {
            let counts = Arc::clone(counts);
            move |started| counts.line(started)
        },
    );
    let (chunks, read) = std::sync::mpsc::sync_channel::<Result<Vec<StoredGame>>>(2);
    let mut count = 0;
    std::thread::scope(|scope| -> Result<()> {
        let ids = &ids;
        let counts = &**counts;
        scope.spawn(move || {
            for chunk in ids.chunks(CHUNK) {
                let games: Result<Vec<StoredGame>> =
                    chunk.iter().map(|&id| stored(&db, id)).collect();
                let failed = games.is_err();
                if let Ok(g) = &games {
                    counts.read.fetch_add(g.len() as u64, Ordering::Relaxed);
                }
                // The writer has stopped when it no longer receives.
                if chunks.send(games).is_err() || failed {
                    return;
                }
            }
        });
        for games in read {
            let games = games?;
            let rows: Vec<Result<ExportedGame>> = games
                .par_iter()
                .map(|g| {
                    ExportedGame::from_stored(g, &registry).map_err(super::query::stored_game_error)
                })
                .collect();
            for (g, rows) in games.iter().zip(rows) {
                let rows = rows?;
                export.push(u64::from(g.id.0), &rows)?;
                counts.exported(&rows);
                count += 1;
                done.store(count, Ordering::Relaxed);
            }
        }
        Ok(())
    })?;
    progress.finish();
    Ok(count)
}

/// What the worker threads make of a game read.
enum Read {
    Valid(Box<ExportedGame>),
    Invalid(Box<RawGame>, Box<Replay>),
    Refused(Box<RawGame>, RecordError),
}

/// The games of the files, numbered from 1 in input order (valid games only); returns the
/// games written and the invalid ones left out.
fn from_files(
    args: &ExportArgs,
    export: &mut ParquetExport,
    counts: &Arc<Counts>,
) -> Result<(u64, u64)> {
    let mut filter = args.filter.filter()?;
    filter.variant = None;
    if !filter.is_empty() || args.line.is_given() || args.exact_order {
        anyhow::bail!(
            "conditions on games apply to an export of the database; with game files only \
             --variant and --variant-file (the variant of games without a `Variant` tag) apply"
        );
    }
    let registry = args.filter.variant.registry()?;
    let palette = Palette::new(false);
    // The bar's total: the files' sizes, unless one has none (standard input).
    let total = args.files.iter().map(|f| file_size(f)).sum::<Option<u64>>();
    let progress = Progress::start_with(
        "kabir export",
        Arc::clone(&counts.bytes),
        total,
        Measure::Bytes,
        args.quiet,
        {
            let counts = Arc::clone(counts);
            move |started| counts.line(started)
        },
    );
    let mut next: u64 = 0;
    let mut rejected: u64 = 0;
    for path in &args.files {
        let work = |raw: RawGame, r: Replay| match GameRecord::from_replay(r, &raw) {
            Ok(record) => match ExportedGame::from_record(record) {
                Ok(g) => Read::Valid(Box::new(g)),
                Err(e) => Read::Refused(Box::new(raw), e),
            },
            Err(r) => Read::Invalid(Box::new(raw), r),
        };
        let how = Replaying {
            hashes: true,
            strict: false,
            bytes: Some(Arc::clone(&counts.bytes)),
            max_game_bytes: args
                .max_game_size
                .unwrap_or(kabir::notation::reader::DEFAULT_MAX_GAME_BYTES),
        };
        replay_file_with(path, &registry, how, work, |number, read| {
            counts.read.fetch_add(1, Ordering::Relaxed);
            let (mut raw, why) = match read {
                Read::Valid(g) => {
                    next += 1;
                    export.push(next, &g)?;
                    counts.exported(&g);
                    return Ok(());
                }
                Read::Invalid(raw, r) => (raw, Err(r)),
                Read::Refused(raw, e) => (raw, Ok(e)),
            };
            rejected += 1;
            counts.rejected.fetch_add(1, Ordering::Relaxed);
            raw.number = number;
            if !args.quiet {
                progress.suspend(|| -> Result<()> {
                    let stderr = std::io::stderr();
                    let mut err = stderr.lock();
                    match why {
                        Ok(e) => writeln!(
                            err,
                            "kabir export: {}:{}: game {} not exported: {}",
                            printable(path),
                            raw.start.line,
                            raw.number,
                            printable(&e.to_string())
                        )?,
                        Err(mut r) => {
                            r.number = number;
                            write_game(&mut err, path, &raw, &r, palette)?
                        }
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
    }
    progress.finish();
    Ok((next, rejected))
}
