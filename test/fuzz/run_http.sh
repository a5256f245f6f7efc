#!/bin/sh
# Builds the HTTP libFuzzer targets (clang, ASan + UBSan) into build/fuzz and
# runs each for SECONDS (default 60) on a scratch copy of its committed corpus:
# http_parser (request bytes, pipelined; parsed whole and split in two, which
# must agree) and http_server (the whole server on two in-memory stacks:
# client bytes, time, half-close; test/fuzz/http_server_fuzz.cpp) and
# https_server (TLS record input to the HTTPS server, mbed TLS with coverage;
# test/fuzz/https_server_fuzz.cpp). Crashes are written to build/fuzz.
#   test/fuzz/run_http.sh 600
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build/fuzz
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DKEEL_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target http_parser_fuzz http_server_fuzz https_server_fuzz
for target in http_parser http_server https_server; do
  work=$(mktemp -d "/tmp/keel-http-fuzz-$target.XXXXXX")
  cp "$root/test/fuzz/corpus/$target/"* "$work/"
  echo "== ${target}_fuzz for ${seconds}s"
  status=0
  binary=$build/lib/http/${target}_fuzz
  [ "$target" = https_server ] && binary=$build/lib/tls/${target}_fuzz
  "$binary" -max_total_time="$seconds" -timeout="${KEEL_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
    -max_len=4096 -artifact_prefix="$build/${target}-" "$work" || status=$?
  rm -rf "$work"
  [ "$status" -eq 0 ] || exit "$status"
done
