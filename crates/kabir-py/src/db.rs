//! The game database: import, opening explorer, game search, statistics and stored games,
//! answering with the data the commands print with `--format json`.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use kabir_db::names;
use kabir_db::{GameAnswer, GameFilter, GameQuery, GameRecord, GroupBy, ReportQuery, SortKey};
use kabir_notation::reader::Reader;
use kabir_notation::replay::replay;
use kabir_rules::Color;
use kabir_rules::variants::Registry;

use crate::errors::error;
use crate::rules::{Position, Variant};

/// Games imported per batch (each batch is one transaction).
const BATCH: usize = 5_000;

fn db_error(py: Python<'_>, e: impl std::fmt::Display) -> PyErr {
    error(py, "DatabaseError", e.to_string(), &[])
}

fn query_error(py: Python<'_>, what: &str, e: impl std::fmt::Display, value: &str) -> PyErr {
    error(
        py,
        "QueryError",
        format!("{what} {value:?}: {e}"),
        &[(
            "parameter",
            what.into_pyobject(py).map(|s| s.into_any()).unwrap(),
        )],
    )
}

/// A JSON text as Python data (dicts, lists, numbers, strings), through the `json` module.
fn loads(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

fn to_json(py: Python<'_>, value: &impl serde::Serialize) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| db_error(py, e))?;
    loads(py, &text)
}

/// A game database file. Opened for queries only unless `write=True` (which creates the
/// file if needed). Use it as a context manager, or call `close()`.
#[pyclass(module = "kabir")]
pub struct Database {
    db: Mutex<Option<kabir_db::Database>>,
    registry: Arc<Registry>,
    path: PathBuf,
}

impl Database {
    /// Runs `f` with the open database, other Python threads running meanwhile.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut kabir_db::Database) -> Result<T, String> + Send,
    ) -> PyResult<T> {
        let mut guard = self
            .db
            .lock()
            .map_err(|_| db_error(py, "the database failed in another call"))?;
        let Some(db) = guard.as_mut() else {
            return Err(db_error(py, format!("{} is closed", self.path.display())));
        };
        py.detach(|| f(db)).map_err(|e| db_error(py, e))
    }
}

/// The filter of the keyword arguments, read with the words the command line takes.
#[allow(clippy::too_many_arguments)]
fn filter(
    py: Python<'_>,
    variant: Option<&str>,
    player: Option<&str>,
    color: Option<&str>,
    event: Option<&str>,
    site: Option<&str>,
    result: Option<&str>,
    date_from: Option<&str>,
    date_to: Option<&str>,
    termination: Option<&str>,
    special: Option<Vec<String>>,
    min_plies: Option<u32>,
    max_plies: Option<u32>,
) -> PyResult<GameFilter> {
    let mut f = GameFilter {
        variant: variant.map(str::to_string),
        player: player.map(str::to_string),
        event: event.map(str::to_string),
        site: site.map(str::to_string),
        min_plies,
        max_plies,
        ..GameFilter::default()
    };
    f.color = match color {
        None => None,
        Some("white") => Some(Color::White),
        Some("black") => Some(Color::Black),
        Some(other) => return Err(query_error(py, "color", "white or black", other)),
    };
    if f.color.is_some() && f.player.is_none() {
        return Err(query_error(
            py,
            "color",
            "needs player",
            color.unwrap_or(""),
        ));
    }
    if let Some(r) = result {
        f.result = Some(names::parse_result(r).map_err(|e| query_error(py, "result", e, r))?);
    }
    if let Some(d) = date_from {
        f.date_from = Some(names::parse_date(d).map_err(|e| query_error(py, "date_from", e, d))?);
    }
    if let Some(d) = date_to {
        f.date_to = Some(names::parse_date(d).map_err(|e| query_error(py, "date_to", e, d))?);
    }
    if let Some(t) = termination {
        f.end =
            Some(names::parse_termination(t).map_err(|e| query_error(py, "termination", e, t))?);
    }
    for s in special.unwrap_or_default() {
        f.special
            .push(names::parse_special(&s).map_err(|e| query_error(py, "special", e, &s))?);
    }
    Ok(f)
}

