//! The checks behind the fuzz targets in `fuzz/`, shared with `tests/fuzz_regressions.rs` so
//! that every input a fuzzer ever found is replayed through exactly the same code in CI.
//!
//! Each check takes arbitrary bytes and panics only when kabir breaks one of its promises:
//! a panic inside the library, or an invariant (round trip, hash, span) that does not hold.
#![allow(dead_code)]

use std::sync::{Arc, OnceLock};

use kabir::generate::{Options, random_game};
use kabir::notation::game::{RawGame, Severity, TokenKind};
use kabir::notation::grammar::{self, Element, Item, Parsed, TypedPawns};
use kabir::notation::reader::Reader;
use kabir::notation::san::{PackedFastSan, SanPlus};
use kabir::notation::{resolve, san};
use kabir::replay::replay;
use kabir::rules::{Position, Variant};
use kabir::variants::{Registry, builtin, builtin_ids, from_toml};

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Registry::builtin)
}

fn variants() -> &'static [Arc<Variant>] {
    static VARIANTS: OnceLock<Vec<Arc<Variant>>> = OnceLock::new();
    VARIANTS.get_or_init(|| {
        builtin_ids()
            .iter()
            .map(|id| builtin(id).unwrap())
            .collect()
    })
}

/// Positions from generated games of every built-in variant: the places where fuzzed move
/// text is tried. Built once; the same for every run.
fn positions() -> &'static [Position] {
    static POSITIONS: OnceLock<Vec<Position>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        let mut out = Vec::new();
        for variant in variants() {
            for i in 0..8 {
                let options = Options {
                    max_plies: 40 * i as usize + 1,
                    ..Options::default()
                };
                let game = random_game(variant, 17, i, &options);
                let mut pos = game.start().clone();
                for (ply, &m) in game.moves().iter().enumerate() {
                    if ply % 13 == 0 {
                        out.push(pos.clone());
                    }
                    pos.play_unchecked(m);
                }
                out.push(pos);
            }
        }
        out
    })
}

/// Reads the bytes as a file of games, replays each game and writes the valid ones
/// canonically; the canonical text must read and replay to the same moves again.
pub fn reader(data: &[u8]) {
    let mut offset = 0u64;
    let mut game = RawGame::default();
    let mut reader = Reader::new(data);
    while reader
        .read_game_into(&mut game)
        .expect("reading from memory cannot fail")
    {
        assert!(game.source_offset >= offset, "games go forward");
        offset = game.source_offset + game.source.len() as u64;
        assert!(offset <= data.len() as u64);
        for d in &game.diagnostics {
            assert!(d.span.offset >= game.source_offset, "{d:?}");
            assert!(d.span.end() <= offset, "{d:?}");
            assert!(d.span.line >= 1 && d.span.column >= 1, "{d:?}");
        }
        let r = replay(&game, registry());
        if r.is_valid() {
            let text = r.write_canonical(&game);
            let again = Reader::new(text.as_bytes())
                .next()
                .expect("the canonical text holds a game")
                .expect("reading from memory cannot fail");
            let r2 = replay(&again, registry());
            assert!(r2.is_valid(), "{text}\n{:?}", r2.problems);
            let moves = |r: &kabir::replay::Replay| r.game.as_ref().map(|g| g.moves().to_vec());
            assert_eq!(moves(&r), moves(&r2), "{text}");
        }
    }
}

/// The first byte picks a variant, the rest is a position string. A position that reads must
/// write back to a string that reads to the same position, with a consistent hash, and every
/// legal move must play and take back cleanly.
pub fn fen(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let variant = &variants()[pick as usize % variants().len()];
    let text = String::from_utf8_lossy(rest);
    let Ok(pos) = Position::from_fen(variant, &text) else {
        return;
    };
    let written = pos.to_fen();
    let again = Position::from_fen(variant, &written)
        .unwrap_or_else(|e| panic!("{text:?} wrote {written:?}, which does not read: {e}"));
    assert_eq!(again, pos, "{text:?} -> {written:?}");
    assert_eq!(again.to_fen(), written);
    assert_eq!(pos.hash(), pos.compute_hash(), "{text:?}");
    let _ = pos.status();
    let mut scratch = pos.clone();
    for m in pos.legal_moves() {
        let undo = scratch.play_unchecked(m);
        assert_eq!(scratch.hash(), scratch.compute_hash(), "{written} {m:?}");
        let _ = scratch.to_fen();
        scratch.undo(undo);
        assert_eq!(scratch, pos, "{written}: undo of {m:?}");
    }
}

