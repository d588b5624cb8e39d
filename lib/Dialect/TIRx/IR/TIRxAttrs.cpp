//===- TIRxAttrs.cpp - TIRx attributes --------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/IR/TIRxAttrs.h"
#include "tirx/Dialect/TIRx/IR/TIRxDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::tirx;

#include "tirx/Dialect/TIRx/IR/TIRxEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tirx/Dialect/TIRx/IR/TIRxAttrs.cpp.inc"

void TIRxDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tirx/Dialect/TIRx/IR/TIRxAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Figures
//===----------------------------------------------------------------------===//

FailureOr<FloatAttr> mlir::tirx::parseFigure(AsmParser &parser) {
  // MLIR's float parser refuses decimal integers ("195"); agents write them.
  SMLoc loc = parser.getCurrentLocation();
  Attribute literal;
  if (parser.parseAttribute(literal))
    return failure();
  if (auto floatAttr = dyn_cast<FloatAttr>(literal))
    return makeFigure(parser.getContext(), floatAttr.getValueAsDouble());
  if (auto intAttr = dyn_cast<IntegerAttr>(literal);
      intAttr && !intAttr.getType().isInteger(1))
    return makeFigure(parser.getContext(),
                      double(intAttr.getValue().getSExtValue()));
  parser.emitError(loc) << "expected a number, got " << literal;
  return failure();
}

FloatAttr mlir::tirx::makeFigure(MLIRContext *context,
                                 std::optional<double> value) {
  if (!value)
    return {};
  return FloatAttr::get(Float64Type::get(context), *value);
}

std::optional<double> mlir::tirx::figureValue(FloatAttr figure) {
  if (!figure)
    return std::nullopt;
  return figure.getValueAsDouble();
}

std::string mlir::tirx::formatFigure(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value)
      break;
  }
  return buf;
}

void mlir::tirx::printFigure(AsmPrinter &printer, FloatAttr figure) {
  std::string text = formatFigure(figure.getValueAsDouble());
  // The MLIR lexer reads "1e-07" as an integer followed by junk; give every
  // exponent form a mantissa with a decimal point so it lexes as a float.
  size_t e = text.find('e');
  if (e != std::string::npos && text.find('.') == std::string::npos)
    text.insert(e, ".0");
  printer.getStream() << text;
}

//===----------------------------------------------------------------------===//
// FeedbackAttr
//===----------------------------------------------------------------------===//

namespace {
/// Collects the range checks of one attribute and reports the first failure.
class FigureChecker {
public:
  explicit FigureChecker(function_ref<InFlightDiagnostic()> emitError)
      : emitError(emitError) {}

  void nonNegative(StringRef key, FloatAttr figure) {
    std::optional<double> value = figureValue(figure);
    if (!value || failed)
      return;
    if (std::isnan(*value) || std::isinf(*value))
      fail() << "'" << key << "' must be a finite number, got "
             << formatFigure(*value);
    else if (*value < 0)
      fail() << "'" << key << "' must be non-negative, got "
             << formatFigure(*value);
  }

  void ratio(StringRef key, FloatAttr figure) {
    std::optional<double> value = figureValue(figure);
    if (!value || failed)
      return;
    if (std::isnan(*value) || *value < 0 || *value > 1)
      fail() << "'" << key << "' is a ratio and must lie in [0, 1], got "
             << formatFigure(*value);
  }

  void count(StringRef key, std::optional<int64_t> value, int64_t min) {
    if (!value || failed)
      return;
    if (*value < min)
      fail() << "'" << key << "' must be at least " << min << ", got "
             << *value;
  }

  InFlightDiagnostic fail() {
    failed = true;
    return emitError();
  }

  LogicalResult result() const { return failure(failed); }
  bool hasFailed() const { return failed; }

private:
  function_ref<InFlightDiagnostic()> emitError;
  bool failed = false;
};
} // namespace

