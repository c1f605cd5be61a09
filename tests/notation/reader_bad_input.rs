//! The reader on broken and unusual input: every problem is reported with its kind, line and
//! column, and the games after a broken one are still read.
use std::path::PathBuf;

use kabir::notation::game::{DiagnosticKind, RawGame, TokenKind};
use kabir::notation::reader::Reader;
use kabir::notation::san::SanError;
use kabir::notation::tags::GameResult;

fn data(name: &str) -> Vec<u8> {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "data",
        "notation",
        name,
    ]
    .iter()
    .collect();
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read(bytes: &[u8]) -> Vec<RawGame> {
    Reader::new(bytes)
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// (kind, line, column) of every diagnostic of a game.
fn diagnostics(game: &RawGame) -> Vec<(DiagnosticKind, u32, u32)> {
    game.diagnostics
        .iter()
        .map(|d| (d.kind, d.span.line, d.span.column))
        .collect()
}

/// The source bytes of all games put together: what the reader kept of the input.
fn joined(games: &[RawGame]) -> Vec<u8> {
    games
        .iter()
        .flat_map(|g| g.source.iter().copied())
        .collect()
}

#[test]
fn an_empty_file_has_no_games() {
    assert!(read(&data("empty.pgn")).is_empty());
}

#[test]
fn a_blank_file_has_no_games() {
    assert!(read(&data("whitespace.pgn")).is_empty());
}

#[test]
fn binary_garbage_is_reported_not_fatal() {
    let bytes = data("garbage.bin");
    let games = read(&bytes);
    assert!(!games.is_empty());
    assert!(games.iter().all(|g| g.has_errors()));
    let kinds: Vec<_> = games
        .iter()
        .flat_map(|g| g.diagnostics.iter().map(|d| d.kind))
        .collect();
    assert!(kinds.contains(&DiagnosticKind::InvalidUtf8));
    assert!(kinds.contains(&DiagnosticKind::UnexpectedChar));
    // Nothing is lost: the games hold every byte.
    assert_eq!(joined(&games), bytes);
    // Every reported place lies within its game.
    for g in &games {
        for d in &g.diagnostics {
            assert!(d.span.offset >= g.source_offset);
            assert!(d.span.end() <= g.source_offset + g.source.len() as u64);
            assert!(d.span.line >= 1 && d.span.column >= 1);
        }
    }
}

#[test]
fn invalid_utf8_in_a_tag() {
    let games = read(&data("invalid_utf8_tag.pgn"));
    assert_eq!(games.len(), 2);
    assert_eq!(
        diagnostics(&games[0]),
        [(DiagnosticKind::InvalidUtf8, 1, 12)]
    );
    assert_eq!(games[0].bytes(games[0].diagnostics[0].span), b"\xe9");
    // The broken tag is left out; the others are kept.
    assert_eq!(games[0].tag("Event"), None);
    assert_eq!(games[0].tag("Variant").as_deref(), Some("Shatranj"));
    assert!(games[1].diagnostics.is_empty());
    assert_eq!(games[1].tag("Event").as_deref(), Some("Next"));
}

#[test]
fn invalid_utf8_in_a_comment() {
    let games = read(&data("invalid_utf8_comment.pgn"));
    assert_eq!(games.len(), 1);
    assert_eq!(
        diagnostics(&games[0]),
        [(DiagnosticKind::InvalidUtf8, 4, 5)]
    );
    // The comment is still a token, and the move after it is read.
    let comment = games[0]
        .tokens
        .iter()
        .find(|t| t.kind == TokenKind::Comment)
        .map(|t| (t.span.line, t.span.column));
    assert_eq!(comment, Some((3, 7)));
    assert_eq!(games[0].result(), Some(GameResult::Unknown));
}

#[test]
fn a_byte_order_mark_is_skipped_and_not_counted() {
    let bytes = data("bom.pgn");
    let games = read(&bytes);
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!((g.start.offset, g.start.line, g.start.column), (3, 1, 1));
    assert_eq!(g.tags[0].span.column, 1);
    assert_eq!(g.tag("Event").as_deref(), Some("BOM"));
    assert_eq!(
        diagnostics(g),
        [(DiagnosticKind::BadMove(SanError::MissingDestination), 4, 7)]
    );
    assert_eq!(joined(&games), bytes);
}

fn check_line_ends(name: &str) {
    let bytes = data(name);
    let games = read(&bytes);
    assert_eq!(games.len(), 2, "{name}");
    assert_eq!(
        diagnostics(&games[0]),
        [(DiagnosticKind::BadMove(SanError::MissingDestination), 5, 8)],
        "{name}"
    );
    assert_eq!(games[0].tag("Variant").as_deref(), Some("Shatranj"));
    assert_eq!(
        (games[1].start.line, games[1].start.column),
        (7, 1),
        "{name}"
    );
    let d3 = games[1].tokens.get(1).map(|t| (t.span.line, t.span.column));
    assert_eq!(d3, Some((9, 4)), "{name}");
    assert!(games[1].diagnostics.is_empty(), "{name}");
    assert_eq!(joined(&games), bytes, "{name}");
}

#[test]
fn crlf_line_ends() {
    check_line_ends("crlf.pgn");
}

#[test]
fn cr_only_line_ends() {
    check_line_ends("cr_only.pgn");
}

#[test]
fn unterminated_tags() {
    let games = read(&data("unterminated_tag.pgn"));
    assert_eq!(games.len(), 2);
    assert_eq!(
        diagnostics(&games[0]),
        [
            (DiagnosticKind::UnterminatedTagValue, 1, 13),
            (DiagnosticKind::UnterminatedTag, 2, 10),
        ]
    );
    assert_eq!(games[0].tag("Variant").as_deref(), Some("Shatranj"));
    assert!(games[1].diagnostics.is_empty());
}

#[test]
fn an_unterminated_comment_stops_at_the_next_game() {
    let games = read(&data("unterminated_comment.pgn"));
    assert_eq!(games.len(), 2);
    assert_eq!(
        diagnostics(&games[0]),
        [
            (DiagnosticKind::UnterminatedComment, 3, 7),
            (DiagnosticKind::MissingResult, 6, 1),
        ]
    );
    assert!(games[1].diagnostics.is_empty());
    assert_eq!(games[1].tag("Event").as_deref(), Some("Two"));
}

#[test]
fn an_unterminated_comment_at_the_end_of_the_file() {
    let games = read(&data("unterminated_comment_eof.pgn"));
    assert_eq!(games.len(), 1);
    assert_eq!(
        diagnostics(&games[0]),
        [
            (DiagnosticKind::UnterminatedComment, 4, 8),
            (DiagnosticKind::MissingResult, 5, 1),
        ]
    );
}

#[test]
fn an_unterminated_variation() {
    let games = read(&data("unterminated_variation.pgn"));
    assert_eq!(games.len(), 2);
    assert_eq!(
        diagnostics(&games[0]),
        [
            (DiagnosticKind::ResultInMovetext, 4, 8),
            (DiagnosticKind::UnterminatedVariation, 3, 10),
            (DiagnosticKind::MissingResult, 6, 1),
        ]
    );
    assert!(games[1].diagnostics.is_empty());
}

#[test]
fn a_move_number_out_of_order_is_a_warning() {
    let games = read(&data("move_number_order.pgn"));
    assert_eq!(
        diagnostics(&games[0]),
        [(
            DiagnosticKind::MoveNumberOutOfOrder {
                expected: 3,
                black: false
            },
            4,
            1
        )]
    );
    assert!(!games[0].has_errors());
}

#[test]
fn a_result_in_the_middle_of_the_movetext() {
    let games = read(&data("result_in_movetext.pgn"));
    assert_eq!(games.len(), 2);
    assert_eq!(
        diagnostics(&games[0]),
        [(DiagnosticKind::ResultInMovetext, 3, 10)]
    );
    assert_eq!(games[0].text(games[0].diagnostics[0].span), "1-0");
    assert!(games[1].diagnostics.is_empty());
}

#[test]
fn a_file_ending_in_the_middle_of_a_move() {
    let games = read(&data("ends_mid_move.pgn"));
    assert_eq!(games.len(), 1);
    assert_eq!(
        diagnostics(&games[0]),
        [
            (DiagnosticKind::BadMove(SanError::MissingDestination), 3, 13),
            (DiagnosticKind::MissingResult, 3, 14),
        ]
    );
    let message = games[0]
        .describe(&games[0].diagnostics[0], "cut.pgn")
        .to_string();
    assert_eq!(
        message,
        "cut.pgn:3:13: error: expected a destination square or citadel at the end of the move, found \"N\" (game 1)"
    );
}

#[test]
fn an_export_style_game_reads_cleanly() {
    let games = read(&data("export_style_syntax_only.pgn"));
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    assert_eq!(g.tags.len(), 11);
    assert_eq!(g.tag("Variant").as_deref(), Some("shatranj"));
    let moves = g
        .tokens
        .iter()
        .filter(|t| matches!(t.kind, TokenKind::Move(_)))
        .count();
    assert_eq!(moves, 36);
    assert_eq!(g.result(), Some(GameResult::BlackWins));
}

#[test]
fn a_ten_megabyte_comment() {
    let mut text = b"[Event \"Long\"]\n\n1. e3 {".to_vec();
    let body: Vec<u8> = b"no play at all.\n"
        .iter()
        .copied()
        .cycle()
        .take(10 << 20)
        .collect();
    let newlines = body.iter().filter(|&&b| b == b'\n').count() as u32;
    text.extend_from_slice(&body);
    text.extend_from_slice(b"} e6 *\n");
    let games = read(&text);
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    let comment = g.tokens.iter().find(|t| t.kind == TokenKind::Comment);
    assert_eq!(comment.map(|t| t.span.len), Some((10 << 20) + 2));
    let e6 = g
        .tokens
        .iter()
        .rev()
        .nth(1)
        .map(|t| (t.span.line, t.span.column));
    assert_eq!(e6, Some((3 + newlines, 3)));
}

#[test]
fn variations_nested_ten_thousand_deep() {
    const DEPTH: usize = 10_000;
    let mut text = b"[Event \"Deep\"]\n\n1. e3 ".to_vec();
    for _ in 0..DEPTH {
        text.extend_from_slice(b"(1. d3 ");
    }
    text.extend_from_slice(b"d6");
    text.extend(std::iter::repeat_n(b')', DEPTH));
    text.extend_from_slice(b" e6 *\n");
    let games = read(&text);
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics.first());
    let starts = g
        .tokens
        .iter()
        .filter(|t| t.kind == TokenKind::VariationStart)
        .count();
    assert_eq!(starts, DEPTH);

    // Left open, they give one error at the outermost `(`.
    let open = &text[..text.len() - DEPTH - 6];
    let games = read(open);
    assert_eq!(
        diagnostics(&games[0]),
        [
            (DiagnosticKind::UnterminatedVariation, 3, 7),
            (DiagnosticKind::MissingResult, 3, 7 + 7 * DEPTH as u32 + 2),
        ]
    );
}

