#!/bin/bash
# The checks that need a GPU, in one call on a lent GPU machine (docs/development.md, "CUDA builds"): builds
# Trainyard headless against the machine's CUDA LibTorch (PyTorch's), runs test_cuda, trains the bundled presets
# on the GPU (float32 and mixed precision; the ResNet's time to 93 %), two processes sharing the GPU, and the
# training benchmark. Run in the repository root with build-device/ carried (tests/gpu/make_prefix.sh makes it).
# A summary line per check goes to stdout and $OUT/summary.txt, the logs to $OUT/logs.tgz; each step is skipped
# when the time left (BUDGET seconds from the start) is shorter than it usually takes.
set -u
OUT=${OUT:-/tmp/gpu-out}
BUDGET=${BUDGET:-560}
LOG=/tmp/gpu-logs  # every check's log, packed into $OUT/logs.tgz at the end (a call brings back 8 files at most)
SUMMARY=$OUT/summary.txt
mkdir -p "$OUT" "$LOG"
trap 'tar -czf "$OUT/logs.tgz" -C /tmp gpu-logs' EXIT
T0=$(date +%s)
ROOT=$PWD
P=/tmp/typrefix
L=$P/usr/lib/x86_64-linux-gnu
B=/tmp/build-cuda
CLI=$B/app/trainyard-cli
say() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$SUMMARY"; }
# STEPS names the checks to run after the build (all by default); a second call on the still warm machine can
# run the rest, its build being there already.
STEPS=" ${STEPS:-test cnn resnet processes bench resnetamp mlpamp} "
want() { [[ $STEPS == *" $1 "* ]]; }
fits() { [ $((BUDGET - ($(date +%s) - T0))) -ge "$1" ] || { say "skipped $2: under $1 s left"; return 1; }; }

nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader | tee -a "$SUMMARY"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' \
  | tee -a "$SUMMARY"
TORCH_CMAKE=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
NCCL_H=$(python3 -c 'import glob, site, os
hits = [f for d in site.getsitepackages() for f in glob.glob(os.path.join(d, "nvidia", "**", "nccl.h"), recursive=True)]
print(os.path.dirname(hits[0]) if hits else "")')
say "nccl.h: ${NCCL_H:-not found}"

# Debian's Qt and the rest, minus the libraries this system has already (by their names).
mkdir -p $P && tar -xJf build-device/prefix.tar.xz -C $P
cp -a $P/lib/x86_64-linux-gnu/. "$L/"   # Debian's packages still put some libraries in /lib
for f in "$L"/*.so.*; do
  n=${f##*/}
  case $n in libQt6* | libicu* | libonnx* | libprotobuf*) continue ;; esac
  case $n in *.so.[0-9] | *.so.[0-9][0-9]) [ -e "/usr/lib/x86_64-linux-gnu/$n" ] && rm -f "$f" ;; esac  # sonames only
done
mkdir -p /usr/share/datasets
[ -d /usr/share/datasets/fashion-mnist ] && [ ! -L /usr/share/datasets/fashion-mnist ] ||
  ln -sfn "$ROOT/build-device/fashion-mnist" /usr/share/datasets/fashion-mnist
export LD_LIBRARY_PATH=$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export QT_PLUGIN_PATH=$L/qt6/plugins

