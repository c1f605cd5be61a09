//! Reading a game file on all cores.
//!
//! The input is cut into blocks of about [`BLOCK`] bytes, each ending just before a line that
//! starts with `[` after a line that does not: where a game usually begins. Each block is read
//! by its own [`Reader`], and its games are worked on (replayed, say) by the same thread while
//! their bytes are still in its cache. The games come back in input order, numbered, with the
//! same spans, tokens and diagnostics as one [`Reader`] over the whole input gives.
//!
//! A cut is only a guess at a game boundary. After reading a block, its reader says whether
//! its last game ran to the block's end in a state where a `[` line would begin a new game
//! ([`Reader::ended_open`]). If not (a comment left open, a game of tags only), that game is
//! read again together with the next block, on the calling thread, so the answer never depends
//! on where the cuts fell.

use std::io::{self, Read};

use super::game::RawGame;
use super::reader::{ReadError, Reader, ReaderOptions};

/// The size a block is cut at (a block grows past it to hold a longer game).
pub const BLOCK: usize = 256 * 1024;

/// A piece of the input that starts where a game may start.
#[derive(Debug)]
struct Block {
    bytes: Vec<u8>,
    /// Where the block starts in the input: byte offset and line number.
    offset: u64,
    line: u32,
}

/// The number of line ends in `bytes` as the reader counts them: `\n`, `\r\n` and a lone
/// `\r`.
fn count_lines(bytes: &[u8]) -> u32 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    let pairs_and_returns = match memchr::memchr(b'\r', bytes) {
        None => 0,
        Some(_) => {
            let returns = memchr::memchr_iter(b'\r', bytes).count();
            let pairs = memchr::memmem::find_iter(bytes, b"\r\n").count();
            returns - pairs
        }
    };
    u32::try_from(newlines + pairs_and_returns).unwrap_or(u32::MAX)
}

/// Whether the line that ends just before `at` (a line start) begins with `[` after blanks.
fn previous_line_is_tags(bytes: &[u8], at: usize) -> bool {
    let before = bytes.get(..at).unwrap_or(&[]);
    let body = before.strip_suffix(b"\n").unwrap_or(before);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    let start = body
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1);
    body.get(start..)
        .and_then(|line| line.iter().find(|&&b| b != b' ' && b != b'\t'))
        == Some(&b'[')
}

/// The last place at or after `from` in `bytes` where a block may end: a line starting with
/// `[` whose previous line does not.
fn find_cut(bytes: &[u8], from: usize) -> Option<usize> {
    let mut end = bytes.len();
    while end > from {
        let at = bytes.get(from..end)?.iter().rposition(|&b| b == b'[')? + from;
        if at > 0
            && matches!(bytes.get(at - 1), Some(b'\n' | b'\r'))
            && !previous_line_is_tags(bytes, at)
        {
            return Some(at);
        }
        end = at;
    }
    None
}

/// Cuts a byte stream into blocks.
struct Cutter<R> {
    inner: R,
    /// The size blocks are cut at.
    size: usize,
    /// Bytes read but not yet handed out in a block.
    pending: Vec<u8>,
    /// Where `pending` starts in the input.
    offset: u64,
    line: u32,
    eof: bool,
}

impl<R: Read> Cutter<R> {
    fn new(inner: R, size: usize) -> Cutter<R> {
        let size = size.max(1);
        Cutter {
            inner,
            size,
            // A block and the read that ends it, without growing on the way.
            pending: Vec::with_capacity(size.saturating_add(64 * 1024).min(1 << 24)),
            offset: 0,
            line: 1,
            eof: false,
        }
    }

    /// Reads until `pending` holds at least `want` bytes or the input ends.
    fn fill(&mut self, want: usize) -> Result<(), ReadError> {
        while self.pending.len() < want && !self.eof {
            // Straight into `pending`, which has room for a block: no buffer in between.
            let asked = (want - self.pending.len()) as u64;
            // `read_to_end` retries interrupted reads itself.
            match (&mut self.inner).take(asked).read_to_end(&mut self.pending) {
                Ok(n) => self.eof = (n as u64) < asked,
                Err(source) => {
                    return Err(ReadError {
                        offset: self.offset + self.pending.len() as u64,
                        source,
                    });
                }
            }
        }
        Ok(())
    }

    /// The next block, or `None` at the end of the input.
    fn next_block(&mut self) -> Result<Option<Block>, ReadError> {
        let mut want = self.size;
        let cut = loop {
            self.fill(want)?;
            if self.eof {
                break self.pending.len();
            }
            // The cut is looked for in the second half, so blocks are not tiny; a block
            // grows until it holds one.
            if let Some(at) = find_cut(&self.pending, want / 2) {
                break at;
            }
            want = want.saturating_mul(2);
        };
        if cut == 0 {
            return Ok(None);
        }
        // The bytes after the cut start the next block, in a buffer as roomy as this one.
        let mut rest = Vec::with_capacity(self.pending.capacity());
        rest.extend_from_slice(self.pending.get(cut..).unwrap_or(&[]));
        self.pending.truncate(cut);
        let bytes = std::mem::replace(&mut self.pending, rest);
        let block = Block {
            offset: self.offset,
            line: self.line,
            bytes,
        };
        self.offset += cut as u64;
        self.line = self.line.saturating_add(count_lines(&block.bytes));
        Ok(Some(block))
    }
}

