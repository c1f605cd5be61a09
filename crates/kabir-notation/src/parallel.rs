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
//!
//! Where no line that starts with `[` comes after another kind of line, any line starting
//! with `[` will do (a file of one game a line). Where none comes for [`BLOCKS_WITHOUT_CUT`]
//! blocks' worth of input (a long comment, a file of blank lines or of zero bytes), the block
//! is cut at its last line end, or anywhere if it has none; its last game is then always read
//! again with what follows. So no block grows past that size, and the reader's limit on one
//! game ([`ReaderOptions::max_game_bytes`]) bounds what is held back: memory stays bounded
//! whatever the input's shape.

use std::io::{self, Read};

use super::game::RawGame;
use super::reader::{OpenSkip, ReadError, Reader, ReaderOptions, is_skip_blank};

/// The size a block is cut at (a block grows past it to hold a longer game).
pub const BLOCK: usize = 256 * 1024;

/// How many blocks' worth of input a block may grow to while no line starting with `[`
/// comes: past that it is cut without one.
pub const BLOCKS_WITHOUT_CUT: usize = 16;

/// Where a block starts or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    /// Before a line that starts with `[` (where a game may begin), or at the start of the
    /// input.
    Cut,
    /// At the start of another line.
    Line,
    /// Inside a line.
    Within,
    /// At the end of the input (an end only).
    End,
}

/// A piece of the input.
#[derive(Debug)]
struct Block {
    bytes: Vec<u8>,
    /// Where the block starts in the input: byte offset and line number.
    offset: u64,
    line: u32,
    starts: Edge,
    ends: Edge,
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

/// Whether the line that ends just before `at` (a line start) ends with a result, as a game
/// written on one line does.
fn previous_line_ends_a_game(bytes: &[u8], at: usize) -> bool {
    let before = bytes.get(..at).unwrap_or(&[]);
    let line = before.trim_ascii_end();
    [&b"*"[..], b"1-0", b"0-1", b"1/2-1/2"]
        .iter()
        .any(|result| line.ends_with(result))
}

/// Which lines starting with `[` [`find_cut`] may cut before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cuts {
    /// Those after a line that does not start with `[`, or that ends with a result: where a
    /// game most likely begins.
    Likely,
    /// Any, where no likely one comes.
    Any,
}

/// The last place at or after `from` in `bytes` where a block may end before a game: a line
/// starting with `[` whose previous line does not (or ends with a result), else, with
/// [`Cuts::Any`], any line starting with `[`.
fn find_cut(bytes: &[u8], from: usize, cuts: Cuts) -> Option<usize> {
    let mut end = bytes.len();
    let mut after_result = None;
    let mut any = None;
    while end > from {
        let Some(at) = bytes
            .get(from..end)
            .and_then(|part| part.iter().rposition(|&b| b == b'['))
        else {
            break;
        };
        let at = at + from;
        if at > 0 && matches!(bytes.get(at - 1), Some(b'\n' | b'\r')) {
            if !previous_line_is_tags(bytes, at) {
                return Some(at);
            }
            if after_result.is_none() && previous_line_ends_a_game(bytes, at) {
                after_result = Some(at);
            }
            any = any.or(Some(at));
        }
        end = at;
    }
    match cuts {
        Cuts::Likely => after_result,
        Cuts::Any => after_result.or(any),
    }
}

