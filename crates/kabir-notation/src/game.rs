//! One game as read from a file: its exact bytes, tags, movetext tokens and diagnostics.
use std::borrow::Cow;
use std::fmt;

use super::san::{PackedFastSan, SanError, SanPlus};
use super::span::Span;
use super::tags::{GameResult, Roster};

/// A tag pair `[Name "value"]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The whole tag pair, from `[` to `]`.
    pub span: Span,
    /// The name.
    pub name: Span,
    /// The value between the quotes, still escaped (`\"`, `\\`). See [`RawGame::tag_value`].
    pub value: Span,
}

/// What a movetext token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenKind {
    /// `12.` (`black` false) or `12...` (`black` true).
    MoveNumber {
        /// The number.
        number: u32,
        /// Whether three dots announce a move of Black.
        black: bool,
    },
    /// A move: its text is SAN syntax (checked by the reader, not yet resolved against a
    /// position). [`RawGame::san`] reads it; the reader keeps its fast form here when it
    /// is written in one.
    Move(PackedFastSan),
    /// A numeric annotation glyph `$n`, or a glyph such as `!?` standing apart from its move.
    Nag(u8),
    /// A comment `{...}`.
    Comment,
    /// A rest-of-line comment `;...`.
    LineComment,
    /// `(`: a variation starts; it replaces the move before it.
    VariationStart,
    /// `)`: the variation ends.
    VariationEnd,
    /// The game's result.
    Result(GameResult),
    /// A `%` escape line (ignored).
    Escape,
}

/// A movetext token and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is (for a comment: including its `{}` or `;`).
    pub span: Span,
}

/// Whether a diagnostic makes the game unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// The text was understood; the game can still be used.
    Warning,
    /// The game's text is broken; the game should be rejected.
    Error,
}

/// What is wrong at a place in a game's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// A character that cannot start any token here.
    UnexpectedChar,
    /// Bytes that are not UTF-8 (in a tag, a comment or the movetext).
    InvalidUtf8,
    /// A `[` not followed by a tag name.
    BadTagName,
    /// A tag name not followed by a quoted value.
    BadTagValue,
    /// A tag value whose closing `"` is missing on its line.
    UnterminatedTagValue,
    /// A tag pair whose `]` is missing on its line.
    UnterminatedTag,
    /// A `[` inside the movetext that does not start a line.
    TagInMovetext,
    /// A move that is not SAN, long algebraic or coordinate notation.
    BadMove(SanError),
    /// A move number that is 0 or too large.
    BadMoveNumber,
    /// A `$` not followed by a number from 0 to 255.
    BadNag,
    /// A token starting with a digit that is neither a move number nor a result.
    BadResult,
    /// A `{` comment that is still open at the end of the game.
    UnterminatedComment,
    /// A `(` variation that is still open at the end of the game.
    UnterminatedVariation,
    /// A `)` without a matching `(`.
    UnmatchedVariationEnd,
    /// A result followed by more movetext, or a result inside a variation.
    ResultInMovetext,
    /// So many errors that the rest of the game was skipped.
    TooManyErrors,
    /// The game's text is longer than the reader's limit
    /// ([`ReaderOptions::max_game_bytes`](super::reader::ReaderOptions::max_game_bytes)): it was
    /// not read, and reading went on at the first line starting with `[` past the limit.
    GameTooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// Warning: the game has no result at the end of its movetext.
    MissingResult,
    /// Warning: a move number that does not follow from the ones before it.
    MoveNumberOutOfOrder {
        /// The number expected.
        expected: u32,
        /// Whether `...` was expected.
        black: bool,
    },
    /// Warning: the result after the movetext differs from the `Result` tag.
    ResultMismatch,
    /// Warning: a tag whose name an earlier tag of the game has; the earlier one counts, and
    /// this one is ignored.
    DuplicateTag {
        /// The index in [`RawGame::tags`] of the first tag of that name.
        first: u32,
    },
}

