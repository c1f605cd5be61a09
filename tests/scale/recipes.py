#!/usr/bin/env python3
"""Runs the SQL recipes of docs/SCALE.md with DuckDB on a Parquet export and compares their
answers with `kabir explore`, `kabir stats` and `kabir search --format json` on a database of
the same games. The recipes are read from the document itself, so the two cannot drift.

    recipes.py --kabir BIN --db DB --export DIR [--positions] [--same-as DIR2] [--doc FILE]

Prints a JSON summary of what was compared on success; exits 1 naming the first difference.
"""

import argparse
import json
import math
import re
import subprocess
import sys

try:
    import duckdb
except ImportError:
    sys.exit("the duckdb Python package is needed: python3 -m pip install duckdb")


def recipes(doc):
    """The `-- recipe: NAME` SQL blocks of the document, by name."""
    out = {}
    for block in re.findall(r"```sql\n(.*?)```", open(doc, encoding="utf-8").read(), re.S):
        m = re.match(r"-- recipe: (\w+)\n", block)
        if m:
            out[m.group(1)] = block
    return out


class Mismatch(Exception):
    pass


def same(what, a, b):
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None or not math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12):
            raise Mismatch(f"{what}: kabir {a!r}, SQL {b!r}")
    elif a != b:
        raise Mismatch(f"{what}: kabir {a!r}, SQL {b!r}")


