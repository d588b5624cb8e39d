#!/bin/bash
# Tests the pack as a GPU host without LLVM would use it (target `check-pack`
# of cmake/TIRxPack.cmake; docs/testing.md):
#   check-pack.sh TIRX-PACK.TAR.XZ
# 1. unpacks it into a fresh directory, checks SHA256SUMS and the size limit;
# 2. checks that bin/tirx and bin/tirx-run need glibc alone (ldd, no RUNPATH);
# 3. in a private mount namespace where /usr/lib/llvm-22 and the toolkit in
#    /usr/local/cuda (bin/, nvvm/) are hidden (empty tmpfs), with a scrubbed environment, and a copy of
#    ptxas and libdevice as the only CUDA toolkit, runs the loop on
#    examples/saxpy.mlir: tirx init, apply --recipe, view, run (lower, bundle
#    with PTX and cubin, tirx-run found beside tirx: "no_device" where there
#    is no GPU, a correct measured run where there is one; from PATH when
#    tirx stands alone, no_runner without one), tirx-opt by its
#    link and as `tirx opt`, the toolkit found through $CUDA_HOME and through
#    ptxas on PATH and a clear refusal without either, and the Python package
#    through `tirx serve`.
# Runs on the GPU host too (it needs bash, tar, xz, python3, ptxas); there,
# TIRX_CHECK_PACK_REQUIRE_GPU=1 makes a run without a device a failure.
set -euo pipefail

if [ "${1:-}" = --inner ]; then inner=1; shift; else inner=0; fi
tarball=$(realpath "$1")
limit_bytes=$((40 * 1024 * 1024))

fail() { echo "check-pack: FAIL: $*" >&2; exit 1; }
note() { echo "check-pack: $*"; }

if [ "$inner" = 0 ]; then
  [ -f "$tarball" ] || fail "$tarball does not exist (make pack)"
  bytes=$(stat -c %s "$tarball")
  note "$tarball: $bytes bytes"
  [ "$bytes" -lt "$limit_bytes" ] || fail "the pack is $bytes bytes, over 40 MiB"
  work=$(mktemp -d "${TMPDIR:-/tmp}/tirx-check-pack.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  tar -xJf "$tarball" -C "$work"
  P=$work/tirx-pack
  (cd "$P" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match"
  [ "$(readlink "$P/bin/tirx-opt")" = tirx ] || fail "bin/tirx-opt is not a link to tirx"

  # Only glibc: no libMLIR, libLLVM, libstdc++, libz, ... and no RUNPATH.
  for exe in tirx tirx-run; do
    libs=$(ldd "$P/bin/$exe" | awk '{print $1}')
    for lib in $libs; do
      case "$lib" in
        linux-vdso.so.*|/lib64/ld-linux-x86-64.so.*|libc.so.6|libm.so.6|\
        libpthread.so.0|libdl.so.2|librt.so.1) ;;
        *) fail "bin/$exe needs $lib (ldd: $(echo $libs))" ;;
      esac
    done
    if command -v readelf > /dev/null && readelf -d "$P/bin/$exe" | grep -q 'R.*PATH'; then
      fail "bin/$exe has an RPATH/RUNPATH"
    fi
    note "bin/$exe needs only: $(echo $libs)"
  done

  # The toolkit the loop may use: a copy of ptxas and libdevice.
  cuda=${CUDA_HOME:-/usr/local/cuda}
  [ -x "$cuda/bin/ptxas" ] || fail "no ptxas at $cuda/bin/ptxas (set CUDA_HOME)"
  mkdir -p "$work/cuda/bin" "$work/cuda/nvvm"
  cp "$cuda/bin/ptxas" "$work/cuda/bin/"
  cp -r "$cuda/nvvm/libdevice" "$work/cuda/nvvm/"

  # Hide LLVM and the CUDA toolkit (a mount namespace: root, or a user
  # namespace mapped to root); where that is refused, the ldd check above
  # and the scrubbed environment stand alone.
  inner_cmd=(bash "$(realpath "$0")" --inner "$tarball" "$work")
  if unshare -m true 2>/dev/null; then
    unshare -m "${inner_cmd[@]}"
  elif unshare -rm true 2>/dev/null; then
    unshare -rm "${inner_cmd[@]}"
  else
    note "WARNING: no mount namespace here; /usr/lib/llvm-22 stays visible"
    "${inner_cmd[@]}"
  fi
  exit 0
