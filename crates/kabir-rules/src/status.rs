//! How a game stands: going on, or over and why.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use super::color::Color;
use super::definition::{BareKingRule, StalemateRule};
use super::position::Position;

/// The result of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// White won (`1-0`).
    WhiteWins,
    /// Black won (`0-1`).
    BlackWins,
    /// Neither side won (`1/2-1/2`).
    Draw,
}

impl Outcome {
    /// A win for `color`.
    pub fn win_for(color: Color) -> Outcome {
        match color {
            Color::White => Outcome::WhiteWins,
            Color::Black => Outcome::BlackWins,
        }
    }

    /// The PGN result string (`1-0`, `0-1`, `1/2-1/2`).
    pub fn as_pgn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    /// The side that won; `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::WhiteWins => Some(Color::White),
            Outcome::BlackWins => Some(Color::Black),
            Outcome::Draw => None,
        }
    }
}

impl fmt::Display for Outcome {
    /// The PGN result string, as [`Outcome::as_pgn`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_pgn())
    }
}

impl FromStr for Outcome {
    type Err = ParseResultError;

    /// Reads `1-0`, `0-1` or `1/2-1/2` (not `*`: an outcome is a finished game's).
    fn from_str(s: &str) -> Result<Outcome, ParseResultError> {
        GameResult::from_str(s)?
            .outcome()
            .ok_or_else(|| ParseResultError(s.to_string()))
    }
}

/// The result of a game as a record gives it (its `Result` tag, the end of its movetext, a
/// database's `result` column): an outcome, or `*` for a game unfinished or of unknown result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`
    WhiteWins,
    /// `0-1`
    BlackWins,
    /// `1/2-1/2`
    Draw,
    /// `*`: unknown, unfinished or abandoned.
    Unknown,
}

impl GameResult {
    /// Every result, in the order `1-0`, `0-1`, `1/2-1/2`, `*`.
    pub const ALL: [GameResult; 4] = [
        GameResult::WhiteWins,
        GameResult::BlackWins,
        GameResult::Draw,
        GameResult::Unknown,
    ];

    /// The result's text: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// Reads the whole of `text` as `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn from_ascii(text: &[u8]) -> Option<GameResult> {
        GameResult::ALL
            .into_iter()
            .find(|r| r.as_str().as_bytes() == text)
    }

    /// The outcome, for a finished game.
    pub const fn outcome(self) -> Option<Outcome> {
        match self {
            GameResult::WhiteWins => Some(Outcome::WhiteWins),
            GameResult::BlackWins => Some(Outcome::BlackWins),
            GameResult::Draw => Some(Outcome::Draw),
            GameResult::Unknown => None,
        }
    }
}

impl From<Outcome> for GameResult {
    fn from(outcome: Outcome) -> GameResult {
        match outcome {
            Outcome::WhiteWins => GameResult::WhiteWins,
            Outcome::BlackWins => GameResult::BlackWins,
            Outcome::Draw => GameResult::Draw,
        }
    }
}

impl From<Option<Outcome>> for GameResult {
    /// `*` for no outcome (a game still going on).
    fn from(outcome: Option<Outcome>) -> GameResult {
        outcome.map_or(GameResult::Unknown, GameResult::from)
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GameResult {
    type Err = ParseResultError;

    /// Reads exactly `1-0`, `0-1`, `1/2-1/2` or `*`.
    fn from_str(s: &str) -> Result<GameResult, ParseResultError> {
        GameResult::from_ascii(s.as_bytes()).ok_or_else(|| ParseResultError(s.to_string()))
    }
}

impl Serialize for GameResult {
    /// As its text (`"1-0"`...), the way game records and JSON answers write it.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A text that is not a game result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a game result: {0:?} (one of 1-0, 0-1, 1/2-1/2, *)")]
pub struct ParseResultError(pub String);

/// Why a game ended by the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Termination {
    /// No legal move while the side's only royal piece is attacked.
    Checkmate,
    /// No legal move otherwise.
    Stalemate,
    /// A side was reduced to its royal pieces.
    BareKing,
    /// A royal piece entered the enemy citadel.
    Citadel,
}

impl Termination {
    /// The reason in words: `checkmate`, `stalemate`, `bare king` or `citadel draw`.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::BareKing => "bare king",
            Termination::Citadel => "citadel draw",
        }
    }
}

