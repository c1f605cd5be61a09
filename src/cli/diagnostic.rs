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
//! A long source line is shown around the caret, and only that part of it is looked at, so a
//! problem costs the same on a line of megabytes; past ten problems of one kind in a game, the
//! rest are counted in one note (`--format json` lists every one). Text from the file goes
//! through [`printable`], so no control character reaches the terminal.

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
/// The bytes of a source line looked at on either side of a problem: enough for the
/// characters shown (at most four bytes each), so that a problem on a line of megabytes costs
/// no more than one on a short line.
const WINDOW_BEFORE: usize = 4 * BEFORE_CARET;
const WINDOW_AFTER: usize = 4 * LINE_CHARS;
/// How many problems of one kind in one game are shown; the rest are counted in one note.
pub const SHOWN_PER_KIND: usize = 10;

/// Writes each problem of a game as a block in the compiler form, each block followed by a
/// blank line. Past [`SHOWN_PER_KIND`] problems of a kind, the rest are counted in a note at
/// the end (`--format json` lists every one).
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
    // Per kind: how many were seen, and the first one not shown.
    let mut seen: Vec<(ProblemKind, usize, Option<&Problem>)> = Vec::new();
    for p in &r.problems {
        let i = match seen.iter().position(|(k, ..)| *k == p.kind) {
            Some(i) => i,
            None => {
                seen.push((p.kind, 0, None));
                seen.len() - 1
            }
        };
        if let Some(count) = seen.get_mut(i) {
            count.1 += 1;
            if count.1 > SHOWN_PER_KIND {
                count.2 = count.2.or(Some(p));
                continue;
            }
        }
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
        if let Some(window) = source_window(raw, p.offset) {
            let width = p.text.trim_end_matches('…').chars().count().max(1);
            let (shown, offset, len) = excerpt(&window, width);
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
            writeln!(out, "{pad} {eq} position: {}", pos)?;
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
    for (kind, count, first) in seen {
        let Some(first) = first else { continue };
        let rest = count - SHOWN_PER_KIND;
        let severity = if first.error { "error" } else { "warning" };
        writeln!(
            out,
            "{path}:{}:{}: {}: {rest} more {severity}[{}] in game {}, from this one on, not \
             shown (--format json lists every one)\n",
            first.line,
            first.column,
            paint(palette.message, "note"),
            kind.as_str(),
            raw.number,
        )?;
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

/// Part of a source line around a place in it: the text, where the place is in it (in
/// characters), and whether the line goes on before and after the part.
#[derive(Debug, PartialEq, Eq)]
struct Window {
    text: String,
    caret_at: usize,
    cut_before: bool,
    cut_after: bool,
}

/// The line of the game's source that holds file offset `offset`, or as much of it around
/// `offset` as can be shown: never more than a few hundred bytes are looked at, however long
/// the line. `None` where the source does not hold the place (a game too large to read
/// keeps no text, and a problem at the very end of a game may lie past its last line).
fn source_window(raw: &RawGame, offset: u64) -> Option<Window> {
    let src = &raw.source;
    let at = usize::try_from(offset.checked_sub(raw.source_offset)?).ok()?;
    if at > src.len() || src.is_empty() {
        return None;
    }
    if at == src.len() && matches!(src.last(), Some(b'\n' | b'\r')) {
        return None;
    }
    let is_end = |b: &u8| *b == b'\n' || *b == b'\r';
    let low = at.saturating_sub(WINDOW_BEFORE);
    let (mut from, cut_before) = match src[low..at].iter().rposition(is_end) {
        Some(i) => (low + i + 1, false),
        None => (low, low > 0),
    };
    // A window that starts inside a character starts at the next one.
    while cut_before && from < at && src.get(from).is_some_and(|&b| b & 0xc0 == 0x80) {
        from += 1;
    }
    let high = at.saturating_add(WINDOW_AFTER).min(src.len());
    let (mut to, cut_after) = match src[at..high].iter().position(is_end) {
        Some(i) => (at + i, false),
        None => (high, high < src.len()),
    };
    while cut_after && to > at && src.get(to).is_some_and(|&b| b & 0xc0 == 0x80) {
        to -= 1;
    }
    let before = String::from_utf8_lossy(&src[from..at]);
    let caret_at = before.chars().count();
    let mut text = before.into_owned();
    text.push_str(&String::from_utf8_lossy(&src[at..to]));
    Some(Window {
        text,
        caret_at,
        cut_before,
        cut_after,
    })
}

/// The part of a window to show, made printable, with the caret's offset and length in it:
/// the whole window if it is short, else the part around the caret, between `…` where the
/// line goes on.
fn excerpt(window: &Window, width: usize) -> (String, usize, usize) {
    let chars: Vec<char> = window.text.chars().collect();
    let caret_at = window.caret_at.min(chars.len());
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
    if from > 0 || window.cut_before {
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
    if to < chars.len() || window.cut_after {
        shown.push('…');
    }
    (shown, offset, len.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(text: &str, caret_at: usize) -> Window {
        Window {
            text: text.to_string(),
            caret_at,
            cut_before: false,
            cut_after: false,
        }
    }

    #[test]
    fn a_long_line_is_shown_around_the_caret() {
        let line = format!("{}Nxe5{}", "a ".repeat(100), " b".repeat(100));
        let (shown, offset, len) = excerpt(&window(&line, 200), 4);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        let under: String = shown.chars().skip(offset).take(len).collect();
        assert_eq!(under, "Nxe5");
    }

    #[test]
    fn the_caret_stays_under_the_move_after_escaped_text() {
        let (shown, offset, len) = excerpt(&window("{\u{1b}[2J} Nxe5", 7), 4);
        assert_eq!(shown, "{\\u{1b}[2J} Nxe5");
        let under: String = shown.chars().skip(offset).take(len).collect();
        assert_eq!(under, "Nxe5");
    }

    fn game(source: &str, offset: u64) -> RawGame {
        RawGame {
            source_offset: offset,
            source: source.as_bytes().to_vec(),
            ..RawGame::default()
        }
    }

    #[test]
    fn the_window_is_the_line_of_the_place() {
        let raw = game("[A \"1\"]\r\n1. e3 Nz *\n", 100);
        let w = source_window(&raw, 100 + 15).unwrap();
        assert_eq!((w.text.as_str(), w.caret_at), ("1. e3 Nz *", 6));
        assert!(!w.cut_before && !w.cut_after);
        // Past the last line end: nothing to show.
        assert_eq!(source_window(&raw, 100 + raw.source.len() as u64), None);
        assert_eq!(source_window(&raw, 99), None);
        assert_eq!(source_window(&game("", 5), 5), None);
    }

    #[test]
    fn a_line_of_megabytes_is_looked_at_only_around_the_place() {
        let line = format!("{}Nz{}", "é ".repeat(1 << 20), " x".repeat(1 << 20));
        let raw = game(&line, 0);
        let at = "é ".repeat(1 << 20).len() as u64;
        let w = source_window(&raw, at).unwrap();
        assert!(
            w.text.len() <= WINDOW_BEFORE + WINDOW_AFTER,
            "{}",
            w.text.len()
        );
        assert!(w.cut_before && w.cut_after);
        assert!(w.text[..].chars().nth(w.caret_at) == Some('N'));
        let (shown, offset, len) = excerpt(&w, 2);
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        let under: String = shown.chars().skip(offset).take(len).collect();
        assert_eq!(under, "Nz");
    }
}
