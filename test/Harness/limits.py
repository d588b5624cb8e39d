"""Limits on every child, and a server that keeps answering.

limits.py TIRX WORKSPACE BOMB, BOMB a transform script that grows without
bound (an unroll bomb). Prints one line per check; FileCheck reads them.
"""
import json
import os
import select
import signal
import subprocess
import sys
import time

tirx, ws, bomb = sys.argv[1:4]
limits = ["--child-memory-mb", "1024", "--child-seconds", "60"]


def children(pid):
    """The pids of the processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry))
    return found


def descendants(pid):
    out = []
    for child in children(pid):
        out += [child] + descendants(child)
    return out


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for(predicate, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


# 1. Killing the CLI kills its interpreter child (it was orphaned, growing).
p = subprocess.Popen([tirx, "apply", "v1", "--script", bomb, "--workspace",
                      ws] + limits, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
assert wait_for(lambda: children(p.pid), 10), "no child started"
kids = children(p.pid)
time.sleep(0.3)
p.kill()
p.wait()
print("parent killed: children gone:",
      wait_for(lambda: not any(alive(k) for k in kids), 5))

# 2. tirx serve answers a ping while the bomb runs, and a cancel kills the
# request's worker and its children, answers nothing for it and audits it.
server = subprocess.Popen([tirx, "serve", "--workspace", ws] + limits,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def send(message):
    server.stdin.write((json.dumps(message) + "\n").encode())
    server.stdin.flush()


def receive(seconds):
    ready, _, _ = select.select([server.stdout], [], [], seconds)
    if not ready:
        return None
    return json.loads(server.stdout.readline())


with open(bomb) as f:
    script = f.read()
send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
      "params": {"name": "apply",
                 "arguments": {"version": "v1", "script": script}}})
assert wait_for(lambda: descendants(server.pid), 10), "no worker started"
started = time.time()
send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
answer = receive(5)
print("ping during the apply: id %s after under 2 s: %s"
      % (answer and answer["id"], time.time() - started < 2))
# The worker starts its child a moment later on a loaded machine.
wait_for(lambda: len(descendants(server.pid)) >= 2, 10)
busy = descendants(server.pid)
print("the apply runs in a worker and a child:", len(busy) >= 2)
send({"jsonrpc": "2.0", "method": "notifications/cancelled",
      "params": {"requestId": 1, "reason": "test"}})
print("cancelled: worker and children gone:",
      wait_for(lambda: not any(alive(k) for k in busy), 5))
send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
answer = receive(5)
print("next answer: id", answer and answer["id"])
server.stdin.close()
print("server exit:", server.wait(10))
with open(os.path.join(ws, "audit.jsonl")) as f:
    last = json.loads(f.read().splitlines()[-1])
print("audit: %s %s" % (last["command"], last.get("code")))

# 3. Temporary files stay inside the workspace and are removed.
tmp = os.path.join(ws, "tmp")
print("workspace tmp empty:", not os.path.isdir(tmp) or not os.listdir(tmp))
