//===- Access.cpp - memory accesses and their index functions ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/Access.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::tirx;

//===----------------------------------------------------------------------===//
// Linear index functions
//===----------------------------------------------------------------------===//

std::string LinearIndex::str() const {
  std::vector<std::string> parts;
  for (auto &[term, c] : terms) {
    if (c == 0)
      continue;
    parts.push_back(c == 1 ? term : std::to_string(c) + "*" + term);
  }
  if (constant != 0 || parts.empty())
    parts.push_back(std::to_string(constant));
  return llvm::join(parts, " + ");
}

static LinearIndex add(LinearIndex a, const LinearIndex &b, int64_t scale) {
  for (auto &[term, c] : b.terms)
    a.terms[term] += scale * c;
  a.constant += scale * b.constant;
  return a;
}

static LinearIndex scaled(LinearIndex a, int64_t scale) {
  for (auto &[term, c] : a.terms)
    c *= scale;
  a.constant *= scale;
  return a;
}

static std::optional<LinearIndex> linearizeImpl(Value v, unsigned depth);

static std::optional<LinearIndex> linearizeExpr(AffineExpr e, ValueRange dims,
                                                ValueRange syms,
                                                unsigned depth) {
  switch (e.getKind()) {
  case AffineExprKind::Constant: {
    LinearIndex l;
    l.constant = cast<AffineConstantExpr>(e).getValue();
    return l;
  }
  case AffineExprKind::DimId:
    return linearizeImpl(dims[cast<AffineDimExpr>(e).getPosition()], depth);
  case AffineExprKind::SymbolId:
    return linearizeImpl(syms[cast<AffineSymbolExpr>(e).getPosition()], depth);
  case AffineExprKind::Add: {
    auto bin = cast<AffineBinaryOpExpr>(e);
    auto l = linearizeExpr(bin.getLHS(), dims, syms, depth);
    auto r = linearizeExpr(bin.getRHS(), dims, syms, depth);
    if (l && r)
      return add(*l, *r, 1);
    return std::nullopt;
  }
  case AffineExprKind::Mul: {
    auto bin = cast<AffineBinaryOpExpr>(e);
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      if (auto l = linearizeExpr(bin.getLHS(), dims, syms, depth))
        return scaled(*l, c.getValue());
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

static std::string dimName(gpu::Dimension d) {
  return d == gpu::Dimension::x ? "x" : d == gpu::Dimension::y ? "y" : "z";
}

/// A block argument of a loop or a function, named for the index text.
static std::optional<std::string> argumentTerm(BlockArgument arg) {
  Operation *owner = arg.getOwner()->getParentOp();
  if (auto launch = dyn_cast<gpu::LaunchOp>(owner)) {
    // blocks(%bx, %by, %bz) threads(%tx, %ty, %tz) grid sizes, block sizes
    static const char *names[] = {"bid.x", "bid.y", "bid.z",
                                  "tid.x", "tid.y", "tid.z",
                                  "gdim.x", "gdim.y", "gdim.z",
                                  "bdim.x", "bdim.y", "bdim.z"};
    if (arg.getArgNumber() < 12)
      return std::string(names[arg.getArgNumber()]);
  }
  if (isa<scf::ForOp, scf::ForallOp, scf::ParallelOp>(owner)) {
    unsigned depth = 0;
    for (Operation *p = owner->getParentOp(); p; p = p->getParentOp())
      if (isa<scf::ForOp, scf::ForallOp, scf::ParallelOp>(p))
        ++depth;
    return "iv" + std::to_string(depth) +
           (arg.getArgNumber() ? "_" + std::to_string(arg.getArgNumber()) : "");
  }
  if (auto func = dyn_cast<FunctionOpInterface>(owner))
    return "arg" + std::to_string(arg.getArgNumber());
  return std::nullopt;
}

static std::optional<LinearIndex> linearizeImpl(Value v, unsigned depth) {
  if (depth > 48)
    return std::nullopt;
  ++depth;
  LinearIndex l;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A loop that starts where the thread does (`scf.for %k = %tid to ...
    // step %T`, a block's strided partial sums): lb + step x iterations,
    // so that consecutive threads are seen touching consecutive elements.
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
        loop && loop.getInductionVar() == arg &&
        !getConstantIntValue(loop.getLowerBound()))
      if (auto step = getConstantIntValue(loop.getStep()))
        if (auto lb = linearizeImpl(loop.getLowerBound(), depth))
          if (auto term = argumentTerm(arg)) {
            LinearIndex l = *lb;
            l.terms[*term] += *step;
            return l;
          }
    if (auto term = argumentTerm(arg)) {
      l.terms[*term] = 1;
      return l;
    }
    return std::nullopt;
  }
  Operation *op = v.getDefiningOp();
  if (auto c = getConstantIntValue(v)) {
    l.constant = *c;
    return l;
  }
  if (auto tid = dyn_cast<gpu::ThreadIdOp>(op)) {
    l.terms["tid." + dimName(tid.getDimension())] = 1;
    return l;
  }
  if (auto bid = dyn_cast<gpu::BlockIdOp>(op)) {
    l.terms["bid." + dimName(bid.getDimension())] = 1;
    return l;
  }
  if (auto add = dyn_cast<arith::AddIOp>(op)) {
    auto a = linearizeImpl(add.getLhs(), depth), b = linearizeImpl(add.getRhs(), depth);
    if (a && b)
      return ::add(*a, *b, 1);
    return std::nullopt;
  }
  if (auto sub = dyn_cast<arith::SubIOp>(op)) {
    auto a = linearizeImpl(sub.getLhs(), depth), b = linearizeImpl(sub.getRhs(), depth);
    if (a && b)
      return ::add(*a, *b, -1);
    return std::nullopt;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(op)) {
    if (auto c = getConstantIntValue(mul.getRhs()))
      if (auto a = linearizeImpl(mul.getLhs(), depth))
        return scaled(*a, *c);
    if (auto c = getConstantIntValue(mul.getLhs()))
      if (auto b = linearizeImpl(mul.getRhs(), depth))
        return scaled(*b, *c);
    return std::nullopt;
  }
  // tid.x / c and tid.x mod c, c a multiple of the warp's 32 threads (a
  // thread's group and its place in it, as reduce_in_block splits a block
  // over a column reduction's outputs): the quotient is the same in all the
  // lanes of a warp, an opaque term "(tid.x/c)", and the remainder
  // tid.x - c * (tid.x/c), so that lanes are seen one element apart.
  if (isa<arith::DivUIOp, arith::RemUIOp>(op))
    if (auto c = getConstantIntValue(op->getOperand(1));
        c && *c > 0 && *c % 32 == 0)
      if (auto x = linearizeImpl(op->getOperand(0), depth);
          x && x->constant == 0 && x->terms.size() == 1 &&
          x->coefficient("tid.x") == 1) {
        std::string group = "(tid.x/" + std::to_string(*c) + ")";
        l.terms[group] = isa<arith::DivUIOp>(op) ? 1 : -*c;
        if (isa<arith::RemUIOp>(op))
          l.terms["tid.x"] = 1;
        return l;
      }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp>(op))
    return linearizeImpl(op->getOperand(0), depth);
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    ValueRange operands = apply.getMapOperands();
    return linearizeExpr(map.getResult(0), operands.take_front(map.getNumDims()),
                         operands.drop_front(map.getNumDims()), depth);
  }
  // sum index_i * stride_i over a static basis (what folding a view of
  // split dimensions, memref.expand_shape, leaves).
  if (auto lin = dyn_cast<affine::AffineLinearizeIndexOp>(op)) {
    ValueRange indices = lin.getMultiIndex();
    ArrayRef<int64_t> basis = lin.getStaticBasis();
    size_t n = indices.size();
    if (n == 0 || basis.size() + 1 < n ||
        llvm::any_of(basis.take_back(n - 1), ShapedType::isDynamic))
      return std::nullopt;
    LinearIndex total;
    int64_t stride = 1;
    for (size_t i = n; i-- > 0;) {
      auto part = linearizeImpl(indices[i], depth);
      if (!part)
        return std::nullopt;
      total = ::add(total, scaled(*part, stride), 1);
      if (i > 0)
        stride *= basis[basis.size() - (n - i)];
    }
    return total;
  }
  return std::nullopt;
}

