#!/usr/bin/env bash
# The whole test suite: the same set-up as quickstart.sh, then every test (ctest), then the CPU
# tests under the sanitizers and a fuzz smoke. Exits non-zero on any failure. The `default`
# preset requires the GUI (KVPLAN_GUI=ON), so a missing Qt package fails the configure step
# instead of quietly leaving the GUI out. It ends, pass or fail, with a summary of what was built
# and tested (GUI, CUDA compiled, GPU tests run or skipped), read from the CMake caches and
# ctest's JUnit results (build/<preset>/ctest-results.xml), with each stage's wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
default_build=build/default  # binaryDir of the default and asan presets (CMakePresets.json)
asan_build=build/asan
fuzz_log=build/fuzz-smoke.log
rm -f "$default_build/ctest-results.xml" "$asan_build/ctest-results.xml" "$fuzz_log"

timings=()
current=""
step() {  # step NAME COMMAND...: runs the command and records its wall time
  local name=$1 s
  s=$(date +%s)
  shift
  current=$name
  "$@"
  timings+=("$name=$(($(date +%s) - s))")
  current=""
}

summary() {
  local rc=$?
  trap - EXIT
  echo
  if ! command -v python3 >/dev/null; then
    echo "test.sh: exit $rc${current:+ in $current} (no python3 for the summary)"
    exit "$rc"
  fi
  RC=$rc FAILED_STAGE=$current TIMINGS="${timings[*]:-}" TOTAL=$(($(date +%s) - started)) \
    DEFAULT=$default_build ASAN=$asan_build FUZZ_LOG=$fuzz_log python3 - <<'PY' || true
import os, re, xml.etree.ElementTree as ET

def cache(build):
    vals = {}
    try:
        for line in open(os.path.join(build, "CMakeCache.txt"), errors="replace"):
            m = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                vals[m.group(1)] = m.group(2)
    except OSError:
        return None
    return vals

def results(build):
    """{label: {"passed": n, "failed": n, "skipped": n, "reasons": set()}} or None."""
    path = os.path.join(build, "ctest-results.xml")
    labels = {}
    try:
        import json, subprocess
        shown = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                               capture_output=True, text=True, check=True).stdout
        for t in json.loads(shown)["tests"]:
            for p in t.get("properties", []):
                if p["name"] == "LABELS":
                    labels[t["name"]] = p["value"][0]
        root = ET.parse(path).getroot()
    except Exception:
        return None
    out = {}
    for case in root.iter("testcase"):
        label = labels.get(case.get("name"), "unlabelled")
        r = out.setdefault(label, {"passed": 0, "failed": 0, "skipped": 0, "reasons": set()})
        status = case.get("status")
        if status == "run":
            r["passed"] += 1
        elif status == "fail":
            r["failed"] += 1
        else:
            r["skipped"] += 1
            text = (case.findtext("system-out") or "").splitlines()
            for i, line in enumerate(text):
                if line.rstrip().endswith("Skipped") and i + 1 < len(text) and text[i + 1].strip():
                    r["reasons"].add(text[i + 1].strip())
                    break
    return out

def counts(r):
    s = f'{r["passed"]} passed, {r["failed"]} failed'
    if r["skipped"]:
        s += f', {r["skipped"]} skipped'
    return s

d, a = os.environ["DEFAULT"], os.environ["ASAN"]
c, res, ares = cache(d), results(d), results(a)
rows = []
if c is None:
    rows.append(("build", f"{d} not configured"))
else:
    gui_opt = c.get("KVPLAN_GUI", "?")
    qt = c.get("Qt6_DIR", "")
    gui_built = os.path.exists(os.path.join(d, "gui", "kvplan-gui"))
    if gui_built:
        g = f"built (KVPLAN_GUI={gui_opt}, Qt from {qt})"
    elif gui_opt == "OFF" or not qt or qt.endswith("NOTFOUND"):
        g = f"NOT built (KVPLAN_GUI={gui_opt}, Qt 6 {'not found' if gui_opt != 'OFF' else 'off'})"
    else:
        g = f"configured (KVPLAN_GUI={gui_opt}) but gui/kvplan-gui was not built"
    if res is not None:
        r = res.get("gui")
        g += f"; gui tests: {counts(r)}" if r else "; no gui tests ran"
    rows.append(("GUI", g))

    # enable_language(CUDA) records the compiler in CMakeFiles/<version>/CMakeCUDACompiler.cmake.
    import glob
    nvcc = ""
    for f in glob.glob(os.path.join(d, "CMakeFiles", "*", "CMakeCUDACompiler.cmake")):
        m = re.search(r'set\(CMAKE_CUDA_COMPILER "([^"]*)"\)', open(f, errors="replace").read())
        nvcc = m.group(1) if m else nvcc
    cuda_opt = c.get("KVPLAN_CUDA", "?")
    if cuda_opt != "OFF" and nvcc and os.path.exists(os.path.join(d, "tests", "kvplan_cuda_tests")):
        rows.append(("CUDA", f"compiled (KVPLAN_CUDA={cuda_opt}, {nvcc})"))
    else:
        rows.append(("CUDA", f"not compiled (KVPLAN_CUDA={cuda_opt}, no CUDA compiler found)"
                     if cuda_opt != "OFF" else "not compiled (KVPLAN_CUDA=OFF)"))
    if res is None:
        rows.append(("GPU tests", "not reached"))
    else:
        r = res.get("gpu")
        if not r:
            rows.append(("GPU tests", "none (CUDA not compiled)"))
        elif r["skipped"]:
            why = "; ".join(sorted(r["reasons"])[:2]) or "no device"
            n = r["passed"] + r["failed"] + r["skipped"]
            rows.append(("GPU tests", f'SKIPPED: {r["skipped"]} of {n} ({why}); the device-free '
                                      f'rest {r["passed"]} passed, {r["failed"]} failed'))
        else:
            rows.append(("GPU tests", f"run on a GPU: {counts(r)}"))
        r = res.get("cpu")
        rows.append(("CPU tests", counts(r) if r else "none"))
