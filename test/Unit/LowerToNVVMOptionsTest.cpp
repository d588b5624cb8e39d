//===- LowerToNVVMOptionsTest.cpp - tirx-lower-to-nvvm options --*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tirx;

TEST(ChipTest, KnowsHopperAndRefusesDroppedChips) {
  ASSERT_TRUE(lookupChip("sm_90"));
  EXPECT_EQ(lookupChip("sm_90")->minPtxVersion, 78u);
  EXPECT_EQ(lookupChip("sm_90a")->minPtxVersion, 80u);
  EXPECT_FALSE(lookupChip("sm_50")); // CUDA 13's ptxas dropped it.
  EXPECT_FALSE(lookupChip("sm_70"));
  EXPECT_FALSE(lookupChip("gfx90a"));
  EXPECT_NE(supportedChipList().find("sm_121f"), std::string::npos);
}

TEST(ChipTest, ParsesPtxFeature) {
  EXPECT_EQ(*parsePtxFeature("+ptx80"), std::optional<unsigned>(80));
  EXPECT_EQ(*parsePtxFeature("+sm_90,+ptx86"), std::optional<unsigned>(86));
  EXPECT_EQ(*parsePtxFeature(""), std::nullopt);
  EXPECT_TRUE(failed(parsePtxFeature("+ptxabc")));
}

namespace {
struct Validation {
  TIRxLowerToNVVMOptions options;
  std::string error;
  bool ok = false;
};

Validation validate(TIRxLowerToNVVMOptions options) {
  MLIRContext context;
  Validation result;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    result.error = diag.str();
  });
  result.ok = succeeded(validateLowerToNVVMOptions(
      options, [&] { return emitError(UnknownLoc::get(&context)); }));
  result.options = options;
  return result;
}
} // namespace

TEST(LowerToNVVMOptionsTest, DefaultsToLowestPtxOfTheChip) {
  Validation v = validate(TIRxLowerToNVVMOptions());
  ASSERT_TRUE(v.ok) << v.error;
  EXPECT_EQ(v.options.chip, "sm_90");
  EXPECT_EQ(v.options.features, "+ptx78");
  EXPECT_EQ(v.options.format, "bin");

  TIRxLowerToNVVMOptions a100;
  a100.chip = "sm_80";
  EXPECT_EQ(validate(a100).options.features, "+ptx70");
}

TEST(LowerToNVVMOptionsTest, RefusesWhatTheToolchainCannotDo) {
  TIRxLowerToNVVMOptions options;
  options.chip = "sm_50";
  Validation v = validate(options);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("unsupported chip 'sm_50'"), std::string::npos);

  options = TIRxLowerToNVVMOptions();
  options.features = "+ptx70";
  v = validate(options);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.error.find("PTX 7.0 does not support sm_90"), std::string::npos)
      << v.error;

  options = TIRxLowerToNVVMOptions();
  options.format = "elf";
  EXPECT_FALSE(validate(options).ok);

  options = TIRxLowerToNVVMOptions();
  options.optLevel = 7;
  EXPECT_FALSE(validate(options).ok);
}
