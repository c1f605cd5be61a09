//! EPD lines: a position string's first fields followed by operations
//! (`opcode operand...;`), as opening suites and test suites are written.
//!
//! A line is read in two steps. [`Epd::parse`] splits it, without a variant: the position
//! fields (`board side castling ep`, then the two clocks if both are numbers, then a waiting
//! order if the line has one) and the operations after them, kept as written. Then
//! [`Epd::position`] reads the position fields with [`Position::from_fen`] and sets the clocks
//! from the `hmvc` and `fmvn` operations when the line has them.
//!
//! Operations never make a line fail: an unknown opcode is kept like any other, an operand
//! runs to the next blank or `;`, a quoted operand (`"..."`, with `\"` and `\\` inside) may
//! hold blanks and `;`, a missing final `;` is supplied, and a quote left open runs to the
//! end of the line. Only a line with fewer than four position fields is refused here.
//!
//! ```
//! use kabir_rules::epd::Epd;
//!
//! let epd = Epd::parse(r#"8/8/8/4k3/8/8/8/4K3 w - - id "lone kings; drawn"; D1 5;"#).unwrap();
//! assert_eq!(epd.fields(), "8/8/8/4k3/8/8/8/4K3 w - -");
//! assert_eq!(epd.operand("id"), Some("lone kings; drawn"));
//! assert_eq!(epd.operand("D1"), Some("5"));
//!
//! let shatranj = kabir_rules::variants::builtin("shatranj").unwrap();
//! let pos = epd.position(&shatranj).unwrap();
//! assert_eq!(pos.to_fen(), "8/8/8/4k3/8/8/8/4K3 w - - 0 1");
//! ```

use std::fmt;
use std::sync::Arc;

use crate::fen::grammar::{number0, value_of, whole};
use crate::fen::{FenError, FenErrorKind};
use crate::position::Position;
use crate::variant::Variant;

/// Why an EPD line was refused: its position fields, never its operations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EpdError {
    /// The line has fewer than four fields before its operations.
    #[error(
        "an EPD line starts with four position fields (board, side to move, castling, en \
         passant); this one has {found}, ending at character {column}"
    )]
    MissingFields {
        /// The fields found.
        found: usize,
        /// The 1-based character position where the line (or its fields) ended.
        column: usize,
    },
    /// The position fields do not read as a position of the variant; the error's column
    /// counts from the start of the line.
    #[error(transparent)]
    Position(#[from] FenError),
}

/// One operation of an EPD line: an opcode and its operands, quotes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The opcode as written (`id`, `bm`, `c0`, `D1`...).
    pub opcode: String,
    /// The operands, in order; a quoted operand without its quotes and escapes.
    pub operands: Vec<String>,
}

impl Operation {
    /// An operation of one operand.
    pub fn new(opcode: impl Into<String>, operand: impl Into<String>) -> Operation {
        Operation {
            opcode: opcode.into(),
            operands: vec![operand.into()],
        }
    }
}

/// Writes the operation as EPD, `;` included: an operand is quoted when it is empty or holds a
/// blank, `;` or `"`, so that [`Epd::parse`] reads back the same operands.
impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.opcode)?;
        for op in &self.operands {
            f.write_str(" ")?;
            if op.is_empty() || op.contains(|c: char| c.is_whitespace() || c == ';' || c == '"') {
                f.write_str("\"")?;
                for c in op.chars() {
                    if c == '"' || c == '\\' {
                        f.write_str("\\")?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_str("\"")?;
            } else {
                f.write_str(op)?;
            }
        }
        f.write_str(";")
    }
}

/// An EPD line split into its position fields and its operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Epd {
    /// The line up to the end of its last position field.
    fields: String,
    /// Its operations, in order.
    pub operations: Vec<Operation>,
}

/// Whether `b` is blank space between fields (as [`Position::from_fen`] reads it, ASCII or
/// not).
fn blank(c: char) -> bool {
    c.is_whitespace()
}

