#!/bin/sh
# Hostile inputs at doubling sizes: the reliability figures of docs/RELIABILITY.md ("Hostile
# inputs"). Each kind of input is made at sizes N, 2N and 4N, and `kabir validate` and
# `kabir import` (into a new database) run on each under GNU time; time should about double
# from one size to the next, and memory stay bounded. Inputs go to $DIR (default
# /tmp/kabir-hostile), never the repository.
#
#   benches/hostile.sh                 # every kind
#   benches/hostile.sh depth comment   # some kinds
#   KABIR=path/to/kabir benches/hostile.sh   # another build (default: a release build here)
#
# Kinds (N):
#   tagline   N tag pairs on one line (N = 100,000: a 1.8 MB line)
#   tags      one game of N tag pairs, one a line (N = 100,000)
#   depth     variations nested N deep, a move in each (N = 100,000)
#   comment   one comment of N bytes (N = 4 MB) on one line
#   commentlines  one comment of N bytes (N = 4 MB) in lines, every other one starting with
#             '[' (where blocks of the parallel reader are cut)
#   variations  a game of N plies with a variation after every other move (N = 50,000)
#   checks    a game of N plies, every other one a check written without '+' (N = 50,000)
#   oneline   N games written one a line, tags and moves (N = 250,000: 11 MB)
#   blank     N line ends and nothing else (N = 64 MB)
#   zeros     N zero bytes (N = 64 MB)
#   huge      a game whose comment is N bytes (N = 32 MB, over the limit on one game),
#             between two small games
#   gzbomb    gzip of a game whose comment is N bytes (N = 256 MB: a file of about 0.3 MB)
#   duptags   N copies of one tag on one line (N = 16,000): validate and import show each
#             problem (not -q)
#   tagcomment  a comment of N lines that are tag pairs (N = 45,000): problems shown
set -eu
DIR=${DIR:-/tmp/kabir-hostile}
mkdir -p "$DIR"
if [ -z "${KABIR:-}" ]; then
    cargo build --release --quiet
    KABIR=target/release/kabir
fi
KINDS=${*:-tagline tags depth comment commentlines variations checks oneline blank zeros huge gzbomb duptags tagcomment}

# Writes input $1 at size $2 to $3.
make_input() {
    case $1 in
    tagline) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"]\n"
        for (i = 0; i < n; i++) printf "[T%d \"v%d\"] ", i, i
        printf "\n\n1. e3 e6 *\n" }' ;;
    tags) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"]\n"
        for (i = 0; i < n; i++) printf "[T%d \"v%d\"]\n", i, i
        printf "\n1. e3 e6 *\n" }' ;;
    depth) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"]\n\n1. e3 "
        for (i = 0; i < n; i++) printf "(1. e3 "
        for (i = 0; i < n; i++) printf ")"
        printf " e6 *\n" }' ;;
    comment) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"]\n\n1. e3 {"
        for (i = 0; i < n / 16; i++) printf "no play at all. "
        printf "} e6 *\n" }' ;;
    commentlines) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"]\n\n1. e3 {\n"
        for (i = 0; i < n / 16; i++) printf "[a line\nof text\n"
        printf "} e6 *\n" }' ;;
    variations) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"]\n\n"
        for (m = 1; m <= n / 2; m++) {
            if (m % 2) printf "%d. Nf3 (%d. Nh3) Nf6 (%d... Nh6) ", m, m, m
            else printf "%d. Ng1 Ng8\n", m
        }
        printf "*\n" }' ;;
    checks) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"]\n[FEN \"4k3/7p/7P/8/8/8/8/R6K w - - 0 1\"]\n\n"
        for (m = 1; m <= n / 2; m++) {
            if (m % 2) printf "%d. Ra8 Ke7 ", m
            else printf "%d. Ra7 Ke8\n", m
        }
        printf "*\n" }' ;;
    oneline) awk -v n="$2" 'BEGIN {
        for (i = 0; i < n; i++) printf "[Event \"%d\"] [Variant \"Shatranj\"] 1. e3 *\n", i }' ;;
    blank) head -c "$2" /dev/zero | tr '\0' '\n' ;;
    zeros) head -c "$2" /dev/zero ;;
    huge) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"]\n\n1. e3 e6 *\n\n[Variant \"shatranj\"]\n\n1. e3 {"
        for (i = 0; i < n / 16; i++) printf "no play at all. "
        printf "} e6 *\n\n[Variant \"shatranj\"]\n\n1. e3 e6 *\n" }' ;;
    gzbomb) { printf '[Variant "shatranj"]\n\n1. e3 {'
        head -c "$2" /dev/zero | tr '\0' 'x'
        printf '} e6 *\n\n[Variant "shatranj"]\n\n1. e3 e6 *\n'; } | gzip -1 ;;
    duptags) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"] "
        for (i = 0; i < n; i++) printf "[Event \"x\"] "
        printf "\n\n1. e3 e6 *\n" }' ;;
    tagcomment) awk -v n="$2" 'BEGIN {
        printf "[Variant \"shatranj\"]\n\n1. e3 {\n"
        for (i = 0; i < n; i++) printf "[Event \"x\"]\n"
        printf "} e6 *\n" }' ;;
    *) echo "unknown kind $1" >&2; exit 2 ;;
    esac >"$3"
}

# Runs a command under GNU time; prints wall and user seconds and peak memory.
measure() {
    /usr/bin/time -v "$@" >/dev/null 2>"$DIR/time.log" || true
    awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = t[n] + (n > 1 ? 60 * t[n-1] : 0) }
        /User time/ { user = $2 }
        /Maximum resident set size/ { rss = $2 }
        END { printf "%7.2f s %7.2f s %8.1f MB", wall, user, rss / 1024 }' "$DIR/time.log"
}

printf '%-13s %9s %11s   %-33s   %-33s\n' kind N bytes \
    "validate: wall, user, peak" "import: wall, user, peak"
for kind in $KINDS; do
    case $kind in
    tagline | tags | depth) n=100000 ;;
    comment | commentlines) n=4000000 ;;
    variations | checks) n=50000 ;;
    oneline) n=250000 ;;
    blank | zeros) n=64000000 ;;
    huge) n=32000000 ;;
    gzbomb) n=256000000 ;;
    duptags) n=16000 ;;
    tagcomment) n=45000 ;;
    *) n=1 ;;
    esac
    # Where the cost of showing problems is measured, they are shown.
    case $kind in
    duptags | tagcomment) quiet= ;;
    *) quiet=-q ;;
    esac
    for size in $n $((2 * n)) $((4 * n)); do
        f="$DIR/$kind-$size.pgn"
        [ "$kind" = gzbomb ] && f="$f.gz"
        [ -s "$f" ] || make_input "$kind" "$size" "$f"
        v=$(measure "$KABIR" validate $quiet "$f")
        rm -f "$DIR/h.db" "$DIR/h.db-journal" "$DIR/h.db-wal" "$DIR/h.db-shm"
        i=$(measure "$KABIR" import $quiet --db "$DIR/h.db" "$f")
        printf '%-13s %9s %11s   %s   %s\n' "$kind" "$size" "$(wc -c <"$f")" "$v" "$i"
    done
done
