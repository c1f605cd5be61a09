//! What a game file's bytes are, told by its first bytes rather than its name: gzip, zstd or
//! plain; UTF-8, UTF-16 or UTF-32. A pipe has no name, and files are renamed, downloaded
//! under the wrong one or decompressed on the way by a browser, so the name proves nothing.
//! Other compressions and archives are named in an error: read as text they would give a
//! syntax error for every byte.

use std::io::{self, BufRead, Read};
use std::sync::{Arc, Mutex};

/// The text of a game file's bytes as UTF-8, whatever its compression (gzip, zstd) and
/// encoding (UTF-8, UTF-16, UTF-32), both told by its first bytes. A compression kabir does
/// not read is an error of kind `InvalidData` that says what the bytes are and how to make a
/// game file of them; `trailing` hears of bytes after gzip data that are not gzip.
pub fn text(raw: Box<dyn Read + Send>, trailing: &Trailing) -> io::Result<Box<dyn Read + Send>> {
    let raw = Peeked::new(raw, HEAD)?;
    let decompressed: Box<dyn Read + Send> = match compression(raw.head()) {
        Compression::Gzip => Box::new(GzipMembers::new(
            io::BufReader::with_capacity(64 * 1024, raw),
            trailing.clone(),
        )),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(raw)?),
        Compression::Foreign { what, how } => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("it is {what}; kabir reads game files as text, gzip or zstd: {how}"),
            ));
        }
        Compression::None => Box::new(raw),
    };
    let text = Peeked::new(decompressed, HEAD)?;
    let encoding = encoding(text.head());
    Ok(as_utf8(text, encoding))
}

/// The first bytes of a stream, read ahead to tell its format and then read again in order.
pub struct Peeked<R> {
    head: Vec<u8>,
    at: usize,
    inner: R,
}

impl<R: Read> Peeked<R> {
    /// Reads up to `n` bytes ahead: fewer only where the stream ends (a pipe may give them a
    /// few at a time).
    pub fn new(mut inner: R, n: usize) -> io::Result<Peeked<R>> {
        let mut head = Vec::with_capacity(n);
        (&mut inner).take(n as u64).read_to_end(&mut head)?;
        Ok(Peeked { head, at: 0, inner })
    }

    /// The bytes read ahead.
    pub fn head(&self) -> &[u8] {
        &self.head
    }
}

impl<R: Read> Read for Peeked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(rest) = self.head.get(self.at..).filter(|r| !r.is_empty()) {
            let n = rest.len().min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.at += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

/// How many bytes [`compression`] and [`encoding`] look at.
pub const HEAD: usize = 10;

/// How a file is compressed, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (one member or several).
    Gzip,
    /// zstd (frames, skippable frames passed over).
    Zstd,
    /// A format kabir does not read: what it is, and what turns it into a game file.
    Foreign {
        /// The format, in words.
        what: &'static str,
        /// The command that makes a game file of it.
        how: &'static str,
    },
}

/// The compression `head`, a file's first bytes, starts.
pub fn compression(head: &[u8]) -> Compression {
    // Magic numbers from each format's specification. bzip2's "BZh" and a block size is
    // text a game file could in principle start with, so its first block's (or the empty
    // stream's end) mark must follow.
    const FOREIGN: &[(&[u8], &str, &str)] = &[
        (
            b"\xfd7zXZ\x00",
            "xz-compressed",
            "decompress it first (xz -d)",
        ),
        (
            b"\x04\x22\x4d\x18",
            "lz4-compressed",
            "decompress it first (lz4 -d)",
        ),
        (
            b"\x1f\x9d",
            "compressed with compress (.Z)",
            "decompress it first (gzip -d or uncompress)",
        ),
        (
            b"PK\x03\x04",
            "a zip archive",
            "extract its game files first (unzip)",
        ),
        (
            b"7z\xbc\xaf\x27\x1c",
            "a 7z archive",
            "extract its game files first (7z x)",
        ),
    ];
    if head.starts_with(&[0x1f, 0x8b]) {
        return Compression::Gzip;
    }
    // A zstd frame, or a skippable frame (which the decoder passes over).
    if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
        || (head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == [0x2a, 0x4d, 0x18])
    {
        return Compression::Zstd;
    }
    if head.len() >= 10
        && head.starts_with(b"BZh")
        && (b'1'..=b'9').contains(&head[3])
        && (head[4..10] == *b"1AY&SY" || head[4..10] == [0x17, 0x72, 0x45, 0x38, 0x50, 0x90])
    {
        return Compression::Foreign {
            what: "bzip2-compressed",
            how: "decompress it first (bzip2 -d)",
        };
    }
    for &(magic, what, how) in FOREIGN {
        if head.starts_with(magic) {
            return Compression::Foreign { what, how };
        }
    }
    Compression::None
}

