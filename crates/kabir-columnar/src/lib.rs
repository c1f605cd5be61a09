//! Games as Parquet files for DuckDB, Spark or Trino: `games`, `moves` and (optionally)
//! `positions` tables, each a folder partitioned by variant the way Hive lays tables out
//! (`DIR/games/variant=tamerlane/games.parquet`), written row group by row group so that
//! memory stays bounded whatever the number of games. The schema and the SQL that answers the
//! explorer's, `stats`' and `search`'s questions over the files are in `docs/SCALE.md`.
//!
//! Hashes are the database's position hashes (the Zobrist hash of [`Position::hash`]) stored
//! as signed 64-bit integers with the same bits, as the database stores them: rows join with
//! a database's.
//!
//! [`Position::hash`]: kabir_rules::Position::hash

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int32Builder, Int64Builder, MapBuilder, StringBuilder};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;

use kabir_db::ExportedGame;

/// The Arrow and Parquet crates at the versions the tables are written with, to read them
/// back in Rust.
pub use {arrow_array, parquet};

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ColumnarError {
    /// A folder or file could not be created, or a finished file not renamed into place.
    #[error("{path}: {source}")]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The Parquet writer failed on a table's file.
    #[error("{path}: {source}")]
    Parquet {
        /// The table file being written.
        path: PathBuf,
        /// What went wrong.
        source: parquet::errors::ParquetError,
    },
    /// The export folder already holds a table; an export never overwrites one.
    #[error("{path} already holds a {table} table; remove it or export to another folder")]
    Exists {
        /// The table's folder (`DIR/games`).
        path: PathBuf,
        /// The table's name, one of [`TABLES`].
        table: &'static str,
    },
    /// Rows could not be put together into an Arrow batch.
    #[error("cannot build a batch of rows: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// Rows of a table handed to the Parquet writer at once: enough that the writer's work per
/// batch (arrays made, columns walked) is small beside its work per row.
const BATCH_ROWS: usize = 64 * 1024;

/// Rows per row group: a row group is what a reader skips or reads whole, and what the writer
/// holds in memory (encoded) before writing it. Games rows are wide (tags, start position);
/// moves and positions rows are a few numbers and short strings.
const GAMES_ROW_GROUP: usize = 128 * 1024;
const MOVES_ROW_GROUP: usize = 1024 * 1024;

/// The tables, as their folders are named.
pub const TABLES: [&str; 3] = ["games", "moves", "positions"];

/// Counts of what an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Written {
    /// Rows of the `games` table: one per game.
    pub games: u64,
    /// Rows of the `moves` table: one per ply of each game.
    pub moves: u64,
    /// Rows of the `positions` table: one per position of each game, the start and the final
    /// one included; 0 when the export has no such table.
    pub positions: u64,
    /// Bytes of the files of each table, as [`TABLES`] names them.
    pub bytes: [u64; 3],
    /// The files written, relative to the export folder, in order.
    pub files: Vec<String>,
}

/// Writes games into an export folder; [`ParquetExport::finish`] completes the files. Until
/// then they have a `.partial` suffix, and a failed or abandoned export removes them: no
/// reader ever sees a half-written file under a table's name.
pub struct ParquetExport {
    dir: PathBuf,
    positions: bool,
    parts: BTreeMap<String, Partition>,
    written: Written,
    finished: bool,
}

