#!/usr/bin/env bash
# What a server pays for Pledge: loads the three /local routes of quote-server, which do the same
# in-process work (a callback API answering on another thread, then rendering) as a Pledge chain,
# with async/await and with SwiftNIO futures. Two rounds; in each, wrk at 64 connections on every
# route in turn, so that the machine's drift touches all three alike. Prints requests per second
# and p50/p99 latency per route and round, then the medians of the two rounds and each route's
# requests per second against async/await's, and the server's CPU time per request (user and
# system, from /proc), which the load generator sharing the machine disturbs less. Fails only
# when a route answers anything but 200.
#
#   ./compare.sh [SECONDS-PER-ROUTE]   (default 10; needs wrk and a release build: swift build -c release)
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-10}
port=18090
backend=18091
# shellcheck source=serve.sh
source ./serve.sh
serve compare "$port" "$backend" compare-server.log

ways="pledge async nio"
# The server's CPU time so far, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }
hz=$(getconf CLK_TCK)
# A latency as wrk prints it (850.00us, 1.20ms, 2.00s) in microseconds.
micros() { awk -v t="$1" 'BEGIN { v = t + 0; if (t ~ /us$/) print v; else if (t ~ /ms$/) print v * 1000; else if (t ~ /s$/) print v * 1000000; else print v }'; }
for way in $ways; do   # warm-up: caches, pools, allocator
  wrk -t2 -c64 -d"$((seconds / 4 + 1))s" "http://127.0.0.1:$port/local/$way/PLDG" >/dev/null
done
status=0
results=$(mktemp)
for round in 1 2; do
  for way in $ways; do
    before=$(ticks)
    out=$(wrk -t2 -c64 -d"${seconds}s" --latency "http://127.0.0.1:$port/local/$way/PLDG")
    cpu=$(($(ticks) - before))
    rps=$(awk '/Requests\/sec/ { print $2 }' <<<"$out")
    p50=$(awk '$1 == "50%" { print $2 }' <<<"$out")
    p99=$(awk '$1 == "99%" { print $2 }' <<<"$out")
    errors=$(awk '/Non-2xx or 3xx responses/ { print $5 }' <<<"$out")
    requests=$(awk '/requests in/ { print $1 }' <<<"$out")
    per=$(awk -v c="$cpu" -v hz="$hz" -v n="$requests" 'BEGIN { printf "%.1f", c * 1000000 / hz / n }')
    echo "round $round, $way: $rps requests/s, p50 $p50, p99 $p99, server CPU $per us/request, non-2xx ${errors:-0}"
    echo "$way $rps $(micros "$p50") $(micros "$p99") $per" >>"$results"
    if [ "${errors:-0}" != 0 ]; then status=1; fi
  done
done
echo "medians of the two rounds (requests/s, p50, p99, server CPU per request; requests/s against async/await):"
awk '
  { rps[$1] += $2 / 2; p50[$1] += $3 / 2; p99[$1] += $4 / 2; cpu[$1] += $5 / 2 }
  END {
    split("pledge async nio", ways, " ")
    for (i = 1; i <= 3; i++) {
      w = ways[i]
      printf "  %-7s %9.0f requests/s  p50 %7.0f us  p99 %7.0f us  CPU %5.1f us/request  %.2fx async\n", \
        w, rps[w], p50[w], p99[w], cpu[w], rps[w] / rps["async"]
    }
  }' "$results"
rm -f "$results"
(( status == 0 )) || echo "FAIL: a route answered something other than 200"
exit $status
