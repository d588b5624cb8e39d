//===- Auto.cpp - the automatic schedule ------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The rules are pure functions of the facts of a version (Auto.h); the
// facts are computed in a child process (the payload is parsed there, like
// every MLIR work of the harness); every step is a Session::applyAction.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Auto.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"
#include "tirx/Support/JSON.h"
#include "tirx/Dialect/TIRx/Transforms/Tails.h"
#include "Isolation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

namespace {
std::vector<int64_t> divisors(int64_t n, int64_t atMost) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= std::min(n, atMost); ++d)
    if (n % d == 0)
      out.push_back(d);
  return out;
}

int64_t product(const std::vector<int64_t> &v) {
  int64_t p = 1;
  for (int64_t x : v)
    p *= x;
  return p;
}

bool validThreads(int64_t threads) {
  return threads >= 32 && threads <= 1024 && threads % 32 == 0;
}
} // namespace

std::vector<int64_t> mlir::tirx::vectorWidths(unsigned elementBytes,
                                              int64_t innerExtent) {
  std::vector<int64_t> out;
  if (elementBytes == 0 || innerExtent <= 0)
    return {1};
  for (int64_t w = std::max<int64_t>(1, 16 / elementBytes); w >= 1; w /= 2)
    if (innerExtent % w == 0)
      out.push_back(w);
  return out;
}

int64_t mlir::tirx::cyclicChunk(int64_t perThread, unsigned elementBytes,
                                bool vectorizable) {
  if (perThread <= 1)
    return 0;
  int64_t run = vectorizable ? vectorWidths(elementBytes, perThread).front() : 1;
  return run < perThread ? run : 0;
}

std::optional<ParallelTiling>
mlir::tirx::chooseParallelTiling(const std::vector<int64_t> &extents,
                                 unsigned elementBytes, bool vectorizable) {
  if (extents.empty())
    return std::nullopt;
  for (int64_t e : extents)
    if (e <= 0)
      return std::nullopt;
  size_t tiled = std::min<size_t>(extents.size(), 3);
  size_t inner = tiled - 1;
  bool hasOuter = tiled >= 2;
  // Only the last loop is contiguous in memory: a width applies when it is
  // among the tiled ones.
  std::vector<int64_t> widths =
      vectorizable && extents.size() <= 3
          ? vectorWidths(elementBytes, extents[inner])
          : std::vector<int64_t>{1};
  int64_t total = product(std::vector<int64_t>(extents.begin(),
                                               extents.begin() + tiled));
  for (int64_t w : widths) {
    std::optional<ParallelTiling> best;
    double bestCost = 0;
    for (int64_t ti : divisors(extents[inner], 1024 * w)) {
      if (ti % w)
        continue;
      std::vector<int64_t> outers =
          hasOuter ? divisors(extents[inner - 1], 1024)
                   : std::vector<int64_t>{1};
      for (int64_t to : outers) {
        int64_t threads = to * (ti / w);
        if (!validThreads(threads))
          continue;
        int64_t blocks = total / (to * ti);
        double cost = 4 * std::fabs(std::log2(double(threads) / 256));
        if (ti * int64_t(elementBytes) < 128)
          cost += 2; // a block row shorter than a cache line
        if (blocks < 264)
          cost += std::log2(264.0 / double(blocks)); // under 2 blocks per SM
        cost -= 0.001 * double(ti);
        if (!best || cost < bestCost) {
          ParallelTiling t;
          t.blockTile.assign(tiled, 1);
          t.blockTile[inner] = ti;
          if (hasOuter)
            t.blockTile[inner - 1] = to;
          t.perThread.assign(tiled, 1);
          t.perThread[inner] = w;
          t.width = w;
          t.threads = threads;
          best = t;
          bestCost = cost;
        }
      }
    }
    if (best)
      return best;
  }
  return std::nullopt;
}

ReductionKind mlir::tirx::chooseReduction(int64_t outputs, int64_t reduction,
                                          bool parallelFirst) {
  if (!parallelFirst)
    return ReductionKind::Columns;
  if (reduction >= 65536 && outputs < 4096)
    return ReductionKind::Split;
  if (outputs >= 32768 && reduction <= 1024)
    return ReductionKind::PerThread;
  return ReductionKind::InBlock;
}

std::vector<int64_t> mlir::tirx::splitParts(int64_t extent) {
  std::vector<int64_t> parts;
  for (int64_t p : {16, 32, 64, 128, 256, 512})
    if (extent % p == 0 && extent / p >= 1024)
      parts.push_back(p);
  std::stable_sort(parts.begin(), parts.end(), [&](int64_t a, int64_t b) {
    return std::fabs(std::log2(double(extent / a) / 4096)) <
           std::fabs(std::log2(double(extent / b) / 4096));
  });
  return parts;
}

std::vector<int64_t> mlir::tirx::columnSplitParts(int64_t outputs,
                                                  int64_t extent,
                                                  int64_t width) {
  // About 2^16 threads of `width` adjacent columns (vectors: 4 f32 a thread,
  // 32 parts of 8192 columns, 75.7 us on the H200 against 77.3 for 64 parts
  // and 83.0 for 128, whose partials the combining threads read longer);
  // a column a thread: 2^19 (session 8's 64 parts).
  constexpr int64_t kFilled = int64_t(1) << 17;
  const int64_t kTarget =
      width > 1 ? (int64_t(1) << 16) * width : int64_t(1) << 19;
  std::vector<int64_t> parts;
  if (outputs <= 0 || outputs >= kFilled || extent <= 0)
    return parts;
  for (int64_t p = 4; p <= 1024; p *= 2)
    if (extent % p == 0 && extent / p >= 32)
      parts.push_back(p);
  std::stable_sort(parts.begin(), parts.end(), [&](int64_t a, int64_t b) {
    return std::fabs(std::log2(double(outputs * a) / double(kTarget))) <
           std::fabs(std::log2(double(outputs * b) / double(kTarget)));
  });
  return parts;
}

std::vector<int64_t> mlir::tirx::blockReduceThreads(int64_t extent) {
  std::vector<int64_t> out;
  // Rows of 4096 or more: 512 threads first. A block's row ends in a
  // tail (the reduction tree, the store) that more threads shorten and
  // more blocks resident overlap: on the H200, a row sum over 8192 x 4096
  // f32 took 36.1 us on 512 threads against 37.7 on 256 (90% of the copy
  // bandwidth against 86%; 8192 x 8192: 70.5 against 70.8, session 8).
  if (extent >= 4096)
    out.push_back(512);
  for (int64_t t : {256, 128, 64, 32})
    if (t <= extent)
      out.push_back(t);
  if (out.empty())
    out.push_back(32);
  return out;
}

namespace {
/// Elements per thread for a block tile: the inner dim in vectors of the
/// widest width, threads a multiple of 32 up to `maxThreads` (1024); more
/// per thread when the tile is large. Best first.
std::vector<std::vector<int64_t>>
perThreadCandidates(const std::vector<int64_t> &tile, unsigned elementBytes,
                    bool vectorizable, int64_t maxThreads = 1024) {
  auto fits = [&](int64_t threads) {
    return validThreads(threads) && threads <= maxThreads;
  };
  std::vector<std::vector<int64_t>> out;
  if (tile.empty())
    return out;
  size_t inner = tile.size() - 1;
  std::vector<int64_t> widths =
      vectorizable ? vectorWidths(elementBytes, tile[inner])
                   : std::vector<int64_t>{1};
  for (int64_t w : widths)
    for (int64_t k = 1; k <= 64; k *= 2) {
      int64_t e = w * k;
      if (tile[inner] % e)
        break;
      int64_t threads = product(tile) / e;
      if (!fits(threads))
        continue;
      std::vector<int64_t> per(tile.size(), 1);
      per[inner] = e;
      out.push_back(per);
      break;
    }
  // Outer dims per thread too, for tiles whose inner dim cannot absorb it.
  if (out.empty() && tile.size() >= 2)
    for (int64_t k = 2; k <= 64; k *= 2)
      if (tile[inner - 1] % k == 0 && fits(product(tile) / k)) {
        std::vector<int64_t> per(tile.size(), 1);
        per[inner - 1] = k;
        out.push_back(per);
        break;
      }
  return out;
}

json::Object action(llvm::StringRef transform, json::Object params,
                    const OpFacts *op) {
  json::Object a{{"transform", transform}, {"params", std::move(params)}};
  if (op)
    a["target"] = json::Object{{"op", op->name}, {"index", op->index}};
  return a;
}

json::Array ints(const std::vector<int64_t> &v) {
  json::Array a;
  for (int64_t x : v)
    a.push_back(x);
  return a;
}

std::string opKey(llvm::StringRef what, const OpFacts &op) {
  return (what + ":" + op.name + "#" + std::to_string(op.index)).str();
}

bool has(const std::vector<std::string> &v, const std::string &key) {
  return std::find(v.begin(), v.end(), key) != v.end();
}

bool anyReduction(const OpFacts &op) {
  return std::find(op.reduction.begin(), op.reduction.end(), true) !=
         op.reduction.end();
}

bool dynamic(const OpFacts &op) {
  return std::find(op.extents.begin(), op.extents.end(), int64_t(-1)) !=
         op.extents.end();
}

/// Block tile sizes for an op that no dividing tiling fits (a prime
/// length, dynamic sizes), tails taking the rest: the first (at most 3)
/// parallel loops tiled, 1024 along the last of them and 1 along the
/// others, the reduction loops among them left whole (0), none after the
/// last (untiled). The reduction loops do not count: a reduction in the
/// middle ([p, r, p]) keeps its innermost parallel loop the wide one.
/// Empty for an op with no parallel loop (opSteps refuses it before).
std::vector<int64_t> tailTile(const OpFacts &op) {
  std::vector<int64_t> t;
  size_t parallel = 0, last = 0;
  for (size_t i = 0; i < op.extents.size() && parallel < 3; ++i) {
    bool reduction = i < op.reduction.size() && op.reduction[i];
    t.push_back(reduction ? 0 : 1);
    if (!reduction) {
      ++parallel;
      last = i;
    }
  }
  if (!parallel)
    return {};
  t.resize(last + 1);
  t[last] = 1024;
  return t;
}

/// A matmul of two f16 or two bf16 operands that use_mma takes: f32 sums,
/// or f16 sums into an f16 C.
bool mmaSixteen(const OpFacts &op) {
  if (op.name != "linalg.matmul")
    return false;
  if (op.inputType != "f16" && op.inputType != "bf16")
    return false;
  return op.elementType == "f32" ||
         (op.inputType == "f16" && op.elementType == "f16");
}

} // namespace

