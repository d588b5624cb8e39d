#!/usr/bin/env python3
"""Peers of the row-sum benchmark: s[i] += sum_j x[i, j], 1024 x 16384 f32.
TIRx's s is `inout`: every peer updates s in place, restored from a pristine
copy before each run (outside the timed events):
- torch eager `torch.sum(x, 1, out=t); s.add_(t)` (two kernels, preallocated);
- torch.compile of `s.add_(x.sum(1))` (in place);
- Triton, a program per row, the add into s fused, autotuned over BLOCK x
  num_warps.
"""
try:
    import triton
    import triton.language as tl
except ImportError:  # syntax checks and report.py on hosts without Triton
    triton = None

M, N = 1024, 16384
PRECISION = "ieee"


if triton is not None:
    @triton.jit
    def rowsum_kernel(x_ptr, s_ptr, n, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, n, BLOCK):
            acc += tl.load(x_ptr + row * n + start + tl.arange(0, BLOCK))
        tl.store(s_ptr + row, tl.load(s_ptr + row) + tl.sum(acc, axis=0))


def run(timer, samples, keep):
    import torch
    from timing import measure, compile_fn, triton_best_config

    configs = [triton.Config({"BLOCK": b}, num_warps=w)
               for b, w in ((1024, 4), (2048, 4), (2048, 8), (4096, 8),
                            (4096, 16), (8192, 16))]
    tuned = triton.autotune(configs=configs, key=["n"])(rowsum_kernel)

    torch.manual_seed(0)
    x = torch.rand(M, N, device="cuda") * 2 - 1
    s0 = torch.rand(M, device="cuda") * 2 - 1
    s = s0.clone()
    t = torch.empty_like(s)
    want = s0.double() + x.double().sum(1)

    def prepare():
        s.copy_(s0)

    def eager():
        torch.sum(x, 1, out=t)
        s.add_(t)

    def rowsum_inplace(x, s):
        s.add_(x.sum(1))

    compiled = compile_fn(rowsum_inplace)

    def triton_fn():
        tuned[(M,)](x, s, N)

    entries = []
    for name, kind, fn, kernel in (
            ("torch eager: sum(x, 1, out=t); s.add_(t)", "torch", eager, None),
            ("torch.compile: s.add_(x.sum(1))", "torch.compile", lambda: compiled(x, s), None),
            ("Triton, a program per row, autotuned", "triton", triton_fn, tuned)):
        e = measure(timer, samples, name, kind, PRECISION, fn, want, lambda r: s, prepare)
        if kernel is not None:
            e["config"] = triton_best_config(kernel)
        entries.append(e)
        keep.append((e, fn, prepare))
    return {"bytes_moved": M * N * 4 + 2 * M * 4, "flops": M * N, "entries": entries}


if __name__ == "__main__":
    import peers
    peers.main(["--only", "rowsum"])
