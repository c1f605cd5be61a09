//! The grammar of position strings (notation spec, section 10, "position strings"), with the
//! squares, piece letters and numbers that moves share with them: one nom parser per
//! production, named after it, with the production's line in its documentation.
//!
//! Each parser reads its production at the start of its input and returns what it read,
//! borrowing from the input; none knows the variant beyond the letters that start a
//! two-letter piece name ([`TypedPawns`]). [`Position::from_fen`](crate::Position::from_fen)
//! reads a position string field by field with these parsers and checks what they read
//! against the variant. The grammar of moves, which uses the squares and letters defined here,
//! is in `kabir_notation::grammar`, which also gives these parsers under its name.
use std::fmt;

use nom::{
    Parser,
    branch::alt,
    combinator::{map, map_opt, opt, recognize, verify},
    multi::{many0, many0_count, many1_count, separated_list1},
    sequence::preceded,
};

use crate::Color;

/// What a production gives: the rest of the input and what was read from its start. A
/// failure carries nothing: readers report where the grammar stopped, or why, themselves.
pub type Parsed<'a, O> = nom::IResult<&'a [u8], O, ()>;

/// The largest number of files and ranks a square can name: files `a`..`p`, ranks `1`..`16`.
pub const MAX_FILES: u8 = 16;
/// See [`MAX_FILES`].
pub const MAX_RANKS: u8 = 16;

/// A square of the main board as written: file and rank, both counted from 0 (`a1` is `(0, 0)`).
///
/// Whether the board of a variant has this square is for the variant to say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    /// File index: `a` is 0.
    pub file: u8,
    /// Rank index: rank `1` is 0.
    pub rank: u8,
}

impl Coord {
    /// The square at `file` and `rank` (both from 0), if it is within the notation's range.
    pub const fn new(file: u8, rank: u8) -> Option<Coord> {
        if file < MAX_FILES && rank < MAX_RANKS {
            Some(Coord { file, rank })
        } else {
            None
        }
    }

    /// The file letter (`a` for file 0).
    pub const fn file_char(self) -> char {
        (b'a' + self.file) as char
    }

    /// Reads a whole square such as `e4` or `b10` ([`square`]).
    pub fn from_ascii(text: &[u8]) -> Option<Coord> {
        whole(square, text)
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), u32::from(self.rank) + 1)
    }
}

/// What `parser` reads from the whole of `text`, if it reads all of it.
pub fn whole<'a, O>(
    mut parser: impl Parser<&'a [u8], Output = O, Error = ()>,
    text: &'a [u8],
) -> Option<O> {
    match parser.parse(text) {
        Ok(([], out)) => Some(out),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Terminals
// ---------------------------------------------------------------------------------------

/// A failure to read at `i`.
#[inline]
fn refused<O>(i: &[u8]) -> Parsed<'_, O> {
    let _ = i;
    Err(nom::Err::Error(()))
}

/// A terminal symbol of one byte that `accept` maps to a value: the letters, digits and
/// marks the productions are made of. (Written out rather than taken from nom, whose byte
/// parsers go through calls that do not inline across crates, several per byte.)
#[inline]
pub fn byte<O>(accept: impl Fn(u8) -> Option<O>) -> impl Fn(&[u8]) -> Parsed<'_, O> {
    move |i| match i.split_first() {
        Some((&b, rest)) => match accept(b) {
            Some(out) => Ok((rest, out)),
            None => refused(i),
        },
        None => refused(i),
    }
}

/// A terminal symbol of one byte, `b`.
#[inline]
pub fn just(b: u8) -> impl Fn(&[u8]) -> Parsed<'_, u8> {
    byte(move |c| (c == b).then_some(c))
}

