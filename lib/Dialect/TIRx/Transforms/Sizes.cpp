//===- Sizes.cpp - dimensions known only at run time ------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Sizes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/EquivalenceClasses.h"

#include <tuple>

using namespace mlir;

namespace {
/// `v` through casts to a function's argument, if it is one.
BlockArgument functionArgument(Value v) {
  for (unsigned depth = 0; depth < 8; ++depth) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Block *block = arg.getOwner();
      if (block->isEntryBlock() &&
          isa<FunctionOpInterface>(block->getParentOp()))
        return arg;
      return {};
    }
    Operation *op = v.getDefiningOp();
    if (!isa_and_nonnull<memref::CastOp, memref::AssumeAlignmentOp>(op))
      return {};
    v = op->getOperand(0);
  }
  return {};
}

std::string paren(const std::string &a, const char *op, const std::string &b) {
  return "(" + a + " " + op + " " + b + ")";
}

std::optional<std::string> affineExpression(AffineExpr e, ValueRange operands,
                                            unsigned numDims, unsigned depth);

std::optional<std::string> expressionOf(Value v, unsigned depth) {
  if (depth > 32)
    return std::nullopt;
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c < 0 ? "(0 - " + std::to_string(-*c) + ")" : std::to_string(*c);
  if (std::optional<std::string> size = tirx::sizeOfDim(v))
    return size;
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(op))
    return expressionOf(op->getOperand(0), depth + 1);
  auto binary = [&](const char *infix,
                    const char *fn) -> std::optional<std::string> {
    std::optional<std::string> a = expressionOf(op->getOperand(0), depth + 1);
    std::optional<std::string> b = expressionOf(op->getOperand(1), depth + 1);
    if (!a || !b)
      return std::nullopt;
    if (infix)
      return paren(*a, infix, *b);
    return std::string(fn) + "(" + *a + ", " + *b + ")";
  };
  // Sizes are positive: the signed and unsigned forms agree on them.
  if (isa<arith::AddIOp>(op))
    return binary("+", nullptr);
  if (isa<arith::SubIOp>(op))
    return binary("-", nullptr);
  if (isa<arith::MulIOp>(op))
    return binary("*", nullptr);
  if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op))
    return binary(nullptr, "ceildiv");
  if (isa<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp>(op))
    return binary(nullptr, "floordiv");
  if (isa<arith::RemSIOp, arith::RemUIOp>(op))
    return binary(nullptr, "mod");
  if (isa<arith::MinSIOp, arith::MinUIOp>(op))
    return binary(nullptr, "min");
  if (isa<arith::MaxSIOp, arith::MaxUIOp>(op))
    return binary(nullptr, "max");
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    return affineExpression(map.getResult(0), apply.getMapOperands(),
                            map.getNumDims(), depth + 1);
  }
  if (isa<affine::AffineMinOp, affine::AffineMaxOp>(op)) {
    bool isMin = isa<affine::AffineMinOp>(op);
    AffineMap map = isMin ? cast<affine::AffineMinOp>(op).getAffineMap()
                          : cast<affine::AffineMaxOp>(op).getAffineMap();
    std::optional<std::string> result;
    for (AffineExpr e : map.getResults()) {
      std::optional<std::string> r =
          affineExpression(e, op->getOperands(), map.getNumDims(), depth + 1);
      if (!r)
        return std::nullopt;
      result = result ? std::string(isMin ? "min(" : "max(") + *result + ", " +
                            *r + ")"
                      : *r;
    }
    return result;
  }
  return std::nullopt;
}

std::optional<std::string> affineExpression(AffineExpr e, ValueRange operands,
                                            unsigned numDims, unsigned depth) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue() < 0 ? "(0 - " + std::to_string(-c.getValue()) + ")"
                            : std::to_string(c.getValue());
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return expressionOf(operands[d.getPosition()], depth + 1);
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return expressionOf(operands[numDims + s.getPosition()], depth + 1);
  auto bin = cast<AffineBinaryOpExpr>(e);
  std::optional<std::string> a =
      affineExpression(bin.getLHS(), operands, numDims, depth + 1);
  std::optional<std::string> b =
      affineExpression(bin.getRHS(), operands, numDims, depth + 1);
  if (!a || !b)
    return std::nullopt;
  switch (e.getKind()) {
  case AffineExprKind::Add:
    return paren(*a, "+", *b);
  case AffineExprKind::Mul:
    return paren(*a, "*", *b);
  case AffineExprKind::FloorDiv:
    return "floordiv(" + *a + ", " + *b + ")";
  case AffineExprKind::CeilDiv:
    return "ceildiv(" + *a + ", " + *b + ")";
  case AffineExprKind::Mod:
    return "mod(" + *a + ", " + *b + ")";
  default:
    return std::nullopt;
  }
}
} // namespace

