#!/usr/bin/env bash
# The whole test suite: the same set-up as quickstart.sh, then every test (ctest). Exits non-zero
# on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh default
if [ -z "${KVPLAN_TEST_MODEL_DIR:-}" ] && [ -d ../shared/models/stories260K ]; then
  export KVPLAN_TEST_MODEL_DIR="$(cd ../shared/models/stories260K && pwd)"
fi
export QT_QPA_PLATFORM=offscreen
ctest --preset default -j "$(nproc 2>/dev/null || echo 2)" --timeout 300
