//! The syntax of moves: standard algebraic notation (SAN), long algebraic and coordinate forms.
//!
//! [`SanPlus::from_ascii`] only reads text. It knows nothing of the variant or the position:
//! a piece is an uppercase letter that the variant maps to a piece kind later, and a square is
//! a file and a rank that the board may or may not have. Resolving a [`San`] against a
//! position (finding the one legal move it names) is a separate step that can fail with an
//! illegal or an ambiguous move, which are different errors from the [`SanError`] here.
//!
//! The text is read by the notation's grammar ([`grammar`], the productions of
//! `notation-spec/README.md` section 10 in nom); the fast forms (`e4`, `Nf3`, `exd5`), most
//! moves of most game records, are also read straight from their bytes ([`FastSan`],
//! [`PackedFastSan`]), with the same results. Accepted spellings:
//!
//! | move | SAN | long algebraic | coordinate |
//! | --- | --- | --- | --- |
//! | pawn step | `e4` | `e3-e4` | `e3e4` |
//! | capture | `Nxf3`, `exd5` | `Ng1xf3` | `g1f3` |
//! | promotion | `e8=Q` (`e8Q`, `e8=F`) | `e7-e8=Q` | `e7e8q` |
//! | lift / relocation of the pawn of pawns | `PPe5`, `PPxe5`, `PPf3` | | `a10e5` |
//! | king swap | `K:e2`, `K:d9=R` | | `f2e2` |
//! | citadel entry | `Kbc`, `Awc` | `Ka10-bc` | `a10bc` |
//!
//! followed by an optional check mark (`+`, `#`) and an optional glyph (`!`, `?`, `!!`, `??`,
//! `!?`, `?!`).
use std::fmt;

use super::grammar;
use kabir_rules::fen::grammar::whole;

pub use kabir_rules::fen::grammar::{Coord, MAX_FILES, MAX_RANKS};

/// A citadel, named `wc` (White's) or `bc` (Black's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Citadel {
    /// White's citadel, `wc`.
    White,
    /// Black's citadel, `bc`.
    Black,
}

impl Citadel {
    /// The name used in notation and in variant definitions: `wc` or `bc`.
    pub const fn name(self) -> &'static str {
        match self {
            Citadel::White => "wc",
            Citadel::Black => "bc",
        }
    }

    /// Reads `wc` or `bc` ([`grammar::citadel`]).
    pub fn from_ascii(text: &[u8]) -> Option<Citadel> {
        whole(grammar::citadel, text)
    }
}

impl fmt::Display for Citadel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Anywhere a piece can stand: a square of the main board or a citadel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// A square of the main board.
    Board(Coord),
    /// A citadel.
    Citadel(Citadel),
}

impl Place {
    /// Reads a square (`e4`) or a citadel name (`wc`) ([`grammar::place`]).
    pub fn from_ascii(text: &[u8]) -> Option<Place> {
        whole(grammar::place, text)
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Board(c) => c.fmt(f),
            Place::Citadel(c) => c.fmt(f),
        }
    }
}

/// A piece letter as written: always stored uppercase (`A`..`Z`). The variant maps it,
/// aliases included, to a piece kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Letter(u8);

impl Letter {
    /// The letter for an ASCII letter of either case, stored uppercase.
    pub const fn new(byte: u8) -> Option<Letter> {
        if byte.is_ascii_alphabetic() {
            Some(Letter(byte.to_ascii_uppercase()))
        } else {
            None
        }
    }

    /// The uppercase letter.
    pub const fn char(self) -> char {
        self.0 as char
    }

    /// The uppercase letter as a byte.
    pub const fn byte(self) -> u8 {
        self.0
    }
}

impl fmt::Display for Letter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// What a move says about where the piece comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Nothing: only one piece of the kind can make the move.
    None,
    /// A file (from 0): `Nbd7`, `exd5`.
    File(u8),
    /// A rank (from 0): `R1a3`.
    Rank(u8),
    /// A whole square or citadel: `Ng1f3`, long algebraic and coordinate moves.
    Place(Place),
}