/// The first byte picks a position from generated games, the rest is move text. Every token
/// is read as a move and resolved; a move that resolves writes back to SAN naming it alone.
/// The text is also replayed as a whole game from that position.
pub fn san_replay(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let start = &positions()[pick as usize % positions().len()];
    let legal = start.legal_moves();
    for token in rest.split(|b| b.is_ascii_whitespace()).take(64) {
        let Ok(san_plus) = SanPlus::from_ascii(token) else {
            continue;
        };
        if let Ok(m) = resolve(&san_plus.san, start, &legal) {
            assert!(legal.contains(&m), "{token:?} resolved to an illegal move");
            let canonical = san(start, m, &legal);
            let back = SanPlus::from_ascii(canonical.as_bytes())
                .unwrap_or_else(|e| panic!("canonical {canonical:?} does not read: {e:?}"));
            assert_eq!(
                resolve(&back.san, start, &legal).ok(),
                Some(m),
                "{canonical:?} in {}",
                start.to_fen()
            );
        }
    }
    let mut text = format!(
        "[Variant \"{}\"]\n[FEN \"{}\"]\n\n",
        start.variant().id(),
        start.to_fen()
    )
    .into_bytes();
    text.extend_from_slice(rest);
    reader(&text);
}

/// The bytes as a variant definition; one that loads must give a start position whose
/// legal moves play, take back and write as position strings that read back.
pub fn variant_definition(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(variant) = from_toml(text, "fuzz") else {
        return;
    };
    let start = Position::start(&variant);
    let written = start.to_fen();
    let again = Position::from_fen(&variant, &written)
        .unwrap_or_else(|e| panic!("start {written:?} does not read back: {e}"));
    assert_eq!(again, start);
    let mut scratch = start.clone();
    for m in start.legal_moves().into_iter().take(200) {
        let undo = scratch.play_unchecked(m);
        assert_eq!(scratch.hash(), scratch.compute_hash(), "{m:?}");
        let after = scratch.to_fen();
        let read = Position::from_fen(&variant, &after)
            .unwrap_or_else(|e| panic!("{after:?} after {m:?} does not read back: {e}"));
        assert_eq!(read, scratch, "{after}");
        let _ = scratch.legal_moves();
        scratch.undo(undo);
        assert_eq!(scratch, start);
    }
}

