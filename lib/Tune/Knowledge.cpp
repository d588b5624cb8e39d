//===- Knowledge.cpp - what helps which bottleneck --------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Knowledge.h"

using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
struct Entry {
  const char *bottleneck;
  const char *meaning;
  std::vector<Remedy> remedies;
};

const std::vector<Entry> &table() {
  static const std::vector<Entry> entries = {
      {"narrow_global_access",
       "global loads and stores narrower than 16 bytes: more instructions "
       "and transactions per byte than needed",
       {{"vectorize", "width so that width x element size is 16 bytes",
         "one 16-byte access per thread and instruction (ld.global.v4)"},
        {"tile_to_threads", "more elements per thread along the contiguous "
                            "axis",
         "room for a wider vector"}}},
      {"uncoalesced_access",
       "neighbouring threads touch addresses far apart",
       {{"tile_to_threads",
         "chunk = the vector width when a thread holds several vectors "
         "(cyclic: consecutive lanes take consecutive runs)",
         "each access of a warp contiguous: 512 bytes for 16-byte vectors"},
        {"interchange", "make the thread-mapped loop the contiguous one",
         "a warp's 32 accesses then fall into few cache lines"},
        {"promote_to_shared", "stage the strided operand in shared memory",
         "coalesced global reads, the strided walk in shared memory"},
        {"promote_to_shared", "padding 1 or 4 on a transposed tile",
         "no shared-memory bank conflicts"}}},
      {"too_few_blocks",
       "fewer blocks than the GPU has SMs (132 on an H200): most of the "
       "chip idles",
       {{"tile_to_blocks", "smaller tiles", "more blocks than SMs"},
        {"split_reduction",
         "parts so that rows x parts exceeds the SMs (chunked: each part a "
         "contiguous run; parts_first for a column reduction)",
         "a long reduction shared by several blocks"}}},
      {"launch_bound",
       "the kernel takes a few microseconds: launch overhead dominates",
       {{"fuse_into", "fuse the producer into its consumer's loop",
         "one launch instead of two, no round trip through memory"},
        {"tile_to_blocks", "larger tiles", "more work per launch"}}},
      {"memory_bound",
       "at the memory roofline: time is bytes over bandwidth",
       {{"fuse_into", "fuse producers that write intermediates",
         "fewer bytes through DRAM"},
        {"vectorize", "16-byte accesses if not yet",
         "the last few percent of bandwidth"},
        {"reduce_in_block", "threads 256 or 512 for row reductions",
         "each row read once, by a whole block"}}},
      {"compute_bound",
       "at the arithmetic roofline of the cores used",
       {{"use_mma", "warps [2, 2] to [4, 2] on 64x64 to 128x128 tiles",
         "tensor cores: dense tf32 about 7x the f32 SIMT rate, f16 and bf16 "
         "about 15x (H200: 495 and 989 against 67 TFLOP/s)"},
        {"pipeline", "stages 2 to 4 on the K loop of staged tiles",
         "the next tiles' copies (cp.async) overlap the tensor cores' work"},
        {"promote_to_shared", "stage both matmul operands, padding 4",
         "operand reuse from shared memory"},
        {"unroll", "factor 2 to 8 on the inner loop",
         "instruction-level parallelism"}}},
  };
  return entries;
}
} // namespace

llvm::ArrayRef<Remedy> mlir::tirx::remediesFor(llvm::StringRef bottleneck) {
  for (const Entry &e : table())
    if (bottleneck == e.bottleneck)
      return e.remedies;
  return {};
}

json::Object mlir::tirx::knowledgeJSON(const json::Object *device) {
  json::Array bottlenecks;
  for (const Entry &e : table()) {
    json::Array remedies;
    for (const Remedy &r : e.remedies)
      remedies.push_back(json::Object{
          {"action", r.action}, {"change", r.change}, {"why", r.why}});
    bottlenecks.push_back(json::Object{{"bottleneck", e.bottleneck},
                                       {"meaning", e.meaning},
                                       {"remedies", std::move(remedies)}});
  }
  json::Object out{{"bottlenecks", std::move(bottlenecks)}};
  if (device)
    out["device"] = json::Object(*device);
  return out;
}
