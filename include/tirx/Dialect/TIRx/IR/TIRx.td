//===- TIRx.td - everything of the tirx dialect ------------*- tablegen -*-===//
//
// Part of TIRx. The root file the dialect reference is generated from.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_IR_TIRX_TD
#define TIRX_DIALECT_TIRX_IR_TIRX_TD

include "tirx/Dialect/TIRx/IR/TIRxDialect.td"
include "tirx/Dialect/TIRx/IR/TIRxAttrs.td"
include "tirx/Dialect/TIRx/IR/TIRxOps.td"

#endif // TIRX_DIALECT_TIRX_IR_TIRX_TD
