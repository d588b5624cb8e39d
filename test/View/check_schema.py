#!/usr/bin/env python3
"""Validates view JSON against docs/schemas/views.schema.json.

  check_schema.py SCHEMA FILE...

A small validator for the JSON Schema keywords the schema uses (type, enum,
const, required, properties, items, oneOf, $ref to $defs); stdlib only.
Each FILE is `tirx-view what=all` output; every view in it is checked
against its definition, and so is the whole object.
"""
import json
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "integer": int, "number": (int, float)}


def check(value, schema, root, path, errors):
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return check(value, root["$defs"][name], root, path, errors)
    if "oneOf" in schema:
        matches = 0
        for option in schema["oneOf"]:
            sub = []
            check(value, option, root, path, sub)
            matches += not sub
        if matches != 1:
            errors.append("%s: %r matches %d of the oneOf options" % (path, value, matches))
        return
    if "const" in schema and value != schema["const"]:
        errors.append("%s: %r is not %r" % (path, value, schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r is not one of %s" % (path, value, schema["enum"]))
    if "type" in schema:
        kind = TYPES[schema["type"]]
        ok = isinstance(value, kind) and not (
            schema["type"] in ("integer", "number") and isinstance(value, bool))
        if not ok:
            errors.append("%s: %r is not of type %s" % (path, value, schema["type"]))
            return
    for key in schema.get("required", []):
        if key not in value:
            errors.append("%s: missing %s" % (path, key))
    for key, sub in schema.get("properties", {}).items():
        if isinstance(value, dict) and key in value:
            check(value[key], sub, root, path + "." + key, errors)
    if "items" in schema and isinstance(value, list):
        for i, item in enumerate(value):
            check(item, schema["items"], root, "%s[%d]" % (path, i), errors)


def main():
    schema = json.load(open(sys.argv[1]))
    failures = 0
    for name in sys.argv[2:]:
        view = json.load(open(name))
        errors = []
        check(view, schema, schema, name, errors)
        if view.get("view") == "all":
            for key in schema["required_for_all"]:
                if key not in view:
                    errors.append("%s: missing view %s" % (name, key))
        for e in errors:
            print(e)
        failures += len(errors)
        print("%s: %s" % (name, "valid" if not errors else "%d errors" % len(errors)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
