// With ptxas, the bundle holds a cubin and ptxas's resource report.
// REQUIRES: ptxas
// RUN: rm -rf %t && tirx-opt %s --tirx-export-bundle="dir=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/manifest.json
// RUN: test -s %t/copy_kernel.cubin

// CHECK: "cubin": "copy_kernel.cubin",
// CHECK: "ptxas": {
// CHECK-NEXT: "registers": {{[1-9][0-9]*}},
// CHECK-NEXT: "shared_bytes": 0,
// CHECK-NEXT: "spill_load_bytes": 0,
// CHECK-NEXT: "spill_store_bytes": 0,
// CHECK-NEXT: "stack_bytes": 0

func.func @copy(%src: memref<256xf32>, %dst: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %v = memref.load %src[%tx] : memref<256xf32>
    memref.store %v, %dst[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
