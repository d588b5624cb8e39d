#!/usr/bin/env python3
"""Peers of the saxpy benchmark on the same GPU, in the same run as tirx-run:
torch.add(y, x, alpha=a) (out of place and in place) and a Triton kernel.
Times are medians of triton.testing.do_bench (CUDA events, L2 flushed
between runs), the same statistic tirx-run reports. Prints one JSON object.
"""
import json
import sys

import torch
import triton
import triton.language as tl

N = 1 << 26
A = 2.0


@triton.jit
def saxpy_kernel(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, a * x + y, mask=mask)


def main():
    torch.manual_seed(0)
    x = torch.rand(N, device="cuda") * 2 - 1
    y = torch.rand(N, device="cuda") * 2 - 1
    out = torch.empty_like(y)

    # Correctness of the peers themselves.
    want = (A * x.double() + y.double()).float()
    y2 = y.clone()
    saxpy_kernel[(triton.cdiv(N, 1024),)](x, y2, A, N, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.allclose(y2, want, rtol=1e-5, atol=1e-6), "triton saxpy is wrong"
    assert torch.allclose(torch.add(y, x, alpha=A), want, rtol=1e-5, atol=1e-6)

    bench = lambda fn: triton.testing.do_bench(fn, warmup=50, rep=500,
                                               return_mode="median")
    results = {
        "torch_add_ms": bench(lambda: torch.add(y, x, alpha=A, out=out)),
        "torch_add_inplace_ms": bench(lambda: y.add_(x, alpha=A)),
        "triton_ms": bench(lambda: saxpy_kernel[(triton.cdiv(N, 1024),)](
            x, y, A, N, BLOCK=1024)),
    }
    # Device-to-device copy of the same 3 x 256 MiB traffic class: 2 x 512 MiB.
    src = torch.empty(1 << 27, device="cuda")
    dst = torch.empty_like(src)
    copy_ms = bench(lambda: dst.copy_(src))
    results["torch_copy_gbs"] = 2 * src.numel() * 4 / (copy_ms * 1e-3) / 1e9
    results["bytes_moved"] = 3 * N * 4
    results["device"] = torch.cuda.get_device_name()
    results["torch"] = torch.__version__
    results["triton"] = triton.__version__
    json.dump(results, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
