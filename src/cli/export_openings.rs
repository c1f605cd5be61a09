//! `kabir export --openings`: an opening suite for engine matches, as EPD, PGN, CSV or JSON.

use std::io::Write;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use kabir::db::{Database, SuitePosition, SuiteQuery};
use kabir::rules::epd::Operation;
use kabir::rules::{Color, Game, Position, Variant};

use super::export::{ExportArgs, Format};
use super::query::empty_message;
use super::search::build_query;

/// Positions at least this many games reached, unless --min-games says otherwise: a position
/// of one game is as often a blunder as an opening.
const MIN_GAMES: u64 = 2;

/// One position of the suite as a CSV row (columns in this order) or a JSON object.
#[derive(Debug, Serialize)]
struct Row {
    rank: usize,
    epd: String,
    fen: String,
    games: u64,
    white: u64,
    draws: u64,
    black: u64,
    unfinished: u64,
    white_score_pct: Option<f64>,
    lines: usize,
    line_games: u64,
    first_game: u32,
    start: String,
    line: String,
}

const CSV_COLUMNS: [&str; 14] = [
    "rank",
    "epd",
    "fen",
    "games",
    "white",
    "draws",
    "black",
    "unfinished",
    "white_score_pct",
    "lines",
    "line_games",
    "first_game",
    "start",
    "line",
];

impl Row {
    fn of(rank: usize, p: &SuitePosition) -> Row {
        Row {
            rank,
            epd: p.epd_fields(),
            fen: p.position.to_fen(),
            games: p.games,
            white: p.white,
            draws: p.draws,
            black: p.black,
            unfinished: p.unfinished(),
            white_score_pct: p.white_score().map(|s| (s * 10.0).round() / 10.0),
            lines: p.lines,
            line_games: p.line_games,
            first_game: p.first_game,
            start: p.start.to_fen(),
            line: movetext(&p.start, &p.line_san),
        }
    }

    fn cells(&self) -> [String; 14] {
        [
            self.rank.to_string(),
            self.epd.clone(),
            self.fen.clone(),
            self.games.to_string(),
            self.white.to_string(),
            self.draws.to_string(),
            self.black.to_string(),
            self.unfinished.to_string(),
            self.white_score_pct
                .map_or(String::new(), |s| format!("{s:.1}")),
            self.lines.to_string(),
            self.line_games.to_string(),
            self.first_game.to_string(),
            self.start.clone(),
            self.line.clone(),
        ]
    }
}

/// The moves of a line with their move numbers, as game text writes them (`1. Nf3 Nf6 2.
/// Nc3`, or `7... Nc6` first when Black moves first).
fn movetext(start: &Position, san: &[String]) -> String {
    let mut out = String::new();
    let mut number = start.fullmove_number();
    let mut turn = start.turn();
    for (i, m) in san.iter().enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        if turn == Color::White {
            out.push_str(&format!("{number}. "));
        } else if i == 0 {
            out.push_str(&format!("{number}... "));
        }
        out.push_str(m);
        if turn == Color::Black {
            number += 1;
        }
        turn = !turn;
    }
    out
}

/// The suite's variant: --variant, or the database's only one.
fn suite_variant(db: &Database, given: Option<Arc<Variant>>) -> Result<Option<Arc<Variant>>> {
    if let Some(v) = given {
        return Ok(Some(v));
    }
    let names = db.variants()?;
    match names.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(kabir::variants::builtin(one).with_context(|| {
            format!("the database's games are of variant {one:?}; give --variant-file")
        })?)),
        many => bail!(
            "an opening suite is of one variant, and the database holds games of several ({}): \
             choose one with --variant",
            many.join(", ")
        ),
    }
}

