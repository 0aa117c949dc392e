#!/usr/bin/env bash
# numbers.sh - the numbers README.md shows come from one place,
# bench/headline.csv, and that place is the current build's:
#  - README.md's headline table is exactly the table the csv makes (always);
#  - with the shared corpus present, every row is measured again: the
#    trace's bytes (trz -l), xz -9's (the .xz file itself, else xz -9 of the
#    records) and trz's archive at the default level, one thread.  A stale
#    number fails.
#   tests/numbers.sh            check (make check)
#   tests/numbers.sh --update   measure, rewrite the csv and README's table
#   TRZ_QUICK=1 skips the measuring; TRZ_SHARED_CORPUS=DIR moves the corpus
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRZ=${TRZ:-$ROOT/trz}
SHARED=${TRZ_SHARED_CORPUS:-$ROOT/../shared/corpus}
CSV=$ROOT/bench/headline.csv
README=$ROOT/README.md
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-numbers.XXXXXX")
trap 'rm -rf "$W"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "ok   $1"; return 0; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
update=0; [ "${1:-}" = --update ] && update=1

# rows: the csv as "label|file|raw|xz|trz" lines (labels are quoted, with commas)
rows() {
    local line label rest
    tail -n +2 "$1" | while IFS= read -r line; do
        label=${line%%\",*}; label=${label#\"}; rest=${line#*\",}
        echo "$label|${rest//,/|}"
    done
}
# table: README's headline table from the csv
table() {
    echo '| trace (default level, one thread) | raw bytes | `xz -9` | trz | trz / `xz -9` |'
    echo '|---|---:|---:|---:|---:|'
    rows "$1" | while IFS='|' read -r label file raw xz z; do
        LC_ALL=C awk -v l="$label" -v r="$raw" -v x="$xz" -v z="$z" '
            function c(n,  s) { s = ""; while (n >= 1000) { s = sprintf(",%03d", n % 1000) s; n = int(n / 1000) } return n s }
            BEGIN { printf "| %s | %s | %s | %s | %.2f |\n", l, c(r), c(x), c(z), z / x }'
    done
}
# readme_table: the table as README.md has it (from its header line to the first line not a row)
readme_table() { awk '/^\| trace \(default level/ { on = 1 } on && !/^\|/ { exit } on' "$README"; }

measure() { # FILE -> "raw xz trz"
    local f=$SHARED/$1 raw xz z
    "$TRZ" -q -T1 -c "$f" > "$W/a.trz" || return 1
    z=$(stat -c %s "$W/a.trz")
    raw=$("$TRZ" -l "$W/a.trz" | awk 'NR == 2 { print $5 }')
    case $f in
        *.xz) xz=$(stat -c %s "$f") ;;
        *.zip|*.gz) xz=$("$TRZ" -dc --records "$W/a.trz" | xz -9 -c | wc -c) ;;
        *) xz=$(xz -9 -c < "$f" | wc -c) ;;
    esac
    echo "$raw $xz $z"
}

if [ $update = 1 ]; then
    [ -d "$SHARED" ] || { echo "numbers: $SHARED not present: nothing to measure"; exit 1; }
    head -1 "$CSV" > "$W/new.csv"
    rows "$CSV" | while IFS='|' read -r label file raw xz z; do
        m=$(measure "$file") || { echo "numbers: $file: compress failed" >&2; exit 1; }
        read -r raw xz z <<< "$m"
        echo "\"$label\",$file,$raw,$xz,$z"
    done >> "$W/new.csv" || exit 1
    cp "$W/new.csv" "$CSV"
    table "$CSV" > "$W/table"
    awk -v t="$W/table" '/^\| trace \(default level/ { while ((getline l < t) > 0) print l; skip = 1; next }
                         skip && /^\|/ { next } { skip = 0; print }' "$README" > "$W/readme" && cp "$W/readme" "$README"
    echo "numbers: wrote $CSV and README.md's table"
    exit 0
fi

table "$CSV" > "$W/want"
readme_table > "$W/got"
if [ -s "$W/got" ] && cmp -s "$W/want" "$W/got"; then ok "README.md's headline table is bench/headline.csv's"
else bad "README.md's headline table is bench/headline.csv's (tests/numbers.sh --update rewrites it)" "$(diff "$W/want" "$W/got" | head -8 | tr '\n' ' ')"; fi

if [ -n "${TRZ_QUICK:-}" ] || [ ! -d "$SHARED" ]; then
    echo "note: the shared corpus not measured (TRZ_QUICK, or $SHARED not present): the csv's numbers not checked"
else
    [ -x "$TRZ" ] || { bad "$TRZ not built"; echo "$pass passed, $fail failed"; exit 1; }
    while IFS='|' read -r label file raw xz z; do
        [ -f "$SHARED/$file" ] || { echo "note: $file not in the shared corpus: skipped"; continue; }
        if ! m=$(measure "$file"); then bad "$label: compress"; continue; fi
        read -r graw gxz gz <<< "$m"
        [ "$graw $gxz $gz" = "$raw $xz $z" ] && ok "$label: $raw $xz $z" \
            || bad "$label: the csv says raw $raw, xz -9 $xz, trz $z; this build: $graw $gxz $gz (tests/numbers.sh --update)"
    done < <(rows "$CSV")
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
