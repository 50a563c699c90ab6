#!/usr/bin/env bash
# Runs paycli's tests as if today were DAYS days from now (negative: in
# the past), to find a test that depends on the day it runs: Go's own
# time.Now is moved by DAYS through a build overlay of the standard
# library's time package (test binaries only; the machine's clock and
# every other program are untouched). Everything paycli runs in a test,
# subprocesses of the test binary included, sees the moved clock.
#
#   .ci/timeshift.sh 5000            # mid-2040, every package
#   .ci/timeshift.sh -2000 ./internal/gateway/...
#
# docs/reliability.md says when to run it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 1 ] || ! [[ "$1" =~ ^-?[0-9]+$ ]]; then
  echo "usage: .ci/timeshift.sh DAYS [go test packages...]" >&2
  exit 2
fi
days=$1
shift
[ $# -gt 0 ] || set -- ./...

export GOTOOLCHAIN=local
goroot=$(go env GOROOT)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The standard library's time.go with one line added to Now: the wall
# clock's seconds moved by the shift (the monotonic reading is kept, so
# durations and timers are unchanged).
awk -v shift="$((days * 86400))" '
  { print }
  /^func Now\(\) Time \{$/ { in_now = 1 }
  in_now && /runtimeNow\(\)$/ { print "\tsec += " shift " // .ci/timeshift.sh"; in_now = 0; added = 1 }
  END { if (!added) exit 1 }
' "$goroot/src/time/time.go" >"$work/time.go" || {
  echo "timeshift: $goroot/src/time/time.go has no 'sec, nsec, mono := runtimeNow()' in Now: update this script" >&2
  exit 1
}
printf '{"Replace":{"%s":"%s"}}\n' "$goroot/src/time/time.go" "$work/time.go" >"$work/overlay.json"

echo "timeshift: testing $* with the clock moved $days days (to about $(date -u -d "@$(( $(date +%s) + days * 86400 ))" +%Y-%m-%d))"
go test -count=1 -overlay="$work/overlay.json" "$@"
