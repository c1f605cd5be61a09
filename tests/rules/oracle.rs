//! A slow move generator written straight from the rules (`docs/RULES.md`) and the variant
//! definition, used only to check the real one. It shares nothing with `src/rules/movegen.rs`
//! or the compiled movement tables: every path is walked square by square from the
//! definition's vectors, and the check rule is tested by asking, for every enemy piece,
//! whether one of its capture paths reaches the royal. Only `Position::play_unchecked` (to
//! see the position after a move) and the board accessors are borrowed from the library.
#![allow(dead_code)]

use kabir::rules::Move;
use kabir::rules::{
    Color, LegDef, MoveDef, MoveKind, MoveMode, MovesRef, PieceKind, Position, PromotionRule,
    Square, Symmetry, Variant,
};

/// The moves of a piece kind as written in the definition.
fn move_defs(variant: &Variant, kind: PieceKind) -> &[MoveDef] {
    let def = variant.definition();
    let base = &variant.kind(variant.kind(kind).base).id;
    let piece = def
        .pieces
        .iter()
        .find(|p| &p.id == base)
        .unwrap_or_else(|| panic!("no definition for {base}"));
    match &piece.moves {
        MovesRef::Named(name) => &def.movements[name],
        MovesRef::Inline(list) => list,
    }
}

/// Every image of a vector under a symmetry, the vector itself first.
fn images(sym: Symmetry, (x, y): (i8, i8)) -> Vec<(i8, i8)> {
    let all = [
        (x, y),
        (-x, y),
        (x, -y),
        (-x, -y),
        (y, x),
        (-y, x),
        (y, -x),
        (-y, -x),
    ];
    let n = match sym {
        Symmetry::All => 8,
        Symmetry::MirrorBoth => 4,
        Symmetry::Mirror => 2,
        Symmetry::None => 1,
    };
    all[..n].to_vec()
}

/// The legs of a rule as (step, least count, most count).
fn legs(def: &MoveDef, longest: u8) -> Vec<((i8, i8), u8, u8)> {
    if let Some([x, y]) = def.leap {
        vec![((x, y), 1, 1)]
    } else if let Some([x, y]) = def.slide {
        vec![((x, y), def.min.unwrap_or(1), def.max.unwrap_or(longest))]
    } else {
        let list: &[LegDef] = def.legs.as_deref().unwrap_or(&[]);
        list.iter()
            .map(|l| {
                let (min, max) = match (l.min, l.max) {
                    (None, None) => (1, 1),
                    (Some(m), None) => (m, longest),
                    (None, Some(m)) => (1, m),
                    (Some(a), Some(b)) => (a, b),
                };
                ((l.step[0], l.step[1]), min, max)
            })
            .collect()
    }
}

/// Where the piece on `from` of `color` can go by one rule, for every count of every leg:
/// (destination, mode). Every square passed on the way must be an empty square of the main
/// board; the destination may be any square, a citadel included.
fn rule_targets(pos: &Position, from: Square, color: Color, def: &MoveDef) -> Vec<Square> {
    let g = pos.variant().geometry();
    if let Some(r) = def.from_rank {
        let rank = g.coords(from).1;
        if !g.is_main(from) || rank != g.relative_rank(color, r as i8) {
            return Vec::new();
        }
    }
    let longest = g.files().max(g.ranks()) + 2;
    let forward: i16 = if color == Color::White { 1 } else { -1 };
    let mut out = Vec::new();
    let base = legs(def, longest);
    // All images of a rule apply the same rotation to every leg.
    for image in 0..images(def.symmetry, (0, 0)).len() {
        let path: Vec<((i8, i8), u8, u8)> = base
            .iter()
            .map(|&(v, min, max)| (images(def.symmetry, v)[image], min, max))
            .collect();
        let mut counts: Vec<Vec<u8>> = vec![Vec::new()];
        for &(_, min, max) in &path {
            counts = counts
                .into_iter()
                .flat_map(|c| {
                    (min..=max).map(move |n| {
                        let mut c = c.clone();
                        c.push(n);
                        c
                    })
                })
                .collect();
        }
        'counts: for c in counts {
            let (mut f, mut r) = {
                let (f, r) = g.coords(from);
                (f as i16, r as i16)
            };
            let mut visited: Vec<Square> = Vec::new();
            for (&((dx, dy), _, _), &n) in path.iter().zip(&c) {
                for _ in 0..n {
                    f += dx as i16;
                    r += dy as i16 * forward;
                    let (Ok(fi), Ok(ri)) = (i8::try_from(f), i8::try_from(r)) else {
                        continue 'counts;
                    };
                    match g.at(fi, ri) {
                        Some(sq) => visited.push(sq),
                        None => continue 'counts,
                    }
                }
            }
            let Some((&to, passed)) = visited.split_last() else {
                continue;
            };
            if to == from {
                continue;
            }
            if passed
                .iter()
                .all(|&sq| g.is_main(sq) && pos.piece_at(sq).is_none())
            {
                out.push(to);
            }
        }
    }
    out
}

