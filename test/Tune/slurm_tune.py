#!/usr/bin/env python3
"""A real single-node Slurm cluster for `tirx tune --executor slurm`
(test/Tune/slurm.test, docs/scale-out.md): munged, slurmctld and slurmd from
Debian's slurm-wlm and munge, in a temporary directory with a generated
slurm.conf (proctrack/linuxproc, task/none, no cgroups, select/cons_tres, a
node with this machine's CPUs, free ports so that concurrent runs do not
clash), started here and stopped at the end whatever happens.

The jobs run the stand-in runner (fake_runner.py: no GPU here). Scenarios:
  cancel   a tune whose first running array task is cancelled with scancel
           (its candidate retried in another job);
  int      a tune interrupted (SIGINT) while its jobs run: it cancels them
           and stops; then the same command resumes and completes;
  nodevice the real tirx-run (beside tirx) in a job: its no-device path,
           a clear refusal naming the job and node, nothing left queued;
  pending  jobs for a partition that is down: cancelled after
           --slurm-pending-timeout with Slurm's reason (PartitionDown).
All of them with a '%' in --shared ("shared%j"): passed to sbatch's
--output as "%%", the output files land there.

usage: slurm_tune.py TIRX SRC_ROOT OUT_DIR"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

tirx, src, out = sys.argv[1:4]
runner = os.path.join(src, "test", "Tune", "fake_runner.py")
saxpy = os.path.join(src, "examples", "saxpy.mlir")
os.makedirs(out, exist_ok=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(what, test, seconds):
    end = time.time() + seconds
    while time.time() < end:
        value = test()
        if value:
            return value
        time.sleep(0.1)
    raise SystemExit("timed out waiting for " + what)


class Cluster:
    def __init__(self):
        # A short path: the munge socket's name must fit a sockaddr_un.
        self.dir = tempfile.mkdtemp(prefix="tirx-slurm-")
        self.procs = []
        d = self.dir
        for sub in ("munge", "state", "spool", "log"):
            os.makedirs(os.path.join(d, sub))
        os.chmod(os.path.join(d, "munge"), 0o700)
        key = os.path.join(d, "munge", "key")
        with open(key, "wb") as f:
            f.write(os.urandom(128))
        os.chmod(key, 0o600)
        self.sock = os.path.join(d, "munge", "sock")
        host = socket.gethostname().split(".")[0]
        self.conf = os.path.join(d, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=tirxtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={self.sock}
CredType=cred/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
InactiveLimit=0
MinJobAge=300
KillWait=1
NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} State=UNKNOWN
PartitionName=tirx Nodes={host} Default=YES MaxTime=INFINITE State=UP
PartitionName=down Nodes={host} Default=NO MaxTime=INFINITE State=DOWN
""")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.host = host

    def start(self):
        d = self.dir
        log = open(os.path.join(d, "log", "daemons.log"), "w")
        # -f: the key's directory is not munge's own.
        self.procs.append(subprocess.Popen(
            ["munged", "-F", "-f", "--socket=" + self.sock,
             "--key-file=" + os.path.join(d, "munge", "key"),
             "--pid-file=" + os.path.join(d, "munge", "pid"),
             "--seed-file=" + os.path.join(d, "munge", "seed"),
             "--log-file=" + os.path.join(d, "log", "munged.log")],
            stdout=log, stderr=log))
        wait_for("munged", lambda: os.path.exists(self.sock), 10)
        self.procs.append(subprocess.Popen(["slurmctld", "-D", "-i"], env=self.env,
                                           stdout=log, stderr=log))
        self.procs.append(subprocess.Popen(["slurmd", "-D", "-N", self.host],
                                           env=self.env, stdout=log, stderr=log))
        wait_for("the node to be idle", lambda: self.run(
            ["sinfo", "-h", "-p", "tirx", "-o", "%T"]).strip() == "idle", 30)

    def run(self, argv):
        r = subprocess.run(argv, env=self.env, capture_output=True, text=True)
        return r.stdout if r.returncode == 0 else ""

    def tasks(self, states="PENDING,RUNNING,CONFIGURING,COMPLETING"):
        """Our jobs' tasks in `states`: ["J_K" ...] ("J_[...]" for pending)."""
        return self.run(["squeue", "-h", "-n", "tirx-tune", "-t", states,
                         "-o", "%i"]).split()

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for p in reversed(self.procs):
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        logs = os.path.join(out, "slurm-logs")
        shutil.rmtree(logs, ignore_errors=True)
        shutil.copytree(os.path.join(self.dir, "log"), logs)
        shutil.rmtree(self.dir, ignore_errors=True)


