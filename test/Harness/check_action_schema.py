#!/usr/bin/env python3
"""Checks `tirx schema` output: check_action_schema.py SCHEMA REFERENCE.md"""
import json
import re
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
print("metaschema: valid draft 2020-12")
names = sorted(s["properties"]["transform"]["const"] for s in schema["oneOf"])
print("transforms: " + ", ".join(names))
reference = open(sys.argv[2]).read()
ops = set(re.findall(r"### `transform\.tirx\.([a-z_]+)`", reference))
missing = ops - set(names)
if missing or not ops:
    sys.exit("not listed: %s" % sorted(missing))
print("every transform.tirx op of the reference is listed")
validator = jsonschema.Draft202012Validator(schema)
for text in ['{"transform": "vectorize", "params": {"width": 4}}',
             '{"transform": "vectorize", "params": {"width": 3}}',
             '{"transform": "tile_to_blocks", "params": {"tile_sizes": [1024], "speed": 1}}',
             '{"transform": "teleport", "params": {}}']:
    ok = validator.is_valid(json.loads(text))
    print(("accepted: " if ok else "refused: ") + text)
