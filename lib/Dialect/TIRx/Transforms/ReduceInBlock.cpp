//===- ReduceInBlock.cpp - a reduction shared by a block's threads -*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The rewrite of transform.tirx.reduce_in_block.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"
#include "tirx/Dialect/TIRx/Transforms/Sizes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;

namespace {
constexpr int32_t kWarpSize = 32;

/// A forall of `count` iterations mapped to thread x, its body built by
/// `body(builder, t)`.
scf::ForallOp threadLoop(OpBuilder &b, Location loc, int64_t count,
                         function_ref<void(OpBuilder &, Value)> body) {
  auto mapping = b.getArrayAttr({gpu::GPUThreadMappingAttr::get(
      b.getContext(), gpu::MappingId::DimX)});
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

/// The width at which each thread can read the reduction loop: 16 bytes of
/// the widest input indexed by loop `k` (4 f32, 8 bf16 or f16) when every
/// such input has it innermost with unit stride and 2- or 4-byte elements,
/// the body is elementwise, the combiner has a vector.reduction kind and
/// width * threads divides the extent; else 1.
int64_t partialWidth(linalg::LinalgOp op, unsigned k, int64_t extent,
                     int64_t threads, Operation *combiner) {
  if (!combiningKind(combiner))
    return 1;
  unsigned widestBits = 0;
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
        (type.getElementTypeBitWidth() != 32 &&
         type.getElementTypeBitWidth() != 16) ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return 1;
    widestBits = std::max(widestBits, type.getElementTypeBitWidth());
  }
  // No input along the loop: 4-wide, as for 4-byte elements.
  const int64_t width = 128 / (widestBits ? widestBits : 32);
  if (extent % (width * threads) != 0)
    return 1;
  for (Operation &bodyOp : op.getBlock()->without_terminator())
    if (!bodyOp.hasTrait<OpTrait::Elementwise>() &&
        !isa<arith::ConstantOp>(bodyOp))
      return 1;
  return width;
}

/// The reduction being rewritten, and what its steps share.
struct BlockReduction {
  linalg::LinalgOp op;
  Location loc;
  unsigned k;
  Operation *combiner;
  int64_t threads, outputs, extent, width;
  SmallVector<int64_t> ranges;
  SmallVector<unsigned> parallel;
  Type element;
  /// The workgroup buffer of partial results: outputs x threads (a
  /// tree), outputs x warps (shuffles) or groups x outputs (by outputs).
  Value partials;
  /// The outputs' start values (ReduceInBlockOptions::starts), or empty.
  SmallVector<Value, 2> starts;

