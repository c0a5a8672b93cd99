#!/usr/bin/env bash
# Shared set-up of quickstart.sh and test.sh: installs the Debian packages that are missing
# (only those, so a second run is quick), then configures and builds the given CMake preset.
#   scripts/setup.sh [preset]      (default: default)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}

packages=(cmake g++ ninja-build pkg-config libboost-program-options-dev nlohmann-json3-dev
          libgtest-dev libgmock-dev libbenchmark-dev qt6-base-dev qt6-charts-dev libgl-dev
          python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
