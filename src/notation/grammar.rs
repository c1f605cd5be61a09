//! The notation's grammar (`notation-spec/README.md`, section 10): one nom parser per
//! production, named after it, with the production in its documentation. These parsers are
//! the reference for what kabir reads as a move or a position string.
//!
//! - **Moves**: [`r#move`], [`special`], [`lift`], [`swap`], [`ordinary`], [`origin`],
//!   [`promotion`], [`waiting`], [`check`], [`glyph`].
//! - **Places** and letters: [`place`], [`square`], [`file`], [`rank`], [`citadel`],
//!   [`piece`], [`lower_piece`].
//! - **Position strings**: [`position`], [`board`], [`rank_cells`], [`cell_piece`], [`side`],
//!   [`state`], [`waiting_order`], [`ws`]. These live with the rules core, which reads
//!   position strings ([`Position::from_fen`](crate::rules::Position::from_fen)), and are given
//!   here beside the others.
//! - **Numbers**: [`number`], [`number0`], [`digit`], [`nonzero_digit`].
//!
//! Each parser reads its production at the start of a byte slice and returns the rest of the
//! slice and what it read; what it read borrows from the input. None knows the rules:
//! whether a letter names a piece of the variant, or a square is on its board, is decided
//! later. [`read_move`] reads a whole move's text with them and, when the text is not a
//! move, says why; [`SanPlus::from_ascii`] gives the same results (it reads the common short
//! forms such as `e4` and `Nxf3` without the grammar, and everything else with it).
//!
//! ```
//! use kabir::notation::grammar;
//! use kabir::notation::san::{Origin, San};
//!
//! // `r#move` reads a move at the start of its input and leaves the rest.
//! let (rest, m) = grammar::r#move(b"Nbc3+ Kbc").unwrap();
//! assert_eq!(rest, b" Kbc");
//! assert!(matches!(m.san, San::Normal { origin: Origin::File(1), .. }));
//! assert_eq!(m.to_string(), "Nbc3+");
//!
//! // The productions can be used alone.
//! let (_, promoted) = grammar::promotion(b"=Q").unwrap();
//! assert_eq!(promoted.char(), 'Q');
//! assert!(grammar::read_move(b"Nz9").is_err());
//! ```
use nom::{
    Parser,
    branch::alt,
    combinator::{consumed, map, map_opt, opt, peek, success, value, verify},
    sequence::{preceded, separated_pair, terminated},
};

pub use crate::rules::fen::grammar::{
    Cell, Parsed, PositionText, TypedPawns, board, cell_piece, digit, file, lower_piece,
    nonzero_digit, number, number0, piece, position, rank, rank_cells, side, square, state,
    value_of, waiting_order, ws,
};
use crate::rules::fen::grammar::{Coord, byte, just, literal, whole};

use super::san::{Citadel, Glyph, Letter, Origin, Place, San, SanError, SanPlus, Suffix};

// ---------------------------------------------------------------------------------------
// Moves
// ---------------------------------------------------------------------------------------

/// `move = ( special | ordinary ), [ check ], [ glyph ] ;`
///
/// The ordinary moves, most moves, are tried first: `PP` and `K:` start no ordinary move, so
/// the order changes nothing but the time taken.
#[inline]
pub fn r#move(i: &[u8]) -> Parsed<'_, SanPlus> {
    map(
        (alt((ordinary, special)), opt(check), opt(glyph)),
        |(san, suffix, glyph)| SanPlus { san, suffix, glyph },
    )
    .parse(i)
}

/// `special = lift | swap ;`
#[inline]
pub fn special(i: &[u8]) -> Parsed<'_, San> {
    alt((lift, swap)).parse(i)
}

/// `lift = "PP", [ "x" ], square ;` (the lift or the relocation of the pawn of pawns)
#[inline]
pub fn lift(i: &[u8]) -> Parsed<'_, San> {
    map(
        preceded(literal(b"PP"), (opt(just(b'x')), square)),
        |(x, to)| San::PawnOfPawns {
            capture: x.is_some(),
            to,
        },
    )
    .parse(i)
}

/// `swap = "K:", place, [ "=", ( piece | lower-piece ) ] ;`
#[inline]
pub fn swap(i: &[u8]) -> Parsed<'_, San> {
    map(
        preceded(literal(b"K:"), (place, opt(preceded(just(b'='), letter)))),
        |(with, promotion)| San::Swap { with, promotion },
    )
    .parse(i)
}

