//===- AttrsTest.cpp - #tirx.feedback and #tirx.version ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/InitAllTIRx.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tirx;

namespace {
class AttrsTest : public ::testing::Test {
protected:
  AttrsTest() {
    DialectRegistry registry;
    registerAllTIRxDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `text`; returns the attribute and collects the diagnostics.
  Attribute parse(StringRef text) {
    diagnostics.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      diagnostics += diag.str();
      diagnostics += "\n";
    });
    return parseAttribute(text, &context);
  }

  std::string print(Attribute attr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    attr.print(os);
    return text;
  }

  MLIRContext context;
  std::string diagnostics;
};
} // namespace

TEST(FigureTest, ShortestRoundTrip) {
  for (double value : {0.0, 1.0, 0.1, 189.2, 1e-7, 123456789.125, 0.97,
                       1.0 / 3.0, 5e300}) {
    std::string text = formatFigure(value);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), value) << text;
  }
  EXPECT_EQ(formatFigure(0.1), "0.1");
  EXPECT_EQ(formatFigure(189.2), "189.2");
  EXPECT_EQ(formatFigure(std::nan("")), "nan");
}

TEST_F(AttrsTest, FeedbackRoundTripsThroughText) {
  const char *text =
      "#tirx.feedback<ir_version = \"v3\", compile_status = ok, "
      "launch_status = ok, duration_us = 189.2, duration_min_us = 187.5, "
      "duration_max_us = 195, sample_count = 30, bandwidth_utilization = "
      "0.97, registers_per_thread = 16, bottleneck = memory_bound, "
      "correctness = pass, correctness_inputs = 3, rel_l2_error = 1.0e-7>";
  Attribute attr = parse(text);
  ASSERT_TRUE(attr) << diagnostics;
  auto feedback = dyn_cast<FeedbackAttr>(attr);
  ASSERT_TRUE(feedback);
  EXPECT_EQ(feedback.getLaunchStatus(), LaunchStatus::ok);
  EXPECT_EQ(figureValue(feedback.getDurationUs()), 189.2);
  EXPECT_EQ(*feedback.getSampleCount(), 30);
  EXPECT_EQ(figureValue(feedback.getRelL2Error()), 1e-7);
  EXPECT_FALSE(feedback.getSpillBytes().has_value());

  // print -> parse gives the same attribute (uniqued: the same pointer).
  EXPECT_EQ(parse(print(attr)), attr) << print(attr) << diagnostics;
}

TEST_F(AttrsTest, FeedbackVerifierRefusesBadFigures) {
  auto emit = [&] { return emitError(UnknownLoc::get(&context)); };
  auto make = [&](std::optional<double> duration, std::optional<int64_t> n,
                  std::optional<double> bandwidth) {
    diagnostics.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      diagnostics += diag.str();
    });
    const std::optional<int64_t> none;
    return FeedbackAttr::getChecked(
        emit, &context, StringRef("v1"), CompileStatus::ok, LaunchStatus::ok,
        makeFigure(&context, duration), FloatAttr(), FloatAttr(), n,
        makeFigure(&context, bandwidth), FloatAttr(), FloatAttr(), none, none,
        none, Bottleneck::unknown, StringRef(), LocationAttr(),
        CorrectnessStatus::not_checked, none, FloatAttr(), FloatAttr(),
        StringRef(), StringRef(), FloatAttr(), FloatAttr(), StringRef(), none);
  };
  EXPECT_TRUE(make(10.0, 5, 0.5));
  EXPECT_TRUE(make(10.0, 5, 1.5)); // uncapped: an implausible speed shows
  EXPECT_FALSE(make(10.0, 5, -0.5));
  EXPECT_NE(diagnostics.find("bandwidth_utilization"), std::string::npos);
  EXPECT_FALSE(make(-1.0, 5, std::nullopt));
  EXPECT_NE(diagnostics.find("non-negative"), std::string::npos);
  EXPECT_FALSE(make(10.0, 0, std::nullopt));
  EXPECT_NE(diagnostics.find("sample_count"), std::string::npos);
  EXPECT_FALSE(make(10.0, std::nullopt, std::nullopt));
  EXPECT_FALSE(make(std::nan(""), 3, std::nullopt));
  EXPECT_FALSE(make(std::numeric_limits<double>::infinity(), 3, std::nullopt));
  EXPECT_FALSE(make(std::nullopt, std::nullopt, std::nan("")));
}

TEST_F(AttrsTest, VersionIdsAreNeverPaths) {
  EXPECT_TRUE(isValidVersionId("v12"));
  EXPECT_TRUE(isValidVersionId("v1.fix-2_b"));
  EXPECT_FALSE(isValidVersionId(""));
  EXPECT_FALSE(isValidVersionId(".."));
  EXPECT_FALSE(isValidVersionId("../x"));
  EXPECT_FALSE(isValidVersionId("a/b"));
  EXPECT_FALSE(isValidVersionId(std::string(65, 'a')));
  EXPECT_TRUE(isValidDigest("sha256:" + std::string(64, 'a')));
  EXPECT_FALSE(isValidDigest("sha256:" + std::string(64, 'A')));
  EXPECT_FALSE(isValidDigest("sha256:" + std::string(63, 'a')));
  EXPECT_FALSE(isValidDigest("md5:" + std::string(64, 'a')));
}

TEST_F(AttrsTest, VersionParsesAndRefusesSelfParent) {
  std::string digest = "sha256:" + std::string(64, '0');
  Attribute ok = parse("#tirx.version<id = \"v2\", parent = \"v1\", digest = \"" +
                       digest + "\">");
  ASSERT_TRUE(ok) << diagnostics;
  EXPECT_EQ(cast<VersionAttr>(ok).getParent(), "v1");
  EXPECT_FALSE(parse("#tirx.version<id = \"v2\", parent = \"v2\", digest = \"" +
                     digest + "\">"));
  EXPECT_NE(diagnostics.find("own parent"), std::string::npos) << diagnostics;
}
