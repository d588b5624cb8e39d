#!/usr/bin/env python3
"""Peers of the exp-scale benchmark (y = 2 * exp(x), 2^20 f32) on the same
GPU, in the same run as tirx-run: torch eager through an intermediate (two
kernels, as the unfused payload), and a fused Triton kernel. Times are
medians of triton.testing.do_bench (CUDA events, L2 flushed). Prints JSON.
"""
import json

import torch
import triton
import triton.language as tl

N = 1 << 20


@triton.jit
def exp_scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, 2.0 * tl.exp(x), mask=mask)


def main():
    torch.manual_seed(0)
    x = torch.rand(N, device="cuda") * 2 - 1
    t = torch.empty_like(x)
    y = torch.empty_like(x)
    want = (2 * torch.exp(x.double())).float()

    def eager():
        torch.exp(x, out=t)
        torch.mul(t, 2.0, out=y)

    def fused():
        exp_scale_kernel[(triton.cdiv(N, 1024),)](x, y, N, BLOCK=1024)

    for f in (eager, fused):
        y.zero_()
        f()
        torch.cuda.synchronize()
        assert torch.allclose(y, want, rtol=1e-5, atol=1e-6), f.__name__
    print(json.dumps({
        "torch_eager_two_kernels_ms": triton.testing.do_bench(eager, return_mode="median"),
        "triton_fused_ms": triton.testing.do_bench(fused, return_mode="median"),
        "bytes_moved": 2 * N * 4,
    }))


if __name__ == "__main__":
    main()