/// ```text
/// ordinary = [ piece ], ( origin, [ "-" | "x" ] | [ "x" ] ), place, [ promotion ],
///            [ waiting ] ;
/// ```
///
/// Without `=`, a promotion follows a square only (`e8Q`; `KbcQ` is no move), and a
/// lowercase one only a whole origin: `e7e8q` is a coordinate move, `exd8q` no move.
#[inline]
pub fn ordinary(i: &[u8]) -> Parsed<'_, San> {
    let (i, piece) = opt(map_opt(piece, Letter::new)).parse(i)?;
    let (i, (origin, capture)) = alt((
        (origin, map(opt(separator), |sep| sep == Some(b'x'))),
        (success(Origin::None), map(opt(just(b'x')), |x| x.is_some())),
    ))
    .parse(i)?;
    let (i, to) = place(i)?;
    let may_follow = |(text, _): &(&[u8], Letter)| match text.first() {
        Some(b'=') => true,
        Some(b) => {
            matches!(to, Place::Board(_))
                && (b.is_ascii_uppercase() || matches!(origin, Origin::Place(_)))
        }
        None => false,
    };
    let (i, promotion) = opt(map(verify(consumed(promotion), may_follow), |(_, p)| p)).parse(i)?;
    let (i, waiting) = opt(waiting).parse(i)?;
    Ok((
        i,
        San::Normal {
            piece,
            origin,
            capture,
            to,
            promotion,
            waiting,
        },
    ))
}

/// `origin = place | file | rank ;`
///
/// An origin counts only where a destination follows it (after an optional `-` or `x`), which
/// [`peek`] looks for without reading it; of the readings that leave one, the longer is
/// preferred (notation spec, section 10). So `e7e8q` has the origin `e7`, `Nbc3` the origin
/// `b` (the citadel `bc` would leave no destination), `Ka10-bc` the origin `a10`, and `Nc3`
/// none (`c3` is the destination).
#[inline]
pub fn origin(i: &[u8]) -> Parsed<'_, Origin> {
    alt((
        before_destination(map(place, Origin::Place)),
        before_destination(map(file, Origin::File)),
        before_destination(map(rank, Origin::Rank)),
    ))
    .parse(i)
}

/// `origin`, where a destination follows it.
fn before_destination<'a>(
    origin: impl Parser<&'a [u8], Output = Origin, Error = ()>,
) -> impl Parser<&'a [u8], Output = Origin, Error = ()> {
    terminated(origin, peek((opt(separator), place)))
}

/// `promotion = "=", ( piece | lower-piece ) | piece | lower-piece ;` (the letter stored
/// uppercase; where the form without `=` may stand, see [`ordinary`])
#[inline]
pub fn promotion(i: &[u8]) -> Parsed<'_, Letter> {
    alt((preceded(just(b'='), letter), letter)).parse(i)
}

/// `waiting = "_", square, "=", ( piece | lower-piece ) ;` (a waiting pawn promoted by the
/// capture, notation spec 6.9)
#[inline]
pub fn waiting(i: &[u8]) -> Parsed<'_, (Coord, Letter)> {
    preceded(just(b'_'), separated_pair(square, just(b'='), letter)).parse(i)
}

/// `check = "+" | "#" ;`
#[inline]
pub fn check(i: &[u8]) -> Parsed<'_, Suffix> {
    alt((
        value(Suffix::Check, just(b'+')),
        value(Suffix::Mate, just(b'#')),
    ))
    .parse(i)
}

/// `glyph = "!!" | "??" | "!?" | "?!" | "!" | "?" ;` (the two-character glyphs first, so that
/// each is read whole)
#[inline]
pub fn glyph(i: &[u8]) -> Parsed<'_, Glyph> {
    alt((
        value(Glyph::Brilliant, literal(b"!!")),
        value(Glyph::Blunder, literal(b"??")),
        value(Glyph::Speculative, literal(b"!?")),
        value(Glyph::Dubious, literal(b"?!")),
        value(Glyph::Good, literal(b"!")),
        value(Glyph::Mistake, literal(b"?")),
    ))
    .parse(i)
}

/// `"-" | "x"` after an origin.
#[inline]
fn separator(i: &[u8]) -> Parsed<'_, u8> {
    byte(|b| matches!(b, b'-' | b'x').then_some(b))(i)
}

/// `piece | lower-piece`, as a [`Letter`] (stored uppercase).
#[inline]
fn letter(i: &[u8]) -> Parsed<'_, Letter> {
    map_opt(alt((piece, lower_piece)), Letter::new).parse(i)
}

// ---------------------------------------------------------------------------------------
// Places
// ---------------------------------------------------------------------------------------

