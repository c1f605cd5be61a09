//! Replaying a game record through the rules: every move resolved, every problem found.
//!
//! This is the stage between text and data: a [`RawGame`] from the reader goes in, and out
//! comes a [`Replay`] with the game's variant, start position, main line as a [`Game`], the
//! canonical text of every move, and a list of [`Problem`]s, each with where it is, the text,
//! the position before it and the legal moves that came close. Variations are replayed from
//! their own branch points.

pub mod parallel;

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;

use crate::game::{DiagnosticKind, RawGame, Severity, TokenKind};
use crate::san::{FastSan, San, SanPlus, Suffix};
use crate::span::Span;
use crate::tags::{self, GameResult};
use crate::{LineWriter, ResolveError, resolve, san, san_into, write_tags};
use kabir_rules::variants::Registry;
use kabir_rules::{
    Color, FastMove, Game, Move, Outcome, Position, Status, Takeback, Termination, Variant,
};

/// What kind of problem a game has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ProblemKind {
    /// The text is not well-formed (see the message for what was expected).
    Syntax,
    /// No `Variant` tag and no default variant given.
    MissingVariant,
    /// The `Variant` tag names no known variant.
    UnknownVariant,
    /// The `FEN` tag is not a legal position of the variant.
    BadFen,
    /// The move is not legal in its position.
    IllegalMove,
    /// The move's text fits several legal moves.
    AmbiguousMove,
    /// A move after the game had already ended by the rules.
    MoveAfterEnd,
    /// The result contradicts the final position (e.g. a draw claimed after checkmate).
    ResultContradicts,
    /// The `Result` tag and the result after the moves differ.
    ResultMismatch,
    /// Warning: a missing or wrong check or mate mark.
    CheckMark,
    /// Warning: a move written other than in canonical SAN (long algebraic, coordinates, an
    /// alias letter, needless or missing disambiguation).
    NonCanonical,
    /// Warning: a move number that does not follow from the moves before it.
    MoveNumber,
    /// Warning: no result after the moves.
    MissingResult,
    /// Warning: moves played on after the game ended in a draw by a rule (two bare kings), as
    /// engines do; they are replayed and kept, and the game's end is the draw.
    MovesAfterDraw,
    /// Warning: a tag whose name an earlier tag has; the first one counts.
    DuplicateTag,
    /// Warning (an error with `--strict`): the `FEN` tag departs from the notation in a way
    /// other programs write (fields left out before the counters, chess castling rights where
    /// nothing castles), and was read with what the message says was assumed.
    FenAssumed,
    /// Warning: the result written is `*` though the rules ended the game (checkmate,
    /// stalemate, a bare king, a citadel entered); the game's result is the one the rules
    /// give ([`Replay::recorded_result`]).
    ResultUnfinished,
    /// The game's text is longer than the limit on one game: it was not read (see
    /// [`DiagnosticKind::GameTooLarge`]).
    GameTooLarge,
}

impl ProblemKind {
    /// The kind's name in reports (`illegal-move`).
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::Syntax => "syntax",
            ProblemKind::MissingVariant => "missing-variant",
            ProblemKind::UnknownVariant => "unknown-variant",
            ProblemKind::BadFen => "bad-fen",
            ProblemKind::IllegalMove => "illegal-move",
            ProblemKind::AmbiguousMove => "ambiguous-move",
            ProblemKind::MoveAfterEnd => "move-after-end",
            ProblemKind::ResultContradicts => "result-contradicts",
            ProblemKind::ResultMismatch => "result-mismatch",
            ProblemKind::CheckMark => "check-mark",
            ProblemKind::NonCanonical => "non-canonical",
            ProblemKind::MoveNumber => "move-number",
            ProblemKind::MissingResult => "missing-result",
            ProblemKind::MovesAfterDraw => "moves-after-draw",
            ProblemKind::DuplicateTag => "duplicate-tag",
            ProblemKind::FenAssumed => "fen-assumed",
            ProblemKind::ResultUnfinished => "result-unfinished",
            ProblemKind::GameTooLarge => "game-too-large",
        }
    }

    /// Errors make a game invalid; warnings do not.
    pub fn is_error(self) -> bool {
        !matches!(
            self,
            ProblemKind::CheckMark
                | ProblemKind::NonCanonical
                | ProblemKind::MoveNumber
                | ProblemKind::MissingResult
                | ProblemKind::MovesAfterDraw
                | ProblemKind::DuplicateTag
                | ProblemKind::FenAssumed
                | ProblemKind::ResultUnfinished
        )
    }
}

/// One problem found in a game.
///
/// The position and the close legal moves are kept as the text reports print, made when the
/// problem is found: a game can hold a problem at every move, and a position as the rules
/// know it takes about 2 kB, its string a few dozen bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What kind of problem it is; its name (`illegal-move`...) is what reports show.
    pub kind: ProblemKind,
    /// Whether it makes the game invalid.
    pub error: bool,
    /// 1-based line and column in the file.
    pub line: u32,
    /// Counted in characters, from 1 (see [`Span`]).
    pub column: u32,
    /// The byte offset in the file of the offending text (of the game's start for problems
    /// of the whole game).
    pub offset: u64,
    /// The offending text (shortened if long).
    pub text: String,
    /// What is wrong, in words.
    pub message: String,
    /// The move's ply from the start of the game (1 for White's first move), for move problems.
    pub ply: Option<u32>,
    /// The position before the move, for move problems; the final position, for a result
    /// that contradicts it: its position string ([`Position::to_fen`]).
    pub position: Option<String>,
    /// Legal moves in `position` that came close (same piece or same destination).
    pub legal: Vec<Move>,
    /// `legal` in canonical SAN, written against the moves the game allowed in `position`
    /// (a move's SAN names its origin only when another of them could be meant). Not always
    /// what the position alone allows: a game's history can forbid a move (permanent check)
    /// and a game played on past a draw allows moves that the position does not.
    legal_text: Vec<String>,
}

impl Problem {
    /// A problem with no move or position attached.
    fn at(kind: ProblemKind, error: bool, span: Span, text: &str, message: String) -> Problem {
        Problem {
            kind,
            error,
            line: span.line,
            column: span.column,
            offset: span.offset,
            text: short(text),
            message,
            ply: None,
            position: None,
            legal: Vec::new(),
            legal_text: Vec::new(),
        }
    }

    /// [`Problem::legal`] in canonical SAN, as reports print them.
    pub fn legal_san(&self) -> &[String] {
        &self.legal_text
    }
}

/// In JSON a problem reads as reports print it: the position as a position string, the
/// legal moves in canonical SAN, and absent fields left out.
impl Serialize for Problem {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Problem", 9)?;
        st.serialize_field("kind", &self.kind)?;
        st.serialize_field("error", &self.error)?;
        st.serialize_field("line", &self.line)?;
        st.serialize_field("column", &self.column)?;
        st.serialize_field("text", &self.text)?;
        st.serialize_field("message", &self.message)?;
        match self.ply {
            Some(ply) => st.serialize_field("ply", &ply)?,
            None => st.skip_field("ply")?,
        }
        match &self.position {
            Some(pos) => st.serialize_field("position", pos)?,
            None => st.skip_field("position")?,
        }
        if self.legal.is_empty() {
            st.skip_field("legal")?;
        } else {
            st.serialize_field("legal", self.legal_san())?;
        }
        st.end()
    }
}

/// A game after replay.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The game's number in its file (1 for the first).
    pub number: u64,
    /// The variant, from the `Variant` tag or the registry's default; `None` when the tag names
    /// no known variant, there is neither, or the game was too large to read: then no move
    /// was replayed.
    pub variant: Option<Arc<Variant>>,
    /// The main line, as far as it could be replayed (boxed: a game holds two positions,
    /// and replays are moved around whole).
    pub game: Option<Box<Game>>,
    /// Every problem, errors and warnings, in file order.
    pub problems: Vec<Problem>,
    /// The canonical SAN of each movetext token that resolved to a move, in token order.
    canonical: Vec<Canon>,
    /// The canonical SAN, without check mark, of every resolved move not written so, one
    /// after another.
    canonical_text: String,
    /// Whether the main line was replayed to its end.
    complete: bool,
    /// The status at the end of the main line, once judged.
    final_status: Option<Status>,
    /// The ply after which the main line's game was over by the rules, when it is.
    end_ply: Option<u32>,
}

