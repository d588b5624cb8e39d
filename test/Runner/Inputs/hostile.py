"""Writes the bundles of hostile-bundle.test into OUT, one directory each:
the manifests of Inputs/good and Inputs/dynamic with one absurd value, as
an attacker or a buggy agent would write it (only manifest.json: the
refusals come before any file of the bundle is read)."""
import copy
import json
import os
import sys

inputs, out = sys.argv[1], sys.argv[2]
good = json.load(open(os.path.join(inputs, "good", "manifest.json")))
dynamic = json.load(open(os.path.join(inputs, "dynamic", "manifest.json")))
cases = {}


def case(name, base):
    m = copy.deepcopy(base)
    cases[name] = m
    return m


# Size expressions nested 100000 deep: parentheses, then calls.
m = case("deep-parens", dynamic)
m["kernels"][0]["flops"] = "(" * 100000 + "m" + ")" * 100000
m = case("deep-calls", dynamic)
m["kernels"][0]["grid"][0] = "min(" * 100000 + "m" + ", 1)" * 100000

# A reshaped tensor map whose element count wraps modulo 2^64 to the
# buffer's 16: 4562284561 * 61681 * 241 * 17 * 16 = 2^64 + 16.
m = case("tmap-wrap", good)
m["params"][1].update(type="f16", shape=[16], bytes=32)
m["kernels"][0]["args"].append({"tensor_map": {
    "param": 1, "shape": [4562284561, 61681, 241, 17, 16],
    "box": [1, 1, 1, 1, 16], "swizzle": 0}})

# Constants the launch cannot convert to their type.
for name, type, value in [("i32-big", "i32", 1e10),
                          ("i64-max", "i64", 9223372036854775807),
                          ("i64-frac", "i64", 1.5),
                          ("i8-nan", "i8", "nan"),
                          ("f32-big", "f32", 1e300)]:
    case(name, good)["kernels"][0]["args"].append({"type": type,
                                                   "value": value})
# FLT_MAX as printers write it (3.40282347e38, a little above FLT_MAX as a
# double): it converts to FLT_MAX, and is no overflow.
case("f32-max-printed", good)["kernels"][0]["args"].append(
    {"type": "f32", "value": 3.40282347e38})
case("scalar-i32-big", good)["params"].append(
    {"name": "n", "kind": "scalar", "type": "i32", "value": 4e9})

# Numbers past int64_t: each field in range, their sum not; 2^64 - 1.
m = case("flops-sum", good)
m["kernels"] = [dict(m["kernels"][0], flops=2**63 - 1) for _ in range(3)]
case("ptxas-u64", good)["kernels"][0]["ptxas"] = {"registers": 2**64 - 1}
case("bytes-u64", good)["params"][1]["bytes"] = 2**64 - 1

# A parameter name that --dump-io would write outside its directory.
case("param-name", good)["params"][1]["name"] = "../escaped"

# Bound values: an i64 argument of -2^63, flops summing past 2^63 - 1
# (6.4e18 per kernel at the default m = 64).
case("bound-int-min", dynamic)["kernels"][0]["args"][3]["value"] = \
    "0 - 9223372036854775807 - 1"
m = case("bound-flops-sum", dynamic)
m["kernels"] = [dict(m["kernels"][0], flops="m * 100000000000000000")
                for _ in range(2)]

for name, m in cases.items():
    os.makedirs(os.path.join(out, name), exist_ok=True)
    if name == "f32-max-printed":  # accepted: the whole bundle
        for f in os.listdir(os.path.join(inputs, "good")):
            with open(os.path.join(inputs, "good", f), "rb") as src, \
                    open(os.path.join(out, name, f), "wb") as dst:
                dst.write(src.read())
    with open(os.path.join(out, name, "manifest.json"), "w") as f:
        json.dump(m, f)
