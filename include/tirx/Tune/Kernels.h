//===- Kernels.h - `tirx tune` of a profiled multi-op payload ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A payload of many ops (a transformer block) is profiled first (`tirx
// profile`: one kernel per op, each scheduled by auto in a workspace of its
// own, WS/kernels/NAME, timed and ranked by time share, WS/profile.json).
// `tirx tune --kernels` then works down that ranking, hottest first (Amdahl:
// the kernel that takes the most time is worth the most search): each
// kernel's own tune (tuneWorkspace) gets the share of what is left of the
// time and candidate budgets that its time share gives it (what a kernel
// leaves unused goes to the colder ones), and the report sums the block:
// before (the automatic schedules) and after (each kernel's best).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TUNE_KERNELS_H
#define TIRX_TUNE_KERNELS_H

#include "tirx/Tune/Tune.h"

namespace mlir::tirx {

/// One kernel of a profile: where it stands in the ranking, its share.
struct RankedKernel {
  std::string name;
  std::optional<double> profileUs; // the profile's time; none: compile only
  std::string status;              // the profile's: scheduled, timed, ...
  double share = 0; // of the timed total (0 if untimed; equal if none is)
};

/// The kernels of `profile` (profile.json's object), hottest first; those
/// without a time after the timed ones, in program order; shares sum to 1
/// (the timed kernels' by time; equal ones when no kernel has a time).
std::vector<RankedKernel> rankKernels(const llvm::json::Object &profile);

/// `budget` split down the ranking: kernel i gets what is left times its
/// share of the shares left (at least `least`).
std::vector<double> splitBudget(const std::vector<RankedKernel> &ranked,
                                double budget, double least);

/// A candidate budget split as splitBudget splits it (at least one each),
/// in whole candidates that sum to `budget` (when it has one for each):
/// each kernel takes the rounded running sum less what those before took.
std::vector<unsigned> splitCandidates(const std::vector<RankedKernel> &ranked,
                                      unsigned budget);

/// Tunes the kernels of the profile workspace `session` hottest first,
/// within `options.search`'s time and candidate budgets in all.
/// Each kernel's workspace is opened as `who`.
llvm::Expected<Result> tuneKernels(Session &session,
                                   WorkspaceTuneOptions options,
                                   Identity who = {});

} // namespace mlir::tirx

#endif // TIRX_TUNE_KERNELS_H