impl std::fmt::Display for Termination {
    /// The reason in words ([`Termination::as_str`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether the game goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Status {
    /// The game goes on: the side to move has a legal move and no end rule applies.
    Ongoing,
    /// The game has ended by the rules.
    Over {
        /// Why it ended.
        termination: Termination,
        /// Who won, or a draw.
        outcome: Outcome,
    },
}

impl Status {
    /// Whether the game has ended.
    pub fn is_over(self) -> bool {
        matches!(self, Status::Over { .. })
    }

    /// The result of an ended game; `None` while it goes on.
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            Status::Ongoing => None,
            Status::Over { outcome, .. } => Some(outcome),
        }
    }
}

impl Position {
    /// An end of the game that does not depend on the legal moves: a citadel entered, or a
    /// bare king.
    #[inline]
    pub(crate) fn end_by_rule(&self) -> Option<Status> {
        let variant = &*self.variant;
        let w = Color::White;
        let b = Color::Black;
        if (self.royals(w) & variant.citadels_of[b]).nonempty()
            || (self.royals(b) & variant.citadels_of[w]).nonempty()
        {
            return Some(Status::Over {
                termination: Termination::Citadel,
                outcome: Outcome::Draw,
            });
        }
        // Neither side is bare: the common case, without counting.
        if variant.rules().bare_king == BareKingRule::Off
            || (self.pieces(w) != self.royals(w) && self.pieces(b) != self.royals(b))
        {
            return None;
        }
        let us = self.turn;
        let them = !us;
        let others = |c: Color| (self.pieces(c) & !self.royals(c)).count();
        let (ours, theirs) = (others(us), others(them));
        let over = |outcome| {
            Some(Status::Over {
                termination: Termination::BareKing,
                outcome,
            })
        };
        match variant.rules().bare_king {
            BareKingRule::Off => None,
            BareKingRule::Loss => match (ours == 0, theirs == 0) {
                (true, true) => over(Outcome::Draw),
                (true, false) => over(Outcome::win_for(them)),
                (false, true) => over(Outcome::win_for(us)),
                (false, false) => None,
            },
            // The bared side, to move, gets one reply when the opponent has a single piece.
            BareKingRule::LossUnlessReply => match (ours, theirs) {
                (0, 0) => over(Outcome::Draw),
                (_, 0) => over(Outcome::win_for(us)),
                (0, n) if n >= 2 => over(Outcome::win_for(them)),
                _ => None,
            },
        }
    }

    /// The status of the position, given its legal moves (see [`Position::status`]).
    pub fn status_with(&self, has_legal_move: bool) -> Status {
        if let Some(s) = self.end_by_rule() {
            return s;
        }
        if has_legal_move {
            return Status::Ongoing;
        }
        let us = self.turn;
        let termination = if self.sole_royal_attacked(us) {
            Termination::Checkmate
        } else {
            Termination::Stalemate
        };
        let outcome = if termination == Termination::Checkmate {
            Outcome::win_for(!us)
        } else {
            match self.variant.rules().stalemate {
                StalemateRule::Loss => Outcome::win_for(!us),
                StalemateRule::Draw => Outcome::Draw,
                StalemateRule::Win => Outcome::win_for(us),
            }
        };
        Status::Over {
            termination,
            outcome,
        }
    }

    /// Whether the game goes on, and if not, why and with what result.
    pub fn status(&self) -> Status {
        if let Some(s) = self.end_by_rule() {
            return s;
        }
        self.status_with(self.clone().has_legal_move())
    }
}
