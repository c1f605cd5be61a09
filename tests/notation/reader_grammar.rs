//! The reader against the notation's grammar: its hand-written parts (the movetext loop, the
//! common tag pairs, comments and recovery) read exactly what `kabir::notation::grammar`
//! reads, on random and mutated games (see `crate::fuzz_common::reader_as_grammar`).

use kabir::notation::grammar;
use proptest::prelude::*;

/// Pieces of games: every element of movetext and tag pairs, in forms the reader reads by
/// its fast paths and by the grammar, a few that are no element, blank space, line ends and
/// byte-order marks.
#[rustfmt::skip]
const FRAGMENTS: &[&str] = &[
    "[Event \"x\"]", "[Site \"\"]", "[ White  \"a\\\"b\\\\\" ]", "[Black \"caf\u{e9}\"]",
    "[A_1 \"t\tab\"]", "[Result \"1-0\"]", "[Bad", "[X \"open", "[X \"v\"", "[\"v\"]", "[X v]",
    "\n", "\n", "\n", "\r\n", "\r", " ", " ", " ", "\t", "\u{b}", "\u{c}", "\u{feff}",
    "1.", "1. ", "12.", "12...", "1...", "...", ".", "12", "0.", "007.", "4294967295.",
    "4294967296.", "1234567890.", "e4", "Nf3", "exd5", "Rxc10+", "Nbd7", "e8=Q", "e7e8q",
    "PPe5", "PPxe5", "K:e2", "K:d9=R", "a10bc", "Kbc", "Exe2_c10=E", "Nf3!?", "e4#", "Qh5?!",
    "Nz9", "O-O", "--", "x", "!", "!?", "??", "!!!", "$14", "$0", "$255", "$256", "$",
    "{c}", "{a\nb}", "{\n[Event \"x\"]\n}", "{", "}", "; lc", ";", "%esc", "% e4", "(", ")",
    "(1. d3)", "1-0", "0-1", "1/2-1/2", "*", "1/2", "1-0x", "\u{e9}", "@", "[", "]", "#",
];

/// A file of games: fragments run together, some blank space between them, then a few
/// characters replaced, inserted or removed.
fn games() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((prop::sample::select(FRAGMENTS), 0u8..4), 0..24),
        prop::collection::vec((any::<usize>(), 0u8..3, prop::char::range(' ', '~')), 0..3),
    )
        .prop_map(|(fragments, edits)| {
            let mut text = String::new();
            for (fragment, gap) in fragments {
                text.push_str(fragment);
                text.push_str(["", " ", " ", "\n"][usize::from(gap)]);
            }
            let mut chars: Vec<char> = text.chars().collect();
            for (at, edit, c) in edits {
                let at = at % (chars.len() + 1);
                match edit {
                    0 if at < chars.len() => chars[at] = c,
                    1 => chars.insert(at, c),
                    _ if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ => {}
                }
            }
            chars.into_iter().collect()
        })
}