#[pymethods]
impl Database {
    #[new]
    #[pyo3(signature = (path, *, write = false, variants = None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        write: bool,
        variants: Option<Vec<PyRef<'_, Variant>>>,
    ) -> PyResult<Database> {
        let mut registry = Registry::builtin();
        for v in variants.unwrap_or_default() {
            registry
                .add(v.inner.clone())
                .map_err(|e| crate::errors::error(py, "VariantError", e.to_string(), &[]))?;
        }
        let p = path.clone();
        let db = py
            .detach(move || {
                if write {
                    kabir_db::Database::create_or_open(&p)
                } else {
                    kabir_db::Database::open(&p)
                }
            })
            .map_err(|e| db_error(py, e))?;
        Ok(Database {
            db: Mutex::new(Some(db)),
            registry: Arc::new(registry),
            path,
        })
    }

    /// Whether the database was opened for queries only.
    #[getter]
    fn read_only(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, |db| Ok(db.is_read_only()))
    }

    /// The number of games stored.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |db| {
            db.game_count()
                .map(|n| n as usize)
                .map_err(|e| e.to_string())
        })
    }

    /// Reads, checks and stores the games of `paths`: the valid ones are imported (a game
    /// already stored is a duplicate), the invalid ones counted as rejected. Returns the
    /// summary: files, games read, imported, duplicates, rejected, positions indexed.
    #[pyo3(signature = (paths, *, default_variant = None))]
    fn import_files(
        &self,
        py: Python<'_>,
        paths: Vec<PathBuf>,
        default_variant: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let mut registry = (*self.registry).clone();
        if let Some(name) = default_variant {
            let v = registry.find(name).cloned().ok_or_else(|| {
                error(py, "VariantError", format!("unknown variant {name:?}"), &[])
            })?;
            registry.set_default(Some(v));
        }
        let files = paths.len();
        let summary = self.with(py, move |db| {
            if db.is_read_only() {
                return Err(format!(
                    "{} was opened for queries only: open it with write=True to import",
                    db.path().display()
                ));
            }
            let mut records = Vec::new();
            let (mut read, mut rejected) = (0u64, 0u64);
            for path in &paths {
                let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
                for raw in Reader::new(BufReader::new(file)) {
                    let raw = raw.map_err(|e| format!("{}: {e}", path.display()))?;
                    read += 1;
                    match GameRecord::from_replay(replay(&raw, &registry), &raw) {
                        Ok(r) => records.push(r),
                        Err(_) => rejected += 1,
                    }
                }
            }
            let mut batches = Vec::new();
            while !records.is_empty() {
                let rest = records.split_off(records.len().min(BATCH));
                batches.push(std::mem::replace(&mut records, rest));
            }
            let stats = db
                .importer()
                .and_then(|mut i| i.import_all(batches, |_| {}))
                .map_err(|e| e.to_string())?;
            Ok(serde_json::json!({
                "files": files,
                "games_read": read,
                "imported": stats.imported,
                "duplicates": stats.duplicates,
                "rejected": rejected + stats.rejected.len() as u64,
                "positions": stats.positions,
            }))
        })?;
        to_json(py, &summary)
    }

    /// The opening explorer at `position` (a Position; by default the start of `variant`,
    /// or of the database's only variant), after `moves` (SAN) if given: what
    /// `kabir explore --format json` prints.
    #[pyo3(signature = (position = None, *, variant = None, moves = None, depth = 1, breadth = 3, examples = 3, max_nodes = None))]
    #[allow(clippy::too_many_arguments)]
    fn explore(
        &self,
        py: Python<'_>,
        position: Option<PyRef<'_, Position>>,
        variant: Option<&Bound<'_, PyAny>>,
        moves: Option<Vec<String>>,
        depth: usize,
        breadth: usize,
        examples: usize,
        max_nodes: Option<usize>,
    ) -> PyResult<Py<PyAny>> {
        let mut pos = match (position, variant) {
            (Some(p), _) => (*p.inner).clone(),
            (None, Some(v)) => {
                let v = match v.cast::<Variant>() {
                    Ok(v) => v.get().inner.clone(),
                    Err(_) => {
                        let name: String = v.extract()?;
                        Variant::new(py, &name)?.inner
                    }
                };
                kabir_rules::Position::start(&v)
            }
            (None, None) => {
                let names = self.with(py, |db| db.variants().map_err(|e| e.to_string()))?;
                match names.as_slice() {
                    [one] => kabir_rules::Position::start(&Variant::new(py, one)?.inner),
                    _ => {
                        return Err(query_error(
                            py,
                            "variant",
                            "the database does not hold games of exactly one variant: give \
                             variant or position",
                            &names.join(", "),
                        ));
                    }
                }
            }
        };
        for text in moves.unwrap_or_default() {
            let here = Position {
                inner: Arc::new(pos),
            };
            pos = here
                .play(py, &text.into_pyobject(py)?.into_any())?
                .inner
                .as_ref()
                .clone();
        }
        let mut q = kabir_db::TreeQuery {
            depth: depth.clamp(1, kabir_db::MAX_TREE_DEPTH),
            breadth,
            examples,
            ..Default::default()
        };
        if let Some(n) = max_nodes {
            q.max_nodes = n;
        }
        let text = self.with(py, move |db| {
            let tree = db.explore_tree(&pos, &q).map_err(|e| e.to_string())?;
            serde_json::to_string(&kabir_db::ExploreAnswer::tree(&pos, &tree))
                .map_err(|e| e.to_string())
        })?;
        loads(py, &text)
    }

    /// The games that match: what `kabir search --format json` prints. `position` keeps
    /// the games that reached it; `sort` is one of id, date, white, black, event, site,
    /// result, plies; `limit` is 50 by default, as for the command (`None`: every game).
    #[pyo3(signature = (*, variant = None, player = None, color = None, event = None, site = None, result = None, date_from = None, date_to = None, termination = None, special = None, min_plies = None, max_plies = None, position = None, sort = "id", reverse = false, limit = Some(50), offset = 0))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        variant: Option<&str>,
        player: Option<&str>,
        color: Option<&str>,
        event: Option<&str>,
        site: Option<&str>,
        result: Option<&str>,
        date_from: Option<&str>,
        date_to: Option<&str>,
        termination: Option<&str>,
        special: Option<Vec<String>>,
        min_plies: Option<u32>,
        max_plies: Option<u32>,
        position: Option<PyRef<'_, Position>>,
        sort: &str,
        reverse: bool,
        limit: Option<usize>,
        offset: usize,
    ) -> PyResult<Py<PyAny>> {
        let filter = filter(
            py,
            variant,
            player,
            color,
            event,
            site,
            result,
            date_from,
            date_to,
            termination,
            special,
            min_plies,
            max_plies,
        )?;
        let sort = SortKey::parse(sort).ok_or_else(|| {
            query_error(
                py,
                "sort",
                "one of id, date, white, black, event, site, result, plies",
                sort,
            )
        })?;
        let limit = limit.filter(|&n| n > 0);
        let q = GameQuery {
            filter,
            position: position.map(|p| (*p.inner).clone()),
            sort,
            descending: reverse,
            limit,
            offset,
        };
        let text = self.with(py, move |db| {
            let page = db.search(&q).map_err(|e| e.to_string())?;
            serde_json::to_string(&kabir_db::SearchAnswer::new(&page, offset, limit))
                .map_err(|e| e.to_string())
        })?;
        loads(py, &text)
    }

    /// Statistics of the games that match: what `kabir stats --format json` prints. `by`
    /// groups them: variant, player, termination, year, opening or result.
    #[pyo3(signature = (*, by = None, variant = None, player = None, color = None, event = None, site = None, result = None, date_from = None, date_to = None, termination = None, special = None, min_plies = None, max_plies = None, opening_plies = 4, top = 10))]
    #[allow(clippy::too_many_arguments)]
    fn stats(
        &self,
        py: Python<'_>,
        by: Option<&str>,
        variant: Option<&str>,
        player: Option<&str>,
        color: Option<&str>,
        event: Option<&str>,
        site: Option<&str>,
        result: Option<&str>,
        date_from: Option<&str>,
        date_to: Option<&str>,
        termination: Option<&str>,
        special: Option<Vec<String>>,
        min_plies: Option<u32>,
        max_plies: Option<u32>,
        opening_plies: usize,
        top: usize,
    ) -> PyResult<Py<PyAny>> {
        let filter = filter(
            py,
            variant,
            player,
            color,
            event,
            site,
            result,
            date_from,
            date_to,
            termination,
            special,
            min_plies,
            max_plies,
        )?;
        let by = match by {
            None => None,
            Some(name) => Some(GroupBy::parse(name).ok_or_else(|| {
                query_error(py, "by", "not a grouping of kabir stats --by", name)
            })?),
        };
        let q = ReportQuery {
            filter,
            by,
            opening_plies,
            top,
        };
        let registry = self.registry.clone();
        let text = self.with(py, move |db| {
            let report = db.report(&q, &registry).map_err(|e| e.to_string())?;
            serde_json::to_string(&report).map_err(|e| e.to_string())
        })?;
        loads(py, &text)
    }

    /// A stored game: what `kabir show ID --format json` prints (`ply` chooses the position
    /// shown; by default the end). `None` if there is no such game.
    #[pyo3(signature = (id, *, ply = None))]
    fn game(&self, py: Python<'_>, id: u32, ply: Option<usize>) -> PyResult<Option<Py<PyAny>>> {
        let registry = self.registry.clone();
        let text = self.with(py, move |db| {
            let Some(game) = db.game(id).map_err(|e| e.to_string())? else {
                return Ok(None);
            };
            let answer = GameAnswer::new(&game, &registry, ply).map_err(|e| e.to_string())?;
            serde_json::to_string(&answer)
                .map(Some)
                .map_err(|e| e.to_string())
        })?;
        text.map(|t| loads(py, &t)).transpose()
    }

    /// Closes the file; the object answers nothing after.
    fn close(&self) -> PyResult<()> {
        if let Ok(mut g) = self.db.lock() {
            g.take();
        }
        Ok(())
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __exit__(
        &self,
        _ty: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close()?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!("Database({:?})", self.path.display().to_string())
    }
}
