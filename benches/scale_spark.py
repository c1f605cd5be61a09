#!/usr/bin/env python3
"""Runs the explorer and statistics recipes of docs/SCALE.md with Spark SQL (pyspark, local
mode) on a Parquet export and checks that they answer as the DuckDB recipes and as `kabir
explore`, `kabir search` and `kabir stats --format json` on a database of the same games;
with --runs, also times each recipe in the three (the figures of docs/SCALE.md, "Checked with Spark"):

    benches/scale_spark.py [--kabir BIN --db DB] --export DIR [--positions] [--lines 6]
                           [--runs N] [--warmup 0] [--time duckdb,spark,kabir] [--skip-check]
                           [--variant tamerlane] [--doc docs/SCALE.md]

The Spark SQL is read from the document: its `-- spark recipe: NAME` blocks, and for a recipe
without one the DuckDB recipe with its parameters written `:name` for `$name` (the only
difference there). The positions checked are each variant's start position and, as
tests/scale/recipes.py picks them, positions many games reach by several move orders,
positions a game came back to, final positions and some deep into games (--lines of each
kind per variant); with --runs, the three positions of benches/scale_parquet.py (the start
position, the most common after two plies, ply 40 of a game) are timed as well. With
--positions the export's positions table is checked too.

Without --kabir and --db, Spark is checked against DuckDB alone (and kabir is not timed).
Prints what was compared (and the timings) and exits 0 when every answer agrees; exits 1
naming the first difference.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "scale"))

import recipes as duck  # noqa: E402
from recipes import Mismatch, duckdb, same  # noqa: E402

try:
    from pyspark.sql import SparkSession
except ImportError:
    sys.exit("pyspark is needed: benches/scale_spark.sh installs it and a Java runtime")

NEEDED = ("setup", "setup_positions", "explore_position", "explore_moves", "search_position",
          "stats_summary", "stats_terminations", "stats_special", "stats_promotions",
          "stats_by_variant")


def spark_recipes(doc, duckdb_sql):
    """The Spark SQL of each recipe: its `-- spark recipe:` block, else the DuckDB one with
    Spark's parameter markers."""
    own = {}
    for block in re.findall(r"```sql\n(.*?)```", open(doc, encoding="utf-8").read(), re.S):
        m = re.match(r"-- spark recipe: (\w+)\n", block)
        if m:
            own[m.group(1)] = block
    unknown = set(own) - set(duckdb_sql)
    if unknown:
        sys.exit(f"{doc}: Spark recipes without a DuckDB recipe: {sorted(unknown)}")
    return {name: own.get(name, re.sub(r"\$(\w+)", r":\1", sql))
            for name, sql in duckdb_sql.items()}


def statements(sql):
    """The statements of a block: spark.sql takes one at a time."""
    return [s for s in (p.strip() for p in re.split(r";\s*$", sql, flags=re.M)) if s]


class Answer:
    """A query's rows, read once, with the calls of a DuckDB cursor."""

    def __init__(self, description, rows):
        self.description = description
        self.rows = rows

    def fetchall(self):
        return self.rows

    def fetchone(self):
        return self.rows[0] if self.rows else None


class DuckDB:
    def __init__(self, con):
        self.con = con

    def execute(self, sql, params=None):
        cur = self.con.execute(sql, params or {})
        return Answer(cur.description, cur.fetchall())


class Spark:
    """Spark SQL behind the calls tests/scale/recipes.py makes on a DuckDB connection."""

    def __init__(self, session):
        self.session = session

    def execute(self, sql, params=None):
        (statement,) = statements(sql)
        df = self.session.sql(statement, args=params or None)
        return Answer([(c,) for c in df.columns], [tuple(r) for r in df.collect()])

    def run_all(self, sql):
        for statement in statements(sql):
            self.session.sql(statement).collect()


