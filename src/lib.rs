//! kabir: rules, notation and a game database for the Shatranj family of chess games
//! (Shatranj, Tamerlane chess with its citadels, Grand Shatranj, the Greenwood variants...).
//!
//! # Layers
//!
//! Each layer is a crate of the workspace (`crates/`), re-exported here under the path it has
//! in this crate; data flows one way, and each layer uses only those above it:
//!
//! - [`limits`]: how much of a file kabir reads whole at most (a variant definition file),
//!   checked while reading.
//! - [`rules`]: the rules core. A [`Variant`](rules::Variant) is built from a definition
//!   (data, not code); a [`Position`](rules::Position) of it generates the legal
//!   [`Move`](rules::Move)s; a [`Game`](rules::Game) plays them and knows when the game is
//!   over.
//! - [`variants`]: the built-in variant definitions (TOML files compiled in), user definition
//!   files, and the [`Registry`](variants::Registry) that finds a variant by the name a game
//!   gives it.
//! - [`notation`]: game records as text. The [`Reader`](notation::reader::Reader) splits any
//!   reader into games ([`RawGame`](notation::game::RawGame): tags and movetext tokens with
//!   their places in the file), knowing nothing of the rules; [`notation::resolve()`] finds the
//!   legal move a move's text names; [`notation::write_game`] writes a game back.
//! - [`replay`]: a game read from text, played through the rules: its positions and every
//!   [`Problem`](replay::Problem) (an illegal or ambiguous move, a wrong result...) with
//!   where it is in the file.
//! - [`generate`]: random legal games, the same for the same seed; [`render`]: positions as
//!   text for a terminal.
//!
//! These need no optional dependency. The features add:
//!
//! - `db`: the game database (SQLite): import replayed games, search them, the opening
//!   explorer and statistics (`db` module).
//! - `diagram`: positions and statistics charts as SVG, and PNG (`diagram` module).
//! - `serve`: the explorer, games and statistics as web pages (`serve` module).
//! - `parquet`: games, moves and positions as Parquet tables (`columnar` module).
//! - `cli`: the `kabir` binary (with `db` and `diagram`).
//!
//! `cli`, `db`, `diagram` and `serve` are on by default. For the rules and the notation alone,
//! depend on `kabir = { version = "0.1", default-features = false }`.
//!
//! # Checking games
//!
//! Read a game file, replay each game and print its problems:
//!
//! ```
//! use kabir::notation::reader::Reader;
//! use kabir::replay::replay;
//! use kabir::variants::Registry;
//!
//! // A Shatranj pawn steps one square at a time: 2. d4 is not a legal move.
//! let pgn = "[Variant \"Shatranj\"]\n[Result \"*\"]\n\n1. e3 e6 2. d4 *\n";
//! let registry = Registry::builtin();
//! let mut problems = Vec::new();
//! for game in Reader::new(pgn.as_bytes()) {
//!     let game = game?;
//!     let replayed = replay(&game, &registry);
//!     for p in &replayed.problems {
//!         let at = format!("game {}, {}:{}", replayed.number, p.line, p.column);
//!         println!("{at}: {:?} at {:?}", p.kind, p.text);
//!         problems.push(p.clone());
//!     }
//! }
//! assert_eq!(problems.len(), 1);
//! assert_eq!((problems[0].line, problems[0].column), (4, 13));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A database
//!
//! With the `db` feature, valid games go into a database, which answers for a position the
//! moves played from it and their results:
//!
//! ```
//! # #[cfg(feature = "db")] {
//! use kabir::db::{Database, GameRecord};
//! use kabir::notation::reader::Reader;
//! use kabir::replay::replay;
//! use kabir::rules::Position;
//! use kabir::variants::Registry;
//!
//! let pgn = "[Variant \"Shatranj\"]\n[Result \"*\"]\n\n1. e3 e6 2. Nf3 *\n\n\
//!            [Variant \"Shatranj\"]\n[Result \"*\"]\n\n1. e3 d6 *\n\n\
//!            [Variant \"Shatranj\"]\n[Result \"*\"]\n\n1. d3 e6 *\n";
//! let registry = Registry::builtin();
//! let mut records = Vec::new();
//! for game in Reader::new(pgn.as_bytes()) {
//!     let game = game?;
//!     // An invalid game's replay comes back as the error, with its problems.
//!     let record = GameRecord::from_replay(replay(&game, &registry), &game)
//!         .map_err(|r| format!("game {} is not valid", r.number))?;
//!     records.push(record);
//! }
//!
//! let dir = tempfile::tempdir()?;
//! let mut db = Database::create_or_open(dir.path().join("games.db"))?;
//! let stats = db.importer()?.import_batch(records)?;
//! assert_eq!(stats.imported, 3);
//!
//! let shatranj = kabir::variants::builtin("shatranj")?;
//! let explorer = db.explore(&Position::start(&shatranj), 3)?;
//! assert_eq!(explorer.games, 3);
//! for m in &explorer.moves {
//!     println!("{}: {} games", m.san, m.games);
//! }
//! assert_eq!((explorer.moves[0].san.as_str(), explorer.moves[0].games), ("e3", 2));
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The command line (`src/main.rs`, `src/cli/`) is a layer over these: it parses arguments,
//! calls the library and prints.

// The crates of the workspace, under the paths this crate has always given them.
#[cfg(feature = "parquet")]
#[doc(inline)]
pub use kabir_columnar as columnar;
#[cfg(feature = "db")]
#[doc(inline)]
pub use kabir_db as db;
#[cfg(feature = "diagram")]
#[doc(inline)]
pub use kabir_diagram as diagram;
#[doc(inline)]
pub use kabir_notation as notation;
#[doc(inline)]
pub use kabir_notation::{render, replay, replay::parallel};
#[doc(inline)]
pub use kabir_rules as rules;
#[doc(inline)]
pub use kabir_rules::{generate, limits, variants};
#[cfg(feature = "serve")]
#[doc(inline)]
pub use kabir_serve as serve;