/// The next field of `text` from byte `at`: its start and end, `None` at the end.
fn next_field(text: &str, at: usize) -> Option<(usize, usize)> {
    let rest = text.get(at..)?;
    let start = at + rest.find(|c: char| !blank(c))?;
    let len = text[start..].find(blank).unwrap_or(text.len() - start);
    Some((start, start + len))
}

/// Whether a field is a waiting order: squares (`a7`, `k10`) joined by commas, as
/// [`Position::to_fen`] writes it. An opcode never has a comma, and no opcode in use is a
/// single lowercase square name followed by an operand or `;`.
fn waiting_order(field: &str) -> bool {
    !field.is_empty()
        && field.split(',').all(|sq| {
            let letters = sq.bytes().take_while(u8::is_ascii_lowercase).count();
            let digits = &sq[letters..];
            (1..=2).contains(&letters)
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && !digits.starts_with('0')
        })
}

impl Epd {
    /// Splits an EPD line (a line of a suite, without its line ending) into its position
    /// fields and its operations. A position string of six fields (the clocks after the
    /// first four), or seven with a waiting order, reads as well, operations or not.
    ///
    /// # Errors
    ///
    /// [`EpdError::MissingFields`] if the line has fewer than four fields before its
    /// operations.
    pub fn parse(line: &str) -> Result<Epd, EpdError> {
        let col = |byte: usize| line[..byte.min(line.len())].chars().count() + 1;
        let mut end = 0;
        for found in 0..4 {
            match next_field(line, end) {
                Some((_, e)) => end = e,
                None => {
                    return Err(EpdError::MissingFields {
                        found,
                        column: col(line.trim_end().len()),
                    });
                }
            }
        }
        let number = |f: &str| whole(number0, f.as_bytes()).is_some();
        if let Some((a, b)) = next_field(line, end)
            && number(&line[a..b])
            && let Some((c, d)) = next_field(line, b)
            && number(&line[c..d])
        {
            end = d;
            if let Some((e, f)) = next_field(line, end)
                && waiting_order(&line[e..f])
            {
                end = f;
            }
        }
        Ok(Epd {
            fields: line[..end].trim_start().to_string(),
            operations: operations(&line[end..]),
        })
    }

    /// The position fields as written (blanks at the start left out).
    pub fn fields(&self) -> &str {
        &self.fields
    }

    /// The first operation with this opcode (compared exactly).
    pub fn operation(&self, opcode: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.opcode == opcode)
    }

    /// The first operand of the first operation with this opcode.
    pub fn operand(&self, opcode: &str) -> Option<&str> {
        self.operation(opcode)
            .and_then(|o| o.operands.first())
            .map(String::as_str)
    }

    /// The position of the line in `variant`: its fields read by [`Position::from_fen`], the
    /// halfmove clock then set by `hmvc` and the move number by `fmvn` when the line has
    /// them (an operand that is not a number is left alone, as unknown operations are).
    ///
    /// # Errors
    ///
    /// The [`FenError`] of the position fields; its column counts from the start of the line
    /// as given to [`Epd::parse`] when the line did not start with blanks.
    pub fn position(&self, variant: &Arc<Variant>) -> Result<Position, FenError> {
        let mut pos = Position::from_fen(variant, &self.fields)?;
        let clock = |op: &str| self.operand(op).and_then(|s| value_of(s.as_bytes()));
        if let Some(h) = clock("hmvc") {
            pos.halfmove = h;
        }
        if let Some(f) = clock("fmvn") {
            pos.fullmove = f.max(1);
        }
        Ok(pos)
    }
}

