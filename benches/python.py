#!/usr/bin/env python3
"""Speed of the Python package against the command line and pyffish.

  python3 benches/python.py [--kabir target/release/kabir] [--games 2000] [--runs 5]

Needs the package installed (`python3 -m pip install ./crates/kabir-py`), the release binary
and, for the last line, pyffish. Prints:
  - reading and replaying a generated Tamerlane file (`kabir generate --seed 1`) with
    `kabir.read_games`, against `kabir validate -q` on one core (taskset, RAYON_NUM_THREADS=1);
    best of --runs, in games and MB per second, and the ratio;
  - `Position.legal_moves()` on the Tamerlane and Shatranj starts, in microseconds a call;
  - pyffish's `legal_moves` on the Shatranj start, the same way.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import timeit

import kabir


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def per_call_us(stmt, number: int = 20_000, repeat: int = 5) -> float:
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number * 1e6


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kabir", default="target/release/kabir")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "games.pgn")
        subprocess.run(
            [args.kabir, "generate", "--variant", "tamerlane", "--games", str(args.games),
             "--seed", "1", "--output", path],
            check=True, capture_output=True,
        )
        size_mb = os.path.getsize(path) / 1e6
        env = dict(os.environ, RAYON_NUM_THREADS="1")
        cli = best(lambda: subprocess.run(
            ["taskset", "-c", "0", args.kabir, "validate", "-q", path],
            env=env, capture_output=True, check=False), args.runs)

        def py_read() -> None:
            n = 0
            for g in kabir.read_games(path):
                n += 1
                if not g.is_valid:
                    raise SystemExit(f"game {g.number} invalid: {g.problems}")
            assert n == args.games

        py = best(py_read, args.runs)
    print(f"file: {args.games} Tamerlane games, {size_mb:.1f} MB")
    print(f"kabir validate (one core): {cli:.3f} s, {args.games / cli:,.0f} games/s, {size_mb / cli:.1f} MB/s")
    print(f"kabir.read_games:          {py:.3f} s, {args.games / py:,.0f} games/s, {size_mb / py:.1f} MB/s"
          f" ({cli / py:.0%} of validate)")

    tam = kabir.Variant("tamerlane").start()
    sha = kabir.Variant("shatranj").start()
    print(f"Position.legal_moves(), Tamerlane start: {per_call_us(tam.legal_moves):.2f} us")
    print(f"Position.legal_moves(), Shatranj start:  {per_call_us(sha.legal_moves):.2f} us")
    try:
        import pyffish as sf
    except ImportError:
        print("pyffish: not installed")
        return 0
    fen = sf.start_fen("shatranj")
    print(f"pyffish.legal_moves, Shatranj start:     "
          f"{per_call_us(lambda: sf.legal_moves('shatranj', fen, [])):.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
