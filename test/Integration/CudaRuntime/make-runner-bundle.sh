#!/usr/bin/env bash
# Builds what the GPU host needs to run test/Integration/CudaRuntime: the
# modules lowered here by upstream's gpu-lower-to-nvvm-pipeline, Debian's
# mlir-runner-22 with the closure of its shared libraries (the GPU host has
# no LLVM), FileCheck, Debian's runner utils (printMemref*) and TIRx's
# libtirx_cuda_runtime.so. glibc stays the host's own.
#   make-runner-bundle.sh MLIR_OPT CUDA_RUNTIME_SO SOURCE_ROOT OUT_DIR [--no-archive]
# writes OUT_DIR/runner-bundle/ and OUT_DIR/runner-bundle.tar.xz, the one
# file to carry (docs/cuda-runtime.md).
set -euo pipefail
opt=$1 runtime=$2 src=$3 out=$4 archive=${5:-}
llvm=/usr/lib/llvm-22
dir=$out/runner-bundle
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib" "$dir/modules"

# 1. Lower the host programs: a fatbin (cubin + PTX, loaded with
#    mgpuModuleLoad) and PTX only (JIT-compiled by the driver,
#    mgpuModuleLoadJIT). The pipeline can report an error and still exit 0:
#    any diagnostic fails the build.
for input in "$src"/test/Integration/CudaRuntime/Inputs/*.mlir; do
  name=$(basename "$input" .mlir)
  for format in fatbin isa; do
    log=$dir/modules/$name.$format.log
    "$opt" "$input" -o "$dir/modules/$name.$format.mlir" \
      --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=$format" 2> "$log"
    if [ -s "$log" ]; then cat "$log" >&2; exit 1; fi
    rm "$log"
  done
done

# 2. The programs and libraries, and every shared library they need but glibc.
cp -L "$llvm/bin/mlir-runner" "$llvm/bin/FileCheck" "$dir/bin/"
cp -L "$runtime" "$llvm/lib/libmlir_runner_utils.so" "$llvm/lib/libmlir_c_runner_utils.so" "$dir/lib/"
glibc='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libresolv)\.'
for object in "$dir"/bin/* "$dir"/lib/*; do
  LD_LIBRARY_PATH=$llvm/lib ldd "$object" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r soname path; do
  [[ $soname =~ $glibc ]] && continue
  [ -e "$dir/lib/$soname" ] || cp -L "$path" "$dir/lib/$soname"
done

# Nothing may be missing: the GPU host resolves everything from lib/.
if LD_LIBRARY_PATH=$dir/lib ldd "$dir"/bin/* "$dir"/lib/* | grep 'not found'; then
  echo "make-runner-bundle.sh: the bundle misses the libraries above" >&2; exit 1
fi

# 3. One archive. The x86 filter shortens machine code by ~10% more.
if [ "$archive" != "--no-archive" ]; then
  tar -C "$out" -cf - runner-bundle | xz --x86 --lzma2=preset=9 -T1 > "$out/runner-bundle.tar.xz.tmp"
  mv "$out/runner-bundle.tar.xz.tmp" "$out/runner-bundle.tar.xz"
fi
