"""Checks tirx-cpu-check's tolerance table against docs/feedback.md."""
import re
import runpy
import sys

src = sys.argv[1]
tool = runpy.run_path(src + "/tools/tirx-cpu-check/tirx-cpu-check.py",
                      run_name="tirx_cpu_check")
docs = open(src + "/docs/feedback.md").read()
rows = {"f64": r"\| f64 \|", "f32": r"\| f32 \(`math: ieee`\) \|",
        "f16": r"\| f16 \|", "bf16": r"\| bf16 \|"}
table = tool["TOLERANCES"]
if sorted(table) != sorted(rows):
    sys.exit("tool's precisions %s differ from the documented ones" % sorted(table))
for elem, row in rows.items():
    m = re.search(row + r"\s*(?:\*\*)?([0-9.e-]+)(?:\*\*)?[^|]*\|\s*([0-9.e-]+)\s*\|\s*([0-9.e-]+)\s*\|",
                  docs)
    if not m:
        sys.exit("no row for %s in docs/feedback.md" % elem)
    documented = tuple(float(g) for g in m.groups())
    if tuple(table[elem]) != documented:
        sys.exit("%s: tool %s, documented %s" % (elem, table[elem], documented))
    print(elem, " ".join("%g" % v for v in table[elem]), "as documented")
