#!/bin/sh
# Builds TCP's libFuzzer target (clang, ASan + UBSan) into build/fuzz and
# runs it for SECONDS (default 60) on a copy of the committed corpus:
# segment sequences against a listener and an established connection
# (test/fuzz/tcp_fuzz.cpp). New inputs land in build/fuzz/corpus-tcp;
# crashes in build/fuzz.
#   test/fuzz/run_tcp.sh 600
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build/fuzz
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$root" -B "$build" -G Ninja -DKEEL_FUZZ=ON \
  -DCMAKE_C_COMPILER="${CC:-clang}" -DCMAKE_CXX_COMPILER="${CXX:-clang++}" >/dev/null
cmake --build "$build" -j2 --target tcp_fuzz
mkdir -p "$build/corpus-tcp"
cp -n "$root"/test/fuzz/corpus/tcp/* "$build/corpus-tcp/" 2>/dev/null || true
cd "$build"
exec ./test/net/tcp_fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=8192 -artifact_prefix="$build/" "$build/corpus-tcp" "$root/test/fuzz/corpus/tcp"
