#!/bin/sh
# Reproduces the validation and import figures of docs/PERFORMANCE.md (the peak memory of
# imports on 250 MB, 1 GB and 2 GB inputs: benches/import_memory.sh). Inputs go to $DIR
# (default /tmp/kabir-bench), never the repository.
#
#   benches/validate_import.sh            # wall/CPU time and peak memory (GNU time)
#   CALLGRIND=1 benches/validate_import.sh  # also instructions per ply on 2,000 games
#   BIG=1 benches/validate_import.sh      # also import a 1 GB file (400,000 games)
set -eu
DIR=${DIR:-/tmp/kabir-bench}
mkdir -p "$DIR"
cargo build --release --quiet
K=target/release/kabir
T="/usr/bin/time -f %e_s_wall_%U_s_user_%M_KB_peak"

gen() { # variant games seed file
    [ -s "$DIR/$4" ] || $K generate --variant "$1" --games "$2" --seed "$3" -o "$DIR/$4"
}
gen tamerlane 100000 1 t100k.pgn
gen shatranj 100000 22 s100k.pgn
for f in t100k.pgn s100k.pgn; do
    echo "one core, in memory: reading against replaying"
    cargo bench --quiet --bench replay_file -- "$DIR/$f" 2>/dev/null
    echo "validate $f ($(stat -c %s "$DIR/$f") bytes)"
    $T $K validate -q "$DIR/$f" >/dev/null
    rm -f "$DIR/import.db" "$DIR/import.db-wal" "$DIR/import.db-shm" "$DIR/import.db-journal"
    echo "import $f"
    $T $K import --db "$DIR/import.db" -q "$DIR/$f"
    echo "database: $(stat -c %s "$DIR/import.db") bytes"
done
if [ "${BIG:-0}" = 1 ]; then
    gen tamerlane 300000 2 t300k.pgn
    cat "$DIR/t100k.pgn" "$DIR/t300k.pgn" >"$DIR/t400k.pgn"
    rm -f "$DIR/big.db" "$DIR/big.db-wal" "$DIR/big.db-shm" "$DIR/big.db-journal"
    echo "import t400k.pgn ($(stat -c %s "$DIR/t400k.pgn") bytes)"
    /usr/bin/time -v $K import --db "$DIR/big.db" -q "$DIR/t400k.pgn" 2>&1 |
        grep -E "games read|Elapsed|Maximum resident"
fi
if [ "${CALLGRIND:-0}" = 1 ]; then
    gen tamerlane 2000 1 t2k.pgn
    valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.out" $K validate -q "$DIR/t2k.pgn" \
        >/dev/null 2>"$DIR/cg.log"
    grep refs "$DIR/cg.log"
    plies=$($K validate --format json "$DIR/t2k.pgn" |
        sed -n 's/.*"plies":\([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s}')
    echo "plies: $plies"
    callgrind_annotate --inclusive=yes "$DIR/cg.out" | grep -E "kabir::" | head -30
fi
