"""The type stubs describe every public name of the extension module, and every public name
has a docstring."""

import ast
from pathlib import Path

import kabir
import kabir._kabir as ext

STUB = Path(__file__).resolve().parents[1] / "python" / "kabir" / "_kabir.pyi"


def stub_names():
    tree = ast.parse(STUB.read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = {
                n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = set()
    return names


def test_every_public_name_has_a_stub_and_a_docstring():
    stubs = stub_names()
    for name in dir(ext):
        if name.startswith("_"):
            continue
        obj = getattr(ext, name)
        if not callable(obj):
            continue
        assert name in stubs, f"{name} has no stub"
        assert obj.__doc__, f"{name} has no docstring"
        if isinstance(obj, type):
            for attr in vars(obj):
                if attr.startswith("_"):
                    continue
                assert attr in stubs[name], f"{name}.{attr} has no stub"
                assert getattr(obj, attr).__doc__, f"{name}.{attr} has no docstring"


def test_the_package_exports_its_exceptions_and_marks_itself_typed():
    assert (Path(kabir.__file__).parent / "py.typed").exists()
    for name in kabir.__all__:
        assert hasattr(kabir, name)
    assert issubclass(kabir.IllegalMoveError, ValueError)
    assert issubclass(kabir.ReadError, OSError)
    assert all(issubclass(getattr(kabir, n), kabir.KabirError) for n in kabir.__all__ if n.endswith("Error"))
