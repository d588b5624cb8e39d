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
#include "tirx/Dialect/TIRx/Transforms/Sizes.h"
#include "tirx/Support/Refusal.h"

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Analysis/Presburger/IntegerRelation.h"
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
#include "llvm/Support/MathExtras.h"

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

// Interval arithmetic that says "unknown" rather than wrap around: a range
// that overflowed int64 would look small and in bounds.
std::optional<Range> addRanges(Range a, Range b) {
  Range r;
  if (llvm::AddOverflow(a.lo, b.lo, r.lo) || llvm::AddOverflow(a.hi, b.hi, r.hi))
    return std::nullopt;
  return r;
}
std::optional<Range> subRanges(Range a, Range b) {
  Range r;
  if (llvm::SubOverflow(a.lo, b.hi, r.lo) || llvm::SubOverflow(a.hi, b.lo, r.hi))
    return std::nullopt;
  return r;
}
std::optional<Range> scaleRange(Range a, int64_t c) { // c >= 0
  Range r;
  if (llvm::MulOverflow(a.lo, c, r.lo) || llvm::MulOverflow(a.hi, c, r.hi))
    return std::nullopt;
  return r;
}

/// a floordiv c and a mod c for a non-negative range and c > 0 (what
/// delinearizing an index makes): the quotients' range, and the remainders'
/// (exact while the range stays within one period of c).
std::optional<Range> divRange(Range a, int64_t c) {
  if (c <= 0 || a.lo < 0)
    return std::nullopt;
  return Range{a.lo / c, a.hi / c};
}
std::optional<Range> modRange(Range a, int64_t c) {
  if (c <= 0 || a.lo < 0)
    return std::nullopt;
  if (a.lo / c == a.hi / c)
    return Range{a.lo % c, a.hi % c};
  return Range{0, c - 1};
}