std::optional<LinearIndex> mlir::tirx::linearize(Value index) {
  return linearizeImpl(index, 0);
}

std::optional<InlineWgmma> mlir::tirx::inlineWgmma(Operation *op) {
  auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op);
  if (!asmOp)
    return std::nullopt;
  llvm::StringRef text = asmOp.getAsmString();
  llvm::StringRef key = "wgmma.mma_async.sync.aligned.";
  size_t at = text.find(key);
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  // m64n128k8.f32.tf32.tf32 ...
  llvm::StringRef rest = text.drop_front(at + key.size());
  InlineWgmma w;
  auto number = [&](char letter, int64_t &v) {
    if (!rest.consume_front(llvm::StringRef(&letter, 1)))
      return false;
    size_t digits = rest.find_first_not_of("0123456789");
    if (digits == 0 || digits == llvm::StringRef::npos ||
        rest.take_front(digits).getAsInteger(10, v))
      return false;
    rest = rest.drop_front(digits);
    return true;
  };
  // wgmma's shapes (PTX ISA): M 64, N 8 to 256, K 8 to 256 (256 for .b1).
  // Other text (a hand kernel's, say) is not taken for one: its product
  // could overflow the flop counts.
  if (!number('m', w.m) || !number('n', w.n) || !number('k', w.k) ||
      w.m != 64 || w.n < 8 || w.n > 256 || w.k < 8 || w.k > 256)
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 4> types;
  rest.take_until([](char c) { return c == ' ' || c == '\t'; })
      .split(types, '.', -1, /*KeepEmpty=*/false);
  if (types.size() < 3)
    return std::nullopt;
  w.typeA = types[1].str();
  return w;
}

