//! The examples of `notation-spec/README.md` read as the spec says.
use kabir::notation::game::{DiagnosticKind, TokenKind};
use kabir::notation::reader::Reader;
use kabir::notation::san::{Citadel, Coord, Origin, Place, San, SanError, SanPlus};

fn san(text: &str) -> San {
    SanPlus::from_ascii(text.as_bytes())
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .san
}

fn square(text: &str) -> Coord {
    Coord::from_ascii(text.as_bytes()).unwrap_or_else(|| panic!("{text}"))
}

#[test]
fn every_move_example_of_the_spec_is_a_move() {
    let examples = [
        // 6.1 - 6.3
        "Nf3",
        "Nxf3",
        "e4",
        "exd5",
        "Nbd7",
        "R1a3",
        "R10xa3",
        "Zd2b6",
        "Awck3",
        "e8=Q",
        "b10=R",
        "f10=S", // 6.4, 6.5
        "k10",
        "k10=A",
        "Se4",
        "Axf5",
        "Awc",
        "Ak3", // 6.6 - 6.8
        "PPe5",
        "PPxe5",
        "PPf3",
        "K:e2",
        "K:d9=R",
        "Kbc",
        "Ka10-bc",
        "a10bc",
        // 6.10
        "Nf3+!?", // 8
        "e2-e3",
        "e2e3",
        "Ng1xf3",
        "Ng1-f3",
        "g1f3",
        "b9b10r",
        "e7e8q",
        "k9k10a",
        "a10e5",
        "f2e2",
        "k2wc",
        "wck3",
        "Fe2",
        "Ab3",
        "Ec3",
        "Hf3",
        "De5",
        "Pe4",
        "e8Q",
        "e8",
        "Qxf7", // 11
        "a9a10",
        "a10e7",
        "f9g9",
        "PPxe7+",
        "K:g9",
        "Ae2", // 6.9
        "c10=E",
        "c10",
        "Exe2_c10=E",
        "hxg1=O_b10=N",
        "e7e2",
    ];
    for text in examples {
        san(text);
    }
}

#[test]
fn the_special_moves_read_as_the_spec_says() {
    assert_eq!(
        san("PPxe5"),
        San::PawnOfPawns {
            capture: true,
            to: square("e5")
        }
    );
    assert!(
        matches!(san("K:e2"), San::Swap { with, promotion: None } if with == Place::Board(square("e2")))
    );
    assert!(matches!(
        san("Kbc"),
        San::Normal {
            to: Place::Citadel(Citadel::Black),
            ..
        }
    ));
    assert!(matches!(
        san("wck3"),
        San::Normal {
            piece: None,
            origin: Origin::Place(Place::Citadel(Citadel::White)),
            ..
        }
    ));
}

#[test]
fn castling_and_null_moves_are_syntax_errors() {
    for text in ["O-O", "O-O-O", "0-0", "0-0-0"] {
        assert_eq!(
            SanPlus::from_ascii(text.as_bytes()),
            Err(SanError::Castling)
        );
    }
    for text in ["--", "Z0", "0000", "@@@@"] {
        assert_eq!(
            SanPlus::from_ascii(text.as_bytes()),
            Err(SanError::NullMove)
        );
    }
}

#[test]
fn the_shatranj_example_game_reads_without_diagnostics() {
    let text = r#"[Event "Casual game"]
[Site "?"]
[Date "2024.03.01"]
[Round "-"]
[White "A"]
[Black "B"]
[Result "1-0"]
[Variant "Shatranj"]

1. e3 e6 2. Nf3 Nf6 3. Bd3 Bd6 4. Qe2 Qe7 5. c3 {a quiet opening} c6 6. b3 (6. d3 d6) 6... b6 1-0
"#;
    let games: Vec<_> = Reader::new(text.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), 1);
    assert!(
        games[0].diagnostics.is_empty(),
        "{:?}",
        games[0].diagnostics
    );
    let moves = games[0]
        .tokens
        .iter()
        .filter(|t| matches!(t.kind, TokenKind::Move(_)))
        .count();
    assert_eq!(moves, 14);
}