def kabir(args, *cmd):
    p = subprocess.run([args.kabir, *cmd, "--db", args.db, "--format", "json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise Mismatch(f"kabir {' '.join(cmd)} failed: {p.stderr}")
    return json.loads(p.stdout)


def rows(con, sql, params=None):
    cur = con.execute(sql, params or {})
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def results(d):
    return {k: d[k] for k in ("white_wins", "draws", "black_wins", "unfinished")}


def check_position(args, con, sql, variant, line, expect_hash=None):
    """Explorer and position search for the position after `line` (SAN moves, or None for the
    start), by kabir and by SQL. Returns the number of games that reached it."""
    where = ["--variant", variant] + (["--moves", line] if line else [])
    ex = kabir(args, "explore", *where, "--examples", "3")
    h = ex["hash"]
    if expect_hash is not None:
        same(f"hash of {variant} {line!r}", expect_hash, h)
    params = {"variant": variant, "hash": h}
    label = f"{variant} {line or '(start)'}"
    (top,) = rows(con, sql["explore_position"], params)
    same(f"{label}: games", ex["games"], top["games"])
    if ex["games"] == 0:
        return 0
    same(f"{label}: ended_here", ex["ended_here"], top["ended_here"])
    same(f"{label}: continued", ex["continued"], top["continued"])
    same(f"{label}: results", results(ex["results"]), results(top))
    moves = rows(con, sql["explore_moves"], params)
    same(f"{label}: number of moves", len(ex["moves"]), len(moves))
    for k, s in zip(ex["moves"], moves):
        at = f"{label}: move {k['uci']}"
        for f in ("san", "uci", "games", "share_pct", "average_plies"):
            same(f"{at} {f}", k[f], s[f])
        same(f"{at} results", results(k["results"]), results(s))
        same(f"{at} examples", k["examples"], list(s["examples"]))
    found = kabir(args, "search", "--variant", variant, "--fen", ex["fen"], "--limit", "0")
    hits = rows(con, sql["search_position"], params)
    same(f"{label}: search total", found["total"], len(hits))
    for k, s in zip(found["games"], hits):
        for f in ("id", "variant", "white", "black", "event", "site", "date", "result",
                  "termination", "plies", "ply"):
            same(f"{label}: search game {k['id']} {f}", k[f], s[f])
    return ex["games"]


def lines(con, variant, count):
    """Lines (SAN moves from the start) to positions worth checking in a variant: the most
    reached positions a few plies deep (where games transpose), positions some game visits
    more than once (where the first visit counts) and some game's positions along the way."""
    picked = []
    queries = [
        # Positions reached by many games, by more than one move order where there are.
        """SELECT hash, min(game) AS game, arg_min(ply, game) AS ply FROM positions
           WHERE variant = $variant AND ply BETWEEN 2 AND 8
           GROUP BY hash ORDER BY count(DISTINCT ply) DESC, count(DISTINCT game) DESC, hash
           LIMIT $n""",
        # Positions a game came back to.
        """SELECT hash, min(game) AS game, arg_min(ply, game) AS ply FROM (
               SELECT hash, game, ply, count(*) OVER (PARTITION BY game, hash) AS visits
               FROM positions WHERE variant = $variant)
           WHERE visits > 1 GROUP BY hash ORDER BY count(DISTINCT game) DESC, hash LIMIT $n""",
        # Final positions (games ended there) and some positions deep into games.
        """SELECT end_hash AS hash, id AS game, plies AS ply FROM games
           WHERE variant = $variant AND standard_start ORDER BY id LIMIT $n""",
        """SELECT hash, game, ply FROM positions
           WHERE variant = $variant AND ply IN (1, 3, 17, 40) ORDER BY game, ply LIMIT $n""",
    ]
    for q in queries:
        for r in rows(con, q, {"variant": variant, "n": count}):
            line = con.execute(
                """SELECT string_agg(m.san, ' ' ORDER BY m.ply) FROM moves m
                   JOIN games g ON g.variant = m.variant AND g.id = m.game
                   WHERE m.variant = $variant AND m.game = $game AND m.ply <= $ply
                     AND g.standard_start""",
                {"variant": variant, "game": r["game"], "ply": r["ply"]}).fetchone()[0]
            if line is not None and (line, r["hash"]) not in picked:
                picked.append((line, r["hash"]))
    return picked


def check_stats(args, con, sql):
    st = kabir(args, "stats")
    (s,) = rows(con, sql["stats_summary"])
    same("stats: games", st["games"], s["games"])
    same("stats: results", results(st["results"]), results(s))
    ln = st["lengths"]
    for k, f in (("min", "min_plies"), ("max", "max_plies"), ("mean", "mean_plies"),
                 ("median", "median_plies")):
        same(f"stats: lengths {k}", ln[k], s[f])
    ends = {e["termination"]: e["games"] for e in st["terminations"] if e["games"]}
    same("stats: terminations", ends,
         {r["termination"]: r["games"] for r in rows(con, sql["stats_terminations"])})
    special = rows(con, sql["stats_special"]) + rows(con, sql["stats_promotions"])
    same("stats: special moves",
         [(x["name"], x["moves"], x["games"]) for x in st["special"]],
         [(x["name"], x["moves"], x["games"]) for x in special])
    by = kabir(args, "stats", "--by", "variant")
    groups = rows(con, sql["stats_by_variant"])
    same("stats by variant: groups", [g["key"] for g in by["groups"]], [g["key"] for g in groups])
    for k, s in zip(by["groups"], groups):
        for f in ("games", "share_pct", "average_plies"):
            same(f"stats by variant {k['key']}: {f}", k[f], s[f])
        same(f"stats by variant {k['key']}: results", results(k["results"]), results(s))


def check_same_tables(con, other):
    """The export in `other` holds exactly the rows of this one."""
    for table in ("games", "moves"):
        con.execute(f"""CREATE VIEW other_{table} AS SELECT * FROM read_parquet(
                        '{other}/{table}/*/*.parquet', hive_partitioning = true)""")
        for a, b in ((table, f"other_{table}"), (f"other_{table}", table)):
            n = con.execute(f"""SELECT count(*) FROM (SELECT * FROM {a} EXCEPT ALL
                                SELECT * FROM {b})""").fetchone()[0]
            if n:
                raise Mismatch(f"{n} rows of {a} are not in {b}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kabir", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--export", required=True)
    ap.add_argument("--doc", default="docs/SCALE.md")
    ap.add_argument("--positions", action="store_true",
                    help="the export has the positions table: check it gives the same answers")
    ap.add_argument("--same-as", help="another export of the same games, to compare rows with")
    ap.add_argument("--lines", type=int, default=6, help="positions per query per variant")
    args = ap.parse_args()
    sql = recipes(args.doc)
    needed = {"setup", "setup_positions", "explore_position", "explore_moves",
              "search_position", "stats_summary", "stats_terminations", "stats_special",
              "stats_promotions", "stats_by_variant"}
    if needed - set(sql):
        sys.exit(f"{args.doc} lacks the recipes {sorted(needed - set(sql))}")
    con = duckdb.connect()
    summary = {"positions": 0, "games_at_positions": 0, "views": []}
    try:
        con.execute(sql["setup"].replace("'export/", f"'{args.export}/"))
        views = ["moves"]
        if args.positions:
            views.append("positions")
        for view in views:
            if view == "positions":
                con.execute(sql["setup_positions"].replace("'export/", f"'{args.export}/"))
            summary["views"].append(view)
            variants = [r[0] for r in con.execute(
                "SELECT DISTINCT variant FROM games ORDER BY variant").fetchall()]
            for v in variants:
                summary["games_at_positions"] += check_position(args, con, sql, v, None)
                summary["positions"] += 1
                for line, h in lines(con, v, args.lines):
                    summary["games_at_positions"] += check_position(args, con, sql, v, line, h)
                    summary["positions"] += 1
        check_stats(args, con, sql)
        if args.same_as:
            check_same_tables(con, args.same_as)
            summary["same_as"] = True
        summary["games"] = con.execute("SELECT count(*) FROM games").fetchone()[0]
        summary["variants"] = con.execute(
            "SELECT count(DISTINCT variant) FROM games").fetchone()[0]
    except Mismatch as e:
        sys.exit(f"difference: {e}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
