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
