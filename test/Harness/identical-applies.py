"""8 identical applies at once, in rounds: every one answers ok with the
same version (one made it, the others found it), never ok without a
version; the index gains one version per round.

identical-applies.py TIRX PAYLOAD DIR ROUNDS PROCESSES
"""
import json
import os
import subprocess
import sys

tirx, payload, folder, rounds, processes = sys.argv[1:6]
rounds, processes = int(rounds), int(processes)
ws = os.path.join(folder, "ws")
subprocess.run([tirx, "init", payload, "--workspace", ws], check=True,
               stdout=subprocess.DEVNULL)
sizes = [2 ** (4 + r % 9) for r in range(rounds)]
problems = []
for r, size in enumerate(sizes):
    parent = "v1" if r < 9 else "v%d" % (r - 7)
    action = json.dumps({"transform": "tile_to_blocks",
                         "params": {"tile_sizes": [size]}})
    runs = [subprocess.Popen([tirx, "apply", parent, "--action", action,
                              "--workspace", ws, "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(processes)]
    answers = []
    for p in runs:
        out, err = p.communicate()
        try:
            answer = json.loads(out)
        except ValueError:
            problems.append("round %d: not JSON (exit %d): %r %r"
                            % (r, p.returncode, out, err))
            continue
        if p.returncode != 0 or not answer.get("ok") or \
                "version" not in answer:
            problems.append("round %d: exit %d, answer %s"
                            % (r, p.returncode, out.strip()))
            continue
        answers.append(answer)
    versions = {a["version"]["id"] for a in answers}
    made = [a for a in answers if not a.get("deduplicated")]
    if len(versions) != 1 or len(made) != 1:
        problems.append("round %d: versions %s, %d made (expected one each)"
                        % (r, sorted(versions), len(made)))
with open(os.path.join(ws, "index.jsonl")) as f:
    count = sum(1 for _ in f)
print("rounds %d, processes %d, versions %d" % (rounds, processes, count))
for p in problems:
    print("problem:", p)
print("consistent" if not problems and count == rounds + 1 else
      "INCONSISTENT")
