"""Calls every torch equivalent of examples/suite/torch_ref.py on stand-ins
(no torch here: a mock module answers every attribute and call), so that a
name torch_ref does not define (a NameError in a lambda, which bench.py
would only report as a missing peer on the GPU host) fails here; and checks
that every suite payload has its equivalent.
  torch_ref_names.py EXAMPLES_SUITE_DIR"""
import os
import sys
from unittest import mock

suite = sys.argv[1]
sys.path.insert(0, suite)
sys.modules["torch"] = mock.MagicMock(name="torch")
import torch_ref  # noqa: E402

table = torch_ref.table()
payloads = sorted(f[:-5] for f in os.listdir(suite) if f.endswith(".mlir"))
bad = 0
for name in payloads:
    if name not in table:
        print("MISSING %s: no torch equivalent" % name)
        bad += 1
for name, (fn, spec) in sorted(table.items()):
    args = [mock.MagicMock(name="arg%d" % i) if s[0] != "scalar" else s[1]
            for i, s in enumerate(spec)]
    try:
        fn(*args)
        print("ok %s" % name)
    except Exception as e:  # the bench would lose this peer
        print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
        bad += 1
print("torch_ref: %d payload(s), %d problem(s)" % (len(table), bad))
sys.exit(1 if bad else 0)
