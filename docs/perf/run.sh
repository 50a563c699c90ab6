#!/usr/bin/env bash
# Reproduces the figures of docs/performance.md on this machine, peers
# included, in one run. Not run by CI: it takes a few minutes and its
# figures depend on the machine (see "Method" in docs/performance.md).
#
#   docs/perf/run.sh                 everything
#   docs/perf/run.sh startup         one part: startup, bench, throughput, walletpay
#
# Needs: go, hyperfine, /usr/bin/time (Debian: apt-get install hyperfine
# time), and for the wrk lines wrk. stripe-mock is used when STRIPE_MOCK
# names its binary or it is on PATH (go install
# github.com/stripe/stripe-mock@v0.203.0); it is never part of the repository.
#
# Tunables (environment): RUNS (hyperfine runs, 300; start-up splits them
# over STARTUP_ROUNDS rounds, 10), REQUESTS (bench
# requests per run, 20000), CONCURRENCY (32), WRK_SECONDS (10), ROUNDS
# (walletpay rounds, 5).
set -euo pipefail
cd "$(dirname "$0")/../.."

parts=("${@:-startup bench throughput walletpay}")
parts=(${parts[*]})
RUNS=${RUNS:-300}
STARTUP_ROUNDS=${STARTUP_ROUNDS:-10}
REQUESTS=${REQUESTS:-20000}
CONCURRENCY=${CONCURRENCY:-32}
WRK_SECONDS=${WRK_SECONDS:-10}
ROUNDS=${ROUNDS:-5}
STRIPE_MOCK=${STRIPE_MOCK:-$(command -v stripe-mock || true)}

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# A private HOME, so no user configuration or sandbox is involved (Go's
# caches stay where they were).
export GOPATH GOMODCACHE GOCACHE
GOPATH=$(go env GOPATH) GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.local/state XDG_CACHE_HOME=$work/home/.cache
mkdir -p "$HOME"

section() { printf '\n## %s\n\n' "$*"; }
has() { [[ " ${parts[*]} " == *" $1 "* ]]; }

echo "# paycli performance run, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(go version | cut -d' ' -f3-)"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# Release flags, as .goreleaser.yaml builds (CGO_ENABLED=0 -trimpath -s -w).
export CGO_ENABLED=0
go build -trimpath -ldflags "-s -w" -o "$work/paycli" ./cmd/paycli
go build -trimpath -ldflags "-s -w" -o "$work/paycli-bench" ./cmd/paycli-bench
for peer in hello cobraviper libraries linked; do
  go build -trimpath -ldflags "-s -w" -tags perfpeers -o "$work/$peer" "./docs/perf/peers/$peer"
done
unset CGO_ENABLED
go build -tags perfpeers -o "$work/walletpay-bodies" ./docs/perf/walletpay-bodies
paycli=$work/paycli

