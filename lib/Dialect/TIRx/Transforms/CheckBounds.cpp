//===- CheckBounds.cpp - tirx-check-bounds ----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A kernel that writes outside its buffers corrupts memory silently on some
// inputs and not others. This pass proves every access in bounds, or says
// which one it cannot.
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/Access.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Support/Refusal.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXCHECKBOUNDS
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;
using namespace mlir::tirx;

namespace {
struct Range {
  int64_t lo, hi;
};

std::optional<Range> solverRange(DataFlowSolver &solver, Value v) {
  auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(v);
  if (!lattice || lattice->getValue().isUninitialized())
    return std::nullopt;
  const ConstantIntRanges &r = lattice->getValue().getValue();
  return Range{r.smin().getSExtValue(), r.smax().getSExtValue()};
}

std::optional<Range> valueRange(DataFlowSolver &solver, Value v,
                                Operation *at, unsigned depth);

/// An affine expression's range from its operands' ranges (sums and
/// products by non-negative constants; anything else is unknown).
std::optional<Range> exprRange(DataFlowSolver &solver, AffineExpr e,
                               ValueRange dims, ValueRange syms, Operation *at,
                               unsigned depth) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return Range{c.getValue(), c.getValue()};
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return valueRange(solver, dims[d.getPosition()], at, depth + 1);
  if (auto s = dyn_cast<AffineSymbolExpr>(e))
    return valueRange(solver, syms[s.getPosition()], at, depth + 1);
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  if (e.getKind() == AffineExprKind::Add) {
    auto a = exprRange(solver, bin.getLHS(), dims, syms, at, depth);
    auto b = exprRange(solver, bin.getRHS(), dims, syms, at, depth);
    if (a && b)
      return Range{a->lo + b->lo, a->hi + b->hi};
  }
  if (e.getKind() == AffineExprKind::Mul)
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      if (c.getValue() >= 0)
        if (auto a = exprRange(solver, bin.getLHS(), dims, syms, at, depth))
          return Range{a->lo * c.getValue(), a->hi * c.getValue()};
  return std::nullopt;
}

/// Ranges the analysis gets too wide: an scf.for variable only takes
/// lb + k * step, so its largest value is below ub by up to step - 1.
std::optional<Range> valueRangeImpl(DataFlowSolver &solver, Value v,
                                    Operation *at, unsigned depth) {
  if (depth > 32)
    return solverRange(solver, v);
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      if (loop.getInductionVar() == arg) {
        auto lb = getConstantIntValue(loop.getLowerBound());
        auto ub = getConstantIntValue(loop.getUpperBound());
        auto step = getConstantIntValue(loop.getStep());
        if (lb && ub && step && *step > 0 && *ub > *lb)
          return Range{*lb, *lb + ((*ub - *lb - 1) / *step) * *step};
      }
  if (Operation *op = v.getDefiningOp()) {
    if (auto add = dyn_cast<arith::AddIOp>(op)) {
      auto a = valueRange(solver, add.getLhs(), at, depth + 1);
      auto b = valueRange(solver, add.getRhs(), at, depth + 1);
      if (a && b)
        return Range{a->lo + b->lo, a->hi + b->hi};
    } else if (auto sub = dyn_cast<arith::SubIOp>(op)) {
      auto a = valueRange(solver, sub.getLhs(), at, depth + 1);
      auto b = valueRange(solver, sub.getRhs(), at, depth + 1);
      if (a && b)
        return Range{a->lo - b->hi, a->hi - b->lo};
    } else if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
      AffineMap map = apply.getAffineMap();
      ValueRange operands = apply.getMapOperands();
      if (auto r = exprRange(solver, map.getResult(0),
                             operands.take_front(map.getNumDims()),
                             operands.drop_front(map.getNumDims()), at,
                             depth))
        return r;
    } else if (auto lin = dyn_cast<affine::AffineLinearizeIndexOp>(op)) {
      // sum index_i * stride_i, strides from the static basis (the last
      // n - 1 entries; an outer bound, if any, only bounds index 0).
      ValueRange indices = lin.getMultiIndex();
      ArrayRef<int64_t> basis = lin.getStaticBasis();
      size_t n = indices.size();
      if (n > 0 && basis.size() + 1 >= n &&
          llvm::none_of(basis.take_back(n - 1), ShapedType::isDynamic)) {
        Range total{0, 0};
        int64_t stride = 1;
        bool known = true;
        for (size_t i = n; i-- > 0;) {
          auto r = valueRange(solver, indices[i], at, depth + 1);
          if (!r) {
            known = false;
            break;
          }
          total.lo += r->lo * stride;
          total.hi += r->hi * stride;
          if (i > 0)
            stride *= basis[basis.size() - (n - i)];
        }
        if (known)
          return total;
      }
    } else if (auto mul = dyn_cast<arith::MulIOp>(op)) {
      auto c = getConstantIntValue(mul.getRhs());
      Value other = mul.getLhs();
      if (!c) {
        c = getConstantIntValue(mul.getLhs());
        other = mul.getRhs();
      }
      if (c && *c >= 0)
        if (auto a = valueRange(solver, other, at, depth + 1))
          return Range{a->lo * *c, a->hi * *c};
    }
  }
  return solverRange(solver, v);
}

