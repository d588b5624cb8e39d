//===- TIRxTransformOps.td - legal transforms ---------------*- tablegen -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The transforms an agent may request. Each checks its parameters (the
// verifier) and its preconditions on the payload (before anything changes);
// a refusal is a silenceable error "<code>: <message>" with a note naming
// the payload op and a "hint: ..." note. Each op also carries its action
// schema (`tirx schema` prints them): one definition per transform.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TRANSFORMOPS_TD
#define TIRX_TRANSFORMOPS_TD

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Dialect/Transform/IR/TransformTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A TIRx transform: applies to each payload op of its target handle.
/// `actionSchema` is the JSON Schema of the action's params and its
/// preconditions in words; `actionTarget` the payload op it matches by
/// default when an action names none. By default it consumes its target
/// handle and produces new handles (functional style); `functional = 0`
/// ops declare their own effects.
class TIRx_TransformOp<string mnemonic, string actionTarget,
                       string actionSchema, list<Trait> traits = [],
                       bit functional = 1>
    : Op<Transform_Dialect, "tirx." # mnemonic,
         !listconcat([TransformOpInterface, TransformEachOpTrait,
                      ReportTrackingListenerFailuresOpTrait],
                     !if(functional,
                         [FunctionalStyleTransformOpTrait,
                          MemoryEffectsOpInterface],
                         [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]),
                     traits)> {
  let cppNamespace = "::mlir::tirx";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
    /// The action's name (the mnemonic after "tirx.").
    static ::llvm::StringRef getActionName() { return "}] # mnemonic # [{"; }
    /// The payload op an action matches when it names no target.
    static ::llvm::StringRef getActionTarget() { return "}] # actionTarget # [{"; }
    /// {"params": <JSON Schema>, "preconditions": [...]}
    static ::llvm::StringRef getActionSchema() {
      return R"tirx(}] # actionSchema # [{)tirx";
    }
  }];
}