  Value cst(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  VectorType vectorOf(Type t) { return VectorType::get({width}, t); }

  /// The loop indices of output `e` (row-major over the output's parallel
  /// loops, which the output map lists in order), with `kk` (if given) as
  /// the reduction's.
  SmallVector<Value> loopIndices(OpBuilder &b, Value e, Value kk) {
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
  }

  SmallVector<Value> applyMap(OpBuilder &b, AffineMap map,
                              ArrayRef<Value> indices) {
    SmallVector<Value> values;
    for (AffineExpr r : map.getResults())
      values.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, r), indices));
    return values;
  }

  /// The op's inputs at `indices`: `width`-vectors along the reduction
  /// loop, scalars (broadcast when width > 1) elsewhere.
  void mapInputs(OpBuilder &b, ArrayRef<Value> indices, IRMapping &map) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value arg = op.getMatchingBlockArgument(input);
      Value v = input->get();
      AffineMap inputMap = op.getMatchingIndexingMap(input);
      if (isa<MemRefType>(v.getType())) {
        SmallVector<Value> at = applyMap(b, inputMap, indices);
        v = width > 1 && inputMap.isFunctionOfDim(k)
                ? vector::LoadOp::create(b, loc, vectorOf(arg.getType()), v,
                                         at)
                      .getResult()
                : memref::LoadOp::create(b, loc, v, at).getResult();
      }
      if (width > 1 && !isa<VectorType>(v.getType()))
        v = vector::BroadcastOp::create(b, loc, vectorOf(arg.getType()), v);
      map.map(arg, v);
    }
  }

  /// The op's body on the mapped inputs and accumulator: cloned for width
  /// 1, else each elementwise op on vectors of `width`.
  Value emitBody(OpBuilder &b, IRMapping &map) {
    for (Operation &bodyOp : op.getBlock()->without_terminator()) {
      if (width == 1 || isa<arith::ConstantOp>(bodyOp)) {
        Operation *c = b.clone(bodyOp, map);
        if (width > 1) // a scalar constant, used by vector ops
          map.map(bodyOp.getResult(0),
                  vector::BroadcastOp::create(
                      b, loc, vectorOf(c->getResult(0).getType()),
                      c->getResult(0)));
        continue;
      }
      OperationState state(loc, bodyOp.getName());
      for (Value operand : bodyOp.getOperands()) {
        // A scalar from outside the body (a constant canonicalization
        // hoisted out of it, a value of the enclosing loop) is broadcast.
        Value v = map.lookupOrDefault(operand);
        if (!isa<VectorType>(v.getType()))
          v = vector::BroadcastOp::create(b, loc, vectorOf(v.getType()), v);
        state.addOperands(v);
      }
      for (Type type : bodyOp.getResultTypes())
        state.addTypes(vectorOf(type));
      state.addAttributes(bodyOp.getAttrs());
      Operation *vectorized = b.create(state);
      map.map(bodyOp.getResults(), vectorized->getResults());
    }
    return map.lookupOrDefault(op.getBlock()->getTerminator()->getOperand(0));
  }

  /// A partial of output e: elements t, t + stride, ...; or, 4 at a time,
  /// elements 4t to 4t + 3, then 4(t + stride), ... (thread t of `stride`
  /// threads). `unroll` > 1: each step of the loop over whole rounds takes
  /// the largest of `unroll`, `unroll` / 2, ..., 2 rounds that divides
  /// their count.
  Value emitPartial(OpBuilder &b, Value t, int64_t stride, Value e,
                    TypedAttr neutral, int64_t unroll = 1) {
    Value init = arith::ConstantOp::create(b, loc, neutral);
    if (width > 1)
      init = vector::BroadcastOp::create(b, loc, vectorOf(element), init);
    // In units of `width` elements: the index is slot * width. Whole rounds
    // of the block: a loop of constant trip count over the rounds (slot =
    // t + round * stride), which LLVM unrolls so that a thread's loads
    // issue back to back; else from t in steps of `stride`.
    int64_t slots = extent / width;
    bool rounds = slots % stride == 0;
    int64_t step = 1;
    while (rounds && step * 2 <= unroll && (slots / stride) % (step * 2) == 0)
      step *= 2;
    auto strided = scf::ForOp::create(
        b, loc, rounds ? cst(b, 0) : t,
        cst(b, rounds ? slots / stride : slots),
        cst(b, rounds ? step : stride), ValueRange{init},
        [&](OpBuilder &b, Location, Value iv, ValueRange acc) {
          Value value = acc[0];
          for (int64_t j = 0; j < step; ++j) {
            Value round =
                j == 0 ? iv
                       : arith::AddIOp::create(b, loc, iv, cst(b, j))
                             .getResult();
            Value slot =
                rounds ? arith::AddIOp::create(
                             b, loc, t,
                             arith::MulIOp::create(b, loc, round,
                                                   cst(b, stride)))
                             .getResult()
                       : iv;
            Value kk =
                width == 1
                    ? slot
                    : arith::MulIOp::create(b, loc, slot, cst(b, width))
                          .getResult();
            IRMapping map;
            mapInputs(b, loopIndices(b, e, kk), map);
            map.map(op.getRegionOutputArgs()[0], value);
            value = emitBody(b, map);
          }
          scf::YieldOp::create(b, loc, value);
        });
    Value partial = strided.getResult(0);
    if (width > 1)
      partial = vector::ReductionOp::create(b, loc, *combiningKind(combiner),
                                            partial);
    return partial;
  }

  /// Tree, step 1: every thread's partial of every output, into
  /// `partials` (outputs x threads).
  scf::ForallOp emitPartials(OpBuilder &builder, TypedAttr neutral) {
    return threadLoop(builder, loc, threads, [&](OpBuilder &b, Value t) {
      forEachOutput(b, [&](OpBuilder &b, Value e) {
        memref::StoreOp::create(b, loc, emitPartial(b, t, threads, e, neutral),
                                partials, ValueRange{e, t});
      });
    });
  }

  /// `value` combined across the 32 lanes of a warp: a butterfly of
  /// shuffles (xor 16, 8, 4, 2, 1); every lane ends with the warp's total.
  Value emitWarpReduce(OpBuilder &b, Value value) {
    for (int32_t offset = kWarpSize / 2; offset >= 1; offset /= 2) {
      Value other = gpu::ShuffleOp::create(b, loc, value, offset, kWarpSize,
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      value = tirx::combine(b, loc, combiner, value, other);
    }
    return value;
  }

  /// Where output `e` is in the op's output buffer.
  SmallVector<Value> outputIndices(OpBuilder &b, Value e) {
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    SmallVector<Value> indices = loopIndices(b, e, Value());
    for (Value &i : indices)
      if (!i)
        i = cst(b, 0); // the reduction index: absent from the output's map
    return applyMap(b, outMap, indices);
  }

  /// Output `result`'s value before the reduction at `at`: its start, or
  /// what the buffer holds.
  Value oldValue(OpBuilder &b, unsigned result, ArrayRef<Value> at) {
    if (!starts.empty())
      return starts[result];
    return memref::LoadOp::create(b, loc, op.getDpsInitOperand(result)->get(),
                                  at);
  }

  /// Combines `total` into output `e` (old value, then total).
  void emitOutputUpdate(OpBuilder &b, Value e, Value total) {
    Value out = op.getDpsInitOperand(0)->get();
    SmallVector<Value> at = outputIndices(b, e);
    Value old = oldValue(b, 0, at);
    memref::StoreOp::create(b, loc, tirx::combine(b, loc, combiner, old, total),
                            out, at);
  }

  /// `body` run by lane 0 alone (`lane` is the thread's lane).
  void ifLaneZero(OpBuilder &b, Value lane,
                  function_ref<void(OpBuilder &)> body) {
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        lane, cst(b, 0));
    auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body(b);
  }

  /// A loop over the outputs, `body(b, e)` in it.
  void forEachOutput(OpBuilder &b, function_ref<void(OpBuilder &, Value)> body) {
    scf::ForOp::create(b, loc, cst(b, 0), cst(b, outputs), cst(b, 1),
                       ValueRange{},
                       [&](OpBuilder &b, Location, Value e, ValueRange) {
                         body(b, e);
                         scf::YieldOp::create(b, loc);
                       });
  }

  /// Shuffles, steps 1 and 2: every thread's partial of every output,
  /// combined within its warp by shuffles; lane 0 of each warp writes the
  /// warp's total to `partials` (outputs x warps).
  scf::ForallOp emitWarpPartials(OpBuilder &builder, TypedAttr neutral) {
    return threadLoop(builder, loc, threads, [&](OpBuilder &b, Value t) {
      Value lane = arith::RemUIOp::create(b, loc, t, cst(b, kWarpSize));
      Value warp = arith::DivUIOp::create(b, loc, t, cst(b, kWarpSize));
      forEachOutput(b, [&](OpBuilder &b, Value e) {
        Value total =
            emitWarpReduce(b, emitPartial(b, t, threads, e, neutral));
        ifLaneZero(b, lane, [&](OpBuilder &b) {
          memref::StoreOp::create(b, loc, total, partials, ValueRange{e, warp});
        });
      });
    });
  }

  /// Shuffles, step 3 (after one barrier): the first warp reads the warps'
  /// totals (the neutral element past the last warp), combines them by
  /// shuffles, and lane 0 combines the result into the output.
  void emitWarpFinal(OpBuilder &builder, TypedAttr neutral) {
    int64_t warps = threads / kWarpSize;
    threadLoop(builder, loc, kWarpSize, [&](OpBuilder &b, Value lane) {
      forEachOutput(b, [&](OpBuilder &b, Value e) {
        Value value;
        if (warps == kWarpSize) {
          value = memref::LoadOp::create(b, loc, partials, ValueRange{e, lane});
        } else {
          Value inRange = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, lane, cst(b, warps));
          auto ifOp = scf::IfOp::create(
              b, loc, inRange,
              [&](OpBuilder &b, Location) {
                scf::YieldOp::create(
                    b, loc,
                    memref::LoadOp::create(b, loc, partials,
                                           ValueRange{e, lane})
                        .getResult());
              },
              [&](OpBuilder &b, Location) {
                scf::YieldOp::create(
                    b, loc, arith::ConstantOp::create(b, loc, neutral)
                                .getResult());
              });
          value = ifOp.getResult(0);
        }
        Value total = emitWarpReduce(b, value);
        ifLaneZero(b, lane,
                   [&](OpBuilder &b) { emitOutputUpdate(b, e, total); });
      });
    });
  }

  /// By outputs, step 1: thread t's partial of output t mod outputs over
  /// every groups-th element from t / outputs, into `partials`
  /// (groups x outputs: a warp's lanes write neighbouring slots).
  scf::ForallOp emitOutputPartials(OpBuilder &builder, TypedAttr neutral) {
    int64_t groups = threads / outputs;
    return threadLoop(builder, loc, threads, [&](OpBuilder &b, Value t) {
      Value e = arith::RemUIOp::create(b, loc, t, cst(b, outputs));
      Value g = arith::DivUIOp::create(b, loc, t, cst(b, outputs));
      // Unrolled 8 times so that a thread's loads go out back to back (a
      // column reduction reads a 4-byte element per row and thread): on the
      // H200, a hand-written kernel of this form took 73.2 us on colmax
      // unrolled 8 times, 73.6 us unrolled 4 times.
      memref::StoreOp::create(
          b, loc, emitPartial(b, g, groups, e, neutral, /*unroll=*/8),
          partials, ValueRange{g, e});
    });
  }

  /// By outputs, step 2 (after one barrier): a thread per output combines
  /// its groups' partials in order and the result into the output.
  void emitOutputFinal(OpBuilder &builder) {
    int64_t groups = threads / outputs;
    threadLoop(builder, loc, outputs, [&](OpBuilder &b, Value e) {
      Value first =
          memref::LoadOp::create(b, loc, partials, ValueRange{cst(b, 0), e});
      auto fold = scf::ForOp::create(
          b, loc, cst(b, 1), cst(b, groups), cst(b, 1), ValueRange{first},
          [&](OpBuilder &b, Location, Value g, ValueRange acc) {
            Value next =
                memref::LoadOp::create(b, loc, partials, ValueRange{g, e});
            scf::YieldOp::create(
                b, loc, tirx::combine(b, loc, combiner, acc[0], next));
          });
      emitOutputUpdate(b, e, fold.getResult(0));
    });
  }

  /// Tree, step 2: half the partials combine the other half's, log2 steps.
  void emitTree(OpBuilder &builder) {
    for (int64_t half = threads / 2; half >= 1; half /= 2) {
      threadLoop(builder, loc, half, [&](OpBuilder &b, Value t) {
        forEachOutput(b, [&](OpBuilder &b, Value e) {
          Value other = arith::AddIOp::create(b, loc, t, cst(b, half));
          Value x = memref::LoadOp::create(b, loc, partials, ValueRange{e, t});
          Value y =
              memref::LoadOp::create(b, loc, partials, ValueRange{e, other});
          memref::StoreOp::create(b, loc, tirx::combine(b, loc, combiner, x, y),
                                  partials, ValueRange{e, t});
        });
      });
      gpu::BarrierOp::create(builder, loc);
    }
  }

  /// Tree, step 3: a thread per output combines the block's result into it.
  void emitFinal(OpBuilder &builder) {
    threadLoop(builder, loc, outputs, [&](OpBuilder &b, Value e) {
      emitOutputUpdate(
          b, e, memref::LoadOp::create(b, loc, partials, ValueRange{e, cst(b, 0)}));
    });
  }
};
} // namespace

