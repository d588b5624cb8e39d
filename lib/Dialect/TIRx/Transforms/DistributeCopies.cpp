//===- DistributeCopies.cpp - tirx-distribute-copies ------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A block's copy between barriers, split among its threads.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXDISTRIBUTECOPIES
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
/// True when `value` may differ between the threads of a block: it is
/// computed from a thread or lane id (the launch's or an op's), or from a
/// loop whose bounds are.
bool variesByThread(Value value, gpu::LaunchOp launch) {
  SmallVector<Value> work{value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      gpu::KernelDim3 tid = launch.getThreadIds();
      if (arg == tid.x || arg == tid.y || arg == tid.z)
        return true;
      Operation *owner = arg.getOwner()->getParentOp();
      if (owner == launch || !launch->isAncestor(owner))
        continue; // block ids, sizes, values from outside: uniform
      if (auto loop = dyn_cast<scf::ForOp>(owner)) {
        work.append({loop.getLowerBound(), loop.getUpperBound(),
                     loop.getStep()});
        if (arg != loop.getInductionVar())
          work.push_back(loop.getInitArgs()[arg.getArgNumber() - 1]);
        continue;
      }
      return true; // an argument of something else: assume it varies
    }
    Operation *def = v.getDefiningOp();
    if (isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp>(def))
      return true;
    if (!launch->isAncestor(def))
      continue;
    // Shared memory is the block's (a private alloca is not).
    if (auto alloc = dyn_cast<memref::AllocOp>(def)) {
      auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
          alloc.getType().getMemorySpace());
      if (space && space.getValue() == gpu::AddressSpace::Workgroup) {
        work.append(def->operand_begin(), def->operand_end());
        continue;
      }
    }
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return true; // a value loaded or computed by a region: not provable
    work.append(def->operand_begin(), def->operand_end());
  }
  return false;
}

/// A copy that transform.tirx.pipeline made asynchronous: the groups and
/// waits around it order it, not barriers next to it.
bool isAsync(linalg::CopyOp copy) {
  return copy->hasAttr(tirx::kAsyncCopyAttrName);
}

/// The copy can be split: between barriers (or asynchronous), on uniform
/// operands and uniform control, static shapes, a static block.
bool canDistribute(linalg::CopyOp copy, gpu::LaunchOp launch) {
  if (!copy.hasPureBufferSemantics())
    return false;
  if (!isAsync(copy) &&
      (!isa_and_nonnull<gpu::BarrierOp>(copy->getPrevNode()) ||
       !isa_and_nonnull<gpu::BarrierOp>(copy->getNextNode())))
    return false;
  for (Value v : copy->getOperands()) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape() || variesByThread(v, launch))
      return false;
  }
  for (Operation *p = copy->getParentOp(); p != launch; p = p->getParentOp()) {
    if (auto guard = dyn_cast<scf::IfOp>(p)) {
      if (variesByThread(guard.getCondition(), launch))
        return false;
      continue;
    }
    auto loop = dyn_cast<scf::ForOp>(p);
    if (!loop)
      return false;
    for (Value bound :
         {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (variesByThread(bound, launch))
        return false;
  }
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  return getConstantIntValue(block.x) && getConstantIntValue(block.y) &&
         getConstantIntValue(block.z);
}

/// The widest vector (at most 16 bytes) both sides of the copy can move
/// along their innermost dimension: unit stride, a size it divides.
int64_t vectorWidth(MemRefType src, MemRefType dst) {
  if (src.getRank() == 0 || !src.getElementType().isIntOrFloat())
    return 1;
  for (MemRefType t : {src, dst}) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(t.getStridesAndOffset(strides, offset)) || strides.back() != 1)
      return 1;
  }
  int64_t bytes = src.getElementTypeBitWidth() / 8;
  if (bytes == 0 || bytes > 16)
    return 1;
  int64_t width = 16 / bytes;
  while (width > 1 && src.getShape().back() % width != 0)
    width /= 2;
  return width;
}

