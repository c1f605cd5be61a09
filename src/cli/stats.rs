//! `kabir stats`: results, lengths, terminations, special moves, openings and players.

use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};

use kabir::db::{Group, GroupBy, Report, ReportQuery, Score};

use super::query::{DbArgs, FilterArgs, empty_message, pct, table};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One table per section.
    Table,
    /// One JSON object with every number the tables show (docs/QUERIES.md).
    Json,
    /// CSV: one row per number: section, key, field, value.
    Csv,
}

/// How to break the games down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    Variant,
    Player,
    Termination,
    Year,
    Opening,
    Result,
}

impl ByArg {
    fn group_by(self) -> GroupBy {
        match self {
            ByArg::Variant => GroupBy::Variant,
            ByArg::Player => GroupBy::Player,
            ByArg::Termination => GroupBy::Termination,
            ByArg::Year => GroupBy::Year,
            ByArg::Opening => GroupBy::Opening,
            ByArg::Result => GroupBy::Result,
        }
    }
}

/// Statistics of the games (all, or those matching the same conditions as `kabir search`):
/// results by colour, game lengths, how the games ended, special moves, the most common
/// openings and, with --player, the players' scores by colour and variant.
#[derive(Debug, Args)]
#[command(
    mut_arg("variant", |a| a.help(super::query::FILTER_VARIANT).long_help(None)),
    mut_arg("variant_file", |a| a.help(super::query::FILTER_VARIANT_FILE).long_help(None)),
)]
pub struct StatsArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Also break the games down by this.
    #[arg(long, value_enum)]
    pub by: Option<ByArg>,
    /// An opening is a game's first this many plies (at most 200).
    #[arg(long, default_value_t = 4, value_name = "N",
          value_parser = clap::value_parser!(u64).range(0..=200))]
    pub opening_plies: u64,
    /// How many openings (and, --by player, players) to list (at most 10000).
    #[arg(long, default_value_t = 10, value_name = "N",
          value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub top: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also draw the figures as charts into this SVG file (results by colour, game lengths,
    /// terminations, special moves, games per year; `.png` works too).
    #[arg(long, value_name = "FILE")]
    pub chart: Option<std::path::PathBuf>,
}

fn score_cells(s: &Score) -> String {
    format!("+{} ={} -{}", s.wins, s.draws, s.losses)
}

fn group_rows(groups: &[Group], with_variant: bool) -> Vec<Vec<String>> {
    groups
        .iter()
        .map(|g| {
            let r = &g.results;
            let mut row = vec![g.key.clone()];
            if with_variant {
                row.push(g.variant.clone().unwrap_or_default());
            }
            row.extend([
                g.games.to_string(),
                pct(g.share_pct),
                format!(
                    "{} ({})",
                    r.white_wins,
                    pct(kabir::db::percent(r.white_wins, g.games))
                ),
                format!(
                    "{} ({})",
                    r.draws,
                    pct(kabir::db::percent(r.draws, g.games))
                ),
                format!(
                    "{} ({})",
                    r.black_wins,
                    pct(kabir::db::percent(r.black_wins, g.games))
                ),
                r.unfinished.to_string(),
                format!("{:.1}", g.average_plies),
            ]);
            row
        })
        .collect()
}

const GROUP_COLUMNS: [&str; 7] = [
    "games",
    "share",
    "white wins",
    "draws",
    "black wins",
    "unfinished",
    "avg plies",
];

fn write_table(r: &Report, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "games: {}", r.games)?;
    let res = &r.results;
    let n = r.games;
    let p = |x| pct(kabir::db::percent(x, n));
    writeln!(out, "results")?;
    let rows = vec![
        vec![
            "white wins (1-0)".into(),
            res.white_wins.to_string(),
            p(res.white_wins),
        ],
        vec![
            "draws (1/2-1/2)".into(),
            res.draws.to_string(),
            p(res.draws),
        ],
        vec![
            "black wins (0-1)".into(),
            res.black_wins.to_string(),
            p(res.black_wins),
        ],
        vec![
            "unfinished (*)".into(),
            res.unfinished.to_string(),
            p(res.unfinished),
        ],
    ];
    writeln!(out, "{}", table(&["result", "games", "share"], rows))?;
    let l = &r.lengths;
    writeln!(
        out,
        "length in plies: min {}, median {}, mean {:.1}, max {}",
        l.min, l.median, l.mean, l.max
    )?;
    let rows = l
        .buckets
        .iter()
        .map(|b| {
            vec![
                format!("{}-{}", b.from, b.to),
                b.games.to_string(),
                pct(b.pct),
            ]
        })
        .collect();
    writeln!(out, "{}", table(&["plies", "games", "share"], rows))?;
    writeln!(out, "terminations")?;
    let rows = r
        .terminations
        .iter()
        .map(|e| {
            vec![
                e.termination.as_str().to_string(),
                e.games.to_string(),
                pct(e.pct),
            ]
        })
        .collect();
    writeln!(out, "{}", table(&["termination", "games", "share"], rows))?;
    writeln!(out, "special moves")?;
    let rows = r
        .special
        .iter()
        .map(|s| {
            vec![
                s.name.clone(),
                s.moves.to_string(),
                s.games.to_string(),
                pct(s.games_pct),
            ]
        })
        .collect();
    writeln!(
        out,
        "{}",
        table(&["move", "times", "games", "share of games"], rows)
    )?;
    if !r.openings.is_empty() {
        writeln!(
            out,
            "most common openings (first {} plies; share of the variant's games from its standard start)",
            r.opening_plies
        )?;
        let mut header = vec!["opening", "variant"];
        header.extend(GROUP_COLUMNS);
        writeln!(out, "{}", table(&header, group_rows(&r.openings, true)))?;
    }
    if !r.players.is_empty() {
        writeln!(out, "players (score: points per finished game)")?;
        let rows = r
            .players
            .iter()
            .map(|p| {
                vec![
                    p.name.clone(),
                    p.total.games().to_string(),
                    format!("{}", p.total.points()),
                    pct(p.total.score_pct()),
                    score_cells(&p.total),
                    score_cells(&p.as_white),
                    score_cells(&p.as_black),
                    p.by_variant
                        .iter()
                        .map(|(v, s)| format!("{v}: {} {}", s.games(), score_cells(s)))
                        .collect::<Vec<_>>()
                        .join("; "),
                ]
            })
            .collect();
        writeln!(
            out,
            "{}",
            table(
                &[
                    "player",
                    "games",
                    "points",
                    "score",
                    "+win =draw -loss",
                    "as white",
                    "as black",
                    "by variant"
                ],
                rows
            )
        )?;
    }
    if let Some(by) = r.by
        && by != "player"
        && by != "opening"
    {
        writeln!(out, "by {by}")?;
        let mut header = vec![by];
        header.extend(GROUP_COLUMNS);
        writeln!(out, "{}", table(&header, group_rows(&r.groups, false)))?;
    }
    Ok(())
}

