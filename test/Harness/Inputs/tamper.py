"""Damages a workspace as an attacker or a careless edit would:
tamper.py WORKSPACE KIND, KIND one of

  delete-last-index-line   drop the last line of index.jsonl
  edit-request             change the outcome of the first request record
  forge-index-line         append a well-formed version line
  swap-digests             swap the digests of the last two index lines
  edit-audit               change the actor of the first audit line
  head-garbage             write garbage into HEAD
  symlink-audit            replace audit.jsonl by a symlink to a file outside
  symlink-lock             replace lock by a symlink to a file outside
  delete-chain             delete chain.json
"""
import json
import os
import sys

ws, kind = sys.argv[1], sys.argv[2]


def path(name):
    return os.path.join(ws, name)


def lines(name):
    with open(path(name)) as f:
        return f.read().splitlines()


def write(name, ls):
    with open(path(name), "w") as f:
        f.write("".join(line + "\n" for line in ls))


if kind == "delete-last-index-line":
    write("index.jsonl", lines("index.jsonl")[:-1])
elif kind == "edit-request":
    ls = lines("requests.jsonl")
    ls[0] = ls[0].replace('"outcome":"accepted"', '"outcome":"rejected"')
    write("requests.jsonl", ls)
elif kind == "forge-index-line":
    ls = lines("index.jsonl")
    last = json.loads(ls[-1])
    forged = dict(last, id="v%d" % (len(ls) + 1), parent=last["id"],
                  message="forged")
    ls.append(json.dumps(forged, separators=(",", ":"), sort_keys=True))
    write("index.jsonl", ls)
elif kind == "swap-digests":
    ls = [json.loads(line) for line in lines("index.jsonl")]
    ls[-1]["digest"], ls[-2]["digest"] = ls[-2]["digest"], ls[-1]["digest"]
    write("index.jsonl",
          [json.dumps(e, separators=(",", ":"), sort_keys=True) for e in ls])
elif kind == "edit-audit":
    ls = lines("audit.jsonl")
    ls[0] = ls[0].replace('"actor":"', '"actor":"x', 1)
    write("audit.jsonl", ls)
elif kind == "head-garbage":
    with open(path("HEAD"), "w") as f:
        f.write("../../etc/passwd\n")
elif kind in ("symlink-audit", "symlink-lock"):
    name = "audit.jsonl" if kind == "symlink-audit" else "lock"
    outside = os.path.join(os.path.dirname(os.path.abspath(ws)),
                           "outside-" + name)
    if os.path.exists(path(name)):
        os.replace(path(name), outside)
    else:
        open(outside, "w").close()
    os.symlink(outside, path(name))
elif kind == "delete-chain":
    os.remove(path("chain.json"))
else:
    sys.exit("unknown kind " + kind)
