//! Move generation speed: perft from the start positions.
//!
//! `cargo bench --bench perft`. The figures are recorded in docs/PERFORMANCE.md.
// criterion's group macros define public functions without documentation.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};

use kabir::rules::{Position, perft};

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (variant, depth, nodes) in [
        ("shatranj", 5, 1_164_248u64),
        ("knavish-shatranj", 5, 707_594),
        ("tamerlane", 4, 365_893),
    ] {
        let v = kabir::variants::builtin(variant).expect("built-in variant");
        let mut pos = Position::start(&v);
        group.throughput(criterion::Throughput::Elements(nodes));
        group.bench_function(format!("{variant} depth {depth}"), |b| {
            b.iter(|| assert_eq!(perft(&mut pos, depth), nodes))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
