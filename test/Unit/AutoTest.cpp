//===- AutoTest.cpp - the rules of tirx auto ------------------------------===//
//
// The rule functions of lib/Harness/Auto.cpp, without MLIR: tile sizes that
// divide, widths by element size, threads a multiple of 32, the reduction
// kinds, and the order of steps for facts of each stage.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Auto.h"

#include <gtest/gtest.h>

#include <functional>

using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
using V = std::vector<int64_t>;

TEST(AutoRules, VectorWidthsBy16Bytes) {
  EXPECT_EQ(vectorWidths(4, 1024), (V{4, 2, 1}));
  EXPECT_EQ(vectorWidths(2, 8192), (V{8, 4, 2, 1}));
  EXPECT_EQ(vectorWidths(1, 64), (V{16, 8, 4, 2, 1}));
  EXPECT_EQ(vectorWidths(8, 10), (V{2, 1}));
  EXPECT_EQ(vectorWidths(4, 1000003), (V{1}));  // a prime: scalars
  EXPECT_EQ(vectorWidths(4, 1000), (V{4, 2, 1}));
}

TEST(AutoRules, CyclicRunsOfAVector) {
  // 8 f32 a thread: two runs of 4 (a warp's 16-byte accesses contiguous).
  EXPECT_EQ(cyclicChunk(8, 4, true), 4);
  EXPECT_EQ(cyclicChunk(16, 2, true), 8);
  EXPECT_EQ(cyclicChunk(6, 4, true), 2);
  EXPECT_EQ(cyclicChunk(8, 4, false), 1); // scalars: lanes consecutive
  EXPECT_EQ(cyclicChunk(4, 4, true), 0);  // one vector: blocked is the same
  EXPECT_EQ(cyclicChunk(1, 4, false), 0);
  EXPECT_EQ(cyclicChunk(0, 4, true), 0);
}

TEST(AutoRules, SaxpyTiling) {
  auto t = chooseParallelTiling({67108864}, 4);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->blockTile, (V{1024}));
  EXPECT_EQ(t->perThread, (V{4}));
  EXPECT_EQ(t->threads, 256);
}

TEST(AutoRules, TwoDimsAndHalfWidth) {
  auto t = chooseParallelTiling({8192, 8192}, 4);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->blockTile, (V{1, 1024}));
  EXPECT_EQ(t->threads, 256);
  auto h = chooseParallelTiling({8192, 8192}, 2);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->width, 8);
  EXPECT_EQ(h->threads % 32, 0);
}

TEST(AutoRules, ThousandSquareFallsBackToWidthTwo) {
  // 1000 = 2^3 * 5^3: with 4-wide vectors no tile gives a multiple of 32
  // threads; 2-wide does.
  auto t = chooseParallelTiling({1000, 1000}, 4);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->width, 2);
  EXPECT_EQ(t->threads % 32, 0);
  EXPECT_EQ(1000 % t->blockTile[0], 0);
  EXPECT_EQ(1000 % t->blockTile[1], 0);
}

TEST(AutoRules, NoDividingTilingForPrimes) {
  EXPECT_FALSE(chooseParallelTiling({1000003}, 4));
  EXPECT_FALSE(chooseParallelTiling({4097, 4097}, 4));
  EXPECT_FALSE(chooseParallelTiling({-1, 8192}, 4)); // dynamic
}

TEST(AutoRules, ReductionKinds) {
  EXPECT_EQ(chooseReduction(1024, 16384, true), ReductionKind::InBlock);
  EXPECT_EQ(chooseReduction(8192, 8192, true), ReductionKind::InBlock);
  EXPECT_EQ(chooseReduction(256, 1048576, true), ReductionKind::Split);
  EXPECT_EQ(chooseReduction(8192, 8192, false), ReductionKind::Columns);
  EXPECT_EQ(chooseReduction(32 * 64 * 56 * 56, 576, true),
            ReductionKind::PerThread); // a convolution
  EXPECT_EQ(splitParts(1048576).front(), 256); // parts of 4096
  EXPECT_TRUE(splitParts(1000).empty());
  // Columns: 8192 outputs x 64 parts = 2^19 threads, 128 rows each; none
  // when the columns fill the GPU or a part would keep under 32 rows.
  EXPECT_EQ(columnSplitParts(8192, 8192).front(), 64);
  EXPECT_EQ(columnSplitParts(8192, 8192, 4).front(), 32); // 4 f32 a thread
  EXPECT_EQ(columnSplitParts(8192, 8192, 8).front(), 64); // 8 f16 a thread
  EXPECT_EQ(columnSplitParts(1024, 4096).front(), 128); // 32 rows a part
  EXPECT_TRUE(columnSplitParts(131072, 8192).empty());
  EXPECT_TRUE(columnSplitParts(8192, 64).empty());
  EXPECT_TRUE(columnSplitParts(8192, 999).empty()); // no power of 2 divides
  EXPECT_EQ(blockReduceThreads(8192), (V{512, 256, 128, 64, 32}));
  EXPECT_EQ(blockReduceThreads(4096), (V{512, 256, 128, 64, 32}));
  EXPECT_EQ(blockReduceThreads(2048), (V{256, 128, 64, 32}));
  EXPECT_EQ(blockReduceThreads(64), (V{64, 32}));
}

OpFacts op(const std::string &name, V extents, std::vector<bool> reduction,
           Stage stage = Stage::Top) {
  OpFacts f;
  f.name = name;
  f.extents = std::move(extents);
  f.reduction = std::move(reduction);
  f.stage = stage;
  return f;
}

std::string transformOf(const Step &s, size_t i = 0) {
  return s.candidates.at(i).getString("transform").value_or("").str();
}