def TIRx_TileToBlocksOp : TIRx_TransformOp<"tile_to_blocks", "linalg.generic", [{
  {"params": {"type": "object", "required": ["tile_sizes"], "additionalProperties": false,
    "properties": {"tile_sizes": {"type": "array", "minItems": 1, "maxItems": 16,
      "items": {"type": "integer", "minimum": 0},
      "description": "elements per block along each parallel loop, outermost first; 0 leaves a loop untiled; at most 3 nonzero (x, y, z)"}}},
   "preconditions": ["the target is a linalg op not yet mapped to blocks",
                     "tiled loops are parallel and at most 3",
                     "a size that does not divide its extent leaves a tail tile; a loop of run-time extent leaves a guarded tail of run-time size"]}
}]> {
  let summary = "Tile a linalg op into a forall mapped to GPU blocks";
  let description = [{
    Tiles the target's loops by `tile_sizes` into one `scf.forall` mapped to
    `#gpu.block<x/y/z>` (the innermost tiled loop to `x`). Where a size does
    not divide its loop's extent, the forall has ceil(extent / size)
    iterations and its body is `scf.if (i < extent / size)` the full tile's
    op, else a tail op of the remaining static size (marked `tirx.tail`):
    every tile stays static (docs/actions.md, "Tails"). Along a loop of
    run-time extent N the forall has ceil(N / size) iterations, the full
    tiles while `i < N / size`, then one tail of N - i * size elements
    (marked `tirx.tail` and `tirx.tail_bounds`, its largest extent); the
    payload's run-time sizes are named on its arguments (`tirx.dims`) for
    the bundle (docs/bundle.md, "Dynamic sizes"). The `tiled` handle then
    holds the full tile's op; match the ops again to reach the tails.

    ```mlir
    %tiled, %blocks = transform.tirx.tile_to_blocks %generic tile_sizes [1024]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    ```

    #### Return modes

    Consumes the target handle; produces handles to the tiled op and the
    forall. Refuses (silenceable) with `not_applicable` (not a linalg op),
    `bad_order` (already inside a block mapping), `invalid_parameter`,
    or `not_parallel` (a reduction loop).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DenseI64ArrayAttr:$tile_sizes);
  let results = (outs TransformHandleTypeInterface:$tiled,
                      TransformHandleTypeInterface:$forall);
  let assemblyFormat = [{
    $target `tile_sizes` $tile_sizes attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TIRx_FlattenOp : TIRx_TransformOp<"flatten", "linalg.generic", [{
  {"params": {"type": "object", "additionalProperties": false, "properties": {}},
   "preconditions": ["the target is a linalg op on buffers, not yet tiled",
                     "its loops are all parallel and every buffer operand is indexed by them in order (elementwise: no broadcast, no transpose)",
                     "every buffer operand is contiguous (row-major, no gaps): its elements in loop order are consecutive in memory",
                     "it has at least two loops"]}
}]> {
  let summary = "Flatten an elementwise op's loops into one";
  let description = [{
    Reads each buffer operand as one dimension (`memref.collapse_shape`) and
    the op's loops as one loop over all elements (upstream's
    `linalg::collapseOpIterationDims`, as `transform.structured.flatten_elementwise`
    does), so that `tile_to_blocks` cuts the whole buffer, not each row:
    a 4097 x 4097 ReLU becomes 16785409 elements, its full tiles of 1024 at
    multiples of 1024 (16-byte aligned: `vectorize` 4) and one tail tile of
    what is left; a `?x?` op becomes one loop of run-time extent s0 * s1,
    tiled into full tiles (vectorized) and one guarded tail of run-time size
    (scalar). Rows whose length no vector width divides (or of run-time
    length) cannot be proven aligned row by row; flattened, only the last
    tile is partial.

    ```mlir
    %flat = transform.tirx.flatten %generic
        : (!transform.any_op) -> !transform.any_op
    ```

    #### Return modes

    Consumes the target; produces the flattened op. Refuses with
    `not_applicable` (not a linalg op, or one loop already: nothing to
    flatten), `on_tensors`, `bad_order` (already tiled to blocks or
    threads), `not_elementwise` (a reduction loop, or an operand read
    through another map than the loops in order: a broadcast, a transpose;
    named) or `not_contiguous` (an operand that is a strided view, named).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$transformed);
  let assemblyFormat = "$target attr-dict `:` functional-type(operands, results)";
}

def TIRx_TransposeOperandOp : TIRx_TransformOp<"transpose_operand", "linalg.matmul", [{
  {"params": {"type": "object", "required": ["operand"], "additionalProperties": false,
    "properties": {"operand": {"enum": [0, 1],
      "description": "the input stored the other way: 0 (A) or 1 (B)"}}},
   "preconditions": ["the target is a linalg.matmul on buffers in the function's body, not yet tiled (no forall, loop or branch around it)",
                     "the operand is a static 2-D buffer, read through a map that names two loops (no broadcast)",
                     "the operand is an input, not also the output (nor a view of its buffer)"]}
}]> {
  let summary = "Store a matmul input the other way (a transposed copy)";
  let description = [{
    Copies input `operand` of a `linalg.matmul` into a buffer the function
    allocates, with its two dimensions swapped (`linalg.transpose`, a
    kernel of its own once scheduled), and makes the matmul read the copy
    through the swapped map: the same product, the operand's other
    dimension contiguous. Hopper's wgmma reads 32-bit operands (tf32) only
    K-major, so `B` of `A @ B` (K x N, row-major: N contiguous) must be
    copied as N x K before `use_wgmma` takes an f32 matmul; the copy costs
    one read and one write of B (4096 x 4096 f32: 128 MiB, about 33 us at
    the H200's copy rate, against a tf32 matmul's 340 us).

    ```mlir
    %mm2 = transform.tirx.transpose_operand %mm operand = 1
        : (!transform.any_op) -> !transform.any_op
    ```

    #### Return modes

    Consumes the target; produces the matmul that reads the copy. Refuses
    with `not_applicable` (not a linalg.matmul, or
    an operand whose map is not two loops), `on_tensors` (bufferize
    first), `bad_order` (already tiled: inside a forall; or inside a loop
    or a branch of the host, where no scratch buffer can be made),
    `dynamic_shape` (a run-time size) or `input_written` (the operand is
    also the output, or a view of its buffer).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target, I64Attr:$operand);
  let results = (outs TransformHandleTypeInterface:$transformed);
  let assemblyFormat = "$target `operand` `=` $operand attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TIRx_TileToThreadsOp : TIRx_TransformOp<"tile_to_threads", "linalg.generic", [{
  {"params": {"type": "object", "required": ["elements_per_thread"], "additionalProperties": false,
    "properties": {"elements_per_thread": {"type": "array", "minItems": 1, "maxItems": 16,
      "items": {"type": "integer", "minimum": 0},
      "description": "elements each thread computes along each loop of the block's tile, outermost first; 0 leaves a loop whole to each thread; at most 3 nonzero (x, y, z)"},
     "max_threads": {"type": "integer", "minimum": 32, "maximum": 1024, "default": 1024,
      "description": "the most threads a block may have"},
     "chunk": {"type": "integer", "minimum": 0, "default": 0,
      "description": "0: each thread takes one contiguous run of its elements along the innermost tiled loop (blocked); n > 0: runs of n elements, consecutive threads taking consecutive runs, a thread's runs threads x n apart (cyclic: a warp's accesses contiguous; n = the vector width)"}}},
   "preconditions": ["the target is inside a forall mapped to blocks (tile_to_blocks first)",
                     "threads per block = ceil(tile / elements) is a multiple of 32 and at most max_threads (a tail tile: any count up to max_threads)",
                     "with chunk: static extents divided by their elements per thread, and chunk dividing the innermost tiled loop's elements per thread"]}
}]> {
  let summary = "Tile a block's linalg op into a forall mapped to GPU threads";
  let description = [{
    Inside a block forall, tiles the target so that each thread computes
    `elements_per_thread` elements per loop: threads per block =
    ceil(tile extent / elements), mapped to `#gpu.thread<x/y/z>`; where the
    count does not divide the extent the last thread computes a tail op of
    the rest, as tile_to_blocks does for blocks. A count of 0 leaves its
    loop whole to each thread; at most 3 counts are nonzero (a 4-D copy
    such as `permute(0, 2, 1, 3)` can put its innermost loop on the threads
    with `[0, 0, 1, 8]`).

    By default a thread's elements along a loop are one contiguous run
    (blocked): with 8 per thread, lane t of a warp starts at 8 t, so one
    4-wide vector access of the warp spans 1 KiB for 512 bytes. `chunk = n`
    distributes the innermost tiled loop cyclically instead: thread t takes
    the runs of n elements at t n, (T + t) n, (2 T + t) n, ... (T the
    threads along that loop), in an `scf.for` inside the thread forall;
    consecutive lanes touch consecutive runs, so each access of a warp is
    contiguous (with `vectorize` n: 16-byte vectors, 512 contiguous bytes a
    warp). The thread count and the elements per thread are the same as
    without `chunk`; only which elements a thread takes changes.

    A reduction whose outputs a `linalg.fill` in front of its block loop
    starts (nothing else touches the buffer between, the blocks' tiles
    cover it once) takes the fill over, as `reduce_in_block` does: each
    thread fills its own outputs before reducing into them, and the fill
    (a kernel of its own) goes. Not with `chunk`.

    ```mlir
    %tiled, %threads = transform.tirx.tile_to_threads %tile elements_per_thread [4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %row, %lanes = transform.tirx.tile_to_threads %rowtile elements_per_thread [1, 8] {chunk = 4 : i64}
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    ```

    #### Return modes

    Consumes the target; produces the tiled op and the thread forall.
    Refuses with `bad_order` (not inside a block mapping),
    `invalid_parameter` (also a negative `chunk`), `bad_block_size` (threads
    per block not a multiple of 32, or above `max_threads`, 1024 by
    default; a tail tile's threads may fill only part of the block), and
    with a `chunk`: `dynamic_shape` (a tiled loop of run-time extent) or
    `not_divisible` (a tiled extent its elements per thread do not divide,
    or a `chunk` that does not divide the innermost count; the hint lists
    chunks that do).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DenseI64ArrayAttr:$elements_per_thread,
                       DefaultValuedAttr<I64Attr, "1024">:$max_threads,
                       DefaultValuedAttr<I64Attr, "0">:$chunk);
  let results = (outs TransformHandleTypeInterface:$tiled,
                      TransformHandleTypeInterface:$forall);
  let assemblyFormat = [{
    $target `elements_per_thread` $elements_per_thread attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TIRx_VectorizeOp : TIRx_TransformOp<"vectorize", "linalg.generic", [{
  {"params": {"type": "object", "required": ["width"], "additionalProperties": false,
    "properties": {"width": {"enum": [1, 2, 4, 8, 16],
      "description": "elements per vector access"}}},
   "preconditions": ["the target is inside a forall mapped to threads (tile_to_threads first)",
                     "its innermost loop is parallel (reduction loops, if any, stay the thread's loops)",
                     "the innermost loop is the contiguous axis of every operand",
                     "width x element size is at most 16 bytes",
                     "width is at most the per-thread extent of the innermost loop (a tail tile excepted)",
                     "every full-width access is provably aligned to its size (the bundle ABI aligns the payload's buffers to 256 bytes)"]}
}]> {
  let summary = "Vectorize a thread's linalg op, with proven alignment";
  let description = [{
    Turns the per-thread op into `width`-wide vector code: the innermost loop
    is tiled by `width` when longer, vectorized, the transfers lowered to
    `vector.load/store` and, where the base's alignment and the index prove
    it, `alignment` set (16 bytes for 4 x f32, so that the loads become
    `ld.global.v4.b32`). A per-thread extent the width does not divide ends
    in one shorter vector (6 = 4 + 2). A full-width access whose alignment
    cannot be proven (a row length or tile offset that is no multiple of
    the width) is refused: it would lower to scalar accesses.

    A reduction vectorizes along its innermost loop when that loop is
    parallel (a column reduction: a thread's adjacent columns): the
    reduction loops become the thread's `scf.for` loops, one vector of each
    row combined a step, the partial results a vector the loop carries after
    `tirx-promote-accumulators`. A fill of the outputs just in front of it
    (the one `tile_to_threads` took over) stores vectors too.

    ```mlir
    transform.tirx.vectorize %tile width = 4 : !transform.any_op
    ```

    #### Return modes

    Consumes the target handle. Refuses with `bad_order` (not inside a thread
    mapping), `not_applicable` (not a linalg op, or a reduction whose
    innermost loop is the reduction),
    `not_contiguous` (the innermost loop is not the contiguous axis of an
    operand, named), `too_wide` (more than 16 bytes), `misaligned` (a
    full-width access not provably aligned; the hint names a width that is)
    or `not_divisible` (the width is above the per-thread extent of a full
    tile; the hint lists widths that fit).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target, I64Attr:$width);
  let results = (outs);
  let assemblyFormat = "$target `width` `=` $width attr-dict `:` type($target)";
  let hasVerifier = 1;
}

def TIRx_UnrollOp : TIRx_TransformOp<"unroll", "scf.for", [{
  {"params": {"type": "object", "required": ["factor"], "additionalProperties": false,
    "properties": {"factor": {"type": "integer", "minimum": 2, "maximum": 64,
      "description": "how many iterations each unrolled iteration holds"}}},
   "preconditions": ["the target is an scf.for with a static trip count",
                     "factor divides the trip count (no tail is left)"]}
}], [], /*functional=*/0> {
  let summary = "Unroll an scf.for by a factor that divides its trip count";
  let description = [{
    ```mlir
    transform.tirx.unroll %loop factor = 4 : !transform.any_op
    ```

    #### Return modes

    Only reads the handle. Refuses with `not_applicable` (not an scf.for),
    `unknown_trip_count` or `not_divisible` (a tail would be left; the hint
    lists factors that divide the trip count).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target, I64Attr:$factor);
  let results = (outs);
  let assemblyFormat = "$target `factor` `=` $factor attr-dict `:` type($target)";
  let hasVerifier = 1;
}

def TIRx_InterchangeOp : TIRx_TransformOp<"interchange", "linalg.generic", [{
  {"params": {"type": "object", "required": ["permutation"], "additionalProperties": false,
    "properties": {"permutation": {"type": "array", "items": {"type": "integer", "minimum": 0},
      "description": "new loop order: permutation[i] is the old loop placed at position i"}}},
   "preconditions": ["the target is a linalg.generic",
                     "permutation is a permutation of its loops"]}
}]> {
  let summary = "Interchange the loops of a linalg.generic";
  let description = [{
    ```mlir
    %new = transform.tirx.interchange %generic permutation [1, 0]
        : (!transform.any_op) -> !transform.any_op
    ```

    #### Return modes

    Consumes the target; produces the interchanged op. Refuses with
    `not_applicable` or `bad_permutation`.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DenseI64ArrayAttr:$permutation);
  let results = (outs TransformHandleTypeInterface:$transformed);
  let assemblyFormat = [{
    $target `permutation` $permutation attr-dict `:` functional-type(operands, results)
  }];
}

def TIRx_RemoveBarrierOp : TIRx_TransformOp<"remove_barrier", "gpu.barrier", [{
  {"params": {"type": "object", "additionalProperties": false, "properties": {}},
   "preconditions": ["the target is a gpu.barrier",
                     "its kernel uses no shared (workgroup) memory, so no thread reads what another wrote"]}
}]> {
  let summary = "Remove a barrier that is provably not needed";
  let description = [{
    A barrier orders threads' accesses to shared memory; in a kernel that
    has none, it only costs time.

    ```mlir
    transform.tirx.remove_barrier %barrier : !transform.any_op
    ```

    #### Return modes

    Consumes the handle. Refuses with `not_applicable` (not a gpu.barrier)
    or `barrier_needed` (the kernel uses shared memory, named).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

def TIRx_PeelOp : TIRx_TransformOp<"peel", "scf.for", [{
  {"params": {"type": "object", "additionalProperties": false, "properties": {}},
   "preconditions": ["the target is an scf.for whose step does not divide its trip range",
                     "the main loop then runs whole steps; the remainder is a separate loop"]}
}]> {
  let summary = "Peel the last partial iteration of an scf.for";
  let description = [{
    Splits the loop into a main loop over whole steps and a remainder loop
    for the last partial step (`scf::peelForLoopAndSimplifyBounds`), so that
    the main loop needs no bounds checks.

    ```mlir
    %main, %rest = transform.tirx.peel %loop
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    ```

    #### Return modes

    Consumes the target; produces the main and the remainder loop. Refuses
    with `not_applicable` (not an scf.for) or `nothing_to_peel` (the step
    divides the range: there is no partial iteration).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$main,
                      TransformHandleTypeInterface:$remainder);
  let assemblyFormat = "$target attr-dict `:` functional-type(operands, results)";
}

def TIRx_TileReductionOp : TIRx_TransformOp<"tile_reduction", "linalg.generic", [{
  {"params": {"type": "object", "required": ["tile_sizes"], "additionalProperties": false,
    "properties": {"tile_sizes": {"type": "array", "minItems": 1,
      "items": {"type": "integer", "minimum": 0},
      "description": "per loop; non-zero only on reduction loops: each is walked by an scf.for in steps of this size"}}},
   "preconditions": ["the target is a linalg op",
                     "only reduction loops get a non-zero size",
                     "at most one size leaves a tail (does not divide its loop's static extent), on buffers, no larger than the extent"]}
}]> {
  let summary = "Tile the reduction loops of a linalg op into scf.for";
  let description = [{
    Walks the reduction loops in steps of `tile_sizes` with `scf.for`, each
    step reducing one tile (a thread accumulating a chunk at a time). Where
    a size does not divide its loop's extent, the rest is one more op after
    the loop (1000 in steps of 64: 15 steps, then 40), so the reduction
    combines in the same order.

    ```mlir
    %tiled, %loop = transform.tirx.tile_reduction %matmul tile_sizes [0, 0, 16]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    ```

    #### Return modes

    Consumes the target; produces the tiled op and the outermost loop.
    Refuses with `not_applicable`, `invalid_parameter`, `not_reduction` (a
    size on a parallel loop: use tile_to_blocks or tile_to_threads) or
    `not_divisible` (tails in several loops, a size above its extent, or an
    op on tensors).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DenseI64ArrayAttr:$tile_sizes);
  let results = (outs TransformHandleTypeInterface:$tiled,
                      TransformHandleTypeInterface:$loop);
  let assemblyFormat = [{
    $target `tile_sizes` $tile_sizes attr-dict `:` functional-type(operands, results)
  }];
}

def TIRx_PromoteToSharedOp : TIRx_TransformOp<"promote_to_shared", "linalg.generic", [{
  {"params": {"type": "object", "required": ["operands"], "additionalProperties": false,
    "properties": {"operands": {"type": "array", "minItems": 1,
      "items": {"type": "integer", "minimum": 0},
      "description": "operand numbers of the op whose tiles are staged in shared memory"},
     "max_shared_bytes": {"type": "integer", "minimum": 1, "maximum": 232448, "default": 49152,
      "description": "the device's shared memory per block (H200: 48 KiB static, 227 KiB opt-in)"},
     "padding": {"type": "integer", "minimum": 0, "maximum": 64, "default": 0,
      "description": "elements added to each row of a staged tile (its innermost dimension), so that threads reading a column hit different banks: 4 for the A tile of use_mma (16-row fragments read 8 rows at a time), 8 for B"}}},
   "preconditions": ["the target is a linalg op inside a forall mapped to blocks",
                     "each promoted operand is a static tile (a memref.subview)",
                     "the tiles together fit in max_shared_bytes"]}
}]> {
  let summary = "Stage a block's operand tiles in shared memory";
  let description = [{
    Allocates each promoted tile in workgroup memory inside the block's loop,
    copies it in (and results out) with `gpu.barrier`s around the copies,
    and makes the op read the shared copy. With `padding`, each row of the
    buffer is `padding` elements longer than the tile's and the op reads a
    view of it: reads down a column then spread over the 32 banks instead
    of hitting one (e.g. 8 lanes reading rows 0-7 of a 32-float row hit
    the same bank; with 4 floats of padding, 8 different ones).

    ```mlir
    %promoted = transform.tirx.promote_to_shared %tile operands [0, 1]
        : (!transform.any_op) -> !transform.any_op
    ```

    #### Return modes

    Consumes the target; produces the op on the promoted buffers. Refuses
    with `not_applicable`, `bad_order` (not inside a block mapping),
    `invalid_parameter` (an operand number out of range), `not_a_tile` (an
    operand that is not a static subview) or `exceeds_smem` (the tiles need
    more shared memory than `max_shared_bytes`, 48 KiB by default, padding
    included). A padding outside [0, 64] is refused by the verifier.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DenseI64ArrayAttr:$operands,
                       DefaultValuedAttr<I64Attr, "49152">:$max_shared_bytes,
                       DefaultValuedAttr<I64Attr, "0">:$padding);
  let hasVerifier = 1;
  let results = (outs TransformHandleTypeInterface:$promoted);
  let assemblyFormat = [{
    $target `operands` $operands attr-dict `:` functional-type(operands, results)
  }];
}

def TIRx_FuseIntoOp : TIRx_TransformOp<"fuse_into", "linalg.generic", [{
  {"params": {"type": "object", "additionalProperties": false,
    "properties": {"max_shared_bytes": {"type": "integer", "minimum": 1, "maximum": 232448, "default": 49152,
      "description": "in a loop over blocks, the shared memory the fused tile and the block's other buffers may take (H200: 48 KiB static; up to 227 KiB, which the lowering takes as dynamic shared memory; a matmul's tile fused before use_wgmma, whose epilogue then takes the consumer and frees the tile, needs BM x BN x 4 bytes)"}}},
   "preconditions": ["the target is a linalg op on buffers with one output, written through its parallel loops in order: elementwise, or a reduction (its reduction loops left out of the output) started by a linalg.fill of the output right before it",
                     "its output is an intermediate buffer (memref.alloc or memref.alloca) that is only deallocated, filled (a reduction) or read through memref.subviews of one tile, in one block of a later scf.forall or scf.for",
                     "nothing between the target and that loop touches memory, and nothing in the loop writes the target's inputs or the intermediate tile",
                     "the tile is static with unit strides; in a loop over blocks, it and the loop's other shared buffers fit in max_shared_bytes (48 KiB by default)"]}
}]> {
  let summary = "Fuse a producer into its consumer's loop";
  let description = [{
    Moves a producer into the loop that reads its output tile by tile: each
    iteration computes just its tile (the producer tiled through its
    `TilingInterface`) into a private buffer of the tile's size, which the
    consumer then reads. The intermediate buffer is no longer written, and
    is erased once nothing but deallocations use it. This is how multi-op
    payloads (an exp then a scale, softmax's stages) become one kernel
    without a round trip through global memory.

    A reduction producer (a row sum, RMSNorm's sum of squares) fuses when
    a `linalg.fill` of the intermediate starts it just before it: each
    iteration fills its private tile and reduces all of the reduction
    loops into it. In a block loop the tile is shared by the block's
    threads; tile the fused reduction with `tile_to_threads` (a thread per
    output element) or `reduce_in_block` before `map_to_gpu`, which
    refuses a shared read-modify-write left to every thread (`shared_race`).

    An intermediate read through several subviews of the same tile in one
    block (softmax's exponentials, read by the row sum once that is fused
    and by the division; layer norm's row sum, read by the variance and the
    normalization) is computed once, before the first read, and every read
    takes it: in a block loop the row is staged in shared memory, and a
    whole normalization becomes one kernel.

    ```mlir
    %fused = transform.tirx.fuse_into %producer
        : (!transform.any_op) -> !transform.any_op
    ```

    As an action, `fuse_into` fuses the first op of its target kind in
    program order (a producer comes before its consumer).

    #### Return modes

    Consumes the target; produces the fused producer inside the loop.
    Refuses with `not_applicable` (not a linalg op on buffers, or not one
    output), `not_elementwise` (an output written through a map other than
    the parallel loops in order), `not_intermediate` (the output is
    observable, e.g. a function argument: fusing would compute only the
    tiles the consumer reads; or a reduction no fill starts),
    `no_consumer_loop`, `other_use` (the intermediate is used otherwise;
    named), `bad_order` (an op between producer and loop touches memory;
    named), `input_written` (the loop writes an input of the producer or
    the tile; named), `dynamic_tile` or `exceeds_smem` (in a block loop,
    the tile and the loop's other shared buffers above `max_shared_bytes`,
    48 KiB by default). `max_shared_bytes` outside [1, 232448] is refused by
    the verifier.

    A matmul fused into its epilogue's block loop (the tile of its sums in
    shared memory, `max_shared_bytes` raised to hold it) is what
    `use_wgmma` then takes whole: its register epilogue computes the
    consumer, and the shared tile disappears.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<I64Attr, "49152">:$max_shared_bytes);
  let results = (outs TransformHandleTypeInterface:$fused);
  let hasVerifier = 1;
  let assemblyFormat = "$target attr-dict `:` functional-type(operands, results)";
}

def TIRx_UseMmaOp : TIRx_TransformOp<"use_mma", "linalg.matmul", [{
  {"params": {"type": "object", "additionalProperties": false,
    "properties": {"warps": {"type": "array", "minItems": 2, "maxItems": 2,
      "items": {"type": "integer", "minimum": 1, "maximum": 32}, "default": [1, 1],
      "description": "warps per block along M and N (at most 32 in all); map_to_gpu then needs block_dims [32 * warps[0] * warps[1]]"}}},
   "preconditions": ["the target is a linalg.matmul on buffers inside a forall mapped to blocks, not yet split among threads; A held as (m, k) or (k, m), B as (k, n) or (n, k) (nn.Linear's x W^T), C as (m, n): no broadcast maps",
                     "A, B and C are static memrefs: A and B both f32 (multiplied as tf32 by the tensor cores), both f16 or both bf16; C f32 (or f16 for f16 A and B)",
                     "warps[0] * 16 divides M, warps[1] * 8 divides N and the step (8 for f32, 16 for f16 and bf16) divides K"]}
}]> {
  let summary = "Compute a block's matmul tile on the tensor cores (mma.sync)";
  let description = [{
    Splits the block's `C[M, N] += A[M, K] * B[K, N]` among `warps[0] x
    warps[1]` warps (an `scf.forall` mapped to `#gpu.warp<y, x>`). Each warp
    owns an `(M / warps[0]) x (N / warps[1])` tile of C made of 16x8
    fragments: it loads them once into registers, walks K in steps of 8 with
    `nvgpu.mma.sync` (shape 16x8x8, `tf32Enabled`), reusing each A and B
    fragment across the fragments that need it, and stores C once. Each lane
    loads the elements the PTX fragment layout gives it (from `gpu.lane_id`).
    f16 and bf16 operands take 16x8x16 steps; their tiles staged in shared
    memory with 16-byte aligned rows are loaded with `nvgpu.ldmatrix`.

    A and B may be transposed (the matmul's indexing maps): A held as
    `(k, m)`, B as `(n, k)`, as front ends emit `nn.Linear`'s `x W^T`. An
    `(n, k)` B is mma.sync's native "col" B: its fragments come from
    k-contiguous rows, by `ldmatrix` without `.trans` (a `(k, n)` B takes
    `.trans`); a `(k, m)` A takes `.trans` (an `(m, k)` A does not).

    The products are tf32 (10 mantissa bits), the sums f32: results differ
    from an f32 reference by about 1e-3 relative. The bundle records this
    (`math: tf32`), and the runner's check uses a tf32 tolerance.

    ```mlir
    %warps = transform.tirx.use_mma %matmul warps [2, 2]
        : (!transform.any_op) -> !transform.any_op
    ```

    #### Return modes

    Consumes the target; produces the warps' `scf.forall`. Refuses with
    `not_applicable` (not a linalg.matmul on buffers, or maps other than
    the transposes above: a broadcast operand, the refusal names its map),
    `bad_order` (not inside a block mapping, or already split among
    threads), `unsupported_type` (not static memrefs of the types above) or
    `not_divisible` (a warp tile that is not made of whole 16x8x8 steps;
    the hint lists warp counts that fit).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$warps);
  let results = (outs TransformHandleTypeInterface:$forall);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $target (`warps` $warps^)? attr-dict `:` functional-type(operands, results)
  }];
}

def TIRx_UseWgmmaOp : TIRx_TransformOp<"use_wgmma", "linalg.matmul", [{
  {"params": {"type": "object", "additionalProperties": false,
    "properties": {"stages": {"type": "integer", "minimum": 2, "maximum": 8, "default": 4,
      "description": "shared buffers per operand: TMA loads the next stages - 1 tiles of K (128-byte rows: 64 16-bit or 32 f32 elements each) while wgmma computes on one"},
     "warpgroups": {"type": "integer", "minimum": 1, "maximum": 2, "default": 1,
      "description": "consumer warpgroups (128 threads each): 1 computes the whole tile (M 64 or 128), 2 split M = 128 into two halves of 64 rows"}}},
   "preconditions": ["the target is a linalg.matmul on buffers, A read as (m, k) and B as (k, n) or (n, k) (K-major: nn.Linear's x W^T; no broadcast), inside a forall mapped to blocks (tile_to_blocks), not split among threads and with its reduction not tiled: A and B are tiles of whole buffers that take all of K",
                     "or a linalg.batch_matmul on buffers (its own maps: A (b, m, k), B (b, k, n)) tiled one batch a block ([1, BM, BN]), whose block tile divides M and N and whose K is a multiple of TMA's tile (64 16-bit elements): a tile past them would read or write the next batch",
                     "A and B are alike f16 or bf16, or f32 (multiplied as tf32; with B held as (k, n) the block computes C^T = B^T A^T, its warpgroups splitting C's columns, 64 or more each); C is f32, or f16 with f16 A and B (the f32 sums rounded once; a bf16 C is refused: the reference sums in bf16, which drifts too far from f32 sums over a long K); the chip is sm_90a (the lowering takes sm_90 as sm_90a)",
                     "the block tile is M 64 or 128 (64 x warpgroups with 2; f32 with B held as (k, n): a multiple of 8 up to 256, wgmma's N) by N 64, 128, 192 or 256; M and N are multiples of it, or the tails are those tile_to_blocks split off (computed by the full tile's schedule, stores guarded; the target is the full tile's matmul, or all of them; N a multiple of 8, of 4 with a K-major B); the rows of A a multiple of 16 bytes: K a multiple of 8 (16-bit) or 4 (f32) (a last partial tile of K is zero-filled by TMA)",
                     "a thread holds at most 128 f32 sums (M x N / (128 x warpgroups)), and the stages fit in 227 KiB of shared memory",
                     "a C in shared memory is fuse_into's tile of the matmul in its consumer's block loop: started by one linalg.fill and read by one elementwise linalg.generic (identity maps on the tile and its output; other inputs read along the rows or broadcast), which the epilogue computes"]}
}]> {
  let summary = "Compute a block's matmul tile with Hopper's wgmma, fed by TMA";
  let description = [{
    Rewrites the block's `C[M, N] += A[M, K] * B[K, N]` (16-bit A and B, f32
    C, or an f16 C of f16 A and B; or f32 A and B in tf32 with B held as (n, k),
    below) for sm_90a: a
    forall of `128 x warpgroups` threads (`#gpu.thread<x>`)
    in which thread 0 loads tiles of 128 bytes along K with TMA (64 16-bit
    elements; 32 f32, below) (`nvgpu.tma.async.load`: for 16-bit operands
    A in `M x 64` boxes, B in `64 x 64` boxes, 128-byte swizzle, tensor
    maps made on the host by
    `nvgpu.tma.create.descriptor`) into `stages` shared buffers, each
    guarded by an mbarrier; each warpgroup waits for its tile and multiplies
    it with `nvgpu.warpgroup.mma` (`wgmma.mma_async` m64nNk16, f32
    accumulators in registers), keeping one group of wgmma in flight. Once
    the last group completes, the sums go through shared memory and each
    thread adds them to C four at a time. A K that 64 does not divide (a
    multiple of 8: a tensor map's rows are multiples of 16 bytes) ends in a
    partial tile, whose columns of A and rows of B past K TMA fills with
    zeros. Tails in M and N (the `scf.if` branches and `tirx.tail` matmuls
    `tile_to_blocks` makes where the tile does not divide) are computed by
    the full tile's schedule: the branches go, every block loads whole
    boxes (TMA fills A's rows past M and B's columns past N with zeros)
    and stores only the elements of C inside M x N. Apply it to the full
    tile's matmul or to all of them; a tail alone is refused.

    A K-major B: when the matmul reads B as (n, k) (its own indexing maps,
    `(m, n, k) -> (n, k)`: nn.Linear's `x W^T`, as front ends emit it), B is
    staged as A is, `BN` rows of 128 bytes along K in one `BN x 64` box
    (16-bit) or `BN x 32` box (f32) a stage, and wgmma reads both operands
    without a transpose. This is the only layout in which wgmma takes f32
    operands (PTX: `imm-trans-a/b` exist for `.f16` and `.bf16` only): f32 A
    and B are multiplied as tf32 (`wgmma.mma_async.sync.aligned.m64nNk8.f32
    .tf32.tf32`, 4 K steps of 8 a tile), the bundle records math `tf32` and
    the check's tolerance follows it. Upstream's `nvgpu.warpgroup.mma`
    takes neither f32 nor a K-major B, so this path writes NVVM's
    `nvvm.wgmma.mma_async` itself: matrix descriptors built from the stages'
    address (128-byte swizzle, 1024 bytes between groups of 8 rows; a K
    step is 32 bytes into the swizzled rows), accumulators as LLVM structs
    (one per 64 rows), stored to shared memory by wgmma's D fragment layout.

    An f32 matmul whose B is held as (k, n) (`torch.mm`'s, N contiguous):
    wgmma takes no 32-bit operand N-major from shared memory, but takes its
    A from registers in any layout. Each block computes the transpose,
    `C^T = B^T A^T`: B is staged as TMA gives it (boxes of 32 rows of K by
    32 f32 of N, 128-byte swizzle), and each thread loads its fragments of
    B^T from them into registers (wgmma's A fragment of m64nNk8 .tf32,
    the swizzle undone in the address); A's K-major tile is wgmma's B, by
    descriptor, with N = BM (a multiple of 8 up to 256: a [256, 128] tile
    on two warpgroups is one m64n256k8 a step each). wgmma's M is C's
    columns: the warpgroups split BN, 64 columns or a multiple each, and a
    group of 64 takes them permuted (`tirx::wgmmaSwappedColumn`), so that
    a warp's 32 loads of one fragment register meet the 32 banks once
    each (in order, the 128-byte swizzle put two lanes on each bank); the
    sums are stored by the same permutation. The product is inline PTX
    (`wgmma.mma_async.sync.aligned.m64n<BM>k8.f32.tf32.tf32` with A in
    registers; NVVM's op takes A by descriptor only). Each K step's wgmma
    is a group of its own: before a step reloads its fragment registers it
    waits until only the last 3 groups are in flight, so that the group of
    the same step one tile back, which read them, is complete. The sums
    are stored into shared memory transposed. No copy of B is needed
    (`transpose_operand`, the other route, writes one: a kernel of its own).
    At 4096^3 on the H200, [256, 128] tiles on two warpgroups with 4
    stages took 1.10x cuBLAS tf32's time, the copy and the K-major kernel
    1.16x, and [128, 256] tiles (two m64n128k8 a step, 8 fragment loads)
    1.50x (docs/benchmarks.md). The suite's matmul_f32 recipe and
    `tirx auto` take [256, 128] where such tiles cover C whole; at other
    sizes auto takes the copy. A
    batch matmul in f32 is refused (`unsupported_type`).

    Epilogue fusion: when C is the block's tile in shared memory that
    `fuse_into` made (the matmul moved into the block loop of an
    elementwise consumer, such as a bias add and an activation), started
    by a `linalg.fill` and read by one `linalg.generic`, the epilogue
    computes that consumer instead of adding to C: four elements of a row
    at a time, the fill's value added to the sums, the consumer's other
    inputs loaded as vectors along the row (or a scalar broadcast, such as
    a per-row input), its body's ops on vectors of four (`math.erf`,
    `arith.truncf` to a 16-bit output...), the result stored into the
    consumer's output. The tile, the fill and the consumer disappear: one
    kernel, the sums never in global memory
    (`examples/recipes/matmul_bias_gelu_bf16-wgmma.json`).

    An f16 C (torch's f16 matmul): the sums are f32 all the same, in
    registers and in shared memory, and rounded once to f16 where they are
    stored (C's old value, or the fill's, widened and added first), as
    cuBLAS rounds its f32 accumulators. The check compares them with the
    reference (f16 products and sums) at the tolerance of an f16 sum, with
    a floor for the reference's products that underflow. A bf16 C is
    refused: the reference sums in bf16, which drifts from f32 sums by
    about 2^-8 sqrt(K / 2) of the RMS, more than a check that still
    catches a wrong kernel could allow.

    Batch matmuls: a `linalg.batch_matmul` tiled one batch a block
    (`tile_to_blocks` with tile sizes `[1, BM, BN]`) is a matmul on 2-D
    views of its buffers: `memref.collapse_shape` in front of the blocks
    sees A (b, M, K) as (b * M, K), B (b, K, N) as (b * K, N) and C as
    (b * M, N); the block of batch b reads A's rows and writes C's from
    b * M on, and B's K rows from b * K. The tensor maps are made over those
    views (the manifest gives their shape). The tile must divide M and N,
    and TMA's tile K (64 16-bit elements), or its loads and stores would
    reach into the next batch (refused: `not_divisible`). A refusal leaves
    the batch matmul and its tiles as they were.

    C's fill taken over: when C is a global buffer that a `linalg.fill`
    starts (torch's `empty` + `fill` + `matmul`), in front of the blocks'
    forall with only ops that leave C alone between them (other kernels,
    such as `transpose_operand`'s copy of B), and the blocks' tiles cover
    C once each (no tails), the blocks store the fill's value plus the
    sums and never read C, and the fill goes: one kernel and one read of
    C less (for 4096^2 f32, 64 MiB written by the fill and 64 MiB read back).
    Otherwise the sums are added to C as it is (a caller's accumulator).
    The fill taken over is gone: a later step that targets it by index
    finds another fill or none (a recipe that schedules the fill before
    `use_wgmma`, as a kernel of its own, is unchanged: a tiled fill is not
    taken over).

    The runner encodes the tensor maps (`cuTensorMapEncodeTiled`) from the
    bundle's manifest and passes each kernel a pointer to its copy in global
    memory. The CPU emulator (`tirx-emulate-launches`) does not run wgmma or
    TMA and says so.

    ```mlir
    %threads = transform.tirx.use_wgmma %matmul stages 4 warpgroups 1
        : (!transform.any_op) -> !transform.any_op
    ```

    #### Return modes

    Consumes the target; produces the threads' `scf.forall`. Refuses with
    `not_applicable` (not a linalg.matmul or linalg.batch_matmul on
    buffers, or one that reads A as (k, m), broadcasts an operand or, a
    batch matmul, has maps of its own), `bad_order` (not inside a block
    mapping, or already split among threads), `not_a_tile` (A or B not a
    subview, taking all of K, of a buffer the host holds: the reduction was
    tiled, or the operands were promoted; a batch matmul's tile of more
    than one batch, or of another batch in A, B and C), `unsupported_type`
    (not 16-bit or f32 A and B with an f32 C or an f16 C of f16 ones, or
    f32 with B held as (k, n)),
    `bad_block_size` (a block tile wgmma cannot take), `not_divisible` (M
    or N not multiples of the tile without tile_to_blocks' tails around
    it, or with an epilogue; a batch matmul's M, N or K not multiples of
    the tile and of TMA's 64; a tail targeted alone; N with tails not a
    multiple of 8, or 4 with a K-major B; rows of A not a multiple of 16
    bytes: K not a multiple of 8, or 4 for f32), `too_wide` (more sums than
    registers hold: use two warpgroups) or `exceeds_smem` (the hint gives
    the stages that fit). With C in shared memory: `not_intermediate` (not
    a tile the block allocates, or no fill starts it), `no_consumer_loop`
    (nothing reads it after the matmul), `other_use` (anything else uses
    it), `bad_order` (an op that touches memory between the fill, the
    matmul and the consumer), `not_elementwise` (a consumer that is not a
    2-D all-parallel op writing the tile's shape through identity maps, or
    whose body holds an op that is not a pure elementwise op on scalars)
    or `not_contiguous` (an input read along the columns other than as its
    innermost, unit-stride dimension).
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<I64Attr, "4">:$stages,
                       DefaultValuedAttr<I64Attr, "1">:$warpgroups);
  let results = (outs TransformHandleTypeInterface:$forall);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $target (`stages` $stages^)? (`warpgroups` $warpgroups^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def TIRx_PipelineOp : TIRx_TransformOp<"pipeline", "scf.for", [{
  {"params": {"type": "object", "additionalProperties": false,
    "properties": {"stages": {"type": "integer", "minimum": 2, "maximum": 8, "default": 3,
      "description": "shared buffers per staged tile: the loop computes on one while the copies of the next stages - 1 tiles are in flight (cp.async)"},
     "max_shared_bytes": {"type": "integer", "minimum": 1, "maximum": 232448, "default": 49152,
      "description": "the shared memory the block's buffers may take, all stages together (H200: 48 KiB static; up to 227 KiB, which the lowering then takes as dynamic shared memory, fewer blocks per SM)"}}},
   "preconditions": ["the target is an scf.for with static bounds inside a forall mapped to blocks: the reduction loop of tile_reduction, its tiles staged in shared memory by promote_to_shared",
                     "the loop runs at least stages - 1 times",
                     "nothing in the loop but the staged copies writes the staged buffers, and nothing outside it uses them",
                     "stages times the block's shared buffers fit in max_shared_bytes; each stage a multiple of 16 bytes"]}
}], [], /*functional=*/0> {
  let summary = "Overlap a loop's copies into shared memory with its computation";
  let description = [{
    Software-pipelines the copies that stage tiles in shared memory (those
    of `promote_to_shared`: a `linalg.copy` from global memory into a
    workgroup buffer between two `gpu.barrier`s) across the iterations of
    their loop, with `stages` buffers per tile:

    - before the loop, the copies of the first `stages - 1` tiles are
      issued, each tile's as one group;
    - iteration `i` waits until at most `stages - 2` groups are in flight
      (`nvvm.cp.async.wait.group`: tile `i` has arrived), synchronizes the
      block (every thread's part of tile `i` is visible; every warp is done
      with tile `i - 1`), issues the copy of tile `i + stages - 1` into the
      buffer tile `i - 1` used (when there is such a tile) and commits it
      (`nvvm.cp.async.commit.group`), then computes on tile `i`'s buffer.

    The copies are marked asynchronous; the lowering splits each among the
    block's threads as `nvgpu.device_async_copy` (`cp.async`, 16 bytes a
    thread where the alignment is proven, skipping L1), or as plain loads
    and stores where it is not. Apply it after `promote_to_shared` (and
    `use_mma`), before `map_to_gpu`.

    ```mlir
    transform.tirx.pipeline %loop stages = 3 : !transform.any_op
    ```

    #### Return modes

    Only reads the handle. Refuses with `not_applicable` (not an scf.for),
    `bad_order` (not inside a block mapping), `unknown_trip_count` (bounds
    or step not static), `no_staged_copy` (no copy into a shared buffer in
    the loop: apply promote_to_shared), `too_few_trips` (fewer than
    `stages - 1` iterations), `shared_race` (something else in the loop
    writes a staged buffer, or uses it outside the loop), `not_divisible`
    (a stage's buffer is not a multiple of 16 bytes) or `exceeds_smem`
    (the stages do not fit; the hint gives the stages that do). `stages`
    outside [2, 8] or `max_shared_bytes` outside [1, 232448] is refused by
    the verifier.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<I64Attr, "3">:$stages,
                       DefaultValuedAttr<I64Attr, "49152">:$max_shared_bytes);
  let results = (outs);
  let assemblyFormat = "$target (`stages` `=` $stages^)? attr-dict `:` type($target)";
  let hasVerifier = 1;
}

def TIRx_SplitReductionOp : TIRx_TransformOp<"split_reduction", "linalg.generic", [{
  {"params": {"type": "object", "required": ["parts"], "additionalProperties": false,
    "properties": {"parts": {"type": "integer", "minimum": 2, "maximum": 65536,
      "description": "partial results per output element: the reduction loop of extent K becomes a parallel loop of `parts` and a reduction of K / parts"},
     "chunked": {"type": "boolean", "default": false,
      "description": "part r reduces the contiguous chunk [r * K / parts, (r + 1) * K / parts); by default part r takes r, r + parts, r + 2 * parts, ... (neighbouring parts read neighbouring elements: coalesced on GPUs)"},
     "parts_first": {"type": "boolean", "default": false,
      "description": "the partial buffer holds the parts in its first dimension ([parts, output dims]) rather than its last: a column reduction's thread per column then reads and writes its partial next to its neighbours' (coalesced), and the combine reduces the parts as a column reduction"}}},
   "preconditions": ["the target is a linalg op on buffers with one output and one reduction loop of static extent, not yet tiled or mapped",
                     "its body combines into the output with one of add, mul, max, min, and, or, xor (an op with a neutral element)",
                     "parts divides the reduction's extent"]}
}]> {
  let summary = "Split a reduction into parallel partial reductions and a combine";
  let description = [{
    Rewrites `out = combine(out, reduce_k f(...))`, with `k` of extent `K`,
    into three ops on buffers:

    1. a buffer of partial results, one more dimension of `parts`, filled
       with the combiner's neutral element (`linalg.fill`);
    2. the partial reduction: the target's body over its parallel loops and
       a new parallel loop `r` of `parts`, reducing `K / parts` elements
       each (element `k = kk * parts + r`, or `r * K / parts + kk` when
       `chunked`);
    3. the combine: `out = combine(out, reduce_r partial)`.

    The partial buffer is `[output dims, parts]`, or `[parts, output dims]`
    with `parts_first`: for a column reduction (the reduction loop before
    the output's loops, `x.sum(dim=0)`), a thread per column writes its
    partial beside its neighbours' only with the parts first.

    The new parallel loop is what a GPU needs for a reduction with few
    outputs (one row sum per row: M threads, not M * parts). Each of the
    three ops is then tiled and mapped like any other. The partial buffer is
    allocated and freed in the function, around the three ops; a bundle
    gets it as a scratch buffer.

    ```mlir
    %fill, %split, %combine = transform.tirx.split_reduction %sum parts = 32
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    ```

    #### Return modes

    Consumes the target; produces handles to the fill, the partial reduction
    and the combine. Refuses with `not_applicable` (not a linalg op on
    buffers with one output of static shape), `not_reduction` (no
    reduction loop), `several_reductions` (more than one: split one op per
    reduction), `unknown_combiner` (no single add/mul/max/min/and/or/xor
    into the output), `bad_order` (already tiled or inside a kernel: the
    partial buffer belongs to the function) or `not_divisible` (the hint
    lists part counts that divide the extent). `parts` below 2 is refused
    by the verifier.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       I64Attr:$parts,
                       UnitAttr:$chunked,
                       UnitAttr:$parts_first);
  let results = (outs TransformHandleTypeInterface:$fill,
                      TransformHandleTypeInterface:$split,
                      TransformHandleTypeInterface:$combine);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $target `parts` `=` $parts attr-dict `:` functional-type(operands, results)
  }];
}

def TIRx_MapToGpuOp : TIRx_TransformOp<"map_to_gpu", "func.func", [{
  {"params": {"type": "object", "additionalProperties": false,
    "properties": {"block_dims": {"type": "array", "minItems": 1, "maxItems": 3,
      "items": {"type": "integer", "minimum": 1, "maximum": 1024},
      "description": "threads per block along x, y, z (at most 1024 in all), the same for every kernel; each kernel's thread forall must fit (thread_binding's mapped_loops give its iterations; use_mma's warps need 32 threads each). Default: each kernel gets what its thread or warp foralls need"}}},
   "preconditions": ["the target holds foralls mapped to blocks (tile_to_blocks), with foralls mapped to threads (tile_to_threads) or warps (use_mma) inside",
                     "each thread forall's iterations fit in block_dims along its dimension; warps * 32 fit in the block"]}
}]> {
  let summary = "Turn each forall mapped to blocks into a gpu.launch";
  let description = [{
    Every top-level `scf.forall` mapped to `#gpu.block<...>` in the target
    becomes its own `gpu.launch` (a payload of several ops, e.g. after
    `split_reduction`, gets one kernel per op, run in program order), of
    `block_dims` threads or, without them, of the threads its foralls
    mapped to threads or warps need. Upstream's mapping then replaces the block forall's
    indices by block ids and the nested foralls mapped to threads or warps
    by thread ids; a nested forall with fewer iterations than threads is
    guarded by an `scf.if`. A grid keeps to CUDA's limits (2^31 - 1 blocks
    along x, 65535 along y and z): a loop of more blocks than y or z take
    goes to x, and x's loop to its dimension (which block id a loop reads
    changes, not what a block computes).

    ```mlir
    transform.tirx.map_to_gpu %func block_dims [256] : !transform.any_op
    ```

    #### Return modes

    Consumes the target (handles to ops inside it are invalidated). Refuses with `bad_order`
    (no forall mapped to blocks: apply tile_to_blocks first; or, without
    `block_dims`, none mapped to threads or warps inside one) or
    `block_too_small` (a nested forall needs more threads along a
    dimension than `block_dims` give; named, and the hint gives the dims
    it needs) or `too_many_blocks` (two loops of more than 65535 blocks,
    one of more than 2^31 - 1, or one of more than 65535 with x's loop of
    run-time count: the loop, its blocks and the limits named), before
    anything changes. Block dims outside [1, 1024] or above 1024 threads in
    all are refused by the verifier.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$block_dims);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $target (`block_dims` $block_dims^)? attr-dict `:` type($target)
  }];
}

def TIRx_ReduceInBlockOp : TIRx_TransformOp<"reduce_in_block", "linalg.generic", [{
  {"params": {"type": "object", "required": ["threads"], "additionalProperties": false,
    "properties": {"threads": {"type": "integer", "enum": [32, 64, 128, 256, 512, 1024],
      "description": "threads of the block that share each output's reduction"},
     "max_shared_bytes": {"type": "integer", "minimum": 1, "maximum": 232448, "default": 49152,
      "description": "the device's shared memory per block (the partial results take outputs x threads / 32 elements of 32 bits, outputs x threads otherwise; threads elements for a column reduction spread over the threads by outputs)"}}},
   "preconditions": ["the target is a linalg op on buffers with one output (or a value and its index) and one reduction loop of static extent, inside a forall mapped to blocks and not split among threads",
                     "its body combines into the output with one of add, mul, max, min, and, or, xor and uses no linalg.index; or it keeps the first maximum (minimum) and its index: cmpf ogt (olt) of the input and the value, selects of the input and of linalg.index of the reduction loop",
                     "its outputs (per block) are at most threads, and the partial results (outputs x threads / 32 for 32-bit elements and for an f32 value with its index, else outputs x threads; a value and an index each; threads for a column reduction spread by outputs) fit in max_shared_bytes"]}
}]> {
  let summary = "Reduce with all the threads of a block (warp shuffles)";
  let description = [{
    Replaces a block's reduction by a cooperative one: thread `t` of
    `threads` reduces elements `t, t + threads, ...` of each output's
    reduction loop (neighbouring threads read neighbouring elements) into a
    partial result, 4 elements at a time (a vector, then
    `vector.reduction`) where the inputs read along the loop are contiguous
    32-bit buffers, the body is elementwise and 4 x `threads` divides the
    loop. For 32-bit outputs each warp combines its partials by
    `gpu.shuffle xor` 16, 8, 4, 2, 1 (`shfl.sync.bfly`), lane 0 writes the
    warp's total to shared memory, and after one barrier the first warp
    combines those by shuffles and its lane 0 combines the result into the
    output. Other outputs take a tree in shared memory: `log2(threads)`
    steps, each between barriers, then one thread per output. The foralls
    are mapped to threads; `map_to_gpu` needs at least `threads` threads in
    the block.

    A column reduction (`x.sum(dim=0)` over a block of columns: every
    buffer input indexed by the reduction loop and the output's innermost
    loop has that loop as its innermost, unit-stride index, an input along
    the reduction alone being read as a broadcast; one output combined as
    above, not a value and its index) whose block holds 32 or more outputs
    that divide `threads` is spread by outputs instead: thread `t` takes
    output `t mod outputs`, so a warp's lanes read neighbouring elements of
    a row, and its rows `t / outputs`, `t / outputs + groups`, ...
    (`groups` = `threads / outputs`). Where `groups` divides the rows, a
    loop step takes 8 of the thread's rows (else 4 or 2, whichever divides
    their count) so that its loads go out back to back. The partials meet
    in shared memory (`groups x outputs`: neighbouring lanes, neighbouring
    banks); after one barrier a thread per output combines its groups'
    partials in order and then the output. One kernel with no partial
    results in global memory: on the H200, 256 blocks of 32 columns and 512
    threads reduce 8192 x 8192 f32 columns in 73.3 us (max) and 73.7 us
    (sum into the output), against 74.4-74.8 us for `split_reduction`'s 32
    parts and their combine.

    This is what a reduction fused into a block loop by `fuse_into` (RMSNorm's
    sum of squares, softmax's max and sum) needs to use the whole block
    rather than a thread per output.

    A fresh output, as front ends emit it (`linalg.fill` of the start
    value, then the reduction into it), is started by the blocks
    themselves: when a `linalg.fill` of a scalar writes the whole buffer
    that the block loop's tiles of the output cover once each (offsets
    `iv * size` of a normalized forall, or 0 with the whole extent; a
    run-time extent by tiles of one element and a trip count that is the
    `memref.dim` of a dimension `tirx.dims` gives the same size name), lies
    in front of the loop with only fills and ops free of memory effects
    between (`memref.dim` of the buffer reads its size only), and nothing
    else in or before the loop uses that buffer,
    the last step combines the block's result with the fill's value instead
    of reading the output, and the fill is erased: one kernel rather than a
    fill kernel and the reduction's (an argmax's two fills likewise, both or
    neither). Otherwise the output is read and combined into, as written.

    A value and its index (`torch.max(x, dim)`, argmax; argmin with `olt`:
    two outputs, `cmpf ogt` of the input and the value, then selects of the
    input and of `linalg.index` of the reduction loop): each thread runs the
    body over its elements in order, and the pairs combine keeping the
    greater value and, between equal values, the smaller index. An f32 value
    goes by shuffles, as above: the value and the index (as an i32) xor 16,
    8, 4, 2, 1 within each warp, each warp's pair through shared memory, one
    barrier, the first warp's shuffles. Other values take a tree in shared
    memory (a value and an index array, a barrier per step). The block's
    pair replaces the output pair where its value is strictly greater: the
    first maximum, as the sequential loop finds it (NaNs never win, as
    there).

    ```mlir
    %tree = transform.tirx.reduce_in_block %sum threads = 256
        : (!transform.any_op) -> !transform.any_op
    ```

    #### Return modes

    Consumes the target; produces the forall of the first step. Refuses
    with `not_applicable` (not a linalg op on buffers with one output of
    static shape indexed by its parallel loops alone, or a body using
    linalg.index other than an argmax's), `bad_order` (not inside a
    block, or already split among threads), `dynamic_shape` (a loop of
    run-time extent: a row of run-time length), `not_reduction`,
    `several_reductions`, `unknown_combiner` (two outputs that are not a
    value and its index, as above), `too_many_outputs` (more
    outputs than threads) or `exceeds_smem`. A thread count that is not a
    power of two in [32, 1024] is refused by the verifier.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       I64Attr:$threads,
                       DefaultValuedAttr<I64Attr, "49152">:$max_shared_bytes);
  let results = (outs TransformHandleTypeInterface:$forall);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $target `threads` `=` $threads attr-dict `:` functional-type(operands, results)
  }];
}

def TIRx_BufferizeOp : TIRx_TransformOp<"bufferize", "builtin.module", [{
  {"params": {"type": "object", "additionalProperties": false, "properties": {}},
   "preconditions": ["the target is the payload module, and it works on tensors (linalg on tensors, as front ends emit it)",
                     "every op on tensors bufferizes (linalg, tensor, arith, scf, func and bufferization ops do)"]}
}]> {
  let summary = "Turn a tensor payload into one on buffers (one-shot bufferization)";
  let description = [{
    Front ends (torch-mlir, StableHLO to linalg, IREE's input) emit linalg
    on tensors; the GPU schedules work on buffers. `bufferize` is the
    legal step between them: one-shot bufferization of the whole module,
    function boundaries included (identity layouts), with

    - every tensor argument an input the kernel only reads (never written
      in place: the caller's value stays as it was),
    - every returned tensor an out-parameter appended to the signature
      (`buffer-results-to-out-params hoist-static-allocs=true`: a result
      of static shape is written straight into it),
    - copies, where the analysis needs one, as `linalg.copy` (a linalg op
      the schedules tile like any other),
    - aggregate named ops (`linalg.softmax`) decomposed first into the ops
      they stand for (max, exp, sum, divide), each intermediate a buffer
      of its own (the form torch-mlir emits; a row block can then take
      them all: one kernel),
    - a `linalg.broadcast` read by `linalg.generic` ops as an input folded
      into their indexing maps (x + b over rows reads b[j]): no broadcast
      copy and no kernel of its own; one the function returns stays.

    The reference (`tirx-map-reference`) bufferizes a tensor seed the same
    way, so a bufferized candidate is checked against its tensor seed with
    the same parameters.

    ```mlir
    %buffers = transform.tirx.bufferize %module
        : (!transform.any_op) -> !transform.any_op
    ```

    #### Return modes

    Consumes the target (handles to ops inside it are invalidated);
    produces the module. Refuses with `not_applicable` (not a module, or a
    payload with no tensors: it is on buffers already) or
    `not_bufferizable` (an op on tensors that one-shot bufferization
    cannot rewrite, named with its location), leaving the payload as it
    was: the rewrite is tried on a copy first.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$transformed);
  let assemblyFormat = "$target attr-dict `:` functional-type(operands, results)";
}

#endif // TIRX_TRANSFORMOPS_TD