/// A terminal symbol of several bytes, `text`.
#[inline]
pub fn literal(text: &'static [u8]) -> impl Fn(&[u8]) -> Parsed<'_, &[u8]> {
    move |i| match i.strip_prefix(text) {
        Some(rest) => Ok((rest, &i[..text.len()])),
        None => refused(i),
    }
}

// ---------------------------------------------------------------------------------------
// Places and letters (shared with moves)
// ---------------------------------------------------------------------------------------

/// `file = "a" | "b" | ... | "p" ;` Gives the file's index (`a` is 0).
#[inline]
pub fn file(i: &[u8]) -> Parsed<'_, u8> {
    byte(|b| b.checked_sub(b'a').filter(|&f| f < MAX_FILES))(i)
}

/// `rank = nonzero-digit, [ digit ] ;` (1 to 16) Gives the rank's index (`1` is 0).
///
/// Two digits are read when there are two (`a10`): a digit never follows a square in a move
/// or a position string, so this is the only reading.
#[inline]
pub fn rank(i: &[u8]) -> Parsed<'_, u8> {
    map_opt((nonzero_digit, opt(digit)), |(d, e)| {
        let value = e.map_or(d, |e| d * 10 + e);
        (value <= MAX_RANKS).then(|| value - 1)
    })
    .parse(i)
}

/// `square = file, rank ;`
#[inline]
pub fn square(i: &[u8]) -> Parsed<'_, Coord> {
    map((file, rank), |(file, rank)| Coord { file, rank }).parse(i)
}

/// `piece = "A" | "B" | ... | "Z" ;` Gives the letter as written.
#[inline]
pub fn piece(i: &[u8]) -> Parsed<'_, u8> {
    byte(|b| b.is_ascii_uppercase().then_some(b))(i)
}

/// `lower-piece = "a" | "b" | ... | "z" ;` Gives the letter as written.
#[inline]
pub fn lower_piece(i: &[u8]) -> Parsed<'_, u8> {
    byte(|b| b.is_ascii_lowercase().then_some(b))(i)
}

// ---------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------

/// `number = nonzero-digit, { digit } ;` Gives the digits.
pub fn number(i: &[u8]) -> Parsed<'_, &[u8]> {
    recognize((nonzero_digit, many0_count(digit))).parse(i)
}

/// `number0 = digit, { digit } ;` Gives the digits.
pub fn number0(i: &[u8]) -> Parsed<'_, &[u8]> {
    recognize(many1_count(digit)).parse(i)
}

/// `digit = "0" | nonzero-digit ;` Gives its value.
#[inline]
pub fn digit(i: &[u8]) -> Parsed<'_, u8> {
    byte(|b| b.is_ascii_digit().then(|| b - b'0'))(i)
}

/// `nonzero-digit = "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" ;` Gives its value.
#[inline]
pub fn nonzero_digit(i: &[u8]) -> Parsed<'_, u8> {
    byte(|b| matches!(b, b'1'..=b'9').then(|| b - b'0'))(i)
}

/// The value of a [`number`] or [`number0`], if it fits a `u32`.
pub fn value_of(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |n, &d| {
        n.checked_mul(10)?
            .checked_add(u32::from(d.checked_sub(b'0').filter(|&d| d < 10)?))
    })
}

// ---------------------------------------------------------------------------------------
// Position strings
// ---------------------------------------------------------------------------------------

/// The uppercase letters that start a two-letter piece name in a variant: `P` in Tamerlane,
/// whose pawns are `PR`, `PN`, ... In a position string such a letter (of either case) is
/// always followed by a second letter of its case ([`cell_piece`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TypedPawns(u32);

impl TypedPawns {
    /// No two-letter names: Shatranj's `P` is a pawn on its own.
    pub const NONE: TypedPawns = TypedPawns(0);

    /// These letters and `letter` (either case).
    pub const fn with(self, letter: u8) -> TypedPawns {
        let upper = letter.to_ascii_uppercase();
        if upper.is_ascii_uppercase() {
            TypedPawns(self.0 | 1 << (upper - b'A'))
        } else {
            self
        }
    }

