//===- Stats.h - timing statistics ------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_STATS_H
#define TIRX_RUNTIME_STATS_H

#include <cstdint>
#include <vector>

namespace tirx {
namespace runtime {

struct TimingStats {
  int64_t count = 0;
  double min = 0, max = 0, mean = 0, median = 0;
  /// Mean of the samples left after dropping the lowest and highest 10%
  /// (at least one each side when there are 10 or more samples).
  double trimmedMean = 0;
};

/// Statistics of `samples` (any order; empty gives count 0).
TimingStats summarize(std::vector<double> samples);

/// How many samples to take so that a run lasts about `budgetSeconds`,
/// given one sample's estimated time; never fewer than `minSamples`, never
/// more than `maxSamples`.
int64_t chooseSampleCount(double estimateSeconds, double budgetSeconds,
                          int64_t minSamples, int64_t maxSamples);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_STATS_H
