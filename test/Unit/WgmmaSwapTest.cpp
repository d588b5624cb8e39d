//===- WgmmaSwapTest.cpp - the swapped tf32 product's row order ----------===//
//
// tirx::wgmmaSwappedColumn, the columns of C that use_wgmma's swapped f32
// product (C^T = B^T A^T, B^T's fragments loaded from B's 128-byte swizzled
// boxes) gives its accumulator rows: a permutation of each group of 64, and
// one under which every fragment load of a warp meets 32 distinct banks.
// The banks come from TMA's 128-byte swizzle (the 16-byte chunks of row k
// of a box XORed with k % 8), not from use_wgmma's code.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>

namespace {
/// wgmmaSwappedColumn's operations on integers.
struct IntOps {
  int64_t add(int64_t x, int64_t y) { return x + y; }
  int64_t mul(int64_t x, int64_t v) { return x * v; }
  int64_t div(int64_t x, int64_t v) { return x / v; }
  int64_t rem(int64_t x, int64_t v) { return x % v; }
};

/// The bank of f32 element (k, n) of a stage of B staged as boxes of 32
/// rows (k) of 128 bytes (32 f32 of n), 128-byte swizzled.
int64_t bankOf(int64_t k, int64_t n) {
  int64_t box = n / 32, chunk = (n % 32) / 4;
  int64_t byte = box * 32 * 128 + (k % 32) * 128 + ((chunk ^ (k % 8)) * 16) +
                 (n % 4) * 4;
  return (byte / 4) % 32;
}

/// The largest number of a warp's lanes on one bank when each loads its
/// element (k step `step`, fragment register half / h) with columns `col`.
template <typename Col>
int64_t worstConflict(Col col, int64_t warp, int64_t step, int64_t half,
                      int64_t h) {
  int64_t lanesOn[32] = {};
  int64_t worst = 0;
  for (int64_t lane = 0; lane < 32; ++lane) {
    int64_t k = 8 * step + lane % 4 + 4 * half;
    int64_t bank = bankOf(k, col(warp, lane / 4, h));
    worst = std::max(worst, ++lanesOn[bank]);
  }
  return worst;
}
} // namespace

TEST(WgmmaSwappedColumn, IsAPermutationOfEachGroup) {
  IntOps ops;
  std::set<int64_t> columns;
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t r = 0; r < 8; ++r) {
        int64_t c = mlir::tirx::wgmmaSwappedColumn(ops, w, r, h);
        EXPECT_GE(c, 0);
        EXPECT_LT(c, 64);
        columns.insert(c);
      }
  EXPECT_EQ(columns.size(), 64u);
}

TEST(WgmmaSwappedColumn, FragmentLoadsMeetEveryBankOnce) {
  IntOps ops;
  auto permuted = [&](int64_t w, int64_t r, int64_t h) {
    return mlir::tirx::wgmmaSwappedColumn(ops, w, r, h);
  };
  // Rows in order: two lanes a bank, the cost the permutation removes.
  auto inOrder = [](int64_t w, int64_t r, int64_t h) {
    return 16 * w + 8 * h + r;
  };
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t step = 0; step < 4; ++step)
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t h = 0; h < 2; ++h) {
          EXPECT_EQ(worstConflict(permuted, w, step, half, h), 1)
              << "warp " << w << " step " << step << " register "
              << 2 * half + h;
          EXPECT_EQ(worstConflict(inOrder, w, step, half, h), 2);
        }
}
