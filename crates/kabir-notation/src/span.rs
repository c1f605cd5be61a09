//! Where a piece of text came from in its file.
use std::fmt;

/// A run of bytes in a source file: byte offset and length, and the line and column of its
/// first byte.
///
/// Lines count from 1; `\n`, `\r\n` and a lone `\r` each end a line. Columns count
/// characters (UTF-8 code points; for invalid UTF-8, each byte that does not continue a
/// sequence) from 1. A byte-order mark at the start of the file is not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Byte offset of the first byte, from the start of the file.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// Line of the first byte, from 1.
    pub line: u32,
    /// Column of the first byte, from 1.
    pub column: u32,
}

impl Span {
    /// Byte offset just past the end.
    pub const fn end(&self) -> u64 {
        self.offset.saturating_add(self.len)
    }
}

impl fmt::Display for Span {
    /// `line:column`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}