bool mlir::tirx::wgmmaTakes(const std::string &chip, const OpFacts &op) {
  if (!chipHasWgmma(chip))
    return false;
  bool batch = op.name == "linalg.batch_matmul";
  if (!(batch || op.name == "linalg.matmul") ||
      op.extents.size() != (batch ? 4u : 3u) || dynamic(op) ||
      !llvm::StringRef(op.layout).starts_with("mk,"))
    return false;
  bool kMajorB = op.layout == "mk,nk";
  bool sixteenBit = op.inputType == "f16" || op.inputType == "bf16";
  // f32 sums, stored as they are or rounded once to an f16 C. (A bf16 C
  // stays on the routes that sum in bf16 as the reference does: its 8-bit
  // mantissa drifts by about 2^-8 sqrt(K / 2) of the RMS over K terms, so
  // f32 sums differ from the reference by more than a check could allow
  // and still catch a wrong kernel.)
  if (op.elementType != "f32" &&
      !(op.inputType == "f16" && op.elementType == "f16"))
    return false;
  if (!sixteenBit && op.inputType != "f32")
    return false;
  if (batch)
    return sixteenBit && !kMajorB && op.extents[3] % 64 == 0;
  // An f32 B held as (k, n): the swapped product (C^T = B^T A^T), on whole
  // [256, 128] tiles only (wgmmaBlockTiles); else the copy route
  // (transposeStep) makes it K-major.
  if (!sixteenBit && !kMajorB)
    return !wgmmaBlockTiles(op).empty();
  return op.extents[2] % (sixteenBit ? 8 : 4) == 0;
}

namespace {
/// An f32 matmul whose B is held as (k, n): use_wgmma computes it swapped.
bool swappedF32(const OpFacts &op) {
  return op.name == "linalg.matmul" && op.layout == "mk,kn" &&
         op.inputType == "f32";
}
} // namespace

std::vector<std::vector<int64_t>>
mlir::tirx::wgmmaBlockTiles(const OpFacts &op) {
  std::vector<std::vector<int64_t>> out;
  // A short K (two 64-wide steps or fewer) leaves a block mostly its
  // prologue and the store of C: 128 x 128 tiles first, twice the blocks to
  // overlap them (bmm_f16, K = 128, on the H200: 252.5 us against 309.9 us
  // for 128 x 256).
  bool shortK = !op.extents.empty() && op.extents.back() > 0 &&
                op.extents.back() <= 2 * 64;
  std::vector<int64_t> widths =
      shortK ? std::vector<int64_t>{128, 256} : std::vector<int64_t>{256, 128};
  if (op.name == "linalg.batch_matmul") {
    if (op.extents.size() == 4)
      for (int64_t bn : widths)
        if (op.extents[1] % 128 == 0 && op.extents[2] % bn == 0)
          out.push_back({1, 128, bn});
    return out;
  }
  if (op.extents.size() != 3)
    return out;
  int64_t m = op.extents[0], n = op.extents[1];
  // The swapped f32 product: [256, 128] on two warpgroups, one m64n256k8 a
  // K step (1.10x cuBLAS tf32 at 4096^3 on the H200, the copy route 1.16x),
  // where the tiles cover C whole (K a multiple of 4: A's TMA rows); tails
  // go the copy route's way, measured on the GPU.
  if (swappedF32(op)) {
    if (m % 256 == 0 && n % 128 == 0 && op.extents[2] % 4 == 0)
      out.push_back({256, 128});
    return out;
  }
  int64_t tailAlign = op.layout == "mk,nk" ? 4 : 8;
  for (int64_t bn : widths)
    if (m >= 128 && n >= bn &&
        ((m % 128 == 0 && n % bn == 0) || n % tailAlign == 0))
      out.push_back({128, bn});
  return out;
}

