#!/usr/bin/env bash
# Shared set-up of quickstart.sh and test.sh: installs the Debian packages that are missing
# (only those, so a second run is quick), then configures and builds the given CMake preset.
#   scripts/setup.sh [preset]      (default: default)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}

source scripts/lib/apt.sh
# dpkg-dev and file: cpack's DEB generator computes Depends with dpkg-shlibdeps
# (scripts/pkg/build-deb.sh); git: the commit `kvplan --version` names (core/CMakeLists.txt).
install_missing setup cmake g++ ninja-build pkg-config libboost-program-options-dev \
  nlohmann-json3-dev libyaml-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev qt6-base-dev \
  qt6-charts-dev libqt6opengl6-dev libgl-dev python3 dpkg-dev file git

jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