/// Games as written: tags, then movetext with every element, in a few layouts, and lines
/// (of tags, movetext or comments) started by a byte-order mark.
fn valid_games() -> impl Strategy<Value = String> {
    #[rustfmt::skip]
    const MOVETEXT: &[&str] = &[
        "1.", "1. ", "12.", "12...", "...", "e4", "Nf3", "exd5", "Rxc10+", "e8=Q", "PPe5",
        "K:e2", "a10bc", "Nf3!?", "!?", "$14", "{c}", "{a\nb}", "; lc\n", "\n%esc\n", "(1. d3 e5)",
        "(", ")", "12", "\n\u{feff}", "{x\n\u{feff}y}", "{\r\u{feff}\u{e9}}",
    ];
    (
        prop::collection::vec((prop::sample::select(&FRAGMENTS[..6]), any::<bool>()), 0..4),
        prop::collection::vec((prop::sample::select(MOVETEXT), 0u8..3), 0..30),
        prop::sample::select(&["1-0", "0-1", "1/2-1/2", "*", ""][..]),
        1usize..3,
    )
        .prop_map(|(tags, movetext, result, copies)| {
            let mut game = String::new();
            for (tag, marked) in tags {
                if marked {
                    game.push('\u{feff}');
                }
                game.push_str(tag);
                game.push('\n');
            }
            game.push('\n');
            let mut depth = 0usize;
            for (element, gap) in movetext {
                // Parentheses only where they nest.
                match element {
                    "(" => depth += 1,
                    ")" if depth == 0 => continue,
                    ")" => depth -= 1,
                    _ => {}
                }
                game.push_str(element);
                game.push_str(["", " ", "\n"][usize::from(gap)]);
            }
            game.push_str(&")".repeat(depth));
            game.push(' ');
            game.push_str(result);
            game.push_str("\n\n");
            game.repeat(copies)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    /// On anything, the reader finds no error exactly where the grammar reads the input, and
    /// then the same games, tags and tokens.
    #[test]
    fn the_reader_reads_as_the_grammar(text in games()) {
        crate::fuzz_common::reader_as_grammar(text.as_bytes());
    }

    /// Games as written (most of which the grammar reads whole) give the same.
    #[test]
    fn the_reader_reads_written_games_as_the_grammar(text in valid_games()) {
        crate::fuzz_common::reader_as_grammar(text.as_bytes());
    }
}

/// Every sample file and engine record is read whole by the grammar, and every game file of
/// the tests by the reader as by the grammar.
#[test]
fn the_grammar_reads_the_sample_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut read = 0;
    for dir in ["samples", "tests/data/engine"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "pgn") {
                let data = std::fs::read(&path).unwrap();
                let games = grammar::games(&data);
                assert!(
                    matches!(&games, Ok(([], g)) if !g.is_empty()),
                    "{}",
                    path.display()
                );
                crate::fuzz_common::reader_as_grammar(&data);
                read += 1;
            }
        }
    }
    assert!(read >= 9, "{read} files");
    // Files with errors on purpose: the reader reads them as the grammar does all the same.
    for dir in [
        "tests/data/validate",
        "tests/data/notation",
        "tests/data/cli",
    ] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                crate::fuzz_common::reader_as_grammar(&std::fs::read(&path).unwrap());
            }
        }
    }
}

/// Deep nesting costs the grammar no stack: it reads variations without recursion.
#[test]
fn deep_variations_are_read_without_recursion() {
    let depth = 100_000;
    let text = format!("1. e4 {}e5{} *", "(1. d4 ".repeat(depth), ")".repeat(depth));
    let Ok(([], games)) = grammar::games(text.as_bytes()) else {
        panic!("not read");
    };
    let opened = games[0]
        .items
        .iter()
        .filter(|(_, item)| *item == grammar::Item::VariationStart)
        .count();
    assert_eq!(opened, depth);
    let inner = format!("{}e5{}", "(1. d4 ".repeat(depth), ")".repeat(depth));
    assert_eq!(
        grammar::variation(inner.as_bytes()),
        Ok((&b""[..], inner.as_bytes()))
    );
}

/// Cases the random inputs once found, kept so that they are always read.
#[test]
fn the_reader_reads_found_cases_as_the_grammar() {
    for text in [
        // An open comment's second line starts with a byte-order mark: no column for it.
        "{[Event \"x\"][Site \"\"][Event \"x\"]\n\u{feff}1.[Event \"x\"]{c}1.",
        "1. e3 {a\r\n\u{feff}\u{feff}b}\r\u{feff}e6 {\n\u{feff}} *",
        // A second mark on a line is a character (of the comment here), counted.
        "[Event \"x\"][Event \"x\"]{\n\u{feff}\u{feff}}1.",
        // The file's mark, then the first line's.
        "\u{feff}\u{feff}1.",
        "\u{feff}\u{feff}\u{feff}1.",
    ] {
        crate::fuzz_common::reader_as_grammar(text.as_bytes());
    }
}
