#!/bin/bash
# Instruction counts (callgrind) of `validate`, `import` and `explore` on fixed inputs, for one
# binary or to compare two: a change that should not touch speed must keep each count within
# 2% (instruction counts, unlike times, barely move between runs).
#
#   benches/callgrind_counts.sh BINARY [BINARY...]
#
# The input is made by the first binary: 2,000 Tamerlane games (`generate --seed 1`) and 2,000
# Shatranj games (`--seed 2`). Each binary then runs, under valgrind's callgrind with one worker
# thread (RAYON_NUM_THREADS=1):
#   validate  `validate -q` of both files;
#   import    `import -q` of both files into a new database;
#   explore   `explore --variant tamerlane --depth 3 --format json` on that database.
# Prints one line per command and binary: the instructions executed (Ir), and each count
# relative to the first binary's. Needs valgrind.
set -eu

if [ $# -lt 1 ]; then
    sed -n '2,5s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 2; }
work=$(mktemp -d /tmp/kabir-callgrind.XXXXXX)
trap 'rm -rf "$work"' EXIT

first=$(realpath "$1")
"$first" generate --variant tamerlane --games 2000 --seed 1 -o "$work/tamerlane.pgn"
"$first" generate --variant shatranj --games 2000 --seed 2 -o "$work/shatranj.pgn"

# ir NAME BINARY ARG...: the instruction count of BINARY ARG... (all threads).
ir() {
    local name=$1 bin=$2
    shift 2
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$work/$name.out" \
        "$bin" "$@" >/dev/null 2>"$work/$name.log"
    sed -n 's/^summary: *//p' "$work/$name.out" | awk '{print $1}'
}

declare -A base
printf '%-9s %-14s %16s %9s\n' command binary instructions relative
i=0
for bin in "$@"; do
    i=$((i + 1))
    bin=$(realpath "$bin")
    db="$work/db$i.db"
    for c in validate import explore; do
        case $c in
        validate) n=$(ir "$c$i" "$bin" validate -q "$work/tamerlane.pgn" "$work/shatranj.pgn") ;;
        import) n=$(ir "$c$i" "$bin" import -q --db "$db" "$work/tamerlane.pgn" "$work/shatranj.pgn") ;;
        explore) n=$(ir "$c$i" "$bin" explore --db "$db" --variant tamerlane --depth 3 --format json) ;;
        esac
        if [ "$i" -eq 1 ]; then base[$c]=$n; fi
        rel=$(awk -v a="$n" -v b="${base[$c]}" 'BEGIN { printf "%+.2f%%", (a - b) * 100 / b }')
        printf '%-9s %-14s %16s %9s\n' "$c" "$(basename "$bin")" "$n" "$rel"
    done
done
