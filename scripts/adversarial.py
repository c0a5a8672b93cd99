#!/usr/bin/env python3
"""An adversarial set of kvplan inputs across every input surface (issue 15's acceptance target).

Each case is a kvplan command line, the files it writes into a temporary directory first, and the
expected outcome class:
  refuse  exit 2, and stderr names the field or the file (one of `names`); exit 2 without any of
          them is a *vague* message
  accept  exit `exit` (0, or 1 for a check that fails) and the stated answer: substrings of stdout
          or a check of its JSON, derived by hand in the case's comment
  either  no crash and no hang: a clean refusal (as above) or exit 0
Every run is classified: clean (refusal or correct answer), vague, silently wrong (a bad input
accepted, or a wrong answer with exit 0/1), wrong refusal (a valid input refused), crash (exit 3 or
a signal, exit >= 128, or "internal error" / a sanitizer report), hang (past --timeout).

  python3 scripts/adversarial.py --kvplan build/default/cli/kvplan [--timeout 20] [-v] [-k WORD]

Exit status 0 when there is no crash, hang, silently wrong answer or wrong refusal and at most 5
vague messages. Needs only the Python standard library; the stories260K model is used where
KVPLAN_TEST_MODEL_DIR (default ../shared/models/stories260K) has it.
"""
import argparse
import copy
import json
import os
import shlex
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "data" / "bad"))
sys.dont_write_bytecode = True  # no __pycache__ in the corpus folder
import make_bad  # noqa: E402 - the bad-input corpus's writers: files, traces, llama2.c files

HF = ROOT / "tests" / "data" / "hf"
MODEL_DIR = Path(os.environ.get("KVPLAN_TEST_MODEL_DIR", ROOT.parent / "shared" / "models" / "stories260K"))

CASES = []


def case(name, args, expect="refuse", names=(), files=None, exit=0, out=(), check=None,
         needs_model=False, setup=None, keep=(), after=None, stdin=None, env=None):
    """`args`: the command line after `kvplan` ({d} = the case's temporary directory, {m} = the
    stories260K directory). `files`: name -> str | bytes | JSON object. `setup(d)` runs after the
    files are written (symlinks, FIFOs); `keep`: files that must keep their bytes whatever the
    outcome (an input an output would destroy); `after(d)` must hold after the run. A broken
    `keep` or `after` is a silently wrong run. `stdin`: bytes fed to standard input. `env`:
    variables set for the run ({d} expanded)."""
    CASES.append(dict(name=name, args=args, expect=expect, names=tuple(names), files=files or {},
                      exit=exit, out=tuple(out), check=check, needs_model=needs_model,
                      setup=setup, keep=tuple(keep), after=after, stdin=stdin, env=env or {}))


def refuse(name, args, *names, files=None):
    case(name, args, "refuse", names, files)


# ----------------------------------------------------------------------------- base inputs
KVMODEL = {"kvplan_model": 1, "id": "adv", "name": "Adv", "source": "adversarial",
           "num_layers": 4, "num_attention_heads": 8, "num_kv_heads": 2, "head_dim": 64,
           "max_context": 4096, "num_params": 100000000, "weight_dtype": "bf16"}
LLAMA = json.loads((HF / "llama-3.1-8b.json").read_text())
GPU = {"kvplan_gpu": 1, "id": "adv-gpu", "name": "Adversarial GPU", "source": "adversarial",
       "memory_bytes": 85899345920, "bandwidth_gbps": 3350}
DEPLOY = {"kvplan_deploy": 1, "name": "adv", "model": "llama-3.1-8b",
          "hardware": {"gpu": "h100-sxm-80gb", "gpus": 1},
          "engine": {"name": "vllm", "tensor_parallel_size": 1, "max_model_len": 32768,
                     "max_num_seqs": 16, "gpu_memory_utilization": 0.9, "block_size": 16},
          "slo": {"context": 32768, "concurrency": 8}}
VLLM = "vllm serve meta-llama/Llama-3.1-8B"
SGL = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B"


def hf(name):
    return json.loads((HF / name).read_text())


def mutate(obj, path, value):
    """A deep copy of obj with obj[path...] = value (value DELETE removes the key)."""
    o = copy.deepcopy(obj)
    cur = o
    for k in path[:-1]:
        cur = cur[k]
    if value is DELETE:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return o


DELETE = object()


def j(obj):
    return json.dumps(obj, indent=1)


# ----------------------------------------------------------------------------- size / plan / check flags
SIZE = "size --model llama-3.1-8b --context 1024"
PLAN = "plan --model llama-3.1-8b --gpu h100-sxm-80gb --brief"
CHECK = f'check --vllm "{VLLM}" --gpu h100-sxm-80gb'
for flag, vals in {"--context": ["-1", "abc", "1e3", "", "18446744073709551616", "2000000000000"],
                   "--batch": ["-3", "x", "99999999999"],
                   "--tp": ["0", "3", "4096", "4294967297"],
                   "--block-size": ["0", "4000000000", "-16"],
                   "--draft-layers": ["65", "4000000000"],
                   "--prefill": ["-1", "zz"]}.items():
    for v in vals:
        base = "size --model llama-3.1-8b" + ("" if flag == "--context" else " --context 1024")
        refuse(f"size {flag}={v!r}", f"{base} {flag} {shlex.quote(v)}", flag, flag.lstrip("-"))
for flag, vals in {"--tp": ["0", "5", "4096"], "--pp": ["0", "33", "5000"],
                   "--gpus": ["0", "100000", "-1"], "--concurrency": ["0", "-2"],
                   "--block-size": ["0", "2000000"], "--context": ["0", "200000"],
                   "--max-num-batched-tokens": ["0", "2000000000000"],
                   "--gpu-memory-utilization": ["0", "1.0000001", "nan", "-0.5"],
                   "--reserve-gib": ["-1", "inf"], "--available-kv-gib": ["1e30", "x"],
                   "--engine": ["tgi"], "--weight-dtype": ["fp2"], "--kv-dtype": ["int3"],
                   "--gpu-memory-gib": ["0", "1e20"], "--price": ["h100-sxm-80gb=-1", "=3"],
                   "--draft-layers": ["100"]}.items():
    for v in vals:
        refuse(f"plan {flag}={v!r}", f"{PLAN} {flag} {shlex.quote(v)}", flag, flag.lstrip("-"),
               "gpu", "tp", "context")
for flag, vals in {"--gpus": ["0", "100000"], "--context": ["0", "2000000000000"],
                   "--concurrency": ["0"], "--format": ["yaml"]}.items():
    for v in vals:
        refuse(f"check {flag}={v!r}", f"{CHECK} {flag} {v}", flag, flag.lstrip("-"))
refuse("check two sources", f'check x.json --vllm "{VLLM}"', "deploy")
refuse("check no source", "check", "deploy")
refuse("size unknown model", "size --model nosuch-model-x --context 8", "nosuch-model-x")
refuse("plan no gpu", "plan --model llama-3.1-8b", "gpu")
refuse("size format", f"{SIZE} --format yaml", "format")

# Hand-derived answers.
# llama-3.1-8b fp16: 2 · 32 layers · 8 KV heads · 128 · 2 bytes = 131072 bytes per token;
# 8192 tokens → 1073741824 bytes.
case("size llama 8192 fp16", "size --model llama-3.1-8b --context 8192 --format json", "accept",
     check=lambda o: o["bytes_per_token"] == 131072 and o["total_bytes"] == 1073741824)
# fp8: 1 byte: 65536 per token; B = 4 at 1000 tokens: 4 · 1000 · 65536 = 262144000.
case("size llama fp8 B4", "size --model llama-3.1-8b --context 1000 --batch 4 --kv-dtype fp8 "
     "--format json", "accept", check=lambda o: o["total_bytes"] == 262144000)
# TP 16 over 8 KV heads replicates: 1 head per rank: 2 · 32 · 1 · 128 · 2 = 16384 per token.
case("size llama tp16", "size --model llama-3.1-8b --context 8 --tp 16 --format json", "accept",
     check=lambda o: o["bytes_per_token"] == 16384)
# The kvplan model file: 2 · 4 · 2 · 64 · 2 = 2048 bytes per token, 1024 tokens → 2097152.
case("size model file", "size --model {d}/m.json --context 1024 --format json", "accept",
     files={"m.json": j(KVMODEL)}, check=lambda o: o["total_bytes"] == 2097152)
# The HF config of Llama 3.1 8B gives the preset's numbers.
case("size hf llama", "size --model {d}/config.json --context 8192 --format json", "accept",
     files={"config.json": j(LLAMA)}, check=lambda o: o["bytes_per_token"] == 131072)
# streaming sink 4 + window 1020 keeps 1024 of 8192 tokens: 1024 · 131072 = 134217728.
case("size streaming", "size --model llama-3.1-8b --context 8192 --policy "
     "streaming:sink=4,window=1020 --format json", "accept",
     check=lambda o: o["total_bytes"] == 134217728)
# plan's worked example (planner.hpp): 40 GiB measured, block 16: 20480 blocks, 327680 tokens.
case("plan measured 40GiB", "plan --model llama-3.1-8b --available-kv-gib 40 --context 32768 "
     "--brief --format json", "accept",
     check=lambda o: o["num_gpu_blocks"] == 20480 and o["kv_cache_tokens"] == 327680)
case("plan tp2 gpus4", "plan --model llama-3.1-8b --gpu h100-sxm-80gb --tp 2 --gpus 4 --brief "
     "--format json", "accept", check=lambda o: o["replicas"] == 2)
case("check deploy ok", "check {d}/d.json", "accept", files={"d.json": j(DEPLOY)})

# ----------------------------------------------------------------------------- kvplan model JSON
for field, vals in {"num_layers": [0, -1, 4097, 1.5, "4", None],
                    "num_attention_heads": [0, 4097, 7], "num_kv_heads": [0, 3, 16],
                    "head_dim": [0, 65537, 2.5], "max_context": [0, 4294967297, -5],
                    "num_params": [-1, 1e30, "big"], "weight_dtype": ["fp3", 7],
                    "kvplan_model": [2, 0, "1"], "id": [5]}.items():
    for v in vals:
        refuse(f"model {field}={v!r}", "size --model {d}/m.json --context 1024", "m.json",
               files={"m.json": j(mutate(KVMODEL, [field], v))})
for field in ["num_layers", "num_attention_heads", "head_dim", "source"]:
    refuse(f"model missing {field}", "size --model {d}/m.json --context 1024", "m.json",
           files={"m.json": j(mutate(KVMODEL, [field], DELETE))})
refuse("model extra field", "size --model {d}/m.json --context 1024", "m.json",
       files={"m.json": j(dict(KVMODEL, num_layerz=3))})
refuse("model not json", "size --model {d}/m.json --context 1024", "m.json",
       files={"m.json": "{\"kvplan_model\": 1,"})
refuse("model array", "size --model {d}/m.json --context 1024", "m.json", files={"m.json": "[]"})
refuse("model binary", "size --model {d}/m.json --context 1024", "m.json",
       files={"m.json": b"\x00\xff\xfe" * 100})
refuse("model huge nesting", "size --model {d}/m.json --context 1024", "m.json",
       files={"m.json": "[" * 100000 + "]" * 100000})
refuse("model attention window 0", "size --model {d}/m.json --context 1024", "m.json",
       files={"m.json": j(dict(KVMODEL, attention={"type": "sliding", "window": 0}))})
refuse("model pattern unknown", "size --model {d}/m.json --context 1024", "m.json",
       files={"m.json": j(dict(KVMODEL, attention={"type": "pattern", "pattern": ["full", "x"],
                                                  "window": 8}))})

# ----------------------------------------------------------------------------- HF config.json
for field, vals in {"num_hidden_layers": [0, -2, 5000, 3.5, "32", None],
                    "num_attention_heads": [0, 5000, 7], "num_key_value_heads": [0, 5, 64],
                    "hidden_size": [0, 4095, 1 << 30], "head_dim": [0, 70000],
                    "max_position_embeddings": [0, -1, 1e20], "vocab_size": [-1, 1 << 40],
                    "intermediate_size": [-5, 1 << 40], "torch_dtype": ["float8", 3],
                    "sliding_window": [-1, "x"], "use_sliding_window": ["yes"],
                    "architectures": ["LlamaForCausalLM", [1]], "quantization_config": [[], 5],
                    "tie_word_embeddings": ["no"], "rope_theta": ["x"]}.items():
    for v in vals:
        case(f"hf {field}={v!r}", "size --model {d}/config.json --context 1024",
             # Llama's config class has no sliding window (ignored, as transformers does);
             # "float8..." names an fp8 checkpoint dtype.
             "either" if field in ("rope_theta", "tie_word_embeddings", "sliding_window",
                                   "use_sliding_window") or v == "float8" else "refuse",
             ("config.json",), files={"config.json": j(mutate(LLAMA, [field], v))})