/// Whether `head`, the first bytes of a file that is not compressed, can be the start of a
/// game file: text in one of the encodings read, without control characters but blank space.
pub fn looks_like_text(head: &[u8]) -> bool {
    if encoding(head) != Encoding::Utf8 {
        return true;
    }
    let valid = match std::str::from_utf8(head) {
        Ok(_) => true,
        // Cut in the middle of a character by the end of `head`.
        Err(e) => e.error_len().is_none(),
    };
    valid
        && head
            .iter()
            .all(|&b| b >= 0x20 && b != 0x7f || matches!(b, b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
}

/// The text encoding of a stream, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8, with or without a byte-order mark.
    Utf8,
    /// UTF-16.
    Utf16 {
        /// Most significant byte first.
        big_endian: bool,
    },
    /// UTF-32.
    Utf32 {
        /// Most significant byte first.
        big_endian: bool,
    },
}

/// The encoding `head`, a text's first bytes, is in: told by its byte-order mark, or without
/// one by where the NUL bytes of its first four fall. A game file starts with ASCII (`[`, a
/// digit, blank space or a comment), which UTF-16 writes with a NUL byte beside each
/// character and UTF-32 with three, and a UTF-8 game file holds no NUL at all: XML tells its
/// encodings apart the same way (XML 1.0, appendix F).
pub fn encoding(head: &[u8]) -> Encoding {
    let b = |i: usize| head.get(i).copied();
    let nul = |i: usize| b(i) == Some(0);
    let some = |i: usize| b(i).is_some_and(|x| x != 0);
    match head {
        [0x00, 0x00, 0xfe, 0xff, ..] => Encoding::Utf32 { big_endian: true },
        [0xff, 0xfe, 0x00, 0x00, ..] => Encoding::Utf32 { big_endian: false },
        [0xfe, 0xff, ..] => Encoding::Utf16 { big_endian: true },
        [0xff, 0xfe, ..] => Encoding::Utf16 { big_endian: false },
        _ if nul(0) && nul(1) && nul(2) && some(3) => Encoding::Utf32 { big_endian: true },
        _ if some(0) && nul(1) && nul(2) && nul(3) => Encoding::Utf32 { big_endian: false },
        _ if nul(0) && some(1) && nul(2) && some(3) => Encoding::Utf16 { big_endian: true },
        _ if some(0) && nul(1) && some(2) && nul(3) => Encoding::Utf16 { big_endian: false },
        _ => Encoding::Utf8,
    }
}

/// What stands in the UTF-8 text for a code unit that does not decode (a lone surrogate, a
/// value past U+10FFFF, a unit cut short by the end of the file): a byte that is never UTF-8,
/// so that the reader reports it where it is (one column, as one character).
const NOT_TEXT: u8 = 0xff;

/// `inner` read as UTF-8 text: itself when it is UTF-8, else decoded from `encoding`.
pub fn as_utf8<R: Read + Send + 'static>(inner: R, encoding: Encoding) -> Box<dyn Read + Send> {
    match encoding {
        Encoding::Utf8 => Box::new(inner),
        Encoding::Utf16 { big_endian } => Box::new(ToUtf8::new(inner, false, big_endian)),
        Encoding::Utf32 { big_endian } => Box::new(ToUtf8::new(inner, true, big_endian)),
    }
}

/// UTF-16 or UTF-32 text read as UTF-8: the same characters, so the same lines and columns.
struct ToUtf8<R> {
    inner: R,
    utf32: bool,
    big_endian: bool,
    /// Bytes read and not yet decoded: less than a unit, between reads.
    raw: Vec<u8>,
    /// A high surrogate waiting for the low one that follows it.
    high: Option<u16>,
    out: Vec<u8>,
    at: usize,
    ended: bool,
}

/// How many bytes of the encoded text are read at a time.
const CHUNK: usize = 64 * 1024;

impl<R: Read> ToUtf8<R> {
    fn new(inner: R, utf32: bool, big_endian: bool) -> ToUtf8<R> {
        ToUtf8 {
            inner,
            utf32,
            big_endian,
            raw: Vec::with_capacity(CHUNK + 4),
            high: None,
            out: Vec::with_capacity(CHUNK * 2),
            at: 0,
            ended: false,
        }
    }

