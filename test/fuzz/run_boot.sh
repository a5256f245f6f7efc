#!/bin/sh
# Builds the Multiboot2 boot information reader's libFuzzer target (clang,
# ASan + UBSan) into build/fuzz and runs it for SECONDS (default 60) on a
# scratch copy of its committed corpus (QEMU/GRUB-like boot information).
# Crashes are written to build/fuzz.
#   test/fuzz/run_boot.sh 600
set -eu
seconds=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build/fuzz
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DKEEL_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target multiboot2_fuzz
work=$(mktemp -d "/tmp/keel-multiboot2-fuzz.XXXXXX")
cp "$root/test/fuzz/corpus/multiboot2/"* "$work/"
echo "== multiboot2_fuzz for ${seconds}s"
status=0
"$build/test/unit/multiboot2_fuzz" -max_total_time="$seconds" -timeout="${KEEL_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
  -max_len=8192 -artifact_prefix="$build/multiboot2-" "$work" || status=$?
rm -rf "$work"
exit "$status"