refuse("hf missing heads", "size --model {d}/config.json --context 1024", "config.json",
       files={"config.json": j(mutate(LLAMA, ["num_attention_heads"], DELETE))})
refuse("hf text_config array", "size --model {d}/config.json --context 1024", "config.json",
       files={"config.json": j({"architectures": ["X"], "model_type": "gemma3",
                                "text_config": [1, 2]})})
refuse("hf text_config bad heads", "size --model {d}/config.json --context 1024", "config.json",
       files={"config.json": j({"architectures": ["Gemma3ForConditionalGeneration"],
                                "model_type": "gemma3",
                                "text_config": mutate(LLAMA, ["num_key_value_heads"], 5)})})
# Gemma 3: layer_types
g3 = hf("gemma-3-4b.json")
tc = g3.get("text_config", g3)
for label, val in {"short": ["full_attention"], "int": None, "unknown": None}.items():
    g = copy.deepcopy(g3)
    t = g.get("text_config", g)
    n = t.get("num_hidden_layers", 34)
    if label == "short":
        t["layer_types"] = ["full_attention"] * 2
    elif label == "int":
        t["layer_types"] = [1] * n
    else:
        t["layer_types"] = ["sliding_attention"] * (n - 1) + ["hyena"]
    refuse(f"hf gemma3 layer_types {label}", "size --model {d}/config.json --context 1024",
           "layer_types", files={"config.json": j(g)})
# Nemotron-H: hybrid_override_pattern
nh = hf("nemotron-h-56b-base-8k.json")
for label, val in {"short": "M-M", "bad char": None, "not string": 7}.items():
    g = copy.deepcopy(nh)
    if label == "bad char":
        p = g["hybrid_override_pattern"]
        g["hybrid_override_pattern"] = p[:-1] + "Z"
    else:
        g["hybrid_override_pattern"] = val
    refuse(f"hf nemotron pattern {label}", "size --model {d}/config.json --context 1024",
           "hybrid_override_pattern", files={"config.json": j(g)})
for field, v in {"mamba_num_heads": 0, "ssm_state_size": -1, "mamba_head_dim": 1 << 40}.items():
    if field in nh:
        refuse(f"hf nemotron {field}={v}", "size --model {d}/config.json --context 1024", field,
               files={"config.json": j(mutate(nh, [field], v))})
# MiniMax: attn_type_list
mm = hf("minimax-m1.json")
for label, val in {"short": [1, 0], "value 2": None, "strings": None, "not list": "1,0"}.items():
    g = copy.deepcopy(mm)
    n = g["num_hidden_layers"]
    if label == "value 2":
        g["attn_type_list"] = [2] * n
    elif label == "strings":
        g["attn_type_list"] = ["1"] * n
    else:
        g["attn_type_list"] = val
    refuse(f"hf minimax attn_type_list {label}", "size --model {d}/config.json --context 1024",
           "attn_type_list", files={"config.json": j(g)})
# DeepSeek MLA
ds = hf("deepseek-v3.json")
for field, v in {"kv_lora_rank": [0, 100000, "512"], "qk_rope_head_dim": [-1, 100000],
                 "num_nextn_predict_layers": [65, -1], "n_routed_experts": [1 << 20]}.items():
    for x in v:
        refuse(f"hf deepseek {field}={x!r}", "size --model {d}/config.json --context 1024", field,
               files={"config.json": j(mutate(ds, [field], x))})
# quantization_config
q = hf("qwen3-235b-a22b-fp8.json")
for label, qc in {"bits string": {"quant_method": "gptq", "bits": "four"},
                  "bits 3": {"quant_method": "gptq", "bits": 3, "group_size": 128},
                  "group 0": {"quant_method": "gptq", "bits": 4, "group_size": 0},
                  "unknown method": {"quant_method": "zzz"},
                  "fp8 block bad": {"quant_method": "fp8", "weight_block_size": [0, 128]}}.items():
    case(f"hf quantization {label}", "size --model {d}/config.json --context 1024", "either",
         ("quantization_config",), files={"config.json": j(mutate(q, ["quantization_config"], qc))})
# Model directories: config.json + safetensors headers / index / hf_quant_config.json
def st_header(hdr, data=b"", n=None):
    h = json.dumps(hdr).encode()
    return struct.pack("<Q", len(h) if n is None else n) + h + data


good_st = st_header({"w": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 8]}}, b"\0" * 8)
for label, blob in {"header past end": st_header({}, n=1 << 40),
                    "header not json": struct.pack("<Q", 5) + b"{{{{{",
                    "short": b"\x01\x02",
                    "shape overflow": st_header({"w": {"dtype": "BF16", "shape": [1 << 40, 1 << 40],
                                                       "data_offsets": [0, 8]}}, b"\0" * 8),
                    "dtype unknown": st_header({"w": {"dtype": "Q9", "shape": [2],
                                                      "data_offsets": [0, 4]}}, b"\0" * 4),
                    "offsets past end": st_header({"w": {"dtype": "BF16", "shape": [2],
                                                         "data_offsets": [0, 1 << 50]}})}.items():
    refuse(f"model dir safetensors {label}", "size --model {d}/m --context 1024", "model.safetensors",
           files={"m/config.json": j(LLAMA), "m/model.safetensors": blob})
for label, idx in {"not object": "[1,2]", "bad json": "{",
                   "missing shard": j({"metadata": {"total_size": 16},
                                       "weight_map": {"w": "model-00001-of-00002.safetensors"}}),
                   "total_size negative": j({"metadata": {"total_size": -16}, "weight_map": {}}),
                   "total_size string": j({"metadata": {"total_size": "16"}, "weight_map": {}}),
                   "traversal": j({"metadata": {}, "weight_map": {"w": "../../etc/passwd"}})}.items():
    case(f"model dir index {label}", "size --model {d}/m --context 1024",
         "either" if label == "missing shard" else "refuse",
         ("index", "safetensors", "m/"),
         files={"m/config.json": j(LLAMA), "m/model.safetensors.index.json": idx})
case("model dir good", "size --model {d}/m --context 8192 --format json", "accept",
     files={"m/config.json": j(LLAMA), "m/model.safetensors": good_st},
     check=lambda o: o["bytes_per_token"] == 131072)
for label, qc in {"not object": "[]", "bad json": "{\"quantization\":",
                  "quantization not object": j({"quantization": 5}),
                  "unknown algo": j({"quantization": {"quant_algo": "ZZZ"}}),
                  "kv algo unknown": j({"quantization": {"quant_algo": "FP8",
                                                         "kv_cache_quant_algo": "INT3"}})}.items():
    case(f"hf_quant_config {label}", "size --model {d}/m --context 1024", "refuse",
         ("hf_quant_config",), files={"m/config.json": j(LLAMA), "m/hf_quant_config.json": qc})
refuse("model dir empty", "size --model {d}/m --context 1024", "m",
       files={"m/readme.txt": "nothing"})

# ----------------------------------------------------------------------------- GPU files
GPU_CHECK = f'check --vllm "{VLLM}" --gpu {{d}}/g.json'
for field, vals in {"memory_bytes": [0, -1, 1 << 50, 1.5, "80GB"],
                    "bandwidth_gbps": [0, -5, 1e9], "kvplan_gpu": [2], "id": [None]}.items():
    for v in vals:
        refuse(f"gpu {field}={v!r}", GPU_CHECK, "g.json", files={"g.json": j(mutate(GPU, [field], v))})
refuse("gpu unknown field", GPU_CHECK, "g.json", files={"g.json": j(dict(GPU, memory_gib=80))})
refuse("gpu not json", GPU_CHECK, "g.json", files={"g.json": "nope"})
# 80 GiB custom GPU without a CUDA total: the driver's 80 GiB less the 0.71 GiB kvplan takes off
# (71 * 2^30 // 100 = 762,356,695 B; docs/gpus.md), so the budget errs low.
case("gpu file good", f'plan --model llama-3.1-8b --gpu {{d}}/g.json --brief --format json',
     "accept", files={"g.json": j(GPU)},
     check=lambda o: o["memory"]["total_bytes"] == 85899345920 - 762356695)

# ----------------------------------------------------------------------------- deployment files
for path, vals in {("hardware", "gpus"): [0, 70000, -1, 2.5],
                   ("engine", "tensor_parallel_size"): [0, 3, 4096, 5000],
                   ("engine", "pipeline_parallel_size"): [0, 33, 4097],
                   ("engine", "block_size"): [0, 1 << 21],
                   ("engine", "max_model_len"): [0, 1 << 41],
                   ("engine", "max_num_seqs"): [0, 1 << 33],
                   ("engine", "gpu_memory_utilization"): [0, 1.5, "0.9"],
                   ("engine", "draft_layers"): [65],
                   ("engine", "name"): ["tgi"],
                   ("slo", "concurrency"): [0, 1 << 33],
                   ("slo", "context"): [0],
                   ("hardware", "gpu"): ["h900", 5],
                   ("model",): ["nosuch", 7]}.items():
    for v in vals:
        refuse(f"deploy {'/'.join(path)}={v!r}", "check {d}/d.json", "d.json",
               files={"d.json": j(mutate(DEPLOY, list(path), v))})
# Each engine's own keys (docs/deploy.md): bad values, and another engine's key, named.
for engine, key, vals in [("vllm", "num_gpu_blocks_override", [0, 1 << 41, "5"]),
                          ("vllm", "swa_full_tokens_ratio", [0.5]),
                          ("vllm", "max_tokens", [1000]),
                          ("sglang", "swa_full_tokens_ratio", [0, 1.5, "0.5"]),
                          ("sglang", "mamba_full_memory_ratio", [0, 101]),
                          ("sglang", "max_mamba_cache_size", [0, 1 << 33]),
                          ("sglang", "max_total_tokens", [0, 1 << 41]),
                          ("sglang", "scheduler_recv_interval", [-1, 1 << 21, "30"]),
                          ("sglang", "disable_overlap_schedule", ["yes", 1]),
                          ("sglang", "mamba_ssm_dtype", ["bf16", "float8", 16]),
                          ("sglang", "mamba_radix_cache_strategy", ["lazy", "", 3]),
                          ("sglang", "disable_radix_cache", ["yes", 1]),
                          ("sglang", "enable_linear_replayssm_spec", ["yes", 1]),
                          ("sglang", "linear_replayssm_cache_len", [0, -1, 1 << 21, "16"]),
                          ("sglang", "decode_context_parallel_size", [0, 3, 5000]),
                          ("trtllm", "enable_linear_replayssm_spec", [True]),
                          ("vllm", "mamba_radix_cache_strategy", ["auto"]),
                          ("vllm", "mamba_ssm_dtype", ["bfloat16"]),
                          ("vllm", "mamba_cache_dtype", ["fp8", "float64", 32]),
                          ("vllm", "mamba_ssm_cache_dtype", ["bf16", True]),
                          ("vllm", "async_scheduling", ["yes", 1]),
                          ("sglang", "async_scheduling", [False]),
                          ("trtllm", "mamba_cache_dtype", ["float32"]),
                          ("trtllm", "mamba_ssm_cache_dtype", ["fp16", 16]),
                          ("vllm", "disable_overlap_schedule", [True]),
                          ("sglang", "num_speculative_tokens", [2]),
                          ("trtllm", "backend", ["onnx", 3]),
                          ("trtllm", "max_attention_window", [[], [0], 5, [1 << 41], ["x"]]),
                          ("trtllm", "max_tokens", [0]),
                          ("trtllm", "use_kv_cache_manager_v2", ["yes", 1, None]),
                          ("trtllm", "avg_seq_len", [0, -5, "4096"]),
                          ("vllm", "avg_seq_len", [4096]),
                          ("trtllm", "enable_block_reuse", ["yes", 1]),
                          ("trtllm", "periodic_snapshot_interval", [-1, 1 << 41, "64"]),
                          ("trtllm", "additional_snapshot_offsets_from_start",
                           [[0], 64, [1 << 41], ["x"]]),
                          ("trtllm", "additional_snapshot_offsets_from_end", [[-1], 0, [1 << 41]]),
                          ("sglang", "periodic_snapshot_interval", [64]),
                          ("sglang", "speculative_algorithm", [3, True]),
                          ("sglang", "speculative_num_steps", [-1, 2000, "3"]),
                          ("sglang", "speculative_eagle_topk", [-1, 2000]),
                          ("vllm", "speculative_eagle_topk", [4]),
                          ("trtllm", "decode_context_parallel_size", [2])]:
    for v in vals:
        base = mutate(DEPLOY, ["engine", "name"], engine)
        if engine != "vllm":  # gpu_memory_utilization is vLLM's key
            base = mutate(base, ["engine", "gpu_memory_utilization"], DELETE)
        refuse(f"deploy {engine} engine/{key}={v!r}", "check {d}/d.json", key,
               files={"d.json": j(mutate(base, ["engine", key], v))})
