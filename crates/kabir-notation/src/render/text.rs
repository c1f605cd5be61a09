//! A position drawn as text: a framed board with file letters and rank numbers, pieces by
//! their symbols (White upper case, Black lower case, as in position strings) and the
//! citadels, or any other squares off the rectangle, beside the rank they continue.
//!
//! ```text
//!        a  b  c  d  e  f  g  h
//!      ┌─────────────────────────┐
//!    8 │ r  n  b  k  f  b  n  r  │
//!    7 │ p  p  p  p  p  p  p  p  │
//! ```

use kabir_rules::{Color, Position, Square};

/// Which characters to draw with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Charset {
    /// Box-drawing frame, `·` for an empty square.
    #[default]
    Unicode,
    /// `+`, `-` and `|` frame, `.` for an empty square.
    Ascii,
}

/// How to draw a board.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TextBoard {
    /// The characters for the frame and empty squares (box drawing by default).
    pub charset: Charset,
    /// Draw from Black's side (rank 1 at the top, file `a` on the right).
    pub flipped: bool,
}

struct Glyphs {
    top_left: char,
    top_right: char,
    bottom_left: char,
    bottom_right: char,
    horizontal: char,
    vertical: char,
    empty: char,
}

impl Charset {
    fn glyphs(self) -> Glyphs {
        match self {
            Charset::Unicode => Glyphs {
                top_left: '┌',
                top_right: '┐',
                bottom_left: '└',
                bottom_right: '┘',
                horizontal: '─',
                vertical: '│',
                empty: '·',
            },
            Charset::Ascii => Glyphs {
                top_left: '+',
                top_right: '+',
                bottom_left: '+',
                bottom_right: '+',
                horizontal: '-',
                vertical: '|',
                empty: '.',
            },
        }
    }
}

