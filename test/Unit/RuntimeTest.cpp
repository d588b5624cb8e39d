//===- RuntimeTest.cpp - the runner's host-side logic -----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Everything of tirx-run that needs no GPU: manifests, inputs, poison,
// comparison, statistics, the classifier. Runs on CI.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Check.h"
#include "tirx/Runtime/Feedback.h"
#include "tirx/Runtime/Integer.h"
#include "tirx/Runtime/JsonLimits.h"
#include "tirx/Runtime/Manifest.h"
#include "tirx/Runtime/Runner.h"
#include "tirx/Runtime/Stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace tirx::runtime;

namespace {
const char *kGood = R"({
  "format": "tirx-bundle", "version": 1, "payload": "saxpy", "chip": "sm_90",
  "params": [
    {"name": "a", "kind": "scalar", "type": "f32", "value": 2.0},
    {"name": "x", "kind": "buffer", "type": "f32", "shape": [1024], "role": "in"},
    {"name": "y", "kind": "buffer", "type": "bf16", "shape": [32, 32], "role": "inout"}],
  "kernels": [{"name": "k", "ptx": "k.ptx", "cubin": "k.cubin",
               "grid": [4, 1, 1], "block": [256, 1, 1], "flops": 2048,
               "args": [{"param": 1}, {"param": 2}, {"param": 0},
                        {"type": "i64", "value": 7}],
               "accesses": [{"buffer": "x", "op": "load", "width": 4, "bytes": 16,
                             "alignment": 16, "contiguous": true}]}]})";

std::string withField(const std::string &from, const std::string &to) {
  std::string text = kGood;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string parseError(const std::string &text) {
  Manifest m;
  std::string error;
  EXPECT_FALSE(parseManifest(text, m, error));
  return error;
}
} // namespace

TEST(IntegerTest, WholeTextOrNothing) {
  using tirx::runtime::parseInteger;
  EXPECT_EQ(parseInteger("0"), 0);
  EXPECT_EQ(parseInteger("1000003"), 1000003);
  EXPECT_EQ(parseInteger("-7"), -7);
  EXPECT_EQ(parseInteger("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parseInteger("-9223372036854775808"), INT64_MIN);
  // Overflow, nothing, trailing characters, an embedded NUL.
  EXPECT_EQ(parseInteger("9223372036854775808"), std::nullopt);
  EXPECT_EQ(parseInteger("-9223372036854775809"), std::nullopt);
  EXPECT_EQ(parseInteger("99999999999999999999999"), std::nullopt);
  EXPECT_EQ(parseInteger(""), std::nullopt);
  EXPECT_EQ(parseInteger("-"), std::nullopt);
  EXPECT_EQ(parseInteger("12x"), std::nullopt);
  EXPECT_EQ(parseInteger("1.5"), std::nullopt);
  EXPECT_EQ(parseInteger("0x10"), std::nullopt);
  EXPECT_EQ(parseInteger(std::string("5\0" "7", 3)), std::nullopt);
}

TEST(ManifestTest, ParsesAndRoundTrips) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kGood, m, error)) << error;
  ASSERT_EQ(m.params.size(), 3u);
  EXPECT_FALSE(m.params[0].isBuffer);
  EXPECT_EQ(m.params[0].value, 2.0);
  EXPECT_EQ(m.params[1].bytes, 4096u);
  EXPECT_EQ(m.params[2].bytes, 2048u); // bf16: 2 bytes
  EXPECT_EQ(m.params[2].role, Role::inout);
  // Inputs read once, inout buffers read and written.
  EXPECT_EQ(m.minimumBytesMoved(), 4096u + 2 * 2048u);
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].args[3].value, 7);
  EXPECT_FALSE(m.kernels[0].args[3].param.has_value());
  EXPECT_EQ(m.totalFlops(), 2048u);

  Manifest again;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  EXPECT_EQ(serializeManifest(again), serializeManifest(m));
}

// A constant -inf (a max reduction's start: softmax, rowmax) was written
// as null and the reference's manifest then failed to parse, so no softmax
// candidate could be checked (tirx tune on the H200).
TEST(ManifestTest, NonFiniteConstantsRoundTrip) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(withField(R"({"type": "i64", "value": 7})",
                                      R"({"type": "f32", "value": "-inf"})"),
                            m, error))
      << error;
  EXPECT_TRUE(std::isinf(m.kernels[0].args[3].value));
  EXPECT_LT(m.kernels[0].args[3].value, 0);
  m.kernels[0].args[3].value = NAN;
  std::string text = serializeManifest(m);
  EXPECT_NE(text.find("\"nan\""), std::string::npos);
  Manifest again;
  ASSERT_TRUE(parseManifest(text, again, error)) << error;
  EXPECT_TRUE(std::isnan(again.kernels[0].args[3].value));
  m.kernels[0].args[3].value = INFINITY;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  EXPECT_TRUE(std::isinf(again.kernels[0].args[3].value));
  EXPECT_NE(parseError(withField(R"({"type": "i64", "value": 7})",
                                 R"({"type": "f32", "value": "infinity"})"))
                .find("kernels[0].args[3].value"),
            std::string::npos);
}

