//! Reading game files: plain, gzip or zstd, from a path or standard input; games replayed in
//! parallel chunks and handed on in input order.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use anyhow::{Context, Result};
use rayon::prelude::*;

use kabir::notation::game::RawGame;
use kabir::notation::reader::Reader;
use kabir::replay::{Replay, replay};
use kabir::variants::Registry;

/// Games replayed at once; bounds memory to this many games (and their replays) at a time.
/// Each takes tens of kilobytes while it is replayed; a few hundred keep both cores busy.
const CHUNK: usize = 256;

/// Opens a game file (`-` is standard input); `.gz` and `.zst` files are decompressed.
pub fn open(path: &str) -> Result<Box<dyn BufRead + Send>> {
    if path == "-" {
        return Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            std::io::stdin(),
        )));
    }
    let file = File::open(path).with_context(|| format!("cannot open {path}"))?;
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        anyhow::bail!("{path} is a directory, not a game file");
    }
    let inner: Box<dyn Read + Send> = match Path::new(path).extension().and_then(|e| e.to_str()) {
        Some("gz") => Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(file))),
        Some("zst") => Box::new(
            zstd::stream::read::Decoder::new(file)
                .with_context(|| format!("cannot read {path} as zstd"))?,
        ),
        _ => Box::new(file),
    };
    Ok(Box::new(BufReader::with_capacity(1 << 16, inner)))
}

/// Reads every game of a file, replays them on all cores, and calls `each` with each game and
/// its replay in input order.
pub fn replay_file(
    path: &str,
    registry: &Registry,
    mut each: impl FnMut(&RawGame, &Replay) -> Result<()>,
) -> Result<()> {
    let mut reader = Reader::new(open(path)?);
    loop {
        let mut chunk: Vec<RawGame> = Vec::with_capacity(CHUNK);
        while chunk.len() < CHUNK {
            // The iterator sizes each game's buffers from the last one.
            match reader.next() {
                Some(game) => chunk.push(game.with_context(|| format!("cannot read {path}"))?),
                None => break,
            }
        }
        if chunk.is_empty() {
            return Ok(());
        }
        let replays: Vec<Replay> = chunk.par_iter().map(|g| replay(g, registry)).collect();
        for (raw, r) in chunk.iter().zip(&replays) {
            each(raw, r)?;
        }
    }
}
