#!/usr/bin/env bash
# Loads quote-server on loopback for a bounded time and checks it: two equal rounds of wrk at 64
# connections after a warm-up. Prints requests per second and p50/p99 latency per round. Fails
# when the server answers more non-2xx responses than the backend injected failures (every
# injected failure is one a retry may absorb), or when its memory (VmRSS) grew across the two
# rounds by more than 10% (and more than 4 MiB).
#
#   ./loadtest.sh [SECONDS-PER-ROUND]   (default 10; needs wrk and a release build: swift build -c release)
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-10}
port=18080
backend=18081
# shellcheck source=serve.sh
source ./serve.sh
serve loadtest "$port" "$backend" server.log

url="http://127.0.0.1:$port/quote/PLDG"
rss() { awk '/VmRSS/ { print $2 }' "/proc/$server/status"; }
round() {
  wrk -t2 -c64 -d"${seconds}s" --latency "$url" >"wrk-$1.txt"
  local rps p50 p99 errors
  rps=$(awk '/Requests\/sec/ { print $2 }' "wrk-$1.txt")
  p50=$(awk '$1 == "50%" { print $2 }' "wrk-$1.txt")
  p99=$(awk '$1 == "99%" { print $2 }' "wrk-$1.txt")
  errors=$(awk '/Non-2xx or 3xx responses/ { print $5 }' "wrk-$1.txt")
  echo "$1: ${rps} requests/s, p50 ${p50}, p99 ${p99}, non-2xx ${errors:-0}, server RSS $(rss) KiB"
  non2xx=$((non2xx + ${errors:-0}))
}

non2xx=0
wrk -t2 -c64 -d"$((seconds / 2 + 1))s" "$url" >/dev/null   # warm-up: caches, pools, allocator
non2xx=0
round "round 1"
before=$(rss)
round "round 2"
after=$(rss)

stats=$(curl -s "http://127.0.0.1:$backend/stats" || true)
injected=$(awk '{ print $4 + $6 }' <<<"$stats")
echo "backend: $stats"
status=0
if (( non2xx > injected )); then
  echo "FAIL: $non2xx non-2xx answers, more than the $injected failures the backend injected"
  status=1
fi
growth=$((after - before))
if (( growth > 4096 && growth * 10 > before )); then
  echo "FAIL: the server's memory grew by $growth KiB across two equal rounds ($before -> $after KiB)"
  status=1
fi
(( status == 0 )) && echo "ok: memory $before -> $after KiB across two equal rounds; $non2xx non-2xx of $injected injected failures"
exit $status
