#!/usr/bin/env python3
"""Peers of the matmul benchmark: C += A x B, f32, 256^3 and 2048^3, at
both precisions TIRx's bundles use: `ieee` (f32 FMA: the SIMT schedules)
and `tf32` (f32 data, tf32 tensor-core products: the `use_mma` schedules).
C is `inout` in TIRx's bundles: every peer updates C in place, restored from
a pristine copy before each run (outside the timed events). At each
precision (torch.set_float32_matmul_precision "highest" or "high"):
- cuBLAS through torch, `C.addmm_(A, B)`: one GEMM with beta = 1 writing C
  in place (`torch.addmm(C0, A, B, out=C)`, the earlier peer, copies C0
  into C first: an extra kernel);
- torch.compile of the same in-place update (timing.COMPILE_MODE; with
  max-autotune it benchmarks Triton GEMM templates against cuBLAS);
- Triton, `tl.dot` with input_precision "ieee" or "tf32", grouped tile
  order, autotuned over a config list per size (below).
Each peer's precision is checked with tirx-run's tolerances: an `ieee` peer
must be within 1e-4 relative L2 (a tf32 product fails that), a `tf32` one
within 2e-3.
"""
try:
    import triton
    import triton.language as tl
except ImportError:  # syntax checks and report.py on hosts without Triton
    triton = None
SIZES = (256, 2048)


def _configs(triton, precision, n):
    """(BM, BN, BK, stages, warps): tiles that divide n; small tiles for
    256^3 (enough blocks for 132 SMs), the usual Hopper tiles for 2048^3.
    Shared memory per stage is (BM + BN) x BK x 4 bytes: at most 3 x 48 KiB."""
    if precision == "tf32":
        table = ([(32, 32, 32, 4, 2), (32, 64, 32, 4, 4), (64, 32, 32, 4, 4),
                  (64, 64, 32, 4, 4), (64, 64, 64, 3, 4)] if n <= 512 else
                 [(128, 128, 32, 3, 4), (128, 128, 32, 4, 8), (128, 256, 32, 3, 8),
                  (256, 128, 32, 3, 8), (128, 128, 64, 3, 8), (64, 128, 32, 4, 4),
                  (128, 64, 32, 4, 4)])
    else:
        table = ([(32, 32, 32, 3, 4), (64, 64, 32, 3, 4)] if n <= 512 else
                 [(64, 64, 32, 3, 4), (128, 64, 32, 3, 4), (128, 128, 32, 3, 8)])
    return [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8},
                          num_stages=s, num_warps=w) for bm, bn, bk, s, w in table]


if triton is not None:
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, n, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
        pid = tl.program_id(0)
        num_m = n // BM
        num_n = n // BN
        group = GROUP_M * num_n
        first_m = (pid // group) * GROUP_M
        gsize = tl.minimum(num_m - first_m, GROUP_M)
        pid_m = first_m + (pid % group) % gsize
        pid_n = (pid % group) // gsize
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * n + rk[None, :]
        b = b_ptr + rk[:, None] * n + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, n, BK):
            acc = tl.dot(tl.load(a), tl.load(b), acc, input_precision=PRECISION)
            a += BK
            b += BK * n
        c = c_ptr + rm[:, None] * n + rn[None, :]
        tl.store(c, tl.load(c) + acc)


def run(timer, samples, keep):
    import torch
    from timing import measure, compile_fn, triton_best_config


    # Distinct functions per precision: each is compiled (per shape) under
    # its own float32 matmul precision only.
    def mm_ieee(a, b, c):
        c.addmm_(a, b)

    def mm_tf32(a, b, c):
        c.addmm_(a, b)

    compiled = {"ieee": compile_fn(mm_ieee), "tf32": compile_fn(mm_tf32)}

    def one_size(n):  # a scope per size: the closures kept for later bind to it
        torch.manual_seed(0)
        a = torch.rand(n, n, device="cuda") * 2 - 1
        b = torch.rand(n, n, device="cuda") * 2 - 1
        c0 = torch.rand(n, n, device="cuda") * 2 - 1
        c = c0.clone()
        want = c0.double() + a.double() @ b.double()

        def prepare():
            c.copy_(c0)

        entries = []
        for precision in ("ieee", "tf32"):
            torch.set_float32_matmul_precision("highest" if precision == "ieee" else "high")
            tuned = triton.autotune(configs=_configs(triton, precision, n),
                                    key=["n"])(matmul_kernel)

            def triton_fn(tuned=tuned, precision=precision):
                tuned[lambda m: ((n // m["BM"]) * (n // m["BN"]),)](
                    a, b, c, n, PRECISION=precision)

            cfn = compiled[precision]
            for name, kind, fn, kernel in (
                    ("cuBLAS %s: C.addmm_(A, B)" % precision, "cublas",
                     lambda: c.addmm_(a, b), None),
                    ("torch.compile %s: C.addmm_(A, B)" % precision, "torch.compile",
                     lambda cfn=cfn: cfn(a, b, c), None),
                    ("Triton %s, autotuned" % precision, "triton", triton_fn, tuned)):
                e = measure(timer, samples, name, kind, precision, fn, want,
                            lambda r: c, prepare, terms=a.shape[1])
                if kernel is not None:
                    e["config"] = triton_best_config(kernel)
                entries.append(e)
                # The profiler pass (peers.py) runs later: under this precision.
                keep.append((e, fn, prepare, precision))
        return {"bytes_moved": 4 * n * n * 4, "flops": 2 * n ** 3, "entries": entries}

    out = {}
    try:
        for n in SIZES:
            out[str(n)] = one_size(n)
    finally:
        torch.set_float32_matmul_precision("highest")
    return out


if __name__ == "__main__":
    import peers
    peers.main(["--only", "matmul"])
