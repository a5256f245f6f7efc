#!/bin/sh
# Fuzzes the syslog= parser and the RFC 5424 and Prometheus writers (clang,
# ASan + UBSan) for SECONDS (default 60); libfuzzer.sh.
#   test/fuzz/run_observability.sh 600
exec "$(dirname "$0")/libfuzzer.sh" observability_fuzz observability observability "${1:-60}" 4096
