// The stock mlir-opt-22 runs tirx-lower-to-nvvm from the pass plugin.
// RUN: %mlir_opt --load-pass-plugin=%tirx_plugin \
// RUN:   --pass-pipeline='builtin.module(tirx-lower-to-nvvm{format=isa})' %s | FileCheck %s
// RUN: not %mlir_opt --load-pass-plugin=%tirx_plugin \
// RUN:   --pass-pipeline='builtin.module(tirx-lower-to-nvvm{chip=sm_50})' %s 2>&1 | FileCheck %s --check-prefix=CHIP
// Both plugins at once register each thing once. (Pass flags such as
// --tirx-lower-to-nvvm are parsed before plugins load: use --pass-pipeline.)
// RUN: %mlir_opt --load-dialect-plugin=%tirx_plugin --load-pass-plugin=%tirx_plugin \
// RUN:   --pass-pipeline='builtin.module(tirx-lower-to-nvvm{format=isa})' %s | FileCheck %s

// CHECK: gpu.binary @copy_kernel
// CHECK-SAME: .target sm_90
// CHECK-SAME: ld.global.v4.b32
// CHIP: error: tirx-lower-to-nvvm: unsupported chip 'sm_50'

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
