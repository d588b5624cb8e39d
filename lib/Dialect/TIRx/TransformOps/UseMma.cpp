//===- UseMma.cpp - use_mma -------------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

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
/// The shape of one mma.sync step: 16x8x8, tf32 operands, f32 sums.
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 8;

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
} // namespace

DiagnosedSilenceableFailure
tirx::UseMmaOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                           ApplyToEachResultList &results,
                           TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto matmul = dyn_cast<linalg::MatmulOp>(target);
  if (!matmul || !matmul.hasPureBufferSemantics())
    return wrongTarget(self, target, "a linalg.matmul on buffers");
  if (matmul.hasUserDefinedMaps())
    return reject(self, target, RefusalCode::not_applicable,
                  "the matmul has its own indexing maps (a transposed or "
                  "broadcast operand); use_mma takes C[m, n] += A[m, k] * "
                  "B[k, n]");
  if (!insideMapping(target, "block"))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is not inside a forall mapped to blocks: "
                  "mma.sync computes a block's tile with its warps",
                  "apply tile_to_blocks first");
  if (insideMapping(target, "thread"))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already split among threads; mma.sync is "
                  "executed by a whole warp",
                  "apply use_mma instead of tile_to_threads");
  Value a = matmul.getDpsInputOperand(0)->get();
  Value b = matmul.getDpsInputOperand(1)->get();
  Value c = matmul.getDpsInitOperand(0)->get();
  for (Value v : {a, b, c}) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return reject(self, target, RefusalCode::unsupported_type,
                    "operand of type " + typeText(v.getType()) +
                        " is not a static memref of f32; mma.sync here "
                        "multiplies f32 as tf32",
                    "tile the op with tile_to_blocks so that its operands "
                    "are static tiles");
  }
  ArrayRef<int64_t> shapeA = cast<MemRefType>(a.getType()).getShape();
  ArrayRef<int64_t> shapeC = cast<MemRefType>(c.getType()).getShape();
  int64_t m = shapeC[0], n = shapeC[1], k = shapeA[1];
  ArrayRef<int64_t> warps = getWarps();
  if (m % (warps[0] * kMmaM) != 0)
    return reject(self, target, RefusalCode::not_divisible,
                  Twine(warps[0]) + " warps of 16-row fragments do not divide "
                  "M = " + Twine(m),
                  warpCountHint(m, kMmaM));
  if (n % (warps[1] * kMmaN) != 0)
    return reject(self, target, RefusalCode::not_divisible,
                  Twine(warps[1]) + " warps of 8-column fragments do not "
                  "divide N = " + Twine(n),
                  warpCountHint(n, kMmaN));
  if (k % kMmaK != 0)
    return reject(self, target, RefusalCode::not_divisible,
                  "K = " + Twine(k) + " is not a multiple of 8, the K of one "
                  "mma.sync step",
                  "tile the reduction with tile_reduction to a multiple of 8");

  // The warps' forall; innermost (x) along N.
  MLIRContext *ctx = getContext();
  Location loc = target->getLoc();
  rewriter.setInsertionPoint(target);
  SmallVector<Attribute> mapping{
      mlir::gpu::GPUWarpMappingAttr::get(ctx, mlir::gpu::MappingId::LinearDim1),
      mlir::gpu::GPUWarpMappingAttr::get(ctx, mlir::gpu::MappingId::LinearDim0)};
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(warps[0]),
                                            rewriter.getIndexAttr(warps[1])},
      ValueRange{}, rewriter.getArrayAttr(mapping));
  rewriter.setInsertionPointToStart(forall.getBody());
  // One constant of each value, at the top of the warp's body.
  llvm::DenseMap<int64_t, Value> constants;
  auto cst = [&](int64_t v) -> Value {
    Value &c = constants[v];
    if (!c) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(forall.getBody());
      c = arith::ConstantIndexOp::create(rewriter, loc, v);
    }
    return c;
  };
  auto add = [&](Value x, int64_t v) -> Value {
    return v == 0 ? x : arith::AddIOp::create(rewriter, loc, x, cst(v)).getResult();
  };
  int64_t warpM = m / warps[0], warpN = n / warps[1];
  int64_t tilesM = warpM / kMmaM, tilesN = warpN / kMmaN;
  Value lane = mlir::gpu::LaneIdOp::create(rewriter, loc,
                                     rewriter.getIndexAttr(32));
  // PTX fragment layout: lane = 4 * group + thread-in-group.
  Value group = arith::DivUIOp::create(rewriter, loc, lane, cst(4));
  Value inGroup = arith::RemUIOp::create(rewriter, loc, lane, cst(4));
  Value rowBase = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, forall.getInductionVar(0),
                            cst(warpM)),
      group);
  Value colBase = arith::MulIOp::create(rewriter, loc,
                                        forall.getInductionVar(1), cst(warpN));
  Value colC = arith::AddIOp::create(
      rewriter, loc, colBase,
      arith::MulIOp::create(rewriter, loc, inGroup, cst(2)));
  Value colB = arith::AddIOp::create(rewriter, loc, colBase, group);

  auto load = [&](Value buf, Value i, Value j) -> Value {
    return memref::LoadOp::create(rewriter, loc, buf, ValueRange{i, j});
  };
  auto pack = [&](ArrayRef<int64_t> shape, ArrayRef<Value> elems) -> Value {
    return vector::FromElementsOp::create(
        rewriter, loc, VectorType::get(shape, rewriter.getF32Type()), elems);
  };
  // C fragment (mi, ni): rows r, r + 8; columns q, q + 1.
  auto cIndex = [&](int64_t mi, int64_t ni, int64_t e) {
    Value row = add(rowBase, mi * kMmaM + (e / 2) * 8);
    Value col = add(colC, ni * kMmaN + e % 2);
    return std::make_pair(row, col);
  };
  SmallVector<Value> accs;
  for (int64_t mi = 0; mi < tilesM; ++mi)
    for (int64_t ni = 0; ni < tilesN; ++ni) {
      SmallVector<Value> elems;
      for (int64_t e = 0; e < 4; ++e) {
        auto [row, col] = cIndex(mi, ni, e);
        elems.push_back(load(c, row, col));
      }
      accs.push_back(pack({2, 2}, elems));
    }
  auto loop = scf::ForOp::create(
      rewriter, loc, cst(0), cst(k), cst(kMmaK), accs,
      // The body builder is the rewriter, placed in the loop's body.
      [&](OpBuilder &, Location l, Value kk, ValueRange iters) {
        Value kA = arith::AddIOp::create(rewriter, l, kk, inGroup);
        SmallVector<Value> fragA, fragB;
        for (int64_t mi = 0; mi < tilesM; ++mi) {
          // A: rows r, r + 8; columns kk + t, kk + t + 4 (a0..a3).
          Value r0 = add(rowBase, mi * kMmaM), r1 = add(r0, 8);
          Value k4 = add(kA, 4);
          fragA.push_back(pack({4, 1}, {load(a, r0, kA), load(a, r1, kA),
                                        load(a, r0, k4), load(a, r1, k4)}));
        }
        for (int64_t ni = 0; ni < tilesN; ++ni) {
          // B: rows kk + t, kk + t + 4; column g (b0, b1).
          Value col = add(colB, ni * kMmaN);
          fragB.push_back(pack({2, 1}, {load(b, kA, col),
                                        load(b, add(kA, 4), col)}));
        }
        SmallVector<Value> next;
        for (int64_t mi = 0; mi < tilesM; ++mi)
          for (int64_t ni = 0; ni < tilesN; ++ni)
            next.push_back(nvgpu::MmaSyncOp::create(
                rewriter, l, fragA[mi], fragB[ni], iters[mi * tilesN + ni],
                ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK},
                /*tf32Enabled=*/true));
        scf::YieldOp::create(rewriter, l, next);
      });
  rewriter.setInsertionPointAfter(loop);
  for (int64_t mi = 0; mi < tilesM; ++mi)
    for (int64_t ni = 0; ni < tilesN; ++ni)
      for (int64_t e = 0; e < 4; ++e) {
        auto [row, col] = cIndex(mi, ni, e);
        Value v = vector::ExtractOp::create(
            rewriter, loc, loop.getResult(mi * tilesN + ni),
            ArrayRef<int64_t>{e / 2, e % 2});
        memref::StoreOp::create(rewriter, loc, v, c, ValueRange{row, col});
      }
  rewriter.eraseOp(target);
  results.push_back(forall);
  return DiagnosedSilenceableFailure::success();
}

