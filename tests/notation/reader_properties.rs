//! Properties of the reader on arbitrary input: no panic, nothing lost, every place reported
//! lies within its game, and large inputs finish (the reader is linear).
use kabir::notation::game::{RawGame, TokenKind};
use kabir::notation::reader::{Reader, ReaderOptions};
use kabir::notation::san::SanPlus;
use proptest::prelude::*;

/// Whether `bytes` hold nothing but blank space, line ends and byte-order marks.
fn is_blank(bytes: &[u8]) -> bool {
    let mut blank = bytes.to_vec();
    while let Some(at) = blank.windows(3).position(|w| w == b"\xEF\xBB\xBF") {
        blank.drain(at..at + 3);
    }
    blank.iter().all(|b| b" \t\r\n\x0b\x0c".contains(b))
}

/// Reads everything, checking the invariants that hold for any input.
fn check(input: &[u8]) -> Vec<RawGame> {
    check_with(input, ReaderOptions::default())
}

/// [`check`] with the reader's options.
fn check_with(input: &[u8], options: ReaderOptions) -> Vec<RawGame> {
    let games: Vec<RawGame> = Reader::with_options(input, options)
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("a byte slice cannot fail to read: {e}"));
    // The games hold the input, in order: between them, and after the last, only blank
    // space, unless a game too large to read (which holds no text) lies there.
    let mut offset = 0u64;
    let mut after_too_large = false;
    for (n, g) in games.iter().enumerate() {
        assert_eq!(g.number, n as u64 + 1);
        assert!(g.source_offset >= offset, "games go forward");
        let gap = &input[offset as usize..g.source_offset as usize];
        assert!(
            after_too_large || is_blank(gap),
            "left between games: {gap:?}"
        );
        if g.is_too_large() {
            assert!(g.source.is_empty() && g.tokens.is_empty() && g.tags.is_empty());
            assert_eq!(g.diagnostics.len(), 1);
            // It starts a line, and says which.
            let before = &input[..g.source_offset as usize];
            let lines = before.iter().filter(|&&b| b == b'\n').count()
                + before.iter().filter(|&&b| b == b'\r').count()
                - before.windows(2).filter(|w| w == b"\r\n").count();
            assert_eq!(g.start.line as usize, lines + 1);
            assert!(g.start.offset == 0 || matches!(before.last(), Some(b'\n' | b'\r')));
        } else {
            assert!(input[g.source_offset as usize..].starts_with(&g.source));
            assert!(
                g.source.len() <= options.max_game_bytes,
                "{}",
                g.source.len()
            );
        }
        after_too_large = g.is_too_large();
        offset = g.source_offset + g.source.len() as u64;
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
    let rest = &input[offset as usize..];
    assert!(after_too_large || is_blank(rest), "left over: {rest:?}");
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
    same_in_pieces_with(input, whole, ReaderOptions::default());
}

/// [`same_in_pieces`] with the reader's options.
fn same_in_pieces_with(input: &[u8], whole: &[RawGame], options: ReaderOptions) {
    let trickled: Vec<RawGame> = Reader::with_options(Trickle(input), options)
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
    same_in_parallel_with(input, whole, block, ReaderOptions::default());
}

/// [`same_in_parallel`] with the reader's options.
fn same_in_parallel_with(input: &[u8], whole: &[RawGame], block: usize, options: ReaderOptions) {
    let mut games = Vec::new();
    kabir::notation::parallel::read_parallel_in_blocks(
        input,
        options,
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

/// [`pgnish`] text with long runs: games one a line, blank lines, long lines without a
/// line end, zero bytes, tag lines.
fn pgnish_long() -> impl Strategy<Value = Vec<u8>> {
    let run = prop_oneof![
        pgnish(),
        (1usize..300).prop_map(|n| b"\n".repeat(n)),
        (1usize..300).prop_map(|n| b" ".repeat(n)),
        (1usize..300).prop_map(|n| b"\0".repeat(n)),
        (1usize..300).prop_map(|n| b"x".repeat(n)),
        (1usize..20).prop_map(|n| b"[Event \"1\"] [Variant \"Shatranj\"] 1. e3 *\n".repeat(n)),
        (1usize..20).prop_map(|n| b"[A \"1\"]\n".repeat(n)),
        (1usize..20).prop_map(|n| b"\r\n[".repeat(n)),
    ];
    prop::collection::vec(run, 0..8).prop_map(|parts| parts.concat())
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

/// Cases per property: 512, or `PROPTEST_CASES` for a longer hunt.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(512)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

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
    fn games_over_a_limit_are_passed_alike_whole_in_pieces_and_in_parallel(
        input in pgnish_long(),
        limit in 1usize..400,
        block in 1usize..120,
    ) {
        let options = ReaderOptions { max_game_bytes: limit, ..ReaderOptions::default() };
        let games = check_with(&input, options);
        same_in_pieces_with(&input, &games, options);
        same_in_parallel_with(&input, &games, block, options);
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
