//===- Check.h - inputs, poison and correctness -----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Host-side numerics of the runner, free of any GPU call so that CI can test
// them: seeded input generation (never all zeros), output poisoning, and the
// comparison of a candidate's outputs with the reference's. Each loop over a
// buffer's elements runs in fixed chunks on several threads (Parallel.h):
// the results do not depend on how many.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_CHECK_H
#define TIRX_RUNTIME_CHECK_H

#include "tirx/Runtime/Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tirx {
namespace runtime {

/// splitmix64: the same sequence on every platform for a given seed.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [0, 1).
  double uniform();
  /// Moves on as `draws` calls of next() would (splitmix64 is counter
  /// based): a chunk of a buffer starts its draws where it starts.
  void skip(uint64_t draws);

private:
  uint64_t state;
};

/// float <-> half / bfloat16, round to nearest even.
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBFloat16(float value);
float bfloat16ToFloat(uint16_t bits);

/// Fills `bytes` with random elements of `type`: floats uniform in [-1, 1)
/// (in [0, 1) for the nonnegative domain: the same draws, u for 2u - 1),
/// integers in [-100, 100]. Deterministic in `seed`.
void fillRandom(std::vector<uint8_t> &bytes, ElementType type, uint64_t seed,
                Domain domain = Domain::signed_unit);

/// Fills with the poison value: NaN for floats, 0x7A7A7A7A-like sentinels for
/// integers, so that elements a kernel does not write are caught.
void fillPoison(std::vector<uint8_t> &bytes, ElementType type);

/// The poison pattern of `type` as one 32-bit word, for a device-side
/// memset (cuMemsetD32) of a buffer whose size is a multiple of 4: every
/// element it makes satisfies isPoison (f64: 0x7FF87FF8 twice, a NaN).
uint32_t poisonWord(ElementType type);

/// A fresh seed for one runner process: /dev/urandom mixed with the clock,
/// below 2^53 so that JSON readers keep it exact.
uint64_t freshSeed();

/// Element `i` of a buffer as a double.
double elementAt(const std::vector<uint8_t> &bytes, ElementType type,
                 size_t i);

/// True when element `i` still holds the poison value.
bool isPoison(const std::vector<uint8_t> &bytes, ElementType type, size_t i);

/// Tolerances by element type: element i passes when
/// |got - want| <= atol + rtol * |want| + rmsRel * rms(want); the buffer
/// passes when all elements do and the relative L2 error is at most rtol.
/// rmsRel is for sums of many rounded products (tf32): their error scales
/// with the sum's magnitude, not with one element's, which may be near 0.
struct Tolerance {
  double rtol;
  double atol;
  double rmsRel = 0;
};
/// The tolerance of `type` under the bundle's `math` ("ieee" or "tf32"),
/// for outputs that sum up to `reductionLength` terms (0: unknown), in a
/// buffer of `elements` values (0: unknown; the largest of many rounding
/// errors is checked, so the slack grows slowly with the count).
Tolerance toleranceFor(ElementType type, const std::string &math = "ieee",
                       int64_t reductionLength = 0, uint64_t elements = 0);

struct Comparison {
  bool pass = true;
  double maxAbsError = 0;
  double relL2Error = 0;
  int64_t firstBad = -1; // element index, -1 when none
  std::string detail;    // "y[17]: got nan, want 1.5 (unwritten)"
};

/// Compares `got` with `want` (both `type`, same size) for buffer `name`
/// within `tol` (by default the type's). NaN never passes: not where the
/// reference has a number, not where both are NaN (an element neither
/// wrote).
Comparison compareBuffers(const std::string &name, ElementType type,
                          const std::vector<uint8_t> &got,
                          const std::vector<uint8_t> &want);
Comparison compareBuffers(const std::string &name, ElementType type,
                          const std::vector<uint8_t> &got,
                          const std::vector<uint8_t> &want,
                          const Tolerance &tol);

