//===- ReduceInBlock.cpp - reduce_in_block ----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

LogicalResult tirx::ReduceInBlockOp::verify() {
  int64_t threads = static_cast<int64_t>(getThreads());
  if (threads < 32 || threads > 1024 || (threads & (threads - 1)))
    return detail::invalidParameter(*this, "threads must be a power of "
                            "two in [32, 1024], got " + Twine(threads));
  return success();
}

namespace {
/// A forall of `count` iterations mapped to thread x, its body built by
/// `body(builder, t)`.
scf::ForallOp threadLoop(OpBuilder &b, Location loc, int64_t count,
                         function_ref<void(OpBuilder &, Value)> body) {
  auto mapping = b.getArrayAttr(
      {mlir::gpu::GPUThreadMappingAttr::get(b.getContext(),
                                            mlir::gpu::MappingId::DimX)});
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(count)}, ValueRange{},
      mapping);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  body(b, forall.getInductionVar(0));
  return forall;
}

/// The vector.reduction kind of a combiner, if it has one.
std::optional<vector::CombiningKind> combiningKind(Operation *combiner) {
  using K = vector::CombiningKind;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(combiner)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case([](arith::MaximumFOp) { return K::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return K::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return K::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return K::MINNUMF; })
      .Case([](arith::MaxSIOp) { return K::MAXSI; })
      .Case([](arith::MinSIOp) { return K::MINSI; })
      .Case([](arith::MaxUIOp) { return K::MAXUI; })
      .Case([](arith::MinUIOp) { return K::MINUI; })
      .Case([](arith::AndIOp) { return K::AND; })
      .Case([](arith::OrIOp) { return K::OR; })
      .Case([](arith::XOrIOp) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The width at which each thread can read the reduction loop: 4 when
/// every input indexed by loop `k` has it innermost with unit stride and
/// 4-byte elements, the body is elementwise, the combiner has a
/// vector.reduction kind and 4 * threads divides the extent; else 1.
int64_t partialWidth(linalg::LinalgOp op, unsigned k, int64_t extent,
                     int64_t threads, Operation *combiner) {
  const int64_t width = 4;
  if (extent % (width * threads) != 0 || !combiningKind(combiner))
    return 1;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!type || !map.isFunctionOfDim(k))
      continue;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (map.getResults().back() != getAffineDimExpr(k, op.getContext()) ||
        llvm::count_if(map.getResults(),
                       [&](AffineExpr r) { return r.isFunctionOfDim(k); }) !=
            1 ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() != 32 ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return 1;
  }
  for (Operation &bodyOp : op.getBlock()->without_terminator())
    if (!bodyOp.hasTrait<OpTrait::Elementwise>() &&
        !isa<arith::ConstantOp>(bodyOp))
      return 1;
  return width;
}
} // namespace

