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

TensorRT-LLM rows (since 2026-12-06; docs/disagg.md "TensorRT-LLM's path"): the DeepSeek-R1
(-0528) rows on H200, B200, B300 and H100 under Dynamo 0.8.1 with TensorRT-LLM workers
(python3 -m dynamo.trtllm --disaggregation-mode prefill|decode behind dynamo.frontend, which sends
a request to a context worker first, then to a generation worker). Each group is one recipe of
the same branch, read at the last commit of sa-submission-q1-2026 before the sweep's InferenceX
merge (csahithi/srt-slurm keeps that history; most are byte-identical at NVIDIA/srt-slurm@
5063eb43). Rows are tied as for SGLang; "inferred (measured TPOT)" marks the ties that used the
measured latencies. Recipes with MTP (speculative_config, on both sides) are not expressible.
Each side (ctx = prefill, gen = decode) maps as:
* workers x attention_dp_size replicas with enable_attention_dp (--*-tp 1,
  --*-engine-option attention_dp=N, moe_ep_size=moe_expert_parallel_size above 1), else
  workers replicas at tensor_parallel_size, enable_expert_parallel=true where
  moe_expert_parallel_size = tensor_parallel_size (MoE TP otherwise);
* --*-max-num-seqs max_batch_size and --*-max-num-batched-tokens max_num_tokens, each per rank
  (TensorRT-LLM's attention DP ranks each run a batch of their own);
* --*-gpu-memory-utilization kv_cache_config.free_gpu_memory_fraction (kvplan's TensorRT-LLM
  rules apply it to the memory free after the weights); --kv-dtype fp8 (every recipe);
  --max-model-len the generation side's max_seq_len (the context side's covers prompt + 1);
  --enable-chunked-context where the context side sets enable_chunked_prefill;
  --capacity-scheduler-policy guaranteed_no_evict (no recipe sets scheduler_config);
* link: ndr400 on H100, H200 and B200 nodes (one ConnectX-7 a GPU), xdr800 on B300 nodes (one
  ConnectX-8 SuperNIC a GPU, up to 800 Gb/s: https://www.nvidia.com/en-us/data-center/dgx-b300/);
  routing round_robin (dynamo.frontend without router arguments).
Not modelled: the overlap scheduler setting (disable_overlap_scheduler), CUDA graph batch sizes,
the MoE backend, and the transceiver's max_tokens_in_buffer.

GB200 and GB300 rows (SGLang and TensorRT-LLM, 2026-12-06): the same mapping for the recipes of
the sweeps that pinned one (the December 2025 / January 2026 GB200 runs cloned ai-dynamo/dynamo
scripts that could not be read, and are left out; so are MTP recipes and GLM-5, whose NVFP4
checkpoint config is not in the shared data). Kimi-K2.5 NVFP4 maps to models/kimi-k2.5-nvfp4.
SGLang's GB recipes state dp-size beside enable-dp-attention: true (e.g. csahithi/srt-slurm
recipes/gb200-fp8/1k1k/max-tpt.yaml@0c90137c: tp-size 32, dp-size 32, ep-size 32), so dp-size > 1
is DP attention there. The KV link is NVLink where both sides sit in one NVL72 rack (GB200: the
launcher asks Slurm for one segment of all the job's nodes, at most 18 trays: inferred, the
cluster's topology is not public), else xdr800 (GB300: placement unknown).

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
                 ("deepseek-ai/DeepSeek-V3", "fp4"): "models/deepseek-v3-nvfp4",
                 ("moonshotai/Kimi-K2.5", "fp4"): "models/kimi-k2.5-nvfp4"}
SGLANG_GPUS = {"h200_sxm": "h200-141gb", "b200_sxm": "b200", "gb200": "gb200", "gb300": "gb300"}
SGLANG_OF = {rid: g for g in SGLANG_RECIPES for rid in g["rows"]}