/// What the games of one piece of input gave.
struct BlockGames<T> {
    block: Block,
    /// What `work` gave for each game that certainly ended where it did, in order.
    games: Vec<T>,
    /// What must be read again with the next block.
    tail: Tail,
}

/// The end of a piece of input whose reading depends on what follows it.
enum Tail {
    /// Nothing: its last game ended where a `[` line begins a new one.
    None,
    /// Its last game, which ran to the end and might go on (a comment left open, a game of
    /// tags only), as a block of its own. It was not worked on.
    Game(Block),
    /// It held no game, only blank space, which belongs to the next game's source.
    Blank,
}

/// A game held back, with the blocks after it so far.
struct Held {
    block: Block,
    /// The size the bytes must reach before they are read again. A game longer than a block
    /// (a comment over many lines, tags mixed with comments) may be held again and again;
    /// read again at each block it would cost time quadratic in its length, read again only
    /// once its bytes have doubled it costs at most about twice its length.
    due: usize,
}

/// Reads every game of a block and works on each, except a last game that may go on in the
/// input after it. The block's bytes are read where they are and come back with its games.
fn read_all<T>(
    block: Block,
    options: ReaderOptions,
    work: &(impl Fn(RawGame) -> T + Sync),
) -> BlockGames<T> {
    let (offset, line) = (block.offset, block.line);
    let mut reader = Reader::of_bytes(block.bytes, options, offset, line);
    let mut games = Vec::new();
    let mut last: Option<RawGame> = None;
    // Bytes in memory cannot fail to read. Each game is worked on once the next one is read,
    // which says that it ended.
    while let Some(Ok(raw)) = reader.next() {
        if let Some(done) = last.replace(raw) {
            games.push(work(done));
        }
    }
    let tail = match last {
        None => Tail::Blank,
        Some(raw) if reader.ended_open() => {
            games.push(work(raw));
            Tail::None
        }
        Some(raw) => {
            let line = first_line(&raw);
            Tail::Game(Block {
                bytes: raw.source,
                offset: raw.source_offset,
                line,
            })
        }
    };
    let block = Block {
        bytes: reader.into_bytes(),
        offset,
        line,
    };
    BlockGames { block, games, tail }
}

/// Reads every game of `input` on all cores, hands each game to `work` (on the thread that
/// read it) and then what `work` gave to `each`, in input order, with the game's number (from
/// 1). The games are those a single [`Reader`] with `options` gives; `work` sees each game's
/// number within its piece of the input only, so `each` gets the real one.
///
/// The calling thread cuts the input and hands out the results; as many worker threads as
/// rayon would use read and work. Memory holds a few blocks per worker and what `work` gave
/// for their games, whatever the input's size. Stops at the first error of reading the input
/// or of `each`.
pub fn read_parallel<R, T, E>(
    input: R,
    options: ReaderOptions,
    work: impl Fn(RawGame) -> T + Sync,
    each: impl FnMut(u64, T) -> Result<(), E>,
) -> Result<(), E>
where
    R: Read,
    T: Send,
    E: From<ReadError>,
{
    read_parallel_in_blocks(input, options, BLOCK, work, each)
}

