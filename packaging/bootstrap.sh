#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for Trainyard and then does one job:
#   packaging/bootstrap.sh run     install what is missing, build, train the default preset with trainyard-cli
#   packaging/bootstrap.sh test    install what is missing, build, run the whole test suite (CTest)
#   packaging/bootstrap.sh build   install what is missing and build
# Extra arguments after `run` go to `trainyard-cli run` (e.g. --set training.epochs=1).
# Environment: BUILD_DIR (default ./build), TRAINYARD_HEADLESS=ON to build without Qt Widgets.
set -euo pipefail

job=${1:-run}
shift || true
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build}
headless=${TRAINYARD_HEADLESS:-OFF}

packages=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev libqt6sql6-sqlite libqcustomplot-dev
  libtorch-dev libgloo-dev libopenblas0-pthread zlib1g-dev
  dataset-fashion-mnist sqlite3 xvfb xauth
)

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
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINYARD_HEADLESS="$headless"
  # Two parallel jobs: each torch-including file needs about 1 GiB of memory to compile.
  cmake --build "$build" -j "${JOBS:-2}"
}

install_missing
build_project

case "$job" in
  build) ;;
  run)
    exec "$build/app/trainyard-cli" run "$repo/presets/fashion-mnist-mlp.trainyard.json" "$@"
    ;;
  test)
    cd "$build"
    exec ctest --output-on-failure --timeout 1200 "$@"
    ;;
  *)
    echo "usage: packaging/bootstrap.sh run|test|build" >&2
    exit 2
    ;;
esac
