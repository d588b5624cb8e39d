// On sm_90 and newer, every kernel of a candidate starts with
// griddepcontrol.launch_dependents and griddepcontrol.wait, ahead of all
// its memory accesses, and the manifest marks it early_launch: tirx-run may
// launch it while the kernel before it still runs (docs/bundle.md, "Early
// launch"). The reference (upstream's passes alone) and older chips get
// neither.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tirx-opt %s --tirx-export-bundle="dir=%t/c ptxas=none"
// RUN: FileCheck %s --input-file=%t/c/manifest.json
// RUN: FileCheck %s --input-file=%t/c/twice_kernel.ptx --check-prefix=PTX
// RUN: FileCheck %s --input-file=%t/c/twice_kernel_0.ptx --check-prefix=PTX
// RUN: tirx-opt %s --tirx-export-bundle="dir=%t/r ptxas=none reference=true"
// RUN: FileCheck %s --input-file=%t/r/manifest.json --check-prefix=PLAIN
// RUN: not grep griddepcontrol %t/r/twice_kernel.ptx
// RUN: tirx-opt %s --tirx-export-bundle="dir=%t/a ptxas=none chip=sm_80"
// RUN: FileCheck %s --input-file=%t/a/manifest.json --check-prefix=PLAIN
// RUN: not grep griddepcontrol %t/a/twice_kernel.ptx %t/a/twice_kernel_0.ptx

// CHECK: "kernels": [
// CHECK: "dynamic_shared_bytes": 0,
// CHECK-NEXT: "early_launch": true,
// CHECK: "name": "twice_kernel",
// CHECK: "dynamic_shared_bytes": 0,
// CHECK-NEXT: "early_launch": true,
// CHECK: "name": "twice_kernel",
// PLAIN-NOT: early_launch

// The wait comes first; the kernel's loads and stores follow the branch on
// its token (always 0: the trap at the end is never reached).
// PTX: .entry twice_kernel(
// PTX-NOT: ld.global
// PTX-NOT: st.global
// PTX: griddepcontrol.launch_dependents;
// PTX-NEXT: griddepcontrol.wait;
// PTX-NEXT: mov.u32 [[TOKEN:%r[0-9]+]], 0;
// PTX: setp.{{eq|ne}}.b32 [[P:%p[0-9]+]], [[TOKEN]], 0;
// PTX-NEXT: @[[P]] bra
// PTX: ld.global
// PTX: st.global
// PTX: trap;

func.func @twice(%x: memref<1024xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                 %y: memref<1024xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %two = arith.constant 2.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %x[%i] : memref<1024xf32>
    %r = arith.mulf %v, %two : f32
    memref.store %r, %y[%i] : memref<1024xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %y[%i] : memref<1024xf32>
    %r = arith.mulf %v, %two : f32
    memref.store %r, %y[%i] : memref<1024xf32>
    gpu.terminator
  }
  return
}
