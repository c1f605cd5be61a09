//! The notation's grammar (`notation-spec/README.md`, section 10): one nom parser per
//! production, named after it, with the production in its documentation. These parsers are
//! the reference for what kabir reads as a move or a position string.
//!
//! - **Moves**: [`move`](fn.move.html), [`special`], [`lift`], [`swap`], [`ordinary`],
//!   [`origin`], [`promotion`], [`waiting`], [`check`], [`glyph`].
//! - **Places** and letters: [`place`], [`square`], [`file`](fn@file), [`rank`], [`citadel`],
//!   [`piece`], [`lower_piece`].
//! - **Position strings**: [`position`], [`board`], [`rank_cells`], [`cell_piece`], [`side`],
//!   [`state`], [`waiting_order`], [`ws`]. These live with the rules core, which reads
//!   position strings ([`Position::from_fen`](kabir_rules::Position::from_fen)), and are given
//!   here beside the others.
//! - **Numbers**: [`number`], [`number0`], [`digit`], [`nonzero_digit`].
//! - **Games**: [`games`], [`game`], and for blank space and line ends [`bom`],
//!   [`blank`], [`eol`].
//! - **Tag pairs**: [`tag_line`], [`tag_pair`], [`tag_name`], [`name_char`], [`tag_value`].
//! - **Movetext**: [`movetext`], [`element`], [`variation`], [`move_number`], [`dots`],
//!   [`nag`], [`comment`], [`line_comment`], [`escape_line`], [`result`].
//!
//! Each parser reads its production at the start of a byte slice and returns the rest of the
//! slice and what it read; what it read borrows from the input. None knows the rules:
//! whether a letter names a piece of the variant, or a square is on its board, is decided
//! later. [`read_move`] reads a whole move's text with them and, when the text is not a
//! move, says why; [`SanPlus::from_ascii`] gives the same results (it reads the common fast
//! forms such as `e4` and `Nxf3` without the grammar, and everything else with it).
//!
//! ```
//! use kabir_notation::grammar;
//! use kabir_notation::san::{Origin, San};
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
    combinator::{consumed, eof, map, map_opt, opt, peek, recognize, success, value, verify},
    multi::{many0_count, many1_count},
    sequence::{delimited, preceded, separated_pair, terminated},
};

pub use kabir_rules::fen::grammar::{
    Cell, Parsed, PositionText, TypedPawns, board, cell_piece, digit, file, lower_piece,
    nonzero_digit, number, number0, piece, position, rank, rank_cells, side, square, state,
    value_of, waiting_order, ws,
};
use kabir_rules::fen::grammar::{Coord, byte, just, literal, whole};

use super::san::{Citadel, Glyph, Letter, Origin, Place, San, SanError, SanPlus, Suffix};
use super::tags::GameResult;

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

/// Reads the whole of `text` as a move with its check mark and glyph ([`move`](fn.move.html)),
/// or says why it is not one. [`SanPlus::from_ascii`] gives the same result.
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

// ---------------------------------------------------------------------------------------
// Blank space and line ends
// ---------------------------------------------------------------------------------------

/// `bom = "\xEF\xBB\xBF" ;` (a byte-order mark: blank space at the start of any line)
#[inline]
pub fn bom(i: &[u8]) -> Parsed<'_, &[u8]> {
    literal(b"\xEF\xBB\xBF")(i)
}

/// `blank = " " | "\t" | "\x0B" | "\x0C" ;`
#[inline]
pub fn blank(i: &[u8]) -> Parsed<'_, u8> {
    byte(|b| is_blank(b).then_some(b))(i)
}

/// `eol = "\r\n" | "\n" | "\r" ;`
#[inline]
pub fn eol(i: &[u8]) -> Parsed<'_, &[u8]> {
    alt((literal(b"\r\n"), literal(b"\n"), literal(b"\r"))).parse(i)
}

/// Whether `b` is blank space within a line ([`blank`]).
#[inline]
pub(crate) const fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

/// Whether `b` may stand in a token of movetext: a move, a move number without dots or a
/// result takes all of these that follow its first byte (a result also `/`). Letters, digits
/// and `_+#=:-!?`.
#[inline]
pub(crate) const fn is_symbol(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'=' | b':' | b'-' | b'!' | b'?')
}