/// The rows of the CSV form: every number of the JSON form, by section, key and field.
fn flatten(
    section: &str,
    key: &str,
    field: &str,
    v: &serde_json::Value,
    out: &mut Vec<[String; 4]>,
) {
    use serde_json::Value;
    let join = |a: &str, b: &str| {
        if a.is_empty() {
            b.to_string()
        } else {
            format!("{a}.{b}")
        }
    };
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if section.is_empty() && !matches!(x, Value::Object(_) | Value::Array(_)) {
                    flatten("summary", key, k, x, out);
                } else if section.is_empty() {
                    flatten(k, key, field, x, out);
                } else {
                    flatten(section, key, &join(field, k), x, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                let id = ["key", "name", "termination", "from"]
                    .iter()
                    .find_map(|k| x.get(k))
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .or_else(|| {
                        // [name, value] pairs (a player's variants).
                        x.as_array()
                            .and_then(|a| a.first())
                            .and_then(|f| f.as_str().map(str::to_string))
                    })
                    .unwrap_or_else(|| i.to_string());
                let key = join(key, &id);
                match x {
                    Value::Array(pair) if pair.len() == 2 => {
                        flatten(section, &key, field, &pair[1], out);
                    }
                    _ => flatten(section, &key, field, x, out),
                }
            }
        }
        Value::Null => {}
        Value::String(s) => out.push([section.into(), key.into(), field.into(), s.clone()]),
        other => out.push([section.into(), key.into(), field.into(), other.to_string()]),
    }
}

/// Prints the statistics.
pub fn run(args: &StatsArgs, out: &mut dyn Write) -> Result<bool> {
    if let Some(path) = &args.chart {
        let mut files = super::output::Files::new();
        files
            .database(&args.db.db)
            .variant_file(args.filter.variant.variant_file.as_deref());
        super::diagram::check_picture("--chart", path, &mut files)?;
    }
    let db = args.db.open()?;
    let registry = args.filter.registry()?;
    let empty = db.is_empty()?;
    let q = ReportQuery {
        filter: args.filter.filter()?,
        by: args.by.map(ByArg::group_by),
        opening_plies: usize::try_from(args.opening_plies).unwrap_or(usize::MAX),
        top: usize::try_from(args.top).unwrap_or(usize::MAX),
    };
    let report = db.report(&q, &registry)?;
    if let Some(path) = &args.chart {
        // The activity line needs the games per year, whatever --by asks for.
        let years = if q.by == Some(GroupBy::Year) {
            report.groups.clone()
        } else {
            let by_year = ReportQuery {
                by: Some(GroupBy::Year),
                ..q.clone()
            };
            db.report(&by_year, &registry)?.groups
        };
        let chart = kabir::diagram::chart::stats_svg(
            &kabir::diagram::chart::ChartData::from_report(&report, &years),
        );
        super::diagram::save_picture(&chart, path, 1.0)?;
    }
    if empty && args.format != Format::Table {
        super::output::note(format_args!("kabir stats: {}", empty_message(&args.db)));
    }
    match args.format {
        Format::Table if empty => writeln!(out, "{}", empty_message(&args.db))?,
        Format::Table => write_table(&report, out)?,
        Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?,
        Format::Csv => {
            let v = serde_json::to_value(&report)?;
            let mut rows = Vec::new();
            flatten("", "", "", &v, &mut rows);
            let mut w = csv::Writer::from_writer(out);
            w.write_record(["section", "key", "field", "value"])?;
            for r in rows {
                w.write_record(r)?;
            }
            w.flush()?;
        }
    }
    Ok(true)
}
