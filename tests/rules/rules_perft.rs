//! Perft figures from `tests/data/rules/perft.txt`.

use crate::rules_common::*;
use kabir::rules::Position;

#[test]
fn perft_figures() {
    let text = include_str!("../data/rules/perft.txt");
    let mut checked = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(parts.len(), 3, "{line}");
        let v = variant(parts[0]);
        let p = if parts[1] == "start" {
            Position::start(&v)
        } else {
            pos(&v, parts[1])
        };
        for figure in parts[2].split_whitespace() {
            let (depth, count) = figure.split_once('=').expect(figure);
            let depth: u32 = depth.parse().expect(depth);
            let count: u64 = count.parse().expect(count);
            assert_eq!(perft(&p, depth), count, "{line}: depth {depth}");
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} figures read");
}
