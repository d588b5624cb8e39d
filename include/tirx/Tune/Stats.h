//===- Stats.h - deciding which of two kernels is faster --------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Winners are chosen by statistics, not by one median: the leaders are
// measured in interleaved pairs (A B A B ...), so drifts of clock and
// temperature hit both; the ratio of medians gets a bootstrap confidence
// interval, and a winner is declared only when the interval excludes 1.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TUNE_STATS_H
#define TIRX_TUNE_STATS_H

#include <cstdint>
#include <vector>

namespace mlir::tirx {

struct Comparison {
  double ratio = 1;   // median(b) / median(a): > 1 means a is faster
  double low = 1;     // the confidence interval of the ratio
  double high = 1;
  double confidence = 0.95;
  /// 1: a is faster, -1: b is faster, 0: the interval holds 1.
  int winner() const { return low > 1 ? 1 : high < 1 ? -1 : 0; }
};

double median(std::vector<double> values);

/// Compares paired samples (a[i] and b[i] measured back to back) by the
/// ratio of medians, with a percentile bootstrap over the pairs (`rounds`
/// resamples, seeded for reproducibility).
Comparison comparePaired(const std::vector<double> &a,
                         const std::vector<double> &b,
                         double confidence = 0.95, int rounds = 2000,
                         uint64_t seed = 1);

} // namespace mlir::tirx

#endif // TIRX_TUNE_STATS_H