TEST(AutoSteps, TensorsAreBufferizedFirst) {
  PayloadFacts f;
  f.tensors = true;
  f.ops.push_back(op("linalg.generic", {1024}, {false}));
  auto steps = nextSteps(f, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(transformOf(steps[0]), "bufferize");
}

TEST(AutoSteps, StagesInOrderThenKernels) {
  PayloadFacts f;
  f.ops.push_back(op("linalg.generic", {1024}, {false}, Stage::Thread));
  f.ops.back().extents = {4};
  f.ops.push_back(op("linalg.generic", {8192, 8192}, {false, true}));
  f.ops.back().index = 1;
  auto steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  // The first op (in threads) is vectorized first; optional.
  EXPECT_EQ(transformOf(steps[0]), "vectorize");
  EXPECT_TRUE(steps[0].optional);
  // Once skipped, the reduction: a block per row.
  steps = nextSteps(f, {steps[0].key});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  const json::Object *target = steps[0].candidates[0].getObject("target");
  ASSERT_TRUE(target);
  EXPECT_EQ(target->getInteger("index"), 1);
  // All in place: map_to_gpu; launched: nothing.
  PayloadFacts done;
  done.ops.push_back(op("linalg.generic", {1, 4}, {false, false}, Stage::Thread));
  done.ops.back().contiguous = false;
  steps = nextSteps(done, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(transformOf(steps[0]), "map_to_gpu");
  done.launched = true;
  EXPECT_TRUE(nextSteps(done, {}).empty());
}

TEST(AutoSteps, FlattenRowsThatTakeNoFullVectors) {
  // 4097 x 4097 f32 on contiguous buffers: no 4-wide tiling of the rows;
  // flattened first (optional), then tiles of 1024 with a tail.
  PayloadFacts f;
  f.ops.push_back(op("linalg.generic", {4097, 4097}, {false, false}));
  f.ops.back().flattenable = true;
  auto steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "flatten");
  EXPECT_TRUE(steps[0].optional);
  // Refused (or not flattenable): the rows tiled as before, with tails.
  EXPECT_EQ(transformOf(nextSteps(f, {steps[0].key})[0]), "tile_to_blocks");
  f.ops.back().flattenable = false;
  EXPECT_EQ(transformOf(nextSteps(f, {})[0]), "tile_to_blocks");
  // 1000 x 1000 (2-wide at best) and run-time sizes are flattened too;
  // 8192 x 8192 (4-wide tiles divide it) is not.
  for (V extents : {V{1000, 1000}, V{-1, -1}, V{8192, 8192}}) {
    PayloadFacts g;
    g.ops.push_back(op("linalg.generic", extents, {false, false}));
    g.ops.back().flattenable = true;
    EXPECT_EQ(transformOf(nextSteps(g, {})[0]),
              extents[0] == 8192 ? "tile_to_blocks" : "flatten");
  }
  // A reduction is never flattened.
  PayloadFacts r;
  r.ops.push_back(op("linalg.generic", {4097, 4097}, {false, true}));
  r.ops.back().flattenable = true;
  EXPECT_EQ(transformOf(nextSteps(r, {})[0]), "tile_to_blocks");
}

TEST(AutoSteps, LongLoopTakesTailOverNarrowVectors) {
  // The block tile of the first candidate of the first step.
  auto tile = [](const PayloadFacts &f) {
    V out;
    auto steps = nextSteps(f, {});
    if (steps.empty())
      return out;
    const json::Object *params = steps[0].candidates[0].getObject("params");
    if (const json::Array *a = params ? params->getArray("tile_sizes") : nullptr)
      for (const json::Value &x : *a)
        out.push_back(x.getAsInteger().value_or(-1));
    return out;
  };
  // 10^6 elements: a dividing tiling has 2-wide vectors; tiles of 1024 in
  // 4-wide vectors and one tail tile instead.
  PayloadFacts f;
  f.ops.push_back(op("linalg.generic", {1000000}, {false}));
  EXPECT_EQ(tile(f), V{1024});
  // A short one (1600: 2-wide tiles of 320 divide it) keeps the dividing
  // tiling.
  PayloadFacts g;
  g.ops.push_back(op("linalg.generic", {1600}, {false}));
  EXPECT_EQ(tile(g), V{320});
}

TEST(AutoSteps, TailTileTakesTheWidestVectors) {
  // The tail tile of 10^6 f32 in tiles of 1024: 576 elements, 4 a thread
  // (144 threads: a tail may take any count), not 2 (288, a multiple of 32).
  PayloadFacts f;
  f.ops.push_back(op("linalg.generic", {576}, {false}, Stage::Block));
  f.ops.back().tail = true;
  auto steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  const json::Object *params = steps[0].candidates[0].getObject("params");
  ASSERT_TRUE(params);
  EXPECT_EQ((*params->getArray("elements_per_thread"))[0].getAsInteger(), 4);
  // A full tile of the same extent keeps a multiple of 32 threads.
  f.ops.back().tail = false;
  steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  params = steps[0].candidates[0].getObject("params");
  ASSERT_TRUE(params);
  EXPECT_EQ(json::Value(json::Array(*params->getArray("elements_per_thread"))),
            json::Value(json::Array{2}));
}

TEST(AutoSteps, MatmulOnTensorCoresOrSimt) {
  PayloadFacts f;
  f.ops.push_back(op("linalg.matmul", {64, 64, 32}, {false, false, true},
                     Stage::Block));
  f.ops.back().elementType = "f32";
  f.ops.back().inLoop = true;
  f.ops.back().promoted = true;
  auto steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "use_mma");
  // Refused warps fall back to threads: they are later candidates.
  EXPECT_EQ(transformOf(steps[0], steps[0].candidates.size() - 1),
            "tile_to_threads");
  f.ops.back().elementType = "f16";
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  // Not yet in K steps: tile_reduction first.
  f.ops.back().inLoop = false;
  f.ops.back().promoted = false;
  f.ops.back().extents = {64, 64, 4096};
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "tile_reduction");
}

TEST(AutoSteps, MatmulWithTailsStaysOnSimt) {
  // 1000^2 f32 on sm_80, or a run-time M, in 64 x 64 block tiles: the
  // block loop holds the full tile's matmul and the tails' (tirx.tail).
  // use_mma on the full tile and threads on the tails asked map_to_gpu
  // for a block of both shapes (refused: 128x10x1 threads): SIMT for
  // every tile of such a block.
  PayloadFacts f;
  f.ops.push_back(
      op("linalg.matmul", {64, 64, 32}, {false, false, true}, Stage::Block));
  f.ops.back().elementType = "f32";
  f.ops.back().inLoop = true;
  f.ops.back().promoted = true;
  f.ops.back().block = 0;
  OpFacts tail = f.ops.back();
  tail.index = 1;
  tail.extents = {63, 64, 32}; // a run-time M's tail: at most 63 rows
  tail.tail = true;
  tail.promoted = false; // a tile of run-time size: promote_to_shared refused
  f.ops.push_back(tail);
  auto steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  for (size_t i = 0; i < steps[0].candidates.size(); ++i)
    EXPECT_EQ(transformOf(steps[0], i), "tile_to_threads");
  EXPECT_EQ(json::Value(*steps[0].candidates[0].getObject("params")->get(
                "elements_per_thread")),
            json::Value(json::Array{4, 4}));
  // The tail: 4 x 4 a thread too, its last threads partial (16 x 16
  // threads), where no count dividing 63 fitted and auto stopped.
  f.ops.erase(f.ops.begin());
  steps = nextSteps(f, {"promote_to_shared:linalg.matmul#1"});
  ASSERT_FALSE(steps.empty());
  ASSERT_FALSE(steps[0].candidates.empty());
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  EXPECT_EQ(json::Value(*steps[0].candidates[0].getObject("params")->get(
                "elements_per_thread")),
            json::Value(json::Array{4, 4}));
  // A block without tails keeps the tensor cores.
  f.ops[0] =
      op("linalg.matmul", {64, 64, 32}, {false, false, true}, Stage::Block);
  f.ops[0].elementType = "f32";
  f.ops[0].inLoop = true;
  f.ops[0].promoted = true;
  f.ops[0].block = 0;
  EXPECT_EQ(transformOf(nextSteps(f, {})[0]), "use_mma");
}