/// How many plies of a game written in coordinate form its one warning gives in canonical SAN.
const COORDINATE_PLIES_SHOWN: usize = 12;

/// The most characters of offending text kept in a problem.
const TEXT_CHARS: usize = 60;

fn short(text: &str) -> String {
    if text.chars().count() <= TEXT_CHARS {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(TEXT_CHARS).collect();
        s.push('…');
        s
    }
}

/// A tag's value, shortened as [`short`] does, from no more of its text than that needs:
/// one long value may be named again and again.
fn short_value(raw: &RawGame, tag: &crate::game::Tag) -> String {
    // Enough bytes for the characters shown and one more, each up to four bytes and escaped.
    let keep = (TEXT_CHARS + 1) * 8;
    let value = crate::span::Span {
        len: tag.value.len.min(keep as u64),
        ..tag.value
    };
    let head = crate::game::Tag { value, ..*tag };
    short(&raw.tag_value(&head))
}

/// The canonical SAN of the moves that movetext tokens resolved to: one move whose canonical
/// text was written out, or a run of tokens whose moves were each written canonically in a
/// fast form (the common case: one entry for many moves, and nothing copied).
#[derive(Debug, Clone, Copy)]
struct Canon {
    /// The (first) token.
    token: u32,
    text: CanonText,
    /// The check mark of the (last) move.
    mark: Option<Suffix>,
}

#[derive(Debug, Clone, Copy)]
enum CanonText {
    /// `len` bytes of `Replay::canonical_text` from `start`.
    Written { start: u32, len: u16 },
    /// Tokens `token..end`: each move among them is its token's fast form (see
    /// [`PackedFastSan`](crate::san::PackedFastSan)), without the mark it was
    /// written with.
    Run { end: u32 },
}

impl Canon {
    /// Whether the entry comes wholly before token `i`.
    fn before(&self, i: usize) -> bool {
        match self.text {
            CanonText::Written { .. } => (self.token as usize) < i,
            CanonText::Run { end } => (end as usize) <= i,
        }
    }
}

/// A checking move whose mark waits for the next move of its line: if that move is legal,
/// the check was no mate. Judging mate at once would cost a search for a legal move.
#[derive(Debug, Clone)]
struct Pending {
    /// Its entry in `Replay::canonical`.
    canon: usize,
    ply: u32,
    span: Span,
    written: Option<Suffix>,
    /// The position before the move, when the mark written is likely to be wrong (no mark,
    /// or `#`): taken while it is at hand, since finding it later would mean playing the game
    /// again from its start.
    before: Option<Box<Position>>,
}

/// The line of play being replayed (the main line, or the innermost variation open), on the
/// game that all lines share: a variation takes back the move it replaces, and when it ends
/// its moves are taken back and that move played again. So a variation costs no more than its
/// own moves, and each level of nesting holds only a [`Suspended`] line.
struct Frame {
    game: Box<Game>,
    /// Scratch space for candidate moves.
    scratch: Vec<Move>,
    /// An error made the rest of this line unreadable.
    dead: bool,
    /// The last move, if it gave check and its mark is not settled yet.
    pending: Option<Pending>,
    /// The ply after which the line's game ended in a draw by a rule, once the line has
    /// played on past it (warned at its first move there).
    draw: Option<u32>,
    /// What takes back each move of the game, once the game has a variation: kept from its
    /// first `(` on (found then by playing the moves so far again), as long as the game.
    log: Option<Vec<Takeback>>,
}

/// A line of play set aside while a variation of it is replayed.
struct Suspended {
    dead: bool,
    /// Boxed: rarely there, and a `Suspended` is kept for each level of nesting.
    pending: Option<Box<Pending>>,
    draw: Option<u32>,
    /// The number of moves of the game where the variation branched off.
    base: usize,
    /// The line's last move, taken back for the variation, to play again when it ends.
    replaced: Option<Move>,
}

impl Frame {
    /// Keeps what takes back the move just played, once the game has a variation.
    #[inline]
    fn played(&mut self) {
        if let Some(log) = self.log.as_mut()
            && let Some(t) = self.game.takeback()
        {
            log.push(t);
        }
    }

    /// Keeps what takes back each move played since the game had `from` moves and was at
    /// `before`, once the game has a variation.
    fn played_from(&mut self, mut before: Position, from: usize) {
        if let Some(log) = self.log.as_mut() {
            for &m in self.game.moves().get(from..).unwrap_or_default() {
                log.push(Takeback::of(before.play_unchecked(m)));
            }
        }
    }

    /// Takes back the game's last move; returns it.
    fn take_back(&mut self) -> Option<Move> {
        let game = &mut self.game;
        let log = self.log.get_or_insert_with(|| game.takebacks());
        let t = log.pop()?;
        game.take_back(t)
    }

    /// A variation begins: the line is set aside, and the move the variation replaces is
    /// taken back (the variation is left unplayed, as after an error, when the line is or
    /// when it has no move to replace).
    fn begin_variation(&mut self) -> Suspended {
        let replaced = if self.dead || self.game.moves().is_empty() {
            None
        } else {
            self.take_back()
        };
        let parent = Suspended {
            dead: self.dead,
            pending: self.pending.take().map(Box::new),
            draw: self.draw.take(),
            base: self.game.moves().len(),
            replaced,
        };
        self.dead = replaced.is_none();
        parent
    }

    /// A variation ends (its last mark settled): its moves are taken back, the move it
    /// replaced is played again, and the line it came from goes on.
    fn end_variation(&mut self, parent: Suspended) {
        while self.game.moves().len() > parent.base {
            if self.take_back().is_none() {
                break;
            }
        }
        if let Some(m) = parent.replaced {
            self.game.play_unchecked(m);
            self.played();
        }
        self.dead = parent.dead;
        self.pending = parent.pending.map(|p| *p);
        self.draw = parent.draw;
    }
}

impl Replay {
    /// Whether the game has no errors (warnings allowed).
    pub fn is_valid(&self) -> bool {
        self.complete && !self.problems.iter().any(|p| p.error)
    }

    /// Makes the warnings about what a lenient reading assumed
    /// ([`ProblemKind::FenAssumed`]) errors, as `--strict` asks.
    pub fn strict_position_strings(&mut self) {
        for p in &mut self.problems {
            if p.kind == ProblemKind::FenAssumed {
                p.error = true;
            }
        }
    }

    /// The problems that make the game invalid, in file order.
    pub fn errors(&self) -> impl Iterator<Item = &Problem> {
        self.problems.iter().filter(|p| p.error)
    }

    /// The problems that leave the game valid, in file order.
    pub fn warnings(&self) -> impl Iterator<Item = &Problem> {
        self.problems.iter().filter(|p| !p.error)
    }

