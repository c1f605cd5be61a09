#!/bin/sh
# Times the query commands on a database of 100,000 generated Tamerlane games.
#
#   benches/queries.sh [DIR]     (DIR defaults to /tmp/kabir-queries; never the repository)
#
# Builds the release binary, generates the games (seed 1) and imports them once (both are
# skipped when DIR already has them), then runs each query five times and prints the best
# wall time of each: exact-position search and the explorer at the start position and at a
# position 10 plies deep (the position of game 1 after 10 plies), and stats on the whole
# database. Figures are recorded in docs/PERFORMANCE.md.
set -eu

dir=${1:-/tmp/kabir-queries}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
kabir="$root/target/release/kabir"

if [ ! -f "$dir/t.db" ]; then
    [ -f "$dir/t.pgn" ] ||
        "$kabir" generate --variant tamerlane --games 100000 --seed 1 -o "$dir/t.pgn"
    "$kabir" import --quiet --db "$dir/t.db" "$dir/t.pgn"
fi
export KABIR_DB="$dir/t.db"

# The position of game 1 after 10 plies.
deep=$("$kabir" show 1 --ply 10 | sed -n "s/^position: //p")

best() {
    best=""
    for _ in 1 2 3 4 5; do
        start=$(date +%s%N)
        "$kabir" "$@" >/dev/null
        end=$(date +%s%N)
        ms=$(( (end - start) / 1000000 ))
        if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    printf '%6s ms  kabir %s\n' "$best" "$*"
}

"$kabir" stats --format json | sed -n 's/^  "games": \([0-9]*\),/games in the database: \1/p'
best search --variant tamerlane --moves "" --limit 50
best search --variant tamerlane --fen "$deep"
best explore --variant tamerlane
best explore --variant tamerlane --fen "$deep"
best stats
best stats --by opening
best stats --by player
best explore --variant tamerlane --depth 3