FailureOr<scf::ForallOp>
tirx::reduceInBlock(RewriterBase &rewriter, linalg::LinalgOp op,
                    const ReduceInBlockOptions &options) {
  std::optional<SingleReduction> reduction = getSingleReduction(op);
  auto outType = dyn_cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  if (!reduction || !outType || !outType.hasStaticShape())
    return failure();
  BlockReduction r{op, op.getLoc(), reduction->loop, reduction->combiner,
                   options.threads, outType.getNumElements(),
                   /*extent=*/0, /*width=*/1, op.getStaticLoopRanges(),
                   {}, outType.getElementType(), Value(), options.starts};
  op.getParallelDims(r.parallel);
  r.extent = r.ranges[r.k];
  r.width = partialWidth(op, r.k, r.extent, r.threads, r.combiner);
  TypedAttr neutral = *arith::getNeutralElement(r.combiner);

  rewriter.setInsertionPoint(op);
  auto space = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                          gpu::AddressSpace::Workgroup);
  if (reduceInBlockByOutputs(op, r.threads)) {
    r.width = 1;
    r.partials = memref::AllocOp::create(
        rewriter, r.loc,
        MemRefType::get({r.threads / r.outputs, r.outputs}, r.element,
                        MemRefLayoutAttrInterface(), space));
    scf::ForallOp first = r.emitOutputPartials(rewriter, neutral);
    gpu::BarrierOp::create(rewriter, r.loc);
    r.emitOutputFinal(rewriter);
    rewriter.eraseOp(op);
    return first;
  }
  bool shuffles = reduceInBlockUsesShuffles(r.element);
  int64_t slots = shuffles ? r.threads / kWarpSize : r.threads;
  r.partials = memref::AllocOp::create(
      rewriter, r.loc,
      MemRefType::get({r.outputs, slots}, r.element,
                      MemRefLayoutAttrInterface(), space));
  scf::ForallOp first;
  if (shuffles) {
    // The output is updated after a barrier even with one warp: every
    // thread of the block may have written it before (the fill that
    // fuse_into leaves before a fused reduction).
    first = r.emitWarpPartials(rewriter, neutral);
    gpu::BarrierOp::create(rewriter, r.loc);
    if (slots > 1)
      r.emitWarpFinal(rewriter, neutral);
    else
      r.emitFinal(rewriter);
  } else {
    first = r.emitPartials(rewriter, neutral);
    gpu::BarrierOp::create(rewriter, r.loc);
    r.emitTree(rewriter);
    r.emitFinal(rewriter);
  }
  rewriter.eraseOp(op);
  return first;
}

