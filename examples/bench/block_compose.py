#!/usr/bin/env python3
"""The kernels of a profiled payload put back together into ONE bundle, so
that the block's schedule (each kernel's automatic schedule, or each
kernel's best from `tirx tune --kernels`) is timed by tirx-run in one run of
the whole block, as torch's block is (block_bench.py's step "compose"):

  python3 examples/bench/block_compose.py PAYLOAD.mlir WS REFERENCE_BUNDLE OUT_BUNDLE
                                          [--version KERNEL=vN]...

WS is the workspace of `tirx profile PAYLOAD.mlir --workspace WS`: its
profile.json lists the kernels in program order, each a workspace
WS/kernels/NAME whose bundles/vN are the versions that were run (the
profile's version of each kernel unless --version names another).
REFERENCE_BUNDLE is the whole payload's reference bundle (`tirx run` of the
payload's seed makes it: bundles/v1-reference): its parameters, the
payload's arguments and results, are the composed bundle's.

Each kernel's bundle takes what its ops read from outside as parameters,
in the order the split reads them (profile: kernelOf), then its results.
Which payload value each parameter is comes from the payload's text: the
operands of the kernel's ops (at the lines profile.json names) that are not
constants, tensor.empty or made inside the kernel; a function argument or
a returned value is the composed bundle's parameter, anything else (an
intermediate) a scratch buffer of the composed bundle, written by the
kernel that makes it before any reads it. Every parameter's shape and
type is checked against the value it stands for; the kernels' own scratch
buffers are kept (renumbered); the kernels are launched in program order,
each with its own PTX and cubin (copied, renamed). A composition that does
not fit (a count or shape that differs, bundles for different chips) is
refused, exit 1, nothing written. Tensor maps follow their buffers: a
parameter's, an intermediate's (a scratch buffer) or a kernel's own
scratch buffer's.

Prints a JSON summary: {"bundle", "launches", "versions", "scratch"}.
"""
import argparse
import json
import os
import re
import shutil
import sys


def one_chip(chips):
    """The composed bundle's (chip, features) from its kernels': one chip,
    or one family where some kernels need its architecture-specific form
    (wgmma: sm_90a and PTX 8.3, the others sm_90): each kernel keeps its
    own PTX and cubin, so the bundle says the most any of them needs."""
    if len(chips) == 1:
        return next(iter(chips))
    bases = {(c or "").rstrip("a") for c, _ in chips}
    if len(bases) != 1:
        raise ComposeError("the kernels were built for different chips: %s" % sorted(map(str, chips)))
    chip = bases.pop() + ("a" if any((c or "").endswith("a") for c, _ in chips) else "")

    def ptx(features):
        try:
            return int((features or "").replace("+ptx", ""))
        except ValueError:
            raise ComposeError("the kernels were built with features %s" % sorted(map(str, chips)))
    return chip, max((f for _, f in chips), key=ptx)


class ComposeError(Exception):
    pass


def parse_payload(text):
    """(args, results, cloned, lines): the function's argument names, its
    returned names, the names of arith.constant and tensor.empty values,
    and the text's lines."""
    m = re.search(r"func\.func\s+@[\w$.]+\s*\((.*?)\)\s*->", text, re.S)
    if not m:
        raise ComposeError("no func.func with results in the payload")
    args = re.findall(r"%([\w$.]+)\s*:", m.group(1))
    ret = re.search(r"\breturn\s+([^:\n]*):", text)
    results = re.findall(r"%([\w$.]+)", ret.group(1)) if ret else []
    cloned = set(re.findall(r"%([\w$.]+)\s*=\s*(?:arith\.constant|tensor\.empty)\b", text))
    return args, results, cloned, text.splitlines()


