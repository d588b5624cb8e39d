// tirx-export-bundle writes the manifest the runner reads: parameters with
// roles from the kernels' effects, launches, arguments, accesses, flops.
// RUN: rm -rf %t && tirx-opt %s --tirx-export-bundle="dir=%t ptxas=none ir-version=v7" | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --input-file=%t/manifest.json
// RUN: FileCheck %s --input-file=%t/manifest.json --check-prefix=TOP
// RUN: FileCheck %s --input-file=%t/scale_kernel.ptx --check-prefix=PTX

// The payload is left as it was.
// IR-LABEL: func.func @scale
// IR: gpu.launch

// TOP-DAG: "format": "tirx-bundle"
// TOP-DAG: "version": 1
// TOP-DAG: "payload": "scale"
// TOP-DAG: "ir_version": "v7"
// TOP-DAG: "chip": "sm_90"
// TOP-DAG: "features": "+ptx78"
// CHECK: "kernels": [
// CHECK: "accesses": [
// CHECK: "alignment": 16,
// CHECK-NEXT: "buffer": "src",
// CHECK-NEXT: "bytes": 16,
// CHECK-NEXT: "contiguous": true,
// CHECK-NEXT: "loc": "{{.*}}export-bundle.mlir:{{[0-9]+}}:{{[0-9]+}}",
// CHECK-NEXT: "op": "load",
// CHECK-NEXT: "path": "func @scale / gpu.launch_func @scale_kernel / vector.load (load src)",
// CHECK-NEXT: "width": 4
// CHECK: "buffer": "dst",
// CHECK: "op": "store",
// The kernel takes only the payload's parameters: constants are sunk into
// the launch before outlining (tirx-sink-constants).
// CHECK: "args": [
// CHECK-NEXT: {
// CHECK-NEXT: "param": 1
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "param": 0
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "param": 2
// CHECK-NEXT: }
// CHECK-NEXT: ],
// CHECK: "block": [
// CHECK-NEXT: 64,
// CHECK: "cubin": null,
// CHECK: "flops": 1024,
// CHECK: "grid": [
// CHECK-NEXT: 4,
// CHECK: "name": "scale_kernel",
// CHECK: "ptx": "scale_kernel.ptx",
// CHECK: "params": [
// CHECK: "kind": "scalar",
// CHECK-NEXT: "name": "alpha",
// CHECK-NEXT: "role": "scalar",
// CHECK-NEXT: "type": "f32",
// CHECK-NEXT: "value": 0.5
// CHECK: "bytes": 4096,
// CHECK-NEXT: "kind": "buffer",
// CHECK-NEXT: "name": "src",
// CHECK-NEXT: "role": "in",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: 1024
// CHECK: "name": "dst",
// CHECK-NEXT: "role": "out",

// PTX: .entry scale_kernel(
// src, which each thread reads once, through the L2 evict-first policy:
// PTX: ld.global.nc.L1::no_allocate.L2::cache_hint.v4.b32
// PTX: st.global.v4.b32

func.func @scale(%alpha: f32 {tirx.name = "alpha", tirx.value = 0.5 : f32},
                 %src: memref<1024xf32> {llvm.align = 16 : i64, tirx.name = "src"},
                 %dst: memref<1024xf32> {llvm.align = 16 : i64, tirx.name = "dst"}) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c4, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c64, %b = %c1, %c = %c1) {
    %base = arith.muli %bx, %c64 : index
    %t = arith.addi %base, %tx : index
    %i = arith.muli %t, %c4 : index
    %v = vector.load %src[%i] : memref<1024xf32>, vector<4xf32>
    %s = vector.broadcast %alpha : f32 to vector<4xf32>
    %r = arith.mulf %v, %s : vector<4xf32>
    vector.store %r, %dst[%i] : memref<1024xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
