//! A whole import: game files read and replayed on all cores, the valid games' records cut
//! into batches and each batch stored in one transaction ([`Importer::import_inputs`]).

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

use kabir_notation::game::RawGame;
use kabir_notation::reader::ReadError;
use kabir_notation::replay::Replay;
use kabir_notation::replay::parallel::{ReplayOptions, replay_games};
use kabir_rules::variants::Registry;

use crate::error::DbError;
use crate::write::import::{BatchStats, Importer};
use crate::write::prepare::ReadyGame;
use crate::write::record::{GameRecord, RecordError};

/// How [`Importer::import_inputs`] cuts batches and replays games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportOptions {
    /// Games per batch (one transaction), at most.
    pub batch_games: u64,
    /// Memory per batch in bytes, at most: a batch also ends when its games would take more
    /// while they are sorted and written (the games and their index entries, estimated from
    /// their sizes). Three batches are in memory at once: one being read, one being sorted and one
    /// being written.
    pub batch_bytes: u64,
    /// Report every move written in coordinate form in an invalid game, instead of one
    /// warning for a game written entirely so.
    pub strict: bool,
    /// The most bytes one game's text may take; `None` for the reader's default
    /// ([`ReaderOptions::max_game_bytes`](kabir_notation::reader::ReaderOptions::max_game_bytes)).
    /// A longer game is not stored: it is reported as invalid (`game-too-large`).
    pub max_game_bytes: Option<usize>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            batch_games: 5_000,
            batch_bytes: 75_000_000,
            strict: false,
            max_game_bytes: None,
        }
    }
}

/// Where a game read came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// Its input, by its place in the inputs given, from 0.
    pub input: usize,
    /// Its number in that input, from 1.
    pub number: u64,
    /// The line it starts on.
    pub line: u32,
}

/// Why a game read is not stored.
#[derive(Debug)]
pub enum NotStored {
    /// It is invalid: its replay says how.
    Invalid(Box<Replay>),
    /// It is valid, but its record cannot be stored.
    Refused(RecordError),
}

/// What an import tells its caller as it goes, always on the thread that called
/// [`Importer::import_inputs`]. Every method has a default that does nothing.
pub trait ImportEvents {
    /// The caller's error: an error of an event method, or one made from a reading or a
    /// database error.
    type Error: From<ReadError> + From<DbError>;

    /// A game was read: called once for each game, valid or not, before anything else is
    /// said of it.
    fn read(&mut self) {}

    /// A game read is not stored (it was counted as rejected).
    fn not_stored(
        &mut self,
        _origin: Origin,
        _game: &RawGame,
        _why: &NotStored,
    ) -> Result<(), Self::Error> {
        Ok(())
    }

