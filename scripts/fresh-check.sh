#!/usr/bin/env bash
# Fresh-machine check (issue 15): runs the README's two commands, scripts/quickstart.sh and then
# scripts/test.sh, from a clean `git clone` of this repository (HEAD, committed files only) inside
# a freshly debootstrapped Debian 12 (bookworm, minbase) chroot, so a package the scripts forget
# to install fails here instead of on a user's machine. Needs root; the only network it uses is
# the Debian mirror configured in /etc/apt/sources.list(.d).
#
#   scripts/fresh-check.sh                 # clone HEAD, debootstrap, run, report, clean up
#   KVPLAN_FRESH_OVERLAY="scripts/setup.sh" scripts/fresh-check.sh
#                                          # copy these working-tree files over the clone first
#   KVPLAN_FRESH_KEEP=1 scripts/fresh-check.sh   # keep the chroot (its path is printed)
#   KVPLAN_FRESH_DIR=/var/tmp              # where the chroot goes (default: /var/tmp)
#
# ../shared (the test model) is copied next to the clone, as the README lays it out. Then the
# package (issue 28): test.sh's package stage leaves build/deb/kvplan_*.deb; it is installed
# with `apt-get install ./kvplan_*.deb` into a second copy of the fresh chroot, taken right after
# debootstrap (so only apt and the package's own Depends are there, no build packages), where
# `kvplan --version`, `kvplan plan` and the packaged CI script (scripts/ci/kvplan-check.sh) run.
# The report names each stage with its wall time; the exit status is 0 when every stage passed,
# 1 when one of them failed, 2 when the chroot could not be set up.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
name=$(basename "$repo")
started=$(date +%s)

log() { echo "fresh-check: $*" >&2; }
if [ "$(id -u)" -ne 0 ]; then
  log "needs root (debootstrap, mount, chroot)"
  exit 2
fi

source scripts/lib/apt.sh
install_missing fresh-check debootstrap git

# The first Debian mirror apt is configured with: deb822 (.sources, "URIs:") or one-line format.
mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  mirror=$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$f")
  [ -n "$mirror" ] && break
done
if [ -z "$mirror" ]; then
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    mirror=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' "$f")
    [ -n "$mirror" ] && break
  done
fi
if [ -z "$mirror" ]; then
  log "no Debian mirror found in /etc/apt/sources.list(.d)"
  exit 2
fi

top=$(mktemp -d "${KVPLAN_FRESH_DIR:-/var/tmp}/kvplan-fresh.XXXXXX")
rootfs=$top/rootfs
pkgroot=$top/pkgroot  # the untouched copy the package is installed into
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -l "${mounted[i]}" 2>/dev/null || true
  done
  if [ "${KVPLAN_FRESH_KEEP:-0}" = 1 ]; then
    log "kept $rootfs"
  else
    rm -rf --one-file-system "$top"
  fi
}
trap cleanup EXIT

stage_start=$(date +%s)
stage() {  # prints the wall time of the stage that just ended
  local now
  now=$(date +%s)
  log "$1 ($((now - stage_start)) s)"
  stage_start=$now
}

log "debootstrap bookworm (minbase) from $mirror into $rootfs"
if ! debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$top/debootstrap.log" 2>&1; then
  tail -n 20 "$top/debootstrap.log" >&2
  log "debootstrap failed"
  exit 2
