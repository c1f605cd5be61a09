#!/bin/sh
# The Spark check of docs/SCALE.md: the SQL recipes run with Spark SQL (pyspark in local mode)
# on a Parquet export, their answers compared with DuckDB's and with kabir's own
# (`benches/scale_spark.py`). Not run by CI: a Java runtime and pyspark are large and Spark
# is slow to start; CI runs the same recipes with DuckDB.
#
#   benches/scale_spark.sh                    games of every variant, made here, checked
#   benches/scale_spark.sh EXPORT DB [RUNS]   an export and a database of the same games:
#                                             checked, then each recipe timed RUNS times
#
# Installs what is missing: a Java runtime of version 17 or newer (Debian's
# openjdk-17-jre-headless, with apt-get, as root), pyspark 4.0.1 and duckdb 2.0.1 (pip).
# Builds the release binary with the `parquet` feature. Without arguments it makes a database
# of the bundled samples and random games of three variants, exports it with --positions into
# a temporary folder and checks both `positions` views there: each variant's start position
# and LINES (2 by default) positions of each kind tests/scale/recipes.py picks, per variant.
# With EXPORT and DB, the Tamerlane games of benches/scale.sh are taken (set VARIANT for
# another variant): the view made from `moves` and `games` (and `positions` if the export has
# that table) is checked at the start position and the two others benches/scale_parquet.py
# times (LINES, 0 by default, adds positions as above), then each recipe, and the kabir
# command that answers it, is timed RUNS times (3 by default; WARMUP untimed runs first, 0 by
# default: the check has run each once); those are the figures of docs/SCALE.md.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)

java_major() {
    java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}
if ! command -v java >/dev/null || [ "$(java_major)" -lt 17 ]; then
    echo "installing a Java runtime (openjdk-17-jre-headless)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi
java -version 2>&1 | head -n 1
if ! python3 -c 'import pyspark, duckdb, sys
sys.exit(pyspark.__version__ != "4.0.1" or duckdb.__version__ != "2.0.1")' 2>/dev/null; then
    echo "installing pyspark 4.0.1 and duckdb 2.0.1"
    python3 -m pip install --quiet --root-user-action=ignore pyspark==4.0.1 duckdb==2.0.1
fi

cargo build --release --quiet --features parquet --manifest-path "$root/Cargo.toml"
kabir="$root/target/release/kabir"

if [ $# -ge 2 ]; then
    export_dir=$1
    db=$2
    positions=
    [ -d "$export_dir/positions" ] && positions=--positions
    exec python3 "$root/benches/scale_spark.py" --kabir "$kabir" --db "$db" \
        --export "$export_dir" $positions --lines "${LINES:-0}" \
        --variant "${VARIANT:-tamerlane}" --runs "${3:-3}" --warmup "${WARMUP:-0}"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
"$kabir" generate --variant shatranj --games 300 --seed 7 -o "$work/shatranj.pgn"
"$kabir" generate --variant tamerlane --games 200 --seed 7 --tags varied -o "$work/tamerlane.pgn"
"$kabir" generate --variant courier --games 100 --seed 7 -o "$work/courier.pgn"
"$kabir" import --db "$work/games.db" -q "$root"/samples/*.pgn "$work"/*.pgn
"$kabir" export --db "$work/games.db" --format parquet --positions --out "$work/export" -q
python3 "$root/benches/scale_spark.py" --kabir "$kabir" --db "$work/games.db" \
    --export "$work/export" --positions --lines "${LINES:-2}"
