//! Pictures: position diagrams and statistics charts, as SVG and PNG.
//!
//! [`position_svg`] draws a position on its variant's real board (extra squares such as
//! Tamerlane's citadels stand out beside the rectangle, in the column the geometry puts them),
//! with coordinates, the last move, arrows, the side to move and a caption, as SVG written
//! directly, with `data-*` attributes that say what each element stands for. [`svg_to_png`]
//! rasterises it in pure Rust with an embedded font, so no system fonts are needed. The piece
//! key is in `docs/DIAGRAMS.md`. [`chart`] draws the database's statistics the same way.

mod board;
pub mod chart;
mod render;
#[cfg(feature = "db")]
mod report_chart;
mod svg;

pub use board::{
    CAPTION_HEIGHT, DiagramOptions, Layout, MARGIN, SQUARE_SIZE, default_caption, piece_label,
    position_svg,
};
pub use render::{FONT, MAX_PNG_SIDE, RenderError, svg_to_png};
