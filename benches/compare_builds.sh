#!/bin/bash
# Compares two kabir binaries command by command: a restructure must leave every output alone.
#
#   benches/compare_builds.sh OLD_BINARY NEW_BINARY
#   KEEP=1 WORK=/tmp/cmp benches/compare_builds.sh OLD NEW   # keep the scratch directory
#
# Each binary runs in its own scratch directory ($WORK/old, $WORK/new; WORK defaults to a new
# directory under /tmp, removed at the end when everything is the same and KEEP is not 1), as
# `kabir` found on PATH, with an empty environment (no KABIR_DB, NO_COLOR, TERM), on copies of
# samples/ and tests/data/ under in/ and on generated games of every built-in variant (made
# by OLD; NEW's `generate` is compared with OLD's, and both then read OLD's files). For each
# command it compares standard output, standard error, the exit status and the files the
# command writes, byte for byte, and prints one line: `same` or `DIFFERS` with a short diff.
# Exit status: 0 when everything is the same, 1 when anything differs, 2 on a usage error.
#
# What it runs (every subcommand):
#   - kabir with no arguments, --version, help, every command's --help and -h, an unknown
#     command, `variants` (--verbose), `completions` for each shell, `man` and `man --dir`;
#   - `perft` of every built-in variant at depth 3, --divide, --fen, --variant-file;
#   - `generate` of every built-in variant (300 games, varied tags, seed per variant, to a
#     file; 5 games with fixed tags to standard output), --max-plies, --capture-bias,
#     --variant-file;
#   - `diagram` of every variant's start (SVG), with moves, arrows, caption, flip, scale, PNG,
#     a position string, a variant file, a stored game;
#   - `validate` in every --format on samples/*.pgn, each sample file, each game file under
#     tests/data/ (*.pgn, *.bin) alone and all together in every format, --color, --strict,
#     --fix, --rejects, --variant, --variant-file, --max-game-size, standard input, gzip, zstd
#     and UTF-16 input, and the generated games;
#   - `import` into new databases (samples and generated games in batches of 500, then the
#     same again as duplicates with --format json, invalid games with --rejects, --duplicates
#     moves, --variant, --variant-file, standard input, compressed input, --max-game-size),
#     each database compared by `sqlite3 .dump` and byte for byte;
#   - the query list on the main database: `search` (every condition, --fen, --moves,
#     --exact-order, every --sort, --reverse, --limit, --offset, every --format), `explore`
#     (every variant's start, moves, position strings, --depth, --breadth, --max-nodes,
#     --examples, every --format, --diagram), `stats` (every --by, every --format,
#     --opening-plies, --top, --chart SVG and PNG), `show` (several games and plies, --ascii,
#     --flip, --diagram, --format json), `export` (every format, to standard output and -o),
#     `diagram --db-game`, and `serve` (pages and JSON API fetched with curl: status, type and
#     body), plus errors (unknown game, illegal move, bad date, missing database);
#   - the same query list with both binaries on a copy of the database OLD made (a database
#     made by the old build must open and answer identically), then an import into it;
#   - the databases of tests/data/db/ (older schemas): queries, then `index rebuild`;
#   - `index rebuild` (a check), `index rebuild -q` and `index compact` on copies of the main
#     database, compared by dump and by the same queries.
#
# Normalised before comparing, because they differ between runs or builds by nature (nothing
# else is): the scratch directory and the binaries' paths; import's "time: S s (N games/s)"
# and JSON "seconds"; the "in S s" of `index rebuild` and `index compact`; the progress lines
# `kabir import: ... games/s)` printed every 5 seconds when standard error is not a terminal;
# the port `serve --port 0` picks. The databases hold no time stamp: their dumps are compared
# as they are.
#
# Needs bash, GNU sed, diff, cmp, curl, gzip, zstd and iconv (inputs in a format whose tool is
# missing are skipped); sqlite3 for the dumps (without it the databases are compared by bytes
# and by the query answers). Takes a few minutes on two cores; run it with `nice` on a shared
# machine.
set -eu

if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
    sed -n '2,4s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
