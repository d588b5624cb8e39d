//===- UseMma.cpp - a block's matmul on mma.sync ----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The rewrite of transform.tirx.use_mma.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"
#include "IndexEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using tirx::kMmaM;
using tirx::kMmaN;

int64_t tirx::mmaStepK(Type elementType) {
  if (elementType.isF32())
    return 8;
  if (elementType.isF16() || elementType.isBF16())
    return 16;
  return 0;
}

bool tirx::mmaAccumulatorFits(Type operand, Type accumulator) {
  if (!mmaStepK(operand))
    return false;
  return accumulator.isF32() || (operand.isF16() && accumulator.isF16());
}

bool tirx::ldmatrixCanLoad(Value view) {
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!type || type.getRank() != 2 ||
      type.getElementType().getIntOrFloatBitWidth() != 16)
    return false;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides[1] != 1 ||
      ShapedType::isDynamic(strides[0]) || ShapedType::isDynamic(offset) ||
      strides[0] % 8 != 0 || offset % 8 != 0)
    return false;
  // A static workgroup allocation: the lowering aligns it to 16 bytes
  // (tirx-align-workgroup-buffers).
  Value root = view;
  while (auto subview = root.getDefiningOp<memref::SubViewOp>())
    root = subview.getSource();
  auto alloc = root.getDefiningOp<memref::AllocOp>();
  return alloc && alloc.getType().hasStaticShape();
}

FailureOr<tirx::MmaLayout> tirx::mmaLayout(linalg::MatmulOp matmul,
                                           std::string &why) {
  MmaLayout layout;
  if (!matmul.hasUserDefinedMaps())
    return layout;
  SmallVector<AffineMap> maps = matmul.getIndexingMapsArray();
  MLIRContext *ctx = matmul.getContext();
  // Loops (m, n, k) = (d0, d1, d2); the map (d_i, d_j).
  auto pair = [&](unsigned i, unsigned j) {
    return AffineMap::get(3, 0,
                          {getAffineDimExpr(i, ctx), getAffineDimExpr(j, ctx)},
                          ctx);
  };
  auto text = [](AffineMap map) {
    std::string s;
    llvm::raw_string_ostream os(s);
    map.print(os);
    return s;
  };
  if (maps.size() != 3) {
    why = "the matmul has " + std::to_string(maps.size()) + " indexing maps";
    return failure();
  }
  // Operand `i` as (d_r, d_c), or transposed; anything else refused.
  struct Form {
    StringRef name, forms;
    unsigned r, c;
    bool *transposed;
  };
  Form forms[] = {{"A", "(m, k) or (k, m)", 0, 2, &layout.transposeA},
                  {"B", "(k, n) or (n, k)", 2, 1, &layout.transposeB}};
  for (auto [i, form] : llvm::enumerate(forms)) {
    *form.transposed = maps[i] == pair(form.c, form.r);
    if (maps[i] != pair(form.r, form.c) && !*form.transposed) {
      why = (form.name + "'s indexing map is " + text(maps[i]) +
             " (a broadcast or other operand); the tensor cores read " +
             form.name + " as " + form.forms)
                .str();
      return failure();
    }
  }
  if (maps[2] != pair(0, 1)) {
    why = "C's indexing map is " + text(maps[2]) +
          "; the tensor cores write C as (m, n)";
    return failure();
  }
  return layout;
}

namespace {
/// One warp's part of C = A * B, built inside the warps' forall: its
/// fragments' rows and columns (PTX fragment layout: lane = 4 * group +
/// thread-in-group) and the builders they share.
struct WarpTile : tirx::IndexEmitter {
  Value a, b, c;
  int64_t tilesM, tilesN;
  /// The K of one step: 8 (tf32) or 16 (f16, bf16).
  int64_t stepK;
  /// A and B loaded with ldmatrix (16-bit tiles in shared memory).
  bool ldmatrixA = false, ldmatrixB = false;
  /// A held as (k, m), B as (n, k) (mmaLayout).
  bool transposeA = false, transposeB = false;
  Value group, inGroup, rowBase, colC, colB;
  /// The warp's first row and column of C; for ldmatrix, the lane's row in
  /// a 16-row pair of 8x8 matrices (lane % 16) and its column (8 for the
  /// lanes 16-31, which address the second pair). For a transposed A or
  /// B: the lane's row in an 8x8 matrix (lane % 8), the matrix's column
  /// (8 for lanes 8-15 and 24-31) and row (8 for lanes 16-31) offsets.
  Value rowWarp, colWarp, ldRow, ldCol, ldRow8, ldColT, ldRowT;

