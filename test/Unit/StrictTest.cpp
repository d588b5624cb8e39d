//===- StrictTest.cpp - adversarial inputs, the sensitivity rule, ncu ----===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The host side of the stricter checks (docs/correctness.md) and of the
// hardware counters (docs/counters.md): adversarial input sets per type,
// one-ulp moves, the tolerance that follows the reference's own sensitivity
// (a reduction reassociated under cancellation passes, wrong ones fail),
// and ncu's CSV and failures. No GPU.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Check.h"
#include "tirx/Runtime/Counters.h"
#include "tirx/Runtime/Feedback.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

using namespace tirx::runtime;

namespace {
const ElementType kFloats[] = {ElementType::f16, ElementType::bf16,
                               ElementType::f32, ElementType::f64};

std::vector<uint8_t> filled(ElementType type, size_t n, InputKind kind,
                            int level, uint64_t seed = 11) {
  std::vector<uint8_t> bytes(n * elementBytes(type));
  fillAdversarial(bytes, type, kind, level, seed);
  return bytes;
}

double largestFinite(ElementType type) {
  switch (type) {
  case ElementType::f16: return 65504;
  case ElementType::f64: return 1.7976931348623157e308;
  default: return 3.3895313892515355e38; // bf16: f32's range, 8 bits
  }
}
} // namespace

TEST(Adversarial, LargeValuesAreFiniteAndNearTheScale) {
  for (ElementType type : kFloats)
    for (int level = 0; level < adversarialLevels(InputKind::large); ++level) {
      double scale = adversarialScale(InputKind::large, level, type);
      std::vector<uint8_t> b = filled(type, 4096, InputKind::large, level);
      double biggest = 0;
      for (size_t i = 0; i < 4096; ++i) {
        double v = elementAt(b, type, i);
        ASSERT_TRUE(std::isfinite(v)) << elementTypeName(type) << " " << i;
        ASSERT_LE(std::fabs(v), scale);
        biggest = std::max(biggest, std::fabs(v));
      }
      EXPECT_GT(biggest, 0.99 * scale) << elementTypeName(type);
      EXPECT_LE(scale, largestFinite(type));
    }
  // Level 0 is far beyond random inputs' [-1, 1): half the exponent range
  // of f16, 2^100 for f32 and bf16.
  EXPECT_EQ(adversarialScale(InputKind::large, 0, ElementType::f16), 16384);
  EXPECT_EQ(adversarialScale(InputKind::large, 0, ElementType::f32),
            std::ldexp(1.0, 100));
}

TEST(Adversarial, CancellingValuesAlternateAroundTheOffset) {
  for (ElementType type : kFloats) {
    double offset = adversarialScale(InputKind::cancel, 0, type);
    std::vector<uint8_t> b = filled(type, 1000, InputKind::cancel, 0);
    double sum = 0, magnitude = 0;
    for (size_t i = 0; i < 1000; ++i) {
      double v = elementAt(b, type, i);
      EXPECT_EQ(v > 0, i % 2 == 0) << elementTypeName(type) << " " << i;
      EXPECT_LE(std::fabs(std::fabs(v) - offset), 1.0 + offset * 0.01);
      sum += v;
      magnitude += std::fabs(v);
    }
    // The offsets cancel: the sum is that of the small parts.
    EXPECT_LT(std::fabs(sum), magnitude / offset * 2) << elementTypeName(type);
  }
}

TEST(Adversarial, DenormalValuesAreSubnormalInTheirType) {
  for (ElementType type : kFloats) {
    double smallestNormal = adversarialScale(InputKind::denormal, 0, type);
    std::vector<uint8_t> b = filled(type, 2000, InputKind::denormal, 0);
    int nonzero = 0;
    for (size_t i = 0; i < 2000; ++i) {
      double v = elementAt(b, type, i);
      EXPECT_LT(std::fabs(v), smallestNormal) << elementTypeName(type);
      nonzero += v != 0;
    }
    EXPECT_GT(nonzero, 1900) << elementTypeName(type);
  }
  // f16's subnormals lie below 2^-14.
  EXPECT_EQ(adversarialScale(InputKind::denormal, 0, ElementType::f16),
            std::ldexp(1.0, -14));
}

