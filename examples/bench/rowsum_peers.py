#!/usr/bin/env python3
"""Peers of the row-sum benchmark (s[i] += sum_j x[i, j], 1024 x 16384 f32)
on the same GPU, in the same run as tirx-run: torch (`s += x.sum(1)`, two
kernels) and a Triton kernel (one program per row, 1024-wide chunks, the
add into s fused). Times are medians of triton.testing.do_bench (CUDA
events, L2 flushed), plus the device-to-device copy bandwidth torch
measures. Prints JSON.
"""
import json

import torch
import triton
import triton.language as tl

M, N = 1024, 16384


@triton.jit
def rowsum_kernel(x_ptr, s_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        acc += tl.load(x_ptr + row * n + start + tl.arange(0, BLOCK))
    tl.store(s_ptr + row, tl.load(s_ptr + row) + tl.sum(acc, axis=0))


def main():
    torch.manual_seed(0)
    x = torch.rand(M, N, device="cuda") * 2 - 1
    s0 = torch.rand(M, device="cuda") * 2 - 1
    s = s0.clone()
    want = (s0.double() + x.double().sum(1)).float()

    def eager():
        s.add_(x.sum(1))

    def fused():
        rowsum_kernel[(M,)](x, s, N, BLOCK=1024)

    out = {}
    for name, fn in (("torch", eager), ("triton", fused)):
        s.copy_(s0)
        fn()
        torch.cuda.synchronize()
        assert torch.allclose(s, want, rtol=1e-4, atol=1e-3), name
        out[name + "_ms"] = triton.testing.do_bench(fn, return_mode="median")
    a = torch.empty(1 << 27, device="cuda")
    b = torch.empty_like(a)
    copy_ms = triton.testing.do_bench(lambda: b.copy_(a), return_mode="median")
    out["torch_copy_gbs"] = 2 * a.numel() * 4 / (copy_ms * 1e-3) / 1e9
    out["bytes_moved"] = M * N * 4 + 2 * M * 4
    print(json.dumps(out))


if __name__ == "__main__":
    main()
