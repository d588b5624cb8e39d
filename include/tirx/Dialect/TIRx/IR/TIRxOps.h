//===- TIRxOps.h - TIRx history ops -----------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_IR_TIRXOPS_H
#define TIRX_DIALECT_TIRX_IR_TIRXOPS_H

#include "tirx/Dialect/TIRx/IR/TIRxDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "tirx/Dialect/TIRx/IR/TIRxOps.h.inc"

namespace mlir {
namespace tirx {

/// The canonical text of a payload: the module printed in its custom form
/// without locations, as the store writes it. Deterministic for a module.
std::string canonicalText(ModuleOp module);

/// "sha256:" + the lower-case hex SHA-256 of `text`.
std::string digestOf(llvm::StringRef text);

} // namespace tirx
} // namespace mlir

#endif // TIRX_DIALECT_TIRX_IR_TIRXOPS_H