impl DiagnosticKind {
    /// Error or warning.
    pub const fn severity(self) -> Severity {
        match self {
            DiagnosticKind::MissingResult
            | DiagnosticKind::MoveNumberOutOfOrder { .. }
            | DiagnosticKind::ResultMismatch
            | DiagnosticKind::DuplicateTag { .. } => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// What the reader expected at this place, in words.
    pub fn expected(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            DiagnosticKind::UnexpectedChar => {
                "a move, a move number, a comment, a variation, a NAG or a result"
            }
            DiagnosticKind::InvalidUtf8 => "UTF-8 text",
            DiagnosticKind::BadTagName => "a tag name after '['",
            DiagnosticKind::BadTagValue => "a quoted tag value after the tag name",
            DiagnosticKind::UnterminatedTagValue => "'\"' to close the tag value on the same line",
            DiagnosticKind::UnterminatedTag => "']' to close the tag pair on the same line",
            DiagnosticKind::TagInMovetext => "tag pairs before the movetext, each starting a line",
            DiagnosticKind::BadMove(e) => e.expected(),
            DiagnosticKind::BadMoveNumber => "a move number from 1 to 4294967295",
            DiagnosticKind::BadNag => "a number from 0 to 255 after '$'",
            DiagnosticKind::BadResult => {
                "a move number such as '12.' or a result (1-0, 0-1, 1/2-1/2, *)"
            }
            DiagnosticKind::UnterminatedComment => "'}' to close the comment",
            DiagnosticKind::UnterminatedVariation => "')' to close the variation",
            DiagnosticKind::UnmatchedVariationEnd => "a '(' before this ')'",
            DiagnosticKind::ResultInMovetext => "the result only at the end of the main line",
            DiagnosticKind::TooManyErrors => "fewer errors (the rest of the game was skipped)",
            DiagnosticKind::GameTooLarge { limit } => {
                return Cow::Owned(format!(
                    "a game of at most {} (this one is larger: it was not read, and reading \
                     goes on at the next line that starts with '[')",
                    byte_size(limit)
                ));
            }
            DiagnosticKind::MissingResult => "a result (1-0, 0-1, 1/2-1/2, *) after the movetext",
            DiagnosticKind::MoveNumberOutOfOrder { expected, black } => {
                return Cow::Owned(format!(
                    "move number {expected}{}",
                    if black { "..." } else { "." }
                ));
            }
            DiagnosticKind::ResultMismatch => "the same result as the Result tag",
            DiagnosticKind::DuplicateTag { .. } => {
                "each tag name once (the first tag of a name counts, this one is ignored)"
            }
        })
    }
}

/// A number of bytes as people write it: `16 MiB`, `300 KiB`, `12 bytes`.
pub fn byte_size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (unit, name) in UNITS {
        if bytes >= unit {
            return if bytes.is_multiple_of(unit) {
                format!("{} {name}", bytes / unit)
            } else {
                format!("{:.1} {name}", bytes as f64 / unit as f64)
            };
        }
    }
    if bytes == 1 {
        "1 byte".to_string()
    } else {
        format!("{bytes} bytes")
    }
}

/// A syntax error or warning in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong.
    pub kind: DiagnosticKind,
    /// Where (the offending text).
    pub span: Span,
}

/// One game as read: its exact source bytes and what the reader found in them.
///
/// Nothing here is checked against the rules: moves are only SAN syntax, and tags are only
/// names and values.
#[derive(Clone, Debug, Default)]
pub struct RawGame {
    /// Its place in the file: 1 for the first game.
    pub number: u64,
    /// Where the game starts (its first tag or token); `len` is the length of `source` from
    /// that point.
    pub start: Span,
    /// Byte offset in the file of `source[0]`.
    pub source_offset: u64,
    /// The exact bytes of the game, from the start of its first line that is not blank to
    /// the start of the next game (so including blank lines after it). Writing them out
    /// unchanged reproduces the game, for example in a file of rejected games. Empty for a
    /// game too large to read ([`DiagnosticKind::GameTooLarge`]).
    pub source: Vec<u8>,
    /// Tag pairs, in input order.
    pub tags: Vec<Tag>,
    /// Movetext tokens, in input order.
    pub tokens: Vec<Token>,
    /// Syntax errors and warnings, in input order.
    pub diagnostics: Vec<Diagnostic>,
    /// The set of piece letters beyond ASCII the reader read moves in, if any: [`RawGame::san`]
    /// reads such a move through its transliteration.
    pub piece_letters: Option<&'static kabir_rules::letters::PieceLetters>,
}

