#!/usr/bin/env python3
"""Peers of the 16-bit matmul benchmarks: C += A x B with A and B bf16 (or
f16) 4096 x 4096 and C f32, the products on tensor cores with f32 sums (the
payloads examples/matmul_bf16.mlir and matmul_f16.mlir). C is `inout` in
TIRx's bundles: every peer updates C in place, restored from a pristine
copy before each run (outside the timed events). Peers:
- cuBLAS through torch with an f32 output: `torch.addmm(C, A, B,
  out_dtype=torch.float32, out=C)` where this torch has it (one GEMM with
  beta = 1), else `C.add_(torch.mm(A, B, out_dtype=torch.float32))`;
- Triton, `tl.dot` on 16-bit tiles with an f32 accumulator, grouped tile
  order, autotuned over the usual Hopper configs;
- for scale, cuBLAS's plain 16-bit product `torch.mm(A, B)` (16-bit output,
  its own precision class: listed, not compared), the 714 TFLOP/s of the
  issue.
The f32-output peers are checked with tirx-run's f32 tolerance (`ieee`):
the products of 16-bit inputs are exact in f32, only the order of the sums
differs.
"""
try:
    import triton
    import triton.language as tl
except ImportError:  # syntax checks and report.py on hosts without Triton
    triton = None
N = 4096


def _configs(triton):
    """(BM, BN, BK, stages, warps): the usual Hopper tiles for 16-bit
    inputs (shared memory per stage (BM + BN) x BK x 2 bytes)."""
    table = [(128, 128, 32, 4, 4), (128, 128, 64, 3, 8), (128, 256, 64, 3, 8),
             (256, 128, 64, 3, 8), (128, 128, 64, 4, 4), (64, 128, 64, 4, 4)]
    return [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8},
                          num_stages=s, num_warps=w) for bm, bn, bk, s, w in table]


if triton is not None:
    @triton.jit
    def grouped_tile(M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP_M: tl.constexpr):
        # The program's tile (pid_m, pid_n) in grouped order: GROUP_M rows
        # of tiles in turn, sharing their columns of B in L2 (the peers of
        # this file, matmul_bias_gelu_peers.py, matmul_bf16_sizes_peers.py).
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BM)
        num_n = tl.cdiv(N, BN)
        group = GROUP_M * num_n
        first_m = (pid // group) * GROUP_M
        gsize = tl.minimum(num_m - first_m, GROUP_M)
        return first_m + (pid % group) % gsize, (pid % group) // gsize

    @triton.jit
    def tile_sums(a_ptr, b_ptr, n, pid_m, pid_n, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr):
        # The f32 sums of tile (pid_m, pid_n) of A x B (n x n, row-major, n
        # a multiple of the tiles), with its rows and columns.
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * n + rk[None, :]
        b = b_ptr + rk[:, None] * n + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, n, BK):
            acc = tl.dot(tl.load(a), tl.load(b), acc)
            a += BK
            b += BK * n
        return acc, rm, rn

    @triton.jit
    def matmul16_kernel(a_ptr, b_ptr, c_ptr, n, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr, GROUP_M: tl.constexpr):
        pid_m, pid_n = grouped_tile(n, n, BM, BN, GROUP_M)
        acc, rm, rn = tile_sums(a_ptr, b_ptr, n, pid_m, pid_n, BM, BN, BK)
        c = c_ptr + rm[:, None] * n + rn[None, :]
        tl.store(c, tl.load(c) + acc)


def cublas_addmm_f32(c, a, b):
    """C += A x B on cuBLAS with an f32 output: one GEMM with beta = 1 where
    this torch has addmm's out_dtype, else the f32 product added to C."""
    import torch
    try:
        return torch.addmm(c, a, b, out_dtype=torch.float32, out=c)
    except (TypeError, RuntimeError):
        return c.add_(torch.mm(a, b, out_dtype=torch.float32))


def run(timer, samples, keep, dtype_name):
    import torch
    from timing import measure, triton_best_config
    dtype = getattr(torch, dtype_name)
    n = N
    torch.manual_seed(0)
    a = (torch.rand(n, n, device="cuda") * 2 - 1).to(dtype)
    b = (torch.rand(n, n, device="cuda") * 2 - 1).to(dtype)
    c0 = torch.rand(n, n, device="cuda") * 2 - 1
    c = c0.clone()
    want = c0.double() + a.double() @ b.double()
    want16 = a.double() @ b.double()

    def prepare():
        c.copy_(c0)

    cublas_f32 = lambda: cublas_addmm_f32(c, a, b)
    tuned = triton.autotune(configs=_configs(triton), key=["n"])(matmul16_kernel)

    def triton_fn():
        tuned[lambda m: ((n // m["BM"]) * (n // m["BN"]),)](a, b, c, n)

    entries = []
    for name, kind, fn, kernel in (
            ("cuBLAS %s -> f32: addmm(C, A, B, out_dtype=f32)" % dtype_name,
             "cublas", cublas_f32, None),
            ("Triton %s, f32 sums, autotuned" % dtype_name, "triton", triton_fn, tuned)):
        e = measure(timer, samples, name, kind, "ieee", fn, want, lambda r: c, prepare,
                    terms=n)
        if kernel is not None:
            e["config"] = triton_best_config(kernel)
        entries.append(e)
        keep.append((e, fn, prepare))
    # The plain 16-bit product: its output is 16-bit (another precision).
    plain = lambda: torch.mm(a, b)
    e = measure(timer, samples, "cuBLAS %s -> %s: torch.mm(A, B) (16-bit output, for scale)"
                % (dtype_name, dtype_name), "cublas", dtype_name, plain, want16,
                lambda r: r)
    entries.append(e)
    keep.append((e, plain, lambda: None))
    # Bytes: A and B read once (2 bytes), C read and written (4 bytes).
    return {"bytes_moved": 2 * n * n * 2 + 2 * n * n * 4, "flops": 2 * n ** 3,
            "entries": entries}