#[test]
fn the_movetext_elements_of_section_7() {
    let text = "% escape\n1.e3 12 ; line comment\n$14 {c} (1. d3) 1... e6 *";
    let games: Vec<_> = Reader::new(text.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<_> = games[0].tokens.iter().map(|t| t.kind).collect();
    assert!(matches!(kinds[0], TokenKind::Escape));
    assert!(matches!(
        kinds[1],
        TokenKind::MoveNumber {
            number: 1,
            black: false
        }
    ));
    assert!(matches!(
        kinds[3],
        TokenKind::MoveNumber {
            number: 12,
            black: false
        }
    ));
    assert!(kinds.contains(&TokenKind::LineComment));
    assert!(kinds.contains(&TokenKind::Nag(14)));
    assert!(kinds.contains(&TokenKind::Comment));
    // `12` after `1.e3` is out of order: a warning, not an error.
    assert!(!games[0].has_errors());
    assert!(
        games[0]
            .diagnostics
            .iter()
            .all(|d| matches!(d.kind, DiagnosticKind::MoveNumberOutOfOrder { .. }))
    );
}

#[test]
fn the_position_strings_of_the_spec_are_positions() {
    use kabir::rules::Position;
    let examples = [
        (
            "shatranj",
            "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",
        ),
        (
            "knavish-shatranj",
            "rvdqkdvr/pppppppp/8/8/8/8/PPPPPPPP/RVDQKDVR w - - 0 1",
        ),
        (
            "tamerlane",
            "e1c1w1w1c1e/1rntzvkgztnr/prpnptpzpvpkpgpepcpwpp/11/11/11/11/PPPWPCPEPGPKPVPZPTPNPR/RNTZGKVZTNR1/E1C1W1W1C1E w Kk - 0 1",
        ),
        (
            "tamerlane",
            "e1c1w1w1c1e/1rntzvkgztnr/pr1ptpzpvpkpgpepcpw1/11/11/11/11/1PWPCPEPGSPVPZPTPNPR/RNTZGKVZTNRA/E1C1W1W1pp'1E w k - 12 40",
        ),
    ];
    for (id, fen) in examples {
        let variant = kabir::variants::builtin(id).unwrap_or_else(|e| panic!("{id}: {e}"));
        let position = Position::from_fen(&variant, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(position.to_fen(), fen);
    }
}

/// The spec's text: `notation-spec/README.md` and `DECISIONS.md`.
fn spec(name: &str) -> String {
    let path = format!("{}/notation-spec/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A code block of the spec: the section it stands in (`6` for 6.1 to 6.12), its language tag
/// and its lines.
struct Block {
    section: u32,
    language: String,
    lines: Vec<String>,
}

/// The code blocks and the code spans (outside the blocks) of a Markdown text.
fn code(text: &str) -> (Vec<Block>, Vec<String>) {
    let (mut blocks, mut spans) = (Vec::new(), Vec::new());
    let mut section = 0;
    let mut block: Option<Block> = None;
    // The prose of a paragraph, whose code spans may run across its lines.
    let mut paragraph = String::new();
    for line in text.lines() {
        if block.is_some()
            || line.trim().is_empty()
            || line.starts_with('#')
            || line.starts_with("```")
        {
            spans.extend(paragraph.split('`').skip(1).step_by(2).map(str::to_string));
            paragraph.clear();
        }
        if let Some(fence) = line.strip_prefix("```") {
            match block.take() {
                Some(b) => blocks.push(b),
                None => {
                    block = Some(Block {
                        section,
                        language: fence.to_string(),
                        lines: Vec::new(),
                    })
                }
            }
        } else if let Some(b) = &mut block {
            b.lines.push(line.to_string());
        } else {
            if let Some(heading) = line.strip_prefix("## ") {
                section = heading
                    .split('.')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
            }
            // A table row is a paragraph of its own.
            if line.starts_with('|') {
                spans.extend(line.split('`').skip(1).step_by(2).map(str::to_string));
            } else {
                paragraph.push_str(line.trim());
                paragraph.push(' ');
            }
        }
    }
    spans.extend(paragraph.split('`').skip(1).step_by(2).map(str::to_string));
    assert!(block.is_none(), "a code block is not closed");
    (blocks, spans)
}

/// Whether `text` is wholly one production of the grammar.
fn whole<'a, O>(parser: impl Fn(&'a [u8]) -> grammar::Parsed<'a, O>, text: &'a str) -> bool {
    matches!(parser(text.as_bytes()), Ok(([], _)))
}

use kabir::notation::grammar::{self, TypedPawns};

/// Either pawn convention: Shatranj's `P`, or Tamerlane's typed pawns (`PR`, `pk`).
const PAWNS: [TypedPawns; 2] = [TypedPawns::NONE, TypedPawns::NONE.with(b'P')];

fn is_position(text: &str) -> bool {
    PAWNS.into_iter().any(|p| whole(grammar::position(p), text))
}

fn is_move(text: &str) -> bool {
    grammar::read_move(text.as_bytes()).is_ok() && whole(grammar::r#move, text)
}

/// Whether a code span is an example of the grammar of moves and position strings: a whole
/// move or position string, or one of their parts (a piece, a square, a promotion, one of the
/// `ranks` of the spec's position strings...).
fn is_example(text: &str, ranks: &[&str]) -> bool {
    is_move(text)
        || is_position(text)
        || PAWNS.into_iter().any(|p| {
            whole(grammar::cell_piece(p), text)
                || (ranks.contains(&text) && whole(grammar::rank_cells(p), text))
        })
        || whole(grammar::place, text)
        || whole(grammar::promotion, text)
        || whole(grammar::waiting, text)
        || whole(grammar::waiting_order, text)
        || whole(grammar::glyph, text)
        || whole(grammar::check, text)
        || whole(grammar::state, text)
        || whole(grammar::number0, text)
        || text
            .strip_prefix("[FEN \"")
            .and_then(|t| t.strip_suffix("\"]"))
            .is_some_and(is_position)
        || is_game_text(text)
}

/// Whether `text` is a tag pair, one element of movetext or a result, or movetext.
fn is_game_text(text: &str) -> bool {
    whole(grammar::tag_pair, text)
        || whole(grammar::element, text)
        || whole(grammar::result, text)
        || whole(grammar::movetext, text)
}

/// The code spans of the spec that are not examples of the grammar: names, words, kinds of
/// diagnostic, and a few things that the grammar does not read on purpose. Each must occur in
/// the spec and must not read as a move (a few read as other productions, such as `0000` as a
/// number).
#[rustfmt::skip]
const NOT_EXAMPLES: &[&str] = &[
    // Bytes, characters and files.
    "LF", "CR", "CRLF", "\\n", "\\r", "\\r\\n", "EF BB BF", "file:line:column", "line:column",
    "FF FE", "FE FF", "FF FE 00 00", "00 00 FE FF", "[E", "5B 00 45 00", "00 5B 00 45",
    "5B 00 00 00", "00 00 00 5B", "iconv",
    "docs/VALIDATE.md", "docs/RULES.md", "crates/kabir-rules/src/variants/defs/*.toml", "A-Z a-z 0-9 _",
    "_ + # = : -", "\"", "\\", "\\\"", "\\\\", "[", "]", "{", "}", "(", ")", "$", "%", "'", ",",
    "/", ":", "=", "_", "@", "|", "(* *)", "[ ]", "{ }", "? ?", "--variant", "--variant NAME",
    // EPD lines and their operations (section 3.5): read by `kabir_rules::epd`, checked by
    // `the_spec_epd_lines_read` below.
    "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - id \"start\"; D1 16;", "--fen",
    "kabir perft --epd FILE", "hmvc N", "fmvn N", "... w - - 3 x", "c0", "D1", "hmvc", "fmvn",
    // The grammar's own names.
    "kabir::notation::grammar", "move", "r#move", "blank", "eol", "bom",
    // Tags and their values.
    "Event", "Site", "Date", "Round",
    "White", "Black", "Result", "Variant", "SetUp", "FEN", "Termination",
    "Event Site Date Round White Black Result", "Variant SetUp FEN Termination", "Standard",
    "chess", "shatranj", "classic shatranj", "chatrang", "knavish-shatranj", "knavish shatranj",
    "knavish", "knavishshatranj", "Knavish Shatranj", "KNAVISH_SHATRANJ", "tamerlane",
    "tamerlane chess", "shatranj al-kabir", "shatranj al kabir", "timur", "timur's chess",
    "great chess", "grand-shatranj-nw", "tamerlane-greenwood-1", "tamerlane-greenwood-5",
    "chaturanga", "courier", "courier chess", "courierspiel", "kurierspiel", "id",
    "name", "aliases", "abandoned", "adjudication", "death", "emergency", "normal",
    "rules infraction", "time forfeit", "unterminated",
    "unknown variant \"Standard\"; known variants: knavish-shatranj, shatranj, tamerlane",
    // Movetext: placeholders, and a result cut short (`BadResult`).
    "N.", "N...", "1/2",
    // Fields, words and kinds of diagnostic.
    "board", "side", "state", "ep", "halfmove", "fullmove", "validate", "max_count",
    "bare king", "move-after-end", "missing-variant", "result-mismatch", "result-contradicts",
    "illegal move", "ambiguous move", "missing check mark", "wrong check mark",
    "UnexpectedChar", "InvalidUtf8", "BadTagName", "BadTagValue", "UnterminatedTagValue",
    "UnterminatedTag", "TagInMovetext", "BadMove", "BadMoveNumber", "BadNag", "BadResult",
    "UnterminatedComment", "UnterminatedVariation", "UnmatchedVariationEnd", "ResultInMovetext",
    "TooManyErrors", "MissingResult", "MoveNumberOutOfOrder", "ResultMismatch", "DuplicateTag",
    "duplicate-tag", "moves-after-draw", "termination", "end_ply", "GameTooLarge",
    "game-too-large", "ReaderOptions::max_game_bytes", "import", "export", "ResultUnfinished",
    "result-unfinished", "(no moves)",
    // The names other programs give a variant (2.3), and the hint of 9.1's decision.
    "[names]", "docs/VARIANT-FORMAT.md", "UCI_Variant", "Shatranj",
    "written in coordinate form ...; canonical SAN is ...", "…",
    // Other programs' position strings read leniently (3.4), and other languages' letters (5).
    "fen-assumed", "kabir validate --strict", "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w 0 1",
    "KQkq", "... w KQkq - 0 1", "bad-fen", "Chaturanga", "Courier", "kabir import", "search",
    "explore", "--moves", "--piece-letters LANG", "S is the knight in German (--piece-letters de), ...",
    "role", "non-canonical", "de", "fr", "es", "it", "nl", "sv", "ru", "Кр", "Ф", "Л", "С", "К",
    // Commands and files.
    "cat a.pgn b.pgn", "kabir validate", "kabir validate --format json",
    "validate --format json", "--fix", "--rejects", "--max-game-size SIZE", "DECISIONS.md", "benches/hostile.sh",
    "docs/RELIABILITY.md",
    // Moves the spec gives as not moves (section 9.1, 6.12 and 12), and parts of moves that
    // are no production alone.
    "Nz9", "e8=", "O-O", "O-O-O", "0-0", "0-0-0", "--", "Z0", "0000", "@@@@", "P@e5", "K:",
];

#[test]
fn every_code_span_of_the_spec_is_read_by_the_grammar() {
    let mut unread = Vec::new();
    let mut read = 0;
    let mut seen = std::collections::HashSet::new();
    let (_, readme) = code(&spec("README.md"));
    let ranks: Vec<&str> = readme
        .iter()
        .filter(|span| is_position(span))
        .flat_map(|fen| fen.split(' ').next().unwrap_or_default().split('/'))
        .collect();
    for name in ["README.md", "DECISIONS.md"] {
        let (_, spans) = code(&spec(name));
        for span in spans {
            seen.insert(span.clone());
            if is_example(&span, &ranks) {
                read += 1;
            } else if !NOT_EXAMPLES.contains(&span.as_str()) {
                unread.push(span);
            }
        }
    }
    assert!(unread.is_empty(), "not read by the grammar: {unread:?}");
    let absent: Vec<_> = NOT_EXAMPLES
        .iter()
        .filter(|s| !seen.contains(**s))
        .collect();
    assert!(absent.is_empty(), "not in the spec: {absent:?}");
    for span in NOT_EXAMPLES {
        assert!(!is_move(span), "{span:?} is a move");
    }
    assert!(read > 150, "{read} examples");
}

#[test]
fn every_code_block_of_the_spec_is_read_by_the_grammar() {
    let (blocks, _) = code(&spec("README.md"));
    let (mut moves, mut positions, mut tags, mut games) = (0, 0, 0, 0);
    for block in &blocks {
        let lines = block.lines.iter().filter(|l| !l.trim().is_empty());
        match (block.section, block.language.as_str()) {
            // The grammar itself; the layout of a file (1.2), a message (9.2).
            (10, "ebnf") | (1 | 9, _) => {}
            // A tag pair.
            (2, _) => {
                for line in lines {
                    assert!(whole(grammar::tag_pair, line), "{line:?}");
                    tags += 1;
                }
            }
            // Position strings, one a line, after the list of their fields.
            (3, _) => {
                for line in lines.filter(|l| *l != "board side state ep halfmove fullmove") {
                    assert!(is_position(line), "{line:?}");
                    positions += 1;
                }
            }
            // A move and what it does (on as many lines as it takes).
            (6, _) => {
                for line in lines.filter(|l| !l.starts_with(' ')) {
                    let token = line.split_whitespace().next().unwrap_or_default();
                    assert!(is_move(token), "{token:?} in {line:?}");
                    moves += 1;
                }
            }
            // Games: tag pairs, then movetext with comments and variations, and on the
            // fragments, what a line shows after two spaces or more.
            (11, _) => {
                // A whole game or tag section is read by the grammar as one game; the
                // fragments of movetext, each line up to what it shows, as movetext.
                let notes = block.lines.iter().any(|l| l.contains("  "));
                if notes {
                    for line in block.lines.iter().filter(|l| !l.starts_with(' ')) {
                        let movetext = line.split("  ").next().unwrap_or_default();
                        assert!(whole(grammar::movetext, movetext), "{movetext:?}");
                    }
                } else {
                    let text = block.lines.join("\n");
                    match grammar::games(text.as_bytes()) {
                        Ok(([], read)) => {
                            assert_eq!(read.len(), 1, "{text}");
                            tags += read[0].tags.len();
                            games += 1;
                        }
                        _ => panic!("not read as games: {text}"),
                    }
                }
                for line in lines {
                    if let Some(value) = line.strip_prefix("[FEN \"") {
                        let fen = value.trim_end_matches("\"]");
                        assert!(is_position(fen), "{fen:?}");
                        positions += 1;
                        continue;
                    }
                    if line.starts_with('[') || line.starts_with(' ') {
                        continue;
                    }
                    let movetext = line.split("  ").next().unwrap_or_default();
                    let mut in_comment = false;
                    for token in movetext.split_whitespace() {
                        let was = in_comment;
                        in_comment =
                            (in_comment || token.starts_with('{')) && !token.ends_with('}');
                        let token = token.trim_matches(|c| c == '(' || c == ')');
                        let number = token
                            .trim_end_matches('.')
                            .bytes()
                            .all(|b| b.is_ascii_digit());
                        let result = ["1-0", "0-1", "1/2-1/2", "*"].contains(&token);
                        if was || token.starts_with('{') || number || result {
                            continue;
                        }
                        assert!(is_move(token), "{token:?} in {line:?}");
                        moves += 1;
                    }
                }
            }
            (section, language) => panic!("a code block in section {section} ({language:?})"),
        }
    }
    assert!(
        moves >= 30 && positions >= 3 && tags >= 15 && games >= 2,
        "{moves} moves, {positions} positions, {tags} tag pairs, {games} games"
    );
}

/// The EPD line of section 3.5 splits as the section says, and the position string with a
/// mistake it gives stays an error of the position string.
#[test]
fn the_spec_epd_lines_read() {
    use kabir::rules::epd::{Epd, read_position};
    let line = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - id \"start\"; D1 16;";
    assert!(spec("README.md").contains(&format!("`{line}`")));
    let epd = Epd::parse(line).unwrap();
    assert_eq!(epd.operand("id"), Some("start"));
    assert_eq!(epd.operand("D1"), Some("16"));
    let v = kabir::variants::builtin("shatranj").unwrap();
    let mut pos = epd.position(&v).unwrap();
    assert_eq!(kabir::rules::perft(&mut pos, 1), 16);
    assert!(read_position(&v, "8/8/8/4k3/8/8/8/4K3 w - - 3 x").is_err());
}
