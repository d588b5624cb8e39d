#!/usr/bin/env bash
# Screening rate of the persistent measurement worker (issue 12): 20
# variants of the 2^26-element saxpy and 20 of a 2^20-element elementwise
# kernel (saxpy over 2^20), each a bundle directory of its own, measured one
# after another through one worker in screen mode (one input set made on the
# GPU, 10 timed samples, correctness checked on every candidate on the GPU).
#
#   worker-rate.sh TIRX_RUN BUNDLES [--min-rate R]
#
# BUNDLES is the directory test/Integration/make-bundles.sh fills
# (build/integration-bundles). Prints candidates per second for each group,
# the worker's start not included; with --min-rate, fails below R or when a
# candidate is not correct.
set -euo pipefail
run=$1 bundles=$2
shift 2
min=0
if [ "${1:-}" = --min-rate ]; then min=$2; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

# group LABEL REFERENCE VARIANT...: 20 candidates from the variants, cycled.
group() {
  local label=$1 ref=$2 i=0 b
  shift 2
  local present=()
  for b in "$@"; do [ -d "$bundles/$b" ] && present+=("$b"); done
  if [ ! -d "$bundles/$ref" ] || [ ${#present[@]} -eq 0 ]; then
    echo "$label: no bundles in $bundles (run make-bundles.sh)"
    status=1
    return
  fi
  mkdir -p "$work/$label"
  while [ $i -lt 20 ]; do
    b=${present[$((i % ${#present[@]}))]}
    cp -r "$bundles/$b" "$work/$label/$(printf '%02d' $i)-$b"
    i=$((i + 1))
  done
  "$run" --persistent --mode screen "$work/$label"/*/ --reference "$bundles/$ref" \
    -o "$work/$label.json" 2> "$work/$label.err" || true
  python3 - "$label" "$work/$label.json" "$work/$label.err" "$min" <<'PY' || status=1
import json, re, sys
label, feedback, log, minimum = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
runs = json.load(open(feedback))
runs = runs if isinstance(runs, list) else [runs]
correct = sum(f.get("correctness") == "pass" for f in runs)
text = open(log).read()
m = re.search(r"(\d+) candidates in ([\d.e+-]+) s \(screen mode\): ([\d.e+-]+) candidates/s; "
              r"worker start ([\d.e+-]+) s", text)
if not m:
    sys.exit("%s: no rate in tirx-run's output:\n%s" % (label, text))
rate = float(m.group(3))
medians = sorted(f["duration_us"] for f in runs if f.get("duration_us"))
print("%s: %d candidates, %d correct, %.1f candidates/s (%.2f s; worker start %.2f s "
      "not included; medians %.1f-%.1f us)" % (
          label.replace("saxpy-", "saxpy 2^").replace("elementwise-", "elementwise 2^"),
          len(runs), correct, rate, float(m.group(2)), float(m.group(4)),
          medians[0] if medians else 0, medians[-1] if medians else 0))
bad = [f for f in runs if f.get("correctness") != "pass"]
for f in bad:
    print("  not correct: %s %s %s" % (f.get("ir_version"), f.get("correctness"),
                                       f.get("correctness_detail") or f.get("error")))
if bad or rate < minimum:
    sys.exit(1)
PY
}

group saxpy-26 saxpy-ref saxpy-scalar saxpy-vec4 saxpy-tirx recipe-saxpy-scalar \
  recipe-saxpy-vec4 saxpy-ref
group elementwise-20 saxpy1m-ref saxpy1m-scalar saxpy1m-vec4 saxpy1m-tirx saxpy1m-ref
if [ $status -eq 0 ]; then echo "worker-rate: ok"; else echo "worker-rate: FAILED"; fi
exit $status
