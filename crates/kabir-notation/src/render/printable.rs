//! Text from a file made safe to show on a terminal.
//!
//! A tag, a comment or a file name may hold control characters (ESC, NUL, BEL, a bare
//! carriage return...) that a terminal would act on: an escape sequence can recolour, move the
//! cursor or retitle the window. Everything shown to people goes through [`printable`]; JSON
//! and CSV output keep the exact text.

use std::borrow::Cow;

/// Whether a character must not reach a terminal as it is: the C0 and C1 controls and DEL,
/// and the bidirectional overrides and isolates, which reorder what follows them on screen.
fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with each control character written as a Rust escape (`\u{1b}` for ESC); the text
/// itself, borrowed, when it has none.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`printable`] for a message of several lines: line ends are kept, every other control
/// character is escaped.
pub fn printable_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && unsafe_char(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.split('\n')
            .map(|line| printable(line).into_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_plain_text_borrowed() {
        assert!(matches!(printable("Anand ½"), Cow::Borrowed("Anand ½")));
        assert_eq!(printable("a\u{1b}[31mb"), "a\\u{1b}[31mb");
        assert_eq!(
            printable("\0\u{7}\t\r\n\u{7f}"),
            "\\u{0}\\u{7}\\u{9}\\u{d}\\u{a}\\u{7f}"
        );
        assert_eq!(printable("\u{9b}x\u{202e}y"), "\\u{9b}x\\u{202e}y");
        assert_eq!(printable_lines("one\u{1b}\ntwo"), "one\\u{1b}\ntwo");
    }
}
