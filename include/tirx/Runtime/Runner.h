//===- Runner.h - run one candidate bundle on the GPU -----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The GPU half of tirx-run. It talks to the CUDA driver through dlopen
// ("libcuda.so.1"), so it builds and runs where no driver exists and then
// says so. Call it in a child process: a hung or faulting kernel must only
// take that process down (tools/tirx-run does the isolation).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_RUNNER_H
#define TIRX_RUNTIME_RUNNER_H

#include "tirx/Runtime/Feedback.h"
#include "tirx/Runtime/Manifest.h"

#include <functional>
#include <string>

namespace tirx {
namespace runtime {

struct RunOptions {
  int device = 0;
  uint64_t seed = 1;         // of input set 0 (tirx-run draws a fresh one)
  int checkedTimedLaunches = 3; // random timed launches compared, besides the last
  int inputSets = 3;        // correctness checks, each with fresh inputs
  int64_t samples = 0;      // 0: chosen from `budgetSeconds`
  int64_t minSamples = 10;
  int64_t maxSamples = 2000;
  double budgetSeconds = 1.0;
  int warmup = 3;
  /// Launches on the last input set after the first, each compared bit for
  /// bit with it (0: no determinism check); a difference fails the
  /// candidate with reason `nondeterministic`, as does a timed launch read
  /// back that differs bitwise while this is on.
  int determinismRuns = 2;
  /// Adversarial input sets (docs/correctness.md): "on", "off", or "auto"
  /// (on when the parameters take at most `adversarialMaxBytes`).
  std::string adversarial = "auto";
  uint64_t adversarialMaxBytes = uint64_t(256) << 20;
  /// When set: the inputs and outputs of input set 0 (first launch) are
  /// written there as raw little-endian arrays, <param>.in and <param>.out
  /// for every buffer, so that a test can compare them with a host
  /// computation (test/Integration/host.test).
  std::string dumpDir;
  /// Called with true before the host blocks on the GPU and with false
  /// after; the watchdog in the parent uses it.
  std::function<void(bool)> busy;
};

/// Exit codes of tirx-run.
enum ExitCode {
  kExitOk = 0,        // every candidate ran and none failed
  kExitFailed = 1,    // some candidate failed correctness, launch or timed out
  kExitBadInput = 2,  // a bundle or an option is malformed
  kExitNoDevice = 3,  // no CUDA driver or no device
};

/// Why a GPU is not usable, or "" when it is (loads the driver).
std::string probeDevice(int device);

/// Measures the device profile (attributes, and the device-to-device copy
/// bandwidth, afresh in every call: the plausibility gate rests on it) and
/// writes it to `cacheDir` for other readers. Returns "" or an error.
std::string loadOrMeasureProfile(int device, const std::string &cacheDir,
                                 DeviceProfile &profile);

/// Runs `candidate` (and `reference`, when not null, on the same inputs),
/// fills `feedback`. Never throws; CUDA errors end up in the feedback.
void runCandidate(const RunOptions &options, const std::string &candidateDir,
                  const Manifest &candidate, const std::string *referenceDir,
                  const Manifest *reference, const DeviceProfile &profile,
                  Feedback &feedback);

/// Fills the fields of `feedback` that the manifest alone gives (payload,
/// version, bytes and flops, spills), before anything runs.
void beginFeedback(const Manifest &candidate, Feedback &feedback);

/// Checks that `reference` computes on the same parameters as `candidate`;
/// returns "" or a message naming the first difference. A buffer the
/// candidate reads (inout) where the reference says its initial contents do
/// not matter (out: tirx-map-reference marks a fresh output its fill writes
/// first) is the same parameter: the candidate reads back what it wrote (a
/// fill in a kernel of its own). The reverse, a candidate that never reads
/// what the reference reads, is a difference.
std::string compareSignatures(const Manifest &candidate,
                              const Manifest &reference);

/// Gives `candidate` the reference's contract: the input domains (the
/// inputs are drawn as the reference, mapped from the seed, says, whatever
/// the candidate declares, so that a candidate cannot narrow what its check
/// draws; docs/bundle.md, "Input domains") and the reference's out for a
/// buffer the candidate reads back: it is poisoned, so a candidate that
/// reads it before writing it fails its check.
void adoptReferenceContract(Manifest &candidate, const Manifest &reference);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_RUNNER_H