refuse("deploy missing slo", "check {d}/d.json", "d.json",
       files={"d.json": j(mutate(DEPLOY, ["slo"], DELETE))})
refuse("deploy model file traversal", "check {d}/d.json", "d.json",
       files={"d.json": j(mutate(DEPLOY, ["model"], "../../../../etc/passwd"))})
refuse("deploy model file bad", "check {d}/d.json", "d.json",
       files={"d.json": j(mutate(DEPLOY, ["model"], "m.json")),
              "m.json": j(mutate(KVMODEL, ["num_kv_heads"], 3))})
refuse("deploy wide tp pp", "check {d}/d.json", "d.json",
       files={"d.json": j(mutate(mutate(mutate(DEPLOY, ["model"], "m.json"),
                                        ["engine", "tensor_parallel_size"], 4096),
                                 ["engine", "pipeline_parallel_size"], 4096)),
              "m.json": j(dict(KVMODEL, num_layers=4096, num_attention_heads=4096,
                               num_kv_heads=4096))})

# ----------------------------------------------------------------------------- engine command lines
WIDE = j(dict(KVMODEL, num_layers=4096, num_attention_heads=4096, num_kv_heads=4096))
for flags, names in {"--tensor-parallel-size 0": "--tensor-parallel-size",
                     "--tensor-parallel-size 3": "--tensor-parallel-size",
                     "--pipeline-parallel-size 99": "--pipeline-parallel-size",
                     "--data-parallel-size 0": "--data-parallel-size",
                     "--max-model-len 0": "--max-model-len",
                     "--max-model-len 1e5": "--max-model-len",
                     "--block-size 7000000": "--block-size",
                     "--gpu-memory-utilization 2": "--gpu-memory-utilization",
                     "--kv-cache-dtype int3": "--kv-cache-dtype",
                     "--max-num-seqs -1": "--max-num-seqs",
                     "--max-num-batched-tokens 0": "--max-num-batched-tokens",

                     "--speculative-config '{bad json'": "speculative",
                     "--speculative-config '[1,2]'": "speculative",

                     "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1e9}'":
                         "speculative",
                     "--max-model-len '32768": "quote",
                     "--tensor-parallel-size": "--tensor-parallel-size"}.items():
    refuse(f"vllm {flags}", f"check --vllm {shlex.quote(VLLM + ' ' + flags)} --gpu h100-sxm-80gb",
           names, "--vllm")
for flags, names in {"--tp 0": "--tp", "--tp 3": "--tp", "--dp 0": "--dp",
                     "--context-length -1": "--context-length",
                     "--mem-fraction-static 0": "--mem-fraction-static",
                     "--page-size 0": "--page-size",
                     "--scheduler-recv-interval -1": "--scheduler-recv-interval",

}.items():
    refuse(f"sglang {flags}", f"check --sglang {shlex.quote(SGL + ' ' + flags)} --gpu h100-sxm-80gb",
           names, "--sglang")
refuse("vllm 4096^3", f"check --vllm \"vllm serve w --tensor-parallel-size 4096 "
       "--pipeline-parallel-size 4096 --data-parallel-size 4096\" --model {d}/w.json --gpu h100-sxm-80gb",
       "--data-parallel-size", files={"w.json": WIDE})
refuse("vllm gpus disagree", f'check --vllm "{VLLM} --tensor-parallel-size 2 -dp 2" --gpu '
       "h100-sxm-80gb --gpus 8", "--gpus")
refuse("vllm empty", 'check --vllm "" --gpu h100-sxm-80gb', "--vllm")
refuse("vllm not vllm", 'check --vllm "python foo.py" --gpu h100-sxm-80gb', "--vllm")
refuse("vllm huge line", "check --vllm {d}/x --gpu h100-sxm-80gb", "--vllm", "x")
refuse("sglang no model", 'check --sglang "python -m sglang.launch_server --tp 2" --gpu h100-sxm-80gb',
       "--sglang", "model")
# vLLM's arithmetic of the worked example with the measured budget: 40 GiB → 20480 blocks.
case("vllm good", f'check --vllm "{VLLM} --max-model-len 32768 --max-num-seqs 4" --gpu '
     "h100-sxm-80gb --format json", "accept", check=lambda o: o["passed"] is True)

# ----------------------------------------------------------------------------- spec strings
for spec in ["kivi:bits=2,group=0", "kivi:bits=2,group=32,residual=33", "kivi:bits=16",
             "kivi:bits=2,group=99999999", "fp16:x=1", "FP16", "kivi:bits=2,bits=2", "kivi:=", ""]:
    refuse(f"kv spec {spec!r}", f"{SIZE} --kv-dtype {shlex.quote(spec)}", "kv-dtype")
for spec in ["streaming:sink=-1,window=4", "h2o:heavy=1e3,recent=2",
             "h2o:keep=nan,recent=1", "snapkv:budget=64,kernel=4",
             "snapkv:budget=64,pool=median",
             "h2o:heavy=4,recent=4,gqa=min", "h2o:heavy=4,recent=4,positions=random",
             "full:x=1", "streaming:sink=4,window=4,sink=5"]:
    refuse(f"policy spec {spec!r}", f"{SIZE} --policy {shlex.quote(spec)}", "policy")
refuse("deploy kv_format bad", "check {d}/d.json", "d.json",
       files={"d.json": j(dict(DEPLOY, compression={"kv_format": "kivi:bits=5"}))})
# kivi bits=2, group=32, residual=128 at 1024 tokens is checked by test_formula; here: accepted.
case("kv spec kivi ok", f"{SIZE} --kv-dtype kivi:bits=2,group=32,residual=128 --format json",
     "accept", check=lambda o: o["total_bytes"] > 0 and o["total_bytes"] < 134217728)

# ----------------------------------------------------------------------------- traces
def trace(T=3, hq=2, hkv=1, d=4, meta=None, edit=None, poke=None):
    """make_bad's one-layer trace without a tokens tensor, model "adv"; `poke(data)` may break the
    rows."""
    h, data = make_bad.trace(T=T, hq=hq, hkv=hkv, d=d, meta=dict({"model": "adv"}, **(meta or {})),
                             tokens=False, edit=edit)
    if poke:
        data = bytearray(data)
        poke(data)
        data = bytes(data)
    return make_bad.raw_safetensors(h, data)


def setk(tensor, key, value):
    return lambda h: h[tensor].__setitem__(key, value)


for label, blob in {"rope_theta tiny": trace(meta={"rope_theta": "1e-300"}),
                    "rope_theta huge": trace(meta={"rope_theta": "1e300"}),
                    "rope_dims odd": trace(meta={"rope_dims": "3"}),
                    "rope_dims > head": trace(meta={"rope_dims": "8"}),
                    "version 9": trace(meta={"version": "9"}),
                    "shape lies": trace(edit=setk("layers.0.q", "shape", [3, 2, 5])),
                    "dtype I8": trace(edit=setk("layers.0.k", "dtype", "I8")),
                    "offsets reversed": trace(edit=setk("layers.0.v", "data_offsets", [24, 0])),
                    "empty": b"",
                    "header len 0": struct.pack("<Q", 0)}.items():
    refuse(f"trace {label}", "trace info {d}/t.safetensors", "t.safetensors",
           files={"t.safetensors": blob})
NAN = struct.pack("<e", float("nan"))
for label, blob in {"nan q": trace(poke=lambda d: d.__setitem__(slice(0, 2), NAN)),
                    "inf v": trace(poke=lambda d: d.__setitem__(slice(-2, None),
                                                                struct.pack("<e", float("inf"))))}.items():
    refuse(f"replay trace {label}", "replay --trace {d}/t.safetensors", "t.safetensors",
           files={"t.safetensors": blob})
for flags, names in {"--eval-from 3": "--eval-from", "--eval-from 99": "--eval-from",
                     "--prefill 0": "--prefill", "--prefill 4": "--prefill",
                     "--block-size 0": "--block-size", "--max-tokens -1": "--max-tokens",
                     "--kv-dtype fp4": "--kv-dtype", "--backend tpu": "--backend",
                     "--fidelity-every -1": "--fidelity-every"}.items():
    refuse(f"replay trace {flags}", f"replay --trace {{d}}/t.safetensors {flags}", names,
           files={"t.safetensors": trace()})
# 3 tokens, full cache: every scored position matches the reference (relative error 0).
case("replay trace good", "replay --trace {d}/t.safetensors --eval-from 2 --kv-dtype fp32 "
     "--format json", "accept", files={"t.safetensors": trace()},
     check=lambda o: all(abs(c["rel_error"]) < 1e-6 for c in o["configs"]))

# trace synth: what the reader would refuse is never written
for flags, names in {"--tokens 0": "tokens", "--tokens 999999": "tokens",
                     "--rope-theta 1e-7": "rope_theta", "--rope-theta 0.5": "rope_theta",
                     "--rope-theta nan": "rope_theta", "--rope-theta 1e300": "rope_theta",
                     "--rope-dims 3": "rope_dims", "--head-dim 7": "head_dim",
                     "--kv-heads 3": "heads", "--sink-strength 1e9": "sink_strength",
                     "--heavy-fraction 2": "heavy_fraction", "--dtype f64": "dtype",
                     "--rope-style neox": "rope"}.items():
    refuse(f"synth {flags}", f"trace synth --tokens 16 -o {{d}}/s.safetensors {flags}", names)
for flags in ["--rope-theta 123456.789 --dtype f32", "--rope-theta 1 --dtype bf16",
              "--rope-theta 1e15 --layers 1"]:
    # synth writes it, the reader opens it (exit 0 both).
    case(f"synth roundtrip {flags}", f"trace synth --tokens 16 -o {{d}}/s.safetensors {flags}",
         "accept")

# ----------------------------------------------------------------------------- llama2.c files
PIECES = make_bad.PIECES
tokenizer = make_bad.tokenizer


def checkpoint(**kw):
    """make_bad's tiny llama2.c checkpoint, with a vocabulary of the 300 PIECES."""
    return make_bad.checkpoint(**dict({"vocab": len(PIECES)}, **kw))


TOK = tokenizer(PIECES)
CK = checkpoint()
GEN = "generate --checkpoint {d}/c.bin --tokenizer {d}/t.bin --steps 4"
for label, blob in {"seq 0": checkpoint(seq=0), "vocab negative huge": CK[:20] + struct.pack("<i", -(1 << 30)) + CK[24:],
                    "hidden 0": checkpoint(hidden=0), "kv 0": checkpoint(kv=0),
                    "seq huge": struct.pack("<7i", 8, 12, 1, 2, 1, 300, 1 << 30) + CK[28:],
                    "inf weight": checkpoint(fill=lambda w: w.__setitem__(5, float("inf"))),
                    "empty": b""}.items():
    refuse(f"llama2c {label}", GEN, "c.bin", files={"c.bin": blob, "t.bin": TOK})
for label, blob in {"max len 2^31": struct.pack("<i", (1 << 31) - 1) + TOK[4:],
                    "score nan": TOK[:4] + struct.pack("<f", float("nan")) + TOK[8:],
                    "length huge": TOK[:8] + struct.pack("<i", 1 << 30) + TOK[12:],
                    "too many": TOK + struct.pack("<fi", 0.0, 1) + b"x"}.items():
    case(f"tokenizer {label}", GEN, "refuse" if label != "score nan" else "either", ("t.bin",),
         files={"c.bin": CK, "t.bin": blob})
for label, text in {"float": "1.5 2", "hex": "0x10", "huge": "99999999999999999999999",
                    "unicode digits": "\u0661\u0662", "only spaces": "   \n\t"}.items():
    refuse(f"tokens file {label}", "replay --checkpoint {d}/c.bin --tokens-file {d}/k.txt",
           "k.txt", files={"c.bin": CK, "k.txt": text})
refuse("generate --prefill past run", GEN + " --prefill 100 --policy snapkv:budget=40,window=2",
       "--prefill", files={"c.bin": CK, "t.bin": TOK})
refuse("generate --temperature 1e-40", GEN + " --temperature 1e-40", "--temperature",
       files={"c.bin": CK, "t.bin": TOK})