/// A move as written, without check mark and glyph. No legality is implied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum San {
    /// An ordinary move or capture, a promotion, a citadel entry; also every long algebraic
    /// and coordinate move.
    ///
    /// `piece` is `None` for a pawn move (`e4`, `exd5`), and for a coordinate move
    /// (`g1f3`, `e2-e4`), where `origin` is a whole place and the piece is whatever stands
    /// there. A coordinate move can therefore also name a lift, a relocation or a king swap,
    /// which resolution recognises from the position.
    Normal {
        /// The piece letter, if written (`P` for a pawn is accepted).
        piece: Option<Letter>,
        /// The origin or disambiguation.
        origin: Origin,
        /// Whether `x` was written. Captures are known from the position; this is only
        /// checked to warn about a wrong mark.
        capture: bool,
        /// Destination square or citadel.
        to: Place,
        /// Promotion letter, if written (`=Q`, `Q`, or lowercase `q` in coordinate form).
        promotion: Option<Letter>,
        /// The opponent's waiting pawn that this capture promotes, and what it becomes, if
        /// written: `Exe2_c10=E` (promotion to lost pieces).
        waiting: Option<(Coord, Letter)>,
    },
    /// The pawn of pawns leaves its waiting square on the last rank: `PPe5` (a lift onto an
    /// empty square, or the relocation after its second arrival), `PPxe5` (a lift that
    /// removes the occupant). Which of the two it is follows from the pawn's arrivals.
    PawnOfPawns {
        /// Whether `x` was written (a lift that removes an occupant).
        capture: bool,
        /// Target square.
        to: Coord,
    },
    /// The king swap: `K:e2` exchanges the king with the own piece on e2. A pawn that the
    /// swap puts on its last rank promotes: `K:d9=R`.
    Swap {
        /// The partner's square.
        with: Place,
        /// Promotion letter of the partner, if written.
        promotion: Option<Letter>,
    },
}

/// Check or mate mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suffix {
    /// `+`
    Check,
    /// `#`
    Mate,
}

impl Suffix {
    /// `+` or `#`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Suffix::Check => "+",
            Suffix::Mate => "#",
        }
    }
}

/// A move annotation glyph, equivalent to the NAGs `$1` to `$6`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Glyph {
    /// `!` ($1)
    Good,
    /// `?` ($2)
    Mistake,
    /// `!!` ($3)
    Brilliant,
    /// `??` ($4)
    Blunder,
    /// `!?` ($5)
    Speculative,
    /// `?!` ($6)
    Dubious,
}

impl Glyph {
    /// All glyphs, in NAG order.
    pub const ALL: [Glyph; 6] = [
        Glyph::Good,
        Glyph::Mistake,
        Glyph::Brilliant,
        Glyph::Blunder,
        Glyph::Speculative,
        Glyph::Dubious,
    ];

    /// The glyph's text.
    pub const fn as_str(self) -> &'static str {
        match self {
            Glyph::Good => "!",
            Glyph::Mistake => "?",
            Glyph::Brilliant => "!!",
            Glyph::Blunder => "??",
            Glyph::Speculative => "!?",
            Glyph::Dubious => "?!",
        }
    }

    /// The equivalent numeric annotation glyph (1 to 6).
    pub const fn nag(self) -> u8 {
        match self {
            Glyph::Good => 1,
            Glyph::Mistake => 2,
            Glyph::Brilliant => 3,
            Glyph::Blunder => 4,
            Glyph::Speculative => 5,
            Glyph::Dubious => 6,
        }
    }

    /// Reads a whole glyph such as `!?` ([`grammar::glyph`]).
    pub fn from_ascii(text: &[u8]) -> Option<Glyph> {
        whole(grammar::glyph, text)
    }
}

/// A move with its optional check mark and glyph, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SanPlus {
    /// The move.
    pub san: San,
    /// `+` or `#`, if written. Resolution checks it and warns when it is missing or wrong.
    pub suffix: Option<Suffix>,
    /// `!`, `?`, ..., if written.
    pub glyph: Option<Glyph>,
}

/// Why a move's text is not a move. Each kind says what was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SanError {
    /// The text is empty.
    Empty,
    /// No destination (a square such as `e4` or a citadel `wc`/`bc`) at the end of the move.
    MissingDestination,
    /// The promotion after `=` is not a piece letter.
    BadPromotion,
    /// The text before the destination is not a piece letter followed by a file, a rank, a
    /// square or a citadel.
    BadOrigin,
    /// `-` with nothing before it to say where the piece comes from.
    DashWithoutOrigin,
    /// The lift or relocation `PP` is not followed by a square of the main board.
    BadPawnOfPawns,
    /// The king swap `K:` is not followed by a square.
    BadSwap,
    /// `_` is not followed by a square, `=` and a piece letter.
    BadWaitingPromotion,
    /// Castling (`O-O`, `0-0`) does not exist in the Shatranj family.
    Castling,
    /// A null move (`--`, `Z0`, `0000`) is not a move in the Shatranj family.
    NullMove,
}

impl SanError {
    /// What the reader expected, in words.
    pub const fn expected(self) -> &'static str {
        match self {
            SanError::Empty => "a move",
            SanError::MissingDestination => {
                "a destination square or citadel at the end of the move"
            }
            SanError::BadPromotion => "a piece letter after '='",
            SanError::BadOrigin => {
                "a piece letter, then an optional file, rank, square or citadel, then the destination"
            }
            SanError::DashWithoutOrigin => "a from-square before '-'",
            SanError::BadPawnOfPawns => {
                "a square after 'PP' (lift or relocation of the pawn of pawns)"
            }
            SanError::BadSwap => "a square after 'K:' (king swap)",
            SanError::BadWaitingPromotion => {
                "a square, '=' and a piece letter after '_' (the promotion of a waiting pawn)"
            }
            SanError::Castling => "a move (castling does not exist in the Shatranj family)",
            SanError::NullMove => "a move (null moves are not allowed)",
        }
    }
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}", self.expected())
    }
}

