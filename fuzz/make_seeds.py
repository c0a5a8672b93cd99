#!/usr/bin/env python3
"""Writes the seed corpora of fuzz/corpus/<target>/ from the repository's test data and small
hand-made files (python3 only, no packages). Run from anywhere: python3 fuzz/make_seeds.py"""
import json
import os
import shutil
import struct
from pathlib import Path

root = Path(__file__).resolve().parent.parent
out = root / "fuzz" / "corpus"


def put(target, name, data):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def copy_dir(target, src, pattern="*.json"):
    for p in sorted((root / src).glob(pattern)):
        put(target, p.name, p.read_bytes())


# --- spec strings
for i, s in enumerate(["fp32", "fp16", "bf16", "fp8", "fp8_e4m3", "fp8_e5m2", "int8",
                       "kivi:bits=2,group=32,residual=128", "kivi:bits=4,group=64,residual=128",
                       "kivi:bits=8", "kivi:residual=64,group=16"]):
    put("kv_format", f"seed{i:02d}", s)
for i, s in enumerate(["full", "streaming:sink=4,window=1020", "streaming:sink=0,window=1",
                       "h2o:heavy=64,recent=64", "h2o:keep=0.2,recent=0.1,gqa=mean",
                       "h2o:heavy=1,recent=0.000001,positions=cache",
                       "snapkv:budget=1024,window=32,kernel=7,pool=max",
                       "snapkv:budget=0.5,positions=cache,gqa=max,pool=avg"]):
    put("policy", f"seed{i:02d}", s)

# --- JSON files
copy_dir("model_json", "models/models")
copy_dir("model_json", "tests/data/hf")
copy_dir("hf_config", "tests/data/hf")
copy_dir("gpu_json", "models/gpus")


# --- safetensors traces
def safetensors(tensors, metadata):
    """tensors: list of (name, dtype, shape, raw bytes)"""
    h = {"__metadata__": metadata} if metadata is not None else {}
    at = 0
    for name, dtype, shape, raw in tensors:
        h[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + len(raw)]}
        at += len(raw)
    hdr = json.dumps(h, separators=(",", ":")).encode()
    hdr += b" " * ((8 - len(hdr) % 8) % 8)
    return struct.pack("<Q", len(hdr)) + hdr + b"".join(t[3] for t in tensors)


def f32(vals):
    return struct.pack(f"<{len(vals)}f", *vals)


def f16(vals):
    return struct.pack(f"<{len(vals)}e", *vals)


def bf16(vals):
    return b"".join(struct.pack("<f", v)[2:] for v in vals)


def trace(dtype, layers=2, T=3, hq=2, hkv=1, d=4, tokens=True, style="interleaved"):
    enc, name = {"F32": (f32, "F32"), "F16": (f16, "F16"), "BF16": (bf16, "BF16")}[dtype]
    ts = []
    for l in range(layers):
        for which, h in (("q", hq), ("k", hkv), ("v", hkv)):
            n = T * h * d
            ts.append((f"layers.{l}.{which}", name, [T, h, d],
                       enc([((i * 7 + l) % 11 - 5) / 4 for i in range(n)])))
    if tokens:
        ts.append(("tokens", "I32", [T], struct.pack(f"<{T}i", *range(1, T + 1))))
    md = {"format": "kvplan-trace", "version": "1", "model": "seed", "rope_theta": "10000",
          "rope_dims": str(d), "rope_style": style}
    return safetensors(ts, md)


put("trace", "f16.safetensors", trace("F16"))
put("trace", "f32_half.safetensors", trace("F32", layers=1, T=2, hq=4, hkv=2, style="half"))
put("trace", "bf16_notokens.safetensors", trace("BF16", tokens=False))
put("safetensors", "trace_f16.safetensors", trace("F16"))
put("safetensors", "mixed.safetensors",
    safetensors([("a", "F32", [2, 2], f32([1, 2, 3, 4])), ("b", "I32", [3], struct.pack("<3i", 1, 2, 3)),
                 ("s", "BF16", [], bf16([1.5])), ("e", "F16", [0, 4], b"")], {"k": "v"}))
put("safetensors", "empty.safetensors", safetensors([], None))


