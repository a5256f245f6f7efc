#!/bin/sh
# What run_net.sh and run_tcp.sh share: builds one libFuzzer target (clang,
# ASan + UBSan) into build/fuzz and runs it for SECONDS on a copy of its
# committed corpus. New inputs land in build/fuzz/corpus-NAME; crashes in
# build/fuzz.
#   test/fuzz/libfuzzer.sh TARGET CORPUS NAME SECONDS MAX_LEN
# KEEL_FUZZ_TIMEOUT (default 10): seconds of wall time before an input counts as hung.
set -eu
target=$1 corpus=$2 name=$3 seconds=$4 max_len=$5
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build/fuzz
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$root" -B "$build" -G Ninja -DKEEL_FUZZ=ON \
  -DCMAKE_C_COMPILER="${CC:-clang}" -DCMAKE_CXX_COMPILER="${CXX:-clang++}" >/dev/null
cmake --build "$build" -j2 --target "$target"
mkdir -p "$build/corpus-$name"
cp -n "$root/test/fuzz/corpus/$corpus"/* "$build/corpus-$name/" 2>/dev/null || true
cd "$build"
exec "./test/net/$target" -max_total_time="$seconds" -timeout="${KEEL_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
  -max_len="$max_len" -artifact_prefix="$build/" "$build/corpus-$name" "$root/test/fuzz/corpus/$corpus"