fi

# --- inside the namespace -------------------------------------------------
work=$2
P=$work/tirx-pack
# Of the toolkit only bin/ and nvvm/: a GPU host may keep the driver's
# libraries under /usr/local/cuda (compat/).
for dir in /usr/lib/llvm-22 /usr/local/cuda/bin /usr/local/cuda/nvvm; do
  if [ -d "$dir" ] && [ "$(id -u)" = 0 ] && mount -t tmpfs tmpfs "$dir" 2>/dev/null; then
    note "hidden: $dir"
  elif [ -d "$dir" ]; then
    note "WARNING: $dir could not be hidden"
  fi
done
[ ! -e /usr/lib/llvm-22/lib/libMLIR.so ] || note "WARNING: libMLIR.so is visible"

# A scrubbed environment: PATH without the pack (tirx must find tirx-run
# beside itself) and without LLVM or CUDA; of LD_LIBRARY_PATH only what is
# not LLVM's (the CUDA driver may live there on a GPU host).
cd "$work"
ldpath=$(tr ':' '\n' <<< "${LD_LIBRARY_PATH:-}" | grep -v -i llvm | paste -sd: || true)
gpu_env=()
for var in CUDA_VISIBLE_DEVICES NVIDIA_VISIBLE_DEVICES; do
  [ -z "${!var:-}" ] || gpu_env+=("$var=${!var}")
done
run() {
  env -i HOME="$work" PATH=/usr/bin:/bin LANG=C.UTF-8 TIRX_ACTOR=check-pack \
    ${ldpath:+LD_LIBRARY_PATH="$ldpath"} "${gpu_env[@]}" "$@"
}
T=$P/bin/tirx
ws=$work/ws

run "$T" --version | grep -q '^tirx ' || fail "tirx --version"
run "$P/bin/tirx-opt" --version | grep -q 'tirx-opt (TIRx)' || fail "tirx-opt --version (by its link)"
run "$T" opt --version | grep -q 'tirx-opt (TIRx)' || fail "tirx opt --version"
run "$P/bin/tirx-run" --help > /dev/null 2>&1 || fail "tirx-run --help"
note "tirx, tirx-opt (link and subcommand) and tirx-run start"

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
run "$T" init "$P/examples/saxpy.mlir" --workspace "$ws" --json > init.json ||
  fail "tirx init: $(cat init.json)"
run "$T" apply v1 --recipe "$P/examples/recipes/saxpy-vec4.json" \
  --workspace "$ws" --json > apply.json || fail "tirx apply --recipe: $(cat apply.json)"
last=$(json 'd["version"]["id"]' < apply.json)
[ "$last" = v5 ] || fail "apply --recipe of 4 actions on v1 made $last, not v5"
note "init and apply --recipe: v1 -> $last"
run "$T" view "$last" --what thread_binding --workspace "$ws" --json > view.json ||
  fail "tirx view: $(cat view.json)"

# tirx run with CUDA_HOME naming the copied toolkit.
status=0
run CUDA_HOME="$work/cuda" "$T" run "$last" --workspace "$ws" --json --samples 5 \
  > run.json || status=$?
if [ "$status" = 0 ]; then
  correct=$(json 'd["feedback"]["correctness"]' < run.json)
  [ "$correct" = pass ] || fail "tirx run: correctness $correct"
  note "tirx run: measured on the GPU, correctness pass, median $(json 'd["feedback"]["duration_us"]' < run.json) us"
else
  code=$(json 'd["error"]["code"]' < run.json)
  [ "$code" = no_device ] || fail "tirx run: exit $status, $(cat run.json)"
  [ "${TIRX_CHECK_PACK_REQUIRE_GPU:-0}" = 0 ] ||
    fail "tirx run: no device, and TIRX_CHECK_PACK_REQUIRE_GPU is set"
  note "tirx run: lowered and bundled; tirx-run found beside tirx reports no_device"
