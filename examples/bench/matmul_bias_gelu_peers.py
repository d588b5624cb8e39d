#!/usr/bin/env python3
"""Peers of the fused matmul + bias + GELU benchmark: Y = GELU(A x B + bias)
with A and B bf16 4096 x 4096, bias f32 4096 (one per column), Y f32 (the
payload examples/matmul_bias_gelu_bf16.mlir; GELU the exact, erf form,
x/2 (1 + erf(x / sqrt 2)), torch's default). Y is an `out` buffer in
TIRx's bundle (poisoned before each run); the peers return their own
output. Peers, each checked with tirx-run's f32 tolerance (`ieee`: the
products of 16-bit inputs are exact in f32, only the order of the sums
differs):
- torch eager, the matmul followed by its epilogue:
  `F.gelu(torch.mm(A, B, out_dtype=f32) + bias)` (three kernels: the GEMM,
  the add, the GELU);
- torch eager with the bias in cuBLAS's epilogue:
  `F.gelu(torch.addmm(bias, A, B, out_dtype=f32))` (two kernels);
- torch.compile of the first (mode as TIRX_BENCH_COMPILE_MODE: with
  max-autotune it may fuse the epilogue into a Triton GEMM template);
- Triton, one kernel: `tl.dot` on bf16 tiles with f32 sums, the bias and
  erf's GELU applied to the accumulator before the store, autotuned over
  the Hopper configs of matmul16_peers.py;
- for scale (16-bit output, another precision class: listed, not
  compared): cuBLASLt's own fused GEMM + bias + GELU,
  `torch._addmm_activation(bias16, A, B, use_gelu=True)` (tanh GELU, bf16
  output).
Where this torch lacks `out_dtype` on mm/addmm, those peers report the
error (a bf16 product then cast would not pass the f32 check).
"""
import math

try:
    import triton
    import triton.language as tl
except ImportError:  # syntax checks and report.py on hosts without Triton
    triton = None
N = 4096
PRECISION = "ieee"

if triton is not None:
    from matmul16_peers import grouped_tile, tile_sums

    @triton.jit
    def matmul_bias_gelu_kernel(a_ptr, b_ptr, bias_ptr, y_ptr, n, BM: tl.constexpr,
                                BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
        pid_m, pid_n = grouped_tile(n, n, BM, BN, GROUP_M)
        acc, rm, rn = tile_sums(a_ptr, b_ptr, n, pid_m, pid_n, BM, BN, BK)
        x = acc + tl.load(bias_ptr + rn)[None, :]
        g = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
        tl.store(y_ptr + rm[:, None] * n + rn[None, :], g)


def run(timer, samples, keep):
    import torch
    import torch.nn.functional as F
    from matmul16_peers import _configs
    from timing import measure, compile_fn, triton_best_config
    n = N
    torch.manual_seed(0)
    a = (torch.rand(n, n, device="cuda") * 2 - 1).to(torch.bfloat16)
    b = (torch.rand(n, n, device="cuda") * 2 - 1).to(torch.bfloat16)
    bias = torch.rand(n, device="cuda") * 2 - 1
    y = torch.empty(n, n, device="cuda")
    x = a.double() @ b.double() + bias.double()
    want = 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    del x

    def prepare():
        y.fill_(float("nan"))

    def eager():
        return F.gelu(torch.mm(a, b, out_dtype=torch.float32) + bias)

    def eager_addmm():
        return F.gelu(torch.addmm(bias, a, b, out_dtype=torch.float32))

    def formula(a, b, bias):
        return F.gelu(torch.mm(a, b, out_dtype=torch.float32) + bias)

    compiled = compile_fn(formula)
    tuned = triton.autotune(configs=_configs(triton), key=["n"])(matmul_bias_gelu_kernel)

    def triton_fn():
        tuned[lambda m: ((n // m["BM"]) * (n // m["BN"]),)](a, b, bias, y, n)

    entries = []
    for name, kind, fn, output, kernel in (
            ("torch eager: F.gelu(mm(A, B, out_dtype=f32) + bias)", "torch", eager,
             lambda r: r, None),
            ("torch eager: F.gelu(addmm(bias, A, B, out_dtype=f32))", "torch", eager_addmm,
             lambda r: r, None),
            ("torch.compile: F.gelu(mm(A, B, out_dtype=f32) + bias)", "torch.compile",
             lambda: compiled(a, b, bias), lambda r: r, None),
            ("Triton bf16, f32 sums, bias + GELU in the epilogue, autotuned", "triton",
             triton_fn, lambda r: y, tuned)):
        e = measure(timer, samples, name, kind, PRECISION, fn, want, output, prepare,
                    terms=n)
        if kernel is not None:
            e["config"] = triton_best_config(kernel)
        entries.append(e)
        keep.append((e, fn, prepare))
    # cuBLASLt's fused epilogue: bf16 output, tanh GELU (its own class).
    bias16 = bias.to(torch.bfloat16)
    xs = a.double() @ b.double() + bias16.double()
    want16 = 0.5 * xs * (1 + torch.tanh(math.sqrt(2 / math.pi) * (xs + 0.044715 * xs ** 3)))
    del xs
    lt = lambda: torch._addmm_activation(bias16, a, b, use_gelu=True)
    e = measure(timer, samples, "cuBLASLt bf16 -> bf16: _addmm_activation(bias, A, B, "
                "use_gelu=True) (tanh GELU, 16-bit output, for scale)", "cublas",
                "bfloat16", lt, want16, lambda r: r)
    entries.append(e)
    keep.append((e, lt, lambda: None))
    # Bytes: A and B read once (2 bytes), bias once, Y written (4 bytes).
    return {"bytes_moved": 2 * n * n * 2 + n * 4 + n * n * 4, "flops": 2 * n ** 3,
            "entries": entries}


if __name__ == "__main__":
    import peers
    peers.main(["--only", "matmul_bias_gelu"])