if has startup; then
  section "Start-up"
  # Rounds of hyperfine over all the commands, side by side: the machine's
  # load drifts within seconds, so each ratio is taken within one round
  # (a second or two) and the rounds' ratios are then summarised.
  cmds=("$work/hello" "$work/cobraviper version" "$work/libraries" "$work/linked" "$paycli version" "$paycli --help")
  per_round=$(((RUNS + STARTUP_ROUNDS - 1) / STARTUP_ROUNDS))
  for round in $(seq "$STARTUP_ROUNDS"); do
    hyperfine -N --warmup 5 --runs "$per_round" --export-csv "$work/startup-$round.csv" --style none "${cmds[@]}" \
      >/dev/null 2>>"$work/hyperfine.log"
  done
  # Peak RSS: the largest of 10 runs.
  rss() { for _ in 1 2 3 4 5 6 7 8 9 10; do /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; done | sort -n | tail -1; }
  # summary: per command, the median of the rounds' medians and their range;
  # per ratio to the cobra+viper peer, the median over rounds and its range.
  summary() {
    awk -F, -v w="$work/" -v q="$1" '
      FNR==1 {r++; next}
      {m[r, $1]=$4; cmds[$1]=1; if (!(($1) in order)) order[$1]=++n}
      function med(a, k,   i, j, t) { for (i=2; i<=k; i++) for (j=i; j>1 && a[j-1]>a[j]; j--) {t=a[j]; a[j]=a[j-1]; a[j-1]=t} return k%2 ? a[(k+1)/2] : (a[k/2]+a[k/2+1])/2 }
      END {
        for (c in cmds) {
          delete v; delete x
          for (i=1; i<=r; i++) {v[i]=m[i, c]*1000; x[i]=m[i, c]/m[i, w "cobraviper version"]}
          mv=med(v, r); lo=v[1]; hi=v[r]; mx=med(x, r); xlo=x[1]; xhi=x[r]
          if (q=="") printf "%d\t%s\t%.2f\t%.2f–%.2f\t%.2f\t%.2f–%.2f\n", order[c], c, mv, lo, hi, mx, xlo, xhi
          else if (c==w q) printf "%.2f× (rounds %.2f–%.2f)", mx, xlo, xhi
        }
      }' "$work"/startup-*.csv
  }
  echo "$STARTUP_ROUNDS rounds of $per_round runs each; median of the rounds' medians (range), and of the rounds' ratios to the cobra+viper peer (range)."
  echo
  echo "| command | median ms | rounds' medians ms | × cobra+viper | rounds' ratios | peak RSS MiB |"
  echo "|---|---|---|---|---|---|"
  summary "" | sort -n | while IFS=$'\t' read -r _ cmd med range ratio ratios; do
    # shellcheck disable=SC2086
    kib=$(rss $cmd)
    awk -v c="${cmd#"$work"/}" -v med="$med" -v range="$range" -v ratio="$ratio" -v ratios="$ratios" -v kib="$kib" \
      'BEGIN{printf "| %s | %s | %s | %s | %s | %.1f |\n", c, med, range, ratio, ratios, kib/1024}'
  done
  echo
  echo "- paycli version: $(summary "paycli version") the cobra+viper peer; a binary of paycli's size doing nothing (linked): $(summary linked); cobra, gojq and tablewriter doing nothing (libraries): $(summary libraries)"
  echo "- release binary: $(stat -c %s "$paycli" | awk '{printf "%.1f MiB", $1/1048576}') (-trimpath -ldflags \"-s -w\"); cobra+viper peer: $(stat -c %s "$work/cobraviper" | awk '{printf "%.1f MiB", $1/1048576}')"
  # Package init: the median over 21 runs of the sum of every package's init.
  inits() {
    for _ in $(seq 21); do GODEBUG=inittrace=1 "$@" 2>&1 >/dev/null | awk '/^init/{c+=$5; b+=$8} END{printf "%.3f %.0f\n", c, b/1024}'; done |
      sort -n | awk '{c[NR]=$1; b=$2} END{printf "%.2f ms clock, %.0f KiB", c[(NR+1)/2], b}'
  }
  echo "- package init (median of 21 runs), paycli version: $(inits "$paycli" version); bare cobra+viper: $(inits "$work/cobraviper" version)"
  echo "- heaviest package inits (paycli version, median of 21 runs):"
  for _ in $(seq 21); do GODEBUG=inittrace=1 "$paycli" version 2>&1 >/dev/null; done |
    awk '/^init/{print $2, $5, $8/1024}' | sort -k1,1 -k2,2n |
    awk '{k=$1; v[k, ++n[k]]=$2; b[k]=$3} END{for (k in n) printf "%s %s %.0f\n", v[k, int((n[k]+1)/2)], k, b[k]}' | sort -rn | head -8 |
    awk '{printf "  - %s: %.3f ms, %.0f KiB\n", $2, $1, $3}'
fi

