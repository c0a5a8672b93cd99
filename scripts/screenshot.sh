#!/usr/bin/env bash
# Renders every view of kvplan-gui to PNG files (docs/images/ by default) under a virtual X
# server: every tab, and the tables that share a tab (planner.png with the GPU order,
# planner-whatif.png, compare.png, replay.png, serving.png with the latencies, serving-slo.png
# with the SLO sizing).
#
#   scripts/screenshot.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR defaults to the first of build/default, build-gui, build that holds gui/kvplan-gui.
# Installs xvfb and xauth with apt-get only when they are missing (needs root or sudo then).
set -euo pipefail
cd "$(dirname "$0")/.."

build="${1:-}"
if [[ -z "$build" ]]; then
  for b in build/default build-gui build; do
    if [[ -x "$b/gui/kvplan-gui" ]]; then build="$b"; break; fi
  done
fi
app="${build:-build/default}/gui/kvplan-gui"
if [[ ! -x "$app" ]]; then
  echo "screenshot.sh: $app not found; build the GUI first (cmake -DKVPLAN_GUI=ON)" >&2
  exit 2
fi
out="${2:-docs/images}"
mkdir -p "$out"

source scripts/lib/apt.sh
install_missing screenshot.sh xvfb xauth

# A fixed screen and font scale so the images look the same on every machine.
export QT_QPA_PLATFORM=xcb
export QT_SCALE_FACTOR=1
xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --screenshot "$out"
ls -l "$out"/planner.png "$out"/planner-whatif.png "$out"/compare.png "$out"/replay.png \
  "$out"/serving.png "$out"/serving-slo.png
