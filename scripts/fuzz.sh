#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with Debian's clang (-fsanitize=fuzzer,address,undefined)
# in build/fuzz and runs each for the given seconds, one after the other.
#   scripts/fuzz.sh [seconds] [target...]      (default: 60 seconds, every fuzz/fuzz_*.cpp)
# Each target starts from its seeds in fuzz/corpus/<name>/ plus what earlier runs found
# (<build>/corpus/<name>/). A crash leaves its input in fuzz-out/<name>/ and makes the script
# exit non-zero; reproduce with build/fuzz/fuzz/fuzz_<name> fuzz-out/<name>/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
# KVPLAN_FUZZ_SEED fixes libFuzzer's mutation sequence (CI's smoke uses 1, so a run explores the
# same inputs as the runs that were checked before it landed); 0 (default) picks a new one.
seed=${KVPLAN_FUZZ_SEED:-0}
shift || true

source scripts/lib/apt.sh
install_missing fuzz clang libclang-rt-14-dev cmake ninja-build libboost-program-options-dev \
  nlohmann-json3-dev libyaml-cpp-dev

# KVPLAN_FUZZ_BUILD: another build directory (so two people's runs do not share one).
build=${KVPLAN_FUZZ_BUILD:-build/fuzz}
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-DNDEBUG" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DKVPLAN_FUZZ=ON -DKVPLAN_GUI=OFF -DKVPLAN_CUDA=OFF -DKVPLAN_TESTS=OFF -DKVPLAN_BENCH=OFF \
  >/dev/null
cmake --build "$build" --target kvplan_fuzzers -j "$(nproc 2>/dev/null || echo 2)"

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for f in fuzz/fuzz_*.cpp; do
    name=$(basename "$f" .cpp)
    targets+=("${name#fuzz_}")
  done
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
total=0
printf '%-14s %12s %10s %s\n' target executions exec/s result
for t in "${targets[@]}"; do
  exe=$build/fuzz/fuzz_$t
  [ -x "$exe" ] || { echo "fuzz: no target fuzz_$t" >&2; failed+=("$t"); continue; }
  mkdir -p "$build/corpus/$t" "fuzz-out/$t"
  seeds=()
  [ -d "fuzz/corpus/$t" ] && seeds+=("fuzz/corpus/$t")
  log=fuzz-out/$t/last.log
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb also caps single allocations, so a
  # parser that allocates from an unchecked size is a crash; max_len 64 KiB keeps inputs small.
  rc=0
  "$exe" -max_total_time="$seconds" -seed="$seed" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="fuzz-out/$t/" \
    "$build/corpus/$t" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  execs=${execs:-0}
  total=$((total + execs))
  if [ "$rc" -ne 0 ]; then
    failed+=("$t")
    printf '%-14s %12s %10s %s\n' "$t" "$execs" "${rate:-?}" "CRASH (rc $rc, see $log)"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|not a kvplan::Error|invariant violated|artifact_prefix|Test unit written)' "$log" | head -8 >&2 || true
  else
    printf '%-14s %12s %10s %s\n' "$t" "$execs" "${rate:-?}" ok
  fi
done
echo "fuzz: $total executions in all, ${seconds}s per target"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