TEST(Adversarial, IntegerBuffersStayRandomAndOutputsPoisoned) {
  Manifest m;
  m.params.resize(3);
  m.params[0] = {"idx", true, ElementType::i32, {64}, {}, 256, Role::in};
  m.params[1] = {"x", true, ElementType::f16, {64}, {}, 128, Role::in};
  m.params[2] = {"y", true, ElementType::f32, {64}, {}, 256, Role::out};
  auto in = makeAdversarialInputs(m, InputKind::large, 0, 5);
  auto random = makeInputs(m, 5);
  EXPECT_EQ(in[0], random[0]); // indices must stay valid
  EXPECT_NE(in[1], random[1]);
  for (size_t i = 0; i < 64; ++i)
    EXPECT_TRUE(isPoison(in[2], ElementType::f32, i));
  // Deterministic in the seed.
  EXPECT_EQ(makeAdversarialInputs(m, InputKind::large, 0, 5), in);
  EXPECT_NE(makeAdversarialInputs(m, InputKind::large, 0, 6), in);
}

TEST(Adversarial, OneUlpMovesAreExact) {
  std::vector<float> values = {1.0f, -1.0f, 0.0f, -0.0f, 3.5e-42f, -1e-45f,
                               3.4028235e38f, INFINITY};
  std::vector<uint8_t> b(values.size() * 4);
  std::memcpy(b.data(), values.data(), b.size());
  perturbUlps(b, ElementType::f32, 1, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    float want = std::isinf(values[i]) ? values[i]
                 : values[i] == 3.4028235e38f
                     ? values[i] // short of infinity
                     : std::nextafter(values[i], INFINITY);
    EXPECT_EQ(float(elementAt(b, ElementType::f32, i)), want) << i;
  }
  // f16: one step of its 10-bit mantissa; random directions, each one ulp.
  std::vector<uint8_t> h(2 * 100);
  fillRandom(h, ElementType::f16, 3);
  std::vector<uint8_t> moved = h;
  perturbUlps(moved, ElementType::f16, 1, 99);
  int up = 0;
  for (size_t i = 0; i < 100; ++i) {
    uint16_t a, c;
    std::memcpy(&a, h.data() + 2 * i, 2);
    std::memcpy(&c, moved.data() + 2 * i, 2);
    double before = elementAt(h, ElementType::f16, i);
    double after = elementAt(moved, ElementType::f16, i);
    EXPECT_NE(before, after);
    EXPECT_EQ(std::abs(int(a & 0x7FFF) - int(c & 0x7FFF)), 1) << i;
    up += after > before;
  }
  EXPECT_GT(up, 20);
  EXPECT_LT(up, 80);
  // tf32 math: the tensor cores keep 10 of f32's 23 bits.
  EXPECT_EQ(sensitivityUlps(ElementType::f32, "tf32"), 1 << 13);
  EXPECT_EQ(sensitivityUlps(ElementType::f32, "ieee"), 1);
  EXPECT_EQ(sensitivityUlps(ElementType::bf16, "tf32"), 1);
}

namespace {
/// Row sums of a rows x cols f32 matrix, as the reference does them (one
/// loop) or as a block of 256 threads does (strided partial sums, then a
/// shared-memory tree): the same terms, reassociated.
using Summer = std::function<float(const float *, int)>;
float sequential(const float *x, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i];
  return s;
}
float blockTree(const float *x, int n) {
  float partial[256] = {0};
  for (int t = 0; t < 256; ++t)
    for (int i = t; i < n; i += 256)
      partial[t] += x[i];
  for (int stride = 128; stride > 0; stride /= 2)
    for (int t = 0; t < stride; ++t)
      partial[t] += partial[t + stride];
  return partial[0];
}
float halfAccumulator(const float *x, int n) { // a wrong schedule
  float s = 0;
  for (int i = 0; i < n; ++i)
    s = halfToFloat(floatToHalf(s + x[i]));
  return s;
}
float dropsLast(const float *x, int n) { return blockTree(x, n - 1); }

std::vector<uint8_t> rowSums(const std::vector<uint8_t> &in, int rows,
                             int cols, const Summer &sum) {
  std::vector<uint8_t> out(size_t(rows) * 4);
  const float *x = reinterpret_cast<const float *>(in.data());
  for (int r = 0; r < rows; ++r) {
    float s = sum(x + size_t(r) * cols, cols);
    std::memcpy(out.data() + size_t(r) * 4, &s, 4);
  }
  return out;
}

