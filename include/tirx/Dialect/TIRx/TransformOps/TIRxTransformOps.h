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

/// Adds the transform.tirx.* ops to the transform dialect, and the external
/// interface models of upstream dialects that they rely on
/// (registerTransformOpsInterfaceModels): a tool that registers only the
/// payload's dialects (func, arith, linalg, memref) and the transform
/// dialect can run them.
void registerTransformDialectExtension(DialectRegistry &registry);

/// The external models the transform.tirx ops use that their dialects do not
/// register themselves: linalg's TilingInterface. Registering them twice is
/// harmless (a registry keeps one of each).
void registerTransformOpsInterfaceModels(DialectRegistry &registry);

/// Only the ops, without the models: for a tool that registers them itself.
/// Without them the ops that tile refuse with missing_interface.
void registerTransformOps(DialectRegistry &registry);

/// One action: its name, default target op and schema JSON (from ODS).
struct ActionInfo {
  std::string name, target, schema;
};
/// Every registered TIRx transform, in definition order.
std::vector<ActionInfo> actionInfos();

} // namespace tirx
} // namespace mlir

#endif // TIRX_DIALECT_TIRX_TRANSFORMOPS_TIRXTRANSFORMOPS_H