/// The tile sizes of candidate `i` of a step.
V tileOf(const Step &s, size_t i) {
  V out;
  const json::Object *params = s.candidates.at(i).getObject("params");
  if (const json::Array *a = params ? params->getArray("tile_sizes") : nullptr)
    for (const json::Value &x : *a)
      out.push_back(x.getAsInteger().value_or(-1));
  return out;
}

OpFacts matmul16(V extents, Stage stage = Stage::Top) {
  OpFacts m = op("linalg.matmul", std::move(extents), {false, false, true},
                 stage);
  m.inputType = "bf16";
  m.elementType = "f32";
  m.elementBytes = 4;
  m.layout = "mk,kn";
  return m;
}

TEST(AutoSteps, MatmulOnWgmmaOnHopper) {
  // bf16 x bf16 -> f32 on sm_90: 128x256 blocks first, then 128x128, then
  // those of mma.sync and SIMT.
  PayloadFacts f;
  f.chip = "sm_90";
  f.ops.push_back(matmul16({4096, 4096, 4096}));
  auto steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(tileOf(steps[0], 0), (V{128, 256}));
  EXPECT_EQ(tileOf(steps[0], 1), (V{128, 128}));
  EXPECT_EQ(tileOf(steps[0], 2), (V{64, 64}));
  // The block's tile, right after tile_to_blocks: use_wgmma, 2 warpgroups
  // for 256 columns, 4 stages then 3; optional.
  f.ops[0] = matmul16({128, 256, 4096}, Stage::Block);
  steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  ASSERT_EQ(steps[0].candidates.size(), 2u);
  EXPECT_EQ(transformOf(steps[0]), "use_wgmma");
  EXPECT_TRUE(steps[0].optional);
  const json::Object *p = steps[0].candidates[0].getObject("params");
  EXPECT_EQ(p->getInteger("stages"), 4);
  EXPECT_EQ(p->getInteger("warpgroups"), 2);
  EXPECT_EQ(steps[0].candidates[1].getObject("params")->getInteger("stages"), 3);
  // Every candidate refused: mma.sync's K steps.
  EXPECT_EQ(transformOf(nextSteps(f, {steps[0].key})[0]), "tile_reduction");
  // A 128x128 tile: one warpgroup.
  f.ops[0] = matmul16({128, 128, 4096}, Stage::Block);
  steps = nextSteps(f, {});
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("warpgroups"), 1);
  // A tail tile alone, or one in K steps already: no wgmma.
  f.ops[0].tail = true;
  EXPECT_NE(transformOf(nextSteps(f, {})[0]), "use_wgmma");
  f.ops[0].tail = false;
  f.ops[0].inLoop = true;
  EXPECT_NE(transformOf(nextSteps(f, {})[0]), "use_wgmma");
}

TEST(AutoSteps, FillOfAWgmmaMatmulWaitsForIt) {
  // torch's fill + matmul: while use_wgmma may take the matmul (at the top,
  // or its block's tile), the fill that starts C waits (wgmma's blocks take
  // it over); once use_wgmma is skipped, or on a chip without wgmma, the
  // fill is scheduled first, as a kernel of its own.
  PayloadFacts f;
  f.chip = "sm_90";
  OpFacts fill = op("linalg.fill", {4096, 4096}, {false, false});
  fill.starts = "linalg.matmul#0";
  f.ops.push_back(fill);
  f.ops.push_back(matmul16({4096, 4096, 4096}));
  auto target = [](const Step &s) {
    const json::Object *t = s.candidates[0].getObject("target");
    return t ? t->getString("op").value_or("").str() : std::string();
  };
  EXPECT_EQ(target(nextSteps(f, {})[0]), "linalg.matmul");
  f.ops[1] = matmul16({128, 256, 4096}, Stage::Block);
  auto steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "use_wgmma");
  EXPECT_EQ(target(nextSteps(f, {steps[0].key})[0]), "linalg.fill");
  f.chip = "sm_80";
  f.ops[1] = matmul16({4096, 4096, 4096});
  EXPECT_EQ(target(nextSteps(f, {})[0]), "linalg.fill");
  // The fact survives the trip between processes.
  auto back = PayloadFacts::fromJSON(json::Value(f.toJSON()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->ops[0].starts, "linalg.matmul#0");
}

