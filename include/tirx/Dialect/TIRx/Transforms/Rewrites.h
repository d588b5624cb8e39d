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
};

/// Rewrites `op` into a reduction shared by the threads of a block: each
/// thread reduces a strided part of every output (4 elements at a time
/// where the inputs allow). For 32-bit elements (reduceInBlockUsesShuffles)
/// each warp then combines its partials by shuffles (xor 16, 8, 4, 2, 1),
/// lane 0 writes the warp's total to shared memory (outputs x warps), and
/// after one barrier the first warp combines those by shuffles and its
/// lane 0 combines the result into the output (one warp: a thread per
/// output does, after the barrier). Other elements go through shared memory (outputs x threads)
/// and a tree of log2(threads) steps between barriers; a thread per output
/// combines the result into it. Returns the first forall (the partials').
///
/// Assumes (reduce_in_block checks them): `op` is on buffers with static
/// shapes and one output indexed by the parallel loops alone, has a single
/// reduction (getSingleReduction), does not read linalg.index, has at most
/// `threads` outputs, and lies inside a forall mapped to blocks.
FailureOr<scf::ForallOp> reduceInBlock(RewriterBase &rewriter,
                                       linalg::LinalgOp op,
                                       const ReduceInBlockOptions &options);

/// Whether reduceInBlock combines partials of `element` by warp shuffles
/// (32-bit integers and floats) rather than a tree in shared memory.
bool reduceInBlockUsesShuffles(Type element);

//===----------------------------------------------------------------------===//
// split_reduction
//===----------------------------------------------------------------------===//

struct SplitReductionOptions {
  /// The parts the reduction loop is split into.
  int64_t parts = 2;
  /// Each part a contiguous chunk (true), or every parts-th element.
  bool chunked = false;
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

/// The shape of one mma.sync step that useMma emits: 16x8x8, tf32 operands,
/// f32 sums.
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 8;

struct UseMmaOptions {
  /// Warps along M and N.
  int64_t warpsM = 1, warpsN = 1;
};

/// Rewrites a block's matmul into a forall of warps, each computing its
/// part of C with nvgpu.mma.sync (16x8x8 steps, tf32) in registers. Returns
/// the warps' forall.
///
/// Assumes (use_mma checks them): `matmul` is on static f32 memrefs with the
/// default maps, inside a forall mapped to blocks and not to threads; M is a
/// multiple of warpsM * 16, N of warpsN * 8, K of 8.
FailureOr<scf::ForallOp> useMma(RewriterBase &rewriter, linalg::MatmulOp matmul,
                                const UseMmaOptions &options);

} // namespace tirx
} // namespace mlir

#endif // TIRX_DIALECT_TIRX_TRANSFORMS_REWRITES_H
