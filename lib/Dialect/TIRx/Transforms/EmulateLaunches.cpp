//===- EmulateLaunches.cpp - gpu.launch as sequential CPU loops -*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// So that a GPU-mapped schedule's arithmetic can be checked on a CPU (in
// `make check`, without a GPU), every gpu.launch becomes loops: blocks one
// after another, and, inside a block, the threads one after another between
// synchronization points. A barrier splits the block's code into phases;
// each phase is a loop over the block's threads. A warp collective
// (gpu.shuffle, gpu.subgroup_reduce, nvgpu.mma.sync) is a phase of its own
// in which each thread reads the other lanes' operands from per-thread
// buffers: the lanes of a warp run in lockstep. A value that lives across a
// phase boundary is kept in a per-thread buffer (memref<threads x T>), or,
// for a view, recomputed where it is used. Control flow around a
// synchronization point is kept at block level: loops need bounds that are
// the same in every thread; a thread-dependent `scf.if` runs its phases
// under a per-thread mask.
//
// The fragment layout of mma.sync is written here from the PTX ISA manual
// ("Matrix fragments for mma.m16n8k8", .tf32), independently of use_mma,
// so that a wrong fragment index in use_mma gives wrong numbers here too.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXEMULATELAUNCHES
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
constexpr int64_t kWarp = 32;

bool isCollective(Operation *op) {
  return isa<gpu::ShuffleOp, gpu::SubgroupReduceOp, nvgpu::MmaSyncOp>(op);
}

bool isSyncPoint(Operation *op) {
  return isa<gpu::BarrierOp>(op) || isCollective(op);
}

bool containsSync(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isSyncPoint(inner) ? WalkResult::interrupt()
                                  : WalkResult::advance();
      })
      .wasInterrupted();
}

bool isStorable(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  return isa<IntegerType, FloatType, IndexType>(type);
}

/// The same type in the default memory space (shared memory becomes plain
/// memory on the CPU).
Type withoutGpuSpace(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !isa_and_nonnull<gpu::AddressSpaceAttr>(memref.getMemorySpace()))
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout());
}

struct Mask {
  Value buffer; // memref<threads x i1>
  bool negate;
};

/// One launch, emulated.
class Emulator {
public:
  Emulator(gpu::LaunchOp launch) : launch(launch), b(launch) {}

  LogicalResult run();

private:
  gpu::LaunchOp launch;
  OpBuilder b;        // where the block-level code goes
  Location loc = launch.getLoc();
  int64_t blockDims[3] = {1, 1, 1};
  int64_t threads = 1;
  Operation *allocPoint = nullptr; // buffers are allocated before this op
  SmallVector<Value> allocs;

  /// Values of the launch body that are the same in every thread of a block
  /// (block ids, sizes, constants and what is computed from them only),
  /// mapped to their block-level copies.
  IRMapping uniform;
  /// Per-thread values kept in a buffer memref<threads x T>.
  DenseMap<Value, Value> buffers;
  /// Per-thread values defined in an emitted thread loop, not yet stored:
  /// their copy there and that loop's thread index.
  DenseMap<Value, std::pair<Value, Value>> defined;

  /// The thread loop being emitted: its mapping and thread index.
  IRMapping *local = nullptr;
  Value tid;

  Value cst(OpBuilder &builder, int64_t v) {
    return arith::ConstantIndexOp::create(builder, loc, v);
  }
  bool isUniform(Value v) {
    return uniform.contains(v) || !launch.getBody().isAncestor(v.getParentRegion());
  }
  Value uniformValue(Value v) { return uniform.lookupOrDefault(v); }

  Value allocBuffer(Type element) {
    OpBuilder ab(allocPoint);
    auto type = MemRefType::get({threads}, element);
    Value buffer = memref::AllocOp::create(ab, loc, type);
    allocs.push_back(buffer);
    return buffer;
  }
  FailureOr<Value> getBuffer(Value v);
  FailureOr<Value> resolve(Value v);
  LogicalResult resolveUsedAbove(Operation *op);

