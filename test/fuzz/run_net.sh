#!/bin/sh
# Builds the network stack's libFuzzer target (clang, ASan + UBSan) into
# build/fuzz and runs it for SECONDS (default 60) on a copy of the committed
# corpus. New inputs land in build/fuzz/corpus-net; crashes in build/fuzz.
#   test/fuzz/run_net.sh 600
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build/fuzz
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$root" -B "$build" -G Ninja -DKEEL_FUZZ=ON \
  -DCMAKE_C_COMPILER="${CC:-clang}" -DCMAKE_CXX_COMPILER="${CXX:-clang++}" >/dev/null
cmake --build "$build" -j2 --target net_stack_fuzz
mkdir -p "$build/corpus-net"
cp -n "$root"/test/fuzz/corpus/net_stack/* "$build/corpus-net/" 2>/dev/null || true
cd "$build"
exec ./test/net/net_stack_fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=16384 -artifact_prefix="$build/" "$build/corpus-net" "$root/test/fuzz/corpus/net_stack"