/// A waiting pawn: a pawn of pawns after its first or second arrival, or (with promotion to
/// lost pieces) any pawn, still on its last rank.
fn is_waiting(pos: &Position, sq: Square) -> bool {
    let variant = pos.variant();
    let Some(p) = pos.piece_at(sq) else {
        return false;
    };
    let waits = match &variant.rules().pawn_of_pawns {
        Some(pp) => p.kind == pp.states[1] || p.kind == pp.states[2],
        None => variant.rules().promotion == PromotionRule::LostPieces && variant.kind(p.kind).pawn,
    };
    waits && on_last_rank(pos, sq, p.color)
}

/// How many pieces of a kind a side has on the board.
fn count(pos: &Position, color: Color, kind: PieceKind) -> usize {
    let g = pos.variant().geometry();
    g.squares()
        .filter(|&sq| {
            pos.piece_at(sq)
                .is_some_and(|p| p.color == color && p.kind == kind)
        })
        .count()
}

fn on_last_rank(pos: &Position, sq: Square, color: Color) -> bool {
    let g = pos.variant().geometry();
    let last = if color == Color::White {
        g.ranks() as i8
    } else {
        1
    };
    g.is_main(sq) && g.coords(sq).1 == last
}

/// Pieces that cannot be captured: waiting pawns of pawns and pieces in their own citadel.
fn is_immune(pos: &Position, sq: Square) -> bool {
    let g = pos.variant().geometry();
    is_waiting(pos, sq)
        || pos
            .piece_at(sq)
            .is_some_and(|p| g.citadel(sq).is_some_and(|c| c.owner == p.color))
}

/// Whether a piece of `by` could capture on `sq` by an ordinary move (pins ignored).
pub fn attacked(pos: &Position, sq: Square, by: Color) -> bool {
    let g = pos.variant().geometry();
    if !g.is_main(sq) {
        return false;
    }
    g.squares().any(|from| {
        pos.piece_at(from)
            .is_some_and(|p| p.color == by && !is_waiting(pos, from))
            && move_defs(pos.variant(), pos.piece_at(from).unwrap().kind)
                .iter()
                .filter(|d| d.mode != MoveMode::Move)
                .any(|d| rule_targets(pos, from, by, d).contains(&sq))
    })
}

