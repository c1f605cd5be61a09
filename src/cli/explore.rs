//! `kabir explore`: the opening explorer.

use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};

use kabir::db::{ExploreAnswer, Explorer, ExplorerMove, ExplorerTree, Results, TreeQuery, percent};
use kabir::rules::{Color, Position};

use super::args::VariantArgs;
use super::query::{
    DbArgs, ExploreFilterArgs, LineArgs, empty_message, pct, position_variant, table,
};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// What is counted, the position's totals, then a table of the moves (a tree with
    /// --depth).
    Table,
    /// One JSON object (fields in docs/QUERIES.md).
    Json,
    /// CSV: the position (depth 0), then one row per move.
    Csv,
}

/// The largest `--max-nodes`: a tree of this many moves peaks at about 160 MB, its table at 280 MB.
const MAX_NODES: u64 = 200_000;

/// What is counted, said with every answer.
pub const COUNTING: &str = kabir::db::EXPLORER_COUNTING;

/// The opening explorer: how many games reached a position and, for each move played from
/// it, the games, their share, White wins / draws / Black wins and the average length, with
/// example game ids.
///
/// A game is counted once for the position, at its first visit, and once for the move it
/// played then: the moves' games add up to the games that continued from the position.
#[derive(Debug, Args)]
#[command(
    mut_arg("variant", |a| a.help(super::query::POSITION_VARIANT).long_help(None)),
    mut_arg("variant_file", |a| a.help(super::query::POSITION_VARIANT_FILE).long_help(None)),
)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub variant: VariantArgs,
    #[command(flatten)]
    pub line: LineArgs,
    #[command(flatten)]
    pub filter: ExploreFilterArgs,
    /// Show a tree of the most played lines this many moves deep.
    #[arg(long, default_value_t = 1, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=40))]
    pub depth: u64,
    /// With --depth: follow this many of the most played moves at each position.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub breadth: usize,
    /// With --depth: list at most this many moves in the whole tree (its rows; at most
    /// 200000). Positions are followed level by level, most played lines first; a tree cut
    /// short says so and is complete to some depth (docs/QUERIES.md). The position's own
    /// moves are always listed.
    #[arg(long, default_value_t = kabir::db::DEFAULT_TREE_NODES as u64, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=MAX_NODES))]
    pub max_nodes: u64,
    /// Example games per move (at most 1000).
    #[arg(long, default_value_t = 3, value_name = "N",
          value_parser = clap::value_parser!(u64).range(0..=1000))]
    pub examples: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also save the position as a picture (`.svg` or `.png`; see `kabir diagram`), with
    /// arrows for the three most played moves.
    #[arg(long, value_name = "FILE")]
    pub diagram: Option<std::path::PathBuf>,
}

/// A move's label in a line: `1. e3`, `1... e6`.
fn label(pos: &Position, m: &ExplorerMove) -> String {
    let n = pos.fullmove_number();
    match pos.turn() {
        Color::White => format!("{n}. {}", m.san),
        Color::Black => format!("{n}... {}", m.san),
    }
}

fn results_cells(r: &Results) -> [String; 4] {
    let n = r.games();
    [
        format!("{} ({})", r.white_wins, pct(percent(r.white_wins, n))),
        format!("{} ({})", r.draws, pct(percent(r.draws, n))),
        format!("{} ({})", r.black_wins, pct(percent(r.black_wins, n))),
        r.unfinished.to_string(),
    ]
}

