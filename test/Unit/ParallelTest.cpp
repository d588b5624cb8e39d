//===- ParallelTest.cpp - host checks, whatever the thread count ----------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The runner's host loops run over fixed chunks on several threads
// (Parallel.h): inputs, verdicts, first mismatches and errors must come out
// the same bits on 1, 2 or 7 threads, and as a plain sequential loop gives
// them where a buffer fits in one chunk.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Parallel.h"
#include "tirx/Runtime/Check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

using namespace tirx::runtime;

namespace {
const unsigned kThreadCounts[] = {1, 2, 7};

/// Sets the thread count for a scope (and goes back to the default).
struct Threads {
  explicit Threads(unsigned n) { setHostThreads(n); }
  ~Threads() { setHostThreads(0); }
};

/// The same bits (a double's == would take -0 for 0 and fail NaN).
bool sameBits(double a, double b) { return std::memcmp(&a, &b, 8) == 0; }

void expectSame(const Comparison &a, const Comparison &b,
                const std::string &what) {
  EXPECT_EQ(a.pass, b.pass) << what;
  EXPECT_EQ(a.firstBad, b.firstBad) << what;
  EXPECT_EQ(a.detail, b.detail) << what;
  EXPECT_TRUE(sameBits(a.maxAbsError, b.maxAbsError))
      << what << ": " << a.maxAbsError << " vs " << b.maxAbsError;
  EXPECT_TRUE(sameBits(a.relL2Error, b.relL2Error))
      << what << ": " << a.relL2Error << " vs " << b.relL2Error;
}

float f32At(const std::vector<uint8_t> &bytes, size_t i) {
  float v;
  std::memcpy(&v, bytes.data() + 4 * i, 4);
  return v;
}
void setF32(std::vector<uint8_t> &bytes, size_t i, float v) {
  std::memcpy(bytes.data() + 4 * i, &v, 4);
}
} // namespace

TEST(ParallelTest, EveryChunkRunsOnceOnAnyThreadCount) {
  EXPECT_EQ(chunkCount(0), 0u);
  EXPECT_EQ(chunkCount(1), 1u);
  EXPECT_EQ(chunkCount(kHostChunk), 1u);
  EXPECT_EQ(chunkCount(kHostChunk + 1), 2u);
  for (unsigned t : {1u, 2u, 7u, 64u}) {
    Threads threads(t);
    EXPECT_EQ(hostThreads(), t);
    for (size_t n : {size_t(0), size_t(5), kHostChunk, 9 * kHostChunk + 3}) {
      std::vector<std::atomic<int>> seen(n);
      parallelChunks(n, [&](size_t begin, size_t end) {
        EXPECT_EQ(begin % kHostChunk, 0u);
        EXPECT_LE(end - begin, kHostChunk);
        for (size_t i = begin; i < end; ++i)
          ++seen[i];
      });
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(seen[i].load(), 1)
            << "element " << i << ", " << t << " threads";
    }
  }
}

TEST(ParallelTest, AnExceptionInOneChunkReachesTheCaller) {
  Threads threads(4);
  std::atomic<int> ran{0};
  EXPECT_THROW(forEachChunk(64,
                            [&](size_t c) {
                              ++ran;
                              if (c == 3)
                                throw std::runtime_error("chunk 3");
                            }),
               std::runtime_error);
  EXPECT_GE(ran.load(), 4);
}

TEST(ParallelTest, TheThreadsVariableIsCheckedAndOverridable) {
  unsigned fallback =
      std::min(std::max(std::thread::hardware_concurrency(), 1u), 16u);
  unsetenv("TIRX_RUN_THREADS");
  EXPECT_EQ(checkHostThreadsVariable(), "");
  EXPECT_EQ(hostThreads(), fallback);
  setenv("TIRX_RUN_THREADS", "3", 1);
  EXPECT_EQ(checkHostThreadsVariable(), "");
  EXPECT_EQ(hostThreads(), 3u);
  {
    Threads threads(5); // the API's count wins
    EXPECT_EQ(hostThreads(), 5u);
  }
  for (const char *bad : {"0", "-2", "abc", "4x", "", "99999"}) {
    setenv("TIRX_RUN_THREADS", bad, 1);
    EXPECT_EQ(checkHostThreadsVariable(),
              std::string("TIRX_RUN_THREADS expects an integer in [1, 1024], "
                          "got '") +
                  bad + "'");
    EXPECT_EQ(hostThreads(), fallback) << bad;
  }
  unsetenv("TIRX_RUN_THREADS");
}