TEST(AutoSteps, WgmmaOnlyWhereItTakesTheMatmul) {
  OpFacts m = matmul16({4096, 4096, 4096});
  EXPECT_TRUE(wgmmaTakes("sm_90", m));
  EXPECT_TRUE(wgmmaTakes("sm_90a", m));
  // Other chips (the lowering refuses use_wgmma), or none known.
  EXPECT_FALSE(wgmmaTakes("sm_80", m));
  EXPECT_FALSE(wgmmaTakes("", m));
  // f32 operands (tf32): B held as (n, k), K-major, or as (k, n) where
  // whole [256, 128] tiles cover C (the swapped product); other sizes are
  // the copy route's (transpose_operand).
  OpFacts f32 = m;
  f32.inputType = "f32";
  EXPECT_TRUE(wgmmaTakes("sm_90", f32));
  EXPECT_EQ(wgmmaBlockTiles(f32), (std::vector<V>{{256, 128}}));
  for (V odd : {V{4000, 4096, 4096}, V{4096, 4100, 4096}, V{4096, 4096, 4098}}) {
    OpFacts o = f32;
    o.extents = odd;
    EXPECT_FALSE(wgmmaTakes("sm_90", o));
    EXPECT_TRUE(wgmmaBlockTiles(o).empty());
  }
  f32.layout = "mk,nk";
  EXPECT_TRUE(wgmmaTakes("sm_90", f32));
  // An f16 C of f16 products: the f32 sums rounded once. A bf16 C is left
  // to routes that sum in bf16 as the reference does.
  OpFacts c16 = m;
  c16.inputType = "f16";
  c16.elementType = "f16";
  EXPECT_TRUE(wgmmaTakes("sm_90", c16));
  c16.inputType = c16.elementType = "bf16";
  EXPECT_FALSE(wgmmaTakes("sm_90", c16));
  // A as (k, m), broadcast maps, a 16-bit C of another type, K not a
  // multiple of 8, a batch matmul's facts with three extents, run-time
  // sizes: no.
  for (auto change : std::vector<std::function<void(OpFacts &)>>{
           [](OpFacts &o) { o.layout = "km,kn"; },
           [](OpFacts &o) { o.layout = ""; },
           [](OpFacts &o) { o.elementType = "f16"; },
           [](OpFacts &o) { o.extents[2] = 4100; },
           [](OpFacts &o) { o.name = "linalg.batch_matmul"; },
           [](OpFacts &o) { o.extents[0] = -1; }}) {
    OpFacts o = m;
    change(o);
    EXPECT_FALSE(wgmmaTakes("sm_90", o));
  }
  // A batch matmul (b, m, n, k): 16-bit, K a multiple of 64 (a partial
  // tile of K would read the next batch); one batch a block, M and N
  // divided by the tile.
  OpFacts bmm = matmul16({64, 2048, 2048, 128});
  bmm.name = "linalg.batch_matmul";
  bmm.inputType = "f16";
  bmm.elementType = "f16";
  EXPECT_TRUE(wgmmaTakes("sm_90", bmm));
  // K = 128, two steps of 64: 128 x 128 first (the prologue and C's store
  // are most of a block's life; twice the blocks overlap them).
  EXPECT_EQ(wgmmaBlockTiles(bmm), (std::vector<V>{{1, 128, 128}, {1, 128, 256}}));
  bmm.extents = {64, 2048, 2048, 512};
  EXPECT_EQ(wgmmaBlockTiles(bmm), (std::vector<V>{{1, 128, 256}, {1, 128, 128}}));
  {
    // At the block: stages no more than K's steps, 1 warpgroup for 128 wide.
    PayloadFacts f;
    OpFacts tile = matmul16({1, 128, 128, 128});
    tile.name = "linalg.batch_matmul";
    tile.inputType = "f16";
    tile.elementType = "f16";
    tile.stage = Stage::Block;
    f.chip = "sm_90";
    f.ops.push_back(tile);
    auto steps = nextSteps(f, {});
    ASSERT_FALSE(steps.empty());
    EXPECT_EQ(transformOf(steps[0]), "use_wgmma");
    ASSERT_EQ(steps[0].candidates.size(), 1u);
    const json::Object *params = steps[0].candidates[0].getObject("params");
    EXPECT_EQ(params->getInteger("stages"), 2);
    EXPECT_EQ(params->getInteger("warpgroups"), 1);
  }
  bmm.extents = {64, 2048, 384, 128};
  EXPECT_EQ(wgmmaBlockTiles(bmm), (std::vector<V>{{1, 128, 128}}));
  bmm.extents = {64, 2000, 2048, 128};
  EXPECT_TRUE(wgmmaBlockTiles(bmm).empty());
  bmm.extents = {64, 2048, 2048, 96};
  EXPECT_FALSE(wgmmaTakes("sm_90", bmm));
  bmm.extents = {64, 2048, 2048, 128};
  bmm.inputType = "f32";
  bmm.elementType = "f32";
  EXPECT_FALSE(wgmmaTakes("sm_90", bmm));
  // Tiles: whole ones, or tails use_wgmma computes (N a multiple of 8, 4
  // for a K-major B); at least one full tile.
  EXPECT_EQ(wgmmaBlockTiles(matmul16({3968, 4864, 4160})),
            (std::vector<V>{{128, 256}, {128, 128}}));
  EXPECT_EQ(wgmmaBlockTiles(matmul16({4096, 200, 4096})),
            (std::vector<V>{{128, 128}}));
  EXPECT_TRUE(wgmmaBlockTiles(matmul16({4096, 1002, 4096})).empty());
  f32.extents = {4096, 1004, 4096};
  EXPECT_EQ(wgmmaBlockTiles(f32).size(), 2u);
  EXPECT_TRUE(wgmmaBlockTiles(matmul16({64, 4096, 4096})).empty());
  // On sm_80 (or f32 with B as (k, n)) the tiles of before: 128x128 for
  // 16-bit operands, 64x64 for f32.
  PayloadFacts old;
  old.chip = "sm_80";
  old.ops.push_back(m);
  EXPECT_EQ(tileOf(nextSteps(old, {})[0], 0), (V{128, 128}));
  old.chip = "sm_90";
  old.ops[0].inputType = "f32";
  // f32 with B as (k, n) on sm_90, 4096^3: [256, 128] tiles for the
  // swapped product, then use_wgmma on two warpgroups (they split C's
  // 128 columns), no copy of B.
  std::vector<Step> swapped = nextSteps(old, {});
  ASSERT_FALSE(swapped.empty());
  EXPECT_EQ(transformOf(swapped[0]), "tile_to_blocks");
  EXPECT_EQ(tileOf(swapped[0], 0), (V{256, 128}));
  PayloadFacts tiled = old;
  tiled.ops[0].stage = Stage::Block;
  tiled.ops[0].extents = {256, 128, 4096};
  std::vector<Step> wg = nextSteps(tiled, {});
  ASSERT_FALSE(wg.empty());
  EXPECT_EQ(transformOf(wg[0]), "use_wgmma");
  EXPECT_EQ(wg[0].candidates[0].getObject("params")->getInteger("warpgroups"),
            2);
  // Sizes no [256, 128] tile divides: B stored as (n, k) first
  // (transpose_operand, optional), so that wgmma takes it as tf32; skipped
  // (or refused), the tiles of before.
  old.ops[0].extents = {4096, 4160, 4096};
  std::vector<Step> first = nextSteps(old, {});
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(transformOf(first[0]), "transpose_operand");
  EXPECT_TRUE(first[0].optional);
  EXPECT_EQ(tileOf(nextSteps(old, {first[0].key})[0], 0), (V{64, 64}));
  // Too small for a wgmma tile, or no wgmma: no copy.
  old.chip = "sm_80";
  EXPECT_EQ(tileOf(nextSteps(old, {})[0], 0), (V{64, 64}));
  old.chip = "sm_90";
  old.ops[0].extents = {64, 4096, 4096};
  EXPECT_NE(transformOf(nextSteps(old, {})[0]), "transpose_operand");
}

