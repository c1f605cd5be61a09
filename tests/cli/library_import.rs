//! The import through the library API makes the same database, byte for byte, as
//! `kabir import` with its default options.

use std::fs::File;

use crate::cli_common::{generated, kabir, samples};
use kabir::db::{Database, ImportEvents, ImportOptions, Origin};
use kabir::notation::game::RawGame;

/// Counts what the import says, and checks it is said in order.
#[derive(Default)]
struct Heard {
    read: u64,
    not_stored: Vec<Origin>,
    batches: u64,
}

impl ImportEvents for Heard {
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn read(&mut self) {
        self.read += 1;
    }

    fn not_stored(
        &mut self,
        origin: Origin,
        game: &RawGame,
        _why: &kabir::db::NotStored,
    ) -> Result<(), Self::Error> {
        assert_eq!(game.number, origin.number);
        self.not_stored.push(origin);
        Ok(())
    }

    fn committed(
        &mut self,
        stats: &kabir::db::BatchStats,
        origins: &[Origin],
        summary: &kabir::db::ImportSummary,
    ) -> Result<(), Self::Error> {
        assert!(origins.len() as u64 >= stats.imported + stats.duplicates);
        assert!(summary.imported >= stats.imported);
        self.batches += 1;
        Ok(())
    }
}

#[test]
fn the_library_and_the_command_make_the_same_database() {
    let dir = tempfile::tempdir().unwrap();
    let by_command = dir.path().join("command.db");
    kabir()
        .args(["import", "--quiet", "--db"])
        .arg(&by_command)
        .args(samples())
        .assert()
        .code(0);

    let by_library = dir.path().join("library.db");
    let registry = kabir::variants::Registry::builtin();
    let mut heard = Heard::default();
    {
        let mut db = Database::create_or_open(&by_library).unwrap();
        let mut importer = db.importer().unwrap();
        let inputs = samples()
            .into_iter()
            .map(|p| File::open(p).map_err(Into::into));
        let summary = importer
            .import_inputs(inputs, &registry, &ImportOptions::default(), &mut heard)
            .unwrap();
        assert_eq!(summary.inputs, samples().len());
        assert_eq!(summary.read, heard.read);
        assert_eq!(summary.imported, 22);
        assert_eq!(summary.rejected, 0);
    }
    assert!(heard.not_stored.is_empty());
    assert_eq!(heard.batches, 1);
    let a = std::fs::read(&by_command).unwrap();
    let b = std::fs::read(&by_library).unwrap();
    assert!(a.len() > 4096);
    assert!(a == b, "the two databases differ");
}

#[test]
fn an_invalid_game_is_heard_of_with_its_origin_and_the_rest_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[Variant \"shatranj\"]\n\n1. e3 e6 *\n\n[Variant \"shatranj\"]\n\n1. e5 *\n";
    let registry = kabir::variants::Registry::builtin();
    let mut heard = Heard::default();
    let mut db = Database::create_or_open(dir.path().join("k.db")).unwrap();
    let mut importer = db.importer().unwrap();
    let inputs = [Ok(text.as_bytes()), Ok(text.as_bytes())];
    let summary = importer
        .import_inputs(inputs, &registry, &ImportOptions::default(), &mut heard)
        .unwrap();
    assert_eq!((summary.read, summary.imported), (4, 1));
    assert_eq!((summary.duplicates, summary.rejected), (1, 2));
    let lines: Vec<(usize, u64, u32)> = heard
        .not_stored
        .iter()
        .map(|o| (o.input, o.number, o.line))
        .collect();
    assert_eq!(lines, [(0, 2, 5), (1, 2, 5)]);
}

/// Hears the size of each batch, and says how far a counted input has been read.
struct Batches {
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
    total: Option<u64>,
    sizes: Vec<usize>,
}

impl ImportEvents for Batches {
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn committed(
        &mut self,
        _stats: &kabir::db::BatchStats,
        origins: &[Origin],
        _summary: &kabir::db::ImportSummary,
    ) -> Result<(), Self::Error> {
        self.sizes.push(origins.len());
        Ok(())
    }

    fn input_progress(&self) -> Option<(u64, u64)> {
        Some((
            self.read.load(std::sync::atomic::Ordering::Relaxed),
            self.total?,
        ))
    }
}