class Remembered:
    """An engine that runs each query once: the checks ask the same recipe of the same
    position several times (kabir against the engine, then the engines against each other)."""

    def __init__(self, engine):
        self.engine = engine
        self.answers = {}

    def execute(self, sql, params=None):
        key = (sql, json.dumps(params or {}, sort_keys=True))
        if key not in self.answers:
            self.answers[key] = self.engine.execute(sql, params)
        return self.answers[key]

    def forget(self):
        self.answers.clear()


def close(a, b):
    """Two answers, rows of values, equal but for the last bits of floating-point values."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        try:
            return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))
        except TypeError:
            return False
    return a == b


def same_rows(what, duck_rows, spark_rows):
    if len(duck_rows) != len(spark_rows):
        raise Mismatch(f"{what}: DuckDB {len(duck_rows)} rows, Spark {len(spark_rows)}")
    for i, (d, s) in enumerate(zip(duck_rows, spark_rows)):
        if d.keys() != s.keys():
            raise Mismatch(f"{what}: DuckDB columns {list(d)}, Spark {list(s)}")
        for k in d:
            if not close(d[k], s[k]):
                raise Mismatch(f"{what}, row {i + 1}, {k}: DuckDB {d[k]!r}, Spark {s[k]!r}")


def line_to(con, variant, game, ply):
    """The SAN moves of a game (from its variant's start) up to a ply, or None."""
    return con.execute(
        """SELECT string_agg(m.san, ' ' ORDER BY m.ply) FROM moves m
           JOIN games g ON g.variant = m.variant AND g.id = m.game
           WHERE m.variant = $variant AND m.game = $game AND m.ply <= $ply
             AND g.standard_start""",
        {"variant": variant, "game": game, "ply": ply}).fetchone()[0]


def timed_positions(con, variant):
    """The positions benches/scale_parquet.py times: (label, line, hash)."""
    out = []
    start = con.execute("SELECT start_hash FROM games WHERE variant = $v AND standard_start "
                        "LIMIT 1", {"v": variant}).fetchone()
    if start is None:
        sys.exit(f"no {variant} game from the start position in the export; give --variant")
    out.append(("start position", None, start[0]))
    after2 = con.execute(
        """SELECT hash_after, min(game) FROM moves m JOIN games g
               ON g.variant = m.variant AND g.id = m.game AND g.standard_start
           WHERE m.variant = $v AND m.ply = 2
           GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1""", {"v": variant}).fetchone()
    if after2:
        out.append(("most common after 2 plies", line_to(con, variant, after2[1], 2),
                    after2[0]))
    deep = con.execute(
        """SELECT hash_after, game FROM moves WHERE variant = $v AND ply = 40 AND game =
               (SELECT min(id) FROM games WHERE variant = $v AND plies >= 40
                AND standard_start)""", {"v": variant}).fetchone()
    if deep:
        out.append(("ply 40 of a game", line_to(con, variant, deep[1], 40), deep[0]))
    return out


def timing(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def spread(times):
    return (f"{statistics.median(times):.2f} ({min(times):.2f}-{max(times):.2f})"
            if times else "")


def load():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kabir", help="the kabir binary")
    ap.add_argument("--db", help="a database of the exported games (without it, kabir is "
                                 "neither checked nor timed: Spark against DuckDB only)")
    ap.add_argument("--export", required=True, help="the folder written by kabir export")
    ap.add_argument("--doc", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "docs", "SCALE.md"))
    ap.add_argument("--positions", action="store_true",
                    help="the export has the positions table: check it answers the same")
    ap.add_argument("--lines", type=int, default=6,
                    help="positions of each kind per variant to check (0: start positions)")
    ap.add_argument("--variant", default="tamerlane", help="the variant timed with --runs")
    ap.add_argument("--runs", type=int, default=0, help="timed runs of each recipe (0: none)")
    ap.add_argument("--warmup", type=int, default=0,
                    help="untimed runs of each recipe before the timed ones (the check has "
                         "already run each once, which brings the files into the page cache)")
    ap.add_argument("--time", default="duckdb,spark,kabir",
                    help="the engines to time with --runs, of duckdb, spark and kabir")
    ap.add_argument("--skip-check", action="store_true",
                    help="time only (the answers checked by an earlier run)")
    ap.add_argument("--driver-memory", default="4g", help="Spark's memory (one JVM here)")
    args = ap.parse_args()
    if bool(args.kabir) != bool(args.db):
        ap.error("--kabir and --db go together")
    engines = set(args.time.split(","))
    if engines - {"duckdb", "spark", "kabir"} or ("kabir" in engines and not args.db
                                                  and args.runs):
        ap.error("--time takes duckdb, spark and kabir (kabir with --db)")
    dsql = duck.recipes(args.doc)
    missing = set(NEEDED) - set(dsql)
    if missing:
        sys.exit(f"{args.doc} lacks the recipes {sorted(missing)}")
    ssql = spark_recipes(args.doc, dsql)
    export = args.export.rstrip("/")

    # The driver and its executors talk over the loopback interface only.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = (SparkSession.builder.master("local[*]").appName("kabir-scale")
               .config("spark.driver.memory", args.driver_memory)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    spark = Spark(session)
    con = duckdb.connect()
    summary = {"spark": session.version, "duckdb": duckdb.__version__, "positions": 0,
               "games_at_positions": 0, "views": [], "recipes_compared": 0}

    spark_once, duck_once = Remembered(spark), Remembered(DuckDB(con))
    # tests/scale/recipes.py asks kabir the same question once per engine; at a million
    # games `kabir search` of the start position prints a million games each time.
    kabir_answers, ask_kabir = {}, duck.kabir

    def kabir_once(args, *cmd):
        if cmd not in kabir_answers:
            kabir_answers[cmd] = ask_kabir(args, *cmd)
        return kabir_answers[cmd]

    duck.kabir = kabir_once

    def both(name, params=None):
        """A recipe's answer from DuckDB and from Spark, checked to be the same."""
        d = duck.rows(duck_once, dsql[name], params)
        s = duck.rows(spark_once, ssql[name], params)
        same_rows(f"{name} {json.dumps(params or {})}", d, s)
        summary["recipes_compared"] += 1
        return d

    try:
        con.execute(dsql["setup"].replace("'export/", f"'{export}/"))
        spark.run_all(ssql["setup"].replace("'export/", f"'{export}/"))
        views = ["moves"] + (["positions"] if args.positions else [])
        variants = [r[0] for r in con.execute(
            "SELECT DISTINCT variant FROM games ORDER BY variant").fetchall()]
        same("variants, Spark", variants, [r[0] for r in spark.execute(
            "SELECT DISTINCT variant FROM games ORDER BY variant").fetchall()])
        timed = timed_positions(con, args.variant) if args.runs else []
        for view in views:
            if view == "positions":
                con.execute(dsql["setup_positions"].replace("'export/", f"'{export}/"))
                spark.run_all(ssql["setup_positions"].replace("'export/", f"'{export}/"))
            summary["views"].append(view)
            checks = [(v, None, None) for v in variants]
            for v in variants:
                checks += [(v, line, h) for line, h in duck.lines(con, v, args.lines)]
            checks += [(args.variant, line, h) for _, line, h in timed
                       if line is not None and (args.variant, line, h) not in checks]
            for v, line, h in [] if args.skip_check else checks:
                if args.db:
                    # kabir against Spark, field by field as tests/scale/recipes.py does it
                    # against DuckDB; then every column of every row, Spark against DuckDB.
                    games = duck.check_position(args, spark_once, ssql, v, line, h)
                    duck.check_position(args, duck_once, dsql, v, line, h)
                    h = duck.kabir(args, "explore", "--variant", v,
                                   *(["--moves", line] if line else []))["hash"]
                elif h is None:
                    h = con.execute("SELECT start_hash FROM games WHERE variant = $v AND "
                                    "standard_start LIMIT 1", {"v": v}).fetchone()
                    if h is None:
                        continue
                    h = h[0]
                for name in ("explore_position", "explore_moves", "search_position"):
                    d = both(name, {"variant": v, "hash": h})
                    if name == "explore_position" and not args.db:
                        games = d[0]["games"]
                summary["positions"] += 1
                summary["games_at_positions"] += games
                spark_once.forget()
                duck_once.forget()
                kabir_answers.clear()
        if args.db and not args.skip_check:
            duck.check_stats(args, spark_once, ssql)
            duck.check_stats(args, duck_once, dsql)
        for name in ("stats_summary", "stats_terminations", "stats_special",
                     "stats_promotions", "stats_by_variant"):
            if not args.skip_check:
                both(name)
        summary["games"] = con.execute("SELECT count(*) FROM games").fetchone()[0]
        summary["variants"] = len(variants)
    except Mismatch as e:
        sys.exit(f"difference: {e}")
    print(json.dumps(summary), flush=True)
    if not args.runs:
        return

    def kabir_cmd(*cmd):
        def run():
            p = subprocess.run([args.kabir, *cmd, "--db", args.db, "--format", "json"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if p.returncode != 0:
                sys.exit(f"kabir {' '.join(cmd)} failed: {p.stderr.decode()}")
        return run

    def duck_run(name, params):
        return lambda: con.execute(dsql[name], params).fetchall()

    def spark_run(name, params):
        return lambda: spark.execute(ssql[name], params).fetchall()

    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    print(f"\nSpark {session.version} (local[*], {os.cpu_count()} cores), DuckDB "
          f"{duckdb.__version__} ({threads} threads), "
          f"positions from {summary['views'][-1]}; median (fastest-slowest) of {args.runs} "
          f"runs after {args.warmup} untimed")
    print(f"load average before: {load()}", flush=True)
    print("\n| recipe | DuckDB s | Spark s | kabir s | kabir command | rows |")
    print("|---|---|---|---|---|---|")
    jobs = []
    for label, line, h in timed:
        moves = ["--moves", line] if line else []
        params = {"variant": args.variant, "hash": h}
        explore = kabir_cmd("explore", "--variant", args.variant, *moves)
        for name in ("explore_position", "explore_moves"):
            jobs.append((f"{name}, {label}", name, params, explore,
                         "explore" + (" --moves ..." if line else "")))
        fen = ("kabir" in engines
               and duck.kabir(args, "explore", "--variant", args.variant, *moves)["fen"])
        jobs.append((f"search_position, {label}", "search_position", params,
                     kabir_cmd("search", "--variant", args.variant, "--fen", fen,
                               "--limit", "0"), "search --fen ... --limit 0"))
    stats = kabir_cmd("stats")
    for name in ("stats_summary", "stats_terminations", "stats_special", "stats_promotions"):
        jobs.append((name, name, {}, stats, "stats"))
    jobs.append(("stats_by_variant", "stats_by_variant", {}, kabir_cmd("stats", "--by",
                                                                       "variant"),
                 "stats --by variant"))
    kabir_times = {}
    for label, name, params, kabir_run, command in jobs:
        n = len(con.execute(dsql[name], params).fetchall())
        d = timing(duck_run(name, params), args.runs, args.warmup) if "duckdb" in engines else []
        s = timing(spark_run(name, params), args.runs, args.warmup) if "spark" in engines else []
        # One command answers several recipes: it is timed once.
        key = (command, json.dumps(params))
        if key not in kabir_times:
            kabir_times[key] = (timing(kabir_run, args.runs, args.warmup)
                                if "kabir" in engines else [])
        print(f"| {label} | {spread(d)} | {spread(s)} | {spread(kabir_times[key])} | "
              f"`kabir {command}` | {n} |", flush=True)
    print(f"\nload average after: {load()}")
    session.stop()


if __name__ == "__main__":
    main()