TEST(ManifestTest, MalformedCasesNameTheField) {
  EXPECT_NE(parseError("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(parseError("[]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(parseError(withField(R"("format": "tirx-bundle")", R"("format": "zip")"))
                .find("format: expected \"tirx-bundle\""),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("grid": [4, 1, 1])", R"("grid": [4, 1])"))
                .find("kernels[0].grid: expected an array of 3 integers"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("grid": [4, 1, 1])", R"("grid": [4, -1, 1])"))
                .find("kernels[0].grid[1]"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("block": [256, 1, 1])", R"("block": [2048, 1, 1])"))
                .find("kernels[0].block[0]"),
            std::string::npos);
  // CUDA's per-dimension limits: z of a block at most 64 (the reference
  // mapper once gave 1 x 1 x 256: CUDA_ERROR_INVALID_VALUE at launch), y
  // and z of a grid at most 65535.
  EXPECT_NE(parseError(withField(R"("block": [256, 1, 1])", R"("block": [1, 1, 256])"))
                .find("kernels[0].block[2]"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("grid": [4, 1, 1])", R"("grid": [4, 65536, 1])"))
                .find("kernels[0].grid[1]"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("role": "in")", R"("role": "both")"))
                .find("params[1].role: expected in, out or inout"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("shape": [1024])", R"("shape": [0])"))
                .find("params[1].shape[0]"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("shape": [1024])", R"("shape": [1099511627776, 4])"))
                .find("more than 2^40 elements"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("ptx": "k.ptx")", R"("ptx": "/etc/passwd")"))
                .find("plain file name"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("ptx": "k.ptx")", R"("ptx": "..")"))
                .find("plain file name"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("value": 2.0)", R"("value": "two")"))
                .find("params[0].value: expected a number"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"({"param": 2})", R"({"param": 9})"))
                .find("kernels[0].args[1].param"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("kind": "scalar")", R"("kind": "tensor")"))
                .find("params[0].kind"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("payload": "saxpy", )", ""))
                .find("manifest.payload: missing"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("chip": "sm_90")",
                                 R"("chip": "sm_90", "math": "fp8")"))
                .find("math: expected \"ieee\", \"tf32\", \"f16\" or \"bf16\", got \"fp8\""),
            std::string::npos);
}

TEST(ManifestTest, ScratchBuffersParseCheckAndRoundTrip) {
  Manifest m;
  std::string error;
  std::string text =
      withField(R"("kernels": [)",
                R"("scratch": [{"name": "scratch0", "type": "f32", "shape": [8, 4]}],
                   "kernels": [)");
  text.replace(text.find(R"({"param": 2})"), 12, R"({"scratch": 0})");
  ASSERT_TRUE(parseManifest(text, m, error)) << error;
  ASSERT_EQ(m.scratch.size(), 1u);
  EXPECT_EQ(m.scratch[0].bytes, 128u);
  ASSERT_TRUE(m.kernels[0].args[1].scratch.has_value());
  EXPECT_EQ(*m.kernels[0].args[1].scratch, 0);
  EXPECT_FALSE(m.kernels[0].args[1].param.has_value());
  // Scratch is not traffic a run must make.
  EXPECT_EQ(m.minimumBytesMoved(), 4096u + 2 * 2048u);
  Manifest again;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  EXPECT_EQ(serializeManifest(again), serializeManifest(m));

  std::string bad = text;
  bad.replace(bad.find(R"({"scratch": 0})"), 14, R"({"scratch": 1})");
  EXPECT_NE(parseError(bad).find("kernels[0].args[1].scratch"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"({"param": 2})", R"({"scratch": 0})"))
                .find("kernels[0].args[1].scratch: the manifest has no "
                      "scratch buffers"),
            std::string::npos);
  bad = text;
  bad.replace(bad.find("[8, 4]"), 6, "[8, 0]");
  EXPECT_NE(parseError(bad).find("scratch[0].shape[1]"), std::string::npos);
}

TEST(ManifestTest, MathDefaultsToIeeeAndRoundTrips) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kGood, m, error)) << error;
  EXPECT_EQ(m.math, "ieee");
  ASSERT_TRUE(parseManifest(withField(R"("chip": "sm_90")",
                                      R"("chip": "sm_90", "math": "tf32")"),
                            m, error))
      << error;
  EXPECT_EQ(m.math, "tf32");
  Manifest again;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  EXPECT_EQ(again.math, "tf32");
  for (const char *math : {"f16", "bf16"}) {
    std::string text = withField(R"("chip": "sm_90")",
                                 std::string(R"("chip": "sm_90", "math": ")") +
                                     math + "\"");
    // 16-bit products need a 16-bit input: y is bf16; as f16 for "f16".
    if (std::string(math) == "f16") {
      EXPECT_FALSE(parseManifest(text, m, error));
      EXPECT_NE(error.find("math: \"f16\" needs an input buffer of f16"),
                std::string::npos)
          << error;
      text.replace(text.find(R"("type": "bf16")"), 14, R"("type": "f16")");
    }
    ASSERT_TRUE(parseManifest(text, m, error)) << error;
    ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
    EXPECT_EQ(again.math, math);
  }
}

// early_launch: a kernel that waits for the one before it; the runner
// launches it early only when another kernel of the bundle precedes it.
TEST(ManifestTest, EarlyLaunchParsesRoundTripsAndSkipsTheFirstKernel) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kGood, m, error)) << error;
  EXPECT_FALSE(m.kernels[0].earlyLaunch);
  std::string early = withField(R"("flops": 2048,)",
                                R"("flops": 2048, "early_launch": true,)");
  ASSERT_TRUE(parseManifest(early, m, error)) << error;
  EXPECT_TRUE(m.kernels[0].earlyLaunch);
  EXPECT_FALSE(launchesEarly(m, 0)); // the first follows the runner's work
  m.kernels.push_back(m.kernels[0]);
  EXPECT_TRUE(launchesEarly(m, 1));
  EXPECT_FALSE(launchesEarly(m, 2)); // no such kernel
  m.kernels[1].earlyLaunch = false;
  EXPECT_FALSE(launchesEarly(m, 1));
  m.kernels[1].earlyLaunch = true;
  Manifest again;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  ASSERT_EQ(again.kernels.size(), 2u);
  EXPECT_TRUE(again.kernels[1].earlyLaunch);
  // Not marked: not written, read as false.
  Manifest plain;
  ASSERT_TRUE(parseManifest(kGood, plain, error)) << error;
  EXPECT_EQ(serializeManifest(plain).find("early_launch"), std::string::npos);
  EXPECT_NE(parseError(withField(R"("flops": 2048,)",
                                 R"("flops": 2048, "early_launch": 1,)"))
                .find("kernels[0].early_launch: expected a boolean"),
            std::string::npos);
  // A chip without griddepcontrol cannot wait: the mark is refused.
  std::string older = early;
  older.replace(older.find(R"("chip": "sm_90")"), 15, R"("chip": "sm_80")");
  EXPECT_NE(parseError(older).find("kernels[0].early_launch: needs sm_90 or "
                                   "newer (griddepcontrol); the chip is "
                                   "'sm_80'"),
            std::string::npos);
}

TEST(ManifestTest, ChipsThatRunGridDependency) {
  for (const char *chip : {"sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120f"})
    EXPECT_TRUE(chipRunsGridDependency(chip)) << chip;
  for (const char *chip : {"sm_89", "sm_80", "sm_75", "sm_9", "sm_", "",
                           "compute_90", "sm_x90"})
    EXPECT_FALSE(chipRunsGridDependency(chip)) << chip;
}

TEST(ManifestTest, ParsesPtxasReport) {
  const char *log = "ptxas info    : 0 bytes gmem\n"
                    "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
                    "ptxas info    : Function properties for other\n"
                    "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
                    "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem\n"
                    "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                    "ptxas info    : Function properties for k\n"
                    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                    "ptxas info    : Used 18 registers, used 0 barriers\n";
  PtxasReport k, other;
  parsePtxasReport(log, "k", k);
  parsePtxasReport(log, "other", other);
  EXPECT_EQ(k.registers, 18);
  EXPECT_EQ(k.sharedBytes, 0);
  EXPECT_EQ(k.spillStoreBytes, 0);
  EXPECT_EQ(other.registers, 40);
  EXPECT_EQ(other.sharedBytes, 2048);
  EXPECT_EQ(other.spillStoreBytes, 4);
  EXPECT_EQ(other.stackBytes, 8);
  PtxasReport none;
  parsePtxasReport(log, "missing", none);
  EXPECT_EQ(none.registers, -1);
  // A count past int64_t reads as not reported (std::stoll threw
  // std::out_of_range out of the export pass).
  PtxasReport huge;
  parsePtxasReport("ptxas info    : Function properties for k\n"
                   "    99999999999999999999 bytes stack frame, 0 bytes spill "
                   "stores, 0 bytes spill loads\n"
                   "ptxas info    : Used 99999999999999999999 registers, "
                   "used 0 barriers, 4 bytes smem\n",
                   "k", huge);
  EXPECT_EQ(huge.stackBytes, -1);
  EXPECT_EQ(huge.registers, -1);
  EXPECT_EQ(huge.spillStoreBytes, 0);
  EXPECT_EQ(huge.sharedBytes, 4);
}

TEST(InputsTest, DeterministicNeverAllZeroAndInRange) {
  for (ElementType t : {ElementType::f32, ElementType::f64, ElementType::f16,
                        ElementType::bf16, ElementType::i8, ElementType::i32,
                        ElementType::i64}) {
    std::vector<uint8_t> a(4096 * elementBytes(t)), b(a.size()), c(a.size());
    fillRandom(a, t, 42);
    fillRandom(b, t, 42);
    fillRandom(c, t, 43);
    EXPECT_EQ(a, b) << elementTypeName(t);
    EXPECT_NE(a, c) << elementTypeName(t);
    size_t zeros = 0;
    double sum = 0;
    for (size_t i = 0; i < 4096; ++i) {
      double v = elementAt(a, t, i);
      EXPECT_GE(v, t == ElementType::i8 || t == ElementType::i32 ||
                           t == ElementType::i64
                       ? -100
                       : -1);
      EXPECT_LE(v, 100);
      EXPECT_FALSE(std::isnan(v));
      EXPECT_FALSE(isPoison(a, t, i)) << elementTypeName(t) << " " << i;
      zeros += v == 0;
      sum += std::fabs(v);
    }
    EXPECT_LT(zeros, 100u) << elementTypeName(t);
    EXPECT_GT(sum, 0) << elementTypeName(t);
  }
}

TEST(InputsTest, HalfAndBFloat16Conversions) {
  for (float v : {0.0f, 1.0f, -2.5f, 0.333251953125f, 65504.0f, 6.1035156e-05f,
                  5.9604645e-08f}) {
    EXPECT_EQ(halfToFloat(floatToHalf(v)), v) << v;
  }
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(1e6f), 0x7C00); // overflow to inf
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(bfloat16ToFloat(floatToBFloat16(-3.0f)), -3.0f);
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBFloat16(NAN))));
  // Round to nearest even: 1 + 2^-8 is halfway between two bf16 values.
  EXPECT_EQ(floatToBFloat16(1.00390625f), 0x3F80);
}

TEST(CompareTest, PoisonNaNAndTolerances) {
  const size_t n = 64;
  std::vector<uint8_t> want(n * 4), got;
  fillRandom(want, ElementType::f32, 7);
  got = want;
  Comparison same = compareBuffers("y", ElementType::f32, got, want);
  EXPECT_TRUE(same.pass);
  EXPECT_EQ(same.maxAbsError, 0);
  EXPECT_EQ(same.firstBad, -1);

  // Within tolerance: a relative change of 1e-6.
  float v;
  std::memcpy(&v, got.data() + 4 * 5, 4);
  v *= 1.000001f;
  std::memcpy(got.data() + 4 * 5, &v, 4);
  EXPECT_TRUE(compareBuffers("y", ElementType::f32, got, want).pass);

  // An unwritten element (still poison) fails, and names its index.
  std::vector<uint8_t> poisoned(4);
  fillPoison(poisoned, ElementType::f32);
  std::memcpy(got.data() + 4 * 17, poisoned.data(), 4);
  Comparison c = compareBuffers("y", ElementType::f32, got, want);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.firstBad, 17);
  EXPECT_NE(c.detail.find("y[17]"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("unwritten"), std::string::npos) << c.detail;

  // NaN never passes, not even where the reference has NaN too.
  std::vector<uint8_t> nan(8);
  fillPoison(nan, ElementType::f32);
  EXPECT_FALSE(compareBuffers("z", ElementType::f32, nan, nan).pass);

  // A wrong value beyond tolerance.
  got = want;
  std::memcpy(&v, got.data() + 4 * 3, 4);
  v += 0.5f;
  std::memcpy(got.data() + 4 * 3, &v, 4);
  c = compareBuffers("y", ElementType::f32, got, want);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.firstBad, 3);
  EXPECT_NEAR(c.maxAbsError, 0.5, 1e-6);

  // Integers compare exactly; their poison is a sentinel.
  std::vector<uint8_t> ints(16), other(16);
  fillRandom(ints, ElementType::i32, 1);
  other = ints;
  EXPECT_TRUE(compareBuffers("n", ElementType::i32, other, ints).pass);
  other[0] ^= 1;
  EXPECT_FALSE(compareBuffers("n", ElementType::i32, other, ints).pass);
  fillPoison(other, ElementType::i32);
  EXPECT_TRUE(isPoison(other, ElementType::i32, 2));
  EXPECT_FALSE(compareBuffers("n", ElementType::i32, other, ints).pass);

  // tf32 sums: an error of 1e-3 of the sums' magnitude passes, even on an
  // element near zero; 5e-2 does not; an ieee bundle allows neither.
  {
    std::vector<float> w(256), g(256);
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = (i % 2 ? 1.0f : -1.0f) * 5.0f * float(i % 7) / 7.0f;
    auto bytes = [](const std::vector<float> &v) {
      std::vector<uint8_t> b(v.size() * 4);
      std::memcpy(b.data(), v.data(), b.size());
      return b;
    };
    Tolerance tf32 = toleranceFor(ElementType::f32, "tf32");
    for (size_t i = 0; i < w.size(); ++i)
      g[i] = w[i] + (i % 3 ? 4e-3f : -4e-3f); // ~1e-3 of rms 2.9, any |w|
    EXPECT_TRUE(compareBuffers("C", ElementType::f32, bytes(g), bytes(w), tf32)
                    .pass);
    EXPECT_FALSE(compareBuffers("C", ElementType::f32, bytes(g), bytes(w)).pass);
    // f32 allows a reordered reduction's rounding: 1e-6 of the RMS on an
    // element near 0 passes, 1e-4 of it does not.
    g = w;
    g[0] = w[0] + 3e-6f; // w[0] is 0, the RMS about 2.9
    EXPECT_TRUE(compareBuffers("C", ElementType::f32, bytes(g), bytes(w)).pass);
    g[0] = w[0] + 3e-4f;
    EXPECT_FALSE(compareBuffers("C", ElementType::f32, bytes(g), bytes(w)).pass);
    g = w;
    g[7] += 0.15f; // 5e-2 of the rms
    Comparison bad =
        compareBuffers("C", ElementType::f32, bytes(g), bytes(w), tf32);
    EXPECT_FALSE(bad.pass);
    EXPECT_EQ(bad.firstBad, 7);
    // tf32 says nothing about other types.
    EXPECT_EQ(toleranceFor(ElementType::f16, "tf32").rtol,
              toleranceFor(ElementType::f16).rtol);
  }

  // Looser tolerance for bf16 than for f32.
  EXPECT_GT(toleranceFor(ElementType::bf16).rtol,
            toleranceFor(ElementType::f32).rtol);
}