impl TextBoard {
    /// The board, the side to move and, if the board has citadels, what the brackets mean.
    /// Every line ends with a newline.
    pub fn render(&self, pos: &Position) -> String {
        let variant = pos.variant();
        let g = variant.geometry();
        let glyphs = self.charset.glyphs();
        let files = i32::from(g.files());
        let ranks = i32::from(g.ranks());
        // A cell is a space and the widest symbol on the board.
        let width = g
            .squares()
            .filter_map(|sq| pos.piece_at(sq))
            .map(|p| variant.kind(p.kind).symbol.chars().count())
            .max()
            .unwrap_or(1)
            .max(1);
        let cell = width + 1;
        let symbol = |sq: Square| -> String {
            match pos.piece_at(sq) {
                None => glyphs.empty.to_string(),
                Some(p) => {
                    let s = &variant.kind(p.kind).symbol;
                    match p.color {
                        Color::White => s.clone(),
                        Color::Black => s.to_ascii_lowercase(),
                    }
                }
            }
        };
        let extra = |file: i32| -> Vec<(i32, Square)> {
            g.squares()
                .filter(|&sq| !g.is_main(sq))
                .filter_map(|sq| {
                    let (f, r) = g.coords(sq);
                    (i32::from(f) == file).then_some((i32::from(r), sq))
                })
                .collect()
        };
        // Off-board squares left of file a and right of the last file, by rank.
        let (mut left, mut right) = (extra(0), extra(files + 1));
        if self.flipped {
            std::mem::swap(&mut left, &mut right);
        }
        let side = width + 3; // "[x] " or " [x]"
        let left_pad = if left.is_empty() { 0 } else { side };
        let label = ranks.to_string().len() + 1;
        let file_order: Vec<i32> = if self.flipped {
            (1..=files).rev().collect()
        } else {
            (1..=files).collect()
        };
        let rank_order: Vec<i32> = if self.flipped {
            (1..=ranks).collect()
        } else {
            (1..=ranks).rev().collect()
        };
        let pad = |s: &str, w: usize| format!("{s:<w$}");
        let mut out = String::new();
        // File letters.
        out.push_str(&" ".repeat(label + 1 + left_pad + 1));
        for &f in &file_order {
            let letter = char::from(b'a' + (f - 1) as u8);
            out.push(' ');
            out.push_str(&pad(&letter.to_string(), width));
        }
        out.push('\n');
        let rule = glyphs
            .horizontal
            .to_string()
            .repeat(files as usize * cell + 1);
        out.push_str(&" ".repeat(label + 1 + left_pad));
        out.push(glyphs.top_left);
        out.push_str(&rule);
        out.push(glyphs.top_right);
        out.push('\n');
        for &r in &rank_order {
            out.push_str(&format!("{r:>label$} "));
            if !left.is_empty() {
                match left.iter().find(|(rank, _)| *rank == r) {
                    Some(&(_, sq)) => {
                        out.push_str(&format!("[{}] ", pad(&symbol(sq), width)));
                    }
                    None => out.push_str(&" ".repeat(side)),
                }
            }
            out.push(glyphs.vertical);
            for &f in &file_order {
                out.push(' ');
                let text = g
                    .at(f as i8, r as i8)
                    .filter(|&sq| g.is_main(sq))
                    .map_or_else(|| " ".to_string(), symbol);
                out.push_str(&pad(&text, width));
            }
            out.push(' ');
            out.push(glyphs.vertical);
            if let Some(&(_, sq)) = right.iter().find(|(rank, _)| *rank == r) {
                out.push_str(&format!(" [{}]", pad(&symbol(sq), width)));
            }
            // No trailing spaces: the line ends at its last drawn character.
            let trimmed = out.trim_end_matches(' ').len();
            out.truncate(trimmed);
            out.push('\n');
        }
        out.push_str(&" ".repeat(label + 1 + left_pad));
        out.push(glyphs.bottom_left);
        out.push_str(&rule);
        out.push(glyphs.bottom_right);
        out.push('\n');
        let side = pos.turn().name();
        let mut chars = side.chars();
        let side: String = chars
            .next()
            .map(|c| c.to_ascii_uppercase())
            .into_iter()
            .chain(chars)
            .collect();
        out.push_str(&format!("{side} to move"));
        let citadels = g.citadels();
        if !citadels.is_empty() {
            let names: Vec<String> = citadels
                .iter()
                .map(|c| format!("{} ({})", c.name, c.owner.name()))
                .collect();
            out.push_str(&format!("; citadels in brackets: {}", names.join(", ")));
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ascii() -> TextBoard {
        TextBoard {
            charset: Charset::Ascii,
            flipped: false,
        }
    }

    #[test]
    fn shatranj_start_position() {
        let v = kabir_rules::variants::builtin("shatranj").unwrap();
        let text = ascii().render(&Position::start(&v));
        let l: Vec<&str> = text.lines().collect();
        assert_eq!(l[0].trim(), "a b c d e f g h");
        assert_eq!(l[1].trim(), "+-----------------+");
        assert_eq!(l[2].trim(), "8 | r n b k q b n r |");
        assert_eq!(l[5].trim(), "5 | . . . . . . . . |");
        assert_eq!(l[9].trim(), "1 | R N B K Q B N R |");
        assert_eq!(l[11], "White to move");
        assert_eq!(l.len(), 12);
    }

    #[test]
    fn tamerlane_citadels_beside_their_ranks() {
        let v = kabir_rules::variants::builtin("tamerlane").unwrap();
        // A white king in Black's citadel (a citadel draw), Black's king on f9.
        let pos = Position::from_fen(&v, "11/K5k5/11/11/11/11/11/11/12/11 b - - 1 1").unwrap();
        let text = TextBoard::default().render(&pos);
        let line = |rank: &str| {
            text.lines()
                .find(|l| l.trim_start().starts_with(rank))
                .unwrap()
        };
        // Black's citadel continues rank 9 on the left, White's rank 2 on the right.
        assert!(line("9 ").contains("[K] │ ·"), "{text}");
        assert!(line("2 ").ends_with("│ [·]"), "{text}");
        assert!(
            text.contains("citadels in brackets: wc (white), bc (black)"),
            "{text}"
        );
        // Frames line up on every rank.
        let bars: Vec<usize> = text
            .lines()
            .filter(|l| l.contains('│'))
            .map(|l| l.chars().position(|c| c == '│').unwrap())
            .collect();
        assert!(bars.windows(2).all(|w| w[0] == w[1]), "{text}");
        let plain = ascii().render(&pos);
        assert!(plain.is_ascii());
        let flipped = TextBoard {
            charset: Charset::Ascii,
            flipped: true,
        }
        .render(&pos);
        // From Black's side rank 1 is on top and Black's citadel on the right.
        let top = flipped.lines().nth(2).unwrap();
        assert!(top.trim_start().starts_with("1 "), "{flipped}");
        let r9 = flipped
            .lines()
            .find(|l| l.trim_start().starts_with("9 "))
            .unwrap();
        assert!(r9.ends_with("| [K]"), "{flipped}");
    }
}