/// The runner's adversarial check of one f32 row-sum candidate.
Comparison checkRowSums(InputKind kind, int level, const Summer &candidate,
                        int rows = 64, int cols = 8192) {
  std::vector<uint8_t> in(size_t(rows) * cols * 4);
  fillAdversarial(in, ElementType::f32, kind, level, 77);
  std::vector<uint8_t> want = rowSums(in, rows, cols, sequential);
  std::vector<std::vector<uint8_t>> moved;
  for (uint64_t direction : {uint64_t(0), uint64_t(78)}) {
    std::vector<uint8_t> m = in;
    perturbUlps(m, ElementType::f32, 1, direction);
    moved.push_back(rowSums(m, rows, cols, sequential));
  }
  std::vector<double> delta =
      referenceSensitivity(ElementType::f32, want, moved);
  return compareSensitive("s", ElementType::f32,
                          rowSums(in, rows, cols, candidate), want, delta);
}
} // namespace

TEST(SensitivityRule, AReassociatedSumPassesUnderCancellation) {
  // The tree's rounding under cancellation is far beyond the random-input
  // tolerance (1e-4 relative, 1e-5 of the RMS): the reference's own loop
  // is that far off the exact sum. The sensitivity rule lets it pass.
  std::vector<uint8_t> in(size_t(64) * 8192 * 4);
  fillAdversarial(in, ElementType::f32, InputKind::cancel, 0, 77);
  Comparison fixed = compareBuffers(
      "s", ElementType::f32, rowSums(in, 64, 8192, blockTree),
      rowSums(in, 64, 8192, sequential),
      toleranceFor(ElementType::f32, "ieee", 8192));
  EXPECT_FALSE(fixed.pass) << "the fixed tolerance should not suffice";
  for (InputKind kind : adversarialKinds())
    for (int level = 0; level < adversarialLevels(kind); ++level) {
      Comparison c = checkRowSums(kind, level, blockTree);
      EXPECT_TRUE(c.pass) << inputKindName(kind) << " " << level << ": "
                          << c.detail;
    }
}

TEST(SensitivityRule, WrongSchedulesFail) {
  // f16 accumulation: right enough on random inputs of 16 terms, never
  // under cancellation around 2^12 or with large values.
  EXPECT_FALSE(checkRowSums(InputKind::cancel, 0, halfAccumulator).pass);
  EXPECT_FALSE(checkRowSums(InputKind::large, 3, halfAccumulator).pass);
  // One term of 8192 dropped.
  Comparison dropped = checkRowSums(InputKind::cancel, 0, dropsLast);
  EXPECT_FALSE(dropped.pass);
  EXPECT_NE(dropped.detail.find("the reference's own change"),
            std::string::npos)
      << dropped.detail;
  // A uniform 0.4% scaling (the bar the random-input tolerance sets).
  EXPECT_FALSE(checkRowSums(InputKind::large, 2, [](const float *x, int n) {
                 return blockTree(x, n) * 1.004f;
               }).pass);
}

TEST(SensitivityRule, SubnormalsFlushedToZeroFail) {
  // y = 2x + y on subnormal x and y: flushing them gives 0.
  std::vector<uint8_t> x(4096), y(4096);
  fillAdversarial(x, ElementType::f32, InputKind::denormal, 0, 1);
  fillAdversarial(y, ElementType::f32, InputKind::denormal, 0, 2);
  auto saxpy = [&](const std::vector<uint8_t> &xs, bool ftz) {
    std::vector<uint8_t> out(4096);
    for (size_t i = 0; i < 1024; ++i) {
      float a = float(elementAt(xs, ElementType::f32, i));
      float b = float(elementAt(y, ElementType::f32, i));
      float r = ftz ? 0.0f : 2.0f * a + b;
      std::memcpy(out.data() + 4 * i, &r, 4);
    }
    return out;
  };
  std::vector<uint8_t> want = saxpy(x, false), moved = x;
  perturbUlps(moved, ElementType::f32, 1, 0);
  std::vector<double> delta =
      referenceSensitivity(ElementType::f32, want, {saxpy(moved, false)});
  EXPECT_TRUE(compareSensitive("y", ElementType::f32, saxpy(x, false), want,
                               delta)
                  .pass);
  Comparison flushed =
      compareSensitive("y", ElementType::f32, saxpy(x, true), want, delta);
  EXPECT_FALSE(flushed.pass);
  EXPECT_EQ(flushed.firstBad, 0);
}

