#!/usr/bin/env bash
# Runs one libFuzzer target for a fixed number of executions:
#   fuzz/run.sh TARGET RUNS [extra libFuzzer flags...]
# from its seed corpus fuzz/corpus/TARGET (read only) plus a working corpus in BUILD_DIR/fuzz-corpus/TARGET,
# where new inputs go. A crash, leak, sanitizer report, timeout (10 s) or allocation over 2 GiB stops it and
# leaves the input in BUILD_DIR/fuzz-artifacts/TARGET/. BUILD_DIR defaults to ./build-fuzz, configured with
#   CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DTRAINYARD_FUZZ=ON -DTRAINYARD_HEADLESS=ON -DTRAINYARD_BUILD_TESTS=OFF
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: fuzz/run.sh TARGET RUNS [libFuzzer flags...]" >&2; exit 2; }
target=$1 runs=$2
shift 2
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build-fuzz}
binary=$build/fuzz/$target
[ -x "$binary" ] || { echo "fuzz/run.sh: $binary is not built (ninja -C $build $target)" >&2; exit 2; }
work=$build/fuzz-corpus/$target
artifacts=$build/fuzz-artifacts/$target
mkdir -p "$work" "$artifacts"
export QT_QPA_PLATFORM=offscreen
nice -n 10 "$binary" -runs="$runs" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" "$work" "$repo/fuzz/corpus/$target" &
fuzzer=$!
# The target rewrites its input to a file in /dev/shm per execution, named after its pid (fuzz_support.h):
# removed at the end, leaving other targets running beside it alone.
trap 'kill "$fuzzer" 2>/dev/null || true; rm -f /dev/shm/trainyard-fuzz-"$fuzzer"-*' EXIT
wait "$fuzzer"