/// The bytes read by the grammar (`kabir::notation::grammar`): as games, moves and a position
/// string. Every production reads them without a panic and leaves the end of its input; the
/// reader reads them as the grammar does ([`reader_as_grammar`]); the fast path of moves
/// reads every token as the grammar does, errors included; a move writes back to text that
/// reads as the same move; and a position string that a built-in variant reads is one the
/// grammar's `position` reads whole.
pub fn grammar(data: &[u8]) {
    fn rest<O>(input: &[u8], parsed: Parsed<'_, O>) {
        if let Ok((rest, _)) = parsed {
            assert!(
                std::ptr::eq(rest, &input[input.len() - rest.len()..]),
                "not the end of {input:?}"
            );
        }
    }
    const PAWNS: [TypedPawns; 2] = [TypedPawns::NONE, TypedPawns::NONE.with(b'P')];
    rest(data, grammar::r#move(data));
    rest(data, grammar::special(data));
    rest(data, grammar::lift(data));
    rest(data, grammar::swap(data));
    rest(data, grammar::ordinary(data));
    rest(data, grammar::origin(data));
    rest(data, grammar::promotion(data));
    rest(data, grammar::waiting(data));
    rest(data, grammar::check(data));
    rest(data, grammar::glyph(data));
    rest(data, grammar::place(data));
    rest(data, grammar::square(data));
    rest(data, grammar::citadel(data));
    rest(data, grammar::file(data));
    rest(data, grammar::rank(data));
    rest(data, grammar::piece(data));
    rest(data, grammar::lower_piece(data));
    rest(data, grammar::number(data));
    rest(data, grammar::number0(data));
    rest(data, grammar::digit(data));
    rest(data, grammar::nonzero_digit(data));
    rest(data, grammar::side(data));
    rest(data, grammar::state(data));
    rest(data, grammar::waiting_order(data));
    rest(data, grammar::ws(data));
    for pawns in PAWNS {
        rest(data, grammar::position(pawns)(data));
        rest(data, grammar::board(pawns)(data));
        rest(data, grammar::rank_cells(pawns)(data));
        rest(data, grammar::cell_piece(pawns)(data));
    }
    // Games, tag pairs and movetext.
    rest(data, grammar::games(data));
    rest(data, grammar::game(data));
    rest(data, grammar::bom(data));
    rest(data, grammar::blank(data));
    rest(data, grammar::eol(data));
    rest(data, grammar::tag_line(data));
    rest(data, grammar::tag_pair(data));
    rest(data, grammar::tag_name(data));
    rest(data, grammar::name_char(data));
    rest(data, grammar::tag_value(data));
    rest(data, grammar::movetext(data));
    rest(data, grammar::element(data));
    rest(data, grammar::variation(data));
    rest(data, grammar::move_number(data));
    rest(data, grammar::dots(data));
    rest(data, grammar::nag(data));
    rest(data, grammar::comment(data));
    rest(data, grammar::line_comment(data));
    rest(data, grammar::escape_line(data));
    rest(data, grammar::result(data));
    reader_as_grammar(data);
    for token in data.split(|b| b.is_ascii_whitespace()).take(64) {
        let read = grammar::read_move(token);
        assert_eq!(SanPlus::from_ascii(token), read, "{token:?}");
        assert_eq!(SanPlus::check(token), read.map(|_| ()), "{token:?}");
        if let Ok(m) = read {
            let written = m.to_string();
            assert_eq!(
                grammar::read_move(written.as_bytes()),
                Ok(m),
                "{token:?} written {written:?}"
            );
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        for variant in variants() {
            if Position::from_fen(variant, text).is_ok() {
                assert!(
                    PAWNS
                        .into_iter()
                        .any(|p| matches!(grammar::position(p)(data), Ok(([], _)))),
                    "{} reads {text:?}, the grammar does not",
                    variant.id()
                );
            }
        }
    }
}

/// The reader reads what the grammar reads (`grammar::games`, the reference): where the
/// grammar reads the whole input, the reader finds the same games, with the same tag pairs
/// and tokens at the same places (line and column included) and no error; where the reader
/// finds no error, the grammar reads the whole input. Text that is not UTF-8 is left out:
/// the productions read bytes, and the reader alone reports those that are not UTF-8.
pub fn reader_as_grammar(data: &[u8]) {
    if std::str::from_utf8(data).is_err() {
        return;
    }
    let games: Vec<RawGame> = Reader::new(data)
        .collect::<Result<_, _>>()
        .expect("reading from memory cannot fail");
    let errors: Vec<_> = games
        .iter()
        .flat_map(|g| &g.diagnostics)
        .filter(|d| d.kind.severity() == Severity::Error)
        .collect();
    let read = match grammar::games(data) {
        Ok(([], read)) => Some(read),
        _ => None,
    };
    let text = String::from_utf8_lossy(data);
    assert_eq!(
        read.is_some(),
        errors.is_empty(),
        "{text:?}: the grammar reads it: {}; the reader's errors: {errors:?}",
        read.is_some()
    );
    let Some(read) = read else { return };
    assert_eq!(read.len(), games.len(), "{text:?}: games");
    let places = Places::new(data);
    let offset = |part: &[u8]| (part.as_ptr() as usize - data.as_ptr() as usize) as u64;
    for (game, by_grammar) in games.iter().zip(&read) {
        let tags: Vec<_> = game
            .tags
            .iter()
            .map(|t| [t.span, t.name, t.value].map(|s| (s.offset, s.len, s.line, s.column)))
            .collect();
        let expected: Vec<_> = by_grammar
            .tags
            .iter()
            .map(|t| [t.text, t.name, t.value].map(|p| places.span(offset(p), p.len() as u64)))
            .collect();
        assert_eq!(tags, expected, "{text:?}: tags");
        let mut expected: Vec<(TokenKind, (u64, u64, u32, u32))> = Vec::new();
        for &(part, item) in &by_grammar.items {
            let kind = match item {
                Item::VariationStart => TokenKind::VariationStart,
                Item::VariationEnd => TokenKind::VariationEnd,
                Item::Result(r) => TokenKind::Result(r),
                Item::Element(element) => match element {
                    Element::MoveNumber { number, black } => {
                        TokenKind::MoveNumber { number, black }
                    }
                    Element::Move(text, _) => TokenKind::Move(PackedFastSan::of(text)),
                    Element::Nag(n) => TokenKind::Nag(n),
                    Element::Glyph(g) => TokenKind::Nag(g.nag()),
                    Element::Comment(_) => TokenKind::Comment,
                    Element::LineComment(_) => TokenKind::LineComment,
                    Element::Escape(_) => TokenKind::Escape,
                    Element::Dots(n) => {
                        // Three dots standing apart say that the number before them is
                        // Black's.
                        if n >= 3
                            && let Some((TokenKind::MoveNumber { black, .. }, _)) =
                                expected.last_mut()
                        {
                            *black = true;
                        }
                        continue;
                    }
                    Element::Variation(_) => panic!("a game's items hold no variation whole"),
                },
            };
            expected.push((kind, places.span(offset(part), part.len() as u64)));
        }
        let tokens: Vec<_> = game
            .tokens
            .iter()
            .map(|t| {
                (
                    t.kind,
                    (t.span.offset, t.span.len, t.span.line, t.span.column),
                )
            })
            .collect();
        assert_eq!(tokens, expected, "{text:?}: tokens");
    }
}

/// Lines and columns of byte offsets, counted as notation spec 1.3 says: `\n`, `\r\n` and
/// `\r` each end a line; columns count characters from 1, a byte-order mark at the start of a
/// line (and the file's own before it) not counted.
struct Places {
    /// For each byte offset, its line and column.
    at: Vec<(u32, u32)>,
}

impl Places {
    fn new(data: &[u8]) -> Places {
        let mut at = Vec::with_capacity(data.len() + 1);
        let (mut line, mut column) = (1u32, 1u32);
        let mut i = 0;
        let mut line_start = 0;
        while i <= data.len() {
            at.push((line, column));
            match data.get(i) {
                None => break,
                Some(b'\n') => {
                    (line, column) = (line + 1, 1);
                    line_start = i + 1;
                }
                Some(b'\r') if data.get(i + 1) != Some(&b'\n') => {
                    (line, column) = (line + 1, 1);
                    line_start = i + 1;
                }
                Some(b'\r') => {}
                Some(_) if i == line_start && data[i..].starts_with(b"\xEF\xBB\xBF") => {
                    at.push((line, column));
                    at.push((line, column));
                    // One per line, and one more for the file's own (files joined with
                    // `cat`, the first of them empty but for its mark).
                    if i == 0 {
                        line_start = 3;
                    }
                    i += 3;
                    continue;
                }
                Some(&b) => column += u32::from(b & 0xC0 != 0x80),
            }
            i += 1;
        }
        Places { at }
    }

    fn span(&self, offset: u64, len: u64) -> (u64, u64, u32, u32) {
        let (line, column) = self.at[offset as usize];
        (offset, len, line, column)
    }
}
