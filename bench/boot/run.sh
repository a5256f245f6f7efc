#!/usr/bin/env bash
# Boot-time, image-size and memory benchmark: bench/boot/run.py [--runs N].
exec /usr/bin/python3 "$(dirname "$0")/run.py" "$@"
