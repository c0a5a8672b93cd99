#!/usr/bin/env python3
"""kvplan's serving simulator against InferenceX's published closed-loop measurements (vLLM and
SGLang, aggregated serving on H100, H200 and B200; ../shared/data/inferencex/, README there).

For each row of subset.csv that kvplan can express, runs the closed loop InferenceX ran

    kvplan simulate --model <kvplan_model> --gpu <kvplan_gpu> --engine <backend> --tp <gpus>
        --kv-dtype <fp8 if the checkpoint quantizes its KV cache, else bf16>
        --max-num-seqs <concurrency> --max-num-batched-tokens <8192; SGLang on B200 16384>
        --max-model-len <isl + osl + 256> --no-enable-prefix-caching
        --workload <closed loop, below> --format json --quiet

and compares kvplan's mean TTFT and mean TPOT with silicon_ttft_ms / silicon_tpot_ms: the
signed percentage error (predicted - measured) / measured * 100 per row (negative = kvplan too
fast, i.e. optimistic), then MAPE (mean of |error|) and bias (mean of error) per GPU, engine,
precision and model.

The workload is InferenceX's benchmark client (SemiAnalysisAI/InferenceX, benchmarks/*.sh and
utils/bench_serving/benchmark_serving.py, read at commit 086eabbe8611b283b2bbec13ea527b99adec369f):
`benchmark_serving.py --dataset-name random --random-input-len ISL --random-output-len OSL
--random-range-ratio 0.8 --num-prompts $((CONC * 10)) --max-concurrency CONC --request-rate inf
--ignore-eos`, whose sample_random_requests draws every input and output length uniformly from
the whole numbers in [int(L * 0.8), L] (its own older form, not vLLM's current [L(1 - r),
L(1 + r)]); random token ids, so no prefix is shared. kvplan draws the same: a closed loop of
CONC clients and --requests-per-client * CONC requests (default 10, as InferenceX), lengths
{"dist": "uniform", "min": int(0.8 L), "max": L}, seed 1.

How a row is mapped (assumptions, stated once here and in docs/accuracy.md):
* tp = the row's GPU count: kvplan expresses neither expert parallelism nor attention data
  parallelism, so rows run with EP (approx "ep_as_tp") are simulated as plain TP over the same
  GPUs; rows whose tp_size exceeds the GPUs (approx "layout_repaired") likewise.
* max_num_seqs = CONC (InferenceX's vLLM scripts pass --max-num-seqs $CONC; a closed loop never
  holds more); max_num_batched_tokens 8192 (vLLM scripts; SGLang's default chunked prefill on
  H100/H200), 16384 for SGLang on B200 (SGLang's default above 160 GB).
* KV cache: fp8 where the checkpoint's hf_quant_config.json says kv_cache_quant_algo FP8, else
  bf16 (vLLM's and SGLang's "auto").

The split is declared here, by model, before any fitting (docs/accuracy.md repeats it):
  train = the dense Llama-3.1 models (70B FP8 and NVFP4, 8B FP8) and one MoE family, DeepSeek
          (R1 / V3, FP8 and NVFP4): vLLM on H100, H200, B200 and SGLang on H200, B200;
  test  = every other model: gpt-oss-120b, Kimi-K2.5 (INT4, NVFP4), Qwen3-32B (bf16, FP8),
          Qwen3-235B-A22B-FP8, Qwen3.5-397B-A17B (bf16, FP8, NVFP4).

    python3 scripts/inferencex.py --split test --jobs 2              # the report, on stdout
    python3 scripts/inferencex.py --split test --markdown docs/accuracy.md
    python3 scripts/inferencex.py --split all --sample 4 --csv rows.csv   # every 4th row

Worked example of one error: a row measured at TPOT 20.0 ms predicted at 18.0 ms is
(18.0 - 20.0) / 20.0 = -10.0 % (optimistic); MAPE and bias of the rows -10 % and +6 % are 8 %
and -2 %.

Exit status: 0 when every expressible row ran, 1 when kvplan failed on one (the report is still
printed, the reason named), 2 for bad arguments or missing data.
"""
import argparse
import collections
import concurrent.futures
import csv
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "inferencex"
RANGE_RATIO = 0.8  # InferenceX's RANDOM_RANGE_RATIO
SECTION = "## Serving simulation against InferenceX (closed loop)"

