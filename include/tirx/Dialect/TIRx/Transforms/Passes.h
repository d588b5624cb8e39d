//===- Passes.h - TIRx passes -----------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_TRANSFORMS_PASSES_H
#define TIRX_DIALECT_TIRX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace tirx {

#define GEN_PASS_DECL
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"

/// A GPU the lowering can target: the chips known to both LLVM 22's NVPTX
/// backend and CUDA 13's ptxas.
struct ChipInfo {
  llvm::StringRef name;
  /// Lowest PTX ISA version that supports the chip, times ten (78 = 7.8).
  unsigned minPtxVersion;
};

/// The chip named `name`, or nothing when the toolchain cannot target it.
std::optional<ChipInfo> lookupChip(llvm::StringRef name);

/// All supported chip names, comma-separated, for diagnostics.
std::string supportedChipList();

/// The PTX version (times ten) named by a "+ptxNN" entry of a feature
/// string; nothing when the string names none. Fails on a malformed entry.
FailureOr<std::optional<unsigned>> parsePtxFeature(llvm::StringRef features);

/// Checks the options of tirx-lower-to-nvvm and fills in the default
/// features. Diagnostics go to `emitError`.
LogicalResult
validateLowerToNVVMOptions(TIRxLowerToNVVMOptions &options,
                           function_ref<InFlightDiagnostic()> emitError);

/// Whether `chip` runs wgmma and TMA (use_wgmma's kernels): sm_90 and
/// sm_90a. The one rule the lowering (selectChipForKernels) and the
/// automatic schedule (which proposes use_wgmma) share.
bool chipHasWgmma(llvm::StringRef chip);

/// The chip and PTX version a module's kernels need: when they use wgmma
/// or TMA (use_wgmma), sm_90a for sm_90 (the same device; the "a" features
/// are what wgmma needs) and PTX 8.3 unless a newer one is named (the
/// tensor-map fence); unchanged otherwise. Fails, through `emitError`, when
/// they use wgmma or TMA and the chip is not sm_90(a) or the PTX is older.
LogicalResult
selectChipForKernels(ModuleOp module, TIRxLowerToNVVMOptions &options,
                     function_ref<InFlightDiagnostic()> emitError);

/// Appends the passes of tirx-lower-to-nvvm (options already validated):
/// the preparation, then the NVVM code generation.
void buildLowerToNVVMPipeline(OpPassManager &pm,
                              const TIRxLowerToNVVMOptions &options);

/// The form analyses read (views, bounds): leftover linalg as loops, vector
/// transfers as loads and stores, views folded into their buffers,
/// canonical, CSE'd, alignment proven. Kernels stay in their launches.
void buildAnalysisFormPipeline(OpPassManager &pm);

/// What the GPU path runs on a mapped payload before outlining: the
/// analysis form, shared allocations as workgroup attributions, constants
/// sunk into launches (tirx-prepare-launches). Kernels stay in launches.
void buildPrepareLaunchesPipeline(OpPassManager &pm);

/// What upstream's NVVM pipeline leaves to the user: leftover linalg, vector
/// transfers, alias folding, alignment, outlining, symbol DCE. Afterwards
/// every kernel is a gpu.func reached by a gpu.launch_func.
void buildPrepareForNVVMPipeline(OpPassManager &pm);

/// The reference's preparation (tirx-export-bundle{reference=true}):
/// upstream passes alone, none of TIRx's rewriting passes, so that a bug in
/// one of them cannot hit the reference and the candidate alike. Afterwards
/// every kernel is a gpu.func reached by a gpu.launch_func, as after
/// buildPrepareForNVVMPipeline.
void buildReferencePreparePipeline(OpPassManager &pm);

/// Moves the views a launch reads through (memref.collapse_shape,
/// expand_shape, cast, subview and reinterpret_cast of the function's
/// arguments or of the buffers it allocates, with constant or
/// function-argument operands: a front end's reshape, tensor.pad's and
/// tensor.concat's subviews) into the launch, so that the kernel gets the
/// buffer itself, not a view computed on the host (which a bundle cannot
/// reproduce); and the constant globals it reads (memref.get_global), which
/// outlining copies into the kernel's module, a load of a splat one folded
/// to its value. Pure ops, cloned; the host's copies are left to DCE.
void sinkViewsIntoLaunches(Operation *root);

/// Upstream's fold-memref-alias-ops patterns less those that fold an access
/// through a memref.collapse_shape (tirx-fold-views).
void populateFoldViewPatterns(RewritePatternSet &patterns);

/// Whether the pass with this argument is one of TIRx's rewriting passes
/// (every tirx- pass but the mapping of the reference and those that only
/// read the payload or annotate its arguments).
bool isTIRxRewritingPass(llvm::StringRef argument);

/// Makes `pm` record into `names` the argument of every pass it runs, once
/// each, in the order they first run, nested pipelines included.
void recordPasses(PassManager &pm, std::vector<std::string> &names);

/// The CUDA toolkit to compile with (its bin/ptxas, its libdevice):
/// `toolkit` when not empty, else the first of $CUDA_HOME, $CUDA_PATH and
/// $CUDA_ROOT that is set, else the toolkit of the ptxas on PATH, else
/// /usr/local/cuda. Looked up when called, never fixed at build time. Fails,
/// saying where the directory came from, when it has no executable
/// bin/ptxas; when nothing named a toolkit and `required` is false, the
/// result is then empty instead (PTX text needs no ptxas).
llvm::Expected<std::string> findCudaToolkit(llvm::StringRef toolkit,
                                            bool required = true);

/// Upstream's gpu-lower-to-nvvm-pipeline with the options filled in; an
/// empty `options.toolkit` leaves the toolkit to upstream's own lookup.
void buildNVVMCodegenPipeline(OpPassManager &pm,
                              const TIRxLowerToNVVMOptions &options);

/// Runs `pm` on `module`; fails if it fails or emits any error diagnostic
/// (some upstream passes report an error and still succeed).
LogicalResult runPipelineStrictly(OpPassManager &pm, ModuleOp module,
                                  function_ref<LogicalResult(OpPassManager &,
                                                             ModuleOp)> run);

/// The byte alignment of `memref` at element offset `index`, as far as it is
/// proven (1 when nothing is known). Exposed for the view analyses.
uint64_t proveAccessAlignment(Value memref, ValueRange indices);

/// The byte alignment proven for every access `memref[i_0, ..., i_n]` whose
/// last index is a multiple of `innerMultiple` (the other indices any): what
/// a thread's tile, read in vectors of `innerMultiple`, is known to have.
uint64_t proveViewAlignment(Value memref, int64_t innerMultiple);

/// The byte alignment of argument `index` of `func`: its `llvm.align`, else
/// the bundle ABI's (runtime::kBundleBufferAlignment) for a memref argument
/// of a public top-level func.func (the payload function, whose buffers the
/// runner allocates), else 1.
uint64_t argumentAlignment(FunctionOpInterface func, unsigned index);

/// Sets `alignment` on every vector.load and vector.store under `root` that
/// has none, where a larger one than the element's is proven (capped at the
/// largest power of two not above the vector's size).
void annotateVectorAlignment(Operation *root);

} // namespace tirx
} // namespace mlir

#endif // TIRX_DIALECT_TIRX_TRANSFORMS_PASSES_H