old_bin=$(realpath "$1")
new_bin=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d /tmp/kabir-compare.XXXXXX)}
mkdir -p "$work"
work=$(realpath "$work")
n=0
differs=0

# The inputs, the same for both: samples, tests/data and encoded copies of a sample.
rm -rf "$work/in" "$work/old" "$work/new"
mkdir -p "$work/in/enc" "$work/in/gen"
cp -r "$root/samples" "$work/in/samples"
cp -r "$root/tests/data" "$work/in/data"
gzip -n -c "$root/samples/tamerlane.pgn" >"$work/in/enc/tamerlane.pgn.gz"
if command -v zstd >/dev/null; then
    zstd -q -c "$root/samples/shatranj.pgn" >"$work/in/enc/shatranj.pgn.zst"
fi
if command -v iconv >/dev/null; then
    iconv -f UTF-8 -t UTF-16 "$root/samples/grand-shatranj-nw.pgn" >"$work/in/enc/grand-utf16.pgn"
fi
for side in old new; do
    mkdir -p "$work/$side/bin" "$work/$side/out" "$work/$side/gen"
    cp -r "$work/in" "$work/$side/in"
done
ln -s "$old_bin" "$work/old/bin/kabir"
ln -s "$new_bin" "$work/new/bin/kabir"

# k SIDE ARG...: kabir ARG... as SIDE runs it (in its directory, empty environment).
k() {
    local side=$1
    shift
    (cd "$work/$side" && exec env -i PATH="$work/$side/bin:/usr/bin:/bin" kabir "$@")
}

# Quotes a string for sed's regular expressions.
re() { printf '%s' "$1" | sed 's/[][\.*^$|]/\\&/g'; }

# normalise SIDE FILE: replaces what differs by nature (see the header).
normalise() {
    sed -i \
        -e "s|$(re "$work/$1")|<DIR>|g" -e "s|$(re "$work")|<WORK>|g" \
        -e "s|$(re "$old_bin")|kabir|g" -e "s|$(re "$new_bin")|kabir|g" \
        -e 's/time: [0-9.]* s ([0-9]* games\/s)/time: <S> s (<N> games\/s)/' \
        -e 's/"seconds":[0-9.eE+-]*/"seconds":<S>/g' \
        -e 's/ in [0-9.]* s\([;,]\|$\)/ in <S> s\1/' \
        -e '/^kabir [a-z]*: .*games\/s)$/d' \
        -e 's|http://127\.0\.0\.1:[0-9]*|http://127.0.0.1:<PORT>|g' \
        "$2"
}

# differ A B: prints a short account of how files (or folders) A and B differ, if they do.
differ() {
    if [ ! -e "$1" ] && [ ! -e "$2" ]; then
        return 0
    elif [ ! -e "$1" ] || [ ! -e "$2" ]; then
        echo "only one of them exists: ${1#"$work/"} ${2#"$work/"}"
    elif [ -d "$1" ] || [ -d "$2" ]; then
        diff -r "$1" "$2" | head -n 10 || true
    elif ! cmp -s "$1" "$2"; then
        if grep -Iq . "$1" 2>/dev/null || [ ! -s "$1" ]; then
            diff -u "$1" "$2" | sed -n '3,12p' || true
        else
            cmp "$1" "$2" || true
        fi
    fi
}

# report LABEL PART...: PART is "what old-path new-path"; one line for the label.
report() {
    local label=$1 what a b d found="" details=""
    shift
    for part in "$@"; do
        read -r what a b <<<"$part"
        d=$(differ "$a" "$b")
        if [ -n "$d" ]; then
            found="$found$what, "
            details="$details$(printf '%s\n' "--- $what" "$d" | sed 's/^/    /')
"
        fi
    done
    if [ -z "$found" ]; then
        echo "same     $label"
    else
        differs=$((differs + 1))
        echo "DIFFERS  $label (${found%, })"
        printf '%s' "$details"
    fi
}

