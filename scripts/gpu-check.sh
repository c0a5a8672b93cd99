#!/usr/bin/env bash
# One-command GPU check (issue 6): configure the `cuda` preset in build/cuda, build only the CUDA
# tests and benchmark, run the tests (gtest JSON) and the benchmarks (--benchmark_format=json),
# run the PyTorch SDPA comparison where torch imports, and write a JSON summary to
# $OUT/gpu-check.json when $OUT is set, else ./gpu-check.json. Sized for < 5 minutes on an H200.
#   scripts/gpu-check.sh                   # build + run
#   KVPLAN_GPU_CHECK_BUILD=0 scripts/gpu-check.sh   # reuse an existing build/cuda
#   (with BUILD=0, KVPLAN_GPU_CHECK_BUILD_DIR names another build directory to run from, such as
#   the bundle scripts/gpu-bundle.sh makes, whose lib/ goes on LD_LIBRARY_PATH)
# Exit status: 0 when everything built and no test failed; 1 on a test failure; 2 when the build
# failed (the summary then holds the log's tail). Without a GPU the tests skip and the benchmark
# registers nothing: the summary says so and the exit status is 0.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out_dir=${OUT:-$root}
mkdir -p "$out_dir"
summary=$out_dir/gpu-check.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=$(nproc 2>/dev/null || echo 4)
build=${KVPLAN_GPU_CHECK_BUILD_DIR:-build/cuda}  # the cuda preset's binaryDir
started=$(date +%s)
stage=ok

log() { echo "gpu-check: $*" >&2; }

if [ "${KVPLAN_GPU_CHECK_BUILD:-1}" != 0 ]; then
  log "configuring the cuda preset in $build"
  if ! cmake --preset cuda -DKVPLAN_GUI=OFF -DKVPLAN_TESTS=ON -DKVPLAN_BENCH=ON \
      >"$work/build.log" 2>&1; then
    stage=configure_failed
  else
    log "building kvplan_cuda_tests and bench_cuda with -j$jobs"
    if ! cmake --build "$build" -j "$jobs" --target kvplan_cuda_tests bench_cuda \
        >>"$work/build.log" 2>&1; then
      stage=build_failed
    fi
  fi
fi
build_s=$(( $(date +%s) - started ))

# A bundle from scripts/gpu-bundle.sh carries the shared libraries it needs in lib/.
if [ -d "$build/lib" ]; then
  export LD_LIBRARY_PATH="$root/$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
tests_bin=$build/tests/kvplan_cuda_tests
bench_bin=$build/bench/bench_cuda
if [ "$stage" = ok ]; then
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader \
    >"$work/device.txt" 2>/dev/null || echo none >"$work/device.txt"
  log "device: $(head -n 1 "$work/device.txt")"
  log "running $tests_bin"
  timeout 120 "$tests_bin" --gtest_output="json:$work/tests.json" >"$work/tests.log" 2>&1
  echo $? >"$work/tests.rc"
  tail -n 5 "$work/tests.log" >&2
  log "running $bench_bin"
  timeout 100 "$bench_bin" --benchmark_format=json --benchmark_out="$work/bench.json" \
    --benchmark_out_format=json >"$work/bench.stdout" 2>"$work/bench.log"
  echo $? >"$work/bench.rc"
  cat "$work/bench.log" >&2
  if python3 -c 'import torch' >/dev/null 2>&1; then
    log "running bench/torch_sdpa_compare.py"
    timeout 45 python3 bench/torch_sdpa_compare.py >"$work/torch.json" 2>"$work/torch.log"
  else
    echo '{"skipped": "torch not importable"}' >"$work/torch.json"
  fi
fi
total_s=$(( $(date +%s) - started ))

STAGE=$stage WORK=$work BUILD_S=$build_s TOTAL_S=$total_s SUMMARY=$summary python3 - <<'PY'
import json, os

work, stage = os.environ["WORK"], os.environ["STAGE"]

def load(name):
    try:
        with open(os.path.join(work, name)) as f:
            return json.load(f)
    except Exception:
        return None

def tail(name, n=40):
    try:
        with open(os.path.join(work, name), errors="replace") as f:
            return f.read().splitlines()[-n:]
    except Exception:
        return []

