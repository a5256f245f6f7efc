#!/bin/sh
# Runs the network stack's libFuzzer target (clang, ASan + UBSan) for SECONDS
# (default 60) on a copy of the committed corpus (libfuzzer.sh). New inputs
# land in build/fuzz/corpus-net; crashes in build/fuzz.
#   test/fuzz/run_net.sh 600
exec "$(dirname "$0")/libfuzzer.sh" net_stack_fuzz net_stack net "${1:-60}" 16384