OpFlops mlir::tirx::opFlops(Operation *op) {
  if (std::optional<InlineWgmma> wgmma = inlineWgmma(op))
    return {2 * wgmma->m * wgmma->n * wgmma->k, /*threads=*/128};
  if (auto wgmma = dyn_cast<nvgpu::WarpgroupMmaOp>(op)) {
    // A warpgroup's M x N x K: from its descriptors' tiles.
    MemRefType a = wgmma.getDescriptorA().getType().getTensor();
    MemRefType b = wgmma.getDescriptorB().getType().getTensor();
    return {2 * a.getDimSize(0) * a.getDimSize(1) * b.getDimSize(1),
            /*threads=*/128};
  }
  if (auto wgmma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
    // use_wgmma's K-major path writes NVVM's op itself: one m64nNkK.
    NVVM::MMAShapeAttr shape = wgmma.getShape();
    return {2 * int64_t(shape.getM()) * shape.getN() * shape.getK(),
            /*threads=*/128};
  }
  if (op->getNumResults() != 1)
    return {};
  // The bf16 products (tirx-lower-bf16-mma writes them as NVVM's op, whose
  // result is a struct of a thread's share of C): a warp's m x n x k.
  if (auto mma = dyn_cast<NVVM::MmaOp>(op)) {
    NVVM::MMAShapeAttr shape = mma.getShape();
    return {2 * int64_t(shape.getM()) * shape.getN() * shape.getK(),
            /*threads=*/32};
  }
  Type type = op->getResult(0).getType();
  int64_t lanes = 1;
  if (auto vec = dyn_cast<VectorType>(type)) {
    lanes = vec.getNumElements();
    type = vec.getElementType();
  }
  if (!isa<FloatType>(type))
    return {};
  llvm::StringRef name = op->getName().getStringRef();
  if (name == "nvgpu.mma.sync") {
    // Its vector is a thread's share of C, not lanes of work.
    int64_t flops = 2;
    if (auto shape = op->getAttrOfType<ArrayAttr>("mmaShape"))
      for (Attribute d : shape)
        if (auto i = dyn_cast<IntegerAttr>(d))
          flops *= i.getInt();
    return {flops, /*threads=*/32};
  }
  if (name == "arith.addf" || name == "arith.subf" || name == "arith.mulf" ||
      name == "arith.divf" || name == "arith.maximumf" ||
      name == "arith.minimumf" || name == "arith.maxnumf" ||
      name == "arith.minnumf")
    return {lanes};
  if (name == "math.fma" || name == "vector.fma" || name == "vector.contract")
    return {2 * lanes};
  // A horizontal reduction of n lanes: n - 1 combines.
  if (name == "vector.reduction")
    if (auto vec = dyn_cast<VectorType>(op->getOperand(0).getType()))
      return {std::max<int64_t>(0, vec.getNumElements() - 1) +
                  (op->getNumOperands() > 1 ? 1 : 0),
              1};
  return {};
}