TEST(ParallelTest, SkippingDrawsIsDrawing) {
  Rng a(77), b(77);
  for (int i = 0; i < 1000; ++i)
    a.next();
  b.skip(1000);
  EXPECT_EQ(a.next(), b.next());
}

// Inputs: byte for byte what one sequential stream of draws makes, on any
// thread count (element i is draw i of the buffer's seed).
TEST(ParallelTest, InputsAreTheSequentialStreamOnAnyThreadCount) {
  const size_t n = 3 * kHostChunk + 123;
  const uint64_t seed = 12345;
  std::vector<uint8_t> f32(4 * n), f16(2 * n), i32(4 * n), cancel(4 * n),
      bf16(2 * n);
  Rng rng(seed);
  for (size_t i = 0; i < n; ++i) {
    double u = rng.uniform();
    setF32(f32, i, float(2.0 * u - 1.0));
    uint16_t h = floatToHalf(float(2.0 * u - 1.0));
    std::memcpy(f16.data() + 2 * i, &h, 2);
    int32_t k = int32_t(std::floor(u * 201.0)) - 100;
    std::memcpy(i32.data() + 4 * i, &k, 4);
    double scale = adversarialScale(InputKind::cancel, 0, ElementType::f32);
    setF32(cancel, i, float(((i & 1) ? -scale : scale) + (2.0 * u - 1.0)));
    uint16_t b = floatToBFloat16(float(2.0 * u - 1.0));
    std::memcpy(bf16.data() + 2 * i, &b, 2);
  }
  for (unsigned t : kThreadCounts) {
    Threads threads(t);
    std::vector<uint8_t> a(4 * n), h(2 * n), k(4 * n), c(4 * n), b(2 * n);
    fillRandom(a, ElementType::f32, seed);
    fillRandom(h, ElementType::f16, seed);
    fillRandom(k, ElementType::i32, seed);
    fillRandom(b, ElementType::bf16, seed);
    fillAdversarial(c, ElementType::f32, InputKind::cancel, 0, seed);
    EXPECT_TRUE(a == f32) << t << " threads";
    EXPECT_TRUE(h == f16) << t << " threads";
    EXPECT_TRUE(k == i32) << t << " threads";
    EXPECT_TRUE(b == bf16) << t << " threads";
    EXPECT_TRUE(c == cancel) << t << " threads";
    std::vector<uint8_t> p(4 * n);
    fillPoison(p, ElementType::f32);
    for (size_t i = 0; i < n; ++i)
      ASSERT_TRUE(isPoison(p, ElementType::f32, i)) << i;
  }
}

// Each element's direction is draw i of the seed's stream.
TEST(ParallelTest, PerturbedDirectionsAreTheSequentialStream) {
  const size_t n = 2 * kHostChunk + 9;
  std::vector<uint8_t> base(4 * n);
  fillRandom(base, ElementType::f32, 3);
  std::vector<uint8_t> first;
  for (unsigned t : kThreadCounts) {
    Threads threads(t);
    std::vector<uint8_t> moved = base;
    perturbUlps(moved, ElementType::f32, 1, 99);
    Rng rng(99);
    for (size_t i = 0; i < n; ++i) {
      bool up = rng.next() & 1;
      ASSERT_EQ(f32At(moved, i) > f32At(base, i), up) << i << ", " << t;
    }
    if (first.empty())
      first = moved;
    EXPECT_TRUE(moved == first) << t << " threads";
  }
}

