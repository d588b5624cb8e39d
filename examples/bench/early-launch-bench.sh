#!/usr/bin/env bash
# Programmatic dependent launch on and off, on the same bundles, on a GPU host:
#   examples/bench/early-launch-bench.sh BUILD_DIR OUT_DIR [payload,...]
# For each suite payload (default: the multi-kernel ones and a one-kernel
# row sum), copies its bundle and reference from BUILD_DIR/integration-bundles
# twice: as built ("early": its kernels marked early_launch) and with the
# marks removed from the manifest ("plain": the same PTX, every kernel
# launched after the one before ends). Then times both with
# examples/suite/bench.py, twice, interleaved (early, plain, plain, early),
# with torch eager and torch.compile in each call. docs/bundle.md, "Early
# launch"; docs/benchmarks.md has the figures.
set -euo pipefail
build=${1:?usage: early-launch-bench.sh BUILD_DIR OUT_DIR [payload,...]}
out=${2:?usage: early-launch-bench.sh BUILD_DIR OUT_DIR [payload,...]}
only=${3:-colmax,colsum_acc,rowsum_long,rowsum}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/early" "$out/plain"
for p in ${only//,/ }; do
  for side in early plain; do
    rm -rf "$out/$side/suite-$p" "$out/$side/suite-$p-ref"
    cp -r "$build/integration-bundles/suite-$p" "$build/integration-bundles/suite-$p-ref" "$out/$side/"
  done
  python3 - "$out/plain/suite-$p/manifest.json" <<'PY'
import json, sys
path = sys.argv[1]
m = json.load(open(path))
for k in m["kernels"]:
    k.pop("early_launch", None)
json.dump(m, open(path, "w"), indent=2)
PY
done
for round in early:1 plain:1 plain:2 early:2; do
  side=${round%:*}; n=${round#*:}
  echo "== $side, round $n"
  python3 "$here/../suite/bench.py" "$build" "$out/$side-$n" --samples 200 \
    --only "$only" --bundles "$out/$side"
done
