//===- Passes.td - TIRx passes -----------------------------*- tablegen -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_TRANSFORMS_PASSES_TD
#define TIRX_DIALECT_TIRX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TIRxLowerToNVVM : Pass<"tirx-lower-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower a GPU-mapped payload to NVVM and a PTX/cubin binary";
  let description = [{
    Lowers a module whose kernels are `gpu.launch` regions (as the transform
    scripts in `examples/` produce them) or already outlined `gpu.func`s down
    to a `gpu.binary` holding PTX (`cubin-format=isa`), a cubin
    (`cubin-format=bin`) or a fat binary (`cubin-format=fatbin`), with the
    host code in the LLVM dialect.

    Before the upstream `gpu-lower-to-nvvm-pipeline` it runs what that
    pipeline leaves to the user:

    1. leftover `linalg` ops (e.g. a 1-element generic per thread) become
       loops (`convert-linalg-to-loops`);
    2. `vector.transfer_read/write` become `vector.load/store`
       (`tirx-lower-vector-transfers`);
    3. subviews fold into the accesses and `tirx-prove-vector-alignment` sets
       `alignment` on vector accesses where it is proven;
    4. kernels are outlined and unused symbols removed, so that no host copy
       of a workgroup buffer is left to fail conversion.

    The pass fails whenever any pass of the pipeline emits an error
    diagnostic, even one that upstream reports without failing.

    The options carry the names of `gpu-lower-to-nvvm-pipeline`'s options
    for the same things; the defaults differ where upstream's do not work
    with CUDA 13 (chip sm_50) or with the runner (bare pointers).

    The CUDA toolkit (ptxas for `cubin-format=bin|fatbin`, libdevice for
    math functions) is `toolkit` when given, else it is looked up when the
    pass runs: `$CUDA_HOME`, `$CUDA_PATH`, `$CUDA_ROOT`, the toolkit of the
    `ptxas` on `PATH`, then `/usr/local/cuda`. A toolkit without
    `bin/ptxas` is an error naming where it came from.

    ```
    tirx-opt --tirx-lower-to-nvvm="cubin-chip=sm_90 cubin-format=isa" payload.mlir
    mlir-opt-22 --load-pass-plugin=libTIRxPlugin.so \
                --tirx-lower-to-nvvm="cubin-chip=sm_90" payload.mlir
    ```
  }];
  let options = [
    Option<"chip", "cubin-chip", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU: sm_75 ... sm_121f, the chips both LLVM 22 and "
           "CUDA 13's ptxas know (default: sm_90)">,
    Option<"features", "cubin-features", "std::string", /*default=*/"\"\"",
           "Target features, e.g. +ptx80 (default: the lowest PTX version "
           "that supports the chip)">,
    Option<"format", "cubin-format", "std::string", /*default=*/"\"bin\"",
           "Binary format: isa (PTX text), bin (cubin) or fatbin "
           "(default: bin)">,
    Option<"optLevel", "opt-level", "int", /*default=*/"3",
           "LLVM optimization level for the device code, 0-3 (default: 3)">,
    Option<"barePtr", "kernel-bare-ptr-calling-convention", "bool",
           /*default=*/"true",
           "Pass each static memref kernel argument as one pointer "
           "(default: true)">,
    Option<"ptxasOptions", "ptxas-cmd-options", "std::string",
           /*default=*/"\"\"",
           "Extra command-line options for ptxas (default: none)">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit directory, holding bin/ptxas (default: looked up "
           "at run time: $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT, ptxas on PATH, "
           "/usr/local/cuda)">
  ];
}

