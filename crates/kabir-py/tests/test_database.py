"""The database from Python answers as the commands' `--format json` do."""

import json
import subprocess

import pytest

import kabir


@pytest.fixture
def db_path(tmp_path, samples):
    path = tmp_path / "games.db"
    with kabir.Database(path, write=True) as db:
        summary = db.import_files(sorted(samples.glob("*.pgn")))
    assert summary["imported"] > 0 and summary["rejected"] == 0
    assert summary["games_read"] == summary["imported"] + summary["duplicates"]
    return path


def cli(binary, *args):
    out = subprocess.run([str(binary), *map(str, args), "--format", "json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_answers_equal_the_commands(db_path, kabir_binary):
    db = kabir.Database(db_path)
    assert db.read_only
    assert db.explore(variant="tamerlane", depth=2) == cli(
        kabir_binary, "explore", "--db", db_path, "--variant", "tamerlane", "--depth", 2
    )
    assert db.explore(variant="shatranj", moves=["e3"]) == cli(
        kabir_binary, "explore", "--db", db_path, "--variant", "shatranj", "--moves", "e3"
    )
    assert db.search() == cli(kabir_binary, "search", "--db", db_path)
    assert db.search(variant="tamerlane", sort="plies", reverse=True, limit=3) == cli(
        kabir_binary, "search", "--db", db_path, "--variant", "tamerlane", "--sort", "plies", "--reverse", "--limit", 3
    )
    assert db.search(result="white") == cli(kabir_binary, "search", "--db", db_path, "--result", "white")
    for by in (None, "variant", "player", "termination", "year", "opening", "result"):
        args = ["--by", by] if by else []
        assert db.stats(by=by) == cli(kabir_binary, "stats", "--db", db_path, *args), by
    assert db.game(1) == cli(kabir_binary, "show", "--db", db_path, 1)
    assert db.game(1, ply=2) == cli(kabir_binary, "show", "--db", db_path, 1, "--ply", 2)
    assert db.game(10_000) is None
    assert len(db) == db.search(limit=None)["total"]


def test_position_search(db_path, kabir_binary):
    db = kabir.Database(db_path)
    pos = kabir.Variant("tamerlane").start().play("f4").play("f7")
    found = db.search(position=pos)
    assert found["total"] > 0
    assert found == cli(kabir_binary, "search", "--db", db_path, "--variant", "tamerlane", "--fen", pos.fen())


def test_read_only_and_bad_arguments(db_path, samples, tmp_path):
    db = kabir.Database(db_path)
    with pytest.raises(kabir.DatabaseError):
        db.import_files([samples / "shatranj.pgn"])
    with pytest.raises(kabir.QueryError) as e:
        db.search(result="won")
    assert e.value.parameter == "result" and isinstance(e.value, ValueError)
    with pytest.raises(kabir.QueryError):
        db.stats(by="colour")
    with pytest.raises(kabir.QueryError):
        db.search(sort="elo")
    with pytest.raises(kabir.DatabaseError):
        kabir.Database(tmp_path / "missing.db")
    db.close()
    with pytest.raises(kabir.DatabaseError):
        db.search()


def test_importing_again_finds_duplicates(db_path, samples):
    with kabir.Database(db_path, write=True) as db:
        before = len(db)
        summary = db.import_files([samples / "shatranj.pgn"])
        assert summary["imported"] == 0 and summary["duplicates"] > 0
        assert len(db) == before
