//===- Counters.h - hardware counters from Nsight Compute -------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// tirx-run --counters: the candidate's kernels profiled by `ncu` (Nsight
// Compute) in a process of their own: ncu wraps `tirx-run --worker` fed one
// screen-mode request without a reference, filtered to the candidate's
// kernel names, first launch of each. What comes back (achieved occupancy,
// DRAM and SM throughput, the top stall reasons, passes) goes into the
// feedback; ncu missing, refusing (ERR_NVGPUCTRPERM) or failing leaves the
// figures null with a note saying why (docs/counters.md).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_COUNTERS_H
#define TIRX_RUNTIME_COUNTERS_H

#include "tirx/Runtime/Feedback.h"
#include "tirx/Runtime/Manifest.h"

#include <string>
#include <vector>

namespace tirx {
namespace runtime {

/// The metrics asked for: occupancy, throughputs, then one per stall reason
/// (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio).
const std::vector<std::string> &counterMetrics();

/// Where ncu is: $TIRX_NCU when set, else `ncu` on $PATH, else
/// /usr/local/cuda/bin/ncu; "" when none is an executable file.
std::string findNcu();

/// Reads ncu's CSV report (`--csv`, the details page: one row per metric
/// and kernel launch, columns named in a header row that starts with
/// "ID"; lines before it, such as ==PROF== ones, are skipped) into `c`,
/// the launches of kernels in `kernels` only (all when empty). Values are
/// averaged over the launches found; "n/a" and empty values stay null;
/// percentages become fractions. Sets `passes` from ==PROF== "- N passes"
/// lines. Returns false with `error` when no metric row is found.
bool parseNcuCsv(const std::string &text,
                 const std::vector<std::string> &kernels, HardwareCounters &c,
                 std::string &error);

/// Why ncu gave no figures, from its output and exit status: a permission
/// refusal (ERR_NVGPUCTRPERM), no kernel profiled, unknown metrics, or the
/// last ==ERROR== line.
std::string describeNcuFailure(int exitStatus, const std::string &output);

struct CounterRequest {
  std::string ncu;         // path of ncu ("": findNcu())
  std::string program;     // tirx-run
  std::string bundle;
  const Manifest *manifest = nullptr;
  int device = 0;
  std::string profileDir;
  uint64_t seed = 1;
  double timeoutSeconds = 300;
};

/// Profiles the first launch of each of the bundle's kernels; never throws.
HardwareCounters collectCounters(const CounterRequest &request);

/// Puts `c` into `f` (achieved_occupancy, dram/sm throughput) and, where
/// the run was timed and plausible, lets the achieved figures judge the
/// bottleneck: DRAM at 80% of peak or more is memory_bound, SM at 80% or
/// more (with DRAM below) compute_bound (launch_bound and too_few_blocks
/// stand); the reason always gains the achieved figures and the top stall
/// reasons.
void applyCounters(Feedback &f, const HardwareCounters &c);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_COUNTERS_H
