//! Raising the package's exceptions, which are Python classes (`kabir._errors`) so that they
//! can subclass both `KabirError` and the built-in a Python user expects (`ValueError`,
//! `OSError`).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// Builds the exception `class` of `kabir._errors` with `message` and the keyword
/// attributes `attrs`, as a `PyErr` to return.
pub(crate) fn error(
    py: Python<'_>,
    class: &str,
    message: impl Into<String>,
    attrs: &[(&str, Bound<'_, PyAny>)],
) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module =
            ERRORS.get_or_try_init(py, || py.import("kabir._errors").map(|m| m.unbind()))?;
        let class = module.bind(py).getattr(class)?.cast_into::<PyType>()?;
        let kwargs = PyDict::new(py);
        for (k, v) in attrs {
            kwargs.set_item(*k, v)?;
        }
        let value = class.call((message.into(),), Some(&kwargs))?;
        Ok(PyErr::from_value(value))
    };
    build().unwrap_or_else(|e| e)
}
