#!/bin/bash
# `keel bench http`: the HTTP benchmark (needs root for namespaces/TAPs).
exec /usr/bin/python3 "$(dirname "$0")/bench_http.py" "$@"