s = {"stage": stage, "build_seconds": int(os.environ["BUILD_S"]),
     "total_seconds": int(os.environ["TOTAL_S"]), "device": (tail("device.txt", 1) or ["none"])[0]}
if stage != "ok":
    s["build_log_tail"] = tail("build.log")

# Tests: gtest's JSON, one entry per test with result COMPLETED / SKIPPED and failures.
t = load("tests.json")
tests = {"passed": 0, "failed": 0, "skipped": 0, "failed_names": [], "skip_reasons": []}
if t:
    for suite in t.get("testsuites", []):
        for case in suite.get("testsuite", []):
            name = f'{suite["name"]}.{case["name"]}'
            if case.get("failures"):
                tests["failed"] += 1
                tests["failed_names"].append(name)
            elif case.get("result") == "SKIPPED":
                tests["skipped"] += 1
            else:
                tests["passed"] += 1
    skips = [l.strip() for l in tail("tests.log", 100000) if "no CUDA device" in l]
    tests["skip_reasons"] = sorted(set(skips))[:3]
elif stage == "ok":
    tests["error"] = "no gtest JSON; see log tail"
    tests["log_tail"] = tail("tests.log")
s["tests"] = tests

# Benchmarks: per-kernel timing, bandwidth and fraction of the measured copy bandwidth.
b = load("bench.json")
kernels = {}
if b:
    for e in b.get("benchmarks", []):
        # Google Benchmark appends "/iterations:N" and "/manual_time" to the registered name.
        name = "/".join(p for p in e["name"].split("/")
                        if not p.startswith("iterations:") and p not in ("manual_time", "real_time"))
        if e.get("error_occurred"):
            kernels[name] = {"error": e.get("error_message")}
            continue
        kernels[name] = {k: e.get(k) for k in ("us_per_call", "GBps", "frac_of_copy", "cache_bytes")
                              if e.get(k) is not None}
s["benchmarks"] = kernels
s["bench_message"] = tail("bench.log", 5)
copy = kernels.get("BM_DeviceCopy", {})
s["copy_bandwidth_GBps"] = copy.get("GBps")

def frac(*prefixes):
    return [v["frac_of_copy"] for k, v in kernels.items()
            if k.startswith(prefixes) and v.get("frac_of_copy") is not None]
targets = {}
q = frac("BM_Quantize/", "BM_Dequantize/")
if q:
    targets["quantize_dequantize_min_frac"] = min(q)
    targets["quantize_dequantize_target_0.7_met"] = min(q) >= 0.7
dec = frac("BM_DecodeAttention/")
if dec:
    targets["decode_min_frac_of_bytes_read"] = min(dec)
    targets["decode_target_0.5_met"] = min(dec) >= 0.5

torch = load("torch.json")
s["torch_sdpa"] = torch
if torch and "us_per_call" in torch:
    for fmt in ("int2", "int4", "fp8", "fp16"):
        k = kernels.get(f"BM_DecodeAttention/{fmt}/ctx32768/batch16", {})
        if k.get("us_per_call"):
            targets[f"speedup_{fmt}_vs_torch_fp16_sdpa"] = torch["us_per_call"] / k["us_per_call"]
    if "speedup_int2_vs_torch_fp16_sdpa" in targets:
        targets["int2_3x_target_met"] = targets["speedup_int2_vs_torch_fp16_sdpa"] >= 3.0
s["targets"] = targets

with open(os.environ["SUMMARY"], "w") as f:
    json.dump(s, f, indent=2)
print(json.dumps({"stage": stage, "tests": {k: tests[k] for k in ("passed", "failed", "skipped")},
                  "targets": targets}, indent=2))
PY
log "summary: $summary (${total_s}s)"
# Keep the raw outputs beside the summary when $OUT is set (a device run returns only $OUT).
if [ -n "${OUT:-}" ]; then
  for f in tests.log tests.json bench.json torch.json torch.log; do
    [ -s "$work/$f" ] && cp "$work/$f" "$OUT/gpu-check-$f"
  done
fi
[ "$stage" = ok ] || exit 2
[ -f "$work/tests.json" ] || exit 1  # the test binary crashed or timed out
python3 -c "import json,sys; sys.exit(1 if json.load(open('$work/tests.json')).get('failures', 0) else 0)"