    /// Folds the per-move `non-canonical` warnings of a game written entirely in coordinate
    /// form into one, at its first move, that gives the opening of the game in canonical SAN.
    ///
    /// "Entirely": every move of the game, main line and variations, names its origin square
    /// (UCI `e2e4`, long algebraic `e2-e4`, `Ng1-f3`, `Ng1f3`); such a file is written so on
    /// purpose, and one warning says all there is to say. A check left unmarked in such a game
    /// is part of the form (UCI has no marks) and is folded in too; a wrong mark is not. A game
    /// that mixes forms keeps a warning per move: there, each one points at a move written
    /// unlike its neighbours. Called after the replay, so the replay itself stays as it is.
    pub fn group_coordinate_warnings(&mut self, raw: &RawGame) {
        if !self
            .problems
            .iter()
            .any(|p| p.kind == ProblemKind::NonCanonical)
        {
            return;
        }
        let mut moves = raw
            .tokens
            .iter()
            .filter(|t| matches!(t.kind, TokenKind::Move(_)))
            .peekable();
        let Some(first) = moves.peek().copied() else {
            return;
        };
        let mut count = 0usize;
        for t in moves {
            let Some(sp) = raw.san(t) else { return };
            if !matches!(
                sp.san,
                San::Normal {
                    origin: crate::san::Origin::Place(_),
                    ..
                }
            ) {
                return;
            }
            count += 1;
        }
        let unmarked = |p: &Problem| {
            p.kind == ProblemKind::CheckMark
                && !p.text.trim_end_matches(['!', '?']).ends_with(['+', '#'])
        };
        let checks = self.problems.iter().filter(|p| unmarked(p)).count();
        self.problems
            .retain(|p| p.kind != ProblemKind::NonCanonical && !unmarked(p));
        let unmarked_note = match checks {
            0 => String::new(),
            1 => ", 1 check without its mark".to_string(),
            n => format!(", {n} checks without their marks"),
        };
        let message = format!(
            "written in coordinate form ({count} move{}{unmarked_note}); canonical SAN is {}",
            if count == 1 { "" } else { "s" },
            self.opening_san(raw, COORDINATE_PLIES_SHOWN)
        );
        self.problems.push(Problem {
            ply: Some(1),
            ..Problem::at(
                ProblemKind::NonCanonical,
                false,
                first.span,
                &raw.text(first.span),
                message,
            )
        });
        self.problems.sort_by_key(|p| (p.line, p.column));
    }

    /// The first `plies` moves of the main line as [`Replay::write_canonical`] writes the main
    /// line alone (canonical SAN with its check mark and glyph, move numbers; no comments,
    /// NAGs or variations), followed by ` …` if there are more. Taken from the same canonical
    /// entries as the writer, so that the two cannot disagree.
    fn opening_san(&self, raw: &RawGame, plies: usize) -> String {
        let Some(game) = self.game.as_deref() else {
            return String::new();
        };
        let start = game.start();
        let first: Turn = (start.fullmove_number(), start.turn());
        let mut line: (Turn, Turn, bool) = (first, first, true);
        let source = std::str::from_utf8(&raw.source).ok();
        let mut canonical = self.canonical.iter().peekable();
        let mut depth = 0usize;
        let mut shown = 0usize;
        let mut out = String::new();
        for (i, tok) in raw.tokens.iter().enumerate() {
            match tok.kind {
                TokenKind::VariationStart => depth += 1,
                TokenKind::VariationEnd => depth = depth.saturating_sub(1),
                TokenKind::Move(_) if depth == 0 => {
                    while canonical.next_if(|c| c.before(i)).is_some() {}
                    let Some(c) = canonical.peek().filter(|c| c.token as usize <= i) else {
                        continue;
                    };
                    let Some((text, mark)) = self.canonical_move(raw, source, c, i) else {
                        continue;
                    };
                    if shown == plies {
                        out.push_str(" …");
                        break;
                    }
                    if shown > 0 {
                        out.push(' ');
                    }
                    if let Some((n, black)) = take_turn(&mut line) {
                        out.push_str(&format!("{n}{} ", if black { "..." } else { "." }));
                    }
                    out.push_str(&text);
                    out.push_str(mark);
                    if matches!(raw.bytes(tok.span).last(), Some(b'!' | b'?'))
                        && let Some(g) = raw.san(tok).and_then(|sp| sp.glyph)
                    {
                        out.push_str(g.as_str());
                    }
                    shown += 1;
                }
                _ => {}
            }
        }
        out
    }

    /// The number of plies of the main line after which the game was over by the rules, if
    /// it was: the plies replayed, or fewer when moves were played on past a draw (see
    /// [`ProblemKind::MovesAfterDraw`]; [`Replay::status`] is then that draw).
    pub fn end_ply(&self) -> Option<u32> {
        self.end_ply
    }

    /// The game's status at the end of its main line.
    pub fn status(&self) -> Option<Status> {
        self.final_status
            .or_else(|| self.game.as_deref().map(Game::status))
    }

    /// The result written after the moves, else the `Result` tag if it holds a result, else
    /// `*`.
    pub fn claimed_result(raw: &RawGame) -> String {
        // A tag such as `0-0` is no claim; written after the moves it would not read back.
        raw.result()
            .or_else(|| {
                raw.tag(tags::RESULT)
                    .and_then(|t| GameResult::from_ascii(t.trim().as_bytes()))
            })
            .map_or_else(|| "*".to_string(), |r| r.as_str().to_string())
    }

    /// The game's result as `--fix`, the canonical text and the database record it: the
    /// claimed result ([`Replay::claimed_result`]), except that `*` on a game the rules ended
    /// is the result they give (the warning [`ProblemKind::ResultUnfinished`]).
    pub fn recorded_result(&self, raw: &RawGame) -> String {
        let claimed = Self::claimed_result(raw);
        match self.status() {
            Some(Status::Over { outcome, .. }) if claimed == "*" && self.complete => {
                outcome.as_pgn().to_string()
            }
            _ => claimed,
        }
    }

