#!/usr/bin/env python3
"""tirx-cpu-check: a GPU-mapped schedule's arithmetic, checked on the CPU.

Runs a seed payload and a schedule of it (a recipe applied by `tirx`, or a
scheduled .mlir) on the same random inputs on the CPU and compares every
buffer with tirx-run's tolerances (docs/feedback.md):

  seed      --tirx-bufferize (tensor seeds)                      -> loops
  schedule  --tirx-prepare-launches --tirx-emulate-launches      -> loops
  both, with a generated driver, -> LLVM dialect -> mlir-runner (JIT)

The schedule goes through the same TIRx rewrites as its GPU bundle
(tirx-prepare-launches is what tirx-export-bundle runs before outlining);
tirx-emulate-launches runs blocks and threads one after another, warps in
lockstep (docs/testing.md, "Arithmetic checked on the CPU").

Roles need no manifest: a buffer whose initial contents change nothing the
seed computes is an output; the schedule gets it poisoned (NaN, integer
sentinels), so an element it never writes fails. A buffer the seed leaves
unchanged (an input) must come back bit for bit.

  tirx-cpu-check SEED.mlir --recipe R.json [--resize 8192x8192=4x8192 ...]
                 [--size s0=3,s1=1009 ...]   (run-time sizes, tirx.dims)
  tirx-cpu-check SEED.mlir --schedule SCHEDULED.mlir
  tirx-cpu-check SEED.mlir --reference   (the seed's GPU reference mapping)

Exit status: 0 all buffers match, 1 a mismatch (the message names the
buffer, the first element, got and want), 2 the check could not run.
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

# tirx-run's tolerances (lib/Runtime/Check.cpp toleranceFor, derived in
# docs/feedback.md): (rtol, also the relative-L2 limit; atol; rmsRel). The
# CPU computes mma.sync products in f32, so f32 applies to tf32 schedules.
TOLERANCES = {
    "f64": (1e-9, 1e-12, 0.0),
    "f32": (1e-4, 1e-5, 1e-5),
    "f16": (1e-2, 1e-3, 0.0),
    "bf16": (2e-2, 1e-2, 0.0),
}
INT_TYPES = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}
FLOAT_BITS = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16}
NAN_BITS = {"f64": "0x7FF8000000000000", "f32": "0x7FC00000", "f16": "0x7E00",
            "bf16": "0x7FC0"}
# splitmix64 constants, as signed i64.
def s64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v
GOLDEN, MIX1, MIX2 = (s64(0x9E3779B97F4A7C15), s64(0xBF58476D1CE4E5B9),
                      s64(0x94D049BB133111EB))

CPU_LOWERING = [
    "--convert-linalg-to-loops", "--lower-affine", "--convert-vector-to-scf",
    "--lower-affine", "--convert-scf-to-cf", "--expand-strided-metadata",
    "--lower-affine", "--arith-expand", "--convert-vector-to-llvm",
    "--finalize-memref-to-llvm", "--convert-math-to-llvm",
    "--convert-math-to-libm", "--convert-arith-to-llvm",
    "--convert-index-to-llvm", "--convert-cf-to-llvm",
    "--convert-func-to-llvm", "--convert-ub-to-llvm",
    "--reconcile-unrealized-casts",
]


class CheckError(Exception):
    pass


def run(cmd, what):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != 0 or "error:" in p.stderr:
        raise CheckError("%s failed (%s):\n%s" % (
            what, " ".join(os.path.basename(c) if i == 0 else c
                           for i, c in enumerate(cmd[:3])),
            (p.stderr or p.stdout).strip()[-3000:]))
    return p.stdout


# --- the payload function's signature -------------------------------------

def split_top(text, sep=","):
    """Splits at `sep` outside (), <>, [], {} and strings."""
    parts, depth, cur, quote = [], 0, [], False
    for ch in text:
        if quote:
            cur.append(ch)
            quote = ch != '"'
            continue
        if ch == '"':
            quote = True
        elif ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def payload_function(text):
    """(name, [param]) of the first public function with a body."""
    for m in re.finditer(r"func\.func (?:public )?@([\w$.]+)\(", text):
        start = m.end()
        depth, i = 1, start
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        params = []
        for arg in split_top(text[start:i - 1]):
            am = re.match(r"\s*%[\w$.]+\s*:\s*(.*)$", arg, re.S)
            if not am:
                raise CheckError("cannot read the parameter '%s'" % arg.strip())
            rest = am.group(1).strip()
            attrs = ""
            brace = rest.find(" {")
            if rest.startswith("memref<"):
                depth, j = 0, 0
                for j, ch in enumerate(rest):
                    depth += {"<": 1, ">": -1}.get(ch, 0)
                    if depth == 0 and ch == ">":
                        break
                ty, attrs = rest[:j + 1], rest[j + 1:]
            elif brace >= 0:
                ty, attrs = rest[:brace], rest[brace:]
            else:
                ty = rest
            dims = re.search(r'tirx\.dims\s*=\s*\[([^\]]*)\]', attrs)
            name = re.search(r'tirx\.name\s*=\s*"([^"]*)"', attrs)
            value = re.search(r"tirx\.value\s*=\s*([-+0-9.eE]+)", attrs)
            params.append({"type": ty.strip(),
                           "dims": re.findall(r'"([^"]*)"', dims.group(1)) if dims else [],
                           "name": name.group(1) if name else "arg%d" % len(params),
                           "value": value.group(1) if value else None})
        return m.group(1), params
    raise CheckError("no payload function found")


def memref_info(ty):
    m = re.match(r"memref<((?:\d+x)*)(\w+)>$", ty)
    if not m:
        raise CheckError("buffer type %s: only static memrefs with the "
                         "identity layout are checked" % ty)
    shape = [int(d) for d in m.group(1).split("x") if d]
    elem = m.group(2)
    if elem not in TOLERANCES and elem not in INT_TYPES:
        raise CheckError("buffer type %s: element type %s is not checked" %
                         (ty, elem))
    n = 1
    for d in shape:
        n *= d
    return shape, elem, n


# --- the driver ---------------------------------------------------------------

def helpers(elem):
    """fill_<elem>, same_<elem>, cmp_<elem> on memref<?x elem>."""
    is_float = elem in TOLERANCES
    m = "memref<?x%s>" % elem
    bits = FLOAT_BITS.get(elem) or INT_TYPES[elem]
    ity = "i%d" % bits
    if is_float:
        value = """
      %f = arith.uitofp %hi : i64 to f64
      %u = arith.mulf %f, %scale : f64
      %v64 = arith.subf %u, %one : f64
      %v = {conv}
      %p = arith.constant {nan} : {e}
      %val = arith.select %poison, %p, %v : {e}""".format(
            conv="arith.truncf %%v64 : f64 to %s" % elem if elem != "f64"
            else "arith.addf %v64, %zero : f64",
            nan=NAN_BITS[elem], e=elem)
        as_int = lambda x: "arith.bitcast %s : %s to %s" % (x, elem, ity)
    else:
        value = """
      %small = arith.subi %hi, %c16i : i64
      %v = {conv}
      %p = arith.constant -91 : {e}
      %val = arith.select %poison, %p, %v : {e}""".format(
            conv=("arith.trunci %%small : i64 to %s" % elem if elem not in
                  ("i64", "index") else
                  ("arith.index_cast %small : i64 to index" if elem == "index"
                   else "arith.addi %small, %c0i : i64")), e=elem)
        as_int = lambda x: ("arith.index_cast %s : index to i64" % x
                            if elem == "index" else "arith.addi %s, %%c0t : %s" % (x, ity))
    shift = 40 if is_float else 59
    fill = """
  func.func private @fill_{e}(%m: {m}, %seed: i64, %poison: i1) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0i = arith.constant 0 : i64
    %c16i = arith.constant 16 : i64
    %zero = arith.constant 0.0 : f64
    %one = arith.constant 1.0 : f64
    %scale = arith.constant 1.1920928955078125e-07 : f64
    %golden = arith.constant {golden} : i64
    %mix1 = arith.constant {mix1} : i64
    %mix2 = arith.constant {mix2} : i64
    %s30 = arith.constant 30 : i64
    %s27 = arith.constant 27 : i64
    %s31 = arith.constant 31 : i64
    %sh = arith.constant {shift} : i64
    %base = arith.muli %seed, %mix2 : i64
    %n = memref.dim %m, %c0 : {m}
    scf.for %i = %c0 to %n step %c1 {{
      %ii = arith.index_cast %i : index to i64
      %k = arith.addi %ii, %c1i_dummy : i64
      %z0 = arith.muli %k, %golden : i64
      %z1 = arith.addi %z0, %base : i64
      %a1 = arith.shrui %z1, %s30 : i64
      %b1 = arith.xori %z1, %a1 : i64
      %z2 = arith.muli %b1, %mix1 : i64
      %a2 = arith.shrui %z2, %s27 : i64
      %b2 = arith.xori %z2, %a2 : i64
      %z3 = arith.muli %b2, %mix2 : i64
      %a3 = arith.shrui %z3, %s31 : i64
      %z = arith.xori %z3, %a3 : i64
      %hi = arith.shrui %z, %sh : i64{value}
      memref.store %val, %m[%i] : {m}
    }}
    return
  }}""".format(e=elem, m=m, golden=GOLDEN, mix1=MIX1, mix2=MIX2,
               shift=shift, value=value).replace("%c1i_dummy", "%c1i")
    fill = fill.replace("%c0i = arith.constant 0 : i64",
                        "%c0i = arith.constant 0 : i64\n    %c1i = arith.constant 1 : i64")
    same = """
  func.func private @same_{e}(%a: {m}, %b: {m}) -> i1 {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0t = arith.constant 0 : {ity}
    %true = arith.constant true
    %n = memref.dim %a, %c0 : {m}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %true) -> (i1) {{
      %x = memref.load %a[%i] : {m}
      %y = memref.load %b[%i] : {m}
      %xi = {xi}
      %yi = {yi}
      %eq = arith.cmpi eq, %xi, %yi : {cty}
      %next = arith.andi %acc, %eq : i1
      scf.yield %next : i1
    }}
    return %r : i1
  }}""".format(e=elem, m=m, ity=ity, xi=as_int("%x"), yi=as_int("%y"),
               cty="i64" if elem == "index" else ity)
    def to_f64(dst, src):
        if elem == "f64":
            return "%s = arith.addf %s, %%zf : f64" % (dst, src)
        if is_float:
            return "%s = arith.extf %s : %s to f64" % (dst, src, elem)
        if elem == "index":
            return ("%s_i = arith.index_cast %s : index to i64\n      "
                    "%s = arith.sitofp %s_i : i64 to f64" % (dst, src, dst, dst))
        return "%s = arith.sitofp %s : %s to f64" % (dst, src, elem)
    conv_g, conv_w = to_f64("%gf", "%g"), to_f64("%wf", "%w")
    cmp = """
  func.func private @cmp_{e}(%got: {m}, %want: {m}, %rtol: f64, %atol: f64,
                             %rmsrel: f64, %id: i64) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zf = arith.constant 0.0 : f64
    %z0 = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %m1 = arith.constant -1 : i64
    %n = memref.dim %got, %c0 : {m}
    %sums:2 = scf.for %i = %c0 to %n step %c1 iter_args(%sd = %zf, %sw = %zf) -> (f64, f64) {{
      %g = memref.load %got[%i] : {m}
      %w = memref.load %want[%i] : {m}
      {conv_g}
      {conv_w}
      %d = arith.subf %gf, %wf : f64
      %dd = arith.mulf %d, %d : f64
      %ww = arith.mulf %wf, %wf : f64
      %sd2 = arith.addf %sd, %dd : f64
      %sw2 = arith.addf %sw, %ww : f64
      scf.yield %sd2, %sw2 : f64, f64
    }}
    %nn = arith.index_cast %n : index to i64
    %nf = arith.sitofp %nn : i64 to f64
    %ms = arith.divf %sums#1, %nf : f64
    %rms = math.sqrt %ms : f64
    %rmsterm = arith.mulf %rmsrel, %rms : f64
    %res:4 = scf.for %i = %c0 to %n step %c1 iter_args(%bad = %z0, %first = %m1, %fg = %zf, %fw = %zf) -> (i64, i64, f64, f64) {{
      %g = memref.load %got[%i] : {m}
      %w = memref.load %want[%i] : {m}
      {conv_g}
      {conv_w}
      %d = arith.subf %gf, %wf : f64
      %ad = math.absf %d : f64
      %aw = math.absf %wf : f64
      %rt = arith.mulf %rtol, %aw : f64
      %l1 = arith.addf %atol, %rt : f64
      %lim = arith.addf %l1, %rmsterm : f64
      %ok = arith.cmpf ole, %ad, %lim : f64
      %eq = arith.cmpf oeq, %gf, %wf : f64
      %good = arith.ori %ok, %eq : i1
      %r:4 = scf.if %good -> (i64, i64, f64, f64) {{
        scf.yield %bad, %first, %fg, %fw : i64, i64, f64, f64
      }} else {{
        %b2 = arith.addi %bad, %one : i64
        %isfirst = arith.cmpi slt, %first, %z0 : i64
        %ii = arith.index_cast %i : index to i64
        %f2 = arith.select %isfirst, %ii, %first : i64
        %g2 = arith.select %isfirst, %gf, %fg : f64
        %w2 = arith.select %isfirst, %wf, %fw : f64
        scf.yield %b2, %f2, %g2, %w2 : i64, i64, f64, f64
      }}
      scf.yield %r#0, %r#1, %r#2, %r#3 : i64, i64, f64, f64
    }}
    vector.print str "tirx-cmp "
    vector.print %id : i64 punctuation <no_punctuation>
    vector.print str " n "
    vector.print %nn : i64 punctuation <no_punctuation>
    vector.print str " bad "
    vector.print %res#0 : i64 punctuation <no_punctuation>
    vector.print str " first "
    vector.print %res#1 : i64 punctuation <no_punctuation>
    vector.print str " got "
    vector.print %res#2 : f64 punctuation <no_punctuation>
    vector.print str " want "
    vector.print %res#3 : f64 punctuation <no_punctuation>
    vector.print str " sqdiff "
    vector.print %sums#0 : f64 punctuation <no_punctuation>
    vector.print str " sqwant "
    vector.print %sums#1 : f64
    return
  }}""".format(e=elem, m=m, conv_g=conv_g, conv_w=conv_w)
    return fill + same + cmp


def bind_sizes(params, sizes):
    """Each buffer's static type at the run-time sizes (--size NAME=N): the
    `?` of dimension d becomes the size tirx.dims names there. Sets
    p["static"]; p["type"] stays the functions' (dynamic) type."""
    for p in params:
        p["static"] = p["type"]
        if not p["type"].startswith("memref<") or "?" not in p["type"]:
            continue
        m = re.match(r"memref<((?:(?:\d+|\?)x)*)(\w+)>$", p["type"])
        if not m:
            raise CheckError("buffer type %s: only the identity layout is checked" % p["type"])
        extents = [d for d in m.group(1).split("x") if d]
        for d, e in enumerate(extents):
            if e != "?":
                continue
            name = p["dims"][d] if d < len(p["dims"]) else ""
            if not name:
                raise CheckError("dimension %d of %s (%s) has a run-time size no "
                                 "tirx.dims names" % (d, p["name"], p["type"]))
            if name not in sizes:
                raise CheckError("give the run-time size %s (dimension %d of %s) "
                                 "with --size %s=N" % (name, d, p["name"], name))
            extents[d] = str(sizes[name])
        p["static"] = "memref<%s%s>" % ("".join(e + "x" for e in extents), m.group(2))


