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

The NVIDIA gap-analysis rows (source_kind nvidia-gap-analysis: Qwen3-32B, Qwen3-235B-A22B-FP8,
Llama-3.1-8B; files under aic-auto-gap-analysis/, not InferenceX runs) name no client. By default
they run InferenceX's too. --gap-client aiperf runs them as aiconfigurator's own benchmark template
runs aiperf (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce
src/aiconfigurator/generator/config/backend_templates/benchmark/bench_run.sh.j2: `aiperf profile
--isl ISL --isl-stddev S --osl OSL --osl-stddev S --extra-inputs ignore_eos:true --concurrency CONC
--num-requests CONC * 20 --warmup-request-count CONC * 2 --streaming`, the stddevs 0 by default in
generator/config/deployment_config.yaml): every request exactly ISL in and OSL out, 20 requests
per client. The warm-up requests are not simulated: with equal lengths every wave of CONC
requests is the same. Which client measured those rows is not published (docs/accuracy.md
compares the two).

How a row is mapped (assumptions, stated once here and in docs/accuracy.md):
* tp = the row's GPU count. Expert parallelism over all of them (moe_ep_size = the GPU count:
  every GPU holds whole experts) runs as kvplan's expert parallelism (--engine-option
  enable_expert_parallel=true: the step waits for the busiest rank; docs/simulate-step-time.md);
  its rows lose subset.csv's "ep_as_tp" mark. EP over part of the GPUs would stay "ep_as_tp"
  (simulated as TP; subset.csv has no such row); rows whose tp_size exceeds the GPUs keep
  "layout_repaired". Attention DP: see the TensorRT-LLM rows below.
* max_num_seqs = CONC (InferenceX's vLLM scripts pass --max-num-seqs $CONC; a closed loop never
  holds more); max_num_batched_tokens 8192 (vLLM scripts; SGLang's default chunked prefill on
  H100/H200), 16384 for SGLang on B200 (SGLang's default above 160 GB).
* KV cache: fp8 where the checkpoint's hf_quant_config.json says kv_cache_quant_algo FP8, else
  bf16 (vLLM's and SGLang's "auto").
* SGLang rows of InferenceX's own runs take their launch script's --chunked-prefill-size,
  --mem-fraction-static, --kv-cache-dtype and --mamba-ssm-dtype instead (sglang_script, each
  script and commit cited there; since 2026-12-05, --no-scripts runs the defaults above and
  a fraction of 0.88). The gap-analysis rows keep the defaults: their launch lines are not
  published.

The split is declared here, by model, before any fitting (docs/accuracy.md repeats it):
  train = the dense Llama-3.1 models (70B FP8 and NVFP4, 8B FP8) and one MoE family, DeepSeek
          (R1 / V3, FP8 and NVFP4): vLLM on H100, H200, B200 and SGLang on H200, B200;
  test  = every other model: gpt-oss-120b, Kimi-K2.5 (INT4, NVFP4), Qwen3-32B (bf16, FP8),
          Qwen3-235B-A22B-FP8, Qwen3.5-397B-A17B (bf16, FP8, NVFP4).

    python3 scripts/inferencex.py --split test --jobs 2              # the report, on stdout
    python3 scripts/inferencex.py --split test --markdown docs/accuracy.md
    python3 scripts/inferencex.py --split all --sample 4 --csv rows.csv   # every 4th row
    python3 scripts/inferencex.py --split test --gap-client aiperf   # gap-analysis rows as aiperf

Worked example of one error: a row measured at TPOT 20.0 ms predicted at 18.0 ms is
(18.0 - 20.0) / 20.0 = -10.0 % (optimistic); MAPE and bias of the rows -10 % and +6 % are 8 %
and -2 %.

TensorRT-LLM rows (--backend trtllm; issue 24). The default (--backend vllm-sglang) is the run
above, unchanged. --backend trtllm takes the `backend == trtllm`, `mode == agg` rows of
silicon_sample.csv (1,338) and maps each as subset.csv maps its rows, with tables read from
subset.csv's own rows, not written here:
* (model_path, precision) -> kvplan_model and system -> kvplan_gpu: every pair subset.csv uses
  (each maps to one value there); a TRT row whose pair or system is absent is not mapped (no
  kvplan_model, so in neither split) and is counted as not expressible with the reason.
* concurrency = batch_size (batch_size == concurrency on every one of subset.csv's 1,021 rows;
  checked at start); gpus = tp_size, EP treated as TP ("ep_as_tp" when moe_ep_size > 1); a
  tp_size above 8 with moe_tp_size == moe_ep_size and tp_size == moe_tp_size * moe_ep_size is
  the layout subset.csv repairs to gpus = moe_ep_size ("layout_repaired+ep_as_tp"); both rules
  are checked to give subset.csv's gpus and approx on its own rows. Attention DP D > 1 (tp_size
  1, enable_attention_dp: D groups of one GPU, moe_tp_size x moe_ep_size = D) runs as kvplan's
  DP attention: gpus = D, --tp 1 --engine-option attention_dp=D (and moe_ep_size=moe_ep_size
  when above 1), D replicas, one a group (docs/simulate-step-time.md "DP attention"); the gather
  form of the MoE communication is costed, where InferenceX's gptoss_fp4_b200_trt.sh runs
  TRTLLM_FORCE_ALLTOALL_METHOD=MNNVL with EP_SIZE > 1. Any other tp_size > 8, pp > 1, attention
  DP beside tp_size > 1 or over more than 8 GPUs: not expressible. source (inferencex-db / inferencex-export /
  nvidia-gap-analysis) from silicon_data_source, as subset.csv's source_kind (checked).
