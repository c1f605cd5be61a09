//! Reading game records: a lazy iterator of replayed games with their problems.

use std::fs::File;
use std::io::{BufReader, Cursor, Read};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use kabir_input::Trailing;
use kabir_notation::game::RawGame;
use kabir_notation::reader::Reader;
use kabir_notation::replay::{Replay, replay_unhashed};
use kabir_rules::variants::Registry;

use crate::errors::error;
use crate::rules::{Position, Variant};

/// A Python file object read as bytes: `read(n)` may give `bytes` (binary files) or `str`
/// (text files, encoded to UTF-8 here).
struct PyFile(Py<PyAny>);

impl Read for PyFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        Python::attach(|py| {
            let chunk = self
                .0
                .bind(py)
                .call_method1("read", (buf.len(),))
                .map_err(std::io::Error::other)?;
            let bytes: Vec<u8> = if let Ok(b) = chunk.cast::<PyBytes>() {
                b.as_bytes().to_vec()
            } else if chunk.is_instance_of::<PyString>() {
                chunk
                    .extract::<String>()
                    .map_err(std::io::Error::other)?
                    .into_bytes()
            } else if chunk.is_none() {
                Vec::new()
            } else {
                return Err(std::io::Error::other(
                    "the file object's read() gave neither bytes nor str",
                ));
            };
            // A text file's `read(n)` counts characters: its UTF-8 may be longer than asked.
            // What does not fit is kept for the next call.
            Ok(bytes)
        })
        .and_then(|bytes| {
            let n = bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&bytes[..n]);
            if n < bytes.len() {
                self.0 = Python::attach(|py| -> PyResult<Py<PyAny>> {
                    // Rare (text files with non-ASCII text): chain the rest before the file.
                    let io = py.import("io")?;
                    let rest = io.call_method1("BytesIO", (PyBytes::new(py, &bytes[n..]),))?;
                    let chained = py
                        .import("kabir._io")?
                        .call_method1("Chain", (rest, self.0.bind(py)))?;
                    Ok(chained.unbind())
                })
                .map_err(std::io::Error::other)?;
            }
            Ok(n)
        })
    }
}

type Source = Box<dyn Read + Send>;

/// A lazy iterator of the games of a file or text (from `read_games`).
#[pyclass(module = "kabir")]
pub struct GameReader {
    reader: Mutex<Option<Reader<BufReader<Source>>>>,
    registry: Arc<Registry>,
    name: String,
    /// Where bytes after a gzip file's data that are not gzip are told of.
    trailing: Trailing,
}

#[pymethods]
impl GameReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Game>> {
        let taken = self
            .reader
            .lock()
            .map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("the reader failed before"))?
            .take();
        let Some(mut reader) = taken else {
            return Ok(None);
        };
        let registry = self.registry.clone();
        let (reader, next) = py.detach(move || {
            let next = reader.next().map(|r| {
                r.map(|raw| {
                    let replayed = replay_unhashed(&raw, &registry);
                    (raw, replayed)
                })
            });
            (reader, next)
        });
        match next {
            None => match self.trailing.garbage_at() {
                Some(at) => Err(error(
                    py,
                    "ReadError",
                    format!(
                        "{}: its gzip data ends at byte {at}, and the bytes after it are not \
                         gzip data (the games before them were read)",
                        self.name
                    ),
                    &[("offset", at.into_pyobject(py)?.into_any())],
                )),
                None => Ok(None),
            },
            Some(Err(e)) => Err(error(
                py,
                "ReadError",
                format!("{}: byte {}: {}", self.name, e.offset, e.source),
                &[("offset", e.offset.into_pyobject(py)?.into_any())],
            )),
            Some(Ok((raw, replayed))) => {
                if let Ok(mut slot) = self.reader.lock() {
                    *slot = Some(reader);
                }
                Ok(Some(Game::new(raw, replayed)))
            }
        }
    }
}