  WarpTile(RewriterBase &rewriter, Location loc, Block *body, Value a, Value b,
           Value c, int64_t tilesM, int64_t tilesN, int64_t stepK)
      : IndexEmitter(rewriter, loc, body), a(a), b(b), c(c),
        tilesM(tilesM), tilesN(tilesN), stepK(stepK) {}

  Type elementType(Value buf) {
    return cast<MemRefType>(buf.getType()).getElementType();
  }
  Value load(Value buf, Value i, Value j) {
    return memref::LoadOp::create(rewriter, loc, buf, ValueRange{i, j});
  }
  /// A[m, k] and B[k, n], whichever way the operands hold them.
  Value loadA(Value m, Value k) {
    return transposeA ? load(a, k, m) : load(a, m, k);
  }
  Value loadB(Value k, Value n) {
    return transposeB ? load(b, n, k) : load(b, k, n);
  }
  Value pack(ArrayRef<int64_t> shape, Type type, ArrayRef<Value> elems) {
    return vector::FromElementsOp::create(
        rewriter, loc, VectorType::get(shape, type), elems);
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
    rowWarp = mul(wm, warpM);
    rowBase = add(rowWarp, group);
    colWarp = mul(wn, warpN);
    colC = add(colWarp, mul(inGroup, 2));
    colB = add(colWarp, group);
    if (ldmatrixA || ldmatrixB) {
      ldRow = arith::RemUIOp::create(rewriter, loc, lane, cst(16));
      ldCol = mul(arith::DivUIOp::create(rewriter, loc, lane, cst(16)), 8);
    }
    if ((ldmatrixA && transposeA) || (ldmatrixB && transposeB)) {
      ldRow8 = arith::RemUIOp::create(rewriter, loc, lane, cst(8));
      ldColT = mul(arith::DivUIOp::create(rewriter, loc, ldRow, cst(8)), 8);
      ldRowT = ldCol;
    }
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
        accs.push_back(pack({2, 2}, elementType(c), elems));
      }
    return accs;
  }

  /// tf32 fragments at `kk`: A rows r, r + 8, columns kk + t, kk + t + 4
  /// (a0..a3); B rows kk + t, kk + t + 4, column g (b0, b1).
  void loadTf32(Value kk, SmallVectorImpl<Value> &fragA,
                SmallVectorImpl<Value> &fragB) {
    Type f32 = rewriter.getF32Type();
    Value kA = add(kk, inGroup);
    Value k4 = add(kA, 4);
    for (int64_t mi = 0; mi < tilesM; ++mi) {
      Value r0 = add(rowBase, mi * kMmaM), r1 = add(r0, 8);
      fragA.push_back(pack({4, 1}, f32,
                           {loadA(r0, kA), loadA(r1, kA), loadA(r0, k4),
                            loadA(r1, k4)}));
    }
    for (int64_t ni = 0; ni < tilesN; ++ni) {
      Value col = add(colB, ni * kMmaN);
      fragB.push_back(pack({2, 1}, f32, {loadB(kA, col), loadB(k4, col)}));
    }
  }

