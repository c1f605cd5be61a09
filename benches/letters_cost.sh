#!/bin/bash
# What reading piece letters costs, in instructions (callgrind, one worker thread):
#
#   benches/letters_cost.sh OLD_BINARY NEW_BINARY
#
# 1. `validate -q` of a fixed Tamerlane file (2,000 games, `generate --seed 1` by OLD) with
#    each binary: the variants' own letters must read as fast as before (within 1%).
# 2. `validate -q` with NEW of 2,000 Shatranj games (`--seed 2`), once as written and once
#    rewritten in German letters (S, L, D, T) and read with `--piece-letters de`: the option
#    may cost at most 10%.
# Needs valgrind and python3.
set -eu

if [ $# -ne 2 ]; then
    sed -n '2,10s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 2; }
work=$(mktemp -d /tmp/kabir-letters.XXXXXX)
trap 'rm -rf "$work"' EXIT
old=$(realpath "$1")
new=$(realpath "$2")

"$old" generate --variant tamerlane --games 2000 --seed 1 -o "$work/tamerlane.pgn"
"$new" generate --variant shatranj --games 2000 --seed 2 -o "$work/shatranj.pgn"
# The piece letters of the moves (never of the tags) in German.
python3 - "$work/shatranj.pgn" "$work/shatranj-de.pgn" <<'PY'
import re, sys
german = {"N": "S", "B": "L", "Q": "D", "R": "T", "K": "K"}
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as out:
    for line in src:
        if not line.startswith("["):
            line = re.sub(r"(?<![A-Za-z0-9])([NBQRK])(?=[a-h1-8x])",
                          lambda m: german[m.group(1)], line)
        out.write(line)
PY

# ir BINARY ARG...: the instructions executed by BINARY ARG... (all threads).
ir() {
    local bin=$1
    shift
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
        "$bin" "$@" >/dev/null 2>"$work/cg.log"
    sed -n 's/^summary: *//p' "$work/cg.out" | awk '{print $1}'
}

base=$(ir "$old" validate -q "$work/tamerlane.pgn")
now=$(ir "$new" validate -q "$work/tamerlane.pgn")
awk -v a="$base" -v b="$now" 'BEGIN {
    printf "tamerlane, own letters   old %14d  new %14d  new/old %.4f\n", a, b, b / a }'
plain=$(ir "$new" validate -q "$work/shatranj.pgn")
german=$(ir "$new" validate -q --piece-letters de "$work/shatranj-de.pgn")
awk -v a="$plain" -v b="$german" 'BEGIN {
    printf "shatranj, new binary     own %14d  de  %14d  de/own  %.4f\n", a, b, b / a }'