def driver(params, trials, seed):
    """main(): for each input set, the seed, the roles, the schedule, the
    comparison of every buffer. Buffers are allocated at their static type
    (p["static"]) and passed as the functions' type."""
    lines = ["  func.func @main() {",
             "    %false = arith.constant false",
             "    %true = arith.constant true",
             "    %zf = arith.constant 0.0 : f64"]
    bufs = [(k, p) for k, p in enumerate(params) if p["type"].startswith("memref<")]
    for k, p in enumerate(params):
        if not p["type"].startswith("memref<"):
            if p["value"] is None:
                raise CheckError("scalar parameter %s has no tirx.value" % p["name"])
            v = p["value"]
            if p["type"] in TOLERANCES and "." not in v and "e" not in v.lower():
                v += ".0"
            lines.append("    %%arg%d = arith.constant %s : %s" % (k, v, p["type"]))
    for k, p in bufs:
        shape, elem, n = memref_info(p["static"])
        p["shape"], p["elem"], p["n"] = shape, elem, n
        for role in "ISTA":
            lines.append("    %%%s%d = memref.alloc() : %s" % (role, k, p["static"]))
            if p["static"] != p["type"]:
                lines.append("    %%d%s%d = memref.cast %%%s%d : %s to %s"
                             % (role, k, role, k, p["static"], p["type"]))
            if len(shape) == 1:
                flat = "%%%s%d" % (role, k)
            else:
                assoc = "[[%s]]" % ", ".join(str(d) for d in range(len(shape)))
                lines.append("    %%c%s%d = memref.collapse_shape %%%s%d %s : %s into memref<%dx%s>"
                             % (role, k, role, k, assoc, p["static"], n, elem))
                flat = "%%c%s%d" % (role, k)
            lines.append("    %%f%s%d = memref.cast %s : memref<%dx%s> to memref<?x%s>"
                         % (role, k, flat, n, elem, elem))
    def call(fn, role):
        args = ", ".join(("%%%s%s%d" % ("d" if p["static"] != p["type"] else "", role, k))
                         if p["type"].startswith("memref<")
                         else "%%arg%d" % k for k, p in enumerate(params))
        types = ", ".join(p["type"] for p in params)
        return "    func.call @%s(%s) : (%s) -> ()" % (fn, args, types)
    for t in range(trials):
        base = seed * 1000 + t * 100
        lines.append("    // input set %d" % t)
        for k, p in bufs:
            lines.append("    %%s%d_%d = arith.constant %d : i64" % (t, k, base + k))
            lines.append("    func.call @fill_%s(%%fI%d, %%s%d_%d, %%false) : (memref<?x%s>, i64, i1) -> ()"
                         % (p["elem"], k, t, k, p["elem"]))
            lines.append("    memref.copy %%I%d, %%S%d : %s to %s" % (k, k, p["static"], p["static"]))
        lines.append(call("tirx_seed", "S"))
        for k, p in bufs:
            # Role: does the seed read buffer k's initial contents?
            for j, q in bufs:
                lines.append("    memref.copy %%I%d, %%A%d : %s to %s" % (j, j, q["static"], q["static"]))
            lines.append("    %%a%d_%d = arith.constant %d : i64" % (t, k, base + 50 + k))
            lines.append("    func.call @fill_%s(%%fA%d, %%a%d_%d, %%false) : (memref<?x%s>, i64, i1) -> ()"
                         % (p["elem"], k, t, k, p["elem"]))
            lines.append(call("tirx_seed", "A"))
            acc = "%true"
            for j, q in bufs:
                lines.append("    %%same%d_%d_%d = func.call @same_%s(%%fA%d, %%fS%d) : (memref<?x%s>, memref<?x%s>) -> i1"
                             % (t, k, j, q["elem"], j, j, q["elem"], q["elem"]))
                lines.append("    %%all%d_%d_%d = arith.andi %s, %%same%d_%d_%d : i1" % (t, k, j, acc, t, k, j))
                acc = "%%all%d_%d_%d" % (t, k, j)
            lines.append("    %%out%d_%d = arith.addi %s, %%false : i1" % (t, k, acc))
            lines.append("    %%unch%d_%d = func.call @same_%s(%%fI%d, %%fS%d) : (memref<?x%s>, memref<?x%s>) -> i1"
                         % (t, k, p["elem"], k, k, p["elem"], p["elem"]))
        for k, p in bufs:
            lines.append("    memref.copy %%I%d, %%T%d : %s to %s" % (k, k, p["static"], p["static"]))
            lines.append("    func.call @fill_%s(%%fT%d, %%s%d_%d, %%out%d_%d) : (memref<?x%s>, i64, i1) -> ()"
                         % (p["elem"], k, t, k, t, k, p["elem"]))
            lines.append("    scf.if %%out%d_%d {" % (t, k))
            lines.append("    } else {")
            lines.append("      memref.copy %%I%d, %%T%d : %s to %s" % (k, k, p["static"], p["static"]))
            lines.append("    }")
        lines.append(call("tirx_schedule", "T"))
        for k, p in bufs:
            rtol, atol, rms = TOLERANCES.get(p["elem"], (0.0, 0.0, 0.0))
            for name, v in (("rtol", rtol), ("atol", atol), ("rms", rms)):
                lines.append("    %%%s%d_%d = arith.constant %.6e : f64" % (name, t, k, float(v)))
                # An input the seed leaves unchanged must come back bit for bit.
                lines.append("    %%%sx%d_%d = arith.select %%unch%d_%d, %%zf, %%%s%d_%d : f64"
                             % (name, t, k, t, k, name, t, k))
            lines.append("    vector.print str \"tirx-role %d %d \"" % (t, k))
            lines.append("    vector.print %%out%d_%d : i1 punctuation <no_punctuation>" % (t, k))
            lines.append("    vector.print str \" \"")
            lines.append("    vector.print %%unch%d_%d : i1" % (t, k))
            lines.append("    %%id%d_%d = arith.constant %d : i64" % (t, k, k))
            lines.append("    func.call @cmp_%s(%%fT%d, %%fS%d, %%rtolx%d_%d, %%atolx%d_%d, %%rmsx%d_%d, %%id%d_%d)"
                         " : (memref<?x%s>, memref<?x%s>, f64, f64, f64, i64) -> ()"
                         % (p["elem"], k, k, t, k, t, k, t, k, t, k, p["elem"], p["elem"]))
    for k, p in bufs:
        for role in "ISTA":
            lines.append("    memref.dealloc %%%s%d : %s" % (role, k, p["static"]))
    lines.append("    return")
    lines.append("  }")
    elems = sorted({p["elem"] for _, p in bufs})
    return "\n".join(helpers(e) for e in elems) + "\n" + "\n".join(lines)


