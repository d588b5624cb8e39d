//===- IndexEmitter.h - index arithmetic for the tensor-core rewrites -----===//
//
// The index arithmetic that use_mma's and use_wgmma's rewrites emit inside a
// kernel body: one constant of each value at the top of the body, and
// add/mul/div/rem/compare of index values. Private to the transforms.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_TRANSFORMS_INDEXEMITTER_H
#define TIRX_LIB_TRANSFORMS_INDEXEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tirx {

struct IndexEmitter {
  RewriterBase &rewriter;
  Location loc;
  /// Where the constants go (at its start): the kernel body.
  Block *top;
  llvm::DenseMap<int64_t, Value> constants;

  IndexEmitter(RewriterBase &rewriter, Location loc, Block *top)
      : rewriter(rewriter), loc(loc), top(top) {}

  /// The index constant `v`, made once at the top of the body.
  Value cst(int64_t v) {
    Value &value = constants[v];
    if (!value) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(top);
      value = arith::ConstantIndexOp::create(rewriter, loc, v);
    }
    return value;
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(rewriter, loc, x, y); }
  Value add(Value x, int64_t v) { return v ? add(x, cst(v)) : x; }
  Value sub(Value x, int64_t v) { return arith::SubIOp::create(rewriter, loc, x, cst(v)); }
  Value mul(Value x, int64_t v) { return arith::MulIOp::create(rewriter, loc, x, cst(v)); }
  Value div(Value x, int64_t v) { return arith::DivUIOp::create(rewriter, loc, x, cst(v)); }
  Value rem(Value x, int64_t v) { return arith::RemUIOp::create(rewriter, loc, x, cst(v)); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(rewriter, loc, p, x, y);
  }
  Value cmp(arith::CmpIPredicate p, Value x, int64_t v) { return cmp(p, x, cst(v)); }
  Value both(Value x, Value y) { return arith::AndIOp::create(rewriter, loc, x, y); }

  /// Runs `body` with the insertion point inside `if (cond)`.
  void ifThen(Value cond, function_ref<void()> body) {
    auto op = scf::IfOp::create(rewriter, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op.thenBlock()->getTerminator());
    body();
  }
};

} // namespace mlir::tirx

#endif // TIRX_LIB_TRANSFORMS_INDEXEMITTER_H