TEST(StatsTest, SummaryAndSampleCount) {
  TimingStats s = summarize({5, 1, 3, 2, 4});
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_EQ(s.median, 3);
  EXPECT_EQ(s.mean, 3);
  EXPECT_EQ(summarize({1, 2, 3, 4}).median, 2.5);
  // Trimmed mean drops the outlier of 10 samples.
  TimingStats t = summarize({10, 10, 10, 10, 10, 10, 10, 10, 10, 1000});
  EXPECT_EQ(t.trimmedMean, 10);
  EXPECT_GT(t.mean, 100);
  EXPECT_EQ(summarize({}).count, 0);

  EXPECT_EQ(chooseSampleCount(0.2e-3, 1.0, 10, 2000), 2000); // capped
  EXPECT_EQ(chooseSampleCount(0.01, 1.0, 10, 2000), 100);
  EXPECT_EQ(chooseSampleCount(0.5, 1.0, 10, 2000), 10); // at least 10
  EXPECT_EQ(chooseSampleCount(0, 1.0, 10, 2000), 10);
  EXPECT_EQ(chooseSampleCount(NAN, 1.0, 10, 2000), 10);
}

namespace {
struct ClassifierTest : ::testing::Test {
  ClassifierTest() {
    device.smCount = 132;
    device.copyBandwidthGBs = 4000;
    device.peakFp32Tflops = 60;
    device.maxThreadsPerSm = 2048;
    device.registersPerSm = 65536;
    device.sharedPerSm = 233472;
    std::string error;
    EXPECT_TRUE(parseManifest(kGood, manifest, error)) << error;
    manifest.kernels[0].grid[0] = 65536;
    feedback.launchStatus = "ok";
    TimingStats t;
    t.median = 250;
    t.count = 100;
    feedback.duration = t;
    feedback.bytesMoved = 805306368;
    feedback.flops = 134217728;
    feedback.bandwidthUtilization = 0.8;
    feedback.theoreticalOccupancy = 1.0;
    feedback.registersPerThread = 16;
  }
  Manifest manifest;
  Feedback feedback;
  DeviceProfile device;
};
} // namespace

TEST_F(ClassifierTest, NarrowContiguousAccessIsNamedWithItsLocation) {
  Access narrow;
  narrow.buffer = "y";
  narrow.width = 1;
  narrow.bytes = 4;
  narrow.path = "func @saxpy / gpu.launch_func @k / memref.load (load y)";
  narrow.loc = "saxpy.mlir:9:3";
  manifest.kernels[0].accesses = {narrow};
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "narrow_global_access");
  EXPECT_EQ(feedback.bottleneckLocation, narrow.path);
  EXPECT_EQ(feedback.bottleneckLoc, "saxpy.mlir:9:3");
}

TEST_F(ClassifierTest, AtTheCopyRateItIsMemoryBound) {
  feedback.bandwidthUtilization = 0.97;
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "memory_bound");
}

TEST_F(ClassifierTest, StridedAccessIsUncoalesced) {
  Access strided;
  strided.buffer = "out";
  strided.isStore = true;
  strided.contiguous = false;
  strided.path = "transpose store";
  manifest.kernels[0].accesses.push_back(strided);
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "uncoalesced_access");
  EXPECT_EQ(feedback.bottleneckLocation, "transpose store");
}

TEST_F(ClassifierTest, TooFewBlocks) {
  manifest.kernels[0].grid[0] = 16;
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "too_few_blocks");
}

TEST_F(ClassifierTest, LowOccupancyFromRegisters) {
  feedback.theoreticalOccupancy = 0.25;
  feedback.registersPerThread = 255;
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "low_occupancy_registers");
}

TEST_F(ClassifierTest, LaunchBoundAndComputeBound) {
  feedback.duration->median = 3;
  feedback.bytesMoved = 4096;
  feedback.flops = 100;
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "launch_bound");

  feedback.duration->median = 5000;
  feedback.bytesMoved = 1 << 20;
  feedback.flops = uint64_t(1) << 38; // far above the ridge point
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "compute_bound");
}

TEST_F(ClassifierTest, TensorCoreBundlesAreMeasuredAtTheTensorCoreRate) {
  // 2^32 flops over 64 MiB: compute-bound at the FP32 rate (72 us against
  // 17 us of traffic), memory-side at the tf32 tensor-core rate (9 us).
  feedback.flops = uint64_t(1) << 32;
  feedback.bytesMoved = 3 * 2048 * 2048 * 4 + 2048 * 2048 * 4;
  feedback.bandwidthUtilization = 0.97;
  device.peakTf32Tflops = 480;
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "compute_bound");
  EXPECT_NE(feedback.bottleneckReason.find("FP32 rate"), std::string::npos);
  manifest.math = "tf32";
  feedback.flops = uint64_t(1) << 40; // still above the tensor-core ridge
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "compute_bound");
  EXPECT_NE(feedback.bottleneckReason.find("tf32 tensor-core rate"),
            std::string::npos)
      << feedback.bottleneckReason;
  feedback.flops = uint64_t(1) << 32;
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "memory_bound");
  // An older device profile without the tensor-core rate: the FP32 one.
  device.peakTf32Tflops = 0;
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "compute_bound");
}

TEST_F(ClassifierTest, NothingToSayWithoutARun) {
  feedback.launchStatus = "timeout";
  classify(feedback, manifest, device);
  EXPECT_EQ(feedback.bottleneck, "unknown");
}

TEST(FeedbackTest, JsonRoundTrip) {
  Feedback f;
  f.irVersion = "v3";
  f.payload = "saxpy";
  f.launchStatus = "ok";
  TimingStats t;
  t.median = 188.4;
  t.min = 187;
  t.max = 190;
  t.count = 30;
  f.duration = t;
  f.bandwidthUtilization = 0.97;
  f.registersPerThread = 18;
  f.correctness = "pass";
  f.correctnessInputs = 3;
  f.buffers.push_back({"y", 0, 0, true});
  f.bottleneck = "memory_bound";
  f.math = "tf32";
  Feedback g;
  std::string error;
  ASSERT_TRUE(parseFeedback(serializeFeedback(f), g, error)) << error;
  EXPECT_EQ(serializeFeedback(g).size() > 0, true);
  EXPECT_EQ(g.math, "tf32");
  EXPECT_EQ(g.duration->median, 188.4);
  EXPECT_EQ(g.duration->count, 30);
  EXPECT_EQ(*g.registersPerThread, 18);
  EXPECT_EQ(g.correctness, "pass");
  EXPECT_FALSE(g.spillBytes.has_value());
  // An array (several candidates) reads as its first entry.
  ASSERT_TRUE(parseFeedback("[" + serializeFeedback(f) + "]", g, error));
  EXPECT_EQ(g.payload, "saxpy");
  EXPECT_FALSE(parseFeedback("{\"duration_us\": \"slow\"}", g, error));
}

