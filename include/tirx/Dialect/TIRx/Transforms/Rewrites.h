//===- Rewrites.h - the rewrites of the transform.tirx ops ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The rewrites behind transform.tirx.fuse_into, reduce_in_block,
// split_reduction and use_mma, as plain functions a pass or a C++ caller can
// use (as upstream's linalg::splitReduction is to its transform op). Each
// function states what it assumes of its payload; the transform ops check
// those preconditions first and refuse with a reason, so a caller that does
// not must check them itself. A function fails only where an upstream
// rewrite it calls fails; it changes nothing then.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_TRANSFORMS_REWRITES_H
#define TIRX_DIALECT_TIRX_TRANSFORMS_REWRITES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir {
namespace tirx {

//===----------------------------------------------------------------------===//
// Shared queries
//===----------------------------------------------------------------------===//

/// What kind of GPU processor a forall is mapped to.
enum class MappingKind { Block, Thread, Warp };

/// Whether `forall` is mapped (in any of its dimensions) to `kind`.
bool mapsTo(scf::ForallOp forall, MappingKind kind);

/// Why an op's loops cannot become one (transform.tirx.flatten): a
/// reduction loop, an operand not indexed by the loops in order (a
/// broadcast, a transpose), one that is not contiguous, fewer than two
/// loops. `kind` is the refusal's code; `message` and `hint` its words.
struct FlattenObstacle {
  enum Kind { FewLoops, NotElementwise, NotContiguous } kind;
  std::string message, hint;
};

/// The first obstacle to flattening `op` (on buffers; a tensor operand is
/// taken as its identity-layout buffer), none when flatten applies.
std::optional<FlattenObstacle> flattenObstacle(linalg::LinalgOp op);

/// The one reduction loop of a linalg op and the op of its body that
/// combines into the output.
struct SingleReduction {
  unsigned loop;
  Operation *combiner;
};

/// The single reduction of `op`, if it has exactly one reduction loop and
/// its body combines into the output with one op that has a neutral element
/// (add, mul, max, min, and, or, xor).
std::optional<SingleReduction> getSingleReduction(linalg::LinalgOp op);

/// `combiner` (an op of a reduction's body) applied to `acc` and `value`.
Value combine(OpBuilder &b, Location loc, Operation *combiner, Value acc,
              Value value);

/// A reduction of two outputs that keeps the first extremum and its index
/// (torch.max(x, dim)'s values and indices as torch-mlir writes them; an
/// argmin with `olt`): one input and one reduction loop k, the body
///   %c = arith.cmpf ogt|olt, %in, %value : f16|bf16|f32|f64
///   linalg.yield select(%c, %in, %value), select(%c, %k, %index)
/// where %k is `linalg.index k` (or its arith.index_cast to the index
/// output's integer type), both outputs indexed by the parallel loops
/// alone, in the same order.
struct IndexReduction {
  unsigned loop;
  arith::CmpFPredicate predicate; // OGT (a max) or OLT (a min)
};
std::optional<IndexReduction> matchIndexReduction(linalg::LinalgOp op);

//===----------------------------------------------------------------------===//
// fuse_into
//===----------------------------------------------------------------------===//

/// The loop of `tile` that fuseIntoConsumerLoop computes the tile in: its
/// ancestor in `producer`'s block if that is an scf.forall or scf.for, else
/// null.
Operation *consumerLoopOf(Operation *producer, memref::SubViewOp tile);

/// The type of the buffer that replaces `tile`, read in `loop`: the tile's
/// shape, in workgroup memory when `loop` is a forall mapped to blocks.
MemRefType fusedTileType(memref::SubViewOp tile, Operation *loop);

/// Computes `producer`'s part of `tiles` (equal tiles: the same source,
/// offsets, sizes and strides, in one block) inside the consumer's loop
/// (consumerLoopOf), once, before the first of them, into a buffer of its
/// own (fusedTileType: shared between barriers in a block's loop, private
/// elsewhere) that every one of those reads then takes instead of its tile;
/// removes `producer` and `fill` (which starts a reduction's output) and the
/// intermediate when nothing else uses it. Returns the fused op.
///
/// Assumes (fuse_into checks them): `producer` is on buffers with one
/// output, a buffer allocated in the function, written through the parallel
/// loops in order; `tiles` are its only other readers (besides
/// deallocations and `fill`), static, full-rank, unit-stride
/// memref.subviews in a loop after `producer` that writes neither the
/// intermediate nor the producer's inputs; the tiles' users accept
/// fusedTileType (cast-compatible with the tile's, or linalg ops).
FailureOr<linalg::LinalgOp>
fuseIntoConsumerLoop(RewriterBase &rewriter, linalg::LinalgOp producer,
                     ArrayRef<memref::SubViewOp> tiles,
                     linalg::FillOp fill = {});

//===----------------------------------------------------------------------===//
// reduce_in_block
//===----------------------------------------------------------------------===//

struct ReduceInBlockOptions {
  /// The threads of the block that share the reduction: a power of two.
  int64_t threads = 256;
  /// The outputs' start values, one per output, where a fill that
  /// startFills found starts them: the last step combines the block's
  /// result with the start instead of reading the output. Empty: the
  /// outputs are read.
  SmallVector<Value, 2> starts;
};

/// Whether `op`, with the ops it holds, leaves `buffer` alone: none of them
/// names the buffer (but memref.dim, which reads its size) and each has
/// known memory effects (no call, no op of
/// unknown effects but gpu.barrier), so that whatever it reads or writes is another
/// buffer (a function's arguments are distinct buffers, as the runner
/// allocates them; a view of `buffer` is an op that names it).
bool leavesBufferAlone(Operation *op, Value buffer);

/// The fills that start `op`'s outputs and that nothing else needs, one per
/// output, or none: for each output, a linalg.fill of a scalar of the
/// output's element type into a whole buffer B, in front of the forall
/// mapped to blocks that holds `op` (only ops that leave B alone,
/// leavesBufferAlone, between them); `op`'s output is a tile of B
/// taken in that forall, read by `op` alone; B is used nowhere else in the
/// forall nor between the fill and the forall; and the forall's tiles
/// cover B once each (tilesCoverOnce). Each block then owns its tiles: the
/// fill's value can start them there and the fill can go.
SmallVector<linalg::FillOp, 2> startFills(linalg::LinalgOp op);

/// Whether the iterations of `loop` (a normalized forall: lower bounds 0,
/// steps 1) take `tile` (a memref.subview in its body, unit strides, static
/// sizes) of every element of the subview's source exactly once: along each
/// dimension the offset is 0 with the whole (static) extent, or `iv * size`
/// (the iv itself for size 1) of an induction variable of its own whose
/// trip count times size is the extent; every induction variable is used.
/// A run-time extent (a size tirx.dims names) is covered by tiles of one
/// element and a trip count that is `memref.dim` of a dimension of the same
/// name (sizeOfDim).
bool tilesCoverOnce(scf::ForallOp loop, memref::SubViewOp tile);

/// Rewrites `op` into a reduction shared by the threads of a block: each
/// thread reduces a strided part of every output (4 elements at a time
/// where the inputs allow). For 32-bit elements (reduceInBlockUsesShuffles)
/// each warp then combines its partials by shuffles (xor 16, 8, 4, 2, 1),
/// lane 0 writes the warp's total to shared memory (outputs x warps), and
/// after one barrier the first warp combines those by shuffles and its
/// lane 0 combines the result into the output (one warp: a thread per
/// output does, after the barrier). Other elements go through shared memory (outputs x threads)
/// and a tree of log2(threads) steps between barriers; a thread per output
/// combines the result into it. A column reduction that
/// reduceInBlockByOutputs takes goes by outputs instead (see there).
/// Returns the first forall (the partials').
///
/// Assumes (reduce_in_block checks them): `op` is on buffers with static
/// shapes and one output indexed by the parallel loops alone, has a single
/// reduction (getSingleReduction), does not read linalg.index, has at most
/// `threads` outputs, and lies inside a forall mapped to blocks.
FailureOr<scf::ForallOp> reduceInBlock(RewriterBase &rewriter,
                                       linalg::LinalgOp op,
                                       const ReduceInBlockOptions &options);

/// The same for an IndexReduction (value and index): each thread's partial
/// pair over its strided elements in order (the body itself), then warp
/// shuffles where reduceIndexInBlockUsesShuffles, else a tree
/// of log2(threads) steps in shared memory (a value and an index array)
/// that keeps the greater (smaller) value and, between equal values, the
/// smaller index: the first extremum, as the sequential loop finds it; a
/// thread per output replaces the output pair when the block's value is
/// strictly greater (smaller). Assumes what reduceInBlock does, but two
/// outputs (matchIndexReduction) instead of a single reduction.
FailureOr<scf::ForallOp>
reduceIndexInBlock(RewriterBase &rewriter, linalg::LinalgOp op,
                   const IndexReduction &reduction,
                   const ReduceInBlockOptions &options);

/// Whether reduceInBlock combines partials of `element` by warp shuffles
/// (32-bit integers and floats) rather than a tree in shared memory.
bool reduceInBlockUsesShuffles(Type element);

/// Whether reduceInBlock spreads `op`'s outputs over the block's threads
/// (a column reduction: `x.sum(dim=0)` over a tile of columns) rather than
/// every output's reduction loop over all of them. It does when `op` has a
/// single reduction (not a value and its index), at least 32 outputs that
/// divide `threads`, and every buffer input indexed by both the reduction
/// loop and the output's innermost loop has that innermost loop as its
/// innermost index with unit stride (at least one such input; one along
/// the reduction alone, a weight w[k], is a broadcast read): thread t then
/// takes output t mod outputs (a warp's lanes read neighbouring elements)
/// and every (threads / outputs)-th element of its reduction, from element
/// t / outputs, 8 (else 4, 2) of them a loop step where they divide the
/// thread's count; the partials meet in shared memory (threads elements),
/// and after one barrier a thread per output combines its column of them
/// in order, then the output.
bool reduceInBlockByOutputs(linalg::LinalgOp op, int64_t threads);

/// Whether reduceIndexInBlock combines its pairs by warp shuffles (an f32
/// value, an integer or index position shuffled as an i32, a reduction
/// shorter than 2^31), as reduceInBlock does: each warp's pair to shared
/// memory (outputs x warps), one barrier, the first warp combines those and
/// its lane 0 updates the output (one warp: a thread per output does, after
/// the barrier). Otherwise the tree above.
bool reduceIndexInBlockUsesShuffles(Type value, Type index, int64_t extent);

//===----------------------------------------------------------------------===//
// split_reduction
//===----------------------------------------------------------------------===//

struct SplitReductionOptions {
  /// The parts the reduction loop is split into.
  int64_t parts = 2;
  /// Each part a contiguous chunk (true), or every parts-th element.
  bool chunked = false;
  /// The partial buffer's parts dimension first ([parts, out...]), or last.
  bool partsFirst = false;
};

/// The ops splitReduction creates.
struct SplitReductionResult {
  /// Fills the partial results with the combiner's neutral element.
  linalg::FillOp fill;
  /// The reduction with a new parallel loop over the parts.
  linalg::GenericOp split;
  /// Combines the partial results into the original output.
  linalg::GenericOp combine;
};

/// An input that splitReduction cannot view with its reduction dimension
/// split.
struct UnsplittableInput {
  unsigned operandNumber;
  /// True: indexed by an expression of the reduction loop, not the loop
  /// itself; false: its layout is not contiguous there.
  bool notTheLoop;
};

/// The first input of `op` that splitReduction cannot split along its
/// reduction loop `loop`, if any.
std::optional<UnsplittableInput>
findUnsplittableInput(linalg::LinalgOp op, unsigned loop,
                      const SplitReductionOptions &options);

/// Splits the reduction of `op` into `options.parts` partial reductions
/// that run in parallel (into a buffer of partial results the function
/// allocates), then combines them into the output.
///
/// Assumes (split_reduction checks them): `op` is on buffers with one
/// static output, has a single reduction (getSingleReduction) whose static
/// extent `parts` divides, every input splits (findUnsplittableInput), and
/// it is not inside a loop or kernel.
FailureOr<SplitReductionResult>
splitReduction(RewriterBase &rewriter, linalg::LinalgOp op,
               const SplitReductionOptions &options);

//===----------------------------------------------------------------------===//
// use_mma
//===----------------------------------------------------------------------===//

/// The shape of one mma.sync step that useMma emits: 16x8xK with K = 8 for
/// f32 operands (multiplied as tf32) and K = 16 for f16 and bf16 ones.
constexpr int64_t kMmaM = 16, kMmaN = 8;

/// The K of one mma.sync step on operands of `elementType`: 8 (f32, as
/// tf32), 16 (f16, bf16); 0 when mma.sync takes no such operands here.
int64_t mmaStepK(Type elementType);

/// Whether `accumulator` can hold the sums of mma.sync on `operand`
/// elements: f32 for f32, f16 and bf16 operands; f16 too for f16 ones.
bool mmaAccumulatorFits(Type operand, Type accumulator);

/// Whether a warp can load 8x8 matrices of `view` with ldmatrix: 16-bit
/// elements in shared memory (a static memref.alloc, through subviews), rows
/// of unit stride whose start addresses are 16-byte aligned (a static
/// offset and row stride, each a multiple of 8 elements).
bool ldmatrixCanLoad(Value view);

/// How a linalg.matmul holds its operands for mma.sync: A as (m, k) or,
/// transposed, (k, m); B as (k, n) or, transposed, (n, k) (nn.Linear's
/// x W^T: mma.sync's native "col" B); C as (m, n).
struct MmaLayout {
  bool transposeA = false, transposeB = false;
};

/// The layout of `matmul`'s indexing maps (its default maps: neither
/// transposed), or failure with `why` set: a broadcast operand, a
/// permuted C, operands not of rank 2.
FailureOr<MmaLayout> mmaLayout(linalg::MatmulOp matmul, std::string &why);

struct UseMmaOptions {
  /// Warps along M and N.
  int64_t warpsM = 1, warpsN = 1;
};

/// Rewrites a block's matmul into a forall of warps, each computing its
/// part of C with nvgpu.mma.sync (16x8x8 steps on tf32 from f32 operands,
/// 16x8x16 on f16 or bf16 ones) in registers. A 16-bit operand that
/// ldmatrixCanLoad (a tile staged in shared memory) is loaded with
/// nvgpu.ldmatrix (A: x4; B: x4 transposed, two fragments at once; a
/// transposed A transposed, a transposed B, k-contiguous rows, not), any
/// other element by element. The operands may be transposed (mmaLayout).
/// Returns the warps' forall.
///
/// Assumes (use_mma checks them): `matmul` is on static memrefs with the
/// maps mmaLayout takes, A and B of one type that mmaStepK takes, C of one that
/// mmaAccumulatorFits, inside a forall mapped to blocks and not to threads;
/// M is a multiple of warpsM * 16, N of warpsN * 8, K of mmaStepK.
FailureOr<scf::ForallOp> useMma(RewriterBase &rewriter, linalg::MatmulOp matmul,
                                const UseMmaOptions &options);

//===----------------------------------------------------------------------===//
// use_wgmma
//===----------------------------------------------------------------------===//

/// Bytes of one staged row along K: the width of the 128-byte swizzle that
/// TMA writes and wgmma reads.
constexpr int64_t kWgmmaRowBytes = 128;
/// The K of one staged tile of 16-bit elements (a 128-byte row); the
/// columns of B's boxes when B is held as (k, n).
constexpr int64_t kWgmmaTileK = 64;
/// Rows of C that one warpgroup's wgmma computes (m64nNk16, m64nNk8).
constexpr int64_t kWgmmaM = 64;

/// The swapped f32 product (C^T = B^T A^T: use_wgmma on an f32 B held as
/// (k, n)): the column of C, within a group of 64, that a warpgroup's
/// accumulator row 16 w + 8 h + r stands for (warp w of the warpgroup, lane
/// l, r = l / 4; wgmma's A fragment and D rows). In order (16 w + 8 h + r),
/// a warp's loads of one fragment register from B's 128-byte swizzled boxes
/// (row k = l % 4 or + 4, 4-column chunks XORed with k % 8) put two lanes on
/// each bank; permuted as
///   32 (w / 2) + 16 (r / 4) + 8 (w % 2) + 4 h + r % 4
/// an 8-row group takes one 4-column chunk in each half of a box row, and
/// the 32 lanes meet 32 banks. `ops` has div, rem, mul (by a constant) and
/// add (of two, or of a constant): integers or an IR builder's values.
template <typename Ops, typename V>
V wgmmaSwappedColumn(Ops &ops, V w, V r, int64_t h) {
  return ops.add(
      ops.add(ops.mul(ops.div(w, 2), 32), ops.mul(ops.div(r, 4), 16)),
      ops.add(ops.mul(ops.rem(w, 2), 8), ops.add(ops.rem(r, 4), 4 * h)));
}

/// The K of one staged tile of `elementType` (a 128-byte row): 64 for f16
/// and bf16, 32 for f32 (multiplied as tf32).
int64_t wgmmaTileK(Type elementType);
/// The alignment of the staged tiles in shared memory (the period of the
/// 128-byte swizzle).
constexpr int64_t kWgmmaSharedAlign = 1024;

/// An elementwise consumer of a block's matmul tile that useWgmma computes
/// in its epilogue, in place of adding the sums to C: the matmul's C is a
/// tile in shared memory (fuse_into's, in the block loop) that `fill`
/// starts and `consumer` alone reads. The epilogue computes the consumer's
/// body on (the fill's value + the sums) and its other inputs, four
/// elements of a row at a time, and writes the consumer's output; the
/// tile, the fill and the consumer disappear.
struct WgmmaEpilogue {
  linalg::FillOp fill;
  linalg::GenericOp consumer;
};

struct UseWgmmaOptions {
  /// Shared buffers per operand: TMA fills stages - 1 tiles ahead.
  int64_t stages = 4;
  /// Consumer warpgroups (128 threads each); with 2, each computes 64 rows.
  int64_t warpgroups = 1;
  /// The consumer the epilogue computes, if any.
  std::optional<WgmmaEpilogue> epilogue;
  /// Tail tiles: every block computes a whole tile (TMA fills the rows of
  /// A and the columns of B past M and N with zeros) and stores only the
  /// elements of C inside M x N (its stores guarded).
  bool guardTails = false;
  /// C's start, where a fill that startFills found starts C (no epilogue):
  /// the blocks store this value plus the sums and never read C; the
  /// caller erases the fill. Null: C is read and the sums added to it.
  Value start;
};

/// Where a block's matmul tile reads A and B: the whole buffers, as the
/// host holds them (for the TMA descriptors), and the tile's first row of
/// A and first column of B (its first row when B is K-major).
struct WgmmaSources {
  Value a, b;
  OpFoldResult rowA, colB;
  /// B held as (n, k) (nn.Linear's weight, x W^T): K contiguous, as wgmma
  /// reads it without a transpose; else (k, n).
  bool kMajorB = false;
  /// The first row of K in B's buffer when B is held as (k, n): a batch's
  /// K rows of a batch matmul's B collapsed to (batch * K, N). Null: 0.
  OpFoldResult rowK;
};

/// The sources of `matmul`'s A and B tiles: subviews with unit strides of
/// static 2-D buffers with the identity layout, defined outside `blocks`,
/// that take all of K; nullopt otherwise. `kMajorB`: the matmul reads B
/// as (n, k) (mmaLayout's transposeB).
std::optional<WgmmaSources> findWgmmaSources(linalg::MatmulOp matmul,
                                             scf::ForallOp blocks,
                                             bool kMajorB = false);

/// Bytes of shared memory useWgmma allocates per block for a BM x BN tile
/// of C: the staged tiles (or C's padded f32 tile, which reuses them,
/// whichever is larger) and room to align them.
int64_t wgmmaSharedBytes(int64_t bm, int64_t bn, int64_t stages);

/// Rewrites a block's matmul C[BM, BN] += A[BM, K] * B[K, BN] (f16 or bf16,
/// f32 C, or f16 C of f16 A and B) into a forall of 128 * warpgroups threads that stage A and B in
/// shared memory with TMA (tensor maps created before `blocks`, 128-byte
/// swizzle, an mbarrier per stage), multiply them with
/// nvgpu.warpgroup.mma, and add the sums to C through shared memory.
/// With B held as (n, k) (sources.kMajorB) both staged tiles are K-major,
/// as wgmma reads them without a transpose: the products are NVVM's
/// wgmma.mma_async itself (m64nNk8 on tf32 from f32 operands, m64nNk16 on
/// 16-bit ones), its descriptors and accumulators built here (upstream's
/// nvgpu.warpgroup.mma takes neither f32 nor a K-major B). An f32 B held as
/// (k, n) is computed as C^T = B^T A^T, B^T loaded into registers as
/// wgmma's A (inline PTX), A's tile as its K-major B.
/// Returns the threads' forall.
///
/// Assumes (use_wgmma checks them): findWgmmaSources finds the sources,
/// `blocks` is the forall mapped to blocks around `matmul`, A and B are
/// alike f16 or bf16 (or f32: with a B held as (k, n), not a batch
/// matmul's, and BN / warpgroups a multiple of 64) and C f32 (or f16 with f16
/// A and B: the sums are f32 all the same, rounded once to f16), the rows of A
/// (and of a K-major B) are a multiple of 16 bytes (as tensor maps need; a
/// last partial tile of K is zero-filled by TMA), BM is
/// 64 * warpgroups (or 128 with one), BN a multiple of 64 up to 256. With
/// an epilogue: the fill, the matmul and the consumer are in one block in
/// that order, with only gpu.barrier and memory-effect-free ops between
/// them; the tile is a memref.alloc used by nothing else (deallocations
/// aside); the consumer is all parallel over the tile (identity maps for
/// the tile and its one output), its body elementwise-mappable scalar ops,
/// its other inputs read through projected permutations whose last result
/// is the column loop (unit innermost stride) or that do not use it.
FailureOr<scf::ForallOp> useWgmma(RewriterBase &rewriter,
                                  linalg::MatmulOp matmul,
                                  scf::ForallOp blocks,
                                  const WgmmaSources &sources,
                                  const UseWgmmaOptions &options);

//===----------------------------------------------------------------------===//
// pipeline
//===----------------------------------------------------------------------===//

/// The unit attribute pipeline sets on the block copies it makes
/// asynchronous; tirx-distribute-copies splits them into cp.async.
constexpr llvm::StringLiteral kAsyncCopyAttrName = "tirx.async_copy";

/// A copy of a loop that stages a tile in shared memory: `copy` (at the
/// loop's top level, fenced by barriers) writes `view`, a view defined
/// before the loop of `buffer`, a static workgroup allocation; its source
/// is computed in the loop from the induction variable by `slice` (pure
/// top-level ops, in order).
struct StagedCopy {
  linalg::CopyOp copy;
  Value view;
  memref::AllocOp buffer;
  SmallVector<Operation *> slice;
};

/// The copies of `loop` that stage tiles in shared memory, in order; each
/// buffer staged by one copy only.
SmallVector<StagedCopy> findStagedCopies(scf::ForOp loop);

/// The first op in `loop`, other than the staged copies, that may write
/// one of their buffers, or that reads one other than through its view;
/// null when there is none.
Operation *findStagedBufferConflict(scf::ForOp loop,
                                    ArrayRef<StagedCopy> copies);

struct PipelineOptions {
  /// Buffers of each staged tile: the loop computes on one while the copies
  /// of the next stages - 1 tiles are in flight.
  int64_t stages = 3;
};

/// Software-pipelines the staged copies of `loop` (static bounds, at least
/// stages - 1 iterations): each buffer becomes `stages` buffers; the copies
/// of the first stages - 1 tiles are issued before the loop; iteration i
/// waits for tile i (nvvm.cp.async.wait.group, stages - 2 groups still in
/// flight), synchronizes the block, issues the copy of tile
/// i + stages - 1 (when there is one) into the buffer iteration i - 1 used,
/// commits it as a group (nvvm.cp.async.commit.group), then computes on
/// tile i's buffer. The last stages - 1 iterations, which have no tile to
/// issue (they commit empty groups), become a second loop. The copies are
/// marked kAsyncCopyAttrName.
void pipelineStagedCopies(RewriterBase &rewriter, scf::ForOp loop,
                          ArrayRef<StagedCopy> copies,
                          const PipelineOptions &options);

} // namespace tirx
} // namespace mlir

#endif // TIRX_DIALECT_TIRX_TRANSFORMS_REWRITES_H
