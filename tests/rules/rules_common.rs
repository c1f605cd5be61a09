//! Helpers shared by the `rules_*` integration tests: positions from piece lists, move lists
//! as coordinate strings, and checks that every position used reads back unchanged.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::sync::Arc;

use kabir::rules::check_key::{KeyedPosition, check_key};
use kabir::rules::{Move, MoveKind, Position, Variant};

pub fn variant(name: &str) -> Arc<Variant> {
    kabir::variants::builtin(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn tamerlane() -> Arc<Variant> {
    variant("tamerlane")
}

pub fn shatranj() -> Arc<Variant> {
    variant("shatranj")
}

pub fn knavish() -> Arc<Variant> {
    variant("knavish-shatranj")
}

/// Reads a position string, which must come back unchanged from `to_fen` (every position
/// string in these tests is written in its canonical form).
pub fn pos(v: &Arc<Variant>, fen: &str) -> Position {
    let p = Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(p.to_fen(), fen, "round trip of the position string");
    assert_eq!(p.hash(), p.compute_hash(), "hash of {fen}");
    p
}

/// A board field written out from a list of `(square, piece)` pairs, using the variant's rows
/// (citadels included) from the top rank down. Piece letters as in position strings.
pub fn board(v: &Variant, pieces: &[(&str, &str)]) -> String {
    let g = v.geometry();
    let mut rows = Vec::new();
    for rank in (1..=g.ranks() as i8).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for sq in g.row(rank) {
            let name = g.name(sq);
            match pieces.iter().find(|(s, _)| *s == name) {
                Some((_, p)) => {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    row.push_str(p);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    for (s, _) in pieces {
        assert!(g.parse(s).is_some(), "no square {s}");
    }
    rows.join("/")
}

/// A whole position string: board, side to move (`w`/`b`), swap field, counters `0 1`.
pub fn fen(v: &Variant, pieces: &[(&str, &str)], side: &str, swaps: &str) -> String {
    format!("{} {side} {swaps} - 0 1", board(v, pieces))
}

/// Builds and reads a position from a piece list.
pub fn setup(v: &Arc<Variant>, pieces: &[(&str, &str)], side: &str, swaps: &str) -> Position {
    pos(v, &fen(v, pieces, side, swaps))
}

/// Every legal move as a coordinate string.
pub fn moves(p: &Position) -> BTreeSet<String> {
    let list = p.legal_moves();
    let set: BTreeSet<String> = list.iter().map(|m| m.to_uci(p)).collect();
    assert_eq!(
        set.len(),
        list.len(),
        "two moves with one coordinate string"
    );
    set
}

/// The legal moves from one square, as coordinate strings.
pub fn moves_from(p: &Position, from: &str) -> BTreeSet<String> {
    moves(p)
        .into_iter()
        .filter(|m| m.starts_with(from) && !m[from.len()..].starts_with(char::is_numeric))
        .collect()
}

/// The squares (with promotion suffixes) reached by the legal moves from one square.
pub fn dests(p: &Position, from: &str) -> BTreeSet<String> {
    moves_from(p, from)
        .into_iter()
        .map(|m| m[from.len()..].to_string())
        .collect()
}

/// A set of strings from a space-separated list.
pub fn set(list: &str) -> BTreeSet<String> {
    list.split_whitespace().map(str::to_string).collect()
}

/// The legal move with a coordinate string; panics if there is none.
pub fn mv(p: &Position, uci: &str) -> Move {
    Move::from_uci(uci, p).unwrap_or_else(|| panic!("{uci} is not legal in {}", p.to_fen()))
}

/// The position after a legal move given as a coordinate string. The result must read back
/// from its own position string and have a consistent hash and check key (the key kept move
/// by move is the key computed from scratch).
pub fn play(p: &Position, uci: &str) -> Position {
    let m = mv(p, uci);
    let after = p.after(m);
    assert_eq!(after.hash(), after.compute_hash(), "hash after {uci}");
    let mut keyed = KeyedPosition::new(p, None);
    keyed.play(m);
    assert_eq!(keyed.key(), check_key(&after), "check key after {uci}");
    let again = Position::from_fen(p.variant(), &after.to_fen())
        .unwrap_or_else(|e| panic!("{}: {e}", after.to_fen()));
    assert_eq!(again.to_fen(), after.to_fen());
    after
}

/// Plays several moves in turn.
pub fn play_all(p: &Position, ucis: &str) -> Position {
    ucis.split_whitespace().fold(p.clone(), |p, m| play(&p, m))
}

/// The board field of a position (first field of its string).
pub fn board_of(p: &Position) -> String {
    p.to_fen().split(' ').next().unwrap_or("").to_string()
}

/// The legal moves of one kind, as coordinate strings.
pub fn moves_of_kind(p: &Position, kind: MoveKind) -> BTreeSet<String> {
    p.legal_moves()
        .iter()
        .filter(|m| m.kind == kind)
        .map(|m| m.to_uci(p))
        .collect()
}

/// perft with a fresh copy of the position.
pub fn perft(p: &Position, depth: u32) -> u64 {
    kabir::rules::perft(&mut p.clone(), depth)
}

/// The symbol (with primes, lowercase for Black) of the piece on a square, or "" if empty.
pub fn at(p: &Position, square: &str) -> String {
    let v = p.variant();
    let sq = v
        .geometry()
        .parse(square)
        .unwrap_or_else(|| panic!("no square {square}"));
    match p.piece_at(sq) {
        None => String::new(),
        Some(pc) => {
            let s = v.kind(pc.kind).symbol.clone();
            if pc.color == kabir::rules::Color::White {
                s
            } else {
                s.to_ascii_lowercase()
            }
        }
    }
}
