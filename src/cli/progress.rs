//! How far a long command has got, told on standard error: a bar on a terminal (bytes read of
//! the total, speed, time left), a line every few seconds otherwise, nothing when quiet.
//!
//! A thread of its own draws it from shared counters, so it shows from the first second
//! whatever the work is waiting on, and the work pays only for adding to the counters.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// What an import has done so far; the work adds to it as it goes.
#[derive(Debug, Default)]
pub struct Counts {
    /// Bytes read from the input files (before decompression).
    pub bytes: Arc<AtomicU64>,
    pub read: AtomicU64,
    pub imported: AtomicU64,
    pub duplicates: AtomicU64,
    pub rejected: AtomicU64,
}

impl Counts {
    fn line(&self, started: Instant) -> String {
        let read = self.read.load(Ordering::Relaxed);
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        format!(
            "{read} games read, {} imported, {} duplicates, {} rejected ({:.0} games/s)",
            self.imported.load(Ordering::Relaxed),
            self.duplicates.load(Ordering::Relaxed),
            self.rejected.load(Ordering::Relaxed),
            read as f64 / secs
        )
    }
}

/// How often a line is printed when standard error is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(5);
/// How often the bar is redrawn.
const BAR_EVERY: Duration = Duration::from_millis(100);

/// The progress of a run, shown until [`Progress::finish`].
pub struct Progress {
    bar: Option<ProgressBar>,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts showing the progress of `counts` against `total` bytes (unknown when reading
    /// standard input), as `who` (`kabir import`): nothing when `quiet`.
    pub fn start(who: &'static str, counts: Arc<Counts>, total: Option<u64>, quiet: bool) -> Self {
        let bytes = Arc::clone(&counts.bytes);
        Progress::start_with(who, bytes, total, Measure::Bytes, quiet, move |started| {
            counts.line(started)
        })
    }

    /// Starts showing `done` (bytes read or games handled, as `measure` says) against
    /// `total`, followed by what `line` says from the time the run started: nothing when
    /// `quiet`.
    pub fn start_with(
        who: &'static str,
        done: Arc<AtomicU64>,
        total: Option<u64>,
        measure: Measure,
        quiet: bool,
        line: impl Fn(Instant) -> String + Send + 'static,
    ) -> Self {
        if quiet {
            return Progress {
                bar: None,
                stop: None,
                thread: None,
            };
        }
        let started = Instant::now();
        let (stop, stopped) = mpsc::channel::<()>();
        let bar = std::io::stderr().is_terminal().then(|| bar(total, measure));
        let drawn = bar.clone();
        let thread = std::thread::spawn(move || {
            let every = if drawn.is_some() {
                BAR_EVERY
            } else {
                LINE_EVERY
            };
            // Until the run ends (its sender dropped or a message sent).
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                let done = done.load(Ordering::Relaxed);
                match &drawn {
                    Some(bar) => {
                        bar.set_position(done);
                        bar.set_message(line(started));
                    }
                    None => super::output::note(format_args!(
                        "{who}: {}{}",
                        done_of(done, total, measure),
                        line(started)
                    )),
                }
            }
        });
        Progress {
            bar,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Runs `f`, which writes to standard error, with the bar out of its way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Stops showing the progress and clears the bar.
    pub fn finish(mut self) {
        self.stop_thread();
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn stop_thread(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Progress {
    /// An error ends the run early: the bar is left as it was, the thread ends.
    fn drop(&mut self) {
        self.stop_thread();
        if let Some(bar) = &self.bar {
            bar.abandon();
        }
    }
}

/// What a progress bar counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Bytes read from the input.
    Bytes,
    /// Games handled.
    // Only the Parquet export counts games.
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    Games,
}

/// A bar of bytes read (or games handled) against the total, or a spinner with the count
/// when the total is not known.
fn bar(total: Option<u64>, measure: Measure) -> ProgressBar {
    let (bar, template) = match (total, measure) {
        (Some(total), Measure::Bytes) => (
            ProgressBar::new(total),
            "{spinner} {elapsed} [{bar:24}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left) \
             {msg}",
        ),
        (None, Measure::Bytes) => (
            ProgressBar::new_spinner(),
            "{spinner} {elapsed} {bytes} ({bytes_per_sec}) {msg}",
        ),
        (Some(total), Measure::Games) => (
            ProgressBar::new(total),
            "{spinner} {elapsed} [{bar:24}] {pos}/{len} games ({eta} left) {msg}",
        ),
        (None, Measure::Games) => (
            ProgressBar::new_spinner(),
            "{spinner} {elapsed} {pos} games {msg}",
        ),
    };
    bar.set_style(
        ProgressStyle::with_template(template)
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(BAR_EVERY);
    bar
}

/// `12.5 of 40.0 MB read (31%), ` or `12.5 MB read, `; for games, `1200 of 5000 games
/// (24%), ` or `1200 games, `.
fn done_of(done: u64, total: Option<u64>, measure: Measure) -> String {
    match (measure, total) {
        (Measure::Bytes, _) => read_of(done, total),
        (Measure::Games, Some(t)) if t > 0 => {
            format!(
                "{done} of {t} games ({:.0}%), ",
                done as f64 * 100.0 / t as f64
            )
        }
        (Measure::Games, _) => format!("{done} games, "),
    }
}

/// `12.5 of 40.0 MB read (31%), ` or `12.5 MB read, `.
fn read_of(bytes: u64, total: Option<u64>) -> String {
    let mb = |b: u64| b as f64 / 1e6;
    match total {
        Some(t) if t > 0 => format!(
            "{:.1} of {:.1} MB read ({:.0}%), ",
            mb(bytes),
            mb(t),
            bytes as f64 * 100.0 / t as f64
        ),
        _ => format!("{:.1} MB read, ", mb(bytes)),
    }
}
