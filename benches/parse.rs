//! Syntax-only reading speed: a large generated file of games, read game by game with no
//! replay. Moves are random but SAN-shaped, so every token goes through the SAN reader.
use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kabir::notation::game::RawGame;
use kabir::notation::reader::Reader;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// About this many bytes of games.
const TARGET_BYTES: usize = 32 * 1024 * 1024;

fn square(rng: &mut ChaCha8Rng, files: u8, ranks: u8, out: &mut String) {
    out.push((b'a' + rng.random_range(0..files)) as char);
    let _ = write!(out, "{}", rng.random_range(1..=ranks));
}

/// One SAN-shaped move, Shatranj or Tamerlane letters.
fn random_move(rng: &mut ChaCha8Rng, tamerlane: bool, out: &mut String) {
    let (files, ranks, pieces): (u8, u8, &[u8]) = if tamerlane {
        (11, 10, b"KSAGVZTNRECW")
    } else {
        (8, 8, b"KQBNR")
    };
    match rng.random_range(0..100) {
        0..40 => {
            if rng.random_bool(0.3) {
                out.push((b'a' + rng.random_range(0..files)) as char);
                out.push('x');
            }
            square(rng, files, ranks, out);
            if rng.random_bool(0.02) {
                out.push_str("=Q");
            }
        }
        40..95 => {
            out.push(pieces[rng.random_range(0..pieces.len())] as char);
            if rng.random_bool(0.05) {
                out.push((b'a' + rng.random_range(0..files)) as char);
            }
            if rng.random_bool(0.3) {
                out.push('x');
            }
            square(rng, files, ranks, out);
        }
        95..97 if tamerlane => {
            out.push_str("PP");
            square(rng, files, ranks, out);
        }
        97..99 if tamerlane => {
            out.push_str("K:");
            square(rng, files, ranks, out);
        }
        _ => square(rng, files, ranks, out),
    }
    if rng.random_bool(0.05) {
        out.push('+');
    }
}

/// A file of games in the shape exported by common tools: the seven tags and a few more,
/// numbered movetext of 40 to 160 plies with some comments, NAGs and variations.
fn generate() -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(0x006b_6162_6972);
    let mut out = String::with_capacity(TARGET_BYTES + 4096);
    let mut n = 0u64;
    while out.len() < TARGET_BYTES {
        n += 1;
        let tamerlane = n.is_multiple_of(3);
        let variant = if tamerlane { "Tamerlane" } else { "Shatranj" };
        let _ = write!(
            out,
            "[Event \"Generated {n}\"]\n[Site \"?\"]\n[Date \"2024.01.01\"]\n[Round \"{n}\"]\n\
             [White \"Player {}\"]\n[Black \"Player {}\"]\n[Result \"*\"]\n[Variant \"{variant}\"]\n\
             [TimeControl \"300+3\"]\n\n",
            rng.random_range(0..1000),
            rng.random_range(0..1000)
        );
        let plies = rng.random_range(40..160);
        let mut line_len = 0;
        for ply in 0..plies {
            let start = out.len();
            if ply % 2 == 0 {
                let _ = write!(out, "{}. ", ply / 2 + 1);
            }
            random_move(&mut rng, tamerlane, &mut out);
            match rng.random_range(0..200) {
                0..4 => out.push_str(" {a short comment on the move}"),
                4..6 => out.push_str(" $1"),
                6 => {
                    out.push_str(" (");
                    random_move(&mut rng, tamerlane, &mut out);
                    out.push(' ');
                    random_move(&mut rng, tamerlane, &mut out);
                    out.push(')');
                }
                _ => {}
            }
            line_len += out.len() - start + 1;
            if line_len > 78 {
                out.push('\n');
                line_len = 0;
            } else {
                out.push(' ');
            }
        }
        out.push_str("*\n\n");
    }
    out
}

fn parse(c: &mut Criterion) {
    let text = generate();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.bench_function("syntax_only", |b| {
        b.iter(|| {
            let mut reader = Reader::new(black_box(text.as_bytes()));
            let mut game = RawGame::default();
            let mut tokens = 0usize;
            while let Ok(true) = reader.read_game_into(&mut game) {
                tokens += game.tokens.len();
                assert!(
                    game.diagnostics.is_empty(),
                    "{:?}",
                    game.diagnostics.first()
                );
            }
            black_box(tokens)
        })
    });
    group.bench_function("syntax_only_iterator", |b| {
        b.iter(|| {
            let games = Reader::new(black_box(text.as_bytes()))
                .filter_map(Result::ok)
                .count();
            black_box(games)
        })
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
