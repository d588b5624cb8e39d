// bf16 mma.sync, which LLVM 22's convert-nvgpu-to-nvvm refuses, becomes
// nvvm.mma.sync on the 32-bit registers (two bf16 each) of A and B and the
// four f32 of C; f16 is left to upstream.
// RUN: tirx-opt %s -split-input-file -verify-diagnostics --tirx-lower-bf16-mma | FileCheck %s

// CHECK-LABEL: func.func @bf16
//  CHECK-COUNT-4: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
//  CHECK-COUNT-2: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
//       CHECK: %[[D:.*]] = nvvm.mma.sync A[{{.*}}, {{.*}}, {{.*}}, {{.*}}] B[{{.*}}, {{.*}}] C[{{.*}}, {{.*}}, {{.*}}, {{.*}}]
//  CHECK-SAME:   layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
//  CHECK-SAME:   multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
//  CHECK-SAME:   shape = #nvvm.shape<m = 16, n = 8, k = 16>
//  CHECK-SAME:   (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
//       CHECK: llvm.extractvalue %[[D]][0]
//       CHECK: llvm.extractvalue %[[D]][3]
//       CHECK: vector.from_elements {{.*}} : vector<2x2xf32>
//   CHECK-NOT: nvgpu.mma.sync
func.func @bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @f16
//       CHECK: nvgpu.mma.sync
func.func @f16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

// Another bf16 shape is an error, not left for upstream's failure.
func.func @bf16_k8(%a: vector<2x2xbf16>, %b: vector<1x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  // expected-error @below {{tirx-lower-bf16-mma: only 16x8x16 bf16 mma.sync with an f32 vector<2x2> accumulator is lowered}}
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xbf16>, vector<1x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}
