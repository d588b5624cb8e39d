// Bad options and payloads the pipeline cannot lower: a clear error on the
// module and a non-zero exit.
// RUN: tirx-opt %s -split-input-file -verify-diagnostics --tirx-lower-to-nvvm=cubin-chip=sm_50 --mlir-disable-threading
// RUN: not tirx-opt %s --tirx-lower-to-nvvm=cubin-chip=sm_50 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tirx-opt %s --tirx-lower-to-nvvm="cubin-chip=sm_90 cubin-features=+ptx70" 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not tirx-opt %s --tirx-lower-to-nvvm=cubin-format=elf 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tirx-opt %s --tirx-lower-to-nvvm=cubin-features=+ptxabc 2>&1 | FileCheck %s --check-prefix=FEATURE

// CHIP: error: tirx-lower-to-nvvm: unsupported chip 'sm_50'; supported: sm_75, sm_80,
// PTX: error: tirx-lower-to-nvvm: PTX 7.0 does not support sm_90; use +ptx78 (PTX 7.8) or newer
// FORMAT: error: tirx-lower-to-nvvm: unknown format 'elf'; expected isa, bin or fatbin
// FEATURE: error: tirx-lower-to-nvvm: malformed PTX feature in '+ptxabc'

// expected-error @below {{unsupported chip 'sm_50'}}
module {
  func.func @k(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
      gpu.terminator
    }
    return
  }
}
