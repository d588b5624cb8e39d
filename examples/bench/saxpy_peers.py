#!/usr/bin/env python3
"""Peers of the saxpy benchmark: y = a * x + y in place, 2^26 f32, a = 2.
TIRx's kernel updates y in place (`inout`), so every peer does too, with y
restored from a pristine copy before each run (outside the timed events, as
tirx-run restores `inout` buffers):
- torch eager `y.add_(x, alpha=a)` (one kernel);
- torch.compile of the same in-place update (timing.COMPILE_MODE);
- Triton, autotuned over BLOCK x num_warps.
Timed by timing.Timer (tirx-run's method). `python3 saxpy_peers.py` prints
the JSON of this benchmark alone; all-bench.sh runs it through peers.py.
"""
try:
    import triton
    import triton.language as tl
except ImportError:  # syntax checks and report.py on hosts without Triton
    triton = None

N = 1 << 26
A = 2.0
PRECISION = "ieee"


if triton is not None:
    @triton.jit
    def saxpy_kernel(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(y_ptr + offsets, a * x + y, mask=mask)


def run(timer, samples, keep):
    import torch
    from timing import measure, compile_fn, triton_best_config

    configs = [triton.Config({"BLOCK": b}, num_warps=w)
               for b in (1024, 2048, 4096) for w in (4, 8)]
    tuned = triton.autotune(configs=configs, key=["n"])(saxpy_kernel)

    torch.manual_seed(0)
    x = torch.rand(N, device="cuda") * 2 - 1
    y0 = torch.rand(N, device="cuda") * 2 - 1
    y = y0.clone()
    want = A * x.double() + y0.double()

    def prepare():
        y.copy_(y0)

    def saxpy_inplace(x, y):
        y.add_(x, alpha=A)

    compiled = compile_fn(saxpy_inplace)

    def triton_fn():
        tuned[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](x, y, A, N)

    peers = [
        ("torch eager: y.add_(x, alpha=a)", "torch", lambda: y.add_(x, alpha=A), None),
        ("torch.compile: y.add_(x, alpha=a)", "torch.compile", lambda: compiled(x, y), None),
        ("Triton, autotuned", "triton", triton_fn, tuned),
    ]
    entries = []
    for name, kind, fn, kernel in peers:
        e = measure(timer, samples, name, kind, PRECISION, fn, want,
                    lambda ret: y, prepare)
        if kernel is not None:
            e["config"] = triton_best_config(kernel)
        entries.append(e)
        keep.append((e, fn, prepare))
    return {"bytes_moved": 3 * N * 4, "flops": 2 * N, "entries": entries}


if __name__ == "__main__":
    import peers
    peers.main(["--only", "saxpy"])