impl ParquetExport {
    /// Starts an export into `dir` (created if missing). Refused if `dir` already holds one of
    /// the tables. With `positions`, a `positions` table too.
    pub fn create(dir: &Path, positions: bool) -> Result<ParquetExport, ColumnarError> {
        for table in TABLES {
            let path = dir.join(table);
            if path.exists() {
                return Err(ColumnarError::Exists { path, table });
            }
        }
        std::fs::create_dir_all(dir).map_err(|source| ColumnarError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(ParquetExport {
            dir: dir.to_path_buf(),
            positions,
            parts: BTreeMap::new(),
            written: Written::default(),
            finished: false,
        })
    }

    /// Adds a game with its id.
    pub fn push(&mut self, id: u64, g: &ExportedGame) -> Result<(), ColumnarError> {
        if !self.parts.contains_key(&g.variant) {
            let part = Partition::create(&self.dir, &g.variant, self.positions)?;
            self.parts.insert(g.variant.clone(), part);
        }
        let Some(part) = self.parts.get_mut(&g.variant) else {
            unreachable!("the partition was just made");
        };
        part.push(id as i64, g)?;
        self.written.games += 1;
        self.written.moves += g.plies() as u64;
        if self.positions {
            self.written.positions += g.hashes.len() as u64;
        }
        Ok(())
    }

    /// Writes what is left and completes every file.
    pub fn finish(mut self) -> Result<Written, ColumnarError> {
        let parts = std::mem::take(&mut self.parts);
        self.finished = true;
        let mut done = Vec::new();
        let mut failed = None;
        for (_, part) in parts {
            if failed.is_some() {
                part.abandon();
                continue;
            }
            match part.close() {
                Ok(files) => done.extend(files),
                Err(e) => failed = Some(e),
            }
        }
        if let Some(e) = failed {
            for f in &done {
                let _ = std::fs::remove_file(f);
            }
            self.remove_folders();
            return Err(e);
        }
        for partial in &done {
            let path = partial.with_extension("parquet");
            std::fs::rename(partial, &path).map_err(|source| ColumnarError::Io {
                path: path.clone(),
                source,
            })?;
            let relative = path.strip_prefix(&self.dir).unwrap_or(&path);
            let size = std::fs::metadata(&path).map_or(0, |m| m.len());
            let table = relative.iter().next().and_then(|t| t.to_str());
            if let Some(i) = TABLES.iter().position(|&t| Some(t) == table) {
                self.written.bytes[i] += size;
            }
            self.written.files.push(relative.display().to_string());
        }
        self.written.files.sort();
        Ok(std::mem::take(&mut self.written))
    }
}

impl Drop for ParquetExport {
    /// An export not finished leaves no files behind.
    fn drop(&mut self) {
        for (_, part) in std::mem::take(&mut self.parts) {
            part.abandon();
        }
        if !self.finished {
            self.remove_folders();
        }
    }
}

impl ParquetExport {
    /// Removes the tables' folders, which this export made (it refuses to start where they
    /// are), if they are empty: a failed export can be run again as it was.
    fn remove_folders(&self) {
        for table in TABLES {
            let folder = self.dir.join(table);
            if let Ok(entries) = std::fs::read_dir(&folder) {
                for e in entries.flatten() {
                    let _ = std::fs::remove_dir(e.path());
                }
            }
            let _ = std::fs::remove_dir(folder);
        }
    }
}

/// A variant's value in a folder name: as Hive escapes partition values, `%` and a byte's hex
/// for anything but letters, digits, `_`, `-` and `.`.
pub fn partition_value(variant: &str) -> String {
    let mut out = String::new();
    for b in variant.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    // `.` and `..` are not folder names to write into.
    if out.chars().all(|c| c == '.') {
        out = out.replace('.', "%2E");
    }
    out
}

/// One variant's files.
struct Partition {
    games: Table<GamesRows>,
    moves: Table<MovesRows>,
    positions: Option<Table<PositionsRows>>,
}

impl Partition {
    fn create(dir: &Path, variant: &str, positions: bool) -> Result<Partition, ColumnarError> {
        let folder = format!("variant={}", partition_value(variant));
        let path = |table: &str| {
            dir.join(table)
                .join(&folder)
                .join(format!("{table}.partial"))
        };
        let games = Table::create(path("games"), GamesRows::default())?;
        let moves = match Table::create(path("moves"), MovesRows::default()) {
            Ok(t) => t,
            Err(e) => {
                games.abandon();
                return Err(e);
            }
        };
        let positions = if positions {
            match Table::create(path("positions"), PositionsRows::default()) {
                Ok(t) => Some(t),
                Err(e) => {
                    games.abandon();
                    moves.abandon();
                    return Err(e);
                }
            }
        } else {
            None
        };
        Ok(Partition {
            games,
            moves,
            positions,
        })
    }