void distribute(linalg::CopyOp copy, gpu::LaunchOp launch) {
  IRRewriter rewriter(copy);
  Location loc = copy.getLoc();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  int64_t bx = *getConstantIntValue(block.x), by = *getConstantIntValue(block.y),
          bz = *getConstantIntValue(block.z);
  int64_t threads = bx * by * bz;
  gpu::KernelDim3 tid = launch.getThreadIds();
  Value src = copy.getInputs()[0], dst = copy.getOutputs()[0];
  auto type = cast<MemRefType>(src.getType());
  // Each thread moves `width` consecutive elements at a time: the copy is
  // a copy of "slots", the innermost dimension counted in vectors.
  int64_t width = vectorWidth(type, cast<MemRefType>(dst.getType()));
  SmallVector<int64_t> slots(type.getShape());
  if (!slots.empty())
    slots.back() /= width;
  int64_t n = type.getNumElements() / width;
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // Plain arith, not affine: the bounds checker's range analysis follows
  // it. t = x + bx * (y + by * z): consecutive x, consecutive slots.
  auto mul = [&](OpBuilder &b, Value v, int64_t c) -> Value {
    return arith::MulIOp::create(b, loc, v, cst(c));
  };
  Value linear = arith::AddIOp::create(
      rewriter, loc, tid.x,
      mul(rewriter,
          arith::AddIOp::create(rewriter, loc, tid.y, mul(rewriter, tid.z, by)),
          bx));
  int64_t trips = (n + threads - 1) / threads;
  // An asynchronous copy of 4, 8 or 16 bytes a thread is a cp.async (the
  // alignment proof, later, may still make it synchronous); one of 1 or 2
  // bytes is done now, which its groups and waits allow.
  int64_t asyncBytes = 0;
  if (isAsync(copy) && type.getElementType().isIntOrFloat()) {
    int64_t bytes = width * type.getElementTypeBitWidth() / 8;
    if (bytes == 4 || bytes == 8 || bytes == 16)
      asyncBytes = bytes;
  }
  auto vectorType = VectorType::get({width}, type.getElementType());
  scf::ForOp::create(
      rewriter, loc, cst(0), cst(trips), cst(1), ValueRange{},
      [&](OpBuilder &b, Location l, Value it, ValueRange) {
        Value i = arith::AddIOp::create(b, l, mul(b, it, threads), linear);
        auto body = [&](OpBuilder &b, Value i) {
          // Row-major over the slots: index d is (i / stride_d) mod size_d,
          // the innermost times the width.
          SmallVector<Value> index;
          int64_t stride = n;
          for (auto [d, size] : llvm::enumerate(slots)) {
            stride /= size;
            Value q = stride == 1 ? i
                                  : arith::DivUIOp::create(b, l, i, cst(stride))
                                        .getResult();
            Value at = d == 0 ? q
                              : arith::RemUIOp::create(b, l, q, cst(size))
                                    .getResult();
            if (d + 1 == slots.size() && width > 1)
              at = mul(b, at, width);
            index.push_back(at);
          }
          if (asyncBytes) {
            // cp.async; 16 bytes skip L1 (.cg): the tile is read once.
            nvgpu::DeviceAsyncCopyOp::create(
                b, l, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst,
                index, src, index, b.getIndexAttr(width), Value(),
                asyncBytes == 16 ? b.getUnitAttr() : UnitAttr());
            return;
          }
          if (width == 1) {
            Value v = memref::LoadOp::create(b, l, src, index);
            memref::StoreOp::create(b, l, v, dst, index);
            return;
          }
          Value v = vector::LoadOp::create(b, l, vectorType, src, index);
          vector::StoreOp::create(b, l, v, dst, index);
        };
        if (n % threads == 0) {
          body(b, i);
        } else {
          // The last round has fewer slots than threads: the others skip
          // it (the clamp only tells the bounds checker so).
          Value inside = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                               i, cst(n));
          scf::IfOp::create(b, l, inside, [&](OpBuilder &t, Location) {
            body(t, arith::MinUIOp::create(t, l, i, cst(n - 1)));
            scf::YieldOp::create(t, l);
          });
        }
        scf::YieldOp::create(b, l);
      });
  rewriter.eraseOp(copy);
}

struct DistributeCopiesPass
    : public tirx::impl::TIRxDistributeCopiesBase<DistributeCopiesPass> {
  void runOnOperation() override {
    getOperation()->walk([](gpu::LaunchOp launch) {
      SmallVector<linalg::CopyOp> copies;
      launch.getBody().walk([&](linalg::CopyOp copy) {
        if (copy->getParentOfType<gpu::LaunchOp>() == launch &&
            canDistribute(copy, launch))
          copies.push_back(copy);
      });
      for (linalg::CopyOp copy : copies)
        distribute(copy, launch);
    });
  }
};
} // namespace
