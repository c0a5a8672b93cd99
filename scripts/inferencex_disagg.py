#!/usr/bin/env python3
"""kvplan simulate against InferenceX's disaggregated prefill/decode rows (issue 24).

Runs every `mode == disagg` row of ../shared/data/inferencex/silicon_sample.csv whose engine
kvplan's disaggregated simulator models (vLLM, docs/disagg.md) through `kvplan simulate
--prefill-replicas ...` and compares the mean TTFT and TPOT with the measured ones. Rows of other
engines, and vLLM rows whose launch settings are not published, are counted with the reason.
Nothing is fitted on these rows: they are all test rows (the step-time model was fitted on the
train split of scripts/inferencex.py's aggregated rows, by model; Kimi-K2.5 is a test model).

Each scored row's settings are its recipe's, read from the file and commit named in RECIPES
(NVIDIA/srt-slurm, the recipes InferenceX's config names for the row's config_id in
.github/configs/nvidia-master.yaml "kimik2.5-fp4-gb200-dynamo-vllm", SemiAnalysisAI/InferenceX@
235b232d2, the main of the measurement day 2026-04-07). How a recipe maps onto kvplan:
* prefill "dep4": one vLLM server of data-parallel-size 4, TP 1, --enable-expert-parallel. Each
  DP rank schedules its own requests, so the side is 4 replicas at --prefill-tp 1 with
  --prefill-engine-option data_parallel_size=4 (their MoE layers shared, docs/simulate.md).
* decode "tep4" x 4 workers: 4 replicas at --decode-tp 4, enable_expert_parallel=true.
* both sides: the recipe's max-num-seqs, max-num-batched-tokens, gpu-memory-utilization,
  block-size, kv-cache-dtype fp8, max-model-len, no prefix caching. enforce-eager (prefill), the
  compilation config, stream-interval and the all-to-all backend have no kvplan setting.
* link: nvlink (both sides' 20 GPUs sit in one GB200 NVL72 domain; NixlConnector); routing
  least_loaded (vLLM's DP front end sends a request to the rank with the fewest queued and
  running requests; the dynamo frontend's choice across decode workers is assumed the same).
* client: the recipe's "sa-bench" runs benchmark_serving.py with --random-range-ratio 0.8,
  --num-prompts 10 * CONC and --max-concurrency CONC (src/srtctl/benchmarks/scripts/sa-bench/
  bench.sh@024aa2dc6dfc7b2dcf7e50789153326d4bf250c9 defaults), InferenceX's own client: the
  closed loop of scripts/inferencex.py's workload().

    python3 scripts/inferencex_disagg.py                  # the report, on stdout
    python3 scripts/inferencex_disagg.py --csv rows.csv   # and every row's figures

Exit status: 0 when every expressible row ran, 1 when kvplan failed on one, 2 for bad arguments
or missing data.
"""
import argparse
import collections
import csv
import json
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import inferencex as ix  # noqa: E402  (the aggregated runner: client, errors, kvplan lookup)

SRT = "NVIDIA/srt-slurm"
# (config_id, isl) -> the recipe InferenceX ran, and what it sets. Both are vLLM v0.18.0.
RECIPES = {
    ("698", 1024): {
        "file": "recipes/vllm/kimi-k2.5/1k1k/disagg-gb200-1p4d-dep4-tep4.yaml",
        "commit": "36057dc04789a90aa5ce5596e4b30eb64f3de5a8",
        "max_model_len": 3072, "prefill_seqs": 1024, "decode_seqs": 1024},
    ("698", 8192): {
        "file": "recipes/vllm/kimi-k2.5/8k1k/disagg-gb200-1p4d-dep4-tep4.yaml",
        "commit": "4a13ebbc1d9566b5b4f9d756599eb420c21a74a0",
        "max_model_len": 10240, "prefill_seqs": 64, "decode_seqs": 16},
}
# Common to both recipes: prefill DP 4 (TP 1, EP), 16384 batched tokens; decode TP 4 (EP), 10240
# batched tokens; both 0.9 of the GPU, blocks of 64, fp8 KV.
PREFILL_DP, PREFILL_MNBT, DECODE_TP, DECODE_MNBT, FRACTION, BLOCK = 4, 16384, 4, 10240, 0.9, 64
MODELS = {("moonshotai/Kimi-K2.5", "fp4"): "models/kimi-k2.5-nvfp4"}
GPUS = {"gb200": "gb200"}


