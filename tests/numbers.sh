#!/usr/bin/env bash
# numbers.sh - the sizes README.md and docs/performance.md show come from
# one place, bench/headline.csv, and that place is the current build's:
#  - README.md's headline table is exactly the table the csv's rows with a
#    label make, and each row of docs/performance.md's size table named in
#    the csv (doc_label) has the csv's raw bytes, xz -9 bytes, trz bytes
#    and bytes per record (always, cheap);
#  - a speed in docs/{performance,library,design,python}.md is dated, or
#    left to bench/RESULTS.md (always, cheap);
#  - with the shared corpus present, every row is measured again: the
#    trace's bytes and records (trz -l), xz -9's (the .xz file itself, else
#    xz -9 of the records) and trz's archive at the default level on one
#    thread, summed over a row's files.  A stale number fails.
#   tests/numbers.sh            check (make check)
#   tests/numbers.sh --update   measure, rewrite the csv, README's table and the docs' rows
#   TRZ_QUICK=1 skips the measuring; TRZ_SHARED_CORPUS=DIR moves the corpus
set -u
. "$(dirname "$0")/lib.sh" numbers
TRZ=${TRZ:-$ROOT/trz}
CSV=$ROOT/bench/headline.csv
README=$ROOT/README.md
PERF=$ROOT/docs/performance.md
update=0; [ "${1:-}" = --update ] && update=1

# rows: the csv as "label|doc_label|files|raw|records|xz|trz" lines (the two
# labels are quoted and may hold commas)
rows() {
    local line a b rest
    tail -n +2 "$1" | while IFS= read -r line; do
        a=${line%%\",*}; a=${a#\"}; rest=${line#*\",\"}
        b=${rest%%\",*}; rest=${rest#*\",}
        echo "$a|$b|${rest//,/|}"
    done
}
# table: README's headline table from the csv
table() {
    echo '| trace (default level, one thread) | raw bytes | `xz -9` | trz | trz / `xz -9` |'
    echo '|---|---:|---:|---:|---:|'
    rows "$1" | while IFS='|' read -r label doc files raw recs xz z; do
        [ -n "$label" ] || continue
        LC_ALL=C awk -v l="$label" -v r="$raw" -v x="$xz" -v z="$z" '
            function c(n,  s) { s = ""; while (n >= 1000) { s = sprintf(",%03d", n % 1000) s; n = int(n / 1000) } return n s }
            BEGIN { printf "| %s | %s | %s | %s | %.2f |\n", l, c(r), c(x), c(z), z / x }'
    done
}
# readme_table: the table as README.md has it (from its header line to the first line not a row)
readme_table() { awk '/^\| trace \(default level/ { on = 1 } on && !/^\|/ { exit } on' "$README"; }
# perf_row ROW RAW XZ TRZ RECORDS: a row of docs/performance.md's size table
# with its measured cells (2 raw, 4 xz -9, 5 trz, 7 bytes per record) made
# from the csv; the others (gzip -9, the target) as they are
perf_row() {
    LC_ALL=C awk -v row="$1" -v r="$2" -v x="$3" -v z="$4" -v n="$5" '
        function c(v,  s) { s = ""; while (v >= 1000) { s = sprintf(",%03d", v % 1000) s; v = int(v / 1000) } return v s }
        BEGIN { k = split(row, g, "|")
                for (i = 2; i < k; i++) { f[i - 1] = g[i]; gsub(/^ +| +$/, "", f[i - 1]) }
                per = f[7] ~ /per line/ ? " per line" : ""
                b = sprintf("%.2g", z / n); if (b ~ /e/) b = sprintf("%.6f", z / n)
                printf "| %s | %s | %s | %s | **%s** | %s | %s%s |\n", f[1], c(r), f[3], c(x), c(z), f[6], b, per }'
}

measure() { # FILES... -> "raw records xz trz", summed
    local f raw=0 recs=0 xz=0 z=0 a
    for f in "$@"; do
        f=$SHARED/$f
        "$TRZ" -q -T1 -c "$f" > "$W/a.trz" || return 1
        z=$((z + $(stat -c %s "$W/a.trz")))
        read -r a b <<< "$("$TRZ" -l "$W/a.trz" | awk 'NR == 2 { print $5, $4 }')"
        raw=$((raw + a)); recs=$((recs + b))
        case $f in
            *.xz) xz=$((xz + $(stat -c %s "$f"))) ;;
            *.zip|*.gz) xz=$((xz + $("$TRZ" -dc --records "$W/a.trz" | xz -9 -c | wc -c))) ;;
            *) xz=$((xz + $(xz -9 -c < "$f" | wc -c))) ;;
        esac
    done
    echo "$raw $recs $xz $z"
}

