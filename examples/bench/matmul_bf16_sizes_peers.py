#!/usr/bin/env python3
"""Peers of the bf16 matmul at the other sizes of issue 15's table: C += A x B
with A (M x K) and B (K x N) bf16, C f32 (`inout`, restored from a pristine
copy before each run), at 1024^3, 2048^3, 8192^3 and M x N x K =
4000 x 4096 x 4104 (the payloads examples/bench/matmul_bf16_<size>.mlir).
Peers, as matmul16_peers.py at 4096^3:
- cuBLAS through torch with an f32 output, `torch.addmm(C, A, B,
  out_dtype=torch.float32, out=C)` where this torch has it, else
  `C.add_(torch.mm(A, B, out_dtype=torch.float32))`;
- Triton, `tl.dot` on bf16 tiles with f32 sums, grouped tile order, masked
  edges (any M, N, K), autotuned over the usual Hopper configs.
Checked with tirx-run's f32 tolerance (`ieee`). run() returns one result
per size, keyed by the size's suffix ("1024", "2048", "8192", "odd").
"""
try:
    import triton
    import triton.language as tl
except ImportError:  # syntax checks and report.py on hosts without Triton
    triton = None

# suffix -> (M, N, K)
SIZES = {"1024": (1024, 1024, 1024), "2048": (2048, 2048, 2048),
         "8192": (8192, 8192, 8192), "odd": (4000, 4096, 4104)}

if triton is not None:
    from matmul16_peers import grouped_tile

    @triton.jit
    def matmul16_mnk_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                            BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
        pid_m, pid_n = grouped_tile(M, N, BM, BN, GROUP_M)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * K + rk[None, :]
        b = b_ptr + rk[:, None] * N + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            ka = (k0 + rk) < K
            x = tl.load(a, mask=(rm[:, None] < M) & ka[None, :], other=0.0)
            y = tl.load(b, mask=ka[:, None] & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
            a += BK
            b += BK * N
        c = c_ptr + rm[:, None] * N + rn[None, :]
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        tl.store(c, tl.load(c, mask=mask) + acc, mask=mask)


def run_size(timer, samples, keep, m, n, k):
    import torch
    from matmul16_peers import _configs, cublas_addmm_f32
    from timing import measure, triton_best_config
    torch.manual_seed(0)
    a = (torch.rand(m, k, device="cuda") * 2 - 1).to(torch.bfloat16)
    b = (torch.rand(k, n, device="cuda") * 2 - 1).to(torch.bfloat16)
    c0 = torch.rand(m, n, device="cuda") * 2 - 1
    c = c0.clone()
    want = c0.double() + a.double() @ b.double()

    def prepare():
        c.copy_(c0)

    cublas_f32 = lambda: cublas_addmm_f32(c, a, b)
    tuned = triton.autotune(configs=_configs(triton), key=["M", "N", "K"])(matmul16_mnk_kernel)

    def triton_fn():
        tuned[lambda p: (triton.cdiv(m, p["BM"]) * triton.cdiv(n, p["BN"]),)](a, b, c, m, n, k)

    entries = []
    for name, kind, fn, kernel in (
            ("cuBLAS bf16 -> f32: addmm(C, A, B, out_dtype=f32)", "cublas", cublas_f32, None),
            ("Triton bf16, f32 sums, autotuned", "triton", triton_fn, tuned)):
        e = measure(timer, samples, name, kind, "ieee", fn, want, lambda r: c, prepare,
                    terms=k)
        if kernel is not None:
            e["config"] = triton_best_config(kernel)
        entries.append(e)
        keep.append((e, fn, prepare))
    # Bytes: A and B read once (2 bytes), C read and written (4 bytes).
    return {"bytes_moved": (m * k + k * n) * 2 + 2 * m * n * 4, "flops": 2 * m * n * k,
            "entries": entries}


def run(timer, samples, keep):
    results = {}
    for suffix, (m, n, k) in SIZES.items():
        try:
            results[suffix] = run_size(timer, samples, keep, m, n, k)
        except Exception as e:  # one size that cannot run is reported
            results[suffix] = {"error": "%s: %s" % (type(e).__name__, e)}
    return results


if __name__ == "__main__":
    import peers
    peers.main(["--only", "matmul_bf16_sizes"])
