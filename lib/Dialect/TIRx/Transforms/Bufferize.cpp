//===- Bufferize.cpp - the payload from tensors to buffers ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The recipe seen to work on front-end output (docs/actions.md, bufferize):
// one-shot bufferization with function boundaries and identity layouts,
// then buffer-results-to-out-params with the static allocations hoisted,
// so that the bundle sees inputs it only reads and outputs it only writes.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Bufferize.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Dialect/TIRx/Transforms/Sizes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXBUFFERIZE
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// A copy the GPU schedules can tile (memref.copy would call a host
/// runtime function).
LogicalResult linalgCopy(OpBuilder &b, Location loc, Value from, Value to) {
  linalg::CopyOp::create(b, loc, from, to);
  return success();
}

/// Errors reported while `run` runs, as one line each: "loc: message".
llvm::Error collectErrors(MLIRContext *ctx, llvm::StringRef what,
                          llvm::function_ref<LogicalResult()> run) {
  std::string errors;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return success();
      std::string loc;
      llvm::raw_string_ostream os(loc);
      diag.getLocation().print(os);
      errors += (errors.empty() ? "" : "; ") + loc + ": " + diag.str();
      return success();
    });
    result = run();
  }
  if (succeeded(result))
    return llvm::Error::success();
  return llvm::createStringError(
      what + (errors.empty() ? std::string() : ": " + errors));
}
} // namespace

std::optional<tirx::TensorUse> tirx::findTensorUse(Operation *root) {
  std::optional<TensorUse> found;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<FunctionOpInterface>(op)) {
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<TensorType>(type)) {
          found = TensorUse{op, type,
                            "argument #" + std::to_string(i) + " of @" +
                                SymbolTable::getSymbolName(op).str()};
          return WalkResult::interrupt();
        }
      for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
        if (isa<TensorType>(type)) {
          found = TensorUse{op, type,
                            "result #" + std::to_string(i) + " of @" +
                                SymbolTable::getSymbolName(op).str()};
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    }
    for (auto [i, v] : llvm::enumerate(op->getOperands()))
      if (isa<TensorType>(v.getType())) {
        found = TensorUse{op, v.getType(),
                          "operand #" + std::to_string(i) + " of " +
                              op->getName().getStringRef().str()};
        return WalkResult::interrupt();
      }
    for (auto [i, v] : llvm::enumerate(op->getResults()))
      if (isa<TensorType>(v.getType())) {
        found = TensorUse{op, v.getType(),
                          "result #" + std::to_string(i) + " of " +
                              op->getName().getStringRef().str()};
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

bool tirx::worksOnTensors(Operation *op) {
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    return llvm::any_of(func.getArgumentTypes(), isTensor) ||
           llvm::any_of(func.getResultTypes(), isTensor);
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

/// Gives every use of `empty` after the first a tensor.empty of its own. A
/// tensor.empty has no contents, so this changes no value; it only stops
/// bufferization from giving several ops' results one buffer.
static void untie(tensor::EmptyOp empty) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : empty->getUses())
    uses.push_back(&use);
  if (uses.size() < 2)
    return;
  for (OpOperand *use : llvm::drop_begin(uses)) {
    OpBuilder builder(empty);
    use->set(builder.clone(*empty)->getResult(0));
  }
}

/// Aggregate named ops (linalg.softmax) as the ops they stand for (max,
/// exp, sum, divide as linalg.generic and linalg.fill on tensors), which the
/// schedules take one by one. Upstream's decomposition writes the
/// exponentials into the softmax's own init and divides in place, and fills
/// one tensor.empty for both statistics: bufferized, the exponentials went
/// into the function's output and the max and the sum into one buffer, so
/// no intermediate was the softmax's own and the row block could not take
/// it (`fuse_into`: no_consumer_loop; three kernels). Each of these inits
/// gets a tensor.empty of its own first: the form front ends that write the
/// softmax out (torch-mlir) emit, each intermediate a buffer of its own.
static llvm::Error decomposeAggregates(ModuleOp module) {
  SmallVector<linalg::AggregatedOpInterface> aggregates;
  module.walk([&](linalg::AggregatedOpInterface op) {
    if (tirx::worksOnTensors(op))
      aggregates.push_back(op);
  });
  for (linalg::AggregatedOpInterface op : aggregates) {
    // The inits the decomposition may share: the op's own, and those it
    // creates (between the op's previous and next ops).
    SetVector<tensor::EmptyOp> inits;
    for (Value v : op->getOperands())
      if (auto empty = v.getDefiningOp<tensor::EmptyOp>())
        inits.insert(empty);
    Operation *before = op->getPrevNode();
    Block *block = op->getBlock();
    OpBuilder builder(op);
    FailureOr<SmallVector<Value>> parts = op.decomposeOperation(builder);
    if (failed(parts) || parts->size() != op->getNumResults())
      return llvm::createStringError(
          "%s does not decompose into the ops it stands for",
          op->getName().getStringRef().str().c_str());
    for (Operation *o = before ? before->getNextNode() : &block->front();
         o && o != op.getOperation(); o = o->getNextNode())
      if (auto empty = dyn_cast<tensor::EmptyOp>(o))
        inits.insert(empty);
    op->replaceAllUsesWith(*parts);
    op->erase();
    for (tensor::EmptyOp empty : inits)
      untie(empty);
  }
  return llvm::Error::success();
}

