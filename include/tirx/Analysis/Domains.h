//===- Domains.h - which inputs a payload needs nonnegative -----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The runner draws a float input buffer's elements uniform in [-1, 1)
// unless the payload function says otherwise (docs/bundle.md, "Input
// domains"). An input that in the whole program is a sum of squares but, as
// a kernel of its own, reaches a square root or a logarithm through
// sign-preserving ops only, would make the reference NaN on those inputs:
// it is drawn from [0, 1) instead, which `{tirx.domain = "nonnegative"}` on
// the function argument declares. The inference below finds such
// arguments; a user's own attribute always wins.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_ANALYSIS_DOMAINS_H
#define TIRX_ANALYSIS_DOMAINS_H

#include "tirx/Runtime/Manifest.h"

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::tirx {

/// The function argument attribute that names an input's domain: a string,
/// "signed_unit" (the default) or "nonnegative".
inline constexpr llvm::StringLiteral kDomainAttrName = "tirx.domain";

/// The domain argument `index` of `func` declares: nothing without
/// tirx.domain. Fails, with what is wrong in `problem` (naming no argument:
/// the caller does), when the attribute is not a string, not a domain's
/// name, or not on a buffer (tensor or memref) of floats.
FailureOr<std::optional<::tirx::runtime::Domain>>
declaredDomain(FunctionOpInterface func, unsigned index, std::string &problem);

/// A float argument whose negative elements would reach an op defined only
/// for nonnegative values.
struct InferredDomain {
  unsigned argument;
  /// The op that needs it (math.rsqrt, math.log, ...).
  Operation *use;
};

/// The buffer arguments (tensor or memref of floats) of `func` whose
/// elements reach the operand of math.sqrt, math.rsqrt, math.log,
/// math.log2, math.log10 or the base of math.powf (unless its exponent is a
/// constant integer) through sign-preserving ops only: arith.mulf and
/// arith.divf by a value proven nonnegative (a constant, splat or not, a
/// square x*x, exp, abs, ...), arith.addf of two nonnegative terms (an
/// epsilon; a reduction's accumulator and its term), arith.extf and
/// arith.truncf, the block arguments of linalg ops (named or generic) from
/// their inputs, tensor and memref views, the results of linalg ops from
/// what they yield (a reduction's accumulator from its init), and
/// memref.load / tensor.extract. Every operand on the way must be accounted
/// for: a value reaching the op through arith.subf, a negative factor or an
/// unknown value marks nothing. A memref argument is inferred only when
/// nothing writes it. An argument whose tirx.domain says "signed_unit"
/// stops the inference through it. Analysis only; the IR is not changed.
llvm::SmallVector<InferredDomain>
inferNonnegativeArguments(FunctionOpInterface func);

/// Fails, with an error diagnostic on `func` naming the argument, when an
/// argument's own tirx.domain is malformed (see declaredDomain).
LogicalResult checkDomains(FunctionOpInterface func);

/// Sets tirx.domain = "nonnegative" on every argument of `func` that
/// inferNonnegativeArguments finds and that has no tirx.domain of its own.
/// Fails, with an error diagnostic on `func` naming the argument, when an
/// argument's own tirx.domain is malformed (see declaredDomain). Returns the
/// number of arguments marked.
FailureOr<unsigned> annotateDomains(FunctionOpInterface func);

/// annotateDomains on every func.func under `root`: what
/// tirx-infer-domains, `tirx init` (on the seed) and `tirx profile` (on each
/// kernel it splits off) run; with `infer` false, checkDomains only (`tirx
/// commit`: a version keeps the attributes its author wrote). Fails on the
/// first malformed tirx.domain.
LogicalResult annotateDomainsUnder(Operation *root, bool infer = true);

} // namespace mlir::tirx

#endif // TIRX_ANALYSIS_DOMAINS_H
