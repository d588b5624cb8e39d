//===- Auto.h - the automatic schedule --------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// `tirx auto vN`: from any version, actions only (each step a version of
// the workspace, audited like any other apply) until a version whose
// kernels are mapped to the GPU (gpu.launch). The version is inspected
// after each step (its linalg ops, their loops, element types and stage:
// not tiled, in a block, in threads); the rules pick the next action and an
// ordered list of fallbacks; a refusal steers to the next candidate (a
// smaller vector width, other tile sizes, other warp counts).
//
// The rules (pure functions below, unit-tested without MLIR):
// - tensors are bufferized first (`bufferize`);
// - a parallel op (elementwise, fill, broadcast, transpose): block tiles
//   that divide the extents, 16-byte vectors (16 / element size, down to
//   what divides the inner extent), threads a multiple of 32 near 256;
//   an elementwise op on contiguous buffers whose rows take no 16-byte
//   vectors (4097 columns, 1000, a run-time length) is flattened first
//   (`flatten`: one loop over all elements), and a long loop that no tile
//   of 16-byte vectors divides is tiled by 1024 with a tail tile;
// - a reduction with its parallel loops first: a block per output row whose
//   threads share the row (`reduce_in_block`), or `split_reduction` when
//   the rows are very long and few; with its reduction loops first (a
//   column sum): blocks of columns, a thread per column; with many outputs
//   and short reductions (a convolution): a thread per output;
// - an op with no parallel loop (a 0-d result: a scalar op, a full
//   reduction to a scalar) is refused (Step::refusal): tile_to_blocks, the
//   first action of every schedule, needs one;
// - linalg.matmul on an sm_90 workspace whose operands wgmma takes (16-bit
//   A and B into an f32 C, or f32 ones with B held as (n, k), A as (m, k)):
//   128x256 block tiles (128x128 when N is narrower) and `use_wgmma`
//   (4 stages, 2 warpgroups for 256 columns), an optional step whose
//   refusal falls back to the rest;
// - linalg.matmul (f32, f16, bf16): block tiles, K in steps, operands in
//   shared memory, `use_mma`; other types and batch matmuls: the same on
//   SIMT cores (`tile_to_threads` 4x4 per thread);
// - then `map_to_gpu`.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_HARNESS_AUTO_H
#define TIRX_HARNESS_AUTO_H

#include "tirx/Harness/Session.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace tirx {

//===----------------------------------------------------------------------===//
// The rules, as pure functions
//===----------------------------------------------------------------------===//

/// Vector widths to try for elements of `elementBytes` along an inner
/// extent: 16 bytes / element size, halved down to 1, each dividing it.
std::vector<int64_t> vectorWidths(unsigned elementBytes, int64_t innerExtent);

/// The run of tile_to_threads' cyclic distribution (`chunk`) for a thread
/// that computes `perThread` elements along the innermost tiled loop: the
/// widest vector width dividing it (1 when the op does not vectorize), so
/// that consecutive lanes take consecutive runs and a warp's accesses are
/// contiguous; 0 when one run would hold all of them (blocked is the same).
int64_t cyclicChunk(int64_t perThread, unsigned elementBytes,
                    bool vectorizable);

/// A parallel op's tiling: block tile sizes (outer dims 1, the dim before
/// the inner one `outerTile`, the inner one `innerTile`), elements per
/// thread (`width` in the inner dim), threads per block.
struct ParallelTiling {
  std::vector<int64_t> blockTile;
  std::vector<int64_t> perThread;
  int64_t width = 1;
  int64_t threads = 0;
};

/// The tiling of a parallel iteration space `extents` (at most 3 dims are
/// tiled; more are left whole to each thread): tiles dividing the extents,
/// threads a multiple of 32 in [32, 1024] (nearest 256), the widest vector
/// that fits first. None when no tile divides (a prime length: tails).
std::optional<ParallelTiling> chooseParallelTiling(
    const std::vector<int64_t> &extents, unsigned elementBytes,
    bool vectorizable = true);