def op_at(lines, line):
    """(result, operands) of the op that starts at 1-based `line`: its ins
    then its outs, as the op's operand list."""
    if not 1 <= line <= len(lines):
        raise ComposeError("line %d is not in the payload" % line)
    head = re.match(r"\s*%([\w$.]+)\s*=", lines[line - 1])
    if not head:
        raise ComposeError("line %d defines no value: %s" % (line, lines[line - 1].strip()))
    text = ""
    for l in lines[line - 1:line + 20]:
        text += l + "\n"
        if "outs(" in l:
            break
    operands = []
    for part in ("ins", "outs"):
        m = re.search(r"\b%s\(([^:)]*)" % part, text)
        if m:
            operands += re.findall(r"%([\w$.]+)", m.group(1))
    return head.group(1), operands


def where(op):
    """'linalg.matmul at FILE:45:8' -> 45"""
    m = re.search(r":(\d+):\d+$", op)
    if not m:
        raise ComposeError("profile.json: no line in %r" % op)
    return int(m.group(1))


def kernel_values(kernel, lines, cloned):
    """(inputs, results) payload names of a profiled kernel, in its
    parameters' order."""
    ops = [op_at(lines, where(op)) for op in kernel.get("ops") or []]
    if not ops:
        raise ComposeError("profile.json: kernel %s lists no op" % kernel.get("name"))
    made = {r for r, _ in ops}
    inputs = []
    for _, operands in ops:
        for v in operands:
            if v not in cloned and v not in made and v not in inputs:
                inputs.append(v)
    # The last op's value is what the kernel hands on (a fill goes with its
    # consumer: its value is used inside only).
    return inputs, [ops[-1][0]]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ComposeError("%s: %s" % (path, e))


def buffer_of(p):
    return {k: p[k] for k in ("type", "shape", "bytes") if k in p}


def number_by_first_use(scratch, kernels):
    """The scratch buffers renumbered as tirx-export-bundle numbers them: in
    the order the launches first use them (argument by argument, a tensor
    map's buffer where the map is), unused ones last. Rewrites the kernels'
    references; returns the reordered list."""
    order = []
    for kern in kernels:
        for a in kern.get("args") or []:
            for ref in (a, a.get("tensor_map") or {}):
                if "scratch" in ref and ref["scratch"] not in order:
                    order.append(ref["scratch"])
    order += [j for j in range(len(scratch)) if j not in order]
    new = {old: i for i, old in enumerate(order)}
    for kern in kernels:
        for a in kern.get("args") or []:
            for ref in (a, a.get("tensor_map") or {}):
                if "scratch" in ref:
                    ref["scratch"] = new[ref["scratch"]]
    return [scratch[old] for old in order]


