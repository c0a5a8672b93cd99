#!/usr/bin/env bash
# kvplan's reference forward against llama2.c's run.c on the same checkpoint: whole-process wall
# time of greedy generation (temperature 0, the same steps), best of N runs each, and a check that
# both print the same text (run.c's stdout; kvplan generate's stdout, fp32 cache, policy full).
#
#   bench/forward_vs_runc.sh [KVPLAN] [RUNC] [MODEL_DIR] [STEPS] [RUNS]
#     KVPLAN     the kvplan binary (default build/cpu/cli/kvplan)
#     RUNC       run.c built as `gcc -O3 -march=native -o runc run.c -lm`, from
#                github.com/karpathy/llama2.c (default /tmp/runc)
#     MODEL_DIR  holds stories260K.bin and tok512.bin (default ../shared/models/stories260K)
#     STEPS      positions (run.c's -n, kvplan's --steps; default 512 = stories260K's seq_len)
#     RUNS       runs of each, the fastest counts (default 20)
# Prints both times and kvplan/run.c; exits 1 when the texts differ.
set -euo pipefail
KVPLAN=${1:-build/cpu/cli/kvplan}
RUNC=${2:-/tmp/runc}
M=${3:-../shared/models/stories260K}
STEPS=${4:-512}
RUNS=${5:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$RUNC" "$M/stories260K.bin" -z "$M/tok512.bin" -t 0 -n "$STEPS" >"$tmp/runc.txt" 2>/dev/null
"$KVPLAN" generate --checkpoint "$M/stories260K.bin" --tokenizer "$M/tok512.bin" \
  --temperature 0 --steps "$STEPS" >"$tmp/kvplan.txt" 2>/dev/null
if ! cmp -s "$tmp/runc.txt" "$tmp/kvplan.txt"; then
  echo "texts differ:" >&2
  diff "$tmp/runc.txt" "$tmp/kvplan.txt" >&2 || true
  exit 1
fi

# Best wall time (seconds) of RUNS runs of the command.
best() {
  local b=999999 t0 t1 dt
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    dt=$(( (t1 - t0) / 1000 ))
    (( dt < b )) && b=$dt
  done
  echo "$b"
}
runc_us=$(best "$RUNC" "$M/stories260K.bin" -z "$M/tok512.bin" -t 0 -n "$STEPS")
kv_us=$(best "$KVPLAN" generate --checkpoint "$M/stories260K.bin" --tokenizer "$M/tok512.bin" \
  --temperature 0 --steps "$STEPS")
echo "same text: yes ($(wc -c <"$tmp/runc.txt") bytes, $STEPS steps)"
echo "run.c:  ${runc_us} us (best of $RUNS)"
echo "kvplan: ${kv_us} us (best of $RUNS)"
awk -v a="$kv_us" -v b="$runc_us" 'BEGIN { printf "kvplan / run.c = %.2f\n", a / b }'
