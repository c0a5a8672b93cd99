#!/usr/bin/env bash
# Puts kvplan on a CI runner for the CI step (docs/ci.md) and prints the path of the binary
# (the last line of standard output). One of:
#
#   scripts/ci/install-kvplan.sh --deb FILE|URL    apt-get install the package (kvplan_*.deb), so
#                                                  apt installs its Debian dependencies
#   scripts/ci/install-kvplan.sh --source DIR      build the kvplan command from the checkout DIR
#                                                  (no GUI, no CUDA, no tests) into DIR/build/ci,
#                                                  installing the Debian build packages missing
#   scripts/ci/install-kvplan.sh --binary PATH     use a kvplan already built or installed
#
#   --version V   then require `kvplan --version` to name version V (exit 2 when it does not)
#
# Root or sudo is needed for --deb and for the packages of --source. Exit 0 with the path
# printed, 2 on a usage error or a failed installation.
set -euo pipefail
prog=install-kvplan
die() {
  echo "$prog: error: $*" >&2
  exit 2
}
mode="" arg="" want=""
while [ $# -gt 0 ]; do
  case $1 in
    --deb | --source | --binary)
      [ -z "$mode" ] || die "give one of --deb, --source, --binary"
      [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"
      mode=${1#--} arg=$2
      shift 2 ;;
    --version) [ $# -ge 2 ] || die "--version needs a value"; want=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ -n "$mode" ] || die "give one of --deb FILE|URL, --source DIR, --binary PATH"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

case $mode in
  deb)
    deb=$arg
    if [[ $deb == http://* || $deb == https://* ]]; then
      tmp=$(mktemp -d)
      deb=$tmp/$(basename "${deb%%\?*}")
      if command -v curl >/dev/null; then
        curl -fsSL -o "$deb" "$arg" || die "$arg: download failed"
      else
        wget -q -O "$deb" "$arg" || die "$arg: download failed"
      fi
    fi
    [ -f "$deb" ] || die "$deb: no such package file"
    case $deb in /*) ;; *) deb=$PWD/$deb ;; esac
    # A failed update (no network) is not yet a failure: the dependencies may be installed.
    $sudo apt-get update -qq || echo "$prog: warning: apt-get update failed" >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$deb" \
      >&2 || die "$deb: apt-get install failed"
    exe=/usr/bin/kvplan ;;
  source)
    [ -f "$arg/CMakeLists.txt" ] || die "$arg: not a kvplan checkout (no CMakeLists.txt)"
    arg=$(cd "$arg" && pwd)
    missing=()
    for p in cmake g++ ninja-build libboost-program-options-dev nlohmann-json3-dev \
      libyaml-cpp-dev; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
      echo "$prog: installing ${missing[*]}" >&2
      $sudo apt-get update -qq || die "apt-get update failed"
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >&2 || die "apt-get install ${missing[*]} failed"
    fi
    build=$arg/build/ci
    cmake -S "$arg" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKVPLAN_CUDA=OFF \
      -DKVPLAN_GUI=OFF -DKVPLAN_TESTS=OFF -DKVPLAN_BENCH=OFF >&2 || die "$arg: configure failed"
    cmake --build "$build" --target kvplan -j "$(nproc 2>/dev/null || echo 2)" >&2 ||
      die "$arg: build failed"
    exe=$build/cli/kvplan ;;
  binary)
    exe=$(command -v "$arg" || true)
    [ -n "$exe" ] || die "$arg: no such kvplan binary" ;;
esac

case $exe in /*) ;; *) exe=$PWD/$exe ;; esac
line=$("$exe" --version 2>&1) || die "$exe --version failed: $line"
echo "$prog: $line" >&2
if [ -n "$want" ] && [[ $line != "kvplan $want" && $line != "kvplan $want "* ]]; then
  die "wanted kvplan $want, $exe says '$line'"
fi
echo "$exe"
