#!/usr/bin/env bash
# The GPU suite on the H200 in parts that each fit one device call (the tests
# run one at a time: lit parallelism group cuda-device). From the repository
# root, with build/bin/tirx-run, build/integration-bundles,
# build/test/Integration, build/tirx-pack.tar.xz and .devtools/lit carried:
#   bash test/Integration/run-on-device.sh PART [LIMIT_SECONDS]
# PART: 1, 2, 3, 4 or 5 (together: every test), or a lit --filter regex.
# Part 5 is the CUDA runtime's test alone: it needs build/runner-bundle.tar.xz
# (target tirx-runner-bundle, 57 MiB) carried instead of the others.
# Prints a PASS/FAIL line per test, the failures' checks, the slowest tests;
# the whole log goes to ${OUT:-/tmp}/lit-PART.log.
# Measured serial times on the H200 (2026-12-01, 827703e, parallel host
# checks): part 1 158 s (suite), part 3 102 s (matmul16-wgmma 32,
# matmul16-sizes 27, matmul16 26, linear16 11, matmul-bias-gelu 6), part 2
# 158 s (tune16 112, counters 11, strict 11, tune 9, tune-gpus 8, host 8),
# part 4 about 250 s (trust 42, norms 31, saxpy 11, planted-hang 8; worker,
# recipes, worker-trust and dynamic together under 170 s), part 5 1 s.
# Part 3 now also runs linear-tf32 (55 s on the H200, d084c03) and
# linear16 with its bf16 wgmma linear (22 s, was 11): about 170 s. Session
# 6 on 9dbf25a: part 1 176 s, part 3 107 s (before linear-tf32), part 2
# 169 s, part 4 255 s. Session 7 on e55e651: part 1 175 s, part 3 188 s
# (linear-tf32 57), part 2 166 s, part 4 272 s (worker 106), part 5 7 s;
# 1 with 3 and 2 with 4 fit a call each (430-450 s with the uploads). Parts 1, 3 and 2 now take about 520 s: one call
# only with a limit near 600; else 1 and 3, then 2 with 4. lit stops itself at LIMIT
# (--max-time) and still prints every test's verdict and time, so a cut
# part says what ran.
set -u
part=${1:?usage: run-on-device.sh PART [LIMIT_SECONDS]}
limit=${2:-540}
case $part in
  1) filter='suite\.test' ;;
  2) filter='tune16|tune\.test|tune-gpus|host|counters|strict' ;;
  3) filter='matmul16|matmul-bias-gelu|linear16|linear-tf32' ;;
  4) filter='dynamic|trust|worker|norms|recipes|saxpy|planted|domain' ;;
  5) filter='CudaRuntime/' ;;
  *) filter=$part ;;
esac
out=${OUT:-/tmp}
if [ -f build/tirx-pack.tar.xz ]; then
  mkdir -p /tmp/tirx-device && tar xJf build/tirx-pack.tar.xz -C /tmp/tirx-device
fi
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
