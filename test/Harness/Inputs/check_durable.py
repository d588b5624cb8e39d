"""Checks a $SYNCLOG written by synclog.c (test/Harness/durable.test) for
the files under a workspace: each file renamed into place was fsync'd
before the rename and its directory after it; each new file (a chained
.jsonl, a directory entry) has its directory fsync'd after its creation;
each append is fsync'd; a later syncfs by the same process (tune's build
processes: Workspace::setDurable, sync) covers all of that. Temporary
files (renamed away) and the lock are not history. Prints a summary for FileCheck; exits 1 naming each lapse.

usage: check_durable.py SYNCLOG WORKSPACE"""
import os
import sys

log, ws = sys.argv[1], os.path.realpath(sys.argv[2])
calls = []
for line in open(log):
    pid, op, *args = line.split()
    calls.append((pid, op, args))


def under(p):
    return p.startswith(ws + "/")


def later(i, pid, op, path):
    """A later `op PATH` by the same process, or a later syncfs of the
    workspace's filesystem (tune's build processes: one per build)."""
    return any(c == (pid, op, [path]) or (c[0] == pid and c[1] == "syncfs")
               for c in calls[i + 1:])


def earlier(i, pid, op, path):
    return any(c == (pid, op, [path]) for c in calls[:i])


def synced_after(i, pid):
    return any(c[0] == pid and c[1] == "syncfs" for c in calls[i + 1:])


lapses, renames, created, appends = [], 0, 0, 0
for i, (pid, op, args) in enumerate(calls):
    if op == "rename" and under(args[1]):
        renames += 1
        src, dst = args
        if not earlier(i, pid, "fsync", src) and not synced_after(i, pid):
            lapses.append((dst, "renamed into place from a file not fsync'd before"))
        if not later(i, pid, "fsync", os.path.dirname(dst)):
            lapses.append((dst, "renamed into place, its directory not fsync'd after"))
    elif op == "create" and under(args[0]):
        p = args[0]
        if ".tmp." in os.path.basename(p) or os.path.basename(p) == "lock":
            continue
        created += 1
        if not later(i, pid, "fsync", os.path.dirname(p)):
            lapses.append((p, "created, its directory not fsync'd after"))
    elif op == "append" and under(args[0]):
        appends += 1
        if not later(i, pid, "fsync", args[0]):
            lapses.append((args[0], "appended to, not fsync'd"))
for path, why in lapses:
    print("lapse: %s: %s" % (os.path.relpath(path, ws), why))
print("%d renames, %d new files, %d appends, %d lapses" % (
    renames, created, appends, len(lapses)))
sys.exit(1 if lapses else 0)
