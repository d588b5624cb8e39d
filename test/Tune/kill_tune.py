"""Starts `tirx tune`, kills it (SIGKILL, or SIGINT) once it has recorded
some work, then checks that the workspace is sound and that rerunning the
same command resumes: it finishes, rebuilding nothing already recorded."""
import glob
import json
import os
import signal
import subprocess
import sys
import time

tirx, ws, how = sys.argv[1], sys.argv[2], sys.argv[3]
cmd = [tirx, "tune", "v1", "--workspace", ws, "--compile-only", "--budget",
       "6", "--jobs", "2", "--batch", "3", "--policy", "mcts", "--json"]
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
deadline = time.time() + 120
built = 0
while time.time() < deadline and proc.poll() is None:
    states = glob.glob(os.path.join(ws, "tune", "*.jsonl"))
    if states:
        built = sum('"kind":"built"' in l for l in open(states[0]))
        if built >= 2:
            break
    time.sleep(0.05)
assert proc.poll() is None, "the tune ended before it could be killed"
proc.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
out, err = proc.communicate(timeout=300)
if how == "int":
    # Interrupted: it stops between steps and reports it.
    last = json.loads(out.decode().strip().splitlines()[-1])
    assert last["interrupted"] is True, last
    assert proc.returncode == 0, proc.returncode
time.sleep(1)  # build processes of a killed tune stop after their step
fsck = subprocess.run([tirx, "fsck", "--workspace", ws], capture_output=True)
assert fsck.returncode == 0, fsck.stdout.decode() + fsck.stderr.decode()
again = subprocess.run(cmd, capture_output=True, timeout=600)
assert again.returncode == 0, again.stderr.decode()
result = json.loads(again.stdout.decode().strip().splitlines()[-1])
assert result["resumed_lines"] >= 2, result
assert result["candidates"] + result["failed_builds"] == 6, result
fsck = subprocess.run([tirx, "fsck", "--workspace", ws], capture_output=True)
assert fsck.returncode == 0, fsck.stdout.decode()
print("%s: sound, resumed from %d lines" % (how, result["resumed_lines"]))