refuse("generate --temperature 1e-300", GEN + " --temperature 1e-300", "--temperature",
       files={"c.bin": CK, "t.bin": TOK})
refuse("generate --temperature -0.1", GEN + " --temperature -0.1", "--temperature",
       files={"c.bin": CK, "t.bin": TOK})
refuse("generate --block-size 0", GEN + " --block-size 0", "--block-size",
       files={"c.bin": CK, "t.bin": TOK})
refuse("replay ckpt --eval-from past", "replay --checkpoint {d}/c.bin --tokenizer {d}/t.bin "
       "--steps 4 --eval-from 4", "--eval-from", files={"c.bin": CK, "t.bin": TOK})
refuse("replay ckpt --temperature nan", "replay --checkpoint {d}/c.bin --tokenizer {d}/t.bin "
       "--temperature nan", "--temperature", files={"c.bin": CK, "t.bin": TOK})
refuse("trace capture --temperature 1e-40", "trace capture --checkpoint {d}/c.bin --tokenizer "
       "{d}/t.bin -o {d}/o.safetensors --steps 4 --temperature 1e-40", "--temperature",
       files={"c.bin": CK, "t.bin": TOK})
# stories260K, greedy: the README's exact output begins "Once upon a time".
case("generate stories greedy", "generate --checkpoint {m}/stories260K.bin --tokenizer "
     "{m}/tok512.bin --prompt 'Once upon' --steps 20", "accept", out=("Once upon a time",),
     needs_model=True)
# temperature 1e-6 is as good as greedy: the same text.
case("generate stories T=1e-6", "generate --checkpoint {m}/stories260K.bin --tokenizer "
     "{m}/tok512.bin --prompt 'Once upon' --steps 20 --temperature 1e-6", "accept",
     out=("Once upon a time",), needs_model=True)


# ----------------------------------------------------------------------------- issue 30 class 1
# Outputs never destroy inputs: an output that is an input (same inode, through a symlink or a
# hard link, or a file of an input directory) or an existing non-regular file is refused, exit 2
# naming both, and every input keeps its bytes.
EAGLE_LOG = (ROOT / "tests" / "data" / "logs" / "vllm-v091dev-llama31-8b-eagle-h100.log").read_text()
EXPLAIN = "explain {d}/vllm.log --model llama-3.1-8b --draft-layers 1 --gpu h100-sxm-80gb"


def symlink(name, target):
    return lambda d: os.symlink(os.path.join(d, target), os.path.join(d, name))


def hardlink(name, target):
    return lambda d: os.link(os.path.join(d, target), os.path.join(d, name))


def fifo(name):
    def make(d):
        os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
        os.mkfifo(os.path.join(d, name))
    return make


def is_fifo(name):
    import stat
    return lambda d: stat.S_ISFIFO(os.lstat(os.path.join(d, name)).st_mode)


def is_chr(path):
    import stat
    return lambda d: stat.S_ISCHR(os.stat(path).st_mode)


case("out: explain --calibrate onto its log", EXPLAIN + " --calibrate {d}/vllm.log", "refuse",
     ("same file as the input",), files={"vllm.log": EAGLE_LOG}, keep=("vllm.log",))
case("out: explain --calibrate onto a symlink to its log", EXPLAIN + " --calibrate {d}/c.json",
     "refuse", ("same file as the input",), files={"vllm.log": EAGLE_LOG},
     setup=symlink("c.json", "vllm.log"), keep=("vllm.log",))
case("out: explain --calibrate onto a hard link of its log", EXPLAIN + " --calibrate {d}/c.json",
     "refuse", ("same file as the input",), files={"vllm.log": EAGLE_LOG},
     setup=hardlink("c.json", "vllm.log"), keep=("vllm.log",))
case("out: explain --calibrate onto its model config", "explain {d}/vllm.log --model "
     "{d}/config.json --draft-layers 1 --gpu h100-sxm-80gb --calibrate {d}/config.json", "refuse",
     ("same file as the input",), files={"vllm.log": EAGLE_LOG, "config.json": j(LLAMA)},
     keep=("vllm.log", "config.json"))
case("out: explain --calibrate onto its GPU file", "explain {d}/vllm.log --model llama-3.1-8b "
     "--gpu {d}/g.json --calibrate {d}/g.json", "refuse", ("same file as the input",),
     files={"vllm.log": EAGLE_LOG, "g.json": j(GPU)}, keep=("g.json",))
case("out: explain --calibrate onto a FIFO", EXPLAIN + " --calibrate {d}/fifo", "refuse",
     ("not a regular file (a FIFO",), files={"vllm.log": EAGLE_LOG}, setup=fifo("fifo"),
     after=is_fifo("fifo"))
case("out: explain --calibrate onto /dev/null", EXPLAIN + " --calibrate /dev/null", "refuse",
     ("not a regular file (a character device",), files={"vllm.log": EAGLE_LOG},
     after=is_chr("/dev/null"))
case("out: explain --calibrate onto a directory", EXPLAIN + " --calibrate {d}", "refuse",
     ("not a regular file (a directory",), files={"vllm.log": EAGLE_LOG})
# 51.63 GiB available on an 80 GiB H100 at 0.9: the calibration JSON alone on stdout.
case("out: explain --calibrate - is standard output", EXPLAIN + " --calibrate -", "accept",
     files={"vllm.log": EAGLE_LOG}, check=lambda o: o["kvplan_calibration"] == 1
     and o["reserve_bytes"] > 0, after=lambda d: not os.path.exists(os.path.join(d, "-")))
# The vLLM release of a command line (--vllm-version) and a calibration's per-term corrections.
VLLM_LINE = 'check --gpu h100-sxm-80gb --vllm "vllm serve meta-llama/Llama-3.1-8B"'
for v in ["0.15", "x.y", "", "0.19;rm"]:
    refuse(f"check --vllm-version {v!r}", VLLM_LINE + f" --vllm-version '{v}'", "--vllm-version")
refuse("check --vllm-version with --sglang", 'check --gpu h100-sxm-80gb --sglang "python -m '
       'sglang.launch_server --model-path meta-llama/Llama-3.1-8B" --vllm-version 0.19',
       "--vllm-version")
CAL = {"kvplan_calibration": 1, "engine": "vllm"}
for key, v in [("activation_delta_bytes", 1.5), ("activation_delta_bytes", "1"),
               ("non_torch_delta_bytes", 1e300), ("cuda_graph_bytes", -1), ("graphs", 1)]:
    refuse(f"calibration terms {key}={v!r}",
           "plan --model llama-3.1-8b --gpu h100-sxm-80gb --calibration {d}/c.json", key,
           files={"c.json": j(dict(CAL, terms={key: v}))})
case("calibration terms good", "plan --model llama-3.1-8b --gpu h100-sxm-80gb --calibration "
     "{d}/c.json --brief --format json", "accept",
     files={"c.json": j(dict(CAL, terms={"non_torch_delta_bytes": 1073741824}))},
     check=lambda o: any(t["term"] == "non-torch memory" and t["basis"] == "measured"
                         for t in o["memory"]["terms"]))
for flag in ["--max-num-seqs 0", "--max-num-batched-tokens 0", "--max-num-seqs 99999999999"]:
    refuse(f"explain {flag}", EXPLAIN + " " + flag, flag.split()[0], files={"vllm.log": EAGLE_LOG})
SIM_W = {"kvplan_workload": 1, "arrival": "poisson", "stages": [{"rate": 2, "duration_s": 2}],
         "prompt_tokens": {"dist": "fixed", "value": 128},
         "output_tokens": {"dist": "fixed", "value": 8}}
case("out: simulate --kv-series onto its workload", "simulate --model llama-3.1-8b --gpu "
     "h100-sxm-80gb --max-model-len 4096 --workload {d}/w.json --kv-series {d}/w.json", "refuse",
     ("same file as the input",), files={"w.json": j(SIM_W)}, keep=("w.json",))
case("out: simulate --kv-series onto /dev/null", "simulate --model llama-3.1-8b --gpu "
     "h100-sxm-80gb --max-model-len 4096 --workload {d}/w.json --kv-series /dev/null", "refuse",
     ("not a regular file (a character device",), files={"w.json": j(SIM_W)},
     after=is_chr("/dev/null"))
for target in ["c.bin", "t.bin"]:
    case(f"out: trace capture -o onto its {target}", "trace capture --checkpoint {d}/c.bin "
         f"--tokenizer {{d}}/t.bin --steps 2 -o {{d}}/{target}", "refuse",
         ("same file as the input",), files={"c.bin": CK, "t.bin": TOK}, keep=("c.bin", "t.bin"))
case("out: trace capture -o onto a symlink to its checkpoint", "trace capture --checkpoint "
     "{d}/c.bin --tokenizer {d}/t.bin --steps 2 -o {d}/o.safetensors", "refuse",
     ("same file as the input",), files={"c.bin": CK, "t.bin": TOK},
     setup=symlink("o.safetensors", "c.bin"), keep=("c.bin",))
for target in ["model.safetensors", "tokenizer.json", "config.json"]:
    case(f"out: trace capture -o onto the model directory's {target}", "trace capture "
         f"--checkpoint {{d}}/hf --steps 2 -o {{d}}/hf/{target}", "refuse",
         ("same file as the input",),
         files={"hf/config.json": j(LLAMA), "hf/model.safetensors": b"weights",
                "hf/tokenizer.json": "{}"},
         keep=("hf/config.json", "hf/model.safetensors", "hf/tokenizer.json"))
case("out: trace capture -o -", "trace capture --checkpoint {d}/c.bin --tokenizer {d}/t.bin "
     "--steps 2 -o -", "refuse", ("not - (standard output)",), files={"c.bin": CK, "t.bin": TOK})
case("out: trace synth -o /dev/null", "trace synth --tokens 16 -o /dev/null", "refuse",
     ("not a regular file",), after=is_chr("/dev/null"))
case("out: trace synth -o a FIFO", "trace synth --tokens 16 -o {d}/fifo", "refuse",
     ("not a regular file",), setup=fifo("fifo"), after=is_fifo("fifo"))


# ----------------------------------------------------------------------------- issue 30 class 2
# Option files and command lines as their engines parse them: PyYAML (aliases bounded, merges,
# the last of a repeated key), argparse (the last flag, choices, one value), click (the last
# --extra_llm_api_options), a shell (`A && B` is two commands).
LAUGHS = "a0: &a0 {x: lol}\n" + "".join(
    f"a{l}: &a{l} {{" + ", ".join(f"k{k}: *a{l - 1}" for k in range(9)) + "}\n" for l in range(1, 10))
VCHECK = "check --gpu h100-sxm-80gb --vllm "
TCHECK = "check --gpu h100-sxm-80gb --trtllm "
V8 = "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192"
T8 = "trtllm-serve meta-llama/Llama-3.1-8B --max_seq_len 8192"
refuse("yaml: vllm --config billion laughs", VCHECK + f'"{V8} --config {{d}}/b.yaml"', "b.yaml",
       files={"b.yaml": LAUGHS})
refuse("yaml: trtllm options billion laughs", TCHECK + f'"{T8} --extra_llm_api_options '
       '{d}/b.yml"', "b.yml", files={"b.yml": LAUGHS})
for label, text in {"self map": "&a {x: *a}\n", "self merge": "&a {<<: *a}\n",
                    "self nested": "kv_cache_config: &a {x: {y: *a}}\n",
                    "self list": "a: &a [1, *a]\n"}.items():
    refuse(f"yaml: vllm --config {label}", VCHECK + f'"{V8} --config {{d}}/s.yaml"', "s.yaml",
           files={"s.yaml": text})
    refuse(f"yaml: trtllm options {label}", TCHECK + f'"{T8} --extra_llm_api_options '
           '{d}/s.yml"', "s.yml", files={"s.yml": text})
# PyYAML merges: the mapping's own key wins over the merged one (TP 1 fits; the merged 3 would
# not divide the 32 heads), and a merged key is read (block size 24 is not a vLLM choice).
case("yaml: merge, stated key wins", VCHECK + f'"{V8} --config {{d}}/m.yaml"', "accept",
     files={"m.yaml": "base: &b {tensor-parallel-size: 3}\n<<: *b\ntensor-parallel-size: 1\n"},
     out=("vllm TP 1",))
refuse("yaml: merge, merged key read", VCHECK + f'"{V8} --config {{d}}/m.yaml"', "--block-size",
       files={"m.yaml": "base: &b {block-size: 24}\n<<: *b\n"})
refuse("yaml: merge of a scalar", VCHECK + f'"{V8} --config {{d}}/m.yaml"', "m.yaml",
       files={"m.yaml": "<<: 3\n"})
