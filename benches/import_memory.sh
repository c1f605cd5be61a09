#!/bin/sh
# Peak memory and time of `kabir import` on generated Tamerlane inputs of about 250 MB, 1 GB
# and 2 GB, each into a fresh database: the figures of docs/RELIABILITY.md ("Memory") and
# docs/PERFORMANCE.md ("Import, end to end").
#
#   benches/import_memory.sh                     # each size once
#   RUNS=3 benches/import_memory.sh              # each size three times
#   BASE=/path/to/other/kabir RUNS=5 SIZES=250M benches/import_memory.sh
#                                                # A/B: the two builds alternated, run by run
#   THREADS="1 2 4 8" SIZES=250M benches/import_memory.sh
#                                                # the peak by number of worker threads
#
# Inputs and databases go to $DIR (default /tmp/kabir-memory), never the repository; it needs
# about 3.3 GB for the inputs and 10 GB for the largest database, which is deleted after each
# run. The 250 MB input is `kabir generate --variant tamerlane --games 100000 --seed 1`; the
# 1 GB and 2 GB inputs are 4 and 8 copies of it, each copy's games with an Event tag of its
# own, so that every game is a distinct record and stored (generating 800,000 games takes
# half an hour on one core). Extra arguments to `kabir import` go in $ARGS.
set -eu
DIR=${DIR:-/tmp/kabir-memory}
RUNS=${RUNS:-1}
SIZES=${SIZES:-250M 1G 2G}
THREADS=${THREADS:-}
mkdir -p "$DIR"
if [ -z "${K:-}" ]; then
    cargo build --release --quiet
    K=target/release/kabir
fi

[ -s "$DIR/t250M.pgn" ] ||
    $K generate --variant tamerlane --games 100000 --seed 1 -o "$DIR/t250M.pgn"
copies() { # count file
    [ -s "$DIR/$2" ] && return
    i=1
    while [ "$i" -le "$1" ]; do
        sed "s/^\[Event \"kabir generate\"\]/[Event \"kabir generate, copy $i\"]/" \
            "$DIR/t250M.pgn"
        i=$((i + 1))
    done >"$DIR/$2.part"
    mv "$DIR/$2.part" "$DIR/$2"
}

# One import: label, binary, input; prints one line of figures.
run() {
    rm -f "$DIR/m.db" "$DIR/m.db-journal" "$DIR/m.db-wal" "$DIR/m.db-shm"
    /usr/bin/time -v "$2" import --db "$DIR/m.db" -q ${ARGS:-} "$3" >"$DIR/summary" 2>"$DIR/time"
    field() { sed -n "s/^.*$1: //p" "$DIR/time"; }
    rss=$(field "Maximum resident set size (kbytes)")
    printf '%-6s %-10s %5d MB  peak %7s KiB  %8s wall  %7s s user  %6s s sys  %7s faults  load %s\n' \
        "$1" "$(basename "$3")" "$(($(stat -L -c %s "$3") / 1000000))" "$rss" \
        "$(field "Elapsed (wall clock) time (h:mm:ss or m:ss)")" "$(field "User time (seconds)")" \
        "$(field "System time (seconds)")" "$(field "Minor (reclaiming a frame) page faults")" \
        "$(cut -d ' ' -f 1 /proc/loadavg)"
    sed 's/^/       /' "$DIR/summary"
    rm -f "$DIR/m.db" "$DIR/m.db-journal" "$DIR/m.db-wal" "$DIR/m.db-shm"
}

for size in $SIZES; do
    case $size in
    250M) ;;
    1G) copies 4 t1G.pgn ;;
    2G) copies 8 t2G.pgn ;;
    *) echo "unknown size $size (250M, 1G or 2G)" >&2 && exit 2 ;;
    esac
    f="$DIR/t$size.pgn"
    i=1
    while [ "$i" -le "$RUNS" ]; do
        if [ -n "$THREADS" ]; then
            for t in $THREADS; do
                RAYON_NUM_THREADS=$t run "t=$t" "$K" "$f"
            done
        else
            run new "$K" "$f"
            if [ -n "${BASE:-}" ]; then
                run base "$BASE" "$f"
            fi
        fi
        i=$((i + 1))
    done
done
