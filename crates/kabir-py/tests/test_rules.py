"""Variants, positions and moves on every built-in variant."""

import pytest

import kabir

VARIANTS = kabir.variants()


def test_builtin_variants_are_listed():
    assert {"shatranj", "tamerlane", "knavish-shatranj"} <= set(VARIANTS)


@pytest.mark.parametrize("name", VARIANTS)
def test_every_variant_starts_and_plays(name):
    v = kabir.Variant(name)
    assert v.id == name
    assert v == kabir.Variant(name) and hash(v) == hash(kabir.Variant(name))
    pos = v.start()
    assert pos.turn == "white"
    assert pos.variant == v
    assert kabir.Position(v, pos.fen()) == pos
    assert kabir.Position(name) == pos
    board = pos.board()
    assert set(board) <= set(v.squares())
    assert all(p.color in ("white", "black") for p in board.values())
    moves = pos.legal_moves()
    assert moves and len(set(moves)) == len(moves)
    assert pos.perft(1) == len(moves)
    for m in moves:
        san = pos.san(m)
        assert pos.parse_san(san) == m
        assert pos.parse_san(m.uci()) == m
        after = pos.play(m)
        assert after.turn == "black"
        assert pos.play(san) == after
    assert not pos.status().is_over and not pos.status()
    # The position did not change: positions are immutable.
    assert pos.legal_moves() == moves


@pytest.mark.parametrize("name", ["shatranj", "tamerlane", "knavish-shatranj"])
def test_perft_adds_up_the_moves(name):
    pos = kabir.Variant(name).start()
    assert pos.perft(2) == sum(len(pos.play(m).legal_moves()) for m in pos.legal_moves())
    assert pos.perft(3) == sum(pos.play(m).perft(2) for m in pos.legal_moves())


def test_perft_numbers():
    # docs/PERFORMANCE.md: shatranj 1,164,248 at depth 5, tamerlane 365,893 at depth 4.
    assert kabir.Variant("tamerlane").start().perft(4) == 365_893


def test_tamerlane_board_has_its_citadels():
    v = kabir.Variant("tamerlane")
    squares = v.squares()
    assert len(squares) == v.files * v.ranks + 2
    svg = v.start().svg()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg


def test_repr_svg_draws_a_notebook_board():
    pos = kabir.Variant("tamerlane").start()
    svg = pos._repr_svg_()
    assert "<svg" in svg and svg.rstrip().endswith("</svg>")


def test_checkmate_is_a_status():
    # The king on a1 is mated by the rooks on h1 and h2 (White keeps a pawn: not a bare king).
    pos = kabir.Position("shatranj", "k7/8/8/7P/8/8/7r/K6r w - - 0 1")
    st = pos.status()
    assert st.is_over and st.termination == "checkmate" and st.result == "0-1"
    assert pos.legal_moves() == []


def test_illegal_move_says_what_is_legal():
    pos = kabir.Variant("shatranj").start()
    with pytest.raises(kabir.IllegalMoveError) as e:
        pos.play("Ke4")
    assert isinstance(e.value, ValueError) and isinstance(e.value, kabir.KabirError)
    assert e.value.fen == pos.fen()
    assert sorted(e.value.legal_moves) == sorted(pos.san(m) for m in pos.legal_moves())


def test_a_move_of_another_position_is_refused():
    pos = kabir.Variant("shatranj").start()
    m = pos.legal_moves()[0]
    after = pos.play(m)
    with pytest.raises(kabir.IllegalMoveError):
        after.play(m)


def test_bad_notation_and_bad_fen_and_unknown_variant():
    pos = kabir.Variant("shatranj").start()
    with pytest.raises(kabir.NotationError):
        pos.parse_san("hello")
    with pytest.raises(kabir.FenError) as e:
        kabir.Position("shatranj", "8/8 w - - 0 1")
    assert e.value.kind
    with pytest.raises(kabir.VariantError):
        kabir.Variant("chess960")
    with pytest.raises(TypeError):
        pos.play(42)


HOSTILE = ["", "\x00", "a" * 200_000, "1. e4 \x00 e5", "[" * 10_000, "\u0000\uffff", "e2e4" * 5000]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_raise_python_exceptions(text):
    pos = kabir.Variant("tamerlane").start()
    for call in (
        lambda: pos.play(text),
        lambda: pos.parse_san(text),
        lambda: kabir.Position("tamerlane", text),
        lambda: kabir.Variant(text),
        lambda: kabir.Variant.from_toml(text),
    ):
        with pytest.raises((kabir.KabirError, TypeError)):
            call()
    games = list(kabir.read_games_text(text))
    for g in games:
        assert isinstance(g.problems, list)


def test_variant_from_file(data):
    v = kabir.Variant.from_file(data / "variants" / "mini.toml")
    assert v.start().legal_moves()
    with pytest.raises(kabir.VariantError):
        kabir.Variant.from_file(data / "no-such.toml")