/// Reads a position string that may be an EPD line: as a position string first and, if that
/// fails, as an EPD line whose operations are then ignored (`hmvc` and `fmvn` set the
/// clocks). The error is the position string's when the text is not an EPD line with
/// operations either (the first opcode starting with a letter, as EPD's do), so that a mistake
/// in a plain position string is reported as such.
///
/// # Errors
///
/// The [`FenError`] of the text read as a position string, or of its position fields.
pub fn read_position(variant: &Arc<Variant>, text: &str) -> Result<Position, FenError> {
    match Position::from_fen(variant, text) {
        Ok(pos) => Ok(pos),
        Err(e) => match Epd::parse(text) {
            Ok(epd)
                if epd
                    .operations
                    .first()
                    .is_some_and(|o| o.opcode.starts_with(|c: char| c.is_ascii_alphabetic())) =>
            {
                epd.position(variant)
            }
            _ => Err(e),
        },
    }
}

/// The operations of the text after the position fields.
fn operations(text: &str) -> Vec<Operation> {
    let mut out = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut chars = text.char_indices().peekable();
    let finish = |current: &mut Vec<String>, out: &mut Vec<Operation>| {
        if current.is_empty() {
            return;
        }
        let mut words = std::mem::take(current).into_iter();
        if let Some(opcode) = words.next() {
            out.push(Operation {
                opcode,
                operands: words.collect(),
            });
        }
    };
    while let Some(&(i, c)) = chars.peek() {
        if blank(c) {
            chars.next();
        } else if c == ';' {
            chars.next();
            finish(&mut current, &mut out);
        } else if c == '"' && !current.is_empty() {
            chars.next();
            let mut s = String::new();
            while let Some((_, c)) = chars.next() {
                match c {
                    '"' => break,
                    '\\' if matches!(chars.peek(), Some((_, '"' | '\\'))) => {
                        if let Some((_, n)) = chars.next() {
                            s.push(n);
                        }
                    }
                    _ => s.push(c),
                }
            }
            current.push(s);
        } else {
            // A quote inside a word (`a"b`), or opening an opcode, is a character of it.
            let len = text[i..]
                .find(|c: char| blank(c) || c == ';')
                .unwrap_or(text.len() - i);
            current.push(text[i..i + len].to_string());
            while chars.peek().is_some_and(|&(j, _)| j < i + len) {
                chars.next();
            }
        }
    }
    finish(&mut current, &mut out);
    out
}

impl fmt::Display for Epd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fields)?;
        for op in &self.operations {
            write!(f, " {op}")?;
        }
        Ok(())
    }
}