/// `place = square | citadel ;`
#[inline]
pub fn place(i: &[u8]) -> Parsed<'_, Place> {
    alt((map(square, Place::Board), map(citadel, Place::Citadel))).parse(i)
}

/// `citadel = "wc" | "bc" ;`
#[inline]
pub fn citadel(i: &[u8]) -> Parsed<'_, Citadel> {
    alt((
        value(Citadel::White, literal(b"wc")),
        value(Citadel::Black, literal(b"bc")),
    ))
    .parse(i)
}

// ---------------------------------------------------------------------------------------
// Whole moves
// ---------------------------------------------------------------------------------------

/// Reads the whole of `text` as a move with its check mark and glyph ([`r#move`]), or says
/// why it is not one. [`SanPlus::from_ascii`] gives the same result.
#[inline(never)]
pub fn read_move(text: &[u8]) -> Result<SanPlus, SanError> {
    whole(r#move, text).ok_or_else(|| refusal(without_suffixes(text)))
}

/// Reads the whole of `text` as a move without check mark and glyph (`special | ordinary`),
/// or says why it is not one: what [`San::from_ascii`] does.
pub(crate) fn read_move_body(text: &[u8]) -> Result<San, SanError> {
    whole(alt((special, ordinary)), text).ok_or_else(|| refusal(text))
}

/// A move's text without the check mark and glyph it ends with: at most two of `!` and `?`,
/// then one of `+` and `#`.
fn without_suffixes(text: &[u8]) -> &[u8] {
    let glyph = text
        .iter()
        .rev()
        .take(2)
        .take_while(|&&b| b == b'!' || b == b'?')
        .count();
    match &text[..text.len() - glyph] {
        [body @ .., b'+' | b'#'] => body,
        body => body,
    }
}

/// Why `body`, the text of a move without its check mark and glyph, which the grammar does
/// not read as a move, is not one: the reason a reader is told.
///
/// The special moves are known by their first two characters. An ordinary move is taken
/// apart from its end, where the one part every move has, the destination, stands: the
/// promotion of a waiting pawn after the last `_`, the move's own promotion, the destination,
/// and before it a piece letter, an origin and a separator. The first of these, from the end,
/// that is not what its production says is the reason; a move whose parts are each right is
/// wrong in how they combine (a lowercase promotion without a whole origin).
fn refusal(body: &[u8]) -> SanError {
    match body {
        [] => return SanError::Empty,
        [b'P', b'P', ..] => return SanError::BadPawnOfPawns,
        [b'K', b':', .., b'=', p] if !p.is_ascii_alphabetic() => return SanError::BadPromotion,
        [b'K', b':', ..] => return SanError::BadSwap,
        b"O-O" | b"O-O-O" | b"0-0" | b"0-0-0" => return SanError::Castling,
        b"--" | b"Z0" | b"0000" | b"@@@@" => return SanError::NullMove,
        _ => {}
    }
    let head = match body.iter().rposition(|&b| b == b'_') {
        Some(at) if whole(waiting, &body[at..]).is_none() => {
            return SanError::BadWaitingPromotion;
        }
        Some(at) => &body[..at],
        None => body,
    };
    let head = match head {
        [rest @ .., b'=', p] => {
            if !p.is_ascii_alphabetic() {
                return SanError::BadPromotion;
            }
            rest
        }
        [rest @ .., b'0'..=b'9', p] if p.is_ascii_alphabetic() => &head[..=rest.len()],
        _ => head,
    };
    if head.contains(&b'=') {
        return SanError::BadPromotion;
    }
    // A square's rank has one or two digits: the destination is the last two or three bytes.
    let Some(before) = [2, 3].into_iter().find_map(|len| {
        let at = head.len().checked_sub(len)?;
        whole(place, &head[at..]).map(|_| &head[..at])
    }) else {
        return SanError::MissingDestination;
    };
    let from = match before {
        [b'A'..=b'Z', from @ ..] => from,
        _ => before,
    };
    let (origin_len, dash) = match from {
        [rest @ .., b'x'] => (rest.len(), false),
        [rest @ .., b'-'] => (rest.len(), true),
        _ => (from.len(), false),
    };
    // `origin` reads where the origin stands, with the destination after it, as in a move.
    let after_piece = &head[before.len() - from.len()..];
    let origin_read = origin(after_piece).map_or(0, |(rest, _)| after_piece.len() - rest.len());
    if origin_len > 0 && origin_read != origin_len {
        return SanError::BadOrigin;
    }
    if dash && origin_len == 0 {
        return SanError::DashWithoutOrigin;
    }
    // Each part is right: the promotion is a lowercase letter without a whole origin.
    SanError::MissingDestination
}