/// Any bytes up to a line end or the end of the input.
#[inline]
fn rest_of_line(i: &[u8]) -> Parsed<'_, &[u8]> {
    let len = i
        .iter()
        .position(|&b| matches!(b, b'\n' | b'\r'))
        .unwrap_or(i.len());
    Ok((&i[len..], &i[..len]))
}

// ---------------------------------------------------------------------------------------
// Tag pairs
// ---------------------------------------------------------------------------------------

/// A tag pair as read: its text, its name and its value as written (escapes not undone:
/// [`RawGame::tag_value`](super::game::RawGame::tag_value) does that).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagPair<'a> {
    /// The whole pair, `[` to `]`.
    pub text: &'a [u8],
    /// The name.
    pub name: &'a [u8],
    /// The value between the quotes.
    pub value: &'a [u8],
}

/// `tag-line = { blank }, tag-pair, { { blank }, tag-pair }, { blank }, ( eol | end ) ;`
/// Gives the number of pairs. (A line that holds only tag pairs starts a game, even inside
/// a comment left open: notation spec 9.3.)
pub fn tag_line(i: &[u8]) -> Parsed<'_, usize> {
    terminated(
        many1_count(preceded(many0_count(blank), tag_pair)),
        (many0_count(blank), alt((eol, eof))),
    )
    .parse(i)
}

/// `tag-pair = "[", { blank }, tag-name, { blank }, '"', tag-value, '"', { blank }, "]" ;`
pub fn tag_pair(i: &[u8]) -> Parsed<'_, TagPair<'_>> {
    map(
        consumed((
            just(b'['),
            many0_count(blank),
            tag_name,
            many0_count(blank),
            delimited(just(b'"'), tag_value, just(b'"')),
            many0_count(blank),
            just(b']'),
        )),
        |(text, (_, _, name, _, value, _, _))| TagPair { text, name, value },
    )
    .parse(i)
}

/// `tag-name = name-char, { name-char } ;`
pub fn tag_name(i: &[u8]) -> Parsed<'_, &[u8]> {
    recognize(many1_count(name_char)).parse(i)
}

/// `name-char = letter | digit | "_" ;` (ASCII letters)
#[inline]
pub fn name_char(i: &[u8]) -> Parsed<'_, u8> {
    byte(|b| (b.is_ascii_alphanumeric() || b == b'_').then_some(b))(i)
}

/// `tag-value = { value-char | "\\", escaped-char } ;` (`value-char`: any character but `"`,
/// `\` and a line end; `escaped-char`: any but a line end, so `\"` and `\\` stand for `"`
/// and `\`) Gives the value as written.
pub fn tag_value(i: &[u8]) -> Parsed<'_, &[u8]> {
    let value_char = byte(|b| (!matches!(b, b'"' | b'\\' | b'\n' | b'\r')).then_some(b));
    let escaped_char = byte(|b| (!matches!(b, b'\n' | b'\r')).then_some(b));
    recognize(many0_count(alt((
        value_char,
        preceded(just(b'\\'), escaped_char),
    ))))
    .parse(i)
}

// ---------------------------------------------------------------------------------------
// Movetext
// ---------------------------------------------------------------------------------------

/// One element of movetext, as [`element`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element<'a> {
    /// `12.` (White to move) or `12...` (Black), or a number without dots (`12`).
    MoveNumber {
        /// The number.
        number: u32,
        /// Whether three dots or more announce a move of Black.
        black: bool,
    },
    /// A move: its text and what it says.
    Move(&'a [u8], SanPlus),
    /// `$14`.
    Nag(u8),
    /// A glyph standing apart from its move (`!?`).
    Glyph(Glyph),
    /// Dots standing apart from their number (`1. ... e5`): how many.
    Dots(usize),
    /// A comment `{...}`: its text between the braces.
    Comment(&'a [u8]),
    /// A comment to the end of the line: its text after `;`.
    LineComment(&'a [u8]),
    /// An escape line: its text after `%`.
    Escape(&'a [u8]),
    /// A variation, `(` to `)`, as written.
    Variation(&'a [u8]),
}

/// `result = "1-0" | "0-1" | "1/2-1/2" | "*" ;`
#[inline]
pub fn result(i: &[u8]) -> Parsed<'_, GameResult> {
    alt((
        value(GameResult::WhiteWins, literal(b"1-0")),
        value(GameResult::BlackWins, literal(b"0-1")),
        value(GameResult::Draw, literal(b"1/2-1/2")),
        value(GameResult::Unknown, just(b'*')),
    ))
    .parse(i)
}

/// `move-number = number0, { "." } ;` (1 to 4294967295; `12.` before White's move, `12...`
/// before Black's) Gives the number and whether three dots or more stand after it.
#[inline]
pub fn move_number(i: &[u8]) -> Parsed<'_, (u32, bool)> {
    map(
        (
            map_opt(number0, |d| value_of(d).filter(|&n| n > 0)),
            many0_count(just(b'.')),
        ),
        |(number, dots)| (number, dots >= 3),
    )
    .parse(i)
}

/// `dots = ".", { "." } ;` (dots standing apart from their number, `1. ... e5`: three or more
/// say that Black moves next) Gives how many.
#[inline]
pub fn dots(i: &[u8]) -> Parsed<'_, usize> {
    many1_count(just(b'.')).parse(i)
}

/// `nag = "$", number0 ;` (0 to 255) Gives its value.
#[inline]
pub fn nag(i: &[u8]) -> Parsed<'_, u8> {
    preceded(
        just(b'$'),
        map_opt(number0, |d| value_of(d).and_then(|n| u8::try_from(n).ok())),
    )
    .parse(i)
}