impl std::error::Error for SanError {}

/// The file index of a file letter `a`..`p`.
#[inline]
pub const fn file_index(byte: u8) -> Option<u8> {
    if byte >= b'a' && byte < b'a' + MAX_FILES {
        Some(byte - b'a')
    } else {
        None
    }
}

/// The rank index of a rank number `1`..`16` (no leading zero).
#[inline]
pub fn rank_index(text: &[u8]) -> Option<u8> {
    let value = match *text {
        [d @ b'1'..=b'9'] => d - b'0',
        [d @ b'1'..=b'9', e @ b'0'..=b'9'] => (d - b'0') * 10 + (e - b'0'),
        _ => return None,
    };
    if value <= MAX_RANKS {
        Some(value - 1)
    } else {
        None
    }
}

impl San {
    /// Reads a move without suffixes ([`grammar::special`] or [`grammar::ordinary`], the
    /// whole text). See [`SanPlus::from_ascii`] for one with them.
    pub fn from_ascii(text: &[u8]) -> Result<San, SanError> {
        grammar::read_move_body(text)
    }

    /// Whether this is a coordinate move: no piece letter and a whole origin place.
    pub const fn is_coordinate(&self) -> bool {
        matches!(
            self,
            San::Normal {
                piece: None,
                origin: Origin::Place(_),
                ..
            }
        )
    }
}

impl fmt::Display for San {
    /// Writes the move back in SAN form as given (no disambiguation is added or removed).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            San::Normal {
                piece,
                origin,
                capture,
                to,
                promotion,
                waiting,
            } => {
                if let Some(p) = piece {
                    p.fmt(f)?;
                }
                match origin {
                    Origin::None => {}
                    Origin::File(file) => write!(f, "{}", (b'a' + file) as char)?,
                    Origin::Rank(rank) => write!(f, "{}", u32::from(rank) + 1)?,
                    Origin::Place(place) => place.fmt(f)?,
                }
                if capture {
                    f.write_str("x")?;
                }
                to.fmt(f)?;
                if let Some(p) = promotion {
                    write!(f, "={p}")?;
                }
                if let Some((square, p)) = waiting {
                    write!(f, "_{square}={p}")?;
                }
                Ok(())
            }
            San::PawnOfPawns { capture, to } => {
                write!(f, "PP{}{to}", if capture { "x" } else { "" })
            }
            San::Swap { with, promotion } => {
                write!(f, "K:{with}")?;
                if let Some(p) = promotion {
                    write!(f, "={p}")?;
                }
                Ok(())
            }
        }
    }
}

/// The fast forms of a move that name only a piece (or a pawn) and a destination, read
/// straight from the text: `e4`, `exd5`, `Nf3`, `Rxc10`, each with an optional check mark and
/// glyph. These are most moves of most game records; replay resolves them without building a
/// [`SanPlus`]. Anything else (disambiguation, promotion, citadels, special moves, long
/// algebraic) is `None` here and goes the general way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastSan {
    /// The piece letter, as written (uppercase); `None` for a pawn.
    pub piece: Option<u8>,
    /// The origin file (from 0) of a pawn capture (`exd5`).
    pub file: Option<u8>,
    /// Whether `x` was written.
    pub capture: bool,
    /// The destination.
    pub to: Coord,
    /// The check or mate mark, if written.
    pub suffix: Option<Suffix>,
    /// The length of the move without its mark and glyph.
    pub len: usize,
}

impl FastSan {
    /// Reads one of the fast forms; `None` for any other text.
    #[inline]
    pub fn from_ascii(text: &[u8]) -> Option<FastSan> {
        PackedFastSan::of(text).get()
    }

    /// The move as a [`SanPlus`], with the glyph that `text`, the move's text, ends with.
    #[inline]
    pub fn san_plus(&self, text: &[u8]) -> SanPlus {
        let glyph_at = self.len + usize::from(self.suffix.is_some());
        SanPlus {
            san: San::Normal {
                piece: self.piece.and_then(Letter::new),
                origin: self.file.map_or(Origin::None, Origin::File),
                capture: self.capture,
                to: Place::Board(self.to),
                promotion: None,
                waiting: None,
            },
            suffix: self.suffix,
            glyph: text.get(glyph_at..).and_then(Glyph::from_ascii),
        }
    }
}

/// A move's [`FastSan`] in four bytes, as its token keeps it (see
/// [`TokenKind::Move`](super::game::TokenKind::Move)): the reader reads every move's form
/// once, and replay takes it from here instead of reading the text again. Empty for a move
/// written in any other form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PackedFastSan(u32);