TEST(SensitivityRule, NaNPoisonAndLoneInfinitiesNeverPass) {
  std::vector<float> want = {1, INFINITY, 2, 3};
  std::vector<double> delta = {INFINITY, 0, INFINITY, 0};
  auto bytes = [](std::vector<float> v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  EXPECT_TRUE(compareSensitive("y", ElementType::f32,
                               bytes({1e30f, INFINITY, -5, 3}), bytes(want),
                               delta)
                  .pass); // unbounded sensitivity, equal infinities
  EXPECT_FALSE(compareSensitive("y", ElementType::f32,
                                bytes({NAN, INFINITY, 2, 3}), bytes(want),
                                delta)
                   .pass);
  EXPECT_FALSE(compareSensitive("y", ElementType::f32,
                                bytes({1, INFINITY, INFINITY, 3}),
                                bytes(want), delta)
                   .pass);
  // tf32 products: large inputs are off by tf32's own rounding (the H200's
  // tf32 use_mma matmul: -1.19080e37 against -1.19149e37, 5.7e-4, where one
  // ulp of every input moved the reference by 3.4e32): that passes under
  // the bundle's tf32 math, not under ieee.
  std::vector<float> big = {-1.19148762e37f};
  std::vector<double> small = {3.38e32};
  EXPECT_TRUE(compareSensitive("C", ElementType::f32, bytes({-1.19080486e37f}),
                               bytes(big), small, "tf32")
                  .pass);
  EXPECT_FALSE(compareSensitive("C", ElementType::f32, bytes({-1.19080486e37f}),
                                bytes(big), small, "ieee")
                   .pass);
  EXPECT_FALSE(compareSensitive("C", ElementType::f32, bytes({-1.15e37f}),
                                bytes(big), small, "tf32")
                   .pass); // 3.5% off: wrong under any math
  std::vector<uint8_t> poisoned = bytes(want);
  fillPoison(poisoned, ElementType::f32);
  EXPECT_FALSE(
      compareSensitive("y", ElementType::f32, poisoned, bytes(want), delta)
          .pass);
  EXPECT_FALSE(compareSensitive("y", ElementType::f32, bytes({1, 2}),
                                bytes(want), delta)
                   .pass);
  // Sensitivity: infinite where a moved run overflowed.
  std::vector<double> d = referenceSensitivity(
      ElementType::f32, bytes(want), {bytes({1.5f, INFINITY, INFINITY, 3})});
  EXPECT_EQ(d[0], 0.5);
  EXPECT_EQ(d[1], 0);
  EXPECT_TRUE(std::isinf(d[2]));
}

namespace {
/// Layer norm of rows x 8192 f32 (weight, bias): the reference's sums one
/// loop each (mean, then variance), or a 256-thread tree's.
std::vector<uint8_t> layerNorm(const std::vector<uint8_t> &x,
                               const std::vector<uint8_t> &w,
                               const std::vector<uint8_t> &b, int rows,
                               const Summer &sum) {
  const int cols = 8192;
  const float *xs = reinterpret_cast<const float *>(x.data());
  const float *ws = reinterpret_cast<const float *>(w.data());
  const float *bs = reinterpret_cast<const float *>(b.data());
  std::vector<uint8_t> out(x.size());
  float *y = reinterpret_cast<float *>(out.data());
  std::vector<float> centred(cols);
  for (int r = 0; r < rows; ++r) {
    const float *row = xs + size_t(r) * cols;
    float mean = sum(row, cols) / cols;
    for (int i = 0; i < cols; ++i)
      centred[i] = (row[i] - mean) * (row[i] - mean);
    float rstd = 1.0f / std::sqrt(sum(centred.data(), cols) / cols + 1e-5f);
    for (int i = 0; i < cols; ++i)
      y[size_t(r) * cols + i] = (row[i] - mean) * rstd * ws[i] + bs[i];
  }
  return out;
}
} // namespace

TEST(SensitivityRule, ALayerNormPassesUnderCancellation) {
  // The H200's one-block layer norm against its seed on 'cancel' inputs
  // (x, weight and bias +-4096 + [-1, 1)): y = w xhat + b cancels to about
  // 1 from terms of 4096, and the variance's sequential sum is off by
  // u sqrt(K) of itself: 0.0054 off where one ulp of every input moved
  // the reference by 2.4e-4. The random-input rule's RMS floor covers it;
  // a dropped term of the variance or an f16 sum does not pass.
  const int rows = 4, cols = 8192;
  std::vector<uint8_t> x(size_t(rows) * cols * 4), w(cols * 4), b(cols * 4);
  fillAdversarial(x, ElementType::f32, InputKind::cancel, 0, 5);
  fillAdversarial(w, ElementType::f32, InputKind::cancel, 0, 6);
  fillAdversarial(b, ElementType::f32, InputKind::cancel, 0, 7);
  std::vector<uint8_t> want = layerNorm(x, w, b, rows, sequential);
  std::vector<std::vector<uint8_t>> moved;
  for (uint64_t direction : {uint64_t(0), uint64_t(9)}) {
    std::vector<uint8_t> mx = x, mw = w, mb = b;
    perturbUlps(mx, ElementType::f32, 1, direction);
    perturbUlps(mw, ElementType::f32, 1, direction + 1);
    perturbUlps(mb, ElementType::f32, 1, direction + 2);
    moved.push_back(layerNorm(mx, mw, mb, rows, sequential));
  }
  std::vector<double> delta =
      referenceSensitivity(ElementType::f32, want, moved);
  Comparison tree =
      compareSensitive("y", ElementType::f32,
                       layerNorm(x, w, b, rows, blockTree), want, delta);
  EXPECT_TRUE(tree.pass) << tree.detail;
  EXPECT_FALSE(compareSensitive("y", ElementType::f32,
                                layerNorm(x, w, b, rows, dropsLast), want,
                                delta)
                   .pass);
  EXPECT_FALSE(compareSensitive("y", ElementType::f32,
                                layerNorm(x, w, b, rows, halfAccumulator),
                                want, delta)
                   .pass);
}

namespace {
/// C = A B (n x n, f32 images), in double; `tf32` truncates the inputs to
/// tf32 first, as mma.sync's tf32 operands do; `dropK` leaves out term k.
std::vector<uint8_t> matmul(const std::vector<uint8_t> &a,
                            const std::vector<uint8_t> &b, int n, bool tf32,
                            int dropK = -1) {
  auto at = [&](const std::vector<uint8_t> &m, size_t i) {
    float v = float(elementAt(m, ElementType::f32, i));
    if (tf32) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      bits &= 0xffffe000u;
      std::memcpy(&v, &bits, 4);
    }
    return double(v);
  };
  std::vector<uint8_t> c(size_t(n) * n * 4);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < n; ++k)
        if (k != dropK)
          s += at(a, size_t(i) * n + k) * at(b, size_t(k) * n + j);
      float f = float(s);
      std::memcpy(c.data() + (size_t(i) * n + j) * 4, &f, 4);
    }
  return c;
}
} // namespace