    fn push(&mut self, id: i64, g: &ExportedGame) -> Result<(), ColumnarError> {
        self.games.push(id, g)?;
        self.moves.push(id, g)?;
        if let Some(p) = &mut self.positions {
            p.push(id, g)?;
        }
        Ok(())
    }

    /// Closes the files; their paths (still `.partial`). On an error, none is left.
    fn close(self) -> Result<Vec<PathBuf>, ColumnarError> {
        let mut tables: Vec<Box<dyn Closing>> = vec![Box::new(self.games), Box::new(self.moves)];
        if let Some(p) = self.positions {
            tables.push(Box::new(p));
        }
        let mut done = Vec::new();
        let mut failed = None;
        for t in tables {
            if failed.is_some() {
                t.abandon_boxed();
                continue;
            }
            match t.close_boxed() {
                Ok(path) => done.push(path),
                Err(e) => failed = Some(e),
            }
        }
        match failed {
            Some(e) => {
                for f in &done {
                    let _ = std::fs::remove_file(f);
                }
                Err(e)
            }
            None => Ok(done),
        }
    }

    fn abandon(self) {
        self.games.abandon();
        self.moves.abandon();
        if let Some(p) = self.positions {
            p.abandon();
        }
    }
}

/// The rows of one table being gathered into a batch.
trait Rows {
    /// The table's schema.
    fn schema() -> SchemaRef;
    /// Writer settings beyond the shared ones.
    fn properties(
        p: parquet::file::properties::WriterPropertiesBuilder,
    ) -> parquet::file::properties::WriterPropertiesBuilder;
    /// Adds a game's rows; returns how many.
    fn add(&mut self, id: i64, g: &ExportedGame) -> usize;
    /// The columns of the rows added since the last call.
    fn columns(&mut self) -> Vec<ArrayRef>;
}

/// One table file being written.
struct Table<R: Rows> {
    path: PathBuf,
    writer: ArrowWriter<File>,
    schema: SchemaRef,
    rows: R,
    pending: usize,
}

impl<R: Rows> Table<R> {
    fn create(path: PathBuf, rows: R) -> Result<Table<R>, ColumnarError> {
        let io = |source| ColumnarError::Io {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let file = File::create(&path).map_err(io)?;
        let schema = R::schema();
        let props = R::properties(
            WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::default()))
                .set_created_by(format!("kabir {}", env!("CARGO_PKG_VERSION"))),
        )
        .build();
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(|source| {
            let _ = std::fs::remove_file(&path);
            ColumnarError::Parquet {
                path: path.clone(),
                source,
            }
        })?;
        Ok(Table {
            path,
            writer,
            schema,
            rows,
            pending: 0,
        })
    }

    fn push(&mut self, id: i64, g: &ExportedGame) -> Result<(), ColumnarError> {
        self.pending += self.rows.add(id, g);
        if self.pending >= BATCH_ROWS {
            self.write_pending()?;
        }
        Ok(())
    }

    fn write_pending(&mut self) -> Result<(), ColumnarError> {
        if self.pending == 0 {
            return Ok(());
        }
        self.pending = 0;
        let batch = RecordBatch::try_new(self.schema.clone(), self.rows.columns())?;
        self.writer
            .write(&batch)
            .map_err(|source| ColumnarError::Parquet {
                path: self.path.clone(),
                source,
            })
    }
}

/// Closing tables of different row types alike.
trait Closing {
    fn close_boxed(self: Box<Self>) -> Result<PathBuf, ColumnarError>;
    fn abandon_boxed(self: Box<Self>);
}