def TIRxLowerVectorTransfers
    : Pass<"tirx-lower-vector-transfers"> {
  let summary = "Lower vector transfers to vector.load/store";
  let description = [{
    Rewrites `vector.transfer_read/write` into `vector.load/store` (and,
    where a transfer is not a minor identity or not in bounds, into the
    masked or scalar forms of `vector-to-scf`), which the NVVM lowering
    requires: it does not lower 1-D transfers itself. A `vector.step` (a
    vectorized `linalg.index`) becomes its constant: upstream lowers it in
    `convert-vector-to-llvm` alone, which the NVVM lowering does not run.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def TIRxFoldViews : Pass<"tirx-fold-views"> {
  let summary = "Fold views into their accesses, collapsed views excepted";
  let description = [{
    Upstream's `fold-memref-alias-ops` (loads and stores of subviews and
    expanded views rewritten on the underlying buffer), except that an
    access of a `memref.collapse_shape` stays on the collapsed view:
    `flatten` reads a 2-D buffer as 1-D, and its 16-byte vectors at
    multiples of 4 elements are aligned there, while on the buffer they
    would be indexed by `i floordiv n, i mod n` (no alignment provable, a
    vector spanning two rows, and, for a run-time n, an index the bounds
    check cannot bound: i < s0 * s1 does not give i floordiv s1 < s0 to
    linear arithmetic). The collapsed view lowers to the buffer's pointer
    with the flat index.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::vector::VectorDialect"];
}

def TIRxWorkgroupAllocs : Pass<"tirx-workgroup-allocs"> {
  let summary = "Turn shared-memory allocations in a launch into attributions";
  let description = [{
    A `memref.alloc` in workgroup memory inside a `gpu.launch` (what
    promotion to shared memory creates) would lower to a per-thread heap
    allocation; as a workgroup attribution of the launch it becomes one
    shared buffer per block. Allocations of static shape move; others stay
    and fail later with their own diagnostic. A launch whose buffers take
    more than 48 KiB (the limit of static shared memory) gets them as views
    of its dynamic shared memory instead (`gpu.dynamic_shared_memory`,
    `memref.view` at offsets aligned to 128 bytes), its
    `dynamic_shared_memory_size` set to their total: the bundle records it
    and the runner opts the kernel in (up to 227 KiB on Hopper).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TIRxAlignWorkgroupBuffers : Pass<"tirx-align-workgroup-buffers"> {
  let summary = "Align every shared-memory buffer of a kernel to 16 bytes";
  let description = [{
    Upstream lowers a `gpu.func`'s workgroup attribution to a shared global
    aligned to its element (4 bytes for f32) unless the attribution carries
    `llvm.align`; 16-byte vector accesses to a buffer placed after a scalar
    one then fault with CUDA_ERROR_MISALIGNED_ADDRESS (a softmax row staged
    in shared memory and read 4-wide did, on the H200). This pass gives
    every workgroup attribution `llvm.align` of at least 16 (a larger one
    already there stays).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def TIRxDistributeCopies : Pass<"tirx-distribute-copies"> {
  let summary = "Split a block's copies between barriers among its threads";
  let description = [{
    A `linalg.copy` directly in a `gpu.launch` (or in uniform `scf.for`s
    inside it) runs in every thread: each copies the whole tile. Where the
    copy sits between two `gpu.barrier`s (what `promote_to_shared` emits),
    its operands are the same in every thread, its shape is static and the
    block size is static, the copy becomes a loop in which thread `t` of
    `T` copies elements `t, t + T, ...` (consecutive threads, consecutive
    elements), as vectors of up to 16 bytes where both sides have a unit
    innermost stride and the vector width divides the innermost size; the
    barrier after it makes the whole tile visible. Copies
    that do not meet these conditions are left as they are.

    A copy marked `tirx.async_copy` (by `transform.tirx.pipeline`, whose
    `nvvm.cp.async` groups and waits order it) needs no barriers around it
    and may sit under an `scf.if` every thread takes alike; each thread's
    share becomes `nvgpu.device_async_copy` (`cp.async`) when it moves 4,
    8 or 16 bytes (16: `bypassL1`, `cp.async.cg`), plain loads and stores
    otherwise.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::vector::VectorDialect"];
}

def TIRxPromoteAccumulators : Pass<"tirx-promote-accumulators"> {
  let summary = "Keep a loop's accumulator in a register, not in memory";
  let description = [{
    A reduction lowered to loops loads its output element, adds to it and
    stores it back in every iteration: `memref.load %m[i]` ... `memref.store
    %v, %m[i]` with `%m` and `i` the same throughout the loop. Through
    memory each iteration waits for the last one's store (the pointers
    may alias, so LLVM cannot keep the value in a register). This pass
    loads the element once before the loop, carries it as an `iter_args`
    value and stores it once after.

    It promotes a pair only where nothing else in the loop may touch the
    buffer: the load and the store are the only accesses to its root buffer
    (through views) in the loop, both at the loop's top level with the load
    first, on loop-invariant indices; no op in the loop has unknown memory
    effects; the buffer is not shared memory. Distinct root buffers are
    assumed not to alias (a bundle's buffers never do), and, in a kernel,
    no thread reads another's element of a global buffer during the loop
    (TIRx's schedules pass values between threads only through shared
    memory).
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TIRxTensorMapParams : Pass<"tirx-tensor-map-params", "ModuleOp"> {
  let summary = "Pass TMA tensor maps to kernels as pointers";
  let description = [{
    After `gpu-kernel-outlining`, a kernel that loads with TMA (use_wgmma)
    takes its tensor maps as `!nvgpu.tensormap.descriptor` parameters,
    which `convert-gpu-to-nvvm` cannot convert (upstream's pipeline lowers
    the nvgpu ops before it outlines; TIRx outlines first). This pass makes
    each such parameter an `!llvm.ptr` (the address of the 128-byte tensor
    map in global memory, which the runner fills with
    `cuTensorMapEncodeTiled`), casts it back to the descriptor type at the
    kernel's entry, and casts the host's descriptor at each
    `gpu.launch_func`; the casts fold away once the nvgpu ops are lowered.

    ```mlir
    gpu.func @k(%map: !nvgpu.tensormap.descriptor<...>) kernel
    // becomes
    gpu.func @k(%ptr: !llvm.ptr) kernel {
      %map = builtin.unrealized_conversion_cast %ptr
          : !llvm.ptr to !nvgpu.tensormap.descriptor<...>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
}

def TIRxLowerBf16Mma : Pass<"tirx-lower-bf16-mma"> {
  let summary = "Lower bf16 nvgpu.mma.sync to nvvm.mma.sync";
  let description = [{
    LLVM 22's `convert-nvgpu-to-nvvm` lowers `nvgpu.mma.sync` on f16, tf32,
    f64 and integer operands but fails on bf16 ("failed to deduce operand
    PTX types"), although PTX has `mma.sync.aligned.m16n8k16.row.col
    .f32.bf16.bf16.f32` and `nvvm.mma.sync` takes it. This pass rewrites
    each bf16 `nvgpu.mma.sync` (16x8x16, f32 accumulator) into
    `nvvm.mma.sync`: every 32-bit register of A and B (two bf16) becomes an
    i32, C's four f32 are passed as they are, and the result struct is
    repacked into the `vector<2x2xf32>` the op returned.

    ```mlir
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]}
        : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // becomes 4 + 2 i32 and 4 f32 operands of
    //   nvvm.mma.sync ... {multiplicandAPtxType = #nvvm.mma_type<bf16>, ...}
    ```
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def TIRxSinkConstants : Pass<"tirx-sink-constants"> {
  let summary = "Sink constants used in a gpu.launch into it";
  let description = [{
    Canonicalization hoists constants out of a `gpu.launch` (it is not
    isolated from above), and `gpu-kernel-outlining` sinks back only some
    kinds: a vector constant such as `dense<2.0> : vector<4xf32>` (what
    vectorizing `x * 2.0` makes) became a kernel argument computed on the
    host, which a bundle cannot reproduce. This pass clones every
    constant-like op used in a launch into it, so outlined kernels take only
    the payload's parameters.

    It clones the same way the views a launch reads through
    (`memref.collapse_shape`, `expand_shape`, `cast`, `subview` and
    `reinterpret_cast` of a parameter or of a buffer the function allocates,
    with constant or argument operands: a front end's reshape, the subviews
    of `tensor.pad` and `tensor.concat`), so that the kernel gets the whole
    buffer, and the constant globals it reads (`memref.get_global`: what
    bufferization makes of a dense tensor constant), which outlining then
    copies into the kernel's module; a load of a global whose elements are
    one value (`dense<0.5>`) becomes that value.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TIRxProveVectorAlignment
    : Pass<"tirx-prove-vector-alignment"> {
  let summary = "Set alignment on vector.load/store where it is proven";
  let description = [{
    For every `vector.load` and `vector.store` on a memref, proves a byte
    alignment from two facts and sets the `alignment` attribute to it when it
    exceeds the element's natural alignment (capped at the vector's size):

    - the base: a function argument with `llvm.align = N`, the result of
      `memref.assume_alignment`, or a `memref.alloc`/`memref.global` with an
      `alignment`, seen through `memref.cast` and offset-free views;
    - the index: the largest power of two dividing the linearized element
      offset, computed through `arith` and `affine.apply` (a thread id
      times 4 plus a block id times 1024 divides by 4).

    With 16 bytes proven, a `vector<4xf32>` load becomes `ld.global.v4.b32`;
    without it, four scalar loads. Nothing is set that is not proven.

    `cp.async` has no such fallback (a misaligned address faults): an
    `nvgpu.device_async_copy` whose source and destination are not both
    proven aligned to the bytes it moves becomes a `vector.load` and a
    `vector.store` done at once (annotated like the others), and leaves the
    groups that named its token; the waits that ordered it still hold.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def TIRxAssumeArgumentAlignment
    : Pass<"tirx-assume-argument-alignment", "::mlir::ModuleOp"> {
  let summary = "State the bundle ABI's buffer alignment on the payload's arguments";
  let description = [{
    The runner allocates every buffer a bundle's payload function takes
    (`cuMemAlloc`, 256-byte aligned: `kBundleBufferAlignment`). This pass
    writes that promise down as `llvm.align = 256` on each memref argument of
    a public top-level `func.func` that states no alignment of its own, so
    that alignment proofs (`tirx-prove-vector-alignment`, `vectorize`) need
    no annotation in the payload. It runs first in the analysis form and so
    in `tirx-lower-to-nvvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TIRxMapReference : Pass<"tirx-map-reference", "::mlir::ModuleOp"> {
  let summary = "Map an unscheduled payload to the GPU the plainest way";
  let description = [{
    Builds the correctness reference of a payload: the seed version, mapped
    without any schedule an agent chose. Every linalg op becomes an
    `scf.parallel` nest; the innermost dimension of each outermost nest is
    tiled by `block-size` (threads per block, with bounds checks), the tiles
    go to blocks and the elements of a tile to threads (upstream's
    `gpu-map-parallel-loops`), and the nest becomes a `gpu.launch`.

    ```
    tirx-opt seed.mlir --tirx-map-reference --tirx-export-bundle=dir=ref
    tirx-run candidate --reference ref
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block along the innermost dimension (1 to 1024)">
  ];
}

def TIRxInferDomains : Pass<"tirx-infer-domains", "::mlir::ModuleOp"> {
  let summary = "Mark the float inputs that only a nonnegative draw keeps defined";
  let description = [{
    The runner draws a float input buffer's elements uniform in [-1, 1)
    unless the payload function's argument says
    `{tirx.domain = "nonnegative"}`: then in [0, 1) (docs/bundle.md, "Input
    domains"). A kernel split from a larger program (`tirx profile`) can
    take as input what was a sum of squares there and pass it to a square
    root: on signed inputs its reference is NaN and nothing can be checked.

    This pass sets `tirx.domain = "nonnegative"` on every argument of every
    `func.func` (a tensor or memref of floats) whose elements reach the
    operand of `math.sqrt`, `math.rsqrt`, `math.log`, `math.log2`,
    `math.log10` or the base of `math.powf` (unless the exponent is a
    constant integer) through sign-preserving ops only: `arith.mulf` and
    `arith.divf` by a value proven nonnegative (a constant, splat or not, a
    square `x * x`, `math.exp`, `math.absf`, a `linalg` result that yields
    such values), `arith.addf` of two nonnegative terms (an epsilon, a
    reduction's accumulator and its term), `arith.extf`/`arith.truncf`, a
    linalg op's block argument from its input (named ops and
    `linalg.generic` alike), a linalg result from what it yields, tensor and
    memref views, `memref.load` and `tensor.extract`. A value that reaches
    the op through `arith.subf`, a negative factor or a factor not proven
    nonnegative marks nothing; `x` reaching the op only as `x * x` or
    through `math.exp` needs no mark. A memref argument is
    marked only when nothing writes it. An argument that already has a
    `tirx.domain` keeps it (`"signed_unit"` turns the inference off for it);
    a malformed one (not `"signed_unit"` or `"nonnegative"`, not a string,
    on a scalar or a buffer of integers) is an error naming the argument.

    `tirx init` runs it on the seed and `tirx profile` on every kernel it
    splits off, so that every version and the reference carry the
    attribute; `tirx-export-bundle` copies it into the manifest.

    ```mlir
    // Before: the RMSNorm's normalize step, split off the sum of squares.
    func.func @norm(%x: tensor<8x64xf32>, %ss: tensor<8xf32>) -> tensor<8x64xf32>
    // tirx-opt --tirx-infer-domains:
    func.func @norm(%x: tensor<8x64xf32>,
                    %ss: tensor<8xf32> {tirx.domain = "nonnegative"}) -> ...
    ```
  }];
}

def TIRxView : Pass<"tirx-view", "::mlir::ModuleOp"> {
  let summary = "Print a view of the payload as JSON";
  let description = [{
    Answers one question about the payload (schemas in `docs/views.md`):
    `loop_structure`, `thread_binding`, `memory_footprint`,
    `access_pattern`, `call_graph`, `roofline`, `summary`, or `all`. Every
    entry carries its IR path (`func @saxpy / gpu.launch#0 / vector.load`) and
    its location. Works before and after GPU mapping; what cannot be derived
    (a dynamic shape, an unknown op) is `"unknown"`, never an error.

    The access pattern is read from a copy with vector transfers lowered,
    views folded and alignment proven, so that widths and alignments are
    those the code generator will see. The payload is not changed.

    ```
    tirx-opt v2.mlir --tirx-view="what=access_pattern" -o /dev/null
    tirx-opt v2.mlir --tirx-view="what=roofline device=~/.cache/tirx/device-<uuid>.json"
    ```
  }];
  let options = [
    Option<"what", "what", "std::string", /*default=*/"\"summary\"",
           "The view: loop_structure, thread_binding, memory_footprint, "
           "access_pattern, call_graph, roofline, summary or all">,
    Option<"device", "device", "std::string", /*default=*/"\"\"",
           "A device profile written by tirx-run (measured figures); "
           "default: the chip's datasheet figures">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Chip whose datasheet figures apply without a profile">,
    Option<"bundle", "bundle", "std::string", /*default=*/"\"\"",
           "A bundle of this payload: adds ptxas's registers, shared memory "
           "and spills to memory_footprint">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the JSON (- for stdout)">
  ];
}

def TIRxCheckBounds : Pass<"tirx-check-bounds", "::mlir::ModuleOp"> {
  let summary = "Prove every memref access inside kernels in bounds";
  let description = [{
    For every load and store (memref and vector) inside a `gpu.launch` or a
    kernel `gpu.func`, computes the range of each index with MLIR's integer
    range analysis (thread and block ids bounded by the launch's static
    sizes, refined by enclosing `scf.if` guards of the form `index < bound`)
    and checks it against the buffer's static shape; a vector access covers
    `width` elements of the last dimension. Each access that cannot be
    proven is an error naming the access and the index range:

    ```
    unsafe_bounds: load of x at index [0, 67108864] exceeds dimension 0 of size 67108864
    ```

    Views are folded into their base buffers first (on a copy), so that
    indices are checked against the real allocation. The payload is not
    changed.
  }];
}

def TIRxExportBundle : Pass<"tirx-export-bundle", "::mlir::ModuleOp"> {
  let summary = "Write a kernel bundle (manifest, PTX, cubin) for tirx-run";
  let description = [{
    Takes a GPU-mapped payload (what `tirx-lower-to-nvvm` takes), lowers a
    copy of it and writes a bundle into `dir`:

    - `manifest.json` (schema in `docs/bundle.md`): the payload function's
      parameters in order (buffers with element type, shape, bytes and role
      `in`/`out`/`inout` from the kernels' memory effects; scalars with the
      value of their `tirx.value` argument attribute), and per
      `gpu.launch_func`: kernel symbol, grid, block, dynamic shared memory,
      arguments, the ptxas resource report, the global accesses (width,
      alignment, stride along thread x, IR path and location) and counted
      flops;
    - `<kernel module>.ptx` and, with ptxas, `<kernel module>.cubin`;
    - `passes.txt`: the passes that lowered it, one per line, in the order
      they first ran.

    With `reference=true` (the seed mapped by `tirx-map-reference`, the
    reference a candidate is checked against) the payload is lowered by
    upstream's passes alone: none of TIRx's rewriting passes (copy
    distribution, accumulator promotion, vector transfer lowering,
    alignment proofs, ...) runs on it, so that a bug in one of them cannot
    hit both sides of the comparison. The pass fails if one did.

    On sm_90 and newer, each kernel of a candidate (not the reference)
    starts with `griddepcontrol.launch_dependents` and
    `griddepcontrol.wait`, and a branch on the wait that every memory
    access of the kernel follows; the manifest marks such a kernel
    `early_launch`, and tirx-run launches it with programmatic dependent
    launch after the bundle's previous kernel: its blocks are scheduled
    while the previous kernel's last blocks run, and wait there for its
    results (docs/bundle.md, "Early launch").

    The payload itself is not changed. The pass refuses, naming the value,
    a launch configuration or a kernel argument that is not static, a
    buffer with a dynamic shape, and a scalar parameter without
    `tirx.value`.

    ```
    tirx-opt mapped.mlir --tirx-export-bundle="dir=out/v2"
    tirx-opt seed.mlir --tirx-map-reference \
             --tirx-export-bundle="dir=out/v1 reference=true"
    tirx-run out/v2 --reference out/v1
    ```
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\"\"",
           "Directory to write the bundle into (created if missing)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU, as for tirx-lower-to-nvvm">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features; default: the lowest PTX version of the chip">,
    Option<"ptxas", "ptxas", "std::string", /*default=*/"\"\"",
           "ptxas to build the cubin with (default: bin/ptxas of the CUDA "
           "toolkit, found as for tirx-lower-to-nvvm); `none` writes PTX "
           "only">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "CUDA toolkit directory, as for tirx-lower-to-nvvm (default: "
           "looked up at run time)">,
    Option<"irVersion", "ir-version", "std::string", /*default=*/"\"\"",
           "Snapshot id recorded in the manifest">,
    Option<"reference", "reference", "bool", /*default=*/"false",
           "Lower as the correctness reference: upstream's passes alone, "
           "none of TIRx's rewriting passes (default: false)">
  ];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def TIRxAttachFeedback : Pass<"tirx-attach-feedback", "::mlir::ModuleOp"> {
  let summary = "Attach the runner's feedback JSON as #tirx.feedback";
  let description = [{
    Reads a feedback file written by `tirx-run` (one object, or an array
    whose first entry is used) and sets `tirx.feedback` on the payload
    function it names and on its kernels (`gpu.func` ops reached from it),
    so that the measurements travel with the IR:

    ```
    tirx-opt v2.mlir --tirx-attach-feedback=file=feedback.json
    ```

    The attribute is built through its verifier: a file whose figures are
    out of range is refused with the verifier's message.
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"\"",
           "Feedback JSON written by tirx-run">
  ];
}

def TIRxBufferize : Pass<"tirx-bufferize", "::mlir::ModuleOp"> {
  let summary = "Bufferize a tensor payload the way transform.tirx.bufferize does";
  let description = [{
    One-shot bufferization of the whole module, function boundaries included
    (identity layouts); arguments are inputs, never written in place;
    returned buffers become out-parameters appended to the signature; copies
    are `linalg.copy`. The same rewrite as the `bufferize` action and the
    reference (`tirx-map-reference` bufferizes a tensor seed first), so that
    all three agree on the parameters:

    ```
    tirx-opt model.mlir --tirx-bufferize
    ```

    Fails, naming the op, on an op that does not bufferize.
  }];
}

def TIRxPrepareLaunches : Pass<"tirx-prepare-launches", "::mlir::ModuleOp"> {
  let summary = "The GPU path's own rewrites of a mapped payload, launches kept";
  let description = [{
    Runs on a scheduled, GPU-mapped payload what `tirx-export-bundle` and
    `tirx-lower-to-nvvm` run before outlining its kernels: TIRx's rewriting
    passes (copy distribution, vector transfer lowering, alias folding,
    accumulator promotion, alignment proofs, shared allocations as
    workgroup attributions, constants sunk into launches) and upstream's
    cleanups. The kernels stay `gpu.launch` regions, so that
    `tirx-emulate-launches` can run them on the CPU: the arithmetic checked
    there is the one the GPU bundle gets.

    ```
    tirx-opt scheduled.mlir --tirx-prepare-launches --tirx-emulate-launches
    ```
  }];
}

def TIRxEmulateLaunches : Pass<"tirx-emulate-launches", "::mlir::ModuleOp"> {
  let summary = "Run each gpu.launch as sequential CPU loops";
  let description = [{
    Rewrites every `gpu.launch` into loops that compute the same results on
    a CPU, so that a GPU-mapped schedule can run through MLIR's execution
    engine (`mlir-runner`) and be compared with its seed without a GPU
    (`tools/tirx-cpu-check`):

    - blocks run one after another; shared memory (workgroup attributions)
      becomes one buffer reused by every block;
    - inside a block, the code between two synchronization points runs as a
      loop over the block's threads; `gpu.barrier` ends a phase;
    - warp collectives run their lanes in lockstep: `gpu.shuffle` (xor,
      down, up, idx; out-of-range lanes keep their own value and get
      `valid = false`), `gpu.subgroup_reduce` and `nvgpu.mma.sync`
      m16n8k8 on f32 fragments (the PTX ISA's fragment layout, written
      independently of `use_mma`; products in f32, not rounded to tf32) read
      the other lanes' operands from per-thread buffers;
    - a value that lives across a phase boundary is kept in a per-thread
      buffer, or recomputed if it is a view; a loop or branch with a
      synchronization point inside stays at block level: a loop's bounds
      must be the same in every thread, a thread-dependent branch runs its
      phases under a per-thread mask.

    Thread, block, lane and warp ids and the launch sizes become loop
    indices and constants; shared memory loses its address space. A launch
    this cannot emulate (dynamic block size, async, clusters, a shared
    allocation inside the body, another GPU op) is an error naming it.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // TIRX_DIALECT_TIRX_TRANSFORMS_PASSES_TD
