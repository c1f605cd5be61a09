//! The schema, its version and the migrations that bring older databases forward.
//!
//! `PRAGMA user_version` holds the schema version; `PRAGMA application_id` marks the file as a
//! kabir database. Migration `i` (0-based) takes a database from version `i` to `i + 1`; a new
//! database runs them all, in one transaction with the version update. Migrations are never
//! edited once released: a change is a new one.

use rusqlite::{Transaction, params};

use crate::storage::codec;
use crate::write::record::{record_hash, roster_of_columns};

/// `PRAGMA application_id`: "KBIR".
pub const APPLICATION_ID: i32 = 0x4b42_4952;

/// The index keys a position by the top bits of its hash: `1 << BUCKET_BITS` buckets per
/// variant. Part of the schema.
pub const BUCKET_BITS: u32 = 12;

/// The bucket of a hash.
#[inline]
pub fn bucket(hash: u64) -> i64 {
    (hash >> (64 - BUCKET_BITS)) as i64
}

/// The opening tree (`tree` table) keys a position by the top bits of its hash: `1 <<
/// TREE_BUCKET_BITS` buckets per variant, fewer than the position index's since a batch has
/// far fewer tree rows than index entries. Part of the schema.
pub const TREE_BUCKET_BITS: u32 = 10;

/// The tree bucket of a hash.
#[inline]
pub fn tree_bucket(hash: u64) -> i64 {
    (hash >> (64 - TREE_BUCKET_BITS)) as i64
}

/// The position index's buckets ([`bucket`]) whose hashes fall in a tree bucket: a tree row
/// holds the entries of these (`tree.beyond`), which segments written before version 5 keep
/// in `posting` rows of their own.
#[inline]
pub fn buckets_of_tree_bucket(tree_bucket: i64) -> std::ops::RangeInclusive<i64> {
    let shift = BUCKET_BITS - TREE_BUCKET_BITS;
    tree_bucket << shift..=((tree_bucket + 1) << shift) - 1
}

/// The opening tree aggregates the positions that games first reach before this ply (the
/// start is ply 0); the explorer finds later first visits in the position index. Part of the
/// schema: it decides which index entries are kept with the tree's aggregates (`tree.entries`)
/// and which beyond them (`tree.beyond`, or `posting` for segments written before version 5).
pub const TREE_PLIES: u16 = 16;

/// Example games kept per opening tree row (the lowest ids). The explorer answers from the
/// tree when asked for at most this many examples per move (more are found in the position
/// index); 12 covers the browser explorer's list of a position's 12 lowest-numbered games.
/// Part of the schema (the row layout holds this many at most).
pub const TREE_EXAMPLES: usize = 12;

/// The summary of openings (for statistics) keeps each game's first this many plies.
pub const OPENING_PLIES: usize = 4;

/// The first version with the openings ranked by their counts (`opening_head` and
/// `opening_chunk`); before it, the openings' tallies hold them all.
pub const RANKED_OPENINGS_FROM: u32 = 4;

/// The first version whose opening tree rows may hold the position index's other entries of
/// their bucket (`tree.beyond`): from it on, a segment's entries of a tree bucket are one row,
/// and a look-up reads one row per segment instead of two. Entries written before stay in
/// `posting` until a merge or a rebuild moves them.
pub const BEYOND_IN_TREE_FROM: u32 = 5;

