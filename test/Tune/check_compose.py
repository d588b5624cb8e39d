"""Checks of block_compose.py on a block-bench.test run (OUT): the composed
bundle of the automatic schedules launches exactly what the whole payload's
own `tirx auto` bundle launches (grids, blocks, arguments: the same
parameters and scratch buffers, in the same order), tirx-run accepts the
composed manifests (on a host without a GPU: no_device, not a manifest
error), and --version puts another version of one kernel in its place.
Prints a line a check for FileCheck."""
import glob
import json
import os
import subprocess
import sys

src, out, tirx_run = sys.argv[1:4]
compose = os.path.join(src, "examples", "bench", "block_compose.py")
payload = os.path.join(src, "test", "Tune", "Inputs", "block-small.mlir")
block = json.load(open(os.path.join(out, "block.json")))
whole = json.load(open(os.path.join(out, "whole", "bundles", block["whole"]["version"],
                                    "manifest.json")))
auto = json.load(open(os.path.join(out, "composed-auto", "manifest.json")))


def launches(m):
    return [(k["grid"], k["block"], k["args"]) for k in m["kernels"]]


print("same launches as the whole auto bundle:", launches(auto) == launches(whole),
      len(auto["kernels"]))
print("same scratch:", [s["shape"] for s in auto["scratch"]] ==
      [s["shape"] for s in whole["scratch"]], "same params:", auto["params"] == whole["params"])
print("flops:", sum(k["flops"] for k in auto["kernels"]) == sum(k["flops"] for k in whole["kernels"]))

for which in ("auto", "best"):
    fb = os.path.join(out, "check-%s.json" % which)
    r = subprocess.run([tirx_run, os.path.join(out, "composed-" + which), "-o", fb],
                       capture_output=True, text=True)
    status = json.load(open(fb)) if os.path.exists(fb) else {}
    status = status[0] if isinstance(status, list) else status
    print("tirx-run %s: manifest %s, launch %s" % (
        which, "refused" if r.returncode == 2 else "accepted",
        status.get("launch_status") if r.returncode != 2 else r.stderr.strip()))

# Another version of the hottest kernel (the most candidates in the tune):
# a bundle of its workspace other than the profile's.
ws = os.path.join(out, "ws")
profile = json.load(open(os.path.join(ws, "profile.json")))["kernels"]
hot, hot_version = profile[0]["name"], profile[0]["version"]
kept = [k["name"] for k in profile if k["name"] != hot][0]
others = sorted(os.path.basename(d) for d in glob.glob(os.path.join(ws, "kernels", hot,
                                                                     "bundles", "v*"))
                if "-" not in os.path.basename(d) and os.path.basename(d) != hot_version)
other = others[0]
dest = os.path.join(out, "composed-other")
r = subprocess.run([sys.executable, compose, payload, ws,
                    os.path.join(out, "whole", "bundles", "v1-reference"), dest,
                    "--version=%s=%s" % (hot, other)], capture_output=True, text=True)
summary = json.loads(r.stdout)
m = json.load(open(os.path.join(dest, "manifest.json")))
mine = json.load(open(os.path.join(ws, "kernels", hot, "bundles", other,
                                   "manifest.json")))
picked = [k for k in m["kernels"] if k["ptx"].startswith(hot + "-")]
print("--version:", hot, summary["versions"][hot] == other,
      [(k["grid"], k["block"]) for k in picked] == [(k["grid"], k["block"]) for k in mine["kernels"]],
      "others kept:", summary["versions"][kept] == block["composed"]["auto"]["versions"][kept])
