#!/bin/sh
# Runs TcpStream's libFuzzer target (clang, ASan + UBSan) for SECONDS
# (default 60) on a copy of the committed corpus (libfuzzer.sh): a stream
# service's readers, writes and ends under a client the input drives
# (test/fuzz/tcp_stream_fuzz.cpp). New inputs land in
# build/fuzz/corpus-tcp_stream; crashes in build/fuzz.
#   test/fuzz/run_tcp_stream.sh 600
exec "$(dirname "$0")/libfuzzer.sh" tcp_stream_fuzz tcp_stream tcp_stream "${1:-60}" 4096