/// How a reduction is scheduled.
enum class ReductionKind {
  InBlock,  // a block per output (row), reduce_in_block
  Split,    // split_reduction first (very long, few rows)
  Columns,  // reduction loops first: blocks of outputs, a thread each
  PerThread // many outputs, short reductions: a thread per output
};
/// `outputs`: the product of the parallel extents; `reduction`: of the
/// reduction extents; `parallelFirst`: the parallel loops lead.
ReductionKind chooseReduction(int64_t outputs, int64_t reduction,
                              bool parallelFirst);
/// Parts for split_reduction of a reduction of `extent` (dividing it, each
/// part a few thousand long), best first.
std::vector<int64_t> splitParts(int64_t extent);
/// Parts for split_reduction of a column reduction (the reduction loop
/// first: a thread per output, `outputs` of them) over `extent` rows: none
/// when the outputs alone fill the GPU (2^17 threads and more) or no part
/// would keep 32 rows; else powers of two dividing `extent`, best first:
/// a column a thread (`width` 1), outputs x parts nearest 2^19 threads
/// (about two waves of an H200's 132 x 2048 resident threads); vectors of
/// `width` columns a thread, nearest 2^16 threads (fewer, shorter partials
/// for the combining threads).
std::vector<int64_t> columnSplitParts(int64_t outputs, int64_t extent,
                                      int64_t width = 1);
/// Threads of reduce_in_block for rows of `extent`, best first.
std::vector<int64_t> blockReduceThreads(int64_t extent);

//===----------------------------------------------------------------------===//
// What auto sees of a version
//===----------------------------------------------------------------------===//

/// Where an op stands in the schedule.
enum class Stage { Top, Block, Thread };

/// One linalg op of a version.
struct OpFacts {
  std::string name;                  // linalg.generic, linalg.matmul, ...
  int64_t index = 0;                 // among ops of that name, program order
  std::vector<int64_t> extents;      // static loop ranges; -1 dynamic
  std::vector<bool> reduction;       // per loop
  unsigned elementBytes = 4;         // the widest operand element
  std::string elementType;           // of the output
  std::string inputType;             // of the first input
  Stage stage = Stage::Top;
  bool inLoop = false;     // an scf.for between it and its block loop
  bool promoted = false;   // an input in shared memory
  bool contiguous = true;  // every operand's innermost index is the last loop
  bool tensor = false;     // works on tensors
  int64_t stridedInput = -1; // the first input read across its rows (a transpose's)
  int64_t outputs = 1;       // its results (an argmax has two)
  bool indexReduction = false; // a value and its index (matchIndexReduction)
  bool flattenable = false;  // flatten applies: elementwise, contiguous, 2+ loops
  bool tail = false;         // a tail tile (tirx.tail): any thread count
  bool readsOutput = false;  // its body reads an output's old value
  int64_t block = -1;        // its block loop, among block loops in walk order (-1: none)
  int64_t blockThreads = 0;  // the most threads a thread loop in that block
                             // loop already takes (0: none mapped yet)
  std::string starts;        // a fill: the op whose output it starts
                             // ("linalg.reduce#0"), a reduction or a matmul
                             // after it, which reduce_in_block or use_wgmma
                             // takes it over from once tiled into blocks
                             // (startFills); "" for none
  std::string layout;        // a linalg.matmul's A and B as its maps read
                             // them: "mk,kn", "mk,nk" (B K-major: nn.Linear's
                             // x W^T), "km,kn" or "km,nk"; "" for other ops
                             // and broadcast maps (mmaLayout)
};

/// A loop inside a block whose body stages tiles in shared memory
/// (promote_to_shared's copies) that are not pipelined yet.
struct StagedLoop {
  int64_t index = 0;         // among scf.for ops, as targets count them
  unsigned elementBytes = 4; // the narrowest staged element
};

struct PayloadFacts {
  bool tensors = false;   // some op or argument is a tensor
  bool launched = false;  // a gpu.launch exists
  std::string chip;       // the workspace's target (sm_90: use_wgmma's
                          // wgmma and TMA); "" unknown (no wgmma)
  std::vector<OpFacts> ops;
  std::vector<StagedLoop> staged;

  static std::optional<PayloadFacts> fromJSON(const llvm::json::Value &v);
  llvm::json::Object toJSON() const;
};

