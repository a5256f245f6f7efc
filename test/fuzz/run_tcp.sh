#!/bin/sh
# Runs TCP's libFuzzer target (clang, ASan + UBSan) for SECONDS (default 60)
# on a copy of the committed corpus (libfuzzer.sh): segment sequences against
# a listener and an established connection (test/fuzz/tcp_fuzz.cpp). New
# inputs land in build/fuzz/corpus-tcp; crashes in build/fuzz.
#   test/fuzz/run_tcp.sh 600
exec "$(dirname "$0")/libfuzzer.sh" tcp_fuzz tcp tcp "${1:-60}" 8192
