//! The rules core: variants, positions, legal moves, game end, hashing and perft.
//!
//! No I/O, no game-record parsing and no database types live here. A variant is data
//! ([`VariantDef`]) compiled into a [`Variant`]; positions are read from position strings
//! ([`Position::from_fen`]), alone or as the start of an EPD line ([`epd`]);
//! [`Position::legal_moves`] gives every legal move, special moves
//! included; [`Game`] keeps the history that repetition rules need.

pub mod check_key;
mod color;
mod definition;
pub mod epd;
pub mod fen;
mod game;
pub mod generate;
mod geometry;
pub mod letters;
pub mod limits;
mod movegen;
mod movement;
mod perft;
mod position;
mod square;
mod status;
mod uci;
mod variant;
pub mod variants;
mod zobrist;

pub use color::{ByColor, Color};
pub use definition::*;
pub use fen::{FenError, FenErrorKind, FenNote, FenNoteKind};
#[doc(hidden)]
pub use game::{FastMove, Takeback};
pub use game::{Game, IllegalMove};
pub use geometry::{Citadel, Geometry, MAX_SQUARES};
pub use perft::{divide, perft};
pub use position::{Move, MoveKind, Position, Undo};
pub use square::{Bitboard, Square};
pub use status::{GameResult, Outcome, ParseResultError, Status, Termination};
pub use variant::{
    KindInfo, MAX_KINDS, PawnOfPawns, Piece, PieceKind, Rules, Variant, VariantError,
    VariantErrorKind,
};