namespace {
/// The wgmma step of a block's matmul tile right after tile_to_blocks
/// (use_wgmma takes A and B as tiles of the whole buffers, all of K): 4
/// stages of TMA loads, then 3; two warpgroups for a tile wider than 128
/// (at most 128 sums a thread). Optional: refused (a tile it cannot take,
/// a tail alone), the tile goes on as mma.sync or SIMT does.
std::optional<Step> wgmmaStep(const std::string &chip, const OpFacts &op,
                              const std::vector<std::string> &skipped) {
  std::string key = opKey("use_wgmma", op);
  if (op.stage != Stage::Block || op.inLoop || op.promoted || op.tail ||
      has(skipped, key) || !wgmmaTakes(chip, op))
    return std::nullopt;
  size_t lead = op.name == "linalg.batch_matmul" ? 1 : 0;
  int64_t bm = op.extents[lead], bn = op.extents[lead + 1];
  // The swapped product's warpgroups split C's columns, 64 each.
  int64_t groups = swappedF32(op) ? 2 : bm == 128 && bn > 128 ? 2 : 1;
  Step s;
  s.why = op.name + "#" + std::to_string(op.index) +
          ": wgmma fed by TMA (Hopper)";
  s.optional = true;
  s.key = key;
  // No more stages than K has steps of 64 (two at least): a stage never
  // filled only takes shared memory from other blocks.
  int64_t steps = op.extents.back() > 0 ? llvm::divideCeil(op.extents.back(), 64)
                                        : 4;
  std::vector<int64_t> stageCounts;
  for (int64_t stages : {4, 3})
    if (stages <= std::max<int64_t>(2, steps))
      stageCounts.push_back(stages);
  if (stageCounts.empty())
    stageCounts.push_back(std::max<int64_t>(2, steps));
  for (int64_t stages : stageCounts)
    s.candidates.push_back(action(
        "use_wgmma",
        json::Object{{"stages", stages}, {"warpgroups", groups}}, &op));
  return s;
}

/// An f32 matmul's B stored as (n, k) first (transpose_operand), so that
/// use_wgmma takes it as tf32 (wgmma reads 32-bit operands K-major only):
/// on a chip with wgmma, for a static linalg.matmul reading A as (m, k) and
/// B as (k, n) that use_wgmma would take with B transposed. The copy is a
/// transpose kernel of one read and one write of B (4096^2 f32: about 33
/// us on the H200, against cuBLAS's 340 us for the tf32 product). Optional:
/// refused or skipped, the matmul goes on as mma.sync or SIMT.
std::optional<Step> transposeStep(const std::string &chip, const OpFacts &op,
                                  const std::vector<std::string> &skipped) {
  std::string key = opKey("transpose_operand", op);
  if (op.stage != Stage::Top || op.name != "linalg.matmul" ||
      op.layout != "mk,kn" || op.inputType != "f32" || has(skipped, key) ||
      wgmmaTakes(chip, op)) // the swapped product needs no copy
    return std::nullopt;
  OpFacts transposed = op;
  transposed.layout = "mk,nk";
  if (!wgmmaTakes(chip, transposed) || wgmmaBlockTiles(transposed).empty())
    return std::nullopt;
  Step s;
  s.why = op.name + "#" + std::to_string(op.index) +
          ": B stored as (n, k), for tf32 wgmma";
  s.optional = true;
  s.key = key;
  s.candidates.push_back(
      action("transpose_operand", json::Object{{"operand", 1}}, &op));
  return s;
}

/// Whether use_wgmma may still take `op`: a linalg.matmul at the top that
/// wgmma takes (with B transposed first, where transposeStep offers it), or
/// a block's matmul that wgmmaStep offers, its use_wgmma not skipped. The
/// fill that starts its C waits for it (use_wgmma takes the fill over).
bool wgmmaPending(const std::string &chip, const OpFacts &op,
                  const std::vector<std::string> &skipped) {
  if ((op.name != "linalg.matmul" && op.name != "linalg.batch_matmul") ||
      has(skipped, opKey("use_wgmma", op)))
    return false;
  if (op.stage == Stage::Top)
    return (wgmmaTakes(chip, op) && !wgmmaBlockTiles(op).empty()) ||
           transposeStep(chip, op, skipped).has_value();
  return op.stage == Stage::Block &&
         wgmmaStep(chip, op, skipped).has_value();
}

/// The steps of a matmul-like op (linalg.matmul, linalg.batch_matmul).
/// `chip`: the workspace's target (wgmma on sm_90). `tailed`: its block
/// loop also holds the ops of partial tiles (tirx.tail: sizes no block
/// tile divides, or a run-time M).
void matmulSteps(const OpFacts &op, const std::vector<std::string> &skipped,
                 const std::string &chip, std::vector<Step> &steps,
                 bool tailed = false) {
  bool batch = op.name == "linalg.batch_matmul";
  size_t lead = batch ? 1 : 0;
  // Tensor cores (use_mma, a linalg.matmul only): f32 operands as tf32
  // (16x8x8), f16 and bf16 ones on 16x8x16 with f32 sums (or f16 sums into
  // an f16 C), fed by ldmatrix from shared tiles whose rows are padded by 8
  // elements, the copies pipelined (examples/recipes/matmul_*-pipeline).
  // Not in a block with tails: the full tile's warps (use_mma's threads,
  // 32 a warp along x) and the partial tiles' grids of threads (rows x
  // columns) would need one block of both shapes, which map_to_gpu refuses
  // ("the block's foralls need 128x10x1 threads": 1000^2 f32 on sm_80, or
  // a run-time M on any chip): SIMT for all of them, one grid of threads.
  bool sixteen = !batch && mmaSixteen(op);
  bool mma = !batch && !tailed &&
             (sixteen || (op.elementType == "f32" &&
                          (op.inputType.empty() || op.inputType == "f32")));
  auto withLead = [&](std::vector<int64_t> v) {
    if (batch)
      v.insert(v.begin(), 1);
    return v;
  };
  if (std::optional<Step> t = transposeStep(chip, op, skipped)) {
    steps.push_back(std::move(*t));
    return;
  }
  if (op.stage == Stage::Top) {
    Step s;
    s.why = op.name + "#" + std::to_string(op.index) + ": block tiles";
    int64_t m = op.extents[lead], n = op.extents[lead + 1];
    // wgmma's tiles first (Hopper); the others if use_wgmma refuses.
    std::vector<std::vector<int64_t>> wgmma =
        !wgmmaTakes(chip, op) ? std::vector<std::vector<int64_t>>{}
                              : wgmmaBlockTiles(op);
    for (const std::vector<int64_t> &t : wgmma)
      s.candidates.push_back(action(
          "tile_to_blocks", json::Object{{"tile_sizes", ints(t)}}, &op));
    bool has128 = std::find(wgmma.begin(), wgmma.end(),
                            std::vector<int64_t>{128, 128}) != wgmma.end();
    if (sixteen && !has128 && m > 0 && n > 0 && m % 128 == 0 && n % 128 == 0)
      s.candidates.push_back(action(
          "tile_to_blocks", json::Object{{"tile_sizes", ints({128, 128})}}, &op));
    for (int64_t t : {64, 32, 16})
      if (m > 0 && n > 0 && m % t == 0 && n % t == 0)
        s.candidates.push_back(action(
            "tile_to_blocks",
            json::Object{{"tile_sizes", ints(withLead({t, t}))}}, &op));
    if (s.candidates.empty()) // odd sizes: tails
      s.candidates.push_back(action(
          "tile_to_blocks", json::Object{{"tile_sizes", ints(withLead({64, 64}))}},
          &op));
    steps.push_back(std::move(s));
    return;
  }
  if (op.stage != Stage::Block)
    return;
  if (std::optional<Step> w = wgmmaStep(chip, op, skipped)) {
    steps.push_back(std::move(*w));
    return;
  }
  std::string kKey = opKey("tile_reduction", op);
  if (!op.inLoop && !has(skipped, kKey)) {
    Step s;
    s.why = op.name + "#" + std::to_string(op.index) + ": K in steps";
    s.optional = true;
    s.key = kKey;
    int64_t k = op.extents.back();
    for (int64_t t : mma ? std::vector<int64_t>{32, 16} : std::vector<int64_t>{16, 32, 8})
      if (k > 0 && k % t == 0 && k > t) {
        std::vector<int64_t> sizes(op.extents.size(), 0);
        sizes.back() = t;
        s.candidates.push_back(action(
            "tile_reduction", json::Object{{"tile_sizes", ints(sizes)}}, &op));
      }
    if (!s.candidates.empty()) {
      steps.push_back(std::move(s));
      return;
    }
  }
  std::string pKey = opKey("promote_to_shared", op);
  if (op.inLoop && !op.promoted && !has(skipped, pKey)) {
    Step s;
    s.why = op.name + "#" + std::to_string(op.index) + ": A and B tiles in shared memory";
    s.optional = true;
    s.key = pKey;
    if (sixteen) // rows of 16-byte multiples, in 8 bank groups: ldmatrix
      s.candidates.push_back(action(
          "promote_to_shared",
          json::Object{{"operands", json::Array{0, 1}}, {"padding", 8}}, &op));
    s.candidates.push_back(action(
        "promote_to_shared", json::Object{{"operands", json::Array{0, 1}}}, &op));
    steps.push_back(std::move(s));
    return;
  }
  Step s;
  s.why = op.name + "#" + std::to_string(op.index) +
          (mma ? ": warps on tensor cores" : ": outputs per thread");
  int64_t bm = op.extents[lead], bn = op.extents[lead + 1];
  if (mma)
    for (auto [wm, wn] : {std::pair{2, 2}, {4, 2}, {2, 1}, {1, 2}, {1, 1}})
      if (bm % (16 * wm) == 0 && bn % (8 * wn) == 0)
        s.candidates.push_back(action(
            "use_mma", json::Object{{"warps", json::Array{wm, wn}}}, &op));
  for (int64_t e : {4, 2, 1, 8})
    if (bm % e == 0 && bn % e == 0 && validThreads(bm / e * bn / e))
      s.candidates.push_back(action(
          "tile_to_threads",
          json::Object{{"elements_per_thread", ints(withLead({e, e}))}}, &op));
  // A tail tile (the partial last block of odd sizes) runs on part of the
  // block: any thread count up to 1024 (tile_to_threads refuses it for a
  // full tile). Its extents need not divide: tile_to_threads gives the
  // last threads the partial thread tiles, so a tail of 41 rows, or of a
  // run-time M (at most 63 under 64-row tiles), takes 4 x 4 elements a
  // thread as its full tiles do (before: none fitted, auto stopped).
  if (s.candidates.empty())
    for (int64_t e : {4, 2, 1}) {
      bool fits =
          op.tail
              ? bm > 0 && bn > 0 &&
                    llvm::divideCeil(bm, e) * llvm::divideCeil(bn, e) <= 1024
              : bm % e == 0 && bn % e == 0 && bm / e * bn / e <= 1024;
      if (fits)
        s.candidates.push_back(action(
            "tile_to_threads",
            json::Object{{"elements_per_thread", ints(withLead({e, e}))}},
            &op));
    }
  steps.push_back(std::move(s));
}

/// Threads of a block that holds one row of `extent` elements of an
/// elementwise op, at most `maxThreads`: what its tile_to_threads step
/// takes (0: none fits).
int64_t rowBlockThreads(int64_t extent, unsigned elementBytes,
                        int64_t maxThreads = 1024) {
  std::vector<std::vector<int64_t>> per =
      perThreadCandidates({1, extent}, elementBytes, true, maxThreads);
  return per.empty() ? 0 : extent / per.front().back();
}

/// An op's loop extents, parallel and reduction apart, in order.
struct LoopExtents {
  std::vector<int64_t> parallel, reduction;
  bool parallelFirst = true; // no reduction loop before a parallel one
};

LoopExtents loopExtents(const OpFacts &op) {
  LoopExtents e;
  bool seenReduction = false;
  for (size_t i = 0; i < op.extents.size(); ++i) {
    if (op.reduction[i]) {
      e.reduction.push_back(op.extents[i]);
      seenReduction = true;
    } else {
      e.parallel.push_back(op.extents[i]);
      e.parallelFirst &= !seenReduction;
    }
  }
  return e;
}

/// How `op` (a reduction with a parallel loop: one without is refused,
/// scalarStep) is scheduled.
ReductionKind reductionKindOf(const OpFacts &op) {
  LoopExtents e = loopExtents(op);
  ReductionKind kind = chooseReduction(product(e.parallel),
                                       product(e.reduction), e.parallelFirst);
  // split_reduction combines one output, and reduce_in_block one output or
  // a value and its index (an argmax: a block per row, a tree of pairs);
  // other reductions of several outputs run a thread per output.
  if (op.outputs > 1 && e.parallelFirst)
    kind = op.indexReduction && kind != ReductionKind::PerThread
               ? ReductionKind::InBlock
               : ReductionKind::PerThread;
  return kind;
}

/// Whether opSteps gives `op` to reduce_in_block: a row per block, at the
/// top (tiled so next) or in its block; rows of a run-time number too (a
/// block per row, the fill's buffer covered once: startFills).
bool reducedInBlock(const OpFacts &op) {
  if (!anyReduction(op) || op.name == "linalg.matmul" ||
      op.name == "linalg.batch_matmul")
    return false;
  LoopExtents e = loopExtents(op);
  if (op.stage == Stage::Block)
    return product(e.parallel) == 1;
  return op.stage == Stage::Top && !e.parallel.empty() &&
         reductionKindOf(op) == ReductionKind::InBlock;
}

/// Whether opSteps gives a column reduction (a reduction loop of at least
/// 512 rows, then one loop of outputs, contiguous buffers, one output) to
/// reduce_in_block, which spreads the block's outputs over its threads and
/// its rows over groups of them (reduceInBlockByOutputs: one kernel): at
/// the top, with a multiple of 32 outputs and 256 blocks of 32 or more
/// (columnBlockTile), which are then tiled rather than split; in a block,
/// 32 to 256 outputs (a power of two). On the H200, colmax (8192 x 8192
/// f32) took 73.3 us in one kernel of 32 columns and 512 threads, against
/// 74.4-74.6 us for 32 parts and their combine. (Outputs over two loops,
/// a reduction between them, stay split.)
bool columnsInBlock(const OpFacts &op) {
  if (!anyReduction(op) || op.outputs != 1 || op.indexReduction ||
      dynamic(op) || !op.contiguous || op.extents.empty() ||
      op.reduction.back() || op.name == "linalg.matmul" ||
      op.name == "linalg.batch_matmul")
    return false;
  LoopExtents e = loopExtents(op);
  if (e.reduction.size() != 1 || e.parallel.size() != 1 || e.parallelFirst ||
      e.reduction[0] < 512)
    return false;
  int64_t outputs = product(e.parallel);
  if (op.stage == Stage::Top)
    return outputs % 32 == 0 && outputs / 32 >= 256;
  return op.stage == Stage::Block && outputs >= 32 && outputs <= 256 &&
         (outputs & (outputs - 1)) == 0;
}

/// The block tile of a column reduction's outputs that columnsInBlock
/// takes at the top: the widest of 256, 128, 64, 32 columns that divides
/// them and leaves 256 blocks or more (8192 columns: 32).
int64_t columnBlockTile(int64_t outputs) {
  int64_t tile = 256;
  while (tile > 32 && (outputs % tile != 0 || outputs / tile < 256))
    tile /= 2;
  return tile;
}

/// Whether tile_to_threads will give `op`'s threads the fill that starts
/// its outputs: a reduction opSteps maps a thread per output (or run of
/// outputs), still whole or in its blocks.
bool threadStarted(const OpFacts &op) {
  return anyReduction(op) && !dynamic(op) && op.name != "linalg.matmul" &&
         op.name != "linalg.batch_matmul" &&
         (op.stage == Stage::Top || op.stage == Stage::Block) &&
         !reducedInBlock(op);
}

/// The step of an op with no parallel loop at the top: a 0-d result. No
/// action schedules it: tile_to_blocks, the first action of every schedule,
/// maps parallel loops to blocks, and split_reduction would only move the
/// problem (its partial reduction has a parallel loop, the combine of the
/// parts into the scalar none). Refused, naming what auto does schedule.
Step scalarStep(const OpFacts &op) {
  std::string at = op.name + "#" + std::to_string(op.index);
  std::string type = op.elementType.empty() ? "T" : op.elementType;
  Step s;
  if (anyReduction(op)) {
    s.why = at + ": a full reduction to a 0-d result";
    s.refusal = Refusal(
        RefusalCode::not_applicable,
        at + " is a full reduction to a 0-d result (a scalar), which auto "
             "does not schedule: it has no parallel loop for tile_to_blocks, "
             "and split_reduction would leave the combine of its parts into "
             "the scalar with none",
        "reduce into a 1-element result (tensor<1x" + type +
            "> rather than tensor<" + type +
            ">: the input viewed as 1 x N, reduced over dimension 1), which "
            "auto splits into parts and reduces in blocks");
  } else {
    s.why = at + ": a 0-d op";
    s.refusal = Refusal(
        RefusalCode::not_applicable,
        at + " is a 0-d op (a scalar), which auto does not schedule: it has "
             "no loop for tile_to_blocks to map to blocks",
        "compute the scalar where it is used, or give it a dimension of "
        "size 1 (tensor<1x" + type + "> rather than tensor<" + type +
            ">): one block of one thread");
  }
  return s;
}

/// The steps of any other linalg op. `rowThreads`: the block's threads when
/// the op is in a row block (a fused normalization): its reduction shares
/// the row among them, an elementwise op splits the row among them.
void opSteps(const OpFacts &op, const std::vector<std::string> &skipped,
             std::vector<Step> &steps, int64_t rowThreads = 0) {
  std::string at = op.name + "#" + std::to_string(op.index);
  size_t n = op.extents.size();
  bool reduces = anyReduction(op);
  LoopExtents loops = loopExtents(op);
  const std::vector<int64_t> &parallelExtents = loops.parallel;
  const std::vector<int64_t> &reductionExtents = loops.reduction;
  ReductionKind kind =
      reduces ? reductionKindOf(op) : ReductionKind::InBlock;
  // A 4-D op's thread tile is as contiguous as a 3-D one's: vectors too.
  // A column reduction's vectors run along its columns (vectorize keeps the
  // reduction loops as the thread's loops, the partial results carried).
  bool columnVectors = reduces && kind == ReductionKind::Columns &&
                       n >= 1 && !op.reduction[n - 1] && !op.indexReduction;
  bool vectorizable = (!reduces || columnVectors) && op.contiguous &&
                      (n <= 3 || op.stage == Stage::Thread);
  bool transposed = !reduces && n == 2 && op.stridedInput >= 0 &&
                    op.extents[0] > 0 && op.extents[0] % 64 == 0 &&
                    op.extents[1] > 0 && op.extents[1] % 64 == 0;
  // x.permute(0, 2, 1, 3): the innermost loop unpermuted, on the threads
  // in vectors (tile_to_threads [0, 0, 1, w]); rows of it per block.
  bool rows4 = !reduces && n == 4 && op.contiguous && !dynamic(op);
  int64_t rowWidth = rows4 ? vectorWidths(op.elementBytes, op.extents[3]).front() : 1;
  int64_t rowLanes = rows4 ? op.extents[3] / rowWidth : 0;

  if (op.stage == Stage::Top && parallelExtents.empty()) {
    steps.push_back(scalarStep(op));
    return;
  }
  if (op.stage == Stage::Top && transposed) {
    // A transpose: 64 x 64 tiles, staged in shared memory next (both the
    // reads and the writes along rows).
    Step s;
    s.why = at + ": 64 x 64 tiles of a transpose";
    s.candidates.push_back(action(
        "tile_to_blocks", json::Object{{"tile_sizes", ints({64, 64})}}, &op));
    steps.push_back(std::move(s));
    return;
  }
  if (op.stage == Stage::Top && rows4 && rowLanes <= 256) {
    int64_t rowsPerBlock = 0;
    for (int64_t r : divisors(op.extents[2], 256 / rowLanes))
      if ((r * rowLanes) % 32 == 0)
        rowsPerBlock = r;
    if (rowsPerBlock) {
      Step s;
      s.why = at + ": blocks of rows, the innermost loop on the threads";
      s.candidates.push_back(action(
          "tile_to_blocks",
          json::Object{{"tile_sizes", ints({1, 1, rowsPerBlock})}}, &op));
      steps.push_back(std::move(s));
      return;
    }
  }

  // Rows that take no 16-byte vectors (4097 or 1000 f32, or a run-time
  // length): an elementwise op on contiguous buffers as one loop, whose
  // full tiles are aligned and whose only partial tile is the last.
  int64_t widest = std::max<int64_t>(1, 16 / std::max(1u, op.elementBytes));
  std::string fKey = opKey("flatten", op);
  if (op.stage == Stage::Top && !reduces && op.flattenable && n >= 2 &&
      !has(skipped, fKey)) {
    std::vector<int64_t> rows(op.extents.begin(),
                              op.extents.begin() + std::min<size_t>(n, 3));
    std::optional<ParallelTiling> t =
        dynamic(op) ? std::nullopt
                    : chooseParallelTiling(rows, op.elementBytes, vectorizable);
    if (!t || t->width < widest) {
      Step s;
      s.why = at + ": one loop over all elements (rows take no " +
              std::to_string(widest) + "-wide vectors)";
      s.optional = true;
      s.key = fKey;
      s.candidates.push_back(action("flatten", json::Object{}, &op));
      steps.push_back(std::move(s));
      return;
    }
  }

  if (op.stage == Stage::Top) {
    Step s;
    // Chunked: part r takes a contiguous run of the row, which the block
    // that reduces it reads coalesced (interleaved parts put a warp's
    // lanes a part's stride apart).
    if (reduces && kind == ReductionKind::Split && !dynamic(op)) {
      s.why = at + ": a long reduction split into parts";
      for (int64_t p : splitParts(reductionExtents.back()))
        s.candidates.push_back(action(
            "split_reduction", json::Object{{"parts", p}, {"chunked", true}},
            &op));
      if (!s.candidates.empty()) {
        steps.push_back(std::move(s));
        return;
      }
      kind = ReductionKind::InBlock;
    }
    // A column reduction whose blocks of columns fill the GPU: tiles of
    // columnBlockTile, reduce_in_block next (not split, below).
    if (columnsInBlock(op)) {
      int64_t tile = columnBlockTile(product(parallelExtents));
      std::vector<int64_t> sizes;
      for (size_t i = 0; i < n; ++i)
        sizes.push_back(op.reduction[i] ? 0 : tile);
      s.why = at + ": blocks of " + std::to_string(tile) +
              " columns, their rows shared by the block's threads";
      s.candidates.push_back(action(
          "tile_to_blocks", json::Object{{"tile_sizes", ints(sizes)}}, &op));
      steps.push_back(std::move(s));
      return;
    }
    // A column reduction with too few columns to fill the GPU (8192 are
    // 32 blocks): the rows split into parts, each part a thread per column
    // over a contiguous run of rows (coalesced across the columns), the
    // partials [parts, columns] (a thread's partial beside its
    // neighbours'), then a thread per column combining its parts (a short
    // column reduction). Optional: a refusal (an input the split cannot
    // view) leaves the plain column schedule.
    std::string splitKey = opKey("split_reduction", op);
    if (reduces && kind == ReductionKind::Columns && !dynamic(op) &&
        reductionExtents.size() == 1 && op.outputs == 1 &&
        !has(skipped, splitKey)) {
      int64_t width =
          vectorizable ? vectorWidths(op.elementBytes, op.extents.back()).front()
                       : 1;
      for (int64_t p : columnSplitParts(product(parallelExtents),
                                        reductionExtents.front(), width))
        s.candidates.push_back(action(
            "split_reduction",
            json::Object{
                {"parts", p}, {"chunked", true}, {"parts_first", true}},
            &op));
      if (!s.candidates.empty()) {
        s.why = at + ": the rows of a column reduction split into parts";
        s.optional = true;
        s.key = splitKey;
        steps.push_back(std::move(s));
        return;
      }
    }
    if (reduces && kind == ReductionKind::InBlock) {
      s.why = at + ": a block per output row";
      size_t k = std::min<size_t>(parallelExtents.size(), 3);
      s.candidates.push_back(action(
          "tile_to_blocks",
          json::Object{{"tile_sizes", ints(std::vector<int64_t>(k, 1))}}, &op));
      steps.push_back(std::move(s));
      return;
    }
    // Parallel ops, column reductions (reduction loops left whole: tile 0)
    // and per-thread reductions: tile the parallel loops.
    std::vector<int64_t> tiled;
    for (size_t i = 0; i < n && tiled.size() < 3; ++i)
      if (!op.reduction[i])
        tiled.push_back(op.extents[i]);
    s.why = at + (reduces ? (kind == ReductionKind::Columns
                                 ? ": blocks of outputs (reduction loops first)"
                                 : ": a thread per output")
                          : ": blocks of elements");
    std::optional<ParallelTiling> t =
        chooseParallelTiling(tiled, op.elementBytes, vectorizable);
    // One long loop (a flattened op) that no tile of the widest vectors
    // divides (10^6 elements: 2-wide at best): tiles of 1024 in the widest
    // vectors and one tail tile beat narrower vectors everywhere.
    if (t && !reduces && n == 1 && vectorizable && t->width < widest &&
        op.extents[0] >= 65536)
      t = std::nullopt;
    // A column reduction's threads each run down their columns, whose
    // loads wait on one another: blocks of a warp or more, about two per
    // SM (256), narrower vectors where that takes more threads (the
    // combine of 32 parts of 8192 columns: 256 blocks of 32 threads, a
    // column each, not 64 blocks 4 columns a thread, nor 8 of 256, which
    // leave 124 SMs idle). The thread stage then takes the widest vector
    // that still gives a whole warp.
    if (t && reduces && kind == ReductionKind::Columns &&
        !t->blockTile.empty()) {
      int64_t &inner = t->blockTile.back();
      while (inner % 2 == 0 && inner / 2 >= 32 &&
             product(tiled) / product(t->blockTile) < 256)
        inner /= 2;
    }
    std::vector<int64_t> sizes;
    if (t) {
      size_t j = 0;
      for (size_t i = 0; i < n && j < t->blockTile.size(); ++i)
        sizes.push_back(op.reduction[i] ? 0 : t->blockTile[j++]);
    } else {
      sizes = tailTile(op);
    }
    s.candidates.push_back(
        action("tile_to_blocks", json::Object{{"tile_sizes", ints(sizes)}}, &op));
    steps.push_back(std::move(s));
    return;
  }
  if (op.stage == Stage::Block) {
    Step s;
    // A block of one output row (tiled so at the top): its threads share
    // the row (all the block's threads where an elementwise op shares the
    // block). A block of several outputs: a thread per output.
    if (reduces && product(parallelExtents) == 1) {
      s.why = at + ": the row shared by the block's threads";
      std::vector<int64_t> threads = blockReduceThreads(
          reductionExtents.empty() ? 1 : product(reductionExtents));
      if (rowThreads) {
        llvm::erase(threads, rowThreads);
        threads.insert(threads.begin(), rowThreads);
      }
      for (int64_t t : threads)
        s.candidates.push_back(
            action("reduce_in_block", json::Object{{"threads", t}}, &op));
      steps.push_back(std::move(s));
      return;
    }
    // A block of a column reduction's outputs: its threads a column each
    // and its rows split among groups of them (reduce_in_block); a thread
    // per column (tile_to_threads, below) where it refuses.
    if (columnsInBlock(op)) {
      s.why = at + ": the block's columns on neighbouring threads, its rows "
                   "split among groups of them";
      int64_t outputs = product(parallelExtents);
      for (int64_t t : {512, 1024, 256})
        if (t / outputs >= 2)
          s.candidates.push_back(
              action("reduce_in_block", json::Object{{"threads", t}}, &op));
    }
    // A transpose's tile: the input tile in shared memory, rows padded by
    // one element (a column read spreads over the 32 banks).
    std::string pKey = opKey("promote_to_shared", op);
    if (transposed && !op.promoted && !op.inLoop && !has(skipped, pKey)) {
      s.why = at + ": the transposed tile in shared memory";
      s.optional = true;
      s.key = pKey;
      s.candidates.push_back(action(
          "promote_to_shared",
          json::Object{{"operands", json::Array{op.stridedInput}},
                       {"padding", 1}},
          &op));
      steps.push_back(std::move(s));
      return;
    }
    // Then each thread takes a column of the output tile: a warp writes
    // a row, and reads the staged tile down a padded column.
    if (transposed && op.promoted)
      for (int64_t k : {8, 4, 16, 2})
        if (op.extents[0] % k == 0 && validThreads(op.extents[0] / k * op.extents[1]))
          s.candidates.push_back(action(
              "tile_to_threads",
              json::Object{{"elements_per_thread", ints({k, 1})}}, &op));
    if (rows4 && rowLanes > 0)
      for (int64_t w : vectorWidths(op.elementBytes, op.extents[3]))
        if (validThreads(op.extents[2] * (op.extents[3] / w)))
          s.candidates.push_back(action(
              "tile_to_threads",
              json::Object{{"elements_per_thread", ints({0, 0, 1, w})}}, &op));
    if (s.why.empty())
      s.why = at + ": elements per thread";
    // The loops the threads take: the first 3 parallel ones, as the block
    // tiles took them at the top, the reduction loops among them whole to
    // each thread (0). The zeros do not count toward the 3: a reduction
    // in the middle ([1, 1, 0, 256], a split column reduction of a 3-D
    // input) keeps its innermost parallel loop on the threads.
    std::vector<int64_t> tile, dense;
    for (size_t i = 0; i < n && dense.size() < 3; ++i) {
      tile.push_back(op.reduction[i] ? 0 : op.extents[i]);
      if (tile.back())
        dense.push_back(tile.back());
    }
    // A tail tile of one loop takes the full tiles' widest vectors, with
    // any thread count up to 1024 (576 f32: 144 threads 4-wide, rather
    // than 288 2-wide, which would also make the full blocks 288 threads).
    // (Only for vectors: an op that takes none, a column reduction's tail
    // say, keeps one element a thread, each warp's loads contiguous.)
    int64_t tailThreads = dense.size() == 1 && dense[0] > 0
                              ? llvm::divideCeil(dense[0], widest)
                              : 0;
    if (op.tail && vectorizable && s.candidates.empty() && dense.size() == 1 &&
        tile.back() > 0 && dense[0] >= widest && tailThreads <= 1024) {
      std::vector<int64_t> per(tile.size(), 0);
      per.back() = widest;
      s.candidates.push_back(action(
          "tile_to_threads", json::Object{{"elements_per_thread", ints(per)}},
          &op));
    }
    // An elementwise op of a row block: the block's threads, whatever
    // the op's own elements would take (a 512-thread block: 16 f32 of a
    // row of 8192 a thread, not 8).
    std::vector<std::vector<int64_t>> pers =
        perThreadCandidates(dense, op.elementBytes, vectorizable);
    if (rowThreads && !reduces && dense.size() == 2 && dense[0] == 1 &&
        dense[1] % rowThreads == 0) {
      std::vector<int64_t> row{1, dense[1] / rowThreads};
      llvm::erase(pers, row);
      pers.insert(pers.begin(), row);
    }
    for (const std::vector<int64_t> &per : pers) {
      std::vector<int64_t> full;
      size_t j = 0;
      for (int64_t x : tile)
        full.push_back(x ? per[j++] : 0);
      // Several vectors a thread: cyclic, so that a warp's accesses are
      // contiguous (a blocked run of 8 f32 a lane spans 1 KiB a warp).
      json::Object params{{"elements_per_thread", ints(full)}};
      if (int64_t run = dynamic(op) || reduces
                            ? 0
                            : cyclicChunk(per.back(), op.elementBytes,
                                          vectorizable))
        params["chunk"] = run;
      s.candidates.push_back(action("tile_to_threads", std::move(params), &op));
    }
    // A tail tile (the partial last block of a size no tile divides) runs
    // on part of the block, with any thread count: a vector's width per
    // thread as the full tiles have (the last thread a shorter one), else
    // one element each. (tile_to_threads refuses these for a full tile.)
    size_t inner = tile.size();
    for (size_t i = 0; i < tile.size(); ++i)
      if (tile[i])
        inner = i;
    if (s.candidates.empty() && inner < tile.size()) {
      int64_t widest =
          vectorizable ? std::max<int64_t>(1, 16 / std::max(1u, op.elementBytes))
                       : 1;
      for (int64_t w = widest; w >= 1; w /= 2) {
        std::vector<int64_t> per;
        int64_t threads = 1;
        for (size_t i = 0; i < tile.size(); ++i) {
          per.push_back(!tile[i] ? 0 : i == inner ? w : 1);
          if (tile[i])
            threads *= (tile[i] + per[i] - 1) / per[i];
        }
        if (tile[inner] >= w && threads <= 1024)
          s.candidates.push_back(action(
              "tile_to_threads", json::Object{{"elements_per_thread", ints(per)}},
              &op));
      }
    }
    // An elementwise op of a row block whose row no multiple of 32 threads
    // splits into equal parts (softmax over 1000 classes, a vocabulary of
    // 50257, a prime length): tile_to_threads refuses the candidates
    // above (250 threads of 4), and auto stopped there. Last: a multiple
    // of 32 threads, at most the block's, each ceil(row / threads)
    // elements, the last thread fewer (its tail); the most threads first.
    bool evenSplit = false; // some multiple of 32 threads divides the row
    for (int64_t t = 32; t <= rowThreads && dense.size() == 2; t += 32)
      evenSplit |= dense[1] > 0 && dense[1] % t == 0;
    if (rowThreads && !reduces && !op.tail && !evenSplit && dense.size() == 2 &&
        dense[0] == 1 && dense[1] > 0) {
      std::vector<int64_t> seen;
      for (int64_t t = rowThreads - rowThreads % 32; t >= 32; t -= 32) {
        int64_t per = llvm::divideCeil(dense[1], t);
        int64_t threads = llvm::divideCeil(dense[1], per);
        if (threads % 32 != 0 || llvm::is_contained(seen, per))
          continue;
        seen.push_back(per);
        std::vector<int64_t> full;
        std::vector<int64_t> row{1, per};
        size_t j = 0;
        for (int64_t x : tile)
          full.push_back(x ? row[j++] : 0);
        s.candidates.push_back(
            action("tile_to_threads",
                   json::Object{{"elements_per_thread", ints(full)}}, &op));
      }
    }
    steps.push_back(std::move(s));
    return;
  }
  // In threads: 16-byte vectors where the access allows.
  std::string vKey = opKey("vectorize", op);
  if (!vectorizable || has(skipped, vKey) || op.extents.empty())
    return;
  Step s;
  s.why = at + ": vectors";
  s.optional = true;
  s.key = vKey;
  for (int64_t w : vectorWidths(op.elementBytes, op.extents.back()))
    if (w > 1)
      s.candidates.push_back(action("vectorize", json::Object{{"width", w}}, &op));
  if (!s.candidates.empty())
    steps.push_back(std::move(s));
}
/// A reduction of rows of `columns` elements ([rows, C], the reduction
/// last): a normalization's statistic.
bool rowReduction(const OpFacts &op, int64_t columns) {
  return op.name == "linalg.generic" && op.extents.size() == 2 &&
         op.reduction == std::vector<bool>{false, true} &&
         op.extents[1] == columns;
}

/// A normalization's rows, once its row block is formed: their length
/// and the last op's element size.
struct RowChain {
  int64_t columns = 0;
  unsigned elementBytes = 4;
};

/// The threads of the row block `op` is in (0: `op` is not a row of one).
/// Decided once for the block, when its first op takes threads, and kept
/// by every later op of it: the threads its thread loops already take
/// (`blockThreads`). Counting the block's reductions again at each step
/// would not do: once reduce_in_block has lowered a statistic it is no
/// longer an op of the block. Before any: as many threads as the row in
/// two of the last op's 16-byte vectors a thread takes (8192 f32: 1024;
/// 8192 bf16: 512), at most 1024, and at most 512 when
/// the block holds two or more reductions (softmax: max, sum; layer norm:
/// mean, variance). Each reduce_in_block ends in block-wide barriers that
/// idle the block; a block of 512 leaves up to 4 blocks a SM to overlap
/// them, one of 1024 only 2, while a single reduction's one barrier costs
/// less than the longer per-thread loops. Measured on the H200, 8192 x
/// 8192 f32, ours / torch.compile (docs/benchmarks.md): softmax 0.933 on
/// 512 threads, 1.136 on 1024; layer norm 1.042 and 1.087; RMSNorm 1.078
/// on 512, 1.031 on 1024.
int64_t rowThreadsOf(const PayloadFacts &facts, const RowChain &chain,
                     const OpFacts &op) {
  if (op.stage != Stage::Block || op.extents.size() != 2 ||
      op.extents[0] != 1 || op.extents[1] != chain.columns)
    return 0;
  if (op.blockThreads)
    return op.blockThreads;
  int64_t reductions = 0;
  for (const OpFacts &o : facts.ops)
    reductions += o.stage != Stage::Top && o.block == op.block &&
                  rowReduction(o, chain.columns) && o.extents[0] == 1;
  if (!reductions)
    return 0;
  // Two 16-byte vectors a thread at least: one a thread leaves too little
  // in flight between the barriers (RMSNorm bf16 8192 x 8192 on the H200:
  // 74% of the copy bandwidth on 1024 threads, 94% on 512, 90% on 256).
  // (Untimed beyond 8192: f32 rows of 4096 take 512 threads, not 1024.)
  int64_t cap = reductions >= 2 ? 512 : 1024;
  int64_t vector = std::max<int64_t>(1, 16 / std::max(1u, chain.elementBytes));
  int64_t twoVectors = chain.columns / (2 * vector);
  if (twoVectors >= 32 && twoVectors < cap)
    if (int64_t threads =
            rowBlockThreads(chain.columns, chain.elementBytes, twoVectors))
      return threads;
  return rowBlockThreads(chain.columns, chain.elementBytes, cap);
}

/// Normalizations (softmax, layer norm, RMSNorm): row reductions
/// ([rows, C], the reduction last) and elementwise ops over the same rows,
/// the last one elementwise, linked through buffers the function allocates.
/// One kernel: a block per row of the last op, each producer fused into it
/// from the last (fuse_into: a reduction takes its fill along), then the
/// block's ops in order on the block's threads (`rowThreadsOf`). Each step
/// is optional: a refused one (an intermediate read elsewhere, a row over
/// the shared memory) leaves the rest to the rules of each op. `chain`:
/// set once the row block is formed (every producer fused or refused).
std::optional<Step> rowChainStep(const PayloadFacts &facts,
                                 const std::vector<std::string> &skipped,
                                 std::optional<RowChain> &chain) {
  if (facts.ops.empty())
    return std::nullopt;
  const OpFacts &last = facts.ops.back();
  // A row reduction's epilogue: elementwise on its [rows] result (a mean's
  // division), in the same row block: one kernel, not a second reading the
  // sums back (rowmean).
  bool epilogue = last.name == "linalg.generic" && last.extents.size() == 1 &&
                  !anyReduction(last) && !dynamic(last) && !last.readsOutput;
  if (last.name != "linalg.generic" ||
      (last.extents.size() != 2 && !epilogue) || anyReduction(last) ||
      dynamic(last) || !last.contiguous || last.stridedInput >= 0)
    return std::nullopt;
  int64_t columns = epilogue ? 0 : last.extents[1];
  if (last.stage == Stage::Top) {
    std::string key = opKey("row_block", last);
    bool isChain = facts.ops.size() >= 2 && !has(skipped, key);
    bool reduction = false;
    for (const OpFacts &op : facts.ops) {
      isChain &= op.stage == Stage::Top &&
                 (op.name == "linalg.fill" || op.name == "linalg.generic");
      reduction |= (epilogue ? op.extents.size() == 2 &&
                                   op.reduction ==
                                       std::vector<bool>{false, true}
                             : rowReduction(op, columns)) &&
                   op.extents[0] == last.extents[0];
    }
    if (!isChain || !reduction)
      return std::nullopt;
    Step s;
    s.why = last.name + "#" + std::to_string(last.index) +
            ": a block per row, its producers fused in (one kernel)";
    s.optional = true;
    s.key = key;
    s.candidates.push_back(action(
        "tile_to_blocks", json::Object{{"tile_sizes", ints({1})}}, &last));
    return s;
  }
  if (last.stage != Stage::Block || last.extents[0] != 1)
    return std::nullopt;
  // The producer nearest the block, if not refused already.
  const OpFacts *producer = nullptr;
  for (const OpFacts &op : facts.ops)
    if (op.stage == Stage::Top && op.name == "linalg.generic")
      producer = &op;
  if (producer && !has(skipped, opKey("fuse_into", *producer))) {
    Step s;
    s.why = producer->name + "#" + std::to_string(producer->index) +
            ": fused into the row block";
    s.optional = true;
    s.key = opKey("fuse_into", *producer);
    s.candidates.push_back(action("fuse_into", json::Object{}, producer));
    return s;
  }
  // An epilogue's block: the reduction's own rules (its threads).
  if (!epilogue)
    chain = RowChain{columns, last.elementBytes};
  return std::nullopt;
}
} // namespace