namespace {
/// An IndexReduction shared by a block's threads: the value and index
/// partials in two shared buffers (outputs x threads).
struct BlockIndexReduction {
  BlockReduction r;
  arith::CmpFPredicate predicate;
  Type indexType;
  Value indices; // the index partials; r.partials holds the values

  /// Whether `value` replaces `current` in the sequential loop: strictly
  /// greater (OGT) or smaller (OLT); never a NaN, nor against one.
  Value better(OpBuilder &b, Value value, Value current) {
    return arith::CmpFOp::create(b, r.loc, predicate, value, current);
  }

  /// Thread t's (value, index) of output e: the body over its elements t,
  /// t + threads, ... in order (linalg.index k is the element's position),
  /// from (the neutral value, 0).
  std::pair<Value, Value> emitPartial(OpBuilder &b, Value t, Value e) {
    auto [initValue, initIndex] = neutral(b);
    bool rounds = r.extent % r.threads == 0;
    auto strided = scf::ForOp::create(
        b, r.loc, rounds ? r.cst(b, 0) : t,
        r.cst(b, rounds ? r.extent / r.threads : r.extent),
        r.cst(b, rounds ? 1 : r.threads), ValueRange{initValue, initIndex},
        [&](OpBuilder &b, Location, Value iv, ValueRange acc) {
          Value kk = rounds
                         ? arith::AddIOp::create(
                               b, r.loc, t,
                               arith::MulIOp::create(b, r.loc, iv,
                                                     r.cst(b, r.threads)))
                               .getResult()
                         : iv;
          SmallVector<Value> at = r.loopIndices(b, e, kk);
          IRMapping map;
          r.mapInputs(b, at, map);
          map.map(r.op.getRegionOutputArgs()[0], acc[0]);
          map.map(r.op.getRegionOutputArgs()[1], acc[1]);
          for (Operation &bodyOp : r.op.getBlock()->without_terminator()) {
            if (auto index = dyn_cast<linalg::IndexOp>(bodyOp))
              map.map(index.getResult(), at[index.getDim()]);
            else
              b.clone(bodyOp, map);
          }
          Operation *yield = r.op.getBlock()->getTerminator();
          scf::YieldOp::create(b, r.loc,
                               ValueRange{map.lookup(yield->getOperand(0)),
                                          map.lookup(yield->getOperand(1))});
        });
    return {strided.getResult(0), strided.getResult(1)};
  }

