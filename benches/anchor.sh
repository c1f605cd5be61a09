#!/bin/bash
# kabir against the chess anchor (benches/chess-anchor: pgn-reader and shakmaty reading,
# resolving and playing every move of a chess file on one thread), on files of the same size:
#
#   benches/anchor.sh [DIR]                 # files and logs in DIR (default a new /tmp dir)
#   RUNS=7 MB=50 CG_MB=4 benches/anchor.sh  # the defaults
#   K=OLD_BINARY benches/anchor.sh          # another kabir build instead of building one
#
# Makes a Shatranj file of MB megabytes (`kabir generate --seed 22`), a Tamerlane file of the
# same size (`--seed 1`) and a chess file of the same size whose games have the Shatranj
# file's mean length (`chess-anchor generate --seed 1`). Then RUNS rounds, each running the
# anchor, `kabir validate -q` on Shatranj and on Tamerlane (RAYON_NUM_THREADS=1: one worker
# thread) in turn: bytes per CPU second (user + sys), min/median/max, and the ratio
# kabir/anchor of each round. Last, callgrind's total instructions (Ir) of the same three on
# files of CG_MB megabytes, per ply, and anchor Ir/ply over kabir Ir/ply. For both ratios
# larger is better for kabir. Needs valgrind and /usr/bin/time.
set -eu

runs=${RUNS:-7}
mb=${MB:-50}
cg_mb=${CG_MB:-4}
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed" >&2; exit 2; }
if [ $# -ge 1 ]; then
    work=$1
    mkdir -p "$work"
else
    work=$(mktemp -d /tmp/kabir-anchor.XXXXXX)
fi
work=$(realpath "$work")

if [ -z "${K:-}" ]; then
    cargo build --release --quiet --manifest-path "$top/Cargo.toml" --bin kabir
    K=$top/target/release/kabir
fi
K=$(realpath "$K")
cargo build --release --quiet --manifest-path "$here/chess-anchor/Cargo.toml"
A=$here/chess-anchor/target/release/chess-anchor

size() { stat -c %s "$1"; }
# plies FILE: the plies of every game of a kabir file.
plies() {
    "$K" validate --format json "$1" | grep -o '"plies":[0-9]*' | awk -F: '{ s += $2 } END { print s }'
}
# make PREFIX BYTES: PREFIX-{shatranj,tamerlane,chess}.pgn of about BYTES bytes each.
make() {
    local prefix=$1 bytes=$2 v seed per games
    for v in shatranj tamerlane; do
        [ $v = shatranj ] && seed=22 || seed=1
        if [ ! -s "$prefix-$v.pgn" ]; then
            "$K" generate --variant $v --games 500 --seed $seed -o "$work/sample.pgn"
            per=$(($(size "$work/sample.pgn") / 500))
            games=$(((bytes + per - 1) / per))
            "$K" generate --variant $v --games $games --seed $seed -o "$prefix-$v.pgn"
        fi
    done
    if [ ! -s "$prefix-chess.pgn" ]; then
        local mean
        mean=$("$K" validate --format json "$prefix-shatranj.pgn" |
            grep -o '"plies":[0-9]*' | awk -F: '{ s += $2; n++ } END { printf "%d", s / n + 0.5 }')
        "$A" generate --seed 1 --plies "$mean" --bytes "$(size "$prefix-shatranj.pgn")" \
            -o "$prefix-chess.pgn"
    fi
}
make "$work/big" $((mb * 1000000))
make "$work/cg" $((cg_mb * 1000000))

# cpu NAME COMMAND...: runs it, appends its megabytes per CPU second to $work/NAME.rates.
cpu() {
    local name=$1 file=${*: -1}
    shift
    RAYON_NUM_THREADS=1 /usr/bin/time -f '%U %S' -o "$work/time" "$@" >/dev/null
    awk -v b="$(size "$file")" '{ printf "%.1f\n", b / 1e6 / ($1 + $2) }' "$work/time" >>"$work/$name.rates"
}
rm -f "$work"/*.rates
for r in $(seq "$runs"); do
    cpu chess "$A" "$work/big-chess.pgn"
    cpu shatranj "$K" validate -q "$work/big-shatranj.pgn"
    cpu tamerlane "$K" validate -q "$work/big-tamerlane.pgn"
done
# spread FILE: min/median/max of a column of numbers.
spread() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%s/%s/%s", v[1], m, v[NR] }'
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $runs rounds; MB per CPU second, min/median/max"
printf '%-10s %12s %s\n' file bytes 'MB/s (cpu)'
for f in chess shatranj tamerlane; do
    printf '%-10s %12s %s\n' "$f" "$(size "$work/big-$f.pgn")" "$(spread "$work/$f.rates")"
done
for v in shatranj tamerlane; do
    paste "$work/$v.rates" "$work/chess.rates" | awk '{ printf "%.3f\n", $1 / $2 }' >"$work/$v-ratio.rates"
    echo "kabir/anchor bytes per CPU second, $v: $(spread "$work/$v-ratio.rates") (min/median/max of rounds)"
done

# ir COMMAND...: callgrind's total instructions, all threads.
ir() {
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
        "$@" >/dev/null 2>"$work/cg.log"
    sed -n 's/^summary: *//p' "$work/cg.out"
}
chess_plies=$("$A" "$work/cg-chess.pgn" | awk '{ print $4 }')
chess_ir=$(ir "$A" "$work/cg-chess.pgn")
anchor_per=$(awk -v i="$chess_ir" -v p="$chess_plies" 'BEGIN { printf "%.1f", i / p }')
printf '%-10s %12s %10s %14s %8s %s\n' file bytes plies Ir Ir/ply anchor/kabir
printf '%-10s %12s %10s %14s %8s\n' chess "$(size "$work/cg-chess.pgn")" "$chess_plies" "$chess_ir" "$anchor_per"
for v in shatranj tamerlane; do
    p=$(plies "$work/cg-$v.pgn")
    i=$(ir "$K" validate -q "$work/cg-$v.pgn")
    awk -v v=$v -v b="$(size "$work/cg-$v.pgn")" -v p="$p" -v i="$i" -v a="$anchor_per" 'BEGIN {
        printf "%-10s %12s %10s %14s %8.1f %.3f\n", v, b, p, i, i / p, a / (i / p) }'
done