impl RawGame {
    /// The game that stands for text too large to read: it starts at file offset `offset`,
    /// the start of line `line`, and holds only its [`DiagnosticKind::GameTooLarge`].
    pub(crate) fn too_large(offset: u64, line: u32, limit: u64) -> RawGame {
        let start = Span {
            offset,
            len: 0,
            line,
            column: 1,
        };
        RawGame {
            start,
            source_offset: offset,
            diagnostics: vec![Diagnostic {
                kind: DiagnosticKind::GameTooLarge { limit },
                span: start,
            }],
            ..RawGame::default()
        }
    }

    /// Whether this stands for a game too large to read (see
    /// [`DiagnosticKind::GameTooLarge`]): it has no text, tags or moves.
    pub fn is_too_large(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| matches!(d.kind, DiagnosticKind::GameTooLarge { .. }))
    }

    /// Empties the game so that its buffers can be filled again.
    pub fn clear(&mut self) {
        self.number = 0;
        self.start = Span::default();
        self.source_offset = 0;
        self.source.clear();
        self.tags.clear();
        self.tokens.clear();
        self.diagnostics.clear();
    }

    /// The bytes of a span of this game (empty if the span lies outside it).
    pub fn bytes(&self, span: Span) -> &[u8] {
        let Some(start) = span.offset.checked_sub(self.source_offset) else {
            return &[];
        };
        let (Ok(start), Ok(len)) = (usize::try_from(start), usize::try_from(span.len)) else {
            return &[];
        };
        self.source
            .get(start..)
            .and_then(|rest| rest.get(..len.min(rest.len())))
            .unwrap_or(&[])
    }

    /// The text of a span, with invalid UTF-8 replaced.
    pub fn text(&self, span: Span) -> Cow<'_, str> {
        String::from_utf8_lossy(self.bytes(span))
    }

    /// A tag's name.
    pub fn tag_name(&self, tag: &Tag) -> Cow<'_, str> {
        self.text(tag.name)
    }

    /// A tag's value with the escapes `\"` and `\\` undone.
    pub fn tag_value(&self, tag: &Tag) -> Cow<'_, str> {
        let raw = self.text(tag.value);
        if raw.contains('\\') {
            let mut out = String::with_capacity(raw.len());
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                } else {
                    out.push(c);
                }
            }
            Cow::Owned(out)
        } else {
            raw
        }
    }

    /// The value of the first tag with this name (names are case-sensitive, as in PGN).
    pub fn tag(&self, name: &str) -> Option<Cow<'_, str>> {
        self.tags
            .iter()
            .find(|t| self.bytes(t.name) == name.as_bytes())
            .map(|t| self.tag_value(t))
    }

    /// The text of a comment token without its `{}` or `;`.
    pub fn comment_text(&self, token: &Token) -> Cow<'_, str> {
        let raw = self.bytes(token.span);
        let inner = match token.kind {
            TokenKind::Comment => {
                let raw = raw.strip_prefix(b"{").unwrap_or(raw);
                raw.strip_suffix(b"}").unwrap_or(raw)
            }
            TokenKind::LineComment => raw.strip_prefix(b";").unwrap_or(raw),
            _ => raw,
        };
        String::from_utf8_lossy(inner)
    }

    /// The move of a [`TokenKind::Move`] token, read from its text (`None` for any other
    /// token). The reader has already checked that the text is a move.
    pub fn san(&self, token: &Token) -> Option<SanPlus> {
        match token.kind {
            TokenKind::Move(_) => {
                let text = self.bytes(token.span);
                match self.piece_letters {
                    Some(set) if !text.is_ascii() => {
                        SanPlus::from_ascii(&set.transliterate(text)?).ok()
                    }
                    _ => SanPlus::from_ascii(text).ok(),
                }
            }
            _ => None,
        }
    }

    /// The moves of the game, main line and variations, in input order.
    pub fn moves(&self) -> impl Iterator<Item = (SanPlus, Span)> + '_ {
        self.tokens
            .iter()
            .filter_map(|t| self.san(t).map(|san| (san, t.span)))
    }

    /// The Seven Tag Roster's values, as [`RawGame::tag`] gives them.
    pub fn roster(&self) -> Roster<Cow<'_, str>> {
        Roster::from_fn(|name| self.tag(name))
    }

    /// The result written after the main line, if any.
    pub fn result(&self) -> Option<GameResult> {
        self.tokens.iter().rev().find_map(|t| match t.kind {
            TokenKind::Result(r) => Some(r),
            _ => None,
        })
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.kind.severity() == Severity::Error)
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.kind.severity() == Severity::Warning)
    }

    /// A diagnostic as a one-line message:
    /// `path:line:column: error: expected ..., found "..." (game N)`.
    pub fn describe<'a>(&'a self, diagnostic: &'a Diagnostic, path: &'a str) -> Describe<'a> {
        Describe {
            game: self,
            diagnostic,
            path,
        }
    }
}