  LogicalResult emitBlock(Block &block, ArrayRef<Mask> masks);
  LogicalResult emitThreadLoop(ArrayRef<Mask> masks,
                               function_ref<LogicalResult()> body,
                               bool scoped = false);
  LogicalResult emitSegment(ArrayRef<Operation *> ops, ArrayRef<Mask> masks);
  LogicalResult emitStores(ValueRange values, ArrayRef<Value> into,
                           ArrayRef<Mask> masks);
  LogicalResult emitFor(scf::ForOp loop, ArrayRef<Mask> masks);
  LogicalResult emitIf(scf::IfOp ifOp, ArrayRef<Mask> masks);
  LogicalResult emitShuffle(gpu::ShuffleOp shuffle, ArrayRef<Mask> masks);
  LogicalResult emitSubgroupReduce(gpu::SubgroupReduceOp reduce,
                                   ArrayRef<Mask> masks);
  LogicalResult emitMma(nvgpu::MmaSyncOp mma, ArrayRef<Mask> masks);
  FailureOr<SmallVector<Value>> newBuffers(TypeRange types, Operation *op);
  FailureOr<Value> laneBuffer(Operation *collective, Value value);
};
} // namespace

FailureOr<Value> Emulator::getBuffer(Value v) {
  if (Value buffer = buffers.lookup(v))
    return buffer;
  auto it = defined.find(v);
  if (it == defined.end() || !isStorable(v.getType()))
    return failure();
  Value buffer = allocBuffer(v.getType());
  auto [copy, index] = it->second;
  OpBuilder sb(b.getContext());
  sb.setInsertionPointAfterValue(copy);
  memref::StoreOp::create(sb, loc, copy, buffer, index);
  buffers[v] = buffer;
  return buffer;
}

FailureOr<Value> Emulator::resolve(Value v) {
  if (Value mapped = local->lookupOrNull(v))
    return mapped;
  if (isUniform(v)) {
    // Mapped, so that the clones of the phase's ops use it too.
    local->map(v, uniformValue(v));
    return uniformValue(v);
  }
  if (buffers.count(v) || (defined.count(v) && isStorable(v.getType()))) {
    FailureOr<Value> buffer = getBuffer(v);
    if (failed(buffer))
      return failure();
    Value loaded = memref::LoadOp::create(b, loc, *buffer, tid);
    local->map(v, loaded);
    return loaded;
  }
  // A view (or anything else without effects) defined before the phase:
  // computed again here.
  Operation *def = v.getDefiningOp();
  if (def && def->getNumRegions() == 0 && isMemoryEffectFree(def)) {
    for (Value operand : def->getOperands())
      if (failed(resolve(operand)))
        return failure();
    Operation *copy = b.clone(*def, *local);
    (void)copy;
    return local->lookup(v);
  }
  return emitError(v.getLoc())
         << "tirx-emulate-launches: a value of type " << v.getType()
         << " lives across a barrier or warp collective and can be neither "
            "kept in a per-thread buffer nor recomputed";
}

LogicalResult Emulator::resolveUsedAbove(Operation *op) {
  for (Value operand : op->getOperands())
    if (failed(resolve(operand)))
      return failure();
  SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  for (Value v : above)
    if (failed(resolve(v)))
      return failure();
  return success();
}

