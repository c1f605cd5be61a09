//! Query times on a large database, each query a whole `kabir` process (start, opening the
//! database, the query, printing), as a user runs it. Run by `benches/scale.sh N`, which makes
//! the database; by hand:
//!
//!     cargo bench --bench scale -- KABIR_BINARY DATABASE
//!
//! Prints, for each kind of query, the number of runs, the 50th and 99th percentile of their
//! wall times, the slowest, and their mean CPU time (user and system, a steadier figure on a
//! busy machine):
//! - `explore` at 200 positions of stored games, at plies 0 to 40 (game `i` of 200 spread
//!   over the database, ply `i mod 41`, or its last);
//! - `search --fen F --limit 50` (the first page, with the total) at the same positions;
//! - `stats`, and `stats --by variant|termination|year|result`, 21 runs each;
//! - `search --player|--event|--site TEXT` for 20 texts each from stored games' tags (family
//!   names, the middle of names, events, places, in other case), three runs each;
//! - the filtered explorer: `explore` with a player and colour, an event, a date range and a
//!   result, at the start and 2, 4 and 6 plies into games, three runs each; and the explorer
//!   page's game lists (`Database::explore_games`, in this process) unfiltered and with the
//!   player, at the same positions.
//!
//! `cargo bench --bench scale -- KABIR_BINARY DATABASE filtered` times the filtered explorer
//! and the game lists alone.
//!
//! Each query runs once before it is timed, so the times are of a warm cache.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use kabir::db::Database;
use kabir::variants::Registry;

/// Runs `kabir ARGS --db DB` and returns its wall time in milliseconds.
fn time(kabir: &Path, db: &Path, args: &[String]) -> f64 {
    let start = Instant::now();
    let status = Command::new(kabir)
        .args(args)
        .arg("--db")
        .arg(db)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run kabir");
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    assert!(status.success(), "kabir {args:?} failed");
    ms
}

/// The `q`-th quantile (0-1) of the times, by the nearest-rank rule.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The CPU time (user and system) of this process's waited-for children so far, in
/// milliseconds, from `/proc/self/stat` (Linux; 0 elsewhere). The kernel keeps it exact and
/// rounds it to clock ticks only when read, so a difference over many runs is precise.
fn children_cpu_ms() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces): cutime and cstime are the
    // 14th and 15th of them.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: f64 = rest
        .split_whitespace()
        .skip(13)
        .take(2)
        .filter_map(|f| f.parse::<f64>().ok())
        .sum();
    ticks * 10.0
}