    /// The canonical SAN and check mark of the move that movetext token `i`, of entry `c`,
    /// resolved to. `source` is the game's text when it is UTF-8 (checked once for the whole
    /// game, rather than move by move).
    fn canonical_move<'a>(
        &'a self,
        raw: &'a RawGame,
        source: Option<&'a str>,
        c: &Canon,
        i: usize,
    ) -> Option<(Cow<'a, str>, &'static str)> {
        let (text, last) = match c.text {
            CanonText::Run { end } => {
                let token = raw.tokens.get(i)?;
                let TokenKind::Move(packed) = token.kind else {
                    return None;
                };
                let fast = packed.get()?;
                if let Some(v) = self
                    .variant
                    .as_deref()
                    .filter(|v| v.piece_letters().is_some())
                {
                    let mut text = String::new();
                    fast_canonical(v, &fast, &mut text);
                    (Cow::Owned(text), i + 1 == end as usize)
                } else {
                    let start =
                        usize::try_from(token.span.offset.checked_sub(raw.source_offset)?).ok()?;
                    let range = start..start + fast.len;
                    let text = match source {
                        Some(s) => s.get(range)?,
                        None => std::str::from_utf8(raw.source.get(range)?).ok()?,
                    };
                    (Cow::Borrowed(text), i + 1 == end as usize)
                }
            }
            CanonText::Written { start, len } => {
                let start = start as usize;
                let text = self.canonical_text.get(start..start + len as usize)?;
                (Cow::Borrowed(text), true)
            }
        };
        let mark = if last { c.mark } else { None };
        Some((text, mark.map_or("", Suffix::as_str)))
    }

    /// The game's tag pairs in canonical order: the seven-tag roster (filled in where
    /// missing), `Variant` naming the variant, `SetUp` beside a `FEN`, `Termination`, then the
    /// rest in input order.
    pub fn canonical_tags(&self, raw: &RawGame) -> Vec<(String, String)> {
        let mut tag_list: Vec<(String, String)> = Vec::with_capacity(raw.tags.len() + 4);
        // The first tag of each name counts. A game may have any number of tags: past a few,
        // the names seen are hashed rather than searched.
        const FEW: usize = 16;
        let mut seen: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
        for (i, t) in raw.tags.iter().enumerate() {
            let bytes = raw.bytes(t.name);
            let again = if raw.tags.len() <= FEW {
                raw.tags[..i].iter().any(|u| raw.bytes(u.name) == bytes)
            } else {
                !seen.insert(bytes)
            };
            if again {
                continue;
            }
            let name = raw.tag_name(t).into_owned();
            let mut value = raw.tag_value(t).into_owned();
            if name == tags::VARIANT
                && let Some(v) = &self.variant
            {
                value = v.name().to_string();
            }
            if name == tags::RESULT {
                value = self.recorded_result(raw);
            }
            tag_list.push((name, value));
        }
        if let Some(v) = &self.variant
            && !tag_list.iter().any(|(n, _)| n == tags::VARIANT)
        {
            tag_list.push((tags::VARIANT.to_string(), v.name().to_string()));
        }
        if tag_list.iter().any(|(n, _)| n == tags::FEN)
            && !tag_list.iter().any(|(n, _)| n == tags::SET_UP)
        {
            tag_list.push((tags::SET_UP.to_string(), "1".to_string()));
        }
        let result = self.recorded_result(raw);
        for tag in tags::SEVEN_TAG_ROSTER {
            if !tag_list.iter().any(|(n, _)| n == tag) {
                let value = match tag {
                    tags::RESULT => result.clone(),
                    tags::DATE => "????.??.??".to_string(),
                    _ => "?".to_string(),
                };
                tag_list.push((tag.to_string(), value));
            }
        }
        tags::sort_canonical(&mut tag_list, |(n, _)| n.as_str());
        tag_list
    }

    /// The game in canonical notation: tags in canonical order (the `Variant` tag naming the
    /// variant, `SetUp` beside a `FEN`), moves in canonical SAN with fresh move numbers,
    /// comments, NAGs and variations kept, lines wrapped at 79 columns. Only for valid games.
    pub fn write_canonical(&self, raw: &RawGame) -> String {
        self.write_canonical_with(raw, &self.canonical_tags(raw))
    }

    /// [`Replay::write_canonical`] with tags already put in canonical order by
    /// [`Replay::canonical_tags`], for callers that need them too.
    pub fn write_canonical_with(&self, raw: &RawGame, tag_list: &[(String, String)]) -> String {
        let result = self.recorded_result(raw);
        let mut out = String::with_capacity(raw.source.len() + 256);
        write_tags(&mut out, tag_list);
        out.push('\n');

        // Move numbers follow the positions: per line of play, the move number and side before
        // its last move, now, and whether the next Black move needs its own number.
        let start = self.game.as_ref().map(|g| g.start());
        let first: Turn = start.map_or((1, Color::White), |p| (p.fullmove_number(), p.turn()));
        let mut lines: Vec<(Turn, Turn, bool)> = vec![(first, first, true)];
        let mut w = LineWriter::with_capacity(raw.source.len());
        // One buffer for each token written, instead of a string each.
        let mut t = String::new();
        // The moves' canonical SAN come in token order.
        let mut canonical = self.canonical.iter().peekable();
        let source = std::str::from_utf8(&raw.source).ok();
        let mut next = 0;
        while let Some(tok) = raw.tokens.get(next) {
            let i = next;
            next += 1;
            match tok.kind {
                TokenKind::Move(_) => {
                    while canonical.next_if(|c| c.before(i)).is_some() {}
                    let Some(&c) = canonical.peek().filter(|c| c.token as usize <= i) else {
                        continue;
                    };
                    if let CanonText::Run { end } = c.text {
                        // Most moves: a run of them in their fast forms, with nothing but move
                        // numbers between them, written in one go.
                        let stop = (end as usize).min(raw.tokens.len()).max(next);
                        if let (Some(run), Some(line)) = (raw.tokens.get(i..stop), lines.last_mut())
                        {
                            let letters = self
                                .variant
                                .as_deref()
                                .filter(|v| v.piece_letters().is_some());
                            write_run(&mut w, &mut t, raw, (i, run), c, line, letters);
                        }
                        next = stop;
                        continue;
                    }
                    let Some((text, mark)) = self.canonical_move(raw, source, c, i) else {
                        continue;
                    };
                    let Some(line) = lines.last_mut() else {
                        continue;
                    };
                    // Only a move that ends in `!` or `?` has a glyph to read.
                    let glyph = if matches!(raw.bytes(tok.span).last(), Some(b'!' | b'?')) {
                        raw.san(tok).and_then(|sp| sp.glyph)
                    } else {
                        None
                    };
                    write_move(&mut w, &mut t, line, &text, mark, glyph.map(|g| g.as_str()));
                }
                TokenKind::Nag(n) => w.push(&format!("${n}")),
                TokenKind::Comment | TokenKind::LineComment => {
                    // A `}` inside a `;` comment would end a `{}` comment early.
                    let text = raw.comment_text(tok);
                    if text.contains('}') {
                        w.push_comment(&text.replace('}', ")"));
                    } else {
                        w.push_comment(&text);
                    }
                    if let Some(l) = lines.last_mut() {
                        l.2 = true;
                    }
                }
                TokenKind::VariationStart => {
                    let before = lines.last().map_or(first, |l| l.0);
                    w.push("(");
                    lines.push((before, before, true));
                }
                TokenKind::VariationEnd => {
                    if lines.len() > 1 {
                        lines.pop();
                    }
                    w.push(")");
                    if let Some(l) = lines.last_mut() {
                        l.2 = true;
                    }
                }
                TokenKind::Result(_) | TokenKind::MoveNumber { .. } | TokenKind::Escape => {}
            }
        }
        w.push(&result);
        out.push_str(&w.finish());
        out.push('\n');
        out
    }
}

/// A move number and the side to play.
type Turn = (u32, Color);

/// Writes one move on its line of play (`line`: its turn before the last move, its turn now,
/// and whether the next Black move needs its own number): the move number when it needs one,
/// then the move's text with its check mark and glyph (`t` is scratch).
fn write_move(
    w: &mut LineWriter,
    t: &mut String,
    line: &mut (Turn, Turn, bool),
    text: &str,
    mark: &str,
    glyph: Option<&str>,
) {
    if let Some((n, black)) = take_turn(line) {
        w.push_move_number(n, black);
    }
    let token = if mark.is_empty() && glyph.is_none() {
        text
    } else {
        t.clear();
        t.push_str(text);
        t.push_str(mark);
        t.push_str(glyph.unwrap_or(""));
        t.as_str()
    };
    w.push_word(token);
}

/// Moves `line` (see [`write_move`]) past one move; returns the move number to write before
/// that move, if it needs one: the number, and whether it is Black's.
#[inline(always)]
fn take_turn(line: &mut (Turn, Turn, bool)) -> Option<(u32, bool)> {
    let (before, now, fresh) = line;
    let (n, side) = *now;
    let number = (side == Color::White || *fresh).then_some((n, side == Color::Black));
    *before = *now;
    *now = if side == Color::White {
        (n, Color::Black)
    } else {
        (n.wrapping_add(1), Color::White)
    };
    *fresh = false;
    number
}

/// Writes the moves of a run of tokens (moves in their fast forms and move numbers) that
/// resolved as they were written, `run` being tokens `first..` of `raw` and `c` their
/// canonical entry, on the line of play whose move numbers `line` follows (see
/// [`Replay::write_canonical_with`]). Each move's text is its source text; the last one takes
/// the entry's check mark. Writes what the general loop of the writer would, move by move,
/// without its search for the canonical entry of each.
// Most of an import's canonical text is written here, a few bytes a token: the turn is kept
// in locals and a token's length and mark are read from its packed form, without unpacking it.
fn write_run(
    w: &mut LineWriter,
    t: &mut String,
    raw: &RawGame,
    (first, run): (usize, &[crate::game::Token]),
    c: &Canon,
    line: &mut (Turn, Turn, bool),
    letters: Option<&Variant>,
) {
    let CanonText::Run { end } = c.text else {
        return;
    };
    // The index in `run` of the move that takes the entry's mark, if the run reaches it.
    let marked = (end as usize).checked_sub(first + 1);
    let (mut before, (mut n, mut side), mut fresh) = *line;
    let mut words = w.words();
    for (j, tok) in run.iter().enumerate() {
        let TokenKind::Move(packed) = tok.kind else {
            continue;
        };
        let Some((len, written_mark)) = packed.text_len() else {
            continue;
        };
        // A fast form is ASCII (see `PackedFastSan`), so its bytes are its text.
        let Some(source) = tok
            .span
            .offset
            .checked_sub(raw.source_offset)
            .and_then(|s| usize::try_from(s).ok())
            .and_then(|s| raw.source.get(s..))
            .filter(|s| s.len() >= len)
        else {
            continue;
        };
        // The turn, as `take_turn` moves it.
        before = (n, side);
        if side == Color::White {
            words.move_number(n, false);
            side = Color::Black;
        } else {
            if fresh {
                words.move_number(n, true);
            }
            n = n.wrapping_add(1);
            side = Color::White;
        }
        fresh = false;
        let mark = if Some(j) == marked { c.mark } else { None };
        // A token longer than its move and mark ends in a glyph, which is read from it.
        let plain = tok.span.len == (len + usize::from(written_mark)) as u64;
        if mark.is_none() && plain && letters.is_none() {
            words.word(source, len);
            continue;
        }
        let glyph = if !plain && matches!(raw.bytes(tok.span).last(), Some(b'!' | b'?')) {
            raw.san(tok).and_then(|sp| sp.glyph)
        } else {
            None
        };
        t.clear();
        match (letters, packed.get()) {
            // Written in another language's letters: the canonical text is made, not copied.
            (Some(variant), Some(fast)) => fast_canonical(variant, &fast, t),
            _ => t.extend(source.iter().take(len).map(|&b| char::from(b))),
        }
        t.push_str(mark.map_or("", Suffix::as_str));
        t.push_str(glyph.map_or("", |g| g.as_str()));
        words.word(t.as_bytes(), t.len());
    }
    *line = (before, (n, side), fresh);
}

