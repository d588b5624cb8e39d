#!/usr/bin/env python3
"""Runs every suite bundle against its reference with tirx-run:
  suite_gpu.py TIRX_RUN BUNDLES EXPECTED_JSON
PASS: correctness pass; XFAIL: no bundle, waiting on a feature (other than
bufferize, which the bundles emulate) or on the GPU-only `gpu_waiting`;
FAIL: a bundle that fails, or a payload expected to have one without it."""
import json
import os
import subprocess
import sys
import tempfile

run, bundles, expected = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
failed = 0
work = tempfile.mkdtemp()
for name in sorted(expected):
    waiting = [w for w in expected[name].get("waiting", []) if w != "bufferize"]
    waiting += expected[name].get("gpu_waiting", [])
    bundle = os.path.join(bundles, "suite-" + name)
    if not os.path.isdir(bundle):
        outcome = "XFAIL" if waiting else "FAIL"
        print("%s %s: no bundle%s" % (outcome, name, " (waiting on %s)" % ", ".join(waiting) if waiting else ""))
        failed += outcome == "FAIL"
        continue
    out = os.path.join(work, name + ".json")
    subprocess.run([run, bundle, "--reference", bundle + "-ref", "--samples", "10", "-o", out])
    try:
        f = json.load(open(out))
        f = f[0] if isinstance(f, list) else f
        ok = f.get("correctness") == "pass"
        detail = "%s (rel L2 %s)" % (f.get("correctness"), f.get("rel_l2_error"))
    except (OSError, ValueError, IndexError):
        ok, detail = False, "no feedback"
    outcome = ("XPASS" if waiting else "PASS") if ok else ("XFAIL" if waiting else "FAIL")
    failed += outcome == "FAIL"
    print("%s %s: %s" % (outcome, name, detail))
print("suite on the GPU: %d failure(s)" % failed)
sys.exit(1 if failed else 0)
