//! `kabir import`: replay game files and store the valid games in a database.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;

use kabir::db::{
    BatchStats, Database, DbError, DuplicateRule, GameId, ImportEvents, ImportOptions,
    ImportSummary, NotStored, Origin,
};
use kabir::notation::game::RawGame;
use kabir::notation::reader::ReadError;
use kabir::render::printable;

use super::args::{GameSizeArgs, VariantArgs};
use super::diagnostic::{ColorArgs, Palette, write_game};
use super::input::{check_trailing, file_size, open};
use super::output::{Files, Output, is_broken_pipe, unwritable_directory};
use super::progress::{Counts, Progress};
use kabir_input::Trailing;

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
    #[command(flatten)]
    pub letters: super::args::PieceLettersArgs,
    /// Write the invalid games, exactly as read, to this file. It must not be a file the
    /// command reads (a game file, the database), and it is replaced only once the import has
    /// read every game: an import stopped by an error leaves it as it was (the same import
    /// run again writes it).
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
    /// Three batches are in memory at once (one being read, one being sorted, one being
    /// written), so this bounds the import's memory; smaller batches make the import slower.
    #[arg(long, default_value_t = 75, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub batch_memory: u64,
    /// Index entries each batch rewrites in merging the position index's segments, per entry
    /// it adds. Merges keep look-ups fast with no `kabir index compact`; one left unfinished
    /// is taken up by the next import. 0 starts merges but leaves them all to later imports
    /// or `kabir index compact`: a faster import, queries reading more segments meanwhile.
    #[arg(long, default_value_t = kabir::db::MERGE_WORK, value_name = "N")]
    pub merge_work: u64,
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
    pub size: GameSizeArgs,
    #[command(flatten)]
    pub color: ColorArgs,
    /// Game files (`-` for standard input): text in UTF-8, UTF-16 or UTF-32, or gzip or zstd
    /// of it, told by the first bytes whatever the name (docs/VALIDATE.md, "Input files").
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

/// What the import says as it goes: progress, the games not stored (on standard error, and
/// with --rejects to a file), and with `--format json` each duplicate.
struct Reporter<'a> {
    args: &'a ImportArgs,
    counts: &'a Counts,
    progress: &'a Progress,
    palette: Palette,
    rejects: Option<Output>,
    out: &'a mut dyn Write,
    /// Whether the reader of standard output has gone: the import goes on, the database being
    /// what it makes, and says nothing more there.
    cut: bool,
    /// Whether standard error could not be written: the problems of games are said no more.
    unsaid: bool,
    /// The bytes of all the inputs, when every one is a file with a size.
    total: Option<u64>,
    /// What each input held after its compressed data.
    trailing: &'a [Trailing],
}

impl Reporter<'_> {
    /// Each duplicate of a batch as a line of JSON.
    fn list_duplicates(&mut self, stats: &BatchStats, origins: &[Origin]) -> Result<()> {
        for d in &stats.duplicate_of {
            let Some(o) = origins.get(d.index) else {
                continue;
            };
            serde_json::to_writer(
                &mut *self.out,
                &DuplicateReport {
                    file: &self.args.files[o.input],
                    game: o.number,
                    line: o.line,
                    duplicate_of: d.of,
                },
            )?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }
}

impl ImportEvents for Reporter<'_> {
    type Error = anyhow::Error;

    fn read(&mut self) {
        self.counts.read.fetch_add(1, Ordering::Relaxed);
    }

    fn input_progress(&self) -> Option<(u64, u64)> {
        Some((self.counts.bytes.load(Ordering::Relaxed), self.total?))
    }

    fn not_stored(&mut self, origin: Origin, raw: &RawGame, why: &NotStored) -> Result<()> {
        self.counts.rejected.fetch_add(1, Ordering::Relaxed);
        let path = &self.args.files[origin.input];
        if !self.args.quiet && !self.unsaid {
            let stderr = std::io::stderr();
            let mut err = stderr.lock();
            let palette = self.palette;
            let write = |err: &mut dyn Write| -> Result<()> {
                match why {
                    NotStored::Refused(e) => writeln!(
                        err,
                        "kabir import: {}:{}: game {} not stored: {}",
                        printable(path),
                        raw.start.line,
                        raw.number,
                        printable(&e.to_string())
                    )?,
                    NotStored::Invalid(r) => write_game(err, path, raw, r, palette)?,
                }
                Ok(())
            };
            if self.progress.suspend(|| write(&mut err)).is_err() {
                // Standard error has gone or is full: the problems go unsaid and the import,
                // whose output is the database, goes on; its status still says that a game
                // was invalid.
                self.unsaid = true;
            }
        }
        if let Some(rejects_path) = &self.args.rejects {
            let f = match &mut self.rejects {
                Some(f) => f,
                None => self.rejects.insert(Output::create(rejects_path)?),
            };
            super::validate::write_rejected(f, raw)?;
        }
        Ok(())
    }

    // A committed batch: counted, its duplicates listed (JSON) and the games the database
    // refused reported, each by its place in the input.
    fn committed(
        &mut self,
        stats: &BatchStats,
        origins: &[Origin],
        summary: &ImportSummary,
    ) -> Result<()> {
        let args = self.args;
        if args.format == Format::Json && !self.cut {
            match self.list_duplicates(stats, origins) {
                Err(e) if is_broken_pipe(&e) => self.cut = true,
                other => other?,
            }
        }
        if !args.quiet {
            for r in &stats.rejected {
                if let Some(o) = origins.get(r.index) {
                    let line = format!(
                        "kabir import: {}:{}: game {} not stored: {}",
                        printable(&args.files[o.input]),
                        o.line,
                        o.number,
                        printable(&r.error.to_string())
                    );
                    self.progress
                        .suspend(|| super::output::note(format_args!("{line}")));
                }
            }
        }
        let counts = self.counts;
        counts.imported.store(summary.imported, Ordering::Relaxed);
        counts
            .duplicates
            .store(summary.duplicates, Ordering::Relaxed);
        counts.rejected.store(summary.rejected, Ordering::Relaxed);
        Ok(())
    }

    fn input_ended(&mut self, input: usize) -> Result<()> {
        match self.trailing.get(input) {
            Some(t) => check_trailing(&self.args.files[input], t),
            None => Ok(()),
        }
    }

    fn read_failed(&mut self, input: usize, error: ReadError) -> anyhow::Error {
        anyhow::Error::new(error).context(format!("cannot read {}", self.args.files[input]))
    }

    fn database_failed(&mut self, error: DbError) -> anyhow::Error {
        anyhow::Error::new(error).context("cannot import into the database")
    }
}

