#!/usr/bin/env bash
# Quick start: install what is missing, build, and print a capacity report on built-in defaults:
# Llama 3.1 8B, 16 requests of 32K tokens on one H100 SXM 80GB. The plan as asked holds 13 of
# them, so its report ends with the cheapest fix (fp8 KV cache on the same GPU); then the fix,
# applied as a deployment file (examples/deploy.json), passes kvplan check.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh default
kvplan=build/default/cli/kvplan
echo
"$kvplan" size --model llama-3.1-8b --context 32768 --batch 16
echo
"$kvplan" plan --model llama-3.1-8b --gpu h100-sxm-80gb --context 32768 --concurrency 16
echo
echo "== The fix applied: examples/deploy.json is this deployment with kv_cache_dtype fp8"
"$kvplan" check examples/deploy.json
echo
echo "Next: docs/tutorial.md (size, plan, check in CI, replay), or $kvplan --help"
