//===- UseMma.cpp - a block's matmul on mma.sync ----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The rewrite of transform.tirx.use_mma.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using tirx::kMmaK;
using tirx::kMmaM;
using tirx::kMmaN;

namespace {
/// One warp's part of C = A * B, built inside the warps' forall: its
/// fragments' rows and columns (PTX fragment layout: lane = 4 * group +
/// thread-in-group) and the builders they share.
struct WarpTile {
  RewriterBase &rewriter;
  Location loc;
  Block *body;
  Value a, b, c;
  int64_t tilesM, tilesN;
  Value group, inGroup, rowBase, colC, colB;
  /// One constant of each value, at the top of the warp's body.
  llvm::DenseMap<int64_t, Value> constants;

  WarpTile(RewriterBase &rewriter, Location loc, Block *body, Value a, Value b,
           Value c, int64_t tilesM, int64_t tilesN)
      : rewriter(rewriter), loc(loc), body(body), a(a), b(b), c(c),
        tilesM(tilesM), tilesN(tilesN) {}

  Value cst(int64_t v) {
    Value &value = constants[v];
    if (!value) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(body);
      value = arith::ConstantIndexOp::create(rewriter, loc, v);
    }
    return value;
  }
  Value add(Value x, int64_t v) {
    return v == 0 ? x
                  : arith::AddIOp::create(rewriter, loc, x, cst(v)).getResult();
  }
  Value load(Value buf, Value i, Value j) {
    return memref::LoadOp::create(rewriter, loc, buf, ValueRange{i, j});
  }
  Value pack(ArrayRef<int64_t> shape, ArrayRef<Value> elems) {
    return vector::FromElementsOp::create(
        rewriter, loc, VectorType::get(shape, rewriter.getF32Type()), elems);
  }
  /// C fragment (mi, ni), element e: rows r, r + 8; columns q, q + 1.
  std::pair<Value, Value> cIndex(int64_t mi, int64_t ni, int64_t e) {
    Value row = add(rowBase, mi * kMmaM + (e / 2) * 8);
    Value col = add(colC, ni * kMmaN + e % 2);
    return std::make_pair(row, col);
  }

  /// The lane's rows and columns, for warp (`wm`, `wn`) of
  /// `warpM` x `warpN` elements.
  void placeLane(Value wm, Value wn, int64_t warpM, int64_t warpN) {
    Value lane =
        gpu::LaneIdOp::create(rewriter, loc, rewriter.getIndexAttr(32));
    group = arith::DivUIOp::create(rewriter, loc, lane, cst(4));
    inGroup = arith::RemUIOp::create(rewriter, loc, lane, cst(4));
    rowBase = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, wm, cst(warpM)),
        group);
    Value colBase = arith::MulIOp::create(rewriter, loc, wn, cst(warpN));
    colC = arith::AddIOp::create(
        rewriter, loc, colBase,
        arith::MulIOp::create(rewriter, loc, inGroup, cst(2)));
    colB = arith::AddIOp::create(rewriter, loc, colBase, group);
  }

  /// The C fragments, loaded.
  SmallVector<Value> loadAccumulators() {
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
    return accs;
  }

  /// One K step at `kk`: the A and B fragments, then an mma.sync per C
  /// fragment.
  SmallVector<Value> step(Value kk, ValueRange accs) {
    Value kA = arith::AddIOp::create(rewriter, loc, kk, inGroup);
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
      fragB.push_back(pack({2, 1}, {load(b, kA, col), load(b, add(kA, 4), col)}));
    }
    SmallVector<Value> next;
    for (int64_t mi = 0; mi < tilesM; ++mi)
      for (int64_t ni = 0; ni < tilesN; ++ni)
        next.push_back(nvgpu::MmaSyncOp::create(
            rewriter, loc, fragA[mi], fragB[ni], accs[mi * tilesN + ni],
            ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK},
            /*tf32Enabled=*/true));
    return next;
  }

  /// The C fragments, stored.
  void storeAccumulators(ValueRange accs) {
    for (int64_t mi = 0; mi < tilesM; ++mi)
      for (int64_t ni = 0; ni < tilesN; ++ni)
        for (int64_t e = 0; e < 4; ++e) {
          auto [row, col] = cIndex(mi, ni, e);
          Value v = vector::ExtractOp::create(
              rewriter, loc, accs[mi * tilesN + ni],
              ArrayRef<int64_t>{e / 2, e % 2});
          memref::StoreOp::create(rewriter, loc, v, c, ValueRange{row, col});
        }
  }
};
} // namespace

FailureOr<scf::ForallOp> tirx::useMma(RewriterBase &rewriter,
                                      linalg::MatmulOp matmul,
                                      const UseMmaOptions &options) {
  Value a = matmul.getDpsInputOperand(0)->get();
  Value b = matmul.getDpsInputOperand(1)->get();
  Value c = matmul.getDpsInitOperand(0)->get();
  auto typeA = dyn_cast<MemRefType>(a.getType());
  auto typeC = dyn_cast<MemRefType>(c.getType());
  if (!typeA || !typeC || !typeA.hasStaticShape() || !typeC.hasStaticShape())
    return failure();
  int64_t m = typeC.getShape()[0], n = typeC.getShape()[1],
          k = typeA.getShape()[1];
  int64_t warpM = m / options.warpsM, warpN = n / options.warpsN;

  // The warps' forall; innermost (x) along N.
  MLIRContext *ctx = rewriter.getContext();
  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  SmallVector<Attribute> mapping{
      gpu::GPUWarpMappingAttr::get(ctx, gpu::MappingId::LinearDim1),
      gpu::GPUWarpMappingAttr::get(ctx, gpu::MappingId::LinearDim0)};
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(options.warpsM),
                             rewriter.getIndexAttr(options.warpsN)},
      ValueRange{}, rewriter.getArrayAttr(mapping));
  rewriter.setInsertionPointToStart(forall.getBody());
  WarpTile warp(rewriter, loc, forall.getBody(), a, b, c, warpM / kMmaM,
                warpN / kMmaN);
  warp.placeLane(forall.getInductionVar(0), forall.getInductionVar(1), warpM,
                 warpN);
  SmallVector<Value> accs = warp.loadAccumulators();
  auto loop = scf::ForOp::create(
      rewriter, loc, warp.cst(0), warp.cst(k), warp.cst(kMmaK), accs,
      // The body builder is the rewriter, placed in the loop's body.
      [&](OpBuilder &, Location, Value kk, ValueRange iters) {
        scf::YieldOp::create(rewriter, loc, warp.step(kk, iters));
      });
  rewriter.setInsertionPointAfter(loop);
  warp.storeAccumulators(loop.getResults());
  rewriter.eraseOp(matmul);
  return forall;
}