    /// Whether `letter` (either case) starts a two-letter name.
    pub const fn contains(self, letter: u8) -> bool {
        let upper = letter.to_ascii_uppercase();
        upper.is_ascii_uppercase() && self.0 & 1 << (upper - b'A') != 0
    }
}

/// One cell of a rank in a position string's board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell<'a> {
    /// A piece as written: its letter or letters and any primes (`K`, `pr`, `PP''`).
    Piece(&'a [u8]),
    /// A run of empty cells: its digits (`11`).
    Empty(&'a [u8]),
}

/// `cell-piece = ( "P", piece | "p", lower-piece | piece | lower-piece ), { "'" } ;`
///
/// In a variant with typed pawns (`typed`), their letter always starts a two-letter name
/// (`PR`, `pk`), so it is tried first and never read alone. Gives the piece as written,
/// primes included.
pub fn cell_piece(typed: TypedPawns) -> impl Fn(&[u8]) -> Parsed<'_, &[u8]> {
    move |i| {
        let starts_name = move |b: &u8| typed.contains(*b);
        let alone = move |b: &u8| !typed.contains(*b);
        recognize((
            alt((
                recognize((verify(piece, starts_name), piece)),
                recognize((verify(lower_piece, starts_name), lower_piece)),
                recognize(verify(alt((piece, lower_piece)), alone)),
            )),
            many0_count(just(b'\'')),
        ))
        .parse(i)
    }
}

/// `rank-cells = { cell-piece | number } ;` (no two numbers in a row: a number takes all
/// the digits there are)
pub fn rank_cells(typed: TypedPawns) -> impl Fn(&[u8]) -> Parsed<'_, Vec<Cell<'_>>> {
    move |i| {
        many0(alt((
            map(cell_piece(typed), Cell::Piece),
            map(number, Cell::Empty),
        )))
        .parse(i)
    }
}

/// `board = rank-cells, { "/", rank-cells } ;` (top rank first)
pub fn board(typed: TypedPawns) -> impl Fn(&[u8]) -> Parsed<'_, Vec<Vec<Cell<'_>>>> {
    move |i| separated_list1(just(b'/'), rank_cells(typed)).parse(i)
}

/// `side = "w" | "b" | "W" | "B" ;` (uppercase is read, never written)
pub fn side(i: &[u8]) -> Parsed<'_, Color> {
    byte(|b| match b {
        b'w' | b'W' => Some(Color::White),
        b'b' | b'B' => Some(Color::Black),
        _ => None,
    })(i)
}

/// `state = "-" | ( "K" | "k" ), { "K" | "k" } ;` (each letter at most once) Gives the field
/// as written.
pub fn state(i: &[u8]) -> Parsed<'_, &[u8]> {
    alt((
        recognize(just(b'-')),
        recognize(many1_count(alt((just(b'K'), just(b'k'))))),
    ))
    .parse(i)
}

/// `waiting-order = square, { ",", square } ;` (the waiting pawns, White's in order of
/// arrival, then Black's)
pub fn waiting_order(i: &[u8]) -> Parsed<'_, Vec<Coord>> {
    separated_list1(just(b','), square).parse(i)
}

/// `ws`: blank space between the fields of a position string, any white-space character
/// (Unicode's).
pub fn ws(i: &[u8]) -> Parsed<'_, &[u8]> {
    let mut len = 0;
    while let Some(c) = first_char(&i[len..])
        && c.is_whitespace()
    {
        len += c.len_utf8();
    }
    if len == 0 {
        return Err(nom::Err::Error(()));
    }
    Ok((&i[len..], &i[..len]))
}

/// The character at the start of `bytes`, if they start with one in UTF-8.
fn first_char(bytes: &[u8]) -> Option<char> {
    let len = match *bytes.first()? {
        0..0x80 => 1,
        0xC0..0xE0 => 2,
        0xE0..0xF0 => 3,
        _ => 4,
    };
    std::str::from_utf8(bytes.get(..len)?).ok()?.chars().next()
}

