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