// Planted mismatches in several chunks: the lowest one is reported, the
// errors are the same bits, on every thread count.
TEST(ParallelTest, TheFirstMismatchAndTheErrorsDoNotDependOnThreads) {
  const size_t n = 16 * kHostChunk + 77;
  std::vector<uint8_t> want(4 * n);
  fillRandom(want, ElementType::f32, 5);
  std::vector<uint8_t> close = want;
  perturbUlps(close, ElementType::f32, 1, 17); // within tolerance
  Tolerance tol = toleranceFor(ElementType::f32, "ieee", 4096, n);
  for (std::vector<size_t> at :
       {std::vector<size_t>{15 * kHostChunk + 70},
        std::vector<size_t>{9 * kHostChunk, 5 * kHostChunk + 3,
                            15 * kHostChunk + 70},
        std::vector<size_t>{kHostChunk - 1, kHostChunk, 12 * kHostChunk + 5},
        std::vector<size_t>{n - 1}}) {
    std::vector<uint8_t> got = close;
    size_t lowest = n;
    float biggest = 0;
    for (size_t k = 0; k < at.size(); ++k) {
      // A later plant is larger: the largest error is not the first's.
      float err = 0.5f * float(k + 1);
      setF32(got, at[k], f32At(want, at[k]) + err);
      lowest = std::min(lowest, at[k]);
      biggest = std::max(biggest, err);
    }
    std::vector<double> delta =
        referenceSensitivity(ElementType::f32, want, {close, want});
    Comparison plain, sensitive, changed;
    int64_t bitDifference = -2;
    for (unsigned t : kThreadCounts) {
      Threads threads(t);
      std::string what =
          std::to_string(t) + " threads, first plant " + std::to_string(at[0]);
      Comparison c = compareBuffers("y", ElementType::f32, got, want, tol);
      EXPECT_FALSE(c.pass) << what;
      EXPECT_EQ(c.firstBad, int64_t(lowest)) << what;
      EXPECT_NEAR(c.maxAbsError, biggest, 1e-6) << what;
      Comparison s = compareSensitive("y", ElementType::f32, got, want, delta,
                                      "ieee", 4096);
      EXPECT_FALSE(s.pass) << what;
      EXPECT_EQ(s.firstBad, int64_t(lowest)) << what;
      Comparison u = compareUnchanged("x", ElementType::f32, got, close);
      EXPECT_EQ(u.firstBad, int64_t(lowest)) << what;
      int64_t d = firstBitDifference(got, close, ElementType::f32);
      EXPECT_EQ(d, int64_t(lowest)) << what;
      RelaunchCheck r =
          compareRelaunch("y", ElementType::f32, got, close, want, tol);
      EXPECT_FALSE(r.bitEqual) << what;
      expectSame(r.comparison, c, what + ", relaunch");
      if (t == kThreadCounts[0]) {
        plain = c;
        sensitive = s;
        changed = u;
        bitDifference = d;
        continue;
      }
      expectSame(c, plain, what);
      expectSame(s, sensitive, what + ", sensitivity rule");
      expectSame(u, changed, what + ", unchanged");
      EXPECT_EQ(d, bitDifference) << what;
    }
  }
}

// What the adversarial sets feed the sensitivity rule, and its verdicts:
// the same on any thread count, passing and failing.
TEST(ParallelTest, TheSensitivityRuleDoesNotDependOnThreads) {
  const size_t n = 8 * kHostChunk + 31;
  for (ElementType type : {ElementType::f32, ElementType::f16}) {
    size_t width = elementBytes(type);
    std::vector<uint8_t> want(width * n);
    fillAdversarial(want, type, InputKind::cancel, 1, 8);
    std::vector<uint8_t> up = want, random = want;
    perturbUlps(up, type, 1, 0);
    perturbUlps(random, type, 1, 21);
    std::vector<uint8_t> good = want, bad = want;
    perturbUlps(good, type, 2, 5);
    for (size_t i = 0; i < n; ++i) {
      double v = elementAt(want, type, i) * (i > 6 * kHostChunk ? 1.5 : 1);
      if (type == ElementType::f32) {
        setF32(bad, i, float(v));
      } else {
        uint16_t h = floatToHalf(float(v));
        std::memcpy(bad.data() + 2 * i, &h, 2);
      }
    }
    std::vector<double> firstDelta;
    Comparison firstGood, firstBad;
    for (unsigned t : kThreadCounts) {
      Threads threads(t);
      std::string what = std::string(elementTypeName(type)) + ", " +
                         std::to_string(t) + " threads";
      std::vector<double> delta =
          referenceSensitivity(type, want, {up, random});
      Comparison g = compareSensitive("y", type, good, want, delta);
      Comparison b = compareSensitive("y", type, bad, want, delta);
      EXPECT_TRUE(g.pass) << what << ": " << g.detail;
      EXPECT_FALSE(b.pass) << what;
      EXPECT_GT(b.firstBad, int64_t(6 * kHostChunk)) << what;
      EXPECT_EQ(firstNonFinite(want, type), -1) << what;
      if (t == kThreadCounts[0]) {
        firstDelta = delta;
        firstGood = g;
        firstBad = b;
        continue;
      }
      EXPECT_TRUE(
          std::memcmp(delta.data(), firstDelta.data(), 8 * delta.size()) == 0)
          << what;
      expectSame(g, firstGood, what + ", passing");
      expectSame(b, firstBad, what + ", failing");
    }
  }
}