  /// Tree: half the pairs take the other half's where its value is better,
  /// or equal with a smaller index (the first extremum wins), log2 steps.
  void emitTree(OpBuilder &builder) {
    for (int64_t half = r.threads / 2; half >= 1; half /= 2) {
      threadLoop(builder, r.loc, half, [&](OpBuilder &b, Value t) {
        r.forEachOutput(b, [&](OpBuilder &b, Value e) {
          Value other = arith::AddIOp::create(b, r.loc, t, r.cst(b, half));
          Value xv = memref::LoadOp::create(b, r.loc, r.partials, ValueRange{e, t});
          Value xi = memref::LoadOp::create(b, r.loc, indices, ValueRange{e, t});
          Value yv =
              memref::LoadOp::create(b, r.loc, r.partials, ValueRange{e, other});
          Value yi =
              memref::LoadOp::create(b, r.loc, indices, ValueRange{e, other});
          Value take = takes(b, yv, yi, xv, xi);
          memref::StoreOp::create(
              b, r.loc, arith::SelectOp::create(b, r.loc, take, yv, xv),
              r.partials, ValueRange{e, t});
          memref::StoreOp::create(
              b, r.loc, arith::SelectOp::create(b, r.loc, take, yi, xi),
              indices, ValueRange{e, t});
        });
      });
      gpu::BarrierOp::create(builder, r.loc);
    }
  }

  /// Whether pair (yv, yi) replaces (xv, xi) when two partials combine: a
  /// better value, or an equal one with a smaller index (the first extremum
  /// wins). Partials are never NaN (the body's compare never takes one).
  Value takes(OpBuilder &b, Value yv, Value yi, Value xv, Value xi) {
    Value tie = arith::AndIOp::create(
        b, r.loc,
        arith::CmpFOp::create(b, r.loc, arith::CmpFPredicate::OEQ, yv, xv),
        arith::CmpIOp::create(b, r.loc, arith::CmpIPredicate::slt, yi, xi));
    return arith::OrIOp::create(b, r.loc, better(b, yv, xv), tie);
  }

  /// The neutral pair: the infinity no value beats, index 0.
  std::pair<Value, Value> neutral(OpBuilder &b) {
    auto floatType = cast<FloatType>(r.element);
    return {arith::ConstantOp::create(
                b, r.loc,
                b.getFloatAttr(floatType,
                               APFloat::getInf(floatType.getFloatSemantics(),
                                               predicate ==
                                                   arith::CmpFPredicate::OGT))),
            arith::ConstantOp::create(b, r.loc, b.getZeroAttr(indexType))};
  }

  /// The pair combined across the 32 lanes of a warp by a butterfly of
  /// shuffles of the value and of the index (as i32); every lane ends with
  /// the warp's first extremum.
  /// (The index travels as an i32 and back, sign-extended or truncated:
  /// exact, as every partial's index lies in [0, extent), extent < 2^31,
  /// and the index type holds it: reduce_in_block refuses a narrower one.)
  std::pair<Value, Value> emitWarpReduce(OpBuilder &b, Value v, Value i) {
    Value i32 = getValueOrCreateCastToIndexLike(b, r.loc, b.getI32Type(), i);
    for (int32_t offset = kWarpSize / 2; offset >= 1; offset /= 2) {
      Value ov = gpu::ShuffleOp::create(b, r.loc, v, offset, kWarpSize,
                                        gpu::ShuffleMode::XOR)
                     .getShuffleResult();
      Value oi = gpu::ShuffleOp::create(b, r.loc, i32, offset, kWarpSize,
                                        gpu::ShuffleMode::XOR)
                     .getShuffleResult();
      Value take = takes(b, ov, oi, v, i32);
      v = arith::SelectOp::create(b, r.loc, take, ov, v);
      i32 = arith::SelectOp::create(b, r.loc, take, oi, i32);
    }
    return {v, getValueOrCreateCastToIndexLike(b, r.loc, indexType, i32)};
  }

