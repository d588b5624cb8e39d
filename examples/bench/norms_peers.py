#!/usr/bin/env python3
"""Peers of the normalizations benchmark (softmax, layer norm and RMSNorm
over 8192 rows of 8192 f32) on the same GPU, in the same run as tirx-run:
torch eager (softmax and layer_norm are single fused kernels there; RMSNorm
the formula, several kernels, and F.rms_norm), torch.compile of the
formula, and a Triton kernel per row (the row in registers). Medians of
triton.testing.do_bench (CUDA events, L2 flushed). Prints JSON.
"""
import json

import torch
import triton
import triton.language as tl

M = N = 8192
LN_EPS = 1e-5
RMS_EPS = 1e-6


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n + cols, e / tl.sum(e, axis=0))


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols)
    mean = tl.sum(x, axis=0) / n
    d = x - mean
    inv = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n + eps)
    tl.store(y_ptr + row * n + cols, d * inv * tl.load(w_ptr + cols) + tl.load(b_ptr + cols))


@triton.jit
def rmsnorm_kernel(x_ptr, y_ptr, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n + eps)
    tl.store(y_ptr + row * n + cols, x * inv)


def softmax_formula(x):
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def layernorm_formula(x, w, b):
    mean = x.mean(-1, keepdim=True)
    d = x - mean
    return d * torch.rsqrt(d.pow(2).mean(-1, keepdim=True) + LN_EPS) * w + b


def rmsnorm_formula(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + RMS_EPS)


def time_all(want, cases):
    """Each case returns its result (a fresh tensor where the peer allocates
    one: no extra copy is timed)."""
    out = {}
    for name, fn in cases:
        got = fn()
        torch.cuda.synchronize()
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-5), name
        out[name + "_ms"] = triton.testing.do_bench(fn, return_mode="median")
    return out


def into(y, launch):
    """A Triton launch writing y, as a case returning y."""
    def fn():
        launch()
        return y
    return fn


def main():
    torch.manual_seed(0)
    x = torch.rand(M, N, device="cuda") * 2 - 1
    w = torch.rand(N, device="cuda") * 2 - 1
    b = torch.rand(N, device="cuda") * 2 - 1
    y = torch.empty_like(x)  # the Triton kernels' output
    compiled_softmax = torch.compile(softmax_formula)
    compiled_layernorm = torch.compile(layernorm_formula)
    compiled_rmsnorm = torch.compile(rmsnorm_formula)
    result = {"rows": M, "cols": N, "bytes_moved": 2 * M * N * 4}

    want = torch.softmax(x.double(), -1).float()
    result["softmax"] = time_all(want, (
        ("torch_eager", lambda: torch.softmax(x, -1)),
        ("torch_compile", lambda: compiled_softmax(x)),
        ("triton", into(y, lambda: softmax_kernel[(M,)](x, y, N, BLOCK=N, num_warps=16))),
    ))

    want = torch.nn.functional.layer_norm(x.double(), (N,), w.double(), b.double(), LN_EPS).float()
    result["layernorm"] = time_all(want, (
        ("torch_eager", lambda: torch.nn.functional.layer_norm(x, (N,), w, b, LN_EPS)),
        ("torch_compile", lambda: compiled_layernorm(x, w, b)),
        ("triton", into(y, lambda: layernorm_kernel[(M,)](x, w, b, y, N, LN_EPS, BLOCK=N, num_warps=16))),
    ))

    want = (x.double() * torch.rsqrt(x.double().pow(2).mean(-1, keepdim=True) + RMS_EPS)).float()
    result["rmsnorm"] = time_all(want, (
        ("torch_eager", lambda: rmsnorm_formula(x)),
        ("torch_rms_norm", lambda: torch.nn.functional.rms_norm(x, (N,), eps=RMS_EPS)),
        ("torch_compile", lambda: compiled_rmsnorm(x)),
        ("triton", into(y, lambda: rmsnorm_kernel[(M,)](x, y, N, RMS_EPS, BLOCK=N, num_warps=16))),
    ))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