configure() {
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRAINYARD_HEADLESS=ON -DTRAINYARD_BUILD_TESTS=ON \
    -DCMAKE_PREFIX_PATH="$TORCH_CMAKE;$P/usr" -DTORCH_CUDA_ARCH_LIST=9.0 \
    -DCMAKE_PROJECT_INCLUDE_BEFORE="$ROOT/tests/gpu/fake_opengl.cmake" -DCMAKE_CXX_FLAGS="-isystem $P/usr/include" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--no-as-needed -Wl,--allow-shlib-undefined -Wl,-rpath-link,$L" -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$L" \
    -DSQLITE3_PROGRAM=/bin/true -DCMAKE_CXX_STANDARD_LIBRARIES="$L/libprotobuf.so" -DTRAINYARD_NCCL_INCLUDE_DIR="$NCCL_H" "$@" >>"$LOG/configure.log" 2>&1
}
configure || { say "configure failed"; tail -30 "$LOG/configure.log"; exit 1; }
grep -E "NCCL backend|Found Torch|Qt6" "$LOG/configure.log" | head -5 | tee -a "$SUMMARY"
TARGETS="trainyard-cli test_cuda trainyard-bench"
if ! ninja -C $B -k 0 $TARGETS >"$LOG/build.log" 2>&1; then
  grep -E "error|FAILED" "$LOG/build.log" | head -20 | tee -a "$SUMMARY"
  if grep -q "FAILED: .*nccl_group" "$LOG/build.log"; then
    say "NCCL backend did not compile: building without it"
    configure -DTRAINYARD_NCCL=OFF
    ninja -C $B -k 0 $TARGETS >>"$LOG/build.log" 2>&1
  fi
fi
say "build: $(grep -c 'Building CXX' "$LOG/build.log") objects; cli $([ -x $CLI ] && echo yes || echo NO), test_cuda $([ -x $B/tests/engine/test_cuda ] && echo yes || echo NO), bench $([ -x $B/tests/benchmarks/trainyard-bench ] && echo yes || echo NO)"
[ -x $CLI ] || exit 1

if want test && fits 120 test_cuda; then
  timeout 120 $B/tests/engine/test_cuda >"$LOG/test_cuda.txt" 2>&1
  say "test_cuda exit $?: $(grep -E '^(PASS|FAIL|SKIP)' "$LOG/test_cuda.txt" | tr '\n' ' ' | cut -c1-600)"
fi

# One run: NAME PRESET [ARGS...], its events in $LOG/NAME.jsonl, its summary line in summary.txt.
run() {
  local name=$1 limit=$2 preset=$3
  shift 3
  local start=$(date +%s.%N)
  timeout "$limit" $CLI run "presets/$preset.trainyard.json" --db /tmp/runs.sqlite --name "$name" --device ${DEVICE:-cuda} --events "$@" \
    >"$LOG/$name.jsonl" 2>"$LOG/$name.err"
  local code=$? wall=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
  say "$(python3 tests/gpu/summarize_run.py "$LOG/$name.jsonl" 0.9 0.93) exit $code, wall $wall s"
}
want cnn && fits 120 "cnn runs" && run cnn-fp32 60 fashion-mnist-cnn && run cnn-amp 60 fashion-mnist-cnn --set training.mixed_precision=true
# The ResNet given 30 epochs (its cosine schedule spans them): when validation first reaches 93 %.
want resnet && fits 110 "resnet" && run resnet-30 110 fashion-mnist-resnet --set training.epochs=30
want processes && fits 210 "processes" && {
  run mlp-1proc 60 fashion-mnist-mlp --set training.epochs=3
  run mlp-2proc-auto 90 fashion-mnist-mlp --set training.epochs=3 --nproc 2
  run mlp-2proc-nccl 60 fashion-mnist-mlp --set training.epochs=3 --set training.dist_timeout=30 --set training.dist_backend=nccl --nproc 2
  head -c 600 "$LOG/mlp-2proc-nccl.err" | tee -a "$SUMMARY"
}
if want bench && fits 180 bench; then
  QUICK=$([ $((BUDGET - ($(date +%s) - T0))) -ge 240 ] || echo --quick)
  TRAINYARD_BENCH_PYTHON=$(command -v python3) timeout 180 $B/tests/benchmarks/trainyard-bench --device cuda --only training --markdown $QUICK \
    >"$LOG/bench.txt" 2>&1
  say "bench exit $? $QUICK"
  grep -E "^\|" "$LOG/bench.txt" | tee -a "$SUMMARY"
fi
want resnetamp && fits 60 "resnet amp" && run resnet-amp 60 fashion-mnist-resnet --set training.mixed_precision=true
want mlpamp && fits 60 "mlp amp" && run mlp-amp 60 fashion-mnist-mlp --set training.mixed_precision=true
say done
