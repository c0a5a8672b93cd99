#!/usr/bin/env bash
# Builds the Debian package and inspects it (docs/install.md; the `package` stage of
# scripts/test.sh):
#
#   scripts/pkg/build-deb.sh [BUILD_DIR]
#
# packages a build without the CUDA kernels (NVIDIA's libcudart is not a Debian package, so a
# package linking it would not start elsewhere): without BUILD_DIR, build/default as it is when
# it was configured without them (no nvcc: a second build saved), else build/package, configured
# from the `default` preset with -DKVPLAN_CUDA=OFF (and no benchmarks); a BUILD_DIR given is
# configured that way. It builds kvplan, kvplan-gui and the man pages, runs cpack, copies the
# package to build/deb/, then checks it:
# - dpkg-deb --info: Package kvplan, Version the project's, Architecture this machine's, and a
#   Depends that names exactly the Debian packages owning the libraries the two binaries link
#   (their DT_NEEDED entries resolved with ldd, owners found with dpkg -S);
# - dpkg-deb --contents: the binaries, presets, man pages, completion, docs and the CI script;
# - the extracted binaries run: `kvplan --version` names this commit, `kvplan plan` works, and
#   the packaged CI script passes examples/deploy.json and fails examples/deploy-fails.json.
# Prints the path of the .deb (build/deb/kvplan_VERSION_ARCH.deb) last. Exit 0 when every check
# holds, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs=$(nproc 2>/dev/null || echo 2)
source scripts/lib/apt.sh
install_missing build-deb dpkg-dev file

build=${1:-}
if [ -z "$build" ] && grep -qxF 'set(CPACK_KVPLAN_HAS_CUDA "OFF")' build/default/CPackConfig.cmake 2>/dev/null; then
  build=build/default
  echo "build-deb: packaging build/default (configured without the CUDA kernels)"
else
  build=${build:-build/package}
  echo "build-deb: packaging $build, configured with -DKVPLAN_CUDA=OFF"
  cmake --preset default -B "$build" -DKVPLAN_CUDA=OFF -DKVPLAN_BENCH=OFF >/dev/null
