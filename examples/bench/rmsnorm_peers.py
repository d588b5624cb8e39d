#!/usr/bin/env python3
"""Peers of the RMSNorm benchmark: y = x / sqrt(mean(x^2, row) + 1e-6),
1024 x 1024 f32, y an `out` buffer (poisoned before each run):
- torch eager, the formula (several kernels; the last writes y by out=);
- `torch.nn.functional.rms_norm` (one kernel; no out= in its API, so its
  output is allocated by the caching allocator: no copy is timed);
- torch.compile of the formula (one fused kernel, its own output);
- Triton, a program per row, autotuned over num_warps.
"""
try:
    import triton
    import triton.language as tl
except ImportError:  # syntax checks and report.py on hosts without Triton
    triton = None

M = N = 1024
EPS = 1e-6
PRECISION = "ieee"


if triton is not None:
    @triton.jit
    def rmsnorm_kernel(x_ptr, y_ptr, n, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols)
        inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n + eps)
        tl.store(y_ptr + row * n + cols, x * inv)


def run(timer, samples, keep):
    import torch
    from timing import measure, compile_fn, triton_best_config

    configs = [triton.Config({}, num_warps=w)
               for w in (1, 2, 4, 8, 16)]
    tuned = triton.autotune(configs=configs, key=["n"])(rmsnorm_kernel)

    torch.manual_seed(0)
    x = torch.rand(M, N, device="cuda") * 2 - 1
    y = torch.empty_like(x)
    xd = x.double()
    want = xd / torch.sqrt(xd.pow(2).mean(-1, keepdim=True) + EPS)

    def prepare():
        y.fill_(float("nan"))

    def eager():
        torch.mul(x, torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS), out=y)

    def formula(x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS)

    compiled = compile_fn(formula)

    def triton_fn():
        tuned[(M,)](x, y, N, EPS, BLOCK=N)

    entries = []
    for name, kind, fn, output, kernel in (
            ("torch eager: the formula (out=)", "torch", eager, lambda r: y, None),
            ("torch F.rms_norm", "torch", lambda: torch.nn.functional.rms_norm(x, (N,), eps=EPS),
             lambda r: r, None),
            ("torch.compile: the formula", "torch.compile", lambda: compiled(x), lambda r: r, None),
            ("Triton, a program per row, autotuned", "triton", triton_fn, lambda r: y, tuned)):
        e = measure(timer, samples, name, kind, PRECISION, fn, want, output, prepare)
        if kernel is not None:
            e["config"] = triton_best_config(kernel)
        entries.append(e)
        keep.append((e, fn, prepare))
    return {"bytes_moved": 2 * M * N * 4, "flops": 3 * M * N, "entries": entries}


if __name__ == "__main__":
    import peers
    peers.main(["--only", "rmsnorm"])
