//===- TensorMapTest.cpp - tensor-map arguments of bundles ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The manifest's {"tensor_map": ...} kernel arguments (use_wgmma's TMA
// loads) and the parameters the runner gives cuTensorMapEncodeTiled for
// them. Runs on CI: no GPU.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"

#include "tirx/Runtime/Manifest.h"

#include <gtest/gtest.h>

using namespace tirx::runtime;

namespace {
const char *kWgmma = R"({
  "format": "tirx-bundle", "version": 1, "payload": "mm", "chip": "sm_90a",
  "params": [
    {"name": "A", "kind": "buffer", "type": "bf16", "shape": [256, 1024], "role": "in"},
    {"name": "B", "kind": "buffer", "type": "bf16", "shape": [1024, 512], "role": "in"},
    {"name": "C", "kind": "buffer", "type": "f32", "shape": [256, 512], "role": "inout"},
    {"name": "s", "kind": "scalar", "type": "f32", "value": 1.0}],
  "kernels": [{"name": "k", "ptx": "k.ptx", "grid": [4, 2, 1], "block": [128, 1, 1],
               "args": [{"tensor_map": {"param": 0, "box": [128, 64], "swizzle": 128,
                                        "l2_promotion": 256}},
                        {"tensor_map": {"param": 1, "box": [64, 64], "swizzle": 128}},
                        {"param": 2}]}]})";

std::string replaced(const std::string &from, const std::string &to) {
  std::string text = kWgmma;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string parseError(const std::string &text) {
  Manifest m;
  std::string error;
  EXPECT_FALSE(parseManifest(text, m, error));
  return error;
}
} // namespace

TEST(TensorMapTest, ParsesAndRoundTrips) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kWgmma, m, error)) << error;
  const KernelArg &a = m.kernels[0].args[0];
  ASSERT_TRUE(a.tensorMap.has_value());
  EXPECT_FALSE(a.param.has_value());
  EXPECT_EQ(a.tensorMap->param, 0);
  EXPECT_EQ(a.tensorMap->box, (std::vector<int64_t>{128, 64}));
  EXPECT_EQ(a.tensorMap->swizzle, 128);
  EXPECT_EQ(a.tensorMap->l2Promotion, 256);
  EXPECT_EQ(m.kernels[0].args[1].tensorMap->l2Promotion, 0); // optional
  Manifest again;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  EXPECT_EQ(serializeManifest(again), serializeManifest(m));
}

TEST(TensorMapTest, MalformedMapsNameTheField) {
  // cuTensorMapEncodeTiled takes 1 to 5 dimensions: a sixth would overrun
  // the encoder's arrays, none would have no innermost box.
  std::string six = replaced(R"("shape": [256, 1024])", R"("shape": [1, 1, 1, 1, 2, 128])");
  six.replace(six.find("[128, 64]"), 9, "[1, 1, 1, 1, 2, 64]");
  EXPECT_NE(parseError(six).find("tensor_map.param: a tensor map needs a "
                                 "buffer of 1 to 5 dimensions"),
            std::string::npos)
      << parseError(six);
  std::string none = replaced(R"("shape": [256, 1024])", R"("shape": [])");
  none.replace(none.find("[128, 64]"), 9, "[]");
  EXPECT_NE(parseError(none).find("1 to 5 dimensions"), std::string::npos)
      << parseError(none);
  EXPECT_NE(parseError(replaced(R"("param": 0, "box")", R"("param": 3, "box")"))
                .find("kernels[0].args[0].tensor_map.param: a tensor map "
                      "needs an f16, bf16 or f32 buffer"),
            std::string::npos);
  EXPECT_NE(parseError(replaced(R"("param": 0, "box")", R"("param": 9, "box")"))
                .find("kernels[0].args[0].tensor_map.param: must lie in"),
            std::string::npos);
  EXPECT_NE(parseError(replaced("[128, 64]", "[128]"))
                .find("tensor_map.box: expected one size per dimension"),
            std::string::npos);
  EXPECT_NE(parseError(replaced("[128, 64]", "[512, 64]"))
                .find("tensor_map.box[0]: must lie in [1, 256]"),
            std::string::npos);
  EXPECT_NE(parseError(replaced(R"("swizzle": 128,)", R"("swizzle": 100,)"))
                .find("tensor_map.swizzle: must be 0, 32, 64 or 128"),
            std::string::npos);
  // 64 bf16 are 128 bytes: wider than a 64-byte swizzle.
  EXPECT_NE(parseError(replaced(R"("swizzle": 128,)", R"("swizzle": 64,)"))
                .find("tensor_map.box: the innermost box dimension is wider "
                      "than the swizzle"),
            std::string::npos);
  EXPECT_NE(parseError(replaced(R"("l2_promotion": 256)", R"("l2_promotion": 32)"))
                .find("tensor_map.l2_promotion: must be 0, 64, 128 or 256"),
            std::string::npos);
}

