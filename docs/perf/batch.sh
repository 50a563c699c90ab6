#!/bin/sh
# batch.sh PAYCLI [LINES]: a LINES-line (default 1000) walletpay batch
# against `paycli sandbox serve --latency 50ms`, at --parallel 1, 4 and 8,
# each on fresh invoices; prints wall time and the batch summary per run.
# Everything lives in a temporary home; the journal and the sandbox state
# are on the same disk as /tmp, so their fsyncs are part of the figure.
set -eu
P=$1
N=${2:-1000}
W=$(mktemp -d)
export HOME="$W" XDG_STATE_HOME="$W/state" XDG_CONFIG_HOME="$W/config" XDG_CACHE_HOME="$W/cache"
"$P" sandbox serve --addr 127.0.0.1:0 --latency 50ms 2>"$W/serve.log" &
SERVE=$!
trap 'kill $SERVE 2>/dev/null; rm -rf "$W"' EXIT
sleep 1
for par in 1 4 8; do
  i=0
  while [ "$i" -lt "$N" ]; do
    tok=$("$P" sandbox wallet-token --amount 150.00 --currency TRY --ttl 2h)
    printf '{"invoice":"PERF-%s-%05d","token":"%s","name":"Ada","surname":"Lovelace","email":"ada@example.com"}\n' "$par" "$i" "$tok"
    i=$((i + 1))
  done >"$W/batch-$par.jsonl"
done
for par in 1 4 8; do
  start=$(date +%s.%N)
  PAYCLI_SANDBOX=1 "$P" walletpay --batch "$W/batch-$par.jsonl" --yes --parallel "$par" >/dev/null 2>"$W/err-$par.txt" || true
  end=$(date +%s.%N)
  printf 'parallel %s: %.2f s; %s; load %s\n' "$par" "$(echo "$end - $start" | bc)" "$(tail -1 "$W/err-$par.txt")" "$(cut -d' ' -f1 /proc/loadavg)"
done
