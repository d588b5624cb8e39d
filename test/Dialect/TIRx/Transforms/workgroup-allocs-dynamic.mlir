// Shared buffers of a launch that take more than 48 KiB (the limit of
// static shared memory) become views of its dynamic shared memory, at
// offsets aligned to 128 bytes, its dynamic_shared_memory_size their total;
// the bundle records the size (the runner opts the kernel in to it).
// RUN: tirx-opt %s --tirx-workgroup-allocs | FileCheck %s
// RUN: tirx-opt %s --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s --check-prefix=PTX
// RUN: rm -rf %t && tirx-opt %s --tirx-export-bundle=dir=%t -o /dev/null
// RUN: FileCheck %s --check-prefix=BUNDLE < %t/manifest.json

// 40000 bytes, then 30000 at 40064 (the next multiple of 128): 70064.
// CHECK: %[[SIZE:.*]] = arith.constant 70064 : i32
// CHECK: gpu.launch
// CHECK-SAME: dynamic_shared_memory_size %[[SIZE]]
// CHECK-NOT: workgroup(
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[BASE]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<10000xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[BASE]][%c40064{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<7500xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// PTX: .shared .align 16 .b8 __dynamic_shmem__0;
// PTX-NOT: .shared .align {{[0-9]+}} .b8 __wg
// BUNDLE: "dynamic_shared_bytes": 70064
func.func @stage(%m: memref<256xf32> {llvm.align = 16 : i64}) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %s = memref.alloc() : memref<10000xf32, #gpu.address_space<workgroup>>
    %t = memref.alloc() : memref<7500xf32, #gpu.address_space<workgroup>>
    %v = memref.load %m[%tx] : memref<256xf32>
    memref.store %v, %s[%tx] : memref<10000xf32, #gpu.address_space<workgroup>>
    memref.store %v, %t[%tx] : memref<7500xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %s[%tx] : memref<10000xf32, #gpu.address_space<workgroup>>
    %u = memref.load %t[%tx] : memref<7500xf32, #gpu.address_space<workgroup>>
    %r = arith.addf %w, %u : f32
    memref.store %r, %m[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