TEST(RunnerTest, SignaturesMustMatchTheReference) {
  Manifest a, b;
  std::string error;
  ASSERT_TRUE(parseManifest(kGood, a, error));
  b = a;
  EXPECT_EQ(compareSignatures(a, b), "");
  b.params[0].value = 3;
  EXPECT_NE(compareSignatures(a, b).find("scalar value differs"),
            std::string::npos);
  b = a;
  b.params[1].role = Role::inout;
  EXPECT_NE(compareSignatures(a, b).find("parameter #1 (x)"), std::string::npos);
  b.params.pop_back();
  EXPECT_NE(compareSignatures(a, b).find("parameters"), std::string::npos);
}

// A kernel of a payload whose input is a sum of squares (RMSNorm's
// normalize step, profiled alone) gets NaN references on [-1, 1): the
// manifest says "nonnegative", and the runner draws [0, 1) for it.
TEST(InputDomainTest, ManifestCarriesTheDomain) {
  Manifest m;
  std::string error;
  std::string text = withField(R"("role": "in")",
                               R"("role": "in", "domain": "nonnegative")");
  ASSERT_TRUE(parseManifest(text, m, error)) << error;
  EXPECT_EQ(m.params[1].domain, Domain::nonnegative);
  EXPECT_EQ(m.params[2].domain, Domain::signed_unit);
  Manifest again;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  EXPECT_EQ(again.params[1].domain, Domain::nonnegative);
  // The default is not written.
  ASSERT_TRUE(parseManifest(kGood, m, error)) << error;
  EXPECT_EQ(serializeManifest(m).find("domain"), std::string::npos);
  EXPECT_NE(parseError(withField(R"("role": "in")",
                                 R"("role": "in", "domain": "positive")"))
                .find("params[1].domain: expected signed_unit or nonnegative"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("role": "in")", R"("role": "in", "domain": 1)"))
                .find("params[1].domain"),
            std::string::npos);
  EXPECT_NE(parseError(withField(R"("type": "f32", "shape": [1024], "role": "in")",
                                 R"("type": "i32", "shape": [1024], "role": "in", "domain": "nonnegative")"))
                .find("params[1].domain: a domain other than signed_unit is for float buffers"),
            std::string::npos);
}

TEST(InputDomainTest, NonnegativeDrawsAreTheSameDrawsInZeroOne) {
  for (ElementType type : {ElementType::f32, ElementType::f64,
                           ElementType::f16, ElementType::bf16}) {
    std::vector<uint8_t> s(4096 * elementBytes(type)), n(s.size());
    fillRandom(s, type, 17);
    fillRandom(n, type, 17, Domain::nonnegative);
    bool someNegative = false;
    for (size_t i = 0; i < 4096; ++i) {
      double a = elementAt(s, type, i), b = elementAt(n, type, i);
      someNegative |= a < 0;
      ASSERT_GE(b, 0) << elementTypeName(type) << " element " << i;
      ASSERT_LE(b, 1); // 16-bit rounding may reach 1
      // 2u - 1 and u of one draw u (to the type's rounding).
      ASSERT_NEAR(a, 2 * b - 1, type == ElementType::bf16 ? 1.6e-2 : 1e-3);
    }
    EXPECT_TRUE(someNegative);
    // Adversarial sets: their magnitudes.
    for (InputKind kind : adversarialKinds()) {
      std::vector<uint8_t> as(s.size()), an(s.size());
      fillAdversarial(as, type, kind, 0, 5);
      fillAdversarial(an, type, kind, 0, 5, Domain::nonnegative);
      for (size_t i = 0; i < 4096; ++i)
        ASSERT_EQ(elementAt(an, type, i), std::fabs(elementAt(as, type, i)))
            << inputKindName(kind) << " " << elementTypeName(type) << " " << i;
    }
  }
  // Integers keep their draws.
  std::vector<uint8_t> a(4096 * 4), b(a.size());
  fillRandom(a, ElementType::i32, 3);
  fillRandom(b, ElementType::i32, 3, Domain::nonnegative);
  EXPECT_EQ(a, b);
  // makeInputs follows each buffer's domain.
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(withField(R"("role": "in")",
                                      R"("role": "in", "domain": "nonnegative")"),
                            m, error))
      << error;
  std::vector<std::vector<uint8_t>> in = makeInputs(m, 9);
  for (size_t i = 0; i < 1024; ++i)
    ASSERT_GE(elementAt(in[1], ElementType::f32, i), 0);
  std::vector<std::vector<uint8_t>> adv =
      makeAdversarialInputs(m, InputKind::cancel, 0, 9);
  for (size_t i = 0; i < 1024; ++i)
    ASSERT_GE(elementAt(adv[1], ElementType::f32, i), 0);
}

TEST(InputDomainTest, ACandidateMayReadBackWhatTheReferenceOnlyWrites) {
  Manifest candidate, reference;
  std::string error;
  ASSERT_TRUE(parseManifest(kGood, candidate, error)) << error;
  reference = candidate;
  ASSERT_EQ(reference.params[2].role, Role::inout);
  // The reference says y's initial contents do not matter (its fill writes
  // it first); the candidate reads back what its own fill wrote. It runs
  // on poison, as the reference says.
  reference.params[2].role = Role::out;
  EXPECT_EQ(compareSignatures(candidate, reference), "");
  adoptReferenceContract(candidate, reference);
  EXPECT_EQ(candidate.params[2].role, Role::out);
  // The reverse: the reference reads y's initial contents (it accumulates
  // into them), the candidate never does. A difference, not adopted: an
  // idempotent combiner (max) would hide the dropped read on random draws.
  candidate.params[2].role = Role::out;
  reference.params[2].role = Role::inout;
  EXPECT_NE(compareSignatures(candidate, reference).find("role differs"),
            std::string::npos);
  // Writing an input is another signature.
  candidate.params[2].role = Role::inout;
  candidate.params[1].role = Role::inout;
  EXPECT_NE(compareSignatures(candidate, reference).find("role differs"),
            std::string::npos);
  reference.params[1].role = Role::out;
  candidate.params[1].role = Role::in;
  EXPECT_NE(compareSignatures(candidate, reference).find("role differs"),
            std::string::npos);
}

TEST(InputDomainTest, TheReferenceSaysWhatIsDrawn) {
  Manifest a, b;
  std::string error;
  ASSERT_TRUE(parseManifest(kGood, a, error));
  b = a;
  b.params[1].domain = Domain::nonnegative;
  EXPECT_EQ(compareSignatures(a, b), ""); // a domain is no signature
  adoptReferenceContract(a, b);
  EXPECT_EQ(a.params[1].domain, Domain::nonnegative);
  EXPECT_EQ(a.params[2].domain, Domain::signed_unit);
  // A candidate cannot narrow its own check: its nonnegative y is drawn
  // signed, as the reference says (a kernel that dropped a sign would
  // otherwise pass).
  Manifest c, d;
  ASSERT_TRUE(parseManifest(kGood, c, error));
  d = c;
  c.params[2].domain = Domain::nonnegative;
  adoptReferenceContract(c, d);
  EXPECT_EQ(c.params[2].domain, Domain::signed_unit);
  EXPECT_EQ(d.params[2].domain, Domain::signed_unit);
  c.params[2].domain = Domain::nonnegative;
  Feedback f;
  beginFeedback(c, f);
  ASSERT_EQ(f.inputDomains.size(), 1u);
  EXPECT_EQ(f.inputDomains[0].first, "y");
  EXPECT_EQ(f.inputDomains[0].second, "nonnegative");
  Feedback g;
  ASSERT_TRUE(parseFeedback(serializeFeedback(f), g, error)) << error;
  ASSERT_EQ(g.inputDomains.size(), 1u);
  EXPECT_EQ(g.inputDomains[0].second, "nonnegative");
}

//===----------------------------------------------------------------------===//
// Measurements you can trust: tolerances pinned, the new comparisons, the
// plausibility gate, the feedback's trust fields.
//===----------------------------------------------------------------------===//

namespace {
std::vector<uint8_t> encode(ElementType t, const std::vector<double> &v) {
  std::vector<uint8_t> b(v.size() * elementBytes(t));
  for (size_t i = 0; i < v.size(); ++i) {
    uint8_t *p = b.data() + i * elementBytes(t);
    switch (t) {
    case ElementType::f32: { float x = float(v[i]); std::memcpy(p, &x, 4); break; }
    case ElementType::f64: std::memcpy(p, &v[i], 8); break;
    case ElementType::f16: { uint16_t x = floatToHalf(float(v[i])); std::memcpy(p, &x, 2); break; }
    case ElementType::bf16: { uint16_t x = floatToBFloat16(float(v[i])); std::memcpy(p, &x, 2); break; }
    default: ADD_FAILURE() << "floats only";
    }
  }
  return b;
}

/// Reference values uniform in [-scale, scale), reproducible.
std::vector<double> values(size_t n, double scale, uint64_t seed = 11) {
  Rng rng(seed);
  std::vector<double> v(n);
  for (double &x : v)
    x = scale * (2 * rng.uniform() - 1);
  return v;
}

struct Precision {
  ElementType type;
  const char *math;
};
const Precision kPrecisions[] = {{ElementType::f32, "ieee"},
                                 {ElementType::f32, "tf32"},
                                 {ElementType::f64, "ieee"},
                                 {ElementType::f16, "ieee"},
                                 {ElementType::bf16, "ieee"}};

std::string label(const Precision &p) {
  return std::string(elementTypeName(p.type)) + "/" + p.math;
}
} // namespace