TEST(TensorMapTest, EncodingIsInnermostFirst) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kWgmma, m, error)) << error;
  gpu::TensorMapEncoding a =
      gpu::tensorMapEncoding(*m.kernels[0].args[0].tensorMap, m.params[0]);
  EXPECT_EQ(a.dataType, 9); // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  EXPECT_EQ(a.rank, 2u);
  EXPECT_EQ(a.dims[0], 1024u); // K, contiguous
  EXPECT_EQ(a.dims[1], 256u);
  EXPECT_EQ(a.strides[0], 2048u); // bytes per row of A
  EXPECT_EQ(a.box[0], 64u);
  EXPECT_EQ(a.box[1], 128u);
  EXPECT_EQ(a.elementStrides[0], 1u);
  EXPECT_EQ(a.elementStrides[1], 1u);
  EXPECT_EQ(a.swizzle, 3);     // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(a.l2Promotion, 3); // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
  gpu::TensorMapEncoding b =
      gpu::tensorMapEncoding(*m.kernels[0].args[1].tensorMap, m.params[1]);
  EXPECT_EQ(b.dims[0], 512u);
  EXPECT_EQ(b.strides[0], 1024u);
  EXPECT_EQ(b.l2Promotion, 0);

  TensorMapArg small{2, {8, 16}, 64, 64};
  gpu::TensorMapEncoding c = gpu::tensorMapEncoding(small, m.params[2]);
  EXPECT_EQ(c.dataType, 7); // f32
  EXPECT_EQ(c.swizzle, 2);  // 64B
  EXPECT_EQ(c.l2Promotion, 1);
  TensorMapArg none{2, {8, 16}, 0, 128};
  EXPECT_EQ(gpu::tensorMapEncoding(none, m.params[2]).swizzle, 0);
  EXPECT_EQ(gpu::tensorMapEncoding(none, m.params[2]).l2Promotion, 2);
}

