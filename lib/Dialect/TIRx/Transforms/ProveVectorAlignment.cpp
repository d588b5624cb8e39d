//===- ProveVectorAlignment.cpp - tirx-prove-vector-alignment ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Alignment is a promise to the backend: a wrong one is undefined behaviour.
// So this pass sets it only from facts in the IR: the alignment of the base
// buffer and the power of two that divides the element offset.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Runtime/Manifest.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXPROVEVECTORALIGNMENT
#define GEN_PASS_DEF_TIRXASSUMEARGUMENTALIGNMENT
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

// Divisors are powers of two capped here; zero is divisible by anything.
static constexpr uint64_t kCap = uint64_t(1) << 32;
static constexpr unsigned kMaxDepth = 32;

static uint64_t lowBit(int64_t value) {
  if (value == 0)
    return kCap;
  uint64_t magnitude = value < 0 ? uint64_t(-(value + 1)) + 1 : uint64_t(value);
  return std::min<uint64_t>(magnitude & (~magnitude + 1), kCap);
}

static uint64_t mulDivisors(uint64_t a, uint64_t b) {
  if (a >= kCap || b >= kCap)
    return kCap;
  return std::min<uint64_t>(a * b, kCap);
}

static uint64_t knownDivisor(Value value, unsigned depth);

static uint64_t exprDivisor(AffineExpr expr, ValueRange dims,
                            ValueRange symbols, unsigned depth) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return lowBit(cast<AffineConstantExpr>(expr).getValue());
  case AffineExprKind::DimId:
    return knownDivisor(dims[cast<AffineDimExpr>(expr).getPosition()], depth);
  case AffineExprKind::SymbolId:
    return knownDivisor(symbols[cast<AffineSymbolExpr>(expr).getPosition()],
                        depth);
  case AffineExprKind::Add: {
    auto bin = cast<AffineBinaryOpExpr>(expr);
    return std::min(exprDivisor(bin.getLHS(), dims, symbols, depth),
                    exprDivisor(bin.getRHS(), dims, symbols, depth));
  }
  case AffineExprKind::Mul: {
    auto bin = cast<AffineBinaryOpExpr>(expr);
    return mulDivisors(exprDivisor(bin.getLHS(), dims, symbols, depth),
                       exprDivisor(bin.getRHS(), dims, symbols, depth));
  }
  case AffineExprKind::Mod: {
    // x mod c = x - c * floor(x / c): divisible by what divides x and c.
    auto bin = cast<AffineBinaryOpExpr>(expr);
    return std::min(exprDivisor(bin.getLHS(), dims, symbols, depth),
                    exprDivisor(bin.getRHS(), dims, symbols, depth));
  }
  default:
    return 1;
  }
}

/// The largest power of two (up to kCap) known to divide an index value.
static uint64_t knownDivisor(Value value, unsigned depth) {
  if (depth > kMaxDepth)
    return 1;
  ++depth;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    // Induction variable of an scf.for: lb + k * step.
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      if (loop.getInductionVar() == arg)
        return std::min(knownDivisor(loop.getLowerBound(), depth),
                        knownDivisor(loop.getStep(), depth));
    return 1;
  }
  Operation *op = value.getDefiningOp();
  APInt constant;
  if (auto cst = dyn_cast<arith::ConstantOp>(op))
    if (auto intAttr = dyn_cast<IntegerAttr>(cst.getValue()))
      return lowBit(intAttr.getValue().getSExtValue());
  if (auto mul = dyn_cast<arith::MulIOp>(op))
    return mulDivisors(knownDivisor(mul.getLhs(), depth),
                       knownDivisor(mul.getRhs(), depth));
  if (auto add = dyn_cast<arith::AddIOp>(op))
    return std::min(knownDivisor(add.getLhs(), depth),
                    knownDivisor(add.getRhs(), depth));
  if (auto sub = dyn_cast<arith::SubIOp>(op))
    return std::min(knownDivisor(sub.getLhs(), depth),
                    knownDivisor(sub.getRhs(), depth));
  if (auto shl = dyn_cast<arith::ShLIOp>(op)) {
    if (auto amount = getConstantIntValue(shl.getRhs()))
      if (*amount >= 0 && *amount < 32)
        return mulDivisors(knownDivisor(shl.getLhs(), depth),
                           uint64_t(1) << *amount);
    return 1;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(op))
    return knownDivisor(op->getOperand(0), depth);
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    ValueRange operands = apply.getMapOperands();
    return exprDivisor(map.getResult(0),
                       operands.take_front(map.getNumDims()),
                       operands.drop_front(map.getNumDims()), depth);
  }
  return 1;
}

