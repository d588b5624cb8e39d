// The CUDA toolkit is the `toolkit` option, else looked up when the pass runs
// ($CUDA_HOME, $CUDA_PATH, $CUDA_ROOT, ptxas on PATH, /usr/local/cuda); one
// without bin/ptxas is an error that says where it came from.
// RUN: not tirx-opt %s --tirx-lower-to-nvvm=toolkit=%t/nowhere 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not tirx-opt %s --tirx-lower-to-nvvm="cubin-format=isa toolkit=%t/nowhere" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: env CUDA_HOME=%t/nowhere not tirx-opt %s --tirx-lower-to-nvvm 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: env -u CUDA_HOME CUDA_PATH=%t/nowhere not tirx-opt %s --tirx-lower-to-nvvm 2>&1 | FileCheck %s --check-prefix=ENVPATH
//
// The toolkit given is the one the lowering compiles with, not the one on
// PATH: its libdevice, then its ptxas.
// RUN: not tirx-opt %s --tirx-lower-to-nvvm=toolkit=%S/Inputs/fake-toolkit 2>&1 | FileCheck %s --check-prefix=LIBDEVICE
// RUN: %if ptxas %{ rm -rf %t && mkdir -p %t/toolkit && ln -s %cuda_home/nvvm %t/toolkit/nvvm && ln -s %S/Inputs/fake-toolkit/bin %t/toolkit/bin %}
// RUN: %if ptxas %{ not tirx-opt %s --tirx-lower-to-nvvm=toolkit=%t/toolkit 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ tirx-opt %s --tirx-lower-to-nvvm=toolkit=%cuda_home | FileCheck %s --check-prefix=CUBIN %}
// ptxas-cmd-options reach that ptxas.
// RUN: %if ptxas %{ not tirx-opt %s --tirx-lower-to-nvvm="toolkit=%cuda_home ptxas-cmd-options=--no-such-ptxas-flag" 2>&1 | FileCheck %s --check-prefix=PTXASOPTS %}

// OPTION: error: tirx-lower-to-nvvm: no CUDA toolkit: no executable ptxas at '{{.*}}nowhere/bin/ptxas' (toolkit from toolkit=); install the CUDA toolkit, or name it with toolkit=<dir> or $CUDA_HOME
// ENV: error: tirx-lower-to-nvvm: no CUDA toolkit: no executable ptxas at '{{.*}}nowhere/bin/ptxas' (toolkit from $CUDA_HOME)
// ENVPATH: error: tirx-lower-to-nvvm: no CUDA toolkit: no executable ptxas at '{{.*}}nowhere/bin/ptxas' (toolkit from $CUDA_PATH)
// LIBDEVICE: error: LibDevice path: {{.*}}fake-toolkit/nvvm/libdevice/libdevice.10.bc does not exist
// PTXAS: fake ptxas of the toolkit option
// PTXASOPTS: no-such-ptxas-flag
// CUBIN: gpu.binary @copy_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx78">, properties = {{.*}}, bin = "\7FELF

func.func @copy(%src: memref<1024xf32>, %dst: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %v = memref.load %src[%tx] : memref<1024xf32>
    memref.store %v, %dst[%tx] : memref<1024xf32>
    gpu.terminator
  }
  return
}

// The CHECK lines of this test are named by the --check-prefix of each RUN line.