fn examples(m: &ExplorerMove) -> String {
    m.examples
        .iter()
        .map(|id| id.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Table rows of an explorer's moves, depth first.
fn rows(pos: &Position, ex: &Explorer, depth: usize, out: &mut Vec<Vec<String>>) {
    for m in &ex.moves {
        let mut row = vec![
            format!("{}{}", "  ".repeat(depth), label(pos, m)),
            m.games.to_string(),
            pct(m.share_pct),
        ];
        row.extend(results_cells(&m.results));
        row.push(format!("{:.1}", m.average_plies));
        row.push(examples(m));
        out.push(row);
        if let Some(next) = &m.next {
            rows(&pos.after(m.mv), next, depth + 1, out);
        }
    }
}

/// CSV rows of an explorer's moves, depth first; `line` is the moves before.
fn csv_rows(
    pos: &Position,
    ex: &Explorer,
    line: &str,
    depth: usize,
    w: &mut csv::Writer<&mut dyn Write>,
) -> Result<()> {
    for m in &ex.moves {
        let here = if line.is_empty() {
            m.san.clone()
        } else {
            format!("{line} {}", m.san)
        };
        let r = &m.results;
        let n = r.games();
        w.write_record([
            depth.to_string(),
            here.clone(),
            m.san.clone(),
            m.uci.clone(),
            m.games.to_string(),
            format!("{:.3}", m.share_pct),
            r.white_wins.to_string(),
            r.draws.to_string(),
            r.black_wins.to_string(),
            r.unfinished.to_string(),
            format!("{:.3}", percent(r.white_wins, n)),
            format!("{:.3}", percent(r.draws, n)),
            format!("{:.3}", percent(r.black_wins, n)),
            format!("{:.3}", m.average_plies),
            examples(m),
        ])?;
        if let Some(next) = &m.next {
            csv_rows(&pos.after(m.mv), next, &here, depth + 1, w)?;
        }
    }
    Ok(())
}

/// The explorer's conditions in words (`of "anna" as White, dated 2020 to 2021`); `None`
/// without any.
fn filter_words(f: &kabir::db::GameFilter) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(p) = &f.player {
        parts.push(match f.color {
            Some(Color::White) => format!("of {p:?} as White"),
            Some(Color::Black) => format!("of {p:?} as Black"),
            None => format!("of {p:?}"),
        });
    }
    if let Some(e) = &f.event {
        parts.push(format!("of an event containing {e:?}"));
    }
    if let Some(s) = &f.site {
        parts.push(format!("at a site containing {s:?}"));
    }
    match (&f.date_from, &f.date_to) {
        (Some(a), Some(b)) => parts.push(format!("dated {a} to {b}")),
        (Some(a), None) => parts.push(format!("dated {a} or later")),
        (None, Some(b)) => parts.push(format!("dated {b} or earlier")),
        (None, None) => {}
    }
    if let Some(r) = f.result {
        parts.push(format!("ending {}", r.as_str()));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// What a tree cut short by `--max-nodes` lacks, in words.
fn truncation_note(tree: &ExplorerTree) -> Option<String> {
    let t = tree.truncated?;
    Some(format!(
        "truncated: the tree lists at most {} moves (--max-nodes); it has every move to depth \
         {}, and at depth {} those of the most played lines only",
        t.max_nodes,
        t.complete_depth,
        t.complete_depth + 1
    ))
}

/// Explores; the exit status is 0 whether or not games reached the position.
pub fn run(args: &ExploreArgs, out: &mut dyn Write) -> Result<bool> {
    if let Some(path) = &args.diagram {
        let mut files = super::output::Files::new();
        files
            .database(&args.db.db)
            .variant_file(args.variant.variant_file.as_deref());
        super::diagram::check_picture("--diagram", path, &mut files)?;
    }
    let db = args.db.open()?;
    if db.is_empty()? {
        writeln!(out, "{}", empty_message(&args.db))?;
        return Ok(true);
    }
    let chosen = if args.variant.variant.is_some() || args.variant.variant_file.is_some() {
        Some(args.variant.resolve(None)?)
    } else {
        None
    };
    let variant = position_variant(&db, chosen)?;
    let (pos, line) = args.line.position(&variant)?;
    let depth = usize::try_from(args.depth).unwrap_or(1);
    let query = TreeQuery {
        depth,
        breadth: args.breadth,
        examples: usize::try_from(args.examples).unwrap_or(usize::MAX),
        max_nodes: usize::try_from(args.max_nodes).unwrap_or(usize::MAX),
    };
    let filter = args.filter.filter();
    let tree = db.explore_tree_filtered(&pos, &filter, &query)?;
    let ex = &tree.root;
    let continued = ex.games - ex.ended_here;
    if let Some(path) = &args.diagram {
        let mut scene = match &line {
            Some(moves) => super::diagram::line_scene(&Position::start(&variant), moves),
            None => super::diagram::Scene {
                position: pos.clone(),
                last: None,
                title: None,
            },
        };
        scene.title = Some(format!(
            "{} game{} reached this position",
            ex.games,
            if ex.games == 1 { "" } else { "s" }
        ));
        let g = variant.geometry();
        let arrows: Vec<String> = ex
            .moves
            .iter()
            .take(3)
            .map(|m| format!("{}{}", g.name(m.mv.from), g.name(m.mv.to)))
            .collect();
        let svg = super::diagram::draw(&scene, &arrows, None, false)?;
        super::diagram::save_picture(&svg, path, 1.0)?;
    }
    match args.format {
        Format::Json => {
            // Written as it is serialized: a large tree's text is never held whole.
            serde_json::to_writer_pretty(&mut *out, &ExploreAnswer::tree(&pos, &tree))?;
            writeln!(out)?;
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out);
            w.write_record([
                "depth",
                "line",
                "move",
                "uci",
                "games",
                "share_pct",
                "white_wins",
                "draws",
                "black_wins",
                "unfinished",
                "white_wins_pct",
                "draws_pct",
                "black_wins_pct",
                "average_plies",
                "examples",
            ])?;
            let r = &ex.results;
            let n = r.games();
            w.write_record([
                "0".to_string(),
                String::new(),
                String::new(),
                String::new(),
                ex.games.to_string(),
                "100.000".to_string(),
                r.white_wins.to_string(),
                r.draws.to_string(),
                r.black_wins.to_string(),
                r.unfinished.to_string(),
                format!("{:.3}", percent(r.white_wins, n)),
                format!("{:.3}", percent(r.draws, n)),
                format!("{:.3}", percent(r.black_wins, n)),
                String::new(),
                String::new(),
            ])?;
            csv_rows(&pos, ex, "", 1, &mut w)?;
            w.flush()?;
            // The rows are data: the note goes beside them.
            if let Some(note) = truncation_note(&tree) {
                eprintln!("kabir explore: {note}");
            }
        }
        Format::Table => {
            writeln!(out, "position: {} ({})", pos.to_fen(), variant.name())?;
            writeln!(out, "counted: {COUNTING}")?;
            if let Some(only) = filter_words(&filter) {
                writeln!(out, "only games {only}")?;
            }
            let [w, d, b, u] = results_cells(&ex.results);
            writeln!(
                out,
                "games: {}; white wins {w}, draws {d}, black wins {b}, unfinished {u}",
                ex.games
            )?;
            writeln!(
                out,
                "ended here: {}; continued: {continued} (the moves' games add up to this)",
                ex.ended_here
            )?;
            if depth > 1 {
                writeln!(
                    out,
                    "each line below a move counts the games that reached the position after \
                     it, by any move order"
                )?;
            }
            if let Some(note) = truncation_note(&tree) {
                writeln!(out, "{note}")?;
            }
            if ex.moves.is_empty() {
                writeln!(out, "no game continued from this position")?;
                return Ok(true);
            }
            let mut body = Vec::new();
            rows(&pos, ex, 0, &mut body);
            let mut total = vec![
                "all moves".to_string(),
                ex.moves.iter().map(|m| m.games).sum::<u64>().to_string(),
                pct(100.0),
            ];
            let mut sum = Results::default();
            for m in &ex.moves {
                sum.white_wins += m.results.white_wins;
                sum.draws += m.results.draws;
                sum.black_wins += m.results.black_wins;
                sum.unfinished += m.results.unfinished;
            }
            total.extend(results_cells(&sum));
            total.push(String::new());
            total.push(String::new());
            body.push(total);
            let t = table(
                &[
                    "move",
                    "games",
                    "share",
                    "white wins",
                    "draws",
                    "black wins",
                    "unfinished",
                    "avg plies",
                    "examples",
                ],
                body,
            );
            writeln!(out, "{t}")?;
        }
    }
    Ok(true)
}
