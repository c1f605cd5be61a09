//! The game database: games that have been replayed, stored with their positions in SQLite,
//! and the queries over them.
//!
//! Data flows one way: [`GameRecord`]s (valid games) are replayed in parallel into rows by an
//! [`Importer`], one transaction per batch; [`Database`] answers questions about them. The
//! schema, the position index and why a hash collision never gives a wrong answer are
//! described in `docs/DATABASE.md`.

mod answer;
mod codec;
mod database;
mod error;
mod export;
mod import;
mod index;
mod merge;
mod name_index;
pub mod names;
mod openings;
mod pipeline;
mod query;
mod rebuild;
mod record;
mod report;
mod schema;
mod search;
mod summary;
mod tally;
mod tree;

pub use answer::{
    EXPLORER_COUNTING, ExploreAnswer, GameAnswer, GameAnswerError, GameRow, LineAnswer, MoveAnswer,
    SearchAnswer, SpecialSummary, move_specials,
};
pub use codec::GameResult;
pub use database::{DEFAULT_BUSY_TIMEOUT, Database};
pub use error::DbError;
pub use export::{ExportedGame, ExportedMove};
pub use import::{BatchStats, Duplicate, DuplicateRule, Importer, ReadyGame, Rejected};
pub use pipeline::{ImportEvents, ImportOptions, ImportStopped, ImportSummary, NotStored, Origin};
pub use query::{
    DEFAULT_TREE_NODES, Explorer, ExplorerMove, ExplorerTree, GameFilter, GameId, GameSummary,
    MAX_TREE_DEPTH, PositionHit, Results, Special, StoredGame, TreeQuery, Truncation,
};
pub use rebuild::Rebuilt;
pub use record::{GameEnd, GameRecord, RecordError, Replayed, SpecialMoves};
pub use report::{
    EndCount, Group, GroupBy, LengthBucket, Lengths, PlayerStats, Report, ReportQuery, Score,
    SpecialCount, percent,
};
pub use schema::{
    APPLICATION_ID, BUCKET_BITS, READABLE_FROM as SCHEMA_READABLE_FROM, TREE_BUCKET_BITS,
    TREE_EXAMPLES, TREE_PLIES, VERSION as SCHEMA_VERSION,
};
pub use search::{GameQuery, SearchHit, SearchPage, SortKey};