/// `comment = "{", { any-char - "}" }, "}" ;` (no line of it after the first holds only
/// tag pairs: such a line starts the next game, notation spec 9.3) Gives the text between
/// the braces.
pub fn comment(i: &[u8]) -> Parsed<'_, &[u8]> {
    let (body, _) = just(b'{')(i)?;
    let mut at = 0;
    loop {
        match body[at..]
            .iter()
            .position(|&b| matches!(b, b'}' | b'\n' | b'\r'))
        {
            None => return Err(nom::Err::Error(())),
            Some(p) if body[at + p] == b'}' => {
                return Ok((&body[at + p + 1..], &body[..at + p]));
            }
            Some(p) => {
                let (line, _) = eol(&body[at + p..])?;
                let (line, _) = opt(bom).parse(line)?;
                if tag_line(line).is_ok() {
                    return Err(nom::Err::Error(()));
                }
                at = body.len() - line.len();
            }
        }
    }
}

/// `line-comment = ";", { any-char - eol } ;` Gives the text after `;`.
#[inline]
pub fn line_comment(i: &[u8]) -> Parsed<'_, &[u8]> {
    preceded(just(b';'), rest_of_line).parse(i)
}

/// `escape-line = "%", { any-char - eol } ;` (at the start of a line, which the reader of the
/// line sees: [`game`]) Gives the text after `%`.
#[inline]
pub fn escape_line(i: &[u8]) -> Parsed<'_, &[u8]> {
    preceded(just(b'%'), rest_of_line).parse(i)
}

/// A token of movetext that starts with `first` and takes every symbol byte after it (and
/// `/` where `slash`): the extent of a move, of a move number without dots, of a result.
#[inline]
fn token(first: fn(u8) -> bool, slash: bool) -> impl Fn(&[u8]) -> Parsed<'_, &[u8]> {
    move |i| match i.first() {
        Some(&b) if first(b) => {
            let len = 1 + i[1..]
                .iter()
                .position(|&b| !(is_symbol(b) || (slash && b == b'/')))
                .unwrap_or(i.len() - 1);
            Ok((&i[len..], &i[..len]))
        }
        _ => Err(nom::Err::Error(())),
    }
}

/// A move number in movetext: with dots, or alone as a whole token.
fn numbered(i: &[u8]) -> Parsed<'_, Element<'_>> {
    let to_element = |(number, black)| Element::MoveNumber { number, black };
    alt((
        map(
            verify(consumed(move_number), |(text, _): &(&[u8], _)| {
                text.last() == Some(&b'.')
            }),
            move |(_, n)| to_element(n),
        ),
        map_opt(token(|b| b.is_ascii_digit(), true), move |text| {
            whole(move_number, text).map(to_element)
        }),
    ))
    .parse(i)
}