/// The canonical SAN of a move written in a fast form with a variant's letters for reading
/// ([`Variant::with_piece_letters`]): its piece's own symbol, then the text's file, capture and
/// destination.
fn fast_canonical(variant: &Variant, fast: &FastSan, out: &mut String) {
    use std::fmt::Write;
    if let Some(kind) = fast
        .piece
        .and_then(|l| variant.kind_by_letter(char::from(l)))
    {
        out.push_str(&variant.kind(kind).symbol);
    }
    if let Some(f) = fast.file {
        out.push(char::from(b'a' + f));
    }
    if fast.capture {
        out.push('x');
    }
    let _ = write!(out, "{}", fast.to);
}

/// Replays one game read from a file.
pub fn replay(raw: &RawGame, registry: &Registry) -> Replay {
    replay_with(raw, registry, true, true)
}

/// [`replay`] for checking a game, what `kabir validate` does: the same [`Replay`], but its
/// game keeps no position hashes as it goes ([`Game::without_hashes`]), which makes each
/// move cheaper. They are computed if asked for, so for indexing positions use [`replay`].
pub fn replay_unhashed(raw: &RawGame, registry: &Registry) -> Replay {
    replay_with(raw, registry, true, false)
}

/// [`replay`] without the fast paths, as a reference for tests: every move is resolved among
/// all the legal moves of its position and every check mark is judged at once. Gives the
/// same [`Replay`] as [`replay`].
#[doc(hidden)]
pub fn replay_reference(raw: &RawGame, registry: &Registry) -> Replay {
    replay_with(raw, registry, false, true)
}

/// Replays a game: `fast` takes the fast paths (a line's run of moves in a fast form played
/// without resolving, and a move resolved among the moves to its square), which the
/// reference replay leaves out; `hashes` keeps the game's position hashes.
fn replay_with(raw: &RawGame, registry: &Registry, fast: bool, hashes: bool) -> Replay {
    let mut r = Replay {
        number: raw.number,
        variant: None,
        game: None,
        problems: Vec::new(),
        // An entry per run of fast-form moves, per check and per move resolved the general
        // way.
        canonical: Vec::with_capacity(raw.tokens.len() / 8),
        canonical_text: String::new(),
        complete: false,
        final_status: None,
        end_ply: None,
    };
    let syntax_error = reader_problems(&mut r, raw);
    if raw.is_too_large() {
        // Nothing of it was read: no tags to look at, no moves to replay.
        return r;
    }
    let Some((variant, start)) = variant_and_start(&mut r, raw, registry) else {
        return r;
    };
    if syntax_error {
        // The reader abandoned this game's text; replaying a fragment would only add noise.
        r.game = Some(Box::new(Game::new(start)));
        return r;
    }
    let mut main_line = Box::new(Game::new(start));
    if !hashes {
        main_line.stop_hashing();
    }
    main_line.reserve(raw.tokens.len());
    let main = replay_lines(&mut r, raw, &variant, main_line, fast);
    judge_end(&mut r, raw, main);
    r.problems.sort_by_key(|p| (p.line, p.column));
    r
}

/// The reader's diagnostics, as problems; whether one of them is an error.
fn reader_problems(r: &mut Replay, raw: &RawGame) -> bool {
    let mut syntax_error = false;
    for d in &raw.diagnostics {
        // The replay checks the result itself, with more to say.
        if d.kind == DiagnosticKind::ResultMismatch {
            continue;
        }
        let kind = match d.kind {
            DiagnosticKind::MoveNumberOutOfOrder { .. } => ProblemKind::MoveNumber,
            DiagnosticKind::MissingResult => ProblemKind::MissingResult,
            DiagnosticKind::DuplicateTag { .. } => ProblemKind::DuplicateTag,
            DiagnosticKind::GameTooLarge { .. } => ProblemKind::GameTooLarge,
            _ => ProblemKind::Syntax,
        };
        let error = d.kind.severity() == Severity::Error;
        syntax_error |= error;
        let message = match d.kind {
            DiagnosticKind::DuplicateTag { first } => match raw.tags.get(first as usize) {
                Some(t) => format!(
                    "a second {} tag: the first one, \"{}\" (line {}), is used and this one is \
                     ignored",
                    raw.tag_name(t),
                    short_value(raw, t),
                    t.span.line
                ),
                None => format!("expected {}", d.kind.expected()),
            },
            DiagnosticKind::GameTooLarge { limit } => format!(
                "the game is larger than {}, the most one game may take (--max-game-size): \
                 it was not read, and reading goes on at the next line that starts with '['",
                crate::game::byte_size(limit)
            ),
            _ => format!("expected {}", d.kind.expected()),
        };
        r.problems
            .push(Problem::at(kind, error, d.span, &raw.text(d.span), message));
    }
    syntax_error
}

/// Where the first tag named `name` is, else where the game starts.
fn tag_span(raw: &RawGame, name: &str) -> Span {
    raw.tags
        .iter()
        .find(|t| raw.bytes(t.name) == name.as_bytes())
        .map_or(raw.start, |t| t.span)
}

/// Where character `column` (from 1, of the unescaped value) of the first tag named `name`
/// lies in the file: that character, or with `field` the field of the value that starts
/// there, up to the next blank. Where the tag is not found, where the game starts.
fn tag_value_span(raw: &RawGame, name: &str, column: usize, field: bool) -> Span {
    let Some(tag) = raw
        .tags
        .iter()
        .find(|t| raw.bytes(t.name) == name.as_bytes())
    else {
        return raw.start;
    };
    let value = raw.bytes(tag.value);
    let text = String::from_utf8_lossy(value);
    // Walk the escaped text, counting the characters of the value it stands for: `\"` and
    // `\\` are one character each.
    let (mut at, mut chars, mut seen) = (0usize, 0u32, 1usize);
    let mut it = text.char_indices().peekable();
    while seen < column {
        let Some((_, c)) = it.next() else { break };
        chars += 1;
        if c == '\\' && it.peek().is_some_and(|&(_, n)| n == '"' || n == '\\') {
            it.next();
            chars += 1;
        }
        seen += 1;
        at = it.peek().map_or(text.len(), |&(i, _)| i);
    }
    if text.len() != value.len() {
        // Not UTF-8: the character count cannot be mapped to bytes; point at the value.
        return tag.value;
    }
    let rest = &text[at..];
    let len = if field {
        rest.find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len())
    } else {
        rest.chars().next().map_or(0, char::len_utf8)
    }
    .max(1);
    Span {
        offset: tag.value.offset + at as u64,
        len: len as u64,
        line: tag.value.line,
        column: tag.value.column + chars,
    }
}

/// A problem with no move, at `span`.
fn game_problem(kind: ProblemKind, span: Span, text: &str, message: String) -> Problem {
    Problem::at(kind, kind.is_error(), span, text, message)
}