# TensorRT-LLM groups (module docstring): ctx / gen as (workers, tensor_parallel_size,
# attention_dp_size with enable_attention_dp else 1, moe_expert_parallel_size, max_batch_size,
# max_num_tokens, max_seq_len, free_gpu_memory_fraction, KV dtype, enable_chunked_prefill).
TRTLLM_RECIPES = [
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c1_ctx1_gen9_tep8_batch1_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 1, 1, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c11_tp8_0_ep8_0_672': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c4_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c36_tp8_0_ep8_0_667': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c36_cfg303': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c8_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c72_tp8_0_ep8_0_655': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c72_cfg303': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c16_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c144_tp8_0_ep8_0_651': 'db-layout+stp',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c144_cfg303': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c32_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c288_tp8_0_ep8_0_645': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c288_cfg303': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c64_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c576_tp8_0_ep8_0_648': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c576_cfg303': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c128_ctx1_gen9_dep8_batch512_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 8, 8, 512, 512, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c1152_tp8_0_ep8_0_673': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c256_ctx1_gen6_dep8_batch512_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (6, 8, 8, 8, 512, 512, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c1536_tp8_0_ep8_0_669': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c512_ctx2_gen7_dep8_batch512_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (2, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (7, 8, 8, 8, 512, 512, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c3584_tp8_0_ep8_0_658': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c1_ctx1_gen7_tep8_batch1_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (7, 8, 1, 8, 1, 1, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c9_tp8_0_ep8_0_662': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c4_ctx1_gen7_tep8_batch32_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (7, 8, 1, 8, 32, 32, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c28_tp8_0_ep8_0_656': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c16_ctx1_gen3_tep8_batch32_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (3, 8, 1, 8, 32, 32, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c48_tp8_0_ep8_0_646': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c128_ctx1_gen1_dep8_batch256_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (1, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (1, 8, 8, 8, 256, 256, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c128_tp8_0_ep8_0_670': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c128_cfg291': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c32_ctx2_gen5_tep8_batch128_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (2, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (5, 8, 1, 8, 128, 128, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c160_tp8_0_ep8_0_666': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c64_ctx2_gen3_dep8_batch128_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (2, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (3, 8, 8, 8, 128, 128, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c192_tp8_0_ep8_0_660': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c192_cfg325': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c512_ctx3_gen1_dep8_batch512_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (3, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (1, 8, 8, 8, 512, 512, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c512_tp8_0_ep8_0_650': 'db-layout+stp',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c512_cfg334': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c256_ctx5_gen3_dep8_batch256_eplb0_mtp0.yaml@b92b1f60608bf35331591e4ccac7882b7f3748aa',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@49f8ceee075fdf935f179ccf639c61b1a5c119d9",
        "ctx": (5, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (3, 8, 8, 8, 256, 256, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c768_tp8_0_ep8_0_663': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c768_cfg294': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c1_ctx1_gen9_tep8_batch1_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 1, 1, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c11_tp8_0_ep8_0_399': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c11_tp8_ep8_1823': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c4_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c36_tp8_0_ep8_0_368': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c36_tp8_ep8_1576': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c36_cfg590': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c8_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c72_tp8_0_ep8_0_434': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c72_tp8_ep8_1250': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c72_cfg590': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c16_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c144_tp8_0_ep8_0_426': 'db-layout+stp',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c144_cfg590': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c32_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c288_tp8_0_ep8_0_353': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c288_tp8_ep8_1249': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c288_cfg590': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c64_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 1, 8, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c576_tp8_0_ep8_0_410': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c576_tp8_ep8_1519': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c576_cfg590': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c128_ctx1_gen9_dep8_batch512_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (9, 8, 8, 8, 512, 512, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c1152_tp8_0_ep8_0_406': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c1152_tp8_ep8_1539': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c1152_cfg321': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c256_ctx1_gen6_dep8_batch512_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (6, 8, 8, 8, 512, 512, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c1536_tp8_0_ep8_0_409': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c1536_tp8_ep8_1545': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c1536_cfg336': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/1k1k/stp/c512_ctx2_gen7_dep8_batch512_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (2, 8, 8, 8, 8, 8192, 1064, 0.6, 'fp8', False),
        "gen": (7, 8, 8, 8, 512, 512, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c3584_tp8_0_ep8_0_414': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_1024x1024_c3584_tp8_ep8_1541': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_1024x1024_c3584_cfg328': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c1_ctx1_gen7_tep8_batch1_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (7, 8, 1, 8, 1, 1, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c9_tp8_0_ep8_0_448': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c4_ctx1_gen7_tep8_batch32_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (7, 8, 1, 8, 32, 32, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c28_tp8_0_ep8_0_388': 'db-layout+stp',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c28_cfg297': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c16_ctx1_gen3_tep8_batch32_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (3, 8, 1, 8, 32, 32, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c48_tp8_0_ep8_0_357': 'db-layout+stp',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c48_cfg347': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c8_ctx1_gen6_tep8_batch16_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (6, 8, 1, 8, 16, 16, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c48_tp8_ep8_1542': 'db-layout+stp',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c48_cfg301': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c128_ctx1_gen1_dep8_batch256_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (1, 8, 8, 8, 256, 256, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c128_tp8_0_ep8_0_395': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c128_tp8_ep8_1238': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c128_cfg675': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c32_ctx2_gen5_tep8_batch128_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (2, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (5, 8, 1, 8, 128, 128, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c160_tp8_0_ep8_0_427': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c160_tp8_ep8_1239': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c160_cfg305': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c64_ctx2_gen3_dep8_batch128_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (2, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (3, 8, 8, 8, 128, 128, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c192_tp8_0_ep8_0_443': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c192_tp8_ep8_1540': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c192_cfg674': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c512_ctx3_gen1_dep8_batch512_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (3, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (1, 8, 8, 8, 512, 512, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c512_tp8_0_ep8_0_370': 'db-layout+stp',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c512_tp8_ep8_1543': 'db-layout+stp',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c512_cfg673': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h200/8k1k/stp/c256_ctx5_gen3_dep8_batch256_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-h200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (5, 8, 1, 8, 2, 16640, 8232, 0.85, 'fp8', False),
        "gen": (3, 8, 8, 8, 256, 256, 9256, 0.85, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c768_tp8_0_ep8_0_405': 'exact',
            '2026_04_06_deepseek_r1_h200_sxm_trtllm_fp8_disagg_8192x1024_c768_tp8_ep8_1828': 'exact',
            'dsr1_h200_trtllm_fp8_disagg_8192x1024_c768_cfg679': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/1k1k/stp/ctx1_gen5_tep8_batch1_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (1, 4, 4, 4, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (5, 8, 1, 8, 1, 1, 2068, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c6_tp4_0_ep4_0_1161': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c6_tp4_ep4_1528': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/1k1k/stp/ctx1_gen5_tep8_batch32_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (1, 4, 4, 4, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (5, 8, 1, 8, 32, 32, 2068, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c10_tp4_0_ep4_0_1152': 'db-layout+stp',
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c15_tp4_0_ep4_0_1153': 'db-layout+stp',
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c180_tp4_0_ep4_0_1155': 'db-layout+stp',
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c25_tp4_0_ep4_0_1151': 'db-layout+stp',
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c45_tp4_0_ep4_0_1154': 'db-layout+stp',
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c90_tp4_0_ep4_0_1150': 'db-layout+stp',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c15_tp4_ep4_1256': 'db-layout+stp',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c180_tp4_ep4_1255': 'db-layout+stp',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c25_tp4_ep4_1257': 'db-layout+stp',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c45_tp4_ep4_1258': 'db-layout+stp',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c90_tp4_ep4_1259': 'db-layout+stp',
            'dsr1_b200_trtllm_fp4_disagg_1024x1024_c10_cfg320': 'db-layout+stp',
            'dsr1_b200_trtllm_fp4_disagg_1024x1024_c15_cfg320': 'db-layout+stp',
            'dsr1_b200_trtllm_fp4_disagg_1024x1024_c180_cfg320': 'db-layout+stp',
            'dsr1_b200_trtllm_fp4_disagg_1024x1024_c25_cfg320': 'db-layout+stp',
            'dsr1_b200_trtllm_fp4_disagg_1024x1024_c45_cfg320': 'db-layout+stp',
            'dsr1_b200_trtllm_fp4_disagg_1024x1024_c90_cfg320': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/1k1k/stp/ctx1_gen6_tep8_batch64_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (1, 4, 4, 4, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (6, 8, 1, 8, 64, 64, 2068, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c450_tp4_0_ep4_0_1170': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c450_tp4_ep4_1533': 'exact',
            'dsr1_b200_trtllm_fp4_disagg_1024x1024_c450_cfg335': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/1k1k/stp/ctx1_gen5_dep8_batch32_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (1, 4, 4, 4, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (5, 8, 8, 8, 32, 32, 2068, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c1365_tp4_0_ep4_0_1167': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c1365_tp4_ep4_1555': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/1k1k/stp/ctx1_gen2_dep8_batch128_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (1, 4, 4, 4, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (2, 8, 8, 8, 128, 128, 2068, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c2192_tp4_0_ep4_0_1180': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c2192_tp4_ep4_1556': 'exact',
            'dsr1_b200_trtllm_fp4_disagg_1024x1024_c2192_cfg346': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/1k1k/stp/ctx1_gen1_dep8_batch512_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (1, 4, 4, 4, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (1, 8, 8, 8, 512, 512, 2068, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c4096_tp4_0_ep4_0_1166': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_1024x1024_c4096_tp4_ep4_1524': 'exact',
            'dsr1_b200_trtllm_fp4_disagg_1024x1024_c4096_cfg309': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/8k1k/stp/ctx1_gen5_tep8_batch1_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (1, 4, 4, 4, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (5, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c6_tp4_0_ep4_0_1139': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c6_tp4_ep4_1557': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/8k1k/stp/ctx1_gen5_tep8_batch8_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (1, 4, 4, 4, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (5, 8, 1, 8, 16, 16, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c100_tp4_0_ep4_0_1140': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c10_tp4_0_ep4_0_1144': 'db-layout+stp',
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c15_tp4_0_ep4_0_1141': 'db-layout+stp',
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c25_tp4_0_ep4_0_1142': 'exact',
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c50_tp4_0_ep4_0_1143': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c100_tp4_ep4_1580': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c10_tp4_ep4_1272': 'db-layout+stp',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c25_tp4_ep4_1273': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c50_tp4_ep4_1274': 'exact',
            'dsr1_b200_trtllm_fp4_disagg_8192x1024_c100_cfg320': 'exact',
            'dsr1_b200_trtllm_fp4_disagg_8192x1024_c10_cfg320': 'db-layout+stp',
            'dsr1_b200_trtllm_fp4_disagg_8192x1024_c15_cfg320': 'db-layout+stp',
            'dsr1_b200_trtllm_fp4_disagg_8192x1024_c25_cfg320': 'exact',
            'dsr1_b200_trtllm_fp4_disagg_8192x1024_c50_cfg320': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/8k1k/stp/ctx2_gen5_tep8_batch64_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (2, 4, 4, 4, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (5, 8, 1, 8, 64, 64, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c370_tp4_0_ep4_0_1149': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c370_tp4_ep4_1211': 'exact',
            'dsr1_b200_trtllm_fp4_disagg_8192x1024_c370_cfg315': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/8k1k/stp/ctx4_gen3_dep8_batch32_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (4, 4, 4, 4, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (3, 8, 8, 8, 32, 32, 9256, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c837_tp4_0_ep4_0_1147': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c837_tp4_ep4_1245': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/8k1k/stp/ctx4_gen1_dep8_batch192_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (4, 4, 4, 4, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (1, 8, 8, 8, 192, 192, 9256, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c1606_tp4_0_ep4_0_1178': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c1606_tp4_ep4_1579': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp4/8k1k/stp/ctx7_gen2_dep8_batch128_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b200-dynamo-trt in .github/configs/nvidia-master.yaml@efe2f531c5959cdb407996b70a1beb1a01855a24",
        "ctx": (7, 4, 4, 4, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (2, 8, 8, 8, 128, 128, 9256, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c2222_tp4_0_ep4_0_1169': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_disagg_8192x1024_c2222_tp4_ep4_1527': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen3_tp8_batch1024_eplb0_mtp0_4.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (3, 8, 1, 1, 1, 1, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c4_tp8_0_ep8_0_727': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen3_tp8_batch1024_eplb0_mtp0_32.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (3, 8, 1, 1, 12, 12, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c32_tp8_0_ep8_0_740': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen3_tp8_batch1024_eplb0_mtp0_128.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (3, 8, 1, 1, 1024, 4096, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c128_tp8_0_ep8_0_721': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen5_dep8_batch48_eplb0_mtp0_1920.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (5, 8, 8, 8, 48, 4096, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c1920_tp8_0_ep8_0_738': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen1_dep8_batch512_eplb0_mtp0_4096.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.2, 'fp8', False),
        "gen": (1, 8, 8, 8, 512, 4096, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c4096_tp8_0_ep8_0_743': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx2_gen5_dep8_batch128_eplb0_mtp0_5152.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (2, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (5, 8, 8, 8, 128, 4096, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c5152_tp8_0_ep8_0_723': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen1_tp8_batch1_eplb0_mtp0_1.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 1, 1, 64, 8320, 8320, 0.8, 'fp8', False),
        "gen": (1, 8, 1, 1, 1, 1, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c1_tp8_0_ep8_0_726': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c1_tp8_ep8_1795': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c1_cfg556': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen4_tp8_batch32_eplb0_mtp0_32.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (4, 8, 1, 1, 8, 8, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c32_tp8_0_ep8_0_739': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c32_tp8_ep8_1784': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c32_cfg553': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen6_tp8_batch16_eplb0_mtp0_96.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (6, 8, 1, 1, 16, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c96_tp8_0_ep8_0_735': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c96_tp8_ep8_1792': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c96_cfg554': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen1_dep8_batch128_eplb0_mtp0_128.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (1, 8, 8, 8, 128, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c128_tp8_ep8_1796': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c128_cfg549': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen2_dep8_batch64_eplb0_mtp0_128.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (2, 8, 8, 8, 64, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c128_cfg566': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen4_tp8_batch32_eplb0_mtp0_128.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (4, 8, 1, 1, 32, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c128_tp8_0_ep8_0_725': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c128_cfg553': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen1_dep8_batch256_eplb0_mtp0_256.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (1, 8, 8, 8, 256, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c256_tp8_0_ep8_0_729': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c256_tp8_ep8_1797': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c256_cfg549': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx2_gen1_dep8_batch640_eplb0_mtp0_640.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@81f636de2895d9cd1208e04cc50214fd592e2be8",
        "ctx": (2, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (1, 8, 8, 8, 640, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c640_tp8_0_ep8_0_719': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c640_tp8_ep8_1794': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c640_cfg555': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen3_tp8_batch1024_eplb0_mtp0_4.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (3, 8, 1, 1, 1, 1, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c4_tp8_0_ep8_0_387': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c4_tp8_ep8_1793': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen3_tp8_batch1024_eplb0_mtp0_32.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (3, 8, 1, 1, 12, 12, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c32_tp8_0_ep8_0_446': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c32_tp8_ep8_1782': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen3_tp8_batch1024_eplb0_mtp0_128.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (3, 8, 1, 1, 1024, 4096, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c128_tp8_0_ep8_0_458': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c128_tp8_ep8_1800': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen5_dep8_batch48_eplb0_mtp0_1920.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (5, 8, 8, 8, 48, 4096, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c1920_tp8_0_ep8_0_364': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c1920_tp8_ep8_1805': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_1024x1024_c1920_cfg564': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx1_gen1_dep8_batch512_eplb0_mtp0_4096.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 8, 16, 16384, 1152, 0.2, 'fp8', False),
        "gen": (1, 8, 8, 8, 512, 4096, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c4096_tp8_0_ep8_0_407': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c4096_tp8_ep8_1509': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_1024x1024_c4096_cfg549': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/1k1k/stp/ctx2_gen5_dep8_batch128_eplb0_mtp0_5152.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (2, 8, 8, 8, 16, 16384, 1152, 0.4, 'fp8', False),
        "gen": (5, 8, 8, 8, 128, 4096, 2176, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c5152_tp8_0_ep8_0_447': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_1024x1024_c5152_tp8_ep8_1803': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen1_tp8_batch1_eplb0_mtp0_1.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 1, 1, 64, 8320, 8320, 0.8, 'fp8', False),
        "gen": (1, 8, 1, 1, 1, 1, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c1_tp8_0_ep1_0_358': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c1_tp8_ep1_1948': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c1_cfg662': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen4_tp8_batch32_eplb0_mtp0_32.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (4, 8, 1, 1, 8, 8, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c32_tp8_0_ep1_0_432': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c32_tp8_ep1_1947': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c32_cfg661': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen6_tp8_batch16_eplb0_mtp0_96.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (6, 8, 1, 1, 16, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c96_tp8_0_ep1_0_393': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c96_tp8_ep1_1964': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c96_cfg669': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen1_dep8_batch128_eplb0_mtp0_128.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (1, 8, 8, 8, 128, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c128_tp8_ep1_1434': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c128_cfg666': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen2_dep8_batch64_eplb0_mtp0_128.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (2, 8, 8, 8, 64, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c128_tp8_0_ep1_0_372': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c128_cfg670': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen4_tp8_batch32_eplb0_mtp0_128.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (4, 8, 1, 1, 32, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c128_cfg661': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx1_gen1_dep8_batch256_eplb0_mtp0_256.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (1, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (1, 8, 8, 8, 256, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c256_tp8_0_ep1_0_377': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c256_tp8_ep1_1956': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c256_cfg666': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b200-fp8/8k1k/stp/ctx2_gen1_dep8_batch640_eplb0_mtp0_640.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": "dsr1-fp8-b200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115",
        "ctx": (2, 8, 8, 1, 1, 8320, 8320, 0.2, 'fp8', False),
        "gen": (1, 8, 8, 8, 640, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c640_tp8_0_ep1_0_418': 'exact',
            '2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_disagg_8192x1024_c640_tp8_ep1_1955': 'exact',
            'dsr1_b200_trtllm_fp8_disagg_8192x1024_c640_cfg667': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/1k1k/stp/ctx1_gen5_tep4_batch4_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (1, 2, 2, 2, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (5, 4, 1, 4, 4, 4, 2068, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c10_tp2_0_ep2_0_1219': 'inferred (measured TPOT)',
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c15_tp2_0_ep2_0_1218': 'exact',
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c25_tp2_0_ep2_0_1220': 'inferred (measured TPOT)',
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c5_tp2_0_ep2_0_1217': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c15_tp2_ep2_1243': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c25_tp2_ep2_1244': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c5_tp2_ep2_1546': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/1k1k/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (1, 2, 2, 2, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 2068, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c6_tp2_0_ep2_0_1232': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c6_tp2_ep2_1551': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/1k1k/stp/ctx1_gen5_tep8_batch64_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (1, 2, 2, 2, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (5, 8, 1, 8, 64, 64, 2068, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c110_tp2_0_ep2_0_1203': 'exact',
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c195_tp2_0_ep2_0_1202': 'exact',
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c395_tp2_0_ep2_0_1205': 'exact',
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c60_tp2_0_ep2_0_1204': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c110_tp2_ep2_1535': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c195_tp2_ep2_1242': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c395_tp2_ep2_1240': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c60_tp2_ep2_1241': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/1k1k/stp/ctx1_gen2_dep8_batch64_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (1, 2, 2, 2, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (2, 8, 8, 8, 64, 64, 2068, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c1176_tp2_0_ep2_0_1216': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c1176_tp2_ep2_2009': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/1k1k/stp/ctx2_gen1_dep8_batch512_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (2, 2, 2, 2, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (1, 8, 8, 8, 512, 512, 2068, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c4405_tp2_0_ep2_0_1221': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c4405_tp2_ep2_1536': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/1k1k/stp/ctx3_gen2_dep8_batch256_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (3, 2, 2, 2, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (2, 8, 8, 8, 256, 256, 2068, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c4611_tp2_0_ep2_0_1223': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c4611_tp2_ep2_1548': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/1k1k/stp/ctx3_gen1_dep8_batch1024_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (3, 2, 2, 2, 8, 10240, 1044, 0.75, 'fp8', False),
        "gen": (1, 8, 8, 8, 1024, 1024, 2068, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c8192_tp2_0_ep2_0_1211': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_1024x1024_c8192_tp2_ep2_2008': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/8k1k/stp/ctx1_gen3_tep8_batch1_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (1, 2, 2, 2, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (3, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c4_tp2_0_ep2_0_1210': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c4_tp2_ep2_2010': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/8k1k/stp/ctx1_gen4_tep4_batch2_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (1, 2, 2, 2, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (4, 4, 1, 4, 2, 2, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c12_tp2_0_ep2_0_1215': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c12_tp2_ep2_1265': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/8k1k/stp/ctx1_gen3_tep8_batch16_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (1, 2, 2, 2, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (3, 8, 1, 8, 16, 16, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c63_tp2_0_ep2_0_1231': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c63_tp2_ep2_1247': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/8k1k/stp/ctx1_gen3_tep4_batch32_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (1, 2, 2, 2, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (3, 4, 1, 4, 32, 32, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c105_tp2_0_ep2_0_1234': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c105_tp2_ep2_2015': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/8k1k/stp/ctx5_gen2_dep8_batch32_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (5, 2, 2, 2, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (2, 8, 8, 8, 32, 32, 9256, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c589_tp2_0_ep2_0_1230': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c589_tp2_ep2_1561': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/8k1k/stp/ctx6_gen1_dep8_batch128_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (6, 2, 2, 2, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (1, 8, 8, 8, 128, 128, 9256, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c1093_tp2_0_ep2_0_1212': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c1093_tp2_ep2_1520': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp4/8k1k/stp/ctx8_gen1_dep8_batch256_eplb0_mtp0.yaml@d2f5af03b5b161e9dc0e5895e595796ca63b40b2',
        "config": "dsr1-fp4-b300-dynamo-trt in .github/configs/nvidia-master.yaml@4248627907467b7e8e54840b581b8db311fa2665",
        "ctx": (8, 2, 2, 2, 2, 16896, 8232, 0.75, 'fp8', False),
        "gen": (1, 8, 8, 8, 256, 256, 9256, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c2048_tp2_0_ep2_0_1201': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp4_disagg_8192x1024_c2048_tp2_ep2_1568': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/1k1k/stp/ctx1_gen8_tp8_batch64_eplb0_mtp0_12.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@04b564b3942aaa8a958fa1d988759c778261e2f4",
        "ctx": (1, 4, 4, 1, 8, 8320, 1280, 0.6, 'fp8', False),
        "gen": (8, 8, 1, 1, 64, 64, 2400, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c12_tp4_0_ep1_0_879': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c12_tp4_ep1_1728': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/8k1k/stp/ctx1_gen8_tp8_batch2_eplb0_mtp0_16.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@04b564b3942aaa8a958fa1d988759c778261e2f4",
        "ctx": (1, 4, 4, 1, 8, 8320, 8320, 0.6, 'fp8', False),
        "gen": (8, 8, 1, 1, 2, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c16_tp4_0_ep1_0_881': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c16_tp4_ep1_1692': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/1k1k/stp/ctx1_gen8_tp8_batch64_eplb0_mtp0_12.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (1, 4, 4, 1, 8, 8320, 1280, 0.6, 'fp8', False),
        "gen": (8, 8, 1, 1, 1, 1, 2400, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c10_tp4_0_ep1_0_756': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/1k1k/stp/ctx1_gen8_tp8_batch64_eplb0_mtp0_128.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (1, 4, 4, 1, 8, 8320, 1280, 0.6, 'fp8', False),
        "gen": (8, 8, 1, 1, 64, 64, 2400, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c128_tp4_0_ep1_0_755': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c128_tp4_ep1_1694': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/1k1k/stp/ctx1_gen8_tp8_batch64_eplb0_mtp0_384.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (1, 4, 4, 1, 8, 8320, 1280, 0.6, 'fp8', False),
        "gen": (8, 8, 1, 1, 64, 64, 2400, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c384_tp4_0_ep1_0_765': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c384_tp4_ep1_1407': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/1k1k/stp/ctx1_gen3_dp8_batch48_eplb0_mtp0_1280.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (1, 4, 4, 1, 8, 8320, 1280, 0.6, 'fp8', False),
        "gen": (3, 8, 8, 1, 48, 384, 2400, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c1280_tp4_0_ep1_0_767': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c1280_tp4_ep1_1729': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/1k1k/stp/ctx1_gen1_dep8_batch256_eplb0_mtp0_2112.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (1, 4, 4, 1, 8, 8320, 1280, 0.6, 'fp8', False),
        "gen": (1, 8, 8, 8, 256, 2048, 2400, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c2112_tp4_0_ep1_0_759': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c2112_tp4_ep1_1716': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/1k1k/stp/ctx1_gen2_dp8_batch128_eplb0_mtp0_3072.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (1, 4, 4, 1, 8, 8320, 1280, 0.6, 'fp8', False),
        "gen": (2, 8, 8, 1, 128, 1024, 2400, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c3072_tp4_0_ep1_0_746': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c3072_tp4_ep1_1288': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/1k1k/stp/ctx2_gen1_dp8_batch1024_eplb0_mtp0_16384.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (2, 4, 4, 1, 8, 8320, 1280, 0.6, 'fp8', False),
        "gen": (1, 8, 8, 1, 1024, 8192, 2400, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c16384_tp4_0_ep1_0_744': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_1024x1024_c16384_tp4_ep1_1481': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/8k1k/stp/ctx1_gen8_tp8_batch2_eplb0_mtp0_16.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (1, 4, 4, 1, 8, 8320, 8320, 0.6, 'fp8', False),
        "gen": (8, 8, 1, 1, 1, 1, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c10_tp4_0_ep1_0_762': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c10_tp4_ep1_1812': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/8k1k/stp/ctx1_gen4_tp8_batch16_eplb0_mtp0_64.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (1, 4, 4, 1, 8, 8320, 8320, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 1, 16, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c64_tp4_0_ep1_0_754': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c64_tp4_ep1_1704': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/8k1k/stp/ctx3_gen1_dp8_batch64_eplb0_mtp0_512.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (3, 4, 4, 1, 8, 8320, 8320, 0.6, 'fp8', False),
        "gen": (1, 8, 8, 1, 64, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c512_tp4_0_ep1_0_749': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c512_tp4_ep1_1406': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/8k1k/stp/ctx5_gen1_dp8_batch128_eplb0_mtp0_1075.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (5, 4, 4, 1, 8, 8320, 8320, 0.6, 'fp8', False),
        "gen": (1, 8, 8, 1, 128, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c1075_tp4_0_ep1_0_764': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c1075_tp4_ep1_1717': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/b300-fp8/8k1k/stp/ctx7_gen1_dep8_batch384_eplb0_mtp0_3072.yaml@cf934ae489d84f3aace3c4b1f0d5eca53d4ce62f',
        "config": "dsr1-fp8-b300-dynamo-trt in .github/configs/nvidia-master.yaml@f18e0d9638f7c1384e28e924e1b9a9181546fe52",
        "ctx": (7, 4, 4, 1, 8, 8320, 8320, 0.6, 'fp8', False),
        "gen": (1, 8, 8, 8, 384, 512, 9344, 0.8, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c3072_tp4_0_ep1_0_748': 'exact',
            '2026_04_06_deepseek_r1_b300_sxm_trtllm_fp8_disagg_8192x1024_c3072_tp4_ep1_1727': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/1k1k/stp/ctx1_gen3_tep16_batch1_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 2, 2048, 2048, 0.6, 'fp8', True),
        "gen": (3, 16, 1, 16, 1, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c6_tp16_0_ep16_0_859': 'db-layout+stp',
            'dsr1_h100_trtllm_fp8_disagg_1024x1024_c6_cfg494': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/1k1k/stp/ctx1_gen3_tep16_batch2_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 2, 2048, 2048, 0.6, 'fp8', True),
        "gen": (3, 16, 1, 16, 2, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c9_tp16_0_ep16_0_855': 'db-layout+stp',
            '2026_04_06_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c9_tp16_ep16_1753': 'db-layout+stp',
            'dsr1_h100_trtllm_fp8_disagg_1024x1024_c9_cfg494': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/1k1k/stp/ctx1_gen3_tep16_batch8_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 2, 2048, 2048, 0.6, 'fp8', True),
        "gen": (3, 16, 1, 16, 8, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c30_tp16_0_ep16_0_872': 'db-layout+stp',
            '2026_04_06_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c30_tp16_ep16_1723': 'db-layout+stp',
            'dsr1_h100_trtllm_fp8_disagg_1024x1024_c30_cfg494': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/1k1k/stp/ctx1_gen3_tep16_batch16_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 2, 2048, 2048, 0.6, 'fp8', False),
        "gen": (3, 16, 1, 16, 16, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c60_tp16_0_ep16_0_861': 'db-layout+stp',
            'dsr1_h100_trtllm_fp8_disagg_1024x1024_c60_cfg494': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/1k1k/stp/ctx1_gen3_dep16_batch4_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 2, 2048, 2048, 0.6, 'fp8', False),
        "gen": (3, 16, 16, 16, 4, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c231_tp16_0_ep16_0_874': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/1k1k/stp/ctx1_gen3_dep16_batch8_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 2, 2048, 2048, 0.6, 'fp8', False),
        "gen": (3, 16, 16, 16, 8, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c462_tp16_0_ep16_0_852': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/1k1k/stp/ctx1_gen3_dep16_batch16_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 2, 2048, 2048, 0.6, 'fp8', True),
        "gen": (3, 16, 16, 16, 16, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c924_tp16_0_ep16_0_860': 'exact',
            '2026_04_06_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c924_tp16_ep16_1755': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/1k1k/stp/ctx1_gen3_dep16_batch32_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 2, 2048, 2048, 0.6, 'fp8', False),
        "gen": (3, 16, 16, 16, 32, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c1845_tp16_0_ep16_0_853': 'exact',
            '2026_04_06_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c1845_tp16_ep16_1739': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/1k1k/stp/ctx2_gen1_dep16_batch256_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (2, 16, 16, 16, 2, 2048, 2048, 0.6, 'fp8', True),
        "gen": (1, 16, 16, 16, 256, 256, 2088, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c4916_tp16_0_ep16_0_873': 'exact',
            '2026_04_06_deepseek_r1_h100_sxm_trtllm_fp8_disagg_1024x1024_c4916_tp16_ep16_1759': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/8k1k/stp/ctx1_gen3_tep16_batch1_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 1, 8224, 8232, 0.3, 'fp8', False),
        "gen": (3, 16, 1, 16, 1, 256, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_8192x1024_c6_tp16_0_ep16_0_878': 'db-layout+stp',
            '2026_04_06_deepseek_r1_h100_sxm_trtllm_fp8_disagg_8192x1024_c6_tp16_ep16_1722': 'db-layout+stp',
            'dsr1_h100_trtllm_fp8_disagg_8192x1024_c6_cfg494': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/8k1k/stp/ctx1_gen3_tep16_batch2_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 1, 8224, 8232, 0.3, 'fp8', False),
        "gen": (3, 16, 1, 16, 2, 256, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_8192x1024_c9_tp16_0_ep16_0_870': 'db-layout+stp',
            'dsr1_h100_trtllm_fp8_disagg_8192x1024_c9_cfg494': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/8k1k/stp/ctx1_gen3_tep16_batch8_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 1, 8224, 8232, 0.3, 'fp8', True),
        "gen": (3, 16, 1, 16, 8, 256, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_8192x1024_c30_tp16_0_ep16_0_857': 'db-layout+stp',
            '2026_04_06_deepseek_r1_h100_sxm_trtllm_fp8_disagg_8192x1024_c30_tp16_ep16_1736': 'db-layout+stp',
            'dsr1_h100_trtllm_fp8_disagg_8192x1024_c30_cfg494': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/8k1k/stp/ctx1_gen2_tep16_batch64_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (1, 16, 16, 16, 1, 8224, 8232, 0.3, 'fp8', False),
        "gen": (2, 16, 1, 16, 64, 256, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_8192x1024_c154_tp16_0_ep16_0_877': 'exact',
            '2026_04_06_deepseek_r1_h100_sxm_trtllm_fp8_disagg_8192x1024_c154_tp16_ep16_1738': 'exact',
            'dsr1_h100_trtllm_fp8_disagg_8192x1024_c154_cfg503': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/h100-fp8/8k1k/stp/ctx2_gen1_dep16_batch16_eplb0_mtp0.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": "dsr1-fp8-h100-dynamo-trt in .github/configs/nvidia-master.yaml@66d6a351abec4fa3bd36a8b81b26643430ab2378",
        "ctx": (2, 16, 16, 16, 1, 8224, 8232, 0.3, 'fp8', False),
        "gen": (1, 16, 16, 16, 16, 128, 9256, 0.9, 'fp8', False),
        "rows": {
            '2026_03_25_deepseek_r1_h100_sxm_trtllm_fp8_disagg_8192x1024_c308_tp16_0_ep16_0_866': 'exact',
            '2026_04_06_deepseek_r1_h100_sxm_trtllm_fp8_disagg_8192x1024_c308_tp16_ep16_1761': 'exact',
        },
    },
]

# GB200 / GB300 groups (module docstring), the same tuples, each with its KV link: "nvlink" where
# both sides sit in one NVL72 rack (the GB200 launcher's #SBATCH --segment = every node of the
# job, at most 18 trays), "xdr800" where the placement is not known (GB300: no segment directive).
SGLANG_GB_RECIPES = [
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp8/1k1k/low-latency.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (1, 4, 1, 1, 512, 8192, 0.95, 'fp8', 2200),
        "decode": (1, 4, 1, 1, 128, 8192, 0.95, 'fp8', 2200),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c4_tp4_0_ep1_0_829': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c8_tp4_0_ep1_0_828': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c4_tp4_ep1_1730': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c8_tp4_ep1_1731': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_1024x1024_c4_cfg502': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_1024x1024_c8_cfg502': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp8/1k1k/max-tpt.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (2, 8, 8, 8, 30000, 131072, 0.75, 'fp8', 2200),
        "decode": (1, 32, 32, 32, 45000, 36864, 0.82, 'fp8', 2200),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c6144_tp8_0_ep8_0_827': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c6144_tp8_ep8_1758': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_1024x1024_c1024_cfg523': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_1024x1024_c2048_cfg523': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_1024x1024_c4096_cfg523': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_1024x1024_c6144_cfg523': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp8/1k1k/mid-curve.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (3, 8, 8, 8, 30000, 131072, 0.75, 'fp8', 2200),
        "decode": (1, 48, 48, 48, 45000, 36864, 0.82, 'fp8', 2200),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c1024_tp8_0_ep8_0_809': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c2048_tp8_0_ep8_0_807': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c4096_tp8_0_ep8_0_808': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c1024_tp8_ep8_1742': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c2048_tp8_ep8_1745': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_1024x1024_c4096_tp8_ep8_1459': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp8/1k1k/ultra-tpt.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (1, 8, 8, 8, 8192, 131072, 0.75, 'fp8', 2200),
        "decode": (1, 8, 8, 8, 5120, 36864, 0.82, 'fp8', 2200),
        "link": 'nvlink',
        "rows": {
            'dsr1_gb200_sglang_fp8_disagg_1024x1024_c4096_cfg508': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp8/8k1k/low-latency.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (1, 8, 1, 1, 512, 24576, 0.8, 'fp8', 9600),
        "decode": (1, 8, 1, 1, 512, 8192, 0.8, 'fp8', 9600),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c16_tp8_0_ep1_0_825': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c4_tp8_0_ep1_0_826': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c8_tp8_0_ep1_0_824': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c16_tp8_ep1_1775': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c4_tp8_ep1_1777': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c8_tp8_ep1_1776': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_8192x1024_c16_cfg536': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_8192x1024_c4_cfg536': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_8192x1024_c8_cfg536': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp8/8k1k/mid-curve.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (5, 8, 8, 8, 30000, 131072, 0.8, 'fp8', 9300),
        "decode": (1, 32, 32, 32, 8192, 36864, 0.82, 'fp8', 9300),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c1024_tp8_0_ep8_0_838': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c512_tp8_0_ep8_0_837': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c1024_tp8_ep8_1773': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c512_tp8_ep8_1774': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_8192x1024_c1024_cfg533': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_8192x1024_c2048_cfg533': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_8192x1024_c512_cfg533': 'exact',
            'dsr1_gb200_sglang_fp8_disagg_8192x1024_c6144_cfg533': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp8/8k1k/max_tpt.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (6, 8, 8, 8, 30000, 131072, 0.8, 'fp8', 9300),
        "decode": (1, 24, 24, 24, 8192, 36864, 0.82, 'fp8', 9300),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c2048_tp8_0_ep8_0_830': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c4096_tp8_0_ep8_0_832': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c6144_tp8_0_ep8_0_831': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c2048_tp8_ep8_1769': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c4096_tp8_ep8_1464': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp8_disagg_8192x1024_c6144_tp8_ep8_1465': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp4/1k1k/low-latency.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp4-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@2767db504b61c1e4448e9ee337799241a1c4082c',
        "prefill": (1, 4, 1, 1, 512, 8192, 0.95, 'fp8', 2200),
        "decode": (2, 4, 1, 1, None, 8192, 0.95, 'fp8', 2200),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c32_tp4_0_ep1_0_846': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c4_tp4_0_ep1_0_847': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c8_tp4_0_ep1_0_848': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c32_tp4_ep1_1720': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c4_tp4_ep1_1422': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c8_tp4_ep1_1423': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_1024x1024_c32_cfg486': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_1024x1024_c4_cfg486': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_1024x1024_c8_cfg486': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp4/1k1k/mid-curve.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp4-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@2767db504b61c1e4448e9ee337799241a1c4082c',
        "prefill": (4, 4, 4, 4, 30000, 65536, 0.84, 'fp8', 2176),
        "decode": (1, 32, 32, 32, 67584, 786432, 0.83, 'fp8', 2176),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c512_tp4_0_ep4_0_842': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c8192_tp4_0_ep4_0_843': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c512_tp4_ep4_1714': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c8192_tp4_ep4_1421': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_1024x1024_c2048_cfg483': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_1024x1024_c4096_cfg483': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_1024x1024_c512_cfg483': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_1024x1024_c8192_cfg483': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp4/1k1k/max-tpt.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp4-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@2767db504b61c1e4448e9ee337799241a1c4082c',
        "prefill": (4, 4, 4, 4, 30000, 65536, 0.84, 'fp8', 2176),
        "decode": (1, 48, 48, 48, 67584, 786432, 0.83, 'fp8', 2176),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c2048_tp4_0_ep4_0_841': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c4096_tp4_0_ep4_0_840': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c2048_tp4_ep4_1711': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_1024x1024_c4096_tp4_ep4_1710': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp4/8k1k/low-latency.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp4-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@2767db504b61c1e4448e9ee337799241a1c4082c',
        "prefill": (1, 4, 1, 1, 512, 24576, 0.95, 'fp8', 9600),
        "decode": (4, 4, 1, 1, None, 8192, 0.95, 'fp8', 9600),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c4_tp4_0_ep1_0_844': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c8_tp4_0_ep1_0_845': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c4_tp4_ep1_1712': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c8_tp4_ep1_1713': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_8192x1024_c4_cfg481': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_8192x1024_c8_cfg481': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp4/8k1k/mid-curve.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp4-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@2767db504b61c1e4448e9ee337799241a1c4082c',
        "prefill": (6, 4, 1, 1, 30000, 131072, 0.95, 'fp8', 9600),
        "decode": (1, 48, 48, 48, 16384, 24576, 0.83, 'fp8', 9600),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c4096_tp4_0_ep1_0_849': 'exact',
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c512_tp4_0_ep1_0_850': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c2048_tp4_ep1_1703': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c4096_tp4_ep1_1420': 'exact',
            '2026_04_06_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c512_tp4_ep1_1709': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb200-fp4/8k1k/max-tpt.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp4-gb200-dynamo-sglang in .github/configs/nvidia-master.yaml@2767db504b61c1e4448e9ee337799241a1c4082c',
        "prefill": (10, 4, 1, 1, 30000, 131072, 0.95, 'fp8', 9600),
        "decode": (1, 32, 32, 32, 16384, 24576, 0.83, 'fp8', 9600),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_sglang_fp4_disagg_8192x1024_c2048_tp4_0_ep1_0_839': 'exact',
            'dsr1_gb200_sglang_fp4_disagg_8192x1024_c2048_cfg489': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp8/1k1k/stp/low-latency.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (1, 4, 1, 1, 128, 8192, 0.95, 'fp8', 2200),
        "decode": (4, 4, 1, 1, 128, -1, 0.85, 'fp8', 2200),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c16_tp4_0_ep1_0_836': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c32_tp4_0_ep1_0_833': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c4_tp4_0_ep1_0_835': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c8_tp4_0_ep1_0_834': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c16_tp4_ep1_1748': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c32_tp4_ep1_1749': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c4_tp4_ep1_1750': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c8_tp4_ep1_1751': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c16_cfg517': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c32_cfg517': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c4_cfg517': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c8_cfg517': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp8/1k1k/stp/mid.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (2, 8, 8, 8, 30000, 131072, 0.75, 'fp8', 2200),
        "decode": (1, 32, 32, 32, 45000, 36864, 0.82, 'fp8', 2200),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c1024_tp8_0_ep8_0_812': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c2048_tp8_0_ep8_0_811': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c4096_tp8_0_ep8_0_810': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c6144_tp8_0_ep8_0_813': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c1024_tp8_ep8_1766': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c2048_tp8_ep8_1767': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c6144_tp8_ep8_1768': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c1024_cfg528': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c2048_cfg528': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c4096_cfg528': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c6144_cfg528': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp8/1k1k/stp/max.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (1, 8, 8, 8, 30000, 131072, 0.75, 'fp8', 2200),
        "decode": (1, 8, 8, 8, 45000, 36864, 0.82, 'fp8', 2200),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c7168_tp8_0_ep8_0_820': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c7680_tp8_0_ep8_0_821': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c4096_tp8_ep8_1763': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c7168_tp8_ep8_1765': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_1024x1024_c7680_tp8_ep8_1764': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c4096_cfg526': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c7168_cfg526': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_1024x1024_c7680_cfg526': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp8/8k1k/stp/low-latency.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (1, 4, 1, 1, 128, 32768, 0.95, 'fp8', 9300),
        "decode": (1, 4, 1, 1, 128, -1, 0.85, 'fp8', 9300),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c4_tp4_0_ep1_0_822': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c8_tp4_0_ep1_0_823': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c4_tp4_ep1_1779': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c8_tp4_ep1_1466': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_8192x1024_c4_cfg519': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_8192x1024_c8_cfg519': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp8/8k1k/stp/mid.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (5, 8, 8, 8, 30000, 131072, 0.75, 'fp8', 9300),
        "decode": (1, 32, 32, 32, 45000, 36864, 0.82, 'fp8', 9300),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c1024_tp8_0_ep8_0_818': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c128_tp8_0_ep8_0_816': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c256_tp8_0_ep8_0_817': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c512_tp8_0_ep8_0_819': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c1024_tp8_ep8_1424': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c128_tp8_ep8_1425': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c256_tp8_ep8_1427': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c512_tp8_ep8_1426': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_8192x1024_c1024_cfg505': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_8192x1024_c128_cfg505': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_8192x1024_c256_cfg505': 'exact',
            'dsr1_gb300_sglang_fp8_disagg_8192x1024_c512_cfg505': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp8/8k1k/stp/max.yaml@0f0c12cd6b0dd62e71b0c7ab4f247727bb54e954',
        "config": 'dsr1-fp8-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@37f353be258d8ca3d470c6a942a53dd5e027f82b',
        "prefill": (6, 8, 8, 8, 30000, 131072, 0.75, 'fp8', 9300),
        "decode": (1, 24, 24, 24, 45000, 36864, 0.82, 'fp8', 9300),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c2048_tp8_0_ep8_0_815': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c4096_tp8_0_ep8_0_814': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c2048_tp8_ep8_1746': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp8_disagg_8192x1024_c4096_tp8_ep8_1747': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp4/1k1k/low_latency.yaml@05382c32a95aa2ae3cfbf609035632f00b073a79',
        "config": 'dsr1-fp4-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@3282fdeba5b7122a09dc191a486bca03433dc123',
        "prefill": (1, 4, 1, 1, 512, 8192, 0.95, 'fp8', 2200),
        "decode": (2, 4, 1, 1, None, 8192, 0.95, 'fp8', 2200),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c32_tp4_0_ep1_0_781': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c4_tp4_0_ep1_0_782': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c8_tp4_0_ep1_0_780': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c32_tp4_ep1_1813': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c4_tp4_ep1_1814': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c8_tp4_ep1_1815': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_1024x1024_c32_cfg571': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_1024x1024_c4_cfg571': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_1024x1024_c8_cfg571': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp4/1k1k/max_tpt.yaml@05382c32a95aa2ae3cfbf609035632f00b073a79',
        "config": 'dsr1-fp4-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@3282fdeba5b7122a09dc191a486bca03433dc123',
        "prefill": (4, 4, 4, 4, 30000, 65536, 0.84, 'fp8', 2176),
        "decode": (1, 48, 48, 48, 67584, 786432, 0.83, 'fp8', 2176),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c2048_tp4_0_ep4_0_770': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c4096_tp4_0_ep4_0_769': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c512_tp4_0_ep4_0_771': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c8192_tp4_0_ep4_0_772': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp4/1k1k/mid_curve.yaml@05382c32a95aa2ae3cfbf609035632f00b073a79',
        "config": 'dsr1-fp4-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@3282fdeba5b7122a09dc191a486bca03433dc123',
        "prefill": (4, 4, 4, 4, 30000, 65536, 0.84, 'fp8', 2176),
        "decode": (1, 32, 32, 32, 67584, 786432, 0.83, 'fp8', 2176),
        "link": 'xdr800',
        "rows": {
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c2048_tp4_ep4_1817': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c4096_tp4_ep4_1433': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c512_tp4_ep4_1479': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_1024x1024_c8192_tp4_ep4_1480': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_1024x1024_c2048_cfg576': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_1024x1024_c4096_cfg576': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_1024x1024_c512_cfg576': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_1024x1024_c8192_cfg576': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp4/8k1k/low_latency.yaml@05382c32a95aa2ae3cfbf609035632f00b073a79',
        "config": 'dsr1-fp4-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@3282fdeba5b7122a09dc191a486bca03433dc123',
        "prefill": (1, 4, 1, 1, 512, 24576, 0.95, 'fp8', 9600),
        "decode": (4, 4, 1, 1, None, 8192, 0.95, 'fp8', 9600),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c32_tp4_0_ep1_0_778': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c4_tp4_0_ep1_0_776': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c64_tp4_0_ep1_0_777': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c8_tp4_0_ep1_0_779': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c32_tp4_ep1_1811': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c4_tp4_ep1_1428': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c64_tp4_ep1_1429': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c8_tp4_ep1_1430': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_8192x1024_c32_cfg569': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_8192x1024_c4_cfg569': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_8192x1024_c64_cfg569': 'exact',
            'dsr1_gb300_sglang_fp4_disagg_8192x1024_c8_cfg569': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp4/8k1k/mid_curve.yaml@05382c32a95aa2ae3cfbf609035632f00b073a79',
        "config": 'dsr1-fp4-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@3282fdeba5b7122a09dc191a486bca03433dc123',
        "prefill": (6, 4, 1, 1, 30000, 131072, 0.95, 'fp8', 9600),
        "decode": (1, 48, 48, 48, 16384, 24576, 0.83, 'fp8', 9600),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c2048_tp4_0_ep1_0_775': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c4096_tp4_0_ep1_0_774': 'exact',
            '2026_03_25_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c512_tp4_0_ep1_0_773': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c2048_tp4_ep1_1431': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c4096_tp4_ep1_1816': 'exact',
            '2026_04_06_deepseek_r1_gb300_sglang_fp4_disagg_8192x1024_c512_tp4_ep1_1432': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/gb300-fp4/8k1k/max_tpt.yaml@05382c32a95aa2ae3cfbf609035632f00b073a79',
        "config": 'dsr1-fp4-gb300-dynamo-sglang in .github/configs/nvidia-master.yaml@3282fdeba5b7122a09dc191a486bca03433dc123',
        "prefill": (10, 4, 1, 1, 30000, 131072, 0.95, 'fp8', 9600),
        "decode": (1, 32, 32, 32, 16384, 24576, 0.83, 'fp8', 9600),
        "link": 'xdr800',
        "rows": {
            'dsr1_gb300_sglang_fp4_disagg_8192x1024_c2048_cfg575': 'exact',
        },
    },
]
TRTLLM_GB_RECIPES = [
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k1k/stp/ctx1_gen3_tep8_batch1_eplb0_mtp0_3.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.5, 'fp8', False),
        "gen": (3, 8, 1, 8, 1, 1, 2088, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c3_tp8_0_ep8_0_1049': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c3_tp8_ep8_1647': 'exact',
            'dsr1_gb200_trtllm_fp8_disagg_1024x1024_c3_cfg386': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k1k/stp/ctx1_gen3_tep8_batch8_eplb0_mtp0_27.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.5, 'fp8', False),
        "gen": (3, 8, 1, 8, 8, 8, 2088, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c27_tp8_0_ep8_0_1057': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c27_tp8_ep8_1666': 'exact',
            'dsr1_gb200_trtllm_fp8_disagg_1024x1024_c27_cfg386': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k1k/stp/ctx1_gen1_dep32_batch8_eplb0_mtp0_256.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.5, 'fp8', False),
        "gen": (1, 32, 32, 32, 8, 8, 2088, 0.7, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c256_tp8_0_ep8_0_1070': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c256_tp8_ep8_1667': 'exact',
            'dsr1_gb200_trtllm_fp8_disagg_1024x1024_c256_cfg375': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k1k/stp/ctx1_gen1_dep32_batch32_eplb0_mtp0_1127.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.5, 'fp8', False),
        "gen": (1, 32, 32, 32, 32, 32, 2088, 0.7, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c1127_tp8_0_ep8_0_1066': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c1127_tp8_ep8_1410': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k1k/stp/ctx1_gen1_dep16_batch128_eplb0_mtp0_2151.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.5, 'fp8', False),
        "gen": (1, 16, 16, 16, 128, 128, 2088, 0.75, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c2151_tp8_0_ep8_0_1035': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c2151_tp8_ep8_1411': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k1k/stp/ctx1_gen1_dep8_batch512_eplb0_mtp0_4301.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.5, 'fp8', False),
        "gen": (1, 8, 8, 8, 512, 512, 2088, 0.8, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c4301_tp8_0_ep8_0_1044': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c4301_tp8_ep8_1644': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k1k/stp/ctx1_gen1_dep8_batch768_eplb0_mtp0_6144.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.5, 'fp8', False),
        "gen": (1, 8, 8, 8, 768, 768, 2088, 0.8, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c6144_tp8_0_ep8_0_1053': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x1024_c6144_tp8_ep8_1645': 'exact',
            'dsr1_gb200_trtllm_fp8_disagg_1024x1024_c6144_cfg416': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k8k/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0_4.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x8192_c4_tp8_0_ep8_0_1059': 'db-layout+stp',
            'dsr1_gb200_trtllm_fp8_disagg_1024x8192_c4_cfg378': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k8k/stp/ctx1_gen4_tep8_batch8_eplb0_mtp0_36.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (4, 8, 1, 8, 8, 8, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x8192_c36_tp8_0_ep8_0_1071': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x8192_c36_tp8_ep8_1602': 'exact',
            'dsr1_gb200_trtllm_fp8_disagg_1024x8192_c36_cfg378': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k8k/stp/ctx1_gen1_dep32_batch16_eplb0_mtp0_564.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (1, 32, 32, 32, 16, 16, 9256, 0.75, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x8192_c564_tp8_0_ep8_0_1040': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k8k/stp/ctx1_gen1_dep32_batch64_eplb0_mtp0_2048.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (1, 32, 32, 32, 64, 64, 9256, 0.75, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x8192_c2048_tp8_0_ep8_0_1058': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x8192_c2048_tp8_ep8_1601': 'exact',
            'dsr1_gb200_trtllm_fp8_disagg_1024x8192_c2048_cfg375': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/1k8k/stp/ctx1_gen2_dep16_batch256_eplb0_mtp0_8192.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (2, 16, 16, 16, 256, 256, 9256, 0.8, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_1024x8192_c8192_tp8_0_ep8_0_1042': 'db-layout+stp',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_1024x8192_c8192_tp8_ep8_1581': 'db-layout+stp',
            'dsr1_gb200_trtllm_fp8_disagg_1024x8192_c8192_cfg435': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/8k1k/stp/ctx1_gen3_tep8_batch1_eplb0_mtp0_6.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (3, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c6_tp8_0_ep8_0_1056': 'db-layout+stp',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c6_tp8_ep8_1628': 'db-layout+stp',
            'dsr1_gb200_trtllm_fp8_disagg_8192x1024_c6_cfg386': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/8k1k/stp/ctx1_gen3_tep8_batch4_eplb0_mtp0_18.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (3, 8, 1, 8, 4, 4, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c18_tp8_0_ep8_0_1060': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c18_tp8_ep8_1605': 'exact',
            'dsr1_gb200_trtllm_fp8_disagg_8192x1024_c18_cfg386': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/8k1k/stp/ctx1_gen3_tep8_batch16_eplb0_mtp0_63.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (1, 8, 8, 8, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (3, 8, 1, 8, 16, 16, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c63_tp8_0_ep8_0_1038': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c63_tp8_ep8_1643': 'exact',
            'dsr1_gb200_trtllm_fp8_disagg_8192x1024_c63_cfg386': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/8k1k/stp/ctx2_gen1_dep32_batch8_eplb0_mtp0_333.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (2, 8, 8, 8, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (1, 32, 32, 32, 8, 8, 9256, 0.75, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c333_tp8_0_ep8_0_1065': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c333_tp8_ep8_1626': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/8k1k/stp/ctx3_gen1_dep16_batch32_eplb0_mtp0_615.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (3, 8, 8, 8, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (1, 16, 16, 16, 32, 32, 9256, 0.8, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c615_tp8_0_ep8_0_1047': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c615_tp8_ep8_1606': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/8k1k/stp/ctx4_gen1_dep32_batch16_eplb0_mtp0_666.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (4, 8, 8, 8, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (1, 32, 32, 32, 16, 16, 9256, 0.75, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c666_tp8_0_ep8_0_1061': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp8/8k1k/stp/ctx5_gen1_dep16_batch64_eplb0_mtp0_1229.yaml@943f651d76aa3f42eba5cea0bd555294a95e904d',
        "config": 'dsr1-fp8-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@c50fd355dbfd62b9f9f5f364121ad1ef88bb92d8',
        "ctx": (5, 8, 8, 8, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (1, 16, 16, 16, 64, 64, 9256, 0.8, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c1229_tp8_0_ep8_0_1069': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp8_disagg_8192x1024_c1229_tp8_ep8_1604': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k1k/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 2088, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c5_tp4_0_ep4_0_394': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c5_tp4_ep4_1510': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k1k/stp/ctx1_gen4_tep8_batch32_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 8, 32, 32, 2088, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c12_tp4_0_ep4_0_451': 'db-layout+stp',
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c192_tp4_0_ep4_0_453': 'exact',
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c24_tp4_0_ep4_0_454': 'db-layout+stp',
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c48_tp4_0_ep4_0_455': 'db-layout+stp',
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c96_tp4_0_ep4_0_452': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c192_tp4_ep4_1514': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c96_tp4_ep4_1613': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_1024x1024_c12_cfg388': 'db-layout+stp',
            'dsr1_gb200_trtllm_fp4_disagg_1024x1024_c192_cfg388': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_1024x1024_c24_cfg388': 'db-layout+stp',
            'dsr1_gb200_trtllm_fp4_disagg_1024x1024_c48_cfg388': 'db-layout+stp',
            'dsr1_gb200_trtllm_fp4_disagg_1024x1024_c96_cfg388': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k1k/stp/ctx1_gen1_dep32_batch16_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 16, 16, 2088, 0.7, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c666_tp4_0_ep4_0_365': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c666_tp4_ep4_1633': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k1k/stp/ctx2_gen1_dep32_batch64_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (2, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 64, 64, 2088, 0.7, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c2253_tp4_0_ep4_0_401': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c2253_tp4_ep4_1657': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k1k/stp/ctx1_gen1_dep8_batch512_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 8, 8, 8, 512, 512, 2088, 0.8, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c4301_tp4_0_ep4_0_391': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c4301_tp4_ep4_1615': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k1k/stp/ctx1_gen2_dep4_batch768_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (2, 4, 4, 4, 768, 768, 2088, 0.8, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c6144_tp4_0_ep4_0_359': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x1024_c6144_tp4_ep4_1634': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_1024x1024_c6144_cfg411': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k8k/stp/ctx1_gen7_tep8_batch1_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (7, 8, 1, 8, 1, 4, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c7_tp4_0_ep4_0_445': 'db-layout+stp',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c7_tp4_ep4_1658': 'db-layout+stp',
            'dsr1_gb200_trtllm_fp4_disagg_1024x8192_c7_cfg423': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k8k/stp/ctx1_gen15_tep4_batch4_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (15, 4, 1, 4, 4, 16, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c60_tp4_0_ep4_0_415': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c60_tp4_ep4_1629': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_1024x8192_c60_cfg374': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k8k/stp/ctx1_gen15_tep4_batch8_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (15, 4, 1, 4, 8, 32, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c135_tp4_0_ep4_0_444': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c135_tp4_ep4_1587': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_1024x8192_c135_cfg374': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k8k/stp/ctx1_gen1_dep32_batch16_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 16, 64, 9256, 0.7, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c563_tp4_0_ep4_0_378': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c563_tp4_ep4_1571': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k8k/stp/ctx1_gen1_dep32_batch64_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 64, 256, 9256, 0.7, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c2048_tp4_0_ep4_0_352': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c2048_tp4_ep4_1656': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_1024x8192_c2048_cfg239': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k8k/stp/ctx1_gen1_dep32_batch128_eplb288_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 128, 512, 9256, 0.7, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c4096_tp4_0_ep4_0_371': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c4096_tp4_ep4_1659': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_1024x8192_c4096_cfg239': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/1k8k/stp/ctx1_gen1_dep32_batch256_eplb288_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 256, 1024, 9256, 0.7, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_1024x8192_c8192_tp4_0_ep4_0_390': 'db-layout+stp',
            'dsr1_gb200_trtllm_fp4_disagg_1024x8192_c8192_cfg239': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/8k1k/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c5_tp4_0_ep4_0_398': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c5_tp4_ep4_1632': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/8k1k/stp/ctx1_gen4_tep8_batch16_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (1, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 8, 16, 16, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c12_tp4_0_ep4_0_380': 'db-layout+stp',
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c44_tp4_0_ep4_0_381': 'exact',
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c76_tp4_0_ep4_0_382': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c12_tp4_ep4_1166': 'db-layout+stp',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c44_tp4_ep4_1276': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c76_tp4_ep4_1277': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_8192x1024_c12_cfg388': 'db-layout+stp',
            'dsr1_gb200_trtllm_fp4_disagg_8192x1024_c44_cfg388': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_8192x1024_c76_cfg388': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/8k1k/stp/ctx2_gen1_dep32_batch8_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (2, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 8, 8, 9256, 0.75, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c333_tp4_0_ep4_0_449': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c333_tp4_ep4_1586': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/8k1k/stp/ctx7_gen1_dep32_batch32_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (7, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 32, 32, 9256, 0.75, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c1229_tp4_0_ep4_0_412': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c1229_tp4_ep4_1585': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/8k1k/stp/ctx8_gen1_dep16_batch128_eplb0_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (8, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 16, 16, 16, 128, 128, 9256, 0.8, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c2253_tp4_0_ep4_0_416': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c2253_tp4_ep4_1266': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb200-fp4/8k1k/stp/ctx10_gen1_dep16_batch256_eplb256_mtp0.yaml@91e3b70f331dd8e011fb74861b795817773baa46',
        "config": 'dsr1-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@f316a0ef6013f5d320a21e5edc8e5edf06c39115',
        "ctx": (10, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 16, 16, 16, 256, 256, 9256, 0.8, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            '2026_03_25_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c4096_tp4_0_ep4_0_397': 'exact',
            '2026_04_06_deepseek_r1_gb200_trtllm_fp4_disagg_8192x1024_c4096_tp4_ep4_1572': 'exact',
            'dsr1_gb200_trtllm_fp4_disagg_8192x1024_c4096_cfg362': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k1k/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 2088, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c5_tp2_0_ep2_0_1127': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k1k/stp/ctx1_gen4_tep8_batch32_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 8, 32, 32, 2088, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c12_tp2_0_ep2_0_1101': 'db-layout+stp',
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c192_tp2_0_ep2_0_1100': 'exact',
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c48_tp2_0_ep2_0_1098': 'db-layout+stp',
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c96_tp2_0_ep2_0_1099': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c192_tp2_ep2_1684': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c96_tp2_ep2_1685': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_1024x1024_c12_cfg417': 'db-layout+stp',
            'dsr1_gb300_trtllm_fp4_disagg_1024x1024_c192_cfg417': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_1024x1024_c48_cfg417': 'db-layout+stp',
            'dsr1_gb300_trtllm_fp4_disagg_1024x1024_c96_cfg417': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k1k/stp/ctx2_gen1_dep32_batch32_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (2, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 32, 32, 2088, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c1229_tp2_0_ep2_0_1117': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k1k/stp/ctx3_gen1_dep32_batch64_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (3, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 64, 64, 2088, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c2253_tp2_0_ep2_0_1103': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k1k/stp/ctx3_gen1_dep16_batch256_eplb256_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (3, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 16, 16, 16, 256, 256, 2088, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c4301_tp2_0_ep2_0_1104': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c4301_tp2_ep2_1251': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k1k/stp/ctx2_gen1_dep8_batch1024_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (2, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 8, 8, 8, 1024, 1024, 2088, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c8192_tp2_0_ep2_0_1108': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_1024x1024_c8192_tp2_ep2_1595': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_1024x1024_c8192_cfg387': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k8k/stp/ctx1_gen7_tep8_batch1_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (7, 8, 1, 8, 1, 4, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c7_tp2_0_ep2_0_1094': 'db-layout+stp',
            'dsr1_gb300_trtllm_fp4_disagg_1024x8192_c7_cfg404': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k8k/stp/ctx1_gen15_tep4_batch4_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (15, 4, 1, 4, 4, 16, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c60_tp2_0_ep2_0_1102': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c60_tp2_ep2_1641': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_1024x8192_c60_cfg421': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k8k/stp/ctx1_gen7_tep8_batch32_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (7, 8, 1, 8, 32, 128, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c245_tp2_0_ep2_0_1107': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c245_tp2_ep2_1635': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_1024x8192_c245_cfg404': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k8k/stp/ctx1_gen1_dep32_batch32_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 32, 128, 9256, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c1024_tp2_0_ep2_0_1133': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c1024_tp2_ep2_1252': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_1024x8192_c1024_cfg373': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k8k/stp/ctx1_gen1_dep32_batch128_eplb288_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 128, 512, 9256, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c4096_tp2_0_ep2_0_1134': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c4096_tp2_ep2_1661': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_1024x8192_c4096_cfg373': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/1k8k/stp/ctx1_gen1_dep32_batch256_eplb288_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 16, 16384, 2048, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 256, 1024, 9256, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_1024x8192_c8192_tp2_0_ep2_0_1115': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_1024x8192_c8192_cfg373': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/8k1k/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c5_tp2_0_ep2_0_1130': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c5_tp2_ep2_1662': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/8k1k/stp/ctx1_gen5_tep4_batch4_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (5, 4, 1, 4, 4, 4, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c15_tp2_0_ep2_0_1132': 'exact',
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c30_tp2_0_ep2_0_1131': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c15_tp2_ep2_1664': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c30_tp2_ep2_1678': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_8192x1024_c15_cfg437': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_8192x1024_c30_cfg437': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_8192x1024_c5_cfg437': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/8k1k/stp/ctx1_gen4_tep8_batch2_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 8, 2, 2, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c12_tp2_0_ep2_0_1123': 'db-layout+stp',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c12_tp2_ep2_1640': 'db-layout+stp',
            'dsr1_gb300_trtllm_fp4_disagg_8192x1024_c12_cfg417': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/8k1k/stp/ctx1_gen3_tep8_batch16_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (1, 2, 2, 2, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (3, 8, 1, 8, 16, 16, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c72_tp2_0_ep2_0_1105': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c72_tp2_ep2_1594': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_8192x1024_c72_cfg385': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/8k1k/stp/ctx7_gen1_dep32_batch16_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (7, 2, 2, 2, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 16, 16, 9256, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c666_tp2_0_ep2_0_1135': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c666_tp2_ep2_1636': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/8k1k/stp/ctx9_gen1_dep16_batch64_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (9, 2, 2, 2, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 16, 16, 16, 64, 64, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c1229_tp2_0_ep2_0_1095': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c1229_tp2_ep2_1639': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/8k1k/stp/ctx14_gen1_dep16_batch128_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (14, 2, 2, 2, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 16, 16, 16, 128, 128, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c2253_tp2_0_ep2_0_1106': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp4/8k1k/stp/ctx11_gen3_dep4_batch256_eplb0_mtp0.yaml@d9bdaf882fbf071513effd58e9d989255400fd5b',
        "config": 'dsr1-fp4-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@3eb1b779cbc8c13a45bd35f37931b95f8688d298',
        "ctx": (11, 2, 2, 2, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (3, 4, 4, 4, 256, 256, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c3228_tp2_0_ep2_0_1116': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp4_disagg_8192x1024_c3228_tp2_ep2_1638': 'exact',
            'dsr1_gb300_trtllm_fp4_disagg_8192x1024_c3228_cfg412': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k1k/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0_4.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 2088, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c4_tp4_0_ep4_0_926': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c4_tp4_ep4_1673': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_1024x1024_c4_cfg392': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k1k/stp/ctx1_gen4_tep8_batch4_eplb0_mtp0_24.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (4, 8, 1, 8, 4, 4, 2088, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c24_tp4_0_ep4_0_948': 'db-layout+stp',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c24_tp4_ep4_1671': 'db-layout+stp',
            'dsr1_gb300_trtllm_fp8_disagg_1024x1024_c24_cfg392': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k1k/stp/ctx1_gen4_tep8_batch16_eplb0_mtp0_84.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (4, 8, 1, 8, 16, 16, 2088, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c84_tp4_0_ep4_0_935': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c84_tp4_ep4_1248': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_1024x1024_c84_cfg392': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k1k/stp/ctx2_gen1_dep32_batch32_eplb0_mtp0_1229.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (2, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (1, 32, 32, 32, 32, 32, 2088, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c1229_tp4_0_ep4_0_931': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c1229_tp4_ep4_1649': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k1k/stp/ctx2_gen1_dep16_batch128_eplb0_mtp0_2253.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (2, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (1, 16, 16, 16, 128, 128, 2088, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c2253_tp4_0_ep4_0_940': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k1k/stp/ctx3_gen2_dep8_batch512_eplb0_mtp0_8602.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (3, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (2, 8, 8, 8, 512, 512, 2088, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c8602_tp4_0_ep4_0_923': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c8602_tp4_ep4_1652': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k1k/stp/ctx3_gen2_dep8_batch768_eplb0_mtp0_12288.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (3, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (2, 8, 8, 8, 768, 768, 2088, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c12288_tp4_0_ep4_0_958': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x1024_c12288_tp4_ep4_1676': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_1024x1024_c12288_cfg418': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k8k/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0_4.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c4_tp4_0_ep4_0_928': 'db-layout+stp',
            'dsr1_gb300_trtllm_fp8_disagg_1024x8192_c4_cfg392': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k8k/stp/ctx1_gen4_tep8_batch8_eplb0_mtp0_36.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (4, 8, 1, 8, 8, 8, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c36_tp4_0_ep4_0_951': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c36_tp4_ep4_1414': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_1024x8192_c36_cfg392': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k8k/stp/ctx1_gen1_dep32_batch8_eplb0_mtp0_282.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (1, 32, 32, 32, 8, 8, 9256, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c282_tp4_0_ep4_0_946': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c282_tp4_ep4_1707': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k8k/stp/ctx1_gen1_dep32_batch32_eplb0_mtp0_1024.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (1, 32, 32, 32, 32, 32, 9256, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c1024_tp4_0_ep4_0_938': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c1024_tp4_ep4_1699': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_1024x8192_c1024_cfg462': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k8k/stp/ctx1_gen2_dep16_batch128_eplb0_mtp0_4096.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (2, 16, 16, 16, 128, 128, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c4096_tp4_0_ep4_0_956': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c4096_tp4_ep4_1725': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_1024x8192_c4096_cfg488': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/1k8k/stp/ctx1_gen2_dep16_batch256_eplb0_mtp0_8192.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.1, 'fp8', False),
        "gen": (2, 16, 16, 16, 256, 256, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_1024x8192_c8192_tp4_0_ep4_0_952': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_1024x8192_c8192_cfg488': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/8k1k/stp/ctx1_gen4_tep8_batch1_eplb0_mtp0_4.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 2, 16384, 8232, 0.1, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c4_tp4_0_ep4_0_959': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c4_tp4_ep4_1655': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_8192x1024_c4_cfg392': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/8k1k/stp/ctx1_gen4_tep8_batch4_eplb0_mtp0_24.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 2, 16384, 8232, 0.1, 'fp8', False),
        "gen": (4, 8, 1, 8, 4, 4, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c24_tp4_0_ep4_0_942': 'db-layout+stp',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c24_tp4_ep4_1600': 'db-layout+stp',
            'dsr1_gb300_trtllm_fp8_disagg_8192x1024_c24_cfg392': 'db-layout+stp',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/8k1k/stp/ctx1_gen4_tep8_batch8_eplb0_mtp0_36.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (1, 4, 4, 4, 2, 16384, 8232, 0.1, 'fp8', False),
        "gen": (4, 8, 1, 8, 8, 8, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c36_tp4_0_ep4_0_950': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c36_tp4_ep4_1598': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_8192x1024_c36_cfg392': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/8k1k/stp/ctx6_gen1_dep32_batch16_eplb0_mtp0_512.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (6, 4, 4, 4, 2, 16384, 8232, 0.1, 'fp8', False),
        "gen": (1, 32, 32, 32, 16, 16, 9256, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c512_tp4_0_ep4_0_945': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c512_tp4_ep4_1674': 'exact',
            'dsr1_gb300_trtllm_fp8_disagg_8192x1024_c512_cfg436': 'exact',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/8k1k/stp/ctx4_gen1_dep16_batch32_eplb0_mtp0_666.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (4, 4, 4, 4, 2, 16384, 8232, 0.1, 'fp8', False),
        "gen": (1, 16, 16, 16, 32, 32, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c666_tp4_0_ep4_0_936': 'inferred (measured TPOT)',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c666_tp4_ep4_1672': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/8k1k/stp/ctx7_gen1_dep16_batch64_eplb0_mtp0_1229.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (7, 4, 4, 4, 2, 16384, 8232, 0.1, 'fp8', False),
        "gen": (1, 16, 16, 16, 64, 64, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c1229_tp4_0_ep4_0_937': 'inferred (measured TPOT)',
        },
    },
    {
        "recipe": 'csahithi/srt-slurm:recipes/trtllm/gb300-fp8/8k1k/stp/ctx7_gen1_dep8_batch256_eplb0_mtp0_2151.yaml@6a960e1df740d5f91b392cdde6f206202506456c',
        "config": 'dsr1-fp8-gb300-dynamo-trt in .github/configs/nvidia-master.yaml@7f11856ed4d5dbe0e3fdfc2cd959375ec2ca6adf',
        "ctx": (7, 4, 4, 4, 2, 16384, 8232, 0.1, 'fp8', False),
        "gen": (1, 8, 8, 8, 256, 256, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c2151_tp4_0_ep4_0_933': 'exact',
            '2026_04_06_deepseek_r1_gb300_trtllm_fp8_disagg_8192x1024_c2151_tp4_ep4_1198': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen4tep8_batch128_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (4, 8, 1, 8, 128, 128, 2088, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            'kimik2_5_gb200_trtllm_fp4_disagg_1024x1024_c192_cfg759': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_1024x1024_c360_cfg759': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_1024x1024_c4_cfg759': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_1024x1024_c668_cfg759': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen5tep4_batch8_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (5, 4, 1, 4, 8, 8, 2088, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            'kimik2_5_gb200_trtllm_fp4_disagg_1024x1024_c15_cfg763': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_1024x1024_c30_cfg763': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_1024x1024_c55_cfg763': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_1024x1024_c5_cfg763': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen4tep8_batch1_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            'kimik2_5_gb200_trtllm_fp4_disagg_8192x1024_c4_cfg759': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen5tep4_batch16_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (5, 4, 1, 4, 16, 16, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            'kimik2_5_gb200_trtllm_fp4_disagg_8192x1024_c105_cfg763': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_8192x1024_c15_cfg763': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_8192x1024_c30_cfg763': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_8192x1024_c5_cfg763': 'exact',
            'kimik2_5_gb200_trtllm_fp4_disagg_8192x1024_c60_cfg763': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen4tep4_batch32_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (4, 4, 1, 4, 32, 32, 9256, 0.9, 'fp8', False),
        "link": 'nvlink',
        "rows": {
            'kimik2_5_gb200_trtllm_fp4_disagg_8192x1024_c156_cfg760': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen4tep8_batch128_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (4, 8, 1, 8, 128, 128, 2088, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c192_tp8_0_ep_176': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c360_tp8_0_ep_177': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c4_tp8_0_ep_171': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c668_tp8_0_ep_178': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen5tep4_batch8_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (5, 4, 1, 4, 8, 8, 2088, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c15_tp4_0_ep_173': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c30_tp4_0_ep_174': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c55_tp4_0_ep_175': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c5_tp4_0_ep_172': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen1dep16_batch32_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (1, 16, 16, 16, 32, 32, 2088, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c666_tp16_0_ep_179': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen1dep32_batch64_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (1, 32, 32, 32, 64, 64, 2088, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c2253_tp32_0_ep_180': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen1dep8_batch768_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (1, 8, 8, 8, 768, 768, 2088, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c4301_tp8_0_ep_183': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c6452_tp8_0_ep_184': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL1K_OSL1K/STP/ctx2dep4_gen1dep16_batch256_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (2, 4, 4, 4, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (1, 16, 16, 16, 256, 256, 2088, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c4301_tp16_0_ep_182': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL1K_OSL1K/STP/ctx2dep4_gen1dep32_batch128_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (2, 4, 4, 4, 16, 16384, 1064, 0.4, 'fp8', False),
        "gen": (1, 32, 32, 32, 128, 128, 2088, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_1024x1024_c4301_tp32_0_ep_181': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen4tep8_batch1_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (4, 8, 1, 8, 1, 1, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c4_tp8_0_ep_160': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen5tep4_batch16_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (5, 4, 1, 4, 16, 16, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c105_tp4_0_ep_165': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c15_tp4_0_ep_162': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c30_tp4_0_ep_163': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c5_tp4_0_ep_161': 'exact',
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c60_tp4_0_ep_164': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen4tep4_batch32_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (1, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (4, 4, 1, 4, 32, 32, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c156_tp4_0_ep_166': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx2dep4_gen1dep16_batch16_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (2, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (1, 16, 16, 16, 16, 16, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c333_tp16_0_ep_167': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx3dep4_gen1dep16_batch32_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (3, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (1, 16, 16, 16, 32, 32, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c615_tp16_0_ep_168': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx5dep4_gen1dep8_batch256_allconc_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (5, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (1, 8, 8, 8, 256, 256, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c2151_tp8_0_ep_170': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/kimi2.5/trtllm_dynamo/disagg/gb200Nvfp4/ISL8K_OSL1K/STP/ctx7dep4_gen1dep16_batch128_eplb0_mtp0.yaml@f61dbba884147e3a20536c1369f9c8dcc2372cfb',
        "config": 'kimik2.5-fp4-gb200-dynamo-trt in .github/configs/nvidia-master.yaml@e8924a6a4dab857d7c9deca9d35c24459dde50bd',
        "ctx": (7, 4, 4, 4, 2, 16384, 8232, 0.4, 'fp8', False),
        "gen": (1, 16, 16, 16, 128, 128, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_kimi_k2_5_gb200_trtllm_fp4_disagg_8192x1024_c2253_tp16_0_ep_169': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen4tep8_batch128_allconc_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.6, 'fp8', False),
        "gen": (4, 8, 1, 8, 128, 128, 2088, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c180_tp8_0_ep_152': 'exact',
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c360_tp8_0_ep_153': 'exact',
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c4_tp8_0_ep_147': 'exact',
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c616_tp8_0_ep_154': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen5tep4_batch8_allconc_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.6, 'fp8', False),
        "gen": (5, 4, 1, 4, 8, 8, 2088, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c15_tp4_0_ep_149': 'exact',
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c30_tp4_0_ep_150': 'exact',
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c50_tp4_0_ep_151': 'exact',
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c5_tp4_0_ep_148': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/STP/ctx1dep4_gen1dep32_batch32_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (1, 4, 4, 4, 16, 16384, 1064, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 32, 32, 2088, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c1229_tp32_0_ep_155': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/STP/ctx2dep4_gen1dep16_batch128_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (2, 4, 4, 4, 16, 16384, 1064, 0.6, 'fp8', False),
        "gen": (1, 16, 16, 16, 128, 128, 2088, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c2253_tp16_0_ep_157': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/STP/ctx2dep4_gen1dep32_batch64_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (2, 4, 4, 4, 16, 16384, 1064, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 64, 64, 2088, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c2253_tp32_0_ep_156': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/STP/ctx2dep4_gen1dep16_batch512_eplb256_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (2, 4, 4, 4, 16, 16384, 1064, 0.6, 'fp8', False),
        "gen": (1, 16, 16, 16, 512, 512, 2088, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c8192_tp16_0_ep_159': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL1K_OSL1K/STP/ctx4dep4_gen1dep32_batch256_eplb288_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (4, 4, 4, 4, 16, 16384, 1064, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 256, 256, 2088, 0.7, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_1024x1024_c8192_tp32_0_ep_158': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen5tep4_batch8_allconc_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (1, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (5, 4, 1, 4, 8, 8, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_8192x1024_c10_tp4_0_ep_139': 'exact',
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_8192x1024_c25_tp4_0_ep_140': 'exact',
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_8192x1024_c50_tp4_0_ep_141': 'exact',
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_8192x1024_c5_tp4_0_ep_138': 'inferred-block',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen2tep8_batch32_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (1, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (2, 8, 1, 8, 32, 32, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_8192x1024_c84_tp8_0_ep_142': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/STP/ctx1dep4_gen3tep4_batch32_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (1, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (3, 4, 1, 4, 32, 32, 9256, 0.9, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_8192x1024_c117_tp4_0_ep_143': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/STP/ctx5dep4_gen1dep32_batch16_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (5, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 16, 16, 9256, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_8192x1024_c615_tp32_0_ep_144': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/STP/ctx8dep4_gen1dep32_batch32_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (8, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 32, 32, 32, 32, 32, 9256, 0.75, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_8192x1024_c1229_tp32_0_ep_145': 'exact',
        },
    },
    {
        "recipe": 'NVIDIA/srt-slurm:recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL8K_OSL1K/STP/ctx10dep4_gen1dep16_batch128_eplb0_mtp0.yaml@a10acd3f097a24498f0fb18523544f87dc35bed5',
        "config": 'None in None',
        "ctx": (10, 4, 4, 4, 2, 16640, 8232, 0.6, 'fp8', False),
        "gen": (1, 16, 16, 16, 128, 128, 9256, 0.8, 'fp8', False),
        "link": 'xdr800',
        "rows": {
            '2026_03_25_glm_5_gb200_trtllm_fp4_disagg_8192x1024_c2253_tp16_0_ep_146': 'exact',
        },
    },
]

SGLANG_OF.update({rid: g for g in SGLANG_GB_RECIPES for rid in g["rows"]})
TRTLLM_OF = {rid: g for g in TRTLLM_RECIPES + TRTLLM_GB_RECIPES for rid in g["rows"]}
TRTLLM_GPUS = {"h200_sxm": "h200-141gb", "b200_sxm": "b200", "b300_sxm": "b300",
               "h100_sxm": "h100-sxm-80gb", "gb200": "gb200", "gb300": "gb300"}
TRTLLM_LINK = {"b300_sxm": "xdr800"}  # else ndr400


def group_of(row):
    """(engine, GPU, model) and how the row was tied to its recipe, for the report."""
    if row["backend"] == "sglang":
        tie = SGLANG_OF[row["id"]]["rows"][row["id"]]
        tie = "inferred (measured TPOT)" if tie.startswith("inferred") else tie
        model = SGLANG_MODELS[(row["model_path"], row["precision"])].removeprefix("models/")
        return f"sglang, {SGLANG_GPUS[row['system']]}, {model}", tie
    if row["backend"] == "trtllm":
        model = SGLANG_MODELS[(row["model_path"], row["precision"])].removeprefix("models/")
        return f"trtllm, {TRTLLM_GPUS[row['system']]}, {model}", TRTLLM_OF[row["id"]]["rows"][row["id"]]
    return f"vllm, {GPUS[row['system']]}, kimi-k2.5-nvfp4", "exact (config_id)"


def layout_flags(name, tp, dp, ep):
    """One side's parallel layout as flags: dp attention groups of TP tp / dp (their MoE layers'
    EP ep), or TP tp with expert parallelism over all of it; EP over part of TP is refused."""
    flags = [f"--{name}-tp", str(tp // dp)]
    if dp > 1:
        flags += [f"--{name}-engine-option", f"attention_dp={dp}"]
        if ep > 1:
            flags += [f"--{name}-engine-option", f"moe_ep_size={ep}"]
    elif ep > 1:
        if ep != tp:
            raise RuntimeError(f"{name}: EP {ep} over part of TP {tp} is not expressible")
        flags += [f"--{name}-engine-option", "enable_expert_parallel=true"]
    return flags


def trtllm_side(name, side):
    """The --prefill-* / --decode-* flags of one TensorRT-LLM side, and its replica count."""
    workers, tp, adp, ep, batch, tokens, _, fraction, _, _ = side
    flags = layout_flags(name, tp, adp, ep)
    flags += [f"--{name}-max-num-seqs", str(batch), f"--{name}-max-num-batched-tokens", str(tokens)]
    if fraction:
        flags += [f"--{name}-gpu-memory-utilization", str(fraction)]
    return workers * adp, flags


def trtllm_command(kvplan, row, data, wl_path):
    g = TRTLLM_OF[row["id"]]
    ctx, gen = g["ctx"], g["gen"]
    model = SGLANG_MODELS[(row["model_path"], row["precision"])]
    np_, pflags = trtllm_side("prefill", ctx)
    nd, dflags = trtllm_side("decode", gen)
    return ([kvplan, "simulate", "--model", str(data / model) if model.startswith("models/")
             else model, "--gpu", TRTLLM_GPUS[row["system"]], "--engine", "trtllm",
             "--kv-dtype", gen[8] or "bf16", "--max-model-len", str(gen[6]),
             "--capacity-scheduler-policy", "guaranteed_no_evict",
             "--prefill-replicas", str(np_), "--decode-replicas", str(nd)] + pflags + dflags +
            (["--enable-chunked-context"] if ctx[9] else []) +
            ["--kv-link", g.get("link") or TRTLLM_LINK.get(row["system"], "ndr400"),
             "--routing", "round_robin",
             "--workload", str(wl_path), "--format", "json", "--quiet"])


def sglang_side(name, side):
    """The --prefill-* / --decode-* flags of one SGLang side, and its replica count."""
    workers, tp, dp, ep, mrr, chunk, fraction, _, _ = side
    flags = layout_flags(name, tp, dp, ep)
    if mrr:
        flags += [f"--{name}-max-num-seqs", str(max(1, mrr // dp))]
    if chunk and chunk > 0:  # SGLang's -1 turns chunked prefill off: its default budget then
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
            ["--kv-link", g.get("link", "ndr400"), "--routing", "round_robin",
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
    if row["backend"] in ("sglang", "trtllm") and \
            (row["id"] in SGLANG_OF or row["id"] in TRTLLM_OF) and \
            (row["model_path"], row["precision"]) not in SGLANG_MODELS:
        return (f"no kvplan model for {row['model_path']} {row['precision']} (its checkpoint's "
                f"config is not in the shared data)")
    if row["backend"] == "sglang":
        if row["id"] in SGLANG_OF:
            return None
        if row["system"] in SGLANG_GPUS and row["model_path"].startswith("deepseek-ai/"):
            return ("SGLang with speculative decoding (the recipe's EAGLE / MTP decode side), or a "
                    "recipe not tied to the row")
        return f"SGLang on {row['system']}: recipes not mapped yet"
    if row["backend"] == "trtllm":
        if row["id"] in TRTLLM_OF:
            return None
        if row["system"] in TRTLLM_GPUS and row["model_path"].startswith("deepseek-ai/"):
            return ("TensorRT-LLM with speculative decoding (the recipe's MTP), or a recipe not "
                    "tied to the row")
        return f"TensorRT-LLM on {row['system']}: recipes not mapped yet"
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
        build = {"sglang": sglang_command, "trtllm": trtllm_command}.get(row["backend"], command)
        return ix.run_simulate(kvplan, build(kvplan, row, data, wl), timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kvplan", help="the kvplan binary (default: $KVPLAN, build/*/cli/kvplan)")
    ap.add_argument("--data", type=pathlib.Path, default=ix.DATA, help="default: %(default)s")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per row")
    ap.add_argument("--csv", type=pathlib.Path, help="write every scored row's figures here")
    ap.add_argument("--rows", action="store_true", help="a table of every scored row as well")
    ap.add_argument("--jobs", type=int, default=2, help="rows at once (1 or 2; default 2)")
    ap.add_argument("--only", action="append", help="only rows whose id contains this")
    ap.add_argument("--max-concurrency", type=int, default=0,
                    help="skip rows above this many clients, counted as not run (0: none)")
    a = ap.parse_args()
    sample = a.data / "silicon_sample.csv"
    if not sample.exists():
        ix.fail(f"{sample}: not found (the InferenceX data lives in ../shared/data/inferencex)")
    with open(sample, newline="") as fh:
        rows = [dict(r) for r in csv.DictReader(fh) if r["mode"] == "disagg"]
    if a.jobs < 1 or a.jobs > 2:
        ix.fail("--jobs must be 1 or 2")
    if a.only:
        rows = [r for r in rows if any(o in r["id"] for o in a.only)]
    for r in rows:
        r["concurrency"] = concurrency(r)
    kvplan = ix.find_kvplan(a.kvplan)
    def reason(r):
        if a.max_concurrency and r["concurrency"] and int(r["concurrency"]) > a.max_concurrency:
            return f"not run: over {a.max_concurrency} clients (--max-concurrency)"
        return why_not(r)

    cannot = [(r, reason(r)) for r in rows if reason(r)]
    runnable = [r for r in rows if not reason(r)]
    results, failed = ix.run_rows(runnable, lambda r: simulate(kvplan, r, a.data, a.timeout),
                                  a.jobs)
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
