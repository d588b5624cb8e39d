#!/usr/bin/env python3
"""Peers of the exp-scale benchmark: y = 2 * exp(x), 2^20 f32, y an `out`
buffer (poisoned with NaN before each run, as tirx-run poisons `out`):
- torch eager through an intermediate, as the unfused payload:
  `torch.exp(x, out=t); torch.mul(t, 2, out=y)` (two kernels, preallocated);
- torch.compile of `2 * torch.exp(x)` (one fused kernel; its output is
  allocated by the compiled code, as a functional graph does);
- Triton, fused, autotuned over BLOCK x num_warps.
"""
try:
    import triton
    import triton.language as tl
except ImportError:  # syntax checks and report.py on hosts without Triton
    triton = None

N = 1 << 20
PRECISION = "ieee"


if triton is not None:
    @triton.jit
    def exp_scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(y_ptr + offsets, 2.0 * tl.exp(x), mask=mask)


def run(timer, samples, keep):
    import torch
    from timing import measure, compile_fn, triton_best_config

    configs = [triton.Config({"BLOCK": b}, num_warps=w)
               for b in (1024, 2048, 4096) for w in (4, 8)]
    tuned = triton.autotune(configs=configs, key=["n"])(exp_scale_kernel)

    torch.manual_seed(0)
    x = torch.rand(N, device="cuda") * 2 - 1
    t = torch.empty_like(x)
    y = torch.empty_like(x)
    want = 2 * torch.exp(x.double())

    def prepare():
        y.fill_(float("nan"))

    def eager():
        torch.exp(x, out=t)
        torch.mul(t, 2.0, out=y)

    def exp_scale(x):
        return 2.0 * torch.exp(x)

    compiled = compile_fn(exp_scale)

    def triton_fn():
        tuned[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](x, y, N)

    entries = []
    for name, kind, fn, output, kernel in (
            ("torch eager: exp, then mul (2 kernels, out=)", "torch", eager, lambda r: y, None),
            ("torch.compile: 2 * exp(x)", "torch.compile", lambda: compiled(x), lambda r: r, None),
            ("Triton fused, autotuned", "triton", triton_fn, lambda r: y, tuned)):
        e = measure(timer, samples, name, kind, PRECISION, fn, want, output, prepare)
        if kernel is not None:
            e["config"] = triton_best_config(kernel)
        entries.append(e)
        keep.append((e, fn, prepare))
    return {"bytes_moved": 2 * N * 4, "flops": 2 * N, "entries": entries}


if __name__ == "__main__":
    import peers
    peers.main(["--only", "exp-scale"])
