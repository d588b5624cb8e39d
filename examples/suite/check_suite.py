#!/usr/bin/env python3
"""The payload suite, compile-only: for each payload in examples/suite,
`tirx init`, `tirx apply --recipe recipes/<name>.json`, `tirx auto`, and
the export of each result as a bundle (`tirx-opt --tirx-export-bundle`).

  check_suite.py --bin BUILD/bin [--only NAME,...] [--jobs N] [--strict]
                 [--write-recipes] [--keep DIR]

Expectations come from expected.json: a payload's `waiting` lists the
features it waits on (bufferize, tails, dynamic_shapes, ...); with none it
must pass. Tensor payloads take the `bufferize` action first (their
recipes begin with it; `tirx auto` applies it itself).

Outcomes: PASS, XFAIL (fails as expected, waiting on ...), XPASS (listed
as waiting but passes now: take the feature off its list), FAIL (listed as
passing, fails). Exit status 1 on any FAIL (and on XPASS with --strict).
--write-recipes writes recipes/<name>.json from the actions `tirx auto`
took where it reached a bundle.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def payloads():
    return sorted(f[:-5] for f in os.listdir(HERE) if f.endswith(".mlir"))


class Runner:
    def __init__(self, bindir, work):
        self.tirx_bin = os.path.join(bindir, "tirx")
        self.opt = os.path.join(bindir, "tirx-opt")
        self.work = work

    def run(self, *args):
        p = subprocess.run(list(args), capture_output=True, text=True, timeout=900)
        return p.returncode, p.stdout, p.stderr

    def tirx(self, ws, *args):
        rc, out, err = self.run(self.tirx_bin, *args, "--workspace", ws, "--json")
        try:
            return json.loads(out)
        except ValueError:
            return {"ok": False, "error": {"code": "no_json", "message": (out + err)[-400:]}}

    def export(self, ws, version, name):
        """The version's bundle; None when it exports, else the error."""
        shown = self.tirx(ws, "show", version)
        if not shown.get("ok"):
            return "show failed"
        mlir = os.path.join(self.work, name + ".mlir")
        with open(mlir, "w") as f:
            f.write(shown["ir"])
        rc, out, err = self.run(self.opt, mlir, "--tirx-export-bundle=dir=%s ir-version=%s"
                                % (os.path.join(self.work, name), name), "-o", "/dev/null")
        if rc != 0 or "error:" in err:
            return "export: " + (err.strip().splitlines() or ["exit %d" % rc])[0][:300]
        return None


def last_version(result):
    versions = result.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[-1], str):
        return versions[-1]
    v = result.get("version")
    return v.get("id") if isinstance(v, dict) else None


def error_of(result):
    e = result.get("error") or {}
    return "%s: %s" % (e.get("code"), (e.get("message") or "")[:300])