TEST(AutoSteps, NormalizationInOneKernel) {
  // softmax as bufferized: fill, max, exp, fill, sum, divide.
  PayloadFacts f;
  f.ops.push_back(op("linalg.fill", {8192}, {false}));
  f.ops.push_back(op("linalg.generic", {8192, 8192}, {false, true}));
  f.ops.push_back(op("linalg.generic", {8192, 8192}, {false, false}));
  f.ops.back().index = 1;
  f.ops.push_back(op("linalg.fill", {8192}, {false}));
  f.ops.back().index = 1;
  f.ops.push_back(op("linalg.generic", {8192, 8192}, {false, true}));
  f.ops.back().index = 2;
  f.ops.push_back(op("linalg.generic", {8192, 8192}, {false, false}));
  f.ops.back().index = 3;
  // A block per row of the last op, optional (refused: per-op kernels).
  auto steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  EXPECT_TRUE(steps[0].optional);
  EXPECT_EQ(steps[0].candidates[0].getObject("target")->getInteger("index"), 3);
  auto refused = nextSteps(f, {steps[0].key});
  EXPECT_EQ(refused[0].candidates[0].getObject("target")->getString("op"),
            "linalg.fill");
  // Tiled: the nearest producer fused in, then the one before it.
  f.ops.back().stage = Stage::Block;
  f.ops.back().extents = {1, 8192};
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "fuse_into");
  EXPECT_EQ(steps[0].candidates[0].getObject("target")->getInteger("index"), 2);
  // A refused fusion leaves the rest to each op's rules (the first fill).
  steps = nextSteps(f, {steps[0].key});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  // All fused: the fill in the block is left to map_to_gpu, the max
  // reduced by 512 threads of the block (two reductions in the row: at
  // most 512).
  for (OpFacts &o : f.ops) {
    o.stage = Stage::Block;
    o.block = 0;
    o.extents = o.name == "linalg.fill" ? V{1} : V{1, 8192};
  }
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "reduce_in_block");
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("threads"), 512);
  // reduce_in_block lowered the max (no op left of it): the block's thread
  // loops take 512 threads, which every later op of the block keeps.
  f.ops.erase(f.ops.begin() + 1);
  for (OpFacts &o : f.ops)
    o.blockThreads = 512;
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  EXPECT_EQ(steps[0].candidates[0].getObject("target")->getInteger("index"), 1);
  // 16 floats a thread, in four runs of 4 distributed cyclically.
  const json::Object *params = steps[0].candidates[0].getObject("params");
  EXPECT_EQ(json::Value(*params->get("elements_per_thread")),
            json::Value(json::Array{1, 16}));
  EXPECT_EQ(params->getInteger("chunk"), 4);
  // Vectorized (no op left of it): the sum, the only reduction left,
  // keeps the block's 512 threads.
  f.ops.erase(f.ops.begin() + 1);
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "reduce_in_block");
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("threads"), 512);
  // And the division, the last op, alone in the block.
  f.ops.erase(f.ops.begin(), f.ops.end() - 1);
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  EXPECT_EQ(json::Value(*steps[0].candidates[0].getObject("params")->get(
                "elements_per_thread")),
            json::Value(json::Array{1, 16}));
  // A block whose thread loops take 1024 (a recipe's) keeps 1024.
  for (OpFacts &o : f.ops)
    o.blockThreads = 1024;
  steps = nextSteps(f, {});
  EXPECT_EQ(json::Value(*steps[0].candidates[0].getObject("params")->get(
                "elements_per_thread")),
            json::Value(json::Array{1, 8}));
  // One reduction in the row (RMSNorm): 1024 threads, 8 floats a thread.
  PayloadFacts rms;
  rms.ops.push_back(op("linalg.generic", {1, 8192}, {false, true}, Stage::Block));
  rms.ops.push_back(op("linalg.generic", {1, 8192}, {false, false}, Stage::Block));
  rms.ops.back().index = 1;
  steps = nextSteps(rms, {});
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("threads"), 1024);
  rms.ops.erase(rms.ops.begin());
  rms.ops[0].blockThreads = 1024;
  steps = nextSteps(rms, {});
  EXPECT_EQ(json::Value(*steps[0].candidates[0].getObject("params")->get(
                "elements_per_thread")),
            json::Value(json::Array{1, 8}));
  // The same in bf16: 1024 threads would hold one 16-byte vector (8 bf16)
  // a thread; two a thread take 512 (on the H200 94% of the copy bandwidth
  // where 1024 gave 74%), 16 bf16 a thread in two runs of 8.
  PayloadFacts rms16;
  rms16.ops.push_back(op("linalg.generic", {1, 8192}, {false, true}, Stage::Block));
  rms16.ops.push_back(op("linalg.generic", {1, 8192}, {false, false}, Stage::Block));
  rms16.ops.back().index = 1;
  for (OpFacts &o : rms16.ops)
    o.elementBytes = 2;
  steps = nextSteps(rms16, {});
  EXPECT_EQ(transformOf(steps[0]), "reduce_in_block");
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("threads"), 512);
  rms16.ops.erase(rms16.ops.begin());
  rms16.ops[0].blockThreads = 512;
  steps = nextSteps(rms16, {});
  const json::Object *p16 = steps[0].candidates[0].getObject("params");
  EXPECT_EQ(json::Value(*p16->get("elements_per_thread")),
            json::Value(json::Array{1, 16}));
  EXPECT_EQ(p16->getInteger("chunk"), 8);
  // Two reductions each in a block of its own (a refused fusion): one a
  // block, 1024 threads each.
  PayloadFacts apart = rms;
  apart.ops.insert(apart.ops.begin(),
                   op("linalg.generic", {1, 8192}, {false, true}, Stage::Block));
  apart.ops.insert(apart.ops.begin(),
                   op("linalg.generic", {1, 8192}, {false, true}, Stage::Block));
  apart.ops[0].block = 1;
  apart.ops[1].block = 2;
  apart.ops[2].blockThreads = 0;
  steps = nextSteps(apart, {});
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("threads"), 1024);
  apart.ops[1].block = 1; // the same block: 512
  steps = nextSteps(apart, {});
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("threads"), 512);
  // A lone row reduction: 512 threads for a row of 4096 or more, 256 for
  // a shorter one.
  PayloadFacts lone;
  lone.ops.push_back(op("linalg.generic", {1, 8192}, {false, true}, Stage::Block));
  steps = nextSteps(lone, {});
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("threads"), 512);
  lone.ops.back() = op("linalg.generic", {1, 2048}, {false, true}, Stage::Block);
  steps = nextSteps(lone, {});
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("threads"), 256);
}