LogicalResult Emulator::emitThreadLoop(ArrayRef<Mask> masks,
                                       function_ref<LogicalResult()> body,
                                       bool scoped) {
  auto loop = scf::ForOp::create(b, loc, cst(b, 0), cst(b, threads), cst(b, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value t = loop.getInductionVar();
  IRMapping map;
  // Thread ids: t = x + X (y + Y z).
  Value x = arith::RemUIOp::create(b, loc, t, cst(b, blockDims[0]));
  Value yz = arith::DivUIOp::create(b, loc, t, cst(b, blockDims[0]));
  Value y = arith::RemUIOp::create(b, loc, yz, cst(b, blockDims[1]));
  Value z = arith::DivUIOp::create(b, loc, yz, cst(b, blockDims[1]));
  gpu::KernelDim3 ids = launch.getThreadIds();
  map.map(ids.x, x);
  map.map(ids.y, y);
  map.map(ids.z, z);
  Value active;
  for (const Mask &mask : masks) {
    Value m = memref::LoadOp::create(b, loc, mask.buffer, t);
    if (mask.negate)
      m = arith::XOrIOp::create(
          b, loc, m, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    active = active ? arith::AndIOp::create(b, loc, active, m).getResult() : m;
  }
  if (active) {
    auto ifOp = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  if (scoped) {
    // A thread's stack allocations end with the thread: without a scope,
    // every thread of every block would grow the one CPU stack.
    auto scope = memref::AllocaScopeOp::create(b, loc, TypeRange{});
    Block *scopeBody = b.createBlock(&scope.getBodyRegion());
    b.setInsertionPointToStart(scopeBody);
    auto end = memref::AllocaScopeReturnOp::create(b, loc, ValueRange{});
    b.setInsertionPoint(end);
  }
  IRMapping *savedLocal = local;
  Value savedTid = tid;
  local = &map;
  tid = t;
  LogicalResult result = body();
  local = savedLocal;
  tid = savedTid;
  return result;
}

LogicalResult Emulator::emitSegment(ArrayRef<Operation *> ops,
                                    ArrayRef<Mask> masks) {
  if (ops.empty())
    return success();
  bool allocates = llvm::any_of(ops, [](Operation *op) {
    return op->walk([](memref::AllocaOp) { return WalkResult::interrupt(); })
        .wasInterrupted();
  });
  return emitThreadLoop(masks, [&]() -> LogicalResult {
    for (Operation *op : ops) {
      if (failed(resolveUsedAbove(op)))
        return failure();
      Operation *copy = b.clone(*op, *local);
      for (auto [result, value] :
           llvm::zip(op->getResults(), copy->getResults()))
        defined[result] = {value, tid};
    }
    return success();
  }, allocates);
}

FailureOr<SmallVector<Value>> Emulator::newBuffers(TypeRange types,
                                                   Operation *op) {
  SmallVector<Value> result;
  for (Type type : types) {
    if (!isStorable(type))
      return op->emitError()
             << "tirx-emulate-launches: a result of type " << type
             << " of an op with a barrier or warp collective inside cannot "
                "be kept per thread";
    result.push_back(allocBuffer(type));
  }
  return result;
}

LogicalResult Emulator::emitStores(ValueRange values, ArrayRef<Value> into,
                                   ArrayRef<Mask> masks) {
  if (values.empty())
    return success();
  return emitThreadLoop(masks, [&]() -> LogicalResult {
    SmallVector<Value> resolved;
    for (Value v : values) {
      FailureOr<Value> r = resolve(v);
      if (failed(r))
        return failure();
      resolved.push_back(*r);
    }
    for (auto [v, buffer] : llvm::zip(resolved, into))
      memref::StoreOp::create(b, loc, v, buffer, tid);
    return success();
  });
}

LogicalResult Emulator::emitFor(scf::ForOp loop, ArrayRef<Mask> masks) {
  for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (!isUniform(bound))
      return loop.emitError()
             << "tirx-emulate-launches: a loop with a barrier or warp "
                "collective inside has bounds that differ between threads";
  FailureOr<SmallVector<Value>> iters =
      newBuffers(loop.getResultTypes(), loop);
  if (failed(iters) || failed(emitStores(loop.getInitArgs(), *iters, masks)))
    return failure();
  auto copy = scf::ForOp::create(b, loc, uniformValue(loop.getLowerBound()),
                                 uniformValue(loop.getUpperBound()),
                                 uniformValue(loop.getStep()));
  uniform.map(loop.getInductionVar(), copy.getInductionVar());
  for (auto [arg, buffer] : llvm::zip(loop.getRegionIterArgs(), *iters))
    buffers[arg] = buffer;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(copy.getBody()->getTerminator());
    if (failed(emitBlock(*loop.getBody(), masks)) ||
        failed(emitStores(loop.getBody()->getTerminator()->getOperands(),
                          *iters, masks)))
      return failure();
  }
  for (auto [result, buffer] : llvm::zip(loop.getResults(), *iters))
    buffers[result] = buffer;
  return success();
}

LogicalResult Emulator::emitIf(scf::IfOp ifOp, ArrayRef<Mask> masks) {
  FailureOr<SmallVector<Value>> results =
      newBuffers(ifOp.getResultTypes(), ifOp);
  if (failed(results))
    return failure();
  Value cond = ifOp.getCondition();
  auto emitRegion = [&](Region &region, ArrayRef<Mask> inner) {
    if (region.empty())
      return success();
    Block &block = region.front();
    if (failed(emitBlock(block, inner)))
      return failure();
    return emitStores(block.getTerminator()->getOperands(), *results, inner);
  };
  if (isUniform(cond)) {
    auto copy = scf::IfOp::create(b, loc, uniformValue(cond),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(copy.thenBlock()->getTerminator());
    if (failed(emitRegion(ifOp.getThenRegion(), masks)))
      return failure();
    b.setInsertionPoint(copy.elseBlock()->getTerminator());
    if (failed(emitRegion(ifOp.getElseRegion(), masks)))
      return failure();
  } else {
    FailureOr<Value> condBuffer = getBuffer(cond);
    if (failed(condBuffer))
      return ifOp.emitError() << "tirx-emulate-launches: the condition of "
                                 "this branch cannot be kept per thread";
    SmallVector<Mask> thenMasks(masks), elseMasks(masks);
    thenMasks.push_back({*condBuffer, false});
    elseMasks.push_back({*condBuffer, true});
    if (failed(emitRegion(ifOp.getThenRegion(), thenMasks)) ||
        failed(emitRegion(ifOp.getElseRegion(), elseMasks)))
      return failure();
  }
  for (auto [result, buffer] : llvm::zip(ifOp.getResults(), *results))
    buffers[result] = buffer;
  return success();
}

/// The lane of thread `t` and the index of its warp's lane 0.
static std::pair<Value, Value> laneOf(OpBuilder &b, Location loc, Value t) {
  Value w = arith::ConstantIndexOp::create(b, loc, kWarp);
  Value lane = arith::RemUIOp::create(b, loc, t, w);
  Value base = arith::SubIOp::create(b, loc, t, lane);
  return {lane, base};
}

/// Where the other lanes of `collective` read `value` from: its per-thread
/// buffer, or nothing when it is the same in every thread.
FailureOr<Value> Emulator::laneBuffer(Operation *collective, Value value) {
  if (isUniform(value))
    return Value();
  FailureOr<Value> buffer = getBuffer(value);
  if (failed(buffer)) {
    collective->emitError() << "tirx-emulate-launches: an operand of this "
                               "warp collective cannot be kept per thread";
    return failure();
  }
  return *buffer;
}

LogicalResult Emulator::emitShuffle(gpu::ShuffleOp shuffle,
                                    ArrayRef<Mask> masks) {
  Value value = shuffle.getValue();
  FailureOr<SmallVector<Value>> results =
      newBuffers(shuffle->getResultTypes(), shuffle);
  if (failed(results))
    return failure();
  FailureOr<Value> lanes = laneBuffer(shuffle, value);
  if (failed(lanes))
    return failure();
  Value valueBuffer = *lanes;
  LogicalResult emitted = emitThreadLoop(masks, [&]() -> LogicalResult {
    FailureOr<Value> own = resolve(value);
    FailureOr<Value> offset = resolve(shuffle.getOffset());
    FailureOr<Value> width = resolve(shuffle.getWidth());
    if (failed(own) || failed(offset) || failed(width))
      return failure();
    auto [lane, base] = laneOf(b, loc, tid);
    Type i32 = b.getI32Type();
    Value lane32 = arith::IndexCastOp::create(b, loc, i32, lane);
    Value src;
    switch (shuffle.getMode()) {
    case gpu::ShuffleMode::XOR:
      src = arith::XOrIOp::create(b, loc, lane32, *offset);
      break;
    case gpu::ShuffleMode::DOWN:
      src = arith::AddIOp::create(b, loc, lane32, *offset);
      break;
    case gpu::ShuffleMode::UP:
      src = arith::SubIOp::create(b, loc, lane32, *offset);
      break;
    case gpu::ShuffleMode::IDX:
      src = *offset;
      break;
    }
    Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
    Value valid = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, src, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, src, *width));
    Value result = *own;
    if (valueBuffer) {
      Value srcLane = arith::SelectOp::create(
          b, loc, valid,
          arith::IndexCastOp::create(b, loc, b.getIndexType(), src), lane);
      Value at = arith::AddIOp::create(b, loc, base, srcLane);
      result = memref::LoadOp::create(b, loc, valueBuffer, at);
    }
    memref::StoreOp::create(b, loc, result, (*results)[0], tid);
    memref::StoreOp::create(b, loc, valid, (*results)[1], tid);
    return success();
  });
  if (failed(emitted))
    return failure();
  buffers[shuffle.getShuffleResult()] = (*results)[0];
  buffers[shuffle.getValid()] = (*results)[1];
  return success();
}

/// `x` combined with `y` as `op` does.
static FailureOr<Value> combine(OpBuilder &b, Location loc,
                                gpu::AllReduceOperation op, Value x, Value y) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(x.getType()));
  switch (op) {
  case gpu::AllReduceOperation::ADD:
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::MUL:
    return isFloat ? arith::MulFOp::create(b, loc, x, y).getResult()
                   : arith::MulIOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::MINNUMF:
    return arith::MinNumFOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::MAXSI:
    return arith::MaxSIOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::MINSI:
    return arith::MinSIOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::MAXUI:
    return arith::MaxUIOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::MINUI:
    return arith::MinUIOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::AND:
    return arith::AndIOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::OR:
    return arith::OrIOp::create(b, loc, x, y).getResult();
  case gpu::AllReduceOperation::XOR:
    return arith::XOrIOp::create(b, loc, x, y).getResult();
  }
  return failure();
}

