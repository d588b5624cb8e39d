//===- Check.cpp - inputs, poison and correctness ---------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Check.h"
#include "tirx/Runtime/Parallel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace tirx {
namespace runtime {

static constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

uint64_t Rng::next() {
  uint64_t z = (state += kGolden);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Rng::uniform() { return double(next() >> 11) * 0x1.0p-53; }

void Rng::skip(uint64_t draws) { state += draws * kGolden; }

uint16_t floatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t exp = (x >> 23) & 0xFF;
  uint32_t mant = x & 0x7FFFFF;
  if (exp == 0xFF) // inf or nan
    return uint16_t(sign | 0x7C00 | (mant ? 0x200 : 0));
  int e = int(exp) - 127 + 15;
  if (e >= 31)
    return uint16_t(sign | 0x7C00);
  if (e <= 0) {
    if (e < -10)
      return uint16_t(sign);
    mant |= 0x800000;
    uint32_t shift = uint32_t(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    // Without a branch (the low bits are random in random inputs).
    half += uint32_t(rem > mid) | (uint32_t(rem == mid) & (half & 1));
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1FFF;
  // Round to nearest even, without a branch (the low bits are random in
  // random inputs); may carry into the exponent: still correct rounding.
  half += uint32_t(rem > 0x1000) | (uint32_t(rem == 0x1000) & (half & 1));
  return uint16_t(half);
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1F;
  uint32_t mant = bits & 0x3FF;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400));
      x = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3FF) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7F800000 | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t floatToBFloat16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7FFFFFFF) > 0x7F800000)
    return uint16_t((x >> 16) | 0x40);
  uint32_t rounding = 0x7FFF + ((x >> 16) & 1);
  return uint16_t((x + rounding) >> 16);
}

float bfloat16ToFloat(uint16_t bits) {
  uint32_t x = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

namespace {
template <typename T> void put(std::vector<uint8_t> &bytes, size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}
template <typename T> T get(const std::vector<uint8_t> &bytes, size_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}
constexpr int32_t kPoisonI32 = int32_t(0x7A7A7A7A);
constexpr int64_t kPoisonI64 = int64_t(0x7A7A7A7A7A7A7A7Aull);
constexpr int8_t kPoisonI8 = int8_t(0x7A);

/// Element i of a float buffer set to `v`, rounded to `type`.
void putFloat(std::vector<uint8_t> &bytes, ElementType type, size_t i,
              double v) {
  switch (type) {
  case ElementType::f32: put<float>(bytes, i, float(v)); break;
  case ElementType::f64: put<double>(bytes, i, v); break;
  case ElementType::f16: put<uint16_t>(bytes, i, floatToHalf(float(v))); break;
  case ElementType::bf16:
    put<uint16_t>(bytes, i, floatToBFloat16(float(v)));
    break;
  default: break;
  }
}
} // namespace

void fillRandom(std::vector<uint8_t> &bytes, ElementType type, uint64_t seed,
                Domain domain) {
  bool nonnegative = domain == Domain::nonnegative;
  size_t n = bytes.size() / elementBytes(type);
  // Element i is draw i of the seed's stream, whichever chunk makes it.
  parallelChunks(n, [&](size_t begin, size_t end) {
    Rng rng(seed);
    rng.skip(begin);
    for (size_t i = begin; i < end; ++i) {
      double u = rng.uniform();
      // The integer only where it is stored (floor is a library call).
      auto k = [u] { return int64_t(std::floor(u * 201.0)) - 100; };
      switch (type) {
      case ElementType::f32:
      case ElementType::f64:
      case ElementType::f16:
      case ElementType::bf16:
        putFloat(bytes, type, i, nonnegative ? u : 2.0 * u - 1.0);
        break;
      case ElementType::i8: put<int8_t>(bytes, i, int8_t(k())); break;
      case ElementType::i32: put<int32_t>(bytes, i, int32_t(k())); break;
      case ElementType::i64: put<int64_t>(bytes, i, k()); break;
      }
    }
  });
}

void fillPoison(std::vector<uint8_t> &bytes, ElementType type) {
  size_t n = bytes.size() / elementBytes(type);
  parallelChunks(n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      switch (type) {
      case ElementType::f32: put<uint32_t>(bytes, i, 0x7FC00000u); break;
      case ElementType::f64:
        put<uint64_t>(bytes, i, 0x7FF8000000000000ull);
        break;
      case ElementType::f16: put<uint16_t>(bytes, i, 0x7E00); break;
      case ElementType::bf16: put<uint16_t>(bytes, i, 0x7FC0); break;
      case ElementType::i8: put<int8_t>(bytes, i, kPoisonI8); break;
      case ElementType::i32: put<int32_t>(bytes, i, kPoisonI32); break;
      case ElementType::i64: put<int64_t>(bytes, i, kPoisonI64); break;
      }
    }
  });
}