static uint64_t alignmentFromAttr(Attribute attr) {
  if (auto intAttr = dyn_cast_or_null<IntegerAttr>(attr)) {
    int64_t value = intAttr.getValue().getSExtValue();
    if (value > 0 && llvm::isPowerOf2_64(value))
      return value;
  }
  return 1;
}

/// Whether `f` may be a bundle's payload function, whose buffers (memref
/// arguments, global allocations) the runner allocates: public, defined,
/// top-level.
static bool isPayloadFunction(func::FuncOp f) {
  return f.isPublic() && !f.isExternal() &&
         isa_and_nonnull<ModuleOp>(f->getParentOp());
}

uint64_t mlir::tirx::argumentAlignment(FunctionOpInterface func,
                                       unsigned index) {
  uint64_t stated = alignmentFromAttr(
      func.getArgAttr(index, LLVM::LLVMDialect::getAlignAttrName()));
  if (stated > 1)
    return stated;
  // The bundle ABI: the runner allocates every buffer parameter of the
  // payload function (a public, top-level func.func) itself, aligned to
  // kBundleBufferAlignment bytes (docs/bundle.md).
  auto f = dyn_cast<func::FuncOp>(func.getOperation());
  if (f && isPayloadFunction(f) && index < f.getNumArguments() &&
      isa<MemRefType>(f.getArgument(index).getType()))
    return ::tirx::runtime::kBundleBufferAlignment;
  return 1;
}

/// The byte alignment proven for the aligned pointer of `memref` (the
/// address of the element at layout offset 0).
static uint64_t baseAlignment(Value memref, unsigned depth = 0) {
  if (depth > kMaxDepth)
    return 1;
  if (auto arg = dyn_cast<BlockArgument>(memref)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getFunctionBody().front())
      return 1;
    return mlir::tirx::argumentAlignment(func, arg.getArgNumber());
  }
  Operation *op = memref.getDefiningOp();
  if (auto cast = dyn_cast<memref::CastOp>(op))
    return baseAlignment(cast.getSource(), depth + 1);
  // A view shares its source's aligned pointer; its offset is the layout's.
  if (auto subview = dyn_cast<memref::SubViewOp>(op))
    return baseAlignment(subview.getSource(), depth + 1);
  // A reshape (a front end's view/reshape, bufferized) too, with the
  // source's layout offset.
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(op))
    return baseAlignment(expand.getSrc(), depth + 1);
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(op))
    return baseAlignment(collapse.getSrc(), depth + 1);
  if (auto assume = dyn_cast<memref::AssumeAlignmentOp>(op))
    return std::max<uint64_t>(assume.getAlignment(),
                              baseAlignment(assume.getMemref(), depth + 1));
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    if (alloc.getAlignment())
      return *alloc.getAlignment();
    // A global buffer the payload function allocates for its kernels is a
    // bundle's scratch buffer: the runner allocates it, as the parameters.
    auto func = dyn_cast<func::FuncOp>(alloc->getParentOp());
    if (func && isPayloadFunction(func) &&
        alloc.getType().getMemorySpace() == nullptr)
      return ::tirx::runtime::kBundleBufferAlignment;
    return 1;
  }
  if (auto alloca = dyn_cast<memref::AllocaOp>(op))
    return alloca.getAlignment() ? *alloca.getAlignment() : 1;
  if (auto getGlobal = dyn_cast<memref::GetGlobalOp>(op)) {
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        getGlobal, getGlobal.getNameAttr());
    if (global && global.getAlignment())
      return *global.getAlignment();
    return 1;
  }
  return 1;
}

