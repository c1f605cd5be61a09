//! Statistics charts: the numbers drawn are the database's numbers.

use std::collections::HashMap;

use kabir::db::{Database, GroupBy, ReportQuery};
use kabir::diagram::chart::{ChartData, stats_svg};
use kabir::variants::Registry;

use crate::cli_common::{kabir, samples};

/// A database of every sample game.
fn sample_db(dir: &std::path::Path) -> std::path::PathBuf {
    let db = dir.join("games.db");
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .args(samples())
        .assert()
        .success();
    db
}

/// The numbers of one chart panel: `(data-from or data-label, data-series) -> data-value`.
fn panel(svg: &str, chart: &str) -> HashMap<(String, String), u64> {
    let doc = roxmltree::Document::parse(svg).expect("the chart is well-formed XML");
    let g = doc
        .descendants()
        .find(|n| n.attribute("data-chart") == Some(chart))
        .unwrap_or_else(|| panic!("no {chart} panel"));
    let mut out = HashMap::new();
    for n in g
        .descendants()
        .filter(|n| n.attribute("data-value").is_some())
    {
        let key = n
            .attribute("data-from")
            .or(n.attribute("data-label"))
            .unwrap()
            .to_string();
        let series = n.attribute("data-series").unwrap_or("").to_string();
        let value = n.attribute("data-value").unwrap().parse().unwrap();
        assert!(out.insert((key, series), value).is_none(), "{chart}: twice");
    }
    out
}

#[test]
fn the_chart_of_the_library_report_draws_its_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(sample_db(dir.path())).unwrap();
    let registry = Registry::builtin();
    let report = |by| {
        let q = ReportQuery {
            by: Some(by),
            ..ReportQuery::default()
        };
        db.report(&q, &registry).unwrap()
    };
    let by_variant = report(GroupBy::Variant);
    let by_year = report(GroupBy::Year);
    assert!(by_variant.games > 0);
    let svg = stats_svg(&ChartData::from_report(&by_variant, &by_year.groups));

    // Results of each variant, and of all games: the variants' sum.
    let results = panel(&svg, "results");
    assert!(by_variant.groups.len() >= 3, "one group per variant");
    let mut total = [0u64; 4];
    for g in &by_variant.groups {
        let r = &g.results;
        for (i, (series, n)) in [
            ("white-wins", r.white_wins),
            ("draws", r.draws),
            ("black-wins", r.black_wins),
            ("unfinished", r.unfinished),
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(
                results[&(g.key.clone(), series.to_string())],
                n,
                "{} {series}",
                g.key
            );
            total[i] += n;
        }
    }
    for (i, series) in ["white-wins", "draws", "black-wins", "unfinished"]
        .into_iter()
        .enumerate()
    {
        assert_eq!(results[&("all games".into(), series.into())], total[i]);
    }
    assert_eq!(total.iter().sum::<u64>(), by_variant.games);

    let ends = panel(&svg, "terminations");
    assert_eq!(ends.len(), by_variant.terminations.len());
    for e in &by_variant.terminations {
        let key = (e.termination.as_str().to_string(), String::new());
        assert_eq!(ends[&key], e.games, "{}", e.termination.as_str());
    }
    assert_eq!(ends.values().sum::<u64>(), by_variant.games);

    let special = panel(&svg, "special");
    for s in &by_variant.special {
        assert_eq!(
            special[&(s.name.clone(), String::new())],
            s.moves,
            "{}",
            s.name
        );
    }
    assert!(
        special[&("promotion".into(), String::new())] > 0,
        "the samples promote"
    );

    let years = panel(&svg, "years");
    let dated: u64 = by_year
        .groups
        .iter()
        .filter(|g| g.key != "????")
        .map(|g| g.games)
        .sum();
    assert!(dated > 0, "the samples have dates");
    assert_eq!(years.values().sum::<u64>(), dated);

    // The chart renders to an image as well.
    let png = kabir::diagram::svg_to_png(&svg, 0.5).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let info = decoder.read_info().unwrap();
    assert_eq!(info.info().width, 400);
}