/// A move in movetext: a whole token, read by [`r#move`].
fn move_token(i: &[u8]) -> Parsed<'_, Element<'_>> {
    map_opt(token(|b| b.is_ascii_alphabetic(), false), |text| {
        whole(r#move, text).map(|m| Element::Move(text, m))
    })
    .parse(i)
}

/// A glyph standing apart: every `!` and `?` there, read whole by [`glyph`].
fn glyph_token(i: &[u8]) -> Parsed<'_, Element<'_>> {
    map_opt(
        recognize(many1_count(alt((just(b'!'), just(b'?'))))),
        |text| whole(glyph, text).map(Element::Glyph),
    )
    .parse(i)
}

/// The elements but variations and escape lines (which the caller knows the place of).
fn plain_element(i: &[u8]) -> Parsed<'_, Element<'_>> {
    alt((
        move_token,
        numbered,
        map(nag, Element::Nag),
        glyph_token,
        map(dots, Element::Dots),
        map(comment, Element::Comment),
        map(line_comment, Element::LineComment),
    ))
    .parse(i)
}

/// ```text
/// element = move-number | move | nag | glyph | dots | comment | line-comment
///         | escape-line | variation ;
/// ```
///
/// A move, a move number without dots and a result are whole tokens: each takes the symbol
/// bytes after it (`is_symbol`; a result and a number also `/`), so `e4Nf3` is no move and
/// `12e4` no number. `element` takes an escape line wherever it stands; in a game it is one
/// only at the start of a line ([`game`]).
pub fn element(i: &[u8]) -> Parsed<'_, Element<'_>> {
    alt((
        plain_element,
        map(escape_line, Element::Escape),
        map(variation, Element::Variation),
    ))
    .parse(i)
}

/// The places where an escape line may stand inside movetext: after a line end and blank
/// space. Gives what is read at `i`, where `line_start` says whether `i` starts a line.
fn element_at(i: &[u8], line_start: bool) -> Parsed<'_, Element<'_>> {
    if line_start && let Ok((rest, text)) = escape_line(i) {
        return Ok((rest, Element::Escape(text)));
    }
    plain_element(i)
}

/// Blank space in movetext: blanks, line ends, and a byte-order mark at the very start of a
/// line (`fresh` says whether `i` is one). Gives the rest, whether only blank space stands
/// before it on its line (`line_start` if no line end was passed) and the start of the last
/// line begun, if a line end was passed.
fn movetext_space(
    mut i: &[u8],
    mut line_start: bool,
    mut fresh: bool,
) -> (&[u8], bool, Option<&[u8]>) {
    let mut line_begin = None;
    loop {
        if let Ok((rest, _)) = blank(i) {
            i = rest;
            fresh = false;
        } else if let Ok((rest, _)) = eol(i) {
            i = rest;
            line_start = true;
            fresh = true;
            line_begin = Some(rest);
        } else if let (true, Ok((rest, _))) = (fresh, bom(i)) {
            i = rest;
            fresh = false;
        } else {
            return (i, line_start, line_begin);
        }
    }
}

/// `variation = "(", { element }, ")" ;` Gives the variation as written.
///
/// Read without recursion: nested variations only count their parentheses, so any depth
/// costs no stack.
pub fn variation(i: &[u8]) -> Parsed<'_, &[u8]> {
    let (mut rest, _) = just(b'(')(i)?;
    let mut depth = 1usize;
    let mut line_start = false;
    loop {
        (rest, line_start, _) = movetext_space(rest, line_start, false);
        match rest.first() {
            Some(b'(') => depth += 1,
            Some(b')') => {
                depth -= 1;
                if depth == 0 {
                    let len = i.len() - rest.len() + 1;
                    return Ok((&rest[1..], &i[..len]));
                }
            }
            _ => {
                (rest, _) = element_at(rest, line_start)?;
                line_start = false;
                continue;
            }
        }
        rest = &rest[1..];
        line_start = false;
    }
}

/// What the grammar reads in a game's movetext, flat: an element, or the start or end of a
/// variation, or the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item<'a> {
    /// An element other than a variation.
    Element(Element<'a>),
    /// `(`.
    VariationStart,
    /// `)`.
    VariationEnd,
    /// The result.
    Result(GameResult),
}

/// A game as the grammar reads it ([`game`]): its text, its tag pairs and the rest, in order,
/// each with its text (a slice of the input).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameText<'a> {
    /// The game's text, from the start of its first line to the start of the next game's
    /// (or the end of the input).
    pub text: &'a [u8],
    /// The tag pairs.
    pub tags: Vec<TagPair<'a>>,
    /// Comments and escape lines before the movetext, and the movetext.
    pub items: Vec<(&'a [u8], Item<'a>)>,
}

