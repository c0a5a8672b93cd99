#!/usr/bin/env bash
# Packs the CUDA test and benchmark binaries built on this machine, with the shared libraries
# they need beyond the C/C++ runtime (libbenchmark, libyaml-cpp, libcudart), into one folder that
# scripts/gpu-check.sh runs on a GPU machine without building there (a machine whose image lacks
# GoogleTest, Google Benchmark or yaml-cpp, or a compiler at all).
#   scripts/gpu-bundle.sh                      # build/default -> .gpu
#   scripts/gpu-bundle.sh build/cuda out/gpu   # another build directory and folder
# Then, on the GPU machine, from the repository root:
#   KVPLAN_GPU_CHECK_BUILD=0 KVPLAN_GPU_CHECK_BUILD_DIR=.gpu scripts/gpu-check.sh
# (gpu-check.sh puts the folder's lib/ on LD_LIBRARY_PATH). Exit 2 when the build directory has
# no CUDA targets (configured without nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/default}
out=${2:-.gpu}
if ! cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target kvplan_cuda_tests bench_cuda \
    >/dev/null 2>&1; then
  echo "gpu-bundle: $build has no kvplan_cuda_tests / bench_cuda target (configured without CUDA?)" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out/tests" "$out/bench" "$out/lib"
cp "$build/tests/kvplan_cuda_tests" "$out/tests/"
cp "$build/bench/bench_cuda" "$out/bench/"
# Every library ldd resolves, except the C and C++ runtimes every Linux image has.
for bin in "$out/tests/kvplan_cuda_tests" "$out/bench/bench_cuda"; do
  ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
echo "gpu-bundle: $out ($(du -sh "$out" | cut -f1)): $(ls "$out/lib" | tr '\n' ' ')"