/// `range`, tightened by the `scf.if (v < bound)` guards around `at`: a
/// forall with fewer iterations than threads is guarded so (thread ids,
/// and values computed from them, stay below the bound inside).
Range tightened(DataFlowSolver &solver, Value v, Operation *at, Range range) {
  if (!at)
    return range;
  for (auto guard = at->getParentOfType<scf::IfOp>(); guard;
       guard = guard->getParentOfType<scf::IfOp>()) {
    if (!guard.getThenRegion().isAncestor(at->getParentRegion()))
      continue;
    auto cmp = guard.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      continue;
    auto bound = [&](Value b) -> std::optional<int64_t> {
      auto *l = solver.lookupState<dataflow::IntegerValueRangeLattice>(b);
      if (!l || l->getValue().isUninitialized())
        return std::nullopt;
      return l->getValue().getValue().smax().getSExtValue();
    };
    using P = arith::CmpIPredicate;
    if (cmp.getLhs() == v &&
        (cmp.getPredicate() == P::slt || cmp.getPredicate() == P::ult))
      if (auto b = bound(cmp.getRhs()))
        range.hi = std::min(range.hi, *b - 1);
    if (cmp.getRhs() == v &&
        (cmp.getPredicate() == P::sgt || cmp.getPredicate() == P::ugt))
      if (auto b = bound(cmp.getLhs()))
        range.hi = std::min(range.hi, *b - 1);
  }
  return range;
}

std::optional<Range> valueRange(DataFlowSolver &solver, Value v,
                                Operation *at, unsigned depth) {
  std::optional<Range> r = valueRangeImpl(solver, v, at, depth);
  if (!r)
    return r;
  return tightened(solver, v, at, *r);
}

/// The range of an index value at the access `at`, every value it is
/// computed from tightened by the guards around `at`.
std::optional<Range> rangeOf(DataFlowSolver &solver, Value v, Operation *at) {
  return valueRange(solver, v, at, 0);
}

struct CheckBoundsPass
    : public mlir::tirx::impl::TIRxCheckBoundsBase<CheckBoundsPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildAnalysisFormPipeline(pm);
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OwningOpRef<ModuleOp> copy = module.clone();
    {
      // CSE (in the analysis form) lets guards and accesses share an index.
      PassManager pm(&getContext(), ModuleOp::getOperationName());
      buildAnalysisFormPipeline(pm);
      if (failed(pm.run(*copy))) {
        module.emitError() << "tirx-check-bounds: the payload could not be "
                              "prepared for the analysis";
        return signalPassFailure();
      }
    }
    DataFlowSolver solver;
    dataflow::loadBaselineAnalyses(solver);
    solver.load<dataflow::IntegerRangeAnalysis>();
    if (failed(solver.initializeAndRun(*copy))) {
      module.emitError() << "tirx-check-bounds: the range analysis failed";
      return signalPassFailure();
    }
    bool allProven = true;
    copy->walk([&](Operation *kernel) {
      if (!isa<gpu::LaunchOp, gpu::GPUFuncOp>(kernel))
        return WalkResult::advance();
      for (const AccessInfo &a : collectAccesses(kernel)) {
        auto memref = dyn_cast<MemRefType>(a.base.getType());
        ValueRange indices;
        if (auto l = dyn_cast<memref::LoadOp>(a.op))
          indices = l.getIndices();
        else if (auto s = dyn_cast<memref::StoreOp>(a.op))
          indices = s.getIndices();
        else if (auto l = dyn_cast<vector::LoadOp>(a.op))
          indices = l.getIndices();
        else if (auto s = dyn_cast<vector::StoreOp>(a.op))
          indices = s.getIndices();
        else if (auto l = dyn_cast<nvgpu::LdMatrixOp>(a.op))
          indices = l.getIndices();
        else if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(a.op))
          indices = a.isStore ? c.getDstIndices() : c.getSrcIndices();
        else
          continue;
        std::string what = std::string(a.isStore ? "store to " : "load of ") +
                           irPath(a.op);
        for (auto [d, index] : llvm::enumerate(indices)) {
          int64_t extent = memref.getDimSize(d);
          int64_t span = d + 1 == indices.size() ? int64_t(a.width) - 1 : 0;
          std::optional<Range> r = rangeOf(solver, index, a.op);
          std::string problem;
          if (ShapedType::isDynamic(extent))
            problem = "dimension " + std::to_string(d) + " has no static size";
          else if (!r)
            problem = "index " + std::to_string(d) + " has no known range";
          else if (r->lo < 0 || r->hi + span > extent - 1)
            problem = "index " + std::to_string(d) + " lies in [" +
                      std::to_string(r->lo) + ", " +
                      std::to_string(r->hi + span) +
                      "], outside dimension " + std::to_string(d) +
                      " of size " + std::to_string(extent);
          if (!problem.empty()) {
            // Report at the payload's op: the copy keeps its locations.
            Refusal refusal(RefusalCode::unsafe_bounds,
                            what + ": " + problem,
                            "keep every index within its buffer: tile sizes "
                            "that divide the extents, or guards on the tails");
            refusal.location = locationText(a.op->getLoc());
            reportRefusal(a.op->getContext(), refusal);
            emitError(a.op->getLoc())
                << "unsafe_bounds: " << refusal.message;
            allProven = false;
            break;
          }
        }
      }
      return WalkResult::skip();
    });
    if (!allProven)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
