//! The streaming game reader: splits any [`BufRead`] into games and their tokens.
//!
//! The reader holds the bytes of one game at a time, so reading a file of any size needs
//! memory bounded by its largest game. It never recurses (variations are tracked on a
//! stack on the heap) and every byte is looked at a bounded number of times, so it runs in
//! linear time on any input. Syntax errors are collected per game ([`RawGame::diagnostics`])
//! and reading goes on with the next game; only I/O errors ([`ReadError`]) stop it.
//!
//! Where one game ends: at the first line, after the game's movetext has begun, whose first
//! character (after spaces) is `[`; or at the end of the input. A comment `{` left open ends
//! early at a line that holds only tag pairs, so one missing `}` does not swallow the games
//! after it.
//!
//! What each element is, the notation's grammar says ([`grammar`], section 10 of the spec in
//! nom): the reader finds where an element ends, as the input streams in, and reads it with
//! its production (a tag pair with [`grammar::tag_pair`], a move with
//! [`grammar::move`](../grammar/fn.move.html), a NAG, a move number, a result...). Two
//! hand-written fast paths read the common forms without it: tag pairs such as `[Event "x"]`
//! (`fast_tag_pair`) and the movetext loop of blanks, move numbers and moves in a fast form
//! (`Reader::fast_movetext`, with [`PackedFastSan`]); anything else they leave to the
//! productions. Tests hold the reader to [`grammar::games`] on random and mutated games: the
//! same games, tags and tokens, and no error exactly where the grammar reads the input.
use std::io::{self, BufRead};

use nom::{Parser, multi::many0_count};
use thiserror::Error;

use super::game::{Diagnostic, DiagnosticKind, RawGame, Tag, Token, TokenKind};
use super::grammar::{self, is_blank};
use super::san::{PackedFastSan, SanError, SanPlus};
use super::span::Span;
use super::tags::{self, GameResult};
use kabir_rules::fen::grammar::whole;
use kabir_rules::letters::PieceLetters;

/// An I/O error while reading; the reader stops after it.
#[derive(Debug, Error)]
#[error("read error at byte {offset}: {source}")]
pub struct ReadError {
    /// Byte offset in the input where reading failed.
    pub offset: u64,
    /// The underlying error.
    #[source]
    pub source: io::Error,
}

/// The default of [`ReaderOptions::max_game_bytes`]: 16 MiB, far beyond any game written by
/// hand or by a program (a game of 65,535 plies, the most a database stores, takes under
/// 1 MiB), and small enough that reading one costs a bounded amount of memory.
pub const DEFAULT_MAX_GAME_BYTES: usize = 16 << 20;

/// Settings of a [`Reader`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReaderOptions {
    /// After this many errors in one game, the rest of the game is skipped (still read, to
    /// find where the next game starts, but not tokenised).
    pub max_errors_per_game: usize,
    /// The most bytes one game's text may take. A game longer than this is not read: it
    /// is given as a game of one error, [`DiagnosticKind::GameTooLarge`], and reading goes
    /// on at the first line starting with `[` that begins at least this many bytes after
    /// the game's start (notation spec, section 9.4). The reader's memory is bounded by
    /// this, whatever the input.
    pub max_game_bytes: usize,
    /// A set of piece letters beyond ASCII (Russian) that moves may be written in: a move
    /// that starts with one of its letters is read as a move, in the set's transliteration
    /// ([`PieceLetters::transliterate`]). Sets of ASCII letters need nothing of the reader.
    pub piece_letters: Option<&'static PieceLetters>,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            max_errors_per_game: 100,
            max_game_bytes: DEFAULT_MAX_GAME_BYTES,
            piece_letters: None,
        }
    }
}

/// A skip past a game too large to read that reached the end of the reader's input without
/// finding where the next game starts (see [`Reader::open_skip`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpenSkip {
    /// Where the game started: file offset and line.
    pub offset: u64,
    pub line: u32,
    /// Whether the game was given ([`DiagnosticKind::GameTooLarge`]): it had more than
    /// blank space. A skip over blank space alone gives no game.
    pub reported: bool,
}

/// Whether a byte is blank space to a skip over a game too large: blanks, line ends and the
/// bytes of a byte-order mark.
pub(crate) fn is_skip_blank(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | 0x0b | 0x0c | b'\n' | b'\r' | 0xEF | 0xBB | 0xBF
    )
}

/// Counts line ends as the reader does (`\n`, `\r\n` and a lone `\r` are one each) over
/// input given in pieces.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LineCounter {
    /// Whether the last byte counted was `\r` (a `\n` right after it ends the same line).
    after_cr: bool,
}

impl LineCounter {
    /// The number of line ends that `bytes`, the next piece of the input, ends.
    pub(crate) fn count(&mut self, bytes: &[u8]) -> u64 {
        let Some(&last) = bytes.last() else {
            return 0;
        };
        let newlines = memchr::memchr_iter(b'\n', bytes).count();
        let returns = memchr::memchr_iter(b'\r', bytes).count();
        let mut pairs = memchr::memmem::find_iter(bytes, b"\r\n").count();
        if self.after_cr && bytes.first() == Some(&b'\n') {
            pairs += 1;
        }
        self.after_cr = last == b'\r';
        (newlines + returns - pairs) as u64
    }
}

/// The state of one line of play (the main line or a variation) for move number checks.
#[derive(Clone, Copy, Debug)]
struct Line {
    /// Number and side of the next move, when known.
    next: Option<(u32, bool)>,
    /// `next` as it was before the last move: where a variation on that move starts.
    before_last: Option<(u32, bool)>,
}

impl Line {
    const MAIN: Line = Line {
        next: None,
        before_last: None,
    };

    /// A move was read in this line of play: the next move number follows.
    #[inline]
    fn took_turn(&mut self) {
        self.before_last = self.next;
        self.next = self.next.map(|(n, black)| {
            if black {
                (n.saturating_add(1), false)
            } else {
                (n, true)
            }
        });
    }
}

/// The most bytes taken from the input at a time.
const CHUNK: usize = 64 * 1024;

/// What the loop of [`Reader::read_game`] carries from one element of a game to the next.
struct Scan {
    /// Whether the next element starts its line (after blanks).
    at_line_start: bool,
    /// Whether the movetext has begun: a line starting with `[` then begins the next game.
    movetext: bool,
    /// Where the game's first element is.
    first: Option<Span>,
    /// The game's first result outside variations.
    result: Option<Span>,
    /// Whether movetext after `result` was reported.
    result_reported: bool,
    /// Whether the last element may hold more than ASCII (see [`Reader::unsure`]).
    wide: bool,
    /// The end of the line of the last tag pair read (a buffer index): the first line end
    /// at or after any index from there up to it.
    line_end: Option<usize>,
}

/// How a game begins (see [`Reader::begin_game`]).
enum Begin {
    /// Its first line starts at this buffer index.
    At(usize),
    /// A line of blank space longer than the limit starts at `head`.
    TooLarge,
    /// The input holds nothing more but blank space.
    End,
}

/// What passing a game too large gave (see [`Reader::pass_too_large`]).
enum Passed {
    /// The game too large, in the game given.
    Game,
    /// Nothing (the text passed was blank): reading goes on at the next game.
    Resumed,
    /// Nothing, and the input ended.
    Ended,
}

/// Where reading goes on after an element.
enum Step {
    /// At this buffer index, in the same game.
    Next(usize),
    /// The game ends at this buffer index.
    End(usize),
}

/// What a `{` comment ran into.
enum CommentEnd {
    /// Its `}`; the index just past it.
    Closed(usize),
    /// The end of the input.
    Eof,
    /// A line of tag pairs starting at this index: the next game.
    TagLine(usize),
}

/// A move token's text: its fast form (or none) if it is a move, else why not.
#[inline(always)]
fn read_move(text: &[u8]) -> Result<PackedFastSan, SanError> {
    match PackedFastSan::of(text) {
        PackedFastSan::NONE => SanPlus::check(text).map(|()| PackedFastSan::NONE),
        packed => Ok(packed),
    }
}

/// Bytes that may appear in a move token ([`grammar::is_symbol`]), as a table.
const fn symbol_table() -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = grammar::is_symbol(b as u8);
        b += 1;
    }
    table
}

static SYMBOL: [bool; 256] = symbol_table();

#[inline]
fn is_symbol(b: u8) -> bool {
    SYMBOL[usize::from(b)]
}