TEST(SensitivityRule, Tf32MatmulPassesOnEveryElement) {
  // The H200's tf32 mma matmul (256^3) failed 'large' at one element of
  // 65536: its moved terms cancelled, so the reference's change there was
  // 1/50 of its neighbours'. The block floor holds it to theirs; a dropped
  // term still fails.
  const int n = 128;
  for (uint64_t seed : {11, 21, 31, 41})
    for (int level = 0; level < adversarialLevels(InputKind::large); ++level) {
      std::vector<uint8_t> a(size_t(n) * n * 4), b(a.size());
      fillAdversarial(a, ElementType::f32, InputKind::large, level, seed);
      fillAdversarial(b, ElementType::f32, InputKind::large, level, seed + 1);
      std::vector<uint8_t> want = matmul(a, b, n, false);
      bool finite = true;
      for (size_t i = 0; i < size_t(n) * n; ++i)
        finite = finite && std::isfinite(elementAt(want, ElementType::f32, i));
      if (!finite)
        continue; // the runner moves on to the next level
      std::vector<std::vector<uint8_t>> moved;
      for (uint64_t direction : {uint64_t(0), seed | 1}) {
        std::vector<uint8_t> ma = a, mb = b;
        int ulps = sensitivityUlps(ElementType::f32, "tf32");
        perturbUlps(ma, ElementType::f32, ulps, direction);
        perturbUlps(mb, ElementType::f32, ulps, direction + 1);
        moved.push_back(matmul(ma, mb, n, false));
      }
      std::vector<double> delta =
          referenceSensitivity(ElementType::f32, want, moved);
      Comparison c = compareSensitive("C", ElementType::f32,
                                      matmul(a, b, n, true), want, delta,
                                      "tf32");
      EXPECT_TRUE(c.pass) << "seed " << seed << " level " << level << ": "
                          << c.detail;
      EXPECT_FALSE(compareSensitive("C", ElementType::f32,
                                    matmul(a, b, n, true, 7), want, delta,
                                    "tf32")
                       .pass)
          << "seed " << seed << " level " << level;
    }
}

