#!/bin/bash
# `keel bench dns`: the DNS benchmark (needs root for namespaces and TAPs).
exec /usr/bin/python3 "$(dirname "$0")/bench_dns.py" "$@"
