"""Prints a tools/call apply (policy open) per script in DIR, one a line."""
import json
import os
import sys

folder = sys.argv[1]
for i, name in enumerate(sorted(os.listdir(folder))):
    if not name.endswith(".transform.mlir") or name.startswith("interpreter"):
        continue
    with open(os.path.join(folder, name)) as f:
        script = f.read()
    print(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                      "params": {"name": "apply", "arguments": {
                          "version": "v1", "script": script,
                          "policy": "open"}}}))
