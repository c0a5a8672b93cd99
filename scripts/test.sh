#!/usr/bin/env bash
# The whole test suite: the same set-up as quickstart.sh, then every test (ctest), then the CPU
# tests under the sanitizers and a fuzz smoke. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh default
if [ -z "${KVPLAN_TEST_MODEL_DIR:-}" ] && [ -d ../shared/models/stories260K ]; then
  export KVPLAN_TEST_MODEL_DIR="$(cd ../shared/models/stories260K && pwd)"
fi
export QT_QPA_PLATFORM=offscreen
jobs=$(nproc 2>/dev/null || echo 2)
ctest --preset default -j "$jobs" --timeout 300

# Sanitizers: the CPU tests again under AddressSanitizer + UBSan (the asan preset, tests only),
# then a 10-second smoke of every fuzz target (clang, installed by fuzz.sh when missing).
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs" --timeout 600
KVPLAN_FUZZ_SEED=1 scripts/fuzz.sh 10
