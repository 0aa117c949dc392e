#!/usr/bin/env bash
# demo.sh - `make demo`: what trz does on the samples in corpus/: sizes
# against xz -9, speeds, and a verified round trip for every file.  The
# measuring (child processes, median of 3 runs, XXH3 of the round trip) is
# `trz bench`'s; this script only picks the columns.
set -u
cd "$(dirname "$0")/.." || exit 1
TRZ=${TRZ:-./trz}
[ -x "$TRZ" ] || { echo "demo: $TRZ not built (run make)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/trz-demo.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

files=()
for f in corpus/*; do
    case ${f##*/} in README*|*.md) continue ;; esac
    [ -f "$f" ] && files+=("$f")
done
[ ${#files[@]} -gt 0 ] || { echo "demo: no samples in corpus/ (make samples)" >&2; exit 1; }

# trz at the default level, one thread; bench verifies every round trip and
# exits non-zero if one differs.
if ! "$TRZ" bench --only-trz --levels 9 --threads 1 --runs 3 --csv "$tmp/r.csv" "${files[@]}" > "$tmp/bench.md"; then
    cat "$tmp/bench.md"
    echo "demo: FAILED: a round trip did not give back the same bytes (see above)" >&2
    exit 1
fi

have_xz=0; command -v xz > /dev/null && have_xz=1
printf '| %-28s | %-19s | %11s | %9s | %7s | %9s | %9s | %9s | %-10s |\n' \
    file format "raw bytes" "trz bytes" ratio "xz -9" "comp MiB/s" "dec MiB/s" "round trip"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ----------------------------- -------------------- ------------: ----------: \
    --------: ----------: ----------: ----------: ------------
tot_raw=0; tot_trz=0; tot_xz=0
for f in "${files[@]}"; do
    name=${f##*/}
    # format raw_bytes compressed_bytes ratio compress_mib_s decompress_mib_s status
    read -r fmt raw size ratio cs ds status < <(awk -F, -v n="$name" '
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $1 == n { print $h["format"], $h["raw_bytes"], $h["compressed_bytes"], $h["ratio"],
                  $h["compress_mib_s"], $h["decompress_mib_s"], $h["status"] }' "$tmp/r.csv")
    xzs=-
    if [ $have_xz = 1 ]; then xzs=$(xz -9 -T1 -c "$f" | wc -c); tot_xz=$((tot_xz + xzs)); fi
    tot_raw=$((tot_raw + raw)); tot_trz=$((tot_trz + size))
    printf '| %-28s | %-19s | %11s | %9s | %7.1f | %9s | %9.1f | %9.1f | %-10s |\n' \
        "$name" "$fmt" "$raw" "$size" "$ratio" "$xzs" "$cs" "$ds" "$status"
done
[ $have_xz = 1 ] || tot_xz=-
printf '| %-28s | %-19s | %11s | %9s | %7.1f | %9s | %9s | %9s | %-10s |\n' total "" "$tot_raw" "$tot_trz" \
    "$(awk -v a="$tot_raw" -v b="$tot_trz" 'BEGIN { print a / b }')" "$tot_xz" "" "" ""
echo
echo "trz: default level (-9), one thread; speeds in MiB (2^20 bytes) of input per second, median of 3 runs,"
echo "timed around whole processes (start-up included, which weighs on files this small)."
[ $have_xz = 1 ] || echo "xz is not installed: no xz -9 column."
echo "For every compressor, level and thread count: ./trz bench FILE... (or bench/run.sh)."
