//===- Pipeline.cpp - pipeline ----------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "tirx/Support/KernelTypes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

//===----------------------------------------------------------------------===//
// pipeline
//===----------------------------------------------------------------------===//

LogicalResult tirx::PipelineOp::verify() {
  if (getStages() < 2 || getStages() > 8)
    return detail::invalidParameter(
        *this, "stages must lie in [2, 8], got " + Twine(getStages()));
  return detail::verifyMaxSharedBytes(*this, getMaxSharedBytes());
}

void tirx::PipelineOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getTargetMutable(), effects);
  modifiesPayload(effects);
}

namespace {
/// The bytes of a static buffer of scalars, or 0.
int64_t bufferBytes(MemRefType type) {
  return type.getNumElements() *
         tirx::kernelElementBytes(type.getElementType()).value_or(0);
}

/// Shared memory of the block around `loop` once the staged buffers take
/// `stages` copies each: its other static workgroup allocations once.
int64_t sharedBytesWith(scf::ForOp loop, ArrayRef<tirx::StagedCopy> copies,
                        int64_t stages) {
  Operation *block = loop->getParentOp();
  while (block && !isa<scf::ForallOp, gpu::LaunchOp>(block))
    block = block->getParentOp();
  int64_t total = 0;
  (block ? block : loop.getOperation())->walk([&](memref::AllocOp alloc) {
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
        alloc.getType().getMemorySpace());
    if (!space || space.getValue() != gpu::AddressSpace::Workgroup ||
        !alloc.getType().hasStaticShape())
      return;
    bool staged = llvm::any_of(copies, [&](const tirx::StagedCopy &c) {
      return c.buffer == alloc;
    });
    total += bufferBytes(alloc.getType()) * (staged ? stages : 1);
  });
  return total;
}
} // namespace

DiagnosedSilenceableFailure
tirx::PipelineOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                             ApplyToEachResultList &results,
                             TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop)
    return wrongTarget(self, target, "an scf.for");
  if (!insideMapping(target, MappingKind::Block))
    return reject(self, target, RefusalCode::bad_order,
                  "the loop is not inside a forall mapped to blocks: its "
                  "copies are shared by a block's threads",
                  "apply tile_to_blocks, tile_reduction and "
                  "promote_to_shared first");
  std::optional<int64_t> tripCount = staticTripCount(loop);
  if (!tripCount)
    return reject(self, target, RefusalCode::unknown_trip_count,
                  "the loop's bounds or step are not static: the stages "
                  "issued before it need its first iterations");
  SmallVector<StagedCopy> copies = findStagedCopies(loop);
  if (copies.empty())
    return reject(self, target, RefusalCode::no_staged_copy,
                  "the loop copies no tile from global into shared memory "
                  "(a linalg.copy between barriers into a workgroup buffer "
                  "allocated before the loop)",
                  "apply promote_to_shared to an op in the loop first");
  int64_t stages = getStages();
  int64_t trips = *tripCount;
  if (trips < stages - 1)
    return reject(self, target, RefusalCode::too_few_trips,
                  "the loop runs " + Twine(trips) + " times; " +
                      Twine(stages) + " stages issue the copies of " +
                      Twine(stages - 1) + " iterations before it",
                  "use at most " + Twine(trips + 1) + " stages");
  if (Operation *conflict = findStagedBufferConflict(loop, copies)) {
    DiagnosedSilenceableFailure diag = reject(
        self, target, RefusalCode::shared_race,
        "'" + conflict->getName().getStringRef() +
            "' writes a staged buffer, uses it outside the loop, or writes "
            "memory it does not name: a later tile's copy could overwrite "
            "what it reads");
    diag.attachNote(conflict->getLoc()) << "conflicting op";
    return diag;
  }
  for (StagedCopy &staged : copies)
    if (bufferBytes(staged.buffer.getType()) % 16 != 0)
      return reject(self, target, RefusalCode::not_divisible,
                    "a stage of the shared buffer " +
                        Twine(bufferBytes(staged.buffer.getType())) +
                        " bytes long is not a multiple of 16 bytes: the "
                        "next stage's rows would lose their alignment",
                    "change the tile or its padding");
  int64_t bytes = sharedBytesWith(loop, copies, stages);
  int64_t limit = getMaxSharedBytes();
  if (bytes > limit) {
    int64_t fit = 0;
    for (int64_t s = 2; s < stages; ++s)
      if (sharedBytesWith(loop, copies, s) <= limit)
        fit = s;
    return reject(self, target, RefusalCode::exceeds_smem,
                  Twine(stages) + " stages take " + Twine(bytes) +
                      " bytes of shared memory, more than " + Twine(limit),
                  fit ? "try " + Twine(fit) + " stages"
                      : Twine("use smaller tiles (tile_to_blocks, "
                              "tile_reduction)"));
  }
  pipelineStagedCopies(rewriter, loop, copies, PipelineOptions{stages});
  return DiagnosedSilenceableFailure::success();
}