# The declared split (by kvplan_model, the model column kvplan runs). Fixed before fitting.
TRAIN_MODELS = {
    "models/llama-3.1-70b-fp8", "models/llama-3.1-70b-nvfp4", "models/llama-3.1-8b-fp8",
    "deepseek-r1", "deepseek-v3", "models/deepseek-v3-nvfp4",
}


def split_of(row):
    return "train" if row["kvplan_model"] in TRAIN_MODELS else "test"


def fail(msg):
    print(f"inferencex.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def find_kvplan(arg):
    if arg:
        return arg
    if os.environ.get("KVPLAN"):
        return os.environ["KVPLAN"]
    for d in ("cpu", "warm", "default", "hv"):
        p = ROOT / "build" / d / "cli" / "kvplan"
        if p.exists():
            return str(p)
    return shutil.which("kvplan") or "kvplan"


def model_arg(row, data):
    m = row["kvplan_model"]
    return str(data / m) if m.startswith("models/") else m


def kv_dtype(row, data):
    m = row["kvplan_model"]
    if not m.startswith("models/"):
        return "bf16"
    q = data / m / "hf_quant_config.json"
    if not q.exists():
        return "bf16"
    try:
        doc = json.loads(q.read_text())
    except (OSError, json.JSONDecodeError):
        return "bf16"
    algo = (doc.get("quantization") or {}).get("kv_cache_quant_algo", doc.get("kv_cache_quant_algo"))
    return "fp8" if algo == "FP8" else "bf16"


def why_not(row):
    """The reason kvplan cannot express this row, or None."""
    if row["pp_size"] not in ("", "1"):
        return f"pipeline parallelism {row['pp_size']}"
    if row["attention_dp_size"] not in ("", "1"):
        return f"attention data parallelism {row['attention_dp_size']}"
    if row["mode"] != "agg":
        return f"mode {row['mode']}"
    return None


def lengths(L):
    return {"dist": "uniform", "min": max(1, int(L * RANGE_RATIO)), "max": L}


def workload(row, per_client, cap):
    c = int(row["concurrency"])
    n = min(per_client * c, cap) if cap else per_client * c
    return {"kvplan_workload": 1,
            "description": f"InferenceX closed loop {row['id']}",
            "arrival": {"process": "closed", "concurrency": c, "requests": max(n, c)},
            "prompt_tokens": lengths(int(row["isl"])),
            "output_tokens": lengths(int(row["osl"]))}


def command(kvplan, row, data, wl_path, calibration):
    isl, osl = int(row["isl"]), int(row["osl"])
    engine = row["backend"]
    mnbt = 16384 if engine == "sglang" and row["kvplan_gpu"].startswith("b200") else 8192
    cmd = [kvplan, "simulate", "--model", model_arg(row, data), "--gpu", row["kvplan_gpu"],
           "--engine", engine, "--tp", row["gpus"], "--kv-dtype", kv_dtype(row, data),
           "--max-num-seqs", row["concurrency"], "--max-num-batched-tokens", str(mnbt),
           "--max-model-len", str(isl + osl + 256), "--no-enable-prefix-caching",
           "--workload", str(wl_path), "--format", "json", "--quiet"]
    if calibration:
        cmd += ["--calibration", str(calibration)]
    return cmd


def simulate(kvplan, row, data, a):
    """(ttft_ms, tpot_ms) of kvplan's summary, or raises RuntimeError naming why not."""
    with tempfile.TemporaryDirectory(prefix="inferencex-") as d:
        wl = pathlib.Path(d) / "workload.json"
        wl.write_text(json.dumps(workload(row, a.requests_per_client, a.max_requests)))
        cmd = command(kvplan, row, data, wl, a.calibration)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
        except FileNotFoundError:
            raise RuntimeError(f"{kvplan}: not found (build it: cmake --build <dir> --target kvplan)")
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"timed out after {a.timeout} s")
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).splitlines()
        raise RuntimeError(f"exit {p.returncode}: {msg[-1] if msg else ''}")
    try:
        s = json.loads(p.stdout)["summary"]
        return float(s["ttft_ms"]["mean"]), float(s["tpot_ms"]["mean"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise RuntimeError(f"unexpected output ({err}): {p.stdout[:200]!r}")


def err_pct(pred, meas):
    return (pred - meas) / meas * 100


def group_key(row, by):
    if by == "gpu":
        return row["kvplan_gpu"]
    if by == "engine":
        return row["backend"]
    if by == "precision":
        return row["precision"] or "bf16"
    if by == "model":
        return row["kvplan_model"].removeprefix("models/")
    if by == "gpu, engine":
        return f"{row['kvplan_gpu']} {row['backend']}"
    return "all"


def table(results, by):
    groups = collections.defaultdict(list)
    for row, ttft, tpot in results:
        groups[group_key(row, by)].append((err_pct(ttft, float(row["silicon_ttft_ms"])),
                                           err_pct(tpot, float(row["silicon_tpot_ms"]))))
    lines = [f"| {by} | rows | TTFT MAPE | TTFT bias | TPOT MAPE | TPOT bias |",
             "|---|---:|---:|---:|---:|---:|"]
    for k in sorted(groups):
        e = groups[k]
        n = len(e)
        tm = sum(abs(x) for x, _ in e) / n
        tb = sum(x for x, _ in e) / n
        pm = sum(abs(y) for _, y in e) / n
        pb = sum(y for _, y in e) / n
        lines.append(f"| {k} | {n} | {tm:.1f} % | {tb:+.1f} % | {pm:.1f} % | {pb:+.1f} % |")
    return "\n".join(lines)


def report(a, rows, results, cannot, failed):
    out = [f"Split `{a.split}`: {len(rows)} rows of subset.csv"
           + (f" (every {a.sample}th row)" if a.sample > 1 else "")
           + f", {len(results)} simulated, {len(cannot)} not expressible, {len(failed)} failed. "
           f"Error = (kvplan - measured) / measured of the mean over the run; bias < 0: kvplan "
           f"too fast (optimistic). Closed loop of CONC clients, "
           f"{a.requests_per_client} requests per client"
           + (f" (at most {a.max_requests})" if a.max_requests else "") + ".\n"]
    if results:
        for by in ("all", "gpu", "engine", "precision", "model", "gpu, engine"):
            out.append(table(results, by) + "\n")
        approx = sum(1 for r, *_ in results if r["approx"])
        if approx:
            out.append(f"{approx} of the simulated rows ran expert parallelism (or a layout "
                       f"repaired to the GPU count) and were simulated as tensor parallelism "
                       f"over the same GPUs (approx column).\n")
    if cannot:
        out.append("Not expressible:\n")
        for row, why in cannot:
            out.append(f"- {row['id']}: {why}")
        out.append("")
    if failed:
        out.append("kvplan could not simulate:\n")
        for row, why in failed:
            out.append(f"- {row['id']} ({row['kvplan_model']}, {row['kvplan_gpu']}, tp "
                       f"{row['gpus']}, c {row['concurrency']}): {why}")
        out.append("")
    return "\n".join(out)


def write_markdown(path, body, a):
    """Replaces (or appends) SECTION in the Markdown file at path, keeping its lead text."""
    text = path.read_text() if path.exists() else ""
    cmd = f"python3 scripts/inferencex.py --split {a.split} --jobs {a.jobs} --markdown {a.markdown}"
    marker = "<!-- inferencex.py output -->"
    gen = f"{marker}\n*Generated by `{cmd}`.*\n\n{body}\n{marker}\n"
    if marker in text:
        start = text.index(marker)
        end = text.index(marker, start + len(marker)) + len(marker) + 1
        text = text[:start] + gen + text[end:]
    elif SECTION in text:
        start = text.index(SECTION)
        nxt = text.find("\n## ", start + len(SECTION))
        at = nxt + 1 if nxt >= 0 else len(text)
        text = text[:at] + gen + ("\n" if nxt >= 0 else "") + text[at:]
    else:
        text = text.rstrip("\n") + f"\n\n{SECTION}\n\n" + gen
    path.write_text(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=["train", "test", "all"], default="test")
    ap.add_argument("--kvplan", help="the kvplan binary (default: $KVPLAN, build/*/cli/kvplan)")
    ap.add_argument("--data", type=pathlib.Path, default=DATA, help="default: %(default)s")
    ap.add_argument("--jobs", type=int, default=2, help="rows at once (1 or 2; default 2)")
    ap.add_argument("--sample", type=int, default=1,
                    help="every Nth row of the split, in file order (deterministic; default 1)")
    ap.add_argument("--only", action="append", help="only rows whose id contains this")
    ap.add_argument("--requests-per-client", type=int, default=10,
                    help="requests = this * concurrency (InferenceX: 10)")
    ap.add_argument("--max-requests", type=int, default=0, help="cap on requests (0: none)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per row")
    ap.add_argument("--calibration", type=pathlib.Path, help="passed to every kvplan simulate")
    ap.add_argument("--csv", type=pathlib.Path, help="write every row's figures here")
    ap.add_argument("--markdown", type=pathlib.Path,
                    help="write the report as the InferenceX section of this Markdown file")
    a = ap.parse_args()
    if a.jobs < 1 or a.jobs > 2:
        fail("--jobs must be 1 or 2")
    if a.sample < 1 or a.requests_per_client < 1:
        fail("--sample and --requests-per-client must be at least 1")
    subset = a.data / "subset.csv"
    if not subset.exists():
        fail(f"{subset}: not found (the InferenceX data lives in ../shared/data/inferencex)")
    with open(subset, newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if a.split in ("all", split_of(r))]
    if a.only:
        rows = [r for r in rows if any(s in r["id"] for s in a.only)]
    rows = rows[::a.sample]
    kvplan = find_kvplan(a.kvplan)
    cannot = [(r, why_not(r)) for r in rows if why_not(r)]
    runnable = [r for r in rows if not why_not(r)]

    def one(r):
        try:
            return r, simulate(kvplan, r, a.data, a), None
        except RuntimeError as err:
            return r, None, str(err)

    results, failed = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for i, (r, res, err) in enumerate(pool.map(one, runnable), 1):
            if err:
                failed.append((r, err))
            else:
                results.append((r, *res))
            print(f"\r{i}/{len(runnable)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "split", "model", "gpu", "engine", "precision", "tp", "isl", "osl",
                        "concurrency", "approx", "ttft_meas", "ttft_kvplan", "ttft_err_pct",
                        "tpot_meas", "tpot_kvplan", "tpot_err_pct"])
            for r, ttft, tpot in results:
                mt, mp = float(r["silicon_ttft_ms"]), float(r["silicon_tpot_ms"])
                w.writerow([r["id"], split_of(r), r["kvplan_model"], r["kvplan_gpu"],
                            r["backend"], r["precision"], r["gpus"], r["isl"], r["osl"],
                            r["concurrency"], r["approx"], f"{mt:.3f}", f"{ttft:.3f}",
                            f"{err_pct(ttft, mt):.2f}", f"{mp:.4f}", f"{tpot:.4f}",
                            f"{err_pct(tpot, mp):.2f}"])
    body = report(a, rows, results, cannot, failed)
    print(f"## InferenceX: split {a.split}\n\n" + body)
    if a.markdown:
        write_markdown(a.markdown, body, a)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