impl From<EpdError> for FenError {
    fn from(e: EpdError) -> FenError {
        match e {
            EpdError::Position(e) => e,
            EpdError::MissingFields { column, .. } => FenError {
                kind: FenErrorKind::FieldCount,
                column,
                message: e.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(epd: &Epd) -> Vec<(&str, Vec<&str>)> {
        epd.operations
            .iter()
            .map(|o| {
                (
                    o.opcode.as_str(),
                    o.operands.iter().map(String::as_str).collect(),
                )
            })
            .collect()
    }

    const KINGS: &str = "8/8/8/4k3/8/8/8/4K3";

    #[test]
    fn operations_with_quotes_and_semicolons() {
        let line = format!(
            r#"{KINGS} w - - bm Kd2 Ke2; id "a; b \"c\""; c0 "games 12, score 55%";noop;D1 5"#
        );
        let epd = Epd::parse(&line).unwrap();
        assert_eq!(epd.fields(), format!("{KINGS} w - -"));
        assert_eq!(
            ops(&epd),
            vec![
                ("bm", vec!["Kd2", "Ke2"]),
                ("id", vec![r#"a; b "c""#]),
                ("c0", vec!["games 12, score 55%"]),
                ("noop", vec![]),
                ("D1", vec!["5"]),
            ]
        );
        // Written back, it reads the same.
        let again = Epd::parse(&epd.to_string()).unwrap();
        assert_eq!(again, epd);
    }

    #[test]
    fn no_operations_and_four_or_six_fields() {
        let four = Epd::parse(&format!("  {KINGS} b - -  ")).unwrap();
        assert_eq!(four.fields(), format!("{KINGS} b - -"));
        assert!(four.operations.is_empty());
        let six = Epd::parse(&format!("{KINGS} b - - 7 30 id x;")).unwrap();
        assert_eq!(six.fields(), format!("{KINGS} b - - 7 30"));
        assert_eq!(ops(&six), vec![("id", vec!["x"])]);
        let v = crate::variants::builtin("shatranj").unwrap();
        assert_eq!(
            six.position(&v).unwrap().to_fen(),
            format!("{KINGS} b - - 7 30")
        );
        // A number alone after the fields is an opcode's business, not a clock.
        let one = Epd::parse(&format!("{KINGS} w - - 7")).unwrap();
        assert_eq!(ops(&one), vec![("7", vec![])]);
    }

    #[test]
    fn clocks_from_operations() {
        let v = crate::variants::builtin("shatranj").unwrap();
        let epd = Epd::parse(&format!("{KINGS} w - - hmvc 12; fmvn 40; c0 \"x\";")).unwrap();
        assert_eq!(
            epd.position(&v).unwrap().to_fen(),
            format!("{KINGS} w - - 12 40")
        );
        let odd = Epd::parse(&format!("{KINGS} w - - hmvc many; fmvn 0;")).unwrap();
        assert_eq!(
            odd.position(&v).unwrap().to_fen(),
            format!("{KINGS} w - - 0 1")
        );
    }

    #[test]
    fn lenient_operations() {
        let epd = Epd::parse(&format!(r#"{KINGS} w - - ;; id "open; to the end"#)).unwrap();
        assert_eq!(ops(&epd), vec![("id", vec!["open; to the end"])]);
        let epd = Epd::parse(&format!(r#"{KINGS} w - - "lone" x; é ü;"#)).unwrap();
        assert_eq!(ops(&epd), vec![("\"lone\"", vec!["x"]), ("é", vec!["ü"])]);
    }

    #[test]
    fn garbage_names_the_column() {
        assert_eq!(
            Epd::parse("hello world"),
            Err(EpdError::MissingFields {
                found: 2,
                column: 12
            })
        );
        assert_eq!(
            Epd::parse("   "),
            Err(EpdError::MissingFields {
                found: 0,
                column: 1
            })
        );
        let e = Epd::parse("hello world").unwrap_err().to_string();
        assert!(e.contains("has 2, ending at character 12"), "{e}");
        // Four fields that are no position: the position string's error, at its column.
        let v = crate::variants::builtin("shatranj").unwrap();
        let epd = Epd::parse(&format!("{KINGS} x - - id y;")).unwrap();
        let e = epd.position(&v).unwrap_err();
        assert_eq!((e.kind, e.column), (FenErrorKind::Side, 21));
    }

    #[test]
    fn waiting_orders_are_position_fields() {
        assert!(waiting_order("a10,k1"));
        assert!(!waiting_order("c0") && !waiting_order("D1") && !waiting_order("bm"));
        let epd = Epd::parse(&format!("{KINGS} w - - 0 1 a8,b1 id x;")).unwrap();
        assert_eq!(epd.fields(), format!("{KINGS} w - - 0 1 a8,b1"));
    }

    #[test]
    fn read_position_takes_both() {
        let v = crate::variants::builtin("shatranj").unwrap();
        let plain = format!("{KINGS} w - - 3 9");
        assert_eq!(read_position(&v, &plain).unwrap().to_fen(), plain);
        let with_ops = format!("{KINGS} w - - id \"x\"; hmvc 3; fmvn 9;");
        assert_eq!(read_position(&v, &with_ops).unwrap().to_fen(), plain);
        // A plain mistake is reported as the position string's.
        let e = read_position(&v, &format!("{KINGS} w - - 3 x")).unwrap_err();
        assert_eq!(e.kind, FenErrorKind::Counter);
    }
}
