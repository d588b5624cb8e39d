#!/usr/bin/env python3
"""Peers of the matmul benchmark (C += A x B, f32, 256^3 and 2048^3) on the
same GPU, in the same run as tirx-run: cuBLAS through torch with f32 math
and with tf32 tensor cores, and a Triton matmul (tf32 dots, the tutorial's
blocking). Times are medians of triton.testing.do_bench (CUDA events, L2
flushed). Prints JSON: {"<n>": {"<peer>_ms": ..., ...}, ...}.
"""
import json

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, n, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * n + rk[None, :]
    b = b_ptr + rk[:, None] * n + rn[None, :]
    acc = tl.load(c_ptr + rm[:, None] * n + rn[None, :])
    for _ in range(0, n, BK):
        acc += tl.dot(tl.load(a), tl.load(b), input_precision="tf32")
        a += BK
        b += BK * n
    tl.store(c_ptr + rm[:, None] * n + rn[None, :], acc)


def bench(n):
    torch.manual_seed(0)
    a = torch.rand(n, n, device="cuda") * 2 - 1
    b = torch.rand(n, n, device="cuda") * 2 - 1
    c0 = torch.rand(n, n, device="cuda") * 2 - 1
    c = c0.clone()
    want = (c0.double() + a.double() @ b.double()).float()
    block = 64 if n <= 256 else 128

    def cublas():
        torch.addmm(c0, a, b, out=c)

    def triton_mm():
        matmul_kernel[(n // block, n // block)](a, b, c, n, BM=block, BN=block,
                                                BK=32, num_warps=4 if block == 64 else 8)

    out = {}
    for name, tf32, fn in (("cublas_f32", False, cublas),
                           ("cublas_tf32", True, cublas),
                           ("triton_tf32", True, triton_mm)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        c.copy_(c0)
        fn()
        torch.cuda.synchronize()
        err = ((c.double() - want.double()).norm() / want.double().norm()).item()
        assert err < 5e-3, (name, err)
        # Timed runs repeat from whatever C holds: Triton's kernel reads and
        # writes C as addmm does; the values do not change the time.
        out[name + "_ms"] = triton.testing.do_bench(fn, return_mode="median")
        out[name + "_rel_l2"] = err
    torch.backends.cuda.matmul.allow_tf32 = False
    out["flops"] = 2 * n ** 3
    return out


def main():
    print(json.dumps({str(n): bench(n) for n in (256, 2048)}))


if __name__ == "__main__":
    main()