  /// The block's pair replaces output e's where its value is better
  /// (strictly: the output's own index wins a tie, as it comes first in the
  /// sequential loop).
  void emitOutputUpdate(OpBuilder &b, Value e, Value v, Value i) {
    SmallVector<Value> at = r.outputIndices(b, e);
    Value oldV = r.oldValue(b, 0, at);
    Value oldI = r.oldValue(b, 1, at);
    Value take = better(b, v, oldV);
    memref::StoreOp::create(b, r.loc,
                            arith::SelectOp::create(b, r.loc, take, v, oldV),
                            r.op.getDpsInitOperand(0)->get(), at);
    memref::StoreOp::create(b, r.loc,
                            arith::SelectOp::create(b, r.loc, take, i, oldI),
                            r.op.getDpsInitOperand(1)->get(), at);
  }

  /// A thread per output: the tree's pair (slot 0) into the output.
  void emitFinal(OpBuilder &builder) {
    threadLoop(builder, r.loc, r.outputs, [&](OpBuilder &b, Value e) {
      emitOutputUpdate(
          b, e,
          memref::LoadOp::create(b, r.loc, r.partials,
                                 ValueRange{e, r.cst(b, 0)}),
          memref::LoadOp::create(b, r.loc, indices,
                                 ValueRange{e, r.cst(b, 0)}));
    });
  }

  /// Shuffles, steps 1 and 2: each warp combines its threads' pairs, and
  /// lane 0 writes the warp's pair to the partials (outputs x warps).
  scf::ForallOp emitWarpPartials(OpBuilder &builder) {
    return threadLoop(builder, r.loc, r.threads, [&](OpBuilder &b, Value t) {
      Value lane = arith::RemUIOp::create(b, r.loc, t, r.cst(b, kWarpSize));
      Value warp = arith::DivUIOp::create(b, r.loc, t, r.cst(b, kWarpSize));
      r.forEachOutput(b, [&](OpBuilder &b, Value e) {
        auto [pv, pi] = emitPartial(b, t, e);
        auto [v, i] = emitWarpReduce(b, pv, pi);
        r.ifLaneZero(b, lane, [&](OpBuilder &b) {
          memref::StoreOp::create(b, r.loc, v, r.partials, ValueRange{e, warp});
          memref::StoreOp::create(b, r.loc, i, indices, ValueRange{e, warp});
        });
      });
    });
  }

  /// Shuffles, step 3 (after one barrier): the first warp reads the warps'
  /// pairs (the neutral pair past the last warp), combines them, and lane 0
  /// updates the output.
  void emitWarpFinal(OpBuilder &builder) {
    int64_t warps = r.threads / kWarpSize;
    threadLoop(builder, r.loc, kWarpSize, [&](OpBuilder &b, Value lane) {
      r.forEachOutput(b, [&](OpBuilder &b, Value e) {
        Value inRange = arith::CmpIOp::create(
            b, r.loc, arith::CmpIPredicate::ult, lane, r.cst(b, warps));
        auto ifOp = scf::IfOp::create(
            b, r.loc, inRange,
            [&](OpBuilder &b, Location) {
              scf::YieldOp::create(
                  b, r.loc,
                  ValueRange{memref::LoadOp::create(b, r.loc, r.partials,
                                                    ValueRange{e, lane}),
                             memref::LoadOp::create(b, r.loc, indices,
                                                    ValueRange{e, lane})});
            },
            [&](OpBuilder &b, Location) {
              auto [v, i] = neutral(b);
              scf::YieldOp::create(b, r.loc, ValueRange{v, i});
            });
        auto [v, i] =
            emitWarpReduce(b, ifOp.getResult(0), ifOp.getResult(1));
        r.ifLaneZero(b, lane,
                     [&](OpBuilder &b) { emitOutputUpdate(b, e, v, i); });
      });
    });
  }
};
} // namespace

