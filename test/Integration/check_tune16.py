"""Checks a GPU `tirx tune --json` of a 16-bit 4096^3 matmul (tune16.test):

  check_tune16.py RUN.jsonl WORKSPACE MATH

The automatic schedule (the baseline) uses use_wgmma (an sm_90 workspace:
Hopper's wgmma fed by TMA), its bundle records `math` MATH, it passed the
full check and runs above 100 TFLOP/s."""
import json
import os
import sys

events = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
result = events[-1]
assert result["event"] == "result" and result["ok"], result
base = result["baseline"]
assert base["origin"] == "auto", base
names = [a["transform"] for a in base["schedule"]]
assert "use_wgmma" in names, names
manifest = json.load(open(os.path.join(sys.argv[2], "bundles", base["version"], "manifest.json")))
assert manifest["math"] == sys.argv[3], manifest["math"]
full = base["full"]
assert full["correctness"] == "pass", full
tflops = 2.0 * 4096 ** 3 / (full["median_us"] * 1e-6) / 1e12
print("auto: use_wgmma, math %s, full check pass, %.1f us, %.0f TFLOP/s"
      % (manifest["math"], full["median_us"], tflops))
assert tflops >= 100, tflops
print("best: %s %s" % (result["best"]["version"], result.get("summary", "")))
