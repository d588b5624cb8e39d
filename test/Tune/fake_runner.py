#!/usr/bin/env python3
"""A stand-in for tirx-run where no GPU is: same arguments
(BUNDLE --reference REF -o FEEDBACK --ir-version V [--samples N]
[--inputs N] ...), a feedback file with a synthetic but deterministic time
computed from the bundle's manifest (wider accesses, 512 threads a block and
enough blocks are faster; a little noise from the call count), correctness
"pass". It lets the measuring path of `tirx tune` (screening, full check,
paired runs, database) be tested without a device. Calls are counted in
FAKE_RUNNER_LOG when set."""
import json
import math
import os
import sys

args = sys.argv[1:]
bundle = args[0]
opts = {args[i]: args[i + 1] for i in range(1, len(args) - 1) if args[i].startswith("--") or args[i] == "-o"}
manifest = json.load(open(os.path.join(bundle, "manifest.json")))
time_us = 0.0
for k in manifest["kernels"]:
    widths = [a.get("bytes", 4) for a in k.get("accesses", [])] or [4]
    width = min(widths)
    threads = k["block"][0] * k["block"][1] * k["block"][2]
    blocks = k["grid"][0] * k["grid"][1] * k["grid"][2]
    t = 100.0 * (1.0 + 0.5 * (16 - width) / 16)
    t *= 1.0 + 0.15 * abs(math.log2(threads / 512.0))
    t *= 1.0 + (0.5 if blocks < 264 else 0.0)
    time_us += t
log = os.environ.get("FAKE_RUNNER_LOG")
calls = 0
if log:
    with open(log, "a") as f:
        f.write(bundle + "\n")
    calls = sum(1 for _ in open(log))
samples = int(opts.get("--samples", "100"))
time_us *= 1.0 + 0.001 * ((calls * 7919) % 13)
feedback = {
    "schema_version": 2, "ir_version": opts.get("--ir-version", ""), "payload": "",
    "compile_status": "ok", "launch_status": "ok", "duration_us": time_us,
    "duration_min_us": time_us, "duration_max_us": time_us,
    "duration_mean_us": time_us, "duration_trimmed_mean_us": time_us,
    "sample_count": samples, "bytes_moved": 0, "flops": 0,
    "correctness": "pass", "correctness_inputs": int(opts.get("--inputs", "3")),
    "correctness_detail": "", "buffers": [], "bottleneck": "memory_bound",
    "ghost_check": "caught", "plausible": True,
}
with open(opts["-o"], "w") as f:
    json.dump(feedback, f)
sys.exit(0)