std::string tirx::sizeName(FunctionOpInterface func, unsigned arg,
                           unsigned dim) {
  if (arg >= func.getNumArguments())
    return "";
  auto dims = func.getArgAttrOfType<ArrayAttr>(arg, kDimsAttrName);
  if (!dims || dim >= dims.size())
    return "";
  auto name = dyn_cast<StringAttr>(dims[dim]);
  return name ? name.str() : "";
}

namespace {
/// The buffer and dimension that `v`, a memref.dim of a constant index,
/// reads.
std::optional<std::pair<Value, unsigned>> dimSource(Value v) {
  auto dimOp = v.getDefiningOp<memref::DimOp>();
  if (!dimOp)
    return std::nullopt;
  std::optional<int64_t> index = getConstantIntValue(dimOp.getDimension());
  if (!index || *index < 0)
    return std::nullopt;
  return std::make_pair(dimOp.getSource(), unsigned(*index));
}

/// For a buffer the function allocates between its kernels, sized by
/// another buffer's dimension (bufferize's intermediates of a run-time
/// batch: memref.alloc(memref.dim %x, 0)), the buffer and dimension that
/// its dimension `dim` is read from.
std::optional<std::pair<Value, unsigned>>
allocationSource(memref::AllocOp alloc, unsigned dim) {
  MemRefType type = alloc.getType();
  if (dim >= unsigned(type.getRank()) || !type.isDynamicDim(dim))
    return std::nullopt;
  return dimSource(alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)]);
}
} // namespace

std::optional<std::string> tirx::sizeOfBufferDim(Value memref, unsigned dim) {
  if (BlockArgument arg = functionArgument(memref)) {
    auto func = cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    std::string name = sizeName(func, arg.getArgNumber(), dim);
    if (name.empty())
      return std::nullopt;
    return name;
  }
  // An allocation sized by an argument's dimension: that dimension's size.
  if (auto alloc = memref.getDefiningOp<memref::AllocOp>()) {
    auto source = allocationSource(alloc, dim);
    return source ? sizeOfBufferDim(source->first, source->second)
                  : std::nullopt;
  }
  // A collapsed view of an argument (flatten): the product of the sizes
  // its dimension groups, one name for the run-time analyses.
  auto collapse = memref.getDefiningOp<memref::CollapseShapeOp>();
  if (!collapse)
    return std::nullopt;
  // getReassociationIndices() builds its result: held here, not iterated
  // as a temporary (a group of three indices lives on the heap).
  SmallVector<ReassociationIndices, 4> groups =
      collapse.getReassociationIndices();
  if (dim >= groups.size())
    return std::nullopt;
  auto source = cast<MemRefType>(collapse.getSrc().getType());
  std::optional<std::string> product;
  bool dynamic = false;
  for (int64_t d : groups[dim]) {
    std::optional<std::string> factor;
    if (source.isDynamicDim(d)) {
      factor = sizeOfBufferDim(collapse.getSrc(), unsigned(d));
      dynamic = true;
    } else {
      factor = std::to_string(source.getDimSize(d));
    }
    if (!factor)
      return std::nullopt;
    product = product ? paren(*product, "*", *factor) : *factor;
  }
  if (!dynamic)
    return std::nullopt;
  return product;
}

std::optional<std::string> tirx::sizeOfDim(Value v) {
  auto source = dimSource(v);
  return source ? sizeOfBufferDim(source->first, source->second)
                : std::nullopt;
}

std::optional<std::string> tirx::sizeExpression(Value v) {
  return expressionOf(v, 0);
}