# run [-w FILE]... [-i FILE] ARG...: kabir ARG... with both binaries (standard input from
# in/FILE with -i), compared with the files FILE (relative to the scratch directory) it writes.
run() {
    local writes=() stdin="" input side o rc
    while :; do
        case ${1-} in
        -w) writes+=("$2"); shift 2 ;;
        -i) stdin=$2; shift 2 ;;
        *) break ;;
        esac
    done
    n=$((n + 1))
    for side in old new; do
        o="$work/$side/out/$n"
        for f in "${writes[@]}"; do rm -rf "${work:?}/$side/$f"; done
        input=/dev/null
        if [ -n "$stdin" ]; then input=$work/$side/$stdin; fi
        k "$side" "$@" <"$input" >"$o.out" 2>"$o.err" && rc=0 || rc=$?
        echo "$rc" >"$o.status"
        printf '%s\n' "$*" >"$o.cmd"
        normalise "$side" "$o.out"
        normalise "$side" "$o.err"
    done
    local parts=() p="$work/old/out/$n" q="$work/new/out/$n"
    parts+=("stdout $p.out $q.out" "stderr $p.err $q.err" "status $p.status $q.status")
    for f in "${writes[@]}"; do parts+=("$f $work/old/$f $work/new/$f"); done
    report "kabir $*" "${parts[@]}"
}

# same_db FILE: the database FILE of both sides, by its SQL dump and its bytes.
same_db() {
    local side parts=()
    n=$((n + 1))
    if command -v sqlite3 >/dev/null; then
        for side in old new; do
            sqlite3 "$work/$side/$1" .dump >"$work/$side/out/$n.dump" 2>&1 || true
        done
        parts+=("dump $work/old/out/$n.dump $work/new/out/$n.dump")
    fi
    parts+=("bytes $work/old/$1 $work/new/$1")
    report "database $1" "${parts[@]}"
}

# both CMD...: runs a shell command in each scratch directory (setting up, not compared).
both() {
    local side
    for side in old new; do (cd "$work/$side" && eval "$*"); done
}

# serve DB PATH...: `kabir serve --db DB --port 0` with both binaries; fetches each PATH and
# compares status, content type and body, then stops the servers and compares their output.
serve() {
    local db=$1 side pid url i
    shift
    n=$((n + 1))
    local tag=$n pids=()
    for side in old new; do
        (cd "$work/$side" && exec env -i PATH="$work/$side/bin:/usr/bin:/bin" \
            kabir serve --db "$db" --port 0 >"out/$tag.out" 2>"out/$tag.err") &
        pids+=("$!")
    done
    for side in old new; do
        for _ in $(seq 100); do
            grep -q http "$work/$side/out/$tag.out" && break
            sleep 0.1
        done
        url=$(grep -o 'http://[^ ]*' "$work/$side/out/$tag.out" | head -n 1)
        url=${url%/}
        i=0
        for path in "$@"; do
            i=$((i + 1))
            curl -s -o "$work/$side/out/$tag.body$i" \
                -w '%{http_code} %{content_type} %{redirect_url}\n' "$url$path" \
                >"$work/$side/out/$tag.get$i" || echo "curl failed: $?" >>"$work/$side/out/$tag.get$i"
            cat "$work/$side/out/$tag.body$i" >>"$work/$side/out/$tag.get$i"
            normalise "$side" "$work/$side/out/$tag.get$i"
        done
    done
    i=0
    for path in "$@"; do
        i=$((i + 1))
        report "GET $path (kabir serve --db $db)" "answer $work/old/out/$tag.get$i $work/new/out/$tag.get$i"
    done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    for side in old new; do
        normalise "$side" "$work/$side/out/$tag.out"
        normalise "$side" "$work/$side/out/$tag.err"
    done
    report "kabir serve --db $db --port 0" "stdout $work/old/out/$tag.out $work/new/out/$tag.out" \
        "stderr $work/old/out/$tag.err $work/new/out/$tag.err"
}

cd "$work/old"
variants=$(k old variants | awk '{print $1}')
mini=in/data/variants/mini.toml
echo "comparing $old_bin (old) with $new_bin (new) in $work"

echo "== the command line"
run
run --version
run -V
run --help
run help
run help import
run nosuch
run validate
for c in variants perft generate validate import diagram search explore stats index \
    export show serve completions man "index rebuild" "index compact"; do
    # shellcheck disable=SC2086 # "index rebuild" is two words
    run $c --help
    # shellcheck disable=SC2086
    run $c -h
