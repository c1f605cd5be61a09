//! `kabir export`: games out of the database, as game text, CSV or JSON; or, as Parquet
//! tables, out of the database or straight from game files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;

use kabir::db::{Database, GameId, StoredGame};
use kabir::variants::Registry;

use super::output::{Files, Output};
use super::query::{DbArgs, FilterArgs, LineArgs, empty_message};
use super::search::build_query;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The games' canonical text; importing it again gives the same games.
    Pgn,
    /// CSV: a header, then one row per game.
    Csv,
    /// JSON Lines: one object per game.
    Json,
    /// Parquet tables in the folder --out, partitioned by variant, for DuckDB, Spark or
    /// Trino (docs/SCALE.md); from the database or from game files given as arguments. Needs
    /// kabir built with the `parquet` feature.
    Parquet,
    /// With --openings: one EPD line per position (`board side castling ep` and operations).
    Epd,
}

/// Export games: all of them, or those matching the same conditions as `kabir search`, in
/// import order; or, with --openings, an opening suite made from them.
///
/// CSV and JSON have one row or object per game: id, variant, the usual tags, result,
/// plies, termination, the start position and the moves in SAN separated by spaces (JSON
/// also has every tag).
///
/// Parquet (`--format parquet --out DIR`) writes the tables `games`, `moves` and, with
/// --positions, `positions`, one folder each, partitioned by variant
/// (`DIR/games/variant=tamerlane/games.parquet`); schema and SQL in docs/SCALE.md. Given game
/// files, it reads and replays them on all cores instead of reading the database: the games
/// are numbered from 1 in input order (valid games only; invalid ones are reported and left
/// out, and the exit status is then 1).
///
/// With --openings PLIES, the positions the games reached after exactly PLIES plies, each
/// reached by at least --min-games of them, most games first (then by position string), for
/// the `-openings` option of cutechess-cli and fastchess: as EPD (`--format epd`, with
/// operations `id`, `c0` (the counts), `c1` (the most played line to it), `hmvc` and `fmvn`) or
/// as PGN (one game per position: its most played line, result `*`). CSV and JSON give one row
/// or object per position. A suite is of one variant: --variant chooses it, by default the
/// database's only one. See docs/QUERIES.md.
#[derive(Debug, Args)]
#[command(
    mut_arg("variant", |a| a.help(super::query::LINE_VARIANT).long_help(None)),
    mut_arg("variant_file", |a| a.help(super::query::FILTER_VARIANT_FILE).long_help(None)),
)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub filter: FilterArgs,
    #[command(flatten)]
    pub line: LineArgs,
    /// With --moves: only games whose first moves are exactly these, in this order.
    #[arg(long, requires = "moves")]
    pub exact_order: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pgn)]
    pub format: Format,
    /// Write to this file instead of standard output. It must not be the database, and it is
    /// replaced only once the export is complete: a failed export leaves it as it was.
    #[arg(long, short, value_name = "FILE", conflicts_with = "out")]
    pub output: Option<PathBuf>,
    /// With --format parquet: the folder to write the tables into (created if missing; it
    /// must not hold them already).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// With --format parquet: also write the `positions` table (every position of every game
    /// with the move played from it; about as large as `moves`).
    #[arg(long)]
    pub positions: bool,
    /// With --format parquet: print only the final summary, no progress and no problems of
    /// invalid games.
    #[arg(long, short)]
    pub quiet: bool,
    /// With --format parquet: export these game files (`-` for standard input; gzip and zstd
    /// are decompressed, as `kabir validate` reads them) instead of the database. --variant and --variant-file then
    /// give the variant of the games whose tags name none; other conditions do not apply.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// With game files: the most one game's text may take, as `kabir validate
    /// --max-game-size` reads it (default 16M).
    #[arg(long, value_name = "SIZE", value_parser = super::args::parse_size)]
    pub max_game_size: Option<usize>,
    /// Write an opening suite: the positions games reached after exactly this many plies
    /// (those of the conditions given, of one variant), with --format epd, pgn, csv or json.
    #[arg(long, value_name = "PLIES", conflicts_with_all = ["files", "out", "positions"])]
    pub openings: Option<u32>,
    /// With --openings: only positions at least this many games reached [default: 2].
    #[arg(long, value_name = "N", requires = "openings")]
    pub min_games: Option<u64>,
    /// With --openings: at most this many positions, the most played first.
    #[arg(long, value_name = "N", requires = "openings")]
    pub limit: Option<usize>,
}

/// One exported game (CSV columns in this order; `tags` in JSON only).
#[derive(Debug, Serialize)]
struct Exported {
    id: GameId,
    variant: String,
    event: String,
    site: String,
    date: String,
    round: String,
    white: String,
    black: String,
    result: kabir::db::GameResult,
    plies: u32,
    termination: &'static str,
    start: String,
    moves: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<BTreeMap<String, String>>,
}