// The tolerances, exactly: docs/feedback.md derives each. A change here must
// change the docs and the behavioural tests below.
TEST(ToleranceTest, ValuesArePinned) {
  auto expect = [](Tolerance t, double rtol, double atol, double rms) {
    EXPECT_EQ(t.rtol, rtol);
    EXPECT_EQ(t.atol, atol);
    EXPECT_EQ(t.rmsRel, rms);
  };
  expect(toleranceFor(ElementType::f32), 1e-4, 1e-5, 1e-5);
  expect(toleranceFor(ElementType::f32, "tf32"), 2e-3, 1e-5, 1e-2);
  expect(toleranceFor(ElementType::f64), 1e-9, 1e-12, 0);
  expect(toleranceFor(ElementType::f16), 1e-2, 1e-3, 0);
  expect(toleranceFor(ElementType::bf16), 2e-2, 1e-2, 0);
  for (ElementType t : {ElementType::i8, ElementType::i32, ElementType::i64})
    expect(toleranceFor(t), 0, 0, 0);
}

// Long f32 sums: the slack relative to the RMS grows as u sqrt(K / 2)
// (the reference's sequential sum drifts) times (sqrt(2 ln 2n) + 2) for the
// largest of n elements' errors, never below 1e-5.
TEST(ToleranceTest, F32SlackGrowsWithTheReductionLength) {
  EXPECT_EQ(toleranceFor(ElementType::f32, "ieee", 4096).rmsRel, 1e-5);
  double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(toleranceFor(ElementType::f32, "ieee", 1 << 20).rmsRel,
                   (std::sqrt(2 * std::log(2.0)) + 2) * u * std::sqrt(0.5) *
                       1024.0);
  // A 4096^2 matmul output (K = 4096): the sequential reference was 2.9e-4
  // off cuBLAS and Triton alike on the H200 at C[2237716] = -0.6346, with
  // the outputs' RMS about 21. That passes; 4x the drift does not.
  Tolerance mm = toleranceFor(ElementType::f32, "ieee", 4096, 4096 * 4096);
  EXPECT_GT(mm.rmsRel, 1e-5);
  auto within = [&](double want, double err, double rms) {
    return err <= mm.atol + mm.rmsRel * rms + mm.rtol * std::fabs(want);
  };
  EXPECT_TRUE(within(-0.634627163, 0.634917557 - 0.634627163, 21.0));
  EXPECT_FALSE(within(-0.634627163, 4 * (0.634917557 - 0.634627163), 21.0));
  // The count grows the slack slowly: a million times more elements, not
  // even twice the slack.
  EXPECT_LT(toleranceFor(ElementType::f32, "ieee", 1 << 20, 1 << 24).rmsRel,
            2 * toleranceFor(ElementType::f32, "ieee", 1 << 20, 16).rmsRel);
  EXPECT_EQ(toleranceFor(ElementType::f32, "ieee", 1 << 20).rtol, 1e-4);
  EXPECT_EQ(toleranceFor(ElementType::f16, "ieee", 1 << 20).rmsRel, 0);
  // 2^20 terms in [-1, 1] per row, sums of RMS about 512: a row summing to
  // 17 that is 0.02 off the reference passes (rowsum_long on the H200:
  // -17.3356 vs -17.3557), a term of 0.5 dropped from a row of 591 still
  // fails (the slack is 0.12 there).
  std::vector<double> want(4, 0.0), got(4, 0.0);
  for (int i = 0; i < 4; ++i)
    want[i] = got[i] = 591.0 * (i % 2 ? 1 : -1);
  want[1] = got[1] = 17.0;
  got[1] += 0.02;
  Tolerance t = toleranceFor(ElementType::f32, "ieee", 1 << 20);
  EXPECT_TRUE(compareBuffers("s", ElementType::f32,
                             encode(ElementType::f32, got),
                             encode(ElementType::f32, want), t)
                  .pass);
  EXPECT_FALSE(compareBuffers("s", ElementType::f32,
                              encode(ElementType::f32, got),
                              encode(ElementType::f32, want),
                              toleranceFor(ElementType::f32))
                   .pass);
  got[2] -= 0.5;
  EXPECT_FALSE(compareBuffers("s", ElementType::f32,
                              encode(ElementType::f32, got),
                              encode(ElementType::f32, want), t)
                   .pass);
}

// 16-bit products on tensor cores (math f16 / bf16, Manifest.h): an f32 C
// keeps f32's rule with room for the tensor cores' truncating 16-term steps
// (K / 16 of 2^-23 of the RMS); an f16 C, summed in f16 by the candidate and
// by the reference alike, gets the slack of the largest of n elements' f16
// sums of K terms, as f32 sums do.
TEST(ToleranceTest, SixteenBitTensorCoreMathFollowsTheSums) {
  auto expect = [](Tolerance t, double rtol, double atol, double rms) {
    EXPECT_EQ(t.rtol, rtol);
    EXPECT_EQ(t.atol, atol);
    EXPECT_DOUBLE_EQ(t.rmsRel, rms);
  };
  expect(toleranceFor(ElementType::f32, "f16", 4096), 1e-4, 1e-5,
         256 * std::ldexp(1.0, -23));
  expect(toleranceFor(ElementType::f32, "bf16", 64), 1e-4, 1e-5, 1e-5);
  expect(toleranceFor(ElementType::f16, "f16", 4096), std::ldexp(1.0, -11) * 64,
         1e-3, (std::sqrt(2 * std::log(2.0)) + 2) * std::ldexp(1.0, -11) * std::sqrt(2048.0));
  // The largest of a 4096^2 output's errors: suite matmul_f16 on the H200
  // had C[8365265] = 17.515625 against the reference's 19.53125 (outputs'
  // RMS about 21), relative L2 0.0097 over the whole output. That passes
  // (the former 2 u sqrt(K) of the RMS refused it); three times that error
  // does not.
  Tolerance big = toleranceFor(ElementType::f16, "f16", 4096, 4096 * 4096);
  auto within = [&](double want, double err, double rms) {
    return err <= big.atol + big.rmsRel * rms + big.rtol * std::fabs(want);
  };
  EXPECT_TRUE(within(19.53125, 19.53125 - 17.515625, 21.0));
  EXPECT_FALSE(within(19.53125, 3 * (19.53125 - 17.515625), 21.0));
  expect(toleranceFor(ElementType::f16, "f16", 0), 1e-2, 1e-3, 0);
  expect(toleranceFor(ElementType::bf16, "bf16", 4096), 2e-2, 1e-2, 0);

  // An f16 C of K = 4096: the reference sums each output sequentially in
  // f16 (rounding every step), the tensor cores 16 exact products at a
  // time into an f16 accumulator. Both are right; they differ by more than
  // f16's plain tolerance, not by more than the f16-math one; a kernel
  // that drops the last 16-term step fails either.
  const int k = 4096, outputs = 256;
  auto round16 = [](double x) { return double(halfToFloat(floatToHalf(float(x)))); };
  std::vector<double> a = values(size_t(outputs) * k, 1.0, 3),
                      b = values(size_t(outputs) * k, 1.0, 5);
  std::vector<double> want(outputs), got(outputs), dropped(outputs);
  for (int o = 0; o < outputs; ++o) {
    double ref = 0, mma = 0;
    for (int j = 0; j < k; ++j) {
      double pa = round16(a[size_t(o) * k + j]), pb = round16(b[size_t(o) * k + j]);
      ref = round16(ref + pa * pb);
    }
    for (int j0 = 0; j0 < k; j0 += 16) {
      double step = 0;
      for (int j = j0; j < j0 + 16; ++j)
        step += round16(a[size_t(o) * k + j]) * round16(b[size_t(o) * k + j]);
      mma = round16(mma + step);
      if (j0 + 16 == k)
        dropped[o] = mma - step;
    }
    want[o] = ref;
    got[o] = mma;
  }
  auto w = encode(ElementType::f16, want);
  Tolerance math = toleranceFor(ElementType::f16, "f16", k);
  Comparison c = compareBuffers("C", ElementType::f16, encode(ElementType::f16, got), w, math);
  EXPECT_TRUE(c.pass) << c.detail;
  EXPECT_FALSE(compareBuffers("C", ElementType::f16, encode(ElementType::f16, got), w,
                              toleranceFor(ElementType::f16))
                   .pass)
      << "the plain f16 tolerance must be too tight here, or this pins nothing";
  EXPECT_FALSE(compareBuffers("C", ElementType::f16,
                              encode(ElementType::f16, dropped), w, math)
                   .pass);
  // An f32 C: a uniform 0.4% scaling still fails.
  auto v = values(4096, 1.0);
  std::vector<double> scaled(v);
  for (double &x : scaled)
    x *= 1.004;
  EXPECT_FALSE(compareBuffers("C", ElementType::f32, encode(ElementType::f32, scaled),
                              encode(ElementType::f32, v),
                              toleranceFor(ElementType::f32, "bf16", 4096))
                   .pass);
}

