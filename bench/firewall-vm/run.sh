#!/bin/bash
# `keel bench firewall-vm`: the firewall appliance as a router beside Linux routers (needs root).
exec /usr/bin/python3 "$(dirname "$0")/bench_firewall_vm.py" "$@"
