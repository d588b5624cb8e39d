#!/usr/bin/env python3
"""Runs a scheduled matmul payload on the CPU, a warp's 32 lanes in
lockstep, and compares C with the product computed here:

  tirx-opt payload.mlir --transform-interpreter --mlir-print-op-generic \\
      --mlir-print-local-scope | emulate_warps.py [--seed N]

The payload is the IR the transforms leave before map_to_gpu (foralls
mapped to blocks and warps; linalg.copy; nvgpu.ldmatrix and nvgpu.mma.sync
as the PTX ISA describes ldmatrix and mma.sync's fragments; the cp.async
groups of transform.tirx.pipeline). Blocks and warps run one after another;
an asynchronous copy (linalg.copy {tirx.async_copy}) lands only when a
nvvm.cp.async.wait.group forces its group, the latest the hardware allows,
so a computation that reads a tile before its wait reads stale data or the
poison of a fresh buffer (an error). Inputs are small integers divided by
4: every product and sum is exact, the comparison is for equality.

With -split-input-file output (chunks joined by "// -----"), each chunk's
first func. Prints `NAME: C M x N, max |error| E, mismatches K` for each
and exits 1 on any mismatch or error.
"""
import argparse
import random
import re
import sys

DYNAMIC = -9223372036854775808


class Op:
    def __init__(self, results, name, operands, rest):
        self.results, self.name, self.operands = results, name, operands
        self.rest = rest          # properties, attributes and types
        self.regions = []

    def attr(self, pattern, default=None):
        m = re.search(pattern, self.rest)
        return m.group(1) if m else default

    def result_type(self):
        return self.rest.rsplit("->", 1)[-1].strip()


class Block:
    def __init__(self, args):
        self.args, self.ops = args, []


HEADER = re.compile(r'^\s*(?:(?P<res>%[\w#:, %]+?)\s*=\s*)?"(?P<name>[\w.]+)"\((?P<ops>[^)]*)\)(?P<rest>.*)$')


def parse(lines):
    """The ops of the module's body: a stack of open ops and blocks."""
    top = Block([])
    stack = [(None, top)]
    for line in lines:
        s = line.strip()
        if not s or s.startswith("//"):
            continue
        op, block = stack[-1]
        if s.startswith("^bb"):
            args = re.findall(r"(%[\w]+):", s)
            nb = Block(args)
            if op.regions[-1] == [block] and not block.ops:
                op.regions[-1][0] = nb   # the entry block, named
            else:
                op.regions[-1].append(nb)
            stack[-1] = (op, nb)
            continue
        if s.startswith("}, {"):
            op.regions.append([Block([])])
            stack[-1] = (op, op.regions[-1][0])
            continue
        if s.startswith("})"):
            op.rest += s[2:]
            stack.pop()
            continue
        m = HEADER.match(s)
        if not m:
            continue
        results = []
        if m.group("res"):
            for r in m.group("res").split(","):
                r = r.strip()
                if ":" in r:
                    base, count = r.split(":")
                    results += ["%s#%d" % (base, i) for i in range(int(count))]
                else:
                    results.append(r)
        operands = [o.strip() for o in m.group("ops").split(",") if o.strip()]
        rest = m.group("rest")
        new = Op(results, m.group("name"), operands, rest)
        block.ops.append(new)
        if rest.rstrip().endswith("({"):
            new.regions.append([Block([])])
            stack.append((new, new.regions[-1][0]))
    return top


def memref_type(text):
    m = re.match(r"memref<([^,>]*)", text)
    dims = m.group(1).split("x")
    return [int(d) for d in dims[:-1]], dims[-1]


def ints(text):
    return [int(v) for v in re.findall(r"-?\d+", text)]


class MemRef:
    def __init__(self, buf, offset, shape, strides, shared=False):
        self.buf, self.offset, self.shape, self.strides = buf, offset, shape, strides
        self.shared = shared

    def addr(self, index):
        for i, (x, n) in enumerate(zip(index, self.shape)):
            if not 0 <= x < n:
                raise RuntimeError("index %s out of bounds %s" % (index, self.shape))
        return self.offset + sum(x * s for x, s in zip(index, self.strides))

    def load(self, index):
        v = self.buf[self.addr(index)]
        if v is None:
            raise RuntimeError("read of shared memory never written")
        return v

    def store(self, index, v):
        self.buf[self.addr(index)] = v

    def elements(self):
        def rec(prefix, dims):
            if not dims:
                yield prefix
                return
            for i in range(dims[0]):
                yield from rec(prefix + [i], dims[1:])
        return rec([], self.shape)