LogicalResult Emulator::emitSubgroupReduce(gpu::SubgroupReduceOp reduce,
                                           ArrayRef<Mask> masks) {
  Value value = reduce.getValue();
  int64_t size = reduce.getClusterSize().value_or(kWarp);
  int64_t stride = reduce.getClusterStride();
  if (size * stride > kWarp)
    return reduce.emitError() << "tirx-emulate-launches: a cluster larger "
                                 "than a warp";
  FailureOr<SmallVector<Value>> results =
      newBuffers(reduce->getResultTypes(), reduce);
  if (failed(results))
    return failure();
  FailureOr<Value> lanes = laneBuffer(reduce, value);
  if (failed(lanes))
    return failure();
  Value valueBuffer = *lanes;
  LogicalResult emitted = emitThreadLoop(masks, [&]() -> LogicalResult {
    FailureOr<Value> own = resolve(value);
    if (failed(own))
      return failure();
    Value total;
    if (!valueBuffer) {
      // The same value in every lane.
      total = *own;
      for (int64_t i = 1; i < size; ++i) {
        FailureOr<Value> c = combine(b, loc, reduce.getOp(), total, *own);
        if (failed(c))
          return failure();
        total = *c;
      }
    } else {
      // The cluster of lane l: lanes first + i * stride, first = the lane
      // with its cluster index bits cleared.
      auto [lane, base] = laneOf(b, loc, tid);
      Value inCluster = arith::RemUIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, lane, cst(b, stride)),
          cst(b, size));
      Value first = arith::SubIOp::create(
          b, loc, lane, arith::MulIOp::create(b, loc, inCluster, cst(b, stride)));
      Value start = arith::AddIOp::create(b, loc, base, first);
      for (int64_t i = 0; i < size; ++i) {
        Value at = arith::AddIOp::create(b, loc, start, cst(b, i * stride));
        Value v = memref::LoadOp::create(b, loc, valueBuffer, at);
        if (!total) {
          total = v;
          continue;
        }
        FailureOr<Value> c = combine(b, loc, reduce.getOp(), total, v);
        if (failed(c))
          return failure();
        total = *c;
      }
    }
    memref::StoreOp::create(b, loc, total, (*results)[0], tid);
    return success();
  });
  if (failed(emitted))
    return failure();
  buffers[reduce.getResult()] = (*results)[0];
  return success();
}

