#!/usr/bin/env python3
"""Runs bundles with tirx-run and compares their outputs with a host
computation (plain Python, in double precision), so that the reference is
checked too, not only the schedules against it (issue 13):

  check_host.py --tirx-run RUN --bundles DIR [--seed N] EXAMPLE:BUNDLE...

For each bundle: `tirx-run BUNDLE --seed N --inputs 1 --dump-io D` writes
input set 0's buffers before and after the first launch; the example's
formula (below, written from examples/<example>.mlir) computes the
expected outputs from the inputs; every output buffer is compared with
tirx-run's tolerances (element: atol + rtol |want| + rmsRel rms(want);
buffer: relative L2 error at most rtol). One line per bundle; exit 1 if any
bundle is off, 2 if one could not run.
"""

import argparse
import array
import json
import math
import os
import subprocess
import sys
import tempfile

# tirx-run's tolerances (docs/feedback.md): rtol, atol, rmsRel.
TOL = {"ieee": (1e-4, 1e-5, 1e-5), "tf32": (2e-3, 1e-5, 1e-2)}


def rows(flat, n):
    return [flat[i:i + n] for i in range(0, len(flat), n)]


def saxpy(p, a):
    return {"y": [a["a"] * x + y for x, y in zip(p["x"], p["y"])]}


def matmul(p, a):
    n = a["shape"]["C"][1]
    k = a["shape"]["A"][1]
    A, B, C = rows(p["A"], k), rows(p["B"], n), rows(p["C"], n)
    out = []
    for i, arow in enumerate(A):
        for j in range(n):
            out.append(C[i][j] + math.fsum(arow[q] * B[q][j] for q in range(k)))
    return {"C": out}


def rowsum(p, a):
    n = a["shape"]["x"][1]
    return {"s": [s + math.fsum(r) for s, r in zip(p["s"], rows(p["x"], n))]}


def rmsnorm(p, a):
    n = a["shape"]["x"][1]
    out = []
    for r in rows(p["x"], n):
        inv = 1 / math.sqrt(math.fsum(v * v for v in r) * 9.765625e-04 + 1e-6)
        out += [v * inv for v in r]
    return {"y": out}


def softmax(p, a):
    n = a["shape"]["x"][1]
    out = []
    for r in rows(p["x"], n):
        m = max(r)
        e = [math.exp(v - m) for v in r]
        s = math.fsum(e)
        out += [v / s for v in e]
    return {"y": out}


def layernorm(p, a):
    n = a["shape"]["x"][1]
    out = []
    for r in rows(p["x"], n):
        mean = math.fsum(r) * 1.220703125e-04
        var = math.fsum((v - mean) ** 2 for v in r) * 1.220703125e-04
        inv = 1 / math.sqrt(var + 1e-5)
        out += [(v - mean) * inv * w + b for v, w, b in zip(r, p["weight"], p["bias"])]
    return {"y": out}


FORMULAS = {"saxpy": saxpy, "matmul": matmul, "rowsum": rowsum,
            "rmsnorm": rmsnorm, "softmax": softmax, "layernorm": layernorm}


def compare(got, want, tol):
    rtol, atol, rms_rel = tol
    rms = math.sqrt(math.fsum(w * w for w in want) / len(want))
    bad, first = 0, None
    for i, (g, w) in enumerate(zip(got, want)):
        if not abs(g - w) <= atol + rtol * abs(w) + rms_rel * rms:
            bad += 1
            if first is None:
                first = (i, g, w)
    dd = math.fsum((g - w) ** 2 for g, w in zip(got, want))
    ww = math.fsum(w * w for w in want)
    rel = math.sqrt(dd / ww) if ww > 0 else (0.0 if dd == 0 else math.inf)
    if math.isnan(dd):
        rel = math.inf
    return bad, first, rel


def check(args, example, bundle):
    d = os.path.join(args.bundles, bundle)
    manifest = json.load(open(os.path.join(d, "manifest.json")))
    dump = tempfile.mkdtemp(prefix="tirx-host-")
    cmd = [args.tirx_run, d, "--seed", str(args.seed), "--inputs", "1",
           "--samples", "10", "--dump-io", dump, "-o", os.path.join(dump, "fb.json")]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode not in (0, 1):
        print("%s: tirx-run failed (exit %d): %s" % (bundle, r.returncode, r.stderr.strip()))
        return 2
    attrs = {"shape": {}}
    ins, outs, roles = {}, {}, {}
    for p in manifest["params"]:
        if p["kind"] == "scalar":
            attrs[p["name"]] = p["value"]
            continue
        if p["type"] != "f32":
            print("%s: %s is %s; only f32 is computed here" % (bundle, p["name"], p["type"]))
            return 2
        attrs["shape"][p["name"]] = p["shape"]
        roles[p["name"]] = p["role"]
        for suffix, into in ((".in", ins), (".out", outs)):
            a = array.array("f")
            a.frombytes(open(os.path.join(dump, p["name"] + suffix), "rb").read())
            into[p["name"]] = list(a)
    want = FORMULAS[example](ins, attrs)
    tol = TOL.get(manifest.get("math", "ieee"), TOL["ieee"])
    worst, status = 0.0, 0
    for name, w in want.items():
        bad, first, rel = compare(outs[name], w, tol)
        worst = max(worst, rel)
        if bad or not rel <= tol[0]:
            status = 1
            where = "" if first is None else "; first %s[%d]: got %.7g, want %.7g" % (
                name, first[0], first[1], first[2])
            print("%s: MISMATCH with the host in %s: %d of %d elements beyond "
                  "tolerance, relative L2 error %.3g%s" % (bundle, name, bad, len(w), rel, where))
    for name, role in roles.items():
        if role == "in" and outs[name] != ins[name]:
            status = 1
            print("%s: input %s changed" % (bundle, name))
    if status == 0:
        print("%s: matches the host (%s, relative L2 error %.1e, seed %d)" % (
            bundle, example, worst, args.seed))
    return status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tirx-run", required=True)
    ap.add_argument("--bundles", required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("cases", nargs="+", metavar="EXAMPLE:BUNDLE")
    args = ap.parse_args()
    worst = 0
    for case in args.cases:
        example, _, bundle = case.partition(":")
        worst = max(worst, check(args, example, bundle))
    return worst


if __name__ == "__main__":
    sys.exit(main())
