#!/bin/sh
# Lines and pages of the tables a lookup reads (keel-fw stats RULES PACKETS), for the realistic
# families and the /32 blocklist (mix b): one line per set, `mix=... rules=... lines_mean=...`,
# with each pool's mean lines and pages a lookup. Counts, not timings: the load does not matter.
# Usage: bench/firewall/touches.sh [SIZES [MIXES]]   (default "1000 10000 100000 1000000",
# "acl fw ipc b"); KEELFW=path picks another keel-fw (a before/after comparison).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${KEEL_HOST_BUILD:-$ROOT/build/host}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SIZES=${1:-1000 10000 100000 1000000}
MIXES=${2:-acl fw ipc b}
PACKETS=${FW_TOUCH_PACKETS:-65536}
BENCH=$("$ROOT/bench/firewall/build.sh")
KEELFW=${KEELFW:-$BUILD/tools/keel-fw/keel-fw}
WORK=$(mktemp -d /tmp/keelfw-touches.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
for mix in $MIXES; do
  for n in $SIZES; do
    "$BENCH" gen "$mix" "$n" "$WORK/rules.fw" 42
    "$BENCH" packets "$mix" "$WORK/rules.fw" "$PACKETS" "$WORK/packets.txt" 42
    "$KEELFW" stats "$WORK/rules.fw" "$WORK/packets.txt" |
      awk -v mix="$mix" -v n="$n" '
        $1 == "pool" { pools = pools " " $2 "=" $4 "/" $6; next }
        { v[$1] = $2 }
        END {
          printf "mix=%s rules=%s lines_mean=%.2f lines_p99=%s pages_mean=%.2f pages_p99=%s",
                 mix, n, v["lines_mean"], v["lines_p99"], v["pages_mean"], v["pages_p99"]
          printf " pages_all=%s blob_pages=%s table_bytes=%s pools(lines/pages):%s\n",
                 v["pages_all"], v["blob_pages"], v["table_bytes"], pools
        }'
  done
done
