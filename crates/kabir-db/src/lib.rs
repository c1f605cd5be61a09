//! The game database: games that have been replayed, stored with their positions in SQLite,
//! and the queries over them.
//!
//! Data flows one way: [`GameRecord`]s (valid games) are replayed in parallel into rows by an
//! [`Importer`], one transaction per batch; [`Database`] answers questions about them. The
//! schema, the position index and why a hash collision never gives a wrong answer are
//! described in `docs/DATABASE.md`.

mod derived;
mod error;
mod read;
mod storage;
mod write;

/// A hash map for the maps filled once per game or name while a batch is written: keyed by
/// hashes, ids and names, where SipHash (the standard default) cost a few percent of the
/// writer's time.
type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

pub use derived::names;

pub use derived::rebuild::Rebuilt;
pub use derived::segments::{MERGE_FANOUT, MERGE_WORK, MERGE_WORK_MIN};
pub use error::DbError;
pub use read::answer::{
    EXPLORER_COUNTING, ExploreAnswer, GameAnswer, GameAnswerError, GameRow, LineAnswer, MoveAnswer,
    SearchAnswer, SpecialSummary, move_specials,
};
pub use read::export::{ExportedGame, ExportedMove};
pub use read::filtered::ExplorerGames;
pub use read::query::{
    DEFAULT_TREE_NODES, Explorer, ExplorerMove, ExplorerTree, GameFilter, GameId, GameSummary,
    MAX_TREE_DEPTH, PositionHit, Results, Special, SpecialCounts, StoredGame, TreeQuery,
    Truncation,
};
pub use read::report::{
    EndCount, Group, GroupBy, LengthBucket, Lengths, NO_MOVES, PlayerStats, Report, ReportQuery,
    Score, SpecialCount, percent,
};
pub use read::search::{GameQuery, SearchHit, SearchPage, SortKey};
pub use read::suite::{Suite, SuitePosition, SuiteQuery};
pub use storage::codec::GameResult;
pub use storage::database::{DEFAULT_BUSY_TIMEOUT, Database};
pub use storage::schema::{
    APPLICATION_ID, BUCKET_BITS, OPENING_PLIES, READABLE_FROM as SCHEMA_READABLE_FROM,
    TREE_BUCKET_BITS, TREE_EXAMPLES, TREE_PLIES, VERSION as SCHEMA_VERSION,
};
pub use write::import::{BatchStats, Duplicate, DuplicateRule, Importer, MergeWork, Rejected};
pub use write::pipeline::{
    ImportEvents, ImportOptions, ImportStopped, ImportSummary, NotStored, Origin,
};
pub use write::prepare::ReadyGame;
pub use write::record::{GameEnd, GameRecord, RecordError, Replayed, SpecialMoves};