def config_id(row):
    src = row["silicon_data_source"]
    i = src.find("config_id=")
    return src[i + 10:].split(";")[0].strip() if i >= 0 else ""


def concurrency(row):
    src = row["silicon_data_source"]
    i = src.find("silicon_concurrency=")
    return src[i + 20:].split(";")[0].strip() if i >= 0 else ""


def why_not(row):
    """The reason a disaggregated row is not simulated, or None."""
    if row["backend"] != "vllm":
        return f"{row['backend']} disaggregation is not modelled (docs/disagg.md: vLLM only)"
    if not concurrency(row):
        return "the client's concurrency is not stated (NVIDIA gap-analysis rows; settings unpublished)"
    if (config_id(row), int(row["isl"])) not in RECIPES:
        return (f"the recipe of config_id {config_id(row)} at ISL {row['isl']} as run then "
                f"(vLLM {row['backend_version']}) was not found")
    if (row["model_path"], row["precision"]) not in MODELS or row["system"] not in GPUS:
        return f"no kvplan model or GPU for {row['model_path']} {row['precision']} on {row['system']}"
    layout = (row["prefill_num_workers"], row["prefill_tp_size"], row["decode_num_workers"],
              row["decode_tp_size"])
    if layout != ("1", str(PREFILL_DP), "4", str(DECODE_TP)):
        return f"layout {layout} is not the recipe's 1p4d dep4 / tep4"
    return None


def command(kvplan, row, data, wl_path):
    r = RECIPES[(config_id(row), int(row["isl"]))]
    workers = int(row["decode_num_workers"])
    return [kvplan, "simulate", "--model", str(data / MODELS[(row["model_path"], row["precision"])]),
            "--gpu", GPUS[row["system"]], "--engine", "vllm", "--kv-dtype", "fp8",
            "--block-size", str(BLOCK), "--max-model-len", str(r["max_model_len"]),
            "--gpu-memory-utilization", str(FRACTION), "--no-enable-prefix-caching",
            "--prefill-replicas", str(PREFILL_DP * int(row["prefill_num_workers"])),
            "--prefill-tp", "1",
            "--prefill-engine-option", f"data_parallel_size={PREFILL_DP}",
            "--prefill-engine-option", "enable_expert_parallel=true",
            "--prefill-max-num-seqs", str(r["prefill_seqs"]),
            "--prefill-max-num-batched-tokens", str(PREFILL_MNBT),
            "--decode-replicas", str(workers), "--decode-tp", str(DECODE_TP),
            "--decode-engine-option", "enable_expert_parallel=true",
            "--decode-max-num-seqs", str(r["decode_seqs"]),
            "--decode-max-num-batched-tokens", str(DECODE_MNBT),
            "--kv-link", "nvlink", "--routing", "least_loaded",
            "--workload", str(wl_path), "--format", "json", "--quiet"]