LogicalResult Emulator::emitMma(nvgpu::MmaSyncOp mma, ArrayRef<Mask> masks) {
  // PTX ISA, mma.m16n8k8 with .tf32 operands (groupID g = lane / 4,
  // threadID_in_group t = lane % 4):
  //   A (16x8): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
  //   B (8x8):  b0 (t, g), b1 (t + 4, g)
  //   C, D (16x8): c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t),
  //                c3 (g + 8, 2t + 1)
  auto shape = mma.getMmaShapeAsArray();
  auto typeA = dyn_cast<VectorType>(mma.getMatrixA().getType());
  auto typeB = dyn_cast<VectorType>(mma.getMatrixB().getType());
  auto typeC = dyn_cast<VectorType>(mma.getMatrixC().getType());
  if (shape[0] != 16 || shape[1] != 8 || shape[2] != 8 || !typeA || !typeB || !typeC ||
      !typeA.getElementType().isF32() || !typeC.getElementType().isF32() ||
      typeA.getShape() != ArrayRef<int64_t>{4, 1} ||
      typeB.getShape() != ArrayRef<int64_t>{2, 1} ||
      typeC.getShape() != ArrayRef<int64_t>{2, 2})
    return mma.emitError() << "tirx-emulate-launches: only mma.sync "
                              "m16n8k8 on f32 (tf32) fragments is emulated";
  FailureOr<SmallVector<Value>> results =
      newBuffers(mma->getResultTypes(), mma);
  FailureOr<Value> bufA = getBuffer(mma.getMatrixA());
  FailureOr<Value> bufB = getBuffer(mma.getMatrixB());
  if (failed(results) || failed(bufA) || failed(bufB))
    return mma.emitError() << "tirx-emulate-launches: the fragments of this "
                              "mma.sync cannot be kept per thread";
  LogicalResult emitted = emitThreadLoop(masks, [&]() -> LogicalResult {
    FailureOr<Value> c = resolve(mma.getMatrixC());
    if (failed(c))
      return failure();
    auto [lane, base] = laneOf(b, loc, tid);
    Value g = arith::DivUIOp::create(b, loc, lane, cst(b, 4));
    Value t = arith::RemUIOp::create(b, loc, lane, cst(b, 4));
    SmallVector<Value> d;
    for (int64_t e = 0; e < 4; ++e) {
      // D element e of this lane: row g + 8 (e / 2), column 2t + e % 2.
      Value col = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, t, cst(b, 2)), cst(b, e % 2));
      Value acc = vector::ExtractOp::create(b, loc, *c,
                                            ArrayRef<int64_t>{e / 2, e % 2});
      for (int64_t k = 0; k < 8; ++k) {
        // A (row, k): lane 4 (row % 8) + k % 4, register (row >= 8) +
        // 2 (k >= 4). B (k, col): lane 4 col + k % 4, register k >= 4.
        Value laneA = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, g, cst(b, 4)), cst(b, k % 4));
        Value fragA = memref::LoadOp::create(
            b, loc, *bufA, ValueRange{arith::AddIOp::create(b, loc, base, laneA)});
        Value a = vector::ExtractOp::create(
            b, loc, fragA, ArrayRef<int64_t>{e / 2 + 2 * (k / 4), 0});
        Value laneB = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, col, cst(b, 4)), cst(b, k % 4));
        Value fragB = memref::LoadOp::create(
            b, loc, *bufB, ValueRange{arith::AddIOp::create(b, loc, base, laneB)});
        Value bv =
            vector::ExtractOp::create(b, loc, fragB, ArrayRef<int64_t>{k / 4, 0});
        acc = arith::AddFOp::create(b, loc, acc,
                                    arith::MulFOp::create(b, loc, a, bv));
      }
      d.push_back(acc);
    }
    Value result = vector::FromElementsOp::create(b, loc, typeC, d);
    memref::StoreOp::create(b, loc, result, (*results)[0], tid);
    return success();
  });
  if (failed(emitted))
    return failure();
  buffers[mma.getRes()] = (*results)[0];
  return success();
}

