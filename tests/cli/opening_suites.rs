//! `kabir export --openings` and EPD input: suites made from the samples, their counts held
//! against the sample games replayed here with the library, the PGN form read back by
//! `kabir validate` and the EPD form counted by `kabir perft --epd`.

use std::collections::BTreeMap;
use std::path::Path;

use kabir::notation::reader::Reader;
use kabir::rules::Position;
use kabir::rules::epd::Epd;
use kabir::variants::Registry;

use crate::cli_common::{kabir, samples};

/// A position string without its clocks: how a suite tells positions apart.
fn without_clocks(pos: &Position) -> String {
    pos.to_fen()
        .split(' ')
        .enumerate()
        .filter(|&(i, _)| i != 4 && i != 5)
        .map(|(_, f)| f.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// For each variant of the samples, the positions after `plies` plies with the games that
/// reached them, worked out from the files.
fn expected(plies: usize) -> BTreeMap<String, BTreeMap<String, u64>> {
    let registry = Registry::builtin();
    let mut out: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for file in samples() {
        let bytes = std::fs::read(&file).unwrap();
        for raw in Reader::new(&bytes[..]) {
            let raw = raw.unwrap();
            let replayed = kabir::replay::replay(&raw, &registry);
            assert!(replayed.is_valid(), "{}", file.display());
            let game = replayed.game.unwrap();
            let variant = game.start().variant().id().to_string();
            let positions = out.entry(variant).or_default();
            if game.moves().len() < plies {
                continue;
            }
            let mut pos = game.start().clone();
            for &m in &game.moves()[..plies] {
                pos.play_unchecked(m);
            }
            if pos.status().is_over() {
                continue;
            }
            *positions.entry(without_clocks(&pos)).or_default() += 1;
        }
    }
    out
}

fn import(dir: &Path) -> String {
    let db = dir.join("s.db");
    kabir()
        .args(["import", "--quiet", "--db", db.to_str().unwrap()])
        .args(samples())
        .assert()
        .success();
    db.to_str().unwrap().to_string()
}

fn export(db: &str, args: &[&str]) -> String {
    let out = kabir()
        .args(["export", "--db", db])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The number of games a suite's EPD line says reached it (`c0 "N games: ..."`).
fn games_of(epd: &Epd) -> u64 {
    let c0 = epd.operand("c0").unwrap();
    c0.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn suites_count_the_games_of_each_position() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    let mut compared = 0;
    for plies in [0usize, 2, 5] {
        for (variant, positions) in expected(plies) {
            let v = kabir::variants::builtin(&variant).unwrap();
            let text = export(
                &db,
                &[
                    "--openings",
                    &plies.to_string(),
                    "--min-games",
                    "1",
                    "--variant",
                    &variant,
                    "--format",
                    "epd",
                ],
            );
            let mut got: BTreeMap<String, u64> = BTreeMap::new();
            let mut order = Vec::new();
            for line in text.lines() {
                let epd = Epd::parse(line).unwrap();
                let pos = epd.position(&v).unwrap();
                let n = games_of(&epd);
                assert!(got.insert(without_clocks(&pos), n).is_none(), "{line}");
                assert_eq!(
                    epd.operand("id"),
                    Some(format!("{variant} {plies} plies #{}", order.len() + 1).as_str())
                );
                order.push(n);
            }
            assert_eq!(got, positions, "{variant} after {plies} plies");
            // Most games first.
            assert!(order.windows(2).all(|w| w[0] >= w[1]), "{order:?}");
            compared += got.len();
            // Positions of fewer games than the minimum are left out.
            let at_least_2 = export(
                &db,
                &[
                    "--openings",
                    &plies.to_string(),
                    "--variant",
                    &variant,
                    "--format",
                    "epd",
                ],
            );
            let kept = positions.values().filter(|&&n| n >= 2).count();
            assert_eq!(
                at_least_2.lines().count(),
                kept,
                "{variant} after {plies} plies"
            );
        }
    }
    assert!(compared > 20, "{compared} positions compared");
}

#[test]
fn the_pgn_suite_validates_and_the_epd_suite_counts() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    for variant in ["tamerlane", "grand-shatranj-nw", "shatranj"] {
        let pgn = dir.path().join(format!("{variant}.pgn"));
        let epd = dir.path().join(format!("{variant}.epd"));
        for (format, path) in [("pgn", &pgn), ("epd", &epd)] {
            kabir()
                .args(["export", "--db", &db, "--openings", "4", "--min-games", "1"])
                .args(["--variant", variant, "--format", format, "-o"])
                .arg(path)
                .assert()
                .success();
        }
        let epd_text = std::fs::read_to_string(&epd).unwrap();
        let pgn_text = std::fs::read_to_string(&pgn).unwrap();
        assert!(!epd_text.is_empty(), "{variant}");
        // One game per position, each ending in `*`, with its variant.
        assert_eq!(
            pgn_text.matches("[Result \"*\"]").count(),
            epd_text.lines().count()
        );
        assert_eq!(
            pgn_text.matches("[Variant ").count(),
            epd_text.lines().count()
        );
        let out = kabir()
            .args(["validate", "--format", "json"])
            .arg(&pgn)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        // The games' last positions are the suite's positions, in order.
        let registry = Registry::builtin();
        let ends: Vec<String> = Reader::new(pgn_text.as_bytes())
            .map(|raw| {
                let raw = raw.unwrap();
                let r = kabir::replay::replay(&raw, &registry);
                assert!(r.is_valid());
                without_clocks(r.game.unwrap().position())
            })
            .collect();
        let v = kabir::variants::builtin(variant).unwrap();
        let epds: Vec<String> = epd_text
            .lines()
            .map(|l| without_clocks(&Epd::parse(l).unwrap().position(&v).unwrap()))
            .collect();
        assert_eq!(ends, epds, "{variant}");
        let out = kabir()
            .args(["perft", "--variant", variant, "--epd"])
            .arg(&epd)
            .arg("2")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        // A line per position (no D operations to check), then the total.
        assert_eq!(stdout.lines().count(), epd_text.lines().count() + 1);
    }
}

#[test]
fn a_suite_is_of_one_variant() {
    let dir = tempfile::tempdir().unwrap();
    let db = import(dir.path());
    let out = kabir()
        .args(["export", "--db", &db, "--openings", "4", "--format", "epd"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("one variant") && err.contains("--variant"),
        "{err}"
    );
    // EPD is for suites only.
    let out = kabir()
        .args(["export", "--db", &db, "--format", "epd"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--openings"));
    // A player's games only: fewer games, or as many.
    let suite = [
        "--openings",
        "0",
        "--min-games",
        "1",
        "--variant",
        "tamerlane",
    ];
    let all = export(&db, &[&suite[..], &["--format", "csv"]].concat());
    let some = export(
        &db,
        &[&suite[..], &["--format", "csv", "--result", "1-0"]].concat(),
    );
    let games = |csv: &str| -> u64 {
        csv.lines()
            .skip(1)
            .map(|l| l.split(',').nth(3).unwrap().parse::<u64>().unwrap())
            .sum()
    };
    assert!(games(&some) < games(&all), "{some}\n{all}");
}

/// The counts a perft suite expects are checked; a wrong one fails the command and is named.
#[test]
fn perft_epd_checks_the_expected_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("perft.epd");
    std::fs::write(
        &path,
        "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - D1 16; D2 256; id \"start; a\";\n\
         \n\
         8/3k4/5R2/8/4K3/8/8/8 b - - 0 1 D1 5; D2 0;\r\n",
    )
    .unwrap();
    let out = kabir()
        .args(["perft", "--variant", "shatranj", "--epd"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "1: D1 16 ok\n1: D2 256 ok\n3: D1 5 ok\n3: D2 0 ok\n256\n"
    );
    std::fs::write(
        &path,
        "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - D1 17;\nnot a position\n",
    )
    .unwrap();
    let out = kabir()
        .args(["perft", "--variant", "shatranj", "--epd"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("perft.epd:1: depth 1: 16 leaf nodes where the line expects 17"),
        "{err}"
    );
    assert!(
        err.contains("perft.epd:2:15: an EPD line starts with four position fields"),
        "{err}"
    );
}

/// A position string with EPD operations is read wherever a position string is.
#[test]
fn epd_lines_where_position_strings_are() {
    let out = kabir()
        .args(["perft", "--variant", "shatranj", "--fen"])
        .arg(r#"rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - bm e3; id "x;y"; c0 "z";"#)
        .arg("2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "256\n");
    // A mistake in a plain position string is still named as such.
    kabir()
        .args([
            "perft",
            "--variant",
            "shatranj",
            "--fen",
            "8/8/8/4k3/8/8/8/4K3 w - - 3 x",
            "1",
        ])
        .assert()
        .failure()
        .stderr(predicates::str::contains("is not a move number"));
}