DiagnosedSilenceableFailure
tirx::ReduceInBlockOp::applyToOne(TransformRewriter &rewriter,
                                  Operation *target,
                                  ApplyToEachResultList &results,
                                  TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto op = dyn_cast<linalg::LinalgOp>(target);
  if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return wrongTarget(self, target, "a linalg op on buffers with one output");
  if (!insideMapping(target, "block"))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is not inside a forall mapped to blocks: the "
                  "threads that share the reduction are a block's",
                  "apply tile_to_blocks (or fuse_into a block loop) first");
  if (insideMapping(target, "thread"))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already split among threads",
                  "apply reduce_in_block instead of tile_to_threads");
  unsigned k;
  Operation *combiner;
  DiagnosedSilenceableFailure reduction =
      matchSingleReduction(self, op, "reduce_in_block", k, combiner);
  if (!reduction.succeeded())
    return reduction;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  Value out = op.getDpsInitOperand(0)->get();
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!outType || !outType.hasStaticShape() ||
      llvm::any_of(ranges, ShapedType::isDynamic) ||
      !outType.getElementType().isIntOrFloat())
    return reject(self, target, RefusalCode::not_applicable,
                  "the op's loops or output are not static");
  bool usesIndex = false;
  op.getBlock()->walk([&](linalg::IndexOp) { usesIndex = true; });
  if (usesIndex)
    return reject(self, target, RefusalCode::not_applicable,
                  "the body reads its loop indices (linalg.index)");
  TypedAttr neutral = *arith::getNeutralElement(combiner);
  // Each output element is one tuple of the parallel loops: the output map
  // lists them (in any order), nothing else.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  if (!outMap.isProjectedPermutation() ||
      outMap.getNumResults() != parallel.size())
    return reject(self, target, RefusalCode::not_applicable,
                  "the output is not indexed by the parallel loops alone");
  int64_t threads = static_cast<int64_t>(getThreads());
  int64_t outputs = outType.getNumElements();
  int64_t extent = ranges[k];
  if (outputs > threads)
    return reject(self, target, RefusalCode::too_many_outputs,
                  Twine(outputs) + " outputs for " + Twine(threads) +
                      " threads: the last step gives each output a thread",
                  "use smaller block tiles");
  int64_t bytes = outputs * threads * (outType.getElementTypeBitWidth() / 8);
  if (bytes > static_cast<int64_t>(getMaxSharedBytes()))
    return reject(self, target, RefusalCode::exceeds_smem,
                  "the partial results need " + Twine(bytes) +
                      " bytes of shared memory; a block has " +
                      Twine(getMaxSharedBytes()),
                  "use fewer threads or smaller block tiles");

  MLIRContext *ctx = getContext();
  Location loc = target->getLoc();
  rewriter.setInsertionPoint(target);
  auto cst = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Type element = outType.getElementType();
  auto space =
      mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
  Value partials = memref::AllocOp::create(
      rewriter, loc,
      MemRefType::get({outputs, threads}, element, MemRefLayoutAttrInterface(),
                      space));
  // The parallel loop indices of output e (row-major over the output's
  // loops, which the output map lists in order).
  auto loopIndices = [&](OpBuilder &b, Value e, Value kk) {
    SmallVector<Value> indices(ranges.size());
    int64_t stride = outputs;
    for (unsigned d : parallel) {
      stride /= ranges[d];
      Value q = stride == 1 ? e
                            : arith::DivUIOp::create(b, loc, e, cst(b, stride))
                                  .getResult();
      indices[d] = d == parallel.front()
                       ? q
                       : arith::RemUIOp::create(b, loc, q, cst(b, ranges[d]))
                             .getResult();
    }
    if (kk)
      indices[k] = kk;
    return indices;
  };
  auto applyMap = [&](OpBuilder &b, AffineMap map, ArrayRef<Value> indices) {
    SmallVector<Value> values;
    for (AffineExpr r : map.getResults())
      values.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, r), indices));
    return values;
  };

  // 1. Thread t reduces elements t, t + threads, ... of every output; or,
  // 4 at a time, elements 4t to 4t + 3, then 4(t + threads), ...
  int64_t width = partialWidth(op, k, extent, threads, combiner);
  auto vectorOf = [&](Type t) { return VectorType::get({width}, t); };
  scf::ForallOp first = threadLoop(rewriter, loc, threads, [&](OpBuilder &b,
                                                               Value t) {
    scf::ForOp::create(
        b, loc, cst(b, 0), cst(b, outputs), cst(b, 1), ValueRange{},
        [&](OpBuilder &b, Location, Value e, ValueRange) {
          Value init = arith::ConstantOp::create(b, loc, neutral);
          if (width > 1)
            init = vector::BroadcastOp::create(b, loc, vectorOf(element), init);
          // In units of `width` elements: the index is slot * width.
          auto strided = scf::ForOp::create(
              b, loc, t, cst(b, extent / width), cst(b, threads),
              ValueRange{init},
              [&](OpBuilder &b, Location, Value slot, ValueRange acc) {
                Value kk = width == 1 ? slot
                                      : arith::MulIOp::create(
                                            b, loc, slot, cst(b, width))
                                            .getResult();
                SmallVector<Value> indices = loopIndices(b, e, kk);
                IRMapping map;
                for (OpOperand *input : op.getDpsInputOperands()) {
                  Value arg = op.getMatchingBlockArgument(input);
                  Value v = input->get();
                  AffineMap inputMap = op.getMatchingIndexingMap(input);
                  if (isa<MemRefType>(v.getType())) {
                    SmallVector<Value> at = applyMap(b, inputMap, indices);
                    v = width > 1 && inputMap.isFunctionOfDim(k)
                            ? vector::LoadOp::create(
                                  b, loc, vectorOf(arg.getType()), v, at)
                                  .getResult()
                            : memref::LoadOp::create(b, loc, v, at).getResult();
                  }
                  if (width > 1 && !isa<VectorType>(v.getType()))
                    v = vector::BroadcastOp::create(
                        b, loc, vectorOf(arg.getType()), v);
                  map.map(arg, v);
                }
                map.map(op.getRegionOutputArgs()[0], acc[0]);
                for (Operation &bodyOp : op.getBlock()->without_terminator()) {
                  if (width == 1 || isa<arith::ConstantOp>(bodyOp)) {
                    Operation *c = b.clone(bodyOp, map);
                    if (width > 1) // a scalar constant, used by vector ops
                      map.map(bodyOp.getResult(0),
                              vector::BroadcastOp::create(
                                  b, loc,
                                  vectorOf(c->getResult(0).getType()),
                                  c->getResult(0)));
                    continue;
                  }
                  // An elementwise op on vectors of `width`.
                  OperationState state(loc, bodyOp.getName());
                  for (Value operand : bodyOp.getOperands())
                    state.addOperands(map.lookupOrDefault(operand));
                  for (Type type : bodyOp.getResultTypes())
                    state.addTypes(vectorOf(type));
                  state.addAttributes(bodyOp.getAttrs());
                  Operation *vectorized = b.create(state);
                  map.map(bodyOp.getResults(), vectorized->getResults());
                }
                Value next = map.lookupOrDefault(
                    op.getBlock()->getTerminator()->getOperand(0));
                scf::YieldOp::create(b, loc, next);
              });
          Value partial = strided.getResult(0);
          if (width > 1)
            partial = vector::ReductionOp::create(b, loc, *combiningKind(combiner),
                                                  partial);
          memref::StoreOp::create(b, loc, partial, partials, ValueRange{e, t});
          scf::YieldOp::create(b, loc);
        });
  });
  mlir::gpu::BarrierOp::create(rewriter, loc);

  // 2. A tree: half the partials combine the other half's, log2 steps.
  for (int64_t half = threads / 2; half >= 1; half /= 2) {
    threadLoop(rewriter, loc, half, [&](OpBuilder &b, Value t) {
      scf::ForOp::create(
          b, loc, cst(b, 0), cst(b, outputs), cst(b, 1), ValueRange{},
          [&](OpBuilder &b, Location, Value e, ValueRange) {
            Value other = arith::AddIOp::create(b, loc, t, cst(b, half));
            Value a = memref::LoadOp::create(b, loc, partials, ValueRange{e, t});
            Value c =
                memref::LoadOp::create(b, loc, partials, ValueRange{e, other});
            memref::StoreOp::create(b, loc, combine(b, loc, combiner, a, c),
                                    partials, ValueRange{e, t});
            scf::YieldOp::create(b, loc);
          });
    });
    mlir::gpu::BarrierOp::create(rewriter, loc);
  }

  // 3. A thread per output combines the block's result into it.
  threadLoop(rewriter, loc, outputs, [&](OpBuilder &b, Value e) {
    SmallVector<Value> indices = loopIndices(b, e, Value());
    for (Value &i : indices)
      if (!i)
        i = cst(b, 0); // the reduction index: absent from the output's map
    SmallVector<Value> at = applyMap(b, outMap, indices);
    Value old = memref::LoadOp::create(b, loc, out, at);
    Value total = memref::LoadOp::create(b, loc, partials,
                                         ValueRange{e, cst(b, 0)});
    memref::StoreOp::create(b, loc, combine(b, loc, combiner, old, total), out,
                            at);
  });
  rewriter.eraseOp(target);
  results.push_back(first);
  return DiagnosedSilenceableFailure::success();
}
