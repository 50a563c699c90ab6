#!/usr/bin/env bash
# Measures `paycli journal --invoice` and --invoice completion on a large
# journal (docs/performance.md, "Journal"). Not run by CI: generating a
# 1,000,000-attempt journal writes about 670 MB and indexing it takes a
# few seconds of CPU.
#
#   docs/perf/journal.sh            1,000,000 attempts
#   ATTEMPTS=400000 docs/perf/journal.sh
#
# Needs: go, /usr/bin/time (Debian: apt-get install time). Everything is
# written to a temporary folder, removed at the end (KEEP=1 keeps it).
set -euo pipefail
cd "$(dirname "$0")/../.."

ATTEMPTS=${ATTEMPTS:-1000000}
work=$(mktemp -d)
cleanup() { [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT

# paycli gets an empty home; go keeps its own caches.
export GOPATH=$(go env GOPATH) GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_CACHE_HOME=$work/home/.cache XDG_STATE_HOME=$work/state
mkdir -p "$HOME" "$XDG_STATE_HOME/paycli"
journal=$XDG_STATE_HOME/paycli/journal.jsonl

go build -o "$work/paycli" ./cmd/paycli
# The generator: intent + outcome per attempt like walletpay's, one in 500
# without an outcome, invoices GEN-0000000 … (internal/journal/gen_test.go).
PAYCLI_JOURNAL_GEN=$journal PAYCLI_JOURNAL_GEN_N=$ATTEMPTS \
  go test ./internal/journal -run '^TestGenerateLargeJournal$' -count=1 >/dev/null
echo "journal: $ATTEMPTS attempts, $(stat -c %s "$journal") bytes"

fmt='%e s wall, %U s user, %S s sys, %M KB max RSS'
mid=$(printf 'GEN-%07d' $((ATTEMPTS / 2)))
measure() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "$label: $fmt" "$@" >/dev/null 2>"$work/time" || true
  tail -1 "$work/time"
}
measure "first lookup (builds the index)" "$work/paycli" journal --invoice "$mid"
echo "index: $(stat -c %s "$journal.index") bytes"
for i in 1 2 3; do measure "lookup $i" "$work/paycli" journal --invoice "$mid"; done
measure "lookup of an unknown invoice" "$work/paycli" journal --invoice NOPE
measure "completion, empty prefix" "$work/paycli" __complete journal --invoice ''
measure "completion, old prefix (index walk)" "$work/paycli" __complete journal --invoice GEN-00001
tail -n 2000 "$journal" | sed 's/GEN-/NEW-/' >>"$journal"
measure "lookup after 2,000 new lines" "$work/paycli" journal --invoice "$mid"