    /// A batch was committed. `origins[i]` is where the batch's game `i` came from (the
    /// indexes of `stats.duplicate_of` and `stats.rejected`); `summary` counts every batch
    /// committed so far.
    fn committed(
        &mut self,
        _stats: &BatchStats,
        _origins: &[Origin],
        _summary: &ImportSummary,
    ) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Input `input` was read to its end: each of its games was read and said of (as not
    /// stored, if so), though the batch of the last ones may not be committed yet. An error
    /// stops the import as an error of reading does, after the games read before it are
    /// stored: a caller that learns something of an input only once it is read (bytes after
    /// its compressed data, say) may stop there.
    fn input_ended(&mut self, _input: usize) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Reading input `input` failed: the error to stop with (by default the reading error
    /// itself; a caller may name the input).
    fn read_failed(&mut self, _input: usize, error: ReadError) -> Self::Error {
        error.into()
    }

    /// The database failed: the error to stop with (by default the database error itself).
    fn database_failed(&mut self, error: DbError) -> Self::Error {
        error.into()
    }

    /// How far reading the inputs has come, if the caller knows: the bytes read so far and
    /// the bytes of all the inputs (`None` by default). Knowing it, the import cuts its last
    /// batches smaller, so that little is left to store once everything is read: the
    /// database is written by one thread, which is then the only one at work.
    fn input_progress(&self) -> Option<(u64, u64)> {
        None
    }
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Inputs opened.
    pub inputs: usize,
    /// Games read.
    pub read: u64,
    /// Games stored.
    pub imported: u64,
    /// Games not stored because the database holds them already (by the importer's
    /// duplicate rule).
    pub duplicates: u64,
    /// Games not stored because they are invalid or their record cannot be stored.
    pub rejected: u64,
    /// Positions stored (index entries written).
    pub positions: u64,
}

/// An import stopped by an error; what was committed before it stays stored.
#[derive(Debug)]
pub struct ImportStopped<E> {
    /// The counts of the batches committed before the error (`read` and `rejected` count
    /// every game read).
    pub summary: ImportSummary,
    /// The first cause: a database error explains why the writer stopped taking batches, and
    /// comes before a reading error.
    pub error: E,
}

/// A reader that counts the bytes read through it.
struct Counting<R> {
    inner: R,
    bytes: std::sync::Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// What the worker threads make of a game read.
enum Made {
    /// A game made ready, with the line it starts on and where its text ends in its input.
    Stored(Box<ReadyGame>, u32, u64),
    NotStored(Box<RawGame>, NotStored),
}

/// Reading stopped: by the input, or by the caller's error (or the writer's, which the caller
/// hears of when it is joined).
enum Stop<E> {
    Read(ReadError),
    Caller(E),
    WriterStopped,
}

impl<E> From<ReadError> for Stop<E> {
    fn from(e: ReadError) -> Self {
        Stop::Read(e)
    }
}

/// The most records a batch reserves room for at once (a larger batch grows as it fills).
const MAX_RESERVED: usize = 20_000;

/// The smallest batch cut near the end of the input, as a fraction of a full one
/// ([`ImportOptions::batch_bytes`]): smaller batches would leave more small index segments
/// for little gain.
const LAST_BATCHES_DIVISOR: u64 = 4;

/// The last batches are cut smaller only in an import of at least this many full batches: a
/// smaller one would leave more segments than it has batches.
const TAPERED_FROM_BATCHES: u128 = 4;

/// The bytes a game takes in a batch until the batch is written, with its origin.
fn batch_bytes(game: &ReadyGame) -> u64 {
    (game.batch_bytes() + size_of::<Origin>()) as u64
}

/// The batch being filled, and the origins of the batches sent and not yet committed.
struct Batches<'a, E> {
    options: &'a ImportOptions,
    most: usize,
    records: Vec<ReadyGame>,
    origins: Vec<Origin>,
    bytes: u64,
    /// The bytes of every game put in a batch so far.
    pushed: u64,
    /// The bytes read from the inputs (as the import reads them: decompressed, say).
    seen: std::sync::Arc<AtomicU64>,
    /// Of those, the bytes of the inputs before the one being read.
    input_start: u64,
    /// Of those, the bytes up to the end of the last game put in a batch.
    consumed: u64,
    in_flight: std::collections::VecDeque<Vec<Origin>>,
    /// `None` once the last batch is sent, which ends the writer.
    to_writer: Option<std::sync::mpsc::SyncSender<Vec<ReadyGame>>>,
    from_writer: std::sync::mpsc::Receiver<BatchStats>,
    summary: ImportSummary,
    _error: std::marker::PhantomData<E>,
}

impl<E> Batches<'_, E> {
    fn push(
        &mut self,
        game: ReadyGame,
        origin: Origin,
        events: &mut impl ImportEvents<Error = E>,
    ) -> Result<(), Stop<E>> {
        let bytes = batch_bytes(&game);
        // The game that would take the batch over its memory starts the next.
        if !self.records.is_empty() && self.bytes + bytes > self.limit(events) {
            self.send(events)?;
        }
        self.bytes += bytes;
        self.pushed += bytes;
        self.records.push(game);
        self.origins.push(origin);
        if self.records.len() as u64 >= self.options.batch_games {
            self.send(events)?;
        }
        Ok(())
    }

    /// The memory the batch being filled may take: [`ImportOptions::batch_bytes`], but near
    /// the end of a large input (when the caller says how far it is) half of what the rest of
    /// the input will take at the rate so far, down to a part of a full batch. The batches
    /// sent before the last one are still being stored when the input ends; cut this way,
    /// they are small.
    fn limit(&self, events: &impl ImportEvents<Error = E>) -> u64 {
        let full = self.options.batch_bytes;
        let Some((read, total)) = events.input_progress() else {
            return full;
        };
        // Reading runs ahead of the games put in batches: the caller's count of the bytes
        // read, scaled by the part of what this import read that their games take.
        let seen = self.seen.load(Ordering::Relaxed);
        if seen == 0 || self.consumed == 0 {
            return full;
        }
        let done = u128::from(read) * u128::from(self.consumed.min(seen)) / u128::from(seen);
        let done = u64::try_from(done).unwrap_or(read);
        if done == 0 {
            return full;
        }
        let rate = |bytes: u64| u128::from(bytes) * u128::from(self.pushed) / u128::from(done);
        if rate(total) < TAPERED_FROM_BATCHES * u128::from(full) {
            return full;
        }
        let half = u64::try_from(rate(total.saturating_sub(done)) / 2).unwrap_or(u64::MAX);
        half.clamp(full / LAST_BATCHES_DIVISOR, full)
    }

    /// Sends the batch being filled to the writer, then hears of the batches committed.
    fn send(&mut self, events: &mut impl ImportEvents<Error = E>) -> Result<(), Stop<E>> {
        // Each batch is allocated at its full size once, not copied again at each doubling. A
        // batch ended by its memory holds about as many games as the one before, plus a
        // margin.
        let capacity = (self.records.len() + self.records.len() / 8 + 16).min(self.most);
        let full = std::mem::replace(&mut self.records, Vec::with_capacity(capacity));
        let sent = std::mem::replace(&mut self.origins, Vec::with_capacity(capacity));
        self.bytes = 0;
        if !full.is_empty() {
            self.in_flight.push_back(sent);
            let sent = self.to_writer.as_ref().map(|w| w.send(full));
            if !matches!(sent, Some(Ok(()))) {
                return Err(Stop::WriterStopped);
            }
        }
        while let Ok(stats) = self.from_writer.try_recv() {
            self.committed(&stats, events).map_err(Stop::Caller)?;
        }
        Ok(())
    }

    fn committed(
        &mut self,
        stats: &BatchStats,
        events: &mut impl ImportEvents<Error = E>,
    ) -> Result<(), E> {
        self.summary.imported += stats.imported;
        self.summary.duplicates += stats.duplicates;
        self.summary.rejected += stats.rejected.len() as u64;
        self.summary.positions += stats.positions;
        let origins = self.in_flight.pop_front().unwrap_or_default();
        events.committed(stats, &origins, &self.summary)
    }
}

impl Importer<'_> {
    /// Imports every game of `inputs`, in order: reads and replays them on all cores, and
    /// stores the valid games in batches of one transaction each (cut by `options`), the
    /// next batch read while the one before is written. A game the database holds already
    /// (by [`Importer::set_duplicate_rule`]) is counted and not stored again.
    ///
    /// Inputs are opened as they are reached (an input that cannot be opened is the
    /// caller's error, in its `Err`). Whatever stops the import, every batch read before it
    /// is written first, and stays committed: the summary in [`ImportStopped`] counts it.
    pub fn import_inputs<R, I, V>(
        &mut self,
        inputs: I,
        registry: &Registry,
        options: &ImportOptions,
        events: &mut V,
    ) -> Result<ImportSummary, ImportStopped<V::Error>>
    where
        R: Read,
        I: IntoIterator<Item = Result<R, V::Error>>,
        V: ImportEvents,
    {
        let (to_writer, batches) = std::sync::mpsc::sync_channel::<Vec<ReadyGame>>(0);
        let (stats_out, from_writer) = std::sync::mpsc::channel::<BatchStats>();
        let most =
            usize::try_from(options.batch_games).map_or(MAX_RESERVED, |b| b.clamp(1, MAX_RESERVED));
        std::thread::scope(|scope| {
            // The worker threads read and replay games and make them ready to store; this thread
            // gathers them into batches; the database stage sorts each batch's index entries
            // while the batch before is committed. The channel holds none, so three batches are
            // in memory (one gathered, one sorted, one written), whatever the input's size.
            let writer = scope.spawn(move || {
                self.import_all(batches, |stats| {
                    let _ = stats_out.send(stats.clone());
                })
            });
            let mut state = Batches::<V::Error> {
                options,
                most,
                records: Vec::with_capacity(most),
                origins: Vec::with_capacity(most),
                bytes: 0,
                pushed: 0,
                seen: Default::default(),
                input_start: 0,
                consumed: 0,
                in_flight: Default::default(),
                to_writer: Some(to_writer),
                from_writer,
                summary: ImportSummary::default(),
                _error: std::marker::PhantomData,
            };
            let read = read_inputs(inputs, registry, options, events, &mut state);
            // What was read before an error is still stored: the batch being filled is sent,
            // and the writer finishes what it has before the error is reported.
            let sent = state.send(events);
            state.to_writer = None;
            let written = writer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            let mut heard = Ok(());
            while let Ok(stats) = state.from_writer.try_recv() {
                if heard.is_ok() {
                    heard = state.committed(&stats, events);
                }
            }
            let failure: Option<V::Error> = match (written, read, sent, heard) {
                (Err(e), ..) => Some(events.database_failed(e)),
                (Ok(_), Err(stop), ..) | (Ok(_), Ok(()), Err(stop), _) => match stop {
                    Stop::Read(e) => Some(events.read_failed(state.summary.inputs - 1, e)),
                    Stop::Caller(e) => Some(e),
                    Stop::WriterStopped => None,
                },
                (Ok(_), Ok(()), Ok(()), Err(e)) => Some(e),
                (Ok(_), Ok(()), Ok(()), Ok(())) => None,
            };
            match failure {
                Some(error) => Err(ImportStopped {
                    summary: state.summary,
                    error,
                }),
                None => Ok(state.summary),
            }
        })
    }
}

