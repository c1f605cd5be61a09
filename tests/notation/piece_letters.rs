//! Other languages' piece letters: the tables of `notation-spec/README.md` section 5 are those
//! the code reads with, and games written in each set replay as the same games.
//!
//! The tables are written by `render_tables`; after a change to the sets or to a variant's
//! roles, `KABIR_BLESS=1 cargo test --release --test notation piece_letters` rewrites them.

use kabir::notation::reader::{Reader, ReaderOptions};
use kabir::notation::replay::{ProblemKind, replay};
use kabir::rules::letters::{self, Role, SETS};
use kabir::rules::{Position, Variant};
use kabir::variants::{self, Registry};

const SPEC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/notation-spec/README.md");
const BEGIN: &str = "<!-- piece-letters: begin (written by tests/notation/piece_letters.rs) -->\n";
const END: &str = "<!-- piece-letters: end -->\n";

/// The sets, the pieces each variant names with them, and the letters each set takes over.
fn render_tables() -> String {
    let mut out = String::new();
    out.push_str("| set | language | king | queen | rook | bishop | knight | pawn |\n");
    out.push_str("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for set in &SETS {
        let cells: Vec<String> = Role::ALL
            .iter()
            .map(|&r| match (set.letter(r), set.word(r)) {
                (Some(l), Some(w)) => format!("`{l}` ({w})"),
                _ => "none".to_string(),
            })
            .collect();
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            set.code,
            set.language,
            cells.join(" | ")
        ));
    }
    out.push_str(
        "\nThe piece that plays each role (`role` in the variant's file; every pawn plays the \
         pawn), and the variant's own letters that each set reads as another piece (`B` alfil → \
         pawn: with that set, `B` is a pawn, not the alfil):\n\n",
    );
    out.push_str("| variant | king | queen | rook | bishop | knight | letters taken over |\n");
    out.push_str("| --- | --- | --- | --- | --- | --- | --- |\n");
    for v in variants::builtins() {
        let cells: Vec<String> = Role::ALL[..5]
            .iter()
            .map(|&r| match v.kind_by_role(r) {
                Some(k) => format!("{} `{}`", v.kind(k).name, v.kind(k).symbol),
                None => "none".to_string(),
            })
            .collect();
        let mut taken = Vec::new();
        for set in &SETS {
            let view = v.with_piece_letters(set);
            let list: Vec<String> = view
                .letters_taken_over()
                .into_iter()
                .map(|(l, own, now)| {
                    format!(
                        "`{l}` {} → {}",
                        v.kind(own).name.to_lowercase(),
                        v.kind(now).name.to_lowercase()
                    )
                })
                .collect();
            if !list.is_empty() {
                taken.push(format!("{}: {}", set.code, list.join(", ")));
            }
        }
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            v.name(),
            cells.join(" | "),
            if taken.is_empty() {
                "none".to_string()
            } else {
                taken.join("; ")
            }
        ));
    }
    out
}

#[test]
fn the_spec_tables_are_the_code_tables() {
    let spec = std::fs::read_to_string(SPEC).unwrap();
    let (Some(b), Some(e)) = (spec.find(BEGIN), spec.find(END)) else {
        panic!("notation-spec/README.md has no piece-letters markers");
    };
    let written = &spec[b + BEGIN.len()..e];
    let rendered = render_tables();
    if written != rendered {
        if std::env::var_os("KABIR_BLESS").is_some() {
            let new = format!("{}{rendered}{}", &spec[..b + BEGIN.len()], &spec[e..]);
            std::fs::write(SPEC, new).unwrap();
        } else {
            panic!(
                "notation-spec/README.md section 5's tables differ from the code; \
                 KABIR_BLESS=1 rewrites them:\n{rendered}"
            );
        }
    }
}

/// The moves of a game written in a set's letters, from its canonical text.
fn in_set(variant: &Variant, set: &letters::PieceLetters, canonical: &str) -> String {
    canonical
        .split(' ')
        .map(|word| {
            let mut out = String::new();
            let mut prev = None;
            for (i, c) in word.char_indices() {
                if c.is_ascii_uppercase() && (i == 0 || prev == Some('=')) {
                    let k = variant.kind_by_symbol(&c.to_string()).unwrap();
                    match variant.kind(k).role.and_then(|r| set.letter(r)) {
                        Some(l) => out.push_str(l),
                        None => out.push(c),
                    }
                } else {
                    out.push(c);
                }
                prev = Some(c);
            }
            out
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Random Shatranj games, written in each set's letters, replay under that set as the same
/// games, with no warning; read with the variant's own letters, every game with a piece move
/// that the set writes differently is not.
#[test]
fn shatranj_games_in_every_set_replay_as_written_in_english() {
    let variant = variants::builtin("shatranj").unwrap();
    let options = kabir::rules::generate::Options {
        max_plies: 80,
        ..Default::default()
    };
    for round in 0..12 {
        let game = kabir::rules::generate::random_game(&variant, 7, round, &options);
        let mut pos = Position::start(&variant);
        let mut sans = Vec::new();
        for &m in game.moves() {
            sans.push(kabir::notation::san(&pos, m, &pos.legal_moves()));
            pos = pos.after(m);
        }
        let canonical = sans.join(" ");
        for set in &SETS {
            let text = in_set(&variant, set, &canonical);
            let pgn = format!("[Variant \"Shatranj\"]\n\n{text} *\n");
            let registry = Registry::builtin().with_piece_letters(set);
            let options = ReaderOptions {
                piece_letters: Some(set),
                ..ReaderOptions::default()
            };
            let raw = Reader::with_options(pgn.as_bytes(), options)
                .next()
                .unwrap()
                .unwrap();
            let r = replay(&raw, &registry);
            // Check marks and results are not written here: only what the letters change.
            let problems: Vec<String> = r
                .problems
                .iter()
                .filter(|p| p.kind == ProblemKind::NonCanonical || p.error)
                .map(|p| format!("{}: {}", p.text, p.message))
                .collect();
            assert!(
                problems.is_empty(),
                "{} game {round}: {text}\n{problems:?}",
                set.code
            );
            assert_eq!(
                r.game.as_ref().unwrap().moves(),
                game.moves(),
                "{} game {round}",
                set.code
            );
        }
    }
}