/// One step of a migration.
pub(crate) enum Step {
    /// SQL statements.
    Sql(&'static str),
    /// Rust code, for what SQL cannot compute (such as a stored hash).
    Run(fn(&Transaction<'_>) -> rusqlite::Result<()>),
}

/// The migrations, in order, each a list of steps. Version 1 is the first schema.
pub(crate) const MIGRATIONS: &[&[Step]] = &[
    &[Step::Sql(V1)],
    &[
        Step::Sql(V2_COLUMN),
        Step::Run(fill_record_keys),
        Step::Sql(V2_INDEX),
    ],
    &[Step::Sql(V3)],
    &[Step::Sql(V4), Step::Run(consolidate_openings)],
    &[Step::Sql(V5)],
    &[Step::Sql(V6)],
];

/// The version this code writes.
pub const VERSION: u32 = MIGRATIONS.len() as u32;

/// What migration `i` adds that tells a file of version `i + 1` from one of version `i`: a
/// table, or a column of a table. A new migration adds its own.
const MARKS: &[(&str, Option<&str>)] = &[
    ("game", None),
    ("game", Some("record")),
    ("meta", None),
    ("opening_head", None),
    ("tree", Some("beyond")),
    ("segment", Some("merge_next")),
];

/// The schema version whose tables a file has, told by [`MARKS`]: `None` when they are
/// those of no version (a mark of one version is missing while a later one's is there).
/// `PRAGMA user_version` is only a number in the header, which another program can change.
pub(crate) fn tables_version(conn: &rusqlite::Connection) -> rusqlite::Result<Option<u32>> {
    let mut found = Vec::with_capacity(MARKS.len());
    for &(table, column) in MARKS {
        let n: i64 = match column {
            None => conn.query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )?,
            Some(c) => conn.query_row(
                "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2",
                [table, c],
                |r| r.get(0),
            )?,
        };
        found.push(n > 0);
    }
    let version = found.iter().take_while(|&&m| m).count();
    if found[version..].iter().any(|&m| m) {
        return Ok(None);
    }
    Ok(u32::try_from(version).ok())
}

/// The oldest version this code's queries can read as it is: a read-only open accepts a file
/// from this version on without migrating it (version 2 adds what importing needs; version 3
/// adds derived tables, which queries do without until they are built: see
/// `DERIVED_CURRENT`). Raised by a migration that changes what queries read.
pub const READABLE_FROM: u32 = 1;

/// The value of the `meta` row `derived` when the derived tables (the opening tree, the
/// summaries, the name index and the split of the position index between `tree` and
/// `posting`) cover every stored game; anything else (`stale`), or a file without a `meta`
/// table, and queries answer from the games and the whole position index.
pub const DERIVED_CURRENT: &str = "current";

const V1: &str = "
CREATE TABLE variant (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

CREATE TABLE game (
    id                 INTEGER PRIMARY KEY,
    variant            INTEGER NOT NULL REFERENCES variant(id),
    content            INTEGER NOT NULL,
    start_fen          TEXT NOT NULL,
    standard_start     INTEGER NOT NULL,
    moves              BLOB NOT NULL,
    plies              INTEGER NOT NULL,
    result             TEXT NOT NULL,
    termination        TEXT NOT NULL,
    white              TEXT,
    black              TEXT,
    event              TEXT,
    site               TEXT,
    date               TEXT,
    round              TEXT,
    swaps              INTEGER NOT NULL,
    lifts              INTEGER NOT NULL,
    relocations        INTEGER NOT NULL,
    promotions         INTEGER NOT NULL,
    arrivals           INTEGER NOT NULL,
    adventitious_kings INTEGER NOT NULL,
    citadel_entries    INTEGER NOT NULL
);
CREATE INDEX game_content ON game(content);

CREATE TABLE game_text (
    game INTEGER PRIMARY KEY REFERENCES game(id),
    tags TEXT NOT NULL,
    pgn  TEXT NOT NULL
);

CREATE TABLE promotion (
    game  INTEGER NOT NULL REFERENCES game(id),
    kind  TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (game, kind)
) WITHOUT ROWID;

CREATE TABLE segment (
    id       INTEGER PRIMARY KEY,
    variant  INTEGER NOT NULL REFERENCES variant(id),
    level    INTEGER NOT NULL,
    games    INTEGER NOT NULL,
    postings INTEGER NOT NULL
);
CREATE INDEX segment_level ON segment(variant, level);

CREATE TABLE posting (
    variant INTEGER NOT NULL,
    bucket  INTEGER NOT NULL,
    segment INTEGER NOT NULL REFERENCES segment(id),
    entries BLOB NOT NULL,
    PRIMARY KEY (variant, bucket, segment)
);
";

/// Version 2: the record key (see `record::record_hash`), so that a duplicate is the same game
/// record rather than the same moves. One index on (move key, record key) finds both kinds
/// of duplicate: the move key alone is its prefix.
const V2_COLUMN: &str = "
ALTER TABLE game ADD COLUMN record INTEGER NOT NULL DEFAULT 0;
DROP INDEX game_content;
";

const V2_INDEX: &str = "
CREATE INDEX game_key ON game(content, record);
";

/// Version 3: tables derived from the games, so that the explorer, statistics and searches by
/// name need not read every game. A database that holds games gets them by `kabir index
/// rebuild` (`Database::rebuild`): until then `meta.derived` says `stale` and queries take the
/// slower paths that need none of them. The position index keeps its layout; entries of the
/// positions the tree covers are kept in `tree` from this version on.
///
/// `tally_part` keeps its blobs in a rowid table and its key in a separate index: in a table
/// `WITHOUT ROWID` the key's B-tree holds the blobs, and a search that compares its key with
/// a row whose blob overflows the page reads that whole blob (a search by event read 2,159
/// pages of 64 KiB, 64 distinct ones, on 100,000 games).
const V3: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (key, value)
    VALUES ('derived', CASE WHEN EXISTS (SELECT 1 FROM game) THEN 'stale' ELSE 'current' END),
           ('generation', '0');

ALTER TABLE segment ADD COLUMN first_game INTEGER;
ALTER TABLE segment ADD COLUMN last_game INTEGER;

CREATE TABLE tree (
    variant INTEGER NOT NULL,
    bucket  INTEGER NOT NULL,
    segment INTEGER NOT NULL REFERENCES segment(id),
    rows    BLOB NOT NULL,
    entries BLOB NOT NULL,
    PRIMARY KEY (variant, bucket, segment)
);

CREATE TABLE name (
    id   INTEGER PRIMARY KEY,
    text TEXT NOT NULL UNIQUE
);
CREATE VIRTUAL TABLE name_trigram USING fts5(
    text, content = 'name', content_rowid = 'id', tokenize = 'trigram'
);

CREATE TABLE tally (
    id    INTEGER PRIMARY KEY,
    kind  INTEGER NOT NULL,
    level INTEGER NOT NULL,
    games INTEGER NOT NULL
);
CREATE INDEX tally_level ON tally(kind, level);
CREATE TABLE tally_part (
    tally INTEGER NOT NULL REFERENCES tally(id),
    part  INTEGER NOT NULL,
    rows  BLOB NOT NULL,
    PRIMARY KEY (tally, part)
);

CREATE TABLE summary (
    variant            INTEGER NOT NULL,
    year               TEXT NOT NULL,
    result             TEXT NOT NULL,
    termination        TEXT NOT NULL,
    games              INTEGER NOT NULL,
    plies              INTEGER NOT NULL,
    swaps              INTEGER NOT NULL,
    lifts              INTEGER NOT NULL,
    relocations        INTEGER NOT NULL,
    promotions         INTEGER NOT NULL,
    arrivals           INTEGER NOT NULL,
    adventitious_kings INTEGER NOT NULL,
    citadel_entries    INTEGER NOT NULL,
    with_swaps         INTEGER NOT NULL,
    with_lifts         INTEGER NOT NULL,
    with_relocations   INTEGER NOT NULL,
    with_promotions    INTEGER NOT NULL,
    with_arrivals      INTEGER NOT NULL,
    with_adventitious_kings INTEGER NOT NULL,
    with_citadel_entries    INTEGER NOT NULL,
    PRIMARY KEY (variant, year, result, termination)
) WITHOUT ROWID;

CREATE TABLE summary_length (
    variant INTEGER NOT NULL,
    plies   INTEGER NOT NULL,
    games   INTEGER NOT NULL,
    PRIMARY KEY (variant, plies)
) WITHOUT ROWID;

CREATE TABLE summary_promotion (
    variant INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    moves   INTEGER NOT NULL,
    games   INTEGER NOT NULL,
    PRIMARY KEY (variant, kind)
) WITHOUT ROWID;
";

/// Version 4: the openings of the statistics consolidated and ranked by their counts, so that
/// the most common openings are found without reading one row per game (see `openings`).
/// The tallies of openings stay what they were (the openings not consolidated yet); the
/// migration consolidates them, which needs no game to be read.
const V4: &str = "
CREATE TABLE opening_head (
    variant INTEGER PRIMARY KEY,
    games   INTEGER NOT NULL,
    bytes   INTEGER NOT NULL,
    firsts  BLOB NOT NULL
);
CREATE TABLE opening_chunk (
    variant INTEGER NOT NULL,
    list    INTEGER NOT NULL,
    chunk   INTEGER NOT NULL,
    rows    BLOB NOT NULL,
    PRIMARY KEY (variant, list, chunk)
);
";

/// Version 5: a segment's index entries beyond the opening tree are kept in its tree row of
/// their bucket (`beyond`, in (hash, game, ply) order) rather than in `posting` rows of their
/// own (see [`BEYOND_IN_TREE_FROM`]). Rows already written keep their layout.
const V5: &str = "
ALTER TABLE tree ADD COLUMN beyond BLOB;
";

/// Version 6: index segments merge a few tree buckets at a time (`derived::segments`). A
/// merge under way is a segment with `merge_next`, the next tree bucket it is to take from
/// its sources, the segments whose `merge_into` is its id; both are NULL otherwise. Queries
/// read no new column: a file of version 5 reads as it did.
const V6: &str = "
ALTER TABLE segment ADD COLUMN merge_into INTEGER;
ALTER TABLE segment ADD COLUMN merge_next INTEGER;
";

/// Consolidates the openings' tallies (part of the migration to version 4).
fn consolidate_openings(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    crate::derived::openings::consolidate_all(tx)
}

/// Games whose record keys are computed per statement of the migration to version 2: bounds
/// its memory whatever the size of the database.
const RECORD_KEY_CHUNK: i64 = 10_000;

/// Computes every game's record key from its row (part of the migration to version 2).
fn fill_record_keys(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let mut select = tx.prepare(
        "SELECT id, content, result, event, site, date, round, white, black FROM game
         WHERE id > ?1 ORDER BY id LIMIT ?2",
    )?;
    let mut update = tx.prepare("UPDATE game SET record = ?2 WHERE id = ?1")?;
    let mut after = i64::MIN;
    loop {
        let keys: Vec<(i64, i64)> = select
            .query_map(params![after, RECORD_KEY_CHUNK], |r| {
                let text = |i| r.get_ref(i).and_then(|v| Ok(v.as_str_or_null()?));
                let roster = roster_of_columns(3, text)?;
                let content = codec::from_sql(r.get(1)?);
                let key = record_hash(content, r.get_ref(2)?.as_str()?, &roster);
                Ok((r.get(0)?, codec::to_sql(key)))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let Some(&(last, _)) = keys.last() else {
            return Ok(());
        };
        for (id, key) in keys {
            update.execute(params![id, key])?;
        }
        after = last;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each migration's mark tells its version: after migration `i`, the tables are those of
    /// version `i + 1`, and of none when a mark is taken away below the last.
    #[test]
    fn the_tables_tell_their_version() {
        assert_eq!(MARKS.len() as u32, VERSION);
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        assert_eq!(tables_version(&conn).unwrap(), Some(0));
        for (i, steps) in MIGRATIONS.iter().enumerate() {
            let tx = conn.transaction().unwrap();
            for step in steps.iter() {
                match step {
                    Step::Sql(sql) => tx.execute_batch(sql).unwrap(),
                    Step::Run(run) => run(&tx).unwrap(),
                }
            }
            tx.commit().unwrap();
            assert_eq!(tables_version(&conn).unwrap(), Some(i as u32 + 1), "{i}");
        }
        conn.execute_batch("DROP TABLE opening_chunk; DROP TABLE opening_head")
            .unwrap();
        assert_eq!(tables_version(&conn).unwrap(), None);
    }
}
