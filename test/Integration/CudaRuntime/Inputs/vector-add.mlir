// A host program for mlir-runner: vectors added on the GPU through gpu.alloc
// and async copies on two streams (joined with events), a fill written by the
// GPU straight into registered host memory, and a launch in clusters of 2.
// Lowered with upstream's gpu-lower-to-nvvm-pipeline (make-runner-bundle.sh).
module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 4096 : index
    %f2 = arith.constant 2.0 : f32

    // a[i] = i, b[i] = 2i on the host.
    %a = memref.alloc() : memref<4096xf32>
    %b = memref.alloc() : memref<4096xf32>
    %c = memref.alloc() : memref<4096xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %x = arith.sitofp %ii : i32 to f32
      %y = arith.mulf %x, %f2 : f32
      memref.store %x, %a[%i] : memref<4096xf32>
      memref.store %y, %b[%i] : memref<4096xf32>
    }

    // Two streams: a's copy on one, b's on the other, joined before the add.
    %s0 = gpu.wait async
    %da, %t0 = gpu.alloc async [%s0] () : memref<4096xf32>
    %t1 = gpu.memcpy async [%t0] %da, %a : memref<4096xf32>, memref<4096xf32>
    %s1 = gpu.wait async
    %db, %t2 = gpu.alloc async [%s1] () : memref<4096xf32>
    %t3 = gpu.memcpy async [%t2] %db, %b : memref<4096xf32>, memref<4096xf32>
    %joined = gpu.wait async [%t1, %t3]
    %dc, %t4 = gpu.alloc async [%joined] () : memref<4096xf32>
    %t5 = gpu.launch async [%t4] blocks(%bx, %by, %bz) in (%gx = %c16, %gy = %c1, %gz = %c1)
                             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %x = memref.load %da[%i] : memref<4096xf32>
      %y = memref.load %db[%i] : memref<4096xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %dc[%i] : memref<4096xf32>
      gpu.terminator
    }
    %t6 = gpu.memcpy async [%t5] %c, %dc : memref<4096xf32>, memref<4096xf32>
    %t7 = gpu.dealloc async [%t6] %da : memref<4096xf32>
    %t8 = gpu.dealloc async [%t7] %db : memref<4096xf32>
    %t9 = gpu.dealloc async [%t8] %dc : memref<4096xf32>
    gpu.wait [%t9]

    // Every c[i] must be 3i: count the ones that are not.
    %f3 = arith.constant 3.0 : f32
    %bad = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %ii = arith.index_cast %i : index to i32
      %x = arith.sitofp %ii : i32 to f32
      %want = arith.mulf %x, %f3 : f32
      %got = memref.load %c[%i] : memref<4096xf32>
      %ne = arith.cmpf une, %got, %want : f32
      %one = arith.select %ne, %c1, %c0 : index
      %next = arith.addi %acc, %one : index
      scf.yield %next : index
    }
    %badi = arith.index_cast %bad : index to i64
    %bads = memref.alloc() : memref<1xi64>
    memref.store %badi, %bads[%c0] : memref<1xi64>
    %badu = memref.cast %bads : memref<1xi64> to memref<*xi64>
    call @printMemrefI64(%badu) : (memref<*xi64>) -> ()
    %tail = memref.subview %c[4088] [8] [1] : memref<4096xf32> to memref<8xf32, strided<[1], offset: 4088>>
    %tailu = memref.cast %tail : memref<8xf32, strided<[1], offset: 4088>> to memref<*xf32>
    call @printMemrefF32(%tailu) : (memref<*xf32>) -> ()

    // The GPU writes into registered host memory; memset32 fills device memory.
    %h = memref.alloc() : memref<8xf32>
    %hu = memref.cast %h : memref<8xf32> to memref<*xf32>
    gpu.host_register %hu : memref<*xf32>
    %f7 = arith.constant 7.5 : f32
    %s2 = gpu.wait async
    %dm, %t10 = gpu.alloc async [%s2] () : memref<8xf32>
    %t11 = gpu.memset async [%t10] %dm, %f7 : memref<8xf32>, f32
    %t12 = gpu.launch async [%t11] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                              threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c2, %sz = %c1) {
      %row = arith.muli %ty, %sx : index
      %i = arith.addi %row, %tx : index
      %v = memref.load %dm[%i] : memref<8xf32>
      %ti = arith.index_cast %i : index to i32
      %tf = arith.sitofp %ti : i32 to f32
      %w = arith.addf %v, %tf : f32
      memref.store %w, %h[%i] : memref<8xf32>
      gpu.terminator
    }
    %t13 = gpu.dealloc async [%t12] %dm : memref<8xf32>
    gpu.wait [%t13]
    call @printMemrefF32(%hu) : (memref<*xf32>) -> ()
    gpu.host_unregister %hu : memref<*xf32>

    // Clusters of 2 blocks (sm_90): each block writes its rank in the cluster.
    %r = memref.alloc() : memref<4xi32>
    %ru = memref.cast %r : memref<4xi32> to memref<*xi32>
    %s3 = gpu.wait async
    %dr, %t14 = gpu.alloc async [%s3] () : memref<4xi32>
    %t15 = gpu.launch async [%t14] clusters(%cx, %cy, %cz) in (%ncx = %c2, %ncy = %c1, %ncz = %c1)
                              blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
                              threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %rank = gpu.cluster_block_id x
      %id = gpu.block_id x
      %rank32 = arith.index_cast %rank : index to i32
      memref.store %rank32, %dr[%id] : memref<4xi32>
      gpu.terminator
    }
    %t16 = gpu.memcpy async [%t15] %r, %dr : memref<4xi32>, memref<4xi32>
    %t17 = gpu.dealloc async [%t16] %dr : memref<4xi32>
    gpu.wait [%t17]
    call @printMemrefI32(%ru) : (memref<*xi32>) -> ()
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @printMemrefI32(memref<*xi32>)
  func.func private @printMemrefI64(memref<*xi64>)
}
