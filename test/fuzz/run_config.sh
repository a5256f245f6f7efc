#!/bin/sh
# Runs the network configuration libFuzzer target (clang, ASan + UBSan) for
# SECONDS (default 60) on a copy of the committed corpus (libfuzzer.sh): the
# command-line words and the JSON file (api/net/config.hpp). New inputs land
# in build/fuzz/corpus-config; crashes in build/fuzz.
#   test/fuzz/run_config.sh 600
exec "$(dirname "$0")/libfuzzer.sh" net_config_fuzz net_config config "${1:-60}" 4096
