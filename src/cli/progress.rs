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
        if quiet {
            return Progress {
                bar: None,
                stop: None,
                thread: None,
            };
        }
        let started = Instant::now();
        let (stop, stopped) = mpsc::channel::<()>();
        let bar = std::io::stderr().is_terminal().then(|| bar(total));
        let drawn = bar.clone();
        let thread = std::thread::spawn(move || {
            let every = if drawn.is_some() {
                BAR_EVERY
            } else {
                LINE_EVERY
            };
            // Until the run ends (its sender dropped or a message sent).
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                let bytes = counts.bytes.load(Ordering::Relaxed);
                match &drawn {
                    Some(bar) => {
                        bar.set_position(bytes);
                        bar.set_message(counts.line(started));
                    }
                    None => eprintln!("{who}: {}{}", read_of(bytes, total), counts.line(started)),
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

/// A bar of bytes read against the total, or a spinner with the bytes read when the total is
/// not known.
fn bar(total: Option<u64>) -> ProgressBar {
    let (bar, template) = match total {
        Some(total) => (
            ProgressBar::new(total),
            "{spinner} {elapsed} [{bar:24}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta} left) \
             {msg}",
        ),
        None => (
            ProgressBar::new_spinner(),
            "{spinner} {elapsed} {bytes} ({bytes_per_sec}) {msg}",
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