def tune(cluster, ws, output, extra_env, budget, stand_in=True, extra=()):
    env = dict(cluster.env, **extra_env)
    # A '%' in the shared directory: Slurm would expand "%j" in --output.
    return subprocess.Popen(
        [tirx, "tune", "v1", "--workspace", ws, "--budget", str(budget),
         "--batch", "3", "--top-k", "1", "--executor", "slurm", "--max-jobs", "2",
         "--shared", os.path.join(out, "shared%j"), "--json"] +
        (["--runner", runner] if stand_in else []) + list(extra),
        env=env, stdout=open(output, "w"), stderr=subprocess.STDOUT)


def init(ws):
    shutil.rmtree(ws, ignore_errors=True)
    subprocess.run([tirx, "init", saxpy, "--workspace", ws], check=True,
                   stdout=subprocess.DEVNULL)


def measured_lines(ws):
    state = os.path.join(ws, "tune")
    n = 0
    for name in os.listdir(state) if os.path.isdir(state) else []:
        n += sum('"kind":"measured"' in l for l in open(os.path.join(state, name)))
    return n


started = time.time()
cluster = Cluster()
try:
    cluster.start()
    print("cluster: %s up in %.1f s" % (cluster.host, time.time() - started))

    # Submission, collection, and a task cancelled while it runs.
    ws = os.path.join(out, "cancel")
    init(ws)
    # The first measurement holds (FAKE_RUNNER_HOLD_ONCE) and names its task
    # once it is inside the runner: the scancel lands while it runs, however
    # loaded the machine (a task caught RUNNING by squeue had at times
    # finished its candidate first, and nothing was retried).
    held = os.path.join(out, "cancel.held")
    if os.path.exists(held):
        os.unlink(held)
    t = tune(cluster, ws, os.path.join(out, "cancel.jsonl"),
             {"FAKE_RUNNER_HOLD_ONCE": held}, 6)
    victim = wait_for("a measurement inside the runner", lambda: (
        open(held).read() if os.path.exists(held) else "").endswith("\n")
        and open(held).read().strip(), 60)
    subprocess.run(["scancel", victim], env=cluster.env, check=True)
    print("cancel: scancel %s while it ran" % ("J_K" if "_" in victim else "J"))
    rc = t.wait(60)
    print("cancel: tune exit status %d" % rc)

    # A tune interrupted while its jobs run, then resumed.
    ws = os.path.join(out, "int")
    init(ws)
    t = tune(cluster, ws, os.path.join(out, "int1.jsonl"),
             {"FAKE_RUNNER_SLEEP": "2"}, 6)
    # Interrupted once the baseline is recorded and a batch's tasks run.
    wait_for("a recorded measurement", lambda: measured_lines(ws) > 0, 40)
    wait_for("running tasks", lambda: [
        x for x in cluster.tasks("RUNNING") if "[" not in x], 40)
    t.send_signal(signal.SIGINT)
    rc = t.wait(30)
    print("int: tune exit status %d after SIGINT" % rc)
    left = wait_for("the tune's jobs to be cancelled",
                    lambda: not cluster.tasks() and ["none"], 20)
    print("int: jobs left queued or running: %s" % left[0])
    t = tune(cluster, ws, os.path.join(out, "int2.jsonl"), {}, 6)
    rc = t.wait(60)
    print("int: resumed, exit status %d" % rc)

    # The real runner in a job, on a node without a GPU.
    ws = os.path.join(out, "nodevice")
    init(ws)
    rc = tune(cluster, ws, os.path.join(out, "nodevice.jsonl"), {}, 3,
              stand_in=False).wait(60)
    last = json.loads(open(os.path.join(out, "nodevice.jsonl")).readlines()[-1])
    print("nodevice: exit status %d, %s: %s" % (
        rc, last["error"]["code"], last["error"]["message"].split(":")[0]))
    left = wait_for("no job left", lambda: not cluster.tasks() and ["none"], 20)
    print("nodevice: jobs left queued or running: %s" % left[0])

    # Jobs that never start (their partition is down): cancelled after
    # --slurm-pending-timeout, with Slurm's reason.
    ws = os.path.join(out, "pending")
    init(ws)
    rc = tune(cluster, ws, os.path.join(out, "pending.jsonl"), {}, 3,
              extra=["--partition", "down", "--slurm-pending-timeout", "2"]).wait(60)
    last = json.loads(open(os.path.join(out, "pending.jsonl")).readlines()[-1])
    print("pending: exit status %d, %s: %s" % (
        rc, last["error"]["code"], last["error"]["message"]))
    left = wait_for("no job left", lambda: not cluster.tasks() and ["none"], 20)
    print("pending: jobs left queued or running: %s" % left[0])
    outs = [os.path.relpath(os.path.join(d, f), out)
            for d, _, fs in os.walk(os.path.join(out, "shared%j"))
            for f in fs if f == "slurm.out"]
    print("percent: %d slurm.out files under shared%%j, e.g. %s" % (
        len(outs), sorted(outs)[0] if outs else "none"))
finally:
    cluster.stop()
print("done in %.0f s" % (time.time() - started))