/// See [`RawGame::describe`].
#[derive(Debug)]
pub struct Describe<'a> {
    game: &'a RawGame,
    diagnostic: &'a Diagnostic,
    path: &'a str,
}

/// The most characters of offending text shown in a message.
const FOUND_CHARS: usize = 40;

impl fmt::Display for Describe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.diagnostic;
        let severity = match d.kind.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}:{}:{}: {severity}: expected {}, found ",
            self.path,
            d.span.line,
            d.span.column,
            d.kind.expected()
        )?;
        let found = self.game.text(d.span);
        if found.is_empty() {
            f.write_str("the end of the game")?;
        } else {
            let shown: String = found.chars().take(FOUND_CHARS).collect();
            write!(f, "{shown:?}")?;
            if found.chars().nth(FOUND_CHARS).is_some() {
                f.write_str("...")?;
            }
        }
        write!(f, " (game {})", self.game.number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(source: &str, offset: u64) -> RawGame {
        RawGame {
            number: 3,
            source_offset: offset,
            source: source.as_bytes().to_vec(),
            ..RawGame::default()
        }
    }

    fn span(offset: u64, len: u64) -> Span {
        Span {
            offset,
            len,
            line: 2,
            column: 5,
        }
    }

    #[test]
    fn bytes_are_taken_relative_to_the_game() {
        let g = game("[Event \"a\\\"b\"]", 100);
        assert_eq!(g.bytes(span(101, 5)), b"Event");
        assert_eq!(g.bytes(span(99, 5)), b"");
        assert_eq!(g.bytes(span(110, 50)), b"\"b\"]");
        assert_eq!(g.bytes(span(1000, 5)), b"");
    }

    #[test]
    fn tag_values_are_unescaped() {
        let mut g = game("[Event \"a\\\"b\\\\c\"]", 0);
        g.tags.push(Tag {
            span: span(0, 17),
            name: span(1, 5),
            value: span(8, 7),
        });
        assert_eq!(g.tag("Event").as_deref(), Some("a\"b\\c"));
        assert_eq!(g.tag("event"), None);
    }

    #[test]
    fn messages_name_place_expectation_and_text() {
        let g = game("1. e4 Nz9", 0);
        let d = Diagnostic {
            kind: DiagnosticKind::BadMove(SanError::MissingDestination),
            span: span(6, 3),
        };
        let text = g.describe(&d, "games.pgn").to_string();
        assert_eq!(
            text,
            "games.pgn:2:5: error: expected a destination square or citadel at the end of the move, found \"Nz9\" (game 3)"
        );
        let w = Diagnostic {
            kind: DiagnosticKind::MoveNumberOutOfOrder {
                expected: 2,
                black: true,
            },
            span: span(0, 2),
        };
        assert!(
            g.describe(&w, "f")
                .to_string()
                .contains("warning: expected move number 2...")
        );
        assert_eq!(w.kind.severity(), Severity::Warning);
    }
}