/// The game's variant and start position, from its tags (or the registry's default variant);
/// `None`, with the problem recorded, when either is wrong.
fn variant_and_start(
    r: &mut Replay,
    raw: &RawGame,
    registry: &Registry,
) -> Option<(Arc<Variant>, Position)> {
    let variant = match raw.tag(tags::VARIANT) {
        Some(name) => match registry.find(&name) {
            Some(v) => v.clone(),
            None => {
                r.problems.push(game_problem(
                    ProblemKind::UnknownVariant,
                    tag_span(raw, tags::VARIANT),
                    &name,
                    format!(
                        "unknown variant {name:?}; known variants: {}",
                        registry.ids().join(", ")
                    ),
                ));
                return None;
            }
        },
        None => match registry.default_variant() {
            Some(v) => v.clone(),
            None => {
                r.problems.push(game_problem(
                    ProblemKind::MissingVariant,
                    raw.start,
                    "",
                    format!(
                        "no Variant tag; name the variant in the game or give a default with --variant (one of {})",
                        registry.ids().join(", ")
                    ),
                ));
                return None;
            }
        },
    };
    r.variant = Some(variant.clone());
    let start = match raw.tag(tags::FEN) {
        Some(fen) => match Position::from_fen_lenient(&variant, &fen) {
            Ok((p, notes)) => {
                for note in notes {
                    let span = tag_value_span(raw, tags::FEN, note.column, true);
                    r.problems.push(game_problem(
                        ProblemKind::FenAssumed,
                        span,
                        &raw.text(span),
                        format!("FEN: {}", note.message),
                    ));
                }
                p
            }
            Err(e) => {
                let span = tag_value_span(raw, tags::FEN, e.column, false);
                r.problems.push(game_problem(
                    ProblemKind::BadFen,
                    span,
                    &raw.text(span),
                    format!("bad FEN for {}: {e}", variant.name()),
                ));
                return None;
            }
        },
        None => Position::start(&variant),
    };
    Some((variant, start))
}

/// Replays the movetext on `main_line`: the main line and its variations, each from its
/// branch point. Returns the main line's frame, its last mark not settled yet.
fn replay_lines(
    r: &mut Replay,
    raw: &RawGame,
    variant: &Variant,
    main_line: Box<Game>,
    fast: bool,
) -> Frame {
    let mut frame = Frame {
        game: main_line,
        scratch: Vec::with_capacity(16),
        dead: false,
        pending: None,
        draw: None,
        log: None,
    };
    // The lines set aside for the variations open, outermost first.
    let mut stack: Vec<Suspended> = Vec::new();
    let mut next = 0;
    while next < raw.tokens.len() {
        if fast && !frame.dead {
            // The run keeps no takebacks (a test at each move would cost every game): a game
            // with a variation finds them after it, by playing its moves again from the
            // position before it.
            let before = frame.log.as_ref().map(|_| frame.game.position().clone());
            let from = frame.game.moves().len();
            next = if frame.game.hashing() {
                fast_run::<true>(r, raw, &mut frame, variant, next)
            } else {
                fast_run::<false>(r, raw, &mut frame, variant, next)
            };
            if let Some(before) = before {
                frame.played_from(before, from);
            }
        }
        let Some(tok) = raw.tokens.get(next) else {
            break;
        };
        let i = next;
        next += 1;
        match tok.kind {
            TokenKind::Move(_) => general_move(r, raw, &mut frame, i, fast),
            TokenKind::VariationStart => stack.push(frame.begin_variation()),
            TokenKind::VariationEnd => {
                if let Some(parent) = stack.pop() {
                    end_line(r, raw, &mut frame);
                    frame.end_variation(parent);
                }
            }
            _ => {}
        }
    }
    while let Some(parent) = stack.pop() {
        end_line(r, raw, &mut frame);
        frame.end_variation(parent);
    }
    frame
}

/// The general way for the move of token `i`: read its SAN, resolve it among the legal moves
/// (or among the moves to its square, when `fast`), play it, and record its canonical text,
/// its warnings, or the error that ends its line.
#[inline]
fn general_move(r: &mut Replay, raw: &RawGame, frame: &mut Frame, i: usize, fast: bool) {
    let Some(tok) = raw.tokens.get(i) else { return };
    if frame.dead {
        return;
    }
    let start = r.canonical_text.len();
    let Some(sp) = raw.san(tok) else {
        if let Some(p) = frame.pending.take() {
            let mate = is_mate(&frame.game);
            settle(r, raw, &frame.game, p, mate);
        }
        return;
    };
    // A pending check was no mate if this move is legal: judging mate (a search for a legal
    // move) is left for when it is not.
    let pending = frame.pending.take();
    let (text, problems) = (&mut r.canonical_text, &mut r.problems);
    let played = play(frame, &sp, raw, tok.span, text, problems, fast);
    if let Some(p) = pending {
        let mate = played.is_err() && is_mate(&frame.game);
        settle(r, raw, &frame.game, p, mate);
    }
    match played {
        Ok(mark) => {
            frame.played();
            let len = r.canonical_text.len() - start;
            if let (Ok(start), Ok(len)) = (u32::try_from(start), u16::try_from(len)) {
                r.canonical.push(Canon {
                    token: i as u32,
                    text: CanonText::Written { start, len },
                    mark,
                });
            }
        }
        Err(p) => {
            r.problems.push(*p);
            frame.dead = true;
        }
    }
}

/// The end of the main line: its status, its last check mark settled, and the result
/// written checked against the `Result` tag and the final position. The game goes to `r`.
fn judge_end(r: &mut Replay, raw: &RawGame, mut main: Frame) {
    let status = main.game.status();
    r.final_status = Some(status);
    if status.is_over() {
        let plies = u32::try_from(main.game.moves().len()).unwrap_or(u32::MAX);
        r.end_ply = Some(main.draw.unwrap_or(plies));
    }
    if let Some(p) = main.pending.take() {
        let mate = matches!(
            status,
            Status::Over {
                termination: Termination::Checkmate,
                ..
            }
        );
        settle(r, raw, &main.game, p, mate);
    }
    r.complete = !main.dead;

    // The result: tag against movetext, and both against the final position.
    let written = raw.result();
    let tagged = raw
        .tag(tags::RESULT)
        .and_then(|t| GameResult::from_ascii(t.as_bytes()));
    let result_span = raw
        .tokens
        .iter()
        .rev()
        .find(|t| matches!(t.kind, TokenKind::Result(_)))
        .map_or_else(|| tag_span(raw, tags::RESULT), |t| t.span);
    if let (Some(w), Some(t)) = (written, tagged)
        && w != t
    {
        r.problems.push(game_problem(
            ProblemKind::ResultMismatch,
            result_span,
            w.as_str(),
            format!("the result {w} after the moves differs from the Result tag {t}"),
        ));
    }
    if !main.dead
        && let Status::Over {
            termination,
            outcome,
        } = status
    {
        let mut contradicted = false;
        for (claimed, span) in [
            (written, result_span),
            (tagged, tag_span(raw, tags::RESULT)),
        ] {
            let Some(claimed) = claimed else { continue };
            let contradicts = match claimed {
                GameResult::WhiteWins => outcome != Outcome::WhiteWins,
                GameResult::BlackWins => outcome != Outcome::BlackWins,
                GameResult::Draw => outcome != Outcome::Draw,
                GameResult::Unknown => false,
            };
            if contradicts {
                r.problems.push(Problem {
                    position: Some(main.game.position().to_fen()),
                    ..game_problem(
                        ProblemKind::ResultContradicts,
                        span,
                        claimed.as_str(),
                        format!(
                            "the game ended by {} ({}) but the result says {claimed}",
                            termination.as_str(),
                            outcome.as_pgn()
                        ),
                    )
                });
                contradicted = true;
                break;
            }
        }
        // `*` is no claim against the rules, but the game is not unfinished either.
        let unfinished = match (written, tagged) {
            (Some(GameResult::Unknown), _) => Some(result_span),
            (None, Some(GameResult::Unknown)) => Some(tag_span(raw, tags::RESULT)),
            _ => None,
        };
        if let (false, Some(span)) = (contradicted, unfinished) {
            r.problems.push(game_problem(
                ProblemKind::ResultUnfinished,
                span,
                "*",
                format!(
                    "the result is * but the game ended by {} ({}): that result is recorded",
                    termination.as_str(),
                    outcome.as_pgn()
                ),
            ));
        }
    }
    r.game = Some(main.game);
}

