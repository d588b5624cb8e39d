// A thread's stack allocations live in an alloca_scope inside the thread
// loop, so that the CPU stack does not grow with every thread of every block.
// RUN: tirx-opt %s --tirx-emulate-launches | FileCheck %s

// CHECK-LABEL: func.func @private
//       CHECK:   scf.for
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %c32{{.*}} step
//       CHECK:       memref.alloca_scope {
//       CHECK:         memref.alloca() : memref<1xf32>
//       CHECK:         memref.store %{{.*}}, %arg0
//  CHECK-NEXT:       }
//  CHECK-NEXT:     }
func.func @private(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c2, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c32, %b = %c1, %c = %c1) {
    %p = memref.alloca() : memref<1xf32>
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %p[%c0] : memref<1xf32>
    %v = memref.load %p[%c0] : memref<1xf32>
    %o = arith.muli %bx, %c32 : index
    %j = arith.addi %o, %tx : index
    memref.store %v, %out[%j] : memref<64xf32>
    gpu.terminator
  }
  return
}