# --- llama2.c checkpoints and tokenizers
def checkpoint(dim=8, hidden=12, layers=1, heads=2, kv=1, vocab=6, seq=4):
    hs = dim // heads
    V = abs(vocab)
    n = (V * dim + layers * dim + layers * heads * hs * dim + 2 * layers * kv * hs * dim +
         layers * dim * heads * hs + layers * dim + 3 * layers * hidden * dim + dim + seq * hs)
    if vocab < 0:
        n += V * dim
    w = [((i * 13) % 17 - 8) / 32 for i in range(n)]
    return struct.pack("<7i", dim, hidden, layers, heads, kv, vocab, seq) + f32(w)


put("llama2c", "shared.bin", checkpoint())
put("llama2c", "unshared.bin", checkpoint(vocab=-5, layers=2, heads=4, kv=2, seq=2))


def tokenizer(pieces, max_len=None):
    max_len = max_len or max(1, max(len(p) for p in pieces))
    b = struct.pack("<i", max_len)
    for i, p in enumerate(pieces):
        b += struct.pack("<fi", -float(i), len(p)) + p
    return b


small = [b"<unk>", b"\n<s>\n", b"\n</s>\n"] + [b"<0x%02X>" % i for i in range(256)] + \
        [b" ", b"a", b"b", b" a", b"ab", b" ab", b"Once", b" upon"]
put("tokenizer", "small.bin", struct.pack("<I", len(small)) + tokenizer(small))
tiny = [b"<unk>", b"\n<s>\n", b"\n</s>\n", b" "]
put("tokenizer", "tiny.bin", struct.pack("<I", len(tiny)) + tokenizer(tiny))
tok512 = root.parent / "shared" / "models" / "stories260K" / "tok512.bin"
if tok512.exists():
    put("tokenizer", "tok512.bin", struct.pack("<I", 512) + tok512.read_bytes())


# --- deployment files and engine command lines
copy_dir("deploy", "tests/data/deploy")
for i, line in enumerate([
        "vllm serve meta-llama/Llama-3.1-8B --max-model-len 32768 --kv-cache-dtype fp8 --max-num-seqs 64",
        "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 4 --gpu-memory-utilization 0.95 "
        "--block-size 32 --max-num-batched-tokens 16384 --dtype bfloat16 --enforce-eager",
        "python -m vllm.entrypoints.openai.api_server --model mistralai/Mistral-7B-v0.1 -tp 2 --pp 1 "
        "--max-model-len=8192 --quantization awq --unknown-flag x",
        "vllm serve 'Qwen/Qwen2.5-7B-Instruct' --max-num-seqs \"256\" --kv-cache-dtype auto"]):
    put("engine_args", f"vllm{i}", "\x00" + line)
for i, line in enumerate([
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 32768 "
        "--mem-fraction-static 0.85 --max-running-requests 32 --kv-cache-dtype fp8_e5m2",
        "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp 8 --page-size 16 "
        "--chunked-prefill-size 4096 --dp 2"]):
    put("engine_args", f"sglang{i}", "\x01" + line)