/// The power of two (up to kCap) known to divide the layout offset of
/// `memref`, in elements: static, or a subview's offsets times its source's
/// strides plus the source's offset.
static uint64_t offsetDivisor(Value memref, unsigned depth = 0) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || depth > kMaxDepth)
    return 1;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return 1;
  if (!ShapedType::isDynamic(offset))
    return lowBit(offset);
  Operation *op = memref.getDefiningOp();
  if (auto cast = dyn_cast_or_null<memref::CastOp>(op))
    return offsetDivisor(cast.getSource(), depth + 1);
  if (auto assume = dyn_cast_or_null<memref::AssumeAlignmentOp>(op))
    return offsetDivisor(assume.getMemref(), depth + 1);
  if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(op))
    return offsetDivisor(expand.getSrc(), depth + 1);
  if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(op))
    return offsetDivisor(collapse.getSrc(), depth + 1);
  auto subview = dyn_cast_or_null<memref::SubViewOp>(op);
  if (!subview)
    return 1;
  SmallVector<int64_t> sourceStrides;
  int64_t sourceOffset = 0;
  if (failed(subview.getSourceType().getStridesAndOffset(sourceStrides,
                                                         sourceOffset)))
    return 1;
  uint64_t divisor = offsetDivisor(subview.getSource(), depth + 1);
  for (auto [offset, stride] :
       llvm::zip(subview.getMixedOffsets(), sourceStrides)) {
    uint64_t strideDivisor = ShapedType::isDynamic(stride) ? 1 : lowBit(stride);
    uint64_t offsetDiv = 1;
    if (std::optional<int64_t> c = getConstantIntValue(offset))
      offsetDiv = lowBit(*c);
    else if (auto v = dyn_cast<Value>(offset))
      offsetDiv = knownDivisor(v, depth);
    divisor = std::min(divisor, mulDivisors(offsetDiv, strideDivisor));
  }
  return divisor;
}

/// The byte alignment of an access to `memref` whose element offset is its
/// layout offset plus, per dimension d, a multiple of `term(d, s)` (s: the
/// power of two dividing the stride of d), as far as it is proven.
static uint64_t
alignmentOf(Value memref,
            llvm::function_ref<uint64_t(unsigned, uint64_t)> term) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.getElementType().isIntOrFloat())
    return 1;
  uint64_t elementBytes =
      std::max<uint64_t>(type.getElementTypeBitWidth() / 8, 1);
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return 1;
  uint64_t divisor = offsetDivisor(memref);
  for (auto [d, stride] : llvm::enumerate(strides))
    divisor = std::min(
        divisor, term(d, ShapedType::isDynamic(stride) ? 1 : lowBit(stride)));
  return std::max<uint64_t>(
      std::min(baseAlignment(memref), mulDivisors(divisor, elementBytes)), 1);
}

uint64_t mlir::tirx::proveViewAlignment(Value memref, int64_t innerMultiple) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getRank() == 0)
    return 1;
  unsigned inner = type.getRank() - 1;
  return alignmentOf(memref, [&](unsigned d, uint64_t stride) -> uint64_t {
    if (d == inner)
      return mulDivisors(lowBit(innerMultiple), stride);
    return type.getDimSize(d) == 1 ? kCap : stride; // index 0 only
  });
}

uint64_t mlir::tirx::proveAccessAlignment(Value memref, ValueRange indices) {
  // Linear element offset = offset + sum(index_i * stride_i).
  return alignmentOf(memref, [&](unsigned d, uint64_t stride) -> uint64_t {
    return d < indices.size()
               ? mulDivisors(knownDivisor(indices[d], 0), stride)
               : kCap;
  });
}

