#!/usr/bin/env bash
# Runs every fuzz target of the module for a short time.
#
# Targets are discovered, not listed: every package's `go test -list '^Fuzz'`.
# Each target runs for FUZZTIME with FUZZ_PARALLEL workers. A crasher fails
# the run and stays where `go test -fuzz` writes it, under the package's
# testdata/fuzz/<Target>/; committed, it becomes a regression test that every
# plain `go test` replays.
#
# Environment:
#   FUZZTIME       time per target (default 10s; any -fuzztime value)
#   FUZZ_PARALLEL  fuzzing workers per target (default 2)
#   FUZZ_MATCH     only targets whose "package.Target" matches this ERE
#   FUZZ_REPORT    also write "package<TAB>target<TAB>execs<TAB>result" lines here
#
# Exit status: 0 when every target ran clean, 1 when any found a failure.
# A target that fails only with Go 1.26's spurious "context deadline
# exceeded" at the end of -fuzztime (go.dev/issue/75804: no input failed,
# none was written) is reported as "flake" and does not fail the run.
set -uo pipefail
cd "$(dirname "$0")/.."

export GOTOOLCHAIN=local
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
fuzztime="${FUZZTIME:-10s}"
parallel="${FUZZ_PARALLEL:-2}"
match="${FUZZ_MATCH:-}"
report="${FUZZ_REPORT:-}"
[ -n "$report" ] && : >"$report"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

failed=()
flaked=()
total=0
targets=0
while read -r pkg dir; do
  # A package with no fuzz function in its test files has no target:
  # listing it would build its test binary for nothing.
  grep -qs '^func Fuzz' "$dir"/*_test.go || continue
  list=$(go test -list '^Fuzz' "$pkg" 2>&1) || { echo "$list"; echo "listing $pkg failed"; exit 1; }
  for target in $(printf '%s\n' "$list" | grep -E '^Fuzz[A-Za-z0-9_]*$'); do
    short="${pkg#github.com/paycli/paycli/}.$target"
    if [ -n "$match" ] && ! [[ "$short" =~ $match ]]; then
      continue
    fi
    targets=$((targets + 1))
    corpus="$dir/testdata/fuzz/$target"
    before=$(ls "$corpus" 2>/dev/null | wc -l)
    if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -parallel "$parallel" "$pkg" >"$log" 2>&1; then
      result=ok
    elif [ "$(ls "$corpus" 2>/dev/null | wc -l)" -eq "$before" ] &&
      grep -qE '^ +context deadline exceeded$' "$log" &&
      ! grep -qE 'Failing input written|--- FAIL: [A-Za-z0-9_]+/' "$log"; then
      # Go 1.26's fuzzing coordinator can report its own -fuzztime deadline
      # as a failure (go.dev/issue/75804, fixed in Go 1.27): no input
      # failed and none was written. Counted, not failed.
      result=flake
      flaked+=("$short")
    else
      result=FAIL
      failed+=("$short")
    fi
    # The last progress line holds the total: "fuzz: elapsed: 10s, execs: 123 (...)".
    execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || true)
    execs="${execs:-0}"
    total=$((total + execs))
    printf '%-44s %12s execs  %s\n' "$short" "$execs" "$result"
    [ -n "$report" ] && printf '%s\t%s\t%s\t%s\n' "${pkg#github.com/paycli/paycli/}" "$target" "$execs" "$result" >>"$report"
    if [ "$result" = FAIL ]; then
      sed 's/^/    /' "$log" | tail -40
    fi
  done
done < <(go list -f '{{.ImportPath}} {{.Dir}}' ./...)

printf '%d targets, %d executions in all, %d failing, %d stopped by go.dev/issue/75804 (FUZZTIME=%s, FUZZ_PARALLEL=%s)\n' \
  "$targets" "$total" "${#failed[@]}" "${#flaked[@]}" "$fuzztime" "$parallel"
if [ "$targets" -eq 0 ]; then
  echo "no fuzz target matched"; exit 1
fi
if [ "${#failed[@]}" -gt 0 ]; then
  echo "failing targets: ${failed[*]}"
  echo "new crashers (commit them with the fix; go test replays them):"
  git status --porcelain --untracked-files=all -- '*/testdata/fuzz/*' | sed 's/^/    /'
  exit 1
fi
