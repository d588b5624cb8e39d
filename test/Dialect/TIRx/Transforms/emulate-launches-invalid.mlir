// tirx-emulate-launches refuses, naming the op, what it cannot run on the CPU.
// RUN: tirx-opt %s -split-input-file --tirx-emulate-launches -verify-diagnostics -o /dev/null

// Refused, naming the launch: a block size that is not static.
func.func @dynamic(%n: index) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{tirx-emulate-launches: the block size must be static}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %n, %b = %c1, %c = %c1) {
    gpu.terminator
  }
  return
}

// -----

// Refused: a barrier in a loop whose trip count differs between threads.
func.func @divergent_loop(%out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c32, %b = %c1, %c = %c1) {
    // expected-error @below {{tirx-emulate-launches: a loop with a barrier or warp collective inside has bounds that differ between threads}}
    scf.for %i = %c0 to %tx step %c1 {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// Refused: an outlined kernel (emulate before gpu-kernel-outlining).
module attributes {gpu.container_module} {
  // expected-error @below {{tirx-emulate-launches: outlined kernels are not emulated; emulate before gpu-kernel-outlining}}
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @outlined() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// Refused, at its first op: TMA and wgmma (use_wgmma) have no CPU model.
func.func @tma(%a: memref<128x64xbf16>) {
  %c = memref.cast %a : memref<128x64xbf16> to memref<*xbf16>
  %c128 = arith.constant 128 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{tirx-emulate-launches: wgmma and TMA (use_wgmma) are not emulated; check this schedule on the GPU (tirx-run)}}
  %d = nvgpu.tma.create.descriptor %c box[%c128, %c64] : memref<*xbf16> -> !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
  return
}