impl<R: Rows> Closing for Table<R> {
    fn close_boxed(self: Box<Self>) -> Result<PathBuf, ColumnarError> {
        (*self).close()
    }
    fn abandon_boxed(self: Box<Self>) {
        (*self).abandon()
    }
}

impl<R: Rows> Table<R> {
    fn close(mut self) -> Result<PathBuf, ColumnarError> {
        let result = self.write_pending().and_then(|()| {
            self.writer
                .close()
                .map(|_| ())
                .map_err(|source| ColumnarError::Parquet {
                    path: self.path.clone(),
                    source,
                })
        });
        match result {
            Ok(()) => Ok(self.path),
            Err(e) => {
                let _ = std::fs::remove_file(&self.path);
                Err(e)
            }
        }
    }

    fn abandon(self) {
        let path = self.path.clone();
        drop(self);
        let _ = std::fs::remove_file(path);
    }
}

fn field(name: &str, t: DataType, nullable: bool) -> Field {
    Field::new(name, t, nullable)
}

/// A map of strings to strings (other tags).
fn tag_map() -> MapBuilder<StringBuilder, StringBuilder> {
    MapBuilder::new(None, StringBuilder::new(), StringBuilder::new())
}

/// A map of strings to counts (promotions by kind).
fn count_map() -> MapBuilder<StringBuilder, Int64Builder> {
    MapBuilder::new(None, StringBuilder::new(), Int64Builder::new())
}

/// A hash as stored: the same 64 bits, signed.
fn signed(h: u64) -> i64 {
    h as i64
}

/// Game ids and plies rise through a file (by one, mostly): delta encoding stores them in a
/// few bits each, where a dictionary would keep every value and look each one up.
fn sequence_column(
    p: parquet::file::properties::WriterPropertiesBuilder,
    name: &str,
) -> parquet::file::properties::WriterPropertiesBuilder {
    let col = ColumnPath::from(name);
    p.set_column_dictionary_enabled(col.clone(), false)
        .set_column_encoding(col, Encoding::DELTA_BINARY_PACKED)
}

/// Bloom filters let a reader skip the row groups that cannot hold a hash looked for.
fn hash_column(
    p: parquet::file::properties::WriterPropertiesBuilder,
    name: &str,
    row_group: usize,
) -> parquet::file::properties::WriterPropertiesBuilder {
    let col = ColumnPath::from(name);
    p.set_column_dictionary_enabled(col.clone(), false)
        .set_column_bloom_filter_enabled(col.clone(), true)
        .set_column_bloom_filter_fpp(col.clone(), 0.01)
        .set_column_bloom_filter_max_ndv(col, row_group as u64)
}

/// The Seven Tag Roster but `Result` (a column of its own), as named in the game text.
const ROSTER_TAGS: [(&str, &str); 6] = [
    ("event", "Event"),
    ("site", "Site"),
    ("date", "Date"),
    ("round", "Round"),
    ("white", "White"),
    ("black", "Black"),
];

/// The counts of special moves, as named in the `games` table (and the database).
const SPECIAL_COLUMNS: [&str; 7] = [
    "swaps",
    "lifts",
    "relocations",
    "promotions",
    "arrivals",
    "adventitious_kings",
    "citadel_entries",
];

struct GamesRows {
    id: Int64Builder,
    roster: [StringBuilder; 6],
    result: StringBuilder,
    termination: StringBuilder,
    plies: Int32Builder,
    start_fen: StringBuilder,
    standard_start: BooleanBuilder,
    start_hash: Int64Builder,
    end_hash: Int64Builder,
    special: [Int64Builder; 7],
    promotions_by_kind: MapBuilder<StringBuilder, Int64Builder>,
    tags: MapBuilder<StringBuilder, StringBuilder>,
}

