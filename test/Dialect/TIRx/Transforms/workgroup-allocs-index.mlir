// A shared buffer of index (the positions of reduce_in_block's argmax)
// takes 8 bytes an element, the kernels' index width: in the 48 KiB limit
// of static shared memory, in the offsets of the views of dynamic shared
// memory, and in the PTX.
// RUN: tirx-opt %s -split-input-file --tirx-workgroup-allocs | FileCheck %s
// RUN: tirx-opt %s -split-input-file --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @static_index
//       CHECK: gpu.launch
//  CHECK-SAME: workgroup(%[[V:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[I:.+]] : memref<8xindex, #gpu.address_space<workgroup>>)
//   CHECK-NOT: memref.alloc
//       CHECK: memref.store %{{.*}}, %[[I]]
// PTX: gpu.binary @static_index_kernel
// PTX-SAME: .shared .align 16 .b8 {{.*}}[32];
// PTX-SAME: .shared .align 16 .b8 {{.*}}[64];
// PTX-SAME: st.shared.b64
func.func @static_index(%m: memref<256xf32>, %p: memref<256xindex>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %v = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    %i = memref.alloc() : memref<8xindex, #gpu.address_space<workgroup>>
    %slot = arith.remui %tx, %c8 : index
    %x0 = memref.load %m[%tx] : memref<256xf32>
    memref.store %x0, %v[%slot] : memref<8xf32, #gpu.address_space<workgroup>>
    memref.store %tx, %i[%slot] : memref<8xindex, #gpu.address_space<workgroup>>
    gpu.barrier
    %x1 = memref.load %v[%slot] : memref<8xf32, #gpu.address_space<workgroup>>
    %j = memref.load %i[%slot] : memref<8xindex, #gpu.address_space<workgroup>>
    memref.store %x1, %m[%tx] : memref<256xf32>
    memref.store %j, %p[%tx] : memref<256xindex>
    gpu.terminator
  }
  return
}

// -----

// 6144 indices are 49152 bytes: with 100 floats after them (at 49152, a
// multiple of 128), 49552 bytes, past static shared memory.
// CHECK-LABEL: func.func @dynamic_index
//       CHECK: %[[SIZE:.*]] = arith.constant 49552 : i32
//       CHECK: gpu.launch
//  CHECK-SAME: dynamic_shared_memory_size %[[SIZE]]
//       CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
//       CHECK: memref.view %[[BASE]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<6144xindex, #gpu.address_space<workgroup>>
//       CHECK: memref.view %[[BASE]][%c49152{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<100xf32, #gpu.address_space<workgroup>>
//   CHECK-NOT: memref.alloc
// PTX: gpu.binary @dynamic_index_kernel
// PTX-SAME: .shared .align 16 .b8 __dynamic_shmem__0;
func.func @dynamic_index(%m: memref<256xf32>, %p: memref<256xindex>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %i = memref.alloc() : memref<6144xindex, #gpu.address_space<workgroup>>
    %v = memref.alloc() : memref<100xf32, #gpu.address_space<workgroup>>
    %x0 = memref.load %m[%tx] : memref<256xf32>
    memref.store %tx, %i[%tx] : memref<6144xindex, #gpu.address_space<workgroup>>
    memref.store %x0, %v[%tx] : memref<100xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %j = memref.load %i[%tx] : memref<6144xindex, #gpu.address_space<workgroup>>
    %x1 = memref.load %v[%tx] : memref<100xf32, #gpu.address_space<workgroup>>
    memref.store %x1, %m[%tx] : memref<256xf32>
    memref.store %j, %p[%tx] : memref<256xindex>
    gpu.terminator
  }
  return
}