json::Object mlir::tirx::pipelineAction(const StagedLoop &loop,
                                        int64_t stages) {
  return json::Object{
      {"transform", "pipeline"},
      {"params", json::Object{{"stages", stages}}},
      {"target", json::Object{{"op", "scf.for"}, {"index", loop.index}}}};
}

Step mlir::tirx::pipelineStep(const StagedLoop &loop,
                               llvm::ArrayRef<int64_t> stages) {
  Step s;
  s.why = "scf.for#" + std::to_string(loop.index) +
          ": copies to shared memory pipelined";
  s.optional = true;
  s.key = "pipeline:scf.for#" + std::to_string(loop.index);
  for (int64_t n : stages)
    s.candidates.push_back(pipelineAction(loop, n));
  return s;
}

std::vector<Step> mlir::tirx::nextSteps(const PayloadFacts &facts,
                                        const std::vector<std::string> &skipped) {
  std::vector<Step> steps;
  if (facts.launched)
    return steps;
  if (facts.tensors) {
    Step s;
    s.why = "tensors to buffers";
    s.candidates.push_back(action("bufferize", json::Object{}, nullptr));
    steps.push_back(std::move(s));
    return steps;
  }
  std::optional<RowChain> chain;
  if (std::optional<Step> s = rowChainStep(facts, skipped, chain)) {
    steps.push_back(std::move(*s));
    return steps;
  }
  for (const OpFacts &op : facts.ops) {
    // A fill that starts a row reduction's output, or a matmul's C that
    // use_wgmma may still take, waits: the reduction's blocks (or wgmma's)
    // start their own outputs from its value (one kernel less).
    if (!op.starts.empty()) {
      auto started = llvm::find_if(facts.ops, [&](const OpFacts &o) {
        return o.name + "#" + std::to_string(o.index) == op.starts;
      });
      if (started != facts.ops.end() &&
          (reducedInBlock(*started) || threadStarted(*started) ||
           wgmmaPending(facts.chip, *started, skipped)))
        continue;
    }
    // The fill that fuse_into moved in front of a fused reduction (a few
    // elements, in a block loop with the reduction): every thread writes
    // it; nothing to map. (A small fill alone in its block is mapped.)
    if (op.name == "linalg.fill" && op.stage == Stage::Block &&
        !dynamic(op) && product(op.extents) < 32 &&
        llvm::any_of(facts.ops, [&](const OpFacts &other) {
          return &other != &op && other.block == op.block;
        }))
      continue;
    // A row reduction's epilogue on its one result (a mean's division, in
    // the reduction's row block): every thread of the block computes the
    // same element from the block's result; nothing to map. (Not an op
    // that reads its output: all threads would update it at once.)
    if (op.name == "linalg.generic" && op.stage == Stage::Block &&
        !anyReduction(op) && !op.readsOutput && !dynamic(op) && !op.tail &&
        !op.extents.empty() && product(op.extents) == 1)
      continue;
    size_t before = steps.size();
    if ((op.name == "linalg.matmul" || op.name == "linalg.batch_matmul") &&
        op.extents.size() >= 3) {
      bool tailed =
          op.block >= 0 && llvm::any_of(facts.ops, [&](const OpFacts &other) {
            return other.block == op.block && other.tail;
          });
      matmulSteps(op, skipped, facts.chip, steps, tailed);
    } else {
      opSteps(op, skipped, steps, chain ? rowThreadsOf(facts, *chain, op) : 0);
    }
    if (steps.size() > before)
      return steps; // one op at a time, in program order
  }
  // Copies of 16-bit tiles into shared memory overlapped with the tensor
  // cores' work (cp.async, 2 stages; the search tries more, and f32 too).
  for (const StagedLoop &loop : facts.staged) {
    Step s = pipelineStep(loop, {2, 3});
    if (loop.elementBytes != 2 || has(skipped, s.key))
      continue;
    steps.push_back(std::move(s));
    return steps;
  }
  Step s;
  s.why = "kernels";
  s.candidates.push_back(action("map_to_gpu", json::Object{}, nullptr));
  steps.push_back(std::move(s));
  return steps;
}