/// The start of the last line that starts at or after `from` in `bytes`, where the line end
/// before it is certain: a `\r` at the very end may be the first half of `\r\n`.
fn last_line_start(bytes: &[u8], from: usize) -> Option<usize> {
    let mut end = bytes.len();
    while end > from {
        let at = memchr::memrchr2(b'\n', b'\r', bytes.get(..end)?)?;
        let next = at + 1;
        if next < from {
            return None;
        }
        if bytes[at] == b'\n' || next < bytes.len() && bytes[next] != b'\n' {
            return Some(next);
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
    /// The most a block grows to without a cut before a game.
    most: usize,
    /// Bytes read but not yet handed out in a block.
    pending: Vec<u8>,
    /// Where `pending` starts in the input, and how.
    offset: u64,
    line: u32,
    starts: Edge,
    eof: bool,
}

impl<R: Read> Cutter<R> {
    fn new(inner: R, size: usize) -> Cutter<R> {
        let size = size.max(1);
        Cutter {
            inner,
            size,
            most: size.saturating_mul(BLOCKS_WITHOUT_CUT),
            // A block and the read that ends it, without growing on the way.
            pending: Vec::with_capacity(size.saturating_add(64 * 1024).min(1 << 24)),
            offset: 0,
            line: 1,
            starts: Edge::Cut,
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
        let (cut, ends) = loop {
            self.fill(want)?;
            if self.eof {
                break (self.pending.len(), Edge::End);
            }
            // The cut is looked for in the second half, so blocks are not tiny; a block
            // grows until it holds one, or until it is as large as a block may grow.
            if let Some(at) = find_cut(&self.pending, want / 2, Cuts::Likely) {
                break (at, Edge::Cut);
            }
            if want >= self.most {
                if let Some(at) = find_cut(&self.pending, 1, Cuts::Any) {
                    break (at, Edge::Cut);
                }
                if let Some(at) = last_line_start(&self.pending, 1) {
                    break (at, Edge::Line);
                }
                // Not between the two bytes of a `\r\n`, which count as one line end.
                let at = self.pending.len();
                let at = if self.pending.last() == Some(&b'\r') {
                    at - 1
                } else {
                    at
                };
                break (at, Edge::Within);
            }
            want = want.saturating_mul(2);
        };
        if cut == 0 {
            return Ok(None);
        }
        // The bytes after the cut start the next block, in a buffer with room for a block.
        let mut rest = Vec::with_capacity(
            self.size
                .saturating_add(64 * 1024)
                .min(1 << 24)
                .max(self.pending.len() - cut),
        );
        rest.extend_from_slice(self.pending.get(cut..).unwrap_or(&[]));
        self.pending.truncate(cut);
        let bytes = std::mem::replace(&mut self.pending, rest);
        let block = Block {
            offset: self.offset,
            line: self.line,
            starts: self.starts,
            ends,
            bytes,
        };
        self.offset += cut as u64;
        self.line = self.line.saturating_add(count_lines(&block.bytes));
        self.starts = ends;
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
    /// Nothing: its last game ended where it did, or nothing was left open.
    None,
    /// Its last game, which ran to the end and might go on (a comment left open, a game of
    /// tags only, a block cut without a game's start after it), as a block of its own; or
    /// the start of a line of blank space that the block's end cut. It was not worked on.
    Game(Block),
    /// A game too large to read, being passed when the piece ended.
    Skip(OpenSkip),
}

/// What the calling thread holds between blocks.
enum Between {
    /// Nothing: the next block is read as the worker read it.
    Nothing,
    /// A game held back, with the blocks after it so far.
    Held(Held),
    /// A game too large is being passed: reading goes on at the next line that starts with
    /// `[`. `text` says whether more than blank space was passed since its reader gave up.
    Skip { skip: OpenSkip, text: bool },
}

/// A game held back, with the blocks after it so far.
struct Held {
    block: Block,
    /// The size the bytes must reach before they are read again. A game longer than a block
    /// (a comment over many lines, tags mixed with comments) may be held again and again;
    /// read again at each block it would cost time quadratic in its length, read again only
    /// once its bytes have doubled it costs at most about twice its length. Reaching the
    /// limit on one game, it is read again whatever its growth: then it is known to be too
    /// large.
    due: usize,
}

impl Held {
    fn new(block: Block, options: ReaderOptions) -> Held {
        let len = block.bytes.len();
        Held {
            due: len
                .saturating_mul(2)
                .min(options.max_game_bytes.saturating_add(1))
                .max(len.saturating_add(1)),
            block,
        }
    }
}

/// Reads every game of a block and works on each, except a last game that may go on in the
/// input after it. The block's bytes are read where they are and come back with its games.
fn read_all<T>(
    block: Block,
    options: ReaderOptions,
    work: &(impl Fn(RawGame) -> T + Sync),
) -> BlockGames<T> {
    let Block {
        offset,
        line,
        starts,
        ends,
        ..
    } = block;
    let mut reader = Reader::of_bytes(block.bytes, options, offset, line);
    if ends == Edge::Within {
        reader.ends_within_a_line();
    }
    let mut games = Vec::new();
    let mut last: Option<RawGame> = None;
    // Bytes in memory cannot fail to read. Each game is worked on once the next one is read,
    // which says that it ended.
    while let Some(Ok(raw)) = reader.next() {
        if let Some(done) = last.replace(raw) {
            games.push(work(done));
        }
    }
    let (unread, unread_line) = reader.unread();
    let tail = if let Some(skip) = reader.open_skip() {
        // The last game, if any, is the one too large: it is given whole.
        if let Some(raw) = last {
            games.push(work(raw));
        }
        match ends {
            // The skip goes on in what follows; at the end of the input or before a line
            // starting with `[`, it ends there.
            Edge::Line | Edge::Within => Tail::Skip(skip),
            Edge::Cut | Edge::End => Tail::None,
        }
    } else {
        match last {
            Some(raw) if ends == Edge::End || ends == Edge::Cut && reader.ended_open() => {
                games.push(work(raw));
                Tail::None
            }
            Some(raw) => {
                let line = first_line(&raw);
                Tail::Game(Block {
                    bytes: raw.source,
                    offset: raw.source_offset,
                    line,
                    starts: Edge::Cut,
                    ends,
                })
            }
            // Blank space only: a line the block's end cut may go on with a game.
            None if ends == Edge::Within => {
                let at = usize::try_from(unread.saturating_sub(offset)).unwrap_or(usize::MAX);
                let bytes = reader.into_bytes();
                let fragment = bytes.get(at..).unwrap_or(&[]).to_vec();
                let block = Block {
                    bytes,
                    offset,
                    line,
                    starts,
                    ends,
                };
                let tail = if fragment.is_empty() {
                    Tail::None
                } else {
                    Tail::Game(Block {
                        bytes: fragment,
                        offset: unread,
                        line: unread_line,
                        starts: Edge::Cut,
                        ends,
                    })
                };
                return BlockGames { block, games, tail };
            }
            None => Tail::None,
        }
    };
    let block = Block {
        bytes: reader.into_bytes(),
        offset,
        line,
        starts,
        ends,
    };
    BlockGames { block, games, tail }
}

/// Where a skip past a game too large ends in `block`: the first `[` in it that starts a
/// line.
fn resume_point(block: &Block) -> Option<usize> {
    let bytes = &block.bytes;
    memchr::memchr_iter(b'[', bytes).find(|&p| match p.checked_sub(1) {
        Some(q) => matches!(bytes.get(q), Some(b'\n' | b'\r')),
        None => matches!(block.starts, Edge::Cut | Edge::Line),
    })
}

/// The part of `block` from byte `at`, a line start, as a block of its own.
fn block_from(mut block: Block, at: usize) -> Block {
    let before = block.bytes.get(..at).unwrap_or(&[]);
    let line = block.line.saturating_add(count_lines(before));
    block.bytes.drain(..at.min(block.bytes.len()));
    Block {
        offset: block.offset + at as u64,
        line,
        starts: Edge::Cut,
        ..block
    }
}

/// Reads every game of `input` on all cores, hands each game to `work` (on the thread that
/// read it) and then what `work` gave to `each`, in input order, with the game's number (from
/// 1). The games are those a single [`Reader`] with `options` gives; `work` sees each game's
/// number within its piece of the input only, so `each` gets the real one.
///
/// The calling thread cuts the input and hands out the results; as many worker threads as
/// rayon would use read and work. Memory holds a few blocks per worker and what `work` gave
/// for their games, and at most one game held back (no larger than
/// [`ReaderOptions::max_game_bytes`]), whatever the input's size or shape. Stops at the first
/// error of reading the input or of `each`.
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
    let limit = options.max_game_bytes as u64;
    // What the calling thread holds between blocks: a last game that ended not at a certain
    // boundary, or a skip past a game too large.
    let mut between = Between::Nothing;
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
                        if block.starts == Edge::Within {
                            // Never read on its own: it goes on with what came before.
                            BlockGames {
                                block,
                                games: Vec::new(),
                                tail: Tail::None,
                            }
                        } else {
                            read_all(block, options, work)
                        }
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
            let r = match std::mem::replace(&mut between, Between::Nothing) {
                Between::Nothing => r,
                // A game held back is read again with this block, or later with more.
                Between::Held(mut held) => {
                    held.block.bytes.extend_from_slice(&r.block.bytes);
                    held.block.ends = r.block.ends;
                    if held.block.bytes.len() < held.due {
                        between = Between::Held(held);
                        continue;
                    }
                    read_all(held.block, options, &work)
                }
                Between::Skip { skip, text } => match resume_point(&r.block) {
                    None => {
                        let text = text || r.block.bytes.iter().any(|&b| !is_skip_blank(b));
                        between = Between::Skip { skip, text };
                        continue;
                    }
                    Some(at) => {
                        let before = r.block.bytes.get(..at).unwrap_or(&[]);
                        let text = text || before.iter().any(|&b| !is_skip_blank(b));
                        if !skip.reported && text {
                            let raw = RawGame::too_large(skip.offset, skip.line, limit);
                            emit(vec![work(raw)], &mut each)?;
                        }
                        if at == 0 {
                            // The block starts a line, and its worker read it from there.
                            r
                        } else {
                            read_all(block_from(r.block, at), options, &work)
                        }
                    }
                },
            };
            between = match r.tail {
                Tail::None => Between::Nothing,
                // The game ran to the end of the block; its bytes go on with the next ones.
                Tail::Game(block) => Between::Held(Held::new(block, options)),
                Tail::Skip(skip) => Between::Skip { skip, text: false },
            };
            emit(r.games, &mut each)?;
        }
        drop(to_workers);
        // The input ended: a game held back ended there, and so did a skip.
        match std::mem::replace(&mut between, Between::Nothing) {
            Between::Nothing => {}
            Between::Held(mut held) => {
                held.block.ends = Edge::End;
                let r = read_all(held.block, options, &work);
                emit(r.games, &mut each)?;
            }
            Between::Skip { skip, text } => {
                if text && !skip.reported {
                    let raw = RawGame::too_large(skip.offset, skip.line, limit);
                    emit(vec![work(raw)], &mut each)?;
                }
            }
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
        let at = find_cut(text, 0, Cuts::Likely).unwrap();
        assert_eq!(&text[at..at + 7], b"[A \"3\"]");
        assert_eq!(find_cut(text, at + 1, Cuts::Likely), None);
        // Past it, only a tag line after another one is left: the cut of last resort.
        let last = find_cut(text, at + 1, Cuts::Any).unwrap();
        assert_eq!(&text[last..last + 7], b"[B \"4\"]");
        assert_eq!(find_cut(b"[A \"1\"]\n[B \"2\"]\n", 0, Cuts::Likely), None);
        assert_eq!(find_cut(b"[A \"1\"]\n[B \"2\"]\n", 0, Cuts::Any), Some(8));
        assert_eq!(find_cut(b"[A \"1\"] [B \"2\"] 1. e3 *", 0, Cuts::Any), None);
    }

    #[test]
    fn one_game_a_line_is_cut_between_games() {
        let text = "[Event \"1\"] [Variant \"Shatranj\"] 1. e3 *\n".repeat(100);
        let at = find_cut(text.as_bytes(), text.len() / 2, Cuts::Likely).unwrap();
        assert!(text[..at].ends_with("*\n"), "{at}");
    }

    #[test]
    fn a_block_without_a_game_start_is_cut_at_a_line_end_or_within_a_line() {
        assert_eq!(last_line_start(b"ab\ncd\nef", 1), Some(6));
        assert_eq!(last_line_start(b"ab\ncd\n", 1), Some(6));
        // A `\r` at the end may be half of `\r\n`.
        assert_eq!(last_line_start(b"ab\rcd\r", 1), Some(3));
        assert_eq!(last_line_start(b"abcd", 1), None);
        let text = "{ a long comment with no line end ".repeat(10);
        let mut cutter = Cutter::new(text.as_bytes(), 4);
        let first = cutter.next_block().unwrap().unwrap();
        assert_eq!((first.starts, first.ends), (Edge::Cut, Edge::Within));
        assert_eq!(first.bytes.len(), 4 * BLOCKS_WITHOUT_CUT);
    }
}
