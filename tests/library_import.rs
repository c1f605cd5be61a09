//! The import through the library API makes the same database, byte for byte, as
//! `kabir import` with its default options.

mod cli_common;

use std::fs::File;

use cli_common::{kabir, samples};
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
        assert_eq!(summary.imported, 20);
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