# A repeated key keeps its last value: TP 3 last is refused, TP 1 last accepted.
refuse("yaml: repeated key, last refused", VCHECK + f'"{V8} --config {{d}}/d.yaml"',
       "--tensor-parallel-size", files={"d.yaml": "tensor-parallel-size: 1\ntensor-parallel-size: 3\n"})
case("yaml: repeated key, last kept", VCHECK + f'"{V8} --config {{d}}/d.yaml"', "accept",
     files={"d.yaml": "tensor-parallel-size: 3\ntensor-parallel-size: 1\n"}, out=("vllm TP 1",))
# The last kv_cache_config mapping replaces the first: the bad fraction is gone.
case("yaml: trtllm repeated mapping, last kept", TCHECK + f'"{T8} --extra_llm_api_options '
     '{d}/d.yml"', "accept", files={"d.yml": "kv_cache_config:\n  free_gpu_memory_fraction: 2.0\n"
                                    "kv_cache_config:\n  tokens_per_block: 32\n"})
# click keeps the last --extra_llm_api_options: 0.5 of what the H100 leaves after the weights and
# the reserve ((79.17 − 14.96 − 2.00) GiB · 0.5 = 31.11 GiB of KV), bad.yml unread.
case("yaml: trtllm last --extra_llm_api_options", TCHECK + f'"{T8} --extra_llm_api_options '
     '{d}/bad.yml --extra_llm_api_options {d}/good.yml"', "accept",
     files={"bad.yml": "kv_cache_config:\n  free_gpu_memory_fraction: 2.0\n",
            "good.yml": "kv_cache_config:\n  free_gpu_memory_fraction: 0.5\n"}, out=("31.11 GiB",))
refuse("yaml: trtllm last --extra_llm_api_options bad", TCHECK + f'"{T8} --extra_llm_api_options '
       '{d}/good.yml --extra_llm_api_options {d}/bad.yml"', "bad.yml",
       files={"bad.yml": "kv_cache_config:\n  free_gpu_memory_fraction: 2.0\n",
              "good.yml": "kv_cache_config:\n  free_gpu_memory_fraction: 0.5\n"})
refuse("yaml: vllm list for a scalar", VCHECK + f'"{V8} --config {{d}}/l.yaml"', "l.yaml",
       files={"l.yaml": "tensor-parallel-size: [1, 2]\n"})
for bs in ["2", "24", "512"]:
    refuse(f"argparse: vllm --block-size {bs}", VCHECK + f'"{V8} --block-size {bs}"', "--block-size")
case("argparse: vllm --block-size 256", VCHECK + f'"{V8} --block-size 256"', "accept")
case("argparse: repeated flag, last kept", VCHECK + f'"{V8} -tp 3 -tp 1"', "accept",
     out=("vllm TP 1",))
for op in ["&&", "||", ";", "|"]:
    refuse(f"shell: vllm {op}", VCHECK + shlex.quote(f"{V8} {op} echo done"), op)
case("shell: quoted && is text", VCHECK + shlex.quote(f"{V8} --served-model-name 'a&&b'"),
     "accept")
for label, spec in {"method a number": '{"method": 5, "num_speculative_tokens": 2}',
                    "method a list": '{"method": ["eagle"], "num_speculative_tokens": 2}',
                    "model an object": '{"model": {"x": 1}, "method": "eagle"}',
                    "tokens a string": '{"method": "ngram", "num_speculative_tokens": "two"}'}.items():
    refuse(f"spec-config: {label}", VCHECK + shlex.quote(f"{V8} --speculative-config '{spec}'"),
           "--speculative-config")


# ----------------------------------------------------------------------------- issue 30 class 3
# Logs as engines print them: GiB (or GB of 2^30 bytes) only, counts grouped in threes, no
# overflow, one line per TP rank sized by the smallest, one start-up and one engine per log.
EX = "explain {d}/l.log --model llama-3.1-8b --max-model-len 131072 --draft-layers 1"
INIT = ("INFO Initializing a V1 LLM engine (v0.9.1) with config: model='meta-llama/Llama-3.1-8B', "
        "max_seq_len=131072, tensor_parallel_size=1\n")
for label, text in {
        "MiB": "Available KV cache memory: 52869.12 MiB\n",
        "MB": "Available KV cache memory: 55437.29 MB\n",
        "TiB": "Available KV cache memory: 0.05 TiB\n",
        "decimal comma": "Available KV cache memory: 51,63 GiB\n",
        "two dots": "Available KV cache memory: 51.6.3 GiB\n",
        "tokens grouped in twos": "Available KV cache memory: 51.63 GiB\nGPU KV cache size: 41,01,28 tokens\n",
        "tokens with a dot": "Available KV cache memory: 51.63 GiB\nGPU KV cache size: 410.128 tokens\n",
        "tokens past 2^64": "Available KV cache memory: 51.63 GiB\nGPU KV cache size: 18446744073709551617 tokens\n",
        "tp past 2^32": INIT.replace("tensor_parallel_size=1", "tensor_parallel_size=4294967297")
        + "Available KV cache memory: 51.63 GiB\n",
        "weights in MiB": "Model loading took 14992.00 MiB\nAvailable KV cache memory: 51.63 GiB\n",
        "sglang K size in MB": "KV Cache is allocated. #tokens: 1000, K size: 512.00 MB, V size: 512.00 MB\n",
        "trtllm tokens per block past 2^32": "[TensorRT-LLM][INFO] Number of tokens per block: 4294967328\n"
        "[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 100\n",
        "two start-ups": INIT + "Available KV cache memory: 51.63 GiB\nGPU KV cache size: 410,128 tokens\n"
        + INIT + "Available KV cache memory: 30.00 GiB\nGPU KV cache size: 238,320 tokens\n",
        "two engines": "Available KV cache memory: 51.63 GiB\nGPU KV cache size: 410,128 tokens\n"
        "KV Cache is allocated. #tokens: 410128, K size: 25.00 GB, V size: 25.00 GB\n"}.items():
    refuse(f"log: {label}", EX, "l.log", "line ", files={"l.log": text})
refuse("log: model path from the log", "explain {d}/l.log", "config line",
       files={"l.log": INIT.replace("meta-llama/Llama-3.1-8B", "/nonexistent/llama")
              + "Available KV cache memory: 51.63 GiB\n"})
# vLLM issue #19996 (tests/data/logs): 51.63 GiB, 410,128 tokens with the EAGLE layer; "GB" is
# the same 2^30 bytes, so the same 410,128; a second rank with more memory does not count (the
# engine sizes every rank by the smallest).
case("log: GB is GiB", EX + " --format json", "accept",
     files={"l.log": EAGLE_LOG.replace("51.63 GiB", "51.63 GB")}, check=lambda o: o["all_within"])
case("log: per-rank lines, smallest wins", EX + " --format json", "accept",
     files={"l.log": "(VllmWorker rank=1 pid=2) INFO Available KV cache memory: 60.00 GiB\n"
            + EAGLE_LOG}, check=lambda o: o["all_within"])
case("log: the same start-up twice", EX + " --format json", "accept",
     files={"l.log": INIT + EAGLE_LOG + INIT + EAGLE_LOG}, check=lambda o: o["all_within"])


# ----------------------------------------------------------------------------- issue 30 class 6
# The HF hub cache says what is wrong: each fault in its own words, refs/main inside snapshots/,
# a broken snapshot of a preset's repo an error rather than the preset.
HUB = {"HF_HUB_CACHE": "{d}/hub"}
SNAP = "hub/models--acme--tiny/snapshots/abc123/"
HUBSIZE = "size --model acme/tiny --context 1024"


def link(name, target):
    def make(d):
        os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
        os.symlink(target, os.path.join(d, name))
    return make


for label, files, setup, names in [
        ("refs/main outside", {"hub/models--acme--tiny/refs/main": "../../../outside",
                               "outside/config.json": j(LLAMA), SNAP + "config.json": j(LLAMA)},
         None, ("refs/main: names the revision",)),
        ("refs/main slash", {"hub/models--acme--tiny/refs/main": "abc123/../../x",
                             SNAP + "config.json": j(LLAMA)}, None, ("refs/main: names the revision",)),
        ("config symlink loop", {"hub/models--acme--tiny/refs/main": "abc123"},
         link(SNAP + "config.json", "config.json"), ("symlink loop",)),
        ("config dangling blob", {"hub/models--acme--tiny/refs/main": "abc123"},
         link(SNAP + "config.json", "../../blobs/0123"), ("dangling link",)),
        ("weights dangling blob", {"hub/models--acme--tiny/refs/main": "abc123",
                                   SNAP + "config.json": j(LLAMA)},
         link(SNAP + "model.safetensors", "../../blobs/beef"), ("dangling link",)),
        ("config FIFO", {"hub/models--acme--tiny/refs/main": "abc123"},
         fifo(SNAP + "config.json"), ("is a FIFO",)),
        ("snapshot without config", {"hub/models--acme--tiny/refs/main": "abc123",
                                     SNAP + "README.md": "x"}, None, ("holds no config.json",))]:
    case(f"hub: {label}", HUBSIZE, "refuse", names, files=files, setup=setup, env=HUB)
case("hub: broken snapshot of a preset's repo", "size --model meta-llama/Llama-3.1-8B --context 1024",
     "refuse", ("holds no config.json",), env=HUB,
     files={"hub/models--meta-llama--Llama-3.1-8B/refs/main": "abc123",
            "hub/models--meta-llama--Llama-3.1-8B/snapshots/abc123/README.md": "x"})
# Llama 3.1 8B at 1024 tokens, bf16: 2 · 32 layers · 8 heads · 128 · 2 B · 1024 = 128 MiB.
case("hub: good snapshot", HUBSIZE + " --format json", "accept", env=HUB,
     files={"hub/models--acme--tiny/refs/main": "abc123", SNAP + "config.json": j(LLAMA)},
     check=lambda o: o["total_bytes"] == 134217728)


# ----------------------------------------------------------------------------- issue 30 class 5
# Semantics outside the simulator: a kernel block no pool holds, a replay grid of thousands of
# identical configurations, an MLA RoPE width RoPE cannot use, a SnapKV window past its budget.
refuse("sem: generate --block-size 2^32-1", GEN + " --block-size 4294967295", "--block-size",
       files={"c.bin": CK, "t.bin": TOK})
refuse("sem: replay --block-size 2^32-1", "replay --trace {d}/t.safetensors --block-size 4294967295",
       "--block-size", files={"t.safetensors": trace()})
refuse("sem: replay --eval-from 2^64-1", "replay --trace {d}/t.safetensors --eval-from "
       "18446744073709551615", "--eval-from", files={"t.safetensors": trace()})
refuse("sem: replay 300 block sizes", "replay --trace {d}/t.safetensors "
       + " ".join(f"--block-size {b}" for b in range(1, 301)), "configurations",
       files={"t.safetensors": trace()})
# 3000 copies of one policy are one configuration (3 tokens, full cache: exact).
case("sem: replay 3000 identical policies", "replay --trace {d}/t.safetensors --eval-from 2 "
     "--kv-dtype fp32 --format json " + " ".join(["--policy full"] * 3000), "accept",
     files={"t.safetensors": trace()}, check=lambda o: len(o["configs"]) == 1)
refuse("sem: replay snapkv window past budget", "replay --trace {d}/t.safetensors --policy "
       "snapkv:budget=16,window=32", "--policy", files={"t.safetensors": trace()})
refuse("sem: MLA odd qk_rope_head_dim", "size --model {d}/m.json --context 1024", "qk_rope_head_dim",
       files={"m.json": j(dict(KVMODEL, num_kv_heads=1, mla={"kv_lora_rank": 512,
                                                            "qk_rope_head_dim": 63}))})


# ----------------------------------------------------------------------------- issue 30, simulator
# Class 4 (bounds in bounded memory), class 5 (semantics) and class 7 (everyday inputs) of the
# serving simulator, and the closed loop of issue 29.
SIM = "simulate --model llama-3.1-8b --gpu h100-sxm-80gb --max-model-len 4096 "
PLAN_SLO = "plan --model llama-3.1-8b --context 4096 --tp 1 --kv-dtype bf16 "
ONE_TOKEN = "arrival_s,prompt_tokens,output_tokens\n0,100,1\n1,100,1\n"
CLOSED = {"kvplan_workload": 1,
          "arrival": {"process": "closed", "concurrency": 4, "requests": 40},
          "prompt_tokens": {"dist": "uniform", "mean": 500, "range_ratio": 0.5},
          "output_tokens": {"dist": "fixed", "mean": 16}}


