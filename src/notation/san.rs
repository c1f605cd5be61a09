//! The syntax of moves: standard algebraic notation (SAN), long algebraic and coordinate forms.
//!
//! [`SanPlus::from_ascii`] only reads text. It knows nothing of the variant or the position:
//! a piece is an uppercase letter that the variant maps to a piece kind later, and a square is
//! a file and a rank that the board may or may not have. Resolving a [`San`] against a
//! position (finding the one legal move it names) is a separate step that can fail with an
//! illegal or an ambiguous move, which are different errors from the [`SanError`] here.
//!
//! Accepted spellings (see `notation-spec/README.md` for the grammar):
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

    /// Reads a whole square such as `e4` or `b10`.
    pub fn from_ascii(text: &[u8]) -> Option<Coord> {
        let (&first, rank) = text.split_first()?;
        Coord::new(file_index(first)?, rank_index(rank)?)
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), u32::from(self.rank) + 1)
    }
}

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

    /// Reads `wc` or `bc`.
    pub fn from_ascii(text: &[u8]) -> Option<Citadel> {
        match text {
            b"wc" => Some(Citadel::White),
            b"bc" => Some(Citadel::Black),
            _ => None,
        }
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
    /// Reads a square (`e4`) or a citadel name (`wc`).
    pub fn from_ascii(text: &[u8]) -> Option<Place> {
        Citadel::from_ascii(text)
            .map(Place::Citadel)
            .or_else(|| Coord::from_ascii(text).map(Place::Board))
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

    /// Reads a whole glyph such as `!?`.
    pub fn from_ascii(text: &[u8]) -> Option<Glyph> {
        Glyph::ALL
            .into_iter()
            .find(|g| g.as_str().as_bytes() == text)
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

/// Splits a trailing check mark and glyph off a move's text.
fn split_suffixes(text: &[u8]) -> (&[u8], Option<Suffix>, Option<Glyph>) {
    let mut body = text;
    let mut glyph = None;
    // A glyph is at most two characters from `!?`.
    let glyph_len = body
        .iter()
        .rev()
        .take(2)
        .take_while(|&&b| b == b'!' || b == b'?')
        .count();
    if glyph_len > 0 {
        let (rest, g) = body.split_at(body.len() - glyph_len);
        glyph = Glyph::from_ascii(g);
        body = rest;
    }
    let suffix = match body.last() {
        Some(b'+') => Some(Suffix::Check),
        Some(b'#') => Some(Suffix::Mate),
        _ => None,
    };
    if suffix.is_some()
        && let Some((_, rest)) = body.split_last()
    {
        body = rest;
    }
    (body, suffix, glyph)
}

/// Splits a destination square or citadel off the end of `text`.
fn split_destination(text: &[u8]) -> Option<(&[u8], Place)> {
    let digits = text
        .iter()
        .rev()
        .take(3)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        let split = text.len().checked_sub(2)?;
        let (rest, name) = text.split_at(split);
        return Some((rest, Place::Citadel(Citadel::from_ascii(name)?)));
    }
    let split = text.len().checked_sub(digits + 1)?;
    let (rest, square) = text.split_at(split);
    Some((rest, Place::Board(Coord::from_ascii(square)?)))
}

/// Reads an origin: nothing, a file, a rank, a square or a citadel.
fn parse_origin(text: &[u8]) -> Option<Origin> {
    match text {
        [] => Some(Origin::None),
        [f] => file_index(*f)
            .map(Origin::File)
            .or_else(|| rank_index(text).map(Origin::Rank)),
        _ => Place::from_ascii(text)
            .map(Origin::Place)
            .or_else(|| rank_index(text).map(Origin::Rank)),
    }
}

impl San {
    /// Reads a move without suffixes. See [`SanPlus::from_ascii`] for one with them.
    pub fn from_ascii(text: &[u8]) -> Result<San, SanError> {
        match text {
            [] => return Err(SanError::Empty),
            [b'P', b'P', rest @ ..] => {
                let (capture, square) = match rest {
                    [b'x', square @ ..] => (true, square),
                    _ => (false, rest),
                };
                return Coord::from_ascii(square)
                    .map(|to| San::PawnOfPawns { capture, to })
                    .ok_or(SanError::BadPawnOfPawns);
            }
            [b'K', b':', rest @ ..] => {
                let (square, promotion) = match rest {
                    [square @ .., b'=', p] => {
                        (square, Some(Letter::new(*p).ok_or(SanError::BadPromotion)?))
                    }
                    _ => (rest, None),
                };
                return Place::from_ascii(square)
                    .map(|with| San::Swap { with, promotion })
                    .ok_or(SanError::BadSwap);
            }
            b"O-O" | b"O-O-O" | b"0-0" | b"0-0-0" => return Err(SanError::Castling),
            b"--" | b"Z0" | b"0000" | b"@@@@" => return Err(SanError::NullMove),
            _ => {}
        }

        // The opponent's waiting pawn promoted by a capture: `_c10=E` at the end.
        let (text, waiting) = match text.iter().rposition(|&b| b == b'_') {
            Some(i) => {
                let (body, tail) = (&text[..i], &text[i + 1..]);
                let parsed = match tail {
                    [square @ .., b'=', p] => Coord::from_ascii(square).zip(Letter::new(*p)),
                    _ => None,
                };
                (body, Some(parsed.ok_or(SanError::BadWaitingPromotion)?))
            }
            None => (text, None),
        };
        // Promotion: `=X`, or a letter straight after a rank (`e8Q`, coordinate `e7e8q`).
        let mut body = text;
        let mut promotion = None;
        let mut lowercase_promotion = false;
        if let [rest @ .., b'=', p] = body {
            promotion = Some(Letter::new(*p).ok_or(SanError::BadPromotion)?);
            body = rest;
        } else if let [.., b'0'..=b'9', p] = body
            && p.is_ascii_alphabetic()
            && let Some((_, rest)) = body.split_last()
        {
            promotion = Letter::new(*p);
            lowercase_promotion = p.is_ascii_lowercase();
            body = rest;
        }
        if body.contains(&b'=') {
            return Err(SanError::BadPromotion);
        }

        let (before, to) = split_destination(body).ok_or(SanError::MissingDestination)?;

        let (piece, rest) = match before {
            [p @ b'A'..=b'Z', rest @ ..] => (Letter::new(*p), rest),
            _ => (None, before),
        };
        let (rest, capture, dash) = match rest {
            [rest @ .., b'x'] => (rest, true, false),
            [rest @ .., b'-'] => (rest, false, true),
            _ => (rest, false, false),
        };
        let origin = parse_origin(rest).ok_or(SanError::BadOrigin)?;
        if dash && origin == Origin::None {
            return Err(SanError::DashWithoutOrigin);
        }
        // A lowercase promotion letter without `=` belongs to the coordinate form only.
        if lowercase_promotion && !matches!(origin, Origin::Place(_)) {
            return Err(SanError::MissingDestination);
        }
        Ok(San::Normal {
            piece,
            origin,
            capture,
            to,
            promotion,
            waiting,
        })
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

/// The short forms of a move that name only a piece (or a pawn) and a destination, read
/// straight from the text: `e4`, `exd5`, `Nf3`, `Rxc10`, each with an optional check mark and
/// glyph. These are most moves of most game records; replay resolves them without building a
/// [`SanPlus`]. Anything else (disambiguation, promotion, citadels, special moves, long
/// algebraic) is `None` here and goes the general way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShortSan {
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

impl ShortSan {
    /// Reads one of the short forms; `None` for any other text.
    #[inline]
    pub fn from_ascii(text: &[u8]) -> Option<ShortSan> {
        PackedShort::of(text).get()
    }
}

/// A move's [`ShortSan`] in four bytes, as its token keeps it (see
/// [`TokenKind::Move`](super::game::TokenKind::Move)): the reader reads every move's form
/// once, and replay takes it from here instead of reading the text again. Empty for a move
/// written in any other form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PackedShort(u32);

impl PackedShort {
    /// No short form: the move is written otherwise (or its form was not kept).
    pub const NONE: PackedShort = PackedShort(0);

    const PRESENT: u32 = 1 << 31;

    /// The short form of a move's text, or [`PackedShort::NONE`]. Reads straight into the
    /// packed form: the reader does this for every move.
    #[inline(always)]
    pub fn of(text: &[u8]) -> PackedShort {
        Self::read(text).unwrap_or(PackedShort::NONE)
    }

    #[inline(always)]
    fn read(text: &[u8]) -> Option<PackedShort> {
        let mut end = text.len();
        let mut mark = 0;
        // Most moves end in their square's rank: no glyph and no mark to look for.
        if !text.last()?.is_ascii_digit() {
            // A glyph is at most two characters from `!?` (as in `split_suffixes`).
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

    /// Packs a short form (see [`PackedShort::pack`]).
    #[inline]
    pub fn new(s: &ShortSan) -> PackedShort {
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
    fn pack(piece: u8, file: u8, capture: bool, to: Coord, mark: u32, len: usize) -> PackedShort {
        PackedShort(
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

    /// The short form, if the move has one.
    #[inline]
    pub fn get(self) -> Option<ShortSan> {
        let v = self.0;
        if v & Self::PRESENT == 0 {
            return None;
        }
        let piece = (v & 0x7F) as u8;
        let file = (v >> 7 & 0x1F) as u8;
        Some(ShortSan {
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

/// Whether `text` is one of the forms [`from_ascii_fast`] reads.
#[inline(always)]
fn is_fast_form(text: &[u8]) -> bool {
    let body = match text.split_last() {
        Some((b'+' | b'#', rest)) => rest,
        _ => text,
    };
    let file = |f: u8| file_index(f).is_some();
    let rank = |r: u8| matches!(r, b'1'..=b'9');
    match *body {
        [f, r] => file(f) && rank(r),
        [b'A'..=b'Z', f, r] => file(f) && rank(r),
        [from, b'x', f, r] => (from.is_ascii_uppercase() || file(from)) && file(f) && rank(r),
        _ => false,
    }
}

/// The common short forms (`e4`, `Nf3`, `exd5`, `Rxa8`, each with an optional `+` or `#`),
/// read without the general machinery. Gives the same value as the general reader, or `None`
/// for anything else.
#[inline(always)]
fn from_ascii_fast(text: &[u8]) -> Option<SanPlus> {
    let (body, suffix) = match text.split_last() {
        Some((b'+', rest)) => (rest, Some(Suffix::Check)),
        Some((b'#', rest)) => (rest, Some(Suffix::Mate)),
        _ => (text, None),
    };
    let square = |f: u8, r: u8| {
        if r.is_ascii_digit() && r != b'0' {
            Some(Place::Board(Coord::new(file_index(f)?, r - b'1')?))
        } else {
            None
        }
    };
    let (piece, origin, capture, to) = match *body {
        [f, r] => (None, Origin::None, false, square(f, r)?),
        [p @ b'A'..=b'Z', f, r] => (Letter::new(p), Origin::None, false, square(f, r)?),
        [p @ b'A'..=b'Z', b'x', f, r] => (Letter::new(p), Origin::None, true, square(f, r)?),
        [from, b'x', f, r] => (None, Origin::File(file_index(from)?), true, square(f, r)?),
        _ => return None,
    };
    Some(SanPlus {
        san: San::Normal {
            piece,
            origin,
            capture,
            to,
            promotion: None,
            waiting: None,
        },
        suffix,
        glyph: None,
    })
}

impl SanPlus {
    /// Reads a move with optional check mark and glyph, such as `Nbxd7+!?`.
    #[inline(always)]
    pub fn from_ascii(text: &[u8]) -> Result<SanPlus, SanError> {
        match from_ascii_fast(text) {
            Some(san) => Ok(san),
            None => SanPlus::from_ascii_general(text),
        }
    }

    /// Checks that `text` is a move, without building it: what the reader does for every
    /// move. Agrees with [`SanPlus::from_ascii`].
    #[inline(always)]
    pub fn check(text: &[u8]) -> Result<(), SanError> {
        if is_fast_form(text) {
            Ok(())
        } else {
            SanPlus::from_ascii_general(text).map(|_| ())
        }
    }

    #[inline(never)]
    fn from_ascii_general(text: &[u8]) -> Result<SanPlus, SanError> {
        let (body, suffix, glyph) = split_suffixes(text);
        Ok(SanPlus {
            san: San::from_ascii(body)?,
            suffix,
            glyph,
        })
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

    /// Every short form, with every mark and glyph, reads as the general reader reads it,
    /// and packs and unpacks to itself; texts that are not short forms read as none.
    #[test]
    fn short_forms_agree_with_the_general_reader() {
        let heads = ["", "N", "Nx", "Px", "ex", "zx", "Nb", "e"];
        let squares = ["a1", "e4", "k10", "p16", "q1", "a0", "a17", "a01"];
        let tails = ["", "+", "#", "!", "?", "+!?", "#!!", "!!!", "=Q"];
        let mut short = 0;
        for head in heads {
            for square in squares {
                for tail in tails {
                    let text = format!("{head}{square}{tail}");
                    let packed = PackedShort::of(text.as_bytes());
                    let form_ok = ["", "N", "Nx", "Px", "ex"].contains(&head)
                        && ["a1", "e4", "k10", "p16"].contains(&square)
                        && !["!!!", "=Q"].contains(&tail);
                    let Some(s) = packed.get() else {
                        assert!(!form_ok, "{text} is a short form");
                        continue;
                    };
                    assert!(form_ok, "{text} is not a short form: {s:?}");
                    short += 1;
                    assert_eq!(PackedShort::new(&s), packed, "{text}");
                    assert_eq!(ShortSan::from_ascii(text.as_bytes()), Some(s), "{text}");
                    assert_eq!(s.len, head.len() + square.len(), "{text}");
                    let general = SanPlus::from_ascii(text.as_bytes())
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
        assert_eq!(short, 5 * 4 * 7);
        assert_eq!(PackedShort::of(b""), PackedShort::NONE);
        assert_eq!(PackedShort::NONE.get(), None);
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

    #[test]
    fn the_fast_path_agrees_with_the_general_reader() {
        let mut checked = 0;
        for a in 0u8..128 {
            for b in 0u8..128 {
                for text in [
                    vec![a, b],
                    vec![b'N', a, b],
                    vec![a, b'x', b'e', b],
                    vec![a, b, b'+'],
                ] {
                    assert_eq!(
                        is_fast_form(&text),
                        from_ascii_fast(&text).is_some(),
                        "{text:?}"
                    );
                    assert_eq!(
                        SanPlus::check(&text),
                        SanPlus::from_ascii_general(&text).map(|_| ()),
                        "{text:?}"
                    );
                    if let Some(fast) = from_ascii_fast(&text) {
                        assert_eq!(Ok(fast), SanPlus::from_ascii_general(&text), "{text:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 810);
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
