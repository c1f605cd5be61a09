#!/bin/sh
# The scale benchmark: N generated Tamerlane games, imported, then each query timed as a whole
# process (see benches/scale.rs for the queries).
#
#   benches/scale.sh N [DIR]      (DIR defaults to /tmp/kabir-scale; never the repository)
#
# Builds the release binary; generates the games (seed 1, `--tags varied`: players, events,
# sites and dates from seeded pools) on all cores, and imports them, both timed and both
# skipped when DIR already has them; then prints each query's 50th and 99th percentile wall
# time. Figures are recorded in docs/PERFORMANCE.md. A million games take about 2.5 GB of
# game text and 13 GB of database in DIR, and the run takes tens of minutes on two cores.
set -eu

n=${1:?usage: benches/scale.sh N [DIR]}
dir=${2:-/tmp/kabir-scale}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
kabir="$root/target/release/kabir"
pgn="$dir/tamerlane-$n.pgn"
db="$dir/tamerlane-$n.db"
T="/usr/bin/time -f %e_s_wall_%U_s_user_%S_s_system_%M_KB_peak"

if [ ! -s "$pgn" ]; then
    echo "generating $n games into $pgn"
    $T "$kabir" generate --variant tamerlane --games "$n" --seed 1 --tags varied -o "$pgn.part"
    mv "$pgn.part" "$pgn"
fi
if [ ! -s "$db" ]; then
    rm -f "$db.part" "$db.part-journal" "$db.part-wal" "$db.part-shm"
    echo "importing into $db"
    $T "$kabir" import --quiet --db "$db.part" "$pgn"
    mv "$db.part" "$db"
fi
mean=$("$kabir" stats --db "$db" --format json |
    sed -n 's/^ *"mean": \([0-9.]*\),/\1/p' | head -1)
bytes=$(stat -c %s "$db")
awk -v b="$bytes" -v n="$n" -v m="$mean" 'BEGIN {
    printf "database: %.0f bytes, %d games of %.1f plies, %.2f bytes per position\n",
        b, n, m, b / (n * (m + 1)) }'

cargo bench --quiet --manifest-path "$root/Cargo.toml" --bench scale -- "$kabir" "$db"
