#!/usr/bin/env python3
"""Runs the peers of the benchmarks in one process (one timer, one torch
import, one Triton and Inductor cache) and writes one JSON file:

  python3 examples/bench/peers.py --samples N [--only saxpy,rowsum] [-o FILE]

Each benchmark's module (<name>_peers.py) has run(timer, samples, keep)
returning {"bytes_moved", "flops", "entries": [...]} (matmul: one such per
size). The file is rewritten after each benchmark, so a run cut short keeps
what it measured. After all timing, each peer is launched once more under
torch.profiler to list the kernels (and copies) one run launches: the
evidence that no extra copy is timed. The profiler runs last so that its
hooks cannot touch a timed sample.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

BENCHES = ["saxpy", "exp-scale", "rowsum", "rmsnorm", "matmul", "matmul_bf16",
           "matmul_f16", "matmul_bias_gelu", "matmul_bf16_sizes", "linear_tf32"]
MODULES = {"saxpy": "saxpy_peers", "exp-scale": "exp_scale_peers",
           "rowsum": "rowsum_peers", "rmsnorm": "rmsnorm_peers",
           "matmul": "matmul_peers", "matmul_bf16": "matmul_bf16_peers",
           "matmul_f16": "matmul_f16_peers",
           "matmul_bias_gelu": "matmul_bias_gelu_peers",
           "matmul_bf16_sizes": "matmul_bf16_sizes_peers",
           "linear_tf32": "linear_tf32_peers"}
# Benchmarks of several sizes: run() returns one result per size suffix,
# listed in the report as PREFIX + suffix.
SIZED = {"matmul": ("matmul", ("256", "2048")),
         "matmul_bf16_sizes": ("matmul_bf16_", ("1024", "2048", "8192", "odd"))}


def driver_version():
    try:
        import ctypes
        v = ctypes.c_int(0)
        ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(v))
        return "%d.%d" % (v.value // 1000, v.value % 1000 // 10)
    except Exception:
        return None


def meta(timer, samples):
    """The run's device, versions and timing settings (the JSON's meta)."""
    import torch
    import triton
    import timing
    props = torch.cuda.get_device_properties(0)
    return {
        "device": torch.cuda.get_device_name(),
        "sm_count": props.multi_processor_count,
        "cuda_driver_api": driver_version(),
        "torch": torch.__version__, "triton": triton.__version__,
        "torch_cuda": torch.version.cuda,
        "compile_mode": timing.COMPILE_MODE,
        "samples": samples or "tirx-run's rule (about 1 s, 10 to 2000)",
        "warmup": timing.WARMUP,
        "l2_bytes": timer.l2_bytes, "flush_bytes": timer.flush_bytes,
        "flush": timer.flush_method,
        "sleep_cycles_per_us": timer.sleep_cycles_per_us,
    }


def list_kernels(keep):
    import torch
    from torch.profiler import profile, ProfilerActivity
    for item in keep:
        entry, fn, prepare = item[:3]
        if entry.get("check") != "pass":
            continue
        try:
            if len(item) > 3:
                torch.set_float32_matmul_precision(
                    "highest" if item[3] == "ieee" else "high")
            prepare()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                fn()
                torch.cuda.synchronize()
            entry["kernels"] = [e.name for e in prof.events()
                                if "CUDA" in str(e.device_type)]
        except Exception as e:
            entry["kernels_error"] = "%s: %s" % (type(e).__name__, e)
    torch.set_float32_matmul_precision("highest")


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--samples", type=int, default=0,
                   help="timed samples per peer (0: tirx-run's rule, about 1 s)")
    p.add_argument("--only", default=",".join(BENCHES))
    p.add_argument("-o", "--output", default="-")
    p.add_argument("--no-profile", action="store_true",
                   help="skip listing each peer's kernels with torch.profiler")
    args = p.parse_args(argv)
    only = [b for b in args.only.split(",") if b]
    for b in only:
        if b not in MODULES:
            p.error("unknown benchmark %r (known: %s)" % (b, ", ".join(BENCHES)))

    import timing
    timer = timing.Timer()
    result = {"meta": meta(timer, args.samples), "benchmarks": {}}
    started = time.time()

    def write():
        result["meta"]["timer_quantum_us"] = timer.resolution_us()
        result["meta"]["peers_wall_s"] = round(time.time() - started, 1)
        text = json.dumps(result, indent=1, default=str)
        if args.output == "-":
            return
        tmp = args.output + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, args.output)

    keep = []
    for b in only:
        t0 = time.time()
        mod = __import__(MODULES[b])
        try:
            r = mod.run(timer, args.samples, keep)
        except Exception as e:  # a benchmark that cannot run is reported
            r = {"error": "%s: %s" % (type(e).__name__, e)}
        if b in SIZED:  # one entry per size, as the report lists them
            prefix, sizes = SIZED[b]
            subs = r if "error" not in r else {n: dict(r) for n in sizes}
            for n, sub in subs.items():
                sub["wall_s"] = round(time.time() - t0, 1)
                result["benchmarks"][prefix + n] = sub
        else:
            r["wall_s"] = round(time.time() - t0, 1)
            result["benchmarks"][b] = r
        print("peers: %s done in %.0f s" % (b, time.time() - t0), file=sys.stderr)
        write()
    if not args.no_profile:
        list_kernels(keep)
    write()
    if args.output == "-":
        print(json.dumps(result, indent=1, default=str))


if __name__ == "__main__":
    main()
