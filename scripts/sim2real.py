#!/usr/bin/env python3
"""kvplan's serving simulator against inference-sim's sim-to-real measurements (vLLM 0.15.1 on
H100, A100-80GB and L40S; tests/data/sim2real/README.md says where every figure comes from).

For each experiment of the chosen split that has a published workload, runs

    kvplan simulate --model <HF id> --gpu <preset> --tp N --max-num-seqs S
        --max-num-batched-tokens T --gpu-memory-utilization U
        --workload tests/data/sim2real/workloads/<exp>.json --format json

and compares its summary with the measured one: the absolute percentage error
|predicted - measured| / measured * 100 of E2E mean/p90/p99, TTFT mean/p90/p99 and ITL mean,
then the median over the experiments, printed as a Markdown table beside the medians of the
peers (BLIS, Vidur, llm-optimizer, AIConfigurator, LLMServingSim) on the same experiments, and
kvplan's GPU KV-cache tokens beside the logged ones where a run's log was published.

    python3 scripts/sim2real.py --kvplan build/warm/cli/kvplan            # the test split
    python3 scripts/sim2real.py --split train --peers-only                # no kvplan needed

Worked example of one error: experiment 2 measured an E2E mean of 3993.18 ms; a prediction of
3594 ms is |3594 - 3993.18| / 3993.18 = 10.0 % off.

Exit status: 0 when every experiment ran, 1 when kvplan could not simulate one (the peers'
table is still printed, the reason is named), 2 for bad arguments or data.
"""
import argparse
import csv
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "sim2real"

# metric -> (object in kvplan simulate's JSON summary, statistic)
METRICS = {
    "e2e_mean": ("e2e_ms", "mean"), "e2e_p90": ("e2e_ms", "p90"), "e2e_p99": ("e2e_ms", "p99"),
    "ttft_mean": ("ttft_ms", "mean"), "ttft_p90": ("ttft_ms", "p90"),
    "ttft_p99": ("ttft_ms", "p99"),
    # The measured ITL is (mean E2E - mean TTFT) / (mean output length - 1) (the validation's
    # experiment/ground_truth.py), i.e. time per output token, not the gap between stream chunks.
    "itl_mean": ("tpot_ms", "mean"),
}
PEERS = ["blis-trained-physics", "blis-roofline", "blis-evolved", "vidur",
         "llm-optimizer-estimate", "aiconfigurator-estimate", "llmservingsim"]


def fail(msg):
    print(f"sim2real.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def read_csv(path):
    try:
        with open(path, newline="") as fh:
            return list(csv.DictReader(fh))
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def ape(predicted, measured):
    return abs(predicted - measured) / measured * 100


def median(xs):
    return statistics.median(xs) if xs else None


def cell(x, n=None):
    if x is None:
        return "–"
    return f"{x:.1f} % (n={n})" if n is not None else f"{x:.1f} %"


def load(data, split):
    exps = [e for e in read_csv(data / "experiments.csv") if split in ("all", e["split"])]
    if not exps:
        fail(f"{data}/experiments.csv: no experiment in split '{split}'")
    measured = {}
    for m in read_csv(data / "measured.csv"):
        if m["stage"] == "-1":
            measured[(m["exp"], m["metric"])] = float(m["value_ms"])
    peers = {}  # (exp, peer, metric) -> ape
    for p in read_csv(data / "peers.csv"):
        if p["note"].find("another run") < 0:  # only errors against the run of this id
            peers[(p["exp"], p["peer"], p["metric"])] = float(p["ape_pct"])
    return exps, measured, peers


def kvplan_simulate(kvplan, e, data, timeout):
    """kvplan simulate's JSON for experiment e, or raises RuntimeError naming why not."""
    cmd = [kvplan, "simulate", "--model", e["model_hf"], "--gpu", e["gpu_preset"],
           "--tp", e["tp"], "--max-num-seqs", e["max_num_seqs"],
           "--max-num-batched-tokens", e["max_num_batched_tokens"],
           "--gpu-memory-utilization", e["gpu_memory_utilization"],
           "--workload", str(data / e["workload_file"]), "--format", "json"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise RuntimeError(f"{kvplan}: not found (build it: cmake --build <dir> --target kvplan)")
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"timed out after {timeout} s: {' '.join(cmd)}")
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.strip() or p.stdout.strip()}\n"
                           f"  command: {' '.join(cmd)}")
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError as err:
        raise RuntimeError(f"output is not JSON ({err}): {p.stdout[:200]!r}")