/// Resolves and plays one move in a line: appends its canonical text to `text` and any
/// warnings to `problems` and returns its check mark, or returns the error that stops the
/// line.
fn play(
    frame: &mut Frame,
    sp: &SanPlus,
    raw: &RawGame,
    span: Span,
    text: &mut String,
    problems: &mut Vec<Problem>,
    fast: bool,
) -> Result<Option<Suffix>, Box<Problem>> {
    let game = &mut frame.game;
    let written = raw.text(span);
    let ply = game.moves().len() as u32 + 1;
    let start = text.len();
    if fast && resolve_fast(game, &sp.san, &mut frame.scratch, text) {
        return Ok(finish(game, text, start, &written, span, ply, problems));
    }
    let pos = game.position();
    let mut legal = game.legal_moves();
    // Engines play on after a draw the rules make at once (two bare kings): such moves are
    // replayed, and the line's first one is warned of.
    let past_draw = legal.is_empty() && is_automatic_draw(pos);
    if past_draw {
        legal = game.legal_moves_past_end();
    }
    let at = |kind: ProblemKind, message: String, close: &[Move]| Problem {
        ply: Some(ply),
        position: Some(pos.to_fen()),
        legal: close.to_vec(),
        legal_text: close.iter().map(|&m| san(pos, m, &legal)).collect(),
        ..Problem::at(kind, kind.is_error(), span, &written, message)
    };
    if legal.is_empty() {
        let why = match pos.status_with(false) {
            Status::Over { termination, .. } => termination.as_str(),
            Status::Ongoing => "the rules",
        };
        return Err(Box::new(at(
            ProblemKind::MoveAfterEnd,
            format!("the game was already over ({why})"),
            &[],
        )));
    }
    let m = match resolve(&sp.san, pos, &legal) {
        Ok(m) => m,
        Err(e) => {
            let kind = if matches!(e, ResolveError::Ambiguous { .. }) {
                ProblemKind::AmbiguousMove
            } else {
                ProblemKind::IllegalMove
            };
            let mut message = match &e {
                ResolveError::Illegal { .. } => "no legal move fits".to_string(),
                ResolveError::Ambiguous { .. } => "several legal moves fit".to_string(),
                other => other.to_string(),
            };
            if let San::Normal {
                piece: Some(letter),
                ..
            } = sp.san
                && let Some(note) = pos.variant().letter_note(letter.char())
            {
                message = format!("{message}; {note}");
            }
            if kind == ProblemKind::IllegalMove
                && pos.variant().rules().permanent_check == kabir_rules::PermanentCheckRule::Illegal
            {
                let all = pos.legal_moves();
                if let Ok(m) = resolve(&sp.san, pos, &all)
                    && game.is_permanent_check(m)
                {
                    message = "permanent check: the move repeats a position in a series of checks"
                        .to_string();
                }
            }
            return Err(Box::new(at(kind, message, e.moves())));
        }
    };
    san_into(text, pos, m, &legal);
    if past_draw && frame.draw.is_none() {
        let drawn = ply - 1;
        frame.draw = Some(drawn);
        problems.push(at(
            ProblemKind::MovesAfterDraw,
            format!(
                "the game had ended in a draw by bare king after ply {drawn}; the moves played \
                 on are kept"
            ),
            &[],
        ));
    }
    game.play_unchecked(m);
    Ok(finish(game, text, start, &written, span, ply, problems))
}

/// Whether the game is over in `pos` by a draw that a rule makes at once, and that engines
/// play on past: both sides reduced to their royal pieces (bare king). Other ends are no
/// such thing: a citadel entered ends the game for good (`docs/RULES.md`), and after
/// checkmate or stalemate no move is legal anyway.
fn is_automatic_draw(pos: &Position) -> bool {
    matches!(
        pos.status_with(false),
        Status::Over {
            termination: Termination::BareKing,
            outcome: Outcome::Draw,
        }
    )
}

/// Whether the move just played in `game` ended it with a win for its player: then `#` on
/// it is right even when the win is not a checkmate (Fairy-Stockfish marks so the check that
/// bares the enemy king), though the writer marks it `+`.
fn won_by_last_move(game: &Game) -> bool {
    let mover = !game.position().turn();
    game.status().outcome().and_then(|o| o.winner()) == Some(mover)
}

/// The common case, cheaply: a move written with its piece and destination is resolved among
/// the moves of that piece to that square, found backwards from the square, and a single
/// candidate is tested against the check rule by playing it. Plays the move and appends its
/// canonical SAN to `text` when that settles it; false (nothing played or written) when the
/// move needs the general way: no candidate or no single fitting one, the game over, another
/// form of text. The general way then finds the same move or the exact error.
fn resolve_fast(game: &mut Game, text: &San, scratch: &mut Vec<Move>, out: &mut String) -> bool {
    if let San::Swap { with, .. } = *text {
        return resolve_fast_swap(game, text, with, scratch, out);
    }
    let (to, kind, pawns, history) = {
        let variant = game.position().variant();
        if text.is_coordinate() {
            return false;
        }
        let San::Normal { piece, to, .. } = *text else {
            return false;
        };
        let Ok(to) = crate::resolve::square(variant, to) else {
            return false;
        };
        let kind = match piece {
            Some(l) => match variant.kind_by_letter(l.char()) {
                Some(k) if !variant.kind(k).pawn => Some(k),
                Some(_) => None,
                None if l.char() == 'P' => None,
                None => return false,
            },
            None => None,
        };
        let history = variant.rules().permanent_check == kabir_rules::PermanentCheckRule::Illegal;
        (to, kind, variant.pawn_kinds, history)
    };
    let kinds = match kind {
        Some(k) => 1 << k.0,
        None => pawns,
    };
    game.position().pseudo_legal_moves_to(to, kinds, scratch);
    if scratch.len() == 1 && !history {
        let m = scratch[0];
        let pos = game.position();
        if resolve(text, pos, scratch).is_err() {
            return false;
        }
        let start = out.len();
        san_into(out, pos, m, scratch);
        if game.play_if_legal(m) {
            return true;
        }
        out.truncate(start);
        return false;
    }
    if scratch.is_empty() {
        return false;
    }
    // Several candidates: the legal ones decide both the move and its disambiguation.
    game.retain_legal(scratch);
    if history {
        scratch.retain(|&m| !game.is_permanent_check(m));
    }
    let pos = game.position();
    let Ok(m) = resolve(text, pos, scratch) else {
        return false;
    };
    san_into(out, pos, m, scratch);
    game.play_unchecked(m);
    true
}

/// [`resolve_fast`] for a king swap made in check, when it is allowed whatever else the side could
/// do: only the swaps with the written partner are looked at.
fn resolve_fast_swap(
    game: &mut Game,
    text: &San,
    with: crate::san::Place,
    scratch: &mut Vec<Move>,
    out: &mut String,
) -> bool {
    let Ok(partner) = crate::resolve::square(game.position().variant(), with) else {
        return false;
    };
    let mut pos = game.position().clone();
    if !pos.legal_swaps_in_check(partner, scratch) {
        return false;
    }
    let Ok(m) = resolve(text, &pos, scratch) else {
        return false;
    };
    san_into(out, &pos, m, scratch);
    game.play_unchecked(m);
    true
}

