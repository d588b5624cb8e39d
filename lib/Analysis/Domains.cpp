//===- Domains.cpp - which inputs a payload needs nonnegative -------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A backward proof from each operand that must be nonnegative: each step
// is a rule whose premises are nonnegative values (sign-preserving ops),
// down to values proven nonnegative outright (constants, squares, exp) and
// to the function's arguments, the assumptions the proof needs. A step no
// rule covers fails the whole proof: then no argument is marked for that
// operand, since drawing some of them from [0, 1) would not keep it
// nonnegative.
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/Domains.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using mlir::tirx::kDomainAttrName;
namespace rt = ::tirx::runtime;

FailureOr<std::optional<rt::Domain>>
mlir::tirx::declaredDomain(FunctionOpInterface func, unsigned index,
                           std::string &problem) {
  Attribute attr = func.getArgAttr(index, kDomainAttrName);
  if (!attr)
    return std::optional<rt::Domain>();
  auto print = [](auto printable) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << printable;
    return s;
  };
  auto name = dyn_cast<StringAttr>(attr);
  std::optional<rt::Domain> domain =
      name ? rt::parseDomain(name.str()) : std::nullopt;
  if (!domain) {
    problem = "its tirx.domain is " + print(attr) +
              "; expected \"signed_unit\" or \"nonnegative\"";
    return failure();
  }
  Type type = func.getArgumentTypes()[index];
  if (!isa<TensorType, MemRefType>(type)) {
    problem = "tirx.domain is for buffers (a tensor or memref of floats); "
              "this argument is the scalar '" +
              print(type) + "'";
    return failure();
  }
  if (!isa<FloatType>(cast<ShapedType>(type).getElementType())) {
    problem = "tirx.domain is for buffers of floats; this argument is '" +
              print(type) + "'";
    return failure();
  }
  return domain;
}

namespace {
/// The value of a float constant, scalar or splat.
std::optional<APFloat> scalarConstant(Value v) {
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return std::nullopt;
  Attribute value = constant.getValue();
  if (auto f = dyn_cast<FloatAttr>(value))
    return f.getValue();
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value);
      dense && dense.isSplat())
    return dense.getSplatValue<APFloat>();
  return std::nullopt;
}

/// Whether every element of a float constant is nonnegative (-0 included,
/// NaN not).
bool nonnegativeConstant(Value v) {
  auto nonnegative = [](const APFloat &x) {
    return !x.isNaN() && (!x.isNegative() || x.isZero());
  };
  if (std::optional<APFloat> x = scalarConstant(v))
    return nonnegative(*x);
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  auto dense =
      constant ? dyn_cast<DenseFPElementsAttr>(constant.getValue()) : nullptr;
  return dense && llvm::all_of(dense.getValues<APFloat>(), nonnegative);
}

/// Whether `v` is a float constant (scalar or splat) of integral value.
bool integralConstant(Value v) {
  std::optional<APFloat> x = scalarConstant(v);
  return x && x->isInteger();
}

/// Whether `v` is a float constant of even integral value (x^2 is
/// nonnegative).
bool evenConstant(Value v) {
  std::optional<APFloat> x = scalarConstant(v);
  if (!x || !x->isInteger())
    return false;
  APFloat half = *x;
  half.divide(APFloat(x->getSemantics(), 2), APFloat::rmNearestTiesToEven);
  return half.isInteger();
}

/// Whether nothing writes the buffer `arg` or a view of it: linalg ops
/// read it as an input, loads read it, views pass it on.
bool readOnly(Value arg) {
  SmallVector<Value> buffers{arg};
  while (!buffers.empty()) {
    Value buffer = buffers.pop_back_val();
    for (OpOperand &use : buffer.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == buffer) {
        llvm::append_range(buffers, user->getResults());
        continue;
      }
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user)) {
        if (linalgOp.isDpsInput(&use))
          continue;
        return false;
      }
      if (!isa<memref::LoadOp, memref::DimOp, vector::LoadOp,
               vector::TransferReadOp>(user))
        return false;
    }
  }
  return true;
}

/// The proof. `require(v, leaves)` holds when `v`'s elements are
/// nonnegative (or NaN) whenever the arguments it adds to `leaves` are;
/// with no `leaves` it must hold outright.
class NonnegativeProof {
public:
  explicit NonnegativeProof(FunctionOpInterface func) : func(func) {}

