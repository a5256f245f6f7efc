#!/bin/bash
# `keel bench tcp`: the TCP benchmark (needs root for namespaces/TAPs).
exec /usr/bin/python3 "$(dirname "$0")/bench_tcp.py" "$@"