uint32_t poisonWord(ElementType type) {
  switch (type) {
  case ElementType::f32: return 0x7FC00000u;
  case ElementType::f64: return 0x7FF87FF8u; // 0x7FF87FF87FF87FF8: a NaN
  case ElementType::f16: return 0x7E007E00u;
  case ElementType::bf16: return 0x7FC07FC0u;
  case ElementType::i8:
  case ElementType::i32:
  case ElementType::i64: return 0x7A7A7A7Au;
  }
  return 0x7FC00000u;
}

uint64_t freshSeed() {
  uint64_t seed = 0;
  std::ifstream random("/dev/urandom", std::ios::binary);
  random.read(reinterpret_cast<char *>(&seed), sizeof(seed));
  // Where /dev/urandom cannot be read, the clock alone still varies.
  Rng mix(seed ^ uint64_t(std::chrono::high_resolution_clock::now()
                              .time_since_epoch()
                              .count()));
  return mix.next() & ((uint64_t(1) << 53) - 1);
}

double elementAt(const std::vector<uint8_t> &bytes, ElementType type,
                 size_t i) {
  switch (type) {
  case ElementType::f32: return get<float>(bytes, i);
  case ElementType::f64: return get<double>(bytes, i);
  case ElementType::f16: return halfToFloat(get<uint16_t>(bytes, i));
  case ElementType::bf16: return bfloat16ToFloat(get<uint16_t>(bytes, i));
  case ElementType::i8: return get<int8_t>(bytes, i);
  case ElementType::i32: return get<int32_t>(bytes, i);
  case ElementType::i64: return double(get<int64_t>(bytes, i));
  }
  return 0;
}

bool isPoison(const std::vector<uint8_t> &bytes, ElementType type, size_t i) {
  switch (type) {
  case ElementType::i8: return get<int8_t>(bytes, i) == kPoisonI8;
  case ElementType::i32: return get<int32_t>(bytes, i) == kPoisonI32;
  case ElementType::i64: return get<int64_t>(bytes, i) == kPoisonI64;
  default: return std::isnan(elementAt(bytes, type, i));
  }
}

namespace {
/// isPoison(bytes, type, i) where `value` is elementAt(bytes, type, i): a
/// float's poison is any NaN, seen on the value already read.
inline bool poisonAt(const std::vector<uint8_t> &bytes, ElementType type,
                     size_t i, double value) {
  switch (type) {
  case ElementType::i8:
  case ElementType::i32:
  case ElementType::i64: return isPoison(bytes, type, i);
  default: return std::isnan(value);
  }
}
} // namespace

// The largest of n draws of a normal error, in standard deviations: about
// sqrt(2 ln 2n) (n = 0, not known, counts as 1).
static double maxOfDraws(uint64_t n) {
  return std::sqrt(2 * std::log(2.0 * double(std::max<uint64_t>(n, 1))));
}

