"""Paths shared by the tests: the repository's samples and test data."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def samples() -> Path:
    return ROOT / "samples"


@pytest.fixture
def data() -> Path:
    return ROOT / "tests" / "data"


@pytest.fixture
def kabir_binary() -> Path:
    """The command-line binary, for comparing answers with its JSON (built by `cargo build
    --release`; the tests that need it are skipped without it)."""
    path = ROOT / "target" / "release" / "kabir"
    if not path.exists():
        pytest.skip("target/release/kabir is not built")
    return path
