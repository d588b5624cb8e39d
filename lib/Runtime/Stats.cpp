//===- Stats.cpp - timing statistics ----------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tirx {
namespace runtime {

TimingStats summarize(std::vector<double> samples) {
  TimingStats s;
  s.count = int64_t(samples.size());
  if (samples.empty())
    return s;
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / double(n);
  s.median = n % 2 ? samples[n / 2]
                   : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  size_t cut = n >= 10 ? std::max<size_t>(1, n / 10) : 0;
  double sum = 0;
  for (size_t i = cut; i < n - cut; ++i)
    sum += samples[i];
  s.trimmedMean = sum / double(n - 2 * cut);
  return s;
}

int64_t chooseSampleCount(double estimateSeconds, double budgetSeconds,
                          int64_t minSamples, int64_t maxSamples) {
  if (!(estimateSeconds > 0) || !std::isfinite(estimateSeconds))
    return minSamples;
  double n = std::ceil(budgetSeconds / estimateSeconds);
  if (n < double(minSamples))
    return minSamples;
  if (n > double(maxSamples))
    return maxSamples;
  return int64_t(n);
}

} // namespace runtime
} // namespace tirx