if ares is None:
    rows.append(("ASan+UBSan", "not reached"))
else:
    r = ares.get("cpu")
    rows.append(("ASan+UBSan", f"cpu tests: {counts(r)}" if r else "no tests ran"))
stages = [kv.split("=")[0] for kv in os.environ["TIMINGS"].split()]
try:
    md = open("build/ci-check/kvplan-check.md", errors="replace").read().splitlines()
    said = md[2].split(". kvplan")[0] if len(md) > 2 else "no summary"
    rows.append(("CI step", f"exit 1 as expected (deploy-fails.json fails): {said}"
                 if "ci-step" in stages else f"FAILED: {md[0][3:] if md else ''} ({said})"))
except OSError:
    rows.append(("CI step", "not reached"))
import glob
debs = sorted(glob.glob("build/deb/kvplan_*.deb"))
passed = "package" in stages
rows.append(("package", f"{os.path.basename(debs[0])}, inspected (scripts/pkg/build-deb.sh)"
             if passed and debs else "FAILED" if os.environ["FAILED_STAGE"] == "package"
             else "not reached"))
try:
    fz = open(os.environ["FUZZ_LOG"], errors="replace").read()
    ok = len(re.findall(r" ok$", fz, re.M))
    crashed = re.findall(r"^(\S+) .* CRASH", fz, re.M)
    m = re.search(r"fuzz: (\d+) executions in all, (\S+) per target", fz)
    f = f"{ok} targets clean" + (f", CRASHED: {' '.join(crashed)}" if crashed else "")
    if m:
        f += f", {m.group(1)} executions, {m.group(2)} per target"
    rows.append(("fuzz smoke", f))
except OSError:
    rows.append(("fuzz smoke", "not reached"))

t = dict(kv.split("=") for kv in os.environ["TIMINGS"].split() if "=" in kv)
rows.append(("wall time", ", ".join(f"{k} {v} s" for k, v in t.items()) +
             f"; total {os.environ['TOTAL']} s"))
rc, failed = int(os.environ["RC"]), os.environ["FAILED_STAGE"]
print(f"test.sh: {'PASSED' if rc == 0 else f'FAILED (exit {rc}' + (f' in {failed})' if failed else ')')}")
for k, v in rows:
    print(f"  {k:<11} {v}")
PY
  exit "$rc"
}
trap summary EXIT

step setup scripts/setup.sh default
step format-check scripts/format-check.sh
if [ -z "${KVPLAN_TEST_MODEL_DIR:-}" ] && [ -d ../shared/models/stories260K ]; then
  export KVPLAN_TEST_MODEL_DIR="$(cd ../shared/models/stories260K && pwd)"
fi
export QT_QPA_PLATFORM=offscreen
jobs=$(nproc 2>/dev/null || echo 2)
step ctest ctest --preset default -j "$jobs" --timeout 300 \
  --output-junit "$PWD/$default_build/ctest-results.xml"

# The CI step (docs/ci.md) as a user's CI runs it: scripts/ci/kvplan-check.sh on the examples
# with the built kvplan. deploy-fails.json fails by design, so the step must exit 1 (0 or 2
# would be a dishonest report); Kubernetes manifests in examples/k8s/ are checked too, once
# that folder exists, and must not be invalid (exit 2) or crash kvplan (3).
ci_step() {
  local out=build/ci-check rc=0
  scripts/ci/kvplan-check.sh --kvplan "$default_build/cli/kvplan" --out "$out" \
    examples/deploy.json examples/deploy-fails.json || rc=$?
  cat "$out/kvplan-check.md"
  if [ "$rc" -ne 1 ]; then
    echo "test.sh: the CI step on examples/deploy.json examples/deploy-fails.json exited $rc," \
      "expected 1 (deploy-fails.json fails its check)" >&2
    return 1
  fi
  if [ -d examples/k8s ]; then
    rc=0
    scripts/ci/kvplan-check.sh --kvplan "$default_build/cli/kvplan" --out build/ci-check-k8s \
      'examples/k8s/**/*.yaml' || rc=$?
    cat build/ci-check-k8s/kvplan-check.md
    if [ "$rc" -gt 1 ]; then
      echo "test.sh: the CI step on examples/k8s/ exited $rc (invalid manifest or kvplan error)" >&2
      return 1
    fi
  else
    echo "test.sh: no examples/k8s/ yet: the CI step on Kubernetes manifests is skipped"
  fi
}
rm -rf build/ci-check build/ci-check-k8s
step ci-step ci_step
# The Debian package, from a build without CUDA (build/default where nvcc is absent, else
# build/package), inspected: dpkg-deb --info and --contents, Depends against the libraries
# linked, the packaged binaries run. The package is left in build/deb/.
step package scripts/pkg/build-deb.sh

# Sanitizers: the CPU tests again under AddressSanitizer + UBSan (the asan preset, tests only),
# then a 10-second smoke of every fuzz target (clang, installed by fuzz.sh when missing).
cmake --preset asan >/dev/null
step asan-build cmake --build --preset asan -j "$jobs"
step asan-ctest ctest --preset asan -j "$jobs" --timeout 600 \
  --output-junit "$PWD/$asan_build/ctest-results.xml"
mkdir -p build
fuzz_smoke() { KVPLAN_FUZZ_SEED=1 scripts/fuzz.sh 10 2>&1 | tee "$fuzz_log"; }
step fuzz-smoke fuzz_smoke
