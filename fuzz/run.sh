#!/usr/bin/env bash
# Long fuzzing runs (not part of CI). Runs each named target (default: all five) one after
# the other, at the lowest CPU priority, with the limits the reliability figures are quoted
# at: at most 1 s per input and 2 GB of memory.
#
#   fuzz/run.sh                    # every target, 10 million executions each
#   RUNS=1000000 fuzz/run.sh fen   # one target, fewer executions
#   MAX_TIME=3600 fuzz/run.sh      # stop each target after an hour at the latest
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`); works on the stable toolchain
# (`-s none`: no sanitizer). Logs go to fuzz/logs/TARGET.ROUND.log; the script prints the
# executions per target, the figure for docs/RELIABILITY.md. A crashing input is
# written to fuzz/artifacts/TARGET/; copy it to tests/data/fuzz-regressions/TARGET/ so that
# `cargo test --test notation fuzz_regressions` keeps replaying it.
set -euo pipefail
cd "$(dirname "$0")"

RUNS=${RUNS:-10000000}
MAX_TIME=${MAX_TIME:-0}
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
    TARGETS=(reader fen san_replay grammar variant_definition)
fi

# Seed corpora from the repository's own files (the corpus directories are not committed).
seed() {
    local target=$1
    local dir=corpus/$target
    mkdir -p "$dir"
    case $target in
        reader)
            cp ../samples/*.pgn ../tests/data/notation/* ../tests/data/validate/*.pgn "$dir"/
            ;;
        fen)
            # The first byte picks the variant (in `kabir::variants::builtin_ids()` order).
            local i=0
            local defs=(../crates/kabir-rules/src/variants/defs/*.toml)
            for def in "${defs[@]}"; do
                local start
                start=$(sed -n 's/^start = "\(.*\)"$/\1/p' "$def")
                for b in $(seq 0 $((${#defs[@]} - 1))); do
                    printf "$(printf '\\%03o' "$b")%s" "$start" >"$dir/start-$i-$b"
                done
                i=$((i + 1))
            done
            ;;
        san_replay)
            # The first byte picks a position; the rest is move text.
            local n=0
            for f in ../samples/*.pgn ../tests/data/validate/*.pgn; do
                { printf "$(printf '\\%03o' $((n % 256)))"; sed '/^\[/d' "$f"; } >"$dir/moves-$n"
                n=$((n + 1))
            done
            printf '\x01Nf3 e3 PPe5 K:e2 Rxd7+ a1=Q O-O 1-0' >"$dir/mixed"
            ;;
        grammar)
            # Move text and position strings: the samples, the spec with its examples, and
            # the start positions.
            cp ../samples/*.pgn ../notation-spec/*.md "$dir"/
            for def in ../crates/kabir-rules/src/variants/defs/*.toml; do
                sed -n 's/^start = "\(.*\)"$/\1/p' "$def" >"$dir/start-$(basename "$def" .toml)"
            done
            ;;
        variant_definition)
            cp ../crates/kabir-rules/src/variants/defs/*.toml ../tests/data/variants/*.toml "$dir"/
            ;;
    esac
    # Every input that ever crashed is a seed too.
    if [ -d "../tests/data/fuzz-regressions/$target" ]; then
        cp ../tests/data/fuzz-regressions/"$target"/* "$dir"/ 2>/dev/null || true
    fi
}

# One target until RUNS executions or MAX_TIME seconds: libFuzzer is restarted (the corpus
# carries over) after a timeout that does not reproduce, since on a loaded machine a niced
# process can be starved past the 1 s limit. A crash, or a timeout that reproduces, stops it.
fuzz_target() {
    local target=$1 done_runs=0 started=$SECONDS round=0
    local binary=target/x86_64-unknown-linux-gnu/release/$target
    while [ "$done_runs" -lt "$RUNS" ]; do
        local left_time=0
        if [ "$MAX_TIME" -gt 0 ]; then
            left_time=$((MAX_TIME - (SECONDS - started)))
            [ "$left_time" -gt 0 ] || break
        fi
        round=$((round + 1))
        local log=logs/$target.$round.log
        nice -n 19 cargo fuzz run "$target" -s none --release -- \
            -runs=$((RUNS - done_runs)) -max_total_time="$left_time" -timeout=1 \
            -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 >"$log" 2>&1 || true
        local n
        n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
        done_runs=$((done_runs + ${n:-0}))
        echo "$target round $round: ${n:-0} executions, $done_runs in all"
        local artifact
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        [ -n "$artifact" ] || continue
        if grep -q 'ERROR: libFuzzer: timeout' "$log" &&
            "$binary" -timeout=1 -rss_limit_mb=2048 "$artifact" >/dev/null 2>&1; then
            echo "$target: timeout did not reproduce (machine load), continuing: $artifact"
            continue
        fi
        echo "$target: FAILED on $artifact (see $log)"
        return 1
    done
    echo "$target: $done_runs executions in $((SECONDS - started)) s, no failure"
}

mkdir -p logs
status=0
for target in "${TARGETS[@]}"; do
    seed "$target"
    echo "== $target: $RUNS executions"
    fuzz_target "$target" || status=1
done
exit $status
