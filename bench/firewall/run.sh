#!/bin/sh
# Firewall classifier benchmark: for each rule mix and size, compile time and peak memory of
# `keel-fw compile` (GNU time), table size, and lookups/s of the classifier next to the linear
# first-match evaluator on the same packets (one core; the classifier's figure is the best of
# five 0.2 s windows, the cores being shared). Writes bench/results/firewall.md + .png.
# Usage: bench/firewall/run.sh [max_rules [results_dir]]   (default 1000000, bench/results)
# FW_BENCH_KEEP=1 keeps the rows already in bench/results/firewall.raw and measures only the
# missing ones (delete a mix's lines from the .raw to rerun just that mix).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${KEEL_HOST_BUILD:-$ROOT/build/host}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
MAX=${1:-1000000}
OUT=${2:-$ROOT/bench/results}
BENCH=$("$ROOT/bench/firewall/build.sh")
KEELFW=$BUILD/tools/keel-fw/keel-fw
WORK=$(mktemp -d /tmp/keelfw-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
RAW=$OUT/firewall.raw
mkdir -p "$OUT"
[ "${FW_BENCH_KEEP:-0}" = 1 ] || : > "$RAW"
for mix in a b c d f; do
  for n in 1 10 100 1000 10000 100000 1000000; do
    [ "$n" -le "$MAX" ] || continue
    if [ "$mix" = a ] && [ "$n" -gt 65536 ]; then n=65536; fi  # there are only 65,536 ports
    grep -q "^mix=$mix rules=$n " "$RAW" && continue
    rules=$WORK/$mix-$n.fw
    "$BENCH" gen "$mix" "$n" "$rules"
    /usr/bin/time -v "$KEELFW" compile "$rules" -o "$WORK/t.bin" 2> "$WORK/time.txt"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/time.txt")
    line=$(taskset -c 0 "$BENCH" lookup "$mix" "$rules")
    echo "$line compile_wall=$wall compile_rss_kb=$rss" | tee -a "$RAW"
    rm -f "$rules" "$WORK/t.bin"
  done
done
/usr/bin/python3 "$ROOT/bench/firewall/report.py" "$RAW" "$OUT/firewall.md" "$OUT/firewall.png"