fi
for b in "$ws/bundles/$last" "$ws/bundles/v1-reference"; do
  [ -f "$b/manifest.json" ] || fail "no manifest in $b"
  ls "$b"/*.ptx > /dev/null 2>&1 || fail "no PTX in $b"
  ls "$b"/*.cubin > /dev/null 2>&1 || fail "no cubin in $b (ptxas from CUDA_HOME)"
done
grep -q 'ld.global.v4' "$ws/bundles/$last"/*.ptx || fail "the 4-wide PTX has no v4 load"
note "bundles: manifest, PTX (v4 loads) and cubin for $last and its reference"

# tirx alone in a directory (a hard link: /proc/self/exe names it there):
# tirx-run comes from PATH, and with none there a clear refusal.
mkdir "$work/solo"
ln "$T" "$work/solo/tirx"
status=0
run CUDA_HOME="$work/cuda" PATH="$P/bin:/usr/bin:/bin" "$work/solo/tirx" run "$last" \
  --workspace "$ws" --json > run-path.json || status=$?
code=$(json 'd.get("error", {}).get("code", "ok")' < run-path.json)
[ "$code" = ok ] || [ "$code" = no_device ] || fail "tirx-run from PATH: $(cat run-path.json)"
status=0
run CUDA_HOME="$work/cuda" "$work/solo/tirx" run "$last" --workspace "$ws" --json \
  > run-none.json || status=$?
code=$(json 'd["error"]["code"]' < run-none.json)
[ "$status" != 0 ] && [ "$code" = no_runner ] || fail "without tirx-run: $(cat run-none.json)"
note "tirx-run found on PATH when not beside tirx; without one, no_runner"

# tirx-opt: the lowering with ptxas found on PATH, then without any toolkit.
run "$T" show "$last" --workspace "$ws" > mapped.mlir
run PATH="$work/cuda/bin:/usr/bin:/bin" "$P/bin/tirx-opt" mapped.mlir \
  --tirx-export-bundle="dir=$work/opt-bundle" -o /dev/null ||
  fail "tirx-opt --tirx-export-bundle with ptxas on PATH"
ls "$work/opt-bundle"/*.cubin > /dev/null 2>&1 || fail "tirx-opt wrote no cubin"
status=0
run "$T" opt mapped.mlir --tirx-export-bundle="dir=$work/no-toolkit" \
  -o /dev/null 2> no-toolkit.err || status=$?
[ "$status" != 0 ] && grep -q 'no CUDA toolkit' no-toolkit.err ||
  fail "without a toolkit: exit $status, $(cat no-toolkit.err)"
note "tirx-opt: toolkit from ptxas on PATH; without one, a clear error"

# The Python package through env.sh: tirx serve (MCP over stdio).
run CUDA_HOME="$work/cuda" \
  TIRX_CHECK_PACK_REQUIRE_GPU="${TIRX_CHECK_PACK_REQUIRE_GPU:-0}" bash -c ". '$P/env.sh' && cd '$work' && python3 -" <<'PY' ||
import os, tirx
assert tirx.find_tirx().startswith(os.environ["TIRX_PACK_DIR"]), tirx.find_tirx()
with tirx.TIRxContext(workspace_dir="py-ws") as ctx:
    v = ctx.commit_ir(os.environ["TIRX_PACK_DIR"] + "/examples/saxpy.mlir")
    for t, p in [("tile_to_blocks", {"tile_sizes": [1024]}),
                 ("tile_to_threads", {"elements_per_thread": [4]}),
                 ("vectorize", {"width": 4}),
                 ("map_to_gpu", {"block_dims": [256]})]:
        r = ctx.apply(v, t, p)
        assert r.ok, r.reason
        v = r.new_version
    bad = ctx.apply(v, "vectorize", {"width": 3})
    assert not bad.ok and bad.rejection.code, bad
    f = ctx.run(v, profile_rounds=5)
    assert f["compile_status"] == "ok", f
    assert f["launch_status"] in ("ok", "no_device"), f
    if os.environ.get("TIRX_CHECK_PACK_REQUIRE_GPU", "0") != "0":
        assert f["launch_status"] == "ok" and f["correctness"] == "pass", f
    print("check-pack: python: %s compiled, launch %s, a refusal: %s"
          % (v, f["launch_status"], bad.rejection.code))
PY
  fail "the Python package"
note "PASS"
