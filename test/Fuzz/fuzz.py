"""A seeded fuzzer of TIRx's front doors: `tirx serve` (JSON-RPC messages)
and `tirx apply --action` / `--recipe FILE` (actions and recipes).

Inputs are seeds from the corpus, mutated (bytes, and values inside the
parsed JSON), or generated afresh. For each run it asserts:
  - no crash: the process ends by exit, never by a signal, with a status
    from the documented set;
  - no hang: it ends within a deadline;
  - only JSON on stdout: `tirx serve` writes one JSON-RPC 2.0 answer a line
    (strict JSON: no NaN, no inf), at most one a message;
    `tirx apply --json` writes one JSON document.
A failing input is written to OUT/failures/ and listed. The last line is
`inputs N, runs M, failures F`.

fuzz.py --tirx BIN --payload MLIR --out DIR --corpus DIR
        [--seconds 30] [--seed 1]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--tirx", required=True)
parser.add_argument("--payload", required=True)
parser.add_argument("--out", required=True)
parser.add_argument("--corpus", required=True)
parser.add_argument("--seconds", type=float, default=30)
parser.add_argument("--seed", type=int, default=1)
args = parser.parse_args()

rng = random.Random(args.seed)
os.makedirs(os.path.join(args.out, "failures"), exist_ok=True)
LIMITS = ["--child-seconds", "20", "--child-memory-mb", "2048"]
DEADLINE = 120  # seconds a batch may take before it counts as a hang


def lines(name):
    path = os.path.join(args.corpus, name)
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


seeds = {"rpc": lines("rpc.jsonl"), "action": lines("actions.jsonl"),
         "recipe": lines("recipes.jsonl")}
found = os.path.join(args.corpus, "found")
found_inputs = []
if os.path.isdir(found):
    for name in sorted(os.listdir(found)):
        kind = name.split("-")[0]
        if kind in seeds:
            with open(os.path.join(found, name)) as f:
                found_inputs.append((kind, f.read()))

# Values that broke, or could break, a JSON reader or a tool.
ODD_NUMBERS = ["1e400", "-1e400", "1E-400", "12345678901234567890123",
               "-0", "0.0000000000000000000001", "9007199254740993",
               "18446744073709551616", "1.5", "-1", "0", "2147483648"]
ODD_STRINGS = ["", "v0", "v999999999999", "../x", "/etc/passwd", "v1\u0000",
               "\u202e", "\ud800", "x" * 5000, "v1/../v2", "%s%n", "\\",
               "linalg.generic", "transform.print", "strict", "open",
               "tools/call", "notifications/cancelled"]


def deep(n):
    return "[" * n + "]" * n if rng.random() < 0.5 else "[" * n


def random_value(depth=0):
    r = rng.random()
    if depth > 3 or r < 0.3:
        return rng.choice([None, True, False, rng.randint(-5, 5000),
                           rng.random() * 1e6, rng.choice(ODD_STRINGS),
                           "v%d" % rng.randint(0, 9)])
    if r < 0.6:
        return [random_value(depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["id", "version", "params", "arguments", "name",
                        "transform", "target", "op", "index", "width",
                        "tile_sizes", "x"]): random_value(depth + 1)
            for _ in range(rng.randint(0, 4))}


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


def replace(value, path, new):
    if not path:
        return new
    value[path[0]] = replace(value[path[0]], path[1:], new)
    return value


MARK = "\u0001TOKEN\u0001"


def mutate_json(text):
    """Replaces, removes or adds a value inside the parsed JSON; the result
    may hold raw tokens (1e400, deep nesting) that json.dumps cannot."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    token = None
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(list(paths(value)))
        r = rng.random()
        if r < 0.25:
            token = rng.choice(ODD_NUMBERS + [deep(rng.choice(
                [65, 1000, 100000]))])
            value = replace(value, path, MARK)
        elif r < 0.5:
            value = replace(value, path, random_value())
        elif r < 0.7 and path:
            parent = value
            for key in path[:-1]:
                parent = parent[key]
            del parent[path[-1]]
        else:
            target = value
            for key in path:
                target = target[key]
            if isinstance(target, dict):
                target[rng.choice(ODD_STRINGS[:6] + ["id", "extra"])] = \
                    random_value()
            elif isinstance(target, list):
                target.append(random_value())
    out = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    if token is not None:
        out = out.replace(json.dumps(MARK), token, 1)
    return out


def mutate_bytes(text):
    data = bytearray(text.encode("utf-8", "surrogatepass"))
    for _ in range(rng.randint(1, 8)):
        r = rng.random()
        pos = rng.randint(0, len(data))
        if r < 0.3 and data:
            del data[pos:pos + rng.randint(1, 8)]
        elif r < 0.6:
            data[pos:pos] = bytes(rng.choice(b'{}[]",:\\0123456789e-. \x00\xff')
                                  for _ in range(rng.randint(1, 4)))
        elif r < 0.8 and data:
            start = rng.randint(0, len(data) - 1)
            data[pos:pos] = data[start:start + rng.randint(1, 64)]
        elif data:
            i = rng.randint(0, len(data) - 1)
            data[i] ^= 1 << rng.randint(0, 7)
    return data.decode("utf-8", "replace").replace("\n", " ")