/// Checks how a move just played was written: `text`, from `start` on, is its canonical SAN;
/// warnings for a different spelling or mark go to `problems`. Returns its check mark.
fn finish(
    game: &Game,
    text: &str,
    start: usize,
    written: &str,
    span: Span,
    ply: u32,
    problems: &mut Vec<Problem>,
) -> Option<Suffix> {
    let mark = if game.last_move_gave_check() {
        Some(if is_mate(game) {
            Suffix::Mate
        } else {
            Suffix::Check
        })
    } else {
        None
    };
    let body = written.trim_end_matches(['!', '?']);
    let (body, written_mark) = match body.strip_suffix('#') {
        Some(b) => (b, Some(Suffix::Mate)),
        None => match body.strip_suffix('+') {
            Some(b) => (b, Some(Suffix::Check)),
            None => (body, None),
        },
    };
    let canonical = text.get(start..).unwrap_or_default();
    // Read with another language's letters, a move written in them is as canonical as can be.
    let in_set;
    let body = match game.position().variant().piece_letters() {
        Some(set) if body != canonical => {
            in_set = in_letters(game.position().variant(), set, canonical);
            if in_set.as_deref() == Some(body) {
                canonical
            } else {
                body
            }
        }
        _ => body,
    };
    let mark_right = written_mark == mark
        || (written_mark == Some(Suffix::Mate)
            && mark == Some(Suffix::Check)
            && won_by_last_move(game));
    if body == canonical && mark_right {
        return mark;
    }
    let warn = |kind: ProblemKind, message: String| Problem {
        ply: Some(ply),
        position: Some(game.previous_position().to_fen()),
        ..Problem::at(kind, false, span, written, message)
    };
    if body != canonical {
        problems.push(warn(
            ProblemKind::NonCanonical,
            format!("written {body}, canonical SAN is {canonical}"),
        ));
    }
    if !mark_right {
        problems.push(warn(
            ProblemKind::CheckMark,
            mark_message(written_mark, mark),
        ));
    }
    mark
}

/// Canonical SAN written with a set of other languages' letters: the piece letter that starts
/// it and the one after `=`, where the set has one for the piece's role. `None` when a letter
/// is no piece's.
fn in_letters(
    variant: &Variant,
    set: &kabir_rules::letters::PieceLetters,
    canonical: &str,
) -> Option<String> {
    let mut out = String::with_capacity(canonical.len() + 2);
    let mut prev = None;
    for (i, c) in canonical.char_indices() {
        if c.is_ascii_uppercase() && (i == 0 || prev == Some('=')) {
            let kind = variant.kind_by_symbol(c.encode_utf8(&mut [0; 4]))?;
            match variant.kind(kind).role.and_then(|r| set.letter(r)) {
                Some(l) => out.push_str(l),
                None => out.push(c),
            }
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    Some(out)
}

/// Whether the game just ended by checkmate.
fn is_mate(game: &Game) -> bool {
    matches!(
        game.status(),
        Status::Over {
            termination: Termination::Checkmate,
            ..
        }
    )
}

/// What is wrong with a written check mark.
fn mark_message(written: Option<Suffix>, right: Option<Suffix>) -> String {
    let name = |m: Option<Suffix>| m.map_or("", Suffix::as_str);
    match (written, right) {
        (None, Some(m)) => format!(
            "the move gives {} but has no {} mark",
            if m == Suffix::Mate { "mate" } else { "check" },
            m.as_str()
        ),
        (Some(w), None) => format!("the move gives no check but is marked {}", w.as_str()),
        (w, m) => format!("marked {} but the right mark is {}", name(w), name(m)),
    }
}

/// A check-mark warning on the move at `span`, ply `ply`, played in `before`.
fn mark_problem(
    raw: &RawGame,
    span: Span,
    ply: u32,
    before: &Position,
    message: String,
) -> Problem {
    Problem {
        ply: Some(ply),
        position: Some(before.to_fen()),
        ..Problem::at(
            ProblemKind::CheckMark,
            false,
            span,
            &raw.text(span),
            message,
        )
    }
}

/// Settles the mark of a checking move of `game`'s line, now that it is known whether it
/// mated. Unless a legal move followed it, `game` is as the move left it.
#[inline]
fn settle(r: &mut Replay, raw: &RawGame, game: &Game, p: Pending, mate: bool) {
    let right = Some(if mate { Suffix::Mate } else { Suffix::Check });
    if let Some(c) = r.canonical.get_mut(p.canon) {
        c.mark = right;
    }
    if p.written != right {
        wrong_mark(r, raw, game, p, right);
    }
}

/// [`settle`] for a mark other than the right one: a warning, unless it is `#` on a check
/// that won the game.
#[cold]
#[inline(never)]
fn wrong_mark(r: &mut Replay, raw: &RawGame, game: &Game, p: Pending, right: Option<Suffix>) {
    let as_left = game.moves().len() == p.ply as usize;
    if p.written == Some(Suffix::Mate) && as_left && won_by_last_move(game) {
        return;
    }
    // A move was played after it only when it was no mate, and then `+` is right: a mark
    // other than `+` brought its position with it.
    let before = match p.before {
        Some(pos) => pos,
        None if as_left => Box::new(game.previous_position()),
        None => Box::new(game.position_after(p.ply.saturating_sub(1) as usize)),
    };
    r.problems.push(mark_problem(
        raw,
        p.span,
        p.ply,
        &before,
        mark_message(p.written, right),
    ));
}

/// A line of play ends: the mark of its last move is settled.
fn end_line(r: &mut Replay, raw: &RawGame, frame: &mut Frame) {
    if let Some(p) = frame.pending.take() {
        let mate = is_mate(&frame.game);
        settle(r, raw, &frame.game, p, mate);
    }
}

/// The common run of a line: move numbers, and moves in the fast forms that
/// [`Game::play_fast`] plays, from token `i` on. Returns the index of the first token left to
/// the general way ([`general_move`]), which would do the same with these.
// A loop of its own keeps the game and the variant at hand: reached through the stack of
// lines at every move, they were a chain of loads that each move waited on.
#[inline]
fn fast_run<const HASH: bool>(
    r: &mut Replay,
    raw: &RawGame,
    frame: &mut Frame,
    variant: &Variant,
    mut i: usize,
) -> usize {
    let game = &mut *frame.game;
    // The fast forms are canonical when they resolve here: the run of tokens read so far
    // gets one canonical entry, closed early by a check, whose mark is settled later.
    let mut run = i;
    while let Some(tok) = raw.tokens.get(i) {
        match tok.kind {
            TokenKind::MoveNumber { .. } => {}
            TokenKind::Move(packed) => {
                let Some(fast) = packed.get() else { break };
                let Some(check) = play_fast_san::<HASH>(game, variant, &fast) else {
                    break;
                };
                // A legal move followed the last check: it was no mate.
                if let Some(p) = frame.pending.take() {
                    settle(r, raw, game, p, false);
                }
                let ply = game.moves().len() as u32;
                if check {
                    frame.pending = Some(Pending {
                        canon: r.canonical.len(),
                        ply,
                        span: tok.span,
                        written: fast.suffix,
                        before: (fast.suffix != Some(Suffix::Check))
                            .then(|| Box::new(game.previous_position())),
                    });
                    push_run(r, run, i + 1);
                    run = i + 1;
                } else if let Some(w) = fast.suffix {
                    r.problems.push(mark_problem(
                        raw,
                        tok.span,
                        ply,
                        &game.previous_position(),
                        mark_message(Some(w), None),
                    ));
                }
            }
            _ => break,
        }
        i += 1;
    }
    if run < i {
        push_run(r, run, i);
    }
    i
}

/// Records that the moves of tokens `from..to` resolved in their fast forms.
fn push_run(r: &mut Replay, from: usize, to: usize) {
    r.canonical.push(Canon {
        token: from as u32,
        text: CanonText::Run { end: to as u32 },
        mark: None,
    });
}

/// [`Game::play_fast`] for a move in one of the fast forms: maps its letter and square to the
/// variant. `None` (nothing played) when the general way must resolve it.
#[inline]
fn play_fast_san<const HASH: bool>(
    game: &mut Game,
    variant: &Variant,
    fast: &FastSan,
) -> Option<bool> {
    let kind = match fast.piece {
        Some(letter) => Some(variant.san_letter(letter)?),
        None => None,
    };
    let to = variant.geometry().main_square(fast.to.file, fast.to.rank)?;
    game.play_fast::<HASH>(
        variant,
        FastMove {
            kind,
            file: fast.file.map(|f| f as i8 + 1),
            capture: fast.capture,
            to,
        },
    )
}
