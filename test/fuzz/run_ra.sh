#!/bin/sh
# Runs the router advertisement libFuzzer target (clang, ASan + UBSan) for
# SECONDS (default 60) on a copy of the committed corpus (libfuzzer.sh): the
# RA parser, router and prefix lists, SLAAC addresses and their lifetimes.
# New inputs land in build/fuzz/corpus-ra; crashes in build/fuzz.
#   test/fuzz/run_ra.sh 600
exec "$(dirname "$0")/libfuzzer.sh" net_ra_fuzz net_ra ra "${1:-60}" 8192