def generate(kind):
    if rng.random() < 0.15:
        # Something fresh: random JSON, or not JSON at all.
        if rng.random() < 0.5:
            return json.dumps(random_value())
        return deep(rng.choice([64, 65, 40000, 100000]))
    text = rng.choice(seeds[kind])
    for _ in range(rng.randint(1, 3)):
        text = mutate_json(text) if rng.random() < 0.6 else mutate_bytes(text)
    return text


failures = []
stats = {"inputs": 0, "runs": 0}


def fail(kind, text, why):
    n = len(failures)
    path = os.path.join(args.out, "failures", "%s-%03d.txt" % (kind, n))
    with open(path, "wb") as f:
        f.write(text.encode("utf-8", "surrogatepass"))
    failures.append("%s: %s (input: %s)" % (kind, why, path))


def strict_json(line):
    def refuse(constant):
        raise ValueError("non-JSON constant " + constant)
    try:
        return json.loads(line, parse_constant=refuse)
    except RecursionError:
        raise ValueError("nested too deep for Python")


def run(argv, stdin_text):
    stats["runs"] += 1
    try:
        p = subprocess.run(argv, input=stdin_text.encode("utf-8",
                                                         "surrogatepass"),
                           capture_output=True, timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        return None, b"", b""
    return p.returncode, p.stdout, p.stderr


def serve_batch(ws):
    messages = []
    for _ in range(rng.randint(5, 30)):
        messages.append(generate("rpc") if rng.random() < 0.8
                        else rng.choice(seeds["rpc"]))
    if found_inputs and rng.random() < 0.1:
        messages += [t for k, t in found_inputs if k == "rpc"]
    stats["inputs"] += len(messages)
    text = "\n".join(messages) + "\n"
    status, out, err = run([args.tirx, "serve", "--workspace", ws] + LIMITS,
                           text)
    if status is None:
        return fail("rpc", text, "hang: no exit within %d s" % DEADLINE)
    if status != 0:
        return fail("rpc", text, "exit status %d: %s"
                    % (status, err.decode(errors="replace")[-300:]))
    for line in out.decode("utf-8", "replace").splitlines():
        try:
            answer = strict_json(line)
        except ValueError as e:
            return fail("rpc", text, "not JSON on stdout (%s): %r"
                        % (e, line[:200]))
        if not isinstance(answer, dict) or answer.get("jsonrpc") != "2.0" \
                or "id" not in answer or \
                ("result" in answer) == ("error" in answer):
            return fail("rpc", text, "not a JSON-RPC answer: %r" % line[:200])
    if len(out.splitlines()) > len(messages):
        return fail("rpc", text, "more answers than messages")


def apply_one(ws, kind):
    text = generate(kind)
    stats["inputs"] += 1
    argv = [args.tirx, "apply", rng.choice(["v1", "v2", "v3", "v9", "x"]),
            "--workspace", ws, "--json"] + LIMITS
    if kind == "action":
        # An argument holds neither NUL nor lone surrogates, and at most
        # 128 KiB (MAX_ARG_STRLEN).
        text = text.replace("\x00", "").encode(
            "utf-8", "surrogatepass").decode("utf-8", "replace")[:100000]
        argv += ["--action", text]
    else:
        path = os.path.join(args.out, "recipe.json")
        with open(path, "wb") as f:
            f.write(text.encode("utf-8", "surrogatepass"))
        argv += ["--recipe", path]
    status, out, err = run(argv, "")
    if status is None:
        return fail(kind, text, "hang: no exit within %d s" % DEADLINE)
    if status not in (0, 1, 2, 3, 4):
        return fail(kind, text, "exit status %d: %s"
                    % (status, err.decode(errors="replace")[-300:]))
    try:
        answer = strict_json(out.decode("utf-8"))
    except ValueError as e:
        return fail(kind, text, "stdout is not one JSON document (%s): %r"
                    % (e, out[:200]))
    if not isinstance(answer, dict) or "ok" not in answer:
        return fail(kind, text, "no \"ok\" in %r" % out[:200])
    if answer["ok"] != (status == 0):
        return fail(kind, text, "ok %s with exit status %d"
                    % (answer["ok"], status))


ws = os.path.join(args.out, "ws")
if not os.path.isdir(ws):
    subprocess.run([args.tirx, "init", args.payload, "--workspace", ws],
                   check=True, stdout=subprocess.DEVNULL)
    for size in (1024, 256):
        subprocess.run([args.tirx, "apply", "v1", "--workspace", ws,
                        "--action", json.dumps(
                            {"transform": "tile_to_blocks",
                             "params": {"tile_sizes": [size]}})],
                       check=True, stdout=subprocess.DEVNULL)

end = time.time() + args.seconds
while time.time() < end:
    r = rng.random()
    if r < 0.5:
        serve_batch(ws)
    elif r < 0.85:
        apply_one(ws, "action")
    else:
        apply_one(ws, "recipe")

for f in failures:
    print("failure:", f)
print("inputs %d, runs %d, failures %d"
      % (stats["inputs"], stats["runs"], len(failures)))
