"""Shatranj against Fairy-Stockfish (pyffish): legal moves, SAN and game end on positions of
seeded random games (the thorough comparison of move generation is
tests/differential/compare.py; this one checks the package's view of it)."""

import random

import pytest

import kabir

sf = pytest.importorskip("pyffish")


def kings_only(fen):
    board = fen.split()[0]
    return sorted(c for c in board if c.isalpha()) == ["K", "k"]


def test_shatranj_agrees_with_fairy_stockfish():
    rng = random.Random(37)
    start = kabir.Variant("shatranj").start()
    compared = 0
    for _ in range(12):
        pos = start
        for _ in range(120):
            fen = pos.fen()
            ours = {m.uci(): m for m in pos.legal_moves()}
            status = pos.status()
            if kings_only(fen):
                # RULES.md: two bare kings draw at once; Fairy-Stockfish plays on.
                assert status.is_over and status.result == "1/2-1/2"
                break
            theirs = sf.legal_moves("shatranj", fen, [])
            assert set(ours) == set(theirs), fen
            compared += 1
            if not theirs:
                assert status.is_over, fen
                break
            ended, _ = sf.is_immediate_game_end("shatranj", fen, [])
            assert status.is_over == ended, fen
            if ended:
                break
            for uci in rng.sample(theirs, min(3, len(theirs))):
                # kabir reads Fairy-Stockfish's SAN as the same move.
                assert pos.parse_san(sf.get_san("shatranj", fen, uci)) == ours[uci], (fen, uci)
            pos = pos.play(ours[rng.choice(theirs)])
    assert compared > 600
