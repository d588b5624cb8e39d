//===- TIRxAttrs.h - TIRx attributes ----------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_IR_TIRXATTRS_H
#define TIRX_DIALECT_TIRX_IR_TIRXATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Location.h"

#include <cstdint>
#include <optional>
#include <string>

#include "tirx/Dialect/TIRx/IR/TIRxEnums.h.inc"

namespace mlir {
namespace tirx {

/// Parses a measured figure: any integer or floating-point literal, with an
/// optional leading minus (the verifier decides what range is legal).
FailureOr<FloatAttr> parseFigure(AsmParser &parser);

/// Prints a figure in the shortest decimal form that parses back to the same
/// double, so that print -> parse -> print is a fixed point.
void printFigure(AsmPrinter &printer, FloatAttr value);

/// A figure as an f64 attribute, and back (nothing for a null attribute).
FloatAttr makeFigure(MLIRContext *context, std::optional<double> value);
std::optional<double> figureValue(FloatAttr figure);

/// The shortest decimal text of `value` that reads back exactly.
std::string formatFigure(double value);

/// True if `id` is a legal snapshot id: 1 to 64 characters of
/// [A-Za-z0-9_.-], not starting with '.'. Such an id can never be a path.
bool isValidVersionId(llvm::StringRef id);

/// True if `digest` is "sha256:" followed by 64 lower-case hex digits.
bool isValidDigest(llvm::StringRef digest);

} // namespace tirx
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "tirx/Dialect/TIRx/IR/TIRxAttrs.h.inc"

#endif // TIRX_DIALECT_TIRX_IR_TIRXATTRS_H
