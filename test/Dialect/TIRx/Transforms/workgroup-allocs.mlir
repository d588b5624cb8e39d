// A shared-memory allocation inside a launch becomes a workgroup attribution
// (one buffer per block), not a per-thread heap allocation.
// RUN: tirx-opt %s --tirx-workgroup-allocs | FileCheck %s
// RUN: tirx-opt %s --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s --check-prefix=PTX

// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[BUF:.+]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: memref.alloc
// CHECK: memref.store %{{.*}}, %[[BUF]]
// PTX: .shared .align {{[0-9]+}} .b8 {{.*}}[1024]
// PTX-NOT: malloc
func.func @stage(%m: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %s = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
    %v = memref.load %m[%tx] : memref<256xf32>
    memref.store %v, %s[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %s[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %w, %m[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