void mlir::tirx::annotateVectorAlignment(Operation *root) {
  auto annotate = [](auto op, Value base, ValueRange indices,
                     VectorType vectorType) {
    if (op.getAlignment())
      return; // The author's claim; never overwrite it.
    Type element = vectorType.getElementType();
    if (!element.isIntOrFloat() || vectorType.isScalable())
      return;
    uint64_t elementBytes =
        std::max<uint64_t>(element.getIntOrFloatBitWidth() / 8, 1);
    // A vector of 3 x f32 claims 8 bytes, not 16: the backend may widen an
    // access to its alignment.
    uint64_t vectorBytes =
        llvm::bit_floor(elementBytes * vectorType.getNumElements());
    uint64_t proven =
        std::min(mlir::tirx::proveAccessAlignment(base, indices), vectorBytes);
    if (proven > elementBytes)
      op.setAlignment(proven);
  };
  root->walk([&](Operation *op) {
    if (auto load = dyn_cast<vector::LoadOp>(op))
      annotate(load, load.getBase(), load.getIndices(), load.getVectorType());
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      annotate(store, store.getBase(), store.getIndices(),
               store.getVectorType());
  });
}

namespace {
/// cp.async moves 4, 8 or 16 bytes from and to addresses aligned to that
/// size: proven on both sides, with no zero fill (srcElements).
bool asyncCopyAligned(nvgpu::DeviceAsyncCopyOp copy) {
  auto type = cast<MemRefType>(copy.getDst().getType());
  if (!type.getElementType().isIntOrFloat() || copy.getSrcElements())
    return false;
  uint64_t bytes = copy.getDstElements().getZExtValue() *
                   std::max<uint64_t>(type.getElementTypeBitWidth() / 8, 1);
  return (bytes == 4 || bytes == 8 || bytes == 16) &&
         mlir::tirx::proveAccessAlignment(copy.getSrc(), copy.getSrcIndices()) >=
             bytes &&
         mlir::tirx::proveAccessAlignment(copy.getDst(), copy.getDstIndices()) >=
             bytes;
}

/// The copy done now, by this thread: the groups and waits that order it
/// still hold (a copy done is a copy complete).
void makeSynchronous(nvgpu::DeviceAsyncCopyOp copy) {
  OpBuilder b(copy);
  auto type = cast<MemRefType>(copy.getDst().getType());
  auto vectorType =
      VectorType::get({int64_t(copy.getDstElements().getZExtValue())},
                      type.getElementType());
  Value v = vector::LoadOp::create(b, copy.getLoc(), vectorType,
                                   copy.getSrc(), copy.getSrcIndices());
  vector::StoreOp::create(b, copy.getLoc(), v, copy.getDst(),
                          copy.getDstIndices());
  // Its token leaves the groups that named it (a group commits this
  // thread's earlier copies whatever tokens it names).
  for (OpOperand &use : llvm::make_early_inc_range(copy.getAsyncToken().getUses()))
    if (auto group = dyn_cast<nvgpu::DeviceAsyncCreateGroupOp>(use.getOwner()))
      group.getInputTokensMutable().erase(use.getOperandNumber());
  if (copy.getAsyncToken().use_empty())
    copy.erase();
}


struct ProveVectorAlignmentPass
    : public mlir::tirx::impl::TIRxProveVectorAlignmentBase<
          ProveVectorAlignmentPass> {
  void runOnOperation() override {
    // First the copies whose alignment is not proven: they become vector
    // loads and stores, annotated below like the others.
    SmallVector<nvgpu::DeviceAsyncCopyOp> unproven;
    getOperation()->walk([&](nvgpu::DeviceAsyncCopyOp copy) {
      if (!asyncCopyAligned(copy))
        unproven.push_back(copy);
    });
    for (nvgpu::DeviceAsyncCopyOp copy : unproven)
      makeSynchronous(copy);
    mlir::tirx::annotateVectorAlignment(getOperation());
  }
};

/// States the bundle ABI's alignment on the payload function's buffers, as
/// `llvm.align`, so that every later step (and a reader) sees it.
struct AssumeArgumentAlignmentPass
    : public mlir::tirx::impl::TIRxAssumeArgumentAlignmentBase<
          AssumeArgumentAlignmentPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        if (func.getArgAttr(i, LLVM::LLVMDialect::getAlignAttrName()))
          continue;
        uint64_t align = mlir::tirx::argumentAlignment(func, i);
        if (align > 1)
          func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                          IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                           align));
      }
  }
};
} // namespace