def affine(map_text, dims, syms):
    m = re.match(r"affine_map<\(([^)]*)\)(?:\[([^\]]*)\])? -> \((.*)\)>", map_text)
    names = [d.strip() for d in m.group(1).split(",") if d.strip()]
    snames = [s.strip() for s in (m.group(2) or "").split(",") if s.strip()]
    expr = m.group(3)
    expr = expr.replace("floordiv", "//").replace(" mod ", " % ")
    env = dict(zip(names, dims))
    env.update(zip(snames, syms))
    return eval(expr, {}, env)


class Machine:
    def __init__(self):
        self.pending, self.groups = [], []
        self.lanes = 1

    def run_block(self, block, env):
        for op in block.ops:
            r = self.run(op, env)
            if op.name in ("scf.yield", "func.return", "scf.forall.in_parallel"):
                return r
        return None

    def get(self, env, name):
        v = env[name]
        if len(v) == 1 and self.lanes > 1:
            return v * self.lanes
        return v

    def uniform(self, env, name):
        v = env[name]
        if any(x != v[0] for x in v):
            raise RuntimeError("%s varies across lanes" % name)
        return v[0]

    def set(self, env, op, values):
        for r, v in zip(op.results, values):
            env[r] = v

    def lanewise(self, env, op, fn):
        args = [self.get(env, o) for o in op.operands]
        out = [fn(*[a[l] for a in args]) for l in range(self.lanes)]
        self.set(env, op, [out])

    def copy(self, src, dst):
        for idx in src.elements():
            dst.store(idx, src.load(idx))

    def run(self, op, env):
        n = op.name
        if n == "arith.constant":
            text = op.attr(r"value = ([^:]+) :").strip()
            val = float(text) if ("." in text or "e" in text) and "true" not in text else int(text)
            self.set(env, op, [[val]])
        elif n in ("arith.addi", "arith.subi", "arith.muli", "arith.divui",
                   "arith.remui", "arith.minui", "arith.maxui", "arith.addf", "arith.mulf"):
            f = {"arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
                 "arith.muli": lambda a, b: a * b, "arith.divui": lambda a, b: a // b,
                 "arith.remui": lambda a, b: a % b, "arith.minui": min, "arith.maxui": max,
                 "arith.addf": lambda a, b: a + b, "arith.mulf": lambda a, b: a * b}[n]
            self.lanewise(env, op, f)
        elif n == "arith.cmpi":
            pred = int(op.attr(r"predicate = (\d+)"))
            f = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b,
                 3: lambda a, b: a <= b, 4: lambda a, b: a > b, 5: lambda a, b: a >= b,
                 6: lambda a, b: a < b, 7: lambda a, b: a <= b, 8: lambda a, b: a > b,
                 9: lambda a, b: a >= b}[pred]
            self.lanewise(env, op, f)
        elif n == "affine.apply":
            mp = op.attr(r"map = (affine_map<.*?>)[,}]")
            nd = len([d for d in re.match(r"affine_map<\(([^)]*)\)", mp).group(1).split(",") if d.strip()])
            self.lanewise(env, op, lambda *a: affine(mp, a[:nd], a[nd:]))
        elif n == "gpu.lane_id":
            self.set(env, op, [list(range(self.lanes))])
        elif n in ("gpu.barrier", "linalg.yield", "scf.forall.in_parallel"):
            pass
        elif n == "nvvm.cp.async.commit.group":
            self.groups.append(self.pending)
            self.pending = []
        elif n == "nvvm.cp.async.wait.group":
            keep = int(op.attr(r"n = (\d+)"))
            while len(self.groups) > keep:
                for src, dst in self.groups.pop(0):
                    self.copy(src, dst)
        elif n == "memref.alloc":
            shape, _ = memref_type(op.result_type())
            size = 1
            for d in shape:
                size *= d
            strides = [1] * len(shape)
            for i in range(len(shape) - 2, -1, -1):
                strides[i] = strides[i + 1] * shape[i + 1]
            self.set(env, op, [[MemRef([None] * size, 0, shape, strides, True)]])
        elif n == "memref.dealloc":
            pass
        elif n == "memref.subview":
            src = self.uniform(env, op.operands[0])
            dyn = [self.uniform(env, o) for o in op.operands[1:]]
            offs = ints(op.attr(r"static_offsets = array<i64: ([^>]*)>", ""))
            sizes = ints(op.attr(r"static_sizes = array<i64: ([^>]*)>", ""))
            strides = ints(op.attr(r"static_strides = array<i64: ([^>]*)>", ""))
            it = iter(dyn)
            offs = [next(it) if o == DYNAMIC else o for o in offs]
            sizes = [next(it) if o == DYNAMIC else o for o in sizes]
            strides = [next(it) if o == DYNAMIC else o for o in strides]
            offset = src.offset + sum(o * s for o, s in zip(offs, src.strides))
            new_strides = [a * b for a, b in zip(strides, src.strides)]
            shape, _ = memref_type(op.result_type())
            # Rank reduction: drop the unit dimensions the result lacks.
            keep = [i for i, s in enumerate(sizes) if not (s == 1 and len(sizes) > len(shape))]
            while len(keep) > len(shape):
                keep.pop(0)
            self.set(env, op, [[MemRef(src.buf, offset, [sizes[i] for i in keep],
                                       [new_strides[i] for i in keep], src.shared)]])
        elif n == "memref.load":
            bufs = self.get(env, op.operands[0])
            idx = [self.get(env, o) for o in op.operands[1:]]
            self.set(env, op, [[bufs[l].load([i[l] for i in idx]) for l in range(self.lanes)]])
        elif n == "memref.store":
            vals = self.get(env, op.operands[0])
            bufs = self.get(env, op.operands[1])
            idx = [self.get(env, o) for o in op.operands[2:]]
            for l in range(self.lanes):
                bufs[l].store([i[l] for i in idx], vals[l])
        elif n == "linalg.copy":
            src = self.uniform(env, op.operands[0])
            dst = self.uniform(env, op.operands[1])
            if "tirx.async_copy" in op.rest:
                self.pending.append((src, dst))
            else:
                self.copy(src, dst)
        elif n == "vector.from_elements":
            shape = ints(re.search(r"vector<([\dx]+)x\w+>", op.result_type()).group(1).replace("x", " "))
            vals = [self.get(env, o) for o in op.operands]
            out = []
            for l in range(self.lanes):
                flat = [v[l] for v in vals]
                out.append([flat[r * shape[1]:(r + 1) * shape[1]] for r in range(shape[0])]
                           if len(shape) == 2 else flat)
            self.set(env, op, [out])
        elif n == "vector.extract":
            pos = ints(op.attr(r"static_position = array<i64: ([^>]*)>"))
            def ex(v):
                for p in pos:
                    v = v[p]
                return v
            self.lanewise(env, op, ex)
        elif n == "vector.extract_strided_slice":
            off = ints(op.attr(r"offsets = \[([^\]]*)\]"))[::2] if ": i64" in op.rest else ints(op.attr(r"offsets = \[([^\]]*)\]"))
            size = ints(op.attr(r"sizes = \[([^\]]*)\]"))[::2] if ": i64" in op.rest else ints(op.attr(r"sizes = \[([^\]]*)\]"))
            self.lanewise(env, op, lambda v: [row[off[1]:off[1] + size[1]] for row in v[off[0]:off[0] + size[0]]])
        elif n == "vector.shuffle":
            mask = ints(op.attr(r"mask = array<i64: ([^>]*)>"))
            self.lanewise(env, op, lambda x, y: [(x + y)[i] for i in mask])
        elif n == "nvgpu.ldmatrix":
            self.ldmatrix(op, env)
        elif n == "nvgpu.mma.sync":
            self.mma(op, env)
        elif n == "scf.for":
            lb, ub, st = (self.uniform(env, o) for o in op.operands[:3])
            iters = [self.get(env, o) for o in op.operands[3:]]
            body = op.regions[0][0]
            for i in range(lb, ub, st):
                env[body.args[0]] = [i]
                for a, v in zip(body.args[1:], iters):
                    env[a] = v
                iters = self.run_block(body, env) or []
            self.set(env, op, iters)
        elif n == "scf.yield":
            return [self.get(env, o) for o in op.operands]
        elif n == "scf.if":
            cond = self.uniform(env, op.operands[0])
            if cond:
                self.run_block(op.regions[0][0], env)
            elif len(op.regions) > 1 and op.regions[1][0].ops:
                self.run_block(op.regions[1][0], env)
        elif n == "scf.forall":
            ubs = ints(op.attr(r"staticUpperBound = array<i64: ([^>]*)>"))
            body = op.regions[0][0]
            warps = "#gpu.warp" in op.rest
            def rec(prefix):
                if len(prefix) == len(ubs):
                    for a, v in zip(body.args, prefix):
                        env[a] = [v]
                    saved = self.lanes
                    if warps:
                        self.lanes = 32
                    self.run_block(body, env)
                    self.lanes = saved
                    return
                for i in range(ubs[len(prefix)]):
                    rec(prefix + [i])
            rec([])
        elif n == "func.return":
            return None
        else:
            raise RuntimeError("cannot emulate %s" % n)
        return None

    def ldmatrix(self, op, env):
        bufs = self.get(env, op.operands[0])
        idx = [self.get(env, o) for o in op.operands[1:]]
        tiles = int(op.attr(r"numTiles = (\d+)"))
        trans = op.attr(r"transpose = (\w+)") == "true"
        # Matrix j: the 8 rows whose addresses lanes 8j .. 8j + 7 give.
        mats = []
        for j in range(tiles):
            rows = []
            for r in range(8):
                l = 8 * j + r
                i, k = idx[0][l], idx[1][l]
                rows.append([bufs[l].load([i, k + c]) for c in range(8)])
            mats.append(rows)
        out = []
        for l in range(32):
            g, t = l // 4, l % 4
            regs = []
            for j in range(tiles):
                m = mats[j]
                regs.append([m[2 * t][g], m[2 * t + 1][g]] if trans else [m[g][2 * t], m[g][2 * t + 1]])
            out.append(regs)
        self.set(env, op, [out])

    def mma(self, op, env):
        a, b, c = (self.get(env, o) for o in op.operands)
        mm, nn, kk = ints(op.attr(r"mmaShape = \[([^\]]*)\]"))
        A = [[None] * kk for _ in range(mm)]
        B = [[None] * nn for _ in range(kk)]
        C = [[None] * nn for _ in range(mm)]
        for l in range(32):
            g, t = l // 4, l % 4
            if kk == 16:   # m16n8k16: 2 halves per register
                for i in range(4):
                    for e in range(2):
                        A[g + 8 * (i % 2)][2 * t + 8 * (i // 2) + e] = a[l][i][e]
                for i in range(2):
                    for e in range(2):
                        B[2 * t + 8 * i + e][g] = b[l][i][e]
            else:          # m16n8k8 tf32: 1 element per register
                for i in range(4):
                    A[g + 8 * (i % 2)][t + 4 * (i // 2)] = a[l][i][0]
                for i in range(2):
                    B[t + 4 * i][g] = b[l][i][0]
            for i in range(2):
                for e in range(2):
                    C[g + 8 * i][2 * t + e] = c[l][i][e]
        D = [[C[i][j] + sum(A[i][k] * B[k][j] for k in range(kk)) for j in range(nn)]
             for i in range(mm)]
        out = []
        for l in range(32):
            g, t = l // 4, l % 4
            out.append([[D[g + 8 * i][2 * t + e] for e in range(2)] for i in range(2)])
        self.set(env, op, [out])


def emulate(text, seed):
    """Runs the first func of `text`; returns (line, ok)."""
    module = parse(text.splitlines())
    funcs = []

    def find(block):
        for op in block.ops:
            if op.name == "func.func":
                funcs.append(op)
            for region in op.regions:
                for b in region:
                    find(b)
    find(module)
    func = funcs[0]
    name = func.attr(r'sym_name = "(\w+)"')
    body = func.regions[0][0]
    types = re.search(r"function_type = \((.*?)\) ->", func.rest).group(1)
    shapes = [memref_type(t)[0] for t in re.findall(r"memref<[^>]*>", types)]
    rng = random.Random(seed)
    bufs = [MemRef([rng.randint(-8, 8) / 4 for _ in range(s[0] * s[1])], 0, s, [s[1], 1])
            for s in shapes]
    a, b, c = bufs
    m, k = a.shape
    n = b.shape[1]
    want = [[c.buf[i * n + j] + sum(a.buf[i * k + x] * b.buf[x * n + j] for x in range(k))
             for j in range(n)] for i in range(m)]
    machine = Machine()
    env = {arg: [buf] for arg, buf in zip(body.args, bufs)}
    try:
        machine.run_block(body, env)
    except RuntimeError as e:
        return "%s: error: %s" % (name, e), False
    if machine.pending or machine.groups:
        return "%s: error: copies still pending at the end" % name, False
    err = max(abs(c.buf[i * n + j] - want[i][j]) for i in range(m) for j in range(n))
    bad = sum(1 for i in range(m) for j in range(n) if c.buf[i * n + j] != want[i][j])
    return ("%s: C %d x %d, max |error| %g, mismatches %d" % (name, m, n, err, bad),
            bad == 0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("input", nargs="?", default="-")
    args = p.parse_args()
    text = sys.stdin.read() if args.input == "-" else open(args.input).read()
    ok = True
    # tirx-opt -split-input-file joins its outputs with "// -----".
    for chunk in text.split("// -----"):
        if '"func.func"' not in chunk:
            continue
        line, good = emulate(chunk, args.seed)
        print(line)
        ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
