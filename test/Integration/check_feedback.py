#!/usr/bin/env python3
"""Runs tirx-run and checks its feedback JSON: the assertions of the GPU
integration tests, as numbers, not only exit codes.

  check_feedback.py --exit N [--expect INDEX.FIELD OP VALUE]... -- tirx-run ...

FIELD is a key of the feedback of candidate INDEX (dotted for nested keys
and array indices, `.length` for an array's length); VALUE true, false and null are JSON's;
OP is one of == != <= >= < > ~ (contains). `--ratio A.F B.F OP VALUE` compares a ratio of
two fields. Prints a table of the figures it read.
"""
import json
import operator
import subprocess
import sys
import time

OPS = {"==": operator.eq, "!=": operator.ne, "<=": operator.le,
       ">=": operator.ge, "<": operator.lt, ">": operator.gt,
       "~": lambda a, b: str(b) in str(a)}


class Missing(Exception):
    pass


def value(feedback, ref):
    index, field = ref.split(".", 1)
    try:
        entry = feedback[int(index)]
        for part in field.split("."):
            if part == "length" and isinstance(entry, list):
                entry = len(entry)
            elif isinstance(entry, list):
                entry = entry[int(part)]
            else:
                entry = entry[part]
    except (IndexError, KeyError, TypeError, ValueError):
        raise Missing("%s: not in the feedback (%d entries)" % (ref, len(feedback)))
    return entry


def convert(text):
    if text in ("true", "false", "null"):
        return json.loads(text)
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def main(argv):
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    expected_exit = 0
    checks = []
    i = 0
    while i < len(options):
        if options[i] == "--exit":
            expected_exit = int(options[i + 1])
            i += 2
        elif options[i] == "--expect":
            checks.append(("value", options[i + 1], options[i + 2],
                           convert(options[i + 3])))
            i += 4
        elif options[i] == "--ratio":
            checks.append(("ratio", (options[i + 1], options[i + 2]),
                           options[i + 3], convert(options[i + 4])))
            i += 5
        else:
            sys.exit("check_feedback.py: unknown option " + options[i])

    started = time.monotonic()
    run = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - started
    print("command:", " ".join(command))
    print("exit status %d after %.2f s" % (run.returncode, elapsed))
    feedback = json.loads(run.stdout)
    if isinstance(feedback, dict):
        feedback = [feedback]
    for n, f in enumerate(feedback):
        print("candidate %d: launch %s, correctness %s, median %s us (%s samples), "
              "bandwidth %s, bottleneck %s; %s %s" % (
                  n, f["launch_status"], f["correctness"], f.get("duration_us"),
                  f.get("sample_count"), f.get("bandwidth_utilization"),
                  f.get("bottleneck"), f.get("correctness_detail", ""),
                  f.get("error", "")))
    failures = []
    if run.returncode != expected_exit:
        failures.append("exit status %d, expected %d" % (run.returncode, expected_exit))
    for kind, ref, op, want in checks:
        try:
            if kind == "value":
                got = value(feedback, ref)
                label = ref
            else:
                got = value(feedback, ref[0]) / value(feedback, ref[1])
                label = "%s / %s" % ref
        except Missing as missing:
            print("FAILED   %s" % missing)
            failures.append(str(missing))
            continue
        if want is None or got is None:  # null: only == and != mean anything
            ok = op in ("==", "!=") and (got is want) == (op == "==")
        else:
            ok = OPS[op](got, want)
        print("%-8s %s %s %s: got %s" % ("ok" if ok else "FAILED", label, op, want, got))
        if not ok:
            failures.append("%s %s %s (got %s)" % (label, op, want, got))
    if failures:
        sys.exit("check_feedback.py: " + "; ".join(failures))


if __name__ == "__main__":
    main(sys.argv[1:])
