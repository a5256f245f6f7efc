#!/bin/sh
# Runs the IPv6 input libFuzzer target (clang, ASan + UBSan) for SECONDS
# (default 60) on a copy of the committed corpus (libfuzzer.sh). New inputs
# land in build/fuzz/corpus-ip6; crashes in build/fuzz.
#   test/fuzz/run_ip6.sh 600
exec "$(dirname "$0")/libfuzzer.sh" net_ip6_fuzz net_ip6 ip6 "${1:-60}" 8192
