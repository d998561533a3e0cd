#!/usr/bin/env python3
"""Seeded random GPT-2 weights and PyTorch reference logits for examples/gpt2.

Needs torch only (not transformers, not safetensors, not numpy): the model is
written out below with plain torch ops, and safetensors files are written by
hand from the format's definition (8-byte little-endian header length, JSON
header of dtype/shape/data_offsets, raw little-endian data).

    python3 make_reference.py --out DIR            # the small model and its references
    python3 make_reference.py --out DIR --size 124m  # also GPT-2 124M's shape (~500 MB)
    python3 make_reference.py --out DIR --bench    # PyTorch eager timing, one JSON line

Small files (commit them into examples/gpt2/testdata, < 1 MB together):
  model-small.safetensors       float32 weights, Hugging Face GPT2LMHeadModel names
  model-small-bf16.safetensors  the same weights rounded to bfloat16
  model-small.json              the config (config.json names)
  reference.json                prompt, greedy ids, the logits files' layout
  reference-f32.bin             float32 logits: prefill (every prompt position), then each decode step
  reference-bf16.bin            the same in bfloat16 (weights and compute), teacher-forced with the
                                float32 greedy ids, stored as float32
"""
import argparse
import ctypes
import json
import math
import os
import struct
import time

import torch
import torch.nn.functional as F

SMALL = dict(n_layer=2, n_head=4, n_embd=64, vocab_size=512, n_positions=64, layer_norm_epsilon=1e-5)
GPT2_124M = dict(n_layer=12, n_head=12, n_embd=768, vocab_size=50257, n_positions=1024, layer_norm_epsilon=1e-5)
PROMPT = [46, 329, 318, 7, 0, 511, 42, 100]  # ids below the small vocabulary (512)
DECODE_STEPS = 4


def raw_bytes(t):
    """The bytes of a tensor, contiguous on the CPU (little-endian hosts)."""
    t = t.detach().cpu().contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


def write_safetensors(path, tensors, dtype):
    """Writes tensors (name -> float tensor) converted to dtype (torch.float32 or torch.bfloat16)."""
    code = {torch.float32: "F32", torch.bfloat16: "BF16", torch.float16: "F16"}[dtype]
    header, chunks, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        b = raw_bytes(tensors[name].to(dtype))
        header[name] = {"dtype": code, "shape": list(tensors[name].shape), "data_offsets": [off, off + len(b)]}
        chunks.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in chunks:
            f.write(b)


def random_weights(cfg, seed):
    """GPT-2 weights under Hugging Face's names (Conv1D weights are [in, out]), scaled so that
    the logits of a small model differ clearly; float32 on the CPU."""
    g = torch.Generator().manual_seed(seed)
    E, V, P = cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"]
    w = {}

    def add(name, mean, std, *shape):
        w["transformer." + name] = mean + std * torch.randn(*shape, generator=g, dtype=torch.float32)

    add("wte.weight", 0, 0.3, V, E)
    add("wpe.weight", 0, 0.1, P, E)
    for l in range(cfg["n_layer"]):
        p = "h.%d." % l
        add(p + "ln_1.weight", 1, 0.1, E)
        add(p + "ln_1.bias", 0, 0.05, E)
        add(p + "attn.c_attn.weight", 0, 0.15, E, 3 * E)
        add(p + "attn.c_attn.bias", 0, 0.05, 3 * E)
        add(p + "attn.c_proj.weight", 0, 0.1, E, E)
        add(p + "attn.c_proj.bias", 0, 0.05, E)
        add(p + "ln_2.weight", 1, 0.1, E)
        add(p + "ln_2.bias", 0, 0.05, E)
        add(p + "mlp.c_fc.weight", 0, 0.1, E, 4 * E)
        add(p + "mlp.c_fc.bias", 0, 0.05, 4 * E)
        add(p + "mlp.c_proj.weight", 0, 0.05, 4 * E, E)
        add(p + "mlp.c_proj.bias", 0, 0.05, E)
    add("ln_f.weight", 1, 0.1, E)
    add("ln_f.bias", 0, 0.05, E)
    return w


