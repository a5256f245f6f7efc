#!/bin/bash
# `keel bench soak`: the firewall appliance under an hour of mixed load (needs root for
# namespaces/TAPs). Not run by `keel bench` with no name, nor by CI: test_soak.py runs 2 minutes.
exec /usr/bin/python3 "$(dirname "$0")/soak.py" "$@"