/// What a comparison accumulates over the elements (on the host, or on the
/// device by the worker's kernels): the largest absolute error, the sums of
/// squared errors and of the reference's squares.
struct ComparisonSums {
  double maxAbsError = 0;
  double diff2 = 0;
  double ref2 = 0;
};

/// Sets `c`'s errors from `sums` and fails it when the relative L2 error
/// exceeds the tolerance (unless it failed already, with its detail).
void finishComparison(const std::string &name, const ComparisonSums &sums,
                      const Tolerance &tol, Comparison &c);

/// The detail of a failing element: "y[17]: got 3, want 1.5 (unwritten)";
/// `refBad` when the reference holds NaN or poison there.
std::string describeMismatch(const std::string &name, size_t i, double got,
                             double want, bool gotPoison, bool refBad);

/// A failed comparison of an `in` buffer whose element `i` was `uploaded`
/// and is `now`.
Comparison describeChange(const std::string &name, size_t i, double now,
                          double uploaded);

/// Checks that a buffer is bit for bit what was uploaded (an `in` buffer the
/// kernel must not write): fails naming the first changed element,
/// "x[5]: changed by the kernel: uploaded 0.25, now 7".
Comparison compareUnchanged(const std::string &name, ElementType type,
                            const std::vector<uint8_t> &now,
                            const std::vector<uint8_t> &uploaded);

/// Host images of every buffer of `m` for one input set: `in` and `inout`
/// buffers random (buffer i from seed * 1000003 + i), `out` buffers
/// poisoned; scalars empty.
std::vector<std::vector<uint8_t>> makeInputs(const Manifest &m, uint64_t seed);

/// The value of every parameter of `m` that is a scalar for one input set:
/// the manifest's own where the payload fixed it (`tirx.value`), else drawn
/// from `seed` (parameter i from seed * 1000003 + i, as buffers): a float in
/// [0.5, 2] exact in every float type, an integer in [1, 8]. Buffers get 0.
/// The same seed gives the candidate and the reference the same values.
std::vector<double> scalarValues(const Manifest &m, uint64_t seed);

/// The ghost check: would the outputs pass against the reference's `want`
/// if no kernel ran at all (`out` buffers still poison, `inout` buffers as
/// uploaded: exactly `inputs`)? Then the check cannot see the kernel.
bool checkIsBlind(const Manifest &m,
                  const std::vector<std::vector<uint8_t>> &inputs,
                  const std::vector<std::vector<uint8_t>> &want);

/// A later launch on the same inputs (`now`) against the first one
/// (`first`): bit-equal passes at once (`bitEqual`); otherwise the
/// tolerance decides against `want` (the reference's outputs, or `first`
/// without a reference).
struct RelaunchCheck {
  bool bitEqual = true;
  Comparison comparison;
};
RelaunchCheck compareRelaunch(const std::string &name, ElementType type,
                              const std::vector<uint8_t> &now,
                              const std::vector<uint8_t> &first,
                              const std::vector<uint8_t> &want,
                              const Tolerance &tol);

/// Which of `samples` timed launches to check against the reference: `k`
/// distinct indices in [0, samples - 1) drawn from `rng`, and always the
/// last one (samples - 1); sorted. Fewer when there are fewer samples.
std::vector<int64_t> chooseCheckedSamples(int64_t samples, int k, Rng &rng);


//===----------------------------------------------------------------------===//
// Adversarial input sets (docs/correctness.md)
//===----------------------------------------------------------------------===//

/// What an input set's float buffers hold besides uniform random values:
/// `large` magnitudes near what the op keeps finite, values that `cancel`
/// (alternating signs around a large magnitude, so that sums and dot
/// products lose most of their leading bits), `denormal`s. Integer buffers
/// (indices) stay random in every kind.
enum class InputKind { random, large, cancel, denormal };
const char *inputKindName(InputKind kind);
/// The adversarial kinds, in the order the runner tries them.
const std::vector<InputKind> &adversarialKinds();