fi
cmake --build "$build" -j "$jobs" --target kvplan kvplan-gui kvplan_man
rm -f "$build"/kvplan_*.deb
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || {
  cat "$build/cpack.log" >&2
  echo "build-deb: cpack failed" >&2
  exit 1
}
debs=("$build"/kvplan_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || { echo "build-deb: no kvplan_*.deb in $build" >&2; exit 1; }
mkdir -p build/deb
rm -f build/deb/kvplan_*.deb
cp "${debs[0]}" build/deb/
deb=build/deb/$(basename "${debs[0]}")

failures=0
fail() {
  echo "build-deb: FAIL: $*" >&2
  failures=$((failures + 1))
}

info=$(dpkg-deb --info "$deb")
echo "$info"
field() { dpkg-deb --field "$deb" "$1"; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ "$(field Package)" = kvplan ] || fail "Package is '$(field Package)', not kvplan"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', the project's is '$version'"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] ||
  fail "Architecture is '$(field Architecture)'"
[ "$(basename "$deb")" = "kvplan_${version}_$(dpkg --print-architecture).deb" ] ||
  fail "file name $(basename "$deb")"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"

# Depends, package names only (versions and alternatives dropped), against the owners of the
# libraries the binaries link.
depends=$(field Depends | tr ',|' '\n\n' | sed -e 's/(.*)//' -e 's/[[:space:]]//g' | grep . | sort -u)
owners=$(
  for bin in "$root/usr/bin/kvplan" "$root/usr/bin/kvplan-gui"; do
    for so in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      path=$(ldd "$bin" | awk -v so="$so" '$1 == so && $2 == "=>" {print $3}')
      [ -n "$path" ] || { echo "UNRESOLVED:$so"; continue; }
      owner=""
      for p in "$path" "$(readlink -f "$path")" "${path/#\/usr\/lib\//\/lib\/}" "${path/#\/lib\//\/usr\/lib\/}"; do
        owner=$(dpkg -S "$p" 2>/dev/null | grep -v "^diversion" | head -n 1 | cut -d: -f1) && [ -n "$owner" ] && break
      done
      echo "${owner:-NOT-A-DEBIAN-PACKAGE:$path}"
    done
  done | sort -u)
echo "Depends (names): $(echo $depends)"
echo "owners of the linked libraries: $(echo $owners)"
[ -n "$depends" ] || fail "no Depends"
[ "$depends" = "$owners" ] ||
  fail "Depends names $(echo $depends), the linked libraries belong to $(echo $owners)"

contents=$(dpkg-deb --contents "$deb" | awk '{print $NF}')
for f in ./usr/bin/kvplan ./usr/bin/kvplan-gui ./usr/share/man/man1/kvplan.1.gz \
  ./usr/share/man/man1/kvplan-check.1.gz ./usr/share/man/man1/kvplan-plan.1.gz \
  ./usr/share/man/man1/kvplan-trace.1.gz ./usr/share/man/man1/kvplan-gui.1.gz \
  ./usr/share/bash-completion/completions/kvplan ./usr/share/kvplan/models/llama-3.1-8b.json \
  ./usr/share/kvplan/gpus/h100-sxm-80gb.json ./usr/share/kvplan/ci/kvplan-check.sh \
  ./usr/share/doc/kvplan/README.md ./usr/share/doc/kvplan/docs/install.md \
  ./usr/share/doc/kvplan/docs/ci.md ./usr/share/doc/kvplan/examples/deploy.json; do
  grep -qxF "$f" <<<"$contents" || fail "the package has no $f"
done
echo "contents: $(wc -l <<<"$contents") entries, $(grep -c '^./usr/share/man/man1/.*\.1\.gz$' <<<"$contents") man pages"
# Every man page formats without a warning.
for m in "$root"/usr/share/man/man1/*.1.gz; do
  if command -v groff >/dev/null; then
    w=$(zcat "$m" | groff -k -man -Tutf8 -ww -z 2>&1) || fail "groff refuses $(basename "$m")"
    [ -z "$w" ] || fail "$(basename "$m"): $w"
  fi
done

# The packaged binaries and CI script, as installed.
kv=$root/usr/bin/kvplan
line=$("$kv" --version) || fail "kvplan --version failed"
if commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
  [ "$line" = "kvplan $version (commit $commit)" ] ||
    fail "kvplan --version says '$line', HEAD is $commit"
else
  [ "$line" = "kvplan $version (unknown commit)" ] || fail "kvplan --version says '$line'"
fi
echo "packaged: $line"
"$kv" plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 16 >/dev/null ||
  fail "the packaged kvplan plan failed"
QT_QPA_PLATFORM=offscreen "$root/usr/bin/kvplan-gui" --help >/dev/null ||
  fail "the packaged kvplan-gui --help failed"
ci=$root/usr/share/kvplan/ci/kvplan-check.sh ex=$root/usr/share/doc/kvplan/examples
rc=0
"$ci" --kvplan "$kv" --out "$root/ci-pass" "$ex/deploy.json" 2>/dev/null || rc=$?
[ $rc -eq 0 ] || fail "the packaged CI script on deploy.json exited $rc, expected 0"
rc=0
"$ci" --kvplan "$kv" --out "$root/ci-fail" "$ex/deploy.json" "$ex/deploy-fails.json" 2>/dev/null || rc=$?
[ $rc -eq 1 ] || fail "the packaged CI script on deploy-fails.json exited $rc, expected 1"

if [ $failures -gt 0 ]; then
  echo "build-deb: $failures checks failed on $deb" >&2
  exit 1
fi
echo "build-deb: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB): every check holds"
echo "$deb"