/// The next step: candidates in order (the first not refused is taken).
/// `optional`: when every candidate is refused, skip the step (a vector
/// width the access does not allow) rather than stop.
struct Step {
  std::string why;
  std::vector<llvm::json::Object> candidates;
  bool optional = false;
  std::string key; // identifies an optional step, to skip it later
  /// Set on a step that no action takes (a 0-d op: no loop to tile into
  /// blocks), its candidates empty: auto stops there with this refusal
  /// rather than try an action that cannot succeed.
  std::optional<Refusal> refusal;
};

/// Whether `use_wgmma` takes `op` on `chip` (sm_90 or sm_90a: the lowering
/// takes sm_90 as sm_90a): a linalg.matmul of static extents reading A as
/// (m, k), f16 or bf16 A (either B) or f32 A with B held as (n, k) (tf32:
/// wgmma reads 32-bit operands K-major only) or as (k, n) where whole
/// [256, 128] tiles cover C (use_wgmma's swapped product; other sizes are
/// copied to (n, k) first by transpose_operand), an f32 C or, with f16 A and
/// B, an f16 C (a bf16 C stays where the sums are bf16, as the reference's
/// are), K a multiple of 8 (16-bit) or 4 (f32): TMA's rows of A are 16-byte
/// multiples. A linalg.batch_matmul likewise, 16-bit, B as (b, k, n) and K
/// a multiple of 64 (a partial tile of K would read the next batch).
bool wgmmaTakes(const std::string &chip, const OpFacts &op);

/// wgmma's block tiles for such a matmul, best first: 128 x 256 (two
/// warpgroups), then 128 x 128; each when M and N hold a whole tile and
/// either divide by it or leave tails use_wgmma computes (N a multiple of
/// 8, or 4 with B held as (n, k)). An f32 matmul with B held as (k, n):
/// [256, 128] where it divides M and N, else none. A batch matmul's: one
/// batch a block ([1, 128, 256], [1, 128, 128]), M and N divided by the
/// tile.
std::vector<std::vector<int64_t>> wgmmaBlockTiles(const OpFacts &op);

/// The next steps for `facts`, most urgent first; empty when the version is
/// mapped and nothing is left. `skipped` holds keys of optional steps every
/// candidate of which was refused.
/// The action that pipelines `loop`'s copies with `stages` buffers.
llvm::json::Object pipelineAction(const StagedLoop &loop, int64_t stages);

/// The optional step that pipelines `loop` with each of `stages`.
Step pipelineStep(const StagedLoop &loop, llvm::ArrayRef<int64_t> stages);

std::vector<Step> nextSteps(const PayloadFacts &facts,
                            const std::vector<std::string> &skipped);

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

struct AutoOptions {
  unsigned maxSteps = 48;
};

/// Applies actions from `version` until a mapped version; its Result names
/// the final version and lists the steps (`steps`: version, action, outcome)
/// in `data`. A version that cannot be mapped is refused with the last
/// refusal, the versions made so far in its details. `progress` gets a
/// line per step.
llvm::Expected<Result>
autoSchedule(Session &session, const std::string &version,
             const AutoOptions &options = {},
             llvm::function_ref<void(llvm::StringRef)> progress = {});

/// The rules' next steps at `version`, nothing applied: what `tirx auto`
/// would try next (`tirx auto vN --suggest`, the Python GreedyPolicy's
/// fallback). `data`: "version", "mapped" and "steps", each with "why",
/// "optional", "key" and its "candidates" (actions, best first); no steps
/// when the version is mapped. `skipped`: keys of optional steps to pass
/// over (every candidate of them refused), as auto passes over them.
llvm::Expected<Result> suggestSteps(Session &session,
                                    const std::string &version,
                                    const std::vector<std::string> &skipped);

/// The chip the rules see for `session`'s workspace (PayloadFacts::chip):
/// its target, sm_90 when none is recorded (as the lowering takes it).
std::string workspaceChip(const Session &session);

/// The facts of a payload (text), computed in a child process.
llvm::Expected<PayloadFacts> inspectPayload(const std::string &payloadText,
                                            const std::string &name,
                                            const ChildLimits &limits);

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_AUTO_H
