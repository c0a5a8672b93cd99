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

SGLang rows (since 2026-12-06; docs/disagg.md "SGLang's path"): the DeepSeek-R1 (-0528) rows on
H200 and B200 under SGLang 0.5.8.post1. Each group below is one recipe as InferenceX ran it:
the nvidia-master.yaml entry and commit that swept it (the row's measured day is the merge of the
InferenceX PR that changed the entry), and the recipe file, read at NVIDIA/srt-slurm@5063eb43
(the squash-merge of ishandhanani/srt-slurm sa-submission-q1-2026, the branch the launcher
checked out; each file is byte-identical to its copy at run time). Rows are tied to a recipe by
isl/osl, by the recipe's own concurrency list and by the layout the row states ("exact"); by the
full worker layout of the db-dump rows, taken as the recipe without speculative decoding
("db-layout+stp"); or, where two recipes (with and without MTP) share a layout and a
concurrency, by which of the pair has the lower TPOT ("inferred-..."). That last tie uses the
measured figures, so those rows are reported apart. Speculative decoding (the recipes' EAGLE /
MTP decode sides) is not modelled for SGLang: those rows are not expressible. Each side maps as:
* workers x dp-size replicas (SGLang's DP attention: every attention group is a replica), each at
  TP tp-size / dp-size, --*-engine-option attention_dp=dp-size and moe_ep_size=ep-size; without DP
  attention, workers replicas at tp-size, and ep-size = tp-size as enable_expert_parallel=true;
* --*-max-num-seqs max-running-requests / dp-size and --*-max-num-batched-tokens
  chunked-prefill-size / dp-size (SGLang divides both over the DP groups: server_args.py
  _handle_data_parallelism "self.chunked_prefill_size = self.chunked_prefill_size //
  self.dp_size", and the scheduler's requested_max_running_requests_per_worker); the decode side,
  which never prefills a prompt, keeps SGLang's default chunk;
* --*-gpu-memory-utilization mem-fraction-static; --kv-dtype fp8 where kv-cache-dtype is
  fp8_e4m3, else the model's (auto); no prefix caching (disable-radix-cache);
* link ndr400 (each worker on its own 8-GPU node, one 400 Gb/s ConnectX-7 a GPU), routing
  round_robin (the recipes' load-balance-method);
* DeepSeek-R1 / -V3 FP8 as kvplan's deepseek-r1 / deepseek-v3, FP4 as the shared data's
  models/deepseek-v3-nvfp4; h200_sxm as h200-141gb, b200_sxm as b200.
DeepSeek is a train model of the aggregated fit (scripts/inferencex.py); nothing was fitted on any
disaggregated row.

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

# SGLang groups (module docstring): prefill / decode as (workers, tp-size, dp-size with DP
# attention else 1, ep-size, max-running-requests, chunked-prefill-size, mem-fraction-static, KV
# dtype (None: auto), context-length (None: ISL + OSL + 256)); rows: row id -> how it was tied.
SGLANG_RECIPES = [
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/h200/1k1k/bs256-1p6d-dep.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-h200-dynamo-sglang in .github/configs/nvidia-master.yaml@fcc04aaa2eeb5bf038209f36fb5b6d71de8e2db8",
        "prefill": (1, 8, 8, 8, 512, 262144, 0.75, None, None),
        "decode": (6, 8, 8, 8, 512, None, 0.82, None, None),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c128_tp8_0_ep8_0_907': 'inferred-pair-tpot',
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c256_tp8_0_ep8_0_908': 'inferred-pair-tpot',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c1024_tp8_ep8_1718': 'inferred-pair-tpot',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c128_tp8_ep8_1419': 'inferred-pair-tpot',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c2048_tp8_ep8_1444': 'inferred-pair-tpot',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c256_tp8_ep8_1445': 'inferred-pair-tpot',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c512_tp8_ep8_1446': 'inferred-pair-tpot',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/h200/1k1k/bs256-1p6d-tp.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-h200-dynamo-sglang in .github/configs/nvidia-master.yaml@fcc04aaa2eeb5bf038209f36fb5b6d71de8e2db8",
        "prefill": (1, 8, 1, 1, 512, 163840, 0.7, None, None),
        "decode": (6, 8, 1, 1, 512, None, 0.82, None, None),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c1024_tp8_0_ep1_0_904': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c2048_tp8_0_ep1_0_903': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c512_tp8_0_ep1_0_902': 'inferred-pair-tpot+block',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/h200/1k1k/low-latency-1p9d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-h200-dynamo-sglang in .github/configs/nvidia-master.yaml@fcc04aaa2eeb5bf038209f36fb5b6d71de8e2db8",
        "prefill": (1, 8, 1, 1, 256, 163840, 0.82, None, None),
        "decode": (9, 8, 1, 1, 256, None, 0.82, None, None),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c16_tp8_0_ep1_0_915': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c1_tp8_0_ep1_0_918': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c32_tp8_0_ep1_0_914': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c4_tp8_0_ep1_0_913': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c64_tp8_0_ep1_0_917': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c8_tp8_0_ep1_0_916': 'inferred-pair-tpot+block',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c16_tp8_ep1_1702': 'inferred-pair-tpot+block',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c1_tp8_ep1_1416': 'inferred-pair-tpot+block',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c32_tp8_ep1_1415': 'inferred-pair-tpot+block',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_1024x1024_c4_tp8_ep1_1417': 'inferred-pair-tpot+block',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/h200/8k1k/bs128-1p1d-dep.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-h200-dynamo-sglang in .github/configs/nvidia-master.yaml@fcc04aaa2eeb5bf038209f36fb5b6d71de8e2db8",
        "prefill": (1, 8, 1, 1, 16, 163840, 0.75, None, None),
        "decode": (1, 8, 8, 8, 256, None, 0.88, None, None),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_8192x1024_c256_tp8_0_ep1_0_921': 'db-layout+stp',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_8192x1024_c128_tp8_ep1_1449': 'db-layout+stp',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_8192x1024_c256_tp8_ep1_1447': 'db-layout+stp',
            '2026_04_06_deepseek_r1_h200_sxm_sglang_fp8_disagg_8192x1024_c64_tp8_ep1_1448': 'db-layout+stp',
            'dsr1_h200_sglang_fp8_disagg_8192x1024_c128_cfg434': 'db-layout+stp',
            'dsr1_h200_sglang_fp8_disagg_8192x1024_c256_cfg434': 'db-layout+stp',
            'dsr1_h200_sglang_fp8_disagg_8192x1024_c64_cfg434': 'db-layout+stp',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/h200/8k1k/bs4-1p7d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-h200-dynamo-sglang in .github/configs/nvidia-master.yaml@fcc04aaa2eeb5bf038209f36fb5b6d71de8e2db8",
        "prefill": (1, 8, 1, 1, 16, 32768, 0.82, None, None),
        "decode": (7, 8, 1, 1, 8, None, 0.82, None, None),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_8192x1024_c1_tp8_0_ep1_0_920': 'inferred-block+pair-tpot',
            '2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_disagg_8192x1024_c4_tp8_0_ep1_0_919': 'inferred-block+pair-tpot',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/1k1k/stp/low-latency-tep8-1p1d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@8a02464b856925a7a61d57b07b129ca929f4dd5f",
        "prefill": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "decode": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c4_tp8_0_ep8_0_967': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/1k1k/stp/low-latency-tep8-1p3d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@8a02464b856925a7a61d57b07b129ca929f4dd5f",
        "prefill": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "decode": (3, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c128_tp8_0_ep8_0_972': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c16_tp8_0_ep8_0_968': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c256_tp8_0_ep8_0_969': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c32_tp8_0_ep8_0_971': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c64_tp8_0_ep8_0_970': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/1k1k/stp/max-tpt-dep8-1p5d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@8a02464b856925a7a61d57b07b129ca929f4dd5f",
        "prefill": (1, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 2200),
        "decode": (5, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c1024_tp8_0_ep8_0_961': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/1k1k/stp/max-tpt-dep8-2p5d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@8a02464b856925a7a61d57b07b129ca929f4dd5f",
        "prefill": (2, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 2200),
        "decode": (5, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c2048_tp8_0_ep8_0_962': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k/stp/low-latency-tep8-1p1d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@8a02464b856925a7a61d57b07b129ca929f4dd5f",
        "prefill": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 9600),
        "decode": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c32_tp8_0_ep8_0_963': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c4_tp8_0_ep8_0_964': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c64_tp8_0_ep8_0_965': 'exact',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c32_cfg455': 'exact',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c4_cfg455': 'exact',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c64_cfg455': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k/stp/low-latency-tep8-1p4d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@8a02464b856925a7a61d57b07b129ca929f4dd5f",
        "prefill": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 9600),
        "decode": (4, 8, 1, 8, 512, 32768, 0.85, 'fp8', 9600),
        "rows": {
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c64_cfg453': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k/stp/max-tpt-dep8-1p1d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@8a02464b856925a7a61d57b07b129ca929f4dd5f",
        "prefill": (1, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 9600),
        "decode": (1, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c128_tp8_0_ep8_0_966': 'exact',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c128_cfg457': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k/stp/max-tpt-dep8-2p1d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@8a02464b856925a7a61d57b07b129ca929f4dd5f",
        "prefill": (2, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 9600),
        "decode": (1, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c256_tp8_0_ep8_0_960': 'exact',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c256_cfg459': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/1k1k/stp/low-latency-tep8-1p1d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "decode": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c4_tp8_0_ep8_0_532': 'db-layout+stp',
            'dsr1_b200_sglang_fp8_disagg_1024x1024_c4_cfg455': 'db-layout+stp',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/1k1k/stp/low-latency-tep8-1p3d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "decode": (3, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c128_tp8_0_ep8_0_542': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c16_tp8_0_ep8_0_544': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c256_tp8_0_ep8_0_541': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c32_tp8_0_ep8_0_543': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c64_tp8_0_ep8_0_545': 'inferred-pair-tpot+block',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c256_tp8_ep8_1281': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c64_tp8_ep8_1284': 'inferred-pair-tpot+block',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/1k1k/stp/max-tpt-dep8-1p5d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (1, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 2200),
        "decode": (5, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c1024_tp8_0_ep8_0_530': 'inferred-repro',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/1k1k/stp/max-tpt-dep8-2p5d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (2, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 2200),
        "decode": (5, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_1024x1024_c2048_tp8_0_ep8_0_549': 'inferred-repro',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k_stp_lowlat_1.yaml@4a22a1816f8e1ca6bc41dfca0fbf709782a45fee',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (1, 8, 8, 1, 8, 65536, 0.6, 'fp8', 9600),
        "decode": (4, 8, 1, 1, 32, None, 0.75, 'fp8', 9600),
        "rows": {
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c128_tp8_ep1_1900': 'db-layout+stp',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c128_cfg639': 'db-layout+stp',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k_stp_lowlat_2.yaml@4a22a1816f8e1ca6bc41dfca0fbf709782a45fee',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (1, 8, 8, 1, 8, 65536, 0.6, 'fp8', 9600),
        "decode": (6, 8, 1, 1, 22, None, 0.75, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c128_tp8_0_ep1_0_525': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c16_tp8_0_ep1_0_527': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c32_tp8_0_ep1_0_528': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c64_tp8_0_ep1_0_526': 'inferred-pair-tpot+block',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c8_tp8_0_ep1_0_529': 'inferred-pair-tpot+block',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c16_tp8_ep1_1906': 'inferred-pair-tpot+block',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c32_tp8_ep1_1905': 'inferred-pair-tpot+block',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c64_tp8_ep1_1907': 'inferred-pair-tpot+block',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k_stp_maxtpt_0.yaml@4a22a1816f8e1ca6bc41dfca0fbf709782a45fee',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (1, 8, 8, 1, 8, 65536, 0.6, 'fp8', 9600),
        "decode": (2, 8, 8, 8, 128, None, 0.75, 'fp8', 9600),
        "rows": {
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c288_cfg649': 'db-layout+stp',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k_stp_maxtpt_1.yaml@4a22a1816f8e1ca6bc41dfca0fbf709782a45fee',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (1, 8, 8, 1, 8, 65536, 0.6, 'fp8', 9600),
        "decode": (1, 8, 8, 8, 256, None, 0.75, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c160_tp8_0_ep1_0_547': 'db-layout+stp',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c288_tp8_0_ep1_0_548': 'db-layout+stp',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c160_tp8_ep1_1901': 'db-layout+stp',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c288_tp8_ep1_1902': 'db-layout+stp',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c160_cfg641': 'db-layout+stp',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c288_cfg641': 'db-layout+stp',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k_stp_maxtpt_2.yaml@4a22a1816f8e1ca6bc41dfca0fbf709782a45fee',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (2, 8, 8, 1, 8, 65536, 0.6, 'fp8', 9600),
        "decode": (1, 8, 8, 8, 512, None, 0.75, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c512_tp8_0_ep1_0_531': 'db-layout+stp',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c512_tp8_ep1_1910': 'db-layout+stp',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c512_cfg654': 'db-layout+stp',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp8/8k1k_stp_maxtpt_3.yaml@4a22a1816f8e1ca6bc41dfca0fbf709782a45fee',
        "config": "dsr1-fp8-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@593fb431addc81d259ab878c5cc27ee1ff351ebe",
        "prefill": (3, 8, 8, 1, 8, 65536, 0.6, 'fp8', 9600),
        "decode": (1, 8, 8, 8, 1024, None, 0.75, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp8_disagg_8192x1024_c1024_tp8_0_ep1_0_550': 'db-layout+stp',
            'dsr1_b200_sglang_fp8_disagg_8192x1024_c1024_cfg655': 'db-layout+stp',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp4/1k1k/stp/low-latency-dep4-1p-tep8-5d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp4-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@46e0b5ff02e26f07738eab5105c3c1da6123e8a9",
        "prefill": (1, 4, 4, 4, 512, 32768, 0.85, 'fp8', 2200),
        "decode": (5, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c128_tp4_0_ep4_0_794': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c16_tp4_0_ep4_0_795': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c128_tp4_ep4_1785': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c16_tp4_ep4_1462': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp4/1k1k/stp/low-latency-dep4-1p-tep8-6d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp4-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@46e0b5ff02e26f07738eab5105c3c1da6123e8a9",
        "prefill": (1, 4, 4, 4, 512, 32768, 0.85, 'fp8', 2200),
        "decode": (6, 8, 1, 8, 512, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c256_tp4_0_ep4_0_801': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c32_tp4_0_ep4_0_800': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c64_tp4_0_ep4_0_799': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c256_tp4_ep4_1771': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c32_tp4_ep4_1460': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c64_tp4_ep4_1772': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp4/1k1k/stp/max-tpt-dep4-1p-dep8-1d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp4-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@46e0b5ff02e26f07738eab5105c3c1da6123e8a9",
        "prefill": (1, 4, 4, 4, 1024, 32768, 0.85, 'fp8', 2200),
        "decode": (1, 8, 8, 8, 1024, 32768, 0.85, 'fp8', 2200),
        "rows": {
            'dsr1_b200_sglang_fp4_disagg_1024x1024_c512_cfg527': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp4/1k1k/stp/max-tpt-dep4-1p-dep8-2d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp4-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@46e0b5ff02e26f07738eab5105c3c1da6123e8a9",
        "prefill": (1, 4, 4, 4, 512, 32768, 0.85, 'fp8', 2200),
        "decode": (2, 8, 8, 8, 512, 32768, 0.85, 'fp8', 2200),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_1024x1024_c512_tp4_0_ep4_0_798': 'exact',
            'dsr1_b200_sglang_fp4_disagg_1024x1024_c512_cfg532': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp4/8k1k/stp/low-latency-dep4-1p-tep8-1d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp4-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@46e0b5ff02e26f07738eab5105c3c1da6123e8a9",
        "prefill": (1, 4, 4, 4, 512, 32768, 0.85, 'fp8', 9600),
        "decode": (1, 8, 1, 8, 512, 32768, 0.85, 'fp8', 9600),
        "rows": {
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c128_tp4_ep4_1760': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c64_tp4_ep4_1770': 'exact',
            'dsr1_b200_sglang_fp4_disagg_8192x1024_c128_cfg530': 'exact',
            'dsr1_b200_sglang_fp4_disagg_8192x1024_c64_cfg530': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp4/8k1k/stp/low-latency-dep4-1p-tep8-5d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp4-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@46e0b5ff02e26f07738eab5105c3c1da6123e8a9",
        "prefill": (1, 4, 4, 4, 512, 32768, 0.85, 'fp8', 9600),
        "decode": (5, 8, 1, 8, 512, 32768, 0.85, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c8_tp4_0_ep4_0_802': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c8_tp4_ep4_1787': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp4/8k1k/stp/low-latency-dep4-2p-tep8-5d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp4-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@46e0b5ff02e26f07738eab5105c3c1da6123e8a9",
        "prefill": (2, 4, 4, 4, 512, 32768, 0.85, 'fp8', 9600),
        "decode": (5, 8, 1, 8, 512, 32768, 0.85, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c128_tp4_0_ep4_0_796': 'inferred-complement+block',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c4_tp4_0_ep4_0_797': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c4_tp4_ep4_1786': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp4/8k1k/stp/low-latency-tp4-1p-tp8-1d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp4-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@46e0b5ff02e26f07738eab5105c3c1da6123e8a9",
        "prefill": (1, 4, 1, 1, 512, 32768, 0.85, 'fp8', 9600),
        "decode": (1, 8, 1, 1, 512, 32768, 0.85, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c16_tp4_0_ep1_0_803': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c64_tp4_0_ep1_0_804': 'exact',
            'dsr1_b200_sglang_fp4_disagg_8192x1024_c16_cfg535': 'exact',
            'dsr1_b200_sglang_fp4_disagg_8192x1024_c4_cfg535': 'exact',
            'dsr1_b200_sglang_fp4_disagg_8192x1024_c64_cfg535': 'exact',
            'dsr1_b200_sglang_fp4_disagg_8192x1024_c8_cfg535': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/b200-fp4/8k1k/stp/max-tpt-dep4-7p-dep8-2d.yaml@5063eb432640574bd93410ae2697591a7d15f57c',
        "config": "dsr1-fp4-b200-dynamo-sglang in .github/configs/nvidia-master.yaml@46e0b5ff02e26f07738eab5105c3c1da6123e8a9",
        "prefill": (7, 4, 4, 4, 1024, 65536, 0.85, 'fp8', 9600),
        "decode": (2, 8, 8, 8, 2048, 32768, 0.85, 'fp8', 9600),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c1024_tp4_0_ep4_0_806': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c2048_tp4_0_ep4_0_805': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c1024_tp4_ep4_1781': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_sglang_fp4_disagg_8192x1024_c2048_tp4_ep4_1461': 'exact',
            'dsr1_b200_sglang_fp4_disagg_8192x1024_c1024_cfg538': 'exact',
            'dsr1_b200_sglang_fp4_disagg_8192x1024_c2048_cfg538': 'exact',
        },
    },
]

SGLANG_MODELS = {("deepseek-ai/DeepSeek-R1", "fp8"): "deepseek-r1",
                 ("deepseek-ai/DeepSeek-V3", "fp8"): "deepseek-v3",
                 ("deepseek-ai/DeepSeek-R1", "fp4"): "models/deepseek-v3-nvfp4",
                 ("deepseek-ai/DeepSeek-V3", "fp4"): "models/deepseek-v3-nvfp4"}
SGLANG_GPUS = {"h200_sxm": "h200-141gb", "b200_sxm": "b200"}
SGLANG_OF = {rid: g for g in SGLANG_RECIPES for rid in g["rows"]}


def group_of(row):
    """(engine, GPU, model) and how the row was tied to its recipe, for the report."""
    if row["backend"] == "sglang":
        tie = SGLANG_OF[row["id"]]["rows"][row["id"]]
        tie = "inferred (measured TPOT)" if tie.startswith("inferred") else tie
        model = SGLANG_MODELS[(row["model_path"], row["precision"])].removeprefix("models/")
        return f"sglang, {SGLANG_GPUS[row['system']]}, {model}", tie
    return f"vllm, {GPUS[row['system']]}, kimi-k2.5-nvfp4", "exact (config_id)"


def sglang_side(name, side):
    """The --prefill-* / --decode-* flags of one SGLang side, and its replica count."""
    workers, tp, dp, ep, mrr, chunk, fraction, _, _ = side
    flags = [f"--{name}-tp", str(tp // dp)]
    if dp > 1:
        flags += [f"--{name}-engine-option", f"attention_dp={dp}"]
        if ep > 1:
            flags += [f"--{name}-engine-option", f"moe_ep_size={ep}"]
    elif ep > 1:
        if ep != tp:
            raise RuntimeError(f"{name}: EP {ep} over part of TP {tp} is not expressible")
        flags += [f"--{name}-engine-option", "enable_expert_parallel=true"]
    if mrr:
        flags += [f"--{name}-max-num-seqs", str(max(1, mrr // dp))]
    if chunk:
        flags += [f"--{name}-max-num-batched-tokens", str(chunk // dp)]
    if fraction:
        flags += [f"--{name}-gpu-memory-utilization", str(fraction)]
    return workers * dp, flags


def sglang_command(kvplan, row, data, wl_path):
    g = SGLANG_OF[row["id"]]
    p, d = g["prefill"], g["decode"]
    model = SGLANG_MODELS[(row["model_path"], row["precision"])]
    kv = p[7] or "bf16"
    context = p[8] or d[8] or int(row["isl"]) + int(row["osl"]) + 256
    np_, pflags = sglang_side("prefill", p)
    nd, dflags = sglang_side("decode", d)
    return ([kvplan, "simulate", "--model", str(data / model) if model.startswith("models/")
             else model, "--gpu", SGLANG_GPUS[row["system"]], "--engine", "sglang",
             "--kv-dtype", kv, "--max-model-len", str(context), "--no-enable-prefix-caching",
             "--prefill-replicas", str(np_), "--decode-replicas", str(nd)] + pflags + dflags +
            ["--kv-link", "ndr400", "--routing", "round_robin",
             "--workload", str(wl_path), "--format", "json", "--quiet"])


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
    if row["backend"] == "sglang":
        if row["id"] in SGLANG_OF:
            return None
        if row["system"] in SGLANG_GPUS and row["model_path"].startswith("deepseek-ai/"):
            return ("SGLang with speculative decoding (the recipe's EAGLE / MTP decode side), or a "
                    "recipe not tied to the row")
        return f"SGLang on {row['system']}: recipes not mapped yet"
    if row["backend"] != "vllm":
        return f"{row['backend']}: the recipes are not mapped yet"
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
        cmd = (sglang_command if row["backend"] == "sglang" else command)(kvplan, row, data, wl)
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
    ap.add_argument("--rows", action="store_true", help="a table of every scored row as well")
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
           f"measured of the mean over the run; bias < 0: kvplan too fast (optimistic). Nothing "
           f"is fitted on these rows.\n"]
    if results:
        groups = collections.defaultdict(list)
        for r, ttft, tpot in results:
            groups[group_of(r)].append((ix.err_pct(ttft, float(r["silicon_ttft_ms"])),
                                        ix.err_pct(tpot, float(r["silicon_tpot_ms"]))))
        out += ["| engine, GPU, model | rows tied by | rows | TTFT MAPE | TTFT bias | TPOT MAPE | "
                "TPOT bias |", "|---|---|---:|---:|---:|---:|---:|"]
        for k in sorted(groups):
            e = groups[k]
            n = len(e)
            out.append(f"| {k[0]} | {k[1]} | {n} | {sum(abs(x) for x, _ in e) / n:.1f} % | "
                       f"{sum(x for x, _ in e) / n:+.1f} % | {sum(abs(y) for _, y in e) / n:.1f} % | "
                       f"{sum(y for _, y in e) / n:+.1f} % |")
        out.append("")
    if results and a.rows:
        out += ["| row | ISL/OSL | CONC | TTFT measured | TTFT kvplan | error | TPOT measured | "
                "TPOT kvplan | error |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r, ttft, tpot in sorted(results, key=lambda x: (group_of(x[0]), int(x[0]["isl"]),
                                                            int(x[0]["concurrency"]))):
            mt, mp = float(r["silicon_ttft_ms"]), float(r["silicon_tpot_ms"])
            out.append(f"| {r['id']} | {r['isl']}/{r['osl']} | {r['concurrency']} | {mt:.1f} | "
                       f"{ttft:.1f} | {ix.err_pct(ttft, mt):+.1f} % | {mp:.2f} | {tpot:.2f} | "
                       f"{ix.err_pct(tpot, mp):+.1f} % |")
        out.append("")
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
            w.writerow(["id", "engine", "gpu", "tied_by", "isl", "osl", "concurrency", "ttft_meas",
                        "ttft_kvplan",
                        "ttft_err_pct", "tpot_meas", "tpot_kvplan", "tpot_err_pct"])
            for r, ttft, tpot in results:
                mt, mp = float(r["silicon_ttft_ms"]), float(r["silicon_tpot_ms"])
                w.writerow([r["id"], r["backend"], r["system"], group_of(r)[1], r["isl"], r["osl"],
                            r["concurrency"], f"{mt:.3f}",
                            f"{ttft:.3f}", f"{ix.err_pct(ttft, mt):.2f}", f"{mp:.4f}",
                            f"{tpot:.4f}", f"{ix.err_pct(tpot, mp):.2f}"])
    print("## InferenceX disaggregated rows\n\n" + "\n".join(out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
