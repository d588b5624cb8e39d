//===- UseWgmma.cpp - use_wgmma ---------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;
using mlir::tirx::kWgmmaM;
using mlir::tirx::kWgmmaTileK;

//===----------------------------------------------------------------------===//
// use_wgmma
//===----------------------------------------------------------------------===//

namespace {
/// Shared memory a block may take on Hopper (227 KiB).
constexpr int64_t kMaxSharedBytes = 232448;
/// f32 sums a thread may hold: wgmma's accumulators live in registers.
constexpr int64_t kMaxSumsPerThread = 128;
} // namespace

LogicalResult tirx::UseWgmmaOp::verify() {
  if (getStages() < 2 || getStages() > 8)
    return detail::invalidParameter(
        *this, "stages must lie in [2, 8], got " + Twine(getStages()));
  if (getWarpgroups() < 1 || getWarpgroups() > 2)
    return detail::invalidParameter(
        *this, "warpgroups must be 1 or 2, got " + Twine(getWarpgroups()));
  return success();
}

DiagnosedSilenceableFailure
tirx::UseWgmmaOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                             ApplyToEachResultList &results,
                             TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  DiagnosedSilenceableFailure refusal = DiagnosedSilenceableFailure::success();
  linalg::MatmulOp matmul = plainMatmul(self, target, "use_wgmma", refusal);
  if (!matmul)
    return refusal;
  scf::ForallOp blocks;
  for (Operation *p = target->getParentOp(); p; p = p->getParentOp())
    if (auto forall = dyn_cast<scf::ForallOp>(p);
        forall && mapsTo(forall, MappingKind::Block))
      blocks = forall;
  if (!blocks)
    return reject(self, target, RefusalCode::bad_order,
                  "the target is not inside a forall mapped to blocks: "
                  "wgmma computes a block's tile of C",
                  "apply tile_to_blocks first (tile sizes [128, 128], say)");
  if (insideMapping(target, MappingKind::Thread) ||
      insideMapping(target, MappingKind::Warp))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already split among threads or warps; "
                  "wgmma is executed by whole warpgroups",
                  "apply use_wgmma right after tile_to_blocks");

  Value a = matmul.getDpsInputOperand(0)->get();
  Value b = matmul.getDpsInputOperand(1)->get();
  Value c = matmul.getDpsInitOperand(0)->get();
  for (Value v : {a, b, c}) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape())
      return reject(self, target, RefusalCode::unsupported_type,
                    "an operand is not a static memref",
                    "tile the op with tile_to_blocks so that its operands "
                    "are static tiles");
  }
  std::optional<WgmmaSources> sources = findWgmmaSources(matmul, blocks);
  if (!sources)
    return reject(self, target, RefusalCode::not_a_tile,
                  "A and B are not tiles (unit-stride subviews taking all "
                  "of K) of static, contiguous global buffers defined "
                  "before the blocks: TMA loads them through tensor maps "
                  "made on the host",
                  "apply use_wgmma right after tile_to_blocks, without "
                  "tile_reduction or promote_to_shared (use_wgmma stages "
                  "the tiles itself)");
  Type elemA = cast<MemRefType>(a.getType()).getElementType();
  Type elemB = cast<MemRefType>(b.getType()).getElementType();
  Type elemC = cast<MemRefType>(c.getType()).getElementType();
  if (elemA != elemB || !(elemA.isF16() || elemA.isBF16()) || !elemC.isF32()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "A, B and C are " << elemA << ", " << elemB << " and " << elemC
       << "; use_wgmma takes f16 or bf16 A and B (alike) summed into an "
          "f32 C";
    return reject(self, target, RefusalCode::unsupported_type, text,
                  "use use_mma for other types");
  }

  ArrayRef<int64_t> shapeC = cast<MemRefType>(c.getType()).getShape();
  int64_t bm = shapeC[0], bn = shapeC[1];
  int64_t groups = getWarpgroups(), stages = getStages();
  bool rowsFit = groups == 1 ? (bm == kWgmmaM || bm == 2 * kWgmmaM)
                             : bm == groups * kWgmmaM;
  if (!rowsFit)
    return reject(self, target, RefusalCode::bad_block_size,
                  "the block tile has " + Twine(bm) + " rows; " +
                      Twine(groups) + " warpgroup(s) of wgmma (64 rows each) "
                      "take " +
                      (groups == 1 ? Twine("64 or 128") : Twine(groups * 64)),
                  "tile_to_blocks with tile sizes [128, 128] (or [64, ...])");
  if (bn % kWgmmaTileK != 0 || bn > 256)
    return reject(self, target, RefusalCode::bad_block_size,
                  "the block tile has " + Twine(bn) +
                      " columns; use_wgmma takes 64, 128, 192 or 256 (B "
                      "arrives in 64-column boxes, wgmma takes N <= 256)",
                  "tile_to_blocks with tile sizes [128, 128] or [128, 256]");
  auto fullA = cast<MemRefType>(sources->a.getType());
  auto fullB = cast<MemRefType>(sources->b.getType());
  int64_t m = fullA.getDimSize(0), k = fullA.getDimSize(1),
          n = fullB.getDimSize(1);
  if (m % bm != 0 || n % bn != 0)
    return reject(self, target, RefusalCode::not_divisible,
                  "the " + Twine(bm) + " x " + Twine(bn) +
                      " block tile does not divide M x N = " + Twine(m) +
                      " x " + Twine(n) + ": the tail tiles would need a "
                      "schedule of their own",
                  "pick block tile sizes that divide M and N");
  if (k % kWgmmaTileK != 0)
    return reject(self, target, RefusalCode::not_divisible,
                  "K = " + Twine(k) + " is not a multiple of 64, the K of "
                  "one staged tile (a 128-byte swizzled row)");
  if (bm * bn / (128 * groups) > kMaxSumsPerThread)
    return reject(self, target, RefusalCode::too_wide,
                  "each thread would hold " + Twine(bm * bn / (128 * groups)) +
                      " f32 sums, more than " + Twine(kMaxSumsPerThread) +
                      " (wgmma's accumulators live in registers)",
                  groups == 1 && bm == 128 ? "use warpgroups 2"
                                           : "use a smaller block tile");
  int64_t bytes = wgmmaSharedBytes(bm, bn, stages);
  if (bytes > kMaxSharedBytes) {
    int64_t fit = 0;
    for (int64_t s = 2; s < stages; ++s)
      if (wgmmaSharedBytes(bm, bn, s) <= kMaxSharedBytes)
        fit = s;
    return reject(self, target, RefusalCode::exceeds_smem,
                  Twine(stages) + " stages take " + Twine(bytes) +
                      " bytes of shared memory, more than " +
                      Twine(kMaxSharedBytes),
                  fit ? "try " + Twine(fit) + " stages"
                      : Twine("use a smaller block tile"));
  }
  FailureOr<scf::ForallOp> forall =
      useWgmma(rewriter, matmul, blocks, *sources,
               UseWgmmaOptions{stages, groups});
  if (failed(forall))
    return reject(self, target, RefusalCode::not_applicable,
                  "the matmul could not be rewritten");
  results.push_back(*forall);
  return DiagnosedSilenceableFailure::success();
}