def check_payload(r, name, recipe_dir, write_recipes, bundles=None, recipes_only=False):
    """Runs every check of one payload; returns {check: (ok, detail)}.
    With `bundles`, the recipe's bundle goes to bundles/suite-<name> and its
    reference (the seed, mapped plainly: tirx-map-reference bufferizes a
    tensor seed as the bufferize action does) to
    bundles/suite-<name>-ref."""
    path = os.path.join(HERE, name + ".mlir")
    out = {}
    reference = path
    ws = os.path.join(r.work, "ws-" + name)
    shutil.rmtree(ws, ignore_errors=True)
    init = r.tirx(ws, "init", path)
    if not init.get("ok"):
        return {"init": (False, error_of(init))}
    recipe = os.path.join(recipe_dir, name + ".json")
    for prefix, start in [("", "v1")]:
        if os.path.exists(recipe):
            steps = json.load(open(recipe))
            rfile = os.path.join(r.work, name + "-" + start + "-recipe.json")
            json.dump(steps, open(rfile, "w"))
            a = r.tirx(ws, "apply", start, "--recipe", rfile)
            if a.get("ok"):
                e = r.export(ws, last_version(a), name + "-" + start + "-recipe")
                out[prefix + "recipe"] = (e is None, e or last_version(a))
                if e is None and bundles:
                    made = os.path.join(r.work, name + "-" + start + "-recipe")
                    shutil.rmtree(os.path.join(bundles, "suite-" + name), ignore_errors=True)
                    shutil.copytree(made, os.path.join(bundles, "suite-" + name))
                    # A reference written by hand where tirx-map-reference
                    # cannot map the seed (a leading reduction loop).
                    hand = os.path.join(HERE, "refs", name + ".mlir")
                    rc, _, err = r.run(r.opt, hand if os.path.exists(hand) else reference,
                                       "--tirx-map-reference",
                                       "--tirx-export-bundle=dir=%s ir-version=%s-ref" % (
                                           os.path.join(bundles, "suite-" + name + "-ref"), name),
                                       "-o", "/dev/null")
                    if rc != 0 or "error:" in err:
                        out[prefix + "reference"] = (False, err.strip()[:300])
            else:
                out[prefix + "recipe"] = (False, error_of(a))
        if recipes_only:
            continue
        a = r.tirx(ws, "auto", start)
        final = a.get("final_version")
        if a.get("ok"):
            e = r.export(ws, final, name + "-" + start + "-auto")
            out[prefix + "auto"] = (e is None, e or final)
            if e is None and write_recipes:
                steps = [s["action"] for s in a.get("steps", []) if s.get("ok")]
                with open(recipe, "w") as f:
                    f.write("[\n" + ",\n".join("  " + json.dumps(s, sort_keys=True)
                                               for s in steps) + "\n]\n")
        else:
            out[prefix + "auto"] = (False, error_of(a))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--write-recipes", action="store_true")
    ap.add_argument("--keep", default="")
    ap.add_argument("--bundles", default="", help="write the recipes' bundles and references here")
    ap.add_argument("--recipes-only", action="store_true", help="skip tirx auto")
    ap.add_argument("--recipes", default=os.path.join(HERE, "recipes"))
    args = ap.parse_args()
    expected = json.load(open(os.path.join(HERE, "expected.json")))
    names = [n for n in payloads() if not args.only or n in args.only.split(",")]
    missing = [n for n in names if n not in expected]
    if missing:
        print("FAIL: no expectation in expected.json for: " + ", ".join(missing))
        return 1
    if args.bundles:
        os.makedirs(args.bundles, exist_ok=True)
    work = args.keep or tempfile.mkdtemp(prefix="tirx-suite-")
    os.makedirs(work, exist_ok=True)
    r = Runner(args.bin, work)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(zip(names, pool.map(
            lambda n: check_payload(r, n, args.recipes, args.write_recipes,
                                    os.path.abspath(args.bundles) if args.bundles else None,
                                    args.recipes_only), names)))
    counts = {"PASS": 0, "XFAIL": 0, "XPASS": 0, "FAIL": 0}
    for name in names:
        waiting = expected[name].get("waiting", [])
        for check, (ok, detail) in sorted(results[name].items()):
            wait = [] if check.startswith("init") else waiting
            if ok:
                outcome = "XPASS" if wait else "PASS"
            else:
                outcome = "XFAIL" if wait else "FAIL"
            counts[outcome] += 1
            note = ""
            if outcome == "XFAIL":
                note = " (waiting on %s): %s" % (", ".join(wait), detail)
            elif outcome == "XPASS":
                note = " (listed as waiting on %s: take it off expected.json)" % ", ".join(wait)
            elif outcome == "FAIL":
                note = ": " + str(detail)
            print("%-5s %s: %s%s" % (outcome, name, check, note))
    print("suite: %d PASS, %d XFAIL, %d XPASS, %d FAIL over %d payloads"
          % (counts["PASS"], counts["XFAIL"], counts["XPASS"], counts["FAIL"], len(names)))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if counts["FAIL"] or (args.strict and counts["XPASS"]) else 0


if __name__ == "__main__":
    sys.exit(main())