// A uniform 0.4% scaling of every output is a wrong kernel (a constant
// folded wrong, a missing term): f32 and f64 fail it, and tf32 does too
// (its sums' error is 7e-4 of their RMS, measured).
TEST(ToleranceTest, UniformScalingByPointFourPercentFails) {
  auto w = values(4096, 1.0);
  std::vector<double> g(w);
  for (double &x : g)
    x *= 1.004;
  for (Precision p : {kPrecisions[0], kPrecisions[1], kPrecisions[2]}) {
    Comparison c = compareBuffers("C", p.type, encode(p.type, g),
                                  encode(p.type, w),
                                  toleranceFor(p.type, p.math));
    EXPECT_FALSE(c.pass) << label(p) << ": rel L2 " << c.relL2Error;
  }
}

// For each precision, an output 3x beyond the documented relative limit
// (docs/feedback.md; written here, not read from toleranceFor): it fails,
// and a 10x looser tolerance would accept it. So loosening any tolerance
// 10x in Check.cpp makes this test fail, on behaviour, not on a constant.
TEST(ToleranceTest, ATenfoldLooserToleranceWouldPassAKnownBadOutput) {
  const double documented[] = {1e-4, 2e-3, 1e-9, 1e-2, 2e-2};
  for (size_t k = 0; k < std::size(kPrecisions); ++k) {
    Precision p = kPrecisions[k];
    Tolerance tol = toleranceFor(p.type, p.math);
    auto w = values(4096, 1.0);
    std::vector<double> g(w);
    for (double &x : g)
      x *= 1 + 3 * documented[k];
    auto got = encode(p.type, g), want = encode(p.type, w);
    Comparison now = compareBuffers("C", p.type, got, want, tol);
    EXPECT_FALSE(now.pass) << label(p) << ": rel L2 " << now.relL2Error;
    Tolerance loose{documented[k] * 10, tol.atol * 10, tol.rmsRel * 10};
    EXPECT_TRUE(compareBuffers("C", p.type, got, want, loose).pass)
        << label(p) << ": the known-bad output must be one a 10x looser "
                       "tolerance accepts, or this test pins nothing";
  }
}

// Outputs whose every element lies within the per-element bound but whose
// relative L2 error exceeds the limit (small values, where atol and the
// RMS term dominate): only the global relative-L2 check catches them.
TEST(ToleranceTest, TheGlobalRelativeL2CheckIsWhatCatchesSmallOutputs) {
  for (Precision p : kPrecisions) {
    Tolerance tol = toleranceFor(p.type, p.math);
    // rms(w) well below atol / rtol, so atol alone is many rtol of it.
    double scale = std::min(1.0, 0.1 * tol.atol / tol.rtol);
    auto w = values(4096, scale);
    auto want = encode(p.type, w);
    double rms = 0;
    for (size_t i = 0; i < w.size(); ++i)
      rms += elementAt(want, p.type, i) * elementAt(want, p.type, i);
    rms = std::sqrt(rms / double(w.size()));
    std::vector<double> g(w.size());
    for (size_t i = 0; i < w.size(); ++i)
      g[i] = elementAt(want, p.type, i) + 0.8 * (tol.atol + tol.rmsRel * rms);
    auto got = encode(p.type, g);
    // Every element on its own is within the bound...
    for (size_t i = 0; i < w.size(); ++i) {
      double gi = elementAt(got, p.type, i), wi = elementAt(want, p.type, i);
      ASSERT_LE(std::fabs(gi - wi),
                tol.atol + tol.rtol * std::fabs(wi) + tol.rmsRel * rms)
          << label(p) << " element " << i;
    }
    // ...and the buffer still fails, on its relative L2 error.
    Comparison c = compareBuffers("C", p.type, got, want, tol);
    EXPECT_FALSE(c.pass) << label(p);
    EXPECT_GT(c.relL2Error, tol.rtol) << label(p);
    EXPECT_NE(c.detail.find("relative L2 error"), std::string::npos)
        << label(p) << ": " << c.detail;
  }
}

// Honest arithmetic still passes: tf32-like errors of 7e-4 of the RMS
// (random signs) and f32 rounding of 1 ulp.
TEST(ToleranceTest, HonestRoundingPasses) {
  auto w = values(4096, 1.0);
  Rng rng(5);
  std::vector<double> g(w.size());
  double rms = 1 / std::sqrt(3.0);
  for (size_t i = 0; i < w.size(); ++i)
    g[i] = w[i] + 7e-4 * rms * (rng.uniform() < 0.5 ? -1 : 1);
  EXPECT_TRUE(compareBuffers("C", ElementType::f32, encode(ElementType::f32, g),
                             encode(ElementType::f32, w),
                             toleranceFor(ElementType::f32, "tf32"))
                  .pass);
  for (size_t i = 0; i < w.size(); ++i)
    g[i] = double(std::nextafter(float(w[i]), 2.0f));
  EXPECT_TRUE(compareBuffers("C", ElementType::f32, encode(ElementType::f32, g),
                             encode(ElementType::f32, w))
                  .pass);
}

TEST(TrustTest, InputsMustComeBackUnchanged) {
  std::vector<uint8_t> x(256 * 4);
  fillRandom(x, ElementType::f32, 3);
  EXPECT_TRUE(compareUnchanged("x", ElementType::f32, x, x).pass);
  std::vector<uint8_t> now = x;
  float v = 7;
  std::memcpy(now.data() + 4 * 5, &v, 4);
  Comparison c = compareUnchanged("x", ElementType::f32, now, x);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.firstBad, 5);
  EXPECT_NE(c.detail.find("x[5]: an input changed by the kernel"),
            std::string::npos)
      << c.detail;
  EXPECT_NE(c.detail.find("now 7"), std::string::npos) << c.detail;
  // Bit for bit: even a change within any tolerance, or -0 for 0, fails.
  now = x;
  now[4 * 9] ^= 1;
  EXPECT_FALSE(compareUnchanged("x", ElementType::f32, now, x).pass);
  std::vector<uint8_t> zero(4, 0), negZero(4, 0);
  negZero[3] = 0x80;
  EXPECT_FALSE(compareUnchanged("z", ElementType::f32, negZero, zero).pass);
  EXPECT_FALSE(compareUnchanged("x", ElementType::f32,
                                std::vector<uint8_t>(8), x)
                   .pass);
}

TEST(TrustTest, RelaunchesAreComparedBitwiseThenWithinTolerance) {
  auto w = values(1024, 1.0);
  auto first = encode(ElementType::f32, w);
  RelaunchCheck same =
      compareRelaunch("y", ElementType::f32, first, first, first,
                      toleranceFor(ElementType::f32));
  EXPECT_TRUE(same.bitEqual);
  EXPECT_TRUE(same.comparison.pass);
  // A reordered sum (1 ulp): not bit-equal, still correct.
  std::vector<double> g(w);
  g[3] = double(std::nextafter(float(w[3]), 2.0f));
  RelaunchCheck jitter =
      compareRelaunch("y", ElementType::f32, encode(ElementType::f32, g),
                      first, first, toleranceFor(ElementType::f32));
  EXPECT_FALSE(jitter.bitEqual);
  EXPECT_TRUE(jitter.comparison.pass);
  // A launch that skipped its work (the outputs still poison, or the
  // inout buffer as uploaded) fails against the reference.
  std::vector<uint8_t> poison(first.size());
  fillPoison(poison, ElementType::f32);
  RelaunchCheck skipped =
      compareRelaunch("y", ElementType::f32, poison, first, first,
                      toleranceFor(ElementType::f32));
  EXPECT_FALSE(skipped.bitEqual);
  EXPECT_FALSE(skipped.comparison.pass);
  EXPECT_NE(skipped.comparison.detail.find("unwritten"), std::string::npos);
}

TEST(TrustTest, TheGhostCheckSeesWhetherTheKernelMatters) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kGood, m, error)) << error;
  m.params[2].type = ElementType::f32; // y: f32 inout
  m.params[2].bytes = 1024 * 4;
  auto host = makeInputs(m, 9);
  EXPECT_TRUE(host[0].empty()); // the scalar
  // saxpy with a = 2: the inout y changes, so a skipped launch fails.
  std::vector<std::vector<uint8_t>> want = host;
  for (size_t i = 0; i < 1024; ++i) {
    float x, y;
    std::memcpy(&x, host[1].data() + 4 * i, 4);
    std::memcpy(&y, host[2].data() + 4 * i, 4);
    y = 2 * x + y;
    std::memcpy(want[2].data() + 4 * i, &y, 4);
  }
  EXPECT_FALSE(checkIsBlind(m, host, want));
  // With a = 0 the reference leaves y as it came: the check is blind.
  EXPECT_TRUE(checkIsBlind(m, host, host));
  // An `out` buffer starts as poison: a check of one is never blind.
  m.params[2].role = Role::out;
  auto outs = makeInputs(m, 9);
  EXPECT_FALSE(checkIsBlind(m, outs, want));
}