  bool require(Value v, llvm::SetVector<unsigned> *leaves, unsigned depth = 0) {
    // A proof deeper than any front end's expression: not worth finding.
    if (depth > 64)
      return false;
    // Each value is proven once (a DAG of shared terms would otherwise take
    // exponential time). A proof that needed the induction hypothesis of a
    // value still on the way down holds only under it: kept when it failed
    // (it fails without the hypothesis too) or when leaves are collected
    // (a failure anywhere fails the whole proof, hypothesis included).
    llvm::DenseMap<Value, bool> &memo = leaves ? needs : proofs;
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    llvm::DenseSet<Value> &active = leaves ? activeNeeds : activeProofs;
    // A value met again on the way down is a reduction's accumulator: the
    // step from one iteration to the next (induction).
    if (!active.insert(v).second) {
      ++hypotheses;
      return true;
    }
    unsigned before = hypotheses;
    bool holds = requireStep(v, leaves, depth + 1);
    active.erase(v);
    if (leaves || !holds || hypotheses == before)
      memo[v] = holds;
    return holds;
  }

private:
  bool proven(Value v, unsigned depth) { return require(v, nullptr, depth); }

  /// Whether `a * b` (or `a / b`) is nonnegative given `leaves`: one
  /// operand proven outright, the other required.
  bool eitherProven(Value a, Value b, llvm::SetVector<unsigned> *leaves,
                    unsigned depth) {
    if (proven(a, depth))
      return require(b, leaves, depth);
    if (proven(b, depth))
      return require(a, leaves, depth);
    return false;
  }

  bool requireStep(Value v, llvm::SetVector<unsigned> *leaves, unsigned depth) {
    if (!isa<FloatType>(getElementTypeOrSelf(v.getType())))
      return false;
    if (auto arg = dyn_cast<BlockArgument>(v))
      return requireArgument(arg, leaves, depth);
    Operation *def = v.getDefiningOp();
    if (nonnegativeConstant(v))
      return true;
    // Nonnegative (or NaN) whatever the operands.
    if (isa<math::AbsFOp, math::ExpOp, math::Exp2Op, math::SqrtOp,
            math::RsqrtOp, arith::UIToFPOp>(def))
      return true;
    if (auto mul = dyn_cast<arith::MulFOp>(def))
      return mul.getLhs() == mul.getRhs() ||
             eitherProven(mul.getLhs(), mul.getRhs(), leaves, depth);
    if (auto div = dyn_cast<arith::DivFOp>(def))
      return div.getLhs() == div.getRhs() ||
             eitherProven(div.getLhs(), div.getRhs(), leaves, depth);
    // A sum of nonnegative terms (a reduction's accumulator and its term):
    // both required. A product's sign is that of both factors together, so
    // one factor must be proven outright.
    if (auto add = dyn_cast<arith::AddFOp>(def))
      return require(add.getLhs(), leaves, depth) &&
             require(add.getRhs(), leaves, depth);
    if (isa<arith::ExtFOp, arith::TruncFOp>(def))
      return require(def->getOperand(0), leaves, depth);
    // The larger of two values is nonnegative when one is (a ReLU); the
    // smaller when both are.
    if (isa<arith::MaximumFOp, arith::MaxNumFOp>(def))
      return proven(def->getOperand(0), depth) ||
             proven(def->getOperand(1), depth);
    if (isa<arith::MinimumFOp, arith::MinNumFOp>(def))
      return require(def->getOperand(0), leaves, depth) &&
             require(def->getOperand(1), leaves, depth);
    if (auto pow = dyn_cast<math::PowFOp>(def))
      return evenConstant(pow.getRhs()) || proven(pow.getLhs(), depth);
    // Views and element reads: their source.
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
            tensor::ExtractSliceOp, tensor::CastOp>(def))
      return require(def->getOperand(0), leaves, depth);
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      return require(view.getViewSource(), leaves, depth);
    if (auto load = dyn_cast<memref::LoadOp>(def))
      return require(load.getMemRef(), leaves, depth);
    if (auto extract = dyn_cast<tensor::ExtractOp>(def))
      return require(extract.getTensor(), leaves, depth);
    // A linalg op's result: what it yields; a reduction's, its init too.
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(def)) {
      OpOperand *init =
          linalgOp.getDpsInitOperand(cast<OpResult>(v).getResultNumber());
      return requireYield(linalgOp, init, leaves, depth) &&
             (!linalgOp.getNumReductionLoops() ||
              require(init->get(), leaves, depth));
    }
    return false;
  }

  /// The value `linalgOp` yields for `init`.
  bool requireYield(linalg::LinalgOp linalgOp, OpOperand *init,
                    llvm::SetVector<unsigned> *leaves, unsigned depth) {
    Block *body = linalgOp.getBlock();
    if (!body || !isa<linalg::YieldOp>(body->getTerminator()))
      return false;
    return require(linalgOp.getMatchingYieldValue(init)->get(), leaves, depth);
  }

  bool requireArgument(BlockArgument arg, llvm::SetVector<unsigned> *leaves,
                       unsigned depth) {
    Block *block = arg.getOwner();
    // An argument of the function: an assumption, unless declared.
    if (block == &func.getFunctionBody().front()) {
      unsigned index = arg.getArgNumber();
      std::string ignored;
      FailureOr<std::optional<rt::Domain>> declared =
          mlir::tirx::declaredDomain(func, index, ignored);
      if (failed(declared))
        return false;
      if (*declared)
        return **declared == rt::Domain::nonnegative;
      if (!leaves || !isa<TensorType, MemRefType>(arg.getType()) ||
          (isa<MemRefType>(arg.getType()) && !readOnly(arg)))
        return false;
      leaves->insert(index);
      return true;
    }
    // A linalg op's block argument: its input's element, or its init's (a
    // reduction's accumulator, which also holds every value it yields).
    auto linalgOp = dyn_cast<linalg::LinalgOp>(block->getParentOp());
    if (!linalgOp || block != linalgOp.getBlock())
      return false;
    OpOperand *operand = linalgOp.getMatchingOpOperand(arg);
    if (!operand)
      return false;
    if (linalgOp.isDpsInput(operand))
      return require(operand->get(), leaves, depth);
    return require(operand->get(), leaves, depth) &&
           (!linalgOp.getNumReductionLoops() ||
            requireYield(linalgOp, operand, leaves, depth));
  }

  FunctionOpInterface func;
  llvm::DenseSet<Value> activeNeeds, activeProofs;
  llvm::DenseMap<Value, bool> needs, proofs;
  unsigned hypotheses = 0; // times the induction hypothesis was used
};

