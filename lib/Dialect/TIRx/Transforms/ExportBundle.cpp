//===- ExportBundle.cpp - tirx-export-bundle --------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Writes what tirx-run needs and nothing of MLIR: the manifest (the schema
// lives in tirx/Runtime/Manifest.h, shared with the runner), the PTX and the
// cubin of each kernel module.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Bufferize.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Dialect/TIRx/Transforms/Sizes.h"
#include "tirx/Runtime/Manifest.h"
#include "tirx/Analysis/Access.h"
#include "tirx/Analysis/Branches.h"
#include "tirx/Analysis/Domains.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXEXPORTBUNDLE
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;
using mlir::tirx::AccessInfo;
using mlir::tirx::collectAccesses;
using mlir::tirx::locationText;
namespace rt = ::tirx::runtime;

namespace {
std::optional<rt::ElementType> elementTypeOf(Type type) {
  if (type.isF32()) return rt::ElementType::f32;
  if (type.isF64()) return rt::ElementType::f64;
  if (type.isF16()) return rt::ElementType::f16;
  if (type.isBF16()) return rt::ElementType::bf16;
  if (type.isInteger(8)) return rt::ElementType::i8;
  if (type.isInteger(32)) return rt::ElementType::i32;
  if (type.isInteger(64) || type.isIndex()) return rt::ElementType::i64;
  return std::nullopt;
}

/// Follows view-like ops (subview, cast, assume_alignment, ...) to every
/// op that accesses `root`, and records whether any reads or writes it;
/// `views`, if given, receives `root` and every view of it.
void collectEffects(Value root, bool &reads, bool &writes,
                    DenseSet<Value> *views = nullptr) {
  SmallVector<Value> worklist{root};
  DenseSet<Value> local;
  DenseSet<Value> &seen = views ? *views : local;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<gpu::LaunchFuncOp>(user))
        continue; // the caller follows launches into the kernels
      if (isa<nvgpu::TmaCreateDescriptorOp>(user)) {
        reads = true; // a tensor map: TMA loads read through it
        continue;
      }
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() == v)
          for (Value result : user->getResults())
            worklist.push_back(result);
        continue;
      }
      if (isa<memref::AssumeAlignmentOp, memref::CastOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      auto iface = dyn_cast<MemoryEffectOpInterface>(user);
      // Unknown users (a call, a region op), and users that pass the
      // buffer on where this walk does not follow it (a select of two
      // buffers, a yield out of a branch or loop, the buffer's address as
      // an integer): assume both.
      bool forwards =
          user->hasTrait<OpTrait::IsTerminator>() ||
          isa<memref::ExtractAlignedPointerAsIndexOp>(user) ||
          llvm::any_of(user->getResultTypes(),
                       [](Type t) { return isa<BaseMemRefType>(t); });
      if (!iface || forwards) {
        reads = writes = true;
        continue;
      }
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (auto &effect : effects) {
        if (effect.getValue() && effect.getValue() != v)
          continue;
        if (isa<MemoryEffects::Read>(effect.getEffect()))
          reads = true;
        if (isa<MemoryEffects::Write>(effect.getEffect()))
          writes = true;
      }
    }
  }
}

/// Whether `v` is gpu.thread_id x.
bool isThreadIdX(Value v) {
  auto id = v.getDefiningOp<gpu::ThreadIdOp>();
  return id && id.getDimension() == gpu::Dimension::x;
}

/// The average trip count of `loop` over the threads of a block: its static
/// trip count, or, for a loop that starts at the thread's index (a strided
/// walk: thread t takes t, t + step, ...), ub / step.
double averageTrips(scf::ForOp loop) {
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!ub || !step || *step <= 0)
    return 1;
  if (lb)
    return *ub > *lb ? double((*ub - *lb + *step - 1) / *step) : 0;
  Value start = loop.getLowerBound();
  if (auto mul = start.getDefiningOp<arith::MulIOp>())
    start = isThreadIdX(mul.getLhs()) ? mul.getLhs() : mul.getRhs();
  if (isThreadIdX(start))
    return double(*ub) / double(*step);
  return 1;
}

/// The share of a block's threads that run the then-region of `guard`:
/// c / blockX for `thread_id x < c` (a reduction tree's step), else 1.
double shareOfThreads(scf::IfOp guard, Operation *op, int64_t blockX) {
  if (!guard.getThenRegion().isAncestor(op->getParentRegion()))
    return 1;
  auto cmp = guard.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || !isThreadIdX(cmp.getLhs()) || blockX <= 0 ||
      (cmp.getPredicate() != arith::CmpIPredicate::ult &&
       cmp.getPredicate() != arith::CmpIPredicate::slt))
    return 1;
  auto bound = getConstantIntValue(cmp.getRhs());
  if (!bound)
    return 1;
  return std::clamp(double(*bound) / double(blockX), 0.0, 1.0);
}

/// Floating-point operations a thread of `kernel` performs on average
/// (opFlops of each op, times the trips of its loops, times the share of
/// the block's threads its guards let through): times the threads, the
/// kernel's flops. A reduction of N elements then counts N adds (plus the
/// combines of its partial results), not one per thread per tree step.
double countFlopsPerThread(gpu::GPUFuncOp kernel, int64_t blockX) {
  double total = 0;
  // A thread runs one branch of an if/else: the heavier one is counted.
  llvm::DenseSet<Region *> skipped = mlir::tirx::lighterBranches(kernel);
  kernel.walk([&](Operation *op) {
    mlir::tirx::OpFlops f = mlir::tirx::opFlops(op);
    if (!f.flops || mlir::tirx::insideAny(op, skipped))
      return;
    // A warp's op: a 32nd of it per thread.
    double per = double(f.flops) / double(f.threads);
    for (Operation *p = op->getParentOp(); p && p != kernel;
         p = p->getParentOp()) {
      if (auto loop = dyn_cast<scf::ForOp>(p))
        per *= averageTrips(loop);
      else if (auto guard = dyn_cast<scf::IfOp>(p))
        per *= shareOfThreads(guard, op, blockX);
    }
    total += per;
  });
  return total;
}

/// `value` as a buffer `payload` allocates in its body for its kernels (a
/// scratch buffer of the bundle); null otherwise.
memref::AllocOp bodyAllocation(Value value, func::FuncOp payload) {
  auto alloc = value.getDefiningOp<memref::AllocOp>();
  return alloc && alloc->getBlock() == &payload.getBody().front()
             ? alloc
             : nullptr;
}

/// What a kernel argument the bundle cannot describe is, for the refusal:
/// a buffer argument is a parameter, a scratch buffer or a tensor map of
/// one; a view or a global the host makes is none of them.
std::string hostArgumentProblem(Value operand, func::FuncOp payload) {
  Operation *def = operand.getDefiningOp();
  if (!isa<BaseMemRefType>(operand.getType()) || !def)
    return "is computed on the host, not a payload parameter or a constant";
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto get = dyn_cast<memref::GetGlobalOp>(def)) {
    os << "is the global @" << get.getName()
       << " read on the host: a bundle passes no global buffer (a launch "
          "that reads a constant global of at most 64 KiB, or of one value "
          "repeated, gets a copy of it in the kernel's module from "
          "tirx-sink-constants before outlining; a larger or mutable global "
          "has no such copy: make it a parameter of the function)";
    return text;
  }
  if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
    // The buffer it is a view of.
    Value source = view.getViewSource();
    for (int depth = 0; depth < 16; ++depth) {
      auto inner = source.getDefiningOp<ViewLikeOpInterface>();
      if (!inner)
        break;
      source = inner.getViewSource();
    }
    auto arg = dyn_cast<BlockArgument>(source);
    os << "is a view (" << def->getName() << ", " << operand.getType()
       << ") made on the host of "
       << (arg && arg.getOwner() == &payload.getBody().front()
               ? "parameter #" + std::to_string(arg.getArgNumber())
           : bodyAllocation(source, payload)
               ? std::string("a buffer the function allocates")
               : "a buffer that is no parameter or allocation of @" +
                     payload.getSymName().str())
       << ": a kernel takes whole buffers, and makes a view inside the "
          "launch (tirx-sink-constants) only when its operands are "
          "constants, function arguments or allocations";
    return text;
  }
  os << "is the buffer that " << def->getName()
     << " makes on the host, neither a payload parameter nor an allocation "
        "in the function's entry block (a scratch buffer)";
  return text;
}