/// A linalg.broadcast read by linalg.generic ops as an input: each reads
/// the broadcast's input through the composed map instead (x + b over rows
/// reads b[j]), so no broadcast copy is made. Bufferized, the broadcast
/// was a kernel of its own writing the whole broadcast tensor, read again
/// by its consumer: twice the traffic of the op it stands for (bias + GELU
/// over 4096 x 8192 f32: 1.9x torch.compile on the H200). The values are
/// the same; a broadcast with other users stays for them, and so does one
/// whose fold would leave a loop of the generic that no operand's map
/// bounds (a sum over the broadcast rows, no other operand reading them).
static void foldBroadcastInputs(ModuleOp module) {
  SmallVector<linalg::BroadcastOp> broadcasts;
  module.walk([&](linalg::BroadcastOp op) {
    if (op->getNumResults() == 1 && isa<RankedTensorType>(op.getInput().getType()))
      broadcasts.push_back(op);
  });
  for (linalg::BroadcastOp op : broadcasts) {
    // Output dims -> input dims (those not in `dimensions`).
    AffineMap read = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    for (OpOperand &use : llvm::make_early_inc_range(op->getResult(0).getUses())) {
      auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
      if (!generic || !generic.isDpsInput(&use))
        continue;
      SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
      unsigned i = use.getOperandNumber();
      if (i >= maps.size())
        continue;
      maps[i] = read.compose(maps[i]);
      // Linalg's own verifier condition: the loops' sizes follow from the
      // operands' shapes.
      if (!inversePermutation(concatAffineMaps(maps, generic.getContext())))
        continue;
      use.set(op.getInput());
      generic.setIndexingMapsAttr(
          Builder(generic.getContext()).getAffineMapArrayAttr(maps));
    }
    if (op->use_empty())
      op->erase();
  }
}

/// Gives each repeat of a buffer among a return's operands (`return %r,
/// %r`) a buffer of its own, filled by a copy. Upstream's
/// promoteBufferResultsToOutParams replaces a returned allocation by its
/// out-parameter and erases it, then reads the erased allocation again at
/// the repeat (Debian's LLVM has no assertions: a segmentation fault). With
/// the copy, each result is an out-parameter of its own, the second filled
/// from the first, as a returned input or constant is filled.
static void separateRepeatedResults(ModuleOp module) {
  module.walk([](func::ReturnOp ret) {
    OpBuilder builder(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
          !llvm::is_contained(
              ret->getOperands().take_front(operand.getOperandNumber()), v))
        continue;
      Value own = memref::AllocOp::create(builder, ret.getLoc(), type);
      linalg::CopyOp::create(builder, ret.getLoc(), v, own);
      operand.set(own);
    }
  });
}

llvm::Error tirx::bufferizePayload(ModuleOp module, bool foldBroadcasts) {
  MLIRContext *ctx = module.getContext();
  if (llvm::Error e = decomposeAggregates(module))
    return e;
  if (foldBroadcasts)
    foldBroadcastInputs(module);
  // A tensor argument is a value: the kernel must not write it in place (it
  // would clobber the caller's input; the runner sees it as inout).
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<TensorType>(type) &&
          !func.getArgAttr(i, bufferization::BufferizationDialect::
                                  kWritableAttrName))
        func.setArgAttr(
            i, bufferization::BufferizationDialect::kWritableAttrName,
            BoolAttr::get(ctx, false));
  });
  bufferization::OneShotBufferizationOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  options.memCpyFn = linalgCopy;
  if (llvm::Error e = collectErrors(ctx, "one-shot bufferization failed", [&] {
        bufferization::BufferizationState state;
        return bufferization::runOneShotModuleBufferize(module, options,
                                                        state);
      }))
    return e;
  separateRepeatedResults(module);
  bufferization::BufferResultsToOutParamsOpts outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  outParams.memCpyFn = linalgCopy;
  if (llvm::Error e = collectErrors(
          ctx, "turning returned buffers into out-parameters failed", [&] {
            return bufferization::promoteBufferResultsToOutParams(module,
                                                                  outParams);
          }))
    return e;
  // A result of dynamic shape is computed into a local allocation and
  // copied out: compute it into the out-parameter instead.
  forwardResultCopies(module);
  nameDynamicSizes(module);
  if (std::optional<TensorUse> left = findTensorUse(module))
    return llvm::createStringError(
        "tensors are left after bufferization: " + left->what + " (" +
        typeText(left->type) + ")");
  return llvm::Error::success();
}

namespace {
struct BufferizePass
    : public mlir::tirx::impl::TIRxBufferizeBase<BufferizePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<bufferization::BufferizationDialect, memref::MemRefDialect,
                    linalg::LinalgDialect>();
  }

  void runOnOperation() override {
    if (llvm::Error e = tirx::bufferizePayload(getOperation())) {
      getOperation().emitError()
          << "tirx-bufferize: " << llvm::toString(std::move(e));
      signalPassFailure();
    }
  }
};
} // namespace
