//===- Feedback.h - the runner's feedback and its classifier ----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The feedback JSON of one candidate. Its keys are those of #tirx.feedback
// (docs/feedback.md); tirx-attach-feedback reads this file into the IR.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_FEEDBACK_H
#define TIRX_RUNTIME_FEEDBACK_H

#include "tirx/Runtime/Manifest.h"
#include "tirx/Runtime/Stats.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tirx {
namespace runtime {

/// What the runner knows of the device (measured once, cached).
struct DeviceProfile {
  std::string name;
  std::string uuid;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int64_t l2Bytes = 0;
  int64_t sharedPerBlockOptin = 0;
  int64_t sharedPerSm = 0;
  int64_t registersPerBlock = 0;
  int64_t registersPerSm = 0;
  int maxThreadsPerSm = 0;
  int maxThreadsPerBlock = 0;
  double clockGHz = 0;          // 0: unknown
  double copyBandwidthGBs = 0;  // measured device-to-device, read + write
  double peakFp32Tflops = 0;    // from SM count and clock; 0: unknown
  double peakTf32Tflops = 0;    // dense tf32 on tensor cores; 0: unknown
  double peakF16Tflops = 0;     // dense f16/bf16 on tensor cores; 0: unknown
};

struct BufferCheck {
  std::string name;
  double maxAbsError = 0;
  double relL2Error = 0;
  bool pass = true;
};

/// One adversarial input set's check (docs/correctness.md).
struct AdversarialCheck {
  std::string kind;          // large | cancel | denormal
  std::string status;        // pass | fail | skipped
  int level = -1;            // the magnitude tried (-1: none kept)
  double scale = 0;          // of the first float input's type at `level`
  std::optional<double> maxAbsError;
  std::string detail;        // the first mismatch, or why it was skipped
};

/// What Nsight Compute measured of the candidate's kernels (docs/counters.md):
/// `status` ok | unavailable | not_requested; absent figures stay null.
struct HardwareCounters {
  std::string status = "not_requested";
  std::string note;                     // why unavailable, or what was left out
  std::string kernel;                   // the kernel profiled (first launch)
  std::optional<double> dramThroughput; // fraction of peak, elapsed
  std::optional<double> smThroughput;   // fraction of peak, elapsed
  std::optional<double> achievedOccupancy; // active warps / max, [0, 1]
  std::optional<int64_t> passes;        // replay passes ncu needed
  std::optional<int64_t> samples;       // kernel launches profiled
  /// Top stall reasons, largest first: name (ncu's suffix, e.g.
  /// "long_scoreboard") and its share of the stalls listed, [0, 1].
  std::vector<std::pair<std::string, double>> stalls;
};

/// The feedback schema's version: 2 added the trust fields (seed, checked
/// launches, stateful, inputs_unchanged, ghost_check, plausible) and made
/// bandwidth_utilization uncapped; 3 the stricter checks (correctness_reason,
/// determinism_runs, adversarial) and hardware counters (docs/feedback.md).
constexpr int kFeedbackSchemaVersion = 3;

struct Feedback {
  int schemaVersion = kFeedbackSchemaVersion;
  std::string irVersion;
  std::string payload;
  std::string compileStatus = "ok";    // not_run | ok | error
  std::string launchStatus = "not_run"; // not_run | ok | error | timeout | no_device
  std::string error;                    // CUDA error name and message, if any
  std::optional<double> killedAfterSeconds; // for a timeout: the kernel's time
  // Timing (microseconds).
  std::optional<TimingStats> duration;
  // Throughput.
  uint64_t bytesMoved = 0;
  uint64_t flops = 0;
  /// The candidate's math mode (its manifest's `math`: ieee, tf32, f16,
  /// bf16): at which precision its products ran, so that a peer is timed
  /// at the same one.
  std::string math = "ieee";
  std::optional<double> achievedBandwidthGBs;
  std::optional<double> bandwidthUtilization;
  // Resources (the first kernel's; per-kernel in `kernels`).
  std::optional<int64_t> registersPerThread;
  std::optional<int64_t> sharedMemBytes;
  std::optional<int64_t> spillBytes;
  std::optional<double> theoreticalOccupancy;
  std::optional<double> achievedOccupancy;
  // Correctness.
  std::string correctness = "not_checked"; // not_checked | pass | fail
  int64_t correctnessInputs = 0;
  std::optional<double> maxAbsError;
  std::optional<double> relL2Error;
  std::string correctnessDetail;
  std::vector<BufferCheck> buffers;
  // Trust (schema 2).
  std::optional<uint64_t> seed;          // of input set 0; set s used seed + s
  /// The run-time sizes the bundle ran at (docs/bundle.md, "Dynamic
  /// sizes"); empty for a static bundle. With the seed, what replays a run.
  std::vector<std::pair<std::string, int64_t>> sizes;
  /// The input buffers drawn from a domain other than [-1, 1), by name
  /// ("nonnegative": [0, 1); docs/bundle.md, "Input domains").
  std::vector<std::pair<std::string, std::string>> inputDomains;
  std::vector<int64_t> checkedLaunches;  // launch ordinals (1-based) compared
  int64_t launchCount = 0;               // launches of the candidate in all
  std::optional<bool> stateful;          // a later launch on the same inputs
                                         // gave other outputs (beyond tolerance)
  std::optional<bool> bitwiseReproducible; // every checked relaunch bit-equal
  std::optional<bool> inputsUnchanged;   // `in` buffers read back after runs
  std::string ghostCheck = "not_run";    // not_run | caught | blind
  std::optional<bool> plausible;         // null: not timed
  std::string implausibleReason;
  std::optional<double> copyBandwidthGBs; // the device figure the gate used
  std::optional<double> achievedTflops;
  // Stricter checks (schema 3).
  /// Why correctness failed: mismatch | nondeterministic | adversarial |
  /// input_changed | stateful | stray_write; "" when it did not.
  std::string correctnessReason;
  std::optional<int64_t> determinismRuns; // launches on one input set compared
                                          // bit for bit; null: not run
  std::vector<AdversarialCheck> adversarial;
  HardwareCounters counters;
  // Classifier.
  std::string bottleneck = "unknown";
  std::string bottleneckLocation; // IR path
  std::string bottleneckLoc;      // MLIR location "file:line:col"
  std::string bottleneckReason;   // one sentence for a prompt
};

/// How far beyond the device's measured copy bandwidth or compute peak a
/// timing may lie before it is called implausible (measured noise of the
/// copy rate is about 1%; HBM3e's nominal peak is 1.13x the copy rate).
constexpr double kPlausibilityMargin = 1.10;

/// Sets `plausible` (and `implausible_reason`): false when the median is
/// shorter than the manifest's minimum bytes at the measured copy bandwidth
/// or its counted flops at the compute peak allow, beyond
/// kPlausibilityMargin. Leaves it unset when there is no timing.
void judgePlausibility(Feedback &feedback, const Manifest &manifest,
                       const DeviceProfile &device);

/// Names the factor that limits the candidate from its measurements, the
/// manifest's counted bytes/flops and accesses, and the device profile.
void classify(Feedback &feedback, const Manifest &manifest,
              const DeviceProfile &device);

std::string serializeFeedback(const Feedback &feedback);
/// The feedback's `counters` object alone, as JSON text.
std::string serializeCounters(const HardwareCounters &counters);
bool parseFeedback(const std::string &text, Feedback &feedback,
                   std::string &error);
bool readFeedbackFile(const std::string &path, Feedback &feedback,
                      std::string &error);

std::string serializeDeviceProfile(const DeviceProfile &profile);
bool parseDeviceProfile(const std::string &text, DeviceProfile &profile,
                        std::string &error);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_FEEDBACK_H
