// The transform.tirx ops in a tool that registers only func, arith, linalg,
// memref and the transform dialect (tirx-minimal-opt). With
// tirx::registerTransformDialectExtension the saxpy schedule runs as in
// tirx-opt: the extension brings the interface models its ops use. With the
// ops alone (--tirx-ops-only) the ops that tile refuse, never crash.
// RUN: tirx-minimal-opt %tirx_src/examples/saxpy.mlir --transform-preload-library=transform-library-paths=%tirx_src/examples/saxpy-tirx.transform.mlir --transform-interpreter | FileCheck %s --check-prefix=SAXPY
// RUN: tirx-minimal-opt --tirx-ops-only %s -split-input-file --transform-interpreter -verify-diagnostics

// SAXPY: gpu.launch
// SAXPY: vector.load %{{.*}} {alignment = 16 : i64} : memref<67108864xf32>, vector<4xf32>
// SAXPY: vector.store %{{.*}} {alignment = 16 : i64} : memref<67108864xf32>, vector<4xf32>

#id = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  // expected-note @below {{payload op: func @saxpy / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{missing_interface: linalg.generic does not implement TilingInterface: its external models are not registered in this tool}}
    // expected-note @below {{hint: register them (linalg::registerTilingInterfaceExternalModels or tirx::registerTransformDialectExtension), or all of TIRx's dialects with tirx::registerTIRxToolDialects}}
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @rowsum(%a: memref<64x256xf32>, %s: memref<64xf32>) {
  // expected-note @below {{payload op: func @rowsum / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x256xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{missing_interface: linalg.generic does not implement TilingInterface}}
    // expected-note @below {{hint: register them}}
    %t, %l = transform.tirx.tile_reduction %g tile_sizes [0, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
