#!/usr/bin/env python3
"""A stand-in for tirx-run where no GPU is, one-shot (BUNDLE --reference
REF -o FEEDBACK --ir-version V [--samples N] [--inputs N] ...) or as a
worker (--worker: the protocol of docs/worker.md on stdin/stdout). Each
feedback has a synthetic but deterministic time
computed from the bundle's manifest (wider accesses, 512 threads a block and
enough blocks are faster; a little noise from the call count), correctness
"pass". It lets the measuring path of `tirx tune` (screening, full check,
paired runs, database) be tested without a device. Calls are counted in
FAKE_RUNNER_LOG when set.

The executors' test hooks (docs/scale-out.md), all off unless set: the
device is named by CUDA_VISIBLE_DEVICES (uuid GPU-fake-<it>, copy bandwidth
FAKE_RUNNER_GBPS, default 3000); FAKE_RUNNER_BUSY=DIR: a measurement holds
DIR/<device> (O_EXCL) while it runs, and fails as "shared GPU" if another
holds it; FAKE_RUNNER_SLEEP=S: each screening run (10 samples or fewer) takes S
seconds;
FAKE_RUNNER_START_SLEEP=S: a worker takes S seconds to start;
FAKE_RUNNER_DIE_ONCE=FILE: the first measurement to create FILE kills its
own process (a lost worker or job);
FAKE_RUNNER_HOLD_ONCE=FILE: the first measurement to create FILE writes its
Slurm task there ("J_K", else its pid) and sleeps 120 s, so that a test
cancels a task known to be inside the runner."""
import json
import math
import os
import signal
import sys
import time



def first_env(name, default):
    """The first NAME= entry of the environment, as getenv (and the CUDA
    driver) reads it; os.environ keeps the last."""
    try:
        for entry in open("/proc/self/environ", "rb").read().split(b"\0"):
            if entry.startswith(name.encode() + b"="):
                return entry.split(b"=", 1)[1].decode()
    except OSError:
        pass
    return os.environ.get(name, default)


DEVICE = first_env("CUDA_VISIBLE_DEVICES", "0")
GBPS = float(os.environ.get("FAKE_RUNNER_GBPS", "3000"))


def hooks_before(samples):
    """The executors' test hooks; returns the lock to release, or an error."""
    die = os.environ.get("FAKE_RUNNER_DIE_ONCE")
    if die:
        try:
            os.close(os.open(die, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            os.kill(os.getpid(), signal.SIGKILL)
        except FileExistsError:
            pass
    hold = os.environ.get("FAKE_RUNNER_HOLD_ONCE")
    if hold:
        try:
            fd = os.open(hold, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            # Who holds it: the Slurm task ("J_K"), else the process.
            job = os.environ.get("SLURM_ARRAY_JOB_ID")
            task = os.environ.get("SLURM_ARRAY_TASK_ID")
            who = job + "_" + task if job and task else str(os.getpid())
            os.write(fd, (who + "\n").encode())
            os.close(fd)
            time.sleep(120)  # until it is cancelled
        except FileExistsError:
            pass
    busy = os.environ.get("FAKE_RUNNER_BUSY")
    lock = None
    if busy:
        lock = os.path.join(busy, "gpu" + DEVICE)
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return None, "shared GPU: another measurement holds " + lock
    if samples <= 10:
        time.sleep(float(os.environ.get("FAKE_RUNNER_SLEEP", "0")))
    return lock, ""


def hooks_after(lock):
    if lock:
        os.unlink(lock)


def feedback_of(bundle, samples, inputs, ir_version):
    manifest = json.load(open(os.path.join(bundle, "manifest.json")))
    time_us = 0.0
    for k in manifest["kernels"]:
        widths = [a.get("bytes", 4) for a in k.get("accesses", [])] or [4]
        width = min(widths)
        threads = k["block"][0] * k["block"][1] * k["block"][2]
        blocks = k["grid"][0] * k["grid"][1] * k["grid"][2]
        t = 100.0 * (1.0 + 0.5 * (16 - width) / 16)
        t *= 1.0 + 0.15 * abs(math.log2(threads / 512.0))
        t *= 1.0 + (0.5 if blocks < 264 else 0.0)
        time_us += t
    log = os.environ.get("FAKE_RUNNER_LOG")
    calls = 0
    if log:
        with open(log, "a") as f:
            f.write(bundle + "\n")
        calls = sum(1 for _ in open(log))
    time_us *= 1.0 + 0.001 * ((calls * 7919) % 13)
    return {
        "schema_version": 2, "ir_version": ir_version, "payload": "",
        "compile_status": "ok", "launch_status": "ok", "duration_us": time_us,
        "duration_min_us": time_us, "duration_max_us": time_us,
        "duration_mean_us": time_us, "duration_trimmed_mean_us": time_us,
        "sample_count": samples, "bytes_moved": 0, "flops": 0,
        "math": manifest.get("math", "ieee"),
        "correctness": "pass", "correctness_inputs": inputs,
        "correctness_detail": "", "buffers": [], "bottleneck": "memory_bound",
        "ghost_check": "caught", "plausible": True, "copy_bandwidth_gbs": GBPS,
    }


def measured(bundle, samples, inputs, ir_version):
    lock, error = hooks_before(samples)
    fb = feedback_of(bundle, samples, inputs, ir_version)
    if error:
        fb.update({"launch_status": "error", "error": error,
                   "correctness": "not_checked"})
    hooks_after(lock)
    return fb


args = sys.argv[1:]
if "--worker" in args:
    # A real worker's start (a CUDA context, its copy-bandwidth probe) takes
    # a while before its first answer: FAKE_RUNNER_START_SLEEP=S seconds.
    time.sleep(float(os.environ.get("FAKE_RUNNER_START_SLEEP", "0")))
    # One JSON request a line, one answer a line; the greeting first.
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "ping":
            answer = {"protocol": 1, "id": req.get("id"), "status": "ok", "seed": 1,
                      "pid": os.getpid(), "device": {"name": "fake", "uuid": "GPU-fake-" + DEVICE,
                                                     "sm_count": 132, "clock_ghz": 1.98,
                                                     "copy_bandwidth_gbs": GBPS}}
        elif req.get("op") == "quit":
            break
        else:
            screen = req.get("mode") == "screen"
            fb = measured(req["bundle"], req.get("samples") or (10 if screen else 100),
                             req.get("inputs") or (1 if screen else 3),
                             req.get("ir_version", ""))
            answer = {"protocol": 1, "id": req.get("id"), "status": "ok", "feedback": fb,
                      "cache": {"inputs": "kept"}, "seconds": 0.001}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    sys.exit(0)
bundle = args[0]
opts = {args[i]: args[i + 1] for i in range(1, len(args) - 1)
        if args[i].startswith("--") or args[i] == "-o"}
feedback = measured(bundle, int(opts.get("--samples", "100")),
                       int(opts.get("--inputs", "3")), opts.get("--ir-version", ""))
with open(opts["-o"], "w") as f:
    json.dump(feedback, f)
if "--profile-dir" in opts:  # tirx-run caches the device profile there
    with open(os.path.join(opts["--profile-dir"], "device-fake-%s.json" % DEVICE), "w") as f:
        json.dump({"name": "fake", "uuid": "GPU-fake-" + DEVICE, "sm_count": 132,
                   "clock_ghz": 1.98, "copy_bandwidth_gbs": GBPS}, f)
sys.exit(0)