done
run variants
run variants --verbose
for shell in bash zsh fish powershell elvish; do run completions "$shell"; done
run completions nosh
run man
run -w man man --dir man

echo "== perft"
for v in $variants; do run perft --variant "$v" 3; done
run perft --variant shatranj --divide 2
run perft --variant tamerlane --divide 2
run perft --variant tamerlane --fen "PP'10/6k5/11/11/3r1n5/11/11/11/5K6/11 w - - 0 1" 3
run perft --variant-file "$mini" 4
run perft --variant-file "$mini" --divide 2
run perft --variant shatranj --fen "not a position" 1
run perft --variant nosuch 1

echo "== generate"
seed=0
for v in $variants; do
    seed=$((seed + 1))
    run -w "gen/$v.pgn" generate --variant "$v" --games 300 --seed "$seed" --tags varied -o "gen/$v.pgn"
    run generate --variant "$v" --games 5 --seed 99
done
run generate --variant tamerlane --games 20 --seed 3 --max-plies 60 --capture-bias 0.2
run -w gen/mini.pgn generate --variant-file "$mini" --games 100 --seed 4 -o gen/mini.pgn
run generate --variant nosuch
run generate --variant shatranj --capture-bias 2
# From here on both read the games OLD generated.
for side in old new; do cp "$work/old/gen/"*.pgn "$work/$side/in/gen/"; done
gen=()
for v in $variants; do gen+=("in/gen/$v.pgn"); done

echo "== diagram"
for v in $variants; do run -w "d-$v.svg" diagram --variant "$v" -o "d-$v.svg"; done
run diagram --variant shatranj
run -w d-moves.svg diagram --variant tamerlane --moves "f4 f7 e4 e7 Nc4" --arrow c7d5 \
    --arrow k2wc --caption "Two knights" --flip -o d-moves.svg
run -w d-moves.png diagram --variant tamerlane --moves "f4 f7 e4" -o d-moves.png
run -w d-scale.png diagram --variant shatranj --moves "e3 e6" --scale 2 -o d-scale.png
run -w d-fen.svg diagram --fen "PP'10/6k5/11/11/3r1n5/11/11/11/5K6/11 w - - 0 1" -o d-fen.svg
run -w d-grand.svg diagram --fen "e8l/1bajkmhon1/pppppppppp/10/10/10/10/PPPPPPPPPP/1BAJKMHON1/E8L w - - 0 1" -o d-grand.svg
run -w d-mini.svg diagram --variant-file "$mini" --moves "b2b3" -o d-mini.svg
run diagram --variant shatranj --moves "e3 e3"
run diagram --variant shatranj -o d.gif