TEST(SensitivityRule, TheFloorIsTheBlocksRms) {
  // 64 elements whose change is 8 and one whose is 0: that one gets 1 (the
  // block's RMS, 8 * sqrt(63/64), over 8), the others keep theirs.
  std::vector<float> want(64, 0.0f), moved(64, 8.0f);
  moved[5] = 0;
  auto bytes = [](const std::vector<float> &v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  std::vector<double> d =
      referenceSensitivity(ElementType::f32, bytes(want), {bytes(moved)});
  EXPECT_NEAR(d[5], std::sqrt(63.0 / 64) * 8 / 8, 1e-12);
  EXPECT_EQ(d[0], 8);
}

TEST(Determinism, FirstBitDifference) {
  std::vector<uint8_t> a(16, 0), b(16, 0);
  EXPECT_EQ(firstBitDifference(a, b, ElementType::f32), -1);
  b[9] = 1;
  EXPECT_EQ(firstBitDifference(a, b, ElementType::f32), 2);
  // -0 and +0 compare equal as numbers, not as bits.
  float z = -0.0f;
  std::memcpy(a.data(), &z, 4);
  b[9] = 0;
  EXPECT_EQ(firstBitDifference(a, b, ElementType::f32), 0);
}

TEST(FeedbackSchema3, StrictAndCounterFieldsRoundTrip) {
  Feedback f;
  f.payload = "saxpy";
  f.correctness = "fail";
  f.correctnessReason = "nondeterministic";
  f.determinismRuns = 3;
  f.adversarial.push_back({"large", "pass", 0, 1.2676506002282294e30, 0.0, ""});
  f.adversarial.push_back(
      {"denormal", "fail", 0, 1.1754943508222875e-38, 2.8e-39, "y[0]: ..."});
  f.adversarial.push_back({"cancel", "skipped", -1, 0, std::nullopt, "why"});
  f.counters.status = "ok";
  f.counters.kernel = "saxpy_kernel";
  f.counters.achievedOccupancy = 0.8347;
  f.counters.dramThroughput = 0.9162;
  f.counters.smThroughput = 0.1708;
  f.counters.passes = 37;
  f.counters.samples = 1;
  f.counters.stalls = {{"long_scoreboard", 0.98}, {"lg_throttle", 0.02}};
  std::string text = serializeFeedback(f);
  EXPECT_NE(text.find("\"schema_version\": 3"), std::string::npos);
  EXPECT_NE(text.find("\"correctness_reason\": \"nondeterministic\""),
            std::string::npos);
  EXPECT_NE(text.find("\"dram_throughput\": 0.9162"), std::string::npos);
  Feedback g;
  std::string error;
  ASSERT_TRUE(parseFeedback(text, g, error)) << error;
  EXPECT_EQ(g.correctnessReason, "nondeterministic");
  EXPECT_EQ(*g.determinismRuns, 3);
  ASSERT_EQ(g.adversarial.size(), 3u);
  EXPECT_EQ(g.adversarial[1].status, "fail");
  EXPECT_FALSE(g.adversarial[2].maxAbsError.has_value());
  EXPECT_EQ(g.counters.stalls.size(), 2u);
  EXPECT_EQ(*g.counters.passes, 37);
  EXPECT_EQ(serializeFeedback(g), text);
  // Absent counters stay null.
  Feedback none;
  std::string plain = serializeFeedback(none);
  EXPECT_NE(plain.find("\"dram_throughput\": null"), std::string::npos);
  EXPECT_NE(plain.find("\"status\": \"not_requested\""), std::string::npos);
  EXPECT_NE(plain.find("\"determinism_runs\": null"), std::string::npos);
}

namespace {
const char *kNcuOutput =
    "==PROF== Connected to process 4242 (/opt/tirx/bin/tirx-run)\n"
    "{\"status\": \"ok\"}\n"
    "==PROF== Profiling \"saxpy_kernel\" - 0: 0%....50%....100% - 37 passes\n"
    "==PROF== Disconnected from process 4242\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\","
    "\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
    "\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
    "\"0\",\"4242\",\"tirx-run\",\"127.0.0.1\",\"saxpy_kernel\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\","
    "\"91.62\"\n"
    "\"0\",\"4242\",\"tirx-run\",\"127.0.0.1\",\"saxpy_kernel\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\","
    "\"17.08\"\n"
    "\"0\",\"4242\",\"tirx-run\",\"127.0.0.1\",\"saxpy_kernel\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\",\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"%\","
    "\"83.47\"\n"
    "\"0\",\"4242\",\"tirx-run\",\"127.0.0.1\",\"saxpy_kernel\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\",\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_"
    "active.ratio\",\"\",\"1,024.50\"\n"
    "\"0\",\"4242\",\"tirx-run\",\"127.0.0.1\",\"saxpy_kernel\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\",\"smsp__average_warps_issue_stalled_wait_per_issue_active."
    "ratio\",\"\",\"25.50\"\n"
    "\"1\",\"4242\",\"tirx-run\",\"127.0.0.1\",\"tirx_fill_f32\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(132, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\","
    "\"5\"\n";
} // namespace

TEST(Counters, ParsesTheDetailsPage) {
  HardwareCounters c;
  std::string error;
  ASSERT_TRUE(parseNcuCsv(kNcuOutput, {"saxpy_kernel"}, c, error)) << error;
  EXPECT_EQ(c.status, "ok");
  EXPECT_EQ(c.kernel, "saxpy_kernel");
  EXPECT_NEAR(*c.dramThroughput, 0.9162, 1e-12); // the fill kernel left out
  EXPECT_NEAR(*c.smThroughput, 0.1708, 1e-12);
  EXPECT_NEAR(*c.achievedOccupancy, 0.8347, 1e-12);
  EXPECT_EQ(*c.passes, 37);
  EXPECT_EQ(*c.samples, 1);
  ASSERT_EQ(c.stalls.size(), 2u);
  EXPECT_EQ(c.stalls[0].first, "long_scoreboard");
  EXPECT_NEAR(c.stalls[0].second, 1024.5 / 1050.0, 1e-12); // "1,024.50"
  EXPECT_TRUE(c.note.empty()) << c.note;
}

TEST(Counters, MissingValuesStayNull) {
  std::string text = kNcuOutput;
  size_t at = text.find("\"83.47\"");
  text.replace(at, 7, "\"n/a\"");
  HardwareCounters c;
  std::string error;
  ASSERT_TRUE(parseNcuCsv(text, {"saxpy_kernel"}, c, error)) << error;
  EXPECT_FALSE(c.achievedOccupancy.has_value());
  EXPECT_NE(c.note.find("sm__warps_active"), std::string::npos) << c.note;
  // Another kernel's launches only, or no report at all: an error.
  EXPECT_FALSE(parseNcuCsv(kNcuOutput, {"other"}, c, error));
  EXPECT_NE(error.find("no launch"), std::string::npos) << error;
  EXPECT_FALSE(parseNcuCsv("==WARNING== No kernels were profiled.\n", {}, c,
                           error));
  EXPECT_FALSE(parseNcuCsv("\"ID\",\"Kernel Name\",\"dram__bytes.sum\"\n"
                           "\"0\",\"k\",\"12\"\n",
                           {}, c, error));
  EXPECT_NE(error.find("Metric Name"), std::string::npos) << error;
}

TEST(Counters, PassCountsPastInt64AreIgnored) {
  // std::stoll threw std::out_of_range on them, out of tirx-run.
  std::string text = kNcuOutput;
  size_t at = text.find("- 37 passes");
  text.replace(at, 11, "- 99999999999999999999 passes");
  HardwareCounters c;
  std::string error;
  ASSERT_TRUE(parseNcuCsv(text, {"saxpy_kernel"}, c, error)) << error;
  EXPECT_FALSE(c.passes.has_value());
  EXPECT_NEAR(*c.dramThroughput, 0.9162, 1e-12);
}

TEST(Counters, FailuresSayWhy) {
  EXPECT_NE(describeNcuFailure(
                1, "==ERROR== ERR_NVGPUCTRPERM - The user does not have "
                   "permission to access NVIDIA GPU Performance Counters")
                .find("ERR_NVGPUCTRPERM"),
            std::string::npos);
  EXPECT_NE(describeNcuFailure(0, "==WARNING== No kernels were profiled.\n")
                .find("no kernel"),
            std::string::npos);
  EXPECT_EQ(describeNcuFailure(1, "==ERROR== Failed to find metric foo\n"),
            "ncu failed: Failed to find metric foo");
  EXPECT_EQ(describeNcuFailure(139, ""),
            "ncu exited with status 139 and no report");
  // ncu missing: a note, no crash.
  setenv("TIRX_NCU", "/nonexistent/ncu", 1);
  EXPECT_EQ(findNcu(), "");
  Manifest m;
  m.kernels.resize(1);
  CounterRequest r;
  r.manifest = &m;
  HardwareCounters c = collectCounters(r);
  EXPECT_EQ(c.status, "unavailable");
  EXPECT_NE(c.note.find("ncu not found"), std::string::npos);
  unsetenv("TIRX_NCU");
}

TEST(Counters, AchievedFiguresJudgeTheBottleneck) {
  Feedback f;
  f.launchStatus = "ok";
  f.duration = TimingStats();
  f.duration->median = 500;
  f.bottleneck = "narrow_global_access";
  f.bottleneckReason = "static";
  HardwareCounters c;
  c.status = "ok";
  c.dramThroughput = 0.92;
  c.smThroughput = 0.2;
  c.achievedOccupancy = 0.8;
  c.stalls = {{"long_scoreboard", 0.9}};
  Feedback mem = f;
  applyCounters(mem, c);
  EXPECT_EQ(mem.bottleneck, "memory_bound");
  EXPECT_EQ(*mem.achievedOccupancy, 0.8);
  EXPECT_NE(mem.bottleneckReason.find("long_scoreboard 90%"),
            std::string::npos)
      << mem.bottleneckReason;
  c.dramThroughput = 0.3;
  c.smThroughput = 0.85;
  Feedback compute = f;
  applyCounters(compute, c);
  EXPECT_EQ(compute.bottleneck, "compute_bound");
  Feedback launch = f;
  launch.bottleneck = "launch_bound";
  applyCounters(launch, c);
  EXPECT_EQ(launch.bottleneck, "launch_bound");
  // Unavailable: nothing measured, nothing changed but the note.
  HardwareCounters none;
  none.status = "unavailable";
  none.note = "ncu not found";
  Feedback same = f;
  applyCounters(same, none);
  EXPECT_EQ(same.bottleneck, "narrow_global_access");
  EXPECT_FALSE(same.achievedOccupancy.has_value());
  EXPECT_EQ(same.counters.note, "ncu not found");
}

// f16 sums of f16 products on tensor cores (use_wgmma's f16 C) against the
// reference's f16 products: on 'denormal' inputs every product underflows
// to 0 in the reference, while the tensor cores sum them exactly. A few
// subnormal steps off pass under f16 math with K = 4096 (not under ieee,
// which has no such rounding); a normal-sized error never does.
TEST(SensitivityRule, F16SumsOfUnderflowingProducts) {
  auto halves = [](std::vector<uint16_t> v) {
    std::vector<uint8_t> b(v.size() * 2);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  std::vector<uint8_t> want = halves({0, 0, 0, 0});
  std::vector<double> delta(4, 0.0);
  // 4 x 2^-24 (2.4e-7) and -3 x 2^-24.
  std::vector<uint8_t> near = halves({0x0004, 0x8003, 0, 0x0001});
  EXPECT_TRUE(compareSensitive("c", ElementType::f16, near, want, delta, "f16",
                               4096)
                  .pass);
  EXPECT_FALSE(compareSensitive("c", ElementType::f16, near, want, delta,
                                "ieee", 4096)
                   .pass);
  // 1.0e-4, a normal f16.
  std::vector<uint8_t> far = halves({0x068E, 0, 0, 0});
  EXPECT_FALSE(compareSensitive("c", ElementType::f16, far, want, delta, "f16",
                                4096)
                   .pass);
}
