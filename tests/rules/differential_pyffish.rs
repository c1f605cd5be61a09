//! kabir's rules against Fairy-Stockfish's answers, recorded in `tests/differential/golden.tsv`
//! by `tests/differential/compare.py --write-golden` (see `tests/differential/README.md`).
//!
//! For each recorded position: the same legal moves, and the same verdict (game going on, or
//! over by checkmate, stalemate or bare king, with the same result). For a few positions: the
//! same perft total. Needs no Python: the live comparison is the script itself.

use std::collections::HashMap;
use std::sync::Arc;

use kabir::rules::{Outcome, Position, Status, Termination, Variant, perft};

const GOLDEN: &str = include_str!("../differential/golden.tsv");

/// The built-in variants by id, each compiled once.
#[derive(Default)]
struct Variants(HashMap<String, Arc<Variant>>);

impl Variants {
    fn get(&mut self, name: &str) -> Arc<Variant> {
        self.0
            .entry(name.to_string())
            .or_insert_with(|| {
                kabir::variants::builtin(name).unwrap_or_else(|e| panic!("variant {name}: {e}"))
            })
            .clone()
    }
}

/// kabir's verdict in the golden file's words.
fn verdict(status: Status) -> String {
    match status {
        Status::Ongoing => "ongoing".to_string(),
        Status::Over {
            termination,
            outcome,
        } => {
            let why = match termination {
                Termination::Checkmate => "checkmate",
                Termination::Stalemate => "stalemate",
                Termination::BareKing => "bare-king",
                other => other.as_str(),
            };
            let result = match outcome {
                Outcome::WhiteWins => "1-0",
                Outcome::BlackWins => "0-1",
                Outcome::Draw => "1/2-1/2",
            };
            format!("{why} {result}")
        }
    }
}

fn rows() -> impl Iterator<Item = (usize, Vec<&'static str>)> {
    GOLDEN
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.split('\t').collect()))
}

#[test]
fn legal_moves_and_verdicts_match_fairy_stockfish() {
    let mut variants = Variants::default();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (line, cols) in rows().filter(|(_, c)| c[0] != "perft") {
        let [name, fen, expected_verdict, expected_moves] = cols[..] else {
            panic!(
                "golden.tsv line {line}: expected 4 columns, got {}",
                cols.len()
            );
        };
        let pos = Position::from_fen(&variants.get(name), fen)
            .unwrap_or_else(|e| panic!("golden.tsv line {line}: {fen}: {e}"));
        let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_uci(&pos)).collect();
        moves.sort();
        let mut expected: Vec<&str> = expected_moves.split_whitespace().collect();
        expected.sort();
        let got_verdict = verdict(pos.status());
        if moves != expected || got_verdict != expected_verdict {
            let only_kabir: Vec<&String> = moves
                .iter()
                .filter(|m| !expected.contains(&m.as_str()))
                .collect();
            let only_ffish: Vec<&&str> = expected
                .iter()
                .filter(|m| !moves.iter().any(|k| k == **m))
                .collect();
            failures.push(format!(
                "line {line} ({name}) {fen}\n  verdict: kabir {got_verdict:?}, Fairy-Stockfish \
                 {expected_verdict:?}\n  only kabir: {only_kabir:?}\n  only Fairy-Stockfish: \
                 {only_ffish:?}"
            ));
        }
        checked += 1;
    }
    assert!(checked > 0, "golden.tsv has no positions");
    assert!(
        failures.is_empty(),
        "{} of {checked} positions differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn perft_matches_fairy_stockfish() {
    let mut variants = Variants::default();
    let mut checked = 0;
    for (line, cols) in rows().filter(|(_, c)| c[0] == "perft") {
        let [_, name, fen, depth, expected] = cols[..] else {
            panic!(
                "golden.tsv line {line}: expected 5 columns, got {}",
                cols.len()
            );
        };
        let mut pos = Position::from_fen(&variants.get(name), fen)
            .unwrap_or_else(|e| panic!("golden.tsv line {line}: {fen}: {e}"));
        let depth: u32 = depth.parse().unwrap();
        let expected: u64 = expected.parse().unwrap();
        assert_eq!(
            perft(&mut pos, depth),
            expected,
            "golden.tsv line {line} ({name}): perft({depth}) of {fen}"
        );
        checked += 1;
    }
    assert!(checked > 0, "golden.tsv has no perft rows");
}