if has bench; then
  section "Go benchmarks"
  echo '```'
  go test -run '^$' -bench . -benchmem ./... 2>&1 | grep -E '^(Benchmark|ok|FAIL)' | grep -v 'no test files'
  echo '```'
fi

# wait_http URL: until something answers at URL (or 60s).
wait_http() {
  for _ in $(seq 600); do
    if curl -s -o /dev/null "$1"; then return 0; fi
    sleep 0.1
  done
  echo "nothing answers at $1" >&2; return 1
}

# disk_sync: the mean time of a synced 4 KiB write in the work folder. A
# durable walletPay waits for one (shared by the payments of a commit), so
# when other processes load the disk, its latency follows this figure.
disk_sync() {
  local t0 t1
  t0=$(date +%s%N)
  dd if=/dev/zero of="$work/sync-probe" bs=4k count=200 oflag=dsync status=none
  t1=$(date +%s%N)
  rm -f "$work/sync-probe"
  awk -v ns=$((t1 - t0)) 'BEGIN{printf "%.2f ms", ns/200/1e6}'
}

if has throughput; then
  section "Sandbox throughput ($CONCURRENCY connections)"
  echo "- synced 4 KiB write (dd oflag=dsync) before: $(disk_sync)"
  echo
  # The default state folder under the private HOME, so that --sandbox
  # commands find this server.
  state=$XDG_STATE_HOME/paycli/sandbox
  "$paycli" sandbox serve --addr 127.0.0.1:0 --state "$state" 2>"$work/serve.log" &
  pids+=($!)
  serve_pid=$!
  for _ in $(seq 100); do [ -s "$state/address" ] && break; sleep 0.1; done
  base=$(cat "$state/address")
  wait_http "${base%/ccpayment}/__sandbox/health"

  # Server CPU per request: utime+stime of the serve process, in ticks.
  ticks() { awk '{print $14+$15}' "/proc/$serve_pid/stat"; }
  hz=$(getconf CLK_TCK)
  "$work/paycli-bench" --state "$state" -n 2000 -c "$CONCURRENCY" >/dev/null # warm-up
  echo "paycli-bench -n $REQUESTS -c $CONCURRENCY (three runs each; server CPU is the serve process's user+system time per request):"
  echo
  echo "| endpoint | duplicates | req/s | p50 ms | p90 ms | p99 ms | max ms | errors | verified | server CPU µs/req |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for spec in "walletpay 0" "walletpay 0.1" "checkstatus 0" "commissions 0"; do
    set -- $spec
    for _ in 1 2 3; do
      t0=$(ticks)
      line=$("$work/paycli-bench" --state "$state" --endpoint "$1" --duplicates "$2" -n "$REQUESTS" -c "$CONCURRENCY" -o csv | tail -1) || true
      t1=$(ticks)
      IFS=, read -r ep _ _ dup _ rps p50 p90 p99 max errors _ _ verified <<<"$line"
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f |\n' "$ep" "$dup" "$rps" "$p50" "$p90" "$p99" "$max" "$errors" "$verified" \
        "$(awk -v d=$((t1 - t0)) -v hz="$hz" -v n="$REQUESTS" 'BEGIN{print d*1000000/hz/n}')"
    done
  done

  if "$paycli" commissions --help >/dev/null 2>&1; then
    echo
    echo "Warm-cache commission lookup against this server (hyperfine, $RUNS runs, median):"
    echo
    "$paycli" --sandbox commissions --currency TRY -o json >/dev/null # fills the token cache
    hyperfine -N --warmup 10 --runs "$RUNS" --export-csv "$work/commissions.csv" --style none \
      "$paycli version" "$paycli --sandbox commissions --currency TRY -o json" >/dev/null 2>>"$work/hyperfine.log"
    awk -F, 'NR==2{v=$4} NR==3{c=$4} END{printf "| paycli version | %.2f ms |\n| paycli --sandbox commissions --currency TRY -o json | %.2f ms (%.2f× version) |\n", v*1000, c*1000, c/v}' \
      "$work/commissions.csv" | sed '1i| command | median |\n|---|---|'
  fi

  if command -v wrk >/dev/null; then
    echo
    echo "wrk -t2 -c$CONCURRENCY -d${WRK_SECONDS}s (the same client for both; three runs each):"
    echo
    echo "| server | req/s | server CPU µs/req | answers not as expected, latency |"
    echo "|---|---|---|---|"
    # wrk_line NAME WRK-OUTPUT SERVER-TICKS
    wrk_line() {
      awk -v name="$1" -v d="$3" -v hz="$hz" '/^ *[0-9]+ requests in/{n=$1} /Requests\/sec/{rps=$2} /p50_ms/{lat=$0}
        END{printf "| %s | %s | %.0f | %s |\n", name, rps, d*1000000/hz/n, lat}' <<<"$2"
    }
    token=$(curl -s -X POST -H 'Content-Type: application/json' \
      -d "$("$paycli" sandbox credentials -o json --state "$state" | awk -F'"' '/app_id/{id=$4} /app_secret/{s=$4} END{printf "{\"app_id\":\"%s\",\"app_secret\":\"%s\"}", id, s}')" \
      "$base/api/token" | sed 's/.*"token":"\([^"]*\)".*/\1/')
    for run in 1 2 3; do
      # New invoices for each run, more than it can send (a repeated body is
      # a cheap duplicate, and not_paid would count it).
      "$work/walletpay-bodies" $((WRK_SECONDS * 30000)) "$(date +%s)-$run" >"$work/bodies.txt"
      sync # the bodies reach the disk now, not during the load (walletpay-ab.sh)
      t0=$(ticks)
      out=$(BODIES=$work/bodies.txt TOKEN=$token THREADS=2 wrk -t2 -c"$CONCURRENCY" -d"${WRK_SECONDS}s" -s docs/perf/walletpay.lua "$base/api/walletPay")
      t1=$(ticks)
      wrk_line "paycli sandbox serve, walletPay" "$out" $((t1 - t0))
    done
    if [ -n "$STRIPE_MOCK" ]; then
      "$STRIPE_MOCK" -http-addr 127.0.0.1:12111 >"$work/stripe-mock.log" 2>&1 &
      pids+=($!)
      wait_http http://127.0.0.1:12111/v1/charges
      wrk -t2 -c"$CONCURRENCY" -d2s -s docs/perf/stripe-mock-post.lua http://127.0.0.1:12111/v1/charges >/dev/null # warm-up
      serve_pid=$! # ticks now reads stripe-mock
      for _ in 1 2 3; do
        t0=$(ticks)
        out=$(wrk -t2 -c"$CONCURRENCY" -d"${WRK_SECONDS}s" -s docs/perf/stripe-mock-post.lua http://127.0.0.1:12111/v1/charges)
        t1=$(ticks)
        wrk_line "stripe-mock, POST /v1/charges" "$out" $((t1 - t0))
      done
    else
      echo "| stripe-mock | not installed (set STRIPE_MOCK) | |"
    fi
  fi
fi
# walletpay: issue 24's measure. Each round loads a `sandbox serve` over a
# fresh state folder with wrk (new invoices and wallet tokens, so every
# request is a payment, fsynced with its request log entry written), then at
# once stripe-mock's POST from the same wrk; the ratio of the two is what is
# compared, since the machine's load moves both. Server CPU is the serving
# process's user+system time per request.
if has walletpay && command -v wrk >/dev/null && [ -n "$STRIPE_MOCK" ]; then
  section "walletPay against stripe-mock, $ROUNDS alternating rounds (wrk -t2 -c$CONCURRENCY -d${WRK_SECONDS}s)"
  "$STRIPE_MOCK" -http-addr 127.0.0.1:12111 -https-addr 127.0.0.1:12113 >"$work/stripe-mock-w.log" 2>&1 &
  pids+=($!)
  sm_pid=$!
  wait_http http://127.0.0.1:12111/v1/charges
  wrk -t2 -c"$CONCURRENCY" -d2s -s docs/perf/stripe-mock-post.lua http://127.0.0.1:12111/v1/charges >/dev/null # warm-up
  hz=$(getconf CLK_TCK)
  cpu_of() { awk '{print $14+$15}' "/proc/$1/stat"; }
  per_req() { awk -v d="$1" -v hz="$hz" -v n="$2" 'BEGIN{printf "%.0f", d*1000000/hz/n}'; }
  echo "| round | load | walletPay req/s | µs/req | p50 / p99 ms | stripe-mock req/s | µs/req | ratio | CPU ratio |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for round in $(seq "$ROUNDS"); do
    state=$work/walletpay-$round
    "$paycli" sandbox serve --addr 127.0.0.1:0 --state "$state" 2>"$work/serve-w.log" &
    pids+=($!)
    wp_pid=$!
    for _ in $(seq 100); do [ -s "$state/address" ] && break; sleep 0.1; done
    base=$(cat "$state/address")
    wait_http "${base%/ccpayment}/__sandbox/health"
    token=$(curl -s -X POST -H 'Content-Type: application/json' \
      -d "$("$paycli" sandbox credentials -o json --state "$state" | awk -F'"' '/app_id/{id=$4} /app_secret/{s=$4} END{printf "{\"app_id\":\"%s\",\"app_secret\":\"%s\"}", id, s}')" \
      "$base/api/token" | sed 's/.*"token":"\([^"]*\)".*/\1/')
    "$work/walletpay-bodies" $((WRK_SECONDS * 30000)) "w$(date +%s)-$round" >"$work/bodies-w.txt"
    sync # the bodies reach the disk now, not during the load (walletpay-ab.sh)
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(cpu_of "$wp_pid")
    out=$(BODIES=$work/bodies-w.txt TOKEN=$token THREADS=2 wrk -t2 -c"$CONCURRENCY" -d"${WRK_SECONDS}s" -s docs/perf/walletpay.lua "$base/api/walletPay")
    t1=$(cpu_of "$wp_pid")
    kill "$wp_pid"; wait "$wp_pid" 2>/dev/null || true
    s0=$(cpu_of "$sm_pid")
    sout=$(wrk -t2 -c"$CONCURRENCY" -d"${WRK_SECONDS}s" -s docs/perf/stripe-mock-post.lua http://127.0.0.1:12111/v1/charges)
    s1=$(cpu_of "$sm_pid")
    n=$(awk '/^ *[0-9]+ requests in/{print $1}' <<<"$out"); sn=$(awk '/^ *[0-9]+ requests in/{print $1}' <<<"$sout")
    a=$(awk '/Requests\/sec/{print $2}' <<<"$out"); b=$(awk '/Requests\/sec/{print $2}' <<<"$sout")
    lat=$(grep -o 'p50_ms=[0-9.]*.*p99_ms=[0-9.]*' <<<"$out" | awk -F'[= ]' '{printf "%.1f / %.1f", $2, $6}')
    notpaid=$(grep -o 'not_paid=[0-9]*' <<<"$out")
    wc=$(per_req $((t1 - t0)) "$n"); sc=$(per_req $((s1 - s0)) "$sn")
    printf '| %s | %s | %s | %s | %s | %s | %s | %.2f%s | %.2f |\n' "$round" "$load" "$a" "$wc" "$lat" "$b" "$sc" \
      "$(awk -v a="$a" -v b="$b" 'BEGIN{print a/b}')" "$([ "$notpaid" = not_paid=0 ] || echo " ($notpaid)")" "$(awk -v a="$wc" -v b="$sc" 'BEGIN{print b/a}')"
  done
fi

if has throughput; then
  echo
  echo "- synced 4 KiB write after: $(disk_sync)"
fi
echo
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
