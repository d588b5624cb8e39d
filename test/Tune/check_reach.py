"""Reads the JSON lines of `tirx tune --json --compile-only`: prints the
automatic schedule (candidate 1) and, for each transform named, how many
mapped candidates use it whose bundle (manifest and PTX) is in the
workspace."""
import json
import os
import sys


def main():
    lines, ws, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    events = [json.loads(l) for l in open(lines) if l.strip()]
    cands = [e for e in events if e.get("event") == "candidate" and e.get("mapped")]
    result = events[-1]
    assert result.get("event") == "result" and result.get("ok"), result
    first = cands[0]
    assert first["origin"] == "auto", first
    print("candidate 1 (auto): " + " ".join(
        a["transform"] + json.dumps(a.get("params", {}), separators=(",", ":"), sort_keys=True)
        for a in first["schedule"]))
    for name in names:
        n = 0
        for c in cands:
            if any(a["transform"] == name for a in c["schedule"]):
                bundle = os.path.join(ws, "bundles", c["version"])
                assert os.path.isfile(os.path.join(bundle, "manifest.json")), bundle
                assert any(f.endswith(".ptx") for f in os.listdir(bundle)), bundle
                n += 1
        auto = any(a["transform"] == name for a in first["schedule"])
        print("%s: %d built and lowered; auto: %s" % (name, n, "yes" if auto else "no"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
