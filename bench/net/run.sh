#!/bin/bash
# `keel bench net`: the network benchmark (needs root for namespaces/TAPs).
exec /usr/bin/python3 "$(dirname "$0")/bench_net.py" "$@"
