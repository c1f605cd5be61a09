//! Perft of the variants added after Tamerlane, checked against a second, deliberately slow
//! move generator written from the rule text (RULES.md, "Tamerlane variants of Eric Greenwood"
//! and "Grand Shatranj N W") and nothing else: it does not read the definition files or use any
//! of kabir's tables. Each piece is a small function saying in words-turned-code where it may
//! go; the check rule is tested by making the move on a copy of the board and asking whether
//! any enemy piece could capture the king.
//!
//! The expected figures below were obtained by running this generator; kabir's own perft must
//! give the same. The slow generator models only what can happen within three plies of the
//! start: ordinary moves and captures, the pawn's double step, and the check rule with one
//! royal piece. It panics rather than miscounts if a position needs more (a side in check, who
//! might swap its king; a pawn on its last rank; a piece next to a citadel it could enter).

use std::collections::HashMap;

use kabir::rules::{Color, Position, perft};

type Sq = (i32, i32);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Rules {
    Greenwood(u8),
    GrandShatranjNw,
}

#[derive(Clone)]
struct Board {
    rules: Rules,
    files: i32,
    ranks: i32,
    /// Square (file, rank from 1) -> (white?, piece name as in RULES.md).
    cells: HashMap<Sq, (bool, &'static str)>,
    white_to_move: bool,
}

impl Board {
    fn on(&self, (f, r): Sq) -> bool {
        (1..=self.files).contains(&f) && (1..=self.ranks).contains(&r)
    }