FailureOr<scf::ForallOp>
tirx::reduceIndexInBlock(RewriterBase &rewriter, linalg::LinalgOp op,
                         const IndexReduction &reduction,
                         const ReduceInBlockOptions &options) {
  auto valueType =
      dyn_cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  auto indexType =
      dyn_cast<MemRefType>(op.getDpsInitOperand(1)->get().getType());
  if (!valueType || !indexType || !valueType.hasStaticShape())
    return failure();
  BlockIndexReduction b{
      BlockReduction{op, op.getLoc(), reduction.loop, /*combiner=*/nullptr,
                     options.threads, valueType.getNumElements(),
                     /*extent=*/0, /*width=*/1, op.getStaticLoopRanges(), {},
                     valueType.getElementType(), Value(), options.starts},
      reduction.predicate, indexType.getElementType(), Value()};
  BlockReduction &r = b.r;
  op.getParallelDims(r.parallel);
  r.extent = r.ranges[r.k];

  rewriter.setInsertionPoint(op);
  bool shuffles = reduceIndexInBlockUsesShuffles(r.element, b.indexType,
                                                 r.extent);
  int64_t slots = shuffles ? r.threads / kWarpSize : r.threads;
  auto space = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                          gpu::AddressSpace::Workgroup);
  r.partials = memref::AllocOp::create(
      rewriter, r.loc,
      MemRefType::get({r.outputs, slots}, r.element,
                      MemRefLayoutAttrInterface(), space));
  b.indices = memref::AllocOp::create(
      rewriter, r.loc,
      MemRefType::get({r.outputs, slots}, b.indexType,
                      MemRefLayoutAttrInterface(), space));
  if (shuffles) {
    // As reduceInBlock: the output is updated after a barrier.
    scf::ForallOp first = b.emitWarpPartials(rewriter);
    gpu::BarrierOp::create(rewriter, r.loc);
    if (slots > 1)
      b.emitWarpFinal(rewriter);
    else
      b.emitFinal(rewriter);
    rewriter.eraseOp(op);
    return first;
  }
  scf::ForallOp first =
      threadLoop(rewriter, r.loc, r.threads, [&](OpBuilder &builder, Value t) {
        r.forEachOutput(builder, [&](OpBuilder &builder, Value e) {
          auto [v, i] = b.emitPartial(builder, t, e);
          memref::StoreOp::create(builder, r.loc, v, r.partials,
                                  ValueRange{e, t});
          memref::StoreOp::create(builder, r.loc, i, b.indices,
                                  ValueRange{e, t});
        });
      });
  gpu::BarrierOp::create(rewriter, r.loc);
  b.emitTree(rewriter);
  b.emitFinal(rewriter);
  rewriter.eraseOp(op);
  return first;
}

bool tirx::reduceInBlockByOutputs(linalg::LinalgOp op, int64_t threads) {
  std::optional<SingleReduction> reduction = getSingleReduction(op);
  if (!reduction || op.getNumDpsInits() != 1)
    return false;
  auto outType = dyn_cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  if (!outType || !outType.hasStaticShape())
    return false;
  int64_t outputs = outType.getNumElements();
  if (outputs < kWarpSize || outputs > threads || threads % outputs != 0)
    return false;
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  if (parallel.empty())
    return false;
  // Output e's loop indices are row-major over the parallel loops
  // (BlockReduction::loopIndices): neighbouring outputs differ in the last.
  AffineExpr innermost = getAffineDimExpr(parallel.back(), op.getContext());
  bool alongOutputs = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    // An input along the reduction alone (a weight w[k]) is the same in
    // every lane of a warp: a broadcast read.
    if (!type || !map.isFunctionOfDim(reduction->loop) ||
        !map.isFunctionOfDim(parallel.back()))
      continue;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (map.getResults().back() != innermost ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return false;
    alongOutputs = true;
  }
  return alongOutputs;
}

bool tirx::reduceInBlockUsesShuffles(Type element) {
  return element.isIntOrFloat() && element.getIntOrFloatBitWidth() == 32;
}

bool tirx::reduceIndexInBlockUsesShuffles(Type value, Type index,
                                          int64_t extent) {
  return value.isF32() && (index.isIndex() || index.isSignlessInteger()) &&
         extent <= std::numeric_limits<int32_t>::max();
}