/// An affine expression's range from its operands' ranges (sums, products
/// by non-negative constants, floordiv and mod by positive constants of
/// non-negative ranges; anything else is unknown).
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
      return addRanges(*a, *b);
  }
  if (e.getKind() == AffineExprKind::Mul)
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      if (c.getValue() >= 0)
        if (auto a = exprRange(solver, bin.getLHS(), dims, syms, at, depth))
          return scaleRange(*a, c.getValue());
  if (e.getKind() == AffineExprKind::FloorDiv ||
      e.getKind() == AffineExprKind::Mod)
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      if (auto a = exprRange(solver, bin.getLHS(), dims, syms, at, depth))
        return e.getKind() == AffineExprKind::FloorDiv
                   ? divRange(*a, c.getValue())
                   : modRange(*a, c.getValue());
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
        return addRanges(*a, *b);
    } else if (auto sub = dyn_cast<arith::SubIOp>(op)) {
      auto a = valueRange(solver, sub.getLhs(), at, depth + 1);
      auto b = valueRange(solver, sub.getRhs(), at, depth + 1);
      if (a && b)
        return subRanges(*a, *b);
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
          std::optional<Range> scaled = scaleRange(*r, stride);
          std::optional<Range> sum =
              scaled ? addRanges(total, *scaled) : std::nullopt;
          if (!sum || (i > 0 && llvm::MulOverflow(
                                    stride, basis[basis.size() - (n - i)],
                                    stride))) {
            known = false;
            break;
          }
          total = *sum;
        }
        if (known)
          return total;
      }
    } else if (auto delin = dyn_cast<affine::AffineDelinearizeIndexOp>(op)) {
      // Result i is (x floordiv stride_i) mod basis_i, stride_i the product
      // of the basis after it; result 0 is x floordiv stride_0 (an outer
      // bound is not applied). Static bases only.
      ArrayRef<int64_t> basis = delin.getStaticBasis();
      unsigned i = cast<OpResult>(v).getResultNumber();
      unsigned n = delin.getNumResults();
      auto x = valueRange(solver, delin.getLinearIndex(), at, depth + 1);
      if (x && basis.size() + 1 >= n &&
          llvm::none_of(basis.take_back(n - 1), ShapedType::isDynamic)) {
        ArrayRef<int64_t> inner = basis.take_back(n - 1); // bases of 1..n-1
        int64_t stride = 1;
        bool fits = true;
        for (unsigned j = i; j + 1 < n && fits; ++j)
          fits = !llvm::MulOverflow(stride, inner[j], stride);
        if (fits) {
          std::optional<Range> q = divRange(*x, stride);
          if (q && i == 0)
            return q;
          if (q)
            if (auto r = modRange(*q, inner[i - 1]))
              return r;
        }
      }
    } else if (isa<arith::DivUIOp, arith::RemUIOp, arith::FloorDivSIOp,
                   arith::DivSIOp, arith::RemSIOp>(op) &&
               (v.getType().isIndex() ||
                v.getType().isSignlessInteger(64))) {
      // By a positive constant, of a non-negative range (64-bit values: the
      // ranges here do not model a narrower type's wrap-around).
      auto c = getConstantIntValue(op->getOperand(1));
      auto a = valueRange(solver, op->getOperand(0), at, depth + 1);
      if (c && a) {
        std::optional<Range> r = isa<arith::RemUIOp, arith::RemSIOp>(op)
                                     ? modRange(*a, *c)
                                     : divRange(*a, *c);
        if (r)
          return r;
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
          return scaleRange(*a, *c);
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

//===----------------------------------------------------------------------===//
// The proof by integer constraints
//===----------------------------------------------------------------------===//

/// Where intervals are too coarse (a tile of size min(T, N - i * T), or a
/// guard `i < 976` that decides which tile runs), the access is proven by
/// Presburger arithmetic: the index is linear in some atoms (thread and
/// block ids, loop variables, min/max results); the atoms are bounded by
/// their ranges, their loops' bounds, and the conditions of the scf.if
/// branches the access lies in; the access is in bounds when no integer
/// point satisfies those constraints and lies outside the buffer.
class GuardedBounds {
public:
  GuardedBounds(DataFlowSolver &solver, Operation *at) : solver(solver) {
    for (Operation *p = at; p; p = p->getParentOp()) {
      Region *region = p->getParentRegion();
      auto branch = dyn_cast_or_null<scf::IfOp>(p->getParentOp());
      if (branch && region)
        addCondition(branch.getCondition(),
                     region == &branch.getThenRegion(), 0);
    }
  }

  /// Whether `index + [0, span]` lies in [0, extent) wherever `at` runs.
  bool proves(Value index, int64_t span, int64_t extent) {
    return proves(index, span, constant(extent));
  }

  /// The same for an extent known at run time: the size `name`
  /// (tirx.dims), whatever value it takes.
  bool proves(Value index, int64_t span, StringRef name) {
    return proves(index, span, column(sizeAtom(name)));
  }

private:
  struct Lin {
    llvm::SmallDenseMap<unsigned, int64_t, 8> c;
    int64_t k = 0;
  };
  static Lin constant(int64_t k) {
    Lin l;
    l.k = k;
    return l;
  }
  static Lin column(unsigned col) {
    Lin l;
    l.c[col] = 1;
    return l;
  }
  static Lin scale(const Lin &a, int64_t f) {
    Lin r;
    for (auto [col, v] : a.c)
      r.c[col] = v * f;
    r.k = a.k * f;
    return r;
  }
  static Lin add(const Lin &a, const Lin &b, int64_t f = 1) {
    Lin r = a;
    for (auto [col, v] : b.c)
      r.c[col] += v * f;
    r.k += b.k * f;
    return r;
  }
  static bool isConstant(const Lin &a) {
    return llvm::all_of(a.c, [](auto e) { return e.second == 0; });
  }

  bool proves(Value index, int64_t span, const Lin &extent) {
    std::optional<Lin> i = linearize(index, 0);
    if (!i)
      return false;
    Lin below = scale(*i, -1); // -index - 1 >= 0: index < 0
    below.k -= 1;
    Lin above = add(*i, extent, -1); // index + span - extent >= 0
    above.k += span;
    return infeasibleWith(below) && infeasibleWith(above);
  }

  /// The column of a run-time size: one per name, so that the rows of x
  /// and of the result that tirx.dims call one size are one value; at
  /// least 1.
  unsigned sizeAtom(StringRef name) {
    auto it = sizes.find(name);
    if (it != sizes.end())
      return it->second;
    unsigned col = fresh();
    sizes[name] = col;
    atLeastZero(add(column(col), constant(1), -1));
    return col;
  }

  /// A block or thread id of the launch around it, and the launch's
  /// count of them along that dimension (the grid may be a run-time size).
  std::optional<std::pair<OpFoldResult, bool>> launchBound(Value v) {
    auto bounded = [](gpu::LaunchOp launch, gpu::Dimension d,
                      bool block) -> OpFoldResult {
      gpu::KernelDim3 size = block ? launch.getGridSizeOperandValues()
                                   : launch.getBlockSizeOperandValues();
      return d == gpu::Dimension::x ? size.x
             : d == gpu::Dimension::y ? size.y
                                      : size.z;
    };
    if (auto id = v.getDefiningOp<gpu::BlockIdOp>())
      if (auto launch = id->getParentOfType<gpu::LaunchOp>())
        return std::make_pair(bounded(launch, id.getDimension(), true), false);
    if (auto id = v.getDefiningOp<gpu::ThreadIdOp>())
      if (auto launch = id->getParentOfType<gpu::LaunchOp>())
        return std::make_pair(bounded(launch, id.getDimension(), false),
                              false);
    if (auto arg = dyn_cast<BlockArgument>(v))
      if (auto launch = dyn_cast<gpu::LaunchOp>(arg.getOwner()->getParentOp()))
        if (arg.getOwner() == &launch.getBody().front() &&
            arg.getArgNumber() < 12) {
          unsigned n = arg.getArgNumber();
          auto d = static_cast<gpu::Dimension>(n % 3);
          // Block ids, thread ids, grid sizes, block sizes.
          return std::make_pair(bounded(launch, d, n < 3 || (n >= 6 && n < 9)),
                                n >= 6);
        }
    return std::nullopt;
  }

  unsigned fresh() { return numCols++; }
  void atLeastZero(Lin l) { ineqs.push_back(std::move(l)); }
  void isZero(Lin l) { eqs.push_back(std::move(l)); }

  /// A column for a value that is not linear in others, with what bounds
  /// it: its range, and for a loop variable its loop's bounds.
  unsigned atom(Value v, unsigned depth) {
    auto it = atoms.find(v);
    if (it != atoms.end())
      return it->second;
    unsigned col = fresh();
    atoms[v] = col;
    Lin x = column(col);
    if (auto *lattice =
            solver.lookupState<dataflow::IntegerValueRangeLattice>(v))
      if (!lattice->getValue().isUninitialized()) {
        const ConstantIntRanges &r = lattice->getValue().getValue();
        int64_t lo = r.smin().getSExtValue(), hi = r.smax().getSExtValue();
        constexpr int64_t kHuge = int64_t(1) << 48;
        if (lo > -kHuge)
          atLeastZero(add(x, constant(lo), -1));
        if (hi < kHuge)
          atLeastZero(add(constant(hi), x, -1));
      }
    if (depth > 16)
      return col;
    auto bound = [&](OpFoldResult lb, OpFoldResult ub, OpFoldResult step) {
      // A null lb: 0 (ids), a null step: 1.
      std::optional<Lin> l =
          lb ? linearize(lb, depth + 1) : std::optional<Lin>(constant(0));
      std::optional<Lin> u = linearize(ub, depth + 1);
      if (l)
        atLeastZero(add(x, *l, -1)); // x >= lb
      if (u) {
        Lin r = add(*u, x, -1); // ub - x - 1 >= 0
        r.k -= 1;
        atLeastZero(r);
      }
      std::optional<int64_t> s =
          step ? getConstantIntValue(step) : std::optional<int64_t>(1);
      if (l && s && *s > 1) { // x = lb + s * q
        unsigned q = fresh();
        atLeastZero(column(q));
        isZero(add(add(x, *l, -1), column(q), -*s));
      }
    };
    if (std::optional<std::pair<OpFoldResult, bool>> launch = launchBound(v)) {
      if (launch->second) { // the launch's size itself
        if (std::optional<Lin> size = linearize(launch->first, depth + 1))
          isZero(add(x, *size, -1));
      } else {
        bound(OpFoldResult(IntegerAttr()), launch->first, OpFoldResult());
      }
      return col;
    }
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (auto loop = dyn_cast<scf::ForOp>(owner)) {
        if (loop.getInductionVar() == arg)
          bound(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
      } else if (auto forall = dyn_cast<scf::ForallOp>(owner)) {
        unsigned i = arg.getArgNumber();
        if (i < forall.getRank())
          bound(forall.getMixedLowerBound()[i], forall.getMixedUpperBound()[i],
                forall.getMixedStep()[i]);
      }
    } else if (Operation *op = v.getDefiningOp()) {
      // min(a, b) <= a, b; max(a, b) >= a, b.
      if (isa<affine::AffineMinOp, affine::AffineMaxOp>(op)) {
        bool isMin = isa<affine::AffineMinOp>(op);
        AffineMap map = isMin ? cast<affine::AffineMinOp>(op).getAffineMap()
                              : cast<affine::AffineMaxOp>(op).getAffineMap();
        for (AffineExpr e : map.getResults())
          if (std::optional<Lin> r =
                  linearizeExpr(e, op->getOperands(), map.getNumDims(),
                                depth + 1))
            atLeastZero(isMin ? add(*r, x, -1) : add(x, *r, -1));
      } else if (isa<arith::MinSIOp, arith::MinUIOp, arith::MaxSIOp,
                     arith::MaxUIOp>(op)) {
        bool isMin = isa<arith::MinSIOp, arith::MinUIOp>(op);
        for (Value operand : op->getOperands())
          if (std::optional<Lin> r = linearize(operand, depth + 1))
            atLeastZero(isMin ? add(*r, x, -1) : add(x, *r, -1));
      }
    }
    return col;
  }

  /// floor(a / d) as a new column q: d * q <= a <= d * q + d - 1.
  Lin floorDiv(const Lin &a, int64_t d) {
    unsigned q = fresh();
    atLeastZero(add(a, column(q), -d));
    Lin upper = add(scale(column(q), d), a, -1); // d*q + d - 1 - a >= 0
    upper.k += d - 1;
    atLeastZero(upper);
    return column(q);
  }

  std::optional<Lin> linearizeExpr(AffineExpr e, ValueRange operands,
                                   unsigned numDims, unsigned depth) {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return constant(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return linearize(operands[d.getPosition()], depth + 1);
    if (auto s = dyn_cast<AffineSymbolExpr>(e))
      return linearize(operands[numDims + s.getPosition()], depth + 1);
    auto bin = cast<AffineBinaryOpExpr>(e);
    std::optional<Lin> a = linearizeExpr(bin.getLHS(), operands, numDims, depth);
    std::optional<Lin> b = linearizeExpr(bin.getRHS(), operands, numDims, depth);
    if (!a || !b)
      return std::nullopt;
    switch (e.getKind()) {
    case AffineExprKind::Add:
      return add(*a, *b);
    case AffineExprKind::Mul:
      if (isConstant(*b))
        return scale(*a, b->k);
      if (isConstant(*a))
        return scale(*b, a->k);
      return std::nullopt;
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
    case AffineExprKind::Mod: {
      if (!isConstant(*b) || b->k <= 0)
        return std::nullopt;
      int64_t d = b->k;
      if (e.getKind() == AffineExprKind::CeilDiv) {
        Lin shifted = *a;
        shifted.k += d - 1;
        return floorDiv(shifted, d);
      }
      Lin q = floorDiv(*a, d);
      return e.getKind() == AffineExprKind::FloorDiv ? q
                                                     : add(*a, q, -d);
    }
    default:
      return std::nullopt;
    }
  }

  std::optional<Lin> linearize(OpFoldResult ofr, unsigned depth) {
    if (std::optional<int64_t> c = getConstantIntValue(ofr))
      return constant(*c);
    if (auto v = dyn_cast<Value>(ofr))
      return linearize(v, depth);
    return std::nullopt;
  }

  std::optional<Lin> linearize(Value v, unsigned depth) {
    if (depth > 32)
      return std::nullopt;
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return constant(*c);
    Operation *op = v.getDefiningOp();
    if (auto addOp = dyn_cast_or_null<arith::AddIOp>(op)) {
      auto a = linearize(addOp.getLhs(), depth + 1);
      auto b = linearize(addOp.getRhs(), depth + 1);
      if (a && b)
        return add(*a, *b);
    } else if (auto sub = dyn_cast_or_null<arith::SubIOp>(op)) {
      auto a = linearize(sub.getLhs(), depth + 1);
      auto b = linearize(sub.getRhs(), depth + 1);
      if (a && b)
        return add(*a, *b, -1);
    } else if (auto mul = dyn_cast_or_null<arith::MulIOp>(op)) {
      auto a = linearize(mul.getLhs(), depth + 1);
      auto b = linearize(mul.getRhs(), depth + 1);
      if (a && b && isConstant(*b))
        return scale(*a, b->k);
      if (a && b && isConstant(*a))
        return scale(*b, a->k);
    } else if (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp,
                                arith::ExtSIOp, arith::ExtUIOp>(op)) {
      return linearize(op->getOperand(0), depth + 1);
    } else if (auto apply = dyn_cast_or_null<affine::AffineApplyOp>(op)) {
      AffineMap map = apply.getAffineMap();
      return linearizeExpr(map.getResult(0), apply.getMapOperands(),
                           map.getNumDims(), depth);
    } else if (auto lin =
                   dyn_cast_or_null<affine::AffineLinearizeIndexOp>(op)) {
      ValueRange indices = lin.getMultiIndex();
      ArrayRef<int64_t> basis = lin.getStaticBasis();
      size_t n = indices.size();
      if (n > 0 && basis.size() + 1 >= n &&
          llvm::none_of(basis.take_back(n - 1), ShapedType::isDynamic)) {
        Lin total;
        int64_t stride = 1;
        for (size_t i = n; i-- > 0;) {
          auto r = linearize(indices[i], depth + 1);
          if (!r)
            return std::nullopt;
          total = add(total, scale(*r, stride));
          if (i > 0)
            stride *= basis[basis.size() - (n - i)];
        }
        return total;
      }
    }
    if (std::optional<std::string> size = tirx::sizeOfDim(v))
      return column(sizeAtom(*size));
    return column(atom(v, depth));
  }

  /// The branch condition `cond` is `holds` where the access is.
  void addCondition(Value cond, bool holds, unsigned depth) {
    if (depth > 8)
      return;
    if (getConstantIntValue(cond))
      return;
    Operation *op = cond.getDefiningOp();
    if (auto andOp = dyn_cast_or_null<arith::AndIOp>(op)) {
      if (holds) {
        addCondition(andOp.getLhs(), true, depth + 1);
        addCondition(andOp.getRhs(), true, depth + 1);
      }
      return;
    }
    if (auto orOp = dyn_cast_or_null<arith::OrIOp>(op)) {
      if (!holds) {
        addCondition(orOp.getLhs(), false, depth + 1);
        addCondition(orOp.getRhs(), false, depth + 1);
      }
      return;
    }
    if (auto xorOp = dyn_cast_or_null<arith::XOrIOp>(op)) {
      std::optional<int64_t> one = getConstantIntValue(xorOp.getRhs());
      if (one && *one != 0)
        addCondition(xorOp.getLhs(), !holds, depth + 1);
      return;
    }
    auto cmp = dyn_cast_or_null<arith::CmpIOp>(op);
    if (!cmp || !cmp.getLhs().getType().isIntOrIndex())
      return;
    using P = arith::CmpIPredicate;
    P p = holds ? cmp.getPredicate()
                : arith::invertPredicate(cmp.getPredicate());
    // Unsigned comparisons are signed ones where both sides are known
    // non-negative.
    bool isUnsigned = p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
    auto nonNegative = [&](Value x) {
      if (std::optional<int64_t> c = getConstantIntValue(x))
        return *c >= 0;
      auto *l = solver.lookupState<dataflow::IntegerValueRangeLattice>(x);
      return l && !l->getValue().isUninitialized() &&
             l->getValue().getValue().smin().isNonNegative();
    };
    if (isUnsigned && !(nonNegative(cmp.getLhs()) && nonNegative(cmp.getRhs())))
      return;
    std::optional<Lin> a = linearize(cmp.getLhs(), depth + 1);
    std::optional<Lin> b = linearize(cmp.getRhs(), depth + 1);
    if (!a || !b)
      return;
    Lin d = add(*a, *b, -1); // lhs - rhs
    switch (p) {
    case P::slt:
    case P::ult: { // rhs - lhs - 1 >= 0
      Lin r = scale(d, -1);
      r.k -= 1;
      atLeastZero(r);
      break;
    }
    case P::sle:
    case P::ule:
      atLeastZero(scale(d, -1));
      break;
    case P::sgt:
    case P::ugt:
      d.k -= 1;
      atLeastZero(d);
      break;
    case P::sge:
    case P::uge:
      atLeastZero(d);
      break;
    case P::eq:
      isZero(d);
      break;
    case P::ne:
      break;
    }
  }

  SmallVector<int64_t> row(const Lin &l) const {
    SmallVector<int64_t> r(numCols + 1, 0);
    for (auto [col, v] : l.c)
      r[col] = v;
    r[numCols] = l.k;
    return r;
  }

  /// Whether the constraints with `extra >= 0` have no integer point.
  bool infeasibleWith(const Lin &extra) {
    presburger::IntegerPolyhedron set(
        presburger::PresburgerSpace::getSetSpace(numCols));
    for (const Lin &l : ineqs)
      set.addInequality(row(l));
    for (const Lin &l : eqs)
      set.addEquality(row(l));
    set.addInequality(row(extra));
    return set.isEmpty();
  }

  DataFlowSolver &solver;
  llvm::DenseMap<Value, unsigned> atoms;
  llvm::StringMap<unsigned> sizes;
  SmallVector<Lin> ineqs, eqs;
  unsigned numCols = 0;
};

/// Whether `v` is computed from a value read from memory (a gather's index:
/// no range analysis can bound it).
bool readFromMemory(Value v, llvm::DenseSet<Value> &seen,
                    unsigned depth = 0) {
  Operation *op = v.getDefiningOp();
  if (!op || depth > 16 || !seen.insert(v).second)
    return false;
  if (isa<memref::LoadOp, vector::LoadOp>(op))
    return true;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return readFromMemory(operand, seen, depth + 1);
  });
}
bool readFromMemory(Value v) {
  llvm::DenseSet<Value> seen;
  return readFromMemory(v, seen);
}

/// The size (tirx.dims) of dimension `d` of `base`, a function's buffer
/// argument or a collapsed view of one, or "".
std::string sizeOfBuffer(Value base, unsigned d) {
  return tirx::sizeOfBufferDim(base, d).value_or("");
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
          bool intervalFails =
              !r || r->lo < 0 || r->hi > extent - 1 - span;
          if (ShapedType::isDynamic(extent)) {
            // A run-time size: proven for every value it may take.
            std::string size = sizeOfBuffer(a.base, d);
            if (size.empty())
              problem = "dimension " + std::to_string(d) +
                        " has a run-time size no tirx.dims names";
            else if (!GuardedBounds(solver, a.op).proves(index, span, size))
              problem = "index " + std::to_string(d) +
                        " is not proven below the run-time size " + size +
                        " (dimension " + std::to_string(d) + ")";
          } else if (intervalFails &&
                   GuardedBounds(solver, a.op).proves(index, span, extent))
            problem.clear(); // proven under the guards around the access
          else if (!r)
            problem = "index " + std::to_string(d) + " has no known range";
          else if (r->lo < 0 || r->hi > extent - 1 - span)
            problem = "index " + std::to_string(d) + " lies in [" +
                      std::to_string(r->lo) + ", " +
                      std::to_string(r->hi + span) +
                      "], outside dimension " + std::to_string(d) +
                      " of size " + std::to_string(extent);
          if (!problem.empty()) {
            // Report at the payload's op: the copy keeps its locations.
            bool gathered = readFromMemory(index);
            if (gathered)
              problem += " (the index is read from memory: a gather)";
            Refusal refusal(
                RefusalCode::unsafe_bounds, what + ": " + problem,
                gathered
                    ? "clamp the index read from memory to the buffer "
                      "(arith.maxsi with 0, arith.minsi with the extent - 1) "
                      "or guard the access with scf.if: its range is then "
                      "proven"
                    : "keep every index within its buffer: tile sizes "
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
