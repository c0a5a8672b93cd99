#!/usr/bin/env python3
"""Writes the binary members of the bad-input corpus (traces, llama2.c checkpoints and tokenizers)
and the helper files under valid/. The JSON members and the token files (tokens/) are plain text,
edited by hand.
Run from anywhere: python3 tests/data/bad/make_bad.py

The writers (files under a folder, safetensors traces, llama2.c checkpoints and tokenizers) import
without side effects: scripts/adversarial.py builds its inputs with them."""
import json
import struct
from pathlib import Path

here = Path(__file__).resolve().parent


def write(root, rel, data):
    """Writes `data` (bytes, or str as UTF-8) to root/rel, creating the folders."""
    p = Path(root) / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data if isinstance(data, bytes) else data.encode())


def put(rel, data):
    write(here, rel, data)


def f16(vals):
    return struct.pack(f"<{len(vals)}e", *vals)


def raw_safetensors(header, data, n=None):
    hdr = json.dumps(header, separators=(",", ":")).encode()
    hdr += b" " * ((8 - len(hdr) % 8) % 8)
    return struct.pack("<Q", len(hdr) if n is None else n) + hdr + data


META = {"format": "kvplan-trace", "version": "1", "model": "bad", "rope_theta": "10000",
        "rope_dims": "4", "rope_style": "interleaved"}


