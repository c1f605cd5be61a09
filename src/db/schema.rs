//! The schema, its version and the migrations that bring older databases forward.
//!
//! `PRAGMA user_version` holds the schema version; `PRAGMA application_id` marks the file as a
//! kabir database. Migration `i` (0-based) takes a database from version `i` to `i + 1`; a new
//! database runs them all. Migrations are never edited once released: a change is a new one.

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

/// The migrations, in order. Version 1 is the first schema.
pub const MIGRATIONS: &[&str] = &[V1];

/// The version this code writes and reads.
pub const VERSION: u32 = MIGRATIONS.len() as u32;

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
