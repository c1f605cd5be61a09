//! Properties of the reader on arbitrary input: no panic, nothing lost, every place reported
//! lies within its game, and large inputs finish (the reader is linear).
use kabir::notation::game::{RawGame, TokenKind};
use kabir::notation::reader::{Reader, ReaderOptions};
use kabir::notation::san::SanPlus;
use proptest::prelude::*;

/// Reads everything, checking the invariants that hold for any input.
fn check(input: &[u8]) -> Vec<RawGame> {
    let games: Vec<RawGame> = Reader::new(input)
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("a byte slice cannot fail to read: {e}"));
    // The games hold the input, in order; only blank space may be left over at the end.
    let joined: Vec<u8> = games
        .iter()
        .flat_map(|g| g.source.iter().copied())
        .collect();
    assert!(input.starts_with(&joined));
    // Blank space and byte-order marks (at the start of a line) hold no game.
    let rest = &input[joined.len()..];
    let mut blank = rest.to_vec();
    while let Some(at) = blank.windows(3).position(|w| w == b"\xEF\xBB\xBF") {
        blank.drain(at..at + 3);
    }
    assert!(
        blank.iter().all(|b| b" \t\r\n\x0b\x0c".contains(b)),
        "left over: {rest:?}"
    );
    let mut offset = 0u64;
    for (n, g) in games.iter().enumerate() {
        assert_eq!(g.number, n as u64 + 1);
        assert_eq!(g.source_offset, offset);
        offset += g.source.len() as u64;
        let end = g.source_offset + g.source.len() as u64;
        let spans = g
            .tags
            .iter()
            .map(|t| t.span)
            .chain(g.tokens.iter().map(|t| t.span))
            .chain(g.diagnostics.iter().map(|d| d.span));
        // Every move token holds a move.
        for t in g
            .tokens
            .iter()
            .filter(|t| matches!(t.kind, TokenKind::Move(_)))
        {
            assert!(g.san(t).is_some(), "{:?}", g.text(t.span));
        }
        for span in spans {
            assert!(
                span.offset >= g.source_offset && span.end() <= end,
                "{span:?}"
            );
            assert!(span.line >= 1 && span.column >= 1);
        }
    }
    games
}

/// A source that hands its bytes over one at a time, so that the reader always works at the
/// edge of its buffer and never takes its fast path (which needs a whole token buffered).
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

impl std::io::BufRead for Trickle<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(&self.0[..self.0.len().min(1)])
    }
    fn consume(&mut self, n: usize) {
        self.0 = &self.0[n..];
    }
}

/// The games read a byte at a time are the games read all at once.
fn same_in_pieces(input: &[u8], whole: &[RawGame]) {
    let trickled: Vec<RawGame> = Reader::new(Trickle(input))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_same_games(&trickled, whole, "read a byte at a time");
}

/// Two readings gave the same games, field by field.
fn assert_same_games(games: &[RawGame], whole: &[RawGame], how: &str) {
    assert_eq!(games.len(), whole.len(), "{how}");
    for (a, b) in games.iter().zip(whole) {
        assert_eq!(a.number, b.number, "{how}");
        assert_eq!(a.start, b.start, "{how}");
        assert_eq!(a.source_offset, b.source_offset, "{how}");
        assert_eq!(a.source, b.source, "{how}");
        assert_eq!(a.tags, b.tags, "{how}");
        assert_eq!(a.tokens, b.tokens, "{how}");
        assert_eq!(a.diagnostics, b.diagnostics, "{how}");
    }
}

/// The games read on all cores, cut into blocks of `block` bytes, are the games read by one
/// reader.
fn same_in_parallel(input: &[u8], whole: &[RawGame], block: usize) {
    let mut games = Vec::new();
    kabir::notation::parallel::read_parallel_in_blocks(
        input,
        ReaderOptions::default(),
        block,
        |raw| raw,
        |number, mut raw: RawGame| {
            raw.number = number;
            games.push(raw);
            Ok::<(), kabir::notation::reader::ReadError>(())
        },
    )
    .unwrap();
    assert_same_games(&games, whole, &format!("in blocks of {block}"));
}

/// Text made mostly of the characters that matter to the reader.
fn pgnish() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        &b"["[..],
        b"]",
        b"\"",
        b"\\",
        b"{",
        b"}",
        b"(",
        b")",
        b";",
        b"%",
        b"$",
        b"*",
        b".",
        b"...",
        b"\n",
        b"\r",
        b"\r\n",
        b" ",
        b"1-0",
        b"1/2-1/2",
        b"0-1",
        b"12.",
        b"e4",
        b"e4 ",
        b" Nf3 ",
        b" Rxc10 ",
        b" exd5# ",
        b" 12... ",
        b" 7. ",
        b"\t",
        b"Nbd7!?",
        b"Nxf3+",
        b"PPxe5",
        b"K:e2",
        b"wc",
        b"bc",
        b"=Q",
        b"!?",
        b"[Event \"x\"]",
        b"\xff",
        b"\xc3",
        b"\xef\xbb\xbf",
        b"\0",
    ]);
    prop::collection::vec(pieces, 0..200).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(input in prop::collection::vec(any::<u8>(), 0..4096)) {
        check(&input);
    }

    #[test]
    fn random_pgn_like_text_never_panics(input in pgnish()) {
        let games = check(&input);
        same_in_pieces(&input, &games);
    }

    #[test]
    fn reading_in_parallel_gives_the_same_games(input in pgnish(), block in 1usize..200) {
        let games = check(&input);
        same_in_parallel(&input, &games, block);
    }

    #[test]
    fn san_reader_never_panics(input in prop::collection::vec(any::<u8>(), 0..24)) {
        if let Ok(san) = SanPlus::from_ascii(&input) {
            // What was read can be written and read back to the same value.
            let text = san.to_string();
            prop_assert_eq!(SanPlus::from_ascii(text.as_bytes()), Ok(san));
        }
    }
}

/// Large inputs of the worst kinds finish; a quadratic reader would take minutes here.
#[test]
fn large_hostile_inputs_finish() {
    const SIZE: usize = 4 << 20;
    let inputs: Vec<Vec<u8>> = vec![
        b"(".repeat(SIZE),
        b")".repeat(SIZE),
        b"{".repeat(SIZE),
        b"\r".repeat(SIZE),
        b"[".repeat(SIZE),
        b"\xff".repeat(SIZE),
        b"1. e4 ".repeat(SIZE / 6),
        b"[A \"1\"]\n1. e4 *\n".repeat(SIZE / 16),
        b"e".repeat(SIZE),
        b"1".repeat(SIZE),
        b"\xc3\xa9".repeat(SIZE / 2),
        // Tag pairs on one line, and in one game.
        b"[A \"1\"] ".repeat(SIZE / 8),
        b"[A \"\xff\"] ".repeat(SIZE / 8),
        b"[A \"1\"]\n".repeat(SIZE / 8),
        b"1. e4 [A \"1\"] ".repeat(SIZE / 14),
        // A comment over many lines that start like tags, and a game that begins again and
        // again in one.
        [&b"{"[..], &b"[x\ny\n".repeat(SIZE / 5)].concat(),
        b"\xef\xbb\xbf[A \"1\"]\n{\n".repeat(SIZE / 12),
    ];
    for input in &inputs {
        let games = check(input);
        // Only the input of line ends is blank, and so holds no game.
        assert_eq!(games.is_empty(), input.first() == Some(&b'\r'));
        // Read on all cores, in blocks that cut the long games again and again.
        same_in_parallel(input, &games, 4096);
    }
}