    fn at(&self, s: Sq) -> Option<(bool, &'static str)> {
        self.cells.get(&s).copied()
    }
}

/// A destination and whether the move may go there: to an empty square, to capture, or both.
#[derive(Clone, Copy, PartialEq)]
enum May {
    Move,
    Capture,
    Both,
}

const ORTHO: [Sq; 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAG: [Sq; 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];
const KNIGHT: [Sq; 8] = [
    (1, 2),
    (2, 1),
    (-1, 2),
    (-2, 1),
    (1, -2),
    (2, -1),
    (-1, -2),
    (-2, -1),
];

fn add((f, r): Sq, (df, dr): Sq, n: i32) -> Sq {
    (f + df * n, r + dr * n)
}

/// Where the piece on `from` could go, before the check rule: (destination, what it may do).
fn destinations(b: &Board, from: Sq) -> Vec<(Sq, May)> {
    let (white, name) = b.at(from).expect("a piece");
    let fwd = if white { 1 } else { -1 };
    let mut out = Vec::new();
    // A jump: the squares between are never looked at.
    let jump = |out: &mut Vec<(Sq, May)>, v: Sq, may: May| {
        let to = add(from, v, 1);
        if b.on(to) {
            out.push((to, may));
        }
    };
    // A slide of `min..=max` steps; every square passed must be empty.
    let slide = |out: &mut Vec<(Sq, May)>, v: Sq, min: i32, max: i32, may: May| {
        for n in 1..=max {
            let to = add(from, v, n);
            if !b.on(to) {
                break;
            }
            if n >= min {
                out.push((to, may));
            }
            if b.at(to).is_some() {
                break;
            }
        }
    };
    // The Oliphant's and Lightning Warmachine's two stages along `v`: each stage a step or a
    // two-square jump; an occupied landing square ends the move there (a capture, if enemy).
    let two_stage = |out: &mut Vec<(Sq, May)>, v: Sq| {
        for first in 1..=2 {
            let mid = add(from, v, first);
            if !b.on(mid) {
                continue;
            }
            out.push((mid, May::Both));
            if b.at(mid).is_some() {
                continue;
            }
            for second in 1..=2 {
                let to = add(mid, v, second);
                if b.on(to) {
                    out.push((to, May::Both));
                }
            }
        }
    };
    let greenwood = match b.rules {
        Rules::Greenwood(n) => n,
        Rules::GrandShatranjNw => 0,
    };
    match name {
        "king" | "guard" => {
            for v in ORTHO.iter().chain(&DIAG) {
                jump(&mut out, *v, May::Both);
            }
        }
        "general" => {
            for v in DIAG {
                jump(&mut out, v, May::Both);
            }
            if greenwood >= 2 {
                // "one square straight back"
                jump(&mut out, (0, -fwd), May::Both);
            }
        }
        "vizir" => {
            for v in ORTHO {
                jump(&mut out, v, May::Both);
            }
        }
        "giraffe" => {
            let least = match greenwood {
                1 => 3,
                4 => 1,
                _ => 2,
            };
            for (df, dr) in DIAG {
                // One diagonal step onto an empty square, then straight on outward.
                let corner = add(from, (df, dr), 1);
                if b.on(corner) && b.at(corner).is_none() {
                    for v in [(df, 0), (0, dr)] {
                        for n in 1.. {
                            let to = add(corner, v, n);
                            if !b.on(to) {
                                break;
                            }
                            if n >= least {
                                out.push((to, May::Both));
                            }
                            if b.at(to).is_some() {
                                break;
                            }
                        }
                    }
                }
            }
            if greenwood == 5 {
                // Two or more straight over empty squares, then one diagonal step outward.
                for v in ORTHO {
                    for n in 2.. {
                        let corner = add(from, v, n);
                        if !b.on(corner) {
                            break;
                        }
                        let passed_empty = (1..=n).all(|k| b.at(add(from, v, k)).is_none());
                        if !passed_empty {
                            break;
                        }
                        let sides = if v.0 == 0 {
                            [(1, 0), (-1, 0)]
                        } else {
                            [(0, 1), (0, -1)]
                        };
                        for s in sides {
                            let to = (corner.0 + v.0 + s.0, corner.1 + v.1 + s.1);
                            if b.on(to) {
                                out.push((to, May::Both));
                            }
                        }
                    }
                }
            }
        }
        "picket" => {
            let min = if greenwood >= 2 { 1 } else { 2 };
            for v in DIAG {
                slide(&mut out, v, min, 99, May::Both);
            }
        }
        "knight" => {
            for v in KNIGHT {
                jump(&mut out, v, May::Both);
            }
        }
        "rook" => {
            for v in ORTHO {
                slide(&mut out, v, 1, 99, May::Both);
            }
        }
        "queen" => {
            for v in ORTHO.iter().chain(&DIAG) {
                slide(&mut out, *v, 1, 99, May::Both);
            }
        }
        "elephant" => {
            for (df, dr) in DIAG {
                jump(&mut out, (2 * df, 2 * dr), May::Both);
                if greenwood >= 2 {
                    jump(&mut out, (df, dr), May::Both);
                }
            }
        }
        "camel" => {
            for (df, dr) in KNIGHT {
                // (3, 1): a knight's move stretched along its longer leg.
                let v = if df.abs() == 2 {
                    (df / 2 * 3, dr)
                } else {
                    (df, dr / 2 * 3)
                };
                jump(&mut out, v, May::Both);
            }
        }
        "war engine" => {
            for (df, dr) in ORTHO {
                jump(&mut out, (2 * df, 2 * dr), May::Both);
                if greenwood >= 2 {
                    jump(&mut out, (df, dr), May::Both);
                }
            }
        }
        "earl" => {
            for v in ORTHO {
                slide(&mut out, v, 1, 99, May::Both);
            }
            for v in DIAG {
                slide(&mut out, v, 1, 4, May::Move);
            }
        }
        "baron" => {
            for v in KNIGHT {
                jump(&mut out, v, May::Both);
            }
            for v in ORTHO.iter().chain(&DIAG) {
                jump(&mut out, *v, May::Move);
            }
        }
        "archbishop" => {
            for v in DIAG {
                slide(&mut out, v, 1, 99, May::Both);
            }
            for v in ORTHO {
                jump(&mut out, v, May::Move);
            }
        }
        "jumping general" => {
            for (df, dr) in ORTHO.iter().chain(&DIAG) {
                jump(&mut out, (*df, *dr), May::Both);
                jump(&mut out, (2 * df, 2 * dr), May::Both);
            }
        }
        "minister" => {
            for (df, dr) in ORTHO {
                jump(&mut out, (df, dr), May::Both);
                jump(&mut out, (2 * df, 2 * dr), May::Both);
            }
            for v in KNIGHT {
                jump(&mut out, v, May::Both);
            }
        }
        "high priestess" => {
            for (df, dr) in DIAG {
                jump(&mut out, (df, dr), May::Both);
                jump(&mut out, (2 * df, 2 * dr), May::Both);
            }
            for v in KNIGHT {
                jump(&mut out, v, May::Both);
            }
        }
        "oliphant" => {
            for v in DIAG {
                two_stage(&mut out, v);
            }
            for v in ORTHO {
                jump(&mut out, v, May::Move);
            }
        }
        "lightning warmachine" => {
            for v in ORTHO {
                two_stage(&mut out, v);
            }
        }
        pawn if pawn.starts_with("pawn") => {
            jump(&mut out, (0, fwd), May::Move);
            jump(&mut out, (1, fwd), May::Capture);
            jump(&mut out, (-1, fwd), May::Capture);
            let start_rank = if white { 3 } else { b.ranks - 2 };
            if b.rules == Rules::GrandShatranjNw
                && from.1 == start_rank
                && b.at(add(from, (0, fwd), 1)).is_none()
            {
                jump(&mut out, (0, 2 * fwd), May::Move);
            }
        }
        other => panic!("no rule for {other}"),
    }
    out
}

/// The moves of the side to move that obey the movement rules, before the check rule.
fn pseudo_moves(b: &Board) -> Vec<(Sq, Sq)> {
    let mut moves = Vec::new();
    for (&from, &(white, _)) in &b.cells {
        if white != b.white_to_move {
            continue;
        }
        let mut seen = Vec::new();
        for (to, may) in destinations(b, from) {
            let ok = match b.at(to) {
                None => may != May::Capture,
                Some((w, _)) => w != white && may != May::Move,
            };
            if ok && !seen.contains(&to) {
                seen.push(to);
                moves.push((from, to));
            }
        }
    }
    moves
}

fn king_of(b: &Board, white: bool) -> Sq {
    *b.cells
        .iter()
        .find(|&(_, &(w, n))| w == white && n == "king")
        .expect("a king")
        .0
}

fn attacked(b: &Board, sq: Sq, by_white: bool) -> bool {
    let mut enemy = b.clone();
    enemy.white_to_move = by_white;
    pseudo_moves(&enemy).iter().any(|&(_, to)| to == sq)
}

fn legal_moves(b: &Board) -> Vec<(Sq, Sq)> {
    let us = b.white_to_move;
    assert!(
        !attacked(b, king_of(b, us), !us),
        "a side in check: the king swap is not modelled here"
    );
    pseudo_moves(b)
        .into_iter()
        .filter(|&(from, to)| {
            let after = play(b, from, to);
            !attacked(&after, king_of(&after, us), !us)
        })
        .collect()
}

fn play(b: &Board, from: Sq, to: Sq) -> Board {
    let mut after = b.clone();
    let piece = after.cells.remove(&from).expect("a piece");
    let last = if piece.0 { b.ranks } else { 1 };
    assert!(
        !(piece.1.starts_with("pawn") && to.1 == last),
        "a pawn on its last rank: promotion is not modelled here"
    );
    if matches!(b.rules, Rules::Greenwood(_)) {
        // Citadels lie beside l2 and a9; only royals may enter the enemy one.
        let near = [(12, 1), (12, 2), (12, 3), (1, 8), (1, 9), (1, 10)];
        assert!(
            !(piece.1 == "king" && near.contains(&to)),
            "a king next to a citadel: citadels are not modelled here"
        );
    }
    after.cells.insert(to, piece);
    after.white_to_move = !b.white_to_move;
    after
}

fn slow_perft(b: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal_moves(b);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&(from, to)| slow_perft(&play(b, from, to), depth - 1))
        .sum()
}

fn square(name: &str) -> Sq {
    let f = name.as_bytes()[0] - b'a' + 1;
    let r: i32 = name[1..].parse().unwrap();
    (f as i32, r)
}

/// A start position from White's pieces as RULES.md lists them; Black is White rotated 180
/// degrees (Greenwood) or mirrored across the middle (Grand Shatranj N W).
fn setup(rules: Rules, files: i32, ranks: i32, white: &[(&str, &'static str)]) -> Board {
    let mut cells = HashMap::new();
    for &(sq, name) in white {
        let (f, r) = square(sq);
        cells.insert((f, r), (true, name));
        let black = match rules {
            Rules::Greenwood(_) => (files + 1 - f, ranks + 1 - r),
            Rules::GrandShatranjNw => (f, ranks + 1 - r),
        };
        cells.insert(black, (false, name));
    }
    Board {
        rules,
        files,
        ranks,
        cells,
        white_to_move: true,
    }
}

fn greenwood_start(n: u8) -> Board {
    let extra = if n >= 3 { "queen" } else { "guard" };
    let pawn_extra = if n >= 3 {
        "pawn of queens"
    } else {
        "pawn of guards"
    };
    let white = [
        ("a1", "elephant"),
        ("c1", "camel"),
        ("e1", "war engine"),
        ("h1", "war engine"),
        ("j1", "camel"),
        ("l1", "elephant"),
        ("a2", "rook"),
        ("b2", "knight"),
        ("c2", "picket"),
        ("d2", "giraffe"),
        ("e2", "general"),
        ("f2", extra),
        ("g2", "king"),
        ("h2", "vizir"),
        ("i2", "giraffe"),
        ("j2", "picket"),
        ("k2", "knight"),
        ("l2", "rook"),
        ("a3", "pawn of pawns"),
        ("b3", "pawn of war engines"),
        ("c3", "pawn of camels"),
        ("d3", "pawn of elephants"),
        ("e3", "pawn of generals"),
        ("f3", pawn_extra),
        ("g3", "pawn of kings"),
        ("h3", "pawn of vizirs"),
        ("i3", "pawn of giraffes"),
        ("j3", "pawn of pickets"),
        ("k3", "pawn of knights"),
        ("l3", "pawn of rooks"),
    ];
    setup(Rules::Greenwood(n), 12, 10, &white)
}

fn grand_shatranj_start() -> Board {
    let mut white = vec![
        ("a1", "earl"),
        ("b2", "baron"),
        ("c2", "archbishop"),
        ("d2", "jumping general"),
        ("e2", "king"),
        ("f2", "minister"),
        ("g2", "high priestess"),
        ("h2", "oliphant"),
        ("i2", "knight"),
        ("j1", "lightning warmachine"),
    ];
    let pawns = ["a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3", "i3", "j3"];
    white.extend(pawns.iter().map(|&s| (s, "pawn")));
    setup(Rules::GrandShatranjNw, 10, 10, &white)
}

/// kabir's start position must hold the same pieces as the one built from the rule text.
fn assert_same_start(id: &str, slow: &Board) -> Position {
    let v = kabir::variants::builtin(id).unwrap();
    let pos = Position::start(&v);
    let g = v.geometry();
    let mut count = 0;
    for sq in g.squares() {
        let (f, r) = g.coords(sq);
        let kabir_piece = pos
            .piece_at(sq)
            .map(|p| (p.color == Color::White, v.kind(p.kind).name.to_lowercase()));
        let slow_piece = slow
            .at((f as i32, r as i32))
            .map(|(w, n)| (w, n.to_string()));
        assert_eq!(kabir_piece, slow_piece, "{id}: {}", g.name(sq));
        count += usize::from(kabir_piece.is_some());
    }
    assert_eq!(count, slow.cells.len(), "{id}: piece count");
    pos
}

fn check(id: &str, slow: Board, expected: &[u64]) {
    let mut pos = assert_same_start(id, &slow);
    for (i, &n) in expected.iter().enumerate() {
        let depth = i as u32 + 1;
        assert_eq!(slow_perft(&slow, depth), n, "{id}: slow perft({depth})");
        assert_eq!(perft(&mut pos, depth), n, "{id}: kabir perft({depth})");
    }
}

#[test]
fn greenwood_1_start() {
    check(
        "tamerlane-greenwood-1",
        greenwood_start(1),
        &[30, 900, 27_840],
    );
}

#[test]
fn greenwood_2_start() {
    check(
        "tamerlane-greenwood-2",
        greenwood_start(2),
        &[38, 1_444, 55_442],
    );
}

#[test]
fn greenwood_3_start() {
    check(
        "tamerlane-greenwood-3",
        greenwood_start(3),
        &[38, 1_444, 55_782],
    );
}

#[test]
fn greenwood_4_start() {
    check(
        "tamerlane-greenwood-4",
        greenwood_start(4),
        &[38, 1_444, 56_086],
    );
}

#[test]
fn greenwood_5_start() {
    check(
        "tamerlane-greenwood-5",
        greenwood_start(5),
        &[38, 1_444, 55_782],
    );
}

#[test]
fn grand_shatranj_nw_start() {
    check(
        "grand-shatranj-nw",
        grand_shatranj_start(),
        &[77, 5_928, 443_723],
    );
}