bool tirx::tilesCoverOnce(scf::ForallOp loop, memref::SubViewOp tile) {
  SmallVector<OpFoldResult> upper = loop.getMixedUpperBound();
  MemRefType source = tile.getSourceType();
  if (!loop.isNormalized() || tile.getType().getRank() != source.getRank() ||
      llvm::any_of(tile.getMixedStrides(),
                   [](OpFoldResult s) { return !isConstantIntValue(s, 1); }))
    return false;
  SmallVector<bool> used(loop.getRank(), false);
  // The induction variable `v` is, and the factor it is scaled by.
  auto scaledIv = [&](Value v) -> std::optional<std::pair<unsigned, int64_t>> {
    int64_t factor = 1;
    if (auto apply = v.getDefiningOp<affine::AffineApplyOp>()) {
      AffineMap map = apply.getAffineMap();
      if (map.getNumResults() != 1 || apply.getMapOperands().size() != 1)
        return std::nullopt;
      AffineExpr r = map.getResult(0);
      auto mul = dyn_cast<AffineBinaryOpExpr>(r);
      if (mul && mul.getKind() == AffineExprKind::Mul) {
        auto c = dyn_cast<AffineConstantExpr>(mul.getRHS());
        if (!c || !isa<AffineDimExpr, AffineSymbolExpr>(mul.getLHS()))
          return std::nullopt;
        factor = c.getValue();
      } else if (!isa<AffineDimExpr, AffineSymbolExpr>(r)) {
        return std::nullopt;
      }
      v = apply.getMapOperands().front();
    }
    for (auto [k, iv] : llvm::enumerate(loop.getInductionVars()))
      if (iv == v)
        return std::make_pair(unsigned(k), factor);
    return std::nullopt;
  };
  // Whether `trips` tiles of `size` make dimension `d` of the source: a
  // static extent, or a run-time one (tirx.dims) that the trip count is
  // the size of, one element a tile.
  auto covers = [&](OpFoldResult trips, int64_t size, unsigned d) {
    if (source.isDynamicDim(d)) {
      auto value = dyn_cast<Value>(trips);
      std::optional<std::string> extent = sizeOfBufferDim(tile.getSource(), d);
      return size == 1 && value && extent && sizeOfDim(value) == extent;
    }
    std::optional<int64_t> t = getConstantIntValue(trips);
    return t && *t * size == source.getDimSize(d);
  };
  for (auto [d, offset, size] :
       llvm::enumerate(tile.getMixedOffsets(), tile.getMixedSizes())) {
    std::optional<int64_t> s = getConstantIntValue(size);
    if (!s)
      return false;
    if (isConstantIntValue(offset, 0)) {
      if (source.isDynamicDim(d) || *s != source.getDimSize(d))
        return false;
      continue;
    }
    auto value = dyn_cast<Value>(offset);
    std::optional<std::pair<unsigned, int64_t>> iv =
        value ? scaledIv(value) : std::nullopt;
    if (!iv || used[iv->first] || iv->second != *s ||
        !covers(upper[iv->first], *s, unsigned(d)))
      return false;
    used[iv->first] = true;
  }
  return llvm::all_of(used, [](bool u) { return u; });
}

bool tirx::leavesBufferAlone(Operation *op, Value buffer) {
  return !op->walk([&](Operation *inner) {
              // gpu.barrier declares no effects; it orders its block's
              // threads and touches no buffer.
              // memref.dim reads the buffer's size, none of its elements.
              if (isa<memref::DimOp>(inner))
                return WalkResult::advance();
              bool known =
                  isa<MemoryEffectOpInterface, gpu::BarrierOp>(inner) ||
                  inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
              if (!known || isa<CallOpInterface>(inner) ||
                  llvm::is_contained(inner->getOperands(), buffer))
                return WalkResult::interrupt();
              return WalkResult::advance();
            }).wasInterrupted();
}

SmallVector<linalg::FillOp, 2> tirx::startFills(linalg::LinalgOp op) {
  auto loop = dyn_cast_or_null<scf::ForallOp>(op->getParentOp());
  if (!loop || !mapsTo(loop, MappingKind::Block))
    return {};
  SmallVector<linalg::FillOp, 2> fills;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto tile = init.get().getDefiningOp<memref::SubViewOp>();
    if (!tile || tile->getParentOp() != loop || !tile->hasOneUse() ||
        !tilesCoverOnce(loop, tile))
      return {};
    // A buffer of its own: a function's argument or an allocation (any
    // view of another buffer is made by an op, which the uses below see).
    Value buffer = tile.getSource();
    auto arg = dyn_cast<BlockArgument>(buffer);
    if (!(arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp())) &&
        !buffer.getDefiningOp<memref::AllocOp>() &&
        !buffer.getDefiningOp<memref::AllocaOp>())
      return {};
    // The nearest op in front of the loop that uses the buffer must fill
    // it; only ops that leave the buffer alone may lie between (other
    // fills, index arithmetic, kernels on other buffers: transpose_operand's
    // copy of B in front of a matmul).
    linalg::FillOp fill;
    for (Operation *p = loop->getPrevNode(); p && !fill; p = p->getPrevNode()) {
      auto f = dyn_cast<linalg::FillOp>(p);
      if (f && f.hasPureBufferSemantics() &&
          f.getDpsInitOperand(0)->get() == buffer)
        fill = f;
      else if (!leavesBufferAlone(p, buffer))
        return {};
    }
    if (!fill || fill.getInputs().front().getType() !=
                     getElementTypeOrSelf(buffer.getType()))
      return {};
    // Nothing but the fill, the tile and ops after the loop use the buffer.
    for (Operation *user : buffer.getUsers()) {
      if (user == fill || user == tile || isa<memref::DimOp>(user))
        continue;
      Operation *at = loop->getBlock()->findAncestorOpInBlock(*user);
      if (!at || !loop->isBeforeInBlock(at))
        return {};
    }
    fills.push_back(fill);
  }
  return fills;
}