#[test]
fn a_broken_game_does_not_hide_the_next() {
    let text = b"[Event \"1\"]\n\n1. e3 ) Qz {x\n\n[Event \"2\"]\n\n1. d3 *\n";
    let games = read(text);
    assert_eq!(games.len(), 2);
    assert!(games[0].has_errors());
    assert!(games[1].diagnostics.is_empty());
    assert_eq!(games[1].number, 2);
    assert_eq!(games[1].tag("Event").as_deref(), Some("2"));
}

/// Every reason a token is not a move, each with its place (the token's first character) and
/// the message a reader is shown; the forms come from every part of the move grammar, one part
/// wrong at a time, and a few with several parts wrong.
#[test]
fn every_reason_a_token_is_not_a_move() {
    // Line 2: `1. ` puts the first token at column 4; each later token is 1 column past the
    // end of the one before it.
    let tokens = [
        ("Nz9", SanError::MissingDestination),
        ("e4x", SanError::MissingDestination),
        ("e17", SanError::MissingDestination),
        ("q1", SanError::MissingDestination),
        ("e4!!!", SanError::MissingDestination),
        ("e4++", SanError::MissingDestination),
        ("exd8q", SanError::MissingDestination),
        ("KbcQ", SanError::MissingDestination),
        ("e8=", SanError::BadPromotion),
        ("e8=1", SanError::BadPromotion),
        ("e8==Q", SanError::BadPromotion),
        ("Nf3=Q=R", SanError::BadPromotion),
        ("Ng1g2f3", SanError::BadOrigin),
        ("NNf3", SanError::BadOrigin),
        ("R17a3", SanError::BadOrigin),
        ("Nwc3", SanError::BadOrigin),
        ("N-f3", SanError::DashWithoutOrigin),
        ("Nx-f3", SanError::BadOrigin),
        ("PP", SanError::BadPawnOfPawns),
        ("PPwc", SanError::BadPawnOfPawns),
        ("PPe5=Q", SanError::BadPawnOfPawns),
        ("K:", SanError::BadSwap),
        ("K:xe2", SanError::BadSwap),
        ("K:d9R", SanError::BadSwap),
        ("K:d9=1", SanError::BadPromotion),
        ("K:x=1", SanError::BadPromotion),
        ("Exe2_", SanError::BadWaitingPromotion),
        ("Exe2_c10", SanError::BadWaitingPromotion),
        ("Nz9_c10", SanError::BadWaitingPromotion),
        ("N_e4_c10=E", SanError::BadOrigin),
        ("O-O", SanError::Castling),
        ("O-O-O+", SanError::Castling),
        ("Z0", SanError::NullMove),
    ];
    let mut text = String::from("[Variant \"Tamerlane\"]\n\n1. ");
    let mut expected = Vec::new();
    let mut column = 4;
    for (token, reason) in tokens {
        expected.push((DiagnosticKind::BadMove(reason), 3, column));
        text.push_str(token);
        text.push(' ');
        column += token.chars().count() as u32 + 1;
    }
    text.push('*');
    let games = read(text.as_bytes());
    assert_eq!(games.len(), 1);
    let errors: Vec<_> = diagnostics(&games[0])
        .into_iter()
        .filter(|(kind, _, _)| matches!(kind, DiagnosticKind::BadMove(_)))
        .collect();
    assert_eq!(errors, expected);
    let messages: Vec<String> = games[0]
        .diagnostics
        .iter()
        .filter(|d| matches!(d.kind, DiagnosticKind::BadMove(_)))
        .map(|d| games[0].describe(d, "m.pgn").to_string())
        .collect();
    assert_eq!(
        messages[0],
        "m.pgn:3:4: error: expected a destination square or citadel at the end of the move, found \"Nz9\" (game 1)"
    );
    assert_eq!(
        messages[12],
        format!(
            "m.pgn:3:{}: error: expected a piece letter, then an optional file, rank, square or citadel, then the destination, found \"Ng1g2f3\" (game 1)",
            expected[12].2
        )
    );
    assert!(messages[16].contains("expected a from-square before '-'"));
    assert!(
        messages[18]
            .contains("expected a square after 'PP' (lift or relocation of the pawn of pawns)")
    );
    assert!(messages[21].contains("expected a square after 'K:' (king swap)"));
    assert!(messages[26].contains(
        "expected a square, '=' and a piece letter after '_' (the promotion of a waiting pawn)"
    ));
    assert!(messages[30].contains("castling does not exist in the Shatranj family"));
    assert!(messages[32].contains("null moves are not allowed"));
}
