#!/usr/bin/env bash
# walletPay against stripe-mock's POST, for several paycli binaries side by
# side (issue 32): each round loads every binary's `sandbox serve` over a
# fresh state folder with wrk (new invoices and wallet tokens, request log
# on), each followed at once by stripe-mock's POST from
# the same wrk; the binaries' order alternates from round to round, so both
# see the same load. Prints, per binary and round, the load average, both
# rates, both processes' CPU per request (user+sys from /proc), the rate
# ratio and the CPU ratio. Not run by CI.
#
#   STRIPE_MOCK=/path/to/stripe-mock docs/perf/walletpay-ab.sh ROUNDS name=/absolute/path/to/paycli...
#
# e.g. docs/perf/walletpay-ab.sh 3 main=/tmp/paycli-main branch=/tmp/paycli
# (build each with: CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" ./cmd/paycli).
# A binary may carry serve flags after its path, in one word:
# default=/tmp/paycli "durable=/tmp/paycli --durable".
# Needs wrk and curl; WRK_SECONDS (8) sets each load's length.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=$1; shift
bins=("$@")
WRK_SECONDS=${WRK_SECONDS:-8}
CONCURRENCY=32
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# A private HOME: no user configuration or sandbox is involved.
export GOPATH GOMODCACHE GOCACHE
GOPATH=$(go env GOPATH) GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_STATE_HOME=$work/home/.local/state XDG_CACHE_HOME=$work/home/.cache
mkdir -p "$HOME"
wait_http() { for _ in $(seq 600); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; return 1; }
SM=${STRIPE_MOCK:?set STRIPE_MOCK to the stripe-mock binary (go install github.com/stripe/stripe-mock@v0.203.0)}
"$SM" -http-addr 127.0.0.1:12211 -https-addr 127.0.0.1:12213 >"$work/sm.log" 2>&1 &
pids+=($!); sm_pid=$!
wait_http http://127.0.0.1:12211/v1/charges
go build -tags perfpeers -o "$work/walletpay-bodies" ./docs/perf/walletpay-bodies
wrk -t2 -c32 -d2s -s docs/perf/stripe-mock-post.lua http://127.0.0.1:12211/v1/charges >/dev/null
hz=$(getconf CLK_TCK)
cpu_of() { awk '{print $14+$15}' "/proc/$1/stat"; }
per_req() { awk -v d="$1" -v hz="$hz" -v n="$2" 'BEGIN{printf "%.0f", d*1000000/hz/n}'; }
echo "| round | side | load | walletPay req/s | µs/req | p50 / p99 ms | stripe-mock req/s | µs/req | ratio | CPU ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq "$ROUNDS"); do
  order=("${bins[@]}")
  if (( round % 2 == 0 )); then order=(); for ((i=${#bins[@]}-1;i>=0;i--)); do order+=("${bins[$i]}"); done; fi
  for spec in "${order[@]}"; do
    name=${spec%%=*}; read -r paycli flags <<<"${spec#*=}"
    state=$work/s-$round-$name
    # shellcheck disable=SC2086 # flags are words
    "$paycli" sandbox serve --addr 127.0.0.1:0 --state "$state" $flags 2>"$work/serve.log" &
    pids+=($!); wp_pid=$!
    for _ in $(seq 100); do [ -s "$state/address" ] && break; sleep 0.1; done
    base=$(cat "$state/address")
    wait_http "${base%/ccpayment}/__sandbox/health"
    token=$(curl -s -X POST -H 'Content-Type: application/json' \
      -d "$("$paycli" sandbox credentials -o json --state "$state" | awk -F'"' '/app_id/{id=$4} /app_secret/{s=$4} END{printf "{\"app_id\":\"%s\",\"app_secret\":\"%s\"}", id, s}')" \
      "$base/api/token" | sed 's/.*"token":"\([^"]*\)".*/\1/')
    "$work/walletpay-bodies" $((WRK_SECONDS * 30000)) "w$(date +%s%N)-$round" >"$work/bodies.txt"
    # The bodies (some 240 MB, rewritten each load: ext4 starts writing a
    # truncated file back when it is closed) and the last server's state
    # go to the disk now, not during the load, where the writeback made
    # every fsync of the server under test wait (issue 40's p99).
    sync
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(cpu_of "$wp_pid")
    out=$(BODIES=$work/bodies.txt TOKEN=$token THREADS=2 wrk -t2 -c$CONCURRENCY -d${WRK_SECONDS}s -s docs/perf/walletpay.lua "$base/api/walletPay")
    t1=$(cpu_of "$wp_pid")
    kill "$wp_pid"; wait "$wp_pid" 2>/dev/null || true
    s0=$(cpu_of "$sm_pid")
    sout=$(wrk -t2 -c$CONCURRENCY -d${WRK_SECONDS}s -s docs/perf/stripe-mock-post.lua http://127.0.0.1:12211/v1/charges)
    s1=$(cpu_of "$sm_pid")
    n=$(awk '/^ *[0-9]+ requests in/{print $1}' <<<"$out"); sn=$(awk '/^ *[0-9]+ requests in/{print $1}' <<<"$sout")
    a=$(awk '/Requests\/sec/{print $2}' <<<"$out"); b=$(awk '/Requests\/sec/{print $2}' <<<"$sout")
    lat=$(grep -o 'p50_ms=[0-9.]*.*p99_ms=[0-9.]*' <<<"$out" | awk -F'[= ]' '{printf "%.1f / %.1f", $2, $6}')
    notpaid=$(grep -o 'not_paid=[0-9]*' <<<"$out")
    wc=$(per_req $((t1 - t0)) "$n"); sc=$(per_req $((s1 - s0)) "$sn")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %.2f%s | %.2f |\n' "$round" "$name" "$load" "$a" "$wc" "$lat" "$b" "$sc" \
      "$(awk -v a="$a" -v b="$b" 'BEGIN{print a/b}')" "$([ "$notpaid" = not_paid=0 ] || echo " ($notpaid)")" "$(awk -v a="$wc" -v b="$sc" 'BEGIN{print b/a}')"
  done
done
