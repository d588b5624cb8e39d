#!/usr/bin/env python3
"""A stand-in for Slurm's sbatch, squeue, sacct, scancel and sinfo (called
through links of those names, test/Tune/slurm-fake.test): the cases a real
cluster does not produce on demand (docs/scale-out.md). Jobs run here, one
array task after the other, in a process of their own; the state lives in
$FAKE_SLURM (one file per task); every call is logged in
$FAKE_SLURM/calls.log.

sbatch  --array=A-B%N, --output=PATTERN (%% %a %A %j %u %x expanded as
        Slurm does; a task whose output file cannot be opened FAILS without
        running, as under Slurm), the script's path last; --parsable's "J".
squeue  -j IDS -o FORMAT (%i %T %N %r): a task that runs or ran on its own
        row, the array's pending tasks as one row "J_[0,2-3%N]", as Slurm
        prints them; one id the controller does not know: "Invalid job id
        specified", exit 1.
sacct   -j IDS -o JobID,State, the same compressed rows ("CANCELLED by 0").
scancel J or J_K; sinfo -N: one node, fakenode.

Test hooks, off unless set:
  FAKE_SLURM_HOLD=REASON   jobs never start: PENDING with that reason;
  FAKE_SQUEUE_FAIL=N[@J]   the first N squeue calls made once the J-th job
                           (default 1) was submitted fail (exit 1, the
                           controller unreachable); N "always": every one;
  FAKE_SQUEUE_GARBAGE=N[@J] likewise, exit 0 with a line that does not parse;
  FAKE_SQUEUE_FORGETS=1    squeue knows no job (purged): only sacct does;
  FAKE_SACCT_DISABLED=1    sacct: accounting storage is disabled;
  FAKE_SCANCEL_FAIL=1      scancel fails (the controller unreachable)."""
import json
import os
import pwd
import signal
import subprocess
import sys
import time

D = os.environ["FAKE_SLURM"]
JOBS = os.path.join(D, "jobs")
TERMINAL = ("COMPLETED", "FAILED", "CANCELLED")


def log(*words):
    with open(os.path.join(D, "calls.log"), "a") as f:
        f.write(" ".join(words) + "\n")


def put(path, text):
    tmp = path + ".tmp.%d" % os.getpid()
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def get(path, default=""):
    try:
        return open(path).read().strip()
    except OSError:
        return default


def job(j):
    return json.loads(get(os.path.join(JOBS, j + ".json"), "null"))


def state(j, k):
    return get(os.path.join(JOBS, "%s.%d" % (j, k)), "PENDING")


def set_state(j, k, s):
    put(os.path.join(JOBS, "%s.%d" % (j, k)), s)


def counted(name):
    """This call's number among the calls of `name` (1, 2, ...)."""
    path = os.path.join(D, name + ".count")
    n = int(get(path, "0")) + 1
    put(path, str(n))
    return n


def injected(var):
    """Whether this call fails as VAR=N[@J] says: the first N calls (or
    "always") made once the J-th job (default 1) was submitted."""
    v = os.environ.get(var)
    if not v:
        return False
    n, _, j = v.partition("@")
    if int(get(os.path.join(D, "job.count"), "0")) < int(j or "1"):
        return False
    return n == "always" or counted(var) <= int(n)


def compress(ks):
    """[0, 2, 3] -> "0,2-3", as Slurm prints a bitmap."""
    parts, i = [], 0
    while i < len(ks):
        j = i
        while j + 1 < len(ks) and ks[j + 1] == ks[j] + 1:
            j += 1
        parts.append(str(ks[i]) if i == j else "%d-%d" % (ks[i], ks[j]))
        i = j + 1
    return ",".join(parts)


def rows(ids):
    """(id, state, node, reason) of the jobs asked for."""
    out = []
    for j in ids:
        info = job(j.split("_")[0])
        if not info:
            continue
        pending = []
        for k in range(info["n"]):
            s = state(j.split("_")[0], k)
            if s == "PENDING":
                pending.append(k)
            else:
                out.append(("%s_%d" % (j, k), s, "fakenode", "None"))
        if pending:
            throttle = "%%%d" % info["throttle"] if info["throttle"] else ""
            reason = os.environ.get("FAKE_SLURM_HOLD") or (
                "JobArrayTaskLimit" if len(pending) < info["n"] else "Priority")
            out.append(("%s_[%s%s]" % (j, compress(pending), throttle),
                        "PENDING", "", reason))
    return out


def expand(pattern, j, k):
    fields = {"%": "%", "a": str(k), "A": j, "j": j, "x": "tirx-tune",
              "u": pwd.getpwuid(os.getuid()).pw_name}
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if c == "%" and i + 1 < len(pattern) and pattern[i + 1] in fields:
            out += fields[pattern[i + 1]]
            i += 2
        else:
            out += c
            i += 1
    return out


