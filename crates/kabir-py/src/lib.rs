//! The Python package `kabir`: the rules, the notation and the game database of the Shatranj
//! family from Python. This crate is the extension module `kabir._kabir`; the package's
//! Python side (`python/kabir/`) re-exports it with the exception classes and type stubs.
//!
//! Every entry point turns bad input into a Python exception: a panic that reached Python
//! would be a bug, and long calls (reading, replaying, perft) let other Python threads run.

mod db;
mod errors;
mod games;
mod rules;

use pyo3::prelude::*;

/// The ids of the built-in variants (`shatranj`, `tamerlane`, ...).
#[pyfunction]
fn variants() -> Vec<String> {
    kabir_rules::variants::builtin_ids()
}

/// The extension module.
#[pymodule]
fn _kabir(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_class::<rules::Variant>()?;
    m.add_class::<rules::Position>()?;
    m.add_class::<rules::Move>()?;
    m.add_class::<rules::Piece>()?;
    m.add_class::<rules::Status>()?;
    m.add_class::<db::Database>()?;
    m.add_class::<games::Game>()?;
    m.add_class::<games::Problem>()?;
    m.add_class::<games::GameReader>()?;
    m.add_function(wrap_pyfunction!(games::read_games, m)?)?;
    m.add_function(wrap_pyfunction!(games::read_games_text, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