# --- vLLM --speculative-config (JSON and dotted) and SGLang's speculative flags
for i, line in enumerate([
        "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --speculative-config "
        "'{\"method\": \"deepseek_mtp\", \"num_speculative_tokens\": 1}'",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{\"method\": \"eagle\", "
        "\"model\": \"yuhuili/EAGLE-LLaMA3.1-Instruct-8B\", \"num_speculative_tokens\": 5}'",
        "vllm serve meta-llama/Llama-3.1-8B --speculative-config={\"method\":\"ngram\","
        "\"num_speculative_tokens\":4,\"prompt_lookup_max\":4}",
        "vllm serve deepseek-ai/DeepSeek-V3 --speculative-config.method mtp "
        "--speculative-config.num_speculative_tokens 2",
        "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-config "
        "'{\"method\": \"qwen3_next_mtp\", \"num_speculative_tokens\": 2}' --max-model-len 65536",
        "vllm serve m --speculative-config '{not json'"]):
    put("engine_args", f"spec_vllm{i}", "\x00" + line)
for i, line in enumerate([
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 "
        "--speculative-algorithm NEXTN --speculative-num-steps 3",
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
        "--speculative-algorithm EAGLE --speculative-draft-model-path jamesliu1/sglang-EAGLE-Llama-3.1-8B"]):
    put("engine_args", f"spec_sglang{i}", "\x01" + line)

# --- engine option files (YAML): 0x00 + a vLLM --config file, 0x01 + a trtllm-serve
# --extra_llm_api_options file; real files, then alias bombs, self-referential aliases, merges and
# repeated keys (issue 30)
for p in sorted((root / "tests/data/engine_configs").glob("*.y*ml")):
    put("engine_yaml", p.name, (b"\x01" if p.name.startswith("trtllm") else b"\x00") + p.read_bytes())
laughs = "a0: &a0 {x: lol}\n" + "".join(
    f"a{l}: &a{l} {{" + ", ".join(f"k{k}: *a{l - 1}" for k in range(9)) + "}\n" for l in range(1, 10))
for tag, engine in (("vllm", b"\x00"), ("trtllm", b"\x01")):
    put("engine_yaml", f"bomb_map_{tag}", engine + laughs.encode())
    put("engine_yaml", f"bomb_list_{tag}", engine + ("a0: &a0 [lol, lol]\n" + "".join(
        f"a{l}: &a{l} [" + ", ".join([f"*a{l - 1}"] * 9) + "]\n" for l in range(1, 10))).encode())
    put("engine_yaml", f"self_map_{tag}", engine + b"&a {x: *a}\n")
    put("engine_yaml", f"self_merge_{tag}", engine + b"&a {<<: *a, y: 1}\n")
    put("engine_yaml", f"self_nested_{tag}", engine + b"kv_cache_config: &a {x: {y: *a}}\n")
put("engine_yaml", "merge_vllm", b"\x00base: &b\n  tensor-parallel-size: 2\n  max-num-seqs: 64\n"
    b"<<: *b\nmax-num-seqs: 32\nenforce-eager: true\nenforce-eager: false\n")
put("engine_yaml", "merge_trtllm", b"\x01a: &a {tokens_per_block: 16}\n"
    b"b: &b {tokens_per_block: 64, max_tokens: 1000}\nkv_cache_config:\n  <<: [*a, *b]\n"
    b"  free_gpu_memory_fraction: 0.5\nkv_cache_config:\n  <<: *b\n")

# --- model directories (load_model(dir)): config.json [NUL hf_quant_config.json]
for p in sorted((root / "tests/data/hf").glob("*.json")):
    q = root / "tests/data/hf/hf_quant_config" / p.name
    put("model_dir", p.name, p.read_bytes() + (b"\x00" + q.read_bytes() if q.exists() else b""))

# --- checkpoint headers (checkpoint_weights(dir)): 0x00 + model.safetensors, or
# 0x01 + model.safetensors.index.json NUL + the bytes of every shard the index names
def shard(names, each=8):
    return safetensors([(n, "BF16", [each // 2], bytes(each)) for n in names], {"format": "pt"})


put("checkpoint", "single.safetensors", b"\x00" + shard(
    ["model.embed_tokens.weight", "model.layers.0.mlp.experts.0.up_proj.weight",
     "model.vision_tower.patch_embed.weight", "lm_head.weight"]))
put("checkpoint", "empty.safetensors", b"\x00" + safetensors([], None))
index = {"metadata": {"total_size": 16},
         "weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors",
                        "model.layers.0.mlp.experts.3.down_proj.weight":
                            "model-00002-of-00002.safetensors"}}
put("checkpoint", "index_shards", b"\x01" + json.dumps(index).encode() + b"\x00" +
    shard(["model.embed_tokens.weight", "model.layers.0.mlp.experts.3.down_proj.weight"]))
put("checkpoint", "index_total_only", b"\x01" + json.dumps(
    {"metadata": {"total_size": 123456789012}, "weight_map": {"a": "model-00001-of-00009.safetensors"}}).encode())
put("checkpoint", "index_bad_name", b"\x01" + json.dumps(
    {"weight_map": {"a": "../model.safetensors"}}).encode() + b"\x00" + shard(["a"]))
