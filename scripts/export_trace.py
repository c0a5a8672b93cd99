#!/usr/bin/env python3
"""Capture a kvplan attention trace from any Hugging Face transformers causal LM.

A trace (docs/traces.md) is one .safetensors file holding, per layer, the queries and keys
*before RoPE* and the values of every token:

    layers.{l}.q  [T, H_q, d]     layers.{l}.k / .v  [T, H_kv, d]     tokens  [T] int32
    __metadata__: format=kvplan-trace, version=1, model, rope_theta, rope_dims, rope_style=half

How it works: forward hooks on each attention module's q_proj / k_proj / v_proj linear layers
record their outputs (which are pre-RoPE in Llama, Mistral, Qwen2, Gemma and most HF decoders),
reshaped to [T, heads, head_dim]. Hugging Face rotates pairs (i, i + d/2), so rope_style is
`half`. One forward pass over the prompt captures everything (causal attention: token t's q, k, v
do not depend on later tokens).

Usage (needs torch, transformers, safetensors; kvplan itself does not):
    pip install torch transformers safetensors
    python scripts/export_trace.py --model meta-llama/Llama-3.2-1B --text "Once upon a time" \
        --max-tokens 2048 --dtype f16 -o llama1b.safetensors
    python scripts/export_trace.py --model gpt2-like-llama --text-file story.txt -o t.safetensors
    kvplan trace info llama1b.safetensors
    kvplan replay --trace llama1b.safetensors --kv-dtype fp16 kivi:bits=2,group=32,residual=128 \
        --policy full streaming:sink=4,window=1020 h2o:heavy=512,recent=512

Models whose attention does not use q_proj/k_proj/v_proj (fused qkv, e.g. Phi-3's qkv_proj or
GPT-NeoX's query_key_value) are handled by --fused NAME, which splits the fused output into q, k,
v by the head counts. Models with partial rotary embeddings set rope_dims from the config's
partial_rotary_factor.
"""
import argparse
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="HF model id or local folder")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="prompt text")
    src.add_argument("--text-file", help="file with the prompt text")
    src.add_argument("--tokens-file", help="whitespace-separated token ids")
    ap.add_argument("--max-tokens", type=int, default=4096)
    ap.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f16", help="trace dtype")
    ap.add_argument("--device", default="cuda" if _has_cuda() else "cpu")
    ap.add_argument("--fused", default=None, help="name of a fused qkv linear (e.g. qkv_proj)")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()

    import torch
    from safetensors.torch import save_file
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    cfg = AutoConfig.from_pretrained(args.model)
    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.float32)
    model.to(args.device).eval()

    if args.tokens_file:
        ids = [int(x) for x in open(args.tokens_file).read().split()]
    else:
        text = args.text if args.text is not None else open(args.text_file).read()
        ids = tok(text, return_tensors="pt").input_ids[0].tolist()
    ids = ids[: args.max_tokens]
    T = len(ids)

    n_q = cfg.num_attention_heads
    n_kv = getattr(cfg, "num_key_value_heads", None) or n_q
    d = getattr(cfg, "head_dim", None) or cfg.hidden_size // n_q
    rope_theta = getattr(cfg, "rope_theta", 10000.0)
    rope_dims = int(d * getattr(cfg, "partial_rotary_factor", 1.0))

    captured = {}  # (layer, "q"|"k"|"v") -> tensor [T, heads, d]
    hooks = []
    layer_index = {}
    for name, module in model.named_modules():
        # Decoder layers are numbered: "...layers.{l}.self_attn.q_proj"
        parts = name.split(".")
        if "layers" not in parts:
            continue
        i = parts.index("layers")
        if i + 1 >= len(parts) or not parts[i + 1].isdigit():
            continue
        l = int(parts[i + 1])
        leaf = parts[-1]

        def save(kind, heads, l=l):
            def hook(_mod, _inp, out):
                captured[(l, kind)] = out[0].detach().float().reshape(T, heads, d).cpu()
            return hook

        if leaf == "q_proj":
            hooks.append(module.register_forward_hook(save("q", n_q)))
        elif leaf == "k_proj":
            hooks.append(module.register_forward_hook(save("k", n_kv)))
        elif leaf == "v_proj":
            hooks.append(module.register_forward_hook(save("v", n_kv)))
        elif args.fused and leaf == args.fused:
            def fused_hook(_mod, _inp, out, l=l):
                x = out[0].detach().float().cpu()
                q, k, v = x.split([n_q * d, n_kv * d, n_kv * d], dim=-1)
                captured[(l, "q")] = q.reshape(T, n_q, d)
                captured[(l, "k")] = k.reshape(T, n_kv, d)
                captured[(l, "v")] = v.reshape(T, n_kv, d)
            hooks.append(module.register_forward_hook(fused_hook))
        layer_index[l] = True

    with torch.no_grad():
        model(torch.tensor([ids], device=args.device))
    for h in hooks:
        h.remove()

    layers = sorted({l for (l, _k) in captured})
    if not layers:
        print("export_trace: no q_proj/k_proj/v_proj outputs captured; try --fused NAME", file=sys.stderr)
        return 2
    dt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[args.dtype]
    tensors = {}
    for l in layers:
        for kind in ("q", "k", "v"):
            if (l, kind) not in captured:
                print(f"export_trace: layer {l} has no {kind}", file=sys.stderr)
                return 2
            tensors[f"layers.{l}.{kind}"] = captured[(l, kind)].to(dt).contiguous()
    tensors["tokens"] = torch.tensor(ids, dtype=torch.int32)
    meta = {
        "format": "kvplan-trace",
        "version": "1",
        "model": args.model,
        "rope_theta": repr(float(rope_theta)),
        "rope_dims": str(rope_dims),
        "rope_style": "half",
        "source": "scripts/export_trace.py",
    }
    save_file(tensors, args.output, metadata=meta)
    print(f"wrote {args.output}: {T} tokens, {len(layers)} layers, {n_q}/{n_kv} heads, head_dim {d}")
    return 0


def _has_cuda() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


if __name__ == "__main__":
    sys.exit(main())