TEST(AutoSteps, ARowNoThreadCountSplitsTakesAPartialLastThread) {
  // softmax over 1000 classes: its division alone in a row block of 256
  // threads. No multiple of 32 threads splits 1000 into equal parts (250
  // threads of 4, 500 of 2: refused), and auto stopped there. Last, 32
  // threads of 32 (the last thread 8).
  PayloadFacts f;
  f.ops.push_back(
      op("linalg.generic", {1, 1000}, {false, false}, Stage::Block));
  f.ops.back().block = 0;
  f.ops.back().blockThreads = 256;
  auto elements = [](const Step &s, size_t i) {
    return json::Value(
        *s.candidates.at(i).getObject("params")->get("elements_per_thread"));
  };
  auto steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  ASSERT_FALSE(steps[0].candidates.empty());
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  EXPECT_EQ(elements(steps[0], steps[0].candidates.size() - 1),
            json::Value(json::Array{1, 32}));
  // A prime row (1031): 32 threads of 33.
  f.ops.back().extents = {1, 1031};
  steps = nextSteps(f, {});
  ASSERT_FALSE(steps[0].candidates.empty());
  EXPECT_EQ(elements(steps[0], steps[0].candidates.size() - 1),
            json::Value(json::Array{1, 33}));
  // log_softmax over GPT-2's 50257 tokens in a block of 512 (no candidate
  // at all before): the most threads first, 416 of 121.
  f.ops.back().extents = {1, 50257};
  f.ops.back().blockThreads = 512;
  steps = nextSteps(f, {});
  ASSERT_FALSE(steps[0].candidates.empty());
  EXPECT_EQ(elements(steps[0], 0), json::Value(json::Array{1, 121}));
  EXPECT_EQ(elements(steps[0], 1), json::Value(json::Array{1, 131}));
  // A row that 512 threads split evenly gains nothing: [1, 16] alone.
  f.ops.back().extents = {1, 8192};
  steps = nextSteps(f, {});
  for (size_t i = 0; i < steps[0].candidates.size(); ++i)
    EXPECT_NE(elements(steps[0], i), json::Value(json::Array{1, 86}));
}

TEST(AutoSteps, TransposeThroughSharedMemory) {
  PayloadFacts f;
  f.ops.push_back(op("linalg.transpose", {8192, 8192}, {false, false}));
  f.ops.back().contiguous = false;
  f.ops.back().stridedInput = 0;
  auto steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  const json::Array *sizes =
      steps[0].candidates[0].getObject("params")->getArray("tile_sizes");
  ASSERT_TRUE(sizes);
  EXPECT_EQ((*sizes)[0].getAsInteger(), 64);
  f.ops.back().stage = Stage::Block;
  f.ops.back().extents = {64, 64};
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "promote_to_shared");
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("padding"), 1);
  f.ops.back().promoted = true;
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  const json::Array *per =
      steps[0].candidates[0].getObject("params")->getArray("elements_per_thread");
  ASSERT_TRUE(per);
  EXPECT_EQ((*per)[0].getAsInteger(), 8); // 512 threads, a column each
  EXPECT_EQ((*per)[1].getAsInteger(), 1);
  // A size 64 does not divide: the plain tiling.
  f.ops.back() = op("linalg.transpose", {1000, 1000}, {false, false});
  f.ops.back().contiguous = false;
  f.ops.back().stridedInput = 0;
  steps = nextSteps(f, {});
  sizes = steps[0].candidates[0].getObject("params")->getArray("tile_sizes");
  EXPECT_NE((*sizes)[0].getAsInteger(), 64);
}

TEST(AutoSteps, FourDimCopyPutsItsRowsOnThreads) {
  PayloadFacts f;
  f.ops.push_back(op("linalg.transpose", {32, 32, 2048, 128},
                     {false, false, false, false}));
  f.ops.back().elementBytes = 2;
  auto steps = nextSteps(f, {});
  const json::Array *sizes =
      steps[0].candidates[0].getObject("params")->getArray("tile_sizes");
  ASSERT_TRUE(sizes);
  ASSERT_EQ(sizes->size(), 3u);
  EXPECT_EQ((*sizes)[2].getAsInteger(), 16); // 16 rows x 16 lanes of 8 f16
  f.ops.back().stage = Stage::Block;
  f.ops.back().extents = {1, 1, 16, 128};
  steps = nextSteps(f, {});
  const json::Array *per =
      steps[0].candidates[0].getObject("params")->getArray("elements_per_thread");
  ASSERT_TRUE(per);
  ASSERT_EQ(per->size(), 4u);
  EXPECT_EQ((*per)[0].getAsInteger(), 0);
  EXPECT_EQ((*per)[3].getAsInteger(), 8);
  f.ops.back().stage = Stage::Thread;
  f.ops.back().extents = {1, 1, 1, 8};
  steps = nextSteps(f, {});
  EXPECT_EQ(transformOf(steps[0]), "vectorize");
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("width"), 8);
}

TEST(AutoSteps, FactsRoundTripThroughJSON) {
  PayloadFacts f;
  f.ops.push_back(op("linalg.reduce", {8192, 8192}, {false, true}, Stage::Block));
  f.ops.back().elementBytes = 2;
  f.ops.back().elementType = "bf16";
  f.ops.back().stridedInput = 1;
  f.ops.back().outputs = 2;
  f.ops.back().block = 3;
  f.ops.back().blockThreads = 512;
  f.ops.back().layout = "mk,nk";
  f.chip = "sm_90a";
  auto back = PayloadFacts::fromJSON(json::Value(f.toJSON()));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->ops.size(), 1u);
  EXPECT_EQ(back->ops[0].stage, Stage::Block);
  EXPECT_EQ(back->ops[0].elementBytes, 2u);
  EXPECT_EQ(back->ops[0].stridedInput, 1);
  EXPECT_EQ(back->ops[0].outputs, 2);
  EXPECT_EQ(back->ops[0].block, 3);
  EXPECT_EQ(back->ops[0].blockThreads, 512);
  EXPECT_EQ(back->ops[0].layout, "mk,nk");
  EXPECT_EQ(back->chip, "sm_90a");
  EXPECT_EQ(back->ops[0].reduction, (std::vector<bool>{false, true}));
}

TEST(AutoSteps, AnArgmaxTakesABlockPerRow) {
  // An argmax (value and index, 4096 rows of 1024): reduce_in_block takes
  // the pair (a tree of values and indices), a block per row.
  PayloadFacts f;
  f.ops.push_back(op("linalg.generic", {4096, 1024}, {false, true}));
  f.ops.back().outputs = 2;
  f.ops.back().indexReduction = true;
  auto steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  EXPECT_NE(steps[0].why.find("a block per output row"), std::string::npos)
      << steps[0].why;
  f.ops.back().stage = Stage::Block;
  f.ops.back().extents = {1, 1024};
  steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "reduce_in_block");
  EXPECT_EQ(steps[0].candidates[0].getObject("params")->getInteger("threads"),
            256);
  // Very long rows too: split_reduction takes one output only.
  PayloadFacts longRows;
  longRows.ops.push_back(op("linalg.generic", {256, 1048576}, {false, true}));
  longRows.ops.back().outputs = 2;
  longRows.ops.back().indexReduction = true;
  steps = nextSteps(longRows, {});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  // The fact goes through JSON.
  std::optional<PayloadFacts> back =
      PayloadFacts::fromJSON(json::Value(f.toJSON()));
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->ops[0].indexReduction);
}

