// The stock mlir-opt-22 runs tirx-lower-to-nvvm from the pass plugin, as a
// flag (the plugin registers it while mlir-opt parses its command line) or
// inside --pass-pipeline.
// RUN: %mlir_opt --load-pass-plugin=%tirx_plugin \
// RUN:   --tirx-lower-to-nvvm='cubin-chip=sm_90 cubin-format=isa' %s | FileCheck %s
// RUN: %mlir_opt --load-pass-plugin=%tirx_plugin \
// RUN:   --pass-pipeline='builtin.module(tirx-lower-to-nvvm{cubin-format=isa})' %s | FileCheck %s
// RUN: not %mlir_opt --load-pass-plugin=%tirx_plugin \
// RUN:   --tirx-lower-to-nvvm=cubin-chip=sm_50 %s 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not %mlir_opt --load-pass-plugin=%tirx_plugin \
// RUN:   --pass-pipeline='builtin.module(tirx-lower-to-nvvm{cubin-chip=sm_50})' %s 2>&1 | FileCheck %s --check-prefix=CHIP
// TIRx pass flags chain in the order given, as in tirx-opt.
// RUN: %mlir_opt --load-pass-plugin=%tirx_plugin --tirx-prove-vector-alignment \
// RUN:   --tirx-lower-to-nvvm=cubin-format=isa --dump-pass-pipeline %s 2>&1 -o /dev/null | FileCheck %s --check-prefix=PIPELINE
// The flags build mlir-opt's --pass-pipeline: the two do not mix.
// RUN: not %mlir_opt --load-pass-plugin=%tirx_plugin --pass-pipeline='builtin.module(cse)' \
// RUN:   --tirx-lower-to-nvvm %s 2>&1 | FileCheck %s --check-prefix=MIXED
// Both plugins at once register each thing once.
// RUN: %mlir_opt --load-dialect-plugin=%tirx_plugin --load-pass-plugin=%tirx_plugin \
// RUN:   --tirx-lower-to-nvvm=cubin-format=isa %s | FileCheck %s
// The options are listed with their defaults.
// RUN: %mlir_opt --load-pass-plugin=%tirx_plugin --help | FileCheck %s --check-prefix=HELP

// CHECK: gpu.binary @copy_kernel
// CHECK-SAME: .target sm_90
// CHECK-SAME: ld.global.v4.b32
// CHIP: error: tirx-lower-to-nvvm: unsupported chip 'sm_50'
// PIPELINE: builtin.module(
// PIPELINE-NEXT: tirx-prove-vector-alignment,
// PIPELINE-NEXT: tirx-lower-to-nvvm{{.*}}cubin-format=isa
// MIXED: for the --tirx-lower-to-nvvm option: cannot be combined with --pass-pipeline
// HELP: --tirx-lower-to-nvvm
// HELP-NEXT: --cubin-chip=<string> {{.*}}(default: sm_90)
// HELP-NEXT: --cubin-features=<string> {{.*}}(default: the lowest PTX version that supports the chip)
// HELP-NEXT: --cubin-format=<string> {{.*}}(default: bin)
// HELP-NEXT: --kernel-bare-ptr-calling-convention {{.*}}(default: true)
// HELP-NEXT: --opt-level=<int> {{.*}}(default: 3)
// HELP-NEXT: --ptxas-cmd-options=<string> {{.*}}(default: none)
// HELP-NEXT: --toolkit=<string> {{.*}}(default: looked up at run time: $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT, ptxas on PATH, /usr/local/cuda)

func.func @copy(%src: memref<1024xf32> {llvm.align = 16 : i64},
                %dst: memref<1024xf32> {llvm.align = 16 : i64}) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %i = arith.muli %tx, %c4 : index
    %v = vector.load %src[%i] : memref<1024xf32>, vector<4xf32>
    vector.store %v, %dst[%i] : memref<1024xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