impl Default for GamesRows {
    fn default() -> Self {
        GamesRows {
            id: Int64Builder::new(),
            roster: std::array::from_fn(|_| StringBuilder::new()),
            result: StringBuilder::new(),
            termination: StringBuilder::new(),
            plies: Int32Builder::new(),
            start_fen: StringBuilder::new(),
            standard_start: BooleanBuilder::new(),
            start_hash: Int64Builder::new(),
            end_hash: Int64Builder::new(),
            special: std::array::from_fn(|_| Int64Builder::new()),
            promotions_by_kind: count_map(),
            tags: tag_map(),
        }
    }
}

impl Rows for GamesRows {
    fn schema() -> SchemaRef {
        let mut fields = vec![field("id", DataType::Int64, false)];
        for (name, _) in ROSTER_TAGS {
            fields.push(field(name, DataType::Utf8, true));
        }
        fields.extend([
            field("result", DataType::Utf8, false),
            field("termination", DataType::Utf8, false),
            field("plies", DataType::Int32, false),
            field("start_fen", DataType::Utf8, false),
            field("standard_start", DataType::Boolean, false),
            field("start_hash", DataType::Int64, false),
            field("end_hash", DataType::Int64, false),
        ]);
        for name in SPECIAL_COLUMNS {
            fields.push(field(name, DataType::Int64, false));
        }
        fields.push(field(
            "promotions_by_kind",
            count_map().finish().data_type().clone(),
            false,
        ));
        fields.push(field("tags", tag_map().finish().data_type().clone(), false));
        Arc::new(Schema::new(fields))
    }

    fn properties(
        p: parquet::file::properties::WriterPropertiesBuilder,
    ) -> parquet::file::properties::WriterPropertiesBuilder {
        sequence_column(p.set_max_row_group_row_count(Some(GAMES_ROW_GROUP)), "id")
    }

    fn add(&mut self, id: i64, g: &ExportedGame) -> usize {
        self.id.append_value(id);
        for (b, (_, tag)) in self.roster.iter_mut().zip(ROSTER_TAGS) {
            b.append_option(g.tag(tag));
        }
        self.result.append_value(g.result.as_str());
        self.termination.append_value(g.end.as_str());
        self.plies
            .append_value(i32::try_from(g.plies()).unwrap_or(i32::MAX));
        self.start_fen.append_value(&g.start_fen);
        self.standard_start.append_value(g.standard_start);
        self.start_hash
            .append_value(signed(g.hashes.first().copied().unwrap_or(0)));
        self.end_hash
            .append_value(signed(g.hashes.last().copied().unwrap_or(0)));
        let s = &g.special;
        for (b, n) in self.special.iter_mut().zip(s.counts()) {
            b.append_value(i64::try_from(n).unwrap_or(i64::MAX));
        }
        for (kind, n) in &s.promotions_by_kind {
            self.promotions_by_kind.keys().append_value(kind);
            self.promotions_by_kind
                .values()
                .append_value(i64::try_from(*n).unwrap_or(i64::MAX));
        }
        // Appending an entry never fails: keys and values were appended in pairs.
        let _ = self.promotions_by_kind.append(true);
        for (k, v) in g.other_tags() {
            self.tags.keys().append_value(k);
            self.tags.values().append_value(v);
        }
        let _ = self.tags.append(true);
        1
    }

    fn columns(&mut self) -> Vec<ArrayRef> {
        let mut out: Vec<ArrayRef> = vec![Arc::new(self.id.finish())];
        for b in &mut self.roster {
            out.push(Arc::new(b.finish()));
        }
        out.push(Arc::new(self.result.finish()));
        out.push(Arc::new(self.termination.finish()));
        out.push(Arc::new(self.plies.finish()));
        out.push(Arc::new(self.start_fen.finish()));
        out.push(Arc::new(self.standard_start.finish()));
        out.push(Arc::new(self.start_hash.finish()));
        out.push(Arc::new(self.end_hash.finish()));
        for b in &mut self.special {
            out.push(Arc::new(b.finish()));
        }
        out.push(Arc::new(self.promotions_by_kind.finish()));
        out.push(Arc::new(self.tags.finish()));
        out
    }
}