const CSV_COLUMNS: [&str; 13] = [
    "id",
    "variant",
    "event",
    "site",
    "date",
    "round",
    "white",
    "black",
    "result",
    "plies",
    "termination",
    "start",
    "moves",
];

impl Exported {
    fn of(g: &StoredGame, registry: &Registry, with_tags: bool) -> Result<Exported> {
        let moves = g
            .san_moves(registry)
            .map_err(super::query::stored_game_error)?;
        let roster = g.roster();
        let tag = |v: Option<&str>| v.unwrap_or("").to_string();
        Ok(Exported {
            id: g.id,
            variant: g.variant.clone(),
            event: tag(roster.event),
            site: tag(roster.site),
            date: tag(roster.date),
            round: tag(roster.round),
            white: tag(roster.white),
            black: tag(roster.black),
            result: g.result,
            plies: g.plies,
            termination: g.end.as_str(),
            start: g.start_fen.clone(),
            moves: moves.join(" "),
            tags: with_tags.then(|| g.tags.iter().cloned().collect()),
        })
    }

    fn cells(&self) -> [String; 13] {
        [
            self.id.to_string(),
            self.variant.clone(),
            self.event.clone(),
            self.site.clone(),
            self.date.clone(),
            self.round.clone(),
            self.white.clone(),
            self.black.clone(),
            self.result.to_string(),
            self.plies.to_string(),
            self.termination.to_string(),
            self.start.clone(),
            self.moves.clone(),
        ]
    }
}

pub(super) fn stored(db: &Database, id: GameId) -> Result<StoredGame> {
    db.game(id)?
        .with_context(|| format!("game {id} disappeared during the export"))
}

/// Writes a game's canonical text, followed by a blank line (as `kabir serve`'s downloads
/// do: [`StoredGame::write_pgn`]).
pub fn write_pgn(db: &Database, id: GameId, out: &mut dyn Write) -> Result<()> {
    stored(db, id)?.write_pgn(out)?;
    Ok(())
}

/// Checks that the database, the variant file and `--output` are no two the same file, then
/// opens the database and the output (`None`: standard output).
pub(super) fn open_export(args: &ExportArgs) -> Result<(Database, Option<Output>)> {
    let mut files = Files::new();
    files
        .database(&args.db.db)
        .variant_file(args.filter.variant.variant_file.as_deref());
    if let Some(path) = &args.output {
        files.write("--output", path);
    }
    files.check()?;
    let db = args.db.open()?;
    let file = args.output.as_deref().map(Output::create).transpose()?;
    Ok((db, file))
}

/// Exports; the exit status is 0 whether or not games match.
pub fn run(args: &ExportArgs, out: &mut dyn Write) -> Result<bool> {
    if let Some(plies) = args.openings {
        return super::export_openings::run(args, plies, out);
    }
    if args.format == Format::Epd {
        anyhow::bail!(
            "--format epd writes an opening suite: give --openings PLIES (games export as pgn, \
             csv, json or parquet)"
        );
    }
    if args.format == Format::Parquet {
        return parquet(args, out);
    }
    if args.out.is_some()
        || args.positions
        || !args.files.is_empty()
        || args.max_game_size.is_some()
    {
        anyhow::bail!(
            "--out, --positions, --max-game-size and game files are for --format parquet; the \
             other formats export the database (to standard output or --output FILE)"
        );
    }
    let (db, mut file) = open_export(args)?;
    let registry = args.filter.registry()?;
    let out: &mut dyn Write = match &mut file {
        Some(f) => f,
        None => out,
    };
    let ids: Vec<GameId> = if db.is_empty()? {
        super::output::note(format_args!("kabir export: {}", empty_message(&args.db)));
        Vec::new()
    } else {
        // Ids only: the games are read one at a time below, never all at once.
        let q = build_query(&db, &args.filter, &args.line, args.exact_order)?;
        db.search_ids(&q)?
    };
    match args.format {
        Format::Pgn => {
            for &id in &ids {
                write_pgn(&db, id, out)?;
            }
        }
        Format::Json => {
            for &id in &ids {
                let e = Exported::of(&stored(&db, id)?, &registry, true)?;
                writeln!(out, "{}", serde_json::to_string(&e)?)?;
            }
        }
        Format::Parquet | Format::Epd => unreachable!("handled above"),
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut *out);
            w.write_record(CSV_COLUMNS)?;
            for &id in &ids {
                let e = Exported::of(&stored(&db, id)?, &registry, false)?;
                w.write_record(e.cells())?;
            }
            w.flush()?;
        }
    }
    if let Some(f) = file {
        f.commit()?;
    }
    Ok(true)
}

#[cfg(feature = "parquet")]
fn parquet(args: &ExportArgs, out: &mut dyn Write) -> Result<bool> {
    super::export_parquet::run(args, out)
}

#[cfg(not(feature = "parquet"))]
fn parquet(_: &ExportArgs, _: &mut dyn Write) -> Result<bool> {
    anyhow::bail!(
        "this kabir was built without Parquet export; build it with \
         `cargo build --release --features parquet`"
    )
}
