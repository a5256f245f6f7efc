#!/bin/sh
# Builds the benchmark binary against the host build's firewall libraries.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${KEEL_HOST_BUILD:-$ROOT/build/host}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
cmake --build "$BUILD" -j2 --target keel-fw keel_firewall >/dev/null
mkdir -p "$BUILD/bench"
g++ -std=c++20 -O2 -march=x86-64-v2 -I"$ROOT/lib/firewall/include" -I"$ROOT/lib/firewall" \
  "$ROOT/bench/firewall/bench_main.cpp" "$ROOT/bench/firewall/mixes.cpp" \
  "$ROOT/bench/firewall/classbench_profiles.cpp" "$ROOT/bench/firewall/classbench_generator.cpp" \
  "$ROOT/bench/firewall/filter_stats.cpp" "$ROOT/bench/firewall/read_ceiling.cpp" \
  "$BUILD/lib/firewall/libkeel_firewall.a" "$BUILD/lib/firewall/libkeel_firewall_runtime.a" \
  -o "$BUILD/bench/firewall_bench"
echo "$BUILD/bench/firewall_bench"