if [ $update = 1 ]; then
    [ -d "$SHARED" ] || { echo "numbers: $SHARED not present: nothing to measure"; exit 1; }
    head -1 "$CSV" > "$W/new.csv"
    rows "$CSV" | while IFS='|' read -r label doc files raw recs xz z; do
        # shellcheck disable=SC2086
        m=$(measure $files) || { echo "numbers: $files: compress failed" >&2; exit 1; }
        read -r raw recs xz z <<< "$m"
        echo "\"$label\",\"$doc\",$files,$raw,$recs,$xz,$z"
    done >> "$W/new.csv" || exit 1
    cp "$W/new.csv" "$CSV"
    table "$CSV" > "$W/table"
    awk -v t="$W/table" '/^\| trace \(default level/ { while ((getline l < t) > 0) print l; skip = 1; next }
                         skip && /^\|/ { next } { skip = 0; print }' "$README" > "$W/readme" && cp "$W/readme" "$README"
    cp "$PERF" "$W/perf"
    while IFS='|' read -r label doc files raw recs xz z; do
        old=$(grep -F "| $doc |" "$W/perf" | head -1)
        [ -n "$old" ] || continue
        new=$(perf_row "$old" "$raw" "$xz" "$z" "$recs")
        awk -v o="$old" -v n="$new" '$0 == o { print n; next } { print }' "$W/perf" > "$W/perf2" && mv "$W/perf2" "$W/perf"
    done < <(rows "$CSV")
    cp "$W/perf" "$PERF"
    echo "numbers: wrote $CSV, README.md's table and docs/performance.md's rows"
    exit 0
fi

table "$CSV" > "$W/want"
readme_table > "$W/got"
if [ -s "$W/got" ] && cmp -s "$W/want" "$W/got"; then ok "README.md's headline table is bench/headline.csv's"
else bad "README.md's headline table is bench/headline.csv's (tests/numbers.sh --update rewrites it)" "$(diff "$W/want" "$W/got" | head -8 | tr '\n' ' ')"; fi
while IFS='|' read -r label doc files raw recs xz z; do
    old=$(grep -F "| $doc |" "$PERF" | head -1)
    if [ -z "$old" ]; then bad "docs/performance.md has no row '$doc'"; continue; fi
    new=$(perf_row "$old" "$raw" "$xz" "$z" "$recs")
    [ "$old" = "$new" ] && ok "docs/performance.md: $doc" || bad "docs/performance.md: $doc" "has '$old', the csv makes '$new'"
done < <(rows "$CSV")

# Speeds vary by machine: a paragraph of these docs that states one (a
# rate, a time in s or ms, "N times faster/slower") must date it
# ("measured YYYY-MM-DD", or a link to a dated note in bench/notes/);
# otherwise the speed lives in bench/RESULTS.md, named, not copied.
for d in docs/performance.md docs/library.md docs/design.md docs/python.md; do
    undated=$(awk '
        # a list item goes with the paragraph that leads into it
        function check(  dated) {
            dated = p ~ /(measured|taken|run) (on )?20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]|bench\/notes\/20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]|\(20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]\)/
            if (p ~ /^ *[-*] /) dated = dated || lead; else lead = dated
            if (p ~ /[0-9] ?([kMG]i?B|bytes?)\/s|[0-9] ?m?s (of (wall|CPU)|against)|[0-9]×|[0-9.]+ times (faster|slower)/ && !dated)
                print substr(p, 1, 120)
            p = "" }
        /^```/ { code = !code; next }
        code { next }
        /^[ \t]*$/ { check(); next }
        { p = p (p == "" ? "" : " ") $0 }
        END { check() }' "$ROOT/$d")
    [ -z "$undated" ] && ok "$d: every speed is dated or in bench/RESULTS.md" \
        || bad "$d: a speed with no date (date it, or point to bench/RESULTS.md)" "$undated"
done

if [ -n "${TRZ_QUICK:-}" ] || [ ! -d "$SHARED" ]; then
    echo "note: the shared corpus not measured (TRZ_QUICK, or $SHARED not present): the csv's numbers not checked"
else
    [ -x "$TRZ" ] || { bad "$TRZ not built"; echo "$pass passed, $fail failed"; exit 1; }
    while IFS='|' read -r label doc files raw recs xz z; do
        # shellcheck disable=SC2086
        if ! m=$(measure $files); then bad "$doc: compress"; continue; fi
        [ "$m" = "$raw $recs $xz $z" ] && ok "$doc: $m" \
            || bad "$doc: the csv says raw, records, xz -9, trz $raw $recs $xz $z; this build $m (tests/numbers.sh --update)"
    done < <(rows "$CSV")
fi
finish
