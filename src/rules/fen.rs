//! Position strings: FEN extended for typed pawns, primes and citadels.
//!
//! Six fields: `board side swaps ep halfmove fullmove`. See `notation-spec/` for the format;
//! for shatranj it is Fairy-Stockfish's FEN exactly.

use std::sync::Arc;

use super::color::Color;
use super::position::Position;
use super::square::Square;
use super::variant::{Piece, Variant};

/// Why a position string was refused. `column` is the 1-based character position in the string
/// where the problem was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at character {column} of the position string)")]
pub struct FenError {
    pub column: usize,
    pub message: String,
}

/// Where in the position string a problem found in the position itself lies.
enum Blame {
    /// The board as a whole (its first character).
    Board,
    /// The piece on a square.
    Square(Square),
    /// The side-to-move field.
    Side,
    /// A side's letter in the swap field.
    Swap(Color),
}

/// Why a position was refused as impossible in its variant.
fn bad(column: usize, message: impl Into<String>) -> FenError {
    FenError {
        column,
        message: message.into(),
    }
}

impl Position {
    /// Reads a position string and checks the position it describes.
    pub fn from_fen(variant: &Arc<Variant>, text: &str) -> Result<Position, FenError> {
        let mut fields = Vec::new();
        let mut start = None;
        for (i, ch) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            match (ch.is_whitespace(), start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    fields.push((s, &text[s..i]));
                    start = None;
                }
                _ => {}
            }
        }
        let col = |byte: usize| text[..byte.min(text.len())].chars().count() + 1;
        let Some(&(board_at, board)) = fields.first() else {
            return Err(bad(1, "the position string is empty"));
        };
        // Promotion to lost pieces adds a seventh field: the order in which pawns wait.
        let most = if variant.waiting_pawn_kinds != 0 {
            7
        } else {
            6
        };
        if fields.len() > most {
            return Err(bad(
                col(fields[most].0),
                format!(
                    "{} fields; a position string has at most {most}",
                    fields.len()
                ),
            ));
        }
        let mut pos = Position::empty(variant.clone());
        let columns = read_board(&mut pos, board, board_at, &col)?;

        let (side_at, side) = fields.get(1).copied().ok_or_else(|| {
            bad(
                col(text.len()),
                "the side to move is missing (expected `w` or `b`)",
            )
        })?;
        pos.turn = match side {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            _ => {
                return Err(bad(
                    col(side_at),
                    format!("side to move {side:?}; expected `w` or `b`"),
                ));
            }
        };
        if let Some(&(at, swaps)) = fields.get(2)
            && swaps != "-"
        {
            if variant.rules().king_swap.is_none() {
                return Err(bad(
                    col(at),
                    format!(
                        "{swaps:?}: {} has no king swap or castling; expected `-`",
                        variant.name()
                    ),
                ));
            }
            for (i, ch) in swaps.char_indices() {
                let c = match ch {
                    'K' => Color::White,
                    'k' => Color::Black,
                    _ => {
                        return Err(bad(
                            col(at + i),
                            format!("{ch:?} in the swap field; expected `K`, `k` or `-`"),
                        ));
                    }
                };
                if pos.swap[c.index()] {
                    return Err(bad(col(at + i), format!("{ch:?} given twice")));
                }
                pos.swap[c.index()] = true;
            }
        }
        if let Some(&(at, ep)) = fields.get(3)
            && ep != "-"
        {
            return Err(bad(
                col(at),
                format!("en passant square {ep:?}: these games have no en passant; expected `-`"),
            ));
        }
        for (n, default) in [(4usize, 0u32), (5, 1)] {
            let value = match fields.get(n) {
                Some(&(at, s)) => s.parse::<u32>().map_err(|_| {
                    bad(
                        col(at),
                        format!(
                            "{s:?} is not a {}",
                            if n == 4 {
                                "halfmove clock"
                            } else {
                                "move number"
                            }
                        ),
                    )
                })?,
                None => default,
            };
            if n == 4 {
                pos.halfmove = value;
            } else {
                pos.fullmove = value.max(1);
            }
        }
        if variant.waiting_pawn_kinds != 0 {
            read_waiting_order(&mut pos, fields.get(6).copied(), &col)?;
        }
        pos.hash = pos.compute_hash();
        pos.check_legal().map_err(|(blame, m)| {
            let column = match blame {
                Blame::Board => col(board_at),
                Blame::Square(sq) => columns[sq.index()],
                Blame::Side => col(side_at),
                Blame::Swap(c) => fields
                    .get(2)
                    .and_then(|&(at, f)| f.find(c_letter(c)).map(|i| col(at + i)))
                    .unwrap_or(1),
            };
            bad(column, m)
        })?;
        Ok(pos)
    }

    /// The position string.
    pub fn to_fen(&self) -> String {
        let variant = &*self.variant;
        let g = variant.geometry();
        let mut s = String::new();
        for rank in (1..=g.ranks() as i8).rev() {
            let mut empty = 0;
            for sq in g.row(rank) {
                match self.piece_at(sq) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let sym = &variant.kind(p.kind).symbol;
                        if p.color == Color::White {
                            s.push_str(sym);
                        } else {
                            s.push_str(&sym.to_ascii_lowercase());
                        }
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if rank > 1 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(self.turn.char());
        s.push(' ');
        let mut swaps = String::new();
        if self.swap[0] {
            swaps.push('K');
        }
        if self.swap[1] {
            swaps.push('k');
        }
        if swaps.is_empty() {
            swaps.push('-');
        }
        s.push_str(&swaps);
        s.push_str(&format!(" - {} {}", self.halfmove, self.fullmove));
        if self.queue.iter().any(|&q| q >> 8 != 0) {
            let order: Vec<&str> = Color::ALL
                .into_iter()
                .flat_map(|c| self.waiting_pawns(c))
                .map(|sq| g.name(sq))
                .collect();
            s.push(' ');
            s.push_str(&order.join(","));
        }
        s
    }

    /// Checks what a position string cannot express wrongly but may state impossibly, saying
    /// where the problem lies. Among several pieces of a kind with a limit, the one written
    /// last is blamed.
    fn check_legal(&self) -> Result<(), (Blame, String)> {
        let variant = &*self.variant;
        let g = variant.geometry();
        for c in Color::ALL {
            if self.royals(c).is_empty() {
                return Err((Blame::Board, format!("{c} has no royal piece (a king)")));
            }
            for (i, info) in variant.kinds().iter().enumerate() {
                if info.base.index() != i {
                    continue;
                }
                if let Some(max) = info.max_count {
                    let n: u32 = variant
                        .kinds()
                        .iter()
                        .enumerate()
                        .filter(|(_, k)| k.base.index() == i)
                        .map(|(j, _)| self.by_kind[c.index()][j].count())
                        .sum();
                    if n > max {
                        // Squares are numbered from rank 1 up, so the piece written last in
                        // the string is the one on the lowest rank, rightmost there.
                        let last = variant
                            .kinds()
                            .iter()
                            .enumerate()
                            .filter(|(_, k)| k.base.index() == i)
                            .flat_map(|(j, _)| self.by_kind[c.index()][j])
                            .min_by_key(|&sq| {
                                let (f, r) = g.coords(sq);
                                (r, -f)
                            });
                        let blame = last.map_or(Blame::Board, Blame::Square);
                        return Err((
                            blame,
                            format!(
                                "{c} has {n} pieces of kind {} where at most {max} {} allowed",
                                info.name,
                                if max == 1 { "is" } else { "are" }
                            ),
                        ));
                    }
                }
            }
            if self.swap[c.index()] {
                let king = variant.rules().king_swap;
                if king.is_none_or(|k| self.pieces_of(c, k).is_empty()) {
                    return Err((
                        Blame::Swap(c),
                        format!("{c} has a swap right but no piece that can swap"),
                    ));
                }
            }
            if let Some(pp) = &variant.rules().pawn_of_pawns
                && let Some((from, _)) = pp.also_promote
                && self.pieces_of(c, from).count() > 4
            {
                return Err((
                    Blame::Board,
                    format!(
                        "{c} has too many pieces of kind {}",
                        variant.kind(from).name
                    ),
                ));
            }
        }
        for sq in self.occupied() {
            let Some(p) = self.piece_at(sq) else { continue };
            let info = variant.kind(p.kind);
            let name = g.name(sq);
            if let Some(c) = g.citadel(sq) {
                let allowed = if c.owner == p.color {
                    variant.citadel_allows(sq, p.color, p.kind)
                } else {
                    info.royal
                };
                if !allowed {
                    return Err((
                        Blame::Square(sq),
                        format!(
                            "a {} {} may not stand in the citadel {name}",
                            p.color, info.name
                        ),
                    ));
                }
            }
            if info.pawn && variant.last_rank[p.color].contains(sq) {
                let waiting = variant.waiting_pawn_kinds & (1 << p.kind.0) != 0
                    || variant
                        .rules()
                        .pawn_of_pawns
                        .as_ref()
                        .is_some_and(|pp| pp.states[1..].contains(&p.kind));
                if !waiting {
                    return Err((
                        Blame::Square(sq),
                        format!(
                            "a {} {} stands on its last rank at {name}",
                            p.color, info.name
                        ),
                    ));
                }
            }
        }
        if self.sole_royal_attacked(!self.turn) {
            return Err((
                Blame::Side,
                format!("{} is in check but it is {} to move", !self.turn, self.turn),
            ));
        }
        Ok(())
    }
}

/// Fills the waiting lines of a variant that promotes to lost pieces: first the squares of
/// the seventh field, in its order, then any other waiting pawns from file `a` on.
fn read_waiting_order(
    pos: &mut Position,
    field: Option<(usize, &str)>,
    col: &dyn Fn(usize) -> usize,
) -> Result<(), FenError> {
    let g = pos.variant.geometry().clone();
    let waiting = [pos.waiting(Color::White), pos.waiting(Color::Black)];
    if let Some((at, text)) = field {
        let mut offset = 0;
        for name in text.split(',') {
            let here = col(at + offset);
            offset += name.len() + 1;
            let sq = g.parse(name).ok_or_else(|| {
                bad(
                    here,
                    format!("{name:?} in the waiting order is not a square"),
                )
            })?;
            let Some(c) = Color::ALL
                .into_iter()
                .find(|c| waiting[c.index()].contains(sq))
            else {
                return Err(bad(
                    here,
                    format!("the waiting order names {name}, where no pawn waits"),
                ));
            };
            if pos.waiting_pawns(c).any(|s| s == sq) {
                return Err(bad(
                    here,
                    format!("{name} is named twice in the waiting order"),
                ));
            }
            pos.enqueue(c, sq);
        }
    }
    for c in Color::ALL {
        for sq in waiting[c.index()] {
            if !pos.waiting_pawns(c).any(|s| s == sq) {
                pos.enqueue(c, sq);
            }
        }
    }
    Ok(())
}

/// The swap field's letter for a side.
fn c_letter(c: Color) -> char {
    match c {
        Color::White => 'K',
        Color::Black => 'k',
    }
}

/// Reads the board field into `pos`; returns, per square, the column of its piece's letter.
fn read_board(
    pos: &mut Position,
    board: &str,
    board_at: usize,
    col: &dyn Fn(usize) -> usize,
) -> Result<Vec<usize>, FenError> {
    let variant = pos.variant.clone();
    let g = variant.geometry();
    let rows: Vec<(usize, &str)> = {
        let mut v = Vec::new();
        let mut s = 0;
        for (i, ch) in board.char_indices() {
            if ch == '/' {
                v.push((s, &board[s..i]));
                s = i + 1;
            }
        }
        v.push((s, &board[s..]));
        v
    };
    if rows.len() != g.ranks() as usize {
        // Too many: the first rank too many; too few: the end of the board field.
        let at = rows
            .get(g.ranks() as usize)
            .map_or(board.len(), |&(start, _)| start);
        return Err(bad(
            col(board_at + at),
            format!(
                "{} ranks in the board field; {} has {}",
                rows.len(),
                variant.name(),
                g.ranks()
            ),
        ));
    }
    let two_letter = |first: u8| {
        variant.kinds().iter().any(|k| {
            k.symbol.len() >= 2
                && k.symbol.as_bytes()[0] == first
                && k.symbol.as_bytes()[1] != b'\''
        })
    };
    let mut columns = vec![0; g.len()];
    for (n, &(row_at, row)) in rows.iter().enumerate() {
        let rank = g.ranks() as i8 - n as i8;
        let cells = g.row(rank);
        let describe = || {
            let extra: Vec<&str> = cells
                .iter()
                .filter(|&&s| !g.is_main(s))
                .map(|&s| g.name(s))
                .collect();
            if extra.is_empty() {
                format!("rank {rank} has {} squares", cells.len())
            } else {
                format!(
                    "rank {rank} has {} cells (with the citadel {})",
                    cells.len(),
                    extra.join(", ")
                )
            }
        };
        let bytes = row.as_bytes();
        let mut i = 0;
        let mut cell = 0usize;
        while i < bytes.len() {
            let at = board_at + row_at + i;
            let b = bytes[i];
            if b.is_ascii_digit() {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let run: usize = row[start..i].parse().unwrap_or(usize::MAX);
                if run == 0 || bytes[start] == b'0' {
                    return Err(bad(col(at), "an empty run must be a number from 1 up"));
                }
                cell = cell.saturating_add(run);
                if cell > cells.len() {
                    return Err(bad(col(at), format!("too many cells: {}", describe())));
                }
                continue;
            }
            if !b.is_ascii_alphabetic() {
                let ch = row[i..].chars().next().unwrap_or('?');
                return Err(bad(
                    col(at),
                    format!("unexpected {ch:?} in the board field"),
                ));
            }
            let white = b.is_ascii_uppercase();
            let mut sym = String::new();
            sym.push(b.to_ascii_uppercase() as char);
            i += 1;
            if two_letter(b.to_ascii_uppercase()) {
                match bytes.get(i) {
                    Some(&c) if c.is_ascii_alphabetic() && c.is_ascii_uppercase() == white => {
                        sym.push(c.to_ascii_uppercase() as char);
                        i += 1;
                    }
                    _ => {
                        return Err(bad(
                            col(at),
                            format!(
                                "{:?} must be followed by a second letter of the same case naming the pawn's type",
                                b as char
                            ),
                        ));
                    }
                }
            }
            while bytes.get(i) == Some(&b'\'') {
                sym.push('\'');
                i += 1;
            }
            let Some(kind) = variant
                .kind_by_symbol(&sym)
                .filter(|&k| variant.kind(k).symbol == sym)
            else {
                let shown = if white {
                    sym.clone()
                } else {
                    sym.to_ascii_lowercase()
                };
                return Err(bad(
                    col(at),
                    format!("unknown piece {shown:?} for {}", variant.name()),
                ));
            };
            if cell >= cells.len() {
                return Err(bad(col(at), format!("too many cells: {}", describe())));
            }
            let sq: Square = cells[cell];
            columns[sq.index()] = col(at);
            pos.set(
                sq,
                Piece {
                    color: Color::from_white(white),
                    kind,
                }
                .code(),
            );
            cell += 1;
        }
        if cell != cells.len() {
            return Err(bad(
                col(board_at + row_at + row.len()),
                format!("too few cells: {}, not {cell}", describe()),
            ));
        }
    }
    Ok(columns)
}