  /// 16-bit fragments at `kk` (m16n8k16). A register i holds row
  /// r + 8 (i % 2), columns kk + 2t + 8 (i / 2) and the next; B register i
  /// rows kk + 2t + 8 i and the next, column g.
  void loadHalf(Value kk, SmallVectorImpl<Value> &fragA,
                SmallVectorImpl<Value> &fragB) {
    Type type = elementType(a);
    Value k2t = add(kk, mul(inGroup, 2));
    for (int64_t mi = 0; mi < tilesM; ++mi) {
      if (ldmatrixA && transposeA) {
        // A held as (k, m): the same four 8x8 matrices, transposed; lane l
        // gives k row l % 8 + 8 (l / 16), m column 8 ((l % 16) / 8).
        fragA.push_back(nvgpu::LdMatrixOp::create(
            rewriter, loc, VectorType::get({4, 2}, type), a,
            ValueRange{add(add(kk, ldRow8), ldRowT),
                       add(add(rowWarp, mi * kMmaM), ldColT)},
            /*transpose=*/true, /*numTiles=*/4));
        continue;
      }
      if (ldmatrixA) {
        // Four 8x8 matrices: rows 0-7 and 8-15 of k 0-7, then of k 8-15;
        // lane l gives row l % 16, column 8 (l / 16).
        fragA.push_back(nvgpu::LdMatrixOp::create(
            rewriter, loc, VectorType::get({4, 2}, type), a,
            ValueRange{add(add(rowWarp, mi * kMmaM), ldRow), add(kk, ldCol)},
            /*transpose=*/false, /*numTiles=*/4));
        continue;
      }
      SmallVector<Value> elems;
      for (int64_t i = 0; i < 4; ++i) {
        Value row = add(rowBase, mi * kMmaM + 8 * (i % 2));
        Value col = add(k2t, 8 * (i / 2));
        elems.push_back(loadA(row, col));
        elems.push_back(loadA(row, add(col, 1)));
      }
      fragA.push_back(pack({4, 2}, type, elems));
    }
    for (int64_t ni = 0; ni < tilesN; ++ni) {
      if (ldmatrixB) {
        // (k, n): 8x8 matrices of k rows, n columns, transposed: k 0-7 and
        // 8-15 of this fragment's 8 columns, then (x4) of the next
        // fragment's; lane l gives k row l % 16, n column 8 (l / 16).
        // (n, k), mma.sync's "col" B: the same matrices held as n rows, k
        // columns, not transposed; lane l gives n row l % 8 (+ 8 (l / 16),
        // x4), k column 8 ((l % 16) / 8).
        Value col = add(colWarp, ni * kMmaN);
        bool x4 = ni + 1 < tilesN;
        SmallVector<Value, 2> at;
        if (transposeB) {
          Value row = add(col, ldRow8);
          at = {x4 ? add(row, ldRowT) : row, add(kk, ldColT)};
        } else
          at = {add(kk, ldRow), x4 ? add(col, ldCol) : col};
        if (x4) {
          Value both = nvgpu::LdMatrixOp::create(
              rewriter, loc, VectorType::get({4, 2}, type), b, at,
              /*transpose=*/!transposeB, /*numTiles=*/4);
          // Rows 0-1 and 2-3: a shuffle along the leading dimension (an
          // n-D vector.extract_strided_slice does not lower to LLVM).
          for (int64_t half = 0; half < 2; ++half)
            fragB.push_back(vector::ShuffleOp::create(
                rewriter, loc, both, both,
                ArrayRef<int64_t>{2 * half, 2 * half + 1}));
          ++ni;
          continue;
        }
        fragB.push_back(nvgpu::LdMatrixOp::create(
            rewriter, loc, VectorType::get({2, 2}, type), b, at,
            /*transpose=*/!transposeB, /*numTiles=*/2));
        continue;
      }
      SmallVector<Value> elems;
      Value col = add(colB, ni * kMmaN);
      for (int64_t i = 0; i < 2; ++i) {
        Value row = add(k2t, 8 * i);
        elems.push_back(loadB(row, col));
        elems.push_back(loadB(add(row, 1), col));
      }
      fragB.push_back(pack({2, 2}, type, elems));
    }
  }

  /// One K step at `kk`: the A and B fragments, then an mma.sync per C
  /// fragment.
  SmallVector<Value> step(Value kk, ValueRange accs) {
    SmallVector<Value> fragA, fragB;
    bool tf32 = stepK == 8;
    if (tf32)
      loadTf32(kk, fragA, fragB);
    else
      loadHalf(kk, fragA, fragB);
    SmallVector<Value> next;
    for (int64_t mi = 0; mi < tilesM; ++mi)
      for (int64_t ni = 0; ni < tilesN; ++ni)
        next.push_back(nvgpu::MmaSyncOp::create(
            rewriter, loc, fragA[mi], fragB[ni], accs[mi * tilesN + ni],
            ArrayRef<int64_t>{kMmaM, kMmaN, stepK}, /*tf32Enabled=*/tf32));
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
  std::string why;
  FailureOr<MmaLayout> layout = mmaLayout(matmul, why);
  if (failed(layout) || typeA.getRank() != 2 || typeC.getRank() != 2)
    return failure();
  int64_t stepK = mmaStepK(typeA.getElementType());
  if (!stepK ||
      !mmaAccumulatorFits(typeA.getElementType(), typeC.getElementType()))
    return failure();
  int64_t m = typeC.getShape()[0], n = typeC.getShape()[1],
          k = typeA.getShape()[layout->transposeA ? 0 : 1];
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
                warpN / kMmaN, stepK);
  warp.transposeA = layout->transposeA;
  warp.transposeB = layout->transposeB;
  warp.ldmatrixA = stepK == 16 && ldmatrixCanLoad(a);
  warp.ldmatrixB = stepK == 16 && ldmatrixCanLoad(b);
  warp.placeLane(forall.getInductionVar(0), forall.getInductionVar(1), warpM,
                 warpN);
  SmallVector<Value> accs = warp.loadAccumulators();
  auto loop = scf::ForOp::create(
      rewriter, loc, warp.cst(0), warp.cst(k), warp.cst(stepK), accs,
      // The body builder is the rewriter, placed in the loop's body.
      [&](OpBuilder &, Location, Value kk, ValueRange iters) {
        scf::YieldOp::create(rewriter, loc, warp.step(kk, iters));
      });
  rewriter.setInsertionPointAfter(loop);
  warp.storeAccumulators(loop.getResults());
  rewriter.eraseOp(matmul);
  return forall;
}
