#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for Trainyard and then does one job:
#   packaging/bootstrap.sh run     install what is missing, build, open the default preset in the desktop app
#   packaging/bootstrap.sh train   install what is missing, build, train the default preset with trainyard-cli
#   packaging/bootstrap.sh test    install what is missing, build, run the whole test suite (CTest)
#   packaging/bootstrap.sh build   install what is missing and build
#   packaging/bootstrap.sh fuzz    also install clang and libFuzzer, build the fuzz targets (fuzz/) in ./build-fuzz and
#                                  run each for FUZZ_RUNS executions (default 10000)
# `run FILE` opens FILE instead. Without a display, in a headless build, or when the arguments after `run` are
# options (e.g. --set training.epochs=1), `run` trains with trainyard-cli like `train`, whose extra arguments
# go to `trainyard-cli run`.
# Environment: BUILD_DIR (default ./build), TRAINYARD_HEADLESS=ON to build without Qt Widgets,
# TRAINYARD_SANITIZE=ON to build with AddressSanitizer and UndefinedBehaviorSanitizer (gcc brings both).
set -euo pipefail

job=${1:-run}
shift || true
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
headless=${TRAINYARD_HEADLESS:-OFF}
[ "$job" = "fuzz" ] && build=${BUILD_DIR:-$repo/build-fuzz}

packages=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev qt6-svg-dev qt6-qpa-plugins libqt6sql6-sqlite libqcustomplot-dev
  libtorch-dev libgloo-dev libopenblas0-pthread zlib1g-dev libsqlite3-dev libpq-dev libssl-dev
  dataset-fashion-mnist wamerican sqlite3 xvfb xauth
  libonnx-dev libprotobuf-dev python3-onnx python3-sklearn nodejs
  python3-torch python3-torchvision
)
# The ONNX export tests run the model with onnxruntime-node from the npm registry. Debian's npm is installed
# only when no npm is there yet: Node.js from elsewhere (NodeSource) brings its own and conflicts with it.
command -v npm >/dev/null 2>&1 || packages+=(npm)
# The test job mounts a FUSE folder with bindfs to check that a run database there is never written.
[ "$job" = "test" ] && packages+=(bindfs)
# The team store's tests start a throw-away PostgreSQL cluster (tests/team/pg_cluster.sh); building needs only libpq.
[ "$job" = "test" ] && packages+=(postgresql-15)
# Only the fuzz job needs clang and libFuzzer; the default build and CI use gcc.
[ "$job" = "fuzz" ] && packages+=(clang-14 libfuzzer-14-dev)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "bootstrap: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

build_project() {
  # The test job (what CI runs) treats compiler warnings as errors.
  local werror=OFF
  [ "$job" = "test" ] && werror=ON
  if [ "$job" = "fuzz" ]; then
    CXX=clang++-14 cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINYARD_FUZZ=ON \
      -DTRAINYARD_HEADLESS=ON -DTRAINYARD_BUILD_TESTS=OFF
    cmake --build "$build" -j "${JOBS:-2}" --target fuzz_preset fuzz_overrides fuzz_idx fuzz_csv fuzz_image fuzz_safetensors fuzz_checkpoint fuzz_bundle fuzz_onnx_import
    return
  fi
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINYARD_HEADLESS="$headless" \
    -DTRAINYARD_WERROR="${TRAINYARD_WERROR:-$werror}" -DTRAINYARD_SANITIZE="${TRAINYARD_SANITIZE:-OFF}"
  # run and train build only what they start: the CLI, its training module and (unless headless) the app. test and
  # build build everything, the test suites included.
  local targets=()
  if [ "$job" = "run" ] || [ "$job" = "train" ]; then
    targets=(--target trainyard-cli trainyard-training)
    [ "$headless" = "ON" ] || targets+=(trainyard)
  fi
  # Two parallel jobs: each torch-including file needs about 1.5 GiB of memory to compile.
  cmake --build "$build" -j "${JOBS:-2}" "${targets[@]}"
}

install_missing
build_project

default_preset="$repo/presets/fashion-mnist-mlp.trainyard.json"
train() {
  exec "$build/app/trainyard-cli" run "$default_preset" "$@"
}

case "$job" in
  build) ;;
  run)
    if [ "$headless" = "ON" ] || { [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; } || [[ "${1:-}" == -* ]]; then
      echo "bootstrap: training with trainyard-cli (the desktop app needs a display and a non-headless build)" >&2
      train "$@"
    fi
    exec "$build/app/gui/trainyard" "${1:-$default_preset}"
    ;;
  train)
    train "$@"
    ;;
  test)
    cd "$build"
    # One CTest entry per test class: the classes spread over the cores (the reliability scripts run alone).
    exec ctest --output-on-failure --timeout 1200 --parallel "$(nproc)" "$@"
    ;;
  fuzz)
    for target in fuzz_preset fuzz_overrides fuzz_idx fuzz_csv fuzz_image fuzz_safetensors fuzz_checkpoint fuzz_bundle fuzz_onnx_import; do
      BUILD_DIR="$build" "$repo/fuzz/run.sh" "$target" "${FUZZ_RUNS:-10000}"
    done
    ;;
  *)
    echo "usage: packaging/bootstrap.sh run [FILE]|train [ARGS]|test|build|fuzz" >&2
    exit 2
    ;;
esac
