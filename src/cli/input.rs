//! Reading game files: plain, gzip or zstd, UTF-8, UTF-16 or UTF-32, from a path or standard
//! input; games replayed in parallel chunks and handed on in input order.

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

use kabir_input::{
    self as decode, Compression, GzipMembers, HEAD, Peeked, Trailing, compression, looks_like_text,
};

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

/// Opens a game file (`-` is standard input) as UTF-8 text: gzip and zstd are decompressed,
/// UTF-16 and UTF-32 decoded, each told by the first bytes whatever the file's name
/// ([`decode`](super::decode)). Plain text is read unbuffered: in large pieces straight into
/// the blocks of [`replay_games`], with no buffer to copy through. With
/// `bytes`, the bytes read from the file (before decompression, so they can be set against its
/// size) are added to it. `trailing` hears of bytes after a gzip file's data, found only once
/// the file is read: see [`check_trailing`].
pub fn open(
    path: &str,
    bytes: Option<&Arc<AtomicU64>>,
    trailing: &Trailing,
) -> Result<Box<dyn Read + Send>> {
    let count = |r: Box<dyn Read + Send>| -> Box<dyn Read + Send> {
        match bytes {
            Some(b) => Box::new(Counted {
                inner: r,
                bytes: Arc::clone(b),
            }),
            None => r,
        }
    };
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        let file = File::open(path).with_context(|| format!("cannot open {path}"))?;
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            anyhow::bail!("{path} is a directory, not a game file");
        }
        Box::new(file)
    };
    let cannot_read = || format!("cannot read {path}");
    let raw = Peeked::new(count(raw), HEAD).with_context(cannot_read)?;
    let decompressed: Box<dyn Read + Send> = match compression(raw.head()) {
        Compression::Gzip => Box::new(GzipMembers::new(
            BufReader::with_capacity(GZIP_BUFFER, raw),
            trailing.clone(),
        )),
        Compression::Zstd => Box::new(
            zstd::stream::read::Decoder::new(raw)
                .with_context(|| format!("cannot read {path} as zstd"))?,
        ),
        Compression::Foreign { what, how } => anyhow::bail!(
            "cannot read {path}: it is {what}; kabir reads game files as text, gzip or \
             zstd: {how}"
        ),
        Compression::None => {
            // Text under a compressed file's name (a browser that decompressed what it
            // downloaded) is read as text; anything else is no game file, and would give
            // a syntax error for every byte.
            let named = Path::new(path).extension().and_then(|e| e.to_str());
            if let Some(ext @ ("gz" | "zst")) = named
                && !looks_like_text(raw.head())
            {
                let format = if ext == "gz" { "gzip" } else { "zstd" };
                let head: Vec<String> = raw.head().iter().map(|b| format!("{b:02x}")).collect();
                anyhow::bail!(
                    "cannot read {path}: named .{ext}, but it is neither {format} data nor \
                     text (it starts with the bytes {})",
                    head.join(" ")
                );
            }
            Box::new(raw)
        }
    };
    let text = Peeked::new(decompressed, HEAD).with_context(cannot_read)?;
    let encoding = decode::encoding(text.head());
    Ok(decode::as_utf8(text, encoding))
}

/// The buffer gzip data is read through: the decoder asks for a few bytes at a time, and the
/// file is then read in few system calls.
const GZIP_BUFFER: usize = 64 * 1024;

/// The error for a file whose gzip data was followed by bytes that are not gzip (the games
/// before them were read: they are whole, each member checked by its CRC), as `gzip -d`
/// stops there with a warning and exit status 2.
pub fn check_trailing(path: &str, trailing: &Trailing) -> Result<()> {
    match trailing.garbage_at() {
        Some(at) => anyhow::bail!(
            "cannot read {path} to its end: its gzip data ends at byte {at}, and the bytes \
             after it are not gzip data (the games before them were read)"
        ),
        None => Ok(()),
    }
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
    /// The most bytes one game's text may take (`--max-game-size`).
    pub max_game_bytes: usize,
}

/// Reads every game of a file and replays it to check it, both on all cores (see
/// [`replay_games`]), and calls `each` with each game and its replay in input order.
pub fn replay_file(
    path: &str,
    registry: &Registry,
    how: Replaying,
    mut each: impl FnMut(&RawGame, &Replay) -> Result<()>,
) -> Result<()> {
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
    let trailing = Trailing::default();
    replay_games(
        open(path, how.bytes.as_ref(), &trailing)?,
        registry,
        ReplayOptions {
            hashes: how.hashes,
            strict: how.strict,
            max_game_bytes: Some(how.max_game_bytes),
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
    })?;
    check_trailing(path, &trailing)
}