/// A kernel argument that is a tensor map: nvgpu.tma.create.descriptor
/// (through the casts of memref.cast and tirx-tensor-map-params) of a
/// buffer parameter of `payload`, or of a buffer it allocates in its body
/// (then `scratch` is that allocation, for the caller to number).
std::optional<rt::TensorMapArg> tensorMapOf(Value operand,
                                            func::FuncOp payload,
                                            memref::AllocOp &scratch) {
  scratch = nullptr;
  if (auto cast = operand.getDefiningOp<UnrealizedConversionCastOp>();
      cast && cast->getNumOperands() == 1)
    operand = cast->getOperand(0);
  auto create = operand.getDefiningOp<nvgpu::TmaCreateDescriptorOp>();
  if (!create)
    return std::nullopt;
  Value source = create.getTensor();
  if (auto cast = source.getDefiningOp<memref::CastOp>())
    source = cast.getSource();
  // A collapsed view of a static buffer (use_wgmma's batch matmul): the map
  // sees the buffer in the view's shape.
  std::vector<int64_t> shape;
  if (auto collapse = source.getDefiningOp<memref::CollapseShapeOp>()) {
    MemRefType view = collapse.getResultType();
    if (!view.hasStaticShape() || !view.getLayout().isIdentity() ||
        !collapse.getSrcType().getLayout().isIdentity())
      return std::nullopt;
    shape.assign(view.getShape().begin(), view.getShape().end());
    source = collapse.getSrc();
  }
  // A buffer parameter, or a buffer the function allocates (a scratch
  // buffer: transpose_operand's copy of a matmul operand).
  auto arg = dyn_cast<BlockArgument>(source);
  bool isParam = arg && arg.getOwner() == &payload.getBody().front();
  scratch = isParam ? nullptr : bodyAllocation(source, payload);
  if (!isParam && !scratch)
    return std::nullopt;
  rt::TensorMapArg map;
  map.param = isParam ? int(arg.getArgNumber()) : -1;
  map.shape = std::move(shape);
  for (Value size : create.getBoxDimensions()) {
    std::optional<int64_t> c = getConstantIntValue(size);
    if (!c)
      return std::nullopt;
    map.box.push_back(*c);
  }
  nvgpu::TensorMapDescriptorType type = create.getTensorMap().getType();
  if (type.getInterleave() != nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE ||
      type.getOob() != nvgpu::TensorMapOOBKind::OOB_ZERO)
    return std::nullopt;
  switch (type.getSwizzle()) {
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE: map.swizzle = 0; break;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B: map.swizzle = 32; break;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B: map.swizzle = 64; break;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B: map.swizzle = 128; break;
  }
  switch (type.getL2promo()) {
  case nvgpu::TensorMapL2PromoKind::L2PROMO_NONE: map.l2Promotion = 0; break;
  case nvgpu::TensorMapL2PromoKind::L2PROMO_64B: map.l2Promotion = 64; break;
  case nvgpu::TensorMapL2PromoKind::L2PROMO_128B: map.l2Promotion = 128; break;
  case nvgpu::TensorMapL2PromoKind::L2PROMO_256B: map.l2Promotion = 256; break;
  }
  return map;
}

struct ExportBundlePass
    : public mlir::tirx::impl::TIRxExportBundleBase<ExportBundlePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    mlir::tirx::buildLowerToNVVMPipeline(pm, mlir::tirx::TIRxLowerToNVVMOptions());
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override;

  LogicalResult collect(ModuleOp prepared, rt::Manifest &manifest);
  LogicalResult writeBinaries(ModuleOp lowered, rt::Manifest &manifest,
                              const mlir::tirx::TIRxLowerToNVVMOptions &options);
};
} // namespace

/// Marks `llvm.noalias` on each kernel argument that is a buffer no other
/// argument of the same launch names, in every launch of that kernel: the
/// buffers of a bundle are distinct allocations of the runner (a parameter
/// or a scratch buffer each; a host view of one is refused above), so a
/// pointer to one is the only way the kernel reaches it. A buffer that a
/// launch also passes as a tensor map (TMA reads it) or twice is left
/// unmarked. LLVM may then keep loads in registers across stores to other
/// buffers, and issue a thread's loads ahead of its stores. LLVM also takes
/// a noalias buffer as out of a barrier's reach: a buffer that a kernel
/// with a barrier both writes and reads (threads may exchange values
/// through it) is left unmarked. `manifest`'s kernels are the launches of
/// the payload, in walk order (collect); on any mismatch nothing is marked.
static void markDistinctBuffers(ModuleOp module, const rt::Manifest &manifest) {
  func::FuncOp payload;
  module.walk([&](gpu::LaunchFuncOp launch) {
    if (!payload)
      payload = launch->getParentOfType<func::FuncOp>();
  });
  if (!payload)
    return;
  using Root = std::pair<int, int>; // (0: parameter, 1: scratch; index)
  auto rootOf = [](const rt::KernelArg &arg) -> std::optional<Root> {
    if (arg.param)
      return Root{0, *arg.param};
    if (arg.scratch)
      return Root{1, *arg.scratch};
    if (arg.tensorMap)
      return arg.tensorMap->scratch ? Root{1, *arg.tensorMap->scratch}
                                    : Root{0, arg.tensorMap->param};
    return std::nullopt;
  };
  SymbolTable symbols(module);
  llvm::MapVector<Operation *, SmallVector<bool>> distinct;
  size_t next = 0;
  bool mismatch = false;
  payload.walk([&](gpu::LaunchFuncOp launch) {
    auto func = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernelAttr());
    if (next >= manifest.kernels.size() || !func ||
        manifest.kernels[next].args.size() != func.getNumArguments()) {
      mismatch = true;
      return;
    }
    const rt::Kernel &kernel = manifest.kernels[next++];
    bool synchronizes =
        func->walk([](Operation *op) {
              return isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp>(op)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            }).wasInterrupted();
    auto [it, fresh] = distinct.try_emplace(
        func, SmallVector<bool>(func.getNumArguments(), true));
    SmallVector<bool> &marks = it->second;
    for (auto [i, arg] : llvm::enumerate(kernel.args)) {
      std::optional<Root> root = rootOf(arg);
      bool alone = root && !arg.tensorMap &&
                   isa<MemRefType>(func.getArgument(i).getType());
      if (alone && synchronizes) {
        bool reads = false, writes = false;
        collectEffects(func.getArgument(i), reads, writes);
        alone = !(reads && writes);
      }
      for (auto [j, other] : llvm::enumerate(kernel.args))
        alone &= j == i || rootOf(other) != root;
      marks[i] = marks[i] && alone;
    }
  });
  if (mismatch || next != manifest.kernels.size())
    return;
  for (auto &[op, marks] : distinct)
    for (auto [i, alone] : llvm::enumerate(marks))
      if (alone)
        cast<gpu::GPUFuncOp>(op).setArgAttr(
            i, LLVM::LLVMDialect::getNoAliasAttrName(),
            UnitAttr::get(module.getContext()));
}

/// The read-only noalias buffers of kernel `func`, with every view of them:
/// buffers no thread of the launch writes, reached by no other argument.
static DenseSet<Value> readOnlyViews(gpu::GPUFuncOp func) {
  DenseSet<Value> readOnly;
  // (The function's inputs: the body's workgroup and private attributions
  // follow them as block arguments.)
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    BlockArgument arg = func.getArgument(i);
    if (!isa<MemRefType>(arg.getType()) ||
        !func.getArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName()))
      continue;
    bool reads = false, writes = false;
    DenseSet<Value> views;
    collectEffects(arg, reads, writes, &views);
    if (!writes)
      readOnly.insert(views.begin(), views.end());
  }
  return readOnly;
}

