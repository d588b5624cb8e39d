#!/usr/bin/env python3
"""Peers of the RMSNorm benchmark (y = x / sqrt(mean(x^2, row) + 1e-6),
1024 x 1024 f32) on the same GPU, in the same run as tirx-run: torch eager
(the formula: several kernels), torch.nn.functional.rms_norm, and a Triton
kernel (a program per row). Medians of triton.testing.do_bench (CUDA
events, L2 flushed). Prints JSON.
"""
import json

import torch
import triton
import triton.language as tl

M = N = 1024
EPS = 1e-6


@triton.jit
def rmsnorm_kernel(x_ptr, y_ptr, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n + eps)
    tl.store(y_ptr + row * n + cols, x * inv)


def main():
    torch.manual_seed(0)
    x = torch.rand(M, N, device="cuda") * 2 - 1
    y = torch.empty_like(x)
    want = (x.double() / torch.sqrt(x.double().pow(2).mean(-1, keepdim=True) + EPS)).float()

    def eager():
        torch.mul(x, torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS), out=y)

    def fused_torch():
        y.copy_(torch.nn.functional.rms_norm(x, (N,), eps=EPS))

    def fused_triton():
        rmsnorm_kernel[(M,)](x, y, N, EPS, BLOCK=N)

    out = {}
    for name, fn in (("torch_eager", eager), ("torch_rms_norm", fused_torch),
                     ("triton", fused_triton)):
        y.zero_()
        fn()
        torch.cuda.synchronize()
        assert torch.allclose(y, want, rtol=1e-4, atol=1e-5), name
        out[name + "_ms"] = triton.testing.do_bench(fn, return_mode="median")
    out["bytes_moved"] = 2 * M * N * 4
    print(json.dumps(out))


if __name__ == "__main__":
    main()