TEST(AutoSteps, AReductionOfTwoOutputsRunsAThreadPerRow) {
  // Two outputs that are not a value and its index: reduce_in_block and
  // split_reduction refuse them, so a thread per row.
  PayloadFacts f;
  f.ops.push_back(op("linalg.generic", {4096, 1024}, {false, true}));
  f.ops.back().outputs = 2;
  auto steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  EXPECT_NE(steps[0].why.find("a thread per output"), std::string::npos)
      << steps[0].why;
  const json::Object *params = steps[0].candidates[0].getObject("params");
  ASSERT_TRUE(params);
  const json::Array *sizes = params->getArray("tile_sizes");
  ASSERT_TRUE(sizes && !sizes->empty());
  EXPECT_GT(*(*sizes)[0].getAsInteger(), 1); // a block of rows, a thread each
  // One output: a block per row, as before.
  f.ops.back().outputs = 1;
  steps = nextSteps(f, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_NE(steps[0].why.find("a block per output row"), std::string::npos)
      << steps[0].why;
}
} // namespace

namespace {
/// The integers of parameter `name` of candidate `i` of a step.
V paramOf(const Step &s, const char *name, size_t i = 0) {
  V out;
  const json::Object *params = s.candidates.at(i).getObject("params");
  if (const json::Array *a = params ? params->getArray(name) : nullptr)
    for (const json::Value &x : *a)
      out.push_back(x.getAsInteger().value_or(-1));
  return out;
}
} // namespace