TEST(TrustTest, CheckedTimedLaunchesIncludeTheLastAndVary) {
  Rng rng(1);
  for (int64_t n : {1, 2, 3, 4, 10, 2000}) {
    auto picked = chooseCheckedSamples(n, 3, rng);
    ASSERT_FALSE(picked.empty());
    EXPECT_EQ(picked.back(), n - 1) << n;
    EXPECT_EQ(int64_t(picked.size()), std::min<int64_t>(n, 4)) << n;
    EXPECT_TRUE(std::is_sorted(picked.begin(), picked.end()));
    EXPECT_GE(picked.front(), 0);
  }
  EXPECT_TRUE(chooseCheckedSamples(0, 3, rng).empty());
  // Different draws check different launches: a kernel cannot guess them.
  Rng a(1), b(2);
  EXPECT_NE(chooseCheckedSamples(2000, 3, a), chooseCheckedSamples(2000, 3, b));
}

TEST(TrustTest, FreshSeedsDifferAndStayExactInJson) {
  uint64_t a = freshSeed(), b = freshSeed();
  EXPECT_NE(a, b);
  EXPECT_LT(a, uint64_t(1) << 53);
  EXPECT_LT(b, uint64_t(1) << 53);
}

TEST(TrustTest, DevicePoisonWordsArePoison) {
  for (ElementType t : {ElementType::f32, ElementType::f64, ElementType::f16,
                        ElementType::bf16, ElementType::i8, ElementType::i32,
                        ElementType::i64}) {
    std::vector<uint8_t> bytes(64);
    uint32_t word = poisonWord(t);
    for (size_t i = 0; i < bytes.size(); i += 4)
      std::memcpy(bytes.data() + i, &word, 4);
    for (size_t i = 0; i < bytes.size() / elementBytes(t); ++i)
      EXPECT_TRUE(isPoison(bytes, t, i)) << elementTypeName(t) << " " << i;
  }
}

namespace {
struct PlausibilityTest : ::testing::Test {
  PlausibilityTest() {
    device.smCount = 132;
    device.copyBandwidthGBs = 4250;
    device.peakFp32Tflops = 66.9;
    device.peakTf32Tflops = 535;
    std::string error;
    EXPECT_TRUE(parseManifest(kGood, manifest, error)) << error;
    f.launchStatus = "ok";
    f.bytesMoved = 805306368; // saxpy 2^26: x read, y read and written
    TimingStats t;
    t.count = 100;
    f.duration = t;
  }
  void at(double us) {
    f.duration->median = us;
    judgePlausibility(f, manifest, device);
  }
  Manifest manifest;
  Feedback f;
  DeviceProfile device;
};
} // namespace

TEST_F(PlausibilityTest, FasterThanTheCopyBandwidthIsImplausible) {
  at(189); // 4261 GB/s: at the copy rate, as saxpy 4-wide measures
  ASSERT_TRUE(f.plausible.has_value());
  EXPECT_TRUE(*f.plausible);
  at(175); // 4602 GB/s: 1.08x, within the measured noise and HBM's peak
  EXPECT_TRUE(*f.plausible);
  at(161.3); // 4994 GB/s: the early-returning saxpy the review found
  EXPECT_FALSE(*f.plausible);
  EXPECT_NE(f.implausibleReason.find("copy bandwidth"), std::string::npos)
      << f.implausibleReason;
  EXPECT_NE(f.implausibleReason.find("1.17x"), std::string::npos)
      << f.implausibleReason;
  // Never ranked: the classifier names no bottleneck for it.
  f.bandwidthUtilization = 1.17;
  classify(f, manifest, device);
  EXPECT_EQ(f.bottleneck, "unknown");
  EXPECT_NE(f.bottleneckReason.find("implausible"), std::string::npos);
}

TEST_F(PlausibilityTest, BeyondTheComputePeakIsImplausible) {
  manifest.params[2].type = ElementType::f32; // all f32: the FP32 units
  f.bytesMoved = 3 * 4096 * 4096 * 4;
  f.flops = 2ull * 4096 * 4096 * 4096; // 137 GFLOP
  at(5000); // 27 TFLOP/s on the FP32 units: fine
  EXPECT_TRUE(*f.plausible);
  at(1000); // 137 TFLOP/s from an ieee bundle: twice the FP32 peak
  EXPECT_FALSE(*f.plausible);
  EXPECT_NE(f.implausibleReason.find("TFLOP/s"), std::string::npos);
  manifest.math = "tf32"; // on tensor cores that is fine
  at(1000);
  EXPECT_TRUE(*f.plausible);
  at(200); // 687 TFLOP/s: beyond the tf32 peak too
  EXPECT_FALSE(*f.plausible);
  // bf16 buffers may use the 16-bit tensor-core rates: 687 is fine there.
  manifest.params[2].type = ElementType::bf16;
  at(200);
  EXPECT_TRUE(*f.plausible);
}

TEST_F(PlausibilityTest, NoTimingNoVerdict) {
  f.duration.reset();
  judgePlausibility(f, manifest, device);
  EXPECT_FALSE(f.plausible.has_value());
  f.launchStatus = "timeout";
  judgePlausibility(f, manifest, device);
  EXPECT_FALSE(f.plausible.has_value());
}

TEST(FeedbackTest, TrustFieldsRoundTripAndUtilizationIsUncapped) {
  Feedback f;
  f.payload = "saxpy";
  f.launchStatus = "ok";
  f.correctness = "pass";
  f.seed = (uint64_t(1) << 53) - 3;
  f.checkedLaunches = {1, 2, 3, 17, 404, 2004};
  f.launchCount = 2004;
  f.stateful = false;
  f.bitwiseReproducible = true;
  f.inputsUnchanged = true;
  f.ghostCheck = "caught";
  f.plausible = false;
  f.implausibleReason = "too fast";
  f.bandwidthUtilization = 1.17;
  f.copyBandwidthGBs = 4250;
  std::string text = serializeFeedback(f);
  EXPECT_NE(text.find("\"schema_version\": 3"), std::string::npos) << text;
  EXPECT_NE(text.find("\"bandwidth_utilization\": 1.17"), std::string::npos);
  Feedback g;
  std::string error;
  ASSERT_TRUE(parseFeedback(text, g, error)) << error;
  EXPECT_EQ(g.schemaVersion, 3);
  EXPECT_EQ(*g.seed, f.seed);
  EXPECT_EQ(g.checkedLaunches, f.checkedLaunches);
  EXPECT_EQ(g.launchCount, 2004);
  EXPECT_FALSE(*g.stateful);
  EXPECT_TRUE(*g.bitwiseReproducible);
  EXPECT_TRUE(*g.inputsUnchanged);
  EXPECT_EQ(g.ghostCheck, "caught");
  EXPECT_FALSE(*g.plausible);
  EXPECT_EQ(g.implausibleReason, "too fast");
  EXPECT_EQ(*g.bandwidthUtilization, 1.17);
  EXPECT_EQ(serializeFeedback(g), text);
  // A schema-1 file (no version, no trust fields) still reads.
  ASSERT_TRUE(parseFeedback(R"({"payload": "saxpy", "launch_status": "ok"})",
                            g, error))
      << error;
  EXPECT_EQ(g.schemaVersion, 1);
  EXPECT_FALSE(g.plausible.has_value());
  EXPECT_EQ(g.ghostCheck, "not_run");
}

TEST(ScalarTest, AScalarWithoutValueIsSeededTheSameForKernelAndReference) {
  // The manifest: no value, role scalar; it round-trips so.
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(withField(R"("value": 2.0)", R"("role": "scalar")"),
                            m, error))
      << error;
  EXPECT_TRUE(m.params[0].seeded);
  std::string text = serializeManifest(m);
  EXPECT_NE(text.find("\"role\": \"scalar\""), std::string::npos) << text;
  Manifest again;
  ASSERT_TRUE(parseManifest(text, again, error)) << error;
  EXPECT_TRUE(again.params[0].seeded);
  // A fixed scalar keeps its value, and says role scalar too.
  Manifest fixed;
  ASSERT_TRUE(parseManifest(kGood, fixed, error));
  EXPECT_FALSE(fixed.params[0].seeded);
  EXPECT_NE(serializeManifest(fixed).find("\"value\": 2.0"), std::string::npos);
  EXPECT_NE(parseError(withField(R"("value": 2.0)", R"("role": "in")"))
                .find("params[0].role: a scalar's role is \"scalar\""),
            std::string::npos);

  // Values: from the seed, the same for the same seed (the reference's
  // signature equal), fresh for another; floats in [0.5, 2] exact in bf16.
  std::vector<double> v1 = scalarValues(m, 41), v2 = scalarValues(m, 41);
  EXPECT_EQ(v1, v2);
  EXPECT_EQ(v1[1], 0.0); // a buffer
  bool differs = false;
  for (uint64_t seed = 1; seed < 20; ++seed) {
    double a = scalarValues(m, seed)[0];
    EXPECT_GE(a, 0.5);
    EXPECT_LE(a, 2.0);
    EXPECT_EQ(a * 8, std::floor(a * 8)); // k / 8: exact in f16 and bf16
    differs = differs || a != v1[0];
  }
  EXPECT_TRUE(differs);
  EXPECT_EQ(scalarValues(fixed, 41)[0], 2.0);
  m.params[0].type = ElementType::i32;
  for (uint64_t seed = 1; seed < 20; ++seed) {
    double k = scalarValues(m, seed)[0];
    EXPECT_GE(k, 1.0);
    EXPECT_LE(k, 8.0);
    EXPECT_EQ(k, std::floor(k));
  }

  // A seeded scalar against a fixed one is another signature.
  m.params[0].type = ElementType::f32;
  EXPECT_NE(compareSignatures(m, fixed).find("scalar value differs"),
            std::string::npos);
  EXPECT_EQ(compareSignatures(m, m), "");
}

