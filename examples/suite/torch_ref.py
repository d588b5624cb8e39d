"""The torch equivalent of every suite payload: name -> (function, inputs).
Inputs are (shape, dtype) pairs, or ("scalar", value); the function takes
them in the payload's parameter order and returns the output (tensors) or
writes it in place (buffer payloads: the last input(s) are the outputs).
Used by bench.py; needs torch only when called."""

F32, F16, BF16 = "float32", "float16", "bfloat16"
N = 8192


def _t():
    import torch
    return torch


def rmsnorm(x, w, eps=1e-6):
    t = _t()
    return x * t.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def _rmsnorm_bf16(x, w, y):
    t = _t()
    xf = x.float()
    y.copy_((xf * t.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(t.bfloat16))


def table():
    t = _t()
    F = t.nn.functional
    return {
        "add_f32": (lambda x, y: x + y, [((N, N), F32), ((N, N), F32)]),
        "add_dynamic": (lambda x, y: x + y, [((N, N), F32), ((N, N), F32)]),
        "silu_f16": (F.silu, [((N, N), F16)]),
        "scale_shift_bf16": (lambda x, a, b: (x.float() * a + b).to(t.bfloat16),
                             [((N, N), BF16), ("scalar", 2.0), ("scalar", 0.5)]),
        "bias_gelu_f32": (lambda x, b: (x + b) * t.sigmoid(1.702 * (x + b)),
                          [((4096, N), F32), ((N,), F32)]),
        "residual_relu": (lambda x, r, y: y.copy_(t.relu(x + r)),
                          [((1 << 26,), F32)] * 3),
        "axpby": (lambda x, y: y.mul_(0.5).add_(x, alpha=2.0), [((1 << 26,), F32)] * 2),
        "exp_prime": (t.exp, [((1000003,), F32)]),
        "square_1000": (lambda x, y: t.addcmul(t.ones_like(x), x, x, out=y),
                        [((1000, 1000), F32)] * 2),
        "relu_4097": (t.relu, [((4097, 4097), F32)]),
        "rowsum": (lambda x: x.sum(dim=1), [((N, N), F32)]),
        "argmax": (lambda x: tuple(t.max(x, dim=1)), [((4096, 1024), F32)]),
        "softmax_named": (lambda x: t.softmax(x, dim=1), [((4096, 4096), F32)]),
        "view_rowsum": (lambda x: x.view(-1, 4096).sum(dim=1), [((16, 512, 4096), F32)]),
        "rowsum_dynamic": (lambda x: x.sum(dim=1), [((N, N), F32)]),
        "rowmax": (lambda x: x.amax(dim=1), [((N, N), F32)]),
        "colmax": (lambda x: x.amax(dim=0), [((N, N), F32)]),
        "colsum_acc": (lambda x, s: s.add_(x.sum(dim=0)), [((N, N), F32), ((N,), F32)]),
        "rowmean": (lambda x: x.mean(dim=1), [((N, N), F32)]),
        "rowsum_long": (lambda x, s: s.add_(x.sum(dim=1)), [((256, 1 << 20), F32), ((256,), F32)]),
        "softmax": (lambda x: t.softmax(x, dim=1), [((N, N), F32)]),
        "layernorm": (lambda x, w, b: F.layer_norm(x, (N,), w, b, eps=1e-5),
                      [((N, N), F32), ((N,), F32), ((N,), F32)]),
        "rmsnorm_weight": (rmsnorm, [((N, N), F32), ((N,), F32)]),
        "rmsnorm_bf16": (_rmsnorm_bf16, [((N, N), BF16), ((N,), BF16), ((N, N), BF16)]),
        "transpose": (lambda x: x.t().contiguous(), [((N, N), F32)]),
        "permute_0213_f16": (lambda x: x.permute(0, 2, 1, 3).contiguous(),
                             [((32, 2048, 32, 128), F16)]),
        "transpose_generic": (lambda x, y: y.copy_(x.t()), [((N, 4096), F32), ((4096, N), F32)]),
        "matmul_f32": (t.matmul, [((4096, 4096), F32)] * 2),
        "matmul_f16": (t.matmul, [((4096, 4096), F16)] * 2),
        "matmul_bf16_odd": (t.matmul, [((1000, 1000), BF16)] * 2),
        "matmul_acc": (lambda a, b, c: c.addmm_(a, b), [((4096, 4096), F32)] * 3),
        "bmm_f16": (t.bmm, [((64, 2048, 128), F16), ((64, 128, 2048), F16)]),
        # torch's nn.Linear in bf16 (cuBLAS sums in f32, returns bf16).
        "linear_bf16": (F.linear, [((4096, 4096), BF16)] * 2),
        "linear_relu": (lambda x, w, b: t.relu(x @ w + b),
                        [((4096, 4096), F32), ((4096, 4096), F32), ((4096,), F32)]),
        "conv2d": (F.conv2d, [((32, 64, 58, 58), F32), ((64, 64, 3, 3), F32)]),
    }


def inputs(spec, device="cuda"):
    t = _t()
    out = []
    for shape, dtype in spec:
        if shape == "scalar":
            out.append(dtype)
        else:
            out.append(t.rand(*shape, device=device, dtype=getattr(t, dtype)) * 2 - 1)
    return out