impl PackedFastSan {
    /// No fast form: the move is written otherwise (or its form was not kept).
    pub const NONE: PackedFastSan = PackedFastSan(0);

    const PRESENT: u32 = 1 << 31;

    /// The fast form of a move's text, or [`PackedFastSan::NONE`]. Reads straight into the
    /// packed form: the reader does this for every move.
    #[inline(always)]
    pub fn of(text: &[u8]) -> PackedFastSan {
        Self::read(text).unwrap_or(PackedFastSan::NONE)
    }

    #[inline(always)]
    fn read(text: &[u8]) -> Option<PackedFastSan> {
        let mut end = text.len();
        let mut mark = 0;
        // Most moves end in their square's rank: no glyph and no mark to look for.
        if !text.last()?.is_ascii_digit() {
            // A glyph is at most two characters from `!?`.
            for _ in 0..2 {
                if end > 0 && matches!(text[end - 1], b'!' | b'?') {
                    end -= 1;
                }
            }
            mark = match text.get(end.wrapping_sub(1)) {
                Some(b'+') => 1,
                Some(b'#') => 2,
                _ => 0,
            };
            if mark != 0 {
                end -= 1;
            }
        }
        let body = text.get(..end)?;
        // The file is kept plus one, 0 for none, as `pack` takes it.
        let (piece, file, capture, square) = match *body {
            [p @ b'A'..=b'Z', b'x', ref square @ ..] => (p, 0, true, square),
            [p @ b'A'..=b'Z', ref square @ ..] => (p, 0, false, square),
            [f, b'x', ref square @ ..] => (0, file_index(f)? + 1, true, square),
            ref square => (0, 0, false, square),
        };
        let (&f, rank) = square.split_first()?;
        let to = Coord::new(file_index(f)?, rank_index(rank)?)?;
        Some(Self::pack(piece, file, capture, to, mark, end))
    }

    /// Packs a fast form (see `PackedFastSan::pack`).
    #[inline]
    pub fn new(s: &FastSan) -> PackedFastSan {
        let mark = match s.suffix {
            None => 0,
            Some(Suffix::Check) => 1,
            Some(Suffix::Mate) => 2,
        };
        let file = s.file.map_or(0, |f| f + 1);
        Self::pack(s.piece.unwrap_or(0), file, s.capture, s.to, mark, s.len)
    }

    /// The one place of the layout: the letter in 7 bits (0 for a pawn), the origin file
    /// plus one in 5 (0 for none), one bit for `x`, 4 bits each for the destination's file
    /// and rank, 2 for the mark (1 `+`, 2 `#`) and 3 for the length (at most 5).
    #[inline(always)]
    fn pack(piece: u8, file: u8, capture: bool, to: Coord, mark: u32, len: usize) -> PackedFastSan {
        PackedFastSan(
            Self::PRESENT
                | u32::from(piece & 0x7F)
                | u32::from(file & 0x1F) << 7
                | u32::from(capture) << 12
                | u32::from(to.file & 0x0F) << 13
                | u32::from(to.rank & 0x0F) << 17
                | (mark & 3) << 21
                | (len.min(7) as u32) << 23,
        )
    }

    /// The length of the fast form's move text (its mark not counted) and whether a mark
    /// was written, as [`PackedFastSan::get`] gives them, without unpacking the rest.
    #[inline(always)]
    pub fn text_len(self) -> Option<(usize, bool)> {
        let v = self.0;
        (v & Self::PRESENT != 0).then_some(((v >> 23 & 7) as usize, v >> 21 & 3 != 0))
    }

    /// The fast form, if the move has one.
    #[inline]
    pub fn get(self) -> Option<FastSan> {
        let v = self.0;
        if v & Self::PRESENT == 0 {
            return None;
        }
        let piece = (v & 0x7F) as u8;
        let file = (v >> 7 & 0x1F) as u8;
        Some(FastSan {
            piece: (piece != 0).then_some(piece),
            file: file.checked_sub(1),
            capture: v >> 12 & 1 != 0,
            to: Coord {
                file: (v >> 13 & 0x0F) as u8,
                rank: (v >> 17 & 0x0F) as u8,
            },
            suffix: match v >> 21 & 3 {
                1 => Some(Suffix::Check),
                2 => Some(Suffix::Mate),
                _ => None,
            },
            len: (v >> 23 & 7) as usize,
        })
    }
}

impl SanPlus {
    /// Reads a move with optional check mark and glyph, such as `Nbxd7+!?`: the whole text
    /// as [`grammar::move`](../grammar/fn.move.html) reads it ([`grammar::read_move`]), or why
    /// it is not a move.
    ///
    /// The fast forms ([`FastSan`]: `e4`, `exd5`, `Nf3`, `Rxc10`, most moves of most game
    /// records) are read straight from the bytes, anything else by the grammar; a property
    /// test holds the two to the same results.
    #[inline]
    pub fn from_ascii(text: &[u8]) -> Result<SanPlus, SanError> {
        match FastSan::from_ascii(text) {
            Some(fast) => Ok(fast.san_plus(text)),
            None => grammar::read_move(text),
        }
    }