/// `movetext = { element }, [ result, { comment | line-comment | escape-line } ] ;`
/// (elements with blank space between them) Gives the items read, flat.
///
/// Reads from the start of a line to the end of its input, all of which must be movetext:
/// what [`game`] reads after the tags.
pub fn movetext(i: &[u8]) -> Parsed<'_, Vec<(&[u8], Item<'_>)>> {
    let mut game = GameText::default();
    let rest = game_body(i, &mut game, true)?;
    Ok((rest, game.items))
}

/// ```text
/// game = { tag-pair | comment | line-comment | escape-line | blank | eol }, movetext ;
/// ```
///
/// Reads one game from the start of a line: tag pairs and comments, then the movetext, up to
/// the first line after the movetext has begun whose first character other than blank
/// space is `[` (the next game), or the end of the input. Tag pairs inside the movetext,
/// unclosed comments and variations, and a result not at the end of the main line, are not
/// part of a game.
pub fn game(i: &[u8]) -> Parsed<'_, GameText<'_>> {
    let mut game = GameText::default();
    let rest = game_body(i, &mut game, false)?;
    game.text = &i[..i.len() - rest.len()];
    Ok((rest, game))
}

/// [`game`]'s work, into `game`; no tag pairs where `movetext_only`. Returns the rest.
fn game_body<'a>(
    i: &'a [u8],
    game: &mut GameText<'a>,
    movetext_only: bool,
) -> Result<&'a [u8], nom::Err<()>> {
    let fail = || Err(nom::Err::Error(()));
    let mut rest = i;
    let mut line_start = true;
    // At the very start of a line, where a byte-order mark is blank space.
    let mut fresh = true;
    let mut line_begin = i;
    let mut movetext = false;
    let mut ended = false;
    let mut depth = 0usize;
    loop {
        let line;
        (rest, line_start, line) = movetext_space(rest, line_start, fresh);
        fresh = false;
        if let Some(line) = line {
            line_begin = line;
        }
        let Some(&b) = rest.first() else {
            break;
        };
        let at = rest;
        match b {
            b'[' if movetext && line_start && !movetext_only => {
                return if depth == 0 { Ok(line_begin) } else { fail() };
            }
            b'[' if movetext || movetext_only => return fail(),
            b'[' => {
                let (after, pair) = tag_pair(rest)?;
                game.tags.push(pair);
                rest = after;
            }
            _ => {
                let item = if b == b'{' || b == b';' || (b == b'%' && line_start) {
                    let (after, element) = element_at(rest, line_start)?;
                    rest = after;
                    Item::Element(element)
                } else {
                    if ended {
                        return fail();
                    }
                    movetext = true;
                    match b {
                        b'(' => {
                            depth += 1;
                            rest = &rest[1..];
                            Item::VariationStart
                        }
                        b')' if depth > 0 => {
                            depth -= 1;
                            rest = &rest[1..];
                            Item::VariationEnd
                        }
                        _ => {
                            let as_result = (depth == 0)
                                .then(|| terminated(result, not_symbol).parse(rest).ok())
                                .flatten();
                            match as_result {
                                Some((after, r)) => {
                                    ended = true;
                                    rest = after;
                                    Item::Result(r)
                                }
                                None => {
                                    let (after, element) = plain_element(rest)?;
                                    rest = after;
                                    Item::Element(element)
                                }
                            }
                        }
                    }
                };
                game.items.push((&at[..at.len() - rest.len()], item));
            }
        }
        line_start = false;
    }
    if depth > 0 {
        return fail();
    }
    Ok(rest)
}

/// Nothing, or a byte that does not continue a token of movetext (nor `/`).
#[inline]
fn not_symbol(i: &[u8]) -> Parsed<'_, ()> {
    match i.first() {
        Some(&b) if is_symbol(b) || b == b'/' => Err(nom::Err::Error(())),
        _ => Ok((i, ())),
    }
}

/// `games = [ bom ], { blank | eol }, { game } ;` (the whole input: a file of games) Gives
/// the games.
pub fn games(i: &[u8]) -> Parsed<'_, Vec<GameText<'_>>> {
    let (mut rest, _) = opt(bom).parse(i)?;
    let mut out = Vec::new();
    loop {
        // Blank space before a game belongs to it, from its line's start.
        let (after, _, _) = movetext_space(rest, true, true);
        if after.is_empty() {
            return Ok((after, out));
        }
        let (after, game) = game(rest)?;
        if after.len() == rest.len() {
            return Err(nom::Err::Error(()));
        }
        out.push(game);
        rest = after;
    }
}