echo "== validate"
for f in in/samples/*.pgn; do run validate "$f"; done
for fmt in human table json csv; do run validate --format "$fmt" in/samples/*.pgn; done
mapfile -t data < <(cd "$work/old" && find in/data -type f \( -name '*.pgn' -o -name '*.bin' \) | LC_ALL=C sort)
for f in "${data[@]}"; do run validate "$f"; done
for fmt in human table json csv; do run validate --format "$fmt" "${data[@]}"; done
run validate --color always in/data/cli/shatranj-problems.pgn in/data/cli/tamerlane-problems.pgn
run validate --color never --format table in/data/cli/tamerlane-problems.pgn
run validate -q "${data[@]}"
run validate --strict in/data/cli/coordinates.pgn
run validate --strict --format json "${data[@]}"
run -w fixed.pgn -w fixed.rejects.pgn validate --fix fixed.pgn "${data[@]}"
run -w fixed2.pgn -w rejects2.pgn validate --fix fixed2.pgn --rejects rejects2.pgn in/samples/*.pgn in/data/validate/*.pgn
run -w rejects3.pgn validate --rejects rejects3.pgn "${data[@]}"
run -w fixed4.pgn validate -q --fix fixed4.pgn in/samples/*.pgn
run validate --fix in/samples/shatranj.pgn in/samples/shatranj.pgn
run validate --variant shatranj in/data/validate/missing-variant.pgn
run validate --variant-file "$mini" in/gen/mini.pgn
run validate --max-game-size 4K in/gen/tamerlane.pgn
run -i in/samples/tamerlane.pgn validate -
run validate in/enc/*
run validate no-such-file.pgn
run validate -q "${gen[@]}"
run validate --format csv "${gen[@]}"
run validate --format json "${gen[@]}"

echo "== import"
run import -q --db main.db --batch 500 in/samples/*.pgn "${gen[@]}"
run import --db main.db --format json in/samples/*.pgn
run -w rejects.pgn import --db main.db --color never --rejects rejects.pgn in/data/validate/*.pgn
run import --db main.db --duplicates moves in/data/db/same-moves.pgn
run import --db main.db --color always --strict in/data/cli/coordinates.pgn in/data/cli/shatranj-problems.pgn
same_db main.db
run import --db samples.db in/samples/*.pgn
same_db samples.db
run import --db json.db --format json in/samples/*.pgn in/data/validate/*.pgn in/samples/shatranj.pgn
same_db json.db
run import -q --db variant.db --variant shatranj in/data/validate/missing-variant.pgn
same_db variant.db
run import -q --db mini.db --variant-file "$mini" in/gen/mini.pgn
same_db mini.db
run -i in/samples/tamerlane.pgn import --db stdin.db -
same_db stdin.db
run import --db enc.db in/enc/*
same_db enc.db
run -w big.rejects.pgn import -q --db big.db --max-game-size 4K --batch-memory 1 --rejects big.rejects.pgn in/gen/tamerlane.pgn
same_db big.db
run import --db main.db --rejects in/samples/shatranj.pgn in/samples/shatranj.pgn
run import --db no-such-dir/x.db in/samples/shatranj.pgn

# The game ids and positions the queries use, from OLD's database (the same input for both).
cd "$work/old"
id_of() { k old search --db main.db --variant "$1" --offset "$2" --limit 1 --format csv | sed -n '2s/,.*//p'; }
fen_of() { k old show --db main.db "$1" --ply "$2" | sed -n 's/^position: //p'; }
t_id=$(id_of tamerlane 100)
g_id=$(id_of grand-shatranj-nw 50)
s_id=$(id_of shatranj 10)
t_fen=$(fen_of "$t_id" 10)
g_fen=$(fen_of "$g_id" 6)
s_fen=$(fen_of "$s_id" 4)
player=$(k old show --db main.db "$t_id" --format json | sed -n 's/^  "white": "\([^,"]*\).*/\1/p' | head -n 1)

