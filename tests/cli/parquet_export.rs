//! `kabir export --format parquet`, run as a user runs it: from game files and from a
//! database, the tables read back, the SQL recipes of docs/SCALE.md run with DuckDB and their
//! answers compared with `kabir explore`, `stats` and `search` (`tests/scale/recipes.py`),
//! and what is refused.

use std::fs;
use std::path::PathBuf;

use assert_cmd::Command;
use predicates::prelude::*;

fn kabir() -> Command {
    Command::cargo_bin("kabir").unwrap()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn samples() -> Vec<String> {
    let mut out: Vec<String> = fs::read_dir(root().join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .map(|p| p.display().to_string())
        .collect();
    out.sort();
    out
}

/// Random games of a variant into `dir/NAME.pgn`.
#[cfg(feature = "parquet")]
fn generate(dir: &std::path::Path, variant: &str, games: u32, seed: u32) -> String {
    let path = dir.join(format!("{variant}.pgn"));
    kabir()
        .args(["generate", "--variant", variant, "-n", &games.to_string()])
        .args(["--seed", &seed.to_string(), "-o"])
        .arg(&path)
        .assert()
        .success();
    path.display().to_string()
}

#[cfg(not(feature = "parquet"))]
#[test]
fn without_the_feature_parquet_export_says_how_to_build_it() {
    let dir = tempfile::tempdir().unwrap();
    kabir()
        .args(["export", "--format", "parquet", "--out"])
        .arg(dir.path().join("out"))
        .args(samples())
        .assert()
        .failure()
        .stderr(predicate::str::contains("--features parquet"));
    assert!(!dir.path().join("out").exists());
}

#[cfg(feature = "parquet")]
mod with_parquet {
    use super::*;

    use std::path::Path;

    use std::collections::BTreeMap;

    use kabir::columnar::arrow_array::{Array, Int64Array, StringArray};
    use kabir::columnar::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    /// A column of a table file, as i64 or strings.
    fn column<T: Clone>(path: &Path, name: &str, get: impl Fn(&dyn Array, usize) -> T) -> Vec<T> {
        let file = fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        let mut out = Vec::new();
        for batch in reader {
            let batch = batch.unwrap();
            let col = batch.column_by_name(name).unwrap();
            for i in 0..col.len() {
                out.push(get(col.as_ref(), i));
            }
        }
        out
    }

    fn ints(path: &Path, name: &str) -> Vec<i64> {
        column(path, name, |a, i| {
            a.as_any().downcast_ref::<Int64Array>().unwrap().value(i)
        })
    }

    fn strings(path: &Path, name: &str) -> Vec<String> {
        column(path, name, |a, i| {
            a.as_any()
                .downcast_ref::<StringArray>()
                .unwrap()
                .value(i)
                .to_string()
        })
    }

    /// Every file under `dir`, relative to it.
    fn files(dir: &Path) -> Vec<String> {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            for e in fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, base, out);
                } else {
                    out.push(p.strip_prefix(base).unwrap().display().to_string());
                }
            }
        }
        let mut out = Vec::new();
        if dir.exists() {
            walk(dir, dir, &mut out);
        }
        out.sort();
        out
    }

    /// The recipes of docs/SCALE.md, run with DuckDB on an export of generated games and the
    /// samples, answer as `kabir explore`, `search` and `stats` do on a database of the same
    /// games; the export from the files and the one from the database hold the same rows.
    #[test]
    fn sql_recipes_answer_as_kabir_does() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut inputs = vec![
            generate(d, "shatranj", 2500, 11),
            generate(d, "tamerlane", 600, 12),
            generate(d, "knavish-shatranj", 300, 13),
        ];
        inputs.extend(samples());
        let db = d.join("games.db");
        kabir()
            .args(["import", "-q", "--db"])
            .arg(&db)
            .args(&inputs)
            .assert()
            .success();
        let from_files = d.join("from-files");
        kabir()
            .args(["export", "--format", "parquet", "-q", "--out"])
            .arg(&from_files)
            .args(&inputs)
            .assert()
            .success()
            .stdout(predicate::str::contains("invalid games left out: 0"));
        let from_db = d.join("from-db");
        kabir()
            .args(["export", "--format", "parquet", "--positions", "--out"])
            .arg(&from_db)
            .arg("--db")
            .arg(&db)
            .assert()
            .success();
        let out = std::process::Command::new("python3")
            .arg(root().join("tests/scale/recipes.py"))
            .arg("--kabir")
            .arg(assert_cmd::cargo::cargo_bin("kabir"))
            .arg("--db")
            .arg(&db)
            .arg("--export")
            .arg(&from_db)
            .arg("--positions")
            .arg("--same-as")
            .arg(&from_files)
            .arg("--doc")
            .arg(root().join("docs/SCALE.md"))
            .args(["--lines", "3"])
            .output()
            .expect("python3 runs (and has duckdb: python3 -m pip install duckdb)");
        assert!(
            out.status.success(),
            "the recipes differ from kabir: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let games = 2500 + 600 + 300 + samples_games(&samples());
        assert_eq!(summary["games"], games);
        assert_eq!(summary["same_as"], true);
        assert_eq!(summary["views"], serde_json::json!(["moves", "positions"]));
        assert!(summary["positions"].as_u64().unwrap() > 50, "{summary}");
        assert!(
            summary["games_at_positions"].as_u64().unwrap() > games,
            "{summary}"
        );
    }

    /// The games of the sample files (all valid).
    fn samples_games(files: &[String]) -> u64 {
        files
            .iter()
            .map(|f| {
                fs::read_to_string(f)
                    .unwrap()
                    .lines()
                    .filter(|l| l.starts_with("[Event "))
                    .count() as u64
            })
            .sum()
    }

    /// From files: valid games numbered from 1 in input order, invalid ones reported and left
    /// out (exit status 1), every move and position written.
    #[test]
    fn games_from_files_are_numbered_in_input_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let good = "[Event \"a\"]\n[Variant \"shatranj\"]\n[Result \"*\"]\n\n1. e3 e6 2. Nf3 *\n\n";
        let bad = "[Event \"b\"]\n[Variant \"shatranj\"]\n[Result \"*\"]\n\n1. e3 e6 2. Kxe8 *\n\n";
        let other = "[Event \"c\"]\n[White \"Ali\"]\n[Annotator \"Omar\"]\n[Variant \"shatranj\"]\n\
                     [Result \"1-0\"]\n\n1. e3 e6 1-0\n\n";
        let input = d.join("in.pgn");
        fs::write(&input, format!("{good}{bad}{other}{good}")).unwrap();
        let out = d.join("out");
        let run = kabir()
            .args(["export", "--format", "parquet", "--positions", "--out"])
            .arg(&out)
            .arg(&input)
            .assert()
            .code(1)
            .stdout(predicate::str::contains(
                "games: 3, moves: 8, positions: 11",
            ))
            .stdout(predicate::str::contains("invalid games left out: 1"))
            .stderr(predicate::str::contains("in.pgn"));
        // The summary gives each table's bytes, as the files have them.
        let size = |table: &str| {
            fs::metadata(out.join(format!("{table}/variant=shatranj/{table}.parquet")))
                .unwrap()
                .len()
        };
        let (g, m, p) = (size("games"), size("moves"), size("positions"));
        let bytes = format!("bytes: {} (games {g}, moves {m}, positions {p})", g + m + p);
        let stdout = String::from_utf8_lossy(&run.get_output().stdout).to_string();
        assert!(stdout.contains(&bytes), "{stdout}");
        assert_eq!(
            files(&out),
            [
                "games/variant=shatranj/games.parquet",
                "moves/variant=shatranj/moves.parquet",
                "positions/variant=shatranj/positions.parquet"
            ]
        );
        let games = out.join("games/variant=shatranj/games.parquet");
        assert_eq!(ints(&games, "id"), [1, 2, 3]);
        assert_eq!(strings(&games, "event"), ["a", "c", "a"]);
        assert_eq!(strings(&games, "result"), ["*", "1-0", "*"]);
        let moves = out.join("moves/variant=shatranj/moves.parquet");
        assert_eq!(ints(&moves, "game"), [1, 1, 1, 2, 2, 3, 3, 3]);
        assert_eq!(
            strings(&moves, "san"),
            ["e3", "e6", "Nf3", "e3", "e6", "e3", "e6", "Nf3"]
        );
        // Each move's position after is the next one's before, within a game.
        let before = ints(&moves, "hash_before");
        let after = ints(&moves, "hash_after");
        assert_eq!(after[0], before[1]);
        assert_eq!(before[0], before[3]);
        assert_eq!(after[2], after[7]);
        assert_eq!(after[1], after[4]);
        let positions = out.join("positions/variant=shatranj/positions.parquet");
        assert_eq!(ints(&positions, "game"), [1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3]);
    }

    /// From a database: the ids kept, only the games the conditions keep, one partition.
    #[test]
    fn conditions_and_ids_from_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let db = d.join("g.db");
        kabir()
            .args(["import", "-q", "--db"])
            .arg(&db)
            .args(samples())
            .assert()
            .success();
        let out = d.join("out");
        kabir()
            .args([
                "export",
                "--format",
                "parquet",
                "--variant",
                "tamerlane",
                "--db",
            ])
            .arg(&db)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        assert_eq!(
            files(&out),
            [
                "games/variant=tamerlane/games.parquet",
                "moves/variant=tamerlane/moves.parquet"
            ]
        );
        let search = kabir()
            .args([
                "search",
                "--variant",
                "tamerlane",
                "--limit",
                "0",
                "--format",
                "json",
            ])
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        let found: serde_json::Value = serde_json::from_slice(&search.stdout).unwrap();
        let ids: Vec<i64> = found["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_i64().unwrap())
            .collect();
        assert!(!ids.is_empty());
        let games = out.join("games/variant=tamerlane/games.parquet");
        assert_eq!(ints(&games, "id"), ids);
        // Every game's moves, numbered from 1.
        let moves = out.join("moves/variant=tamerlane/moves.parquet");
        let mut plies: BTreeMap<i64, i64> = BTreeMap::new();
        for g in ints(&moves, "game") {
            *plies.entry(g).or_default() += 1;
        }
        let plies_col = column(&games, "plies", |a, i| {
            a.as_any()
                .downcast_ref::<kabir::columnar::arrow_array::Int32Array>()
                .unwrap()
                .value(i) as i64
        });
        for (id, n) in ids.iter().zip(plies_col) {
            assert_eq!(plies.get(id).copied().unwrap_or(0), n, "game {id}");
        }
    }

    #[test]
    fn what_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let sample = samples()[0].clone();
        // No folder.
        kabir()
            .args(["export", "--format", "parquet", &sample])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--out DIR"));
        // Conditions on games with game files.
        kabir()
            .args(["export", "--format", "parquet", "--player", "x", "--out"])
            .arg(d.join("a"))
            .arg(&sample)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("conditions on games"));
        assert!(!d.join("a").join("games").exists());
        // Parquet options with another format.
        kabir()
            .args(["export", "--format", "csv", "--positions", &sample])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--format parquet"));
        // A folder that holds an export already: refused, and left as it was.
        let out = d.join("out");
        kabir()
            .args(["export", "--format", "parquet", "--out"])
            .arg(&out)
            .arg(&sample)
            .assert()
            .success();
        let before = files(&out);
        kabir()
            .args(["export", "--format", "parquet", "--out"])
            .arg(&out)
            .arg(&sample)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("already holds a games table"));
        assert_eq!(files(&out), before);
        // The folder is the game file the export reads, or its database: refused before
        // anything is written.
        let game_file = d.join("games.pgn");
        fs::copy(&sample, &game_file).unwrap();
        let before = fs::read(&game_file).unwrap();
        kabir()
            .args(["export", "--format", "parquet", "--out"])
            .arg(&game_file)
            .arg(&game_file)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "never writes over a file it reads",
            ))
            .stderr(predicate::str::contains("the game file"));
        assert_eq!(fs::read(&game_file).unwrap(), before);
        kabir()
            .args(["export", "--format", "parquet", "--db"])
            .arg(&game_file)
            .arg("--out")
            .arg(d.join(".").join("games.pgn"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("the database"));
        assert_eq!(fs::read(&game_file).unwrap(), before);
        // An input that cannot be read: nothing left behind.
        let out = d.join("missing");
        kabir()
            .args(["export", "--format", "parquet", "--out"])
            .arg(&out)
            .arg(&sample)
            .arg(d.join("no-such-file.pgn"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("no-such-file.pgn"));
        assert_eq!(files(&out), Vec::<String>::new());
        assert!(!out.join("games").exists());
    }
}
