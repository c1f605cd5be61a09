//! `kabir search`: games by tags, by position or by opening line.

use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};

use kabir::db::{Database, GameQuery, GameRow, SearchAnswer, SearchPage, SortKey};

use super::query::{DbArgs, FilterArgs, LineArgs, empty_message, position_variant, table, text};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table of the games, after a line with the number of matches.
    Table,
    /// One JSON object: total, offset, limit and the games.
    Json,
    /// CSV: a header, then one row per game.
    Csv,
    /// The games' canonical text.
    Pgn,
}

/// The order of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    Id,
    Date,
    White,
    Black,
    Event,
    Site,
    Result,
    Plies,
}

impl SortArg {
    fn key(self) -> SortKey {
        SortKey::parse(&format!("{self:?}").to_ascii_lowercase()).unwrap_or_default()
    }
}

/// Find games: by tags (player, event, site, dates, result, variant, termination, length,
/// special moves), by exact position (--fen) or by opening line (--moves).
///
/// --moves finds the games that reached the position after those moves, by any move order
/// (transpositions included); with --exact-order only games that began with exactly those
/// moves. All conditions given must hold.
#[derive(Debug, Args)]
#[command(
    mut_arg("variant", |a| a.help(super::query::LINE_VARIANT).long_help(None)),
    mut_arg("variant_file", |a| a.help(super::query::FILTER_VARIANT_FILE).long_help(None)),
)]
pub struct SearchArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub filter: FilterArgs,
    #[command(flatten)]
    pub line: LineArgs,
    /// With --moves: only games whose first moves are exactly these, in this order.
    #[arg(long, requires = "moves")]
    pub exact_order: bool,
    /// Order of the list (ties in import order).
    #[arg(long, value_enum, default_value_t = SortArg::Id)]
    pub sort: SortArg,
    /// Reverse the order.
    #[arg(long)]
    pub reverse: bool,
    /// At most this many games (0: all).
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub limit: usize,
    /// Skip this many games first.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub offset: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// The library query for filter and line arguments (shared with `export`).
pub fn build_query(
    db: &Database,
    filter: &FilterArgs,
    line: &LineArgs,
    exact_order: bool,
) -> Result<GameQuery> {
    let mut q = GameQuery {
        filter: filter.filter()?,
        ..GameQuery::default()
    };
    if line.is_given() {
        let variant = position_variant(db, filter.variant()?)?;
        let (pos, moves) = line.position(&variant)?;
        q.filter.variant = Some(variant.id().to_string());
        if exact_order {
            q.filter.opening = moves;
        }
        q.position = Some(pos);
    }
    Ok(q)
}

/// A game's cells in the table and CSV, in [`COLUMNS`] order (and `ply` with a position).
fn cells(r: &GameRow, with_ply: bool) -> Vec<String> {
    let mut c = vec![
        r.id.to_string(),
        r.variant.clone(),
        text(&r.white),
        text(&r.black),
        text(&r.event),
        text(&r.site),
        text(&r.date),
        r.result.to_string(),
        r.plies.to_string(),
        r.termination.to_string(),
    ];
    if with_ply {
        c.push(r.ply.map_or(String::new(), |p| p.to_string()));
    }
    c
}

const COLUMNS: [&str; 10] = [
    "id",
    "variant",
    "white",
    "black",
    "event",
    "site",
    "date",
    "result",
    "plies",
    "termination",
];

/// Searches; the exit status is 0 whether or not games match.
pub fn run(args: &SearchArgs, out: &mut dyn Write) -> Result<bool> {
    let db = args.db.open()?;
    let limit = (args.limit > 0).then_some(args.limit);
    if db.is_empty()? {
        match args.format {
            Format::Table => writeln!(out, "{}", empty_message(&args.db))?,
            Format::Json => writeln!(
                out,
                "{}",
                serde_json::to_string(&SearchAnswer::new(
                    &SearchPage::default(),
                    args.offset,
                    limit
                ))?
            )?,
            Format::Csv => writeln!(out, "{}", COLUMNS.join(","))?,
            Format::Pgn => {}
        }
        if args.format != Format::Table {
            super::output::note(format_args!("kabir search: {}", empty_message(&args.db)));
        }
        return Ok(true);
    }
    let mut q = build_query(&db, &args.filter, &args.line, args.exact_order)?;
    q.sort = args.sort.key();
    q.descending = args.reverse;
    q.limit = limit;
    q.offset = args.offset;
    let page = db.search(&q)?;
    let with_ply = q.position.is_some();
    let answer = SearchAnswer::new(&page, args.offset, limit);
    let rows = &answer.games;
    match args.format {
        Format::Table => {
            let shown = if rows.is_empty() {
                String::new()
            } else {
                format!(", showing {}-{}", args.offset + 1, args.offset + rows.len())
            };
            let what = if args.exact_order {
                " (that began with exactly these moves, in this order)"
            } else if with_ply {
                " (that reached the position, transpositions included)"
            } else {
                ""
            };
            let n = page.total;
            let games = if n == 1 {
                "game matches"
            } else {
                "games match"
            };
            writeln!(out, "{n} {games}{what}{shown}")?;
            if !rows.is_empty() {
                let mut header: Vec<&str> = COLUMNS.to_vec();
                if with_ply {
                    header.push("ply");
                }
                let cells = rows.iter().map(|r| cells(r, with_ply)).collect();
                writeln!(out, "{}", table(&header, cells))?;
            }
        }
        Format::Json => {
            writeln!(out, "{}", serde_json::to_string_pretty(&answer)?)?;
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            let mut header: Vec<&str> = COLUMNS.to_vec();
            if with_ply {
                header.push("ply");
            }
            w.write_record(&header)?;
            for r in rows {
                w.write_record(cells(r, with_ply))?;
            }
            w.flush()?;
        }
        Format::Pgn => {
            for h in &page.games {
                super::export::write_pgn(&db, h.game.id, out)?;
            }
        }
    }
    Ok(true)
}
