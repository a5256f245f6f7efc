#!/bin/bash
# `keel bench density`: N echo appliances beside N Linux VMs and N containers (root).
exec /usr/bin/python3 "$(dirname "$0")/bench_density.py" "$@"
