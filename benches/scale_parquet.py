#!/usr/bin/env python3
"""Times the SQL recipes of docs/SCALE.md with DuckDB on a Parquet export (the figures of its
"Measured" section):

    benches/scale_parquet.py --export DIR [--variant tamerlane] [--runs 5] [--warmup 1]
                             [--threads N] [--positions] [--doc docs/SCALE.md]

Each recipe runs --runs times after --warmup untimed runs (1 by default, which brings the
files it reads into the page cache); the median, fastest and slowest times are printed as a Markdown table, with the
rows the recipe returned. The positions are picked from the export itself: the variant's
start position (every game reaches it), the position most often reached after two plies,
and the position after ply 40 of one game. With --positions the `positions` table of the
export is read, otherwise the view made from `moves` and `games`. The load average of the
machine is printed before and after: on a shared machine the times are upper bounds.
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "scale"))

from recipes import duckdb, recipes  # noqa: E402


def load():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--export", required=True, help="the folder written by kabir export")
    ap.add_argument("--variant", default="tamerlane")
    ap.add_argument("--doc", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "docs", "SCALE.md"))
    ap.add_argument("--threads", type=int, help="DuckDB threads (default: all cores)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs of each recipe")
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs of each recipe first")
    ap.add_argument("--positions", action="store_true",
                    help="read the export's positions table (written with --positions)")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    sql = recipes(args.doc)
    con = duckdb.connect()
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    con.execute(sql["setup"].replace("'export/", f"'{args.export}/"))
    if args.positions:
        con.execute(sql["setup_positions"].replace("'export/", f"'{args.export}/"))
    v = args.variant
    games, moves = con.execute(
        "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM moves)").fetchone()
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    print(f"{games} games, {moves} moves; DuckDB {duckdb.__version__}, {threads} threads; "
          f"positions from {'the positions table' if args.positions else 'moves and games'}")
    print(f"load average before: {load()}", flush=True)
    start = con.execute("SELECT start_hash FROM games WHERE variant = $v AND standard_start "
                        "LIMIT 1", {"v": v}).fetchone()
    if start is None:
        sys.exit(f"no {v} game from the start position in {args.export}; give --variant")
    after2 = con.execute("SELECT hash_after FROM moves WHERE variant = $v AND ply = 2 "
                         "GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1", {"v": v}).fetchone()
    deep = con.execute("SELECT hash_after FROM moves WHERE variant = $v AND game = "
                       "(SELECT min(id) FROM games WHERE variant = $v AND plies >= 40) "
                       "AND ply = 40", {"v": v}).fetchone()
    runs = []
    for label, h in (("start position", start), ("most common after 2 plies", after2),
                     ("ply 40 of a game", deep)):
        if h is None:
            continue
        for name in ("explore_position", "explore_moves", "search_position"):
            runs.append((f"{name}, {label}", sql[name], {"variant": v, "hash": h[0]}))
    for name in ("stats_summary", "stats_terminations", "stats_special", "stats_promotions",
                 "stats_by_variant"):
        runs.append((name, sql[name], {}))
    print("\n| recipe | median s | fastest s | slowest s | rows |")
    print("|---|---|---|---|---|")
    for label, q, params in runs:
        for _ in range(args.warmup):
            con.execute(q, params).fetchall()
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            n = len(con.execute(q, params).fetchall())
            times.append(time.perf_counter() - t)
        print(f"| {label} | {statistics.median(times):.2f} | {min(times):.2f} | "
              f"{max(times):.2f} | {n} |", flush=True)
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