// The relative L2 error's sums are combined in chunk order. Chunk 0's
// squared error is 1, each later chunk's 2^-54 (half an ulp of 1): in chunk
// order each of those rounds away (ties to even) and the sum stays 1; in
// any order that adds some of them before chunk 0's, they add up first and
// the sum comes out above 1. The reference's squares are exact integers in
// any order.
TEST(ParallelTest, ChunkSumsAreCombinedInChunkOrder) {
  const size_t chunks = 24, n = chunks * kHostChunk;
  std::vector<uint8_t> want(4 * n), got(4 * n);
  for (size_t i = 0; i < n; ++i) {
    setF32(want, i, 1.0f);
    setF32(got, i, 1.0f);
  }
  setF32(got, 17, 2.0f); // chunk 0: an error of 1
  for (size_t c = 1; c < chunks; ++c) {
    size_t i = c * kHostChunk + c; // an error of 2^-27
    setF32(want, i, 0.0f);
    setF32(got, i, std::ldexp(1.0f, -27));
  }
  double ref2 = double(n - (chunks - 1));
  double inOrder = std::sqrt(1.0 / ref2);
  double small = double(chunks - 1) * std::ldexp(1.0, -54);
  double smallFirst = std::sqrt((small + 1.0) / ref2);
  // The test's own premise: the order changes the bits.
  ASSERT_FALSE(sameBits(inOrder, smallFirst));
  Tolerance loose{1, 1, 0};
  for (unsigned t : kThreadCounts) {
    Threads threads(t);
    Comparison c = compareBuffers("y", ElementType::f32, got, want, loose);
    EXPECT_TRUE(sameBits(c.relL2Error, inOrder))
        << t << " threads: " << c.relL2Error << " vs " << inOrder;
    EXPECT_EQ(c.maxAbsError, 1.0);
  }
}

// A buffer of one chunk is what a plain loop over it gives, bit for bit
// (as before the loops were chunked).
TEST(ParallelTest, OneChunkIsThePlainSequentialLoop) {
  const size_t n = 1000;
  std::vector<uint8_t> want(4 * n), got(4 * n);
  fillRandom(want, ElementType::f32, 1);
  fillRandom(got, ElementType::f32, 2);
  double d = 0, r = 0, worst = 0, rms = 0;
  for (size_t i = 0; i < n; ++i) {
    double g = f32At(got, i), w = f32At(want, i);
    double err = std::fabs(g - w);
    worst = std::max(worst, err);
    d += err * err;
    r += w * w;
    rms += w * w;
  }
  Tolerance tol{1e-4, 1e-5, 1e-3};
  Threads threads(7);
  Comparison c = compareBuffers("y", ElementType::f32, got, want, tol);
  EXPECT_TRUE(sameBits(c.relL2Error, std::sqrt(d / r)));
  EXPECT_TRUE(sameBits(c.maxAbsError, worst));
  // The first bad element under the RMS-scaled slack, found by hand.
  double slack = tol.atol + tol.rmsRel * std::sqrt(rms / double(n));
  int64_t first = -1;
  for (size_t i = 0; i < n && first < 0; ++i)
    if (std::fabs(double(f32At(got, i)) - f32At(want, i)) >
        slack + tol.rtol * std::fabs(double(f32At(want, i))))
      first = int64_t(i);
  EXPECT_EQ(c.firstBad, first);
}