    /// Reads a chunk and decodes its whole units into `out`; at the end of the input, what is
    /// left over.
    fn fill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.at = 0;
        let n = (&mut self.inner)
            .take(CHUNK as u64)
            .read_to_end(&mut self.raw)?;
        let width = if self.utf32 { 4 } else { 2 };
        let whole = self.raw.len() / width * width;
        for unit in self.raw[..whole].chunks_exact(width) {
            if self.utf32 {
                let bytes = [unit[0], unit[1], unit[2], unit[3]];
                let u = if self.big_endian {
                    u32::from_be_bytes(bytes)
                } else {
                    u32::from_le_bytes(bytes)
                };
                push_char(char::from_u32(u), &mut self.out);
            } else {
                let bytes = [unit[0], unit[1]];
                let u = if self.big_endian {
                    u16::from_be_bytes(bytes)
                } else {
                    u16::from_le_bytes(bytes)
                };
                utf16_unit(u, &mut self.high, &mut self.out);
            }
        }
        self.raw.drain(..whole);
        if n == 0 {
            self.ended = true;
            if self.high.take().is_some() {
                self.out.push(NOT_TEXT);
            }
            if !self.raw.is_empty() {
                self.raw.clear();
                self.out.push(NOT_TEXT);
            }
        }
        Ok(())
    }
}

/// Decodes one UTF-16 code unit, pairing surrogates.
fn utf16_unit(u: u16, high: &mut Option<u16>, out: &mut Vec<u8>) {
    match u {
        0xd800..=0xdbff => {
            if high.replace(u).is_some() {
                out.push(NOT_TEXT);
            }
        }
        0xdc00..=0xdfff => match high.take() {
            Some(h) => {
                let c = 0x10000 + ((u32::from(h) - 0xd800) << 10) + (u32::from(u) - 0xdc00);
                push_char(char::from_u32(c), out);
            }
            None => out.push(NOT_TEXT),
        },
        _ => {
            if high.take().is_some() {
                out.push(NOT_TEXT);
            }
            push_char(char::from_u32(u32::from(u)), out);
        }
    }
}

fn push_char(c: Option<char>, out: &mut Vec<u8>) {
    match c {
        Some(c) => {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        None => out.push(NOT_TEXT),
    }
}

impl<R: Read> Read for ToUtf8<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.out.len() {
            if self.ended || buf.is_empty() {
                return Ok(0);
            }
            self.fill()?;
        }
        let rest = &self.out[self.at..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// A reader that counts the bytes consumed from it: where a decoder that reads through it
/// has got to in the file.
struct Consumed<R> {
    inner: R,
    at: u64,
}

impl<R: BufRead> Read for Consumed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.at += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Consumed<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.at += n as u64;
        self.inner.consume(n);
    }
}

/// What a file held after its compressed data, known only once all of it was read: the
/// offset where the last whole gzip member ended, when bytes that are not gzip followed.
#[derive(Debug, Clone, Default)]
pub struct Trailing(Arc<Mutex<Option<u64>>>);

impl Trailing {
    fn found(&self, at: u64) {
        if let Ok(mut t) = self.0.lock() {
            *t = Some(at);
        }
    }

    /// Where the gzip data ended, if bytes that are not gzip followed it.
    pub fn garbage_at(&self) -> Option<u64> {
        self.0.lock().ok().and_then(|t| *t)
    }
}

/// The members of a gzip file, one after another, as gzip reads them: after a whole member,
/// zero bytes to the end of the file are padding (tape blocks, some download tools) and are
/// passed over; any other bytes end the data read, and are told to `trailing` rather than
/// returned as an error, so that the games before them, whole and checked by their members'
/// CRC, are read first (the caller reports them once the file is read). An error inside a
/// member that has given text is an error at once: what it gave is cut short.
pub struct GzipMembers<R: BufRead> {
    member: Option<flate2::bufread::GzDecoder<Consumed<R>>>,
    /// Where the current member starts in the file.
    start: u64,
    /// Whether the current member is the file's first.
    first: bool,
    /// Whether the current member has given any text.
    gave: bool,
    trailing: Trailing,
}

impl<R: BufRead> GzipMembers<R> {
    /// Reads the members of `inner` one after another; `trailing` hears of bytes after
    /// them that are not gzip.
    pub fn new(inner: R, trailing: Trailing) -> GzipMembers<R> {
        GzipMembers {
            member: Some(flate2::bufread::GzDecoder::new(Consumed { inner, at: 0 })),
            start: 0,
            first: true,
            gave: false,
            trailing,
        }
    }
}

