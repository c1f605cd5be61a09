#!/bin/sh
# The Parquet scale benchmark: a game file exported straight to Parquet, timed with its peak
# memory, then each SQL recipe of docs/SCALE.md timed with DuckDB on the export.
#
#   benches/scale_parquet.sh FILE.pgn OUT [RUNS]     (OUT must not hold an export yet)
#
# Builds the release binary with the `parquet` feature, runs
# `kabir export --format parquet --out OUT FILE.pgn` under `/usr/bin/time -v` (wall time, CPU
# time, peak resident memory) and then `benches/scale_parquet.py --export OUT --runs RUNS`
# (5 by default; WARMUP untimed runs first, 1 by default), which prints each recipe's median
# time. The games are taken to be Tamerlane games (as `benches/scale.sh` generates them); set
# VARIANT for another variant.
# Figures are recorded in docs/SCALE.md and docs/PERFORMANCE.md. The export of a million
# generated Tamerlane games is about 8 GB.
set -eu

pgn=${1:?usage: benches/scale_parquet.sh FILE.pgn OUT [RUNS]}
out=${2:?usage: benches/scale_parquet.sh FILE.pgn OUT [RUNS]}
runs=${3:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --features parquet --manifest-path "$root/Cargo.toml"
kabir="$root/target/release/kabir"

echo "load average before the export: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -v "$kabir" export --format parquet --out "$out" -q "$pgn" 2> "$out.time" || {
    cat "$out.time" >&2
    exit 1
}
grep -E 'Elapsed|User time|System time|Percent of CPU|Maximum resident' "$out.time"
echo "load average after the export: $(cut -d' ' -f1-3 /proc/loadavg)"
du -sb "$out"/* | awk '{ printf "%s: %.1f MB\n", $2, $1 / 1e6 }'

python3 "$root/benches/scale_parquet.py" --export "$out" --variant "${VARIANT:-tamerlane}" \
    --runs "$runs" --warmup "${WARMUP:-1}"