    /// Checks that `text` is a move, without building it: what the reader does for every
    /// move. Agrees with [`SanPlus::from_ascii`].
    #[inline(always)]
    pub fn check(text: &[u8]) -> Result<(), SanError> {
        if PackedFastSan::of(text) != PackedFastSan::NONE {
            Ok(())
        } else {
            Self::check_general(text)
        }
    }

    #[inline(never)]
    fn check_general(text: &[u8]) -> Result<(), SanError> {
        grammar::read_move(text).map(|_| ())
    }
}

impl std::str::FromStr for SanPlus {
    type Err = SanError;

    fn from_str(s: &str) -> Result<SanPlus, SanError> {
        SanPlus::from_ascii(s.as_bytes())
    }
}

impl std::str::FromStr for San {
    type Err = SanError;

    fn from_str(s: &str) -> Result<San, SanError> {
        San::from_ascii(s.as_bytes())
    }
}

impl fmt::Display for SanPlus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.san.fmt(f)?;
        if let Some(s) = self.suffix {
            f.write_str(s.as_str())?;
        }
        if let Some(g) = self.glyph {
            f.write_str(g.as_str())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sq(text: &str) -> Coord {
        Coord::from_ascii(text.as_bytes()).unwrap_or(Coord { file: 99, rank: 99 })
    }

    fn normal(text: &str) -> (Option<char>, Origin, bool, Place, Option<char>) {
        match San::from_ascii(text.as_bytes()) {
            Ok(San::Normal {
                piece,
                origin,
                capture,
                to,
                promotion,
                waiting: None,
            }) => (
                piece.map(Letter::char),
                origin,
                capture,
                to,
                promotion.map(Letter::char),
            ),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn board(text: &str) -> Place {
        Place::Board(sq(text))
    }

    #[test]
    fn squares() {
        assert_eq!(sq("a1"), Coord { file: 0, rank: 0 });
        assert_eq!(sq("k10"), Coord { file: 10, rank: 9 });
        assert_eq!(sq("p16"), Coord { file: 15, rank: 15 });
        assert_eq!(Coord::from_ascii(b"a0"), None);
        assert_eq!(Coord::from_ascii(b"a01"), None);
        assert_eq!(Coord::from_ascii(b"a17"), None);
        assert_eq!(Coord::from_ascii(b"q1"), None);
        assert_eq!(Coord::from_ascii(b"A1"), None);
        assert_eq!(Coord::from_ascii(b""), None);
        assert_eq!(sq("l2").to_string(), "l2");
        assert_eq!(sq("b10").to_string(), "b10");
    }

    /// Every fast form, with every mark and glyph, reads as the general reader reads it,
    /// and packs and unpacks to itself; texts that are not fast forms read as none.
    #[test]
    fn short_forms_agree_with_the_general_reader() {
        let heads = ["", "N", "Nx", "Px", "ex", "zx", "Nb", "e"];
        let squares = ["a1", "e4", "k10", "p16", "q1", "a0", "a17", "a01"];
        let tails = ["", "+", "#", "!", "?", "+!?", "#!!", "!!!", "=Q"];
        let mut fast = 0;
        for head in heads {
            for square in squares {
                for tail in tails {
                    let text = format!("{head}{square}{tail}");
                    let packed = PackedFastSan::of(text.as_bytes());
                    let form_ok = ["", "N", "Nx", "Px", "ex"].contains(&head)
                        && ["a1", "e4", "k10", "p16"].contains(&square)
                        && !["!!!", "=Q"].contains(&tail);
                    let Some(s) = packed.get() else {
                        assert!(!form_ok, "{text} is a fast form");
                        continue;
                    };
                    assert!(form_ok, "{text} is not a fast form: {s:?}");
                    fast += 1;
                    assert_eq!(PackedFastSan::new(&s), packed, "{text}");
                    assert_eq!(FastSan::from_ascii(text.as_bytes()), Some(s), "{text}");
                    assert_eq!(s.len, head.len() + square.len(), "{text}");
                    let general = grammar::read_move(text.as_bytes())
                        .unwrap_or_else(|e| panic!("{text}: {e}"));
                    assert_eq!(s.suffix, general.suffix, "{text}");
                    let San::Normal {
                        piece,
                        origin,
                        capture,
                        to,
                        promotion: None,
                        waiting: None,
                    } = general.san
                    else {
                        panic!("{text}: {:?}", general.san);
                    };
                    assert_eq!(s.piece, piece.map(|l| l.char() as u8), "{text}");
                    let file = match origin {
                        Origin::None => None,
                        Origin::File(f) => Some(f),
                        other => panic!("{text}: {other:?}"),
                    };
                    assert_eq!(s.file, file, "{text}");
                    assert_eq!(s.capture, capture, "{text}");
                    assert_eq!(Place::Board(s.to), to, "{text}");
                }
            }
        }
        assert_eq!(fast, 5 * 4 * 7);
        assert_eq!(PackedFastSan::of(b""), PackedFastSan::NONE);
        assert_eq!(PackedFastSan::NONE.get(), None);
    }

    #[test]
    fn pawn_moves() {
        assert_eq!(normal("e4"), (None, Origin::None, false, board("e4"), None));
        assert_eq!(
            normal("exd5"),
            (None, Origin::File(4), true, board("d5"), None)
        );
        assert_eq!(
            normal("ed5"),
            (None, Origin::File(4), false, board("d5"), None)
        );
        assert_eq!(
            normal("Pe4"),
            (Some('P'), Origin::None, false, board("e4"), None)
        );
        assert_eq!(
            normal("e10"),
            (None, Origin::None, false, board("e10"), None)
        );
    }

    #[test]
    fn piece_moves_and_disambiguation() {
        assert_eq!(
            normal("Nf3"),
            (Some('N'), Origin::None, false, board("f3"), None)
        );
        assert_eq!(
            normal("Nxf3"),
            (Some('N'), Origin::None, true, board("f3"), None)
        );
        assert_eq!(
            normal("Nbd7"),
            (Some('N'), Origin::File(1), false, board("d7"), None)
        );
        assert_eq!(
            normal("R1a3"),
            (Some('R'), Origin::Rank(0), false, board("a3"), None)
        );
        assert_eq!(
            normal("R10xa3"),
            (Some('R'), Origin::Rank(9), true, board("a3"), None)
        );
        assert_eq!(
            normal("Qh4xe1"),
            (
                Some('Q'),
                Origin::Place(board("h4")),
                true,
                board("e1"),
                None
            )
        );
        assert_eq!(
            normal("Zd2b6"),
            (
                Some('Z'),
                Origin::Place(board("d2")),
                false,
                board("b6"),
                None
            )
        );
    }

    #[test]
    fn long_algebraic_and_coordinates() {
        assert_eq!(
            normal("e2-e3"),
            (None, Origin::Place(board("e2")), false, board("e3"), None)
        );
        assert_eq!(
            normal("Ng1xf3"),
            (
                Some('N'),
                Origin::Place(board("g1")),
                true,
                board("f3"),
                None
            )
        );
        assert_eq!(
            normal("Ng1-f3"),
            (
                Some('N'),
                Origin::Place(board("g1")),
                false,
                board("f3"),
                None
            )
        );
        assert_eq!(
            normal("e2e3"),
            (None, Origin::Place(board("e2")), false, board("e3"), None)
        );
        assert_eq!(
            normal("b9b10r"),
            (
                None,
                Origin::Place(board("b9")),
                false,
                board("b10"),
                Some('R')
            )
        );
        assert_eq!(
            normal("e7e8b"),
            (
                None,
                Origin::Place(board("e7")),
                false,
                board("e8"),
                Some('B')
            )
        );
        assert_eq!(
            normal("a10e5"),
            (None, Origin::Place(board("a10")), false, board("e5"), None)
        );
        assert_eq!(
            normal("f2e2"),
            (None, Origin::Place(board("f2")), false, board("e2"), None)
        );
        assert!(San::from_ascii(b"g1f3").is_ok_and(|s| s.is_coordinate()));
        assert!(San::from_ascii(b"Nf3").is_ok_and(|s| !s.is_coordinate()));
    }

    #[test]
    fn citadels() {
        let wc = Place::Citadel(Citadel::White);
        let bc = Place::Citadel(Citadel::Black);
        assert_eq!(normal("Kbc"), (Some('K'), Origin::None, false, bc, None));
        assert_eq!(normal("Awc"), (Some('A'), Origin::None, false, wc, None));
        assert_eq!(
            normal("Ka10-bc"),
            (Some('K'), Origin::Place(board("a10")), false, bc, None)
        );
        assert_eq!(
            normal("a10bc"),
            (None, Origin::Place(board("a10")), false, bc, None)
        );
        assert_eq!(
            normal("k2wc"),
            (None, Origin::Place(board("k2")), false, wc, None)
        );
        assert_eq!(
            normal("wck3"),
            (None, Origin::Place(wc), false, board("k3"), None)
        );
        assert_eq!(
            normal("bca8"),
            (None, Origin::Place(bc), false, board("a8"), None)
        );
        // `bc` followed by a rank is a file disambiguation and a square.
        assert_eq!(
            normal("Nbc3"),
            (Some('N'), Origin::File(1), false, board("c3"), None)
        );
        assert_eq!(
            normal("Awck3"),
            (Some('A'), Origin::Place(wc), false, board("k3"), None)
        );
    }

    #[test]
    fn promotion_of_a_waiting_pawn() {
        for (text, own, square, letter) in [
            ("Exe2_c10=E", None, "c10", 'E'),
            ("hxg1=O_b10=N", Some('O'), "b10", 'N'),
            ("e7e2_c10=E", None, "c10", 'E'),
        ] {
            match San::from_ascii(text.as_bytes()) {
                Ok(San::Normal {
                    promotion,
                    waiting: Some((at, p)),
                    ..
                }) => {
                    assert_eq!(promotion.map(Letter::char), own, "{text}");
                    assert_eq!((at, p.char()), (sq(square), letter), "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
            let back = San::from_ascii(text.as_bytes()).map(|s| s.to_string());
            assert_eq!(back.as_deref(), Ok(text));
        }
        for bad in ["Exe2_", "Exe2_c10", "Exe2_c10=", "Exe2_z99=E", "Exe2_c10=1"] {
            assert_eq!(
                San::from_ascii(bad.as_bytes()),
                Err(SanError::BadWaitingPromotion),
                "{bad}"
            );
        }
    }

    #[test]
    fn promotions() {
        assert_eq!(
            normal("e8=Q"),
            (None, Origin::None, false, board("e8"), Some('Q'))
        );
        assert_eq!(
            normal("e8Q"),
            (None, Origin::None, false, board("e8"), Some('Q'))
        );
        assert_eq!(
            normal("e8=F"),
            (None, Origin::None, false, board("e8"), Some('F'))
        );
        assert_eq!(
            normal("dxe8=q"),
            (None, Origin::File(3), true, board("e8"), Some('Q'))
        );
        assert_eq!(
            normal("b10=A"),
            (None, Origin::None, false, board("b10"), Some('A'))
        );
        assert_eq!(San::from_ascii(b"e8="), Err(SanError::BadPromotion));
        assert_eq!(San::from_ascii(b"e8=1"), Err(SanError::BadPromotion));
        assert_eq!(San::from_ascii(b"e8==Q"), Err(SanError::BadPromotion));
    }

    #[test]
    fn special_moves() {
        assert_eq!(
            San::from_ascii(b"PPe5"),
            Ok(San::PawnOfPawns {
                capture: false,
                to: sq("e5")
            })
        );
        assert_eq!(
            San::from_ascii(b"PPxe5"),
            Ok(San::PawnOfPawns {
                capture: true,
                to: sq("e5")
            })
        );
        assert_eq!(San::from_ascii(b"PPwc"), Err(SanError::BadPawnOfPawns));
        assert_eq!(San::from_ascii(b"PP"), Err(SanError::BadPawnOfPawns));
        assert_eq!(
            San::from_ascii(b"K:e2"),
            Ok(San::Swap {
                with: board("e2"),
                promotion: None
            })
        );
        assert_eq!(
            San::from_ascii(b"K:d9=R"),
            Ok(San::Swap {
                with: board("d9"),
                promotion: Letter::new(b'R')
            })
        );
        assert_eq!(San::from_ascii(b"K:d9="), Err(SanError::BadSwap));
        assert_eq!(San::from_ascii(b"K:d9=+"), Err(SanError::BadPromotion));
        assert_eq!(San::from_ascii(b"K:"), Err(SanError::BadSwap));
        assert_eq!(San::from_ascii(b"K:xe2"), Err(SanError::BadSwap));
    }

    #[test]
    fn suffixes() {
        let s = SanPlus::from_ascii(b"Nf3+!?").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.suffix, Some(Suffix::Check));
        assert_eq!(s.glyph, Some(Glyph::Speculative));
        let s = SanPlus::from_ascii(b"Rxa8#").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.suffix, Some(Suffix::Mate));
        assert_eq!(s.glyph, None);
        for g in Glyph::ALL {
            let text = format!("e4{}", g.as_str());
            let s = SanPlus::from_ascii(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(s.glyph, Some(g));
            assert_eq!(s.suffix, None);
            assert_eq!(
                u8::try_from(Glyph::ALL.iter().position(|&x| x == g).unwrap_or(9) + 1),
                Ok(g.nag())
            );
        }
        assert_eq!(
            SanPlus::from_ascii(b"e4!!!"),
            Err(SanError::MissingDestination)
        );
        assert_eq!(
            SanPlus::from_ascii(b"e4++"),
            Err(SanError::MissingDestination)
        );
    }

    #[test]
    fn errors() {
        assert_eq!(San::from_ascii(b""), Err(SanError::Empty));
        assert_eq!(San::from_ascii(b"N"), Err(SanError::MissingDestination));
        assert_eq!(San::from_ascii(b"Nf"), Err(SanError::MissingDestination));
        assert_eq!(San::from_ascii(b"e"), Err(SanError::MissingDestination));
        assert_eq!(San::from_ascii(b"Ng1g2f3"), Err(SanError::BadOrigin));
        assert_eq!(San::from_ascii(b"NNf3"), Err(SanError::BadOrigin));
        assert_eq!(San::from_ascii(b"-e4"), Err(SanError::DashWithoutOrigin));
        assert_eq!(San::from_ascii(b"N-f3"), Err(SanError::DashWithoutOrigin));
        assert_eq!(San::from_ascii(b"O-O"), Err(SanError::Castling));
        assert_eq!(San::from_ascii(b"--"), Err(SanError::NullMove));
        assert_eq!(San::from_ascii(b"e4x"), Err(SanError::MissingDestination));
        assert_eq!(San::from_ascii(b"q1"), Err(SanError::MissingDestination));
        assert_eq!(San::from_ascii(b"e123"), Err(SanError::MissingDestination));
        assert!(!SanError::BadOrigin.expected().is_empty());
    }

    /// Every two-byte text, and every two-byte text in the places of a fast form, reads
    /// the same through the fast path and through the grammar alone.
    #[test]
    fn the_fast_lane_agrees_with_the_grammar() {
        let mut fast = 0;
        for a in 0u8..128 {
            for b in 0u8..128 {
                for text in [
                    vec![a, b],
                    vec![b'N', a, b],
                    vec![a, b'x', b'e', b],
                    vec![a, b, b'+'],
                    vec![b'R', a, b, b'!'],
                ] {
                    let grammar = grammar::read_move(&text);
                    assert_eq!(SanPlus::from_ascii(&text), grammar, "{text:?}");
                    assert_eq!(SanPlus::check(&text), grammar.map(|_| ()), "{text:?}");
                    fast += usize::from(FastSan::from_ascii(&text).is_some());
                }
            }
        }
        assert_eq!(fast, 4 * 16 * 9 + (26 + 16) * 9);
    }

    /// Pieces of moves, from every part of the grammar and a few that are in none: tokens
    /// are made of these, and mutated.
    const FRAGMENTS: &[&str] = &[
        "N", "K", "P", "Q", "R", "Z", "A", "W", "E", "O", "PP", "K:", "a", "b", "c", "e", "h", "k",
        "l", "p", "q", "w", "z", "wc", "bc", "1", "2", "8", "9", "10", "16", "17", "0", "x", "-",
        "=", "=Q", "=q", "_", "_c10=E", "+", "#", "!", "?", "!!", "?!", ":", "@", "O-O", "e4",
        "a10", "Nf3", "exd5", "Rxc10+", "/", " ",
    ];

    /// A token: fragments run together, then a few bytes replaced, inserted or removed.
    fn token() -> impl Strategy<Value = Vec<u8>> {
        (
            prop::collection::vec(prop::sample::select(FRAGMENTS), 0..6),
            prop::collection::vec((any::<usize>(), 0u8..3, 32u8..127), 0..3),
        )
            .prop_map(|(fragments, edits)| {
                let mut text = fragments.concat().into_bytes();
                for (at, edit, byte) in edits {
                    let at = at % (text.len() + 1);
                    match edit {
                        0 if at < text.len() => text[at] = byte,
                        1 => text.insert(at, byte),
                        _ if at < text.len() => {
                            text.remove(at);
                        }
                        _ => {}
                    }
                }
                text
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// The fast path is an optimisation of the grammar: on any token it gives what the
        /// grammar gives, errors included, and it reads exactly the fast forms.
        #[test]
        fn the_fast_lane_reads_as_the_grammar(text in token()) {
            let grammar = grammar::read_move(&text);
            prop_assert_eq!(SanPlus::from_ascii(&text), grammar);
            prop_assert_eq!(SanPlus::check(&text), grammar.map(|_| ()));
            let fast = FastSan::from_ascii(&text);
            let is_fast = matches!(
                grammar,
                Ok(SanPlus {
                    san: San::Normal {
                        piece,
                        origin,
                        capture,
                        to: Place::Board(_),
                        promotion: None,
                        waiting: None,
                    },
                    ..
                }) if match origin {
                    Origin::None => piece.is_some() || !capture,
                    Origin::File(_) => piece.is_none() && capture,
                    _ => false,
                }
            );
            prop_assert_eq!(fast.is_some(), is_fast);
            if let Some(s) = fast {
                prop_assert_eq!(Ok(s.san_plus(&text)), grammar);
                prop_assert_eq!(PackedFastSan::new(&s), PackedFastSan::of(&text));
            }
        }
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "e4", "exd5", "Nbd7", "R1a3", "Ng1xf3", "e8=Q", "Kbc", "a10bc", "wck3", "PPe5",
            "PPxe5", "K:e2", "K:d9=R", "Nf3+", "e4!?", "Rxa8#??", "b10=A",
        ] {
            let parsed = SanPlus::from_ascii(text.as_bytes()).map(|s| s.to_string());
            assert_eq!(parsed.as_deref(), Ok(text));
        }
        // Lenient forms are normalised.
        let parsed = SanPlus::from_ascii(b"e7e8q").map(|s| s.to_string());
        assert_eq!(parsed.as_deref(), Ok("e7e8=Q"));
    }
}