/// Issues a kernel's loads of buffers it only reads, marked noalias above,
/// in front of the barriers before them (in the same block, with the index
/// arithmetic they need): a barrier orders the block's accesses to memory
/// that threads write, and no thread writes these during the kernel, so a
/// load may be issued before it and its latency overlaps what the barriers
/// separate (RMSNorm's weight, read after the row's sum, is in flight while
/// the row is summed). LLVM does not move a load up across a call, and
/// ptxas does not move one across bar.sync. A load whose index needs an op
/// with memory effects after a barrier stays behind that barrier.
static void hoistReadOnlyLoads(ModuleOp module) {
  module.walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return;
    DenseSet<Value> readOnly = readOnlyViews(func);
    if (readOnly.empty())
      return;
    SmallVector<Operation *> loads;
    func.walk([&](Operation *op) {
      Value memref;
      if (auto load = dyn_cast<memref::LoadOp>(op))
        memref = load.getMemRef();
      else if (auto load = dyn_cast<vector::LoadOp>(op))
        memref = load.getBase();
      if (memref && readOnly.contains(memref))
        loads.push_back(op);
    });
    for (Operation *load : loads) {
      Block *block = load->getBlock();
      // The ops of this block that the load's operands come from.
      SetVector<Operation *> slice;
      SmallVector<Value> worklist(load->getOperands());
      while (!worklist.empty()) {
        Operation *def = worklist.pop_back_val().getDefiningOp();
        if (!def || def->getBlock() != block || !slice.insert(def))
          continue;
        llvm::append_range(worklist, def->getOperands());
      }
      // Up from the load: past barriers, and past the slice's ops while
      // they are free of memory effects and regions (they move along).
      Operation *before = nullptr;
      for (Operation *p = load->getPrevNode(); p; p = p->getPrevNode()) {
        if (slice.contains(p) &&
            (p->getNumRegions() != 0 || !isMemoryEffectFree(p)))
          break;
        if (isa<gpu::BarrierOp>(p))
          before = p;
      }
      if (!before)
        continue;
      SmallVector<Operation *> moved;
      for (Operation *op = before->getNextNode(); op != load;
           op = op->getNextNode())
        if (slice.contains(op))
          moved.push_back(op);
      moved.push_back(load);
      for (Operation *op : moved)
        op->moveBefore(before);
    }
  });
}

/// The loads of `func` that are the last to read what they read from a
/// read-only buffer. Their index varies with each block and thread id the
/// kernel reads and with each loop around them (no two blocks, threads or
/// iterations read the same element), and every other load of the buffer
/// that may read the same elements runs before them. A 4-, 8- or 16-byte
/// vector load or a 4-byte scalar one, aligned to its size.
static SmallVector<AccessInfo> lastUseLoads(gpu::GPUFuncOp func) {
  SmallVector<AccessInfo> out;
  DenseSet<Value> readOnly = readOnlyViews(func);
  if (readOnly.empty())
    return out;
  // The values each block and thread id takes (the launch's sizes, known
  // to the kernel once outlined from constants). A grid of run-time size
  // (one block per row of a run-time number) is read at the kernel's
  // launches: a dimension constant at all of them takes the largest, any
  // other any number of values (a digit the proof below accepts only as
  // the top one), whether the kernel reads that block id or not (blocks
  // that do not read it read the same elements). A thread id the kernel
  // uses with no known size makes no proof.
  static const char *xyz[] = {"x", "y", "z"};
  constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
  std::map<std::string, int64_t> counts;
  if (std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize())
    for (auto [i, n] : llvm::enumerate(*block))
      counts[std::string("tid.") + xyz[i]] = n;
  if (std::optional<ArrayRef<int32_t>> grid = func.getKnownGridSize()) {
    for (auto [i, n] : llvm::enumerate(*grid))
      counts[std::string("bid.") + xyz[i]] = n;
  } else {
    int64_t launchedGrid[3] = {1, 1, 1};
    bool launched = false;
    if (auto module = func->getParentOfType<ModuleOp>())
      module.walk([&](gpu::LaunchFuncOp launch) {
        if (SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
                launch, launch.getKernelAttr()) != func)
          return;
        launched = true;
        Value sizes[] = {launch.getGridSizeX(), launch.getGridSizeY(),
                         launch.getGridSizeZ()};
        for (auto [i, size] : llvm::enumerate(sizes)) {
          std::optional<int64_t> n = getConstantIntValue(size);
          launchedGrid[i] = std::max(launchedGrid[i], n ? *n : kUnbounded);
        }
      });
    for (unsigned i = 0; i < 3; ++i)
      counts[std::string("bid.") + xyz[i]] =
          launched ? launchedGrid[i] : kUnbounded;
  }
  bool unknown = false;
  func.walk([&](Operation *op) {
    // (Outlining defines every id of the launch; the unused ones vary
    // nothing.)
    if (op->use_empty())
      return;
    if (auto tid = dyn_cast<gpu::ThreadIdOp>(op))
      unknown |= !counts.count(std::string("tid.") +
                               xyz[unsigned(tid.getDimension())]);
  });
  if (unknown)
    return out;

  // The digits of a load's element index: the step and the count of each
  // id and each loop around the load that takes more than one value. The
  // index is sum(step x value) + constant. Nothing when a loop's trip
  // count is unknown or a term is neither an id nor such a loop.
  struct Digit {
    int64_t step, count;
    bool operator==(const Digit &o) const {
      return step == o.step && count == o.count;
    }
  };
  auto digitsOf = [&](const AccessInfo &a) -> std::optional<SmallVector<Digit>> {
    SmallVector<Digit> digits;
    std::set<std::string> seen;
    for (auto &[id, n] : counts)
      if (n > 1) {
        digits.push_back({a.offset->coefficient(id), n});
        seen.insert(id);
      }
    for (Operation *p = a.op->getParentOp(); p && p != func.getOperation();
         p = p->getParentOp()) {
      if (isa<scf::ForallOp, scf::ParallelOp>(p))
        return std::nullopt;
      auto loop = dyn_cast<scf::ForOp>(p);
      if (!loop)
        continue;
      unsigned depth = 0;
      for (Operation *q = p->getParentOp(); q; q = q->getParentOp())
        depth += isa<scf::ForOp, scf::ForallOp, scf::ParallelOp>(q);
      std::string term = "iv" + std::to_string(depth);
      std::optional<APInt> trips = loop.getStaticTripCount();
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      if (!trips || !step)
        return std::nullopt;
      // linearize counts a loop from a constant bound by its variable, one
      // from a variable bound (a thread's start) by its iterations.
      int64_t perTrip = a.offset->coefficient(term) *
                        (getConstantIntValue(loop.getLowerBound()) ? *step : 1);
      if (trips->getZExtValue() > 1)
        digits.push_back({perTrip, int64_t(trips->getZExtValue())});
      seen.insert(term);
    }
    for (auto &[term, coefficient] : a.offset->terms)
      if (!seen.count(term))
        return std::nullopt;
    for (Digit &d : digits)
      d.step = std::abs(d.step);
    llvm::sort(digits, [](const Digit &x, const Digit &y) {
      return x.step < y.step;
    });
    return digits;
  };
  // Whether each (block, thread, iteration) reads elements of its own:
  // each digit's step at least the span of the digits below it (a digit of
  // unbounded count spans everything: the top one only).
  auto distinct = [&](ArrayRef<Digit> digits, int64_t width) {
    int64_t span = width;
    for (auto [i, d] : llvm::enumerate(digits)) {
      if (d.step < span)
        return false;
      if (i + 1 == digits.size())
        break;
      int64_t reach;
      if (d.count == kUnbounded ||
          llvm::MulOverflow(d.step, d.count - 1, reach) ||
          llvm::AddOverflow(span, reach, span))
        return false;
    }
    return true;
  };
  // Whether two loads of such digits whose constants differ by `delta`
  // may read a common element: some difference of the digits' values
  // brings `delta` within the width (the digit nearest from the top down;
  // the digits below reach less than one step of it).
  std::function<bool(ArrayRef<Digit>, int64_t, int64_t)> meets =
      [&](ArrayRef<Digit> digits, int64_t delta, int64_t width) -> bool {
    if (digits.empty())
      return std::abs(delta) < width;
    const Digit &top = digits.back();
    int64_t q = delta / top.step;
    for (int64_t k : {q - 1, q, q + 1})
      if (std::abs(k) < top.count &&
          meets(digits.drop_back(), delta - k * top.step, width))
        return true;
    return false;
  };
  // `o` runs before `a` (in an iteration of the loops around both): in the
  // innermost block holding both, `o`'s op comes first.
  auto runsBefore = [](Operation *o, Operation *a) {
    for (Operation *y = a; y && y->getBlock(); y = y->getParentOp())
      if (Operation *x = y->getBlock()->findAncestorOpInBlock(*o))
        return x != y && x->isBeforeInBlock(y);
    return false;
  };

  SmallVector<AccessInfo> loads;
  for (AccessInfo &a : collectAccesses(func))
    if (!a.isStore && readOnly.contains(a.base) &&
        isa<memref::LoadOp, vector::LoadOp>(a.op))
      loads.push_back(a);
  for (const AccessInfo &a : loads) {
    int64_t bytes = int64_t(a.width) * a.elementBytes;
    if (!a.offset || a.space != "global" ||
        (bytes != 4 && bytes != 8 && bytes != 16) || a.alignment < bytes)
      continue;
    // A vector of 32-bit or narrower elements (read as 32-bit words), or
    // a 32-bit scalar.
    if (auto load = dyn_cast<vector::LoadOp>(a.op)) {
      if (load.getVectorType().getRank() != 1 ||
          load.getVectorType().getElementTypeBitWidth() > 32)
        continue;
    } else if (bytes != 4) {
      continue;
    }
    std::optional<SmallVector<Digit>> digits = digitsOf(a);
    if (!digits || !distinct(*digits, a.width))
      continue;
    // Every other load of the buffer that may read what `a` reads runs
    // before it: `a` is the last use (softmax's second pass over its row).
    // Loads of the same digits meet where their constants allow; any
    // other may meet.
    bool last = llvm::all_of(loads, [&](const AccessInfo &o) {
      if (o.op == a.op || o.root != a.root)
        return true;
      std::optional<SmallVector<Digit>> other =
          o.offset ? digitsOf(o) : std::nullopt;
      bool may = !other || *other != *digits ||
                 meets(*digits, o.offset->constant - a.offset->constant,
                       std::max(a.width, o.width));
      return !may || runsBefore(o.op, a.op);
    });
    if (last)
      out.push_back(a);
  }
  return out;
}

