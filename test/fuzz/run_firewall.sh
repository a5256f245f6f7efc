#!/bin/sh
# Builds the firewall libFuzzer targets with clang into build/fuzz and runs each for a bounded
# time on a scratch copy of its committed corpus.  Usage: test/fuzz/run_firewall.sh [seconds]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SECONDS_PER_TARGET=${1:-20}
BUILD=$ROOT/build/fuzz
CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -G Ninja -DKEEL_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j2 --target firewall_parser_fuzz firewall_tables_fuzz firewall_appliance_fuzz \
  firewall_update_fuzz
for target in parser tables appliance update; do
  work=$(mktemp -d /tmp/keelfw-fuzz-$target.XXXXXX)
  cp "$ROOT/test/fuzz/corpus/firewall_$target/"* "$work/"
  echo "== firewall_${target}_fuzz for ${SECONDS_PER_TARGET}s"
  "$BUILD/lib/firewall/firewall_${target}_fuzz" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 \
    -rss_limit_mb=2048 "$work"
  rm -rf "$work"
done