/// Opens the database, or makes it. The error names the file, and for a new one that could
/// not be made, what is wrong with its directory.
fn open_database(path: &Path) -> Result<Database> {
    let existed = path.exists();
    Database::create_or_open(path).or_else(|e| {
        if !existed
            && !path.exists()
            && let Some(why) = unwritable_directory(path)
        {
            anyhow::bail!("cannot create the database {}: {why}", path.display());
        }
        Err(anyhow::Error::new(e).context("cannot open the database"))
    })
}

/// Imports; returns whether every game read was valid.
pub fn run(args: &ImportArgs, out: &mut dyn Write) -> Result<bool> {
    let mut files = Files::new();
    files
        .database(&args.db)
        .variant_file(args.variant.variant_file.as_deref())
        .game_files(&args.files);
    if let Some(path) = &args.rejects {
        files.write("--rejects", path);
    }
    files.check()?;
    let registry = args.letters.apply(args.variant.registry()?);
    let palette = Palette::new(args.color.enabled(&std::io::stderr()));
    let mut db = open_database(&args.db)?;
    let mut importer = db.importer().context("cannot import into the database")?;
    importer.set_duplicate_rule(args.duplicates.rule());
    importer.set_merge_work(match args.merge_work {
        0 => kabir::db::MergeWork {
            per_entry: 0,
            least: 0,
        },
        n => kabir::db::MergeWork {
            per_entry: n,
            ..kabir::db::MergeWork::default()
        },
    });
    let counts = Arc::new(Counts::default());
    // The total is known when every input is a file with a size.
    let total = args.files.iter().map(|f| file_size(f)).sum::<Option<u64>>();
    let progress = Progress::start("kabir import", Arc::clone(&counts), total, args.quiet);
    let options = ImportOptions {
        batch_games: args.batch,
        batch_bytes: args.batch_memory.saturating_mul(1_000_000),
        strict: args.strict,
        max_game_bytes: Some(args.size.max_game_size),
    };
    let started = Instant::now();
    // One each: a clone shares what it hears.
    let trailing: Vec<Trailing> = args.files.iter().map(|_| Trailing::default()).collect();
    let mut reporter = Reporter {
        args,
        counts: &counts,
        progress: &progress,
        palette,
        rejects: None,
        out: &mut *out,
        cut: false,
        unsaid: false,
        total,
        trailing: &trailing,
    };
    let inputs = args
        .files
        .iter()
        .zip(&trailing)
        .map(|(path, t)| open(path, Some(&counts.bytes), t));
    let outcome = importer.import_inputs(inputs, &registry, &options, &mut reporter);
    let rejects = reporter.rejects.take();
    let cut = reporter.cut;
    progress.finish();
    // Rejects of an import that stopped are dropped, and with them the file being written.
    let outcome = match (outcome, rejects) {
        (Ok(summary), Some(f)) => match f.commit() {
            Ok(()) => Ok(summary),
            Err(error) => Err(kabir::db::ImportStopped { summary, error }),
        },
        (outcome, _) => outcome,
    };
    let (totals, failure) = match outcome {
        Ok(summary) => (summary, None),
        Err(stopped) => (stopped.summary, Some(stopped.error)),
    };
    let secs = started.elapsed().as_secs_f64();
    let written = if cut {
        Ok(())
    } else {
        write_summary(args, out, &totals, failure.as_ref(), secs)
    };
    match (failure, written) {
        (Some(e), _) => Err(e),
        // A reader gone keeps the import's answer.
        (None, Err(e)) if !is_broken_pipe(&e) => Err(e),
        (None, _) => Ok(totals.rejected == 0),
    }
}

/// The summary line, in the chosen format.
fn write_summary(
    args: &ImportArgs,
    out: &mut dyn Write,
    totals: &ImportSummary,
    failure: Option<&anyhow::Error>,
    secs: f64,
) -> Result<()> {
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
                totals.inputs,
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
                files: totals.inputs,
                games: totals.read,
                imported: totals.imported,
                duplicates: totals.duplicates,
                rejected: totals.rejected,
                positions: totals.positions,
                seconds: secs,
                duplicate_rule: args.duplicates.name(),
                error: failure.map(crate::error_message),
            };
            serde_json::to_writer(&mut *out, &SummaryLine { summary })?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}