/// Makes each kernel safe to launch before the bundle's previous kernel
/// ends (programmatic dependent launch, which tirx-run uses for a kernel
/// the manifest marks early_launch). The kernel's entry becomes
///
///   griddepcontrol.launch_dependents  // the next kernel may be scheduled
///   griddepcontrol.wait               // the previous grid done, visible
///   cond_br (token != 0), ^trap, ^body
///
/// with everything the kernel did in ^body. The wait is inline PTX that
/// clobbers memory, so that LLVM moves no load or store above it, and it
/// yields a token (always 0) that the branch tests: a load LLVM takes for
/// free to move (the read-only and evict-first loads, which alias nothing
/// the asm may touch) still cannot run before the branch, which LLVM cannot
/// fold (ptxas folds it, and keeps the loads after the wait, which it takes
/// for a barrier: ACQBULK in the SASS). ^trap (never taken) traps: a second
/// way out of the kernel that returns would change the layout of its loops
/// (a latch of two branches).
/// Without programmatic launch both instructions return at once. Every
/// kernel a launch names has a body (outlining made it), so every one gets
/// the wait.
static void waitForPreviousGrid(ModuleOp module) {
  module.walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel() || func.getBody().empty())
      return;
    MLIRContext *ctx = func.getContext();
    Block *entry = &func.getBody().front();
    Block *body = entry->splitBlock(entry->begin());
    Block *trap = new Block();
    func.getBody().push_back(trap);
    Location loc = func.getLoc();
    OpBuilder b = OpBuilder::atBlockEnd(trap);
    LLVM::Trap::create(b, loc);
    gpu::ReturnOp::create(b, loc);
    b.setInsertionPointToEnd(entry);
    Type i32 = b.getI32Type();
    Value token =
        LLVM::InlineAsmOp::create(
            b, loc, i32, ValueRange{},
            "griddepcontrol.launch_dependents;\n\tgriddepcontrol.wait;\n\t"
            "mov.u32 $0, 0;",
            "=r,~{memory}", /*has_side_effects=*/true,
            /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
            LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
            ArrayAttr())
            .getResult(0);
    Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
    Value never = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                        token, zero);
    // ^trap never taken.
    cf::CondBranchOp::create(b, loc, never, trap, ValueRange{}, body,
                             ValueRange{},
                             /*branchWeights=*/ArrayRef<int32_t>{0, 1 << 20});
  });
}

/// Reads each element that a kernel reads once (lastUseLoads) with an L2
/// evict-first policy and without allocating in L1: `ld.global.nc` with
/// `L1::no_allocate` and `L2::cache_hint` (createpolicy ... evict_first).
/// Lines read once then leave the L2 first, and what the L2 held before
/// the kernel (another kernel's results, dirty lines that would otherwise
/// be written back to make room) stays. LLVM 22's NVPTX has no such load,
/// so it is inline PTX, and it reads nothing else: the buffer is read-only
/// for the whole kernel, so the load is free to move.
static void streamLastUseLoads(ModuleOp module) {
  module.walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return;
    // The address goes to the inline PTX as an integer, which LLVM takes
    // for an escape of the pointer: say that the kernel only reads the
    // buffer, or its other loads lose the read-only path (ld.global.nc).
    DenseSet<Value> readOnly = readOnlyViews(func);
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (readOnly.contains(func.getArgument(i)))
        func.setArgAttr(i, LLVM::LLVMDialect::getReadonlyAttrName(),
                        UnitAttr::get(func.getContext()));
    // The short loops around them, unrolled here: LLVM counts inline PTX
    // as a call, and would leave a loop of four such loads (softmax's
    // second pass on 512 threads) rolled where it unrolls plain loads.
    SetVector<Operation *> shortLoops;
    for (const AccessInfo &a : lastUseLoads(func)) {
      Operation *load = a.op;
      if (auto loop = load->getParentOfType<scf::ForOp>())
        if (std::optional<APInt> trips = loop.getStaticTripCount())
          if (trips->ule(8))
            shortLoops.insert(loop);
      OpBuilder b(load);
      Location loc = load->getLoc();
      ValueRange indices;
      Value memref;
      if (auto l = dyn_cast<memref::LoadOp>(load)) {
        memref = l.getMemref();
        indices = l.getIndices();
      } else {
        auto v = cast<vector::LoadOp>(load);
        memref = v.getBase();
        indices = v.getIndices();
      }
      auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
      Value offset = meta.getOffset();
      for (auto [index, stride] : llvm::zip(indices, meta.getStrides()))
        offset = arith::AddIOp::create(
            b, loc, offset, arith::MulIOp::create(b, loc, index, stride));
      Value base = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, meta.getBaseBuffer());
      Value bytes = arith::MulIOp::create(
          b, loc, offset,
          arith::ConstantIndexOp::create(b, loc, a.elementBytes));
      Value address = arith::IndexCastOp::create(
          b, loc, b.getI64Type(), arith::AddIOp::create(b, loc, base, bytes));
      int64_t words = int64_t(a.width) * a.elementBytes / 4;
      std::string results, constraints;
      for (int64_t w = 0; w < words; ++w) {
        results += (w ? ", $" : "$") + std::to_string(w);
        constraints += "=r,";
      }
      constraints += "l";
      std::string vec = words == 1 ? "" : ".v" + std::to_string(words);
      std::string ptx =
          "{\n\t.reg .b64 %tirx_evict_first;\n\t"
          "createpolicy.fractional.L2::evict_first.b64 %tirx_evict_first, "
          "1.0;\n\tld.global.nc.L1::no_allocate.L2::cache_hint" +
          vec + ".b32 " + (words == 1 ? results : "{" + results + "}") +
          ", [$" + std::to_string(words) + "], %tirx_evict_first;\n\t}";
      Type i32 = b.getI32Type();
      Type resultType =
          words == 1 ? i32
                     : LLVM::LLVMStructType::getLiteral(
                           b.getContext(), SmallVector<Type>(words, i32));
      auto asmOp = LLVM::InlineAsmOp::create(
          b, loc, resultType, ValueRange{address}, ptx, constraints,
          /*has_side_effects=*/false, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
          ArrayAttr());
      Value loaded;
      if (words == 1) {
        loaded = asmOp.getResult(0);
      } else {
        SmallVector<Value> parts;
        for (int64_t w = 0; w < words; ++w)
          parts.push_back(LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0),
                                                       ArrayRef<int64_t>{w}));
        loaded = vector::FromElementsOp::create(
            b, loc, VectorType::get({words}, i32), parts);
      }
      Type type = load->getResult(0).getType();
      if (isa<VectorType>(type))
        loaded = vector::BitCastOp::create(b, loc, cast<VectorType>(type),
                                           words == 1
                                               ? vector::FromElementsOp::create(
                                                     b, loc,
                                                     VectorType::get({1}, i32),
                                                     ValueRange{loaded})
                                                     .getResult()
                                               : loaded);
      else if (type != i32)
        loaded = arith::BitcastOp::create(b, loc, type, loaded);
      load->getResult(0).replaceAllUsesWith(loaded);
      load->erase();
    }
    for (Operation *loop : shortLoops)
      (void)loopUnrollFull(cast<scf::ForOp>(loop));
  });
}