LogicalResult Emulator::emitBlock(Block &block, ArrayRef<Mask> masks) {
  SmallVector<Operation *> segment;
  auto flush = [&]() {
    LogicalResult r = emitSegment(segment, masks);
    segment.clear();
    return r;
  };
  for (Operation &op : block.without_terminator()) {
    bool sync = isSyncPoint(&op) || containsSync(&op);
    if (!sync) {
      if (op.getNumRegions() == 0 && isMemoryEffectFree(&op) &&
          llvm::all_of(op.getOperands(),
                       [&](Value v) { return isUniform(v); })) {
        // The same in every thread: computed once, at block level.
        Operation *copy = b.clone(op, uniform);
        (void)copy;
        continue;
      }
      segment.push_back(&op);
      continue;
    }
    if (failed(flush()))
      return failure();
    LogicalResult r =
        TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](gpu::BarrierOp) { return success(); })
            .Case([&](gpu::ShuffleOp s) { return emitShuffle(s, masks); })
            .Case([&](gpu::SubgroupReduceOp s) {
              return emitSubgroupReduce(s, masks);
            })
            .Case([&](nvgpu::MmaSyncOp m) { return emitMma(m, masks); })
            .Case([&](scf::ForOp f) { return emitFor(f, masks); })
            .Case([&](scf::IfOp i) { return emitIf(i, masks); })
            .Default([&](Operation *other) {
              return other->emitError()
                     << "tirx-emulate-launches: a barrier or warp "
                        "collective inside '"
                     << other->getName() << "' is not emulated";
            });
    if (failed(r))
      return failure();
  }
  return flush();
}

