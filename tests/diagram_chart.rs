//! Statistics charts: the numbers drawn are the database's numbers.

use std::collections::HashMap;

use assert_cmd::Command;
use kabir::db::Database;
use kabir::diagram::chart::{ChartData, stats_svg};

fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

/// A database of every sample game.
fn sample_db(dir: &std::path::Path) -> std::path::PathBuf {
    let db = dir.join("games.db");
    let samples = concat!(env!("CARGO_MANIFEST_DIR"), "/samples");
    let mut files: Vec<_> = std::fs::read_dir(samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    files.sort();
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&db)
        .args(&files)
        .assert()
        .success();
    db
}

/// The numbers of one chart panel: `(data-label or data-from, data-series) -> data-value`.
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
            .attribute("data-label")
            .or(n.attribute("data-from"))
            .unwrap()
            .to_string();
        let series = n.attribute("data-series").unwrap_or("").to_string();
        let value = n.attribute("data-value").unwrap().parse().unwrap();
        assert!(out.insert((key, series), value).is_none(), "{chart}: twice");
    }
    out
}

#[test]
fn the_chart_of_the_library_stats_draws_its_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(sample_db(dir.path())).unwrap();
    let stats = db.stats().unwrap();
    assert!(stats.games > 0);
    let svg = stats_svg(&ChartData::from_stats(&stats));

    let results = panel(&svg, "results");
    let mut total = [0u64; 4];
    for v in &stats.variants {
        let r = &v.results;
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
                results[&(v.variant.clone(), series.to_string())],
                n,
                "{} {series}",
                v.variant
            );
            total[i] += n;
        }
    }
    assert_eq!(
        results[&("all games".into(), "white-wins".into())],
        total[0]
    );
    assert_eq!(total.iter().sum::<u64>(), stats.games);

    let ends = panel(&svg, "terminations");
    let mut expected: HashMap<String, u64> = HashMap::new();
    for v in &stats.variants {
        for (e, n) in &v.ends {
            *expected.entry(e.as_str().to_string()).or_default() += n;
        }
    }
    assert_eq!(ends.len(), expected.len());
    for (name, n) in &expected {
        assert_eq!(ends[&(name.clone(), String::new())], *n, "{name}");
    }
    assert_eq!(ends.values().sum::<u64>(), stats.games);

    let special = panel(&svg, "special");
    let swaps: u64 = stats.variants.iter().map(|v| v.special.swaps).sum();
    let promotions: u64 = stats.variants.iter().map(|v| v.special.promotions).sum();
    assert_eq!(special[&("king swap".into(), String::new())], swaps);
    assert_eq!(special[&("promotion".into(), String::new())], promotions);
    assert!(promotions > 0, "the samples promote");

    // The chart renders to an image as well.
    let png = kabir::diagram::svg_to_png(&svg, 0.5).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let info = decoder.read_info().unwrap();
    assert_eq!(info.info().width, 400);
}