//===----------------------------------------------------------------------===//
// Accesses
//===----------------------------------------------------------------------===//

Value mlir::tirx::accessRoot(Value value) {
  for (unsigned i = 0; i < 64; ++i) {
    Operation *op = value.getDefiningOp();
    if (!op)
      return value;
    if (auto view = dyn_cast<ViewLikeOpInterface>(op))
      value = view.getViewSource();
    else if (isa<memref::AssumeAlignmentOp, memref::CastOp>(op))
      value = op->getOperand(0);
    else
      return value;
  }
  return value;
}

std::string mlir::tirx::memorySpaceName(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  if (!memref)
    return "other";
  Attribute space = memref.getMemorySpace();
  if (!space)
    return "global";
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Workgroup: return "workgroup";
    case gpu::AddressSpace::Private: return "private";
    case gpu::AddressSpace::Global: return "global";
    }
  }
  if (auto n = dyn_cast<IntegerAttr>(space))
    return n.getInt() == 3 ? "workgroup" : n.getInt() == 5 ? "private" : "global";
  return "other";
}

std::vector<AccessInfo> mlir::tirx::collectAccesses(Operation *scope) {
  std::vector<AccessInfo> accesses;
  // The facts of one access `a` (its op, base, width, kind set): root,
  // space, alignment, linear offset, pattern, bank conflicts.
  auto describe = [&](AccessInfo a, ValueRange indices,
                      std::optional<uint64_t> alignment) {
    Operation *op = a.op;
    auto memref = dyn_cast<MemRefType>(a.base.getType());
    if (!memref)
      return;
    a.root = accessRoot(a.base);
    a.space = memorySpaceName(memref);
    Type element = memref.getElementType();
    a.elementBytes =
        element.isIntOrFloat() ? std::max(1u, element.getIntOrFloatBitWidth() / 8)
                               : 0;
    a.alignment = alignment ? unsigned(*alignment) : a.elementBytes;

    // Linear element offset = offset + sum(index_i * stride_i).
    SmallVector<int64_t> strides;
    int64_t staticOffset = 0;
    if (succeeded(memref.getStridesAndOffset(strides, staticOffset))) {
      LinearIndex total;
      bool known = !ShapedType::isDynamic(staticOffset);
      total.constant = known ? staticOffset : 0;
      if (!known)
        total.terms["offset"] = 1;
      bool linear = true;
      for (auto [index, stride] : llvm::zip(indices, strides)) {
        auto l = linearize(index);
        if (!l || ShapedType::isDynamic(stride)) {
          linear = false;
          break;
        }
        total = add(total, *l, stride);
      }
      if (linear) {
        a.offset = total;
        a.strideX = total.coefficient("tid.x");
      }
    }
    bool onGpu = op->getParentOfType<gpu::LaunchOp>() ||
                 op->getParentOfType<gpu::GPUFuncOp>();
    if (!onGpu)
      a.pattern = "host"; // not on the GPU (yet): no threads to compare
    else if (!a.strideX)
      a.pattern = "unknown";
    else if (*a.strideX == 0)
      a.pattern = "broadcast";
    else if (std::abs(*a.strideX) <= int64_t(a.width))
      a.pattern = "contiguous";
    else
      a.pattern = "strided";
    if (a.space == "workgroup" && onGpu) {
      // 32 banks of 4 bytes: threads of a warp at word stride s meet in
      // gcd(s, 32) banks at once. An access of v words a thread (a 64- or
      // 128-bit vector) is served in phases of 32 / v threads, each phase
      // 32 words: gcd(s, 32) / v ways (lanes 16 bytes apart: none).
      if (!a.strideX || a.elementBytes == 0)
        a.bankConflictRisk = "unknown";
      else if (*a.strideX == 0)
        a.bankConflictRisk = "none";
      else {
        int64_t words = std::max<int64_t>(
            1, std::abs(*a.strideX) * a.elementBytes / 4);
        int64_t vectorWords = std::clamp<int64_t>(
            int64_t(a.width) * a.elementBytes / 4, 1, 4);
        int64_t ways = std::max<int64_t>(
            1, std::gcd(words, int64_t(32)) / vectorWords);
        a.bankConflictRisk = ways <= 1 ? "none" : ways == 2 ? "low" : "high";
      }
    }
    accesses.push_back(a);
  };
  scope->walk([&](Operation *op) {
    AccessInfo a;
    a.op = op;
    ValueRange indices;
    std::optional<uint64_t> alignment;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      a.base = load.getMemref();
      indices = load.getIndices();
      alignment = load.getAlignment();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      a.base = store.getMemref();
      indices = store.getIndices();
      a.isStore = true;
      alignment = store.getAlignment();
    } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
      a.base = load.getBase();
      indices = load.getIndices();
      a.width = load.getVectorType().getNumElements();
      alignment = load.getAlignment();
    } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
      a.base = store.getBase();
      indices = store.getIndices();
      a.width = store.getVectorType().getNumElements();
      a.isStore = true;
      alignment = store.getAlignment();
    } else if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
      if (!isa<MemRefType>(read.getBase().getType()))
        return;
      a.base = read.getBase();
      indices = read.getIndices();
      a.width = read.getVectorType().getShape().empty()
                    ? 1
                    : read.getVectorType().getShape().back();
    } else if (auto write = dyn_cast<vector::TransferWriteOp>(op)) {
      if (!isa<MemRefType>(write.getBase().getType()))
        return;
      a.base = write.getBase();
      indices = write.getIndices();
      a.width = write.getVectorType().getShape().empty()
                    ? 1
                    : write.getVectorType().getShape().back();
      a.isStore = true;
    } else if (auto ldmatrix = dyn_cast<nvgpu::LdMatrixOp>(op)) {
      // Each lane reads one 16-byte row of an 8x8 matrix.
      a.base = ldmatrix.getSrcMemref();
      indices = ldmatrix.getIndices();
      a.width = 8;
      alignment = 16;
    } else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
      // cp.async: a read of the source and a write of the destination.
      a.base = copy.getSrc();
      a.width = unsigned(copy.getDstElements().getZExtValue());
      describe(a, copy.getSrcIndices(), std::nullopt);
      a.base = copy.getDst();
      a.isStore = true;
      indices = copy.getDstIndices();
    } else {
      return;
    }
    describe(a, indices, alignment);
  });
  return accesses;
}