#[derive(Default)]
struct MovesRows {
    game: Int64Builder,
    ply: Int32Builder,
    san: StringBuilder,
    uci: StringBuilder,
    hash_before: Int64Builder,
    hash_after: Int64Builder,
}

impl Rows for MovesRows {
    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            field("game", DataType::Int64, false),
            field("ply", DataType::Int32, false),
            field("san", DataType::Utf8, false),
            field("uci", DataType::Utf8, false),
            field("hash_before", DataType::Int64, false),
            field("hash_after", DataType::Int64, false),
        ]))
    }

    fn properties(
        p: parquet::file::properties::WriterPropertiesBuilder,
    ) -> parquet::file::properties::WriterPropertiesBuilder {
        let p = p.set_max_row_group_row_count(Some(MOVES_ROW_GROUP));
        let p = sequence_column(sequence_column(p, "game"), "ply");
        let p = hash_column(p, "hash_before", MOVES_ROW_GROUP);
        hash_column(p, "hash_after", MOVES_ROW_GROUP)
    }

    fn add(&mut self, id: i64, g: &ExportedGame) -> usize {
        for (i, m) in g.moves().enumerate() {
            self.game.append_value(id);
            self.ply
                .append_value(i32::try_from(i + 1).unwrap_or(i32::MAX));
            self.san.append_value(m.san);
            self.uci.append_value(m.uci);
            self.hash_before
                .append_value(signed(g.hashes.get(i).copied().unwrap_or(0)));
            self.hash_after
                .append_value(signed(g.hashes.get(i + 1).copied().unwrap_or(0)));
        }
        g.plies()
    }

    fn columns(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.game.finish()),
            Arc::new(self.ply.finish()),
            Arc::new(self.san.finish()),
            Arc::new(self.uci.finish()),
            Arc::new(self.hash_before.finish()),
            Arc::new(self.hash_after.finish()),
        ]
    }
}

#[derive(Default)]
struct PositionsRows {
    hash: Int64Builder,
    game: Int64Builder,
    ply: Int32Builder,
    san: StringBuilder,
    uci: StringBuilder,
}

impl Rows for PositionsRows {
    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            field("hash", DataType::Int64, false),
            field("game", DataType::Int64, false),
            field("ply", DataType::Int32, false),
            field("san", DataType::Utf8, true),
            field("uci", DataType::Utf8, true),
        ]))
    }

    fn properties(
        p: parquet::file::properties::WriterPropertiesBuilder,
    ) -> parquet::file::properties::WriterPropertiesBuilder {
        let p = p.set_max_row_group_row_count(Some(MOVES_ROW_GROUP));
        let p = sequence_column(sequence_column(p, "game"), "ply");
        hash_column(p, "hash", MOVES_ROW_GROUP)
    }

    fn add(&mut self, id: i64, g: &ExportedGame) -> usize {
        let mut moves = g.moves();
        for (i, &h) in g.hashes.iter().enumerate() {
            self.hash.append_value(signed(h));
            self.game.append_value(id);
            self.ply.append_value(i32::try_from(i).unwrap_or(i32::MAX));
            let m = moves.next();
            self.san.append_option(m.map(|m| m.san));
            self.uci.append_option(m.map(|m| m.uci));
        }
        g.hashes.len()
    }

    fn columns(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.hash.finish()),
            Arc::new(self.game.finish()),
            Arc::new(self.ply.finish()),
            Arc::new(self.san.finish()),
            Arc::new(self.uci.finish()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_values_are_escaped() {
        assert_eq!(partition_value("tamerlane"), "tamerlane");
        assert_eq!(partition_value("grand-shatranj_2.0"), "grand-shatranj_2.0");
        assert_eq!(partition_value("a b/c=d"), "a%20b%2Fc%3Dd");
        assert_eq!(partition_value(".."), "%2E%2E");
    }
}
