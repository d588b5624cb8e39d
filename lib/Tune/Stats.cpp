//===- Stats.cpp - deciding which of two kernels is faster ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Stats.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace mlir::tirx;

double mlir::tirx::median(std::vector<double> values) {
  if (values.empty())
    return NAN;
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double upper = values[mid];
  if (values.size() % 2)
    return upper;
  double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

Comparison mlir::tirx::comparePaired(const std::vector<double> &a,
                                     const std::vector<double> &b,
                                     double confidence, int rounds,
                                     uint64_t seed) {
  Comparison c;
  c.confidence = confidence;
  size_t n = std::min(a.size(), b.size());
  if (n == 0)
    return c;
  std::vector<double> sa(a.begin(), a.begin() + n), sb(b.begin(), b.begin() + n);
  c.ratio = median(sb) / median(sa);
  if (n < 3) { // too few pairs for an interval: no winner
    c.low = 0;
    c.high = INFINITY;
    return c;
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<double> ratios;
  ratios.reserve(rounds);
  std::vector<double> ra(n), rb(n);
  for (int r = 0; r < rounds; ++r) {
    // Resample pairs, so each resample keeps A and B measured together.
    for (size_t i = 0; i < n; ++i) {
      size_t k = pick(rng);
      ra[i] = sa[k];
      rb[i] = sb[k];
    }
    ratios.push_back(median(rb) / median(ra));
  }
  std::sort(ratios.begin(), ratios.end());
  double tail = (1 - confidence) / 2;
  c.low = ratios[size_t(tail * (ratios.size() - 1))];
  c.high = ratios[size_t((1 - tail) * (ratios.size() - 1))];
  return c;
}
