"""Prints the object file of a version: object-of.py WORKSPACE VERSION."""
import json
import sys

ws, version = sys.argv[1], sys.argv[2]
for line in open(ws + "/index.jsonl"):
    entry = json.loads(line)
    if entry["id"] == version:
        print(ws + "/objects/" + entry["digest"].split(":")[1] + ".mlir")