/// The operand of `op` that must be nonnegative, if any.
std::optional<Value> restrictedOperand(Operation *op) {
  if (isa<math::SqrtOp, math::RsqrtOp, math::LogOp, math::Log2Op,
          math::Log10Op>(op))
    return op->getOperand(0);
  // A negative base is fine for an integral exponent.
  if (auto pow = dyn_cast<math::PowFOp>(op))
    if (!integralConstant(pow.getRhs()))
      return pow.getLhs();
  return std::nullopt;
}
} // namespace

SmallVector<mlir::tirx::InferredDomain>
mlir::tirx::inferNonnegativeArguments(FunctionOpInterface func) {
  SmallVector<InferredDomain> found;
  if (func.isExternal())
    return found;
  llvm::DenseSet<unsigned> marked;
  func.getFunctionBody().walk([&](Operation *op) {
    std::optional<Value> operand = restrictedOperand(op);
    if (!operand)
      return;
    llvm::SetVector<unsigned> leaves;
    NonnegativeProof proof(func);
    if (!proof.require(*operand, &leaves))
      return;
    for (unsigned index : leaves)
      if (marked.insert(index).second)
        found.push_back({index, op});
  });
  llvm::sort(found, [](const InferredDomain &a, const InferredDomain &b) {
    return a.argument < b.argument;
  });
  return found;
}

LogicalResult mlir::tirx::checkDomains(FunctionOpInterface func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    std::string problem;
    if (succeeded(declaredDomain(func, i, problem)))
      continue;
    std::string name = "arg" + std::to_string(i);
    if (auto attr = func.getArgAttrOfType<StringAttr>(i, "tirx.name"))
      name = attr.str();
    return func.emitError() << "argument #" << i << " (" << name << ") of @"
                            << func.getName() << ": " << problem;
  }
  return success();
}

FailureOr<unsigned> mlir::tirx::annotateDomains(FunctionOpInterface func) {
  if (failed(checkDomains(func)))
    return failure();
  unsigned marked = 0;
  Builder b(func.getContext());
  for (const InferredDomain &inferred : inferNonnegativeArguments(func)) {
    if (func.getArgAttr(inferred.argument, kDomainAttrName))
      continue;
    func.setArgAttr(inferred.argument, kDomainAttrName,
                    b.getStringAttr(rt::domainName(rt::Domain::nonnegative)));
    ++marked;
  }
  return marked;
}

LogicalResult mlir::tirx::annotateDomainsUnder(Operation *root, bool infer) {
  WalkResult walk = root->walk([&](func::FuncOp func) {
    bool ok = infer ? succeeded(annotateDomains(func))
                    : succeeded(checkDomains(func));
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}