def predicted(doc, metric, exp):
    obj, stat = METRICS[metric]
    try:
        v = doc["summary"][obj][stat]
    except (KeyError, TypeError):
        raise RuntimeError(f"{exp}: kvplan simulate's JSON has no summary.{obj}.{stat}")
    if not isinstance(v, (int, float)):
        raise RuntimeError(f"{exp}: summary.{obj}.{stat} is {v!r}, not a number")
    return float(v)


def find_kvplan(arg):
    if arg:
        return arg
    if os.environ.get("KVPLAN"):
        return os.environ["KVPLAN"]
    for d in ("warm", "default", "hv"):
        p = ROOT / "build" / d / "cli" / "kvplan"
        if p.exists():
            return str(p)
    return shutil.which("kvplan") or "kvplan"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=["train", "test", "all"], default="test",
                    help="which experiments (default: test, the validation set)")
    ap.add_argument("--kvplan", help="the kvplan binary (default: $KVPLAN, build/*/cli/kvplan)")
    ap.add_argument("--data", type=pathlib.Path, default=DATA, help="default: %(default)s")
    ap.add_argument("--peers-only", action="store_true", help="only the peers' medians")
    ap.add_argument("--exp", action="append", help="only this experiment (repeatable)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run")
    ap.add_argument("--calibrate", action="store_true",
                    help="fit step-time efficiency on --split train first (not yet written)")
    a = ap.parse_args()
    if a.calibrate:
        fail("--calibrate is not written yet (issue 14, item 8): run without it")

    exps, measured, peers = load(a.data, a.split)
    if a.exp:
        unknown = set(a.exp) - {e["exp"] for e in exps}
        if unknown:
            fail(f"not in split '{a.split}': {', '.join(sorted(unknown))}")
        exps = [e for e in exps if e["exp"] in a.exp]
    runnable = [e for e in exps if e["workload_file"]]
    skipped = [e["exp"] for e in exps if not e["workload_file"]]

    kv_rows, ours, problems = [], {}, []
    if not a.peers_only:
        kvplan = find_kvplan(a.kvplan)
        for e in runnable:
            try:
                doc = kvplan_simulate(kvplan, e, a.data, a.timeout)
                ours[e["exp"]] = {m: ape(predicted(doc, m, e["exp"]), measured[(e["exp"], m)])
                                  for m in METRICS if (e["exp"], m) in measured}
                blocks, size = doc.get("num_gpu_blocks"), doc.get("block_size")
                ours_tokens = blocks * size if isinstance(blocks, int) and isinstance(size, int) else None
                logged = (int(e["gpu_kv_blocks_logged"]) * int(e["block_size"])
                          if e["gpu_kv_blocks_logged"] else None)
                kv_rows.append((e["exp"], ours_tokens, logged))
            except RuntimeError as err:
                problems.append(f"{e['exp']}: {err}")
                if not ours:  # the first run failed: the rest would fail alike
                    break

    print(f"## sim2real: split {a.split}, {len(exps)} experiments, {len(runnable)} with a "
          f"published workload\n")
    base = list(ours) if ours else [e["exp"] for e in runnable]
    who = "kvplan simulated" if ours else "with a published workload (kvplan's set)"
    print(f"Median absolute percentage error over the experiments {who}; n = experiments the "
          f"column covers. Summary over all stages.\n")
    cols = (["kvplan"] if ours else []) + PEERS
    print("| metric | " + " | ".join(cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for m in METRICS:
        row = []
        if ours:
            xs = [ours[x][m] for x in base if m in ours[x]]
            row.append(cell(median(xs), len(xs)))
        for p in PEERS:
            xs = [peers[(x, p, m)] for x in base if (x, p, m) in peers]
            row.append(cell(median(xs), len(xs)))
        print(f"| {m} | " + " | ".join(row) + " |")

    everything = [e["exp"] for e in exps]
    print(f"\nThe peers over every experiment of the split they ran ({len(everything)} in all):\n")
    print("| metric | " + " | ".join(PEERS) + " |")
    print("|---" * (len(PEERS) + 1) + "|")
    for m in METRICS:
        row = []
        for p in PEERS:
            xs = [peers[(x, p, m)] for x in everything if (x, p, m) in peers]
            row.append(cell(median(xs), len(xs)))
        print(f"| {m} | " + " | ".join(row) + " |")

    if kv_rows:
        print("\n| experiment | kvplan GPU KV tokens | logged |")
        print("|---|---|---|")
        for x, t, l in kv_rows:
            print(f"| {x} | {t if t is not None else '–'} | {l if l is not None else '–'} |")
    if skipped:
        print(f"\nNo published workload (not simulated): {', '.join(skipped)}")
    if problems:
        print("\nkvplan could not simulate:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        if len(ours) == 0 and len(problems) == 1 and len(runnable) > 1:
            print("  (stopped after the first failure)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