//===----------------------------------------------------------------------===//
// Facts
//===----------------------------------------------------------------------===//

json::Object PayloadFacts::toJSON() const {
  json::Array list;
  for (const OpFacts &op : ops) {
    json::Array red;
    for (bool r : op.reduction)
      red.push_back(r);
    list.push_back(json::Object{
        {"op", op.name},
        {"index", op.index},
        {"extents", ints(op.extents)},
        {"reduction", std::move(red)},
        {"element_bytes", int64_t(op.elementBytes)},
        {"element_type", op.elementType},
        {"input_type", op.inputType},
        {"stage", op.stage == Stage::Top     ? "top"
                  : op.stage == Stage::Block ? "block"
                                             : "thread"},
        {"in_loop", op.inLoop},
        {"promoted", op.promoted},
        {"contiguous", op.contiguous},
        {"tensor", op.tensor},
        {"strided_input", op.stridedInput},
        {"outputs", op.outputs},
        {"reads_output", op.readsOutput},
        {"index_reduction", op.indexReduction},
        {"flattenable", op.flattenable},
        {"tail", op.tail},
        {"block", op.block},
        {"block_threads", op.blockThreads},
        {"starts", op.starts},
        {"layout", op.layout}});
  }
  json::Array loops;
  for (const StagedLoop &l : staged)
    loops.push_back(json::Object{{"index", l.index},
                                 {"element_bytes", int64_t(l.elementBytes)}});
  return json::Object{{"tensors", tensors},
                      {"launched", launched},
                      {"chip", chip},
                      {"ops", std::move(list)},
                      {"staged", std::move(loops)}};
}