/// The index of the first byte at or below a space (a blank, a line end, a control byte)
/// among the eight from `at`, if there is one and eight bytes remain: a word's bytes tested
/// at once. No such byte is a symbol byte.
#[inline(always)]
fn blank_ahead(buf: &[u8], at: usize) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([0x21; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    let word = u64::from_le_bytes(buf.get(at..at.checked_add(8)?)?.try_into().ok()?);
    // A byte below 0x21 borrows and sets its high bit; bytes from 0x80 are excluded by
    // `!word`. Above the first such byte, borrows may flag others: only the lowest counts.
    let low = word.wrapping_sub(ONES) & !word & HIGH;
    (low != 0).then(|| at + (low.trailing_zeros() / 8) as usize)
}

#[inline]
fn is_tag_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// How a tag pair at the start of a slice failed, and where (an index into the slice).
#[derive(Debug, PartialEq, Eq)]
struct TagFailure {
    kind: DiagnosticKind,
    at: usize,
}

/// The parts of a tag pair: name and raw value, as ranges of the slice, and its length.
#[derive(Debug, PartialEq, Eq)]
struct TagParts {
    name: (usize, usize),
    value: (usize, usize),
    len: usize,
}

/// `input` after the blanks it starts with.
fn blanks(input: &[u8]) -> &[u8] {
    many0_count(grammar::blank)
        .parse(input)
        .map_or(input, |(rest, _)| rest)
}

/// The common form of a tag pair at the start of `line`, read in one pass: `[Name "value"]`
/// with one space, a value of printable ASCII without a backslash or `"`. What [`tag_pair`] gives
/// for it; `None` for anything else, which [`tag_pair`] reads.
#[inline]
fn fast_tag_pair(line: &[u8]) -> Option<TagParts> {
    let rest = line.strip_prefix(b"[")?;
    let name_len = rest.iter().position(|&b| !is_tag_name(b))?;
    if name_len == 0 {
        return None;
    }
    let value_start = 1 + name_len + 2;
    if line.get(1 + name_len..value_start)? != b" \"" {
        return None;
    }
    let value_len = line
        .get(value_start..)?
        .iter()
        .position(|&b| !(b' '..=b'~').contains(&b) || b == b'"' || b == b'\\')?;
    let value_end = value_start + value_len;
    (line.get(value_end..value_end + 2)? == b"\"]").then_some(TagParts {
        name: (1, 1 + name_len),
        value: (value_start, value_end),
        len: value_end + 2,
    })
}

/// Reads one tag pair `[Name "value"]` at the start of `line` (which holds no line end) with
/// [`grammar::tag_pair`]; where it is not one, says where and why.
fn tag_pair(line: &[u8]) -> Result<TagParts, TagFailure> {
    let at = |part: &[u8]| part.as_ptr() as usize - line.as_ptr() as usize;
    match grammar::tag_pair(line) {
        Ok((_, pair)) => Ok(TagParts {
            name: (at(pair.name), at(pair.name) + pair.name.len()),
            value: (at(pair.value), at(pair.value) + pair.value.len()),
            len: pair.text.len(),
        }),
        Err(_) => Err(tag_failure(line)),
    }
}

/// Why `line`, which [`grammar::tag_pair`] does not read, starts with no tag pair: its parts
/// read one after the other, the first that is missing named, at the place it should be.
fn tag_failure(line: &[u8]) -> TagFailure {
    let fail = |kind, rest: &[u8]| TagFailure {
        kind,
        at: line.len() - rest.len(),
    };
    let Some(rest) = line.strip_prefix(b"[") else {
        return fail(DiagnosticKind::BadTagName, line);
    };
    let rest = blanks(rest);
    let Ok((after_name, _)) = grammar::tag_name(rest) else {
        return fail(DiagnosticKind::BadTagName, rest);
    };
    let rest = blanks(after_name);
    let Some(value) = rest.strip_prefix(b"\"") else {
        return fail(DiagnosticKind::BadTagValue, rest);
    };
    let after_value = grammar::tag_value(value).map_or(value, |(rest, _)| rest);
    let Some(after) = after_value.strip_prefix(b"\"") else {
        // The line ends in the value (`line` holds no line end).
        return fail(DiagnosticKind::UnterminatedTagValue, &[]);
    };
    fail(DiagnosticKind::UnterminatedTag, blanks(after))
}

/// Whether `line` (without its line end) holds only tag pairs and blanks
/// ([`grammar::tag_line`]): the start of a game.
fn is_tag_line(line: &[u8]) -> bool {
    grammar::tag_line(line).is_ok_and(|(rest, _)| rest.is_empty())
}

/// Warns of each tag whose name an earlier tag of the game has, in time linear in the number
/// of tags: a game may hold any number.
fn check_duplicate_tags(game: &mut RawGame) {
    // Few tags (nearly every game): each name gets a key of its first eight bytes and its
    // length, and a bit of a 64-bit set picked by the key; only a name whose bit is taken
    // already is looked for among the names before it (compared whole when the keys agree).
    // Many tags: the names are hashed.
    const FEW: usize = 16;
    let tags = &game.tags;
    let mut found: Vec<(u32, Span)> = Vec::new();
    if tags.len() <= FEW {
        let mut keys = [0u64; FEW];
        let mut taken = 0u64;
        for (j, t) in tags.iter().enumerate() {
            let key = name_key(game, t);
            if let Some(k) = keys.get_mut(j) {
                *k = key;
            }
            let bit = 1u64 << (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58);
            if taken & bit != 0
                && let Some(first) = (0..j)
                    .find(|&i| keys[i] == key && game.bytes(tags[i].name) == game.bytes(t.name))
            {
                found.push((first as u32, t.span));
            }
            taken |= bit;
        }
    } else {
        let mut seen: std::collections::HashMap<&[u8], u32> =
            std::collections::HashMap::with_capacity(tags.len());
        for (j, t) in tags.iter().enumerate() {
            let first = *seen.entry(game.bytes(t.name)).or_insert(j as u32);
            if first as usize != j {
                found.push((first, t.span));
            }
        }
    }
    if found.is_empty() {
        return;
    }
    game.diagnostics
        .extend(found.into_iter().map(|(first, span)| Diagnostic {
            kind: DiagnosticKind::DuplicateTag { first },
            span,
        }));
    // Diagnostics are in input order; tags come before the movetext's.
    game.diagnostics.sort_by_key(|d| d.span.offset);
}

/// A key of a tag's name: its first eight bytes (read as one word from the game's text, which
/// goes on after a name) and its length. Equal names have equal keys.
#[inline]
fn name_key(game: &RawGame, tag: &Tag) -> u64 {
    let len = tag.name.len.min(255);
    let start = usize::try_from(tag.name.offset.saturating_sub(game.source_offset)).unwrap_or(0);
    let word = match game.source.get(start..start + 8) {
        Some(w) => u64::from_le_bytes(w.try_into().unwrap_or_default()),
        None => {
            let mut bytes = [0u8; 8];
            for (b, &c) in bytes.iter_mut().zip(game.bytes(tag.name)) {
                *b = c;
            }
            u64::from_le_bytes(bytes)
        }
    };
    let word = if len < 8 {
        word & ((1u64 << (8 * len)) - 1)
    } else {
        word
    };
    word ^ len.rotate_right(8)
}

/// Reads games from a byte stream. See the [module documentation](self).
///
/// ```
/// use kabir_notation::reader::Reader;
///
/// let pgn = "[Variant \"Shatranj\"]\n\n1. e3 e6 2. Nf3 *\n";
/// let games: Vec<_> = Reader::new(pgn.as_bytes()).collect::<Result<_, _>>()?;
/// assert_eq!(games.len(), 1);
/// assert_eq!(games[0].tag("Variant").as_deref(), Some("Shatranj"));
/// assert_eq!(games[0].tokens.len(), 6);
/// # Ok::<(), kabir_notation::reader::ReadError>(())
/// ```
#[derive(Debug)]
pub struct Reader<R> {
    inner: R,
    options: ReaderOptions,
    /// Input read but not yet handed out: the current game starts at `head`; bytes before
    /// it belong to games already returned and are dropped from time to time.
    buf: Vec<u8>,
    head: usize,
    /// File offset of `buf[0]`.
    base: u64,
    eof: bool,
    failed: bool,
    started: bool,
    games: u64,
    /// Current line number and the file offset where it starts.
    line: u32,
    line_start: u64,
    /// Column cursor: `col` is the column of file offset `col_offset` on the current line.
    col_offset: u64,
    col: u32,
    /// Whether bytes after `col_offset` may be other than ASCII (a comment, a tag or stray
    /// bytes were passed); if not, columns are byte distances and need no counting.
    col_unsure: bool,
    /// Lines of play open in the current game (the main line first): a few bytes for each
    /// level of nesting.
    lines: Vec<Line>,
    /// The `(` of the outermost variation open, the one reported if it is left open.
    outer_open: Span,
    /// Errors recorded in the current game.
    errors: usize,
    /// Sizes of the last game read, to size the next one's buffers.
    last_sizes: (usize, usize, usize),
    /// Whether the last game read ran to the end of the input after its movetext began,
    /// outside any comment: then a line starting with `[` after it would have begun the next
    /// game (see [`Reader::ended_open`]).
    ended_open: bool,
    /// The buffer index the current game's reading may not reach: its start plus
    /// [`ReaderOptions::max_game_bytes`] plus one. Input past it is not taken into the
    /// buffer while the game is read, so a game that reaches it is longer than the limit,
    /// and memory stays bounded by the limit whatever the input holds.
    view_end: usize,
    /// Input given whole ([`Reader::of_bytes`]) that lies past `view_end`, taken into the
    /// buffer from `spill_at` on as the view moves.
    spill: Vec<u8>,
    spill_at: usize,
    /// The line on which the current game starts (at `head`).
    head_line: u32,
    /// A skip past a game too large that ran to the end of the input (see
    /// [`Reader::open_skip`]).
    open_skip: Option<OpenSkip>,
    /// Whether the input given whole ends within a line that goes on past it (see
    /// [`Reader::ends_within_a_line`]).
    open_end: bool,
}

impl Reader<io::Empty> {
    /// A reader of `bytes`, the whole input, that starts at byte `offset` and line `line` of
    /// a larger input, as [`Reader::starting_at`]. The bytes become the reader's buffer as
    /// they are, so they are not copied, and [`Reader::into_bytes`] gives them back.
    pub fn of_bytes(
        bytes: Vec<u8>,
        options: ReaderOptions,
        offset: u64,
        line: u32,
    ) -> Reader<io::Empty> {
        let mut r = Reader::starting_at(io::empty(), options, offset, line);
        r.buf = bytes;
        r.eof = true;
        // Only the first game's view is in the buffer at first; the rest comes in as the
        // view moves (see `fill`). Blocks are mostly smaller than the view, so this rarely
        // copies anything.
        r.set_view();
        r
    }

    /// The bytes given to [`Reader::of_bytes`], unchanged: a reader whose input has ended
    /// drops none of them.
    pub fn into_bytes(mut self) -> Vec<u8> {
        if let Some(rest) = self.spill.get(self.spill_at..) {
            self.buf.extend_from_slice(rest);
        }
        self.buf
    }

    /// Where the input not yet given as a game starts: its file offset and line. After the
    /// last game this is the start of a last line that holds only blank space, if any.
    pub(crate) fn unread(&self) -> (u64, u32) {
        (self.base + self.head as u64, self.line)
    }

    /// Says that the input given ends within a line that goes on in what follows: what
    /// that last line holds so far cannot decide where a game ends. (A comment left open
    /// ends at a line of tag pairs; a line cut short may look like one.)
    pub(crate) fn ends_within_a_line(&mut self) {
        self.open_end = true;
    }

    /// The skip past a game too large to read, if the input ended while it was still
    /// looking for where the next game starts. Input that goes on continues the skip.
    pub(crate) fn open_skip(&self) -> Option<OpenSkip> {
        self.open_skip
    }
}

impl<R: BufRead> Reader<R> {
    /// A reader with default options.
    pub fn new(inner: R) -> Reader<R> {
        Reader::with_options(inner, ReaderOptions::default())
    }

    /// A reader with the given options.
    pub fn with_options(inner: R, options: ReaderOptions) -> Reader<R> {
        Reader {
            inner,
            options,
            buf: Vec::new(),
            head: 0,
            base: 0,
            eof: false,
            failed: false,
            started: false,
            games: 0,
            line: 1,
            line_start: 0,
            col_offset: 0,
            col: 1,
            col_unsure: true,
            lines: Vec::new(),
            outer_open: Span::default(),
            errors: 0,
            // Before any game is read, room for a game of about a hundred moves: its buffers
            // then rarely grow (a reader per block of input starts here).
            last_sizes: (2048, 256, 10),
            ended_open: false,
            view_end: options.max_game_bytes.saturating_add(1),
            spill: Vec::new(),
            spill_at: 0,
            head_line: 1,
            open_skip: None,
            open_end: false,
        }
    }

    /// A reader of input that starts at byte `offset` and line `line` of a larger input (see
    /// [`super::parallel`]): spans are given in the larger input. `offset` must be the start
    /// of a line; a byte-order mark is looked for only at offset 0.
    pub fn starting_at(inner: R, options: ReaderOptions, offset: u64, line: u32) -> Reader<R> {
        let mut r = Reader::with_options(inner, options);
        r.base = offset;
        r.line = line.max(1);
        r.line_start = offset;
        r.col_offset = offset;
        r.col = 1;
        r.col_unsure = false;
        r.started = offset > 0;
        r
    }

    /// Whether the last game read ran to the end of the input after its movetext had begun,
    /// outside any comment, so that input continuing with a line that starts with `[` would
    /// have begun a new game there and left this one as it is.
    pub fn ended_open(&self) -> bool {
        self.ended_open
    }

    /// Reads the next game into `game` (whose buffers are reused). Returns `Ok(false)` at
    /// the end of the input. Iterating over the reader does the same with a new game each
    /// time.
    ///
    /// ```
    /// use kabir_notation::game::RawGame;
    /// use kabir_notation::reader::Reader;
    ///
    /// let text = "[Result \"*\"]\n\n1. e3 e6 *\n\n[Result \"1-0\"]\n\n1. e3 e6 2. Qh5 1-0\n";
    /// let mut reader = Reader::new(text.as_bytes());
    /// let mut game = RawGame::default();
    /// let mut tokens = Vec::new();
    /// while reader.read_game_into(&mut game)? {
    ///     tokens.push(game.tokens.len());
    ///     // Syntax problems are the game's, and reading goes on with the next game.
    ///     assert!(game.diagnostics.is_empty());
    /// }
    /// assert_eq!(tokens, [4, 6]);
    /// # Ok::<(), kabir_notation::reader::ReadError>(())
    /// ```
    pub fn read_game_into(&mut self, game: &mut RawGame) -> Result<bool, ReadError> {
        game.clear();
        if self.failed {
            return Ok(false);
        }
        match self.read_game(game) {
            Ok(found) => {
                self.last_sizes = (game.source.len(), game.tokens.len(), game.tags.len());
                Ok(found)
            }
            Err(source) => {
                self.failed = true;
                Err(ReadError {
                    offset: self.base.saturating_add(self.buf.len() as u64),
                    source,
                })
            }
        }
    }

    /// Sets the current game's view from its start, `head` (see `view_end`). Bytes already
    /// in the buffer past it are set aside until the view reaches them.
    fn set_view(&mut self) {
        self.view_end = self
            .head
            .saturating_add(self.options.max_game_bytes)
            .saturating_add(1);
        if let Some(excess) = self.buf.get(self.view_end..)
            && !excess.is_empty()
        {
            let mut spill = Vec::with_capacity(excess.len() + self.spill.len() - self.spill_at);
            spill.extend_from_slice(excess);
            spill.extend_from_slice(self.spill.get(self.spill_at..).unwrap_or(&[]));
            self.spill = spill;
            self.spill_at = 0;
            self.buf.truncate(self.view_end);
        }
    }

    /// Appends more input to the buffer, up to the current game's view. Returns false at the
    /// end of the input, or of the view.
    fn fill(&mut self) -> io::Result<bool> {
        let room = self.view_end.saturating_sub(self.buf.len()).min(CHUNK);
        if room == 0 {
            return Ok(false);
        }
        if let Some(rest) = self.spill.get(self.spill_at..)
            && !rest.is_empty()
        {
            let n = room.min(rest.len());
            self.buf.extend_from_slice(rest.get(..n).unwrap_or(rest));
            self.spill_at += n;
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                self.eof = true;
                return Ok(false);
            }
            // Take a bounded piece, so that memory stays bounded by the largest game even
            // when the source hands over everything at once (a byte slice does).
            let n = chunk.len().min(room);
            self.buf.extend_from_slice(chunk.get(..n).unwrap_or(chunk));
            self.inner.consume(n);
            return Ok(true);
        }
    }

    /// The byte at buffer index `i`, reading more input if needed; `None` at the end.
    #[inline]
    fn peek(&mut self, i: usize) -> io::Result<Option<u8>> {
        loop {
            if let Some(&b) = self.buf.get(i) {
                return Ok(Some(b));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// The index of the first byte at or after `i` for which `stop` holds, reading more
    /// input as needed; the buffer length at the end of the input.
    #[inline(always)]
    fn find(&mut self, i: usize, stop: impl Fn(u8) -> bool) -> io::Result<usize> {
        // Usually the answer is already in the buffer.
        if let Some(p) = self
            .buf
            .get(i..)
            .and_then(|rest| rest.iter().position(|&b| stop(b)))
        {
            return Ok(i + p);
        }
        self.find_reading(i, stop)
    }

    /// [`Reader::find`] when more input may be needed.
    #[inline(never)]
    fn find_reading(&mut self, mut i: usize, stop: impl Fn(u8) -> bool) -> io::Result<usize> {
        loop {
            if let Some(rest) = self.buf.get(i..) {
                match rest.iter().position(|&b| stop(b)) {
                    Some(p) => return Ok(i + p),
                    None => i = self.buf.len(),
                }
            }
            if !self.fill()? {
                return Ok(self.buf.len().min(i));
            }
        }
    }

    /// Whether a byte-order mark (`EF BB BF`) starts at buffer index `i`.
    fn is_bom(&mut self, i: usize) -> io::Result<bool> {
        Ok(self.peek(i + 2)?.is_some() && self.buf.get(i..i + 3) == Some(&b"\xEF\xBB\xBF"[..]))
    }

    /// Passes a byte-order mark at buffer index `i`, the start of a line, as blank space that
    /// takes no column (as at the start of the file): files joined into one keep theirs at
    /// the start of their first game. Returns the index after it.
    fn skip_bom(&mut self, i: usize) -> usize {
        let after = i + 3;
        self.col_offset = self.base + after as u64;
        self.col = 1;
        after
    }

    /// Notes that a new line starts at buffer index `i`.
    #[inline]
    fn new_line(&mut self, i: usize) {
        self.line = self.line.saturating_add(1);
        self.line_start = self.base + i as u64;
        self.col_offset = self.line_start;
        self.col = 1;
        self.col_unsure = false;
    }

    /// Skips a line end at `i` (`\n`, `\r\n` or `\r`), if there is one; returns the index after.
    #[inline]
    fn line_end(&mut self, i: usize) -> io::Result<usize> {
        match self.peek(i)? {
            Some(b'\n') => {
                self.new_line(i + 1);
                Ok(i + 1)
            }
            Some(b'\r') => {
                let next = if self.peek(i + 1)? == Some(b'\n') {
                    i + 2
                } else {
                    i + 1
                };
                self.new_line(next);
                Ok(next)
            }
            _ => Ok(i),
        }
    }

    /// The span of buffer indices `start..end` (on the current line).
    #[inline]
    fn span(&mut self, start: usize, end: usize) -> Span {
        let offset = self.base + start as u64;
        if offset < self.col_offset {
            self.col_offset = self.line_start;
            self.col = 1;
            self.col_unsure = true;
        }
        let from = usize::try_from(self.col_offset.saturating_sub(self.base)).unwrap_or(usize::MAX);
        let chars = if self.col_unsure {
            self.col_unsure = false;
            self.buf
                .get(from..start)
                .map_or(0, |s| s.iter().filter(|&&b| b & 0xC0 != 0x80).count())
        } else {
            start.saturating_sub(from)
        };
        self.col = self
            .col
            .saturating_add(u32::try_from(chars).unwrap_or(u32::MAX));
        self.col_offset = offset;
        Span {
            offset,
            len: end.saturating_sub(start) as u64,
            line: self.line,
            column: self.col,
        }
    }

    /// Notes that bytes that may not be ASCII were passed on the current line.
    #[inline]
    fn unsure(&mut self) {
        self.col_unsure = true;
    }

    /// Records a diagnostic; errors beyond the limit are dropped after one
    /// [`DiagnosticKind::TooManyErrors`].
    fn report(&mut self, game: &mut RawGame, kind: DiagnosticKind, start: usize, end: usize) {
        if kind.severity() == super::game::Severity::Error {
            self.errors += 1;
            if self.errors > self.options.max_errors_per_game {
                if self.errors == self.options.max_errors_per_game + 1 {
                    let span = self.span(start, end);
                    game.diagnostics.push(Diagnostic {
                        kind: DiagnosticKind::TooManyErrors,
                        span,
                    });
                }
                return;
            }
        }
        let span = self.span(start, end);
        game.diagnostics.push(Diagnostic { kind, span });
    }

    #[inline]
    fn push(&mut self, game: &mut RawGame, kind: TokenKind, start: usize, end: usize) {
        let span = self.span(start, end);
        game.tokens.push(Token { kind, span });
    }

    /// Reports invalid UTF-8 in `start..end` (all on the current line).
    fn check_utf8(&mut self, game: &mut RawGame, start: usize, end: usize) {
        let Some(bytes) = self.buf.get(start..end) else {
            return;
        };
        if let Err(e) = std::str::from_utf8(bytes) {
            let bad = start + e.valid_up_to();
            let len = e.error_len().unwrap_or(end - bad).max(1);
            self.report(game, DiagnosticKind::InvalidUtf8, bad, bad + len);
        }
    }

    /// Reads one game into `game`; false if the input held no more games.
    fn read_game(&mut self, game: &mut RawGame) -> io::Result<bool> {
        game.piece_letters = self.options.piece_letters;
        loop {
            let passed = match self.begin_game()? {
                Begin::End => return Ok(false),
                Begin::At(i) => {
                    let (end, scan, ended_open) = self.read_elements(game, i)?;
                    if end < self.view_end {
                        return Ok(self.end_game(game, &scan, end, ended_open));
                    }
                    // The game took its whole view: it is longer than the limit.
                    game.clear();
                    self.pass_too_large(game)?
                }
                Begin::TooLarge => self.pass_too_large(game)?,
            };
            match passed {
                Passed::Game => return Ok(true),
                Passed::Resumed => {}
                Passed::Ended => return Ok(false),
            }
        }
    }

    /// Reads the elements of a game that starts at `i` (after blank lines); returns where
    /// it ends, what was seen, and whether it ran to the end of the input outside a comment
    /// after its movetext began.
    fn read_elements(
        &mut self,
        game: &mut RawGame,
        mut i: usize,
    ) -> io::Result<(usize, Scan, bool)> {
        let mut scan = Scan {
            at_line_start: self.base + i as u64 == self.line_start,
            movetext: false,
            first: None,
            result: None,
            result_reported: false,
            wide: false,
            line_end: None,
        };
        let mut ended_open = false;
        let end = loop {
            if scan.wide {
                self.unsure();
            }
            if scan.first.is_some()
                && scan.result.is_none()
                && self.errors <= self.options.max_errors_per_game
            {
                let (next, tokens) = self.fast_movetext(game, i, &mut scan.at_line_start);
                i = next;
                scan.movetext |= tokens;
            }
            let Some(b) = self.skip_blanks(&mut i, &mut scan.at_line_start)? else {
                ended_open = scan.movetext;
                break self.buf.len();
            };
            // A byte-order mark starting a line is blank space; looked for here, once per
            // element, rather than at every blank.
            if b == 0xEF && self.base + i as u64 == self.line_start && self.is_bom(i)? {
                i = self.skip_bom(i);
                continue;
            }
            let line_begin = scan.at_line_start;
            scan.at_line_start = false;
            if b == b'[' && line_begin && scan.movetext {
                break usize::try_from(self.line_start.saturating_sub(self.base))
                    .unwrap_or(i)
                    .min(i);
            }
            if scan.first.is_none() {
                scan.first = Some(self.span(i, i));
            }
            // Taken before a result in the movetext is reported, which counts as an error.
            let skipping = self.errors > self.options.max_errors_per_game;
            // Tags, comments, escapes and stray bytes may hold more than ASCII: columns after
            // them must be counted (see `span`).
            scan.wide = !(b.is_ascii_alphanumeric()
                || matches!(b, b'$' | b'*' | b'(' | b')' | b'.' | b'!' | b'?'));
            if !matches!(b, b'[' | b'{' | b';' | b'%') {
                scan.movetext = true;
                if let Some(span) = scan.result
                    && !scan.result_reported
                {
                    scan.result_reported = true;
                    self.report_at(game, DiagnosticKind::ResultInMovetext, span);
                }
            }
            match self.element(game, b, i, line_begin, skipping, &mut scan)? {
                Step::Next(next) => i = next,
                Step::End(end) => break end,
            }
        };
        Ok((end, scan, ended_open))
    }

    /// Sets the reader up for a game: passes the lines before it that hold only blank space
    /// (and a byte-order mark at their start), which belong to no game, dropping them. Says
    /// where the game's first line starts (past a byte-order mark that begins the input).
    fn begin_game(&mut self) -> io::Result<Begin> {
        if !self.started {
            self.started = true;
            if self.peek(2)?.is_some() && self.buf.starts_with(b"\xEF\xBB\xBF") {
                self.line_start = 3;
                self.col_offset = 3;
            }
        }
        self.lines.clear();
        self.lines.push(Line::MAIN);
        self.errors = 0;
        loop {
            self.set_view();
            self.head_line = self.line;
            let i = if self.base == 0 && self.head == 0 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                3
            } else {
                self.head
            };
            let mut j = i;
            if self.base + j as u64 == self.line_start && self.is_bom(j)? {
                j += 3;
            }
            let k = self.find(j, |b| !is_blank(b))?;
            match self.peek(k)? {
                Some(b'\n' | b'\r') => {
                    let mut next = self.line_end(k)?;
                    if next >= self.view_end {
                        // Longer than the limit, with its line end (whose `\r\n` the view
                        // may have cut in two: the skip counts its lines again).
                        return Ok(Begin::TooLarge);
                    }
                    // Empty lines after it are passed in one go.
                    while self.buf.get(next) == Some(&b'\n') {
                        next += 1;
                        self.new_line(next);
                    }
                    self.consume(next);
                }
                Some(_) => return Ok(Begin::At(i)),
                // A blank line that runs past the view is longer than the limit.
                None if self.buf.len() >= self.view_end => return Ok(Begin::TooLarge),
                None => return Ok(Begin::End),
            }
        }
    }

    /// Passes a game (or blank line) at `head` that is longer than the limit: reading goes
    /// on at the first `[` that starts a line (right after its line end) at least
    /// [`ReaderOptions::max_game_bytes`] bytes after the game's start. Unless everything
    /// passed is blank space, `game` becomes the game too large to read.
    fn pass_too_large(&mut self, game: &mut RawGame) -> io::Result<Passed> {
        let start = self.base + self.head as u64;
        let start_line = self.head_line;
        let limit = self.options.max_game_bytes as u64;
        let threshold = start.saturating_add(limit);
        // The skip takes in the input as it goes; in a stream it keeps none of it.
        self.view_end = usize::MAX;
        let mut lines = LineCounter::default();
        let mut line = u64::from(start_line);
        let mut content = false;
        let mut previous: Option<u8> = None;
        let mut i = self.head;
        let found = loop {
            let bytes = self.buf.get(i..).unwrap_or(&[]);
            let here = self.base + i as u64;
            let from = usize::try_from(threshold.saturating_sub(here)).unwrap_or(usize::MAX);
            let resume = memchr::memchr_iter(b'[', bytes).find(|&p| {
                p >= from
                    && matches!(
                        p.checked_sub(1).map_or(previous, |q| bytes.get(q).copied()),
                        Some(b'\n' | b'\r')
                    )
            });
            let passed = bytes.get(..resume.unwrap_or(bytes.len())).unwrap_or(&[]);
            line = line.saturating_add(lines.count(passed));
            content = content || passed.iter().any(|&b| !is_skip_blank(b));
            if let Some(p) = resume {
                i += p;
                break true;
            }
            previous = bytes.last().copied().or(previous);
            i = self.buf.len();
            if !self.eof {
                // Nothing passed is kept.
                self.base += self.buf.len() as u64;
                self.buf.clear();
                self.head = 0;
                i = 0;
            }
            if !self.fill()? {
                break false;
            }
        };
        self.line = u32::try_from(line).unwrap_or(u32::MAX);
        let at = self.base + i as u64;
        self.line_start = at;
        self.col_offset = at;
        self.col = 1;
        self.col_unsure = false;
        self.consume(i);
        self.ended_open = found;
        if !found {
            self.open_skip = Some(OpenSkip {
                offset: start,
                line: start_line,
                reported: content,
            });
        }
        if !content {
            return Ok(if found {
                Passed::Resumed
            } else {
                Passed::Ended
            });
        }
        *game = RawGame {
            number: self.games + 1,
            ..RawGame::too_large(start, start_line, limit)
        };
        self.games += 1;
        Ok(Passed::Game)
    }

    /// Passes blanks and line ends from `i`; the first other byte, or `None` at the end of
    /// the input.
    #[inline]
    fn skip_blanks(&mut self, i: &mut usize, at_line_start: &mut bool) -> io::Result<Option<u8>> {
        loop {
            match self.buf.get(*i) {
                Some(&b) if is_blank(b) => *i += 1,
                Some(b'\n' | b'\r') => {
                    *i = self.line_end(*i)?;
                    *at_line_start = true;
                }
                Some(&b) => return Ok(Some(b)),
                None => {
                    if !self.fill()? {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// Reads the element that starts with byte `b` at `i`: where reading goes on, or where
    /// the game ends when the element ends it.
    #[inline]
    fn element(
        &mut self,
        game: &mut RawGame,
        b: u8,
        i: usize,
        line_begin: bool,
        skipping: bool,
        scan: &mut Scan,
    ) -> io::Result<Step> {
        let next = match b {
            b'[' => self.bracket(game, i, scan, skipping)?,
            b'%' if line_begin => {
                let eol = self.find(i, |b| b == b'\n' || b == b'\r')?;
                let line = self.buf.get(i..eol).unwrap_or(&[]);
                if !skipping && whole(grammar::escape_line, line).is_some() {
                    self.push(game, TokenKind::Escape, i, eol);
                }
                eol
            }
            b'{' => return self.brace_comment(game, i, skipping),
            b';' => {
                let eol = self.find(i, |b| b == b'\n' || b == b'\r')?;
                self.check_utf8(game, i, eol);
                let line = self.buf.get(i..eol).unwrap_or(&[]);
                if !skipping && whole(grammar::line_comment, line).is_some() {
                    self.push(game, TokenKind::LineComment, i, eol);
                }
                eol
            }
            b'(' => self.variation_start(game, i, skipping),
            b')' => self.variation_end(game, i, skipping),
            b'$' => {
                let stop = self.find(i + 1, |b| !b.is_ascii_digit())?;
                let nag = self.buf.get(i..stop).and_then(|t| whole(grammar::nag, t));
                match nag {
                    Some(n) if !skipping => self.push(game, TokenKind::Nag(n), i, stop),
                    Some(_) => {}
                    None => self.report(game, DiagnosticKind::BadNag, i, stop.max(i + 1)),
                }
                stop.max(i + 1)
            }
            b'*' => {
                let value = self
                    .buf
                    .get(i..i + 1)
                    .and_then(|t| whole(grammar::result, t));
                let value = value.unwrap_or(GameResult::Unknown);
                self.result(game, value, i, i + 1, &mut scan.result, skipping)
            }
            b'0'..=b'9' => self.number(game, i, &mut scan.result, skipping)?,
            b'.' => self.dots(game, i)?,
            b'!' | b'?' => self.glyph(game, i, skipping)?,
            b if b.is_ascii_alphabetic() => self.move_token(game, i, skipping)?,
            _ if self.options.piece_letters.is_some() && self.wide_letter_at(i) > 0 => {
                self.wide_move_token(game, i, skipping)?
            }
            _ => self.stray(game, i)?,
        };
        Ok(Step::Next(next))
    }

    /// A `[` in a game: a line of tag pairs before the movetext, an error in it.
    fn bracket(
        &mut self,
        game: &mut RawGame,
        i: usize,
        scan: &mut Scan,
        skipping: bool,
    ) -> io::Result<usize> {
        // Each tag pair of a line needs the line's end: found once per line, not once per
        // pair (which made a line of many pairs cost quadratic time).
        let eol = match scan.line_end {
            Some(eol) if eol >= i => eol,
            _ => self.find(i, |b| b == b'\n' || b == b'\r')?,
        };
        scan.line_end = Some(eol);
        if scan.movetext {
            let close = self
                .buf
                .get(i..eol)
                .and_then(|l| l.iter().position(|&b| b == b']'));
            let stop = close.map_or(eol, |p| i + p + 1);
            self.report(game, DiagnosticKind::TagInMovetext, i, stop);
            Ok(stop)
        } else {
            Ok(self.tag(game, i, eol, skipping))
        }
    }

    /// A `{` comment: its token, or the end of the game when it is left open.
    fn brace_comment(&mut self, game: &mut RawGame, i: usize, skipping: bool) -> io::Result<Step> {
        let start_span = self.span(i, i + 1);
        Ok(match self.comment(game, i)? {
            CommentEnd::Closed(stop) => {
                if !skipping {
                    game.tokens.push(Token {
                        kind: TokenKind::Comment,
                        span: Span {
                            len: (stop - i) as u64,
                            ..start_span
                        },
                    });
                }
                Step::Next(stop)
            }
            CommentEnd::Eof => {
                self.unsure();
                self.report_at(game, DiagnosticKind::UnterminatedComment, start_span);
                Step::End(self.buf.len())
            }
            CommentEnd::TagLine(stop) => {
                self.report_at(game, DiagnosticKind::UnterminatedComment, start_span);
                Step::End(stop)
            }
        })
    }

    /// A `(`: a line of play opens, numbered from the move it replaces.
    fn variation_start(&mut self, game: &mut RawGame, i: usize, skipping: bool) -> usize {
        let open = self.span(i, i + 1);
        let next = self.lines.last().and_then(|l| l.before_last);
        if self.lines.len() == 1 {
            self.outer_open = open;
        }
        self.lines.push(Line {
            next,
            before_last: None,
        });
        if !skipping {
            game.tokens.push(Token {
                kind: TokenKind::VariationStart,
                span: open,
            });
        }
        i + 1
    }

    /// A `)`: the innermost line of play closes.
    fn variation_end(&mut self, game: &mut RawGame, i: usize, skipping: bool) -> usize {
        if self.lines.len() > 1 {
            self.lines.pop();
            if !skipping {
                self.push(game, TokenKind::VariationEnd, i, i + 1);
            }
        } else {
            self.report(game, DiagnosticKind::UnmatchedVariationEnd, i, i + 1);
        }
        i + 1
    }

    /// Dots apart from their number (`1. ... e5`): they only say who moves.
    fn dots(&mut self, game: &mut RawGame, i: usize) -> io::Result<usize> {
        let stop = self.find(i, |b| b != b'.')?;
        let dots = self.buf.get(i..stop).and_then(|t| whole(grammar::dots, t));
        if dots.is_some_and(|n| n >= 3)
            && let Some(Token {
                kind: TokenKind::MoveNumber { black, .. },
                ..
            }) = game.tokens.last_mut()
        {
            *black = true;
        }
        Ok(stop)
    }

    /// A glyph apart from its move (`e4 !?`), read as its NAG.
    fn glyph(&mut self, game: &mut RawGame, i: usize, skipping: bool) -> io::Result<usize> {
        let stop = self.find(i, |b| b != b'!' && b != b'?')?;
        let glyph = self
            .buf
            .get(i..stop)
            .and_then(super::san::Glyph::from_ascii);
        match glyph {
            Some(g) if !skipping => self.push(game, TokenKind::Nag(g.nag()), i, stop),
            Some(_) => {}
            None => self.report(game, DiagnosticKind::UnexpectedChar, i, stop),
        }
        Ok(stop)
    }

    /// A move that the fast path left (one that may run past the buffer, or any text after
    /// something else the general way read).
    fn move_token(&mut self, game: &mut RawGame, i: usize, skipping: bool) -> io::Result<usize> {
        let mut stop = i + 1;
        while self.buf.get(stop).is_some_and(|&b| is_symbol(b)) {
            stop += 1;
        }
        if stop >= self.buf.len() {
            stop = self.find(stop, |b| !is_symbol(b))?;
        }
        if self.options.piece_letters.is_some() && self.wide_letter_at(stop) > 0 {
            // A promotion written in a set's letters beyond ASCII (`e8=Ф`).
            return self.wide_move_token(game, i, skipping);
        }
        let read = self.buf.get(i..stop).map(read_move);
        self.end_move_token(game, i, stop, read, skipping);
        Ok(stop)
    }

    /// Records what the move token `i..stop` read as ([`read_move`]; `None`: no text a move
    /// could be); a bad move still takes its turn, so that the move numbers after it are not
    /// reported too.
    #[inline(always)]
    fn end_move_token(
        &mut self,
        game: &mut RawGame,
        i: usize,
        stop: usize,
        read: Option<Result<PackedFastSan, SanError>>,
        skipping: bool,
    ) {
        match read {
            Some(Ok(packed)) if !skipping => self.push(game, TokenKind::Move(packed), i, stop),
            Some(Err(e)) => self.report(game, DiagnosticKind::BadMove(e), i, stop),
            None => self.report(game, DiagnosticKind::UnexpectedChar, i, stop),
            _ => {}
        }
        if let Some(line) = self.lines.last_mut() {
            line.took_turn();
        }
    }

    /// [`Reader::move_token`] for a move written with a set's letters beyond ASCII
    /// ([`ReaderOptions::piece_letters`]): read through the set's transliteration.
    #[cold]
    #[inline(never)]
    fn wide_move_token(
        &mut self,
        game: &mut RawGame,
        i: usize,
        skipping: bool,
    ) -> io::Result<usize> {
        let mut stop = i + self.wide_letter_at(i).max(1);
        loop {
            while self.buf.get(stop).is_some_and(|&b| is_symbol(b)) {
                stop += 1;
            }
            if stop >= self.buf.len() {
                stop = self.find(stop, |b| !is_symbol(b))?;
            }
            match self.wide_letter_at(stop) {
                n if n > 0 && self.buf.get(stop - 1) == Some(&b'=') => stop += n,
                _ => break,
            }
        }
        let text = self.buf.get(i..stop).unwrap_or(&[]);
        let read = match self.options.piece_letters {
            Some(set) => set.transliterate(text),
            None => Some(text.to_vec()),
        }
        .map(|ascii| read_move(&ascii));
        self.end_move_token(game, i, stop, read, skipping);
        Ok(stop)
    }

    /// The length of the letter of the set of piece letters beyond ASCII at buffer index
    /// `i`, or 0 (no such set, no such letter).
    #[cold]
    #[inline(never)]
    fn wide_letter_at(&mut self, i: usize) -> usize {
        let Some(set) = self.options.piece_letters.filter(|s| s.has_wide_letters()) else {
            return 0;
        };
        // The longest letter is a few bytes: make sure they are in the buffer.
        let _ = self.peek(i + 8);
        self.buf
            .get(i..)
            .map_or(0, |rest| set.wide_letter_len(rest))
    }

    /// A byte that starts no element: one character (or one invalid byte) is reported, and
    /// reading goes on after it.
    fn stray(&mut self, game: &mut RawGame, i: usize) -> io::Result<usize> {
        let len = self.char_len(i)?;
        let valid = self
            .buf
            .get(i..i + len)
            .is_some_and(|c| std::str::from_utf8(c).is_ok());
        let kind = if valid {
            DiagnosticKind::UnexpectedChar
        } else {
            DiagnosticKind::InvalidUtf8
        };
        self.report(game, kind, i, i + len);
        Ok(i + len)
    }

    /// The game ends at buffer index `end`: what is left open is reported, and the game
    /// takes its source and number. False when there was no game, only blank space.
    fn end_game(&mut self, game: &mut RawGame, scan: &Scan, end: usize, ended_open: bool) -> bool {
        if scan.first.is_none() && game.diagnostics.is_empty() {
            // Nothing but blank space is left.
            self.consume(end);
            return false;
        }
        if self.lines.len() > 1 {
            self.report_at(game, DiagnosticKind::UnterminatedVariation, self.outer_open);
        }
        let end_span = self.span(end.min(self.buf.len()), end.min(self.buf.len()));
        if scan.result.is_none() && (scan.movetext || !game.tags.is_empty()) {
            game.diagnostics.push(Diagnostic {
                kind: DiagnosticKind::MissingResult,
                span: end_span,
            });
        }
        self.ended_open = ended_open;
        self.games += 1;
        game.number = self.games;
        game.source_offset = self.base + self.head as u64;
        game.source
            .extend_from_slice(self.buf.get(self.head..end).unwrap_or(&[]));
        let start = scan.first.unwrap_or(end_span);
        game.start = Span {
            len: (self.base + end as u64).saturating_sub(start.offset),
            ..start
        };
        check_duplicate_tags(game);
        self.check_result_tag(game);
        self.consume(end);
        true
    }

    /// The common movetext, read in one tight loop: blanks, `\n` line ends, move numbers
    /// (`12.`, `12...`) and moves in the fast forms, each wholly in the buffer. Returns the
    /// index of the first byte it leaves to the general loop (anything else, or a token that
    /// may run past the buffer), which does exactly what this does for these tokens, and
    /// whether it read any token.
    #[inline]
    fn fast_movetext(
        &mut self,
        game: &mut RawGame,
        start: usize,
        at_line_start: &mut bool,
    ) -> (usize, bool) {
        // Columns are byte distances only on a line known to be ASCII so far.
        if self.col_unsure {
            return (start, false);
        }
        let Some(mut play_line) = self.lines.last().copied() else {
            return (start, false);
        };
        // A token this long is left to the general loop, which reads more input if needed.
        const LONGEST: usize = 32;
        let buf = &self.buf[..];
        let end = buf.len().saturating_sub(LONGEST);
        let base = self.base;
        // The reader's place, kept in registers here and stored back at the end.
        let (mut line, mut line_start) = (self.line, self.line_start);
        // Every byte read here is ASCII, so a column is the distance from the offset of the
        // line's column 0: one value to keep, not a reference point and its column.
        let mut column_zero = self.col_offset.wrapping_sub(u64::from(self.col));
        let mut at_start = *at_line_start;
        let mut tokens = false;
        let mut i = start;
        // The span of `from..to` on the current line.
        let span = |from: usize, to: usize, line: u32, column_zero: u64| {
            let offset = base + from as u64;
            Span {
                offset,
                len: (to - from) as u64,
                line,
                column: offset.wrapping_sub(column_zero) as u32,
            }
        };
        while i < end {
            let Some(&b) = buf.get(i) else { break };
            match b {
                b' ' | b'\t' => i += 1,
                b'\n' => {
                    i += 1;
                    line = line.saturating_add(1);
                    line_start = base + i as u64;
                    column_zero = line_start.wrapping_sub(1);
                    at_start = true;
                }
                b'1'..=b'9' => {
                    let mut digits = i;
                    let mut number: u32 = 0;
                    while let Some(&d @ b'0'..=b'9') = buf.get(digits) {
                        number = number.wrapping_mul(10).wrapping_add(u32::from(d - b'0'));
                        digits += 1;
                    }
                    // Longer numbers (which may overflow) and results go the general way.
                    if digits - i > 9 || buf.get(digits) != Some(&b'.') {
                        break;
                    }
                    let mut stop = digits;
                    while buf.get(stop) == Some(&b'.') {
                        stop += 1;
                    }
                    let black = stop - digits >= 3;
                    // A number out of order is reported by the general loop.
                    let now_black = match play_line.next {
                        Some((n, b)) if number != n || (black && !b) => break,
                        Some((_, b)) => b,
                        None => black,
                    };
                    play_line.next = Some((number, now_black));
                    game.tokens.push(Token {
                        kind: TokenKind::MoveNumber { number, black },
                        span: span(i, stop, line, column_zero),
                    });
                    at_start = false;
                    tokens = true;
                    i = stop;
                }
                b'a'..=b'z' | b'A'..=b'Z' => {
                    // Most moves are fast forms ended by a blank or a line end: their end is
                    // found in one step, and reading the fast form checks every byte before
                    // it (all are symbol bytes).
                    let fast = blank_ahead(buf, i).and_then(|stop| {
                        let packed = PackedFastSan::of(buf.get(i..stop)?);
                        (packed != PackedFastSan::NONE).then_some((stop, packed))
                    });
                    let (stop, packed) = match fast {
                        Some(found) => found,
                        None => {
                            let mut stop = i + 1;
                            while buf.get(stop).is_some_and(|&b| is_symbol(b)) {
                                stop += 1;
                            }
                            if stop >= buf.len() {
                                break;
                            }
                            let text = buf.get(i..stop).unwrap_or(&[]);
                            let packed = PackedFastSan::of(text);
                            if packed == PackedFastSan::NONE && SanPlus::check(text).is_err() {
                                break;
                            }
                            (stop, packed)
                        }
                    };
                    game.tokens.push(Token {
                        kind: TokenKind::Move(packed),
                        span: span(i, stop, line, column_zero),
                    });
                    play_line.took_turn();
                    at_start = false;
                    tokens = true;
                    i = stop;
                }
                _ => break,
            }
        }
        self.line = line;
        self.line_start = line_start;
        // The column of where this stops.
        self.col_offset = base + i as u64;
        self.col = self.col_offset.wrapping_sub(column_zero) as u32;
        if let Some(l) = self.lines.last_mut() {
            *l = play_line;
        }
        *at_line_start = at_start;
        (i, tokens)
    }

    /// Warns when the `Result` tag and the result after the movetext differ.
    fn check_result_tag(&self, game: &mut RawGame) {
        let Some(token) = game
            .tokens
            .iter()
            .rev()
            .find(|t| matches!(t.kind, TokenKind::Result(_)))
        else {
            return;
        };
        let TokenKind::Result(result) = token.kind else {
            return;
        };
        let span = token.span;
        if let Some(tag) = game.tag(tags::RESULT)
            && GameResult::from_ascii(tag.trim().as_bytes()).is_some_and(|t| t != result)
        {
            game.diagnostics.push(Diagnostic {
                kind: DiagnosticKind::ResultMismatch,
                span,
            });
        }
    }

    /// Moves the start of the next game to `end`, dropping old bytes once they are many.
    fn consume(&mut self, end: usize) {
        self.head = end.min(self.buf.len());
        // Once the input has ended the buffer grows no more, so old bytes can stay.
        if !self.eof && self.head >= CHUNK && self.head * 2 >= self.buf.len() {
            self.buf.drain(..self.head);
            self.base += self.head as u64;
            self.head = 0;
        }
    }

    fn report_at(&mut self, game: &mut RawGame, kind: DiagnosticKind, span: Span) {
        self.errors += 1;
        game.diagnostics.push(Diagnostic { kind, span });
    }

    /// The length of the UTF-8 character at `i` (1 for a byte that does not start one).
    fn char_len(&mut self, i: usize) -> io::Result<usize> {
        let Some(b) = self.peek(i)? else {
            return Ok(1);
        };
        let want = match b {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return Ok(1),
        };
        let mut len = 1;
        while len < want {
            match self.peek(i + len)? {
                Some(c) if c & 0xC0 == 0x80 => len += 1,
                _ => return Ok(len),
            }
        }
        Ok(len)
    }

    /// Reads the tag pairs on the line from `i` to `eol`; returns where reading goes on.
    fn tag(&mut self, game: &mut RawGame, i: usize, eol: usize, skipping: bool) -> usize {
        let line = self.buf.get(i..eol);
        // The common form is read in one pass, and is all ASCII: no UTF-8 to check.
        let (parsed, ascii) = match line.and_then(fast_tag_pair) {
            Some(parts) => (Some(Ok(parts)), true),
            None => (line.map(tag_pair), false),
        };
        match parsed {
            Some(Ok(parts)) => {
                let (ns, ne) = (i + parts.name.0, i + parts.name.1);
                let (vs, ve) = (i + parts.value.0, i + parts.value.1);
                // The spans first: columns are counted forward from the last span, and one
                // before it (an error in the value) would count the line again from its
                // start.
                let span = self.span(i, i + parts.len);
                let name = self.span(ns, ne);
                let value = self.span(vs, ve);
                let before = game.diagnostics.len();
                if !ascii {
                    self.check_utf8(game, vs, ve);
                }
                if game.diagnostics.len() == before && !skipping {
                    game.tags.push(Tag { span, name, value });
                }
                i + parts.len
            }
            Some(Err(failure)) => {
                let at = i + failure.at;
                let len = self.buf.get(at..eol).map_or(0, |rest| {
                    rest.iter().take_while(|&&b| !is_blank(b)).count().min(1)
                });
                self.check_utf8(game, i, at);
                self.report(game, failure.kind, at, at + len);
                eol
            }
            None => eol,
        }
    }

    /// Reads a `{` comment starting at `i`, reporting invalid UTF-8 in it.
    fn comment(&mut self, game: &mut RawGame, i: usize) -> io::Result<CommentEnd> {
        let mut segment = i + 1;
        loop {
            let j = self.find(segment, |b| matches!(b, b'}' | b'\n' | b'\r'))?;
            self.check_utf8(game, segment, j);
            match self.peek(j)? {
                None => return Ok(CommentEnd::Eof),
                Some(b'}') => return Ok(CommentEnd::Closed(j + 1)),
                Some(_) => {
                    segment = self.line_end(j)?;
                    // A line of tag pairs inside an open comment starts the next game.
                    // A byte-order mark starting the line takes no column there either.
                    let k = if self.is_bom(segment)? {
                        self.skip_bom(segment)
                    } else {
                        segment
                    };
                    let k = self.find(k, |b| !is_blank(b))?;
                    if self.peek(k)? == Some(b'[') {
                        let eol = self.find(k, |b| b == b'\n' || b == b'\r')?;
                        if self.open_end && eol == self.buf.len() && eol < self.view_end {
                            // The line goes on past the input given: whether it holds only
                            // tag pairs is not known. The game runs to the end, and is read
                            // again with what follows.
                            return Ok(CommentEnd::Eof);
                        }
                        if self.buf.get(k..eol).is_some_and(is_tag_line) {
                            return Ok(CommentEnd::TagLine(segment));
                        }
                    }
                }
            }
        }
    }

    /// Records a result token.
    fn result(
        &mut self,
        game: &mut RawGame,
        value: GameResult,
        start: usize,
        stop: usize,
        result: &mut Option<Span>,
        skipping: bool,
    ) -> usize {
        if self.lines.len() > 1 {
            self.report(game, DiagnosticKind::ResultInMovetext, start, stop);
        } else {
            let span = self.span(start, stop);
            if result.is_none() {
                *result = Some(span);
            }
            if !skipping {
                game.tokens.push(Token {
                    kind: TokenKind::Result(value),
                    span,
                });
            }
        }
        stop
    }

    /// Reads a token that starts with a digit: a move number or a result.
    fn number(
        &mut self,
        game: &mut RawGame,
        i: usize,
        result: &mut Option<Span>,
        skipping: bool,
    ) -> io::Result<usize> {
        let digits = self.find(i, |b| !b.is_ascii_digit())?;
        if self.peek(digits)? == Some(b'.') {
            let stop = self.find(digits, |b| b != b'.')?;
            let number = self
                .buf
                .get(i..stop)
                .and_then(|t| whole(grammar::move_number, t));
            let Some((number, black)) = number else {
                self.report(game, DiagnosticKind::BadMoveNumber, i, digits);
                return Ok(stop);
            };
            self.move_number(game, number, black, i, stop, skipping);
            return Ok(stop);
        }
        let stop = self.find(i, |b| !(is_symbol(b) || b == b'/'))?;
        let text = self.buf.get(i..stop).unwrap_or(&[]);
        if let Some(value) = whole(grammar::result, text) {
            return Ok(self.result(game, value, i, stop, result, skipping));
        }
        if stop == digits {
            // A move number without its dot.
            match whole(grammar::move_number, text) {
                Some((n, _)) => self.move_number(game, n, false, i, stop, skipping),
                None => self.report(game, DiagnosticKind::BadMoveNumber, i, stop),
            }
            return Ok(stop);
        }
        let kind = match SanPlus::from_ascii(text) {
            Err(e @ (super::san::SanError::Castling | super::san::SanError::NullMove)) => {
                DiagnosticKind::BadMove(e)
            }
            _ => DiagnosticKind::BadResult,
        };
        self.report(game, kind, i, stop);
        Ok(stop)
    }

    /// Records a move number and checks it against the moves before it.
    fn move_number(
        &mut self,
        game: &mut RawGame,
        number: u32,
        black: bool,
        start: usize,
        stop: usize,
        skipping: bool,
    ) {
        if skipping {
            return;
        }
        let Some(line) = self.lines.last().copied() else {
            return;
        };
        let mut now_black = black;
        if let Some((n, b)) = line.next {
            if number != n || (black && !b) {
                self.report(
                    game,
                    DiagnosticKind::MoveNumberOutOfOrder {
                        expected: n,
                        black: b,
                    },
                    start,
                    stop,
                );
            } else {
                now_black = b;
            }
        }
        if let Some(line) = self.lines.last_mut() {
            line.next = Some((number, now_black));
        }
        self.push(game, TokenKind::MoveNumber { number, black }, start, stop);
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<RawGame, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (source, tokens, tags) = self.last_sizes;
        let mut game = RawGame {
            source: Vec::with_capacity(source.saturating_mul(2).min(1 << 20)),
            tokens: Vec::with_capacity(tokens.saturating_mul(2).min(1 << 16)),
            tags: Vec::with_capacity(tags.saturating_add(2).min(1 << 8)),
            ..RawGame::default()
        };
        match self.read_game_into(&mut game) {
            Ok(true) => Some(Ok(game)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::san::San;

    #[test]
    fn fast_tag_pairs_read_as_tag_pair_reads_them() {
        let plain: &[&[u8]] = &[
            b"[Event \"kabir generate\"]",
            b"[Round \"1\"] [White \"x\"]",
            b"[Date \"????.??.??\"]",
            b"[Site \"\"]",
            b"[A_1 \"~ !\"]",
        ];
        for &line in plain {
            let got = fast_tag_pair(line);
            assert!(got.is_some(), "{}", String::from_utf8_lossy(line));
            assert_eq!(
                got,
                tag_pair(line).ok(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        // Other forms are left to `tag_pair`.
        let other: &[&[u8]] = &[
            b"[ Event \"x\"]",
            b"[Event  \"x\"]",
            b"[Event \"x\" ]",
            b"[Event \"a\\\"b\"]",
            b"[Event \"caf\xc3\xa9\"]",
            b"[Event \"tab\there\"]",
            b"[Event \"open",
            b"[Event x]",
            b"[\"x\"]",
            b"[Event \"x\"",
        ];
        for &line in other {
            assert_eq!(
                fast_tag_pair(line),
                None,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        // Whatever the bytes, a plain reading is the full one.
        let alphabet = b"[]\" \\aZ_9\x80\t";
        let mut seed = 7u64;
        for _ in 0..20_000 {
            let len = (seed % 12) as usize;
            let mut line = b"[N \"".to_vec();
            for _ in 0..len {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                line.push(alphabet[(seed >> 33) as usize % alphabet.len()]);
            }
            if let Some(parts) = fast_tag_pair(&line) {
                assert_eq!(Some(parts), tag_pair(&line).ok(), "{:?}", line);
            }
        }
    }

    #[test]
    fn blank_ahead_finds_the_first_byte_at_or_below_a_space() {
        assert_eq!(blank_ahead(b"Nf3 Nc6 ", 0), Some(3));
        assert_eq!(
            blank_ahead(b"Nf3 Nc6 ", 4),
            None,
            "fewer than eight bytes left"
        );
        assert_eq!(blank_ahead(b"exd5+\r\nBb5", 0), Some(5));
        assert_eq!(blank_ahead(b"Rxc10#!\t", 0), Some(7));
        assert_eq!(blank_ahead(b"abcdefgh ", 0), None, "none among the eight");
        assert_eq!(blank_ahead(b"e4\x00\x01\x20\x21\x80\xff", 0), Some(2));
        // Bytes from 0x80 and symbol bytes are never taken for blanks.
        assert_eq!(blank_ahead(b"\x80\xa0\xffa!?# ", 0), Some(7));
        assert_eq!(blank_ahead(b"\x80\xa0\xffa!?#+", 0), None);
        for b in 0..=255u8 {
            let mut word = *b"aaaaaaaa";
            word[3] = b;
            let want = (b <= b' ').then_some(3);
            assert_eq!(blank_ahead(&word, 0), want, "byte {b:#x}");
            if want.is_some() {
                assert!(!is_symbol(b), "byte {b:#x}");
            }
        }
    }

    fn read(text: &[u8]) -> Vec<RawGame> {
        Reader::new(text)
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn kinds(game: &RawGame) -> Vec<DiagnosticKind> {
        game.diagnostics.iter().map(|d| d.kind).collect()
    }

    fn token_texts(game: &RawGame) -> Vec<String> {
        game.tokens
            .iter()
            .map(|t| game.text(t.span).into_owned())
            .collect()
    }

    #[test]
    fn numbers() {
        let number = |t: &[u8]| whole(grammar::move_number, t).map(|(n, _)| n);
        assert_eq!(number(b"12"), Some(12));
        assert_eq!(number(b"4294967295"), Some(u32::MAX));
        assert_eq!(number(b"4294967296"), None);
        assert_eq!(number(b"0"), None);
        assert_eq!(number(b""), None);
        assert_eq!(number(b"1a"), None);
        assert_eq!(whole(grammar::move_number, b"007..."), Some((7, true)));
    }

    #[test]
    fn tag_pairs() {
        assert_eq!(
            tag_pair(b"[Event \"x\"]"),
            Ok(TagParts {
                name: (1, 6),
                value: (8, 9),
                len: 11
            })
        );
        assert_eq!(
            tag_pair(b"[ Event\t\"a\\\"b\" ] rest"),
            Ok(TagParts {
                name: (2, 7),
                value: (9, 13),
                len: 16
            })
        );
        assert_eq!(
            tag_pair(b"[\"x\"]").map_err(|f| f.kind),
            Err(DiagnosticKind::BadTagName)
        );
        assert_eq!(
            tag_pair(b"[Event x]").map_err(|f| (f.kind, f.at)),
            Err((DiagnosticKind::BadTagValue, 7))
        );
        assert_eq!(
            tag_pair(b"[Event \"x").map_err(|f| (f.kind, f.at)),
            Err((DiagnosticKind::UnterminatedTagValue, 9))
        );
        assert_eq!(
            tag_pair(b"[Event \"x\\\"").map_err(|f| f.kind),
            Err(DiagnosticKind::UnterminatedTagValue)
        );
        assert_eq!(
            tag_pair(b"[Event \"x\" y").map_err(|f| (f.kind, f.at)),
            Err((DiagnosticKind::UnterminatedTag, 11))
        );
        assert!(is_tag_line(b"[A \"1\"] [B \"2\"]  "));
        assert!(!is_tag_line(b"[A \"1\"] e4"));
        assert!(!is_tag_line(b"[%clk 0:01]"));
    }

    #[test]
    fn a_simple_game() {
        let games =
            read(b"[Event \"Test\"]\n[Variant \"Shatranj\"]\n\n1. e3 e6 2. Nf3 {good} Nc6 1-0\n");
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert_eq!(g.number, 1);
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        assert_eq!(g.tag("Event").as_deref(), Some("Test"));
        assert_eq!(g.tag("Variant").as_deref(), Some("Shatranj"));
        assert_eq!(
            token_texts(g),
            ["1.", "e3", "e6", "2.", "Nf3", "{good}", "Nc6", "1-0"]
        );
        assert_eq!(g.result(), Some(GameResult::WhiteWins));
        let nf3 = g.tokens[4];
        assert_eq!(
            (nf3.span.line, nf3.span.column, nf3.span.offset),
            (4, 13, 49)
        );
        assert!(matches!(nf3.kind, TokenKind::Move(_)));
        assert_eq!(g.san(&nf3).map(|s| s.to_string()).as_deref(), Some("Nf3"));
        assert_eq!(g.moves().count(), 4);
        assert_eq!(g.comment_text(&g.tokens[5]), "good");
        assert_eq!(g.start.line, 1);
        assert_eq!(g.source.len(), 68);
    }

    #[test]
    fn games_are_split_at_tag_lines() {
        let text =
            b"[Event \"1\"]\n1. e3 *\n\n[Event \"2\"]\n1. d3 d6 0-1\n[Event \"3\"]\n1. Nf3\n";
        let games = read(text);
        assert_eq!(games.len(), 3);
        assert_eq!(games[1].tag("Event").as_deref(), Some("2"));
        assert_eq!(games[1].number, 2);
        assert_eq!(games[1].start.line, 4);
        assert_eq!(games[2].start.line, 6);
        assert_eq!(kinds(&games[2]), [DiagnosticKind::MissingResult]);
        let joined: Vec<u8> = games.iter().flat_map(|g| g.source.clone()).collect();
        assert_eq!(joined, text);
        assert_eq!(games[1].source_offset, 21);
    }

    #[test]
    fn move_numbers_and_dots() {
        let g = &read(b"1.e3 e6 2. Nf3 {x} 2... Nc6 3 . Rg1 ... Rb8 *")[0];
        let numbers: Vec<_> = g
            .tokens
            .iter()
            .filter_map(|t| match t.kind {
                TokenKind::MoveNumber { number, black } => Some((number, black)),
                _ => None,
            })
            .collect();
        assert_eq!(numbers, [(1, false), (2, false), (2, true), (3, false)]);
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    }

    #[test]
    fn out_of_order_move_numbers_are_warnings() {
        let g = &read(b"1. e3 e6 3. Nf3 *")[0];
        assert_eq!(
            kinds(g),
            [DiagnosticKind::MoveNumberOutOfOrder {
                expected: 2,
                black: false
            }]
        );
        assert!(!g.has_errors());
        assert_eq!(g.diagnostics[0].span.column, 10);
        // Variations restart from the move they replace.
        let g = &read(b"1. e3 e6 (1... d6 2. d3) (1... c6) 2. Nf3 (2. Nc3 Nc6 (2... Nf6)) *")[0];
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        let g = &read(b"1. e3 e6 (2... d6) *")[0];
        assert_eq!(
            kinds(g),
            [DiagnosticKind::MoveNumberOutOfOrder {
                expected: 1,
                black: true
            }]
        );
    }

    #[test]
    fn nags_glyphs_results_escapes() {
        let g = &read(b"% escaped line\n1. e3 $1 ! e6?! ; rest of line {not a comment\n1/2-1/2")[0];
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        let kinds: Vec<_> = g.tokens.iter().map(|t| t.kind).collect();
        assert_eq!(kinds[0], TokenKind::Escape);
        assert_eq!(kinds[3], TokenKind::Nag(1));
        assert_eq!(kinds[4], TokenKind::Nag(1));
        assert!(
            g.san(&g.tokens[5])
                .is_some_and(|s| s.glyph == Some(crate::san::Glyph::Dubious))
        );
        assert_eq!(kinds[6], TokenKind::LineComment);
        assert_eq!(kinds[7], TokenKind::Result(GameResult::Draw));
        assert_eq!(g.comment_text(&g.tokens[6]), " rest of line {not a comment");
    }

    #[test]
    fn variations_nest() {
        let g = &read(b"1. e3 (1. d3 (1. c3) e6) e6 *")[0];
        assert!(g.diagnostics.is_empty());
        let starts = g
            .tokens
            .iter()
            .filter(|t| t.kind == TokenKind::VariationStart)
            .count();
        let ends = g
            .tokens
            .iter()
            .filter(|t| t.kind == TokenKind::VariationEnd)
            .count();
        assert_eq!((starts, ends), (2, 2));
        let g = &read(b"1. e3 ) *")[0];
        assert_eq!(kinds(g), [DiagnosticKind::UnmatchedVariationEnd]);
        let g = &read(b"1. e3 ((e4) *")[0];
        assert_eq!(
            kinds(g),
            [
                DiagnosticKind::ResultInMovetext,
                DiagnosticKind::UnterminatedVariation,
                DiagnosticKind::MissingResult
            ]
        );
        assert_eq!(g.diagnostics[1].span.column, 7);
    }

    #[test]
    fn special_moves_are_tokens() {
        let g = &read(b"1. PPxe5 K:e2 2. Kbc a10e5 *")[0];
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        assert!(
            g.san(&g.tokens[1])
                .is_some_and(|s| matches!(s.san, San::PawnOfPawns { capture: true, .. }))
        );
        assert!(
            g.san(&g.tokens[2])
                .is_some_and(|s| matches!(s.san, San::Swap { .. }))
        );
    }

    #[test]
    fn bad_moves_are_reported_with_their_text() {
        let g = &read(b"1. e3 Nz9 2. O-O 0-0 *")[0];
        let d: Vec<_> = g
            .diagnostics
            .iter()
            .map(|d| (d.kind, g.text(d.span).into_owned()))
            .collect();
        assert_eq!(
            d,
            [
                (
                    DiagnosticKind::BadMove(crate::san::SanError::MissingDestination),
                    "Nz9".to_owned()
                ),
                (
                    DiagnosticKind::BadMove(crate::san::SanError::Castling),
                    "O-O".to_owned()
                ),
                (
                    DiagnosticKind::BadMove(crate::san::SanError::Castling),
                    "0-0".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_result_followed_by_moves_on_the_next_line() {
        let g = &read(b"1. e3 e6\n  1-0\n2. Nf3 *")[0];
        let d: Vec<_> = g
            .diagnostics
            .iter()
            .map(|d| (d.kind, d.span.line, d.span.column))
            .collect();
        assert_eq!(d, [(DiagnosticKind::ResultInMovetext, 2, 3)]);
    }

    #[test]
    fn result_tag_mismatch_is_a_warning() {
        let g = &read(b"[Result \"1-0\"]\n1. e3 0-1\n")[0];
        assert_eq!(kinds(g), [DiagnosticKind::ResultMismatch]);
    }

    #[test]
    fn too_many_errors_stop_the_game_but_not_the_file() {
        let mut text = b"[Event \"1\"]\n".to_vec();
        text.extend(std::iter::repeat_n(b'\x01', 1000));
        text.extend_from_slice(b"\n[Event \"2\"]\n1. e3 *\n");
        let games = read(&text);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].errors().count(), 101);
        assert_eq!(
            games[0].diagnostics.get(100).map(|d| d.kind),
            Some(DiagnosticKind::TooManyErrors)
        );
        assert!(games[1].diagnostics.is_empty());
    }

    #[test]
    fn columns_after_wide_text_on_the_same_line() {
        let g = &read("{ééé} e3 ; ü\n{a\nbé} e6\n%x é\n\u{2603} e4 *".as_bytes())[0];
        let cols: Vec<_> = g
            .tokens
            .iter()
            .map(|t| (t.span.line, t.span.column))
            .collect();
        assert_eq!(
            cols,
            [
                (1, 1),
                (1, 7),
                (1, 10),
                (2, 1),
                (3, 5),
                (4, 1),
                (5, 3),
                (5, 6)
            ]
        );
        let d: Vec<_> = g
            .diagnostics
            .iter()
            .map(|d| (d.kind, d.span.line, d.span.column))
            .collect();
        assert_eq!(d, [(DiagnosticKind::UnexpectedChar, 5, 1)]);
    }

    /// A source that gives its bytes in pieces, is interrupted once, then fails.
    struct Failing {
        data: &'static [u8],
        pos: usize,
        interrupted: bool,
    }

    impl io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("unused"))
        }
    }

    impl BufRead for Failing {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            if !self.interrupted {
                self.interrupted = true;
                return Err(io::ErrorKind::Interrupted.into());
            }
            match self.data.get(self.pos..self.pos + 7) {
                Some(piece) => Ok(piece),
                None => Err(io::Error::other("disk on fire")),
            }
        }

        fn consume(&mut self, n: usize) {
            self.pos += n;
        }
    }

    #[test]
    fn io_errors_end_the_reading() {
        let source = Failing {
            data: b"[Event \"1\"]\n1. e3 *\n\n[Event \"2\"]\n1. d3 *\n\n[Event \"3\"]\n1. c3 *\n",
            pos: 0,
            interrupted: false,
        };
        let results: Vec<_> = Reader::new(source).collect();
        assert_eq!(results.len(), 3);
        assert!(
            results[0]
                .as_ref()
                .is_ok_and(|g| g.tag("Event").as_deref() == Some("1"))
        );
        assert!(
            results[1]
                .as_ref()
                .is_ok_and(|g| g.tag("Event").as_deref() == Some("2"))
        );
        let error = results[2]
            .as_ref()
            .err()
            .map(|e| (e.offset, e.source.to_string()));
        assert_eq!(error, Some((56, "disk on fire".to_owned())));
    }

    #[test]
    fn a_byte_order_mark_at_the_start_of_a_line_is_blank_space() {
        // Two files joined, each with its byte-order mark.
        let one = "\u{feff}[Variant \"Shatranj\"]\n\n1. e3 e6 *\n";
        let two = "\u{feff}[Variant \"Shatranj\"]\n\n1. d3 *\n";
        let text = format!("{one}{two}");
        let games = read(text.as_bytes());
        assert_eq!(games.len(), 2);
        for g in &games {
            assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
            assert_eq!(g.tag("Variant").as_deref(), Some("Shatranj"));
            // The mark takes no column, as at the start of the file.
            assert_eq!((g.tags[0].span.column, g.start.column), (1, 1));
        }
        assert_eq!((games[1].start.line, games[1].start.offset), (4, 39));
        // The mark belongs to the game it starts.
        assert!(games[1].source.starts_with(b"\xEF\xBB\xBF[Variant"));
        assert_eq!(games[0].source.len() + games[1].source.len(), text.len());
        // Before movetext, and inside an open comment before a tag line, likewise.
        let g = &read("\u{feff}1. e3 {open\n\u{feff}[Event \"x\"]\n1. d3 *".as_bytes());
        assert_eq!(g.len(), 2);
        assert_eq!(
            kinds(&g[0]),
            [
                DiagnosticKind::UnterminatedComment,
                DiagnosticKind::MissingResult
            ]
        );
        assert_eq!(g[1].tag("Event").as_deref(), Some("x"));
        // A comment's line started by one: what follows on that line is counted without it.
        let g = &read("1. e3 {a\n\u{feff}b} e6 *".as_bytes())[0];
        assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
        let e6 = g
            .tokens
            .iter()
            .find(|t| t.span.offset == 15)
            .map(|t| t.span);
        assert_eq!(e6.map(|s| (s.line, s.column)), Some((2, 4)));
        // Elsewhere it is no blank.
        let g = &read("1. e3 \u{feff} e6 *".as_bytes());
        assert_eq!(kinds(&g[0]), [DiagnosticKind::UnexpectedChar]);
    }

    #[test]
    fn duplicate_tags_are_warnings_naming_the_first() {
        let g = &read(b"[Variant \"Shatranj\"] [Result \"1-0\"]\n[Variant \"Tamerlane\"]\n[Result \"0-1\"]\n\n1. e3 *")[0];
        let d: Vec<_> = g
            .diagnostics
            .iter()
            .map(|d| {
                (
                    d.kind,
                    d.span.line,
                    d.span.column,
                    g.text(d.span).into_owned(),
                )
            })
            .collect();
        assert_eq!(
            d,
            [
                (
                    DiagnosticKind::DuplicateTag { first: 0 },
                    2,
                    1,
                    "[Variant \"Tamerlane\"]".to_owned()
                ),
                (
                    DiagnosticKind::DuplicateTag { first: 1 },
                    3,
                    1,
                    "[Result \"0-1\"]".to_owned()
                ),
                (DiagnosticKind::ResultMismatch, 5, 7, "*".to_owned()),
            ]
        );
        assert!(!g.has_errors());
        assert_eq!(g.tag("Variant").as_deref(), Some("Shatranj"));
        // Past a few tags, names are hashed: the same findings.
        let mut many = String::new();
        for i in 0..40 {
            many.push_str(&format!("[T{} \"{i}\"]\n", i % 30));
        }
        let g = &read(format!("{many}\n1. e3 *").as_bytes())[0];
        let firsts: Vec<_> = g
            .diagnostics
            .iter()
            .filter_map(|d| match d.kind {
                DiagnosticKind::DuplicateTag { first } => Some((first, d.span.line)),
                _ => None,
            })
            .collect();
        assert_eq!(firsts, (0..10).map(|i| (i, i + 31)).collect::<Vec<_>>());
    }

    #[test]
    fn many_tag_pairs_on_one_line() {
        const N: usize = 5_000;
        let mut line = String::new();
        for i in 0..N {
            // A value of more than ASCII here and there, and one that is not UTF-8.
            let value = if i % 1000 == 7 {
                "é".to_string()
            } else {
                i.to_string()
            };
            line.push_str(&format!("[T{i} \"{value}\"] "));
        }
        let mut text = line.into_bytes();
        text.extend_from_slice(b"[Bad \"\xff\"] [Last \"x\"]\n\n1. e3 *\n");
        let g = &read(&text)[0];
        assert_eq!(g.tags.len(), N + 1);
        assert_eq!(kinds(g), [DiagnosticKind::InvalidUtf8]);
        // Columns count characters: five `é` tags before the last, each one character
        // shorter than it is in bytes.
        let last = g.tags[N];
        let bytes_before = usize::try_from(last.span.offset).unwrap();
        assert_eq!(last.span.column as usize, bytes_before - 5 + 1);
        assert_eq!(g.text(last.value), "x");
        let bad = g.diagnostics[0].span;
        assert_eq!(bad.column as usize, bytes_before - 5 + 1 - 10 + 6);
    }

    #[test]
    fn columns_count_characters() {
        let g = &read("[White \"Ünal\"] [Black \"Şahin\"]\n{é} e3 *".as_bytes())[0];
        assert_eq!(g.tags[1].span.column, 16);
        assert_eq!(g.tokens[1].span.column, 5);
        assert_eq!(g.tag("Black").as_deref(), Some("Şahin"));
    }
}