/// The registry the games are replayed with: the built-ins, `variants` and the default
/// variant for games without a `Variant` tag.
fn registry(
    variants: Option<Vec<PyRef<'_, Variant>>>,
    default_variant: Option<&Bound<'_, PyAny>>,
    py: Python<'_>,
) -> PyResult<Arc<Registry>> {
    let mut r = Registry::builtin();
    for v in variants.unwrap_or_default() {
        r.add(v.inner.clone())
            .map_err(|e| error(py, "VariantError", e.to_string(), &[]))?;
    }
    if let Some(d) = default_variant {
        let v = match d.cast::<Variant>() {
            Ok(v) => v.get().inner.clone(),
            Err(_) => {
                let name: String = d.extract()?;
                match r.find(&name) {
                    Some(v) => v.clone(),
                    None => {
                        return Err(error(
                            py,
                            "VariantError",
                            format!("unknown variant {name:?}"),
                            &[],
                        ));
                    }
                }
            }
        };
        r.set_default(Some(v));
    }
    Ok(Arc::new(r))
}

/// The reader of `source`'s games: decompressed and decoded to UTF-8 as the command line
/// reads files ([`kabir_input::text`]).
fn reader(
    py: Python<'_>,
    source: Source,
    registry: Arc<Registry>,
    name: String,
) -> PyResult<GameReader> {
    let trailing = Trailing::default();
    let text = kabir_input::text(source, &trailing).map_err(|e| {
        error(
            py,
            "ReadError",
            format!("cannot read {name}: {e}"),
            &[("offset", 0u64.into_pyobject(py).unwrap().into_any())],
        )
    })?;
    Ok(GameReader {
        reader: Mutex::new(Some(Reader::new(BufReader::with_capacity(1 << 16, text)))),
        registry,
        name,
        trailing,
    })
}

/// Reads the games of `source`, a path or a file object (binary or text), lazily: each game
/// is replayed through the rules as it is read.
#[pyfunction]
#[pyo3(signature = (source, *, variants = None, default_variant = None))]
pub fn read_games(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    variants: Option<Vec<PyRef<'_, Variant>>>,
    default_variant: Option<&Bound<'_, PyAny>>,
) -> PyResult<GameReader> {
    let registry = registry(variants, default_variant, py)?;
    if source.hasattr("read")? {
        let name = source
            .getattr("name")
            .and_then(|n| n.str().map(|s| s.to_string()))
            .unwrap_or_else(|_| "<file>".to_string());
        return reader(
            py,
            Box::new(PyFile(source.clone().unbind())),
            registry,
            name,
        );
    }
    if source.is_instance_of::<PyBytes>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "read_games takes a path or a file object; for game text use read_games_text",
        ));
    }
    let path: std::path::PathBuf = source.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("read_games takes a path or a file object")
    })?;
    let name = path.display().to_string();
    let file = File::open(&path).map_err(|e| {
        error(
            py,
            "ReadError",
            format!("{name}: {e}"),
            &[("offset", 0u64.into_pyobject(py).unwrap().into_any())],
        )
    })?;
    reader(py, Box::new(file), registry, name)
}

/// Reads the games of `text` (game records as a string) lazily.
#[pyfunction]
#[pyo3(signature = (text, *, variants = None, default_variant = None))]
pub fn read_games_text(
    py: Python<'_>,
    text: String,
    variants: Option<Vec<PyRef<'_, Variant>>>,
    default_variant: Option<&Bound<'_, PyAny>>,
) -> PyResult<GameReader> {
    let registry = registry(variants, default_variant, py)?;
    reader(
        py,
        Box::new(Cursor::new(text.into_bytes())),
        registry,
        "<text>".to_string(),
    )
}

/// A problem found in a game: its kind, severity, place, text and message, and for a move
/// the position and the legal moves there.
#[pyclass(frozen, module = "kabir")]
#[derive(Clone)]
pub struct Problem {
    /// The kind (`illegal-move`, `syntax`, ...).
    #[pyo3(get)]
    kind: &'static str,
    /// `error` or `warning`.
    #[pyo3(get)]
    severity: &'static str,
    /// Line in the input, from 1.
    #[pyo3(get)]
    line: u32,
    /// Column in the input, from 1.
    #[pyo3(get)]
    column: u32,
    /// The offending text.
    #[pyo3(get)]
    text: String,
    /// What is wrong.
    #[pyo3(get)]
    message: String,
    /// The ply of the move, from 1, if the problem is a move's.
    #[pyo3(get)]
    ply: Option<u32>,
    /// The position the move was played in, as a position string.
    #[pyo3(get)]
    fen: Option<String>,
    /// The legal moves there, in SAN.
    #[pyo3(get)]
    legal_moves: Vec<String>,
}

