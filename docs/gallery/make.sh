#!/usr/bin/env bash
# Regenerates the gallery: every built-in variant's start position, a few special positions,
# and the charts of a database imported from samples/. Run from anywhere:
#   docs/gallery/make.sh            (uses target/release/kabir, building it if needed)
#   KABIR=/path/to/kabir docs/gallery/make.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
kabir="${KABIR:-$root/target/release/kabir}"
if [[ -z "${KABIR:-}" ]]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
fi
rm -f "$here"/*.svg
readme="$here/README.md"
{
  echo "# Gallery"
  echo
  echo "Made by \`docs/gallery/make.sh\` from the built-in variants and \`samples/\`; the key is in"
  echo "[DIAGRAMS.md](../DIAGRAMS.md)."
  echo
  echo "## Start positions"
  echo
} >"$readme"

# Every built-in variant, as `kabir variants` lists them.
"$kabir" variants | while read -r id description; do
  "$kabir" diagram --variant "$id" -o "$here/start-$id.svg"
  printf '### %s\n\n%s\n\n![%s start position](start-%s.svg)\n\n' \
    "$id" "$description" "$id" "$id" >>"$readme"
done

{
  echo "## Special positions"
  echo
} >>"$readme"
special() {
  local name="$1" text="$2"
  shift 2
  "$kabir" diagram "$@" -o "$here/$name.svg"
  printf '### %s\n\n![%s](%s.svg)\n\n' "$text" "$text" "$name" >>"$readme"
}
special tamerlane-citadels \
  "Tamerlane: adventitious kings in both citadels, a waiting pawn of pawns, a prince" \
  --variant tamerlane --fen "k3PP'6/a11/11/11/11/11/4S6/2pp''1PRPN5/11A/K10 w - - 0 1" \
  --arrow e10e5
special shatranj-line "Shatranj after 1. e3 e6 2. Nf3, with an arrow" \
  --variant shatranj --moves "1. e3 e6 2. Nf3" --arrow g8f6

# Charts of a database of every sample game: one of each kind, in one document.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$kabir" import --quiet --db "$tmp/samples.db" "$root"/samples/*.pgn >/dev/null
"$kabir" stats --db "$tmp/samples.db" --by variant --chart "$here/charts.svg" >/dev/null
{
  echo "## Charts"
  echo
  echo "\`kabir stats --by variant --chart charts.svg\` on a database of the games in \`samples/\`:"
  echo "results by colour (all games and per variant), game length, how games ended, special"
  echo "moves, games per year."
  echo
  echo "![Statistics of the sample games](charts.svg)"
} >>"$readme"

# The web pages of `kabir serve`: screenshots taken by the browser test in headless Chromium.
if [[ -n "${KABIR_SCREENSHOTS:-}" ]]; then
  KABIR_GALLERY="$here" cargo test --release --quiet --manifest-path "$root/Cargo.toml" \
    --test cli serve_browser >/dev/null
fi
{
  echo
  echo "## kabir serve"
  echo
  echo "Screenshots of \`kabir serve\` in headless Chromium, taken by \`tests/cli/serve_browser.rs\`"
  echo "(\`KABIR_SCREENSHOTS=1 docs/gallery/make.sh\` takes them again). The explorer on Tamerlane"
  echo "after 1. Cj4, on 300 random games and the samples:"
  echo
  echo "![The explorer](serve-explorer-tamerlane.png)"
  echo
  echo "The game viewer on a commented sample game, its variation in the move list:"
  echo
  echo "![The game viewer](serve-game-viewer.png)"
  echo
  echo "The same pages on a laptop (1366x900) and on a phone (390x844), taken by the test"
  echo "\`serve_layout_fits_a_phone_and_a_laptop\`: the board fits the window with its step buttons,"
  echo "beside the moves on the laptop and above them on the phone; nothing is wider than the"
  echo "phone. On the phone, the pictures of the game search and the statistics show the results"
  echo "under the form."
  echo
  for page in explorer game search stats; do
    echo "![$page, laptop](serve-$page-laptop.png)"
    echo
  done
  for page in explorer game search stats; do
    echo "![$page, phone](serve-$page-phone.png)"
  done
  echo
  echo "A line of 307 moves on the phone, folded to its first 4 and last 6 moves:"
  echo
  echo "![A long line, folded](serve-long-line-phone.png)"
} >>"$readme"
