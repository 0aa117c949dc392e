#!/usr/bin/env bash
# serve.sh - `trz serve` with a reader of its own (build/serve_reader) that
# opens the served directory as DynamoRIO's launcher does: every thread
# file gives the records `trz -dc` gives, other files are there as links,
# a second open starts again; a tool that stops early, reads only some
# files, does not exist, or is stopped by a signal leaves no decoder and
# no directory behind; a damaged archive fails the command; many thread
# files at once.
#   tests/serve.sh [path/to/trz] [path/to/serve_reader]
set -u
TRZ=${1:-./trz}
TRZ=$(cd "$(dirname "$TRZ")" && pwd)/$(basename "$TRZ")
RD=${2:-build/serve_reader}
RD=$(cd "$(dirname "$RD")" && pwd)/$(basename "$RD")
. "$(dirname "$0")/lib.sh" serve
export TMPDIR=$W/tmp   # the served directories are made here: none may be left
mkdir -p "$TMPDIR"

# no process left that serves $1 (the decoders are trz serve's forks)
none_left() {
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        ps -eo args= | grep -F -- "$1" | grep -qv grep || return 0
        sleep 0.2
    done
    return 1
}
clean() { # NAME SRC: no served directory, no decoder
    if [ -n "$(ls -A "$TMPDIR")" ]; then bad "$1" "left behind: $(ls -A "$TMPDIR")"; rm -rf "${TMPDIR:?}"/*; return; fi
    none_left "$2" || { bad "$1" "decoders left: $(ps -eo pid,args | grep -F -- "$2" | grep -v grep)"; return; }
    ok "$1"
}

# a trace directory: three thread files of DynamoRIO's containers, a schedule, a module list
S=$W/app.dir/trace; R=$W/records
mkdir -p "$S" "$R"
n=0
for g in 0.18-drfile-dr-zip 0.18-drfile-dr-gz 0.18-drfile-tool-lz4; do
    n=$((n + 1))
    case $g in *zip) ext=zip ;; *gz) ext=gz ;; *) ext=lz4 ;; esac
    cp "$ROOT/tests/files/$g.trz" "$S/drmemtrace.app.100$n.0000.trace.$ext.trz"
    "$TRZ" -dc "$S/drmemtrace.app.100$n.0000.trace.$ext.trz" > "$R/drmemtrace.app.100$n.0000.trace"
done
echo schedule > "$S/serial_schedule.bin.gz"
echo modules > "$S/modules.log"
"$RD" "$R" > "$W/want" || { echo "FAIL serve_reader on the records"; exit 1; }
[ "$(wc -l < "$W/want")" = 3 ] || { echo "FAIL the records: $(cat "$W/want")"; exit 1; }

# the whole directory, read as the launcher reads it
"$TRZ" serve "$S" -- "$RD" {} --twice > "$W/got" 2> "$W/err"; rc=$?
if [ $rc = 0 ] && cmp -s "$W/want" "$W/got" && [ ! -s "$W/err" ]; then clean "served records = trz -dc's, twice" "$S"
else bad "served records" "exit $rc; $(head -c 300 "$W/err"; diff "$W/want" "$W/got" | head -4)"; fi
# the other files are there, as they are; {} is the directory
"$TRZ" serve "$S" -- sh -c 'cd "$0" && ls && cat modules.log serial_schedule.bin.gz' {} > "$W/ls" 2> "$W/err"; rc=$?
if [ $rc = 0 ] && grep -qx modules "$W/ls" && grep -qx schedule "$W/ls" && grep -qx 'drmemtrace.app.1003.0000.trace' "$W/ls" &&
    [ "$(grep -c '\.trz$' "$W/ls")" = 0 ]; then clean "other files linked, archives as NAME.trace" "$S"
else bad "other files" "exit $rc: $(cat "$W/ls" "$W/err" | tr '\n' ' ')"; fi
# an original kept beside its archive (trz -r without --rm): served once, as the pipe
printf 'PK' > "$S/drmemtrace.app.1001.0000.trace.zip"
"$TRZ" serve "$S" -- "$RD" {} > "$W/got" 2> "$W/err"; rc=$?
"$TRZ" serve "$S" -- ls {} > "$W/ls" 2>> "$W/err"
if [ $rc = 0 ] && cmp -s "$W/want" "$W/got" && ! grep -q '\.zip$' "$W/ls"; then clean "an original beside its archive: not served" "$S"
else bad "an original beside its archive" "exit $rc: $(cat "$W/ls" "$W/err" | tr '\n' ' ')"; fi
rm -f "$S/drmemtrace.app.1001.0000.trace.zip"
# a subdirectory: the served tree mirrors it
"$TRZ" serve "$W/app.dir" -- "$RD" {}/trace > "$W/got" 2> "$W/err"; rc=$?
if [ $rc = 0 ] && cmp -s "$W/want" "$W/got"; then clean "a tree served" "$W/app.dir"
else bad "a tree served" "exit $rc; $(head -c 300 "$W/err")"; fi

# the tool stops early, with every file open and half read: its status, nothing left
timeout 60 "$TRZ" serve "$S" -- "$RD" {} --bytes 1000 > /dev/null 2> "$W/err"; rc=$?
if [ $rc = 0 ] && [ ! -s "$W/err" ]; then clean "tool stops early" "$S"; else bad "tool stops early" "exit $rc; $(cat "$W/err")"; fi
# it reads one file of three: the FIFOs it never opens block nothing
timeout 60 "$TRZ" serve "$S" -- "$RD" {} --files 1 > "$W/got" 2> "$W/err"; rc=$?
if [ $rc = 0 ] && [ "$(head -1 "$W/want")" = "$(cat "$W/got")" ]; then clean "tool reads one file" "$S"
else bad "tool reads one file" "exit $rc; $(cat "$W/err")"; fi
# it exits at once, or cannot be run: its status
timeout 60 "$TRZ" serve "$S" -- sh -c 'exit 3' {} 2> "$W/err"; rc=$?
[ $rc = 3 ] && clean "tool's exit status" "$S" || bad "tool's exit status" "exit $rc"
timeout 60 "$TRZ" serve "$S" -- /nonexistent/tool {} 2> "$W/err"; rc=$?
[ $rc = 127 ] && grep -q 'nonexistent/tool' "$W/err" && clean "no such tool" "$S" || bad "no such tool" "exit $rc; $(cat "$W/err")"
# a signal to trz serve reaches the tool, and everything goes
"$TRZ" serve "$S" -- sh -c 'exec 3< "$0"/drmemtrace.app.1001.0000.trace; sleep 30' {} 2> "$W/err" &
pid=$!
sleep 1.5
kill -TERM $pid
wait $pid; rc=$?
[ $rc = 143 ] && clean "SIGTERM: the tool ends, then the decoders" "$S" || bad "SIGTERM" "exit $rc; $(cat "$W/err")"

# a damaged archive: the tool reads a trace cut short, and trz serve says so
D=$W/bad; mkdir -p "$D"
f=$(ls "$S"/*.zip.trz)
head -c $(( $(wc -c < "$f") - 40 )) "$f" > "$D/drmemtrace.app.1.0000.trace.zip.trz"
timeout 60 "$TRZ" serve "$D" -- "$RD" {} > /dev/null 2> "$W/err"; rc=$?
[ $rc = 1 ] && grep -q 'decoder(s) failed' "$W/err" && clean "damaged archive: exit 1" "$D" || bad "damaged archive" "exit $rc; $(cat "$W/err")"

# usage: no {} in the command, not a directory, no archived trace file
timeout 10 "$TRZ" serve "$S" -- true 2> "$W/err"; rc=$?
[ $rc = 2 ] && grep -q '{}' "$W/err" && ok "no {}: usage" || bad "no {}" "exit $rc"
timeout 10 "$TRZ" serve "$f" -- true {} 2> "$W/err"; rc=$?
[ $rc = 1 ] && grep -q 'not a directory' "$W/err" && clean "not a directory" "$f" || bad "not a directory" "exit $rc; $(cat "$W/err")"
timeout 10 "$TRZ" serve "$R" -- true {} 2> "$W/err"; rc=$?
[ $rc = 1 ] && grep -q 'no archived trace files' "$W/err" && clean "no archives" "$R" || bad "no archives" "exit $rc; $(cat "$W/err")"

# many thread files, all open at once: one decoder each, every one served
M=$W/many; mkdir -p "$M"
for i in $(seq 100 219); do cp "$ROOT/tests/files/0.18-drfile-dr-gz.trz" "$M/drmemtrace.app.$i.0000.trace.gz.trz"; done
line=$(sed -n 2p "$W/want" | cut -d' ' -f2-)
timeout 300 "$TRZ" serve "$M" -- "$RD" {} > "$W/got" 2> "$W/err"; rc=$?
if [ $rc = 0 ] && [ "$(wc -l < "$W/got")" = 120 ] && [ "$(cut -d' ' -f2- "$W/got" | sort -u)" = "$line" ]; then
    clean "120 thread files at once" "$M"
else bad "120 thread files" "exit $rc; $(head -c 300 "$W/err"; sort -u "$W/got" | head -3)"; fi

finish