/// Times every command of `commands` `runs` times after a first, untimed run, and prints
/// the percentiles, and the mean CPU time a run took (which, unlike wall time, hardly grows
/// when other work shares the cores).
fn measure(kabir: &Path, db: &Path, label: &str, commands: &[Vec<String>], runs: usize) {
    for c in commands {
        time(kabir, db, c);
    }
    let mut times = Vec::with_capacity(commands.len() * runs);
    let cpu = children_cpu_ms();
    for _ in 0..runs {
        for c in commands {
            times.push(time(kabir, db, c));
        }
    }
    let cpu = (children_cpu_ms() - cpu) / times.len().max(1) as f64;
    times.sort_by(|a, b| a.total_cmp(b));
    println!(
        "{label:<44} {:>5} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
        times.len(),
        quantile(&times, 0.5),
        quantile(&times, 0.99),
        times.last().copied().unwrap_or(0.0),
        cpu
    );
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let (Some(kabir), Some(db)) = (args.first(), args.get(1)) else {
        eprintln!("usage: cargo bench --bench scale -- KABIR_BINARY DATABASE");
        std::process::exit(2);
    };
    let kabir = PathBuf::from(kabir);
    let db = PathBuf::from(db);
    let registry = Registry::builtin();
    let d = Database::open(&db).expect("open the database");
    let n = d.game_count().expect("count the games");
    assert!(n > 0, "the database holds no games");
    let variant = d.variants().expect("variants").remove(0);

    // 200 positions at plies 0-40 of games spread over the database.
    let mut fens = Vec::new();
    let mut tags: Vec<(String, String, String)> = Vec::new();
    for i in 0..200u64 {
        let id = 1 + (i * n / 200 + i * 7) % n;
        let g = d.game(id as u32).expect("read").expect("a stored game");
        let ply = ((i % 41) as usize).min(g.moves.len());
        fens.push(g.position_at(&registry, ply).expect("replay").to_fen());
        if i % 10 == 0 {
            let tag = |k: &str| g.tag(k).unwrap_or("?").to_string();
            tags.push((tag("White"), tag("Event"), tag("Site")));
        }
    }
    println!("{n} games of {variant} in {}", db.display());
    println!(
        "{:<44} {:>5} {:>9} {:>9} {:>9} {:>9}",
        "query (wall time of the whole process, ms)", "runs", "p50", "p99", "max", "mean CPU"
    );
    let shallow: Vec<&String> = fens.iter().step_by(2).take(4).collect();
    let family = tags[0].0.split(',').next().unwrap_or("?").to_lowercase();
    let event = tags[1].1.to_lowercase();
    let filters: [(&str, Vec<&str>); 4] = [
        (
            "--player P --color white",
            vec!["--player", &family, "--color", "white"],
        ),
        ("--event E", vec!["--event", &event]),
        (
            "--from 1999 --to 1999.06",
            vec!["--from", "1999", "--to", "1999.06"],
        ),
        ("--result 1-0", vec!["--result", "1-0"]),
    ];
    for (label, filter) in &filters {
        let c: Vec<Vec<String>> = shallow
            .iter()
            .map(|f| {
                let mut a = strings(&["explore", "--variant", &variant, "--fen", f]);
                a.extend(strings(filter));
                a
            })
            .collect();
        measure(&kabir, &db, &format!("explore {label} (plies 0-6)"), &c, 3);
    }
    let v = registry.find(&variant).expect("a built-in variant").clone();
    for (label, filter) in [
        ("", kabir::db::GameFilter::default()),
        (
            " --player P",
            kabir::db::GameFilter {
                player: Some(family.clone()),
                ..kabir::db::GameFilter::default()
            },
        ),
    ] {
        let mut times = Vec::new();
        for round in 0..4 {
            for f in &shallow {
                let pos = kabir::rules::Position::from_fen(&v, f).expect("a stored position");
                let start = Instant::now();
                d.explore_games(&pos, &filter, 8).expect("the lists");
                if round > 0 {
                    times.push(start.elapsed().as_secs_f64() * 1000.0);
                }
            }
        }
        times.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{:<44} {:>5} {:>9.1} {:>9.1} {:>9.1}",
            format!("game lists{label} (in process, plies 0-6)"),
            times.len(),
            quantile(&times, 0.5),
            quantile(&times, 0.99),
            times.last().copied().unwrap_or(0.0)
        );
    }
    drop(d);
    if args.get(2).map(String::as_str) == Some("filtered") {
        return;
    }
    let explore: Vec<Vec<String>> = fens
        .iter()
        .map(|f| strings(&["explore", "--variant", &variant, "--fen", f]))
        .collect();
    measure(
        &kabir,
        &db,
        "explore --fen F (200 positions, plies 0-40)",
        &explore,
        1,
    );
    let search: Vec<Vec<String>> = fens
        .iter()
        .map(|f| strings(&["search", "--variant", &variant, "--fen", f, "--limit", "50"]))
        .collect();
    measure(
        &kabir,
        &db,
        "search --fen F --limit 50 (same positions)",
        &search,
        1,
    );
    let start = vec![strings(&["search", "--variant", &variant, "--moves", ""])];
    measure(
        &kabir,
        &db,
        "search --moves \"\" (start position)",
        &start,
        21,
    );
    measure(&kabir, &db, "stats", &[strings(&["stats"])], 21);
    for by in ["variant", "termination", "year", "result"] {
        let c = vec![strings(&["stats", "--by", by])];
        measure(&kabir, &db, &format!("stats --by {by}"), &c, 21);
    }
    // Family names (a prefix), the middle of a given name in upper case, events, places.
    let player: Vec<Vec<String>> = tags
        .iter()
        .enumerate()
        .map(|(i, (white, _, _))| {
            let text = if i % 2 == 0 {
                white.split(',').next().unwrap_or(white).to_lowercase()
            } else {
                let given: Vec<char> = white.split(", ").last().unwrap_or(white).chars().collect();
                given[given.len().min(1)..given.len().min(4)]
                    .iter()
                    .collect::<String>()
                    .to_uppercase()
            };
            strings(&["search", "--player", &text])
        })
        .collect();
    measure(&kabir, &db, "search --player TEXT (20 texts)", &player, 3);
    let event: Vec<Vec<String>> = tags
        .iter()
        .map(|(_, e, _)| strings(&["search", "--event", &e.to_lowercase()]))
        .collect();
    measure(&kabir, &db, "search --event TEXT (20 texts)", &event, 3);
    let site: Vec<Vec<String>> = tags
        .iter()
        .map(|(_, _, s)| {
            let place = s.split([',', ' ']).next().unwrap_or(s);
            strings(&["search", "--site", &place.to_uppercase()])
        })
        .collect();
    measure(&kabir, &db, "search --site TEXT (20 texts)", &site, 3);
}