fi
# The same suites as the host (updates, security) where it has them.
if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
  cp /etc/apt/sources.list.d/*.sources "$rootfs/etc/apt/sources.list.d/"
  rm -f "$rootfs/etc/apt/sources.list"
fi
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
cp -a "$rootfs" "$pkgroot"
stage "debootstrap done"

# A clean clone of HEAD, plus ../shared beside it.
mkdir -p "$rootfs/work"
git clone -q --no-local "$repo" "$rootfs/work/$name"
commit=$(git -C "$rootfs/work/$name" rev-parse --short HEAD)  # HEAD may move while this runs
for p in ${KVPLAN_FRESH_OVERLAY:-}; do
  log "overlay from the working tree: $p"
  cp -a "$repo/$p" "$rootfs/work/$name/$p"
done
if [ -d "$repo/../shared" ]; then
  cp -a "$repo/../shared" "$rootfs/work/shared"
fi
log "clone of $commit in /work/$name"

mount_fs() {  # mount_fs ROOT: proc, sys, dev, dev/pts and dev/shm, unmounted by cleanup
  local m
  for m in proc sys dev dev/pts; do
    mkdir -p "$1/$m"
    case $m in
      proc) mount -t proc proc "$1/proc" ;;
      sys) mount -t sysfs sys "$1/sys" ;;
      dev) mount --bind /dev "$1/dev" ;;
      dev/pts) mount -t devpts devpts "$1/dev/pts" ;;
    esac
    mounted+=("$1/$m")
  done
  mkdir -p "$1/dev/shm"
  mount -t tmpfs shm "$1/dev/shm"
  mounted+=("$1/dev/shm")
}
mount_fs "$rootfs"

in_root() {  # in_root ROOT DIR COMMAND
  chroot "$1" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd $2 && $3"
}
in_chroot() { in_root "$rootfs" "/work/$name" "$1"; }

result=0
results=()
for cmd in scripts/quickstart.sh scripts/test.sh; do
  log "running $cmd in the chroot"
  rc=0
  in_chroot "$cmd" || rc=$?
  now=$(date +%s)
  results+=("$cmd: $([ "$rc" -eq 0 ] && echo passed || echo "FAILED (exit $rc)"), $((now - stage_start)) s")
  stage "$cmd exit $rc"
  if [ "$rc" -ne 0 ]; then
    result=1
    break
  fi
done

# The package in the untouched copy: apt resolves its Depends from the Debian mirror; then the
# installed kvplan and the packaged CI script run (deploy.json passes: exit 0; with
# deploy-fails.json the step exits 1). No python3 or build package is in this root.
if [ "$result" -eq 0 ]; then
  debs=("$rootfs/work/$name"/build/deb/kvplan_*.deb)
  if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    results+=("package: FAILED (test.sh left no build/deb/kvplan_*.deb)")
    result=1
  else
    deb=$(basename "${debs[0]}")
    mkdir -p "$pkgroot/work"
    cp "${debs[0]}" "$pkgroot/work/"
    mount_fs "$pkgroot"
    log "installing $deb in a fresh copy of the chroot"
    ex=/usr/share/doc/kvplan/examples ci=/usr/share/kvplan/ci/kvplan-check.sh
    want="(commit $(git -C "$rootfs/work/$name" rev-parse --short=12 HEAD))"  # the clone's HEAD
    rc=0
    in_root "$pkgroot" /work "set -e
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ./$deb >/dev/null
      dpkg-query -W -f='installed \${Package} \${Version}, Depends: \${Depends}\n' kvplan
      v=\$(kvplan --version); echo \"\$v\"
      case \"\$v\" in \"kvplan \"*\" $want\") ;; *) echo \"kvplan --version does not name $want\"; exit 1 ;; esac
      kvplan plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 16
      QT_QPA_PLATFORM=offscreen kvplan-gui --help >/dev/null
      man -w kvplan-check 2>/dev/null || ls /usr/share/man/man1/kvplan-check.1.gz
      $ci --out /tmp/ci-pass $ex/deploy.json
      rc=0; $ci --out /tmp/ci-fail $ex/deploy.json $ex/deploy-fails.json || rc=\$?
      cat /tmp/ci-fail/kvplan-check.md
      [ \$rc -eq 1 ] || { echo \"the CI script exited \$rc on deploy-fails.json, expected 1\"; exit 1; }" ||
      rc=$?
    now=$(date +%s)
    results+=("package $deb installed and run in a fresh chroot: $([ "$rc" -eq 0 ] && echo passed || echo "FAILED (exit $rc)"), $((now - stage_start)) s")
    stage "package exit $rc"
    [ "$rc" -eq 0 ] || result=1
  fi
fi

echo
echo "fresh-check: Debian $(cat "$rootfs/etc/debian_version") chroot from $mirror," \
  "clone of $commit${KVPLAN_FRESH_OVERLAY:+ + overlay: $KVPLAN_FRESH_OVERLAY}"
for r in "${results[@]}"; do echo "  $r"; done
echo "  total $(( $(date +%s) - started )) s"
exit $result