/// The moves a pawn arriving with `m` makes: one per choice, or the move itself.
fn with_promotions(pos: &Position, m: Move, kind: PieceKind, out: &mut Vec<Move>) {
    let variant = pos.variant();
    if let Some(pp) = &variant.rules().pawn_of_pawns
        && let Some(i) = pp.states.iter().position(|&k| k == kind)
    {
        let next = if i < 2 {
            pp.states[i + 1]
        } else {
            pp.third_arrival
        };
        out.push(Move {
            promotion: Some(next),
            ..m
        });
        return;
    }
    let mut choices = variant.kind(kind).promotion.clone();
    if variant.rules().promotion == PromotionRule::LostPieces {
        // Only kinds the side has fewer of than at the start; with none, the pawn waits.
        let color = pos.piece_at(m.from).unwrap().color;
        let start = Position::start(variant);
        choices.retain(|&k| count(pos, color, k) < count(&start, color, k));
    }
    if choices.is_empty() {
        out.push(m);
    }
    for k in choices {
        out.push(Move {
            promotion: Some(k),
            ..m
        });
    }
}

/// The pseudo-legal ordinary moves of the piece on `from`.
fn ordinary(pos: &Position, from: Square) -> Vec<Move> {
    let variant = pos.variant();
    let g = variant.geometry();
    let Some(piece) = pos.piece_at(from) else {
        return Vec::new();
    };
    if is_waiting(pos, from) {
        return Vec::new();
    }
    let info = variant.kind(piece.kind);
    let mut out = Vec::new();
    for def in move_defs(variant, piece.kind) {
        for to in rule_targets(pos, from, piece.color, def) {
            let ok = match pos.piece_at(to) {
                None => {
                    def.mode != MoveMode::Capture
                        && match g.citadel(to) {
                            None => true,
                            Some(c) if c.owner != piece.color => info.royal,
                            Some(c) => {
                                let name = &c.name;
                                let cdef = variant
                                    .definition()
                                    .board
                                    .citadels
                                    .iter()
                                    .find(|d| &d.name == name)
                                    .unwrap();
                                cdef.allow_own
                                    .iter()
                                    .any(|id| *id == variant.kind(info.base).id)
                            }
                        }
                }
                Some(target) => {
                    def.mode != MoveMode::Move
                        && target.color != piece.color
                        && g.is_main(to)
                        && !is_immune(pos, to)
                }
            };
            let m = Move {
                from,
                to,
                kind: MoveKind::Normal,
                promotion: None,
            };
            if ok && !out.iter().any(|x: &Move| x.from == from && x.to == to) {
                if info.pawn && on_last_rank(pos, to, piece.color) {
                    with_promotions(pos, m, piece.kind, &mut out);
                } else {
                    out.push(m);
                }
            }
        }
    }
    out
}

fn royals(pos: &Position, color: Color) -> Vec<Square> {
    let variant = pos.variant();
    let g = variant.geometry();
    g.squares()
        .filter(|&sq| {
            pos.piece_at(sq)
                .is_some_and(|p| p.color == color && variant.kind(p.kind).royal)
        })
        .collect()
}

/// The check rule: after the move, a side with exactly one royal does not have it attacked.
fn keeps_royal_safe(pos: &Position, m: Move) -> bool {
    let us = pos.turn();
    let mut after = pos.clone();
    after.play_unchecked(m);
    let r = royals(&after, us);
    r.len() != 1 || !attacked(&after, r[0], !us)
}

/// Every legal move, by brute force. `Position::status_with(true)` decides whether the game
/// has ended by a rule that leaves no moves (bare king, a citadel draw).
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    if pos.status_with(true).is_over() {
        return Vec::new();
    }
    let mut out = without_swaps(pos);
    out.extend(swaps(pos, out.is_empty()));
    out.sort();
    out
}

/// The legal moves of the piece on one square, for the lift rule's "an enemy piece that has
/// no legal move" (a swap counts as a move of the king).
fn moves_from(pos: &Position, sq: Square) -> Vec<Move> {
    legal_moves(pos)
        .into_iter()
        .filter(|m| m.from == sq)
        .collect()
}