fn json(args: &[&str], db: &std::path::Path) -> serde_json::Value {
    let out = kabir()
        .args(args)
        .arg("--db")
        .arg(db)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn n(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not a count"))
}

#[test]
fn stats_chart_draws_the_numbers_stats_prints() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    for by in [None, Some("variant"), Some("year")] {
        let chart = dir.path().join("chart.svg");
        let mut args = vec!["stats"];
        if let Some(b) = by {
            args.extend(["--by", b]);
        }
        let printed = json(&args, &db);
        kabir()
            .args(&args)
            .arg("--db")
            .arg(&db)
            .arg("--chart")
            .arg(&chart)
            .assert()
            .success();
        let svg = std::fs::read_to_string(&chart).unwrap();

        let results = panel(&svg, "results");
        let r = &printed["results"];
        for series in ["white_wins", "draws", "black_wins", "unfinished"] {
            assert_eq!(
                results[&("all games".into(), series.replace('_', "-"))],
                n(&r[series]),
                "{by:?} {series}"
            );
        }
        if by == Some("variant") {
            let groups = printed["groups"].as_array().unwrap();
            assert!(groups.len() >= 3, "one group per variant");
            for g in groups {
                let key = g["key"].as_str().unwrap().to_string();
                assert_eq!(
                    results[&(key.clone(), "white-wins".into())],
                    n(&g["results"]["white_wins"]),
                    "{key}"
                );
                assert_eq!(
                    results[&(key.clone(), "unfinished".into())],
                    n(&g["results"]["unfinished"]),
                    "{key}"
                );
            }
        }

        let lengths = panel(&svg, "lengths");
        let buckets = printed["lengths"]["buckets"].as_array().unwrap();
        assert!(!buckets.is_empty());
        assert_eq!(lengths.len(), buckets.len());
        for b in buckets {
            assert_eq!(
                lengths[&(b["from"].to_string(), String::new())],
                n(&b["games"]),
                "{b}"
            );
        }

        let ends = panel(&svg, "terminations");
        let printed_ends = printed["terminations"].as_array().unwrap();
        assert_eq!(ends.len(), printed_ends.len());
        for e in printed_ends {
            let key = (
                e["termination"].as_str().unwrap().to_string(),
                String::new(),
            );
            assert_eq!(ends[&key], n(&e["games"]), "{e}");
        }

        let special = panel(&svg, "special");
        let printed_special = printed["special"].as_array().unwrap();
        assert_eq!(special.len(), printed_special.len());
        for s in printed_special {
            let key = (s["name"].as_str().unwrap().to_string(), String::new());
            assert_eq!(special[&key], n(&s["moves"]), "{s}");
        }
        assert!(
            special.values().sum::<u64>() > 0,
            "the samples have special moves"
        );

        // Games per year: the years of `--by year`, the undated ones said in the axis title.
        let by_year = json(&["stats", "--by", "year"], &db);
        let years = panel(&svg, "years");
        let mut undated = 0;
        let mut dated = 0;
        for g in by_year["groups"].as_array().unwrap() {
            let key = g["key"].as_str().unwrap().to_string();
            if key.bytes().all(|b| b.is_ascii_digit()) {
                assert_eq!(years[&(key, String::new())], n(&g["games"]));
                dated += 1;
            } else {
                undated += n(&g["games"]);
            }
        }
        assert_eq!(years.len(), dated);
        assert!(dated > 0, "the samples have dates");
        assert!(svg.contains(&format!("data-undated=\"{undated}\"")));
    }
}

#[test]
fn a_bad_chart_file_name_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_db(dir.path());
    let out = kabir()
        .arg("stats")
        .arg("--db")
        .arg(&db)
        .arg("--chart")
        .arg(dir.path().join("chart.pdf"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains(".svg or .png"));
    assert!(!dir.path().join("chart.pdf").exists());
}