/// Reads every input and hands the records to `state`; stops at the first error.
fn read_inputs<R, I, V>(
    inputs: I,
    registry: &Registry,
    options: &ImportOptions,
    events: &mut V,
    state: &mut Batches<'_, V::Error>,
) -> Result<(), Stop<V::Error>>
where
    R: Read,
    I: IntoIterator<Item = Result<R, V::Error>>,
    V: ImportEvents,
{
    for (input, reader) in inputs.into_iter().enumerate() {
        state.summary.inputs += 1;
        let reader = reader.map_err(Stop::Caller)?;
        state.input_start = state.seen.load(Ordering::Relaxed);
        let reader = Counting {
            inner: reader,
            bytes: std::sync::Arc::clone(&state.seen),
        };
        // Records (with their canonical text) are made and made ready to store on the worker
        // threads, and a valid game's text, replay and record are dropped there. This thread
        // makes a few too (those read across two blocks of the input).
        let caller = std::thread::current().id();
        let work = |raw: RawGame, r: Replay| {
            yield_to_writer(caller);
            match GameRecord::from_replay(r, &raw) {
                Ok(record) => match record.check() {
                    Ok(()) => Made::Stored(
                        Box::new(ReadyGame::from(record)),
                        raw.start.line,
                        raw.source_offset + raw.source.len() as u64,
                    ),
                    Err(e) => Made::NotStored(Box::new(raw), NotStored::Refused(e)),
                },
                Err(r) => Made::NotStored(Box::new(raw), NotStored::Invalid(r)),
            }
        };
        let how = ReplayOptions {
            hashes: true,
            strict: options.strict,
            max_game_bytes: options.max_game_bytes,
        };
        replay_games(reader, registry, how, work, |number, made| {
            state.summary.read += 1;
            events.read();
            match made {
                Made::Stored(record, line, end) => {
                    state.consumed = state.input_start + end;
                    state.push(
                        *record,
                        Origin {
                            input,
                            number,
                            line,
                        },
                        events,
                    )
                }
                Made::NotStored(mut raw, why) => {
                    raw.number = number;
                    state.summary.rejected += 1;
                    let origin = Origin {
                        input,
                        number,
                        line: raw.start.line,
                    };
                    events.not_stored(origin, &raw, &why).map_err(Stop::Caller)
                }
            }
        })?;
        events.input_ended(input).map_err(Stop::Caller)?;
    }
    Ok(())
}