fn without_swaps(pos: &Position) -> Vec<Move> {
    let us = pos.turn();
    let variant = pos.variant();
    let g = variant.geometry();
    let mut out: Vec<Move> = g
        .squares()
        .filter(|&sq| pos.piece_at(sq).is_some_and(|p| p.color == us))
        .flat_map(|sq| ordinary(pos, sq))
        .filter(|&m| keeps_royal_safe(pos, m))
        .collect();
    let Some(pp) = variant.rules().pawn_of_pawns.clone() else {
        return out;
    };
    for from in g.squares() {
        let Some(p) = pos.piece_at(from) else {
            continue;
        };
        if p.color != us || !is_waiting(pos, from) {
            continue;
        }
        if p.kind == pp.states[2] {
            let to = pp.relocation[us];
            let m = Move {
                from,
                to,
                kind: MoveKind::Relocation,
                promotion: None,
            };
            if pos.piece_at(to).is_none() && keeps_royal_safe(pos, m) {
                out.push(m);
            }
        } else {
            out.extend(lifts(pos, from));
        }
    }
    out
}

/// Lifts of the waiting pawn of pawns on `from`: to any main square but its own, empty or
/// with a removable occupant, where its capture rules reach two enemy pieces, or one that then
/// has no legal move.
fn lifts(pos: &Position, from: Square) -> Vec<Move> {
    let us = pos.turn();
    let variant = pos.variant();
    let g = variant.geometry();
    let pawn = pos.piece_at(from).unwrap();
    let mut out = Vec::new();
    for to in g.squares() {
        if to == from || !g.is_main(to) {
            continue;
        }
        if let Some(occupant) = pos.piece_at(to)
            && (variant.kind(occupant.kind).royal || is_immune(pos, to))
        {
            continue;
        }
        let m = Move {
            from,
            to,
            kind: MoveKind::Lift,
            promotion: None,
        };
        let mut after = pos.clone();
        after.play_unchecked(m);
        // The enemy pieces the pawn attacks from `to`, on the board after the lift.
        let mut targets: Vec<Square> = Vec::new();
        for def in move_defs(variant, pawn.kind) {
            if def.mode == MoveMode::Move {
                continue;
            }
            for t in rule_targets(&after, to, us, def) {
                if after.piece_at(t).is_some_and(|p| p.color != us)
                    && g.is_main(t)
                    && !is_immune(&after, t)
                    && !targets.contains(&t)
                {
                    targets.push(t);
                }
            }
        }
        let r = royals(&after, us);
        if r.len() == 1 && attacked(&after, r[0], !us) {
            continue;
        }
        if targets.len() >= 2 || (targets.len() == 1 && moves_from(&after, targets[0]).is_empty()) {
            out.push(m);
        }
    }
    out
}

/// King swaps: once per game, when the king is attacked or the side has no other move, with
/// any own non-royal piece; the king must not stand attacked afterwards.
fn swaps(pos: &Position, no_other_move: bool) -> Vec<Move> {
    let us = pos.turn();
    let variant = pos.variant();
    let g = variant.geometry();
    let Some(kind) = variant.rules().king_swap else {
        return Vec::new();
    };
    if !pos.swap_available(us) {
        return Vec::new();
    }
    let Some(king) = g.squares().find(|&sq| {
        pos.piece_at(sq)
            .is_some_and(|p| p.color == us && p.kind == kind)
    }) else {
        return Vec::new();
    };
    if !(no_other_move || attacked(pos, king, !us)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for partner in g.squares() {
        let Some(p) = pos.piece_at(partner) else {
            continue;
        };
        if p.color != us || variant.kind(p.kind).royal {
            continue;
        }
        let m = Move {
            from: king,
            to: partner,
            kind: MoveKind::Swap,
            promotion: None,
        };
        let mut candidates = Vec::new();
        if variant.kind(p.kind).pawn
            && on_last_rank(pos, king, us)
            && !on_last_rank(pos, partner, us)
        {
            with_promotions(pos, m, p.kind, &mut candidates);
        } else {
            candidates.push(m);
        }
        for m in candidates {
            let mut after = pos.clone();
            after.play_unchecked(m);
            if !attacked(&after, partner, !us) {
                out.push(m);
            }
        }
    }
    out
}
