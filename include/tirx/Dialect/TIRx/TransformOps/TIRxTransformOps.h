//===- TIRxTransformOps.h - legal transforms --------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_TRANSFORMOPS_TIRXTRANSFORMOPS_H
#define TIRX_DIALECT_TIRX_TRANSFORMOPS_TIRXTRANSFORMOPS_H

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpImplementation.h"

#include <string>
#include <vector>

#define GET_OP_CLASSES
#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.h.inc"

namespace mlir {
namespace tirx {

/// Adds the transform.tirx.* ops to the transform dialect.
void registerTransformDialectExtension(DialectRegistry &registry);

/// One action: its name, default target op and schema JSON (from ODS).
struct ActionInfo {
  std::string name, target, schema;
};
/// Every registered TIRx transform, in definition order.
std::vector<ActionInfo> actionInfos();

} // namespace tirx
} // namespace mlir

#endif // TIRX_DIALECT_TIRX_TRANSFORMOPS_TIRXTRANSFORMOPS_H