/// How much less CPU priority the threads that read and replay games take than the rest of
/// an import, as a nice value increment (see [`yield_to_writer`]).
#[cfg(target_os = "linux")]
const READER_NICE: i32 = 10;

/// Lowers the CPU priority of the calling thread, once, when it is one of an import's
/// reading threads rather than `caller`, the thread that runs the import. The writer is an
/// import's narrowest stage: with as many reading threads as cores, it waited for a core for
/// a quarter of a 200,000-game import; taking a core as soon as it needs one, it keeps the
/// whole pipeline moving, and the readers have the cores whenever it waits. The reading
/// threads are the import's own, ended with it, so no thread of the caller is changed. Only
/// on Linux, where the nice value is a thread's own (elsewhere it is the process's, the
/// writer's too).
fn yield_to_writer(caller: std::thread::ThreadId) {
    #[cfg(not(target_os = "linux"))]
    let _ = caller;
    #[cfg(target_os = "linux")]
    {
        use std::cell::Cell;
        thread_local! {
            static SEEN: Cell<bool> = const { Cell::new(false) };
        }
        SEEN.with(|seen| {
            if !seen.replace(true) && std::thread::current().id() != caller {
                // SAFETY: `nice` takes and returns plain integers and changes nothing but
                // the calling thread's nice value. A failure (-1 with errno set) leaves the
                // priority as it was, which is harmless, so the result is not looked at.
                #[allow(unsafe_code)]
                unsafe {
                    libc::nice(READER_NICE);
                }
            }
        });
    }
}