// A tensor map of a scratch buffer: transpose_operand's copy of B (f32,
// N x K) that use_wgmma loads by TMA. The runner encodes it from the
// scratch buffer's type and shape, at the scratch buffer's slot (after the
// parameters).
TEST(TensorMapTest, ScratchBufferMaps) {
  const char *text = R"({
  "format": "tirx-bundle", "version": 1, "payload": "mm", "chip": "sm_90a",
  "params": [
    {"name": "A", "kind": "buffer", "type": "f32", "shape": [256, 1024], "role": "in"},
    {"name": "B", "kind": "buffer", "type": "f32", "shape": [1024, 512], "role": "in"},
    {"name": "C", "kind": "buffer", "type": "f32", "shape": [256, 512], "role": "out"}],
  "scratch": [{"name": "scratch0", "type": "f32", "shape": [512, 1024]}],
  "kernels": [{"name": "t", "ptx": "t.ptx", "grid": [8, 16, 1], "block": [64, 8, 1],
               "args": [{"param": 1}, {"scratch": 0}]},
              {"name": "k", "ptx": "k.ptx", "grid": [2, 2, 1], "block": [384, 1, 1],
               "args": [{"tensor_map": {"param": 0, "box": [128, 32], "swizzle": 128}},
                        {"tensor_map": {"scratch": 0, "box": [256, 32], "swizzle": 128}},
                        {"param": 2}]}]})";
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(text, m, error)) << error;
  const TensorMapArg &map = *m.kernels[1].args[1].tensorMap;
  ASSERT_TRUE(map.scratch.has_value());
  EXPECT_EQ(*map.scratch, 0);
  EXPECT_EQ(m.tensorMapBufferIndex(map), 3u); // A, B, C, then scratch0
  EXPECT_EQ(m.tensorMapBufferIndex(*m.kernels[1].args[0].tensorMap), 0u);
  Param buffer = m.tensorMapBuffer(map);
  EXPECT_EQ(buffer.shape, (std::vector<int64_t>{512, 1024}));
  gpu::TensorMapEncoding e = gpu::tensorMapEncoding(map, buffer);
  EXPECT_EQ(e.dataType, 7);     // f32
  EXPECT_EQ(e.dims[0], 1024u);  // K, contiguous
  EXPECT_EQ(e.strides[0], 4096u);
  Manifest again;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  EXPECT_EQ(serializeManifest(again), serializeManifest(m));
  EXPECT_TRUE(again.kernels[1].args[1].tensorMap->scratch.has_value());

  // A scratch index out of range, or scratch maps in a manifest with none.
  std::string bad = text;
  bad.replace(bad.find(R"("scratch": 0, "box")"), 12, R"("scratch": 4)");
  EXPECT_FALSE(parseManifest(bad, m, error));
  EXPECT_NE(error.find("kernels[1].args[1].tensor_map.scratch: must lie in"),
            std::string::npos)
      << error;
}

TEST(TensorMapTest, AMapOfAParameterAndAScratchBufferIsRefused) {
  std::string both = replaced(R"("param": 1, "box": [64, 64])",
                              R"("param": 1, "scratch": 0, "box": [64, 64])");
  EXPECT_NE(parseError(both).find("kernels[0].args[1].tensor_map: a tensor map "
                                  "maps a parameter or a scratch buffer, not both"),
            std::string::npos)
      << parseError(both);
}

// A map over a reshaped view of its buffer (use_wgmma's batch matmul sees
// A (b, M, K) as (b * M, K)): the encoding takes the view's shape; a shape
// of another element count, or a box of the buffer's rank, is refused.
TEST(TensorMapTest, ReshapedMaps) {
  std::string text = replaced(R"("shape": [256, 1024])", R"("shape": [4, 64, 1024])");
  text = text.replace(text.find(R"("param": 0, "box": [128, 64])"), 28,
                      R"("param": 0, "shape": [256, 1024], "box": [128, 64])");
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(text, m, error)) << error;
  const TensorMapArg &map = *m.kernels[0].args[0].tensorMap;
  EXPECT_EQ(map.shape, (std::vector<int64_t>{256, 1024}));
  gpu::TensorMapEncoding a = gpu::tensorMapEncoding(map, m.params[0]);
  EXPECT_EQ(a.rank, 2u);
  EXPECT_EQ(a.dims[0], 1024u);
  EXPECT_EQ(a.dims[1], 256u);
  EXPECT_EQ(a.strides[0], 2048u);
  Manifest again;
  ASSERT_TRUE(parseManifest(serializeManifest(m), again, error)) << error;
  EXPECT_EQ(again.kernels[0].args[0].tensorMap->shape, map.shape);

  std::string count = text;
  count.replace(count.find("[256, 1024], \"box\""), 11, "[255, 1024]");
  EXPECT_NE(parseError(count).find("tensor_map.shape: holds 261120 elements, "
                                   "the buffer 262144"),
            std::string::npos)
      << parseError(count);
  std::string rank = text;
  rank.replace(rank.find("\"box\": [128, 64]"), 16, "\"box\": [1, 128, 64]");
  EXPECT_NE(parseError(rank).find("tensor_map.box: expected one size per "
                                  "dimension of the map's shape (2)"),
            std::string::npos)
      << parseError(rank);
}
