//! The `kabir` command line.

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod cli;

// Replay and import allocate many small buffers per game on several threads at once, where
// mimalloc's per-thread heaps cost a fraction of the system allocator's locking.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its position in mimalloc's `mi_option_e`, which the
/// bindings do not name).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory stays in the process before it is handed back to the system, in
/// milliseconds: for good (-1). Handed back, pages used again later are faulted in and zeroed
/// by the kernel again, and an import frees and allocates each batch's memory anew: after
/// 250 ms, about 218,000 page faults on 100,000 Tamerlane games and a fifth more CPU than kept
/// (14.6 s against 11.8 s, user and system, in runs side by side), after 1 s 144,000, kept
/// 17,800. Kept, the peak is what the import holds at once, three batches (docs/RELIABILITY.md,
/// "Memory").
const PURGE_DELAY_MS: std::os::raw::c_long = -1;

/// The same for `kabir serve`: at once (0). A server lives on after a large request, and
/// memory kept for good would be held for the rest of its life (an explorer tree of 20,000
/// moves left about 75 MB behind, against 16 MB handed back; 6 requests at once on 5,000
/// Tamerlane games). Its requests allocate a few megabytes at most, so the pages handed back
/// and faulted in again cost no time that shows: 0.3 ms for the start position's explorer,
/// 260-370 ms for a tree of 20,000 moves, either way (docs/RELIABILITY.md, "Queries").
#[cfg(feature = "serve")]
const SERVE_PURGE_DELAY_MS: std::os::raw::c_long = 0;

#[allow(unsafe_code)]
fn purge_freed_memory(command: &Command) {
    let delay = match command {
        #[cfg(feature = "serve")]
        Command::Serve(_) => SERVE_PURGE_DELAY_MS,
        _ => PURGE_DELAY_MS,
    };
    // SAFETY: called at the start of `main`, before any other thread exists, as
    // `mi_option_set` requires; the option takes a plain integer.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, delay) };
}

/// kabir: the Shatranj family of chess games — rules, notation, validation and a game database.
#[derive(Debug, Parser)]
#[command(name = "kabir", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the built-in variants.
    Variants(cli::variants::VariantsArgs),
    /// Count the legal move tree to a depth (move generator test).
    Perft(cli::perft::PerftArgs),
    /// Play random legal games, reproducible by seed.
    Generate(cli::generate::GenerateArgs),
    /// Check game files: replay every game and report each problem precisely.
    Validate(cli::validate::ValidateArgs),
    /// Import game files into a database (default kabir.db).
    Import(cli::import::ImportArgs),
    /// Draw a position as SVG or PNG.
    Diagram(cli::diagram::DiagramArgs),
    /// Find games by tags, by position or by opening line.
    Search(cli::search::SearchArgs),
    /// The opening explorer: games and results of each move from a position.
    Explore(cli::explore::ExploreArgs),
    /// Statistics: results, lengths, terminations, special moves, openings, players.
    Stats(cli::stats::StatsArgs),
    /// Maintain what a database derives from its games: `kabir index rebuild`.
    Index(cli::index::IndexArgs),
    /// Write games out as game text, CSV, JSON or Parquet tables, or an opening suite (EPD, PGN).
    Export(cli::export::ExportArgs),
    /// Show a game: tags, moves and the board at a ply.
    Show(cli::show::ShowArgs),
    /// Serve the explorer, a game viewer, search and statistics as web pages.
    #[cfg(feature = "serve")]
    Serve(cli::serve::ServeArgs),
    /// Print a shell's completion script (bash, zsh, fish, powershell, elvish).
    Completions(cli::completions::CompletionsArgs),
    /// Print the manual page (roff).
    Man(cli::completions::ManArgs),
}

/// Ignores SIGXFSZ, which the system sends a process that writes past its file-size limit
/// (`ulimit -f`) and which kills it without a word by default. Ignored, the write fails
/// with EFBIG instead, and the error says so ("file too large").
#[allow(unsafe_code)]
#[cfg(unix)]
fn report_file_size_limit() {
    // SAFETY: called at the start of `main`, before any other thread exists; SIG_IGN needs
    // no handler code.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
}

