//! Position diagrams: the board in its real shape, pieces, last move, arrows and a caption.

use kabir_rules::{Color, Geometry, KindInfo, Piece, Position, Square};

use super::svg::{FONT_FAMILY, Svg, num};

/// The side of a square, in SVG user units (pixels at scale 1).
pub const SQUARE_SIZE: f64 = 64.0;
/// The band around the squares that holds the coordinates and the side-to-move mark.
pub const MARGIN: f64 = 32.0;
/// The band under the board that holds the caption.
pub const CAPTION_HEIGHT: f64 = 40.0;

const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const CITADEL: &str = "#8fa9b8";
const BORDER: &str = "#3b2a1a";
const HIGHLIGHT: &str = "#f4e04d";
const ARROW: &str = "#1d7a3c";
const WHITE_FILL: &str = "#fffdf4";
const WHITE_INK: &str = "#1e1e1e";
const BLACK_FILL: &str = "#262626";
const BLACK_INK: &str = "#f7f3e6";

/// What to draw besides the position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiagramOptions {
    /// The squares of the last move (from, to), highlighted.
    pub last_move: Option<(Square, Square)>,
    /// Arrows from one square to another, drawn over the pieces.
    pub arrows: Vec<(Square, Square)>,
    /// The text under the board; `None` gives the variant's name and the side to move.
    pub caption: Option<String>,
    /// Black's side at the bottom.
    pub flipped: bool,
}

/// Where the board's cells lie: one column per file, plus a column for extra squares (such as
/// citadels) that stand out beside the rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    min_file: i8,
    max_file: i8,
    ranks: i8,
    flipped: bool,
}

impl Layout {
    /// The layout of a board.
    pub fn new(geometry: &Geometry, flipped: bool) -> Layout {
        let (mut min_file, mut max_file) = (1, geometry.files() as i8);
        for c in geometry.citadels() {
            let (f, _) = geometry.coords(c.square);
            min_file = min_file.min(f);
            max_file = max_file.max(f);
        }
        Layout {
            min_file,
            max_file,
            ranks: geometry.ranks() as i8,
            flipped,
        }
    }

    /// Columns of cells, extra squares' columns included.
    pub fn columns(&self) -> u32 {
        (self.max_file - self.min_file + 1) as u32
    }

    /// Rows of cells.
    pub fn rows(&self) -> u32 {
        self.ranks as u32
    }

    /// The width of the whole picture.
    pub fn width(&self) -> f64 {
        self.columns() as f64 * SQUARE_SIZE + 2.0 * MARGIN
    }

    /// The height of the whole picture, caption included.
    pub fn height(&self) -> f64 {
        self.rows() as f64 * SQUARE_SIZE + 2.0 * MARGIN + CAPTION_HEIGHT
    }

    /// The top-left corner of the cell at 1-based `(file, rank)`.
    pub fn cell(&self, file: i8, rank: i8) -> (f64, f64) {
        let (col, row) = if self.flipped {
            (self.max_file - file, rank - 1)
        } else {
            (file - self.min_file, self.ranks - rank)
        };
        (
            MARGIN + col as f64 * SQUARE_SIZE,
            MARGIN + row as f64 * SQUARE_SIZE,
        )
    }

    fn center(&self, geometry: &Geometry, sq: Square) -> (f64, f64) {
        let (f, r) = geometry.coords(sq);
        let (x, y) = self.cell(f, r);
        (x + SQUARE_SIZE / 2.0, y + SQUARE_SIZE / 2.0)
    }
}

/// The label a piece's disc carries: the symbol without primes; for a pawn of a type (a
/// two-letter symbol beginning with `P`) the type's letter in lowercase, since the small disc
/// already says "pawn"; nothing for a plain pawn. A pawn of pawns' arrivals (primes in its
/// symbol) become prime marks.
pub fn piece_label(kind: &KindInfo) -> String {
    let letters = kind.symbol.trim_end_matches('\'');
    let mut label = if !kind.pawn {
        letters.to_string()
    } else if letters.len() == 2 && letters.starts_with('P') {
        letters[1..].to_ascii_lowercase()
    } else if letters == "P" {
        String::new()
    } else {
        letters.to_ascii_lowercase()
    };
    match kind.arrivals {
        0 => {}
        1 => label.push('\u{2032}'),
        2 => label.push('\u{2033}'),
        n => label.extend(std::iter::repeat_n('\u{2032}', n as usize)),
    }
    label
}