def most_in_system(path):
    ev = []
    for line in Path(path).read_text().splitlines():
        r = json.loads(line)
        ev += [(r["arrival_s"], 1), (r["finish_s"], -1)]
    now = most = 0
    for _, k in sorted(ev):
        now += k
        most = max(most, now)
    return most


refuse("sim: plan --slo TPOT on one-token outputs", PLAN_SLO + "--gpu h100-sxm-80gb --workload "
       "{d}/one.csv --slo tpot_p99_ms=50", "--slo", "tpot_p99_ms", "one.csv", "no TPOT",
       files={"one.csv": ONE_TOKEN})
for bad in ["1e-305", "nan", "0", "1e400"]:
    refuse(f"sim: --cpu-offload-gbps {bad}", SIM + "--workload {d}/w.csv --cpu-offload-gib 1 "
           f"--cpu-offload-gbps {bad}", "--cpu-offload-gbps", files={"w.csv": ONE_TOKEN})
case("sim: CSV trace with a UTF-8 BOM", SIM + "--workload {d}/bom.csv --format json", "accept",
     files={"bom.csv": b"\xef\xbb\xbf" + ONE_TOKEN.encode()},
     check=lambda o: o["summary"]["requests"] == 2)
case("sim: plan --gpu X,X searched once", PLAN_SLO + "--gpu h100-sxm-80gb,h100-sxm-80gb "
     "--workload {d}/w.csv --slo ttft_p99_ms=5000 --format json", "accept",
     files={"w.csv": ONE_TOKEN}, check=lambda o: len(o["rows"]) == 1)
case("sim: one request of 100k output tokens", "simulate --model llama-3.1-8b --gpu h100-sxm-80gb "
     "--max-model-len 131072 --workload {d}/long.csv --format json", "accept",
     files={"long.csv": "arrival_s,prompt_tokens,output_tokens\n0,100,100000\n"},
     check=lambda o: o["summary"]["itl_ms"]["count"] == 99999 and o["summary"]["requests"] == 1)
refuse("sim: closed loop of 10,000,001 requests", SIM + "--workload {d}/w.json", "w.json",
       "/arrival/requests", files={"w.json": j(dict(CLOSED, arrival=dict(CLOSED["arrival"], requests=10000001)))})
refuse("sim: closed arrival without its clients", SIM + "--workload {d}/w.json", "w.json",
       "/arrival", "concurrency", files={"w.json": j(dict(CLOSED, arrival="closed"))})
refuse("sim: closed loop with stages", SIM + "--workload {d}/w.json", "w.json", "/stages",
       files={"w.json": j(dict(CLOSED, stages=[{"rate": 1, "duration_s": 1}]))})
refuse("sim: range_ratio 1", SIM + "--workload {d}/w.json", "w.json", "/prompt_tokens/range_ratio",
       files={"w.json": j(dict(CLOSED, prompt_tokens={"dist": "uniform", "mean": 500,
                                                      "range_ratio": 1}))})
case("sim: closed loop never over its concurrency", SIM + "--workload {d}/w.json --requests-out "
     "{d}/r.jsonl --format json", "accept", files={"w.json": j(CLOSED)},
     check=lambda o: o["summary"]["requests"] == 40,
     after=lambda d: most_in_system(Path(d) / "r.jsonl") == 4)
case("out: simulate --requests-out onto the workload", SIM + "--workload {d}/w.json "
     "--requests-out {d}/w.json", "refuse", ("--requests-out", "w.json"), files={"w.json": j(CLOSED)},
     keep=("w.json",))


# ----------------------------------------------------------------------------- held-out set (stop 35)
# Fresh cases, written as a careless script or a new user would, none a copy of the cases above.
# Each expected outcome comes from what the engine or kvplan's docs say, not from kvplan's output:
# PyYAML skips a leading BOM and reads CRLF as a line end; Python's json (vLLM, transformers)
# refuses a BOM and trailing commas; argparse refuses a missing or unparsable value; vLLM's
# max_model_len is human_readable_int; SpeculativeConfig is a pydantic dataclass (unknown keys
# are errors); huggingface_hub reads refs/main as written. "either" marks an input whose right
# answer the engines do not fix: no crash and no hang is all that is asked.
HO = "held-out "
HO_SIM = SIM + "--workload {d}/w.csv "
CSV_HDR = "arrival_s,prompt_tokens,output_tokens\n"

# class 1: outputs against inputs and against each other
case(HO + "out: simulate --kv-series and --requests-out one file", HO_SIM + "--kv-series {d}/o.txt "
     "--requests-out {d}/o.txt", "refuse", ("--kv-series", "--requests-out"),
     files={"w.csv": ONE_TOKEN})
case(HO + "out: simulate --requests-out onto a symlink to its CSV trace", HO_SIM + "--requests-out "
     "{d}/r.jsonl", "refuse", ("same file as the input",), files={"w.csv": ONE_TOKEN},
     setup=symlink("r.jsonl", "w.csv"), keep=("w.csv",))
case(HO + "out: simulate --kv-series onto a hard link of its trace", HO_SIM + "--kv-series {d}/k.csv",
     "refuse", ("same file as the input",), files={"w.csv": ONE_TOKEN},
     setup=hardlink("k.csv", "w.csv"), keep=("w.csv",))
case(HO + "out: explain --calibrate onto its log through sub/..", EXPLAIN + " --calibrate "
     "{d}/sub/../vllm.log", "refuse", ("same file as the input",),
     files={"vllm.log": EAGLE_LOG, "sub/x": "x"}, keep=("vllm.log",))
case(HO + "out: trace synth -o into a missing folder", "trace synth --tokens 16 -o "
     "{d}/no/such/dir/t.safetensors", "refuse", ("no/such/dir",))
case(HO + "out: simulate --kv-series onto a folder with a trailing slash", HO_SIM +
     "--kv-series {d}/sub/", "refuse", ("not a regular file (a directory",),
     files={"w.csv": ONE_TOKEN, "sub/x": "x"})
case(HO + "out: trace capture -o onto a symlink chain to its tokenizer", "trace capture "
     "--checkpoint {d}/c.bin --tokenizer {d}/t.bin --steps 2 -o {d}/o2.safetensors", "refuse",
     ("same file as the input",), files={"c.bin": CK, "t.bin": TOK},
     setup=lambda d: (symlink("o1.safetensors", "t.bin")(d), symlink("o2.safetensors",
                                                                      "o1.safetensors")(d)),
     keep=("t.bin",))
case(HO + "out: explain --calibrate onto the GPU file through a hard link", "explain {d}/vllm.log "
     "--model llama-3.1-8b --draft-layers 1 --gpu {d}/g.json --calibrate {d}/cal.json", "refuse",
     ("same file as the input",), files={"vllm.log": EAGLE_LOG, "g.json": j(GPU)},
     setup=hardlink("cal.json", "g.json"), keep=("g.json",))

# class 2: option files (PyYAML safe_load) and command lines (argparse, click)
VC = lambda line: VCHECK + shlex.quote(line)  # noqa: E731 - one check --vllm line
TC = lambda line: TCHECK + shlex.quote(line)  # noqa: E731
refuse(HO + "yaml: vllm --config with a BOM is still read", VC(f"{V8} --config {{d}}/c.yaml"),
       "--tensor-parallel-size", "tensor-parallel-size", files={"c.yaml": b"\xef\xbb\xbftensor-parallel-size: 3\n"})
case(HO + "yaml: vllm --config with CRLF line ends", VC(f"{V8} --config {{d}}/c.yaml"), "accept",
     files={"c.yaml": b"block-size: 32\r\nenforce-eager: true\r\n"})
refuse(HO + "yaml: vllm --config empty", VC(f"{V8} --config {{d}}/c.yaml"), "c.yaml",
       files={"c.yaml": ""})
refuse(HO + "yaml: vllm --config only comments", VC(f"{V8} --config {{d}}/c.yaml"), "c.yaml",
       files={"c.yaml": "# tensor-parallel-size: 2\n\n# nothing else\n"})
refuse(HO + "yaml: vllm --config a list at the top", VC(f"{V8} --config {{d}}/c.yaml"), "c.yaml",
       files={"c.yaml": "- tensor-parallel-size: 1\n- block-size: 16\n"})
refuse(HO + "yaml: vllm --config tab indentation", VC(f"{V8} --config {{d}}/c.yaml"), "c.yaml",
       files={"c.yaml": "speculative-config:\n\tmethod: ngram\n"})
refuse(HO + "yaml: vllm --config underscore key read", VC(f"{V8} --config {{d}}/c.yaml"),
       "tensor-parallel-size", "tensor_parallel_size", files={"c.yaml": "tensor_parallel_size: 3\n"})
case(HO + "yaml: vllm --config trailing spaces after a value", VC(f"{V8} --config {{d}}/c.yaml"),
     "accept", files={"c.yaml": "block-size: 32   \nmax-model-len: 4096  \n"})
# PyYAML allows a trailing comma in a flow mapping: the fraction is read, and 2.0 is refused.
refuse(HO + "yaml: trtllm options flow mapping with a trailing comma", TC(f"{T8} "
       "--extra_llm_api_options {d}/o.yml"), "free_gpu_memory_fraction",
       files={"o.yml": "kv_cache_config: {free_gpu_memory_fraction: 2.0,}\n"})
refuse(HO + "yaml: trtllm options a bare scalar", TC(f"{T8} --extra_llm_api_options {{d}}/o.yml"),
       "o.yml", files={"o.yml": "0.9\n"})
refuse(HO + "yaml: vllm --config speculative-config unknown key", VC(f"{V8} --config {{d}}/c.yaml"),
       "speculative", files={"c.yaml": "speculative-config:\n  method: ngram\n  num_speculative_tokens: 2\n"
                             "  prompt_lookup_maxx: 4\n"})
refuse(HO + "argparse: vllm --max-model-len with a trailing comma", VC(f"{V8.replace(' --max-model-len 8192', '')} "
       "--max-model-len 8192,"), "--max-model-len")
refuse(HO + "argparse: vllm --max-model-len= empty", VC("vllm serve meta-llama/Llama-3.1-8B --max-model-len="),
       "--max-model-len")
refuse(HO + "argparse: vllm last -tp without a value", VC(f"{V8} -tp 2 -tp"), "-tp")
refuse(HO + "argparse: vllm --gpu-memory-utilization decimal comma", VC(f"{V8} --gpu-memory-utilization 0,9"),
       "--gpu-memory-utilization")
refuse(HO + "argparse: vllm --gpu-memory-utilization percent", VC(f"{V8} --gpu-memory-utilization 90%"),
       "--gpu-memory-utilization")
case(HO + "argparse: vllm --max-model-len 4k is 4000", VC("vllm serve meta-llama/Llama-3.1-8B "
     "--max-model-len 4k"), "accept")
refuse(HO + "argparse: vllm --max-model-len 1e4", VC("vllm serve meta-llama/Llama-3.1-8B --max-model-len 1e4"),
       "--max-model-len")
refuse(HO + "argparse: vllm --kv-cache-dtype fp9", VC(f"{V8} --kv-cache-dtype fp9"), "--kv-cache-dtype")
refuse(HO + "argparse: vllm --mamba-cache-dtype fp8", VC(f"{V8} --mamba-cache-dtype fp8"), "--mamba-cache-dtype")
refuse(HO + "argparse: vllm --mamba-ssm-cache-dtype without a value", VC(f"{V8} --mamba-ssm-cache-dtype"),
       "--mamba-ssm-cache-dtype")
# argparse refuses a value given to a switch ("ignored explicit argument"): not read as on.
refuse(HO + "argparse: vllm --async-scheduling=false", VC(f"{V8} --async-scheduling=false"), "--async-scheduling")
refuse(HO + "argparse: vllm --enforce-eager=0", VC(f"{V8} --enforce-eager=0"), "--enforce-eager")
case(HO + "argparse: vllm --no-async-scheduling", VC(f"{V8} --no-async-scheduling"), "accept")
refuse(HO + "argparse: sglang --tp 3 for 32 heads", "check --gpu h100-sxm-80gb --sglang "
       + shlex.quote(f"{SGL} --context-length 8192 --tp 3"), "--tp")
case(HO + "argparse: vllm line with a CR before the continuation", VCHECK +
     shlex.quote("vllm serve meta-llama/Llama-3.1-8B \\\r\n  --max-model-len 8192"), "either")
for label, spec in {"unknown key": '{"method": "ngram", "num_speculative_tokens": 2, "lookahead": 4}',
                    "typo key": '{"method": "ngram", "num_speculative_token": 2}',
                    "trailing comma": '{"method": "ngram", "num_speculative_tokens": 2,}',
                    "a word for an int": '{"method": "ngram", "prompt_lookup_max": "lots"}',
                    "zero tokens": '{"method": "ngram", "num_speculative_tokens": 0}'}.items():
    refuse(HO + f"spec-config: {label}", VC(f"{V8} --speculative-config '{spec}'"),
           "--speculative-config")
