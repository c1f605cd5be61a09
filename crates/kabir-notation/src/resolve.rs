//! Resolving the text of a move against a position: which legal move does it name?
//!
//! Syntax ([`San`]) knows nothing of the rules; here the variant maps letters to piece kinds and
//! squares to its board, and the position's legal moves decide. An illegal move and an
//! ambiguous move are different errors, and both carry the legal moves that came close.

use kabir_rules::{Move, MoveKind, PieceKind, Position, Square, Variant};

use super::san::{Letter, Origin, Place, San};

/// Why a move's text names no single legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// No legal move fits. `close` lists legal moves of the same piece or to the same square.
    #[error("illegal move")]
    Illegal {
        /// The legal moves of the same piece or to the same square; may be empty.
        close: Vec<Move>,
    },
    /// Several legal moves fit; the text must say which.
    #[error("ambiguous move")]
    Ambiguous {
        /// Every legal move the text fits, two or more.
        candidates: Vec<Move>,
    },
    /// The letter names no piece of the variant.
    #[error("no piece of this variant has the letter {0}")]
    UnknownPiece(char),
    /// The square is not on this variant's board.
    #[error("no square {0} on this board")]
    NoSuchSquare(String),
}

impl ResolveError {
    /// The legal moves worth showing with the error.
    pub fn moves(&self) -> &[Move] {
        match self {
            ResolveError::Illegal { close } => close,
            ResolveError::Ambiguous { candidates } => candidates,
            _ => &[],
        }
    }
}

/// The square a written place names on the variant's board.
pub fn square(variant: &Variant, place: Place) -> Result<Square, ResolveError> {
    let g = variant.geometry();
    let found = match place {
        Place::Board(c) => g
            .at(c.file as i8 + 1, c.rank as i8 + 1)
            .filter(|&s| g.is_main(s)),
        Place::Citadel(c) => g.parse(c.name()),
    };
    found.ok_or_else(|| ResolveError::NoSuchSquare(place.to_string()))
}

/// The piece kinds a SAN letter names; `None` means "a pawn".
fn kinds_for(variant: &Variant, letter: Option<Letter>) -> Result<Option<PieceKind>, ResolveError> {
    let Some(letter) = letter else {
        return Ok(None);
    };
    match variant.kind_by_letter(letter.char()) {
        Some(k) if !variant.kind(k).pawn => Ok(Some(k)),
        Some(_) => Ok(None),
        // `P` for a pawn in variants whose pawns have typed symbols (`PR`, `PK`, ...).
        None if letter.char() == 'P' && variant.kinds().iter().any(|k| k.pawn) => Ok(None),
        None => Err(ResolveError::UnknownPiece(letter.char())),
    }
}

/// The piece kind a promotion letter names, if one is written.
fn promotion_kind(
    variant: &Variant,
    promotion: Option<Letter>,
) -> Result<Option<PieceKind>, ResolveError> {
    match promotion {
        Some(l) => variant
            .kind_by_letter(l.char())
            .map(Some)
            .ok_or(ResolveError::UnknownPiece(l.char())),
        None => Ok(None),
    }
}

/// Whether a move fits a written promotion (an omitted promotion fits any).
fn promotion_fits(promoted: Option<PieceKind>, m: &Move) -> bool {
    match (promoted, m.promotion) {
        (None, _) => true,
        (Some(want), Some(got)) => want == got,
        (Some(_), None) => false,
    }
}

/// The single move of `legal` that `fits`; else the error, with the moves that fit (several)
/// or the `close` ones (none). Allocates only for an error.
fn pick(
    legal: &[Move],
    fits: impl Fn(&Move) -> bool,
    close: impl Fn(&Move) -> bool,
) -> Result<Move, ResolveError> {
    let mut matches = legal.iter().filter(|m| fits(m));
    match (matches.next(), matches.next()) {
        (Some(&m), None) => Ok(m),
        (None, _) => Err(ResolveError::Illegal {
            close: legal.iter().filter(|m| close(m)).copied().collect(),
        }),
        _ => Err(ResolveError::Ambiguous {
            candidates: legal.iter().filter(|m| fits(m)).copied().collect(),
        }),
    }
}

/// Finds the legal move `san` names in `pos`, given the position's legal moves.
pub fn resolve(san: &San, pos: &Position, legal: &[Move]) -> Result<Move, ResolveError> {
    let variant = pos.variant();
    let g = variant.geometry();
    match *san {
        San::PawnOfPawns { to, .. } => {
            let to = square(variant, Place::Board(to))?;
            let special = |m: &Move| matches!(m.kind, MoveKind::Lift | MoveKind::Relocation);
            pick(legal, |m| special(m) && m.to == to, special)
        }
        San::Swap { with, promotion } => {
            let with = square(variant, with)?;
            let promoted = promotion_kind(variant, promotion)?;
            let swap = |m: &Move| m.kind == MoveKind::Swap;
            pick(
                legal,
                |m| swap(m) && m.to == with && promotion_fits(promoted, m),
                swap,
            )
        }
        San::Normal {
            piece,
            origin,
            to,
            promotion,
            waiting,
            ..
        } => {
            let to = square(variant, to)?;
            let promoted = promotion_kind(variant, promotion)?;
            // A written promotion of the opponent's waiting pawn must be the one that happens;
            // omitted, it is implied.
            let waiting = match waiting {
                Some((at, letter)) => Some((
                    square(variant, Place::Board(at))?,
                    promotion_kind(variant, Some(letter))?,
                )),
                None => None,
            };
            let promotion_fits = |m: &Move| {
                promotion_fits(promoted, m)
                    && waiting.is_none_or(|(at, kind)| {
                        pos.waiting_promotion(*m) == Some((at, kind.unwrap_or(PieceKind(u8::MAX))))
                    })
            };
            if san.is_coordinate() {
                // The piece is whatever stands on the origin; every move kind is possible.
                let Origin::Place(from) = origin else {
                    return Err(ResolveError::Illegal { close: Vec::new() });
                };
                let from = square(variant, from)?;
                pick(
                    legal,
                    |m| m.from == from && m.to == to && promotion_fits(m),
                    |m| m.from == from || m.to == to,
                )
            } else {
                let kind = kinds_for(variant, piece)?;
                let is_piece = |m: &Move| {
                    m.kind == MoveKind::Normal
                        && pos.kind_at(m.from).is_some_and(|k| match kind {
                            Some(want) => k == want,
                            None => variant.kind(k).pawn,
                        })
                };
                let origin_fits = |m: &Move| {
                    let (f, r) = g.coords(m.from);
                    match origin {
                        Origin::None => true,
                        Origin::File(file) => f == file as i8 + 1,
                        Origin::Rank(rank) => r == rank as i8 + 1,
                        Origin::Place(p) => square(variant, p).is_ok_and(|s| s == m.from),
                    }
                };
                pick(
                    legal,
                    |m| is_piece(m) && m.to == to && origin_fits(m) && promotion_fits(m),
                    |m| is_piece(m) || m.to == to,
                )
            }
        }
    }
}
