//! Problems in game files, shown as compilers show theirs: a `FILE:LINE:COL: error[kind]:`
//! line that editors and terminals can jump to, then the source line with a caret under the
//! move and the notes (the position before the move, the legal moves close to it).
//!
//! ```text
//! games.pgn:9:13: error[illegal-move]: Nxe5 is not legal here (game 3, White - Black, ply 17)
//!   |
//! 9 | 8. Nf3 Nf6 9. Nxe5 Ne4
//!   |               ^^^^
//!   = position: rnbkqb1r/pppp1ppp/5n2/4p3/8/4PN2/PPPP1PPP/RNBKQB1R w - - 2 9
//!   = legal moves close to it: Ne1 Ng1 Nd4 Ng5 Nh4
//! ```
//!
//! Nothing is shortened but a very long source line, which is shown around the caret. Text
//! from the file goes through [`printable`], so no control character reaches the terminal.

use std::io::{IsTerminal, Write};

use anstyle::{AnsiColor, Style};
use anyhow::Result;
use clap::{Args, ValueEnum};

use kabir::notation::game::RawGame;
use kabir::notation::tags;
use kabir::render::printable;
use kabir::replay::{Problem, ProblemKind, Replay};

/// When to colour the output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// When writing to a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    /// Whatever the output and the environment.
    Always,
    /// Never.
    Never,
}

/// `--color`, for the commands that report problems.
#[derive(Debug, Clone, Args)]
pub struct ColorArgs {
    /// Colour the problems: auto (on a terminal, unless the NO_COLOR environment variable is
    /// set), always or never.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub color: ColorWhen,
}

impl ColorArgs {
    /// Whether to colour what is written to `stream`.
    pub fn enabled<S: IsTerminal + anstream::stream::RawStream>(&self, stream: &S) -> bool {
        match self.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            // NO_COLOR, CLICOLOR, CLICOLOR_FORCE and TERM=dumb as the other tools read them.
            ColorWhen::Auto => anstream::AutoStream::choice(stream) != anstream::ColorChoice::Never,
        }
    }
}

/// The styles of a report: all plain without colour.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    error: Style,
    warning: Style,
    gutter: Style,
    message: Style,
}

impl Palette {
    pub fn new(color: bool) -> Palette {
        if !color {
            return Palette {
                error: Style::new(),
                warning: Style::new(),
                gutter: Style::new(),
                message: Style::new(),
            };
        }
        Palette {
            error: Style::new()
                .bold()
                .fg_color(Some(AnsiColor::BrightRed.into())),
            warning: Style::new()
                .bold()
                .fg_color(Some(AnsiColor::BrightYellow.into())),
            gutter: Style::new()
                .bold()
                .fg_color(Some(AnsiColor::BrightBlue.into())),
            message: Style::new().bold(),
        }
    }
}

/// `text` in `style` (the style's codes are empty when it is plain).
fn paint(style: Style, text: &str) -> String {
    if style == Style::new() {
        text.to_string()
    } else {
        format!("{style}{text}{style:#}")
    }
}

/// The most characters of a source line shown; a longer line is shown around the caret.
const LINE_CHARS: usize = 100;
/// How many characters before the caret a shortened line keeps.
const BEFORE_CARET: usize = 40;