std::optional<PayloadFacts> PayloadFacts::fromJSON(const json::Value &v) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return std::nullopt;
  PayloadFacts f;
  f.tensors = o->getBoolean("tensors").value_or(false);
  f.launched = o->getBoolean("launched").value_or(false);
  f.chip = o->getString("chip").value_or("").str();
  if (const json::Array *list = o->getArray("ops"))
    for (const json::Value &e : *list) {
      const json::Object *p = e.getAsObject();
      if (!p)
        return std::nullopt;
      OpFacts op;
      op.name = p->getString("op").value_or("").str();
      op.index = p->getInteger("index").value_or(0);
      if (const json::Array *a = p->getArray("extents"))
        for (const json::Value &x : *a)
          op.extents.push_back(x.getAsInteger().value_or(-1));
      if (const json::Array *a = p->getArray("reduction"))
        for (const json::Value &x : *a)
          op.reduction.push_back(x.getAsBoolean().value_or(false));
      op.reduction.resize(op.extents.size(), false);
      op.elementBytes = unsigned(p->getInteger("element_bytes").value_or(4));
      op.elementType = p->getString("element_type").value_or("").str();
      op.inputType = p->getString("input_type").value_or("").str();
      llvm::StringRef stage = p->getString("stage").value_or("top");
      op.stage = stage == "block"    ? Stage::Block
                 : stage == "thread" ? Stage::Thread
                                     : Stage::Top;
      op.inLoop = p->getBoolean("in_loop").value_or(false);
      op.promoted = p->getBoolean("promoted").value_or(false);
      op.contiguous = p->getBoolean("contiguous").value_or(true);
      op.tensor = p->getBoolean("tensor").value_or(false);
      op.stridedInput = p->getInteger("strided_input").value_or(-1);
      op.outputs = p->getInteger("outputs").value_or(1);
      op.indexReduction = p->getBoolean("index_reduction").value_or(false);
      op.flattenable = p->getBoolean("flattenable").value_or(false);
      op.tail = p->getBoolean("tail").value_or(false);
      op.readsOutput = p->getBoolean("reads_output").value_or(false);
      op.block = p->getInteger("block").value_or(-1);
      op.blockThreads = p->getInteger("block_threads").value_or(0);
      op.starts = p->getString("starts").value_or("").str();
      op.layout = p->getString("layout").value_or("").str();
      f.ops.push_back(std::move(op));
    }
  if (const json::Array *list = o->getArray("staged"))
    for (const json::Value &e : *list)
      if (const json::Object *l = e.getAsObject())
        f.staged.push_back(
            {l->getInteger("index").value_or(0),
             unsigned(l->getInteger("element_bytes").value_or(4))});
  return f;
}

