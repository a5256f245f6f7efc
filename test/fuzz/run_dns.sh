#!/bin/sh
# Builds the DNS libFuzzer targets (clang, ASan + UBSan) into build/fuzz and
# runs each for SECONDS (default 60) on a scratch copy of its committed corpus:
# dns_message (queries and responses), dns_zone (zone files), dns_blob (the
# zone blob images load), dns_tcp (examples/dns/dns_tcp.cpp on in-memory
# stacks: framing split anywhere, pipelining, transfers), dns_xfr_in (a secondary's
# transfers in, NOTIFY, the zone swap). Crashes are written to build/fuzz.
#   test/fuzz/run_dns.sh 600
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build/fuzz
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DKEEL_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target dns_message_fuzz dns_zone_fuzz dns_blob_fuzz dns_tcp_fuzz dns_xfr_in_fuzz
for target in message zone blob tcp xfr_in; do
  work=$(mktemp -d "/tmp/keel-dns-fuzz-$target.XXXXXX")
  cp "$root/test/fuzz/corpus/dns_$target/"* "$work/"
  echo "== dns_${target}_fuzz for ${seconds}s"
  status=0
  "$build/lib/dns/dns_${target}_fuzz" -max_total_time="$seconds" -timeout="${KEEL_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
    -max_len=65535 -artifact_prefix="$build/dns_${target}-" "$work" || status=$?
  rm -rf "$work"
  [ "$status" -eq 0 ] || exit "$status"
done