namespace {
const char *kDynamic = R"J({
  "format": "tirx-bundle", "version": 1, "payload": "rowsum", "chip": "sm_90",
  "sizes": [{"name": "m", "param": 0, "dim": 0, "default": 8, "max": 4096}],
  "params": [
    {"name": "x", "kind": "buffer", "type": "f32", "shape": ["m", 256], "role": "in"},
    {"name": "s", "kind": "buffer", "type": "f32", "shape": ["m"], "role": "out"}],
  "scratch": [{"name": "scratch0", "type": "f32", "shape": ["ceildiv(m, 4) * 2"]}],
  "kernels": [{"name": "k", "ptx": "k.ptx", "cubin": null,
               "grid": ["ceildiv(m, 3)", 1, 1], "block": [256, 1, 1],
               "flops": "256 * m",
               "args": [{"param": 0, "descriptor": true}, {"param": 1},
                        {"scratch": 0, "descriptor": true},
                        {"type": "i64", "value": "floordiv(m - 1, 2) + mod(0 - m, 3)"}]}]})J";
} // namespace

TEST(SizesTest, BindEvaluatesShapesGridsArgsAndFlops) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kDynamic, m, error)) << error;
  EXPECT_FALSE(m.bound());
  ASSERT_EQ(m.sizes.size(), 1u);
  EXPECT_EQ(*m.sizes[0].defaultValue, 8);
  // The symbolic form round-trips.
  Manifest again;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  EXPECT_EQ(serializeManifest(again), serializeManifest(m));

  ASSERT_TRUE(bindSizes(m, {{"m", 1000003 % 4096}}, error)) << error;
  int64_t v = 1000003 % 4096; // 579
  EXPECT_TRUE(m.bound());
  EXPECT_EQ(m.params[0].shape, (std::vector<int64_t>{v, 256}));
  EXPECT_EQ(m.params[0].bytes, uint64_t(v * 256 * 4));
  EXPECT_EQ(m.params[1].bytes, uint64_t(v * 4));
  EXPECT_EQ(m.scratch[0].shape, (std::vector<int64_t>{(v + 3) / 4 * 2}));
  EXPECT_EQ(m.kernels[0].grid[0], (v + 2) / 3);
  EXPECT_EQ(m.kernels[0].flops, uint64_t(256 * v));
  // floordiv and mod round towards minus infinity: (578 / 2) + (-579 mod 3).
  EXPECT_EQ(m.kernels[0].args[3].value, double(289 + 0));
  EXPECT_TRUE(m.kernels[0].args[0].descriptor);
  EXPECT_FALSE(m.kernels[0].args[1].descriptor);
  EXPECT_EQ(boundSizes(m), (SizeValues{{"m", v}}));

  // Defaults when not given.
  Manifest d;
  ASSERT_TRUE(parseManifest(kDynamic, d, error)) << error;
  ASSERT_TRUE(bindSizes(d, {}, error)) << error;
  EXPECT_EQ(d.params[1].shape, std::vector<int64_t>{8});
}

TEST(SizesTest, RefusalsNameTheDimension) {
  auto bindError = [](const std::string &text, const SizeValues &sizes) {
    Manifest m;
    std::string error;
    EXPECT_TRUE(parseManifest(text, m, error)) << error;
    EXPECT_FALSE(bindSizes(m, sizes, error));
    return error;
  };
  EXPECT_EQ(bindError(kDynamic, {{"m", 5000}}),
            "size m (dimension 0 of x) = 5000 is outside its range [1, 4096]");
  EXPECT_EQ(bindError(kDynamic, {{"n", 5}}),
            "size n is not a dimension of this bundle (it declares m)");
  std::string noDefault = kDynamic;
  noDefault.replace(noDefault.find("\"default\": 8, "), 14, "");
  EXPECT_EQ(bindError(noDefault, {}),
            "size m (dimension 0 of x) has no default: give it with --size m=N");

  std::string text = kDynamic;
  auto parseError = [](const std::string &t) {
    Manifest m;
    std::string error;
    EXPECT_FALSE(parseManifest(t, m, error));
    return error;
  };
  auto with = [&](const std::string &from, const std::string &to) {
    std::string t = kDynamic;
    size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  EXPECT_NE(parseError(with("\"ceildiv(m, 3)\"", "\"ceildiv(m 3)\"")).find(
                "kernels[0].grid[0]: \"ceildiv(m 3)\": expected ',' in ceildiv"),
            std::string::npos);
  EXPECT_NE(parseError(with("\"256 * m\"", "\"256 * m +\"")).find(
                "kernels[0].flops: \"256 * m +\": expression ends early"),
            std::string::npos);
  EXPECT_NE(parseError(with("\"name\": \"m\"", "\"name\": \"min\"")).find(
                "sizes[0].name: expected an identifier"),
            std::string::npos);
  EXPECT_NE(parseError(with("\"param\": 0, \"dim\": 0", "\"param\": 0, \"dim\": 1"))
                .find("sizes[0]: parameter x's dimension 1 is not \"m\""),
            std::string::npos);
  // A grid that leaves CUDA's limits at the sizes given.
  std::string wide = with("\"ceildiv(m, 3)\", 1, 1", "1, \"m * 100\", 1");
  EXPECT_EQ(bindError(wide, {{"m", 4000}}),
            "kernels[0].grid[1] = m * 100 is 400000 at these sizes, outside "
            "[1, 65535]");
  // Division by a non-positive expression.
  std::string zero = with("\"ceildiv(m, 3)\"", "\"ceildiv(m, m - m)\"");
  EXPECT_EQ(bindError(zero, {}),
            "kernels[0].grid[0]: \"ceildiv(m, m - m)\": ceildiv by 0");

  // 64 levels of parentheses or calls, not 65: each level recursed, and a
  // string of 100000 '(' overflowed the stack. The text is quoted up to
  // 80 characters.
  std::string deep64 = std::string(64, '(') + "m" + std::string(64, ')');
  EXPECT_EQ(checkSizeExpression(deep64, {"m"}), "");
  EXPECT_EQ(checkSizeExpression("(" + deep64 + ")", {"m"}),
            "\"" + std::string(65, '(') + "m" + std::string(11, ')') +
                "...\": nested more than 64 levels deep");
  std::string calls;
  for (int i = 0; i < 65; ++i)
    calls = "max(" + (calls.empty() ? "m" : calls) + ", 1)";
  EXPECT_NE(checkSizeExpression(calls, {"m"}).find(
                "nested more than 64 levels deep"),
            std::string::npos);
  // An i64 argument of -2^63: std::llabs of it is negative.
  EXPECT_EQ(bindError(with("\"floordiv(m - 1, 2) + mod(0 - m, 3)\"",
                           "\"0 - 9223372036854775807 - 1\""),
                      {}),
            "kernels[0].args[3].value: 0 - 9223372036854775807 - 1 is "
            "-9223372036854775808, outside what an i64 argument holds "
            "exactly");

  SizeValues values;
  std::string error;
  EXPECT_TRUE(parseSizeAssignments("m=3,n=1000003", values, error));
  EXPECT_EQ(values, (SizeValues{{"m", 3}, {"n", 1000003}}));
  EXPECT_FALSE(parseSizeAssignments("m=x", values, error));
  EXPECT_EQ(error, "expects NAME=N (e.g. m=1000003), got 'm=x'");
}

TEST(JsonLimitsTest, DepthCountsBracketsOutsideStrings) {
  std::string error;
  EXPECT_TRUE(tirx::runtime::jsonDepthWithin("[[1]]", error, 2));
  EXPECT_FALSE(tirx::runtime::jsonDepthWithin("[[[1]]]", error, 2));
  EXPECT_EQ(error, "JSON nested more than 2 levels deep");
  // Brackets in strings, escaped quotes among them, are text.
  EXPECT_TRUE(tirx::runtime::jsonDepthWithin(
      R"({"a": "[[[[{{{{\"[[[["})", error, 1));
  // Closing brackets never take the depth below 0: "]]]][[" is 2 deep.
  EXPECT_FALSE(tirx::runtime::jsonDepthWithin("]]]][[", error, 1));
  std::string deep(200000, '[');
  EXPECT_FALSE(tirx::runtime::jsonDepthWithin(deep + std::string(200000, ']'),
                                              error));
}