#[pymethods]
impl Problem {
    fn __repr__(&self) -> String {
        format!(
            "Problem({:?}, {:?}, line {}, column {}: {})",
            self.kind, self.severity, self.line, self.column, self.message
        )
    }
}

/// A game as read and replayed.
#[pyclass(frozen, module = "kabir")]
pub struct Game {
    raw: RawGame,
    replayed: Replay,
    problems: Vec<Problem>,
}

impl Game {
    fn new(raw: RawGame, replayed: Replay) -> Game {
        let problems = replayed
            .problems
            .iter()
            .map(|p| Problem {
                kind: p.kind.as_str(),
                severity: if p.error { "error" } else { "warning" },
                line: p.line,
                column: p.column,
                text: p.text.clone(),
                message: p.message.clone(),
                ply: p.ply,
                fen: p.position.clone(),
                legal_moves: p.legal_san().to_vec(),
            })
            .collect();
        Game {
            raw,
            replayed,
            problems,
        }
    }
}

#[pymethods]
impl Game {
    /// The game's number in its file, from 1.
    #[getter]
    fn number(&self) -> u64 {
        self.replayed.number
    }

    /// The tag pairs, in input order (the first of a repeated name counts).
    #[getter]
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for t in &self.raw.tags {
            let name = String::from_utf8_lossy(self.raw.bytes(t.name));
            if !d.contains(name.as_ref())? {
                d.set_item(name.as_ref(), self.raw.tag_value(t).as_ref())?;
            }
        }
        Ok(d)
    }

    /// The result written after the moves (or in the `Result` tag): `1-0`, `0-1`,
    /// `1/2-1/2` or `*`.
    #[getter]
    fn result(&self) -> String {
        Replay::claimed_result(&self.raw)
    }

    /// The variant, if the game named a known one.
    #[getter]
    fn variant(&self) -> Option<Variant> {
        self.replayed
            .variant
            .as_ref()
            .map(|v| Variant { inner: v.clone() })
    }

    /// The main line's moves in canonical SAN, as far as they could be replayed.
    #[getter]
    fn moves(&self) -> Vec<String> {
        let Some(game) = &self.replayed.game else {
            return Vec::new();
        };
        let mut pos = game.start().clone();
        let mut out = Vec::with_capacity(game.moves().len());
        for &m in game.moves() {
            let legal = pos.legal_moves();
            out.push(kabir_notation::san_plus(&pos, m, &legal));
            pos.play_unchecked(m);
        }
        out
    }

    /// The problems: errors and warnings, in file order.
    #[getter]
    fn problems(&self) -> Vec<Problem> {
        self.problems.clone()
    }

    /// Whether the game has no error (warnings allowed).
    #[getter]
    fn is_valid(&self) -> bool {
        self.replayed.is_valid()
    }

    /// The status at the end of the main line.
    fn status(&self) -> Option<crate::rules::Status> {
        self.replayed.status().map(Into::into)
    }

    /// The positions of the main line: the start, then the one after each move.
    fn positions(&self) -> Vec<Position> {
        let Some(game) = &self.replayed.game else {
            return Vec::new();
        };
        let mut pos = game.start().clone();
        let mut out = Vec::with_capacity(game.moves().len() + 1);
        out.push(Position {
            inner: Arc::new(pos.clone()),
        });
        for &m in game.moves() {
            pos.play_unchecked(m);
            out.push(Position {
                inner: Arc::new(pos.clone()),
            });
        }
        out
    }

    /// The game in canonical notation (the text `kabir validate --fix` writes).
    fn pgn(&self) -> String {
        self.replayed.write_canonical(&self.raw)
    }

    fn __repr__(&self) -> String {
        let roster = self.raw.roster();
        format!(
            "Game({}, {:?} - {:?}, {} plies, {} problems)",
            self.replayed.number,
            roster.white.as_deref().unwrap_or("?"),
            roster.black.as_deref().unwrap_or("?"),
            self.replayed.game.as_ref().map_or(0, |g| g.moves().len()),
            self.problems.len()
        )
    }
}