LogicalResult FeedbackAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef irVersion,
    CompileStatus compileStatus, LaunchStatus launchStatus,
    FloatAttr durationUsAttr, FloatAttr durationMinUsAttr,
    FloatAttr durationMaxUsAttr, std::optional<int64_t> sampleCount,
    FloatAttr bandwidthUtilization, FloatAttr achievedOccupancy,
    FloatAttr theoreticalOccupancy,
    std::optional<int64_t> registersPerThread,
    std::optional<int64_t> sharedMemBytes, std::optional<int64_t> spillBytes,
    Bottleneck bottleneck, StringRef bottleneckLocation,
    LocationAttr bottleneckLoc, CorrectnessStatus correctness,
    std::optional<int64_t> correctnessInputs,
    FloatAttr maxAbsError, FloatAttr relL2Error, StringRef correctnessDetail,
    StringRef correctnessReason, FloatAttr dramThroughput,
    FloatAttr smThroughput, StringRef topStalls,
    std::optional<int64_t> counterPasses) {
  FigureChecker check(emitError);
  std::optional<double> durationUs = figureValue(durationUsAttr);
  std::optional<double> durationMinUs = figureValue(durationMinUsAttr);
  std::optional<double> durationMaxUs = figureValue(durationMaxUsAttr);
  if (!irVersion.empty() && !isValidVersionId(irVersion))
    return check.fail() << "'ir_version' is not a valid version id: \""
                        << irVersion << "\"";

  if (compileStatus != CompileStatus::ok &&
      launchStatus != LaunchStatus::not_run)
    return check.fail() << "'launch_status' is " << stringifyEnum(launchStatus)
                        << " but 'compile_status' is "
                        << stringifyEnum(compileStatus)
                        << "; a kernel that did not compile was not launched";

  check.nonNegative("duration_us", durationUsAttr);
  check.nonNegative("duration_min_us", durationMinUsAttr);
  check.nonNegative("duration_max_us", durationMaxUsAttr);
  check.count("sample_count", sampleCount, 1);
  // Above 1 is what an implausibly fast kernel shows: never capped.
  check.nonNegative("bandwidth_utilization", bandwidthUtilization);
  check.ratio("achieved_occupancy", achievedOccupancy);
  check.ratio("theoretical_occupancy", theoreticalOccupancy);
  check.count("registers_per_thread", registersPerThread, 0);
  check.count("shared_mem_bytes", sharedMemBytes, 0);
  check.count("spill_bytes", spillBytes, 0);
  check.count("correctness_inputs", correctnessInputs, 1);
  check.nonNegative("max_abs_error", maxAbsError);
  check.nonNegative("rel_l2_error", relL2Error);
  check.ratio("dram_throughput", dramThroughput);
  check.ratio("sm_throughput", smThroughput);
  check.count("counter_passes", counterPasses, 1);
  if (check.hasFailed())
    return failure();

  bool anyDuration = durationUs || durationMinUs || durationMaxUs;
  if (anyDuration && !sampleCount)
    return check.fail() << "durations need 'sample_count': a timing without "
                           "its number of samples cannot be trusted";
  if (durationMinUs && durationUs && *durationMinUs > *durationUs)
    return check.fail() << "'duration_min_us' (" << formatFigure(*durationMinUs)
                        << ") exceeds the median 'duration_us' ("
                        << formatFigure(*durationUs) << ")";
  if (durationMaxUs && durationUs && *durationMaxUs < *durationUs)
    return check.fail() << "'duration_max_us' (" << formatFigure(*durationMaxUs)
                        << ") is below the median 'duration_us' ("
                        << formatFigure(*durationUs) << ")";
  if (anyDuration && launchStatus != LaunchStatus::ok)
    return check.fail() << "durations are only measured when 'launch_status' "
                           "is ok, not "
                        << stringifyEnum(launchStatus);
  if (correctness != CorrectnessStatus::not_checked &&
      launchStatus != LaunchStatus::ok)
    return check.fail() << "'correctness' is " << stringifyEnum(correctness)
                        << " but the kernel did not run ('launch_status' is "
                        << stringifyEnum(launchStatus) << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// VersionAttr
//===----------------------------------------------------------------------===//

bool mlir::tirx::isValidVersionId(StringRef id) {
  if (id.empty() || id.size() > 64 || id.front() == '.')
    return false;
  return llvm::all_of(id, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '-' || c == '.';
  });
}

bool mlir::tirx::isValidDigest(StringRef digest) {
  if (!digest.consume_front("sha256:") || digest.size() != 64)
    return false;
  return llvm::all_of(digest, [](char c) {
    return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
  });
}

LogicalResult VersionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  StringRef id, StringRef parent,
                                  StringRef digest) {
  if (!isValidVersionId(id))
    return emitError() << "version id \"" << id
                       << "\" is invalid: use 1 to 64 characters of "
                          "[A-Za-z0-9_.-], not starting with '.'";
  if (!parent.empty() && !isValidVersionId(parent))
    return emitError() << "parent id \"" << parent
                       << "\" is invalid: use 1 to 64 characters of "
                          "[A-Za-z0-9_.-], not starting with '.'";
  if (parent == id)
    return emitError() << "version \"" << id << "\" cannot be its own parent";
  if (!isValidDigest(digest))
    return emitError() << "digest \"" << digest
                       << "\" is invalid: expected 'sha256:' followed by 64 "
                          "lower-case hex digits";
  return success();
}
