#!/usr/bin/env bash
# Fuzzes the random tester for SECONDS (60 by default) with the binary Fuzz/build.sh makes: the
# corpus grows in .build-fuzz/corpus, and each input that fails (a model mismatch, a hang, a
# sanitizer report) is saved as .build-fuzz/crash-… or timeout-…. Replay one, with its trace:
#
#   ASAN_OPTIONS=detect_leaks=0 .build-fuzz/pledge-random-fuzzer .build-fuzz/crash-…
#
# A round has 10 s; the tester's watchdog aborts one still running at 20 s, with its program, and
# libFuzzer's -timeout is the backstop. Leak detection is off, as in .ci/check-random (the
# tester's statics and the work of dropped nodes outlive the inputs).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[[ -x .build-fuzz/pledge-random-fuzzer ]] || Fuzz/build.sh
mkdir -p .build-fuzz/corpus
ASAN_OPTIONS=detect_leaks=0 exec .build-fuzz/pledge-random-fuzzer -detect_leaks=0 -timeout=30 \
  -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix=.build-fuzz/ .build-fuzz/corpus