TEST(AutoSteps, ColumnsThatFillTheGridShareTheirBlocks) {
  // colsum: s[j] += x[i, j], 8192 x 8192 (the reduction loop first):
  // 256 blocks of 32 columns, not split.
  PayloadFacts f;
  f.ops.push_back(op("linalg.generic", {8192, 8192}, {true, false}));
  auto steps = nextSteps(f, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  EXPECT_EQ(paramOf(steps[0], "tile_sizes"), (V{0, 32}));
  // Its block: reduce_in_block spreads the 32 columns over the threads
  // (512 first, 1024 and 256 where it refuses), then a thread per column.
  PayloadFacts block;
  block.ops.push_back(
      op("linalg.generic", {8192, 32}, {true, false}, Stage::Block));
  steps = nextSteps(block, {});
  ASSERT_EQ(steps.size(), 1u);
  ASSERT_GE(steps[0].candidates.size(), 4u);
  for (auto [i, threads] : llvm::enumerate(V{512, 1024, 256})) {
    EXPECT_EQ(transformOf(steps[0], i), "reduce_in_block");
    const json::Object *params = steps[0].candidates[i].getObject("params");
    EXPECT_EQ(params->getInteger("threads"), threads);
  }
  EXPECT_EQ(transformOf(steps[0], 3), "tile_to_threads");
  // The widest block of 32 to 256 columns that leaves 256 blocks: 9600
  // columns in blocks of 32 (300 blocks), 65536 in blocks of 256.
  for (auto [columns, tile] : {std::pair<int64_t, int64_t>{9600, 32},
                               {65536, 256}, {16384, 64}}) {
    PayloadFacts wide;
    wide.ops.push_back(op("linalg.generic", {8192, columns}, {true, false}));
    steps = nextSteps(wide, {});
    ASSERT_EQ(steps.size(), 1u) << columns;
    EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks") << columns;
    EXPECT_EQ(paramOf(steps[0], "tile_sizes"), (V{0, tile})) << columns;
  }
  // 8200 columns (no multiple of 32): split, as before.
  PayloadFacts odd;
  odd.ops.push_back(op("linalg.generic", {8192, 8200}, {true, false}));
  steps = nextSteps(odd, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "split_reduction");
  // Fewer rows than 512 (a thread runs down few rows), outputs over two
  // loops, or a run of 4096 columns (128 blocks of 32): not this way.
  PayloadFacts shortRows;
  shortRows.ops.push_back(op("linalg.generic", {256, 8192}, {true, false}));
  steps = nextSteps(shortRows, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "split_reduction");
  PayloadFacts shortBlock;
  shortBlock.ops.push_back(
      op("linalg.generic", {256, 32}, {true, false}, Stage::Block));
  steps = nextSteps(shortBlock, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  PayloadFacts middle;
  middle.ops.push_back(
      op("linalg.generic", {16, 1024, 512}, {false, true, false}));
  steps = nextSteps(middle, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "split_reduction");
}

TEST(AutoSteps, FewColumnsSplitTheirRows) {
  // colsum: s[j] += x[i, j], 8192 x 4096 (the reduction loop first).
  PayloadFacts f;
  f.ops.push_back(op("linalg.generic", {8192, 4096}, {true, false}));
  auto steps = nextSteps(f, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(transformOf(steps[0]), "split_reduction");
  EXPECT_TRUE(steps[0].optional);
  const json::Object *params = steps[0].candidates[0].getObject("params");
  ASSERT_TRUE(params);
  // 4 f32 columns a thread: 64 parts (2^16 threads).
  EXPECT_EQ(params->getInteger("parts"), 64);
  EXPECT_EQ(params->getBoolean("chunked"), true);
  EXPECT_EQ(params->getBoolean("parts_first"), true);
  // Refused (skipped): the plain column schedule, a thread per column.
  steps = nextSteps(f, {steps[0].key});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  // The split op (32 parts x 256 rows x 8192 columns) is not split again:
  // blocks of (1 part, 1024 columns), 256 threads of 4 columns.
  PayloadFacts split;
  split.ops.push_back(op("linalg.generic", {32, 256, 8192}, {false, true, false}));
  steps = nextSteps(split, {});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  const json::Array *sizes =
      steps[0].candidates[0].getObject("params")->getArray("tile_sizes");
  ASSERT_TRUE(sizes);
  ASSERT_EQ(sizes->size(), 3u);
  EXPECT_EQ((*sizes)[0].getAsInteger(), 1);
  EXPECT_EQ((*sizes)[1].getAsInteger(), 0);
  EXPECT_EQ((*sizes)[2].getAsInteger(), 1024);
  // The partials' combination (32 x 8192, too short to split): 256
  // blocks of one warp, a column a thread (64 blocks 4 columns a thread
  // measured 1-1.5% slower on the H200; 8 blocks of 256 threads would
  // leave 124 SMs idle).
  PayloadFacts combine;
  combine.ops.push_back(op("linalg.generic", {32, 8192}, {true, false}));
  steps = nextSteps(combine, {});
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  sizes = steps[0].candidates[0].getObject("params")->getArray("tile_sizes");
  ASSERT_TRUE(sizes);
  ASSERT_EQ(sizes->size(), 2u);
  EXPECT_EQ((*sizes)[0].getAsInteger(), 0);
  EXPECT_EQ((*sizes)[1].getAsInteger(), 32);
  // Its block (32 parts x 32 columns): 32 threads, one column each.
  PayloadFacts combineBlock;
  combineBlock.ops.push_back(op("linalg.generic", {32, 32}, {true, false}));
  combineBlock.ops.back().stage = Stage::Block;
  steps = nextSteps(combineBlock, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  const json::Array *per = steps[0].candidates[0].getObject("params")->getArray(
      "elements_per_thread");
  ASSERT_TRUE(per);
  ASSERT_EQ(per->size(), 2u);
  EXPECT_EQ((*per)[0].getAsInteger(), 0);
  EXPECT_EQ((*per)[1].getAsInteger(), 1);
  // Long rows split chunked (a block per part reads a contiguous run).
  PayloadFacts rows;
  rows.ops.push_back(op("linalg.generic", {256, 1048576}, {false, true}));
  steps = nextSteps(rows, {});
  EXPECT_EQ(transformOf(steps[0]), "split_reduction");
  params = steps[0].candidates[0].getObject("params");
  EXPECT_EQ(params->getInteger("parts"), 256);
  EXPECT_EQ(params->getBoolean("chunked"), true);
  EXPECT_EQ(params->getBoolean("parts_first"), std::nullopt);
}


TEST(AutoSteps, AZeroDimOpIsRefusedNotTiled) {
  // c = a * b on tensor<f32>: no loop, so nothing for tile_to_blocks (it
  // takes 1 to 3 nonzero sizes). A step without candidates whose refusal
  // says so (before, the tail tile of no loops wrote before its vector:
  // SIGSEGV).
  for (const char *name : {"linalg.mul", "linalg.generic", "linalg.fill"}) {
    PayloadFacts f;
    f.ops.push_back(op(name, {}, {}));
    f.ops.back().elementType = "f32";
    auto steps = nextSteps(f, {});
    ASSERT_EQ(steps.size(), 1u) << name;
    EXPECT_TRUE(steps[0].candidates.empty()) << name;
    EXPECT_FALSE(steps[0].optional) << name;
    ASSERT_TRUE(steps[0].refusal) << name;
    EXPECT_EQ(steps[0].refusal->code, RefusalCode::not_applicable);
    EXPECT_NE(steps[0].refusal->message.find("0-d op (a scalar)"),
              std::string::npos)
        << steps[0].refusal->message;
    EXPECT_NE(steps[0].refusal->hint.find("tensor<1xf32>"), std::string::npos)
        << steps[0].refusal->hint;
  }
  // One element in one loop is scheduled as before: a tail tile.
  PayloadFacts one;
  one.ops.push_back(op("linalg.mul", {1}, {false}));
  auto steps = nextSteps(one, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_FALSE(steps[0].refusal);
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
}

TEST(AutoSteps, AFullReductionToAScalarIsRefused) {
  // linalg.dot of 65536 into tensor<f32>: no parallel loop. A split would
  // leave the combine of the parts (a reduction of [parts] into the
  // scalar) with none; before, auto split it, reduced the parts, then
  // asked tile_to_blocks for [] (invalid_parameter).
  PayloadFacts f;
  f.ops.push_back(op("linalg.fill", {}, {}));
  f.ops.back().starts = "linalg.dot#0";
  f.ops.push_back(op("linalg.dot", {65536}, {true}));
  f.ops.back().elementType = "f32";
  auto steps = nextSteps(f, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_TRUE(steps[0].candidates.empty());
  ASSERT_TRUE(steps[0].refusal);
  EXPECT_NE(steps[0].why.find("linalg.dot#0"), std::string::npos)
      << steps[0].why; // the fill waits for the reduction it starts
  EXPECT_EQ(steps[0].refusal->code, RefusalCode::not_applicable);
  EXPECT_NE(steps[0].refusal->message.find("full reduction to a 0-d result"),
            std::string::npos)
      << steps[0].refusal->message;
  EXPECT_NE(steps[0].refusal->hint.find("tensor<1xf32>"), std::string::npos)
      << steps[0].refusal->hint;
  // Any rank, split or not: a reduction over every loop, and the combine
  // of a split one.
  for (V extents : {V{64, 1024}, V{16}, V{-1}}) {
    PayloadFacts g;
    g.ops.push_back(
        op("linalg.reduce", extents, std::vector<bool>(extents.size(), true)));
    steps = nextSteps(g, {});
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_TRUE(steps[0].refusal) << extents.size();
    EXPECT_TRUE(steps[0].candidates.empty());
  }
  // One output of the same reduction ([1, 65536]) is split as before.
  PayloadFacts row;
  row.ops.push_back(op("linalg.generic", {1, 65536}, {false, true}));
  steps = nextSteps(row, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_FALSE(steps[0].refusal);
  EXPECT_EQ(transformOf(steps[0]), "split_reduction");
}

TEST(AutoSteps, AReductionInTheMiddleKeepsItsInnerLoopOnThreads) {
  // x.amax(dim=1) of 16 x 1024 x 512, split: (part, batch, row, column)
  // in blocks of [1, 1, 0, 256]. The threads take the 3 parallel loops
  // (256 of them, a column each); before, the first 3 loops, the row's
  // zero among them: [1, 1, 0], one thread a block (bad_block_size).
  PayloadFacts f;
  f.ops.push_back(op("linalg.generic", {1, 1, 32, 256},
                     {false, false, true, false}, Stage::Block));
  auto steps = nextSteps(f, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(transformOf(steps[0]), "tile_to_threads");
  EXPECT_EQ(paramOf(steps[0], "elements_per_thread"), (V{1, 1, 0, 1}));
  // The reduction first, then 3 parallel loops: the same loops.
  f.ops.back() = op("linalg.generic", {32, 1, 2, 128},
                    {true, false, false, false}, Stage::Block);
  steps = nextSteps(f, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(paramOf(steps[0], "elements_per_thread"), (V{0, 1, 1, 1}));
  // At the top, with no dividing tiling (509 columns: a prime): tiles of
  // 1024 along the innermost parallel loop, whatever lies between.
  f.ops.back() = op("linalg.generic", {8, 64, 16, 509},
                    {false, true, false, false});
  steps = nextSteps(f, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(transformOf(steps[0]), "tile_to_blocks");
  EXPECT_EQ(tileOf(steps[0], 0), (V{1, 0, 1, 1024}));
  // Many short rows of a prime count (a thread per output): blocks of
  // 1024 outputs with a tail, not of one (one thread a block).
  f.ops.back() = op("linalg.generic", {32771, 64}, {false, true});
  steps = nextSteps(f, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_NE(steps[0].why.find("a thread per output"), std::string::npos)
      << steps[0].why;
  EXPECT_EQ(tileOf(steps[0], 0), (V{1024}));
}