/// A reader that counts the bytes read through it.
struct Counted<R> {
    inner: R,
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// Told how far the input has been read, a large import cuts its last batches smaller (so
/// that little is left to store once the input is read), to no less than a quarter of a full
/// batch; not told, every batch but the last is full.
#[test]
fn the_last_batches_are_cut_smaller_when_the_input_size_is_known() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.pgn");
    generated(&games, "tamerlane", 3000, 5);
    let size = std::fs::metadata(&games).unwrap().len();
    // Two threads read the input, as on a two-core machine, whatever this one has: how far
    // reading runs ahead of the games depends on their number.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let import = |name: &str, total: Option<u64>| -> Vec<usize> {
        pool.install(|| {
            let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
            let mut events = Batches {
                read: read.clone(),
                total,
                sizes: Vec::new(),
            };
            let mut db = Database::create_or_open(dir.path().join(name)).unwrap();
            let mut importer = db.importer().unwrap();
            let input = Counted {
                inner: File::open(&games).unwrap(),
                read,
            };
            // About 58 Tamerlane games to a batch of 1 MB.
            let options = ImportOptions {
                batch_bytes: 1_000_000,
                ..ImportOptions::default()
            };
            let registry = kabir::variants::Registry::builtin();
            let summary = importer
                .import_inputs([Ok(input)], &registry, &options, &mut events)
                .unwrap();
            assert_eq!(summary.imported, 3000);
            events.sizes
        })
    };
    let (known, unknown) = (import("known.db", Some(size)), import("unknown.db", None));
    eprintln!("{known:?}\n{unknown:?}");
    assert_eq!(known.iter().sum::<usize>(), 3000);
    assert_eq!(unknown.iter().sum::<usize>(), 3000);
    let full = unknown[0];
    let near = |n: usize| n * 4 >= full * 3 && n * 4 <= full * 5;
    assert!(
        unknown[..unknown.len() - 1].iter().all(|&n| near(n)),
        "{unknown:?}"
    );
    // The same batches until the end nears.
    assert_eq!(known[..known.len() / 2], unknown[..known.len() / 2]);
    // The last three hold about a full batch between them, none less than a quarter.
    let last: usize = known[known.len() - 3..].iter().sum();
    assert!(last * 2 <= full * 3, "{known:?}");
    assert!(
        known[..known.len() - 1].iter().all(|&n| n * 4 + 8 >= full),
        "{known:?}"
    );
    assert!(known.len() > unknown.len(), "{known:?} {unknown:?}");
}

/// What `kabir import` runs: a panic in its database writer stops the import with the
/// database's error, counting only the batches committed before it, which stay whole.
#[test]
fn a_panic_in_the_writer_stops_the_import_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.db");
    let registry = kabir::variants::Registry::builtin();
    let mut heard = Heard::default();
    let mut db = Database::create_or_open(&path).unwrap();
    let mut importer = db.importer().unwrap();
    importer.panic_in_batch(2);
    let options = ImportOptions {
        batch_games: 4,
        ..ImportOptions::default()
    };
    let inputs = samples()
        .into_iter()
        .map(|p| File::open(p).map_err(Into::into));
    let stopped = importer
        .import_inputs(inputs, &registry, &options, &mut heard)
        .unwrap_err();
    let message = stopped.error.to_string();
    assert!(message.contains("writer failed unexpectedly"), "{message}");
    assert_eq!(stopped.summary.imported, 8);
    assert!(heard.batches <= 2);
    drop(importer);
    drop(db);
    let db = Database::open(&path).unwrap();
    assert_eq!(db.game_count().unwrap(), 8);
    db.integrity_check().unwrap();
}

/// The import's reading threads lower their own CPU priority; the thread that runs the
/// import keeps its own, though it reads some games itself (here a game too large to store,
/// 6 MB, longer than any block of the input grows), and the other games are all stored.
#[cfg(target_os = "linux")]
#[test]
fn the_calling_thread_keeps_its_priority() {
    #[allow(unsafe_code)]
    fn nice() -> i32 {
        // SAFETY: `getpriority` takes and returns plain integers and reads only the calling
        // thread's nice value (a value from -20 to 19: -1 is an error only with errno set,
        // which no valid call here sets).
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.pgn");
    generated(&input, "tamerlane", 200, 3);
    let games = std::fs::read_to_string(&input).unwrap();
    let large = format!(
        "[Variant \"shatranj\"]\n\n1. e3 {{{}}} e6 *\n\n",
        "word ".repeat(1_200_000)
    );
    std::fs::write(&input, format!("{large}{games}{large}{games}")).unwrap();
    let before = nice();
    let registry = kabir::variants::Registry::builtin();
    let mut heard = Heard::default();
    let mut db = Database::create_or_open(dir.path().join("k.db")).unwrap();
    let mut importer = db.importer().unwrap();
    let options = ImportOptions {
        max_game_bytes: Some(100_000),
        ..ImportOptions::default()
    };
    let summary = importer
        .import_inputs(
            [File::open(&input).map_err(Into::into)],
            &registry,
            &options,
            &mut heard,
        )
        .unwrap();
    assert_eq!(summary.read, 402);
    assert_eq!((summary.imported, summary.duplicates), (200, 200));
    assert_eq!(heard.not_stored.len(), 2);
    assert_eq!(nice(), before);
}