/// What follows a whole gzip member.
enum After {
    /// The end of the file, perhaps after zero bytes.
    End,
    /// Another member.
    Member,
    /// Bytes that are neither.
    Garbage,
}

fn after_member<R: BufRead>(r: &mut R) -> io::Result<After> {
    let mut zeros = false;
    loop {
        let buf = r.fill_buf()?;
        let Some(&first) = buf.first() else {
            return Ok(After::End);
        };
        // As in gzip, a member may follow a member, but not the padding.
        if !zeros && first == 0x1f {
            return Ok(After::Member);
        }
        if buf.iter().any(|&b| b != 0) {
            return Ok(After::Garbage);
        }
        let n = buf.len();
        r.consume(n);
        zeros = true;
    }
}

impl<R: BufRead> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let Some(member) = self.member.as_mut() else {
                return Ok(0);
            };
            match member.read(buf) {
                Ok(0) => {
                    let Some(member) = self.member.take() else {
                        return Ok(0);
                    };
                    let mut inner = member.into_inner();
                    let end = inner.at;
                    match after_member(&mut inner)? {
                        After::End => return Ok(0),
                        After::Garbage => {
                            self.trailing.found(end);
                            return Ok(0);
                        }
                        After::Member => {
                            self.member = Some(flate2::bufread::GzDecoder::new(inner));
                            self.start = end;
                            self.first = false;
                            self.gave = false;
                        }
                    }
                }
                Ok(n) => {
                    self.gave = true;
                    return Ok(n);
                }
                // A member that gave nothing yet (its header is not gzip's, or its data
                // fails at once) is trailing bytes too: what came before it is whole.
                Err(e) if !self.first && !self.gave && e.kind() != io::ErrorKind::Interrupted => {
                    self.member = None;
                    self.trailing.found(self.start);
                    return Ok(0);
                }
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads everything through reads of at most `step` bytes, as a reader of blocks may.
    fn read_all(mut r: impl Read, step: usize) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = vec![0; step];
        loop {
            match r.read(&mut buf)? {
                0 => return Ok(out),
                n => out.extend_from_slice(&buf[..n]),
            }
        }
    }

    /// A reader that gives at most `step` bytes a read, as a pipe does.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(buf.len()).min(self.1);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn gzip(text: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| {
                if big_endian {
                    u.to_be_bytes()
                } else {
                    u.to_le_bytes()
                }
            })
            .collect()
    }

    #[test]
    fn the_head_is_read_again_through_short_reads() {
        let text = b"[Event \"x\"]\n1. e3 *\n";
        let p = Peeked::new(Trickle(text, 3), HEAD).unwrap();
        assert_eq!(p.head(), &text[..HEAD]);
        assert_eq!(read_all(p, 4).unwrap(), text);
        let p = Peeked::new(Trickle(b"[a", 1), HEAD).unwrap();
        assert_eq!(p.head(), b"[a");
    }

    #[test]
    fn formats_are_told_by_their_first_bytes() {
        assert_eq!(compression(&gzip(b"x")), Compression::Gzip);
        assert_eq!(compression(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Compression::Zstd);
        assert_eq!(compression(&[0x5a, 0x2a, 0x4d, 0x18]), Compression::Zstd);
        for head in [
            &b"\xfd7zXZ\x00\x00"[..],
            b"BZh91AY&SY",
            b"PK\x03\x04\x14\x00",
            b"7z\xbc\xaf\x27\x1c\x00",
            b"\x04\x22\x4d\x18",
            b"\x1f\x9d\x90",
        ] {
            assert!(
                matches!(compression(head), Compression::Foreign { .. }),
                "{head:?}"
            );
        }
        // Text that starts as a magic number does, but goes on as text.
        for head in [&b"BZh9 is no move"[..], b"PK", b"[Event", b"", b"\x1f"] {
            assert_eq!(compression(head), Compression::None, "{head:?}");
        }
        assert_eq!(encoding(b"[Ev"), Encoding::Utf8);
        assert_eq!(encoding(b"\xef\xbb\xbf["), Encoding::Utf8);
        assert_eq!(
            encoding(&utf16("\u{feff}[E", false)),
            Encoding::Utf16 { big_endian: false }
        );
        assert_eq!(
            encoding(&utf16("\u{feff}[E", true)),
            Encoding::Utf16 { big_endian: true }
        );
        assert_eq!(
            encoding(&utf16("[E", false)),
            Encoding::Utf16 { big_endian: false }
        );
        assert_eq!(
            encoding(&utf16("[E", true)),
            Encoding::Utf16 { big_endian: true }
        );
        assert_eq!(
            encoding(b"[\0\0\0E\0\0\0"),
            Encoding::Utf32 { big_endian: false }
        );
        assert_eq!(
            encoding(b"\0\0\0[\0\0\0E"),
            Encoding::Utf32 { big_endian: true }
        );
        assert_eq!(
            encoding(b"\xff\xfe\0\0[\0\0\0"),
            Encoding::Utf32 { big_endian: false }
        );
        assert_eq!(
            encoding(b"\0\0\xfe\xff\0\0\0["),
            Encoding::Utf32 { big_endian: true }
        );
        assert!(looks_like_text(b"[Event \"\xc3"));
        assert!(looks_like_text(&utf16("[E", false)));
        assert!(!looks_like_text(b"\x00\x12\x34\x56"));
        assert!(!looks_like_text(b"[E\xff"));
    }

    #[test]
    fn utf16_and_utf32_read_as_the_same_text_whatever_the_reads() {
        let text = "\u{feff}[Event \"Ḥalab 𝄞\"]\r\n1. e3 {é} *\n";
        for big_endian in [false, true] {
            for step in [1, 2, 3, 7, 4096] {
                let bytes = utf16(text, big_endian);
                let r = ToUtf8::new(Trickle(&bytes, step), false, big_endian);
                assert_eq!(read_all(r, step).unwrap(), text.as_bytes());
                let bytes: Vec<u8> = text
                    .chars()
                    .flat_map(|c| {
                        if big_endian {
                            u32::from(c).to_be_bytes()
                        } else {
                            u32::from(c).to_le_bytes()
                        }
                    })
                    .collect();
                let r = ToUtf8::new(Trickle(&bytes, step), true, big_endian);
                assert_eq!(read_all(r, step).unwrap(), text.as_bytes());
            }
        }
    }

    #[test]
    fn units_that_do_not_decode_are_one_byte_that_is_not_utf8() {
        let le =
            |units: &[u16]| -> Vec<u8> { units.iter().flat_map(|u| u.to_le_bytes()).collect() };
        let read = |bytes: &[u8], utf32| read_all(ToUtf8::new(bytes, utf32, false), 5).unwrap();
        let u16le = false;
        // A lone low surrogate, a high one before a letter, two highs, a high at the end.
        assert_eq!(read(&le(&[0x61, 0xdc00, 0x62]), u16le), b"a\xffb");
        assert_eq!(read(&le(&[0xd800, 0x61]), u16le), b"\xffa");
        assert_eq!(
            read(&le(&[0xd800, 0xd800, 0xdc00]), u16le),
            b"\xff\xf0\x90\x80\x80"
        );
        assert_eq!(read(&le(&[0x61, 0xd800]), u16le), b"a\xff");
        // An odd byte at the end.
        assert_eq!(read(b"a\0b", u16le), b"a\xff");
        let u32le = true;
        assert_eq!(
            read(b"a\0\0\0\0\xd8\0\0\0\0\x11\0b\0\0\0c\0", u32le),
            b"a\xff\xffb\xff"
        );
    }

    #[test]
    fn gzip_members_padding_and_trailing_bytes() {
        let one = gzip(b"first\n");
        let two = gzip(b"second\n");
        let joined = [one.clone(), two.clone()].concat();
        let read = |bytes: &[u8]| {
            let trailing = Trailing::default();
            let r = GzipMembers::new(io::BufReader::with_capacity(7, bytes), trailing.clone());
            (read_all(r, 3), trailing.garbage_at())
        };
        let (text, garbage) = read(&joined);
        assert_eq!(text.unwrap(), b"first\nsecond\n");
        assert_eq!(garbage, None);
        let padded = [joined.clone(), vec![0; 10_000]].concat();
        let (text, garbage) = read(&padded);
        assert_eq!(text.unwrap(), b"first\nsecond\n");
        assert_eq!(garbage, None);
        for tail in [
            &b"garbage"[..],
            b"\0\0\0x",
            b"\x1f",
            b"\x1f\x8b\x08",
            b"\0\0\x1f\x8b",
        ] {
            let (text, garbage) = read(&[joined.clone(), tail.to_vec()].concat());
            assert_eq!(text.unwrap(), b"first\nsecond\n", "{tail:?}");
            assert_eq!(garbage, Some(joined.len() as u64), "{tail:?}");
        }
        // Cut short inside a member: an error, not text cut short.
        let (text, _) = read(&joined[..joined.len() - 3]);
        assert!(text.is_err());
        let (text, _) = read(&one[..one.len() / 2]);
        assert!(text.is_err());
    }
}
