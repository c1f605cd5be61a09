//! Reading game files: plain, gzip or zstd, from a path or standard input; games replayed in
//! parallel chunks and handed on in input order.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result};

use kabir::notation::game::RawGame;
use kabir::notation::reader::ReadError;
use kabir::parallel::{ReplayOptions, replay_games};
use kabir::replay::Replay;
use kabir::variants::Registry;

/// A reader that adds the bytes it reads to a count, for a progress bar.
struct Counted<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens a game file (`-` is standard input); `.gz` and `.zst` files are decompressed. The
/// reading is unbuffered: it is read in large pieces straight into the blocks of
/// [`replay_games`], with no buffer to copy through. With `bytes`, the bytes read from the
/// file (before decompression, so they can be set against its size) are added to it.
pub fn open(path: &str, bytes: Option<&Arc<AtomicU64>>) -> Result<Box<dyn Read + Send>> {
    let count = |r: Box<dyn Read + Send>| -> Box<dyn Read + Send> {
        match bytes {
            Some(b) => Box::new(Counted {
                inner: r,
                bytes: Arc::clone(b),
            }),
            None => r,
        }
    };
    if path == "-" {
        return Ok(count(Box::new(std::io::stdin())));
    }
    let file = File::open(path).with_context(|| format!("cannot open {path}"))?;
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        anyhow::bail!("{path} is a directory, not a game file");
    }
    let file = count(Box::new(file));
    Ok(match Path::new(path).extension().and_then(|e| e.to_str()) {
        Some("gz") => Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(file))),
        Some("zst") => Box::new(
            zstd::stream::read::Decoder::new(file)
                .with_context(|| format!("cannot read {path} as zstd"))?,
        ),
        _ => file,
    })
}

/// The size of a game file as read, before decompression; `None` for standard input or what
/// has no size (a pipe).
pub fn file_size(path: &str) -> Option<u64> {
    if path == "-" {
        return None;
    }
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// How the games of a file are replayed.
#[derive(Debug, Clone, Default)]
pub struct Replaying {
    /// Keep each position's hash, for an index of positions.
    pub hashes: bool,
    /// Report every move written in coordinate form (see [`ReplayOptions::strict`]).
    pub strict: bool,
    /// Where to count the bytes read, for a progress bar.
    pub bytes: Option<Arc<AtomicU64>>,
}

/// Reads every game of a file and replays it to check it, both on all cores (see
/// [`replay_games`]), and calls `each` with each game and its replay in input order.
pub fn replay_file(
    path: &str,
    registry: &Registry,
    strict: bool,
    mut each: impl FnMut(&RawGame, &Replay) -> Result<()>,
) -> Result<()> {
    let how = Replaying {
        hashes: false,
        strict,
        bytes: None,
    };
    replay_file_with(
        path,
        registry,
        how,
        |raw, r| (raw, r),
        |number, (mut raw, mut r)| {
            // Games are numbered in input order only once they are handed on.
            raw.number = number;
            r.number = number;
            each(&raw, &r)
        },
    )
}

/// [`replay_file`] that hands each game and its replay to `work` on the worker thread that
/// replayed it and what `work` gave to `each`, with the game's number ([`replay_games`]).
pub fn replay_file_with<T: Send>(
    path: &str,
    registry: &Registry,
    how: Replaying,
    work: impl Fn(RawGame, Replay) -> T + Sync,
    each: impl FnMut(u64, T) -> Result<()>,
) -> Result<()> {
    replay_games(
        open(path, how.bytes.as_ref())?,
        registry,
        ReplayOptions {
            hashes: how.hashes,
            strict: how.strict,
            max_game_bytes: None,
        },
        work,
        each,
    )
    .map_err(|e: anyhow::Error| {
        if e.is::<ReadError>() {
            e.context(format!("cannot read {path}"))
        } else {
            e
        }
    })
}