def trace(layers=1, T=3, hq=2, hkv=1, d=4, meta=None, tokens=True, edit=None, dtype="F16"):
    """A valid trace; `edit(header)` may break the header before it is written."""
    h = {"__metadata__": dict(META, **(meta or {}))}
    data = b""
    for l in range(layers):
        for which, heads in (("q", hq), ("k", hkv), ("v", hkv)):
            raw = f16([0.25 * ((i % 7) - 3) for i in range(T * heads * d)])
            h[f"layers.{l}.{which}"] = {"dtype": dtype, "shape": [T, heads, d],
                                        "data_offsets": [len(data), len(data) + len(raw)]}
            data += raw
    if tokens:
        raw = struct.pack(f"<{T}i", *range(T))
        h["tokens"] = {"dtype": "I32", "shape": [T], "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if edit:
        edit(h)
    return h, data


def write_trace(name, **kw):
    h, data = trace(**kw)
    put(f"trace/{name}.safetensors", raw_safetensors(h, data))


def overlap(h):
    h["layers.0.k"]["data_offsets"] = [0, 24]
    h["layers.0.q"]["data_offsets"] = [0, 48]


def gap(h):
    h["tokens"]["data_offsets"] = [h["tokens"]["data_offsets"][0] + 4, h["tokens"]["data_offsets"][1] + 4]


def set_(path, value):
    def f(h):
        node = h
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return f


# --- llama2.c checkpoints and tokenizers
def checkpoint(dim=8, hidden=12, layers=1, heads=2, kv=1, vocab=6, seq=4, fill=None):
    hs = dim // heads if heads else 1
    V = abs(vocab)
    n = (V * dim + layers * dim + layers * heads * hs * dim + 2 * layers * kv * hs * dim +
         layers * dim * heads * hs + layers * dim + 3 * layers * hidden * dim + dim + seq * hs)
    if vocab < 0:
        n += V * dim
    w = [((i * 13) % 17 - 8) / 32 for i in range(n)]
    if fill:
        fill(w)
    return struct.pack("<7i", dim, hidden, layers, heads, kv, vocab, seq) + struct.pack(f"<{n}f", *w)


def tokenizer(pieces, max_len=None):
    max_len = max_len or max(1, max(len(p) for p in pieces))
    b = struct.pack("<i", max_len)
    for i, p in enumerate(pieces):
        b += struct.pack("<fi", -float(i), len(p)) + p
    return b


# A tokenizer's 300 pieces: the specials, the 256 byte tokens, then single characters.
PIECES = [b"<unk>", b"\n<s>\n", b"\n</s>\n"] + [b"<0x%02X>" % i for i in range(256)]
PIECES += [bytes([c]) for c in b" abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO"][: 300 - len(PIECES)]


def main():
    # --- traces (kvplan trace info FILE)
    h, data = trace()
    good = raw_safetensors(h, data)
    put("trace/truncated.safetensors", good[: len(good) - 10])
    put("trace/short.safetensors", good[:5])
    put("trace/lying_header_length.safetensors", raw_safetensors(h, data, n=1 << 40))
    put("trace/header_past_end.safetensors", raw_safetensors(h, data, n=len(good)))
    put("trace/not_json_header.safetensors", struct.pack("<Q", 8) + b"PK\x03\x04....")
    put("trace/trailing_bytes.safetensors", good + b"\0" * 8)

    write_trace("overlapping_tensors", edit=overlap)
    h, data = trace(edit=gap)
    put("trace/gap_between_tensors.safetensors", raw_safetensors(h, data + b"\0" * 4))
    write_trace("offsets_disagree_with_shape", edit=set_(["layers.0.v", "shape"], [3, 1, 2]))
    write_trace("absurd_dimension", edit=set_(["layers.0.q", "shape"], [1 << 40, 2, 4]))
    write_trace("shape_product_overflow", edit=set_(["layers.0.q", "shape"], [1 << 32, 1 << 32, 1 << 32]))
    write_trace("negative_dimension", edit=set_(["layers.0.q", "shape"], [-3, 2, 4]))
    write_trace("offsets_past_end", edit=set_(["tokens", "data_offsets"], [60, 1 << 50]))
    write_trace("unknown_dtype", edit=set_(["layers.0.k", "dtype"], "F64"))
    write_trace("rank_too_high", edit=set_(["layers.0.k", "shape"], [1] * 9))
    write_trace("wrong_format", meta={"format": "pytorch"})
    write_trace("future_version", meta={"version": "2"})
    write_trace("nan_rope_theta", meta={"rope_theta": "nan"})
    write_trace("negative_rope_theta", meta={"rope_theta": "-10000"})
    write_trace("odd_rope_dims", meta={"rope_dims": "3"})
    write_trace("huge_rope_dims", meta={"rope_dims": "99999999999"})
    write_trace("unknown_rope_style", meta={"rope_style": "neox"})
    write_trace("metadata_not_string", edit=set_(["__metadata__", "rope_dims"], 4))
    write_trace("missing_rope_theta", edit=lambda h: h["__metadata__"].pop("rope_theta"))
    write_trace("missing_layer_k", edit=lambda h: (h.pop("layers.0.k"), h.pop("layers.0.v"),
                                                   h.update({"layers.0.v": {"dtype": "F16", "shape": [3, 2, 4], "data_offsets": [48, 96]}})))
    write_trace("layers_disagree", layers=2, edit=lambda h: None)  # rewritten below
    h, data = trace(layers=2, T=3)
    h["layers.1.q"]["shape"] = [2, 3, 4]  # same bytes, different T and heads
    put("trace/layers_disagree.safetensors", raw_safetensors(h, data))
    write_trace("kv_heads_not_dividing", hq=4, hkv=3)
    write_trace("too_many_heads", hq=5000, hkv=5000, d=1, T=1, meta={"rope_dims": "0"})
    h, data = trace()
    h["tokens"]["shape"] = [2]
    h["tokens"]["data_offsets"][1] -= 4
    put("trace/tokens_wrong_length.safetensors", raw_safetensors(h, data[:-4]))
    h, data = trace(layers=2)
    h["layers.1.v"]["dtype"] = "BF16"
    put("trace/mixed_dtypes.safetensors", raw_safetensors(h, data))
    write_trace("unexpected_tensor", edit=lambda h: h.update({"layers.0.o": h.pop("tokens")}))
    # Issue 15: a RoPE base whose frequencies overflow float (every angle NaN); a NaN and an inf in
    # the rows themselves (replay reads the rows; trace info only the header); a valid trace for the
    # flag cases (--eval-from past its 3 tokens).
    write_trace("tiny_rope_theta", meta={"rope_theta": "1e-300"})
    h, data = trace()
    data = bytearray(data)
    data[2:4] = struct.pack("<e", float("nan"))  # layers.0.q, token 0, head 0, dim 1
    put("trace/nan_value.safetensors", raw_safetensors(h, bytes(data)))
    h, data = trace()
    data = bytearray(data)
    k0 = h["layers.0.k"]["data_offsets"][0]
    data[k0 + 8:k0 + 10] = struct.pack("<e", float("inf"))  # layers.0.k, token 1
    put("trace/inf_value.safetensors", raw_safetensors(h, bytes(data)))
    h, data = trace()
    put("valid/tiny_trace.safetensors", raw_safetensors(h, data))

    # --- llama2.c checkpoints (kvplan generate --checkpoint FILE)
    # Helpers that are valid on their own: a tiny model and a tokenizer of its 300 tokens.
    put("valid/tiny_model.bin", checkpoint(vocab=len(PIECES)))
    put("valid/tiny_tokenizer.bin", tokenizer(PIECES))

    ck = checkpoint()
    put("llama2c/short_header.bin", ck[:20])
    put("llama2c/truncated_weights.bin", ck[:-16])
    put("llama2c/trailing_bytes.bin", ck + b"\0" * 4)
    put("llama2c/zero_dim.bin", struct.pack("<7i", 0, 12, 1, 2, 1, 6, 4) + ck[28:])
    put("llama2c/negative_layers.bin", struct.pack("<7i", 8, 12, -1, 2, 1, 6, 4) + ck[28:])
    put("llama2c/huge_dim.bin", struct.pack("<7i", 1 << 30, 12, 1, 2, 1, 6, 4) + ck[28:])
    put("llama2c/heads_not_dividing_dim.bin", struct.pack("<7i", 8, 12, 1, 3, 1, 6, 4) + ck[28:])
    put("llama2c/kv_heads_not_dividing.bin", struct.pack("<7i", 8, 12, 1, 4, 3, 6, 4) + ck[28:])
    put("llama2c/odd_head_size.bin", struct.pack("<7i", 6, 12, 1, 2, 1, 6, 4) + ck[28:])
    put("llama2c/lying_vocab.bin", struct.pack("<7i", 8, 12, 1, 2, 1, 1 << 21, 4) + ck[28:])
    put("llama2c/nan_weights.bin", checkpoint(fill=lambda w: w.__setitem__(5, float("nan"))))
    put("llama2c/not_a_checkpoint.bin", b"\x89PNG\r\n\x1a\n" + b"\0" * 64)

    # --- tokenizers (kvplan generate --checkpoint valid/tiny_model.bin --tokenizer FILE)
    tok = tokenizer(PIECES)
    put("tokenizer/truncated.bin", tok[:-3])
    put("tokenizer/empty.bin", b"")
    put("tokenizer/zero_max_token_length.bin", struct.pack("<i", 0) + tok[4:])
    put("tokenizer/negative_length.bin", tok[:8] + struct.pack("<i", -5) + tok[12:])
    put("tokenizer/length_over_max.bin", tok[:8] + struct.pack("<i", 1 << 20) + tok[12:])
    put("tokenizer/too_few_tokens.bin", tokenizer(PIECES[:100]))
    put("tokenizer/trailing_bytes.bin", tok + b"\0\0\0")

    # Regression (fuzz_tokenizer): a vocabulary without the 256 byte tokens made encode() index past
    # the vocabulary (heap overflow) on a prompt byte it lacks. A 6-token model and its tokenizer.
    put("valid/small_vocab_model.bin", checkpoint(vocab=6))
    put("tokenizer/small_vocab_no_byte_tokens.bin",
        tokenizer([b"<unk>", b"\n<s>\n", b"\n</s>\n", b" ", b"h", b"i"]))

    # Issue 15 (Trust): the header's JSON has limits of its own. A duplicated metadata key (which of
    # the two would a reader keep?) and a header of deeply nested brackets (it once built a 7.7 GB
    # DOM from 100 MiB of '[').
    h, data = trace()
    hdr = json.dumps(h, separators=(",", ":"))
    hdr = hdr.replace('"__metadata__":{', '"__metadata__":{"model":"first",', 1)
    pad = (8 - len(hdr) % 8) % 8
    put("trace/duplicate_metadata_key.safetensors",
        struct.pack("<Q", len(hdr) + pad) + hdr.encode() + b" " * pad + data)
    nested = '{"__metadata__":{"format":"kvplan-trace"},"x":' + "[" * 100000 + "]" * 100000 + "}"
    put("trace/deeply_nested_header.safetensors",
        struct.pack("<Q", len(nested)) + nested.encode())


if __name__ == "__main__":
    main()