# queries DB: the query list on the database DB (both binaries, each on its own copy).
queries() {
    local db=$1 t=${1%.db}
    echo "== search ($db)"
    run search --db "$db"
    for fmt in json csv pgn; do run search --db "$db" --variant tamerlane --limit 20 --format "$fmt"; done
    run search --db "$db" --limit 0 --format csv
    run search --db "$db" --player "$player"
    run search --db "$db" --player "$player" --color white --format json
    run search --db "$db" --player timur --color black
    run search --db "$db" --event cup --site a --format csv
    run search --db "$db" --from 1950 --to 1960.06 --sort date --format csv
    run search --db "$db" --from 2021-03-14 --to 2021/03/14
    run search --db "$db" --from 2021.02.30
    for r in 1-0 0-1 1/2-1/2 '*' white draw; do run search --db "$db" --result "$r" --limit 5; done
    for term in checkmate stalemate bare-king citadel-draw other; do
        run search --db "$db" --termination "$term" --format csv --limit 0
    done
    run search --db "$db" --min-plies 100 --max-plies 200 --limit 0 --format csv
    for w in swap lift relocation promotion arrival adventitious-king citadel-draw; do
        run search --db "$db" --with "$w" --format csv --limit 0
    done
    run search --db "$db" --with lift --with swap --format json
    run search --db "$db" --promotion-to vizir --format csv --limit 0
    run search --db "$db" --variant shatranj --promotion-to F --format csv --limit 0
    run search --db "$db" --variant shatranj --moves "e3 e6" --format csv --limit 0
    run search --db "$db" --variant shatranj --moves "1. e3 e6 2. Nf3" --exact-order
    run search --db "$db" --variant tamerlane --moves "f4 f7"
    run search --db "$db" --variant tamerlane --fen "$t_fen" --format json
    run search --db "$db" --variant grand-shatranj-nw --fen "$g_fen" --format csv
    run search --db "$db" --variant shatranj --fen "$s_fen" --format pgn
    run search --db "$db" --variant timur --moves ""
    for key in id date white black event site result plies; do
        run search --db "$db" --sort "$key" --limit 30 --format csv
    done
    run search --db "$db" --sort plies --reverse --offset 5 --limit 10
    run search --db "$db" --offset 100000
    run search --db "$db" --moves "e3"
    run search --db "$db" --variant shatranj --moves "e3 Ke9"
    run search --db no-such.db

    echo "== explore ($db)"
    for v in $variants; do run explore --db "$db" --variant "$v"; done
    run explore --db "$db" --variant shatranj --moves "e3"
    for fmt in json csv; do run explore --db "$db" --variant shatranj --moves "e3 e6" --format "$fmt"; done
    run explore --db "$db" --variant tamerlane --depth 3
    run explore --db "$db" --variant tamerlane --depth 2 --breadth 5 --format json
    run explore --db "$db" --variant tamerlane --depth 2 --breadth 2 --format csv
    run explore --db "$db" --variant grand-shatranj-nw --depth 8 --max-nodes 40 --format json
    run explore --db "$db" --variant shatranj --depth 6 --max-nodes 25
    run explore --db "$db" --variant tamerlane --examples 0 --format json
    run explore --db "$db" --variant tamerlane --moves "f4 f7 e4 e7" --examples 10 --format json
    run explore --db "$db" --variant tamerlane --fen "$t_fen" --format json
    run explore --db "$db" --variant grand-shatranj-nw --fen "$g_fen"
    run explore --db "$db" --variant shatranj --fen "$s_fen" --depth 2 --format csv
    run -w "$t-explore.svg" explore --db "$db" --variant tamerlane --diagram "$t-explore.svg"
    run -w "$t-explore.png" explore --db "$db" --variant shatranj --moves e3 --diagram "$t-explore.png"
    run explore --db "$db"
    run explore --db "$db" --variant shatranj --moves "e3 e3"
    run explore --db "$db" --variant tamerlane --depth 41

    echo "== stats ($db)"
    run stats --db "$db"
    for fmt in json csv; do run stats --db "$db" --format "$fmt"; done
    for by in variant player termination year opening result; do
        run stats --db "$db" --by "$by"
        run stats --db "$db" --by "$by" --format json
        run stats --db "$db" --by "$by" --format csv
    done
    run stats --db "$db" --variant tamerlane --by opening --opening-plies 6 --top 5
    run stats --db "$db" --player "$player" --by year --format json
    run stats --db "$db" --result draw --by termination --format csv
    run stats --db "$db" --with swap --with lift
    run -w "$t-chart.svg" stats --db "$db" --chart "$t-chart.svg"
    run -w "$t-chart.png" stats --db "$db" --variant shatranj --chart "$t-chart.png"
    run stats --db "$db" --top 10001

    echo "== show ($db)"
    for id in 1 2 3 4 5 6 11 12 13 14 15 16 17 18 19 20 "$t_id" "$g_id" "$s_id"; do
        run show --db "$db" "$id"
    done
    for id in 1 11 13 17 "$t_id"; do run show --db "$db" "$id" --format json; done
    run show --db "$db" 11 --ply 0
    run show --db "$db" 11 --ply 5 --ascii
    run show --db "$db" 13 --ply 3 --flip
    run show --db "$db" 17 --ply 2 --format json
    run show --db "$db" "$t_id" --ply 50 --ascii --flip
    run -w "$t-show.svg" show --db "$db" 11 --ply 4 --diagram "$t-show.svg"
    run -w "$t-show.png" show --db "$db" "$g_id" --diagram "$t-show.png"
    run show --db "$db" 11 --ply 9999
    run show --db "$db" 999999

    echo "== export ($db)"
    for fmt in pgn csv json; do
        run export --db "$db" --format "$fmt"
        run -w "$t-export.$fmt" export --db "$db" --format "$fmt" -o "$t-export.$fmt"
    done
    run export --db "$db" --variant tamerlane --with swap
    run export --db "$db" --variant shatranj --moves "e3" --format csv
    run export --db "$db" --variant shatranj --moves "e3 e6 Nf3" --exact-order --format json
    run export --db "$db" --player "$player" --format json
    run -w "$t-parquet" export --db "$db" --format parquet --out "$t-parquet"
    run export --db "$db" -o "$db"

    echo "== diagram of stored games ($db)"
    run -w "$t-game.svg" diagram --db "$db" --db-game 11 --ply 6 -o "$t-game.svg"
    run -w "$t-game.png" diagram --db "$db" --db-game "$t_id" -o "$t-game.png"
    run diagram --db "$db" --db-game 999999

    echo "== serve ($db)"
    serve "$db" / /explore "/explore?variant=tamerlane" "/explore?variant=tamerlane&moves=f4+f7" \
        "/explore?variant=shatranj&fen=$(printf '%s' "$s_fen" | sed 's/ /+/g; s|/|%2F|g')" \
        "/api/explore?variant=tamerlane&moves=f4+f7" "/api/explore?variant=shatranj&depth=3" \
        "/api/explore?variant=grand-shatranj-nw&depth=4&max-nodes=30" \
        /game/11 "/game/11?ply=5" "/game/$t_id?ply=20" "/api/game/11?ply=5" "/api/game/$g_id" \
        "/search?variant=tamerlane&with=swap" "/api/games?variant=tamerlane&limit=10" \
        "/api/games?player=$(printf '%s' "$player" | sed 's/ /+/g; s/,/%2C/g')&sort=date" \
        "/api/games?variant=shatranj&moves=e3+e6&exact-order=1" \
        /stats "/stats?by=variant" "/api/stats?by=termination" "/api/stats?by=opening&top=5" \
        /assets/style.css /assets/app.js /assets/favicon.svg \
        /nosuch "/api/explore?variant=nosuch" /api/game/999999 "/api/games?limit=0" "/game/11?ply=9999"
}