LogicalResult ExportBundlePass::collect(ModuleOp prepared,
                                        rt::Manifest &manifest) {
  // The payload: the one function that launches kernels.
  SmallVector<func::FuncOp> payloads;
  prepared.walk([&](func::FuncOp f) {
    if (!f.getOps<gpu::LaunchFuncOp>().empty() ||
        f->walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      payloads.push_back(f);
  });
  if (payloads.size() != 1) {
    InFlightDiagnostic diag =
        prepared.emitError()
        << "tirx-export-bundle: expected exactly one function that "
           "launches kernels, found "
        << payloads.size();
    // None: nothing of the payload is on the GPU, which is what to say
    // (`tirx run` of a version not scheduled yet, or a seed the reference
    // mapper leaves on the host).
    if (payloads.empty())
      diag << (reference
                   ? ": tirx-map-reference mapped no loop of the payload to "
                     "the GPU (a reduction to a 0-d result has no parallel "
                     "loop to map); the run needs a reference mapped by hand"
                   : ": the payload is not mapped to the GPU yet "
                     "(tile_to_blocks and tile_to_threads, then map_to_gpu "
                     "make its kernels; tirx auto chooses them)");
    return diag;
  }
  func::FuncOp payload = payloads.front();
  manifest.payload = payload.getSymName().str();
  SymbolTable symbols(prepared);

  // Parameters, in signature order.
  for (BlockArgument arg : payload.getArguments()) {
    unsigned i = arg.getArgNumber();
    rt::Param param;
    if (auto name = payload.getArgAttrOfType<StringAttr>(i, "tirx.name"))
      param.name = name.str();
    else
      param.name = "arg" + std::to_string(i);
    auto describe = [&]() {
      return "parameter #" + std::to_string(i) + " (" + param.name + ") of @" +
             manifest.payload;
    };
    // The runner names files after it (--dump-io) and refuses a name that
    // would reach another directory: refused here, at the payload.
    if (!rt::plainFileName(param.name))
      return payload.emitError()
             << "tirx-export-bundle: " << describe()
             << ": tirx.name must be a plain name (no '/', not '.' or '..'): "
                "the runner writes files named after it";
    // The domain its elements are drawn from (tirx.domain).
    std::string problem;
    FailureOr<std::optional<rt::Domain>> domain =
        mlir::tirx::declaredDomain(payload, i, problem);
    if (failed(domain))
      return payload.emitError()
             << "tirx-export-bundle: " << describe() << ": " << problem;
    param.domain = domain->value_or(rt::Domain::signed_unit);
    if (auto memref = dyn_cast<MemRefType>(arg.getType())) {
      auto type = elementTypeOf(memref.getElementType());
      if (!type)
        return payload.emitError()
               << "tirx-export-bundle: " << describe() << " has element type "
               << memref.getElementType() << ", which the runner cannot fill"
               << (memref.getElementType().isInteger(1)
                       ? " (a mask of i1, torch's bool: pass it as i8, a "
                         "byte an element as torch stores it, and test it "
                         "with arith.cmpi ne 0 where it is read)"
                       : "");
      if (!memref.getLayout().isIdentity())
        return payload.emitError()
               << "tirx-export-bundle: " << describe() << " of type " << memref
               << " has a non-identity layout: the bundle needs the identity "
                  "layout";
      // An empty buffer (torch's x[:0], a batch of none): the runner
      // allocates, fills and compares none, and a manifest declares none.
      if (llvm::is_contained(memref.getShape(), int64_t(0)))
        return payload.emitError()
               << "tirx-export-bundle: " << describe() << " (" << memref
               << ") has a dimension of size 0: the runner takes no empty "
                  "buffer, and a payload over one has nothing to compute; "
                  "give the dimension a nonzero size";
      param.isBuffer = true;
      param.type = *type;
      param.shape.assign(memref.getShape().begin(), memref.getShape().end());
      if (memref.hasStaticShape())
        param.bytes =
            uint64_t(memref.getNumElements()) * rt::elementBytes(*type);
      // A dimension of run-time size: the size it is (tirx.dims), declared
      // once in the manifest's sizes.
      for (int64_t d = 0; d < memref.getRank(); ++d) {
        if (!memref.isDynamicDim(d))
          continue;
        std::string name = mlir::tirx::sizeName(payload, i, unsigned(d));
        if (name.empty())
          return payload.emitError()
                 << "tirx-export-bundle: dynamic_shape: dimension " << d
                 << " of " << describe() << " (" << memref
                 << ") has a run-time size no tirx.dims names; bufferize (or "
                    "tile_to_blocks) names the sizes of a payload";
        param.shapeExprs.resize(memref.getRank());
        param.shapeExprs[d] = name;
        param.shape[d] = 1;
        if (llvm::none_of(manifest.sizes,
                          [&](const rt::Size &s) { return s.name == name; })) {
          rt::Size size;
          size.name = name;
          size.param = int(i);
          size.dim = int(d);
          size.defaultValue = mlir::tirx::kDefaultDynamicSize;
          // Guarded tails: any extent; the grid's limits are checked when
          // the sizes are bound.
          size.max = int64_t(1) << 31;
          manifest.sizes.push_back(size);
        }
      }
      bool reads = false, writes = false;
      collectEffects(arg, reads, writes);
      // Through the launches, into the kernels.
      payload.walk([&](gpu::LaunchFuncOp launch) {
        for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands()))
          if (operand == arg)
            if (auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
                    launch, launch.getKernelAttr()))
              collectEffects(kernel.getArgument(index), reads, writes);
      });
      param.role = reads && writes ? rt::Role::inout
                   : writes        ? rt::Role::out
                                   : rt::Role::in;
      // What the seed says (tirx-map-reference marks a fresh output that
      // its fill writes before anything reads it): the initial contents do
      // not matter, whatever the kernels read back.
      if (Attribute role = payload.getArgAttr(i, "tirx.role")) {
        auto text = dyn_cast<StringAttr>(role);
        if (!text || text.getValue() != "out")
          return payload.emitError()
                 << "tirx-export-bundle: " << describe()
                 << " has tirx.role = " << role
                 << "; the only role a payload declares is \"out\" (a "
                    "buffer written before it is read)";
        if (!writes)
          return payload.emitError()
                 << "tirx-export-bundle: " << describe()
                 << " has tirx.role = \"out\" but nothing writes it";
        param.role = rt::Role::out;
      }
    } else {
      auto type = elementTypeOf(arg.getType());
      Attribute value = payload.getArgAttr(i, "tirx.value");
      if (!type)
        return payload.emitError()
               << "tirx-export-bundle: " << describe() << " of type "
               << arg.getType()
               << " is neither a buffer nor a scalar the runner can pass "
                  "(f32, f64, f16, bf16, i8, i32, i64, index)";
      param.isBuffer = false;
      param.type = *type;
      // Without {tirx.value = ...}, the runner seeds the scalar from the
      // run's seed, the same for the kernel and the reference.
      param.seeded = !value;
      if (auto f = dyn_cast_or_null<FloatAttr>(value))
        param.value = f.getValueAsDouble();
      else if (auto n = dyn_cast_or_null<IntegerAttr>(value))
        param.value = double(n.getValue().getSExtValue());
      else if (value)
        return payload.emitError() << "tirx-export-bundle: tirx.value of "
                                   << describe() << " is not a number";
    }
    manifest.params.push_back(param);
  }

  // Launches, in program order.
  SmallVector<Operation *> scratchAllocs; // manifest.scratch's allocations
  // A buffer the function allocates for its kernels: a scratch buffer the
  // runner allocates (its index in manifest.scratch); an error on `launch`
  // when the bundle cannot describe it.
  auto scratchOf = [&](memref::AllocOp alloc, size_t index,
                       gpu::LaunchFuncOp launch,
                       const std::string &where) -> std::optional<int> {
    MemRefType type = alloc.getType();
    std::optional<rt::ElementType> element =
        elementTypeOf(type.getElementType());
    // What keeps the runner from allocating it, named (a scratch buffer
    // needs a shape of sizes, the identity layout, global memory and an
    // element type of the manifest).
    std::string problem;
    // Dynamic extents: expressions of the sizes.
    std::vector<std::string> extents;
    for (int64_t d = 0, k = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      std::optional<std::string> e =
          mlir::tirx::sizeExpression(alloc.getDynamicSizes()[k++]);
      extents.resize(type.getRank());
      extents[d] = e ? *e : std::string();
      if (!e && problem.empty())
        problem = "the run-time size of its dimension " + std::to_string(d) +
                  " is no expression of the payload's sizes (tirx.dims)";
    }
    if (!element)
      problem = "its element type is none a manifest holds (f32, f64, f16, "
                "bf16, i8, i32, i64)" +
                std::string(type.getElementType().isInteger(1)
                                ? ": a mask of i1 that one kernel writes and "
                                  "another reads; make it i8 in the payload "
                                  "(arith.extui where it is made, "
                                  "arith.cmpi ne 0 where it is read)"
                                : "");
    else if (!type.getLayout().isIdentity())
      problem = "a scratch buffer needs the identity layout";
    else if (type.getMemorySpace())
      problem = "a scratch buffer needs global memory (no memory space)";
    if (!problem.empty()) {
      launch.emitError() << "tirx-export-bundle: kernel argument #" << index
                         << " of " << where << " is an allocation of " << type
                         << ": " << problem;
      return std::nullopt;
    }
    auto found = llvm::find(scratchAllocs, alloc.getOperation());
    int at = int(found - scratchAllocs.begin());
    if (found == scratchAllocs.end()) {
      scratchAllocs.push_back(alloc);
      rt::Scratch scratch;
      scratch.name = "scratch" + std::to_string(at);
      scratch.type = *element;
      scratch.shape.assign(type.getShape().begin(), type.getShape().end());
      scratch.shapeExprs = extents;
      for (size_t d = 0; d < extents.size(); ++d)
        if (!extents[d].empty())
          scratch.shape[d] = 1;
      if (type.hasStaticShape())
        scratch.bytes = uint64_t(type.getNumElements()) *
                        rt::elementBytes(*element);
      manifest.scratch.push_back(scratch);
    }
    return at;
  };
  WalkResult walk = payload.walk([&](gpu::LaunchFuncOp launch) -> WalkResult {
    rt::Kernel kernel;
    kernel.name = launch.getKernelName().str();
    std::string where = "gpu.launch_func @" + launch.getKernelModuleName().str() +
                        "::@" + kernel.name;
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    Value dims[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
    const char *names[6] = {"grid x", "grid y", "grid z",
                            "block x", "block y", "block z"};
    for (int d = 0; d < 6; ++d) {
      std::optional<int64_t> c = getConstantIntValue(dims[d]);
      // A grid computed from run-time sizes: its expression.
      if (!c && d < 3)
        if (std::optional<std::string> e = mlir::tirx::sizeExpression(dims[d])) {
          kernel.gridExprs[d] = *e;
          continue;
        }
      if (!c || *c < 1) {
        launch.emitError() << "tirx-export-bundle: " << names[d] << " of "
                           << where << " is not a static positive size";
        return WalkResult::interrupt();
      }
      // CUDA's limits on a grid, which tirx-run checks the manifest
      // against (a grid of run-time size when its sizes are bound).
      const int64_t *gridLimit = rt::kGridMax;
      if (d < 3 && *c > gridLimit[d]) {
        launch.emitError()
            << "tirx-export-bundle: " << names[d] << " of " << where
            << " is " << *c << " blocks; CUDA launches at most "
            << gridLimit[1] << " along y and z, " << gridLimit[0]
            << " along x: map the loop with the most blocks to x "
               "(map_to_gpu does where one loop only has more than "
            << gridLimit[1] << ") or tile it larger (tile_to_blocks)";
        return WalkResult::interrupt();
      }
      (d < 3 ? kernel.grid[d] : kernel.block[d - 3]) = *c;
    }
    if (Value smem = launch.getDynamicSharedMemorySize()) {
      std::optional<int64_t> c = getConstantIntValue(smem);
      if (!c) {
        launch.emitError() << "tirx-export-bundle: dynamic shared memory of "
                           << where << " is not static";
        return WalkResult::interrupt();
      }
      kernel.dynamicSharedBytes = *c;
    }
    for (auto [index, operand] : llvm::enumerate(launch.getKernelOperands())) {
      rt::KernelArg arg;
      if (auto blockArg = dyn_cast<BlockArgument>(operand);
          blockArg && blockArg.getOwner() == &payload.getBody().front()) {
        arg.param = int(blockArg.getArgNumber());
      } else if (memref::AllocOp alloc = bodyAllocation(operand, payload)) {
        std::optional<int> at = scratchOf(alloc, index, launch, where);
        if (!at)
          return WalkResult::interrupt();
        arg.scratch = *at;
      } else if (memref::AllocOp copied;
                 std::optional<rt::TensorMapArg> map =
                     tensorMapOf(operand, payload, copied)) {
        if (copied) {
          std::optional<int> at = scratchOf(copied, index, launch, where);
          if (!at)
            return WalkResult::interrupt();
          map->scratch = *at;
        }
        arg.tensorMap = std::move(*map);
      } else if (auto type = elementTypeOf(operand.getType());
                 type && operand.getDefiningOp<arith::ConstantOp>()) {
        arg.type = *type;
        Attribute value = operand.getDefiningOp<arith::ConstantOp>().getValue();
        if (auto f = dyn_cast<FloatAttr>(value))
          arg.value = f.getValueAsDouble();
        else
          arg.value = double(cast<IntegerAttr>(value).getValue().getSExtValue());
      } else if (std::optional<std::string> e =
                     operand.getType().isIntOrIndex()
                         ? mlir::tirx::sizeExpression(operand)
                         : std::nullopt) {
        // An index the host computes from the run-time sizes.
        arg.type = operand.getType().isInteger(32) ? rt::ElementType::i32
                                                   : rt::ElementType::i64;
        arg.valueExpr = *e;
      } else {
        launch.emitError() << "tirx-export-bundle: kernel argument #" << index
                           << " of " << where << " "
                           << hostArgumentProblem(operand, payload)
                           << ": the bundle cannot reproduce it";
        return WalkResult::interrupt();
      }
      kernel.args.push_back(arg);
    }

    // What the kernel does: accesses to global buffers and flops.
    auto func = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernelAttr());
    if (!func) {
      launch.emitError() << "tirx-export-bundle: " << where
                         << " names no gpu.func";
      return WalkResult::interrupt();
    }
    int64_t threads = kernel.block[0] * kernel.block[1] * kernel.block[2] *
                      kernel.grid[0] * kernel.grid[1] * kernel.grid[2];
    double perThread = countFlopsPerThread(func, kernel.block[0]);
    kernel.flops = uint64_t(std::llround(perThread * double(threads)));
    if (llvm::any_of(kernel.gridExprs,
                     [](const std::string &e) { return !e.empty(); })) {
      // Per block, times the blocks the sizes give.
      int64_t perBlock = std::llround(perThread * double(kernel.block[0] *
                                                         kernel.block[1] *
                                                         kernel.block[2]));
      std::string e = std::to_string(perBlock);
      for (int d = 0; d < 3; ++d)
        if (!kernel.gridExprs[d].empty() || kernel.grid[d] != 1)
          e += " * " + (kernel.gridExprs[d].empty()
                            ? std::to_string(kernel.grid[d])
                            : kernel.gridExprs[d]);
      kernel.flopsExpr = perBlock ? e : "";
      kernel.flops = 0;
    }
    // The math mode of the products on tensor cores (Manifest.h): tf32
    // (use_mma on f32, use_wgmma's wgmma.mma_async on f32), f16 or bf16
    // (mma.sync 16x8x16, bf16 as nvvm.mma.sync here, lowered already by
    // tirx-lower-bf16-mma; use_wgmma's 16-bit products, as
    // nvgpu.warpgroup.mma or nvvm.wgmma.mma_async): the check's tolerance
    // and the roofline's peak follow it.
    func.walk([&](Operation *op) {
      if (std::optional<mlir::tirx::InlineWgmma> wgmma = mlir::tirx::inlineWgmma(op)) {
        if (wgmma->typeA == "tf32" || wgmma->typeA == "f16" ||
            wgmma->typeA == "bf16")
          manifest.math = wgmma->typeA;
      } else if (auto wgmma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
        if (wgmma.getTypeA() == NVVM::WGMMATypes::tf32)
          manifest.math = "tf32";
        else if (wgmma.getTypeA() == NVVM::WGMMATypes::f16)
          manifest.math = "f16";
        else if (wgmma.getTypeA() == NVVM::WGMMATypes::bf16)
          manifest.math = "bf16";
      } else if (auto wgmma = dyn_cast<nvgpu::WarpgroupMmaOp>(op)) {
        MemRefType tile = wgmma.getDescriptorA().getType().getTensor();
        Type a = tile ? tile.getElementType() : Type();
        if (a && (a.isF16() || a.isBF16()))
          manifest.math = a.isF16() ? "f16" : "bf16";
      } else if (auto mma = dyn_cast<nvgpu::MmaSyncOp>(op)) {
        Type a = mma.getMatrixA().getType().getElementType();
        if (mma.getTf32Enabled())
          manifest.math = "tf32";
        else if (a.isF16() || a.isBF16())
          manifest.math = a.isF16() ? "f16" : "bf16";
      } else if (op->getName().getStringRef() == "nvvm.mma.sync") {
        if (Attribute t = op->getAttr("multiplicandAPtxType")) {
          std::string text;
          llvm::raw_string_ostream os(text);
          t.print(os);
          if (llvm::StringRef(text).contains("<bf16>"))
            manifest.math = "bf16";
          else if (llvm::StringRef(text).contains("<f16>"))
            manifest.math = "f16";
        }
      }
    });
    for (const AccessInfo &a : collectAccesses(func)) {
      auto arg = dyn_cast<BlockArgument>(a.root);
      if (!arg || !isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()) ||
          arg.getArgNumber() >= kernel.args.size())
        continue; // shared or private memory
      const rt::KernelArg &karg = kernel.args[arg.getArgNumber()];
      if (!karg.param)
        continue;
      rt::Access access;
      access.buffer = manifest.params[*karg.param].name;
      access.isStore = a.isStore;
      access.width = a.width;
      access.bytes = a.width * std::max(1u, a.elementBytes);
      access.alignment = a.alignment;
      // Unknown strides make no claim; broadcasts waste nothing.
      access.contiguous = a.pattern != "strided";
      access.path = "func @" + manifest.payload + " / gpu.launch_func @" +
                    kernel.name + " / " +
                    a.op->getName().getStringRef().str() +
                    (a.isStore ? " (store " : " (load ") + access.buffer + ")";
      access.loc = locationText(a.op->getLoc());
      kernel.accesses.push_back(access);
    }
    manifest.kernels.push_back(kernel);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // With a buffer of run-time shape, the kernels take memref descriptors
  // (the lowering's kernel-bare-ptr-calling-convention is off for all).
  if (!manifest.sizes.empty() ||
      llvm::any_of(manifest.scratch,
                   [](const rt::Scratch &s) { return !s.shapeExprs.empty(); }))
    for (rt::Kernel &kernel : manifest.kernels)
      for (rt::KernelArg &arg : kernel.args)
        arg.descriptor = arg.scratch || (arg.param &&
                                         manifest.params[*arg.param].isBuffer);
  return success();
}

