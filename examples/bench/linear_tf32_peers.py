#!/usr/bin/env python3
"""Peers of the tf32 linear benchmark: C += A x W^T with A, W and C f32
4096 x 4096, W held as (out_features, in_features) = (n, k) as nn.Linear
holds its weight (the payload examples/linear_f32.mlir), the products on
tensor cores in tf32 with f32 sums. C is `inout` in TIRx's bundles: every
peer updates C in place, restored from a pristine copy before each run
(outside the timed events). Under torch.set_float32_matmul_precision("high"):
- cuBLAS through torch, `C.addmm_(A, W.t())`: one tf32 GEMM with beta = 1
  reading W transposed (cuBLAS's "T" operand, no copy);
- Triton, `tl.dot(..., input_precision="tf32")` on W's K-contiguous rows,
  grouped tile order, autotuned over the usual Hopper tf32 configs.
Each peer is checked with tirx-run's tf32 tolerance, as the TIRx bundles
(math tf32) are.
"""
try:
    import triton
    import triton.language as tl
except ImportError:  # syntax checks and report.py on hosts without Triton
    triton = None
N = 4096


if triton is not None:
    from matmul16_peers import grouped_tile

    @triton.jit
    def linear_kernel(a_ptr, w_ptr, c_ptr, n, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr, GROUP_M: tl.constexpr):
        # C[m, n] += sum_k A[m, k] W[n, k]: W's tile read along its rows (K).
        pid_m, pid_n = grouped_tile(n, n, BM, BN, GROUP_M)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * n + rk[None, :]
        w = w_ptr + rn[None, :] * n + rk[:, None]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, n, BK):
            acc = tl.dot(tl.load(a), tl.load(w), acc, input_precision="tf32")
            a += BK
            w += BK
        c = c_ptr + rm[:, None] * n + rn[None, :]
        tl.store(c, tl.load(c) + acc)


def run(timer, samples, keep):
    import torch
    import matmul_peers
    from timing import measure, triton_best_config
    n = N
    torch.manual_seed(0)
    a = torch.rand(n, n, device="cuda") * 2 - 1
    w = torch.rand(n, n, device="cuda") * 2 - 1
    c0 = torch.rand(n, n, device="cuda") * 2 - 1
    c = c0.clone()
    want = c0.double() + a.double() @ w.double().t()

    def prepare():
        c.copy_(c0)

    # matmul_peers' tf32 tiles for large sizes (f32 inputs: (BM + BN) x BK x 4
    # bytes of shared memory a stage).
    tuned = triton.autotune(configs=matmul_peers._configs(triton, "tf32", n),
                            key=["n"])(linear_kernel)

    def triton_fn():
        tuned[lambda m: ((n // m["BM"]) * (n // m["BN"]),)](a, w, c, n)

    entries = []
    torch.set_float32_matmul_precision("high")
    try:
        for name, kind, fn, kernel in (
                ("cuBLAS tf32: C.addmm_(A, W.t())", "cublas",
                 lambda: c.addmm_(a, w.t()), None),
                ("Triton tf32, W read as (n, k), autotuned", "triton", triton_fn, tuned)):
            e = measure(timer, samples, name, kind, "tf32", fn, want, lambda r: c,
                        prepare, terms=n)
            if kernel is not None:
                e["config"] = triton_best_config(kernel)
            entries.append(e)
            # The profiler pass (peers.py) runs later: under this precision.
            keep.append((e, fn, prepare, "tf32"))
    finally:
        torch.set_float32_matmul_precision("highest")
    # Bytes: A and W read once, C read and written (4 bytes each).
    return {"bytes_moved": 4 * n * n * 4, "flops": 2 * n ** 3, "entries": entries}


if __name__ == "__main__":
    import peers
    peers.main(["--only", "linear_tf32"])