/// [`read_parallel`] with blocks cut at `block` bytes, for tests that cut small inputs.
#[doc(hidden)]
pub fn read_parallel_in_blocks<R, T, E>(
    input: R,
    options: ReaderOptions,
    block: usize,
    work: impl Fn(RawGame) -> T + Sync,
    mut each: impl FnMut(u64, T) -> Result<(), E>,
) -> Result<(), E>
where
    R: Read,
    T: Send,
    E: From<ReadError>,
{
    let workers = rayon::current_num_threads().max(1);
    let ahead = 2 * workers;
    let mut cutter = Cutter::new(input, block);
    let mut number = 0u64;
    // A last game that ended not at a certain boundary (or blank space): it is read again
    // with the blocks after it, once they hold as many bytes as it does (see `Held`).
    let mut tail: Option<Held> = None;
    let mut emit = |games: Vec<T>, each: &mut dyn FnMut(u64, T) -> Result<(), E>| {
        for out in games {
            number += 1;
            each(number, out)?;
        }
        Ok::<(), E>(())
    };
    let (to_workers, blocks) = std::sync::mpsc::channel::<(u64, Block)>();
    let blocks = std::sync::Mutex::new(blocks);
    let (results_out, results) = std::sync::mpsc::channel::<(u64, Result<BlockGames<T>, u64>)>();
    std::thread::scope(|scope| -> Result<(), E> {
        // Dropped when this returns, early or not, so that the workers stop.
        let to_workers = to_workers;
        for _ in 0..workers {
            let (blocks, results_out, work) = (&blocks, results_out.clone(), &work);
            scope.spawn(move || {
                loop {
                    let next = match blocks.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((i, block)) = next else { return };
                    // A bug that panics here must not leave the caller waiting for this block.
                    let offset = block.offset;
                    let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        read_all(block, options, work)
                    }));
                    let result = read.map_err(|_| offset);
                    if results_out.send((i, result)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(results_out);
        let mut sent = 0u64;
        let mut done = 0u64;
        let mut waiting: std::collections::BTreeMap<u64, Result<BlockGames<T>, u64>> =
            Default::default();
        let mut more = true;
        loop {
            while more && sent < done + ahead as u64 {
                match cutter.next_block() {
                    Ok(Some(block)) => {
                        if to_workers.send((sent, block)).is_err() {
                            more = false;
                        }
                        sent += 1;
                    }
                    Ok(None) => more = false,
                    Err(e) => return Err(e.into()),
                }
            }
            if done == sent {
                break;
            }
            let r = match waiting.remove(&done) {
                Some(r) => r,
                None => match results.recv() {
                    Ok((i, r)) if i == done => r,
                    Ok((i, r)) => {
                        waiting.insert(i, r);
                        continue;
                    }
                    Err(_) => break,
                },
            };
            let r = match r {
                Ok(r) => r,
                Err(offset) => {
                    return Err(ReadError {
                        offset,
                        source: io::Error::other("an internal error stopped reading this part"),
                    }
                    .into());
                }
            };
            done += 1;
            // A game held back is read again with this block, or later with more.
            let r = match tail.take() {
                None => r,
                Some(mut held) => {
                    held.block.bytes.extend_from_slice(&r.block.bytes);
                    if held.block.bytes.len() < held.due {
                        tail = Some(held);
                        continue;
                    }
                    read_all(held.block, options, &work)
                }
            };
            tail = match r.tail {
                Tail::None => None,
                // The game ran to the end of the block; its bytes go on with the next ones.
                Tail::Game(block) => Some(Held {
                    due: block.bytes.len().saturating_mul(2),
                    block,
                }),
                // Only blank space: it belongs to the source of the next game.
                Tail::Blank => Some(Held {
                    block: r.block,
                    due: 0,
                }),
            };
            emit(r.games, &mut each)?;
        }
        drop(to_workers);
        // The input ended: a game held back ended there.
        if let Some(Held { block: held, .. }) = tail.take() {
            let mut reader = Reader::of_bytes(held.bytes, options, held.offset, held.line);
            let games = std::iter::from_fn(|| reader.next().and_then(Result::ok)).map(&work);
            emit(games.collect(), &mut each)?;
        }
        Ok(())
    })
}

/// The line on which a game's source starts: its first token's line less the line ends
/// before that token.
fn first_line(game: &RawGame) -> u32 {
    let before = usize::try_from(game.start.offset.saturating_sub(game.source_offset)).unwrap_or(0);
    game.start
        .line
        .saturating_sub(count_lines(game.source.get(..before).unwrap_or(&[])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_as_the_reader_counts_them() {
        assert_eq!(count_lines(b"a\nb\r\nc\rd"), 3);
        assert_eq!(count_lines(b"\r\r\n\n"), 3);
        assert_eq!(count_lines(b""), 0);
    }

    #[test]
    fn a_failing_worker_ends_the_reading_with_an_error() {
        let text = "[A \"1\"]\n\n1. e4 *\n\n".repeat(200);
        let mut seen = 0;
        let result = read_parallel_in_blocks(
            text.as_bytes(),
            ReaderOptions::default(),
            64,
            |raw| {
                assert!(raw.source_offset < 1000, "a bug in the work");
            },
            |_, ()| {
                seen += 1;
                Ok::<(), ReadError>(())
            },
        );
        let err = result.expect_err("the failure is reported");
        assert!(err.to_string().contains("internal error"), "{err}");
        assert!(seen < 200);
    }

    #[test]
    fn cuts_fall_before_a_tag_line_after_another_line() {
        let text = b"[A \"1\"]\n[B \"2\"]\n\n1. e4 *\n\n[A \"3\"]\n[B \"4\"]\n\n1. d4 *\n";
        let at = find_cut(text, 0).unwrap();
        assert_eq!(&text[at..at + 7], b"[A \"3\"]");
        assert_eq!(find_cut(text, at + 1), None);
        assert_eq!(find_cut(b"[A \"1\"]\n[B \"2\"]\n", 0), None);
    }
}