Tolerance toleranceFor(ElementType type, const std::string &math,
                       int64_t reductionLength, uint64_t elements) {
  // tf32 keeps 10 of f32's 23 mantissa bits in each product (the tensor
  // cores drop the rest); a sum of K products is then off by about 1e-3 of
  // its magnitude, not of each element's (measured relative L2 on the H200:
  // see docs/benchmarks.md).
  //
  // Relative L2: a product of two operands rounded to tf32 is off by about
  // sqrt(2) u with u = 2^-11 (4.9e-4); a sum of K such products with random
  // signs is off by about that fraction of its own RMS, whatever K (the
  // errors and the terms both grow as sqrt(K)). Measured on the H200:
  // 6.9e-4 at K = 256 and at K = 2048, Triton's tf32 the same. 2e-3 leaves
  // 2.9x of that and fails a uniform 0.4% scaling of the output (4e-3).
  if (math == "tf32" && type == ElementType::f32)
    return {2e-3, 1e-5, 1e-2};
  // f16 and bf16 products on tensor cores (mma.sync m16n8k16) are exact in
  // f32. Summed in f32 (an f32 C), only the order of the sums and the
  // tensor cores' adder differ from the reference: each 16-term step aligns
  // its addends to the largest and truncates (one-sided), so the error
  // grows as K / 16 steps of 2^-23 of the sums' RMS (3e-5 at K = 4096;
  // measured relative L2 under 5e-5 at 4096^3 on the H200,
  // test/Integration/matmul16.test). Summed in f16 (an f16 C), both the
  // candidate and the reference (which sums sequentially in f16) drift by
  // about s = u sqrt(K / 2) of the RMS, u = 2^-11, as a long f32 sum does
  // (below): the largest of n elements' errors is about sqrt(2 ln 2n) s, so
  // the slack per element is (sqrt(2 ln 2n) + 2) s (0.17 of the RMS for a
  // 4096^2 output of K = 4096: the H200 saw 0.095 there, 2.0 off an output
  // of RMS 21, which the former 2 u sqrt(K) = 0.0625 refused), and u sqrt(K)
  // of relative L2.
  if ((math == "f16" || math == "bf16") &&
      (type == ElementType::f32 || type == ElementType::f16)) {
    double k = double(std::max<int64_t>(reductionLength, 0));
    if (type == ElementType::f32) {
      Tolerance t = toleranceFor(type, "ieee", reductionLength);
      t.rmsRel = std::max(t.rmsRel, k / 16 * std::ldexp(1.0, -23));
      return t;
    }
    double u = std::ldexp(1.0, -11);
    return {std::max(1e-2, u * std::sqrt(k)), 1e-3,
            (maxOfDraws(elements) + 2) * u * std::sqrt(k / 2)};
  }
  switch (type) {
  case ElementType::f64: return {1e-9, 1e-12};
  // f32: a reduction summed in another order (split_reduction's partial
  // sums, a tree instead of a loop) differs by rounding that scales with
  // the sums' magnitude, not with a result that cancels to near 0: 16384
  // terms in [-1, 1] measured 8.5e-5 on a row whose sum's RMS is 74 (1.1e-6
  // of it; H200, docs/benchmarks.md). 1e-5 of the RMS covers reorderings
  // of up to about 2^16 terms. Beyond, the reference's own sequential sum
  // drifts: a random walk of K roundings of partial sums of RMS up to
  // sqrt(K) sigma is off by about s = u sqrt(K / 2) of the result's RMS
  // (u = 2^-24); 2^20 terms measured 2.0e-5 relative L2 on the H200
  // (rowsum_long). The check takes the largest error of n elements, a
  // maximum of n draws: about sqrt(2 ln 2n) s, 5.9 s for n = 2^24 (a 4096^2
  // matmul output of K = 4096: the sequential reference was 2.9e-4 off
  // cuBLAS and Triton alike on the H200, 1.4e-5 of the RMS). The slack
  // (sqrt(2 ln 2n) + 2) s covers that with margin, is 2.25 u sqrt(K) for
  // one element (0.08 on a row of 2^20 terms whose sum's RMS is 591), and
  // still fails one dropped term in 2^20 (1e-3 of the RMS).
  case ElementType::f32: {
    double spread = std::ldexp(1.0, -24) *
                    std::sqrt(double(std::max<int64_t>(reductionLength, 0)) / 2);
    return {1e-4, 1e-5, std::max(1e-5, (maxOfDraws(elements) + 2) * spread)};
  }
  case ElementType::f16: return {1e-2, 1e-3};
  case ElementType::bf16: return {2e-2, 1e-2};
  default: return {0, 0};
  }
}

