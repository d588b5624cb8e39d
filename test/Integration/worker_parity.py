#!/usr/bin/env python3
"""Runs the same candidates one-shot and through the persistent worker
(tirx-run --persistent --mode full) with the same seed, and checks that the
worker's verdicts are the one-shot runner's: same inputs (generated on the
GPU, bit for bit those of the host), same correctness and first mismatch,
same trust fields, errors equal to rounding, timings alike.

  worker_parity.py TIRX_RUN BUNDLES TRUST_DIR
  worker_parity.py TIRX_RUN --group REFERENCE CANDIDATE... [--group ...]

The first form runs the GPU suite's groups (missing bundles are skipped,
but for the saxpy and exp-scale groups); the second the groups given (the
CPU test runs it on the stand-in driver, test/Runner/worker-parity.test).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

run = sys.argv[1]
given = []
if len(sys.argv) > 2 and sys.argv[2] == "--group":
    for word in sys.argv[2:]:
        if word == "--group":
            given.append(None)
        elif given[-1] is None:
            given[-1] = (word, [])
        else:
            given[-1][1].append(word)
    bundles = trust = ""
else:
    bundles, trust = sys.argv[2], sys.argv[3]
B = lambda name: os.path.join(bundles, name)
T = lambda name: os.path.join(trust, name)
# (reference, candidates): every element type the suite has (f32, f16, bf16),
# inout buffers, scalars, several kernels, tf32, wrong and untrustworthy
# kernels.
GROUPS = [
    (B("saxpy-ref"), [B("saxpy-scalar"), B("saxpy-vec4"), B("saxpy-tirx"),
                      B("saxpy-off-by-one"), T("saxpy-honest"),
                      T("saxpy-stateful"), T("saxpy-clobber")]),
    (B("exp-scale-ref"), [B("exp-scale-fused")]),
    (B("matmul-ref"), [B("recipe-matmul-mma")]),
    (B("rowsum-ref"), [B("recipe-rowsum-split")]),
    (T("saxpy-a0"), [T("saxpy-a0")]),
    (T("saxpy-pad"), [T("saxpy-pad")]),
] + [(B("suite-%s-ref" % n), [B("suite-" + n)]) for n in
     ["silu_f16", "rmsnorm_bf16", "permute_0213_f16", "axpby", "colsum_acc",
      "square_1000", "softmax"]]
REQUIRED = {B("saxpy-ref"), B("exp-scale-ref")}
if given:
    GROUPS, REQUIRED = given, {ref for ref, _ in given}

EXACT = ["launch_status", "correctness", "correctness_inputs", "ghost_check",
         "inputs_unchanged", "stateful", "plausible", "seed", "bytes_moved",
         "flops", "payload"]
NEAR = ["max_abs_error", "rel_l2_error"]


def near(a, b):
    if a is None or b is None:
        return a == b
    return abs(a - b) <= 1e-9 + 1e-6 * max(abs(a), abs(b))


def detail(f):
    text = f.get("correctness_detail", "")
    # Which timed launch is read back is drawn at random in each run.
    text = re.sub(r"output of launch \d+ \((the last )?timed\)", "output of launch N", text)
    # An L2 error's last digits depend on the order of the sums.
    return re.sub(r"relative L2 error \S+", "relative L2 error X", text)


def run_all(args, out):
    subprocess.run([run] + args + ["-o", out])
    with open(out) as f:
        data = json.load(f)
    return data if isinstance(data, list) else [data]


failures, work = [], tempfile.mkdtemp()
for n, (ref, candidates) in enumerate(GROUPS):
    present = [c for c in candidates if os.path.isdir(c)]
    if not os.path.isdir(ref) or not present:
        print("SKIP %s: no bundles" % os.path.basename(ref))
        if ref in REQUIRED:
            failures.append("%s: missing" % ref)
        continue
    common = present + ["--reference", ref, "--seed", "42", "--samples", "10"]
    one = run_all(common, os.path.join(work, "%d-one.json" % n))
    per = run_all(["--persistent", "--mode", "full"] + common,
                  os.path.join(work, "%d-worker.json" % n))
    for cand, a, b in zip(present, one, per):
        name = os.path.basename(cand)
        bad = ["%s: one-shot %r, worker %r" % (k, a.get(k), b.get(k))
               for k in EXACT if a.get(k) != b.get(k)]
        bad += ["%s: one-shot %r, worker %r" % (k, a.get(k), b.get(k))
                for k in NEAR if not near(a.get(k), b.get(k))]
        if detail(a) != detail(b):
            bad.append("correctness_detail: one-shot %r, worker %r" %
                       (a.get("correctness_detail"), b.get("correctness_detail")))
        for x, y in zip(a.get("buffers", []), b.get("buffers", [])):
            if x["name"] != y["name"] or x["pass"] != y["pass"] or \
                    not near(x["max_abs_error"], y["max_abs_error"]):
                bad.append("buffer %s: one-shot %r, worker %r" % (x["name"], x, y))
        da, db = a.get("duration_us"), b.get("duration_us")
        if da and db and da > 20 and not 0.75 <= db / da <= 1.33:
            bad.append("median: one-shot %.1f us, worker %.1f us" % (da, db))
        print("%s %s: %s / %s, max abs %s / %s, median %s / %s us%s" % (
            "FAIL" if bad else "ok  ", name, a.get("correctness"),
            b.get("correctness"), a.get("max_abs_error"), b.get("max_abs_error"),
            da, db, "".join("\n    " + x for x in bad)))
        failures += ["%s: %s" % (name, x) for x in bad]
print("worker parity: %d difference(s)" % len(failures))
sys.exit(1 if failures else 0)
