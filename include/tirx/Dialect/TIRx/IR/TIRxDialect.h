//===- TIRxDialect.h - TIRx dialect -----------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_IR_TIRXDIALECT_H
#define TIRX_DIALECT_TIRX_IR_TIRXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tirx/Dialect/TIRx/IR/TIRxDialect.h.inc"

#endif // TIRX_DIALECT_TIRX_IR_TIRXDIALECT_H