static std::string formatValue(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

namespace {
/// What one chunk of a comparison found: its sums, and its first bad
/// element with what describes it.
struct ChunkCheck {
  ComparisonSums sums;
  int64_t firstBad = -1;
  double got = 0, want = 0, allowed = 0;
  bool gotPoison = false, refBad = false;
  void bad(size_t i, double g, double w, bool poison, bool ref,
           double allow = 0) {
    if (firstBad >= 0)
      return;
    firstBad = int64_t(i);
    got = g;
    want = w;
    gotPoison = poison;
    refBad = ref;
    allowed = allow;
  }
};

/// The chunks' findings combined in chunk order: sums added from the first
/// chunk on (the total is the same bits whichever thread finished first),
/// the largest error, the first bad element of the lowest chunk with one.
/// One chunk's findings come back as they are.
ChunkCheck combine(const std::vector<ChunkCheck> &parts) {
  ChunkCheck all;
  for (const ChunkCheck &p : parts) {
    all.sums.maxAbsError = std::max(all.sums.maxAbsError, p.sums.maxAbsError);
    all.sums.diff2 += p.sums.diff2;
    all.sums.ref2 += p.sums.ref2;
    if (all.firstBad < 0 && p.firstBad >= 0) {
      ComparisonSums sums = all.sums;
      all = p;
      all.sums = sums;
    }
  }
  return all;
}

/// The root mean square of the finite elements among the first `n` of
/// `bytes` (with `skipPoison`, of those not poison either); 0 when none.
double rmsOf(const std::vector<uint8_t> &bytes, ElementType type, size_t n,
             bool skipPoison) {
  struct Part {
    double sum = 0;
    size_t finite = 0;
  };
  std::vector<Part> parts =
      mapChunks<Part>(n, [&](size_t begin, size_t end) {
        Part p;
        for (size_t i = begin; i < end; ++i) {
          double w = elementAt(bytes, type, i);
          if (std::isfinite(w) &&
              !(skipPoison && poisonAt(bytes, type, i, w))) {
            p.sum += w * w;
            ++p.finite;
          }
        }
        return p;
      });
  double sum = 0;
  size_t finite = 0;
  for (const Part &p : parts) {
    sum += p.sum;
    finite += p.finite;
  }
  return finite ? std::sqrt(sum / double(finite)) : 0;
}

/// The first element of `width` bytes where `a` and `b` (of one size)
/// differ, -1 when none (bytes past the last whole element are not
/// looked at).
int64_t firstDifference(const std::vector<uint8_t> &a,
                        const std::vector<uint8_t> &b, unsigned width) {
  return firstInChunks(
      a.size() / width, [&](size_t begin, size_t end) -> int64_t {
        const uint8_t *x = a.data() + begin * width,
                      *y = b.data() + begin * width;
        if (std::memcmp(x, y, (end - begin) * width) == 0)
          return -1;
        for (size_t i = begin; i < end; ++i, x += width, y += width)
          if (std::memcmp(x, y, width))
            return int64_t(i);
        return -1;
      });
}
} // namespace

Comparison compareBuffers(const std::string &name, ElementType type,
                          const std::vector<uint8_t> &got,
                          const std::vector<uint8_t> &want) {
  return compareBuffers(name, type, got, want, toleranceFor(type));
}

Comparison compareBuffers(const std::string &name, ElementType type,
                          const std::vector<uint8_t> &got,
                          const std::vector<uint8_t> &want,
                          const Tolerance &tol) {
  Comparison c;
  if (got.size() != want.size()) {
    c.pass = false;
    c.detail = name + ": sizes differ (" + std::to_string(got.size()) +
               " vs " + std::to_string(want.size()) + " bytes)";
    return c;
  }
  size_t n = got.size() / elementBytes(type);
  // The reference's root mean square, over its finite elements.
  double rms = tol.rmsRel > 0 ? rmsOf(want, type, n, /*skipPoison=*/false) : 0;
  double slack = tol.atol + tol.rmsRel * rms;
  // Only the first bad element is described: building text for every one
  // of 2^26 wrong elements would cost minutes.
  ChunkCheck all = combine(mapChunks<ChunkCheck>(n, [&](size_t begin,
                                                         size_t end) {
    ChunkCheck part;
    ComparisonSums &sums = part.sums;
    for (size_t i = begin; i < end; ++i) {
      double g = elementAt(got, type, i);
      double w = elementAt(want, type, i);
      bool gotPoison = poisonAt(got, type, i, g);
      if (std::isnan(w) || poisonAt(want, type, i, w)) {
        // The reference wrote nothing here or produced NaN: nothing to
        // trust.
        part.bad(i, g, w, gotPoison, /*refBad=*/true);
        continue;
      }
      if (std::isnan(g) || gotPoison) {
        part.bad(i, g, w, gotPoison, /*refBad=*/false);
        sums.maxAbsError = INFINITY;
        continue;
      }
      double err = std::fabs(g - w);
      if (!std::isfinite(err))
        err = INFINITY;
      sums.maxAbsError = std::max(sums.maxAbsError, err);
      sums.diff2 += err * err;
      sums.ref2 += w * w;
      if (err > slack + tol.rtol * std::fabs(w))
        part.bad(i, g, w, false, /*refBad=*/false);
    }
    return part;
  }));
  if (all.firstBad >= 0) {
    c.pass = false;
    c.firstBad = all.firstBad;
    c.detail = describeMismatch(name, size_t(all.firstBad), all.got, all.want,
                                all.gotPoison, all.refBad);
  }
  finishComparison(name, all.sums, tol, c);
  return c;
}

std::string describeMismatch(const std::string &name, size_t i, double g,
                             double w, bool gotPoison, bool refBad) {
  std::string why =
      refBad ? "reference has " + formatValue(w) +
                   (gotPoison ? " and the candidate left it unwritten"
                              : "; got " + formatValue(g))
             : "got " + formatValue(g) + ", want " + formatValue(w) +
                   (gotPoison ? " (unwritten)" : "");
  return name + "[" + std::to_string(i) + "]: " + why;
}

void finishComparison(const std::string &name, const ComparisonSums &sums,
                      const Tolerance &tol, Comparison &c) {
  c.maxAbsError = sums.maxAbsError;
  c.relL2Error = sums.ref2 > 0 ? std::sqrt(sums.diff2 / sums.ref2)
                               : std::sqrt(sums.diff2);
  if (!std::isfinite(c.maxAbsError))
    c.relL2Error = INFINITY;
  if (c.relL2Error > tol.rtol && c.pass) {
    c.pass = false;
    c.detail = name + ": relative L2 error " + formatValue(c.relL2Error) +
               " exceeds " + formatValue(tol.rtol);
  }
}

Comparison compareUnchanged(const std::string &name, ElementType type,
                            const std::vector<uint8_t> &now,
                            const std::vector<uint8_t> &uploaded) {
  Comparison c;
  if (now.size() != uploaded.size()) {
    c.pass = false;
    c.detail = name + ": sizes differ (" + std::to_string(now.size()) +
               " vs " + std::to_string(uploaded.size()) + " bytes)";
    return c;
  }
  int64_t i = firstDifference(now, uploaded, elementBytes(type));
  if (i < 0)
    return c;
  return describeChange(name, size_t(i), elementAt(now, type, size_t(i)),
                        elementAt(uploaded, type, size_t(i)));
}

Comparison describeChange(const std::string &name, size_t i, double now,
                          double uploaded) {
  Comparison c;
  c.pass = false;
  c.firstBad = int64_t(i);
  c.maxAbsError = std::isfinite(now - uploaded) ? std::fabs(now - uploaded)
                                                : INFINITY;
  c.detail = name + "[" + std::to_string(i) +
             "]: an input changed by the kernel: uploaded " +
             formatValue(uploaded) + ", now " + formatValue(now);
  return c;
}

std::vector<std::vector<uint8_t>> makeInputs(const Manifest &m,
                                             uint64_t seed) {
  // fillAdversarial of the random kind is fillRandom.
  return makeAdversarialInputs(m, InputKind::random, 0, seed);
}

std::vector<double> scalarValues(const Manifest &m, uint64_t seed) {
  std::vector<double> values(m.params.size(), 0.0);
  for (size_t i = 0; i < m.params.size(); ++i) {
    const Param &p = m.params[i];
    if (p.isBuffer)
      continue;
    if (!p.seeded) {
      values[i] = p.value;
      continue;
    }
    Rng rng(seed * 1000003ull + i);
    double u = rng.uniform();
    values[i] = isFloatType(p.type) ? 0.5 + std::floor(u * 13.0) / 8.0
                                    : 1.0 + std::floor(u * 8.0);
  }
  return values;
}

bool checkIsBlind(const Manifest &m,
                  const std::vector<std::vector<uint8_t>> &inputs,
                  const std::vector<std::vector<uint8_t>> &want) {
  for (size_t i = 0; i < m.params.size(); ++i) {
    const Param &p = m.params[i];
    if (!p.isBuffer || p.role == Role::in)
      continue;
    if (!compareBuffers(p.name, p.type, inputs[i], want[i],
                        toleranceFor(p.type, m.math, m.reductionLength,
                                     p.bytes / elementBytes(p.type)))
             .pass)
      return false;
  }
  return true;
}

RelaunchCheck compareRelaunch(const std::string &name, ElementType type,
                              const std::vector<uint8_t> &now,
                              const std::vector<uint8_t> &first,
                              const std::vector<uint8_t> &want,
                              const Tolerance &tol) {
  RelaunchCheck r;
  if (now.size() == first.size() && firstDifference(now, first, 1) < 0)
    return r;
  r.bitEqual = false;
  r.comparison = compareBuffers(name, type, now, want, tol);
  return r;
}

std::vector<int64_t> chooseCheckedSamples(int64_t samples, int k, Rng &rng) {
  std::set<int64_t> chosen;
  if (samples <= 0)
    return {};
  chosen.insert(samples - 1);
  int64_t others = samples - 1;
  for (int64_t want = std::min<int64_t>(k, others); int64_t(chosen.size()) <
                                                    want + 1;)
    chosen.insert(int64_t(rng.next() % uint64_t(others)));
  return std::vector<int64_t>(chosen.begin(), chosen.end());
}


//===----------------------------------------------------------------------===//
// Adversarial input sets
//===----------------------------------------------------------------------===//

const char *inputKindName(InputKind kind) {
  switch (kind) {
  case InputKind::random: return "random";
  case InputKind::large: return "large";
  case InputKind::cancel: return "cancel";
  case InputKind::denormal: return "denormal";
  }
  return "random";
}

const std::vector<InputKind> &adversarialKinds() {
  static const std::vector<InputKind> kinds = {
      InputKind::large, InputKind::cancel, InputKind::denormal};
  return kinds;
}

namespace {
/// log2 of the large magnitudes, largest first, by type: from near the
/// type's range (an elementwise op stays finite there) down to values whose
/// products, summed by the thousand, stay finite; the runner keeps the
/// first level at which the reference's outputs are finite.
const std::vector<int> &largeExponents(ElementType type) {
  static const std::vector<int> f16 = {14, 10, 6, 3};
  static const std::vector<int> f32 = {100, 60, 30, 12};
  static const std::vector<int> f64 = {800, 400, 100, 12};
  return type == ElementType::f16 ? f16 : type == ElementType::f64 ? f64 : f32;
}
/// log2 of the offset that cancels: as many leading bits as the type's
/// mantissa can lose and still say something (f32: 12 of 24).
const std::vector<int> &cancelExponents(ElementType type) {
  static const std::vector<int> f16 = {5, 4, 3, 2};
  static const std::vector<int> bf16 = {4, 3, 2, 1};
  static const std::vector<int> f32 = {12, 8, 4, 2};
  static const std::vector<int> f64 = {26, 16, 8, 2};
  return type == ElementType::f16    ? f16
         : type == ElementType::bf16 ? bf16
         : type == ElementType::f64  ? f64
                                     : f32;
}
int smallestNormalExponent(ElementType type) {
  switch (type) {
  case ElementType::f16: return -14;
  case ElementType::f64: return -1022;
  default: return -126; // f32, bf16
  }
}
/// log2 of the smallest subnormal.
int smallestSubnormalExponent(ElementType type) {
  switch (type) {
  case ElementType::f16: return -24;
  case ElementType::bf16: return -133;
  case ElementType::f64: return -1074;
  default: return -149;
  }
}


/// The raw bits of element i, and the layout of the type's encoding.
struct FloatBits {
  unsigned width;      // bytes
  uint64_t signBit;
  uint64_t infinity;   // exponent all ones, mantissa 0
};
FloatBits floatBits(ElementType type) {
  switch (type) {
  case ElementType::f16: return {2, 0x8000, 0x7C00};
  case ElementType::bf16: return {2, 0x8000, 0x7F80};
  case ElementType::f64: return {8, 1ull << 63, 0x7FF0000000000000ull};
  default: return {4, 0x80000000u, 0x7F800000u};
  }
}
} // namespace

int adversarialLevels(InputKind kind) {
  return kind == InputKind::large || kind == InputKind::cancel ? 4 : 1;
}

double adversarialScale(InputKind kind, int level, ElementType type) {
  switch (kind) {
  case InputKind::large:
    return std::ldexp(1.0, largeExponents(type)[size_t(
                               std::clamp(level, 0, 3))]);
  case InputKind::cancel:
    return std::ldexp(1.0, cancelExponents(type)[size_t(
                               std::clamp(level, 0, 3))]);
  case InputKind::denormal:
    return std::ldexp(1.0, smallestNormalExponent(type));
  case InputKind::random: return 1;
  }
  return 1;
}

void fillAdversarial(std::vector<uint8_t> &bytes, ElementType type,
                     InputKind kind, int level, uint64_t seed, Domain domain) {
  if (kind == InputKind::random || !isFloatType(type)) {
    fillRandom(bytes, type, seed, domain);
    return;
  }
  bool nonnegative = domain == Domain::nonnegative;
  double scale = adversarialScale(kind, level, type);
  size_t n = bytes.size() / elementBytes(type);
  parallelChunks(n, [&](size_t begin, size_t end) {
    Rng rng(seed);
    rng.skip(begin);
    for (size_t i = begin; i < end; ++i) {
      double f = 2.0 * rng.uniform() - 1.0;
      // Subnormals: below 0.98 of the smallest normal, so that rounding
      // never reaches it.
      double v = kind == InputKind::cancel ? ((i & 1) ? -scale : scale) + f
                 : kind == InputKind::denormal ? f * scale * 0.98
                                               : f * scale;
      putFloat(bytes, type, i, nonnegative ? std::fabs(v) : v);
    }
  });
}

std::vector<std::vector<uint8_t>> makeAdversarialInputs(const Manifest &m,
                                                        InputKind kind,
                                                        int level,
                                                        uint64_t seed) {
  std::vector<std::vector<uint8_t>> host(m.params.size());
  for (size_t i = 0; i < m.params.size(); ++i) {
    const Param &p = m.params[i];
    if (!p.isBuffer)
      continue;
    host[i].resize(p.bytes);
    if (p.role == Role::out)
      fillPoison(host[i], p.type);
    else
      fillAdversarial(host[i], p.type, kind, level, seed * 1000003ull + i,
                      p.domain);
  }
  return host;
}

void perturbUlps(std::vector<uint8_t> &bytes, ElementType type, int ulps,
                 uint64_t seed) {
  if (!isFloatType(type) || ulps <= 0)
    return;
  FloatBits layout = floatBits(type);
  size_t n = bytes.size() / layout.width;
  // One draw per element when seed is not 0: element i's direction is
  // draw i, whichever chunk moves it. The loop is written once per width.
  auto move = [&](auto zero) {
    using Bits = decltype(zero);
    parallelChunks(n, [&](size_t begin, size_t end) {
      Rng rng(seed);
      rng.skip(begin);
      for (size_t i = begin; i < end; ++i) {
        Bits raw;
        std::memcpy(&raw, bytes.data() + i * sizeof(Bits), sizeof(Bits));
        uint64_t bits = raw;
        uint64_t magnitude = bits & ~layout.signBit;
        bool up = seed == 0 || (rng.next() & 1);
        if (magnitude >= layout.infinity) // inf or NaN: left as they are
          continue;
        // Floats of one sign are ordered as their magnitudes' bits: step on
        // the signed key, crossing zero where it must, short of infinity.
        int64_t key = (bits & layout.signBit) ? -int64_t(magnitude)
                                              : int64_t(magnitude);
        key += up ? ulps : -ulps;
        uint64_t m = uint64_t(key < 0 ? -key : key);
        if (m >= layout.infinity)
          m = layout.infinity - 1;
        raw = Bits((key < 0 ? layout.signBit : 0) | m);
        std::memcpy(bytes.data() + i * sizeof(Bits), &raw, sizeof(Bits));
      }
    });
  };
  switch (layout.width) {
  case 2: move(uint16_t()); break;
  case 4: move(uint32_t()); break;
  default: move(uint64_t()); break;
  }
}

int sensitivityUlps(ElementType type, const std::string &math) {
  return math == "tf32" && type == ElementType::f32 ? 1 << 13 : 1;
}

std::vector<double>
referenceSensitivity(ElementType type, const std::vector<uint8_t> &want,
                     const std::vector<std::vector<uint8_t>> &perturbed) {
  size_t n = want.size() / elementBytes(type);
  for (const std::vector<uint8_t> &p : perturbed)
    if (p.size() != want.size())
      return std::vector<double>(n, INFINITY);
  std::vector<double> delta(n, 0.0);
  // Each element on its own, then blocks that never straddle two chunks.
  static_assert(kHostChunk % kSensitivityBlock == 0,
                "a sensitivity block lies in one chunk");
  parallelChunks(n, [&](size_t chunkBegin, size_t chunkEnd) {
    for (const std::vector<uint8_t> &p : perturbed) {
      for (size_t i = chunkBegin; i < chunkEnd; ++i) {
        double w = elementAt(want, type, i), q = elementAt(p, type, i);
        double d = std::fabs(q - w);
        if (poisonAt(p, type, i, q) || !std::isfinite(d))
          d = std::isfinite(w) ? INFINITY : 0;
        delta[i] = std::max(delta[i], d);
      }
    }
    // One element's change is a random variable (each input moves up or
    // down): where the moved terms happen to cancel it comes out far below
    // the element's real sensitivity, and a correct candidate's rounding
    // (tf32's truncated inputs above all) would fail on that element alone.
    // The floor: an eighth of the RMS change over the element's block of
    // neighbours.
    for (size_t begin = chunkBegin; begin < chunkEnd;
         begin += kSensitivityBlock) {
      size_t end = std::min(chunkEnd, begin + kSensitivityBlock);
      double sum2 = 0;
      for (size_t i = begin; i < end; ++i)
        sum2 += delta[i] * delta[i];
      double floor = std::sqrt(sum2 / double(end - begin)) / 8;
      if (!std::isfinite(floor))
        continue; // an infinite change: those elements keep theirs
      for (size_t i = begin; i < end; ++i)
        delta[i] = std::max(delta[i], floor);
    }
  });
  return delta;
}

Comparison compareSensitive(const std::string &name, ElementType type,
                            const std::vector<uint8_t> &got,
                            const std::vector<uint8_t> &want,
                            const std::vector<double> &delta,
                            const std::string &math, int64_t reductionLength) {
  Comparison c;
  size_t n = want.size() / elementBytes(type);
  if (got.size() != want.size() || delta.size() != n) {
    c.pass = false;
    c.detail = name + ": sizes differ (" + std::to_string(got.size()) +
               " vs " + std::to_string(want.size()) + " bytes)";
    return c;
  }
  Tolerance tol = toleranceFor(type, math, reductionLength, n);
  double rtol = tol.rtol;
  // The random-input rule's floor: a long sum's own rounding (the
  // reference's sequential loop above all) is a fraction of the output's
  // RMS that moving the inputs by one ulp does not show (a layer norm's
  // variance on 'cancel' inputs).
  double rms = rmsOf(want, type, n, /*skipPoison=*/true);
  double floor = std::isfinite(rms) ? tol.rmsRel * rms : 0;
  double tiny = isFloatType(type)
                    ? 2 * std::ldexp(1.0, smallestSubnormalExponent(type))
                    : 0;
  // f16 sums of K f16 products on tensor cores (an f16 C, f16 math): the
  // reference rounds each product to f16, and below f16's normal range
  // onto the subnormal grid (2^-24 apart), where the tensor cores' exact
  // products are not rounded. Each rounding is off by up to half a step
  // (uniform: sd = step / sqrt(12)); the largest of n sums of K of them is
  // about maxOfDraws(n) sqrt(K / 12) steps. Inputs of normal size never
  // see this floor (the RMS slack is far above it); tiny ones ('denormal'
  // adversarial inputs, whose products all underflow to 0 in the
  // reference) would otherwise fail a more accurate sum.
  if (math == "f16" && type == ElementType::f16 && reductionLength > 0)
    tiny = std::max(tiny, (maxOfDraws(n) + 2) *
                              std::sqrt(double(reductionLength) / 12) *
                              std::ldexp(1.0, smallestSubnormalExponent(type)));
  ChunkCheck all = combine(mapChunks<ChunkCheck>(n, [&](size_t begin,
                                                         size_t end) {
    ChunkCheck part;
    for (size_t i = begin; i < end; ++i) {
      double g = elementAt(got, type, i);
      double w = elementAt(want, type, i);
      bool gotPoison = poisonAt(got, type, i, g);
      bool refBad = std::isnan(w) || poisonAt(want, type, i, w);
      // NaN, poison and a lone (or opposite) infinity never pass.
      bool bad = refBad || gotPoison || std::isnan(g);
      double err = bad || g == w ? 0 : std::fabs(g - w);
      if (bad || !std::isfinite(err)) {
        bad = true;
        err = INFINITY;
      }
      double allowed =
          kSensitivityFactor * delta[i] + rtol * std::fabs(w) + floor + tiny;
      part.sums.maxAbsError = std::max(part.sums.maxAbsError, err);
      part.sums.diff2 += err * err;
      if (std::isfinite(w))
        part.sums.ref2 += w * w;
      if (bad || err > allowed)
        part.bad(i, g, w, gotPoison, refBad, allowed);
    }
    return part;
  }));
  if (all.firstBad >= 0) {
    size_t i = size_t(all.firstBad);
    c.pass = false;
    c.firstBad = all.firstBad;
    std::ostringstream os;
    os.precision(3);
    os << " (allowed " << all.allowed << ": " << kSensitivityFactor
       << " x the reference's own change " << delta[i]
       << " when every input moves by one ulp, + rtol " << rtol << " + "
       << tol.rmsRel << " of the RMS " << rms << ")";
    c.detail = describeMismatch(name, i, all.got, all.want, all.gotPoison,
                                all.refBad) +
               (all.refBad ? "" : os.str());
  }
  c.maxAbsError = all.sums.maxAbsError;
  double diff2 = all.sums.diff2, ref2 = all.sums.ref2;
  c.relL2Error = !std::isfinite(diff2)
                     ? INFINITY
                     : ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return c;
}

int64_t firstBitDifference(const std::vector<uint8_t> &a,
                           const std::vector<uint8_t> &b, ElementType type) {
  if (a.size() != b.size())
    return 0;
  unsigned width = elementBytes(type);
  int64_t first = firstDifference(a, b, width);
  if (first >= 0)
    return first;
  // Bytes past the last whole element count as element 0.
  size_t whole = a.size() / width * width;
  if (whole == a.size())
    return -1;
  return std::memcmp(a.data() + whole, b.data() + whole, a.size() - whole)
             ? 0
             : -1;
}

int64_t firstNonFinite(const std::vector<uint8_t> &bytes, ElementType type) {
  if (!isFloatType(type))
    return -1;
  return firstInChunks(bytes.size() / elementBytes(type),
                       [&](size_t begin, size_t end) -> int64_t {
                         for (size_t i = begin; i < end; ++i)
                           if (!std::isfinite(elementAt(bytes, type, i)))
                             return int64_t(i);
                         return -1;
                       });
}

} // namespace runtime
} // namespace tirx
