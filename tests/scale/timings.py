#!/usr/bin/env python3
"""Times the SQL recipes of docs/SCALE.md with DuckDB on a Parquet export (the figures of its
"Measured" section):

    timings.py --export DIR [--variant shatranj] [--doc docs/SCALE.md] [--threads N]

Each recipe runs --runs times (3); the best time is printed, with the rows it returned.
"""

import argparse
import time

import duckdb

from recipes import recipes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--export", required=True)
    ap.add_argument("--variant", default="shatranj")
    ap.add_argument("--doc", default="docs/SCALE.md")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--runs", type=int, default=3, help="runs of each recipe (the best counts)")
    args = ap.parse_args()
    sql = recipes(args.doc)
    con = duckdb.connect()
    if args.threads:
        con.execute(f"SET threads = {args.threads}")
    con.execute(sql["setup"].replace("'export/", f"'{args.export}/"))
    v = args.variant
    games, moves = con.execute(
        "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM moves)").fetchone()
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    print(f"{games} games, {moves} moves; DuckDB {duckdb.__version__}, {threads} threads")
    start = con.execute("SELECT start_hash FROM games WHERE variant = $v AND standard_start "
                        "LIMIT 1", {"v": v}).fetchone()[0]
    # The position most often reached after two plies, and one deep in a game.
    after2 = con.execute("SELECT hash_after FROM moves WHERE variant = $v AND ply = 2 "
                         "GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1", {"v": v}).fetchone()[0]
    deep = con.execute("SELECT hash_after FROM moves WHERE variant = $v AND game = "
                       "(SELECT min(id) FROM games WHERE variant = $v AND plies >= 40) "
                       "AND ply = 40", {"v": v}).fetchone()[0]
    runs = []
    for label, h in (("start position", start), ("most common after 2 plies", after2),
                     ("ply 40 of a game", deep)):
        for name in ("explore_position", "explore_moves", "search_position"):
            runs.append((f"{name}, {label}", sql[name], {"variant": v, "hash": h}))
    for name in ("stats_summary", "stats_terminations", "stats_special", "stats_promotions",
                 "stats_by_variant"):
        runs.append((name, sql[name], {}))
    print("| recipe | seconds | rows |")
    print("|---|---|---|")
    for label, q, params in runs:
        best = None
        for _ in range(args.runs):
            t = time.perf_counter()
            n = len(con.execute(q, params).fetchall())
            t = time.perf_counter() - t
            best = t if best is None else min(best, t)
        print(f"| {label} | {best:.2f} | {n} |", flush=True)


if __name__ == "__main__":
    main()