/// How many magnitudes `kind` tries, largest first: the runner takes the
/// first level at which the reference's outputs stay finite.
int adversarialLevels(InputKind kind);
/// The magnitude of level `level` for a buffer of `type`: the scale of
/// `large`, the alternating offset of `cancel`, the bound of `denormal`
/// (the type's smallest normal: every value below it is subnormal).
double adversarialScale(InputKind kind, int level, ElementType type);

/// Fills `bytes` (of float `type`) for `kind` at `level`, deterministic in
/// `seed`: large: uniform in [-S, S); cancel: (-1)^i S + uniform [-1, 1);
/// denormal: uniform in (-0.98 S, 0.98 S), S the smallest normal; in the
/// nonnegative domain the magnitudes of these. Integer types get fillRandom.
void fillAdversarial(std::vector<uint8_t> &bytes, ElementType type,
                     InputKind kind, int level, uint64_t seed,
                     Domain domain = Domain::signed_unit);

/// makeInputs for an adversarial kind: `in` and `inout` buffers from
/// fillAdversarial (buffer i from seed * 1000003 + i), `out` poisoned.
std::vector<std::vector<uint8_t>> makeAdversarialInputs(const Manifest &m,
                                                        InputKind kind,
                                                        int level,
                                                        uint64_t seed);

/// Moves every finite float element of `bytes` by `ulps` units in the last
/// place of `type`: all up (towards +inf) when `seed` is 0, else each in a
/// direction drawn from `seed`. Zeros move to the smallest subnormal.
void perturbUlps(std::vector<uint8_t> &bytes, ElementType type, int ulps,
                 uint64_t seed);

/// How many ulps of its storage type one input element is moved by to
/// measure the reference's sensitivity: 1, or for f32 under tf32 math
/// 2^13 (tf32 keeps 10 of f32's 23 mantissa bits).
int sensitivityUlps(ElementType type, const std::string &math);

/// The reference's sensitivity per output element: the largest
/// |perturbed - want| over the given perturbed runs' outputs; +inf where
/// one of them is not finite (or is poison) and `want` is. Each element's is
/// at least 1/8 of the RMS over its block of kSensitivityBlock neighbours
/// (an element whose moved terms happened to cancel is not held to ~0).
constexpr size_t kSensitivityBlock = 64;
std::vector<double>
referenceSensitivity(ElementType type, const std::vector<uint8_t> &want,
                     const std::vector<std::vector<uint8_t>> &perturbed);

/// The sensitivity rule: element i passes when
///   |got - want| <= kSensitivityFactor * delta[i] + rtol * |want|
///                   + rmsRel * RMS(want) + tiny,
/// rtol and rmsRel the type's under the bundle's math and reduction length
/// (toleranceFor, the random-input rule: tf32 products are 2e-3 off on any
/// input, a long sum's own rounding a fraction of the output's RMS) and
/// tiny two of its smallest subnormals.
/// A correct schedule differs from the reference by reassociated rounding,
/// which one ulp of every input moves the reference by as much; a wrong one
/// differs by far more. No relative-L2 limit (under cancellation the
/// reference itself is that far off); NaN and poison never pass.
constexpr double kSensitivityFactor = 16;
Comparison compareSensitive(const std::string &name, ElementType type,
                            const std::vector<uint8_t> &got,
                            const std::vector<uint8_t> &want,
                            const std::vector<double> &delta,
                            const std::string &math = "ieee",
                            int64_t reductionLength = 0);

/// The first element of an output of `type` that is not a finite number
/// (NaN, poison, an infinity), -1 when none or when `type` is an integer.
int64_t firstNonFinite(const std::vector<uint8_t> &bytes, ElementType type);

/// The first element where `a` and `b` differ bit for bit, -1 when none.
int64_t firstBitDifference(const std::vector<uint8_t> &a,
                           const std::vector<uint8_t> &b, ElementType type);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_CHECK_H