# pydantic's lax mode (SpeculativeConfig's default): a quoted whole number is that int.
case(HO + "spec-config: a quoted int, as pydantic's lax mode takes it",
     VC(f"{V8} --speculative-config " + "'{\"method\": \"ngram\", \"num_speculative_tokens\": \"2\"}'"),
     "accept")
refuse(HO + "spec-config: dotted unknown key", VC(f"{V8} --speculative-config.method ngram "
       "--speculative-config.num-speculative-tokens 2 --speculative-config.lookup_max 4"),
       "--speculative-config.lookup_max")
refuse(HO + "spec-config: dotted bool field garbage", VC(f"{V8} --speculative-config.method ngram "
       "--speculative-config.num_speculative_tokens 2 --speculative-config.enforce_eager sometimes"),
       "--speculative-config.enforce_eager")
# json.loads keeps the last of a repeated key: 2 tokens, valid.
case(HO + "spec-config: repeated key, last kept", VC(f"{V8} --speculative-config "
     "'{\"method\": \"ngram\", \"num_speculative_tokens\": 0, \"num_speculative_tokens\": 2, "
     "\"prompt_lookup_max\": 4}'"), "accept")

# class 3: engine logs as a careless copy leaves them
HO_EX = EXPLAIN.replace("{d}/vllm.log", "{d}/l.log") + " --format json"
case(HO + "log: CRLF line ends", HO_EX, "accept", files={"l.log": EAGLE_LOG.replace("\n", "\r\n")},
     check=lambda o: o["all_within"])
case(HO + "log: UTF-8 BOM", HO_EX, "accept", files={"l.log": b"\xef\xbb\xbf" + EAGLE_LOG.encode()},
     check=lambda o: o["all_within"])
refuse(HO + "log: empty file", HO_EX, "l.log", files={"l.log": ""})
refuse(HO + "log: UTF-16", HO_EX, "l.log", files={"l.log": EAGLE_LOG.encode("utf-16")})
# A negative figure is vLLM failing to start (docs/explain.md): diagnosed, exit 1.
case(HO + "log: negative KV memory", HO_EX.replace(" --format json", ""), "accept", exit=1,
     out=("nothing was left",), files={"l.log": "Available KV cache memory: -2.15 GiB\n"})
refuse(HO + "log: figure cut off mid-number", HO_EX, "l.log",
       files={"l.log": "Available KV cache memory: 51.\n"})
refuse(HO + "log: 40 MiB of noise and no figure", HO_EX, "l.log",
       files={"l.log": ("INFO nothing to see here " * 3 + "\n") * 540000})
refuse(HO + "log: past 64 MiB", HO_EX, "l.log", files={"l.log": "x" * (65 << 20)})
case(HO + "log: ANSI colours around the levels", HO_EX, "accept",
     files={"l.log": "".join(("\x1b[32mINFO\x1b[0m" + l[4:] if l.startswith("INFO") else l) + "\n"
                             for l in EAGLE_LOG.splitlines())},
     check=lambda o: o["all_within"])

# class 4: bounds (refused, or run in bounded memory; never bad_alloc)
HO_W = dict(SIM_W, prompt_tokens={"dist": "fixed", "mean": 128},
            output_tokens={"dist": "fixed", "mean": 8})
W = lambda **kw: j(dict(HO_W, **kw))  # noqa: E731
refuse(HO + "bounds: 10^14 requests from rate x duration", SIM + "--workload {d}/w.json", "w.json",
       files={"w.json": W(stages=[{"rate": 1000000, "duration_s": 100000000}])})
refuse(HO + "bounds: 1001 stages", SIM + "--workload {d}/w.json", "/stages",
       files={"w.json": W(stages=[{"rate": 1, "duration_s": 1}] * 1001)})
refuse(HO + "bounds: fixed prompt of 2^40 tokens", SIM + "--workload {d}/w.json", "/prompt_tokens",
       files={"w.json": W(prompt_tokens={"dist": "fixed", "value": 1 << 40})})
refuse(HO + "bounds: closed loop of 10^12 clients", SIM + "--workload {d}/w.json", "/arrival",
       files={"w.json": j(dict(CLOSED, arrival=dict(CLOSED["arrival"], concurrency=10 ** 12)))})
refuse(HO + "bounds: CSV prompt 2^32 + 1", HO_SIM, "line 2", "prompt_tokens",
       files={"w.csv": CSV_HDR + "0,4294967297,1\n"})
refuse(HO + "bounds: simulate --max-model-len 2^40", "simulate --model llama-3.1-8b --gpu "
       "h100-sxm-80gb --max-model-len 1099511627776 --workload {d}/w.csv", "--max-model-len",
       files={"w.csv": ONE_TOKEN})
case(HO + "bounds: size --context 2^32 --batch 2^32-1", "size --model llama-3.1-8b --context "
     "4294967296 --batch 4294967295", "either")
refuse(HO + "bounds: prefix groups 10^12", SIM + "--workload {d}/w.json", "/prefix",
       files={"w.json": W(prefix={"groups": 10 ** 12, "shared_tokens": 10, "prompt_pool": 10})})
case(HO + "bounds: CSV arrival 1e300 s", HO_SIM, "either", files={"w.csv": CSV_HDR + "1e300,100,1\n"})

# class 5: semantics the docs promise
refuse(HO + "sem: prompt min above max", SIM + "--workload {d}/w.json", "/prompt_tokens",
       files={"w.json": W(prompt_tokens={"dist": "uniform", "min": 200, "max": 100})})
refuse(HO + "sem: session turn before the previous turn", SIM + "--workload {d}/t.jsonl", "line 2",
       files={"t.jsonl": '{"arrival_s": 5, "prompt_tokens": 100, "output_tokens": 10, "session_id": 1}\n'
                         '{"arrival_s": 1, "prompt_tokens": 200, "output_tokens": 10, "session_id": 1}\n'})
refuse(HO + "sem: session turn shorter than the history", SIM + "--workload {d}/t.jsonl", "line 2",
       files={"t.jsonl": '{"arrival_s": 0, "prompt_tokens": 100, "output_tokens": 50, "session_id": 1}\n'
                         '{"arrival_s": 9, "prompt_tokens": 120, "output_tokens": 10, "session_id": 1}\n'})
# 17 and "17" are one session (docs/simulate.md): the second turn is valid (100 + 10 <= 150).
case(HO + "sem: session ids 17 and \"17\" are one session", SIM + "--workload {d}/t.jsonl "
     "--format json", "accept", files={"t.jsonl": '{"arrival_s": 0, "prompt_tokens": 100, '
     '"output_tokens": 10, "session_id": 17}\n{"arrival_s": 9, "prompt_tokens": 150, '
     '"output_tokens": 10, "session_id": "17"}\n'}, check=lambda o: o["summary"]["requests"] == 2)
case(HO + "sem: CSV arrivals out of order", HO_SIM, "either",
     files={"w.csv": CSV_HDR + "5,100,1\n1,100,1\n"})

# class 6: HF hub caches and model directories
case(HO + "hub: HF_HUB_CACHE is missing", HUBSIZE, "refuse", ("acme/tiny",),
     env={"HF_HUB_CACHE": "{d}/nohub"})
case(HO + "hub: refs/main empty", HUBSIZE, "refuse", ("refs/main",), env=HUB,
     files={"hub/models--acme--tiny/refs/main": "", SNAP + "config.json": j(LLAMA)})
case(HO + "hub: refs/main with a trailing newline", HUBSIZE, "either", env=HUB,
     files={"hub/models--acme--tiny/refs/main": "abc123\n", SNAP + "config.json": j(LLAMA)})
case(HO + "hub: HF_HOME/hub used without HF_HUB_CACHE", HUBSIZE + " --format json", "accept",
     env={"HF_HOME": "{d}/home", "HF_HUB_CACHE": ""},
     files={"home/hub/models--acme--tiny/refs/main": "abc123",
            "home/hub/models--acme--tiny/snapshots/abc123/config.json": j(LLAMA)},
     check=lambda o: o["total_bytes"] == 134217728)
MD = "size --model {d}/hf --context 1024"
refuse(HO + "dir: config.json with a BOM", MD, "config.json",
       files={"hf/config.json": b"\xef\xbb\xbf" + j(LLAMA).encode()})
case(HO + "dir: config.json with CRLF", MD + " --format json", "accept",
     files={"hf/config.json": j(LLAMA).replace("\n", "\r\n")},
     check=lambda o: o["total_bytes"] == 134217728)
refuse(HO + "dir: config.json is a folder", MD, "config.json", files={"hf/config.json/x": "x"})
refuse(HO + "dir: config.json empty", MD, "config.json", files={"hf/config.json": ""})
refuse(HO + "dir: config.json trailing comma", MD, "config.json",
       files={"hf/config.json": j(LLAMA)[:-1].rstrip() + ",\n}"})
case(HO + "dir: --model with a trailing slash", MD.replace("{d}/hf", "{d}/hf/") + " --format json",
     "accept", files={"hf/config.json": j(LLAMA)}, check=lambda o: o["total_bytes"] == 134217728)
case(HO + "dir: --model a symlink to the folder", MD.replace("{d}/hf", "{d}/ln") + " --format json",
     "accept", files={"hf/config.json": j(LLAMA)}, setup=symlink("ln", "hf"),
     check=lambda o: o["total_bytes"] == 134217728)
refuse(HO + "dir: index names a shard that is a folder", MD, "shard.safetensors",
       files={"hf/config.json": j(LLAMA), "hf/shard.safetensors/x": "x",
              "hf/model.safetensors.index.json": j({"metadata": {"total_size": 16},
                                                    "weight_map": {"a": "shard.safetensors"}})})

# class 7: everyday inputs
case(HO + "every: workload JSON with a BOM", SIM + "--workload {d}/w.json", "either",
     files={"w.json": b"\xef\xbb\xbf" + W().encode()})
case(HO + "every: workload JSON with CRLF", SIM + "--workload {d}/w.json --format json", "accept",
     files={"w.json": W().replace("\n", "\r\n")}, check=lambda o: o["summary"]["requests"] > 0)
refuse(HO + "every: workload JSON trailing comma", SIM + "--workload {d}/w.json", "w.json",
       files={"w.json": W()[:-1].rstrip() + ",\n}"})
refuse(HO + "every: workload JSON empty", SIM + "--workload {d}/w.json", "w.json", files={"w.json": ""})
refuse(HO + "every: workload JSON whitespace only", SIM + "--workload {d}/w.json", "w.json",
       files={"w.json": "  \n\t\n"})
case(HO + "every: CSV with CRLF", HO_SIM + "--format json", "accept",
     files={"w.csv": ONE_TOKEN.replace("\n", "\r\n")}, check=lambda o: o["summary"]["requests"] == 2)
case(HO + "every: CSV with blank lines at the end", HO_SIM + "--format json", "accept",
     files={"w.csv": ONE_TOKEN + "\n\n"}, check=lambda o: o["summary"]["requests"] == 2)
refuse(HO + "every: CSV header only", HO_SIM, "w.csv", files={"w.csv": CSV_HDR})
refuse(HO + "every: CSV header repeated mid-file", HO_SIM, "line 3",
       files={"w.csv": CSV_HDR + "0,100,1\n" + CSV_HDR + "1,100,1\n"})
case(HO + "every: CSV columns in another order", HO_SIM + "--format json", "accept",
     files={"w.csv": "prompt_tokens,output_tokens,arrival_s\n100,1,0\n100,1,1\n"},
     check=lambda o: o["summary"]["requests"] == 2)
refuse(HO + "every: CSV header column repeated", HO_SIM, "w.csv",
       files={"w.csv": "arrival_s,prompt_tokens,output_tokens,prompt_tokens\n0,100,1,200\n"})
case(HO + "every: JSONL with CRLF", SIM + "--workload {d}/t.jsonl --format json", "accept",
     files={"t.jsonl": '{"arrival_s": 0, "prompt_tokens": 100, "output_tokens": 1}\r\n'
                       '{"arrival_s": 1, "prompt_tokens": 100, "output_tokens": 1}\r\n'},
     check=lambda o: o["summary"]["requests"] == 2)
refuse(HO + "every: kvplan model JSON key repeated", "size --model {d}/m.json --context 1024",
       "num_layers", files={"m.json": j(KVMODEL)[:-1] + ', "num_layers": 8}'})
