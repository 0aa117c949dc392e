# lib.sh - what the test scripts share, sourced after `set -u`:
#   . "$(dirname "$0")/lib.sh" NAME
# sets ROOT (the repository), SHARED (the shared corpus; may be absent) and
# W (a scratch directory trz-NAME.*, removed on exit unless KEEP is set),
# and gives ok/bad (counted; VERBOSE=1 prints each pass) and finish (the
# "N passed, M failed" line, true when nothing failed).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${TRZ_SHARED_CORPUS:-$ROOT/../shared/corpus}
W=$(mktemp -d "${TMPDIR:-/tmp}/trz-${1:-test}.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "ok   ${1:-}"; return 0; }
bad() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; }
