#!/usr/bin/env bash
# kvplan replay against the plainest float32 attention loop on the same trace, in one run:
# builds bench/naive_attention.c (-O2, single-threaded), synthesizes a trace with `kvplan trace
# synth` (4096 tokens, 2 layers, 8 query / 2 KV heads, head dim 64, F16: the synth defaults, as
# bench_replay.cpp's trace), times `kvplan replay --kv-dtype fp16 --policy full` and the naive
# loop, and prints the ratios. Two times per process: CPU seconds (user + sys), which a machine
# shared with other jobs disturbs less, and wall (elapsed) seconds. The replay spreads the trace's
# layers over threads (kvplan replay --threads, default all cores up to the 2 layers; THREADS=n
# sets it), so its wall time can be below its CPU time. Issue 16's target, "at least 4x faster
# than the naive single-threaded loop", is elapsed time: the wall ratio. The CPU ratio says what
# the replay costs in total work.
#
#   bench/replay_vs_naive.sh [path/to/kvplan] [tokens]     (default build/default/cli/kvplan, 4096)
#
# BASELINE=path/to/older/kvplan also times that binary on the same trace in the same run (the
# machine's load then disturbs both alike), checks that its JSON equals the new one's with
# tokens_per_second and seconds removed, and prints both ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kvplan=${1:-$here/../build/default/cli/kvplan}
tokens=${2:-4096}
[ -x "$kvplan" ] || { echo "replay_vs_naive: no kvplan at $kvplan (build it, or pass its path)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -std=c11 -o "$work/naive_attention" "$here/naive_attention.c" -lm
"$kvplan" trace synth -q --tokens "$tokens" -o "$work/trace.safetensors" > /dev/null

# cpu_seconds CMD...: runs CMD (stdout to $work/out), prints "cpu wall" in seconds.
cpu_seconds() {
  /usr/bin/time -f "%U %S %e" -o "$work/time" "$@" > "$work/out"
  awk '{printf "%.2f %.2f\n", $1 + $2, $3}' "$work/time"
}
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")
read -r replay_cpu replay_wall < <(cpu_seconds "$kvplan" replay -q --trace "$work/trace.safetensors" \
  --kv-dtype fp16 --policy full --format json "${threads[@]}")
grep -q '"all_bytes_match": true' "$work/out" || { echo "replay_vs_naive: replay failed" >&2; exit 1; }
strip_times() { grep -v -e '"tokens_per_second"' -e '"seconds"' "$1"; }
if [ -n "${BASELINE:-}" ]; then
  strip_times "$work/out" > "$work/new.json"
  read -r base_cpu base_wall < <(cpu_seconds "$BASELINE" replay -q --trace "$work/trace.safetensors" \
    --kv-dtype fp16 --policy full --format json)
  strip_times "$work/out" > "$work/base.json"
  cmp -s "$work/base.json" "$work/new.json" || { echo "replay_vs_naive: JSON differs from the baseline's" >&2; exit 1; }
fi
read -r naive_cpu naive_wall < <(cpu_seconds "$work/naive_attention" "$work/trace.safetensors")
echo "trace: $tokens tokens, 2 layers, 8/2 heads, d 64, F16"
echo "kvplan replay (fp16, full): ${replay_cpu} s CPU (${replay_wall} s wall)${THREADS:+, --threads $THREADS}"
if [ -n "${BASELINE:-}" ]; then
  echo "baseline replay:            ${base_cpu} s CPU (${base_wall} s wall), JSON identical"
  awk -v r="$base_cpu" -v n="$naive_cpu" -v rw="$base_wall" -v nw="$naive_wall" \
    'BEGIN {printf "baseline: %.2fx the naive loop (CPU), %.2fx (wall)\n", n / r, nw / rw}'
fi
echo "naive float32 loop (-O2):   ${naive_cpu} s CPU (${naive_wall} s wall)"
awk -v r="$replay_cpu" -v n="$naive_cpu" -v rw="$replay_wall" -v nw="$naive_wall" \
  'BEGIN {printf "replay is %.2fx %s than the naive loop (CPU time); %.2fx (wall)\n", (r < n ? n / r : r / n), (r < n ? "faster" : "slower"), nw / rw;
          printf "target (issue 16, elapsed time): >= 4x: wall ratio %.2fx: %s\n", nw / rw, (nw / rw >= 4 ? "met" : "NOT met")}'