LogicalResult Emulator::run() {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError() << "tirx-emulate-launches: async launches are "
                                 "not emulated";
  if (launch.hasClusterSize())
    return launch.emitError() << "tirx-emulate-launches: clusters are not "
                                 "emulated";
  if (!launch.getBody().hasOneBlock())
    return launch.emitError() << "tirx-emulate-launches: a launch body of "
                                 "more than one block is not emulated";
  if (!launch.getPrivateAttributions().empty())
    return launch.emitError() << "tirx-emulate-launches: private "
                                 "attributions are not emulated";
  gpu::KernelDim3 blockSize = launch.getBlockSizeOperandValues();
  Value dims[3] = {blockSize.x, blockSize.y, blockSize.z};
  for (int d = 0; d < 3; ++d) {
    std::optional<int64_t> c = getConstantIntValue(dims[d]);
    if (!c || *c < 1)
      return launch.emitError() << "tirx-emulate-launches: the block size "
                                   "must be static";
    blockDims[d] = *c;
    threads *= *c;
  }

  Block &body = launch.getBody().front();
  // Thread identity as the launch's arguments, so that one mapping covers
  // it; lanes and warps from the linear thread id.
  WalkResult walk = body.walk([&](Operation *op) -> WalkResult {
    OpBuilder ob(op);
    gpu::KernelDim3 tids = launch.getThreadIds();
    gpu::KernelDim3 bids = launch.getBlockIds();
    gpu::KernelDim3 bsz = launch.getBlockSizeOperandValues();
    gpu::KernelDim3 gsz = launch.getGridSizeOperandValues();
    auto pick = [](gpu::KernelDim3 d, gpu::Dimension dim) {
      return dim == gpu::Dimension::x ? d.x
             : dim == gpu::Dimension::y ? d.y
                                        : d.z;
    };
    auto linear = [&]() {
      Value yz = arith::AddIOp::create(
          ob, loc, tids.y,
          arith::MulIOp::create(ob, loc, tids.z, cst(ob, blockDims[1])));
      return arith::AddIOp::create(
                 ob, loc, tids.x,
                 arith::MulIOp::create(ob, loc, yz, cst(ob, blockDims[0])))
          .getResult();
    };
    Value replacement;
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      replacement = pick(tids, id.getDimension());
    else if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = pick(bids, id.getDimension());
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      replacement = pick(bsz, dim.getDimension());
    else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
      replacement = pick(gsz, dim.getDimension());
    else if (isa<gpu::LaneIdOp>(op))
      replacement = arith::RemUIOp::create(ob, loc, linear(), cst(ob, kWarp));
    else if (isa<gpu::SubgroupIdOp>(op))
      replacement = arith::DivUIOp::create(ob, loc, linear(), cst(ob, kWarp));
    else if (isa<gpu::SubgroupSizeOp>(op))
      replacement = cst(ob, kWarp);
    else if (isa<gpu::NumSubgroupsOp>(op))
      replacement = cst(ob, (threads + kWarp - 1) / kWarp);
    else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (isa_and_nonnull<gpu::AddressSpaceAttr>(alloc.getType().getMemorySpace())) {
        alloc.emitError() << "tirx-emulate-launches: a shared-memory "
                             "allocation inside the launch (run "
                             "tirx-workgroup-allocs first)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    } else if (op->getDialect() &&
               isa<gpu::GPUDialect, nvgpu::NVGPUDialect>(op->getDialect()) &&
               !isa<gpu::BarrierOp, gpu::ShuffleOp, gpu::SubgroupReduceOp,
                    gpu::TerminatorOp, nvgpu::MmaSyncOp>(op)) {
      op->emitError() << "tirx-emulate-launches: '" << op->getName()
                      << "' is not emulated";
      return WalkResult::interrupt();
    } else {
      return WalkResult::advance();
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
    return WalkResult::skip();
  });
  if (walk.wasInterrupted())
    return failure();

  // Blocks, one after another; shared memory allocated once and reused.
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 gsz = launch.getGridSize();
  gpu::KernelDim3 bsz = launch.getBlockSize();
  uniform.map(gsz.x, grid.x);
  uniform.map(gsz.y, grid.y);
  uniform.map(gsz.z, grid.z);
  uniform.map(bsz.x, blockSize.x);
  uniform.map(bsz.y, blockSize.y);
  uniform.map(bsz.z, blockSize.z);
  for (BlockArgument shared : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(withoutGpuSpace(shared.getType()));
    if (!type.hasStaticShape())
      return launch.emitError() << "tirx-emulate-launches: a dynamic shared "
                                   "buffer";
    Value buffer = memref::AllocOp::create(b, loc, type);
    allocs.push_back(buffer);
    uniform.map(shared, buffer);
  }
  Value zero = cst(b, 0), one = cst(b, 1);
  auto bz = scf::ForOp::create(b, loc, zero, grid.z, one);
  allocPoint = bz;
  b.setInsertionPoint(bz.getBody()->getTerminator());
  auto by = scf::ForOp::create(b, loc, zero, grid.y, one);
  b.setInsertionPoint(by.getBody()->getTerminator());
  auto bx = scf::ForOp::create(b, loc, zero, grid.x, one);
  b.setInsertionPoint(bx.getBody()->getTerminator());
  gpu::KernelDim3 bids = launch.getBlockIds();
  uniform.map(bids.x, bx.getInductionVar());
  uniform.map(bids.y, by.getInductionVar());
  uniform.map(bids.z, bz.getInductionVar());
  if (failed(emitBlock(body, {})))
    return failure();

  b.setInsertionPointAfter(bz);
  for (Value buffer : allocs)
    memref::DeallocOp::create(b, loc, buffer);
  return success();
}

namespace {
struct EmulateLaunchesPass
    : public tirx::impl::TIRxEmulateLaunchesBase<EmulateLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Hopper's asynchronous units have no CPU model here: say so once, at
    // the first of their ops, rather than at whichever nvgpu op comes first.
    WalkResult hopper = module.walk([](Operation *op) {
      if (isa<nvgpu::WarpgroupMmaOp, NVVM::WgmmaMmaAsyncOp,
              nvgpu::TmaAsyncLoadOp, nvgpu::TmaCreateDescriptorOp>(op)) {
        op->emitError() << "tirx-emulate-launches: wgmma and TMA (use_wgmma) "
                           "are not emulated; check this schedule on the GPU "
                           "(tirx-run)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (hopper.wasInterrupted())
      return signalPassFailure();
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches) {
      Emulator emulator(launch);
      if (failed(emulator.run()))
        return signalPassFailure();
      launch.erase();
    }
    WalkResult left = module.walk([](Operation *op) {
      if (isa<gpu::LaunchFuncOp, gpu::GPUModuleOp>(op)) {
        op->emitError() << "tirx-emulate-launches: outlined kernels are not "
                           "emulated; emulate before gpu-kernel-outlining";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return signalPassFailure();
    // Shared memory is plain memory on the CPU.
    module.walk([](Operation *op) {
      for (Value result : op->getResults())
        result.setType(withoutGpuSpace(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(withoutGpuSpace(arg.getType()));
    });
  }
};
} // namespace
