"""Reading game records: samples, file objects, text and bad input."""

import gzip
import io
from pathlib import Path

import pytest

import kabir


def test_samples_read_and_replay(samples):
    files = sorted(samples.glob("*.pgn"))
    assert files
    for path in files:
        games = list(kabir.read_games(path))
        assert games, path
        for g in games:
            assert g.is_valid, (path, g.problems)
            assert g.variant is not None
            positions = g.positions()
            assert len(positions) == len(g.moves) + 1
            pos = positions[0]
            for san, after in zip(g.moves, positions[1:]):
                pos = pos.play(san)
                assert pos == after
            assert g.result in ("1-0", "0-1", "1/2-1/2", "*")
            assert isinstance(g.tags, dict) and "Variant" in g.tags


def test_file_objects_binary_and_text_read_alike(samples):
    path = samples / "tamerlane.pgn"
    by_path = [g.moves for g in kabir.read_games(path)]
    with open(path, "rb") as f:
        assert [g.moves for g in kabir.read_games(f)] == by_path
    with open(path, encoding="utf-8") as f:
        assert [g.moves for g in kabir.read_games(f)] == by_path
    text = path.read_text(encoding="utf-8")
    assert [g.moves for g in kabir.read_games_text(text)] == by_path
    assert [g.moves for g in kabir.read_games(io.StringIO(text))] == by_path
    assert [g.moves for g in kabir.read_games(io.BytesIO(gzip.decompress(gzip.compress(text.encode()))))] == by_path


def test_compressed_and_utf16_files_read_as_the_command_line_reads_them(samples, tmp_path):
    path = samples / "tamerlane.pgn"
    plain = [g.moves for g in kabir.read_games(path)]
    gz = tmp_path / "t.pgn.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert [g.moves for g in kabir.read_games(gz)] == plain
    with open(gz, "rb") as f:
        assert [g.moves for g in kabir.read_games(f)] == plain
    # Made with `zstd -19 samples/tamerlane.pgn`.
    zst = Path(__file__).parent / "data" / "tamerlane.pgn.zst"
    assert [g.moves for g in kabir.read_games(zst)] == plain
    utf16 = tmp_path / "t16.pgn"
    utf16.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    assert [g.moves for g in kabir.read_games(utf16)] == plain
    bz2 = tmp_path / "t.pgn.bz2"
    bz2.write_bytes(b"BZh91AY&SY" + bytes(40))
    with pytest.raises(kabir.ReadError) as e:
        kabir.read_games(bz2)
    assert "bzip2" in str(e.value)
    cut = tmp_path / "cut.pgn.gz"
    cut.write_bytes(gzip.compress(path.read_bytes()) + b"not gzip")
    with pytest.raises(kabir.ReadError):
        list(kabir.read_games(cut))


def test_text_is_not_taken_for_a_path():
    with pytest.raises(TypeError):
        kabir.read_games(b"1. e4 *")
    with pytest.raises(kabir.ReadError) as e:
        kabir.read_games("/no/such/file.pgn")
    assert isinstance(e.value, OSError)


def test_problems_are_typed():
    text = '[Variant "shatranj"]\n\n1. e3 e6 2. Ke4 *\n'
    (g,) = kabir.read_games_text(text)
    assert not g.is_valid
    (p,) = [p for p in g.problems if p.severity == "error"]
    assert p.kind == "illegal-move"
    assert (p.line, p.column) == (3, 13)
    assert p.text == "Ke4"
    assert p.ply == 3
    assert p.fen and "Ke2" in p.legal_moves or p.legal_moves


def test_default_variant_for_games_without_a_tag():
    (g,) = kabir.read_games_text("1. e3 e6 *\n")
    assert not g.is_valid and g.problems[0].kind == "missing-variant"
    (g,) = kabir.read_games_text("1. e3 e6 *\n", default_variant="shatranj")
    assert g.is_valid and g.moves == ["e3", "e6"]


def test_bad_input_files_never_crash(data):
    for path in sorted((data / "bad-input").iterdir()):
        try:
            for g in kabir.read_games(path):
                assert isinstance(g.problems, list)
                g.moves, g.tags, g.positions(), g.pgn()
        except kabir.KabirError:
            pass


def test_invalid_utf8_bytes_from_a_file_object():
    raw = b'[Variant "shatranj"]\n[Event "\xff\xfe"]\n\n1. e3 {\xc3\x28} e6 *\n'
    (g,) = kabir.read_games(io.BytesIO(raw))
    assert [(p.kind, p.severity, p.line) for p in g.problems] == [
        ("syntax", "error", 2),
        ("syntax", "error", 4),
    ]
    assert not g.is_valid and g.moves == []


def test_a_failing_file_object_raises():
    class Broken(io.RawIOBase):
        def read(self, n=-1):
            raise OSError("disk on fire")

    with pytest.raises(kabir.ReadError):
        list(kabir.read_games(Broken()))