/// The default caption: the variant and the side to move.
pub fn default_caption(pos: &Position) -> String {
    format!(
        "{} \u{b7} {} to move",
        pos.variant().name(),
        side_name(pos.turn())
    )
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Draws a position as an SVG document.
///
/// Every square is a `rect` of class `square` with `data-square` (its name), `data-file` and
/// `data-rank`; extra squares also have class `citadel` and `data-owner`. Every piece is a `g`
/// of class `piece` with `data-square`, `data-color`, `data-kind` (the kind's id) and
/// `data-symbol`. The root carries `data-variant`, `data-files`, `data-ranks`, `data-columns`
/// and `data-turn`; its viewBox is [`Layout::width`] x [`Layout::height`].
pub fn position_svg(pos: &Position, options: &DiagramOptions) -> String {
    let variant = pos.variant();
    let g = variant.geometry();
    let layout = Layout::new(g, options.flipped);
    let (w, h) = (layout.width(), layout.height());
    let caption = options
        .caption
        .clone()
        .unwrap_or_else(|| default_caption(pos));
    let mut svg = Svg::new(
        w,
        h,
        &[
            ("class", "kabir-diagram".into()),
            ("data-variant", variant.id().into()),
            ("data-files", g.files().into()),
            ("data-ranks", g.ranks().into()),
            ("data-columns", layout.columns().into()),
            ("data-turn", pos.turn().name().into()),
            ("font-family", FONT_FAMILY.into()),
        ],
    );
    svg.text("title", &[], &caption);
    svg.leaf(
        "rect",
        &[
            ("class", "background".into()),
            ("width", w.into()),
            ("height", h.into()),
            ("fill", "#ffffff".into()),
        ],
    );

    // Squares: the rectangle, then its frame, then the extra squares with frames of their own
    // so that they stand out from the board.
    svg.open("g", &[("class", "squares".into())]);
    for sq in g.squares().filter(|&s| g.is_main(s)) {
        let (f, r) = g.coords(sq);
        let (x, y) = layout.cell(f, r);
        let dark = (f + r) % 2 == 0;
        svg.leaf(
            "rect",
            &[
                (
                    "class",
                    if dark { "square dark" } else { "square light" }.into(),
                ),
                ("data-square", g.name(sq).into()),
                ("data-file", f.into()),
                ("data-rank", r.into()),
                ("x", x.into()),
                ("y", y.into()),
                ("width", SQUARE_SIZE.into()),
                ("height", SQUARE_SIZE.into()),
                ("fill", if dark { DARK } else { LIGHT }.into()),
            ],
        );
    }
    let (x1, y1) = layout.cell(1, g.ranks() as i8);
    let (x2, y2) = layout.cell(g.files() as i8, 1);
    let (left, right) = (x1.min(x2), x1.max(x2) + SQUARE_SIZE);
    let (top, bottom) = (y1.min(y2), y1.max(y2) + SQUARE_SIZE);
    svg.leaf(
        "rect",
        &[
            ("class", "frame".into()),
            ("x", left.into()),
            ("y", top.into()),
            ("width", (right - left).into()),
            ("height", (bottom - top).into()),
            ("fill", "none".into()),
            ("stroke", BORDER.into()),
            ("stroke-width", 2.0.into()),
        ],
    );
    for c in g.citadels() {
        let (f, r) = g.coords(c.square);
        let (x, y) = layout.cell(f, r);
        svg.leaf(
            "rect",
            &[
                ("class", "square citadel".into()),
                ("data-square", g.name(c.square).into()),
                ("data-file", f.into()),
                ("data-rank", r.into()),
                ("data-owner", c.owner.name().into()),
                ("x", x.into()),
                ("y", y.into()),
                ("width", SQUARE_SIZE.into()),
                ("height", SQUARE_SIZE.into()),
                ("fill", CITADEL.into()),
                ("stroke", BORDER.into()),
                ("stroke-width", 3.0.into()),
            ],
        );
        svg.text(
            "text",
            &[
                ("class", "citadel-label".into()),
                // Above the cell, where no piece hides it.
                ("x", (x + SQUARE_SIZE / 2.0).into()),
                ("y", (y - 5.0).into()),
                ("text-anchor", "middle".into()),
                ("font-size", 12.0.into()),
                ("font-weight", "bold".into()),
                ("fill", BORDER.into()),
            ],
            &c.name,
        );
    }
    svg.close("g");

    if let Some((from, to)) = options.last_move {
        svg.open("g", &[("class", "last-move".into())]);
        for sq in [from, to] {
            if sq.index() >= g.len() {
                continue;
            }
            let (f, r) = g.coords(sq);
            let (x, y) = layout.cell(f, r);
            svg.leaf(
                "rect",
                &[
                    ("class", "highlight".into()),
                    ("data-square", g.name(sq).into()),
                    ("x", x.into()),
                    ("y", y.into()),
                    ("width", SQUARE_SIZE.into()),
                    ("height", SQUARE_SIZE.into()),
                    ("fill", HIGHLIGHT.into()),
                    ("fill-opacity", 0.55.into()),
                ],
            );
        }
        svg.close("g");
    }

    coordinates(&mut svg, g, &layout);

    svg.open("g", &[("class", "pieces".into())]);
    for sq in g.squares() {
        if let Some(p) = pos.piece_at(sq) {
            let (cx, cy) = layout.center(g, sq);
            piece(&mut svg, pos, p, g.name(sq), cx, cy);
        }
    }
    svg.close("g");

    if !options.arrows.is_empty() {
        svg.open("g", &[("class", "arrows".into())]);
        for &(from, to) in &options.arrows {
            if from.index() >= g.len() || to.index() >= g.len() || from == to {
                continue;
            }
            let a = layout.center(g, from);
            let b = layout.center(g, to);
            svg.leaf(
                "path",
                &[
                    ("class", "arrow".into()),
                    ("data-from", g.name(from).into()),
                    ("data-to", g.name(to).into()),
                    ("d", arrow_path(a, b).into()),
                    ("fill", ARROW.into()),
                    ("fill-opacity", 0.8.into()),
                ],
            );
        }
        svg.close("g");
    }

    // The side to move: a disc of its colour beside its own edge of the board.
    let own_edge_bottom = (pos.turn() == Color::White) != options.flipped;
    let cy = if own_edge_bottom {
        bottom - SQUARE_SIZE / 2.0
    } else {
        top + SQUARE_SIZE / 2.0
    };
    let cx = MARGIN + layout.columns() as f64 * SQUARE_SIZE + MARGIN / 2.0;
    let (fill, _) = colors(pos.turn());
    svg.leaf(
        "circle",
        &[
            ("class", "turn".into()),
            ("data-color", pos.turn().name().into()),
            ("cx", cx.into()),
            ("cy", cy.into()),
            ("r", 10.0.into()),
            ("fill", fill.into()),
            ("stroke", WHITE_INK.into()),
            ("stroke-width", 2.0.into()),
        ],
    );

    let (caption_size, caption_text) = fit(&caption, w - 16.0, 17.0, 10.0);
    svg.text(
        "text",
        &[
            ("class", "caption".into()),
            ("x", (w / 2.0).into()),
            ("y", (h - CAPTION_HEIGHT / 2.0 + 1.0).into()),
            ("text-anchor", "middle".into()),
            ("font-size", caption_size.into()),
            ("fill", WHITE_INK.into()),
        ],
        &caption_text,
    );
    svg.finish()
}

/// File letters under the bottom row and rank numbers left of each row's first cell.
fn coordinates(svg: &mut Svg, g: &Geometry, layout: &Layout) {
    svg.open(
        "g",
        &[
            ("class", "coordinates".into()),
            ("font-size", 14.0.into()),
            ("font-weight", "bold".into()),
            ("fill", BORDER.into()),
            ("text-anchor", "middle".into()),
        ],
    );
    let bottom_rank = if layout.flipped { layout.ranks } else { 1 };
    for f in 1..=g.files() as i8 {
        let (x, y) = layout.cell(f, bottom_rank);
        let label = ((b'a' + (f - 1) as u8) as char).to_string();
        svg.text(
            "text",
            &[
                ("class", "file-label".into()),
                ("x", (x + SQUARE_SIZE / 2.0).into()),
                ("y", (y + SQUARE_SIZE + MARGIN / 2.0 + 5.0).into()),
            ],
            &label,
        );
    }
    for r in 1..=g.ranks() as i8 {
        // Left of the row's leftmost cell, so a citadel on that side pushes the number out.
        let x = g
            .row(r)
            .iter()
            .map(|&s| {
                let (f, r) = g.coords(s);
                layout.cell(f, r).0
            })
            .fold(f64::INFINITY, f64::min);
        let (_, y) = layout.cell(1, r);
        svg.text(
            "text",
            &[
                ("class", "rank-label".into()),
                ("x", (x - MARGIN / 2.0 + 2.0).into()),
                ("y", (y + SQUARE_SIZE / 2.0 + 5.0).into()),
            ],
            &r.to_string(),
        );
    }
    svg.close("g");
}

/// A font size at which `text` fits `width` (between `min` and `max`), and the text, cut short
/// with `...` if even the smallest size is too wide. Widths are estimated from the embedded
/// bold font's average advance (about 0.62 em).
fn fit(text: &str, width: f64, max: f64, min: f64) -> (f64, String) {
    const ADVANCE: f64 = 0.62;
    let chars = text.chars().count().max(1) as f64;
    let size = (width / (chars * ADVANCE)).clamp(min, max);
    if chars * ADVANCE * size <= width {
        return (size, text.to_string());
    }
    let keep = ((width / (ADVANCE * size)) as usize).saturating_sub(3);
    let mut cut: String = text.chars().take(keep).collect();
    cut.push_str("...");
    (size, cut)
}

fn colors(c: Color) -> (&'static str, &'static str) {
    match c {
        Color::White => (WHITE_FILL, WHITE_INK),
        Color::Black => (BLACK_FILL, BLACK_INK),
    }
}

/// A piece: a disc of its side's colour with its letter; pawns are smaller discs, royal pieces
/// have a second ring.
fn piece(svg: &mut Svg, pos: &Position, p: Piece, square: &str, cx: f64, cy: f64) {
    let kind = pos.variant().kind(p.kind);
    let (fill, ink) = colors(p.color);
    let label = piece_label(kind);
    svg.open(
        "g",
        &[
            ("class", format!("piece {}", p.color.name()).into()),
            ("data-square", square.into()),
            ("data-color", p.color.name().into()),
            ("data-kind", kind.id.as_str().into()),
            ("data-symbol", kind.symbol.as_str().into()),
        ],
    );
    let r = if kind.pawn {
        SQUARE_SIZE * 0.31
    } else {
        SQUARE_SIZE * 0.42
    };
    svg.leaf(
        "circle",
        &[
            ("cx", cx.into()),
            ("cy", cy.into()),
            ("r", r.into()),
            ("fill", fill.into()),
            ("stroke", WHITE_INK.into()),
            ("stroke-width", 2.5.into()),
        ],
    );
    if kind.royal {
        svg.leaf(
            "circle",
            &[
                ("cx", cx.into()),
                ("cy", cy.into()),
                ("r", (r - 5.0).into()),
                ("fill", "none".into()),
                ("stroke", ink.into()),
                ("stroke-width", 1.5.into()),
            ],
        );
    }
    let glyphs = label.chars().count();
    let size = match (kind.pawn, glyphs) {
        (true, 1) => 22.0,
        (true, _) => 18.0,
        (false, 1) => 28.0,
        (false, _) => 21.0,
    };
    svg.text(
        "text",
        &[
            ("x", cx.into()),
            // The text's baseline, so that capitals (and a pawn's small letters) sit in the
            // middle of the disc.
            ("y", (cy + size * if kind.pawn { 0.3 } else { 0.36 }).into()),
            ("text-anchor", "middle".into()),
            ("font-size", size.into()),
            ("font-weight", "bold".into()),
            ("fill", ink.into()),
        ],
        &label,
    );
    svg.close("g");
}

/// The outline of an arrow from centre `a` to centre `b`, stopping short of `b`'s centre.
fn arrow_path(a: (f64, f64), b: (f64, f64)) -> String {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    let shaft = SQUARE_SIZE * 0.07;
    let head_len = SQUARE_SIZE * 0.36;
    let head_w = SQUARE_SIZE * 0.2;
    // From the edge of the piece's letter to just short of the target's centre.
    let begin = SQUARE_SIZE * 0.22;
    let end = len - SQUARE_SIZE * 0.12;
    let neck = (end - head_len).max(begin);
    let p = |along: f64, across: f64| {
        format!(
            "{},{}",
            num(a.0 + ux * along + nx * across),
            num(a.1 + uy * along + ny * across)
        )
    };
    format!(
        "M{} L{} L{} L{} L{} L{} L{} Z",
        p(begin, shaft),
        p(neck, shaft),
        p(neck, head_w),
        p(end, 0.0),
        p(neck, -head_w),
        p(neck, -shaft),
        p(begin, -shaft)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kabir_rules::variants::builtin;

    #[test]
    fn tamerlane_layout_has_a_column_each_side_for_the_citadels() {
        let v = builtin("tamerlane").unwrap();
        let l = Layout::new(v.geometry(), false);
        assert_eq!(l.columns(), 13);
        assert_eq!(l.rows(), 10);
        // a1 is in the second column (the first holds Black's citadel), bottom row.
        assert_eq!(
            l.cell(1, 1),
            (MARGIN + SQUARE_SIZE, MARGIN + 9.0 * SQUARE_SIZE)
        );
        // White's citadel right of rank 2.
        assert_eq!(
            l.cell(12, 2),
            (MARGIN + 12.0 * SQUARE_SIZE, MARGIN + 8.0 * SQUARE_SIZE)
        );
        let flipped = Layout::new(v.geometry(), true);
        assert_eq!(flipped.cell(12, 2), (MARGIN, MARGIN + SQUARE_SIZE));
    }

    #[test]
    fn labels_tell_typed_pawns_and_states_apart() {
        let v = builtin("tamerlane").unwrap();
        let label = |id: &str| piece_label(v.kind(v.kind_by_id(id).unwrap()));
        assert_eq!(label("rook"), "R");
        assert_eq!(label("pawn-of-rooks"), "r");
        assert_eq!(label("pawn-of-pawns"), "p");
        assert_eq!(label("pawn-of-pawns'"), "p\u{2032}");
        assert_eq!(label("pawn-of-pawns''"), "p\u{2033}");
        let s = builtin("shatranj").unwrap();
        assert_eq!(piece_label(s.kind(s.kind_by_id("pawn").unwrap())), "");
        assert_eq!(label("adventitious-king"), "A");
    }

    #[test]
    fn long_captions_shrink_then_are_cut() {
        assert_eq!(fit("short", 500.0, 17.0, 10.0), (17.0, "short".to_string()));
        let (size, text) = fit(&"x".repeat(60), 500.0, 17.0, 10.0);
        assert!((10.0..17.0).contains(&size) && text.len() == 60, "{size}");
        let (size, text) = fit(&"x".repeat(500), 500.0, 17.0, 10.0);
        assert_eq!(size, 10.0);
        assert!(text.ends_with("...") && text.chars().count() * 62 <= 500 * 10 + 62);
    }

    #[test]
    fn arrows_and_highlights_only_for_squares_of_the_board() {
        let v = builtin("shatranj").unwrap();
        let pos = Position::start(&v);
        let opts = DiagramOptions {
            last_move: Some((Square(200), Square(12))),
            arrows: vec![(Square(12), Square(28)), (Square(3), Square(250))],
            ..DiagramOptions::default()
        };
        let svg = position_svg(&pos, &opts);
        assert_eq!(svg.matches("class=\"arrow\"").count(), 1);
        assert_eq!(svg.matches("class=\"highlight\"").count(), 1);
        assert!(svg.contains("Shatranj \u{b7} White to move"));
    }
}