/// Whether `name` is a PTX identifier TIRx gives kernels and bundle files:
/// a letter or '_', then letters, digits, '_' or '$' (PTX also takes '%'
/// and a leading '$', which a file name should not have).
static bool isPtxIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name.front()) || name.front() == '_'))
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$';
  });
}

LogicalResult
ExportBundlePass::writeBinaries(ModuleOp lowered, rt::Manifest &manifest,
                                const mlir::tirx::TIRxLowerToNVVMOptions &options) {
  std::string ptxasPath = ptxas;
  if (ptxasPath.empty()) {
    SmallString<256> inToolkit(options.toolkit);
    llvm::sys::path::append(inToolkit, "bin", "ptxas");
    ptxasPath = inToolkit.str().str();
  }
  bool buildCubin = ptxasPath != "none";
  if (buildCubin && !llvm::sys::fs::can_execute(ptxasPath))
    return lowered.emitError()
           << "tirx-export-bundle: ptxas not found at '" << ptxasPath
           << "': install the CUDA toolkit or pass ptxas=none for PTX only";

  llvm::StringMap<std::string> ptxOfModule;
  for (auto binary : lowered.getOps<gpu::BinaryOp>()) {
    for (Attribute objectAttr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(objectAttr);
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
        continue;
      ptxOfModule[binary.getSymName()] = object.getObject().str();
      break;
    }
  }

  // The lowered module keeps the launches, in the same order as the
  // manifest's kernels; each names its kernel's module (kernels of several
  // modules may share a name: rowsum_kernel in @rowsum_kernel and
  // @rowsum_kernel_0).
  SmallVector<std::string> modules;
  lowered.walk([&](gpu::LaunchFuncOp launch) {
    modules.push_back(launch.getKernelModuleName().str());
  });
  if (modules.size() != manifest.kernels.size())
    return lowered.emitError()
           << "tirx-export-bundle: the lowered module has " << modules.size()
           << " launches, the manifest " << manifest.kernels.size();
  SmallVector<std::string> written;
  for (auto [kernel, moduleName] : llvm::zip(manifest.kernels, modules)) {
    auto it = ptxOfModule.find(moduleName);
    if (it == ptxOfModule.end())
      return lowered.emitError() << "tirx-export-bundle: no PTX was produced "
                                    "for kernel @"
                                 << kernel.name;
    kernel.ptxFile = moduleName + ".ptx";
    SmallString<256> ptxPath(dir);
    llvm::sys::path::append(ptxPath, kernel.ptxFile);
    if (!llvm::is_contained(written, moduleName)) {
      std::error_code ec;
      llvm::raw_fd_ostream out(ptxPath, ec);
      if (ec)
        return lowered.emitError() << "tirx-export-bundle: cannot write "
                                   << ptxPath << ": " << ec.message();
      out << it->second;
      written.push_back(moduleName);
    }
    if (!buildCubin)
      continue;
    kernel.cubinFile = moduleName + ".cubin";
    SmallString<256> cubinPath(dir);
    llvm::sys::path::append(cubinPath, kernel.cubinFile);
    SmallString<256> logPath(dir);
    llvm::sys::path::append(logPath, moduleName + ".ptxas.log");
    std::string arch = "-arch=" + options.chip;
    SmallVector<StringRef> args = {ptxasPath, arch, "-v", "-o", cubinPath,
                                   ptxPath};
    std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                            StringRef(logPath)};
    std::string message;
    int rc = llvm::sys::ExecuteAndWait(ptxasPath, args, std::nullopt,
                                       redirects, /*SecondsToWait=*/120, 0,
                                       &message);
    auto log = llvm::MemoryBuffer::getFile(logPath);
    std::string logText = log ? (*log)->getBuffer().str() : "";
    if (rc != 0)
      return lowered.emitError()
             << "tirx-export-bundle: ptxas failed for @" << kernel.name
             << " (exit " << rc << (message.empty() ? "" : ", " + message)
             << "): " << logText;
    rt::parsePtxasReport(logText, kernel.name, kernel.ptxas);
  }
  return success();
}

void ExportBundlePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (dir.empty()) {
    module.emitError() << "tirx-export-bundle: the option dir= is required";
    return signalPassFailure();
  }
  mlir::tirx::TIRxLowerToNVVMOptions options;
  options.chip = chip;
  options.features = features;
  options.format = "isa";
  if (failed(mlir::tirx::selectChipForKernels(
          module, options, [&] { return module.emitError(); })) ||
      failed(mlir::tirx::validateLowerToNVVMOptions(
          options, [&] { return module.emitError(); })))
    return signalPassFailure();
  // The toolkit gives libdevice to the lowering and, unless ptxas= names
  // one, ptxas to the cubins; a toolkit named here must be usable.
  llvm::Expected<std::string> found =
      mlir::tirx::findCudaToolkit(toolkit, /*required=*/ptxas.empty());
  if (!found) {
    module.emitError() << "tirx-export-bundle: "
                       << llvm::toString(found.takeError())
                       << ", or pass ptxas=none for PTX only";
    return signalPassFailure();
  }
  options.toolkit = *found;

  if (std::optional<mlir::tirx::TensorUse> tensor =
          mlir::tirx::findTensorUse(module)) {
    tensor->op->emitError()
        << "tirx-export-bundle: the payload works on tensors ("
        << tensor->what << " is " << tensor->type
        << "): a kernel reads and writes buffers; apply bufferize first "
           "(the bufferize action, or tirx-opt --tirx-bufferize)";
    return signalPassFailure();
  }

  // The names of functions and kernel modules become PTX symbols (LLVM
  // aborts the process on one PTX does not take) and file names in the
  // bundle (a module named "../../x" wrote its PTX outside it): PTX's
  // identifiers only.
  WalkResult names = module.walk([&](Operation *op) {
    if (!isa<func::FuncOp, gpu::GPUModuleOp, gpu::GPUFuncOp>(op))
      return WalkResult::advance();
    StringRef name = cast<SymbolOpInterface>(op).getName();
    if (isPtxIdentifier(name))
      return WalkResult::advance();
    op->emitError() << "tirx-export-bundle: the name @\"" << name
                    << "\" is not a PTX identifier (a letter or '_', then "
                       "letters, digits, '_' or '$'): kernels and their files "
                       "are named after it; rename it";
    return WalkResult::interrupt();
  });
  if (names.wasInterrupted())
    return signalPassFailure();

  // Work on a copy: the payload stays as it was.
  OwningOpRef<ModuleOp> copy = module.clone();
  std::vector<std::string> passes; // what lowered it, for passes.txt
  auto runStrict = [&](function_ref<void(OpPassManager &)> build) {
    PassManager manager(module.getContext(), ModuleOp::getOperationName());
    mlir::tirx::recordPasses(manager, passes);
    build(manager);
    return mlir::tirx::runPipelineStrictly(
        manager, *copy, [&](OpPassManager &, ModuleOp m) {
          return manager.run(m);
        });
  };

  // The reference: upstream's passes alone (ReferencePipeline.cpp).
  if (failed(runStrict([&](OpPassManager &pm) {
        if (reference)
          mlir::tirx::buildReferencePreparePipeline(pm);
        else
          mlir::tirx::buildPrepareForNVVMPipeline(pm);
      })))
    return signalPassFailure();

  rt::Manifest manifest;
  manifest.irVersion = irVersion;
  manifest.chip = options.chip;
  manifest.features = options.features;
  if (auto terms = module->getAttrOfType<IntegerAttr>("tirx.reduction_length"))
    manifest.reductionLength = terms.getInt();
  if (failed(collect(*copy, manifest)))
    return signalPassFailure();
  if (llvm::any_of(manifest.kernels, [](const rt::Kernel &k) {
        return llvm::any_of(k.args,
                            [](const rt::KernelArg &a) { return a.descriptor; });
      }))
    options.barePtr = false;
  // The reference keeps upstream's lowering as it is. (Upstream carries
  // noalias to bare pointers only; with memref descriptors the marks still
  // let the hoisting and the last reads below know the read-only buffers.)
  if (!reference) {
    markDistinctBuffers(*copy, manifest);
    hoistReadOnlyLoads(*copy);
    streamLastUseLoads(*copy);
    // Descriptors: the marks have served; upstream would only warn that it
    // cannot carry them.
    if (!options.barePtr)
      copy->walk([](gpu::GPUFuncOp func) {
        for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
          func.removeArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName());
      });
    // Last of the rewrites, so that none of them hoists an access above
    // the wait.
    if (rt::chipRunsGridDependency(options.chip)) {
      waitForPreviousGrid(*copy);
      for (rt::Kernel &kernel : manifest.kernels)
        kernel.earlyLaunch = true;
    }
  }

  if (failed(runStrict([&](OpPassManager &pm) {
        mlir::tirx::buildNVVMCodegenPipeline(pm, options);
      })))
    return signalPassFailure();

  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    module.emitError() << "tirx-export-bundle: cannot create '" << dir
                       << "': " << ec.message();
    return signalPassFailure();
  }
  if (reference)
    for (const std::string &pass : passes)
      if (mlir::tirx::isTIRxRewritingPass(pass)) {
        module.emitError() << "tirx-export-bundle: the reference was lowered "
                              "through TIRx's rewriting pass "
                           << pass << "; it must be lowered by upstream's "
                                      "passes alone";
        return signalPassFailure();
      }
  if (failed(writeBinaries(*copy, manifest, options)))
    return signalPassFailure();
  SmallString<256> passesPath(dir);
  llvm::sys::path::append(passesPath, "passes.txt");
  std::error_code ec;
  llvm::raw_fd_ostream passesOut(passesPath, ec);
  if (ec) {
    module.emitError() << "tirx-export-bundle: cannot write " << passesPath
                       << ": " << ec.message();
    return signalPassFailure();
  }
  for (const std::string &pass : passes)
    passesOut << pass << "\n";
  std::string error;
  if (!rt::writeManifest(dir, manifest, error)) {
    module.emitError() << "tirx-export-bundle: " << error;
    return signalPassFailure();
  }
  markAllAnalysesPreserved();
}
