#!/usr/bin/env python3
"""fp16 scaled_dot_product_attention decode on bench_cuda's decode shapes, for comparison.

Shapes: batch 16, 32 query heads, 8 KV heads (GQA), head dim 128, 32768 cached tokens, one
query token. Times PyTorch's SDPA with CUDA events (median of 20 after 5 warm-ups) and prints one
JSON object. Exits 0 with {"skipped": reason} where torch or a CUDA device is missing.
"""
import json
import sys


def main() -> int:
    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # noqa: BLE001 - any import failure means "no torch here"
        print(json.dumps({"skipped": f"torch not importable: {e}"}))
        return 0
    if not torch.cuda.is_available():
        print(json.dumps({"skipped": "torch sees no CUDA device"}))
        return 0
    batch, hq, hkv, d, ctx = 16, 32, 8, 128, 32768
    dev = torch.device("cuda")
    q = torch.randn(batch, hq, 1, d, device=dev, dtype=torch.float16)
    k = torch.randn(batch, hkv, ctx, d, device=dev, dtype=torch.float16)
    v = torch.randn(batch, hkv, ctx, d, device=dev, dtype=torch.float16)
    try:
        run = lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)  # noqa: E731
        run()
        mode = "enable_gqa"
    except TypeError:  # older torch: expand the KV heads
        ke = k.repeat_interleave(hq // hkv, dim=1)
        ve = v.repeat_interleave(hq // hkv, dim=1)
        run = lambda: F.scaled_dot_product_attention(q, ke, ve)  # noqa: E731
        mode = "repeat_interleave"
    for _ in range(5):
        run()
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        run()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    times.sort()
    t = times[len(times) // 2]
    bytes_read = (k.numel() + v.numel() + q.numel()) * 2
    print(json.dumps({
        "name": "torch_sdpa_fp16_decode",
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0),
        "gqa_mode": mode,
        "batch": batch, "num_q_heads": hq, "num_kv_heads": hkv, "head_dim": d, "context": ctx,
        "us_per_call": t * 1e6,
        "bytes_read": bytes_read,
        "GBps": bytes_read / t / 1e9,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
