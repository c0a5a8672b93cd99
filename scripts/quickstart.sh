#!/usr/bin/env bash
# Quick start: install what is missing, build, and print a capacity report on built-in defaults
# (Llama 3.1 8B at 32K context on one H100 SXM 80GB).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh default
kvplan=build/default/cli/kvplan
echo
"$kvplan" size --model llama-3.1-8b --context 32768 --batch 16
if "$kvplan" plan --help >/dev/null 2>&1; then
  echo
  "$kvplan" plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 16
fi
