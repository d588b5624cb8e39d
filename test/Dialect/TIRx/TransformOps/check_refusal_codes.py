"""Fails when a refusal code a transform.tirx op can give has no test.

Every RefusalCode::<code> used in lib/Dialect/TIRx/TransformOps/*.cpp needs
an `expected-error {{<code>: ...}}` in test/Dialect/TIRx/TransformOps/*.mlir
(a -verify-diagnostics test of that refusal).

usage: check_refusal_codes.py TIRX_SOURCE_ROOT
"""

import glob
import os
import re
import sys


def codes_used(root):
    used = {}
    for path in sorted(glob.glob(os.path.join(root, "lib", "Dialect", "TIRx",
                                              "TransformOps", "*.cpp"))):
        for code in re.findall(r"RefusalCode::(\w+)", open(path).read()):
            used.setdefault(code, os.path.relpath(path, root))
    return used


def codes_tested(root):
    tested = set()
    for path in glob.glob(os.path.join(root, "test", "Dialect", "TIRx",
                                       "TransformOps", "*.mlir")):
        tested.update(re.findall(r"expected-error[^{\n]*\{\{\s*(\w+):",
                                 open(path).read()))
    return tested


def main():
    root = sys.argv[1]
    used = codes_used(root)
    if not used:
        print("no RefusalCode found under lib/Dialect/TIRx/TransformOps")
        return 1
    missing = sorted(set(used) - codes_tested(root))
    for code in missing:
        print(f"refusal code '{code}' (used in {used[code]}) has no "
              f"`expected-error {{{{{code}: ...}}}}` in "
              f"test/Dialect/TIRx/TransformOps")
    if not missing:
        print(f"{len(used)} refusal codes, each tested")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
