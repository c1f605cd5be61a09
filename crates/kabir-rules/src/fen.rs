//! Position strings: FEN extended for typed pawns, primes and citadels.
//!
//! Six fields: `board side swaps ep halfmove fullmove`. See `notation-spec/` for the format;
//! for shatranj it is Fairy-Stockfish's FEN exactly. The syntax is [`grammar`], one parser per
//! production of the spec's grammar; this module reads a position string with it and checks
//! the position against the variant.

use std::sync::Arc;

use super::color::Color;
use super::position::Position;
use super::square::Square;
use super::variant::{Piece, Variant};

pub mod grammar;

use grammar::{Cell, TypedPawns, board, just, square, whole, ws};

/// Why a position string was refused. `column` is the 1-based character position in the string
/// where the problem was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at character {column} of the position string)")]
pub struct FenError {
    /// What kind of problem it is.
    pub kind: FenErrorKind,
    /// Where the problem was found: a 1-based character position in the string.
    pub column: usize,
    /// What is wrong, in words (`the position string is empty`).
    pub message: String,
}

/// The kinds of problem a position string can have, field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FenErrorKind {
    /// The string is empty.
    Empty,
    /// More fields than the variant's position strings have.
    FieldCount,
    /// The board field is not a board of the variant: its number of ranks or cells, or a
    /// character that is no cell.
    Board,
    /// A piece letter the variant does not have.
    UnknownPiece,
    /// The side to move is missing or not `w` or `b`.
    Side,
    /// An en passant square, which these games do not have.
    EnPassant,
    /// The king swap field.
    Swap,
    /// The halfmove clock or the move number is not a number.
    Counter,
    /// The order in which pawns wait for promotion.
    WaitingOrder,
    /// Each field reads, but the position cannot arise in the variant (a king missing or too
    /// many, a pawn on its last rank, the side not to move in check...).
    Impossible,
}

/// Something a lenient reading ([`Position::from_fen_lenient`]) assumed where the string
/// departs from the notation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenNote {
    /// What was assumed.
    pub kind: FenNoteKind,
    /// Where: a 1-based character position in the string (for a missing field, where it
    /// would have stood).
    pub column: usize,
    /// The field and what was assumed, in words.
    pub message: String,
}

/// The departures from the notation that a lenient reading accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FenNoteKind {
    /// The swap field, the en passant field or both are left out before the counters.
    MissingFields,
    /// Chess castling rights in a variant with neither castling nor a king swap.
    ChessCastling,
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
fn bad(kind: FenErrorKind, column: usize, message: impl Into<String>) -> FenError {
    FenError {
        kind,
        column,
        message: message.into(),
    }
}

impl Position {
    /// Reads a position string and checks the position it describes.
    ///
    /// The fields are read one at a time, each with its production of the grammar
    /// ([`fen::grammar`](crate::fen::grammar)), and checked against the variant
    /// before the next is read, so that the first problem in the string is the one reported.
    /// Two things are checked before any field's content: the number of fields, and the
    /// number of ranks on the board.
    pub fn from_fen(variant: &Arc<Variant>, text: &str) -> Result<Position, FenError> {
        Self::read_fen(variant, text, None)
    }

    /// Reads a position string as [`Position::from_fen`] does, and also what other programs
    /// write that the notation does not allow, each with a [`FenNote`] that says what was
    /// assumed:
    ///
    /// - fields left out in the middle, before the two counters (Sjaak II writes
    ///   `... w 0 1`): the missing swap and en passant fields read as `-`;
    /// - chess castling rights (`KQkq`, or some of those letters) in a variant with neither
    ///   castling nor a king swap: read as `-`.
    ///
    /// ```
    /// # use kabir_rules::{Position, variants};
    /// let shatranj = variants::builtin("shatranj").unwrap();
    /// let text = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w KQkq - 0 1";
    /// assert!(Position::from_fen(&shatranj, text).is_err());
    /// let (pos, notes) = Position::from_fen_lenient(&shatranj, text).unwrap();
    /// assert_eq!(pos, Position::start(&shatranj));
    /// assert_eq!(notes[0].column, 47);
    /// ```
    pub fn from_fen_lenient(
        variant: &Arc<Variant>,
        text: &str,
    ) -> Result<(Position, Vec<FenNote>), FenError> {
        let mut notes = Vec::new();
        let pos = Self::read_fen(variant, text, Some(&mut notes))?;
        Ok((pos, notes))
    }