def module_body(text):
    lines = text.strip().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("module"))
    end = max(i for i, l in enumerate(lines) if l.strip() == "}")
    return "\n".join(lines[start + 1:end])


def rename(text, old, new):
    return re.sub(r"@%s\b" % re.escape(old), "@" + new, text)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", help="the seed payload (.mlir)")
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--recipe", help="a recipe (JSON list of actions) applied to the seed")
    how.add_argument("--schedule", help="a scheduled, GPU-mapped payload (.mlir)")
    how.add_argument("--reference", action="store_true",
                     help="check the reference instead: the seed mapped by "
                          "tirx-map-reference, no TIRx rewriting pass")
    ap.add_argument("--resize", action="append", default=[], metavar="OLD=NEW",
                    help="replace OLD by NEW in the seed's text first (smaller sizes)")
    ap.add_argument("--size", action="append", default=[], metavar="NAME=N",
                    help="a run-time size (tirx.dims) of a dynamic payload: its "
                         "buffers are allocated at these sizes")
    ap.add_argument("--bin", default=os.path.dirname(os.path.abspath(sys.argv[0])),
                    help="directory of tirx and tirx-opt")
    ap.add_argument("--llvm-bin", default="/usr/lib/llvm-22/bin",
                    help="directory of mlir-runner (default: /usr/lib/llvm-22/bin)")
    ap.add_argument("--runner-lib", default=None,
                    help="libmlir_c_runner_utils.so (default: beside --llvm-bin)")
    ap.add_argument("--seed", type=int, default=1, dest="rng",
                    help="random seed of the input sets (default 1)")
    ap.add_argument("--trials", type=int, default=2, help="input sets (default 2)")
    ap.add_argument("--keep", help="keep the intermediate files in this directory")
    args = ap.parse_args(argv)

    tirx_opt = os.path.join(args.bin, "tirx-opt")
    tirx = os.path.join(args.bin, "tirx")
    runner = os.path.join(args.llvm_bin, "mlir-runner")
    lib = args.runner_lib or os.path.join(os.path.dirname(args.llvm_bin), "lib",
                                          "libmlir_c_runner_utils.so")
    for path in (tirx_opt, runner, lib):
        if not os.path.exists(path):
            raise CheckError("not found: %s" % path)
    work = args.keep or tempfile.mkdtemp(prefix="tirx-cpu-check-")
    os.makedirs(work, exist_ok=True)
    try:
        seed_text = open(args.seed).read()
        for r in args.resize:
            old, _, new = r.partition("=")
            if not old or old not in seed_text:
                raise CheckError("--resize %s: '%s' is not in the seed" % (r, old))
            seed_text = seed_text.replace(old, new)
        seed_path = os.path.join(work, "seed.mlir")
        open(seed_path, "w").write(seed_text)

        if args.recipe:
            ws = os.path.join(work, "ws")
            shutil.rmtree(ws, ignore_errors=True)
            run([tirx, "init", seed_path, "--workspace", ws], "tirx init")
            p = subprocess.run([tirx, "apply", "v1", "--recipe", args.recipe,
                                "--workspace", ws, "--json"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            out = p.stdout
            try:
                refusal = json.loads(out).get("error") if p.returncode else None
            except ValueError:
                refusal = {"code": "error", "message": (p.stderr or out).strip()[-2000:]}
            if p.returncode:
                raise CheckError("the recipe was refused: %s: %s" % (
                    (refusal or {}).get("code", "error"),
                    (refusal or {}).get("message", (p.stderr or out).strip()[-2000:])))
            ids = re.findall(r'"id":\s*"(v\d+)"', out)
            if not ids:
                raise CheckError("the recipe made no version:\n" + out[-2000:])
            sched_text = run([tirx, "show", ids[-1], "--workspace", ws], "tirx show")
            sched_path = os.path.join(work, "schedule.mlir")
            open(sched_path, "w").write(sched_text)
        else:
            sched_path = args.schedule or seed_path

        seed_passes = ["--tirx-bufferize"] if "tensor<" in seed_text else []
        seed_low = run([tirx_opt, seed_path] + seed_passes + ["--mlir-print-local-scope"],
                       "the seed's preparation")
        if args.reference:
            # The reference path: upstream's mapping inside tirx-map-reference,
            # upstream's cleanups, no TIRx rewriting pass (as
            # tirx-export-bundle{reference=true} lowers it).
            prepare = ["--tirx-map-reference", "--canonicalize", "--cse"]
        else:
            prepare = ["--tirx-prepare-launches"]
        sched_low = run([tirx_opt, sched_path] + prepare +
                        ["--tirx-emulate-launches", "--mlir-print-local-scope"],
                        "the schedule's emulation (%s, tirx-emulate-launches)" %
                        " ".join(p.lstrip("-") for p in prepare))
        name, params = payload_function(seed_low)
        sname, sparams = payload_function(sched_low)
        if [p["type"] for p in params] != [p["type"] for p in sparams]:
            raise CheckError("the schedule's parameters (%s) differ from the seed's (%s)" % (
                ", ".join(p["type"] for p in sparams), ", ".join(p["type"] for p in params)))
        sizes = {}
        for item in args.size:
            for a in item.split(","):
                n, _, v = a.partition("=")
                if not n or not v.isdigit() or int(v) < 1:
                    raise CheckError("--size expects NAME=N with N >= 1, got '%s'" % a)
                sizes[n] = int(v)
        bind_sizes(params, sizes)
        combined = "module {\n%s\n%s\n%s\n}\n" % (
            module_body(rename(seed_low, name, "tirx_seed")),
            module_body(rename(sched_low, sname, "tirx_schedule")),
            driver(params, args.trials, args.rng))
        combined_path = os.path.join(work, "check.mlir")
        open(combined_path, "w").write(combined)
        llvm_path = os.path.join(work, "check.llvm.mlir")
        run([tirx_opt, combined_path] + CPU_LOWERING + ["-o", llvm_path],
            "the lowering to LLVM")
        out = run([runner, llvm_path, "-e", "main", "-entry-point-result=void",
                   "-O2", "-shared-libs=" + lib], "mlir-runner")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    # The verdict, buffer by buffer.
    roles = {}
    failures, summary = [], {}
    trial = -1
    for line in out.splitlines():
        f = line.split()
        if f[:1] == ["tirx-role"]:
            trial, k = int(f[1]), int(f[2])
            roles[k] = ("out" if f[3] == "1" else
                        "in" if f[4] == "1" else "inout")
        elif f[:1] == ["tirx-cmp"]:
            k, n, bad, first = int(f[1]), int(f[3]), int(f[5]), int(f[7])
            got, want, sqd, sqw = f[9], f[11], float(f[13]), float(f[15])
            p = params[k]
            rtol = 0.0 if roles[k] == "in" else TOLERANCES.get(p["elem"], (0.0,))[0]
            if math.isnan(sqd):
                rel = float("nan")
            else:
                rel = math.sqrt(sqd / sqw) if sqw > 0 else (0.0 if sqd == 0 else float("inf"))
            where = "input set %d (seed %d)" % (trial + 1, args.rng)
            if bad:
                idx = first
                multi = []
                for d in reversed(p["shape"]):
                    multi.append(idx % d)
                    idx //= d
                failures.append(
                    "tirx-cpu-check: MISMATCH in %s (%s, %s): %d of %d elements "
                    "beyond tolerance; first %s[%s]: got %s, want %s; relative L2 "
                    "error %.3g, %s" % (
                        p["name"], roles[k], p["elem"], bad, n, p["name"],
                        ", ".join(str(i) for i in reversed(multi)), got, want, rel, where))
            elif not rel <= rtol:
                failures.append(
                    "tirx-cpu-check: MISMATCH in %s (%s, %s): relative L2 error "
                    "%.3g exceeds %g, %s" % (p["name"], roles[k], p["elem"], rel, rtol, where))
            summary[k] = max(summary.get(k, 0.0), rel if rel == rel else float("inf"))
    checked = [k for k, p in enumerate(params) if p["type"].startswith("memref<")]
    if sorted(summary) != checked:
        raise CheckError("the run printed no comparison for some buffers:\n" + out[-2000:])
    for line in failures:
        print(line)
    verdict = "FAIL" if failures else "pass"
    print("tirx-cpu-check: %s: %s on %d input sets (seed %d): %s" % (
        verdict, "reference" if args.reference else os.path.basename(args.recipe or args.schedule),
        args.trials, args.rng,
        "; ".join("%s (%s) rel L2 %.2g" % (params[k]["name"], roles[k], summary[k])
                  for k in checked)))
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except CheckError as e:
        print("tirx-cpu-check: error: %s" % e, file=sys.stderr)
        sys.exit(2)