def compose(payload, ws, reference, out, versions=None):
    versions = versions or {}
    args, results, cloned, lines = parse_payload(open(payload).read())
    profile = load(os.path.join(ws, "profile.json"))
    ref = load(os.path.join(reference, "manifest.json"))
    params = ref.get("params") or []
    if len(params) != len(args) + len(results):
        raise ComposeError("the reference bundle has %d parameters, the payload %d "
                           "arguments and %d results" % (len(params), len(args), len(results)))
    where_is = {}  # payload name -> {"param": i} or {"scratch": j}
    for i, name in enumerate(args):
        where_is[name] = {"param": i}
    for j, name in enumerate(results):
        where_is[name] = {"param": len(args) + j}
    scratch, kernels, chips, maths, picked = [], [], set(), set(), {}
    files = []
    for k in profile.get("kernels") or []:
        name = k.get("name") or ""
        if not re.fullmatch(r"[\w.-]+", name) or name in (".", ".."):
            raise ComposeError("profile.json: kernel name %r is not a plain name" % name)
        version = versions.get(name) or k.get("version")
        if not version or not re.fullmatch(r"v\d+", version):
            raise ComposeError("kernel %s has no version to compose" % name)
        picked[name] = version
        bundle = os.path.join(ws, "kernels", name, "bundles", version)
        m = load(os.path.join(bundle, "manifest.json"))
        if m.get("sizes"):
            raise ComposeError("%s %s has run-time sizes: not composed" % (name, version))
        inputs, outs = kernel_values(k, lines, cloned)
        kparams = m.get("params") or []
        if len(kparams) != len(inputs) + len(outs):
            raise ComposeError("%s %s has %d parameters, its ops read %d values and make %d"
                               % (name, version, len(kparams), len(inputs), len(outs)))
        slot = []
        for p, value in zip(kparams, inputs + outs):
            if value not in where_is:
                if value not in outs:
                    raise ComposeError("%s reads %%%s before any kernel makes it" % (name, value))
                where_is[value] = {"scratch": len(scratch)}
                scratch.append(dict(buffer_of(p), name="%" + value))
            at = where_is[value]
            want = params[at["param"]] if "param" in at else scratch[at["scratch"]]
            if buffer_of(p).get("shape") != want.get("shape") or p.get("type") != want.get("type"):
                raise ComposeError("%s %s: parameter %s is %s %s, %%%s is %s %s" % (
                    name, version, p.get("name"), p.get("type"), p.get("shape"), value,
                    want.get("type"), want.get("shape")))
            slot.append((at, value))
        offset = len(scratch)
        for s in m.get("scratch") or []:
            scratch.append(dict(s, name="%s.%s" % (name, s.get("name"))))
        chips.add((m.get("chip"), m.get("features")))
        maths.add(m.get("math") or "ieee")
        for kern in m.get("kernels") or []:
            kern = json.loads(json.dumps(kern))
            for a in kern.get("args") or []:
                if "param" in a:
                    at, _ = slot[a["param"]]
                    del a["param"]
                    a.update(at)
                elif "scratch" in a:
                    a["scratch"] = a["scratch"] + offset
                elif "tensor_map" in a:
                    # A map of a parameter, an intermediate (a scratch buffer
                    # of the composed bundle) or the kernel's own scratch
                    # (transpose_operand's copy): the manifest maps either.
                    tm = a["tensor_map"]
                    if "scratch" in tm:
                        tm["scratch"] = tm["scratch"] + offset
                    else:
                        at, _ = slot[tm["param"]]
                        del tm["param"]
                        tm.update(at)
            buffers = {p.get("name"): slot[i][1] for i, p in enumerate(kparams)}
            for acc in kern.get("accesses") or []:
                if acc.get("buffer") in buffers:
                    acc["buffer"] = "%" + buffers[acc["buffer"]]
            for key in ("ptx", "cubin"):
                if kern.get(key):
                    new = "%s-%s" % (name, kern[key])
                    files.append((os.path.join(bundle, kern[key]), new))
                    kern[key] = new
            kernels.append(kern)
    if not kernels:
        raise ComposeError("profile.json lists no kernel")
    scratch = number_by_first_use(scratch, kernels)
    chip, features = one_chip(chips)
    math = "tf32" if "tf32" in maths else ("ieee" if maths == {"ieee"} else sorted(maths)[-1])
    manifest = {"format": "tirx-bundle", "version": 1, "payload": ref.get("payload"),
                "ir_version": "composed", "chip": chip, "features": features, "math": math,
                "params": params, "scratch": scratch, "kernels": kernels}
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for src, dst in files:
        shutil.copyfile(src, os.path.join(out, dst))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return {"bundle": out, "launches": len(kernels), "versions": picked,
            "scratch": len(scratch), "math": math}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("payload")
    ap.add_argument("ws")
    ap.add_argument("reference")
    ap.add_argument("out")
    ap.add_argument("--version", action="append", default=[],
                    help="KERNEL=vN: that kernel's version (default: the profile's)")
    a = ap.parse_args(argv)
    versions = {}
    for item in a.version:
        k, _, v = item.partition("=")
        versions[k] = v
    try:
        print(json.dumps(compose(a.payload, a.ws, a.reference, a.out, versions)))
    except ComposeError as e:
        print("block_compose: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