/// A position string as read by [`position`]: each field as its production gives it, `None`
/// for those left out at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionText<'a> {
    /// The board, top rank first.
    pub board: Vec<Vec<Cell<'a>>>,
    /// The side to move.
    pub side: Color,
    /// The swap rights as written (`-`, `K`, `k`, `Kk`).
    pub state: Option<&'a [u8]>,
    /// The halfmove clock's digits.
    pub halfmove: Option<&'a [u8]>,
    /// The move number's digits.
    pub fullmove: Option<&'a [u8]>,
    /// The waiting order.
    pub waiting_order: Option<Vec<Coord>>,
}

/// A field after the board: blank space and the field, if there is one.
fn then<'a, O>(
    field: impl Parser<&'a [u8], Output = O, Error = ()>,
) -> impl Parser<&'a [u8], Output = Option<O>, Error = ()> {
    opt(preceded(ws, field))
}

/// ```text
/// position = { ws }, board, ws, side, [ ws, state, [ ws, "-", [ ws, number0,
///            [ ws, number0, [ ws, waiting-order ] ] ] ] ], { ws } ;
/// ```
///
/// The fields are the board, the side to move, the swap rights, the en passant field (always
/// `-`), the halfmove clock and the move number, then the waiting order; any after the side
/// to move may be left out from the end. [`Position::from_fen`](crate::Position::from_fen)
/// reads the same fields with the same parsers, one field at a time, so that it can say what
/// is wrong with a field in the variant's terms before it reads the next.
pub fn position(typed: TypedPawns) -> impl Fn(&[u8]) -> Parsed<'_, PositionText<'_>> {
    move |i| {
        let (i, _) = opt(ws).parse(i)?;
        let (i, (board, _, side, rest)) = (
            board(typed),
            ws,
            side,
            then((
                state,
                then((
                    just(b'-'),
                    then((number0, then((number0, then(waiting_order))))),
                )),
            )),
        )
            .parse(i)?;
        let (i, _) = opt(ws).parse(i)?;
        let mut text = PositionText {
            board,
            side,
            state: None,
            halfmove: None,
            fullmove: None,
            waiting_order: None,
        };
        if let Some((state, rest)) = rest {
            text.state = Some(state);
            if let Some((_, Some((halfmove, rest)))) = rest {
                text.halfmove = Some(halfmove);
                if let Some((fullmove, order)) = rest {
                    text.fullmove = Some(fullmove);
                    text.waiting_order = order;
                }
            }
        }
        Ok((i, text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TYPED: TypedPawns = TypedPawns::NONE.with(b'P');

    fn variants() -> &'static [std::sync::Arc<crate::Variant>] {
        static VARIANTS: std::sync::OnceLock<Vec<std::sync::Arc<crate::Variant>>> =
            std::sync::OnceLock::new();
        VARIANTS.get_or_init(crate::variants::builtins)
    }

    fn all<'a, O>(parsed: Parsed<'a, O>) -> Option<O> {
        match parsed {
            Ok(([], out)) => Some(out),
            _ => None,
        }
    }

    #[test]
    fn places_and_numbers() {
        assert_eq!(all(square(b"k10")), Coord::new(10, 9));
        assert_eq!(all(square(b"p16")), Coord::new(15, 15));
        for bad in [&b"a0"[..], b"a01", b"a17", b"q1", b"A1", b""] {
            assert_eq!(all(square(bad)), None, "{bad:?}");
        }
        assert_eq!(
            square(b"a10bc"),
            Ok((&b"bc"[..], Coord { file: 0, rank: 9 }))
        );
        assert_eq!(number(b"107x"), Ok((&b"x"[..], &b"107"[..])));
        assert!(number(b"07").is_err());
        assert_eq!(all(number0(b"007")), Some(&b"007"[..]));
        assert_eq!(value_of(b"4294967295"), Some(u32::MAX));
        assert_eq!(value_of(b"4294967296"), None);
    }

    #[test]
    fn cell_pieces_with_and_without_typed_pawns() {
        assert_eq!(all(cell_piece(TYPED)(b"PR")), Some(&b"PR"[..]));
        assert_eq!(all(cell_piece(TYPED)(b"pp''")), Some(&b"pp''"[..]));
        // Where `P` starts a two-letter name it is never read alone, nor with a letter of the
        // other case.
        assert!(cell_piece(TYPED)(b"P1").is_err());
        assert!(cell_piece(TYPED)(b"Pr").is_err());
        assert_eq!(
            cell_piece(TypedPawns::NONE)(b"PP"),
            Ok((&b"P"[..], &b"P"[..]))
        );
        assert_eq!(all(cell_piece(TYPED)(b"K'")), Some(&b"K'"[..]));
        let rank = all(rank_cells(TYPED)(b"1PPpk10")).unwrap_or_default();
        assert_eq!(
            rank,
            [
                Cell::Empty(b"1"),
                Cell::Piece(b"PP"),
                Cell::Piece(b"pk"),
                Cell::Empty(b"10")
            ]
        );
    }

    #[test]
    fn position_strings() {
        let text = b" e8l/10/4k5/10/10/10/10/10/1BAJKMHON1/E8L\tb kK - 12 40 c10,a10 ";
        let p = all(position(TYPED)(text)).unwrap_or_else(|| panic!("not read"));
        assert_eq!(p.board.len(), 10);
        assert_eq!(p.side, Color::Black);
        assert_eq!(p.state, Some(&b"kK"[..]));
        assert_eq!(p.halfmove, Some(&b"12"[..]));
        assert_eq!(p.fullmove, Some(&b"40"[..]));
        assert_eq!(
            p.waiting_order,
            Some(vec![Coord { file: 2, rank: 9 }, Coord { file: 0, rank: 9 }])
        );
        let short =
            all(position(TYPED)(b"8/8/8/8/8/8/8/8 w")).unwrap_or_else(|| panic!("not read"));
        assert_eq!((short.state, short.fullmove), (None, None));
        // The side to move is the one field that must follow the board.
        assert!(all(position(TYPED)(b"8/8/8/8/8/8/8/8")).is_none());
        assert!(all(position(TYPED)(b"8/8/8/8/8/8/8/8 w - e3")).is_none());
    }

    /// Position strings from fragments of the grammar's alphabet and every start position,
    /// mutated.
    fn position_text() -> impl Strategy<Value = (usize, String)> {
        const BITS: &[&str] = &[
            "k", "K", "p", "P", "pp", "PP'", "pr", "PR", "Pr", "PX", "r", "N", "q", "e", "1", "3",
            "8", "10", "11", "12", "0", "/", "'", "!", "é", " ", "  ", "\t", "\u{a0}", " w", " b",
            " W", " -", " K", " Kk", " kK", " KK", " 0", " 1", " 07", " +5", " c10,a10", " c10,",
        ];
        (
            0..variants().len(),
            prop::collection::vec(
                (any::<usize>(), prop::sample::select(BITS), any::<bool>()),
                0..4,
            ),
        )
            .prop_map(|(v, edits)| {
                let variant = &variants()[v];
                let mut text: Vec<char> = variant.start_fen().chars().collect();
                for (at, bit, insert) in edits {
                    let at = at % (text.len() + 1);
                    if insert || at == text.len() {
                        text.splice(at..at, bit.chars());
                    } else {
                        text.remove(at);
                    }
                }
                (v, text.into_iter().collect())
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3_000))]

        /// Everything `Position::from_fen` reads, field by field, `position` reads whole.
        #[test]
        fn the_grammar_reads_what_the_reader_reads((v, text) in position_text()) {
            let variant = &variants()[v];
            if crate::Position::from_fen(variant, &text).is_ok() {
                let typed = [TypedPawns::NONE, TYPED]
                    .into_iter()
                    .any(|p| all(position(p)(text.as_bytes())).is_some());
                prop_assert!(typed, "{}", text);
            }
        }
    }
}