class GPT2:
    """GPT-2 in plain torch ops with a preallocated KV cache ([heads, ctx, dim] per layer)."""

    def __init__(self, cfg, w, device, dtype, sdpa=False):
        self.cfg, self.sdpa = cfg, sdpa
        self.w = {k: v.to(device=device, dtype=dtype) for k, v in w.items()}
        H, E = cfg["n_head"], cfg["n_embd"]
        shape = (cfg["n_layer"], H, cfg["n_positions"], E // H)
        self.kc = torch.zeros(shape, device=device, dtype=dtype)
        self.vc = torch.zeros(shape, device=device, dtype=dtype)

    @torch.no_grad()
    def forward(self, ids, pos):
        """Logits [T, vocab] of tokens ids (LongTensor [T]) at positions pos.., appending to the cache."""
        cfg, w = self.cfg, self.w
        E, H, eps = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
        D, T = E // H, ids.shape[0]
        x = w["transformer.wte.weight"][ids] + w["transformer.wpe.weight"][pos:pos + T]
        for l in range(cfg["n_layer"]):
            p = "transformer.h.%d." % l
            h = F.layer_norm(x, (E,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
            qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
            q, k, v = (t.reshape(T, H, D).transpose(0, 1) for t in qkv.split(E, dim=1))
            self.kc[l, :, pos:pos + T] = k
            self.vc[l, :, pos:pos + T] = v
            K, V = self.kc[l, :, :pos + T], self.vc[l, :, :pos + T]
            # query i (position pos+i) sees keys 0..pos+i
            mask = None if T == 1 else torch.ones(T, pos + T, dtype=torch.bool, device=x.device).tril(diagonal=pos)
            if self.sdpa and T == 1:  # decode: the one query sees the whole cache
                a = F.scaled_dot_product_attention(q, K, V)
            elif self.sdpa and pos == 0:  # prefill: the causal kernels (flash on CUDA)
                a = F.scaled_dot_product_attention(q, K, V, is_causal=True)
            elif self.sdpa:
                a = F.scaled_dot_product_attention(q, K, V, attn_mask=mask)
            else:
                s = (q @ K.transpose(1, 2)) / math.sqrt(D)
                if mask is not None:
                    s = s.masked_fill(~mask, float("-inf"))
                a = torch.softmax(s, dim=-1) @ V
            a = a.transpose(0, 1).reshape(T, E)
            x = x + a @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
            h = F.layer_norm(x, (E,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
            f = F.gelu(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"], approximate="tanh")
            x = x + f @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        x = F.layer_norm(x, (E,), w["transformer.ln_f.weight"], w["transformer.ln_f.bias"], eps)
        return x @ w["transformer.wte.weight"].T


def reference(cfg, w, dtype, forced=None):
    """Prefill logits (every prompt position), then DECODE_STEPS greedy decode steps' logits, on
    the CPU; with forced, the decode inputs are those ids instead of this run's greedy picks."""
    m = GPT2(cfg, w, "cpu", dtype)
    logits = m.forward(torch.tensor(PROMPT), 0).float()
    steps, ids = [logits], [int(logits[-1].argmax())]
    pos = len(PROMPT)
    for i in range(DECODE_STEPS):
        tok = ids[-1] if forced is None else forced[i]
        logits = m.forward(torch.tensor([tok]), pos).float()
        pos += 1
        steps.append(logits)
        ids.append(int(logits[-1].argmax()))
    return steps, ids


def write_small(out, seed):
    cfg = SMALL
    w = random_weights(cfg, seed)
    write_safetensors(os.path.join(out, "model-small.safetensors"), w, torch.float32)
    write_safetensors(os.path.join(out, "model-small-bf16.safetensors"), w, torch.bfloat16)
    with open(os.path.join(out, "model-small.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    steps, greedy = reference(cfg, w, torch.float32)
    with open(os.path.join(out, "reference-f32.bin"), "wb") as f:
        for s in steps:
            f.write(raw_bytes(s))
    index = {
        "config": "model-small.json",
        "seed": seed,
        "torch": torch.__version__,
        "prompt": PROMPT,
        "greedy": greedy,
        "rows": [s.shape[0] for s in steps],
        "vocab": cfg["vocab_size"],
        "float32": {"weights": "model-small.safetensors", "logits": "reference-f32.bin"},
    }
    try:
        w16 = {k: v.to(torch.bfloat16).float() for k, v in w.items()}
        steps16, _ = reference(cfg, w16, torch.bfloat16, forced=greedy)
        with open(os.path.join(out, "reference-bf16.bin"), "wb") as f:
            for s in steps16:
                f.write(raw_bytes(s))
        index["bfloat16"] = {"weights": "model-small-bf16.safetensors", "logits": "reference-bf16.bin",
                             "decode_inputs": greedy[:DECODE_STEPS]}
    except RuntimeError as e:  # a torch without bfloat16 on the CPU
        index["bfloat16_error"] = str(e)
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(index, f, indent=1)


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def bench(cfg, w, device, dtype, prefill_len=1024, decode_prompt=8, decode_tokens=256, reps=5):
    """PyTorch eager: prefill of prefill_len tokens (median of reps) and greedy decode tokens/s
    (one .item() per token, as the Go program reads one id per token)."""
    m = GPT2(cfg, w, device, dtype, sdpa=True)
    ids = torch.arange(prefill_len, device=device) * 7919 % cfg["vocab_size"]
    times = []
    for _ in range(reps + 1):
        sync(device)
        t0 = time.perf_counter()
        logits = m.forward(ids, 0)
        int(logits[-1].argmax())
        sync(device)
        times.append(time.perf_counter() - t0)
    prefill = sorted(times[1:])[len(times[1:]) // 2]
    rates = []
    for _ in range(2):
        logits = m.forward(ids[:decode_prompt], 0)
        tok = int(logits[-1].argmax())
        pos = decode_prompt
        sync(device)
        t0 = time.perf_counter()
        for _ in range(decode_tokens):
            logits = m.forward(torch.tensor([tok], device=device), pos)
            tok = int(logits[-1].argmax())
            pos += 1
        sync(device)
        rates.append(decode_tokens / (time.perf_counter() - t0))
    return {"prefill_tokens": prefill_len, "prefill_ms": prefill * 1e3, "prefill_tokens_per_s": prefill_len / prefill,
            "decode_prompt": decode_prompt, "decode_tokens": decode_tokens, "decode_tokens_per_s": max(rates)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=".", help="directory for the files")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--size", choices=["small", "124m"], default="small",
                    help="124m also writes model-124m.safetensors and model-124m.json (not for the repository)")
    ap.add_argument("--bench", action="store_true", help="time PyTorch eager on GPT-2 124M's shape; one JSON line")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    write_small(args.out, args.seed)
    big = None
    if args.size == "124m":
        big = random_weights(GPT2_124M, args.seed)
        write_safetensors(os.path.join(args.out, "model-124m.safetensors"), big, torch.float32)
        with open(os.path.join(args.out, "model-124m.json"), "w") as f:
            json.dump(GPT2_124M, f, indent=1)
    if args.bench:
        if big is None:
            big = random_weights(GPT2_124M, args.seed)
        res = {"torch": torch.__version__, "device": args.device,
               "device_name": torch.cuda.get_device_name() if args.device == "cuda" else "cpu", "shape": "gpt2-124m",
               "allow_tf32": torch.backends.cuda.matmul.allow_tf32}
        for name, dt in (("float32", torch.float32), ("bfloat16", torch.bfloat16)):
            res[name] = bench(GPT2_124M, big, args.device, dt)
        print(json.dumps(res))


if __name__ == "__main__":
    main()