def run_job(j):
    """The job's tasks, in order (the fake's one node)."""
    info = job(j)
    for k in range(info["n"]):
        if state(j, k) != "PENDING":
            continue
        try:
            out = open(expand(info["output"], j, k), "w")
        except OSError:
            set_state(j, k, "FAILED")
            continue
        set_state(j, k, "RUNNING")
        env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(k),
                   SLURM_ARRAY_JOB_ID=j, SLURM_JOB_ID=j)
        env.pop("CUDA_VISIBLE_DEVICES", None)
        p = subprocess.Popen(["bash", info["script"]], stdout=out,
                             stderr=subprocess.STDOUT, env=env,
                             start_new_session=True)
        put(os.path.join(JOBS, "%s.%d.pid" % (j, k)), str(p.pid))
        rc = p.wait()
        if state(j, k) == "RUNNING":
            set_state(j, k, "COMPLETED" if rc == 0 else "FAILED")


def sbatch(args):
    opts = dict(a[2:].split("=", 1) for a in args[:-1] if "=" in a)
    first, last, throttle = 0, 0, 0
    if "array" in opts:
        r, _, t = opts["array"].partition("%")
        first, last = (int(x) for x in r.split("-"))
        throttle = int(t) if t else 0
    assert first == 0, opts
    j = str(counted("job") + 100)
    put(os.path.join(JOBS, j + ".json"), json.dumps({
        "n": last + 1, "throttle": throttle, "script": args[-1],
        "output": opts.get("output", "slurm-%j.out")}))
    if not os.environ.get("FAKE_SLURM_HOLD"):
        subprocess.Popen([sys.executable, __file__, "--run", j],
                         start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(j)


def ids_of(args):
    return args[args.index("-j") + 1].split(",") if "-j" in args else sorted(
        n[:-5] for n in os.listdir(JOBS) if n.endswith(".json"))


def squeue(args):
    if injected("FAKE_SQUEUE_FAIL"):
        log("squeue: failed (injected)")
        sys.stderr.write("slurm_load_jobs error: Unable to contact slurm "
                         "controller (connect failure)\n")
        return 1
    if injected("FAKE_SQUEUE_GARBAGE"):
        log("squeue: garbage (injected)")
        print("slurm_load_jobs: Socket timed out on send/recv operation")
        return 0
    ids = ids_of(args)
    if os.environ.get("FAKE_SQUEUE_FORGETS"):
        if len(ids) == 1:
            sys.stderr.write("slurm_load_jobs error: Invalid job id specified\n")
            return 1
        return 0
    fmt = args[args.index("-o") + 1]
    for i, s, node, reason in rows(ids):
        print(fmt.replace("%i", i).replace("%T", s).replace("%N", node)
              .replace("%r", reason))
    return 0


def sacct(args):
    if os.environ.get("FAKE_SACCT_DISABLED"):
        sys.stderr.write("Slurm accounting storage is disabled\n")
        return 1
    compressed = []
    for i, s, node, reason in rows(ids_of(args)):
        if "[" in i:
            compressed.append(i)
        print("%s|%s" % (i, "CANCELLED by 0" if s == "CANCELLED" else s))
    if compressed:
        log("sacct: %d compressed row(s): %s" % (len(compressed),
                                                 " ".join(compressed)))
    return 0


def scancel(args):
    if os.environ.get("FAKE_SCANCEL_FAIL"):
        sys.stderr.write("scancel: error: Kill job error on job id %s: Unable "
                         "to contact slurm controller (connect failure)\n"
                         % args[0])
        return 1
    for a in args:
        j, _, k = a.partition("_")
        info = job(j)
        if not info:
            continue
        for t in [int(k)] if k else range(info["n"]):
            if state(j, t) in TERMINAL:
                continue
            set_state(j, t, "CANCELLED")
            pid = get(os.path.join(JOBS, "%s.%d.pid" % (j, t)))
            if pid:
                try:
                    os.killpg(int(pid), signal.SIGTERM)
                except OSError:
                    pass
    return 0


def main():
    name = os.path.basename(sys.argv[0])
    args = sys.argv[1:]
    if args[:1] == ["--run"]:
        return run_job(args[1])
    os.makedirs(JOBS, exist_ok=True)
    log(name, *args)
    if name == "sbatch":
        return sbatch(args)
    if name == "squeue":
        return squeue(args)
    if name == "sacct":
        return sacct(args)
    if name == "scancel":
        return scancel(args)
    if name == "sinfo":
        print("fakenode")
        return 0
    sys.stderr.write("fake_slurm.py: called as %s\n" % name)
    return 2


sys.exit(main() or 0)