void tirx::nameDynamicSizes(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    if (func.isExternal() || func.isPrivate())
      return;
    using Dim = std::pair<unsigned, unsigned>; // argument, dimension
    SmallVector<Dim> dynamic;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      if (func.getArgAttr(i, kDimsAttrName))
        return; // named already
      if (auto memref = dyn_cast<MemRefType>(type))
        for (unsigned d = 0; d < memref.getRank(); ++d)
          if (memref.isDynamicDim(d))
            dynamic.push_back({unsigned(i), d});
    }
    if (dynamic.empty())
      return;
    auto key = [](Dim d) { return (uint64_t(d.first) << 32) | d.second; };
    llvm::EquivalenceClasses<uint64_t> classes;
    for (Dim d : dynamic)
      classes.insert(key(d));
    // The argument's dimension that dimension `d` of `v` is: its own, or
    // the one an allocation's run-time size is read from (an intermediate
    // of a run-time batch, memref.alloc(memref.dim %x, 0)).
    auto argumentDim = [&](Value v, unsigned d) -> std::optional<uint64_t> {
      if (auto alloc = v.getDefiningOp<memref::AllocOp>()) {
        auto source = allocationSource(alloc, d);
        if (!source)
          return std::nullopt;
        std::tie(v, d) = *source;
      }
      BlockArgument arg = functionArgument(v);
      if (!arg || arg.getOwner() != &func.getBody().front() ||
          !isa<MemRefType>(v.getType()))
        return std::nullopt;
      return key({arg.getArgNumber(), d});
    };
    // One loop, one size: the operands' dimensions a linalg op walks with
    // the same loop are equal.
    func.walk([&](linalg::LinalgOp op) {
      SmallVector<std::optional<uint64_t>> loopDim(op.getNumLoops());
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<MemRefType>(operand.get().getType()))
          continue;
        AffineMap map = op.getMatchingIndexingMap(&operand);
        for (auto [d, e] : llvm::enumerate(map.getResults())) {
          auto loop = dyn_cast<AffineDimExpr>(e);
          std::optional<uint64_t> dimKey =
              argumentDim(operand.get(), unsigned(d));
          if (!loop || !dimKey || !classes.contains(*dimKey))
            continue;
          uint64_t k = *dimKey;
          std::optional<uint64_t> &first = loopDim[loop.getPosition()];
          if (first)
            classes.unionSets(*first, k);
          else
            first = k;
        }
      }
    });
    llvm::DenseMap<uint64_t, std::string> names;
    MLIRContext *ctx = func.getContext();
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref || memref.hasStaticShape())
        continue;
      SmallVector<Attribute> dims;
      for (unsigned d = 0; d < memref.getRank(); ++d) {
        if (!memref.isDynamicDim(d)) {
          dims.push_back(StringAttr::get(ctx, ""));
          continue;
        }
        uint64_t leader = classes.getLeaderValue(key({unsigned(i), d}));
        auto [it, fresh] = names.try_emplace(leader, "");
        if (fresh)
          it->second = "s" + std::to_string(names.size() - 1);
        dims.push_back(StringAttr::get(ctx, it->second));
      }
      func.setArgAttr(i, kDimsAttrName, ArrayAttr::get(ctx, dims));
    }
  });
}

void tirx::forwardResultCopies(ModuleOp module) {
  SmallVector<linalg::CopyOp> copies;
  module.walk([&](linalg::CopyOp copy) { copies.push_back(copy); });
  for (linalg::CopyOp copy : copies) {
    if (!copy.hasPureBufferSemantics())
      continue;
    auto alloc = copy.getInputs()[0].getDefiningOp<memref::AllocOp>();
    auto out = dyn_cast<BlockArgument>(copy.getOutputs()[0]);
    if (!alloc || !out || !out.hasOneUse() ||
        alloc.getType() != out.getType() ||
        alloc->getBlock() != copy->getBlock() ||
        !out.getOwner()->isEntryBlock() ||
        !isa<FunctionOpInterface>(out.getOwner()->getParentOp()))
      continue;
    // Nothing but a dealloc may use the allocation after the copy.
    SmallVector<Operation *> deallocs;
    bool safe = true;
    for (Operation *user : alloc->getUsers()) {
      if (user == copy)
        continue;
      if (isa<memref::DeallocOp>(user)) {
        deallocs.push_back(user);
        continue;
      }
      Operation *inBlock = copy->getBlock()->findAncestorOpInBlock(*user);
      if (!inBlock || !inBlock->isBeforeInBlock(copy))
        safe = false;
    }
    if (!safe)
      continue;
    for (Operation *d : deallocs)
      d->erase();
    copy->erase();
    alloc.getResult().replaceAllUsesWith(out);
    alloc->erase();
  }
}
