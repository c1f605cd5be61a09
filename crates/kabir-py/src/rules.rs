//! Variants, positions, moves and the game's status.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use kabir_notation::san::SanPlus;
use kabir_notation::{ResolveError, resolve, san};
use kabir_rules::{Color, Status as RuleStatus};

use crate::errors::error;

/// Text given to the package is cut to this many characters in messages.
const SHOWN: usize = 60;

fn shown(text: &str) -> String {
    if text.chars().count() <= SHOWN {
        text.to_string()
    } else {
        text.chars().take(SHOWN).chain(['…']).collect()
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// A variant: board, pieces, start position and rules.
///
/// `Variant("tamerlane")` is a built-in (any spelling of its name or aliases);
/// `Variant.from_file(path)` and `Variant.from_toml(text)` read a definition.
#[pyclass(frozen, module = "kabir")]
#[derive(Clone)]
pub struct Variant {
    pub(crate) inner: Arc<kabir_rules::Variant>,
}

#[pymethods]
impl Variant {
    #[new]
    pub(crate) fn new(py: Python<'_>, name: &str) -> PyResult<Variant> {
        kabir_rules::variants::builtin(name)
            .map(|inner| Variant { inner })
            .map_err(|e| {
                error(
                    py,
                    "VariantError",
                    format!("{e}"),
                    &[("name", shown(name).into_pyobject(py).unwrap().into_any())],
                )
            })
    }

    /// Reads a variant definition file (TOML).
    #[staticmethod]
    fn from_file(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Variant> {
        py.detach(|| kabir_rules::variants::load_file(&path))
            .map(|inner| Variant { inner })
            .map_err(|e| error(py, "VariantError", e.to_string(), &[]))
    }

    /// Reads a variant definition from its TOML text.
    #[staticmethod]
    fn from_toml(py: Python<'_>, text: &str) -> PyResult<Variant> {
        kabir_rules::variants::from_toml(text, "<text>")
            .map(|inner| Variant { inner })
            .map_err(|e| error(py, "VariantError", e.to_string(), &[]))
    }

    /// The variant's id (`tamerlane`).
    #[getter]
    fn id(&self) -> &str {
        self.inner.id()
    }

    /// The variant's name (`Tamerlane chess`).
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Files of the main board.
    #[getter]
    fn files(&self) -> u8 {
        self.inner.geometry().files()
    }

    /// Ranks of the main board.
    #[getter]
    fn ranks(&self) -> u8 {
        self.inner.geometry().ranks()
    }

    /// The names of every square, citadels included.
    fn squares(&self) -> Vec<String> {
        let g = self.inner.geometry();
        g.squares().map(|s| g.name(s).to_string()).collect()
    }

    /// The start position.
    fn start(&self) -> Position {
        Position {
            inner: Arc::new(kabir_rules::Position::start(&self.inner)),
        }
    }

    fn __repr__(&self) -> String {
        format!("Variant({:?})", self.inner.id())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Variant>()
            .is_ok_and(|o| o.get().inner.id() == self.inner.id())
    }

    fn __hash__(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.id().hash(&mut h);
        h.finish()
    }
}

/// A piece: its side, its kind's id and its symbol as a position string writes it.
#[pyclass(frozen, module = "kabir", eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Piece {
    /// `white` or `black`.
    #[pyo3(get)]
    color: &'static str,
    /// The kind's id (`vizir`, `pawn-of-kings`).
    #[pyo3(get)]
    kind: String,
    /// The symbol, upper case for White and lower case for Black.
    #[pyo3(get)]
    symbol: String,
}

#[pymethods]
impl Piece {
    fn __repr__(&self) -> String {
        format!("Piece({:?}, {:?})", self.color, self.kind)
    }

    fn __str__(&self) -> &str {
        &self.symbol
    }
}

/// A move, as generated in a position: its squares, kind and promotion.
#[pyclass(frozen, module = "kabir")]
#[derive(Clone)]
pub struct Move {
    pub(crate) inner: kabir_rules::Move,
    /// The position it is a move of, shared by every move of one call: what its coordinate
    /// text and square names are read from when asked for.
    pos: Arc<kabir_rules::Position>,
}

impl Move {
    pub(crate) fn new(pos: &Arc<kabir_rules::Position>, m: kabir_rules::Move) -> Move {
        Move {
            inner: m,
            pos: pos.clone(),
        }
    }

    fn square(&self, sq: kabir_rules::Square) -> String {
        self.pos.variant().geometry().name(sq).to_string()
    }
}

#[pymethods]
impl Move {
    /// The square the piece leaves.
    #[getter(from_square)]
    fn origin(&self) -> String {
        self.square(self.inner.from)
    }

    /// The square the piece reaches.
    #[getter]
    fn to_square(&self) -> String {
        self.square(self.inner.to)
    }

    /// The move in coordinate notation (`e2e3`; a promotion adds the piece's letter).
    fn uci(&self) -> String {
        self.inner.to_uci(&self.pos)
    }

    fn __str__(&self) -> String {
        self.uci()
    }

    fn __repr__(&self) -> String {
        format!("Move({:?})", self.uci())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Move>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __hash__(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.hash(&mut h);
        h.finish()
    }
}

/// Whether the game goes on, and if not, how it ended.
#[pyclass(frozen, module = "kabir")]
#[derive(Clone)]
pub struct Status {
    /// Whether the game is over by the rules.
    #[pyo3(get)]
    is_over: bool,
    /// `checkmate`, `stalemate`, `bare king` or `citadel draw`; `None` while it goes on.
    #[pyo3(get)]
    termination: Option<&'static str>,
    /// `1-0`, `0-1` or `1/2-1/2`; `None` while it goes on.
    #[pyo3(get)]
    result: Option<&'static str>,
}

impl From<RuleStatus> for Status {
    fn from(s: RuleStatus) -> Status {
        match s {
            RuleStatus::Ongoing => Status {
                is_over: false,
                termination: None,
                result: None,
            },
            RuleStatus::Over {
                termination,
                outcome,
            } => Status {
                is_over: true,
                termination: Some(termination.as_str()),
                result: Some(outcome.as_pgn()),
            },
        }
    }
}

#[pymethods]
impl Status {
    fn __repr__(&self) -> String {
        match (self.termination, self.result) {
            (Some(t), Some(r)) => format!("Status(over, {t:?}, {r:?})"),
            _ => "Status(ongoing)".to_string(),
        }
    }

    fn __bool__(&self) -> bool {
        self.is_over
    }
}

/// A position of a variant. Immutable: `play` returns a new position.
#[pyclass(frozen, module = "kabir")]
#[derive(Clone)]
pub struct Position {
    pub(crate) inner: Arc<kabir_rules::Position>,
}

impl Position {
    fn legal(&self) -> Vec<kabir_rules::Move> {
        self.inner.legal_moves()
    }

    /// The legal move `m` stands for: a `Move` of this position, or its SAN or coordinate
    /// text.
    fn resolve_move(&self, py: Python<'_>, m: &Bound<'_, PyAny>) -> PyResult<kabir_rules::Move> {
        if let Ok(mv) = m.cast::<Move>() {
            let mv = mv.get().inner;
            if self.legal().contains(&mv) {
                return Ok(mv);
            }
            return Err(self.illegal(py, &mv.to_uci(&self.inner), Vec::new()));
        }
        let text: String = m.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err("a move is a kabir.Move or its text (str)")
        })?;
        self.parse(py, &text)
    }

    fn parse(&self, py: Python<'_>, text: &str) -> PyResult<kabir_rules::Move> {
        let legal = self.legal();
        if let Some(m) = kabir_rules::Move::from_uci(text, &self.inner) {
            return Ok(m);
        }
        let parsed: SanPlus = text.parse().map_err(|e| {
            error(
                py,
                "NotationError",
                format!("not a move: {:?} ({e})", shown(text)),
                &[("text", shown(text).into_pyobject(py).unwrap().into_any())],
            )
        })?;
        resolve(&parsed.san, &self.inner, &legal).map_err(|e| match e {
            ResolveError::Illegal { close } => self.illegal(py, text, close),
            ResolveError::Ambiguous { candidates } => error(
                py,
                "AmbiguousMoveError",
                format!(
                    "ambiguous move {:?} in {}",
                    shown(text),
                    self.inner.to_fen()
                ),
                &[
                    ("text", shown(text).into_pyobject(py).unwrap().into_any()),
                    (
                        "fen",
                        self.inner.to_fen().into_pyobject(py).unwrap().into_any(),
                    ),
                    (
                        "candidates",
                        self.sans(&candidates, &legal)
                            .into_pyobject(py)
                            .unwrap()
                            .into_any(),
                    ),
                ],
            ),
            other => error(
                py,
                "IllegalMoveError",
                format!("{other}: {:?} in {}", shown(text), self.inner.to_fen()),
                &[],
            ),
        })
    }

    fn sans(&self, moves: &[kabir_rules::Move], legal: &[kabir_rules::Move]) -> Vec<String> {
        moves.iter().map(|&m| san(&self.inner, m, legal)).collect()
    }

    fn illegal(&self, py: Python<'_>, text: &str, _close: Vec<kabir_rules::Move>) -> PyErr {
        let legal = self.legal();
        let fen = self.inner.to_fen();
        error(
            py,
            "IllegalMoveError",
            format!("illegal move {:?} in {fen}", shown(text)),
            &[
                ("text", shown(text).into_pyobject(py).unwrap().into_any()),
                ("fen", fen.into_pyobject(py).unwrap().into_any()),
                (
                    "legal_moves",
                    self.sans(&legal, &legal)
                        .into_pyobject(py)
                        .unwrap()
                        .into_any(),
                ),
            ],
        )
    }
}

#[pymethods]
impl Position {
    /// The position of `variant` given by a position string, or its start.
    #[new]
    #[pyo3(signature = (variant, fen = None))]
    fn new(py: Python<'_>, variant: &Bound<'_, PyAny>, fen: Option<&str>) -> PyResult<Position> {
        let variant = match variant.cast::<Variant>() {
            Ok(v) => v.get().inner.clone(),
            Err(_) => {
                let name: String = variant.extract()?;
                Variant::new(py, &name)?.inner
            }
        };
        match fen {
            None => Ok(Position {
                inner: Arc::new(kabir_rules::Position::start(&variant)),
            }),
            Some(text) => kabir_rules::Position::from_fen(&variant, text)
                .map(|inner| Position {
                    inner: Arc::new(inner),
                })
                .map_err(|e| {
                    error(
                        py,
                        "FenError",
                        format!("{e}"),
                        &[
                            ("fen", shown(text).into_pyobject(py).unwrap().into_any()),
                            (
                                "kind",
                                format!("{:?}", e.kind)
                                    .into_pyobject(py)
                                    .unwrap()
                                    .into_any(),
                            ),
                        ],
                    )
                }),
        }
    }

    /// The variant.
    #[getter]
    fn variant(&self) -> Variant {
        Variant {
            inner: self.inner.variant().clone(),
        }
    }

    /// The side to move: `white` or `black`.
    #[getter]
    fn turn(&self) -> &'static str {
        color_name(self.inner.turn())
    }

    /// The position string.
    fn fen(&self) -> String {
        self.inner.to_fen()
    }

    /// The pieces by square name.
    fn board<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let v = self.inner.variant();
        let g = v.geometry();
        for sq in g.squares() {
            if let Some(p) = self.inner.piece_at(sq) {
                let info = v.kind(p.kind);
                let symbol = match p.color {
                    Color::White => info.symbol.clone(),
                    Color::Black => info.symbol.to_ascii_lowercase(),
                };
                d.set_item(
                    g.name(sq),
                    Piece {
                        color: color_name(p.color),
                        kind: info.id.clone(),
                        symbol,
                    },
                )?;
            }
        }
        Ok(d)
    }

    /// The legal moves.
    fn legal_moves(&self) -> Vec<Move> {
        self.legal()
            .into_iter()
            .map(|m| Move::new(&self.inner, m))
            .collect()
    }

    /// Whether the side to move is in check.
    fn is_check(&self) -> bool {
        self.inner.is_check()
    }

    /// The move in canonical SAN (with its check or mate mark).
    fn san(&self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<String> {
        let m = self.resolve_move(py, r#move)?;
        Ok(kabir_notation::san_plus(&self.inner, m, &self.legal()))
    }

    /// The legal move written `text` (SAN in any of the forms the reader accepts, or
    /// coordinates).
    fn parse_san(&self, py: Python<'_>, text: &str) -> PyResult<Move> {
        self.parse(py, text).map(|m| Move::new(&self.inner, m))
    }

    /// The position after a legal move (a `Move` or its text).
    pub(crate) fn play(&self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<Position> {
        let m = self.resolve_move(py, r#move)?;
        Ok(Position {
            inner: Arc::new(self.inner.after(m)),
        })
    }

    /// Whether the game goes on here, and if not, how it ended.
    fn status(&self) -> Status {
        self.inner.status().into()
    }

    /// The number of move sequences of `depth` plies (perft).
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        if depth > 8 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "perft depth is at most 8",
            ));
        }
        let mut pos = (*self.inner).clone();
        Ok(py.detach(move || kabir_rules::perft(&mut pos, depth)))
    }

    /// The position as an SVG diagram (citadels included).
    #[pyo3(signature = (flipped = false, caption = None))]
    fn svg(&self, flipped: bool, caption: Option<String>) -> String {
        let options = kabir_diagram::DiagramOptions {
            flipped,
            caption,
            ..Default::default()
        };
        kabir_diagram::position_svg(&self.inner, &options)
    }

    fn _repr_svg_(&self) -> String {
        self.svg(false, None)
    }

    fn __repr__(&self) -> String {
        format!(
            "Position({:?}, {:?})",
            self.inner.variant().id(),
            self.inner.to_fen()
        )
    }

    fn __str__(&self) -> String {
        self.inner.to_fen()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Position>().is_ok_and(|o| {
            let o = &o.get().inner;
            o.variant().id() == self.inner.variant().id() && o.to_fen() == self.inner.to_fen()
        })
    }

    fn __hash__(&self) -> u64 {
        self.inner.hash()
    }
}
