#!/usr/bin/env bash
# Checks that every tracked C++ and CUDA source is formatted as .clang-format says (STYLE.md rule
# 19: Google base, 100 columns), with Debian's clang-format. Lists the files that differ and
# exits 1 if any does; `--fix` rewrites them in place instead. Usage:
#   scripts/format-check.sh          # check (scripts/test.sh runs this)
#   scripts/format-check.sh --fix    # format every file that differs
#   scripts/format-check.sh FILE...  # check (or with --fix, format) only these files
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/apt.sh
install_missing format-check clang-format

fix=0
if [ "${1:-}" = "--fix" ]; then
  fix=1
  shift
fi
if [ $# -gt 0 ]; then
  # Only the sources the whole-tree check covers: clang-format would take a CMakeLists.txt or a
  # script for C++ and mangle it.
  files=()
  skipped=()
  for f in "$@"; do
    case "$f" in
      *.cpp | *.hpp | *.h | *.cc | *.cu | *.cuh) files+=("$f") ;;
      *) skipped+=("$f") ;;
    esac
  done
  [ ${#skipped[@]} -eq 0 ] || printf 'format-check: not a C++ or CUDA source, left alone: %s\n' "${skipped[@]}" >&2
else
  mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.cc' '*.cu' '*.cuh')
fi

differ=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! clang-format --style=file "$f" | cmp -s - "$f"; then
    differ+=("$f")
    [ "$fix" -eq 0 ] || clang-format --style=file -i "$f"
  fi
done

if [ ${#differ[@]} -eq 0 ]; then
  echo "format-check: ${#files[@]} files formatted as .clang-format says ($(clang-format --version))"
  exit 0
fi
if [ "$fix" -eq 1 ]; then
  printf 'format-check: formatted %s\n' "${differ[@]}"
  exit 0
fi
printf 'format-check: differs from .clang-format: %s\n' "${differ[@]}" >&2
echo "format-check: ${#differ[@]} of ${#files[@]} files differ; run scripts/format-check.sh --fix" >&2
exit 1
