//! Reading against replaying, on one core, on a real game file:
//!
//! ```sh
//! cargo bench --bench replay_file -- FILE.pgn
//! ```
//!
//! The file is read into memory first, so no I/O is timed. It is then read three times
//! syntax-only (games split, tags and tokens read, every move's SAN syntax checked) and three
//! times with every game replayed (`kabir::replay::replay_unhashed`, the work of
//! `kabir validate`), all on the calling thread; the best time of each is printed with its
//! throughput and their ratio. `benches/validate_import.sh` runs it on the generated files of docs/PERFORMANCE.md.
use std::time::{Duration, Instant};

use kabir::notation::reader::Reader;
use kabir::replay::replay_unhashed;
use kabir::variants::Registry;

fn best_of(runs: usize, mut f: impl FnMut() -> u64) -> (Duration, u64) {
    let mut best = Duration::MAX;
    let mut out = 0;
    for _ in 0..runs {
        let t = Instant::now();
        out = f();
        best = best.min(t.elapsed());
    }
    (best, out)
}

fn main() {
    // `cargo bench` passes `--bench`; the file is the first other argument.
    let Some(path) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench --bench replay_file -- FILE.pgn");
        return;
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let registry = Registry::builtin();
    let mb = bytes.len() as f64 / 1e6;
    let (read, games) = best_of(3, || {
        Reader::new(&bytes[..])
            .filter_map(Result::ok)
            .map(|_| 1)
            .sum()
    });
    let (replayed, plies) = best_of(3, || {
        Reader::new(&bytes[..])
            .filter_map(Result::ok)
            .map(|g| {
                let r = replay_unhashed(&g, &registry);
                r.game.as_ref().map_or(0, |g| g.moves().len() as u64)
            })
            .sum()
    });
    let rate = |d: Duration| mb / d.as_secs_f64();
    println!("{path}: {mb:.1} MB, {games} games, {plies} plies, one core");
    println!(
        "syntax only: {:.3} s, {:.1} MB/s, {:.0} games/s",
        read.as_secs_f64(),
        rate(read),
        games as f64 / read.as_secs_f64()
    );
    println!(
        "full replay: {:.3} s, {:.1} MB/s, {:.0} games/s, {:.2} M plies/s",
        replayed.as_secs_f64(),
        rate(replayed),
        games as f64 / replayed.as_secs_f64(),
        plies as f64 / replayed.as_secs_f64() / 1e6
    );
    println!(
        "full replay costs {:.2} times syntax-only reading",
        replayed.as_secs_f64() / read.as_secs_f64()
    );
}
