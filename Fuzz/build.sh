#!/usr/bin/env bash
# Builds the random tester's libFuzzer binary, .build-fuzz/pledge-random-fuzzer.
#
# libFuzzer brings its own `main`, so this cannot be a SwiftPM target that `swift build` links:
# swiftc compiles Pledge's sources, the random tester's (Tests/RandomTester) and the entry point
# (Fuzz/RandomTester) with -sanitize=fuzzer,address, one module at a time, as SwiftPM would.
# Run it with Fuzz/run.sh [SECONDS], or by hand: .build-fuzz/pledge-random-fuzzer -max_total_time=60 CORPUS
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build-fuzz
mkdir -p "$out/CPledgeThreadLocal"
flags=(-swift-version 6 -O -g -sanitize=fuzzer,address -parse-as-library -I "$out")

# The C module Pledge imports, with the module map SwiftPM would write.
cp Sources/CPledgeThreadLocal/include/CPledgeThreadLocal.h "$out/CPledgeThreadLocal/"
printf 'module CPledgeThreadLocal {\n    header "CPledgeThreadLocal.h"\n    export *\n}\n' \
  > "$out/CPledgeThreadLocal/module.modulemap"
clang -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/CPledgeThreadLocal/include \
  -c Sources/CPledgeThreadLocal/ThreadLocal.c -o "$out/ThreadLocal.o"

module() { # NAME SOURCE-DIRECTORY
  local sources
  mapfile -t sources < <(find "$2" -name '*.swift' | sort)
  swiftc "${flags[@]}" -I "$out/CPledgeThreadLocal" -module-name "$1" -wmo \
    -emit-module -emit-module-path "$out/$1.swiftmodule" -c -o "$out/$1.o" "${sources[@]}"
}
module Pledge Sources/Pledge
module PledgeRandomTester Tests/RandomTester

swiftc "${flags[@]}" -module-name PledgeRandomFuzzer Fuzz/RandomTester/FuzzEntry.swift \
  "$out/Pledge.o" "$out/PledgeRandomTester.o" "$out/ThreadLocal.o" -o "$out/pledge-random-fuzzer"
echo "built $out/pledge-random-fuzzer"