def simulate(kvplan, row, data, timeout):
    with tempfile.TemporaryDirectory(prefix="inferencex-disagg-") as d:
        wl = pathlib.Path(d) / "workload.json"
        wl.write_text(json.dumps(ix.workload(row, None, 0)))
        cmd = command(kvplan, row, data, wl)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except FileNotFoundError:
            raise RuntimeError(f"{kvplan}: not found (build it: cmake --build <dir> --target kvplan)")
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"timed out after {timeout} s")
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        raise RuntimeError(f"exit {p.returncode}: {msg[-1] if msg else ''}")
    try:
        s = json.loads(p.stdout)["summary"]
        return float(s["ttft_ms"]["mean"]), float(s["tpot_ms"]["mean"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise RuntimeError(f"unexpected output ({err}): {p.stdout[:200]!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kvplan", help="the kvplan binary (default: $KVPLAN, build/*/cli/kvplan)")
    ap.add_argument("--data", type=pathlib.Path, default=ix.DATA, help="default: %(default)s")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per row")
    ap.add_argument("--csv", type=pathlib.Path, help="write every scored row's figures here")
    a = ap.parse_args()
    sample = a.data / "silicon_sample.csv"
    if not sample.exists():
        ix.fail(f"{sample}: not found (the InferenceX data lives in ../shared/data/inferencex)")
    with open(sample, newline="") as fh:
        rows = [dict(r) for r in csv.DictReader(fh) if r["mode"] == "disagg"]
    for r in rows:
        r["concurrency"] = concurrency(r)
    kvplan = ix.find_kvplan(a.kvplan)
    cannot = [(r, why_not(r)) for r in rows if why_not(r)]
    results, failed = [], []
    for r in (r for r in rows if not why_not(r)):
        try:
            results.append((r, *simulate(kvplan, r, a.data, a.timeout)))
        except RuntimeError as err:
            failed.append((r, str(err)))
    out = [f"{len(rows)} disaggregated rows of silicon_sample.csv: {len(results)} simulated, "
           f"{len(cannot)} not expressible, {len(failed)} failed. Error = (kvplan - measured) / "
           f"measured of the mean over the run; bias < 0: kvplan too fast (optimistic). All test "
           f"rows (nothing fitted on them).\n"]
    if results:
        out += ["| row | ISL/OSL | CONC | TTFT measured | TTFT kvplan | error | TPOT measured | "
                "TPOT kvplan | error |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        te, pe = [], []
        for r, ttft, tpot in sorted(results, key=lambda x: (int(x[0]["isl"]),
                                                            int(x[0]["concurrency"]))):
            mt, mp = float(r["silicon_ttft_ms"]), float(r["silicon_tpot_ms"])
            te.append(ix.err_pct(ttft, mt))
            pe.append(ix.err_pct(tpot, mp))
            out.append(f"| {r['id']} | {r['isl']}/{r['osl']} | {r['concurrency']} | {mt:.1f} | "
                       f"{ttft:.1f} | {te[-1]:+.1f} % | {mp:.2f} | {tpot:.2f} | {pe[-1]:+.1f} % |")
        n = len(te)
        out.append(f"\n**{n} rows: TTFT MAPE {sum(map(abs, te)) / n:.1f} % (bias "
                   f"{sum(te) / n:+.1f} %), TPOT MAPE {sum(map(abs, pe)) / n:.1f} % (bias "
                   f"{sum(pe) / n:+.1f} %).**\n")
    if cannot:
        out.append("Not expressible (counts):\n")
        reasons = collections.Counter(why for _, why in cannot)
        out += [f"- {n} rows: {why}" for why, n in sorted(reasons.items(), key=lambda x: -x[1])]
        out.append("")
    if failed:
        out.append("kvplan could not simulate:\n")
        out += [f"- {r['id']}: {why}" for r, why in failed]
        out.append("")
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "isl", "osl", "concurrency", "ttft_meas", "ttft_kvplan",
                        "ttft_err_pct", "tpot_meas", "tpot_kvplan", "tpot_err_pct"])
            for r, ttft, tpot in results:
                mt, mp = float(r["silicon_ttft_ms"]), float(r["silicon_tpot_ms"])
                w.writerow([r["id"], r["isl"], r["osl"], r["concurrency"], f"{mt:.3f}",
                            f"{ttft:.3f}", f"{ix.err_pct(ttft, mt):.2f}", f"{mp:.4f}",
                            f"{tpot:.4f}", f"{ix.err_pct(tpot, mp):.2f}"])
    print("## InferenceX disaggregated rows\n\n" + "\n".join(out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
