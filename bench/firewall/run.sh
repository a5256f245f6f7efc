#!/bin/sh
# Firewall classifier benchmark: for each rule mix and size, compile time and peak memory of
# `keel-fw compile` (GNU time), table size, lookups/s of the classifier one packet a call and in
# bursts, the machine's random-read ceiling over a table of the same size, and the linear
# first-match evaluator on the same packets (one core). Writes bench/results/firewall.md + .png.
# Usage: bench/firewall/run.sh [max_rules [results_dir]]   (default 1000000, bench/results)
# The realistic families (acl, fw, ipc) run with seed 42 at every size, and with seeds 7 and
# 2024 at 1, 10,000 and 100,000 rules: sets the generator's profiles were never looked at with.
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
# A quick run (CI: max_rules 10) checks that the script works: short windows.
if [ "$MAX" -lt 10000 ]; then export FW_BENCH_SECONDS=${FW_BENCH_SECONDS:-0.1}; fi

measure() {  # MIX RULES SEED
  mix=$1 n=$2 seed=$3
  [ "$n" -le "$MAX" ] || return 0
  if [ "$mix" = a ] && [ "$n" -gt 65536 ]; then n=65536; fi  # there are only 65,536 ports
  grep -q "^mix=$mix rules=$n .* seed=$seed " "$RAW" && return 0
  rules=$WORK/$mix-$n.fw
  "$BENCH" gen "$mix" "$n" "$rules" "$seed"
  /usr/bin/time -v "$KEELFW" compile "$rules" -o "$WORK/t.bin" 2> "$WORK/time.txt"
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/time.txt")
  line=$(taskset -c 0 "$BENCH" lookup "$mix" "$rules" "$seed")
  echo "$line seed=$seed compile_wall=$wall compile_rss_kb=$rss" | tee -a "$RAW"
  rm -f "$rules" "$WORK/t.bin"
}

for mix in a b c d f acl fw ipc; do
  for n in 1 10 100 1000 10000 100000 1000000; do measure "$mix" "$n" 42; done
done
if [ "$MAX" -ge 10000 ]; then  # a quick run (CI: max_rules 10) has nothing to compare them at
  for seed in 7 2024; do
    for mix in acl fw ipc; do
      for n in 1 10000 100000; do measure "$mix" "$n" "$seed"; done
    done
  done
fi
/usr/bin/python3 "$ROOT/bench/firewall/report.py" "$RAW" "$OUT/firewall.md" "$OUT/firewall.png"