The split is TRAIN_MODELS, unchanged; nothing is fitted on TensorRT-LLM rows.

TensorRT-LLM server settings, from SemiAnalysisAI/InferenceX@086eabbe8611b283b2bbec13ea527b99adec369f
benchmarks/single_node/ (the scripts at that commit; the rows were measured 2025-11 .. 2026-04
with whatever script was current then):
* gpt-oss-120b on B200, gptoss_fp4_b200_trt.sh: trtllm-serve --max_batch_size 512,
  --max_num_tokens 20000 (MAX_NUM_TOKENS=20000), --max_seq_len MAX_MODEL_LEN; extra options
  kv_cache_config {dtype: fp8, free_gpu_memory_fraction: 0.85, enable_block_reuse: false}.
* gpt-oss-120b on H200, gptoss_fp4_h200_trt.sh: --max_batch_size $CONC, --max_num_tokens 20000,
  kv_cache_config {dtype: auto (bf16), free_gpu_memory_fraction: 0.85}.
* DeepSeek-R1 (train split), dsr1_fp8_b200_trt.sh / dsr1_fp4_b200_trt.sh / dsr1_fp8_h200_trt.sh:
  no --max_batch_size (TensorRT-LLM's default 2048), --max_num_tokens
  max(8192, ceil64(CONC + ISL + 64)), --max_seq_len max(8192, MAX_MODEL_LEN); kv dtype fp8;
  free_gpu_memory_fraction 0.8 (fp8 B200; 0.75 at ISL 8192 / OSL 1024 / TP 4), 0.8 (fp4 B200),
  0.75 (fp8 H200). Applied to the DeepSeek-V3 rows too (no V3 script).
* MAX_MODEL_LEN = ISL + OSL + 200 (utils/matrix_logic/generate_sweep_configs.py).
* None of these scripts sets enable_chunked_prefill or scheduler_config, so chunked context is
  off and the capacity policy is GUARANTEED_NO_EVICT (TensorRT-LLM's defaults, as
  docs/trtllm-scheduler.md cites them); passed as --capacity-scheduler-policy
  guaranteed_no_evict, no --enable-chunked-context.
* Benchmark client: the same run_benchmark_serving (--random-range-ratio, --num-prompts CONC * 10,
  --max-concurrency CONC) as the vLLM/SGLang rows, so the same closed-loop workload.
Assumed, where no script says: Llama-3.1-70B (its TRT scripts were removed before that commit,
"remove llama 70b") and the NVIDIA gap-analysis rows (Qwen3-32B FP8, Qwen3-235B-A22B-FP8 on H100;
not InferenceX runs, settings unpublished) run TensorRT-LLM's defaults: max_batch_size 2048,
max_num_tokens 8192, free_gpu_memory_fraction 0.9, no chunked context, KV dtype as above
(checkpoint's quant config), max_seq_len ISL + OSL + 200. free_gpu_memory_fraction is passed as
kvplan's --gpu-memory-utilization, which kvplan's TensorRT-LLM rules apply as TensorRT-LLM does:
to the memory left after the weights and the reserve (core/src/engines/trtllm.cpp budget). MTP
(speculative) runs cannot be told apart in the data and are simulated without MTP.

    python3 scripts/inferencex.py --backend trtllm --split test --jobs 2

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


# TensorRT-LLM (--backend trtllm): the settings InferenceX's scripts pass (docstring, with sources),
# else TensorRT-LLM's defaults (max_batch_size, max_num_tokens, free_gpu_memory_fraction).
TRT_DEFAULTS = (2048, 8192, 0.9)
DEEPSEEK = {"deepseek-r1", "deepseek-v3", "models/deepseek-v3-nvfp4"}
TRT_SECTION = "### TensorRT-LLM rows"
TRT_MARKER = "<!-- inferencex.py --backend trtllm output -->"


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


# Checkpoints whose KV cache dtype the files under ../shared/data/inferencex/models/ do not
# carry. Kimi-K2.5-NVFP4: the checkpoint's own quantization_config states an fp8 KV cache,
# "kv_cache_scheme": {"dynamic": false, "num_bits": 8, "type": "float"}
# (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce
# aic-core/src/aiconfigurator_core/model_configs/nvidia--Kimi-K2.5-NVFP4_config.json); the
# hf_quant_config.json restated from it in the shared data lost it (kv_cache_quant_algo null).
KV_DTYPE_OF_CHECKPOINT = {"models/kimi-k2.5-nvfp4": "fp8"}


def kv_dtype(row, data):
    m = row["kvplan_model"]
    if m in KV_DTYPE_OF_CHECKPOINT:
        return KV_DTYPE_OF_CHECKPOINT[m]
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


def attention_dp(row):
    """The row's attention DP groups (1: none)."""
    a = row.get("attention_dp_size", "")
    return int(a) if a not in ("", "0") else 1


def why_not(row):
    """The reason kvplan cannot express this row, or None."""
    if row["pp_size"] not in ("", "1"):
        return f"pipeline parallelism {row['pp_size']}"
    adp = attention_dp(row)
    if adp > 1 and (row.get("backend") != "trtllm" or row["tp_size"] not in ("", "0", "1")):
        return f"attention data parallelism {adp} beside tp_size {row['tp_size']}"
    if adp > 8:
        return f"attention data parallelism {adp} spans more than one 8-GPU node"
    if row["mode"] != "agg":
        return f"mode {row['mode']}"
    return None


def source_kind(row):
    """subset.csv's source_kind, from silicon_data_source (checked against subset.csv)."""
    s = row["silicon_data_source"]
    if "aic-auto-gap-analysis" in s:
        return "nvidia-gap-analysis"
    return "inferencex-db" if s.startswith("db-dump") else "inferencex-export"


def trt_layout(row):
    """(gpus, approx) as subset.csv sets them, or (None, the reason it fits no 8-GPU node)."""
    def n(k):
        return int(row[k]) if row[k] not in ("", "0") else 1
    tp, mtp, mep = n("tp_size"), n("moe_tp_size"), n("moe_ep_size")
    if attention_dp(row) > 1:  # D groups of tp_size 1 (why_not refuses the rest)
        return str(attention_dp(row)), ""
    if tp <= 8:
        return str(tp), ("ep_as_tp" if mep > 1 else "")
    if mtp == mep and mtp * mep == tp and mep <= 8:
        return str(mep), "layout_repaired+ep_as_tp"
    return None, (f"parallel layout tp {tp}, moe_tp {mtp}, moe_ep {mep} does not fit one "
                  f"8-GPU node")


def load_trt(data):
    """The TensorRT-LLM aggregated rows of silicon_sample.csv, mapped with subset.csv's own
    tables; a row kvplan cannot express carries its reason in "_why"."""
    with open(data / "subset.csv", newline="") as fh:
        sub = list(csv.DictReader(fh))
    models, gpus = collections.defaultdict(set), collections.defaultdict(set)
    for r in sub:
        models[(r["model_path"], r["precision"])].add(r["kvplan_model"])
        gpus[r["system"]].add(r["kvplan_gpu"])
        if r["batch_size"] != r["concurrency"]:
            fail(f"subset.csv {r['id']}: batch_size {r['batch_size']} != concurrency")
        if trt_layout(r) != (r["gpus"], r["approx"]):
            fail(f"subset.csv {r['id']}: the layout rule gives {trt_layout(r)}, not "
                 f"{(r['gpus'], r['approx'])}")
        if source_kind(r) != r["source_kind"]:
            fail(f"subset.csv {r['id']}: source {source_kind(r)} != {r['source_kind']}")
    for table in (models, gpus):
        for k, v in table.items():
            if len(v) != 1:
                fail(f"subset.csv maps {k} to {sorted(v)}")
    with open(data / "silicon_sample.csv", newline="") as fh:
        rows = [dict(r) for r in csv.DictReader(fh)
                if r["backend"] == "trtllm" and r["mode"] == "agg"]
    for r in rows:
        r["source_kind"] = source_kind(r)
        r["concurrency"] = r["batch_size"]
        m = models.get((r["model_path"], r["precision"]))
        g = gpus.get(r["system"])
        r["kvplan_model"] = next(iter(m)) if m else ""
        r["kvplan_gpu"] = next(iter(g)) if g else ""
        r["gpus"], r["approx"] = trt_layout(r)
        if not m:
            r["_why"] = (f"no kvplan model for ({r['model_path']}, precision "
                         f"'{r['precision']}') in subset.csv")
        elif not g:
            r["_why"] = f"no kvplan GPU for system {r['system']} in subset.csv"
        elif why_not(r):
            r["_why"] = why_not(r)
        elif r["gpus"] is None:
            r["_why"] = r["approx"]
    return rows


def trt_settings(row, data):
    """(max_batch_size, max_num_tokens, free_gpu_memory_fraction, kv dtype, max_seq_len) of
    InferenceX's TensorRT-LLM script for this row (docstring), else TensorRT-LLM's defaults."""
    isl, osl, c = int(row["isl"]), int(row["osl"]), int(row["concurrency"])
    m, gpu, mml = row["kvplan_model"], row["kvplan_gpu"], isl + osl + 200
    if m == "gpt-oss-120b" and gpu.startswith("b200"):      # gptoss_fp4_b200_trt.sh
        return 512, 20000, 0.85, "fp8", mml
    if m == "gpt-oss-120b" and gpu.startswith("h200"):      # gptoss_fp4_h200_trt.sh
        return c, 20000, 0.85, "bf16", mml
    if m in DEEPSEEK and (gpu.startswith("b200") or gpu.startswith("h200")):
        mnt = max(8192, (c + isl + 64 + 63) // 64 * 64)
        if gpu.startswith("h200"):                          # dsr1_fp8_h200_trt.sh
            frac = 0.75
        elif row["precision"] == "fp8":                     # dsr1_fp8_b200_trt.sh
            frac = 0.75 if (isl, osl, row["gpus"]) == (8192, 1024, "4") else 0.8
        else:                                               # dsr1_fp4_b200_trt.sh
            frac = 0.8
        return TRT_DEFAULTS[0], mnt, frac, "fp8", max(8192, mml)
    return (*TRT_DEFAULTS, kv_dtype(row, data), mml)


def lengths(L):
    return {"dist": "uniform", "min": max(1, int(L * RANGE_RATIO)), "max": L}


# Requests per client of each benchmark client (module docstring): InferenceX's
# benchmark_serving.py --num-prompts CONC * 10; aiperf as aiconfigurator's benchmark template
# runs it, --num-requests CONC * 20 (BENCH_MULTI_ROUND).
REQUESTS_PER_CLIENT = {"inferencex": 10, "aiperf": 20}


def client_of(row, gap_client):
    """The benchmark client assumed for the row: InferenceX's for InferenceX's runs; for the
    NVIDIA gap-analysis rows, whose client is unpublished, gap_client (--gap-client)."""
    return gap_client if source_kind(row) == "nvidia-gap-analysis" else "inferencex"


def workload(row, per_client, cap, gap_client="inferencex"):
    """The closed loop the row's client ran. per_client None: that client's own count."""
    c = int(row["concurrency"])
    client = client_of(row, gap_client)
    per_client = per_client or REQUESTS_PER_CLIENT[client]
    n = min(per_client * c, cap) if cap else per_client * c
    if client == "aiperf":  # --isl-stddev 0 --osl-stddev 0: every request ISL in, OSL out
        isl, osl = ({"dist": "fixed", "mean": int(row[k])} for k in ("isl", "osl"))
    else:
        isl, osl = lengths(int(row["isl"])), lengths(int(row["osl"]))
    return {"kvplan_workload": 1,
            "description": f"{client} closed loop {row['id']}",
            "arrival": {"process": "closed", "concurrency": c, "requests": max(n, c)},
            "prompt_tokens": isl,
            "output_tokens": osl}


# MoE kernels a row's server script selects by environment, which kvplan's measured MoE tables
# (models/perf/moe/, vLLM's default kernels) do not hold: those rows keep the roofline under
# --measured-moe. gpt-oss on B200 under vLLM: VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1
# (benchmarks/gptoss_fp4_b200_docker.sh @ 2e46dba0393537668d37d83b532fff2cdbbad231), FlashInfer's
# MXFP4 x MXFP8 MoE, not the table's vllm_mxfp4_moe.
ENV_MOE_KERNEL = {("gpt-oss-120b", "b200", "vllm")}


def measured_moe_flag(row, measured_moe):
    """["--measured-moe"] where asked for and the row's MoE kernel is the table's, else []."""
    env = (row["kvplan_model"], row["kvplan_gpu"], row["backend"]) in ENV_MOE_KERNEL
    return ["--measured-moe"] if measured_moe and not env else []


def expert_parallel(row):
    """True where the row spreads the experts whole over all its GPUs (moe_ep_size = gpus > 1)."""
    ep = row.get("moe_ep_size", "")
    return (attention_dp(row) == 1 and ep not in ("", "0") and int(ep) > 1 and bool(row["gpus"])
            and int(ep) == int(row["gpus"]))


def ep_flag(row):
    """The layout flags beyond --tp: DP attention's groups and their MoE EP, or EP over all
    the GPUs."""
    if attention_dp(row) > 1:
        flags = ["--engine-option", f"attention_dp={attention_dp(row)}"]
        ep = row.get("moe_ep_size", "")
        if ep not in ("", "0", "1"):
            flags += ["--engine-option", f"moe_ep_size={ep}"]
        return flags + adp_balance_flags(row)
    return ["--engine-option", "enable_expert_parallel=true"] if expert_parallel(row) else []


def adp_balance_flags(row):
    """InferenceX's TensorRT-LLM scripts with DP attention add attention_dp_config:
    gptoss_fp4_b200_trt.sh@1825e7f0676d9adf7a3dbffcf50708907b7b25db `enable_balance: true` (the
    iteration counts TensorRT-LLM's defaults, 50 and 10); dsr1_fp4_b200_trt.sh@111f0312c13b4c3c
    ca0dd365f6db4c017048f0d3 and dsr1_fp8_h200_trt.sh@1fc5d73cdd31c7fbdd657f3c7e5ec2180f4b0598
    `batching_wait_iters: 0, enable_balance: true, timeout_iters: 60` (SemiAnalysisAI/InferenceX,
    benchmarks/). Other engines' rows and the TensorRT-LLM rows of other models: none."""
    if row["backend"] != "trtllm":
        return []
    flags = ["--engine-option", "attention_dp_enable_balance=true"]
    if row["kvplan_model"] in DEEPSEEK:
        flags += ["--engine-option", "attention_dp_batching_wait_iters=0",
                  "--engine-option", "attention_dp_timeout_iters=60"]
    elif row["kvplan_model"] != "gpt-oss-120b":
        return []
    return flags


def mark_expert_parallel(rows):
    """Rows simulated with expert parallelism lose the "ep_as_tp" mark of subset.csv."""
    for r in rows:
        if r.get("gpus") and expert_parallel(r):
            r["approx"] = "+".join(p for p in r["approx"].split("+") if p and p != "ep_as_tp")


def measured_on(row):
    """The day a row was measured, "YYYY-MM-DD", from silicon_data_source (measured=... or the
    export file's dated name); "" when it names none."""
    src = row["silicon_data_source"]
    for key in ("measured=", "source_file="):
        i = src.find(key)
        if i >= 0 and src[i + len(key):i + len(key) + 4].isdigit():
            return src[i + len(key):i + len(key) + 10]
    return ""


# SGLang's --chunked-prefill-size (= --max-prefill-tokens where a script sets both; SGLang's own
# max_prefill_tokens default is 16384, and kvplan's chunk is the step's prefill budget),
# --mem-fraction-static, --kv-cache-dtype and --mamba-ssm-dtype as InferenceX's launch scripts
# set them for the rows' model, GPU, precision and TP, on main when the rows were measured
# (SemiAnalysisAI/InferenceX, read with git log --first-parent main; the DeepSeek flags are
# unchanged from d8fe8f73e (2025-11-10, benchmarks/dsr1_*_docker.sh) to 1b234994 (2026-06-02)):
#   DeepSeek FP8 on B200 (single_node/dsr1_fp8_b200.sh@626932a110a2348591e314eddb782f7a0dee104c):
#     TP 8 32768 and 0.82, TP 4 8192 and 0.95; --kv-cache-dtype fp8_e4m3.
#   DeepSeek NVFP4 on B200 (dsr1_fp4_b200.sh@626932a1): 16384, 0.85, fp8_e4m3.
#   DeepSeek FP8 on H200 (dsr1_fp8_h200.sh@626932a1): 32768, 0.82, no KV dtype (auto).
#   Qwen3.5 BF16 on B200 (qwen3.5_bf16_b200.sh): before 2026-02-19 only --mem-fraction-static 0.8
#     (521d199512cb4ab3f478a8647b733a8df0ba5a76; the chunk SGLang's default above 160 GB, 16384),
#     from then 32768 and 0.82 (9dc87a68c19c17bc0bd367e2ed72d3f9f95ed951); no KV or state dtype.
#   Qwen3.5 FP8 on B200 (qwen3.5_fp8_b200.sh): 32768, 0.82 (efd49e50bc7a978febd0ea3b44e943f7495fb0fb
#     to 626932a1); from 2026-04-30 16384, 0.8 (5152941900fca4cda67584e460d7a1235e011b93); always
#     fp8_e4m3 and --mamba-ssm-dtype bfloat16.
#   Qwen3.5 NVFP4 on B200 (qwen3.5_fp4_b200.sh@48d35c480fb21b5892e01e5bf670695d7d601ce9): 32768,
#     0.85; from 2026-05-01 16384, 0.8 (9189c18846e7d8117fc6d0e8dc843715c51a762f); fp8_e4m3,
#     bfloat16 state.
#   Qwen3.5 FP8 on H200 (qwen3.5_fp8_h200.sh@f65d6b4b1e0eb7744b9987ede6b1d11735f6dcf2): 16384,
#     0.8, fp8_e4m3, bfloat16 state.
# Every Qwen3.5 script above passes --disable-radix-cache (the BF16 one from 9dc87a68c, 2026-02-19)
# until 1b234994f (2026-06-02) drops it (git log --first-parent main -- benchmarks/single_node/
# qwen3.5_*.sh). The gap-analysis rows' launch lines are not published: None (command's defaults).
def sglang_script(row):
    """The row's InferenceX SGLang launch settings, {"chunk", "fraction", "kv" (None: auto),
    "ssm" (None: SGLang's float32), "radix" (the radix cache on)}, or None."""
    if row["backend"] != "sglang" or row["source_kind"] == "nvidia-gap-analysis":
        return None
    model, gpu, prec = row["model_path"], row["kvplan_gpu"], row["precision"]
    day = measured_on(row)

    def of(chunk, fraction, kv=None, ssm=None):
        radix = not model.startswith("Qwen/Qwen3.5") or (day and day < "2026-02-19"
                                                         and prec == "bf16")
        return {"chunk": chunk, "fraction": fraction, "kv": kv, "ssm": ssm, "radix": radix}

    if model.startswith("deepseek-ai/"):
        if gpu.startswith("b200") and prec == "fp8":
            return of(8192, 0.95, "fp8") if int(row["gpus"]) == 4 else of(32768, 0.82, "fp8")
        if gpu.startswith("b200") and prec == "fp4":
            return of(16384, 0.85, "fp8")
        if gpu.startswith("h200") and prec == "fp8":
            return of(32768, 0.82)
        return None
    if model.startswith("Qwen/Qwen3.5"):
        if gpu.startswith("b200") and prec == "bf16":
            return of(16384, 0.8) if day and day < "2026-02-19" else of(32768, 0.82)
        if gpu.startswith("b200") and prec == "fp8":
            late = day >= "2026-04-30"
            return of(16384 if late else 32768, 0.8 if late else 0.82, "fp8", "bfloat16")
        if gpu.startswith("b200") and prec == "fp4":
            late = day >= "2026-05-01"
            return of(16384 if late else 32768, 0.8 if late else 0.85, "fp8", "bfloat16")
        if gpu.startswith("h200") and prec == "fp8":
            return of(16384, 0.8, "fp8", "bfloat16")
    return None


def sglang_mamba_flags(row, script):
    """A hybrid Mamba model's (Qwen3.5's) state slots a request as the SGLang of the row ran them.
    Without the radix cache (the scripts' --disable-radix-cache) one slot a request. With it, SGLang
    before sgl-project/sglang#28151 (2026-06-19) resolved "auto" to no_buffer, three slots a
    request, and turned the overlap scheduler off (server_args.py _handle_mamba_radix_cache at
    66a7fd5c0^, "Disabling overlap schedule since mamba no_buffer is not compatible"); every row
    of subset.csv was measured before that (the undated gap-analysis rows included)."""
    if not row["model_path"].startswith("Qwen/Qwen3.5"):
        return []
    if script and not script["radix"]:
        return ["--engine-option", "disable_radix_cache=true"]
    day = measured_on(row)
    if day and day >= "2026-06-19":
        return []
    return ["--engine-option", "mamba_radix_cache_strategy=no_buffer",
            "--engine-option", "disable_overlap_schedule=true"]


def sglang_recv_interval(row):
    """SGLang's --scheduler-recv-interval as InferenceX's launch scripts set it, on main from
    February to April 2026 when these rows were measured (SemiAnalysisAI/InferenceX):
    single_node/dsr1_fp8_b200.sh@626932a110a2348591e314eddb782f7a0dee104c: TP 8 30 at CONC >= 16,
    else 10; TP 4 10. dsr1_fp4_b200.sh@626932a1, qwen3.5_bf16_b200.sh@626932a1,
    qwen3.5_fp8_b200.sh@626932a1 and qwen3.5_fp4_b200.sh@48d35c480fb21b5892e01e5bf670695d7d601ce9:
    30 at CONC >= 16, else 10. dsr1_fp8_h200.sh and qwen3.5_fp8_h200.sh@626932a1 do not set it
    (SGLang's default, 1). The gap-analysis rows' launch lines are not published: the default. The
    DeepSeek rows whose layout subset.csv repaired take the rule of the GPUs they run on."""
    if (row["backend"] != "sglang" or row["source_kind"] == "nvidia-gap-analysis"
            or not row["kvplan_gpu"].startswith("b200")):
        return 1
    if row["model_path"].startswith("deepseek-ai/") and row["precision"] == "fp8" \
            and int(row["gpus"]) == 4:
        return 10
    return 30 if int(row["concurrency"]) >= 16 else 10


def command(kvplan, row, data, wl_path, calibration, measured_moe=False, recv_interval=True,
            scripts=True):
    isl, osl = int(row["isl"]), int(row["osl"])
    engine = row["backend"]
    if engine == "trtllm":
        mbs, mnt, frac, kvd, mml = trt_settings(row, data)
        tp = "1" if attention_dp(row) > 1 else row["gpus"]
        cmd = [kvplan, "simulate", "--model", model_arg(row, data), "--gpu", row["kvplan_gpu"],
               "--engine", "trtllm", "--tp", tp, "--kv-dtype", kvd,
               "--max-batch-size", str(mbs), "--max-num-tokens", str(mnt),
               "--capacity-scheduler-policy", "guaranteed_no_evict",
               "--gpu-memory-utilization", str(frac), "--max-model-len", str(mml),
               "--workload", str(wl_path), "--format", "json", "--quiet"]
        cmd += measured_moe_flag(row, measured_moe) + ep_flag(row)
        return cmd + (["--calibration", str(calibration)] if calibration else [])
    mnbt = 16384 if engine == "sglang" and row["kvplan_gpu"].startswith("b200") else 8192
    script = sglang_script(row) if scripts else None
    if script:
        mnbt = script["chunk"]
    cmd = [kvplan, "simulate", "--model", model_arg(row, data), "--gpu", row["kvplan_gpu"],
           "--engine", engine, "--tp", row["gpus"],
           "--kv-dtype", (script and script["kv"]) or kv_dtype(row, data),
           "--max-num-seqs", row["concurrency"], "--max-num-batched-tokens", str(mnbt),
           "--max-model-len", str(isl + osl + 256), "--no-enable-prefix-caching",
           "--workload", str(wl_path), "--format", "json", "--quiet"]
    if engine == "sglang":
        # The script's --mem-fraction-static (sglang_script); elsewhere (the gap-analysis rows,
        # --no-scripts) 0.88, the fraction the step-time terms were fitted with before.
        cmd += ["--gpu-memory-utilization", str(script["fraction"]) if script else "0.88"]
        if script and script["ssm"]:
            cmd += ["--engine-option", f"mamba_ssm_dtype={script['ssm']}"]
        if recv_interval and sglang_recv_interval(row) > 1:
            cmd += ["--engine-option", f"scheduler_recv_interval={sglang_recv_interval(row)}"]
        cmd += sglang_mamba_flags(row, script)
    else:
        # vLLM's default gpu_memory_utilization was 0.9 before 0.20 (0.92 from
        # vllm-project/vllm#38284, kvplan's current default): every vLLM release in subset.csv
        # is 0.11.2 - 0.18.0, and its unversioned rows were measured in October - December 2025.
        cmd += ["--gpu-memory-utilization", "0.9"]
    if calibration:
        cmd += ["--calibration", str(calibration)]
    return cmd + measured_moe_flag(row, measured_moe) + ep_flag(row)


def simulate(kvplan, row, data, a):
    """(ttft_ms, tpot_ms) of kvplan's summary, or raises RuntimeError naming why not."""
    with tempfile.TemporaryDirectory(prefix="inferencex-") as d:
        wl = pathlib.Path(d) / "workload.json"
        wl.write_text(json.dumps(workload(row, a.requests_per_client, a.max_requests, a.gap_client)))
        cmd = command(kvplan, row, data, wl, a.calibration, a.measured_moe,
                      not a.no_recv_interval, not a.no_scripts)
        return run_simulate(kvplan, cmd, a.timeout)


def run_rows(runnable, simulate_row, jobs):
    """Runs simulate_row(r) for every row, `jobs` at once, counting them on stderr: (results,
    failed), results as (row, *what simulate_row returned), failed as (row, why) for the rows whose
    simulate_row raised RuntimeError. Both InferenceX scripts run their rows through it."""
    def one(r):
        try:
            return r, simulate_row(r), None
        except RuntimeError as err:
            return r, None, str(err)

    results, failed = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for i, (r, res, err) in enumerate(pool.map(one, runnable), 1):
            if err:
                failed.append((r, err))
            else:
                results.append((r, *res))
            print(f"\r{i}/{len(runnable)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return results, failed


def run_simulate(kvplan, cmd, timeout):
    """Runs one `kvplan simulate ... --format json` command line: (ttft_ms, tpot_ms) of its
    summary's means, or raises RuntimeError naming why not."""
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
    if by == "source":
        return row["source_kind"]
    if by == "gpu, model":
        return f"{row['kvplan_gpu']} {row['kvplan_model'].removeprefix('models/')}"
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


def report(a, rows, results, cannot, failed, unmapped=()):
    trt = a.backend == "trtllm"
    what = "TensorRT-LLM agg rows of silicon_sample.csv" if trt else "rows of subset.csv"
    out = [f"Split `{a.split}`: {len(rows)} {what}"
           + (f" (every {a.sample}th row)" if a.sample > 1 else "")
           + f", {len(results)} simulated, {len(cannot)} not expressible, {len(failed)} failed. "
           f"Error = (kvplan - measured) / measured of the mean over the run; bias < 0: kvplan "
           f"too fast (optimistic). Closed loop of CONC clients, "
           + (f"{a.requests_per_client} requests per client" if a.requests_per_client else
              "10 requests per client, lengths uniform in [0.8 L, L] (InferenceX's client)")
           + ("; the NVIDIA gap-analysis rows as aiperf runs them: 20 requests per client, fixed "
              "lengths" if a.gap_client == "aiperf" else "")
           + (f" (at most {a.max_requests})" if a.max_requests else "") + ".\n"]
    if results:
        bys = (("all", "gpu", "precision", "model", "source", "gpu, model") if trt else
               ("all", "gpu", "engine", "precision", "model", "source", "gpu, engine"))
        for by in bys:
            out.append(table(results, by) + "\n")
        approx = sum(1 for r, *_ in results if r["approx"])
        if approx:
            out.append(f"{approx} of the simulated rows ran a layout repaired to the GPU count "
                       f"(or expert parallelism over part of the GPUs, simulated as tensor "
                       f"parallelism; approx column).\n")
    if unmapped:
        reasons = collections.Counter(r["_why"] for r in unmapped)
        out.append(f"{len(unmapped)} further TensorRT-LLM agg rows have no mapping in subset.csv "
                   f"and so belong to neither split:\n")
        out += [f"- {n} rows: {why}" for why, n in sorted(reasons.items(), key=lambda x: -x[1])]
        out.append("")
    if cannot and trt:
        reasons = collections.Counter(why for _, why in cannot)
        out.append("Not expressible (counts):\n")
        out += [f"- {n} rows: {why}" for why, n in sorted(reasons.items(), key=lambda x: -x[1])]
        out.append("")
    elif cannot:
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
    if a.backend == "trtllm":
        cmd = cmd.replace(" --split", " --backend trtllm --split", 1)
        if a.sample > 1:
            cmd = cmd.replace(" --jobs", f" --sample {a.sample} --jobs", 1)
        marker = TRT_MARKER
    gen = f"{marker}\n*Generated by `{cmd}`.*\n\n{body}\n{marker}\n"
    if a.backend == "trtllm" and marker not in text:
        gen = f"\n{TRT_SECTION}\n\n{gen}"
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
    ap.add_argument("--backend", choices=["vllm-sglang", "trtllm"], default="vllm-sglang",
                    help="vllm-sglang: subset.csv's rows (default); trtllm: the TensorRT-LLM "
                         "agg rows of silicon_sample.csv, mapped as subset.csv maps its rows")
    ap.add_argument("--split", choices=["train", "test", "all"], default="test")
    ap.add_argument("--kvplan", help="the kvplan binary (default: $KVPLAN, build/*/cli/kvplan)")
    ap.add_argument("--data", type=pathlib.Path, default=DATA, help="default: %(default)s")
    ap.add_argument("--jobs", type=int, default=2, help="rows at once (1 or 2; default 2)")
    ap.add_argument("--sample", type=int, default=1,
                    help="every Nth row of the split, in file order (deterministic; default 1)")
    ap.add_argument("--only", action="append", help="only rows whose id contains this")
    ap.add_argument("--requests-per-client", type=int,
                    help="requests = this * concurrency (default: the row's client's own, "
                         "InferenceX 10, aiperf 20)")
    ap.add_argument("--gap-client", choices=["inferencex", "aiperf"], default="inferencex",
                    help="the client assumed for the NVIDIA gap-analysis rows (unpublished): "
                         "InferenceX's (default) or aiperf as aiconfigurator's benchmark "
                         "template runs it (fixed lengths, 20 requests per client)")
    ap.add_argument("--max-requests", type=int, default=0, help="cap on requests (0: none)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per row")
    ap.add_argument("--calibration", type=pathlib.Path, help="passed to every kvplan simulate")
    ap.add_argument("--measured-moe", action="store_true",
                    help="kvplan simulate --measured-moe (the measured MoE tables) on every row "
                         "whose MoE kernel the tables hold")
    ap.add_argument("--no-recv-interval", action="store_true",
                    help="run the SGLang rows without their scripts' --scheduler-recv-interval "
                         "(every loop receives, as before 2026-12-05)")
    ap.add_argument("--no-scripts", action="store_true",
                    help="run the SGLang rows at chunk 8192 (16384 on B200), fraction 0.88, the "
                         "checkpoint's KV dtype and float32 Mamba states instead of their "
                         "scripts' settings (sglang_script; as before 2026-12-05)")
    ap.add_argument("--csv", type=pathlib.Path, help="write every row's figures here")
    ap.add_argument("--markdown", type=pathlib.Path,
                    help="write the report as the InferenceX section of this Markdown file")
    a = ap.parse_args()
    if a.jobs < 1 or a.jobs > 2:
        fail("--jobs must be 1 or 2")
    if a.sample < 1 or (a.requests_per_client is not None and a.requests_per_client < 1):
        fail("--sample and --requests-per-client must be at least 1")
    if a.measured_moe and a.markdown:
        fail("--measured-moe with --markdown would replace the default step model's section; "
             "docs/accuracy.md quotes the --measured-moe figures by hand")
    subset = a.data / "subset.csv"
    if not subset.exists():
        fail(f"{subset}: not found (the InferenceX data lives in ../shared/data/inferencex)")
    unmapped = []
    if a.backend == "trtllm":
        every = load_trt(a.data)
        unmapped = [r for r in every if not r["kvplan_model"] and a.split != "all"]
        rows = [r for r in every if a.split == "all" or (r["kvplan_model"]
                                                          and split_of(r) == a.split)]
    else:
        with open(subset, newline="") as fh:
            rows = [r for r in csv.DictReader(fh) if a.split in ("all", split_of(r))]
    mark_expert_parallel(rows)
    if a.only:
        rows = [r for r in rows if any(s in r["id"] for s in a.only)]
    rows = rows[::a.sample]
    kvplan = find_kvplan(a.kvplan)
    if a.backend == "trtllm":
        cannot = [(r, r["_why"]) for r in rows if r.get("_why")]
        runnable = [r for r in rows if not r.get("_why")]
    else:
        cannot = [(r, why_not(r)) for r in rows if why_not(r)]
        runnable = [r for r in rows if not why_not(r)]

    results, failed = run_rows(runnable, lambda r: simulate(kvplan, r, a.data, a), a.jobs)
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
    body = report(a, rows, results, cannot, failed, unmapped)
    title = "InferenceX TensorRT-LLM" if a.backend == "trtllm" else "InferenceX"
    print(f"## {title}: split {a.split}\n\n" + body)
    if a.markdown:
        write_markdown(a.markdown, body, a)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
