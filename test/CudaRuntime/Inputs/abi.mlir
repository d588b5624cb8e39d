// Every kind of call upstream's GPU lowering (LLVM 22) makes into the CUDA
// runtime, but the cuSPARSE ones: default device, streams, events, managed
// and device allocation, copies, 32- and 16-bit fills, host registration,
// TMA descriptors, plain and cluster launches, module load and unload.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  func.func @main(%m: memref<*xf32>, %host: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %d = arith.constant 0 : i32
    gpu.set_default_device %d
    %s0 = gpu.wait async
    %a, %t0 = gpu.alloc async [%s0] () : memref<16xf16>
    %b = gpu.alloc host_shared () : memref<16xf32>
    %s1 = gpu.wait async
    %e, %t1 = gpu.alloc async [%s1] () : memref<16xf32>
    %j = gpu.wait async [%t0, %t1]
    %h = arith.constant 1.0 : f16
    %f = arith.constant 1.0 : f32
    %t2 = gpu.memset async [%j] %a, %h : memref<16xf16>, f16
    %t3 = gpu.memset async [%t2] %b, %f : memref<16xf32>, f32
    %t4 = gpu.launch async [%t3] clusters(%cx, %cy, %cz) in (%ncx = %c2, %ncy = %c1, %ncz = %c1)
                             blocks(%bx, %by, %bz) in (%x = %c2, %y = %c1, %z = %c1)
                             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %a[%tx] : memref<16xf16>
      memref.store %v, %a[%tx] : memref<16xf16>
      gpu.terminator
    }
    %t5 = gpu.launch async [%t4] blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
                             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %b[%tx] : memref<16xf32>
      memref.store %v, %b[%tx] : memref<16xf32>
      gpu.terminator
    }
    %t6 = gpu.memcpy async [%t5] %host, %e : memref<16xf32>, memref<16xf32>
    %t7 = gpu.dealloc async [%t6] %a : memref<16xf16>
    gpu.wait [%t7]
    gpu.host_register %m : memref<*xf32>
    gpu.host_unregister %m : memref<*xf32>
    %desc = nvgpu.tma.create.descriptor %m box[%c64, %c8] : memref<*xf32> -> !desc
    return
  }
}
