#!/bin/sh
# Runs the virtio-net receive libFuzzer target (clang, ASan + UBSan) for
# SECONDS (default 60) on a copy of the committed corpus (libfuzzer.sh): a
# lying device's num_buffers, used lengths, gso and checksum fields, and a
# router's next steps on what the driver hands on (decision 0093).
# New inputs land in build/fuzz/corpus-virtio-rx; crashes in build/fuzz.
#   test/fuzz/run_virtio_rx.sh 600
exec "$(dirname "$0")/libfuzzer.sh" virtio_net_rx_fuzz virtio_rx virtio-rx "${1:-60}" 70000
