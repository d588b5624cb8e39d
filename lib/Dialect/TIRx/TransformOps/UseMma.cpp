//===- UseMma.cpp - use_mma -------------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;
using mlir::tirx::kMmaM;
using mlir::tirx::kMmaN;
using mlir::tirx::mmaAccumulatorFits;
using mlir::tirx::mmaStepK;

//===----------------------------------------------------------------------===//
// use_mma
//===----------------------------------------------------------------------===//

LogicalResult tirx::UseMmaOp::verify() {
  ArrayRef<int64_t> warps = getWarps();
  if (warps.size() != 2 || warps[0] < 1 || warps[1] < 1 ||
      warps[0] * warps[1] > 32)
    return detail::invalidParameter(*this, "warps takes two counts (along "
                            "M and N), each at least 1, at most 32 in all "
                            "(1024 threads)");
  return success();
}

namespace {
std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Warp counts `w` along an extent that leave whole fragments: "try 1, 2 or 4".
std::string warpCountHint(int64_t extent, int64_t fragment) {
  std::vector<std::string> options;
  for (int64_t w = 1; w <= 32; w *= 2)
    if (extent % (w * fragment) == 0)
      options.push_back(std::to_string(w));
  return tryHint(std::move(options));
}

/// The operands: static memrefs of types mma.sync takes (A and B f32, f16
/// or bf16, alike; C f32, or f16 for f16) whose M, N and K the warps'
/// fragments divide.
DiagnosedSilenceableFailure checkOperands(TransformOpInterface self,
                                          linalg::MatmulOp matmul,
                                          tirx::MmaLayout layout,
                                          ArrayRef<int64_t> warps) {
  Value a = matmul.getDpsInputOperand(0)->get();
  Value b = matmul.getDpsInputOperand(1)->get();
  Value c = matmul.getDpsInitOperand(0)->get();
  for (Value v : {a, b, c}) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape())
      return reject(self, matmul, RefusalCode::unsupported_type,
                    "operand of type " + typeText(v.getType()) +
                        " is not a static memref",
                    "tile the op with tile_to_blocks so that its operands "
                    "are static tiles");
  }
  Type elemA = cast<MemRefType>(a.getType()).getElementType();
  Type elemB = cast<MemRefType>(b.getType()).getElementType();
  Type elemC = cast<MemRefType>(c.getType()).getElementType();
  if (!mmaStepK(elemA) || elemA != elemB)
    return reject(self, matmul, RefusalCode::unsupported_type,
                  "A and B are " + typeText(elemA) + " and " +
                      typeText(elemB) +
                      "; mma.sync here takes two f32 operands (multiplied "
                      "as tf32), two f16 or two bf16",
                  "convert the operands to one of these types first");
  if (!mmaAccumulatorFits(elemA, elemC))
    return reject(self, matmul, RefusalCode::unsupported_type,
                  "C is " + typeText(elemC) + "; mma.sync sums " +
                      typeText(elemA) + " products in f32" +
                      (elemA.isF16() ? " or f16" : ""),
                  "accumulate into an f32 C and convert it afterwards");
  int64_t stepK = mmaStepK(elemA);
  ArrayRef<int64_t> shapeA = cast<MemRefType>(a.getType()).getShape();
  ArrayRef<int64_t> shapeC = cast<MemRefType>(c.getType()).getShape();
  int64_t m = shapeC[0], n = shapeC[1],
          k = shapeA[layout.transposeA ? 0 : 1];
  if (m % (warps[0] * kMmaM) != 0)
    return reject(self, matmul, RefusalCode::not_divisible,
                  Twine(warps[0]) + " warps of 16-row fragments do not divide "
                  "M = " + Twine(m),
                  warpCountHint(m, kMmaM));
  if (n % (warps[1] * kMmaN) != 0)
    return reject(self, matmul, RefusalCode::not_divisible,
                  Twine(warps[1]) + " warps of 8-column fragments do not "
                  "divide N = " + Twine(n),
                  warpCountHint(n, kMmaN));
  if (k % stepK != 0)
    return reject(self, matmul, RefusalCode::not_divisible,
                  "K = " + Twine(k) + " is not a multiple of " + Twine(stepK) +
                      ", the K of one mma.sync step on " + typeText(elemA),
                  "tile the reduction with tile_reduction to a multiple of " +
                      Twine(stepK));
  return DiagnosedSilenceableFailure::success();
}

} // namespace

linalg::MatmulOp
tirx::detail::bufferMatmul(TransformOpInterface op, Operation *target,
                           DiagnosedSilenceableFailure &refusal) {
  auto matmul = dyn_cast<linalg::MatmulOp>(target);
  if (!matmul || !matmul.hasPureBufferSemantics()) {
    refusal = wrongTarget(op, target, "a linalg.matmul on buffers");
    return nullptr;
  }
  return matmul;
}

DiagnosedSilenceableFailure
tirx::UseMmaOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                           ApplyToEachResultList &results,
                           TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  DiagnosedSilenceableFailure refusal = DiagnosedSilenceableFailure::success();
  linalg::MatmulOp matmul = bufferMatmul(self, target, refusal);
  if (!matmul)
    return refusal;
  // A transposed A or B (nn.Linear's x W^T) is a layout of the fragments.
  std::string why;
  FailureOr<tirx::MmaLayout> layout = tirx::mmaLayout(matmul, why);
  if (failed(layout))
    return reject(self, target, RefusalCode::not_applicable,
                  why + "; use_mma takes C[m, n] += A[m, k] * B[k, n] with A "
                        "as (m, k) or (k, m) and B as (k, n) or (n, k)");
  if (!insideMapping(target, MappingKind::Block))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is not inside a forall mapped to blocks: "
                  "mma.sync computes a block's tile with its warps",
                  "apply tile_to_blocks first");
  if (insideMapping(target, MappingKind::Thread))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already split among threads; mma.sync is "
                  "executed by a whole warp",
                  "apply use_mma instead of tile_to_threads");
  if (DiagnosedSilenceableFailure check =
          checkOperands(self, matmul, *layout, getWarps());
      !check.succeeded())
    return check;
  FailureOr<scf::ForallOp> forall = tirx::useMma(
      rewriter, matmul, UseMmaOptions{getWarps()[0], getWarps()[1]});
  if (failed(forall))
    return reject(self, target, RefusalCode::not_applicable,
                  "the matmul could not be rewritten");
  results.push_back(*forall);
  return DiagnosedSilenceableFailure::success();
}