/// Writes each problem of a game as a block in the compiler form, each block followed by a
/// blank line.
pub fn write_game(
    out: &mut dyn Write,
    path: &str,
    raw: &RawGame,
    r: &Replay,
    palette: Palette,
) -> Result<()> {
    if r.problems.is_empty() {
        return Ok(());
    }
    let white = raw.tag(tags::WHITE);
    let black = raw.tag(tags::BLACK);
    let players = format!(
        "{} - {}",
        printable(white.as_deref().unwrap_or("?")),
        printable(black.as_deref().unwrap_or("?"))
    );
    let path = printable(path);
    for p in &r.problems {
        let (severity, style) = if p.error {
            ("error", palette.error)
        } else {
            ("warning", palette.warning)
        };
        let mut context = format!("game {}, {players}", raw.number);
        if let Some(ply) = p.ply {
            context.push_str(&format!(", ply {ply}"));
        }
        writeln!(
            out,
            "{path}:{}:{}: {}{} ({context})",
            p.line,
            p.column,
            paint(style, &format!("{severity}[{}]", p.kind.as_str())),
            paint(palette.message, &format!(": {}", headline(p))),
        )?;
        let number = p.line.to_string();
        let pad = " ".repeat(number.len());
        let bar = paint(palette.gutter, "|");
        if let Some((line, first_column)) = source_line(raw, p.line) {
            let caret_at = p.column.saturating_sub(first_column) as usize;
            let width = p.text.trim_end_matches('…').chars().count().max(1);
            let (shown, offset, len) = excerpt(&line, caret_at, width);
            writeln!(out, "{pad} {bar}")?;
            writeln!(out, "{} {bar} {shown}", paint(palette.gutter, &number))?;
            writeln!(
                out,
                "{pad} {bar} {}{}",
                " ".repeat(offset),
                paint(style, &"^".repeat(len))
            )?;
        }
        let eq = paint(palette.gutter, "=");
        if let Some(pos) = &p.position {
            writeln!(out, "{pad} {eq} position: {}", pos.to_fen())?;
        }
        if !p.legal.is_empty() {
            writeln!(
                out,
                "{pad} {eq} legal moves close to it: {}",
                p.legal_san().join(" ")
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// What a problem says on its first line: the offending text and what is wrong with it.
fn headline(p: &Problem) -> String {
    let text = printable(&p.text);
    let message = printable(&p.message);
    if p.kind == ProblemKind::IllegalMove && !text.is_empty() {
        return if message == "no legal move fits" {
            format!("{text} is not legal here")
        } else {
            format!("{text} is not legal here: {message}")
        };
    }
    // "written e2e4, canonical SAN is e4" and the like name the text themselves.
    if text.is_empty() || message.starts_with("written") || message.contains(text.as_ref()) {
        message.into_owned()
    } else {
        format!("`{text}`: {message}")
    }
}

/// Whether a byte starts a character as columns count them: any byte that does not continue
/// a UTF-8 sequence.
fn starts_char(b: u8) -> bool {
    b & 0xc0 != 0x80
}

/// The text of line `line` of the file, as far as the game's source holds it, and the column
/// of its first character (1 unless the source starts within the line).
fn source_line(raw: &RawGame, line: u32) -> Option<(String, u32)> {
    let src = &raw.source;
    let start = usize::try_from(raw.start.offset.checked_sub(raw.source_offset)?).ok()?;
    if start > src.len() || line < raw.start.line {
        return None;
    }
    // The start of the game's first line, within the source.
    let mut from = src[..start]
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1);
    let before = src[from..start].iter().filter(|&&b| starts_char(b)).count();
    let mut first_column = raw.start.column.saturating_sub(before as u32).max(1);
    for _ in raw.start.line..line {
        let end = from + src[from..].iter().position(|&b| b == b'\n' || b == b'\r')?;
        from = end + 1;
        if src[end] == b'\r' && src.get(from) == Some(&b'\n') {
            from += 1;
        }
        first_column = 1;
    }
    let end = src[from..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map_or(src.len(), |i| from + i);
    Some((
        String::from_utf8_lossy(&src[from..end]).into_owned(),
        first_column,
    ))
}

/// The part of a source line to show, made printable, with the caret's offset and length in
/// it: the whole line if it is short, else the part around the caret between `…`.
fn excerpt(line: &str, caret_at: usize, width: usize) -> (String, usize, usize) {
    let chars: Vec<char> = line.chars().collect();
    let caret_at = caret_at.min(chars.len());
    let width = width.min(chars.len().saturating_sub(caret_at)).max(1);
    let (from, to) = if chars.len() <= LINE_CHARS {
        (0, chars.len())
    } else {
        let from = caret_at.saturating_sub(BEFORE_CARET);
        (
            from,
            (from + LINE_CHARS).max(caret_at + width).min(chars.len()),
        )
    };
    let mut shown = String::new();
    let mut offset = 0;
    let mut len = 0;
    if from > 0 {
        shown.push('…');
    }
    for (i, &c) in chars.iter().enumerate().take(to).skip(from) {
        if i == caret_at {
            offset = shown.chars().count();
        }
        let before = shown.chars().count();
        // A tab is one column to the reader: shown as one space, the caret stays in place.
        if c == '\t' {
            shown.push(' ');
        } else {
            shown.push_str(&printable(c.encode_utf8(&mut [0; 4])));
        }
        if i >= caret_at && i < caret_at + width {
            len += shown.chars().count() - before;
        }
    }
    if caret_at >= to {
        offset = shown.chars().count();
    }
    if to < chars.len() {
        shown.push('…');
    }
    (shown, offset, len.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_shown_around_the_caret() {
        let line = format!("{}Nxe5{}", "a ".repeat(100), " b".repeat(100));
        let (shown, offset, len) = excerpt(&line, 200, 4);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        let under: String = shown.chars().skip(offset).take(len).collect();
        assert_eq!(under, "Nxe5");
    }

    #[test]
    fn the_caret_stays_under_the_move_after_escaped_text() {
        let (shown, offset, len) = excerpt("{\u{1b}[2J} Nxe5", 7, 4);
        assert_eq!(shown, "{\\u{1b}[2J} Nxe5");
        let under: String = shown.chars().skip(offset).take(len).collect();
        assert_eq!(under, "Nxe5");
    }
}