/// Writes the suite; the exit status is 0 whether or not positions are found.
pub fn run(args: &ExportArgs, plies: u32, out: &mut dyn Write) -> Result<bool> {
    if args.format == Format::Parquet {
        bail!("--openings writes --format epd, pgn, csv or json; Parquet tables are of games");
    }
    if args.max_game_size.is_some() {
        bail!("--max-game-size is for game files, which --openings does not read");
    }
    let (db, mut file) = super::export::open_export(args)?;
    let out: &mut dyn Write = match &mut file {
        Some(f) => f,
        None => out,
    };
    let variant = if db.is_empty()? {
        None
    } else {
        suite_variant(&db, args.filter.variant()?)?
    };
    let Some(variant) = variant else {
        super::output::note(format_args!("kabir export: {}", empty_message(&args.db)));
        if args.format == Format::Csv {
            csv::Writer::from_writer(&mut *out).write_record(CSV_COLUMNS)?;
        }
        if let Some(f) = file {
            f.commit()?;
        }
        return Ok(true);
    };
    let mut query = build_query(&db, &args.filter, &args.line, args.exact_order)?;
    query.filter.variant = Some(variant.id().to_string());
    let mut filter = query.filter.clone();
    if query.position.is_some() {
        // Only the games that reached the position: the position index answers it.
        filter.games = Some(db.search(&query)?.games.iter().map(|h| h.game.id).collect());
    }
    let q = SuiteQuery {
        plies,
        min_games: args.min_games.unwrap_or(MIN_GAMES),
        limit: args.limit,
    };
    let suite = db.opening_suite(&variant, &filter, &q)?;
    match args.format {
        Format::Epd => {
            for (i, p) in suite.positions.iter().enumerate() {
                writeln!(out, "{}", epd_line(&suite.variant, plies, i + 1, p))?;
            }
        }
        Format::Pgn => {
            for (i, p) in suite.positions.iter().enumerate() {
                out.write_all(pgn_game(&variant, plies, i + 1, p)?.as_bytes())?;
                out.write_all(b"\n")?;
            }
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut *out);
            w.write_record(CSV_COLUMNS)?;
            for (i, p) in suite.positions.iter().enumerate() {
                w.write_record(Row::of(i + 1, p).cells())?;
            }
            w.flush()?;
        }
        Format::Json => {
            for (i, p) in suite.positions.iter().enumerate() {
                writeln!(out, "{}", serde_json::to_string(&Row::of(i + 1, p))?)?;
            }
        }
        Format::Parquet => unreachable!("refused above"),
    }
    if let Some(f) = file {
        f.commit()?;
    }
    super::output::note(format_args!(
        "kabir export: {} position(s) of {} after {plies} plies, of the {} reached by {} game(s){}",
        suite.positions.len(),
        suite.variant,
        suite.reached,
        suite.games,
        if suite.over > 0 {
            format!("; {} where the game is over left out", suite.over)
        } else {
            String::new()
        }
    ));
    Ok(true)
}

/// A position as an EPD line: its fields, then `id`, the counts (`c0`), the most played line
/// (`c1`, unless the suite is of start positions), its start if set up (`c2`) and the clocks
/// at its end (`hmvc`, `fmvn`).
fn epd_line(variant: &str, plies: u32, rank: usize, p: &SuitePosition) -> String {
    let mut line = p.epd_fields();
    let counts = format!(
        "{} game{}: +{} ={} -{} *{}, {} line{}",
        p.games,
        if p.games == 1 { "" } else { "s" },
        p.white,
        p.draws,
        p.black,
        p.unfinished(),
        p.lines,
        if p.lines == 1 { "" } else { "s" }
    );
    let mut ops = vec![
        Operation::new("id", format!("{variant} {plies} plies #{rank}")),
        Operation::new("c0", counts),
    ];
    if !p.line_san.is_empty() {
        ops.push(Operation::new("c1", movetext(&p.start, &p.line_san)));
    }
    if !p.standard_start && !p.line.is_empty() {
        ops.push(Operation::new("c2", format!("from {}", p.start.to_fen())));
    }
    ops.push(Operation::new(
        "hmvc",
        p.position.halfmove_clock().to_string(),
    ));
    ops.push(Operation::new(
        "fmvn",
        p.position.fullmove_number().to_string(),
    ));
    for op in ops {
        line.push(' ');
        line.push_str(&op.to_string());
    }
    line
}

/// A position as a game: its most played line from its start, result `*`.
fn pgn_game(variant: &Arc<Variant>, plies: u32, rank: usize, p: &SuitePosition) -> Result<String> {
    let mut game = Game::new(p.start.clone());
    for &m in &p.line {
        game.play(m)
            .map_err(|e| anyhow::anyhow!("a stored line does not replay: {e}"))?;
    }
    let mut tags: Vec<(String, String)> = vec![
        (
            "Event".into(),
            format!("{} openings, {plies} plies", variant.name()),
        ),
        ("Site".into(), "?".into()),
        ("Date".into(), "????.??.??".into()),
        ("Round".into(), rank.to_string()),
        ("White".into(), "?".into()),
        ("Black".into(), "?".into()),
        ("Result".into(), "*".into()),
        ("Variant".into(), variant.name().to_string()),
    ];
    if !p.standard_start {
        tags.push(("SetUp".into(), "1".into()));
        tags.push(("FEN".into(), p.start.to_fen()));
    }
    Ok(kabir::notation::write_game(&game, &tags))
}
