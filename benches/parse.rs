//! Syntax-only reading speed: a large generated file of games, read game by game with no
//! replay. Moves are random but SAN-shaped, so every token goes through the SAN reader.
// criterion's group macros define public functions without documentation.
#![allow(missing_docs)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter};
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

/// CPU time of the benchmarking thread (from `/proc/thread-self/schedstat`, falling back to
/// wall time elsewhere), so that the figure means "one core" even on a busy machine.
struct CpuTime;

fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Nanoseconds since the benchmark started, by the CPU clock when there is one.
fn now_ns() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    thread_cpu_ns().unwrap_or_else(|| START.get_or_init(Instant::now).elapsed().as_nanos() as u64)
}

struct NsFormatter;

impl ValueFormatter for NsFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e-3, "us")
        } else if typical < 1e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let per_iteration = match *throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => n as f64 / 1e6,
            Throughput::Elements(n) => n as f64 / 1e6,
            Throughput::Bits(n) => n as f64 / 8e6,
        };
        values
            .iter_mut()
            .for_each(|v| *v = per_iteration * 1e9 / *v);
        match *throughput {
            Throughput::Elements(_) => "Melem/s (CPU)",
            _ => "MB/s (CPU)",
        }
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = Duration;

    fn start(&self) -> u64 {
        now_ns()
    }

    fn end(&self, start: u64) -> Duration {
        Duration::from_nanos(now_ns().saturating_sub(start))
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &NsFormatter
    }
}

/// Reads every game, reusing one game's buffers; returns the number of tokens.
fn read_all(text: &[u8]) -> usize {
    let mut reader = Reader::new(text);
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
    tokens
}

fn parse(c: &mut Criterion) {
    let text = generate();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::BytesDecimal(text.len() as u64));
    group.sample_size(10);
    group.bench_function("syntax_only", |b| {
        b.iter(|| read_all(black_box(text.as_bytes())))
    });
    group.bench_function("syntax_only_iterator", |b| {
        b.iter(|| {
            Reader::new(black_box(text.as_bytes()))
                .filter_map(Result::ok)
                .count()
        })
    });
    group.finish();
}

fn parse_cpu(c: &mut Criterion<CpuTime>) {
    let text = generate();
    let mut group = c.benchmark_group("parse_cpu");
    group.throughput(Throughput::BytesDecimal(text.len() as u64));
    group.sample_size(10);
    group.bench_function("syntax_only", |b| {
        b.iter(|| read_all(black_box(text.as_bytes())))
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(CpuTime);
    targets = parse_cpu
}
criterion_main!(benches, cpu);
