//===- LowerBf16Mma.cpp - tirx-lower-bf16-mma -------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// bf16 nvgpu.mma.sync, which LLVM 22's convert-nvgpu-to-nvvm refuses, as
// the nvvm.mma.sync that PTX has.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXLOWERBF16MMA
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
/// The 32-bit registers of a fragment vector<R x 2 x bf16>: one i32 per
/// row (two bf16, the first in the low half, as PTX packs them).
SmallVector<Value> registers(RewriterBase &rewriter, Location loc,
                             Value fragment) {
  auto type = cast<VectorType>(fragment.getType());
  auto i32x1 = VectorType::get({1}, rewriter.getI32Type());
  SmallVector<Value> regs;
  for (int64_t r = 0; r < type.getDimSize(0); ++r) {
    Value row = vector::ExtractOp::create(rewriter, loc, fragment,
                                          ArrayRef<int64_t>{r});
    Value word = vector::BitCastOp::create(rewriter, loc, i32x1, row);
    regs.push_back(vector::ExtractOp::create(rewriter, loc, word,
                                             ArrayRef<int64_t>{0}));
  }
  return regs;
}

/// Rewrites one bf16 16x8x16 mma.sync with an f32 vector<2x2> accumulator;
/// false when `mma` is not one.
bool lower(RewriterBase &rewriter, nvgpu::MmaSyncOp mma) {
  VectorType typeA = mma.getMatrixA().getType();
  VectorType typeB = mma.getMatrixB().getType();
  VectorType typeC = mma.getMatrixC().getType();
  if (!typeA.getElementType().isBF16() || !typeB.getElementType().isBF16() ||
      !typeC.getElementType().isF32() ||
      mma.getMmaShapeAsArray() != std::array<int64_t, 3>{16, 8, 16} ||
      typeA.getShape() != ArrayRef<int64_t>{4, 2} ||
      typeB.getShape() != ArrayRef<int64_t>{2, 2} ||
      typeC.getShape() != ArrayRef<int64_t>{2, 2})
    return false;
  Location loc = mma.getLoc();
  rewriter.setInsertionPoint(mma);
  SmallVector<Value> regsA = registers(rewriter, loc, mma.getMatrixA());
  SmallVector<Value> regsB = registers(rewriter, loc, mma.getMatrixB());
  SmallVector<Value> regsC;
  for (int64_t e = 0; e < 4; ++e)
    regsC.push_back(vector::ExtractOp::create(
        rewriter, loc, mma.getMatrixC(), ArrayRef<int64_t>{e / 2, e % 2}));
  Type f32 = rewriter.getF32Type();
  auto result = LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                                 {f32, f32, f32, f32});
  Value sums = NVVM::MmaOp::create(
      rewriter, loc, result, regsA, regsB, regsC,
      ArrayRef<int64_t>{16, 8, 16}, /*b1Op=*/std::nullopt,
      /*intOverflow=*/std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                    NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> elems;
  for (int64_t e = 0; e < 4; ++e)
    elems.push_back(LLVM::ExtractValueOp::create(rewriter, loc, sums, e));
  rewriter.replaceOpWithNewOp<vector::FromElementsOp>(mma, typeC, elems);
  return true;
}

struct LowerBf16MmaPass
    : public tirx::impl::TIRxLowerBf16MmaBase<LowerBf16MmaPass> {
  void runOnOperation() override {
    SmallVector<nvgpu::MmaSyncOp> ops;
    getOperation()->walk([&](nvgpu::MmaSyncOp mma) { ops.push_back(mma); });
    IRRewriter rewriter(&getContext());
    for (nvgpu::MmaSyncOp mma : ops) {
      if (!mma.getMatrixA().getType().getElementType().isBF16())
        continue;
      if (!lower(rewriter, mma)) {
        mma.emitError() << "tirx-lower-bf16-mma: only 16x8x16 bf16 mma.sync "
                           "with an f32 vector<2x2> accumulator is lowered";
        return signalPassFailure();
      }
    }
  }
};
} // namespace