queries main.db

echo "== a database made by the old build, read and extended by the new one"
for side in old new; do cp "$work/old/main.db" "$work/$side/cross.db"; done
queries cross.db
run import --db cross.db --format json in/samples/tamerlane.pgn in/data/db/same-moves.pgn in/enc/*
same_db cross.db
run index rebuild --db cross.db
same_db cross.db

echo "== databases of older schemas (tests/data/db)"
for old_db in v1 v4; do
    both cp "in/data/db/$old_db.db" "$old_db.db"
    run search --db "$old_db.db" --format csv
    run search --db "$old_db.db" --variant tamerlane --moves "f4 f7"
    run explore --db "$old_db.db" --variant tamerlane --format json
    run stats --db "$old_db.db" --by variant
    run show --db "$old_db.db" 1 --format json
    run export --db "$old_db.db" --format json
    run index rebuild --db "$old_db.db"
    same_db "$old_db.db"
    run search --db "$old_db.db" --player a
    run explore --db "$old_db.db" --variant tamerlane --format json
    run stats --db "$old_db.db" --by variant
done

echo "== index"
both cp main.db index.db
run index rebuild --db index.db
same_db index.db
run index rebuild -q --db index.db
run index compact --db index.db
same_db index.db
run index compact --db index.db
run search --db index.db --variant tamerlane --fen "$t_fen" --format csv
run explore --db index.db --variant tamerlane --depth 3 --format json
run explore --db index.db --variant shatranj --moves "e3 e6" --format json
run stats --db index.db --format json
run index rebuild --db index.db
run index rebuild --db no-such.db
run index compact --db no-such.db

echo "$n comparisons, $differs differ"
if [ "$differs" -ne 0 ]; then
    echo "the scratch directory is kept: $work"
    exit 1
fi
if [ "${KEEP:-0}" != 1 ] && [ -z "${WORK:-}" ]; then rm -rf "$work"; fi
