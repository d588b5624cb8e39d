#!/usr/bin/env bash
# The GPU suite on the H200 in parts that each fit one device call (the tests
# run one at a time: lit parallelism group cuda-device). From the repository
# root, with build/bin/tirx-run, build/integration-bundles,
# build/test/Integration, build/tirx-pack.tar.xz and .devtools/lit carried:
#   bash test/Integration/run-on-device.sh PART [LIMIT_SECONDS]
# PART: 1, 2, 3 or 4 (together: every test), or a lit --filter regex.
# Prints a PASS/FAIL line per test, the failures' checks, the slowest tests;
# the whole log goes to ${OUT:-/tmp}/lit-PART.log.
# Measured serial times on the H200 (2026-12-01, a246f4d and dd8a9b7):
# suite 415 s (35 payloads, one-shot tirx-run each), tune16 ~200 s,
# matmul16-wgmma 91 s, matmul16 72 s, matmul16-sizes 63 s, norms 56 s,
# recipes 35 s, linear16 22 s, saxpy 19 s, matmul-bias-gelu 14 s,
# counters 14 s, planted-hang 13 s, strict 7-10 s, tune-gpus 8 s, host 7 s;
# worker.test more than 60 s. lit stops itself at LIMIT (--max-time) and
# still prints every test's verdict and time, so a cut part says what ran.
set -u
part=${1:?usage: run-on-device.sh PART [LIMIT_SECONDS]}
limit=${2:-540}
case $part in
  1) filter='suite\.test' ;;
  2) filter='tune16|tune\.test|tune-gpus|host|counters|strict' ;;
  3) filter='matmul16|matmul-bias-gelu|linear16' ;;
  4) filter='dynamic|trust|worker|norms|recipes|saxpy|planted' ;;
  *) filter=$part ;;
esac
out=${OUT:-/tmp}
mkdir -p /tmp/tirx-device && tar xJf build/tirx-pack.tar.xz -C /tmp/tirx-device
log="$out/lit-${part//[^A-Za-z0-9]/_}.log"
start=$(date +%s)
# lit in a session of its own: what a cut test leaves running (lit's pool
# is terminated, not the tests' own children) is killed with it, so the
# next part does not share the GPU with leftovers.
sidfile=$(mktemp)
setsid -w bash -c 'echo $$ > "$0"; exec "$@"' "$sidfile" \
  timeout "$((limit + 30))" env PYTHONPATH=.devtools/lit python3 -c \
  'import lit.main; lit.main.main()' -v --time-tests --max-time "$limit" \
  --param tirx=/tmp/tirx-device/tirx-pack/bin/tirx build/test/Integration \
  --filter "$filter" > "$log" 2>&1
status=$?
sid=$(cat "$sidfile"); rm -f "$sidfile"
if [ -n "$sid" ]; then
  pkill -TERM -s "$sid" 2>/dev/null && sleep 2
  pkill -KILL -s "$sid" 2>/dev/null
fi
# lit exits 0 when --max-time skipped the rest: that is no pass.
if grep -q "reached timeout, skipping remaining tests" "$log"; then
  echo "part $part: cut at its limit; the tests not listed below did not run"
  [ "$status" -eq 0 ] && status=124
fi
echo "part $part: exit $status after $(( $(date +%s) - start )) s (limit $limit)"
grep -E "^(PASS|FAIL|UNSUPPORTED|XFAIL|XPASS|TIMEOUT|SKIPPED):" "$log"
grep -E "^FAILED |^check_feedback.py:|Error|error:" "$log" | cut -c1-300 | head -20
grep -A12 "^Slowest Tests" "$log" | tail -n +3 | grep "s: " | head -10
exit $status