#[cfg(not(unix))]
fn report_file_size_limit() {}

/// Transparent huge pages are off from the process's start: a query runs for milliseconds and
/// allocates a few megabytes spread over several of mimalloc's regions, and with huge pages the
/// system zeroes each 2 MiB region whole when it is first touched (a tenth of an `explore`'s
/// time on a million games). The runtime allocates before `main`, so this runs as a
/// constructor, before it. Commands that keep hundreds of megabytes for seconds (imports) turn
/// them back on with [`huge_pages`].
#[allow(unsafe_code)]
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static SMALL_PAGES_FROM_START: extern "C" fn() = {
    extern "C" fn small_pages() {
        // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only this process's
        // memory policy; on a system without it the call fails and nothing changes.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
    small_pages
};

/// Turns transparent huge pages back on (see [`SMALL_PAGES_FROM_START`]).
#[allow(unsafe_code)]
#[cfg(target_os = "linux")]
fn huge_pages() {
    // SAFETY: as above.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0) };
}

#[cfg(not(target_os = "linux"))]
fn huge_pages() {}

fn main() -> ExitCode {
    report_file_size_limit();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage(&e),
    };
    purge_freed_memory(&cli.command);
    if !matches!(
        cli.command,
        Command::Search(_) | Command::Explore(_) | Command::Stats(_) | Command::Show(_)
    ) {
        huge_pages();
    }
    let stdout = std::io::stdout();
    let mut out =
        std::io::BufWriter::new(cli::output::Named::new(stdout.lock(), "standard output"));
    // Ok(false): the command ran but found invalid input (exit status 1).
    let result = match &cli.command {
        Command::Variants(a) => cli::variants::run(a, &mut out).map(|()| true),
        Command::Perft(a) => cli::perft::run(a, &mut out),
        Command::Generate(a) => cli::generate::run(a, &mut out).map(|()| true),
        Command::Validate(a) => cli::validate::run(a, &mut out),
        Command::Import(a) => cli::import::run(a, &mut out),
        Command::Diagram(a) => cli::diagram::run(a, &mut out).map(|()| true),
        Command::Search(a) => cli::search::run(a, &mut out),
        Command::Explore(a) => cli::explore::run(a, &mut out),
        Command::Stats(a) => cli::stats::run(a, &mut out),
        Command::Index(a) => cli::index::run(a, &mut out),
        Command::Export(a) => cli::export::run(a, &mut out),
        Command::Show(a) => cli::show::run(a, &mut out),
        #[cfg(feature = "serve")]
        Command::Serve(a) => cli::serve::run(a, &mut out),
        Command::Completions(a) => {
            cli::completions::completions(a, Cli::command(), &mut out).map(|()| true)
        }
        Command::Man(a) => cli::completions::man(a, Cli::command(), &mut out).map(|()| true),
    };
    // A reader that went away once the command had run keeps the command's answer:
    // `kabir validate bad.pgn | head -1` still says that a game was invalid.
    let result = result.and_then(|ok| match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ok),
    });
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            if cli::output::is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            // Standard error may be full as well: the status says it then.
            let _ = writeln!(
                std::io::stderr(),
                "kabir: {}",
                kabir::render::printable_lines(&error_message(&e))
            );
            ExitCode::from(2)
        }
    }
}

/// Prints what the command line parser has to say (the help, the version, a usage error) and
/// ends with its status, 2 when the help or the version could not be written.
fn usage(e: &clap::Error) -> ExitCode {
    match e.print() {
        Err(w) if w.kind() != std::io::ErrorKind::BrokenPipe => {
            let _ = writeln!(
                std::io::stderr(),
                "kabir: cannot write standard output: {w}"
            );
            ExitCode::from(2)
        }
        _ => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
    }
}

/// An error and its causes, outermost first, joined by ": ". A cause whose text the message
/// already ends with is left out: many errors put their source's text into their own
/// (`"{path}: {source}"`) and give it as their `source()` too, and it would be said twice.
fn error_message(e: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if text.is_empty() || message.ends_with(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}