namespace {
/// Attributes are told apart by their text: the child's context parses
/// them, and the text is the stable contract (`#gpu.block<x>`).
std::string attrText(Attribute a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return s;
}

bool isWorkgroup(Type t) {
  auto m = dyn_cast<MemRefType>(t);
  return m && m.getMemorySpace() &&
         llvm::StringRef(attrText(m.getMemorySpace())).contains("workgroup");
}

/// The element type of a shaped value (or its type), as text: "f32".
std::string elementTypeText(Value v) {
  Type t = v.getType();
  if (auto s = dyn_cast<ShapedType>(t))
    t = s.getElementType();
  std::string out;
  llvm::raw_string_ostream os(out);
  t.print(os);
  return out;
}

unsigned bytesOf(Type t) {
  if (auto s = dyn_cast<ShapedType>(t))
    t = s.getElementType();
  if (t.isIntOrFloat())
    return std::max(1u, t.getIntOrFloatBitWidth() / 8);
  if (isa<IndexType>(t))
    return 8;
  return 0;
}

/// The op whose output `fill` starts, which reduce_in_block or use_wgmma
/// would take it over from: the first op after it that uses its buffer
/// (only other fills and ops that leave the buffer alone between), a
/// reduction or a matmul still whole, writing all of the fill's buffer, or
/// a block loop whose reduction or matmul takes it over (startFills).
/// Null: none.
Operation *startedBy(linalg::FillOp fill) {
  if (!fill.hasPureBufferSemantics() || fill->getParentOfType<scf::ForallOp>())
    return nullptr;
  Value buffer = fill.getDpsInitOperand(0)->get();
  Operation *next = fill->getNextNode();
  while (next && (isa<linalg::FillOp>(next) ||
                  tirx::leavesBufferAlone(next, buffer)))
    next = next->getNextNode();
  if (auto reduction = dyn_cast_or_null<linalg::LinalgOp>(next))
    return reduction.getNumReductionLoops() > 0 &&
                   llvm::is_contained(reduction.getDpsInits(), buffer)
               ? next
               : nullptr;
  auto loop = dyn_cast_or_null<scf::ForallOp>(next);
  if (loop && tirx::mapsTo(loop, tirx::MappingKind::Block))
    for (Operation &inner : loop.getBody()->without_terminator())
      if (auto reduction = dyn_cast<linalg::LinalgOp>(inner);
          reduction && llvm::is_contained(tirx::startFills(reduction), fill))
        return &inner;
  return nullptr;
}

/// Whether `loop` sits in a block's forall and copies tiles into shared
/// memory that no pipeline made asynchronous yet.
std::optional<StagedLoop> stagedLoop(scf::ForOp loop, int64_t index) {
  bool inBlock = false;
  for (Operation *p = loop->getParentOp(); p && !inBlock; p = p->getParentOp())
    if (auto forall = dyn_cast<scf::ForallOp>(p); forall && forall.getMapping()) {
      ArrayAttr mapping = *forall.getMapping(); // not a temporary's element
      for (Attribute m : mapping)
        inBlock |= llvm::StringRef(attrText(m)).starts_with("#gpu.block");
    }
  if (!inBlock)
    return std::nullopt;
  std::optional<StagedLoop> out;
  for (Operation &op : loop.getBody()->getOperations()) {
    auto copy = dyn_cast<linalg::CopyOp>(&op);
    if (!copy || copy.getNumDpsInits() != 1 ||
        !isWorkgroup(copy.getDpsInitOperand(0)->get().getType()))
      continue;
    if (copy->hasAttr(kAsyncCopyAttrName))
      return std::nullopt; // pipelined already
    unsigned bytes = bytesOf(copy.getDpsInitOperand(0)->get().getType());
    if (!out)
      out = StagedLoop{index, bytes};
    else
      out->elementBytes = std::min(out->elementBytes, bytes);
  }
  return out;
}

/// The threads a block loop's work already takes: the most of any forall
/// in it mapped to threads (what map_to_gpu's block must hold); 0 when
/// nothing in it is mapped to threads yet.
int64_t threadsMapped(scf::ForallOp block) {
  int64_t most = 0;
  block.getBody()->walk([&](scf::ForallOp forall) {
    if (!forall.getMapping())
      return;
    ArrayAttr mapping = *forall.getMapping(); // not a temporary's element
    bool thread = llvm::any_of(mapping, [](Attribute m) {
      return llvm::StringRef(attrText(m)).starts_with("#gpu.thread");
    });
    if (!thread)
      return;
    int64_t threads = 1;
    for (OpFoldResult ub : forall.getMixedUpperBound()) {
      std::optional<int64_t> n = getConstantIntValue(ub);
      if (!n)
        return; // a run-time count: not a row block's
      threads *= *n;
    }
    most = std::max(most, threads);
  });
  return most;
}

Expected<std::string> factsText(MLIRContext &ctx, const std::string &text,
                                const std::string &name) {
  // As the interpreter does: attributes of dialects not loaded yet (the
  // mapping attributes of gpu) must not be left opaque.
  ctx.loadAllAvailableDialects();
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config, name);
  if (!module)
    return refuse(RefusalCode::parse_error, name + " does not parse");
  PayloadFacts facts;
  std::map<std::string, int64_t> counts;
  std::map<Operation *, int64_t> blocks; // a block loop: its number
  // An op fills start (startedBy): the fills' places in facts.ops.
  std::map<Operation *, std::vector<size_t>> startedFills;
  module->walk([&](func::FuncOp f) {
    for (Type t : f.getArgumentTypes())
      facts.tensors |= isa<TensorType>(t);
  });
  module->walk([&](Operation *op) {
    if (isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op))
      facts.launched = true;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      // Counted as a transform's target counts them (post-order).
      int64_t index = counts["scf.for"]++;
      if (std::optional<StagedLoop> s = stagedLoop(loop, index))
        facts.staged.push_back(*s);
      return;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      return;
    std::string opName = op->getName().getStringRef().str();
    int64_t index = counts[opName]++;
    if (op->getParentOfType<gpu::LaunchOp>())
      return;
    // The copies promote_to_shared makes are split among threads at
    // lowering, and so are the fills of a block's shared accumulators
    // (fuse_into moves a reduction's fill with it): nothing to schedule.
    if (isa<linalg::CopyOp, linalg::FillOp>(op) &&
        linalgOp.getNumDpsInits() == 1 &&
        isWorkgroup(linalgOp.getDpsInitOperand(0)->get().getType()))
      return;
    OpFacts f;
    f.name = opName;
    f.index = index;
    // A tail of a run-time size counts at its largest (its bound); a
    // payload's own run-time size is unknown (-1).
    for (int64_t e : tirx::tailBounds(op))
      f.extents.push_back(e > 0 ? e : -1);
    for (utils::IteratorType it : linalgOp.getIteratorTypesArray())
      f.reduction.push_back(it == utils::IteratorType::reduction);
    // The widest element a vector along the innermost loop carries: an
    // input that does not vary along it (a row's f32 statistic beside bf16
    // rows) is read once and broadcast, as vectorize treats it.
    unsigned widest = 0;
    unsigned innermost = linalgOp.getNumLoops();
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<ShapedType>(operand.get().getType()))
        continue;
      if (innermost > 0 && linalgOp.isDpsInput(&operand) &&
          !linalgOp.getMatchingIndexingMap(&operand).isFunctionOfDim(
              innermost - 1))
        continue;
      widest = std::max(widest, bytesOf(operand.get().getType()));
    }
    f.elementBytes = widest ? widest : 4;
    if (linalgOp.getNumDpsInits() > 0)
      f.elementType = elementTypeText(linalgOp.getDpsInitOperand(0)->get());
    if (linalgOp.getNumDpsInputs() > 0)
      f.inputType = elementTypeText(linalgOp.getDpsInputOperand(0)->get());
    f.tensor = linalgOp.hasPureTensorSemantics();
    f.outputs = linalgOp.getNumDpsInits();
    f.indexReduction = tirx::matchIndexReduction(linalgOp).has_value();
    // A fill stays a fill (what fuse_into and use_wgmma's epilogue look
    // for in front of a reduction or a matmul): not flattened by auto.
    f.flattenable = linalgOp.hasPureBufferSemantics() &&
                    !isa<linalg::FillOp>(op) &&
                    !tirx::flattenObstacle(linalgOp);
    f.tail = tirx::isTail(op);
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      f.readsOutput |= linalgOp.payloadUsesValueFromOperand(&init);
    // Walked after the fill (in a later op of its block, or in one).
    if (auto started = startedFills.find(op); started != startedFills.end())
      for (size_t fill : started->second)
        facts.ops[fill].starts = opName + "#" + std::to_string(index);
    if (auto fill = dyn_cast<linalg::FillOp>(op))
      if (Operation *started = startedBy(fill))
        startedFills[started].push_back(facts.ops.size());
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
      std::string why;
      if (FailureOr<MmaLayout> l = tirx::mmaLayout(matmul, why); succeeded(l))
        f.layout = std::string(l->transposeA ? "km" : "mk") +
                   (l->transposeB ? ",nk" : ",kn");
    }
    if (auto batch = dyn_cast<linalg::BatchMatmulOp>(op);
        batch && !batch.hasUserDefinedMaps())
      f.layout = "mk,kn";
    facts.tensors |= f.tensor;
    unsigned loops = linalgOp.getNumLoops();
    for (AffineMap map : linalgOp.getIndexingMapsArray()) {
      if (map.getNumResults() == 0 || loops == 0)
        continue;
      bool usesLast = map.isFunctionOfDim(loops - 1);
      auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (usesLast && (!last || last.getPosition() != loops - 1))
        f.contiguous = false;
    }
    for (OpOperand *in : linalgOp.getDpsInputOperands()) {
      f.promoted |= isWorkgroup(in->get().getType());
      AffineMap map = linalgOp.getMatchingIndexingMap(in);
      if (f.stridedInput >= 0 || loops == 0 || map.getNumResults() == 0 ||
          !map.isFunctionOfDim(loops - 1))
        continue;
      auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (!last || last.getPosition() != loops - 1)
        f.stridedInput = in->getOperandNumber();
    }
    bool loop = false;
    for (Operation *p = op->getParentOp(); p && !isa<func::FuncOp>(p);
         p = p->getParentOp()) {
      if (isa<scf::ForOp>(p))
        loop = true;
      auto forall = dyn_cast<scf::ForallOp>(p);
      if (!forall || !forall.getMapping())
        continue;
      bool block = false, thread = false;
      ArrayAttr mapping = *forall.getMapping(); // not a temporary's element
      for (Attribute m : mapping) {
        std::string text = attrText(m);
        block |= llvm::StringRef(text).starts_with("#gpu.block");
        thread |= llvm::StringRef(text).starts_with("#gpu.thread") ||
                  llvm::StringRef(text).starts_with("#gpu.warp") ||
                  llvm::StringRef(text).starts_with("#gpu.lane");
      }
      if (thread && f.stage == Stage::Top)
        f.stage = Stage::Thread;
      if (block) {
        if (f.stage == Stage::Top)
          f.stage = Stage::Block;
        f.inLoop = loop;
        f.block = blocks.emplace(p, int64_t(blocks.size())).first->second;
        f.blockThreads = threadsMapped(forall);
        break;
      }
    }
    facts.ops.push_back(std::move(f));
  });
  std::string out;
  llvm::raw_string_ostream os(out);
  os << json::Value(facts.toJSON());
  return out;
}
} // namespace