//===----------------------------------------------------------------------===//
// Paths and locations
//===----------------------------------------------------------------------===//

static std::string stepName(Operation *op) {
  std::string name = op->getName().getStringRef().str();
  if (auto sym = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
    return (isa<FunctionOpInterface>(op) ? std::string("func") : name) + " @" +
           sym.str();
  {
    unsigned index = 0;
    if (Block *block = op->getBlock())
      for (Operation &sibling : *block) {
        if (&sibling == op)
          break;
        if (sibling.getName() == op->getName())
          ++index;
      }
    name += "#" + std::to_string(index);
    if (auto forall = dyn_cast<scf::ForallOp>(op))
      if (auto mapping = forall.getMapping()) {
        std::vector<std::string> parts;
        for (Attribute a : *mapping)
          parts.push_back(mappingName(a));
        name += " (" + llvm::join(parts, ", ") + ")";
      }
  }
  return name;
}

std::string mlir::tirx::mappingName(Attribute mapping) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mapping.print(os);
  llvm::StringRef t(text);
  t.consume_front("#gpu.");
  auto [kind, rest] = t.split('<');
  return (kind + " " + rest.rtrim('>')).str();
}

std::string mlir::tirx::irPath(Operation *op) {
  std::vector<std::string> parts;
  for (Operation *at = op; at && !isa<ModuleOp>(at); at = at->getParentOp())
    parts.push_back(stepName(at));
  std::reverse(parts.begin(), parts.end());
  return llvm::join(parts, " / ");
}

std::string mlir::tirx::locationText(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  if (auto name = dyn_cast<NameLoc>(loc))
    return locationText(name.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations()) {
      std::string text = locationText(inner);
      if (!text.empty())
        return text;
    }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return locationText(callSite.getCallee());
  return "";
}
