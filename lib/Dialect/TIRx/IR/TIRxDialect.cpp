//===- TIRxDialect.cpp - TIRx dialect ---------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/IR/TIRxDialect.h"
#include "tirx/Dialect/TIRx/IR/TIRxAttrs.h"
#include "tirx/Dialect/TIRx/IR/TIRxOps.h"

using namespace mlir;
using namespace mlir::tirx;

#include "tirx/Dialect/TIRx/IR/TIRxDialect.cpp.inc"

void TIRxDialect::initialize() {
  registerAttributes();
  registerOperations();
}