std::string mlir::tirx::workspaceChip(const Session &session) {
  const std::string &chip = session.workspace().target();
  return chip.empty() ? "sm_90" : chip;
}

Expected<PayloadFacts> mlir::tirx::inspectPayload(const std::string &text,
                                                  const std::string &name,
                                                  const ChildLimits &limits) {
  Expected<std::string> r = runIsolated(
      [&](MLIRContext &ctx) { return factsText(ctx, text, name); }, limits,
      ChildAccess::None);
  if (!r)
    return r.takeError();
  Expected<json::Value> v = parseJSON(*r, JSONLimits{1024, size_t(1) << 30});
  if (!v)
    return refuse(RefusalCode::internal,
                  "auto: the facts are not JSON: " + llvm::toString(v.takeError()));
  std::optional<PayloadFacts> facts = PayloadFacts::fromJSON(*v);
  if (!facts)
    return refuse(RefusalCode::internal, "auto: the facts are unreadable");
  return std::move(*facts);
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

namespace {
std::string text(const json::Value &v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << v;
  return s;
}
} // namespace

namespace {
/// The facts of `version` (its id resolved: "head" and the like).
Expected<std::pair<std::string, PayloadFacts>> factsAt(Session &session,
                                                       const std::string &version) {
  Expected<Result> shown = session.show(version);
  if (!shown)
    return shown.takeError();
  Expected<PayloadFacts> facts =
      inspectPayload(shown->text, shown->version, session.limits());
  if (!facts)
    return facts.takeError();
  facts->chip = workspaceChip(session);
  return std::make_pair(shown->version, std::move(*facts));
}
} // namespace

Expected<Result>
mlir::tirx::suggestSteps(Session &session, const std::string &version,
                         const std::vector<std::string> &skipped) {
  Expected<std::pair<std::string, PayloadFacts>> at = factsAt(session, version);
  if (!at)
    return at.takeError();
  std::vector<Step> next = nextSteps(at->second, skipped);
  Result out;
  out.version = at->first;
  json::Array steps;
  for (const Step &step : next) {
    json::Array candidates;
    for (const json::Object &c : step.candidates)
      candidates.push_back(json::Object(c));
    out.text += step.why + (step.optional ? " (optional)" : "") + "\n";
    for (const json::Object &c : step.candidates)
      out.text += "  " + text(json::Object(c)) + "\n";
    json::Object entry{{"why", step.why},
                       {"optional", step.optional},
                       {"key", step.key},
                       {"candidates", std::move(candidates)}};
    // No candidate: what auto would stop with.
    if (step.refusal) {
      out.text += "  refused: " + std::string(codeName(step.refusal->code)) +
                  ": " + step.refusal->message + "\n";
      if (!step.refusal->hint.empty())
        out.text += "  hint: " + step.refusal->hint + "\n";
      entry["refusal"] = step.refusal->toJSON();
    }
    steps.push_back(std::move(entry));
  }
  bool mapped = next.empty() && at->second.launched;
  if (next.empty())
    out.text = mapped ? "mapped: " + at->first + "\n"
                      : "no rule applies to " + at->first + "\n";
  out.data = json::Object{{"version", at->first},
                          {"mapped", mapped},
                          {"steps", std::move(steps)}};
  return out;
}

Expected<Result> mlir::tirx::autoSchedule(
    Session &session, const std::string &version, const AutoOptions &options,
    llvm::function_ref<void(llvm::StringRef)> progress) {
  auto say = [&](const std::string &line) {
    if (progress)
      progress(line);
  };
  std::string at = version;
  std::vector<std::string> skipped;
  std::set<std::string> refusedHere; // actions refused on `at`
  json::Array steps, versions;
  std::optional<Refusal> last;
  std::string lastWhy;
  for (unsigned n = 0; n < options.maxSteps; ++n) {
    Expected<std::pair<std::string, PayloadFacts>> here = factsAt(session, at);
    if (!here)
      return here.takeError();
    at = here->first;
    std::vector<Step> next = nextSteps(here->second, skipped);
    if (next.empty()) {
      Result out;
      out.version = at;
      out.text = "mapped: " + at + "\n";
      out.data = json::Object{{"final_version", at},
                              {"versions", std::move(versions)},
                              {"steps", std::move(steps)}};
      return out;
    }
    const Step &step = next.front();
    const json::Object *chosen = nullptr;
    for (const json::Object &c : step.candidates)
      if (!refusedHere.count(text(json::Object(c)))) {
        chosen = &c;
        break;
      }
    if (!chosen) {
      if (step.optional && !step.refusal) {
        say("  " + step.why + ": every candidate refused; skipped");
        skipped.push_back(step.key);
        continue;
      }
      // A step the rules refuse themselves (a 0-d op) says why; else the
      // last candidate's refusal.
      Refusal r = step.refusal ? *step.refusal
                  : last       ? *last
                               : Refusal(RefusalCode::not_applicable,
                                         "no candidate for " + step.why);
      r.message = "auto stopped at " + at + " (" + step.why + "): " + r.message;
      r.details["final_version"] = at;
      r.details["versions"] = json::Array(versions);
      r.details["steps"] = json::Array(steps);
      r.details["text"] = "stopped at " + at + "\n";
      return refuse(std::move(r));
    }
    json::Object candidate = *chosen;
    std::string key = text(json::Object(candidate));
    Expected<Result> made = session.applyAction(at, json::Value(json::Object(candidate)));
    json::Object record{{"from", at}, {"why", step.why},
                        {"action", json::Object(candidate)}};
    if (made) {
      say(at + " -> " + made->version + "  " + key + "  (" + step.why + ")");
      record["ok"] = true;
      record["to"] = made->version;
      at = made->version;
      versions.push_back(at);
      refusedHere.clear();
      last.reset();
    } else {
      Refusal r = toRefusal(made.takeError());
      say(at + "  refused " + key + ": " + std::string(codeName(r.code)) +
          ": " + r.message);
      record["ok"] = false;
      record["error"] = r.toJSON();
      if (r.kind() != RefusalKind::Refused) {
        r.details["versions"] = json::Array(versions);
        return refuse(std::move(r));
      }
      refusedHere.insert(key);
      last = std::move(r);
    }
    steps.push_back(std::move(record));
  }
  Refusal r(RefusalCode::not_applicable,
            "auto stopped at " + at + " after " +
                std::to_string(options.maxSteps) + " steps");
  r.details["final_version"] = at;
  r.details["versions"] = std::move(versions);
  r.details["steps"] = std::move(steps);
  return refuse(std::move(r));
}