case(HO + "every: GPU JSON with CRLF", "plan --model llama-3.1-8b --gpu {d}/g.json --brief", "accept",
     files={"g.json": j(GPU).replace("\n", "\r\n")})
case(HO + "every: --gpu listed twice in plan", "plan --model llama-3.1-8b --gpu "
     "h100-sxm-80gb,h100-sxm-80gb --context 8192 --format json", "either")

# ----------------------------------------------------------------------------- disaggregated (stop 36)
# Disaggregated prefill/decode (docs/disagg.md, docs/deploy.md): flags, deployment files, plan.
# Expected outcomes from the docs: replicas 1 to 1,024 a side, a link preset or GB/s in (0, 1e6],
# latency and overhead 0 to 10,000 ms, hardware.gpus equal to both sides' GPUs. Since 2026-12-06
# all three engines' orders are modelled, and each side may take its own settings.
DG = "disaggregated "
DG_SIM = SIM + "--workload {d}/w.csv --prefill-replicas 1 "
DG_FILE = mutate(mutate(DEPLOY, ["hardware", "gpus"], 2), ["disaggregated"],
                 {"prefill": {"replicas": 1}, "decode": {"replicas": 1}, "kv_link": "ndr400"})
case(DG + "simulate 1P1D accepted", DG_SIM + "--kv-link ndr400", "accept", files={"w.csv": ONE_TOKEN})
case(DG + "simulate link 0 GB/s", DG_SIM + "--kv-link 0", "refuse", ("--kv-link",),
     files={"w.csv": ONE_TOKEN})
case(DG + "simulate link -5", DG_SIM + "--kv-link -5", "refuse", ("--kv-link",),
     files={"w.csv": ONE_TOKEN})
case(DG + "simulate link 1e999", DG_SIM + "--kv-link 1e999", "refuse", ("--kv-link",),
     files={"w.csv": ONE_TOKEN})
case(DG + "simulate latency inf", DG_SIM + "--kv-link ndr400 --kv-link-latency-ms inf", "refuse",
     ("kv_link_latency_ms",), files={"w.csv": ONE_TOKEN})
case(DG + "simulate overhead -1", DG_SIM + "--kv-link ndr400 --kv-transfer-overhead-ms -1",
     "refuse", ("kv_transfer_overhead_ms",), files={"w.csv": ONE_TOKEN})
case(DG + "simulate 1025 decode replicas", DG_SIM + "--kv-link ndr400 --decode-replicas 1025",
     "refuse", ("decode_replicas",), files={"w.csv": ONE_TOKEN})
case(DG + "simulate decode TP 0", DG_SIM + "--kv-link ndr400 --decode-tp 0", "refuse",
     ("--decode-tp",), files={"w.csv": ONE_TOKEN})
case(DG + "simulate nvlink past the node", DG_SIM + "--prefill-tp 8", "refuse", ("kv_link",),
     files={"w.csv": ONE_TOKEN})
case(DG + "simulate routing empty", DG_SIM + "--kv-link ndr400 --routing ''", "refuse",
     ("--routing",), files={"w.csv": ONE_TOKEN})
case(DG + "simulate trtllm", DG_SIM + "--kv-link ndr400 --engine trtllm", "accept",
     files={"w.csv": ONE_TOKEN})
case(DG + "simulate sglang", DG_SIM + "--kv-link ndr400 --engine sglang", "accept",
     files={"w.csv": ONE_TOKEN})
# Each side's own settings: checked as the shared flag is, and named by the side's flag.
for flag, v in [("--prefill-max-num-seqs", "0"), ("--decode-max-num-seqs", "-1"),
                ("--prefill-max-num-batched-tokens", "0"), ("--decode-gpu-memory-utilization", "1.5"),
                ("--prefill-gpu-memory-utilization", "nan"), ("--decode-engine-option", "bogus=1"),
                ("--prefill-engine-option", "data_parallel_size=x")]:
    case(f"{DG}simulate {flag}={v}", DG_SIM + f"--kv-link ndr400 {flag} {v}", "refuse", (flag,),
         files={"w.csv": ONE_TOKEN})
case(DG + "simulate side flag without a layout", SIM + "--workload {d}/w.csv --decode-max-num-seqs 4",
     "refuse", ("--decode-max-num-seqs",), files={"w.csv": ONE_TOKEN})
# Decode pools no request fits (review of 2026-12-06: these stopped the scheduler, exit 3): the
# request is refused on arrival, exit 0 with nothing served.
for engine in ("sglang", "trtllm", "vllm"):
    case(f"{DG}simulate {engine} decode pool too small", SIM.replace("4096", "600") +
         "--workload {d}/w.csv --prefill-replicas 1 --kv-link ndr400 --engine " + engine +
         " --decode-gpu-memory-utilization 0.192", "either",
         files={"w.csv": "arrival_s,prompt_tokens,output_tokens\n0,500,10\n"})
case(DG + "check file accepted", "check {d}/d.json", "accept", files={"d.json": j(DG_FILE)})
for path, v, name in [
        (["disaggregated", "prefill", "replicas"], 0, "/disaggregated/prefill/replicas"),
        (["disaggregated", "prefill", "replicas"], "2", "/disaggregated/prefill/replicas"),
        (["disaggregated", "decode", "replicas"], 1.5, "/disaggregated/decode/replicas"),
        (["disaggregated", "decode"], DELETE, "/disaggregated/decode"),
        (["disaggregated", "kv_link_latency_ms"], -1, "/disaggregated/kv_link_latency_ms"),
        (["disaggregated", "colour"], "red", "/disaggregated/colour"),
        (["hardware", "gpus"], 3, "/hardware/gpus"),
        (["disaggregated", "kv_link"], "infiniband", "/disaggregated/kv_link"),
        (["disaggregated", "routing"], "random", "/disaggregated/routing")]:
    refuse(f"{DG}check {'/'.join(path)}={v if v is not DELETE else 'missing'!r}", "check {d}/d.json",
           name, files={"d.json": j(mutate(DG_FILE, path, v))})
# TP 3 does not divide the heads (the GPUs add up: 1 + 3 = 4); SGLang is not modelled (its own
# memory key, so the engine key is not what fails); NVLink on a GPU given by its memory alone.
refuse(DG + "check decode TP 3", "check {d}/d.json", "/disaggregated/decode/tensor_parallel_size",
       files={"d.json": j(mutate(mutate(DG_FILE, ["hardware", "gpus"], 4),
                                 ["disaggregated", "decode", "tensor_parallel_size"], 3))})
SGL_FILE = mutate(mutate(DG_FILE, ["engine", "name"], "sglang"), ["engine", "gpu_memory_utilization"],
                  DELETE)
case(DG + "check sglang", "check {d}/d.json", "accept", files={"d.json": j(SGL_FILE)})
for path, v, name in [
        (["disaggregated", "prefill", "max_num_seqs"], 0, "/disaggregated/prefill/max_num_seqs"),
        (["disaggregated", "decode", "max_num_batched_tokens"], -4,
         "/disaggregated/decode/max_num_batched_tokens"),
        (["disaggregated", "prefill", "gpu_memory_utilization"], 2,
         "/disaggregated/prefill/gpu_memory_utilization"),
        (["disaggregated", "prefill", "engine"], 3, "/disaggregated/prefill/engine"),
        (["disaggregated", "decode", "engine"], {"bogus": 1}, "/disaggregated/decode/engine/bogus"),
        (["disaggregated", "prefill", "engine"], {"data_parallel_size": "x"},
         "/disaggregated/prefill/engine/data_parallel_size")]:
    refuse(f"{DG}check {'/'.join(path)}={v!r}", "check {d}/d.json", name,
           files={"d.json": j(mutate(DG_FILE, path, v))})
NVL_FILE = mutate(mutate(mutate(DG_FILE, ["hardware", "gpu"], DELETE), ["hardware", "gpu_memory_gib"],
                         80), ["disaggregated", "kv_link"], "nvlink")
refuse(DG + "check nvlink on a memory-only GPU", "check {d}/d.json", "/disaggregated/kv_link",
       files={"d.json": j(NVL_FILE)})
case(DG + "plan link without --disaggregated", PLAN_SLO + "--gpu h100-sxm-80gb --workload "
     "{d}/w.csv --slo ttft_p99_ms=1000 --kv-link ndr400", "refuse", ("--kv-link",),
     files={"w.csv": ONE_TOKEN})
case(DG + "plan --disaggregated without a workload", PLAN + " --disaggregated", "refuse",
     ("--disaggregated",))

# ----------------------------------------------------------------------------- runner
def classify(c, rc, out, err, timed_out):
    if timed_out:
        return "hang"
    if rc >= 128 or rc < 0 or rc == 3 or "internal error" in err or "Sanitizer" in err \
            or "runtime error:" in err:
        return "crash"
    if c["expect"] in ("refuse", "either") and rc == 2:
        return "clean" if any(n in err for n in c["names"]) or not c["names"] else "vague"
    if c["expect"] == "refuse":
        return "silently wrong"
    if c["expect"] == "either":
        return "clean" if rc == 0 else "silently wrong"
    # accept
    if rc == 2:
        return "wrong refusal"
    if rc != c["exit"]:
        return "silently wrong"
    if any(s not in out for s in c["out"]):
        return "silently wrong"
    if c["check"]:
        try:
            ok = c["check"](json.loads(out))
        except Exception:  # noqa: BLE001 - a bad JSON answer is a wrong answer
            ok = False
        if not ok:
            return "silently wrong"
    return "clean"


def run_case(c, kvplan, timeout):
    with tempfile.TemporaryDirectory(prefix="kvplan-adv-") as d:
        for rel, content in c["files"].items():
            make_bad.write(d, rel, content)
        if c["setup"]:
            c["setup"](d)
        kept = {rel: (Path(d) / rel).read_bytes() for rel in c["keep"]}
        if "huge line" in c["name"]:
            (Path(d) / "x").write_text("vllm serve m " + "a" * (2 << 20))
        args = c["args"].replace("{d}", d).replace("{m}", str(MODEL_DIR))
        argv = [kvplan] + shlex.split(args)
        if "huge line" in c["name"]:
            argv = [kvplan, "check", "--vllm", (Path(d) / "x").read_text(), "--gpu", "h100-sxm-80gb"]
        try:
            env = dict(os.environ, **{k: v.replace("{d}", d) for k, v in c["env"].items()})
            p = subprocess.run(argv, capture_output=True, timeout=timeout, env=env,
                               **({"input": c["stdin"]} if c["stdin"] is not None
                                  else {"stdin": subprocess.DEVNULL}))
            rc, out, err, to = p.returncode, p.stdout.decode(errors="replace"), \
                p.stderr.decode(errors="replace"), False
        except subprocess.TimeoutExpired:
            rc, out, err, to = -1, "", "", True
        except OSError as e:  # argument list too long, etc.
            rc, out, err, to = 2, "", f"OSError {e} --vllm", False
        if rc < 0 and not to:
            rc = 128 - rc
        last = err.strip().splitlines()[-1:] if err else []
        cls = classify(c, rc, out, err, to)
        for rel, before in kept.items():
            p = Path(d) / rel
            if not p.is_file() or p.read_bytes() != before:
                return "silently wrong", rc, [f"the input {rel} was changed"]
        if c["after"] and not c["after"](d):
            return "silently wrong", rc, ["the state after the run is wrong"]
        return cls, rc, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kvplan", default=str(ROOT / "build" / "default" / "cli" / "kvplan"))
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-k", help="only cases whose name contains this")
    ap.add_argument("-v", action="store_true", help="print every case")
    a = ap.parse_args()
    cases = [c for c in CASES if not a.k or a.k in c["name"]]
    have_model = (MODEL_DIR / "stories260K.bin").exists()
    skipped = [c for c in cases if c["needs_model"] and not have_model]
    cases = [c for c in cases if c not in skipped]
    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda c: run_case(c, a.kvplan, a.timeout), cases))
    counts = {}
    for c, (cls, rc, last) in zip(cases, results):
        counts[cls] = counts.get(cls, 0) + 1
        if a.v or cls != "clean":
            print(f"{cls:15} rc={rc:<3} {c['name']}: {last[0] if last else ''}")
    print(f"\n{len(cases)} cases ({len(skipped)} skipped: no stories260K at {MODEL_DIR})")
    for cls in ["clean", "vague", "silently wrong", "wrong refusal", "crash", "hang"]:
        print(f"  {cls:15} {counts.get(cls, 0)}")
    bad = sum(counts.get(k, 0) for k in ["silently wrong", "wrong refusal", "crash", "hang"])
    return 0 if bad == 0 and counts.get("vague", 0) <= 5 else 1


if __name__ == "__main__":
    sys.exit(main())