    /// [`Position::from_fen`], or with `notes` [`Position::from_fen_lenient`].
    fn read_fen(
        variant: &Arc<Variant>,
        text: &str,
        notes: Option<&mut Vec<FenNote>>,
    ) -> Result<Position, FenError> {
        let col = |byte: usize| text[..byte.min(text.len())].chars().count() + 1;
        let mut fields = fields(text);
        if let Some(notes) = notes {
            lenient_fields(variant, &mut fields, notes, &col);
        }
        let Some(&(board_at, board)) = fields.first() else {
            return Err(bad(FenErrorKind::Empty, 1, "the position string is empty"));
        };
        // Promotion to lost pieces adds a seventh field: the order in which pawns wait.
        let most = if variant.waiting_pawn_kinds != 0 {
            7
        } else {
            6
        };
        if fields.len() > most {
            return Err(bad(
                FenErrorKind::FieldCount,
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
                FenErrorKind::Side,
                col(text.len()),
                "the side to move is missing (expected `w` or `b`)",
            )
        })?;
        pos.turn = whole(grammar::side, side.as_bytes()).ok_or_else(|| {
            bad(
                FenErrorKind::Side,
                col(side_at),
                format!("side to move {side:?}; expected `w` or `b`"),
            )
        })?;
        if let Some(&(at, rights)) = fields.get(2) {
            read_swap_rights(&mut pos, rights, |i| col(at + i))?;
        }
        if let Some(&(at, ep)) = fields.get(3)
            && whole(just(b'-'), ep.as_bytes()).is_none()
        {
            return Err(bad(
                FenErrorKind::EnPassant,
                col(at),
                format!("en passant square {ep:?}: these games have no en passant; expected `-`"),
            ));
        }
        for (n, default) in [(4usize, 0u32), (5, 1)] {
            let value = match fields.get(n) {
                Some(&(at, s)) => whole(grammar::number0, s.as_bytes())
                    .and_then(grammar::value_of)
                    .ok_or_else(|| {
                        bad(
                            FenErrorKind::Counter,
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
            bad(FenErrorKind::Impossible, column, m)
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

/// The fields of a position string and the byte offset of each: what blank space ([`ws`])
/// separates.
fn fields(text: &str) -> Vec<(usize, &str)> {
    let mut fields = Vec::new();
    let mut rest = text.as_bytes();
    loop {
        if let Ok((after, _)) = ws(rest) {
            rest = after;
        }
        if rest.is_empty() {
            return fields;
        }
        let at = text.len() - rest.len();
        let len = (0..rest.len())
            .find(|&i| ws(&rest[i..]).is_ok())
            .unwrap_or(rest.len());
        fields.push((at, &text[at..at + len]));
        rest = &rest[len..];
    }
}

/// Makes a lenient reading's fields those of the notation, noting each change: fields left
/// out between the side to move and the counters become `-`, and chess castling rights in a
/// variant without castling or king swap become `-`. A placeholder field stands at the
/// offset where the missing field would begin.
fn lenient_fields(
    variant: &Variant,
    fields: &mut Vec<(usize, &str)>,
    notes: &mut Vec<FenNote>,
    col: &dyn Fn(usize) -> usize,
) {
    let is_number = |f: &str| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit());
    // Only strings shorter than the notation's six fields can have a field missing.
    if (3..6).contains(&fields.len()) {
        let counters = fields[2..]
            .iter()
            .rev()
            .take_while(|(_, f)| is_number(f))
            .count()
            .min(2);
        let present = fields.len() - 2 - counters;
        if counters > 0 && present < 2 {
            let (at, _) = fields[2 + present];
            let missing = if present == 0 {
                "the swap (castling) and en passant fields are"
            } else {
                "the en passant field is"
            };
            let counted: Vec<&str> = fields[2 + present..].iter().map(|&(_, f)| f).collect();
            notes.push(FenNote {
                kind: FenNoteKind::MissingFields,
                column: col(at),
                message: format!(
                    "{missing} missing before the counters `{}`: assumed `-`",
                    counted.join(" ")
                ),
            });
            for _ in present..2 {
                fields.insert(2 + present, (at, "-"));
            }
        }
    }
    if variant.rules().king_swap.is_none()
        && let Some(&(at, rights)) = fields.get(2)
        && rights != "-"
        && rights.bytes().all(|b| b"KQkq".contains(&b))
    {
        notes.push(FenNote {
            kind: FenNoteKind::ChessCastling,
            column: col(at),
            message: format!(
                "castling rights `{rights}` in {}, which has no castling or king swap: read as `-`",
                variant.name()
            ),
        });
        fields[2] = (at, "-");
    }
}

/// Reads the swap field (`state`): `-`, or the letter of each side that still has its swap.
fn read_swap_rights(
    pos: &mut Position,
    field: &str,
    col: impl Fn(usize) -> usize,
) -> Result<(), FenError> {
    let bytes = field.as_bytes();
    if whole(grammar::state, bytes) == Some(b"-") {
        return Ok(());
    }
    if pos.variant.rules().king_swap.is_none() {
        return Err(bad(
            FenErrorKind::Swap,
            col(0),
            format!(
                "{field:?}: {} has no king swap or castling; expected `-`",
                pos.variant.name()
            ),
        ));
    }
    // Anything else must be the sides' letters (`state`), each at most once: a letter given
    // twice is reported where it stands, then where the letters stop, if not at the end.
    let letters = match grammar::state(bytes) {
        Ok((_, letters)) if letters != b"-" => letters.len(),
        _ => 0,
    };
    for (i, &b) in bytes[..letters].iter().enumerate() {
        let c = Color::from_white(b == b'K');
        if pos.swap[c.index()] {
            return Err(bad(
                FenErrorKind::Swap,
                col(i),
                format!("{:?} given twice", b as char),
            ));
        }
        pos.swap[c.index()] = true;
    }
    match field[letters..].chars().next() {
        Some(ch) => Err(bad(
            FenErrorKind::Swap,
            col(letters),
            format!("{ch:?} in the swap field; expected `K`, `k` or `-`"),
        )),
        None => Ok(()),
    }
}

/// Fills the waiting lines of a variant that promotes to lost pieces: first the squares of
/// the seventh field (`waiting-order`), in its order, then any other waiting pawns from file
/// `a` on. The field is read name by name (a [`square`] between commas), each checked before
/// the next is read.
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
            let sq = whole(square, name.as_bytes())
                .and_then(|c| g.main_square(c.file, c.rank))
                .ok_or_else(|| {
                    bad(
                        FenErrorKind::WaitingOrder,
                        here,
                        format!("{name:?} in the waiting order is not a square"),
                    )
                })?;
            let Some(c) = Color::ALL
                .into_iter()
                .find(|c| waiting[c.index()].contains(sq))
            else {
                return Err(bad(
                    FenErrorKind::WaitingOrder,
                    here,
                    format!("the waiting order names {name}, where no pawn waits"),
                ));
            };
            if pos.waiting_pawns(c).any(|s| s == sq) {
                return Err(bad(
                    FenErrorKind::WaitingOrder,
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

/// The letters that start a two-letter piece name in the variant (its typed pawns).
fn typed_pawns(variant: &Variant) -> TypedPawns {
    variant
        .kinds()
        .iter()
        .filter_map(|k| match k.symbol.as_bytes() {
            [first, second, ..] if *second != b'\'' => Some(*first),
            _ => None,
        })
        .fold(TypedPawns::NONE, TypedPawns::with)
}

/// Reads the board field into `pos`; returns, per square, the column of its piece's letter.
///
/// The number of ranks is checked first, by the separators, so that a board of the wrong
/// shape is reported as such whatever its ranks hold. Then [`board`] reads the cells as far
/// as the grammar goes, and they are placed rank by rank; where the grammar stopped is
/// reported after the cells before it, in place of that rank's count of cells.
fn read_board(
    pos: &mut Position,
    field: &str,
    board_at: usize,
    col: &dyn Fn(usize) -> usize,
) -> Result<Vec<usize>, FenError> {
    let variant = pos.variant.clone();
    let g = variant.geometry();
    let ranks = field.bytes().filter(|&b| b == b'/').count() + 1;
    if ranks != g.ranks() as usize {
        // Too many: the first rank too many; too few: the end of the board field.
        let at = field
            .match_indices('/')
            .nth(usize::from(g.ranks()).saturating_sub(1))
            .map_or(field.len(), |(i, _)| i + 1);
        return Err(bad(
            FenErrorKind::Board,
            col(board_at + at),
            format!(
                "{ranks} ranks in the board field; {} has {}",
                variant.name(),
                g.ranks()
            ),
        ));
    }
    let typed = typed_pawns(&variant);
    let bytes = field.as_bytes();
    let (rest, rows) = board(typed)(bytes).unwrap_or((bytes, Vec::new()));
    let stop = bytes.len() - rest.len();
    let mut columns = vec![0; g.len()];
    let mut at = 0;
    for (n, row) in rows.iter().enumerate() {
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
        let mut cell = 0usize;
        for &item in row {
            let here = col(board_at + at);
            match item {
                Cell::Empty(digits) => {
                    at += digits.len();
                    let run = grammar::value_of(digits).map_or(usize::MAX, |v| v as usize);
                    cell = cell.saturating_add(run);
                    if cell > cells.len() {
                        return Err(bad(
                            FenErrorKind::Board,
                            here,
                            format!("too many cells: {}", describe()),
                        ));
                    }
                }
                Cell::Piece(text) => {
                    at += text.len();
                    let written = String::from_utf8_lossy(text);
                    let symbol = written.to_ascii_uppercase();
                    let Some(kind) = variant.kind_by_symbol(&symbol) else {
                        return Err(bad(
                            FenErrorKind::UnknownPiece,
                            here,
                            format!("unknown piece {written:?} for {}", variant.name()),
                        ));
                    };
                    let Some(&sq) = cells.get(cell) else {
                        return Err(bad(
                            FenErrorKind::Board,
                            here,
                            format!("too many cells: {}", describe()),
                        ));
                    };
                    columns[sq.index()] = here;
                    let white = text[0].is_ascii_uppercase();
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
            }
        }
        if n + 1 == rows.len() && stop < bytes.len() {
            break;
        }
        if cell != cells.len() {
            return Err(bad(
                FenErrorKind::Board,
                col(board_at + at),
                format!("too few cells: {}, not {cell}", describe()),
            ));
        }
        // The `/` before the next rank.
        at += 1;
    }
    if let Some(ch) = field[stop..].chars().next() {
        let message = if ch.is_ascii_digit() {
            "an empty run must be a number from 1 up".to_string()
        } else if ch.is_ascii_alphabetic() && typed.contains(ch as u8) {
            format!(
                "{ch:?} must be followed by a second letter of the same case naming the pawn's type"
            )
        } else {
            format!("unexpected {ch:?} in the board field")
        };
        return Err(bad(FenErrorKind::Board, col(board_at + stop), message));
    }
    Ok(columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants::builtin;

    const START: &str = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR";

    #[test]
    fn missing_middle_fields_are_assumed_with_a_note() {
        let v = builtin("shatranj").unwrap();
        let sjaak = format!("{START} w 0 1");
        let e = Position::from_fen(&v, &sjaak).unwrap_err();
        assert_eq!(e.kind, FenErrorKind::Swap);
        let (pos, notes) = Position::from_fen_lenient(&v, &sjaak).unwrap();
        assert_eq!(pos, Position::start(&v));
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].kind, FenNoteKind::MissingFields);
        assert_eq!(notes[0].column, START.len() + 4);
        assert!(notes[0].message.contains("swap (castling) and en passant"));

        let (pos, notes) = Position::from_fen_lenient(&v, &format!("{START} b - 3 9")).unwrap();
        assert_eq!((pos.halfmove, pos.fullmove), (3, 9));
        assert_eq!(notes[0].kind, FenNoteKind::MissingFields);
        assert!(notes[0].message.contains("the en passant field is missing"));
        assert_eq!(notes[0].column, START.len() + 6);
    }

    #[test]
    fn chess_castling_rights_are_dropped_only_where_nothing_castles() {
        let v = builtin("shatranj").unwrap();
        let monty = format!("{START} w KQkq - 0 1");
        assert_eq!(
            Position::from_fen(&v, &monty).unwrap_err().kind,
            FenErrorKind::Swap
        );
        let (pos, notes) = Position::from_fen_lenient(&v, &monty).unwrap();
        assert_eq!(pos, Position::start(&v));
        assert_eq!(
            (notes[0].kind, notes[0].column),
            (FenNoteKind::ChessCastling, START.len() + 4)
        );
        // A string as the notation writes it needs no note.
        let (_, notes) = Position::from_fen_lenient(&v, &format!("{START} w - - 0 1")).unwrap();
        assert!(notes.is_empty());
        // Tamerlane has a king swap: `Q` is not one of its rights, lenient or not.
        let t = builtin("tamerlane").unwrap();
        let fen = t.start_fen().replacen(" - ", " KQkq ", 1);
        assert!(Position::from_fen_lenient(&t, &fen).is_err());
    }

    #[test]
    fn alias_letters_read_in_position_strings() {
        let v = builtin("shatranj").unwrap();
        let aliased = "rhekfehr/pppppppp/8/8/8/8/PPPPPPPP/RHAKFANR w - - 0 1";
        let pos = Position::from_fen(&v, aliased).unwrap();
        assert_eq!(pos, Position::start(&v));
        assert_eq!(pos.to_fen(), v.start_fen());
        let e = Position::from_fen(&v, "rnbkxbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1")
            .unwrap_err();
        assert_eq!((e.kind, e.column), (FenErrorKind::UnknownPiece, 5));
    }
}
