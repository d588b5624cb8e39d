//===- LowerToNVVM.cpp - tirx-lower-to-nvvm ---------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The one lowering a user needs: a GPU-mapped payload to a gpu.binary. It
// wraps upstream's gpu-lower-to-nvvm-pipeline with the steps that pipeline
// leaves to the user (see docs/lowering.md) and turns every error
// diagnostic into a pass failure.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "tirx/Support/KernelTypes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <atomic>
#include <functional>
#include <cstdlib>

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXALIGNWORKGROUPBUFFERS
#define GEN_PASS_DEF_TIRXWORKGROUPALLOCS
#define GEN_PASS_DEF_TIRXSINKCONSTANTS
#define GEN_PASS_DEF_TIRXLOWERTONVVM
#define GEN_PASS_DEF_TIRXPREPARELAUNCHES
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;
using namespace mlir::tirx;

// Chips known to both LLVM 22's NVPTX backend and CUDA 13's ptxas, with the
// first PTX ISA version that supports each (PTX ISA manual, "Release notes").
static const ChipInfo kChips[] = {
    {"sm_75", 63},   {"sm_80", 70},   {"sm_86", 71},   {"sm_87", 74},
    {"sm_88", 90},   {"sm_89", 78},   {"sm_90", 78},   {"sm_90a", 80},
    {"sm_100", 86},  {"sm_100a", 86}, {"sm_100f", 88}, {"sm_103", 88},
    {"sm_103a", 88}, {"sm_103f", 88}, {"sm_110", 90},  {"sm_110a", 90},
    {"sm_110f", 90}, {"sm_120", 87},  {"sm_120a", 87}, {"sm_120f", 88},
    {"sm_121", 88},  {"sm_121a", 88}, {"sm_121f", 88},
};

std::optional<ChipInfo> mlir::tirx::lookupChip(StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return chip;
  return std::nullopt;
}

std::string mlir::tirx::supportedChipList() {
  return llvm::join(llvm::map_range(kChips,
                                    [](const ChipInfo &c) { return c.name; }),
                    ", ");
}

FailureOr<std::optional<unsigned>>
mlir::tirx::parsePtxFeature(StringRef features) {
  std::optional<unsigned> version;
  SmallVector<StringRef> entries;
  features.split(entries, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    entry = entry.trim();
    if (!entry.consume_front("+ptx"))
      continue;
    unsigned value = 0;
    if (entry.getAsInteger(10, value) || value < 10)
      return failure();
    version = value;
  }
  return version;
}

static std::string ptxName(unsigned version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

LogicalResult mlir::tirx::validateLowerToNVVMOptions(
    TIRxLowerToNVVMOptions &options,
    function_ref<InFlightDiagnostic()> emitError) {
  std::optional<ChipInfo> chip = lookupChip(options.chip);
  if (!chip)
    return emitError() << "tirx-lower-to-nvvm: unsupported chip '"
                       << options.chip << "'; supported: "
                       << supportedChipList();

  FailureOr<std::optional<unsigned>> ptx = parsePtxFeature(options.features);
  if (failed(ptx))
    return emitError() << "tirx-lower-to-nvvm: malformed PTX feature in '"
                       << options.features << "'; expected e.g. +ptx80";
  if (!*ptx) {
    std::string minimum = "+ptx" + std::to_string(chip->minPtxVersion);
    options.features = options.features.empty()
                           ? minimum
                           : minimum + "," + options.features;
  } else if (**ptx < chip->minPtxVersion) {
    return emitError() << "tirx-lower-to-nvvm: PTX " << ptxName(**ptx)
                       << " does not support " << chip->name << "; use +ptx"
                       << chip->minPtxVersion << " (PTX "
                       << ptxName(chip->minPtxVersion) << ") or newer";
  }

  if (!llvm::is_contained({"isa", "bin", "fatbin"}, options.format))
    return emitError() << "tirx-lower-to-nvvm: unknown format '"
                       << options.format << "'; expected isa, bin or fatbin";
  if (options.optLevel < 0 || options.optLevel > 3)
    return emitError() << "tirx-lower-to-nvvm: opt-level must be 0 to 3, got "
                       << options.optLevel;
  return success();
}

bool mlir::tirx::chipHasWgmma(llvm::StringRef chip) {
  return chip == "sm_90" || chip == "sm_90a";
}

LogicalResult mlir::tirx::selectChipForKernels(
    ModuleOp module, TIRxLowerToNVVMOptions &options,
    function_ref<InFlightDiagnostic()> emitError) {
  Operation *hopperOnly = nullptr;
  module.walk([&](Operation *op) {
    if (isa<nvgpu::WarpgroupMmaOp, NVVM::WgmmaMmaAsyncOp,
            nvgpu::TmaAsyncLoadOp>(op)) {
      hopperOnly = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!hopperOnly)
    return success();
  if (!chipHasWgmma(options.chip))
    return emitError() << "tirx-lower-to-nvvm: '"
                       << hopperOnly->getName().getStringRef()
                       << "' (use_wgmma) needs sm_90a (wgmma and TMA), but "
                          "the chip is "
                       << options.chip;
  options.chip = "sm_90a";
  // The fence that acquires a tensor map written by the host
  // (fence.proxy.tensormap) is PTX 8.3.
  FailureOr<std::optional<unsigned>> ptx = parsePtxFeature(options.features);
  if (succeeded(ptx) && !*ptx)
    options.features = options.features.empty()
                           ? std::string("+ptx83")
                           : "+ptx83," + options.features;
  else if (succeeded(ptx) && **ptx < 83)
    return emitError() << "tirx-lower-to-nvvm: '"
                       << hopperOnly->getName().getStringRef()
                       << "' (use_wgmma) needs PTX 8.3 (+ptx83) or newer, "
                          "got '"
                       << options.features << "'";
  return success();
}

void mlir::tirx::buildLowerToNVVMPipeline(
    OpPassManager &pm, const TIRxLowerToNVVMOptions &options) {
  buildPrepareForNVVMPipeline(pm);
  buildNVVMCodegenPipeline(pm, options);
}

void mlir::tirx::buildAnalysisFormPipeline(OpPassManager &pm) {
  pm.addPass(createTIRxAssumeArgumentAlignment());
  pm.addPass(createTIRxDistributeCopies());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createTIRxLowerVectorTransfers());
  pm.addPass(createTIRxFoldViews());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createTIRxPromoteAccumulators());
  pm.addPass(createTIRxProveVectorAlignment());
}

void mlir::tirx::buildPrepareLaunchesPipeline(OpPassManager &pm) {
  buildAnalysisFormPipeline(pm);
  pm.addPass(createTIRxWorkgroupAllocs());
  pm.addPass(createTIRxSinkConstants());
}

void mlir::tirx::buildPrepareForNVVMPipeline(OpPassManager &pm) {
  buildPrepareLaunchesPipeline(pm);
  pm.addPass(createGpuKernelOutliningPass());
  // TMA tensor maps (use_wgmma) reach the kernels as pointers.
  pm.addPass(createTIRxTensorMapParams());
  pm.addPass(createTIRxAlignWorkgroupBuffers());
  // Upstream's nvgpu lowering fails on bf16 mma.sync: lowered here, before
  // its pipeline (a reference, lowered by upstream alone, has no mma).
  pm.addPass(createTIRxLowerBf16Mma());
  pm.addPass(createSymbolDCEPass());
}

llvm::Expected<std::string> mlir::tirx::findCudaToolkit(StringRef toolkit,
                                                      bool required) {
  std::string dir, origin;
  if (!toolkit.empty()) {
    dir = toolkit.str();
    origin = "toolkit=";
  }
  for (const char *var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"}) {
    const char *value = std::getenv(var);
    if (!dir.empty() || !value || !*value)
      continue;
    dir = value;
    origin = std::string("$") + var;
  }
  if (dir.empty()) {
    // The toolkit of the ptxas on PATH: bin/ptxas, symbolic links resolved
    // (/usr/bin/ptxas may point into the toolkit).
    if (llvm::ErrorOr<std::string> onPath =
            llvm::sys::findProgramByName("ptxas")) {
      SmallString<256> real;
      if (!llvm::sys::fs::real_path(*onPath, real)) {
        dir = llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))
                  .str();
        origin = "the ptxas on PATH (" + *onPath + ")";
      }
    }
  }
  bool named = !dir.empty();
  if (!named) {
    dir = "/usr/local/cuda";
    origin = "the default location";
  }
  SmallString<256> ptxas(dir);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  bool usable = llvm::sys::fs::is_regular_file(ptxas) &&
                llvm::sys::fs::can_execute(ptxas);
  if (!usable && !named && !required)
    return std::string();
  if (!usable)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "no CUDA toolkit: no executable ptxas at '" + ptxas.str() +
            "' (toolkit from " + origin +
            "); install the CUDA toolkit, or name it with toolkit=<dir> or "
            "$CUDA_HOME");
  return dir;
}

void mlir::tirx::buildNVVMCodegenPipeline(
    OpPassManager &pm, const TIRxLowerToNVVMOptions &options) {
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  nvvm.cubinFormat = options.format;
  nvvm.optLevel = options.optLevel;
  nvvm.kernelUseBarePtrCallConv = options.barePtr;
  nvvm.indexBitWidth = kKernelIndexBits;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);

  // Upstream's pipeline has no toolkit option: hand the toolkit (ptxas and
  // libdevice, which math functions need) and ptxas's options to its
  // gpu-module-to-binary, rather than through the process's environment.
  std::string binaryOptions;
  if (!options.toolkit.empty())
    binaryOptions += "toolkit=\"" + options.toolkit + "\" ";
  if (!options.ptxasOptions.empty())
    binaryOptions += "opts=\"" + options.ptxasOptions + "\"";
  if (binaryOptions.empty())
    return;
  for (Pass &pass : pm.getPasses()) {
    if (pass.getArgument() != "gpu-module-to-binary")
      continue;
    LogicalResult parsed = pass.initializeOptions(
        binaryOptions, [](const Twine &) { return failure(); });
    assert(succeeded(parsed) && "gpu-module-to-binary options");
    (void)parsed;
  }
}

LogicalResult mlir::tirx::runPipelineStrictly(
    OpPassManager &pm, ModuleOp module,
    function_ref<LogicalResult(OpPassManager &, ModuleOp)> run) {
  // Some upstream passes report an error and still succeed (a host copy of
  // a workgroup global that cannot be converted, for one). Count every error
  // diagnostic and fail on any; the diagnostics still reach the handlers
  // installed before this one.
  std::atomic<unsigned> errors{0};
  ScopedDiagnosticHandler counter(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    return failure();
  });
  return failure(failed(run(pm, module)) || errors.load() != 0);
}

namespace {
struct WorkgroupAllocsPass
    : public tirx::impl::TIRxWorkgroupAllocsBase<WorkgroupAllocsPass> {
  void runOnOperation() override {
    getOperation()->walk([](gpu::LaunchOp launch) {
      SmallVector<memref::AllocOp> allocs;
      launch.getBody().walk([&](memref::AllocOp alloc) {
        auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
            alloc.getType().getMemorySpace());
        // A buffer of other elements (vectors) stays an allocation, for
        // upstream's lowering to take or refuse: never sized wrong here.
        if (space && space.getValue() == gpu::AddressSpace::Workgroup &&
            alloc.getType().hasStaticShape() && alloc.getOperands().empty() &&
            kernelElementBytes(alloc.getType().getElementType()))
          allocs.push_back(alloc);
      });
      int64_t total = 0;
      for (memref::AllocOp alloc : allocs)
        total = llvm::alignTo(total, kSharedBufferAlign) + bufferBytes(alloc);
      if (total > kStaticSharedLimit && !launch.getDynamicSharedMemorySize()) {
        useDynamicSharedMemory(launch, allocs, total);
        return;
      }
      for (memref::AllocOp alloc : allocs) {
        BlockArgument buffer =
            launch.addWorkgroupAttribution(alloc.getType(), alloc.getLoc());
        alloc.getResult().replaceAllUsesWith(buffer);
        alloc.erase();
      }
    });
  }

  /// A kernel's static shared memory is at most 48 KiB; past that, the
  /// buffers are views of dynamic shared memory (the runner opts in to up
  /// to 227 KiB on Hopper), each at an offset aligned to 128 bytes.
  static constexpr int64_t kStaticSharedLimit = 48 * 1024;
  static constexpr uint64_t kSharedBufferAlign = 128;

  static int64_t bufferBytes(memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    return type.getNumElements() * *kernelElementBytes(type.getElementType());
  }

  static void useDynamicSharedMemory(gpu::LaunchOp launch,
                                     ArrayRef<memref::AllocOp> allocs,
                                     int64_t total) {
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    Value size = arith::ConstantIntOp::create(b, loc, b.getI32Type(), total);
    launch.getDynamicSharedMemorySizeMutable().assign(size);
    b.setInsertionPointToStart(&launch.getBody().front());
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Value base = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                        workgroup));
    int64_t offset = 0;
    for (memref::AllocOp alloc : allocs) {
      offset = llvm::alignTo(offset, kSharedBufferAlign);
      Value shift = arith::ConstantIndexOp::create(b, loc, offset);
      Value view = memref::ViewOp::create(b, loc, alloc.getType(), base, shift,
                                          ValueRange{});
      offset += bufferBytes(alloc);
      alloc.getResult().replaceAllUsesWith(view);
    }
    // Erased last: the builder's insertion point may be one of them.
    for (memref::AllocOp alloc : allocs)
      alloc.erase();
  }
};

struct AlignWorkgroupBuffersPass
    : public tirx::impl::TIRxAlignWorkgroupBuffersBase<
          AlignWorkgroupBuffersPass> {
  void runOnOperation() override {
    getOperation()->walk([](gpu::GPUFuncOp func) {
      StringRef name = LLVM::LLVMDialect::getAlignAttrName();
      Builder b(func.getContext());
      for (unsigned i = 0, e = func.getNumWorkgroupAttributions(); i < e;
           ++i) {
        auto old = dyn_cast_or_null<IntegerAttr>(
            func.getWorkgroupAttributionAttr(i, name));
        int64_t align = std::max<int64_t>(16, old ? old.getInt() : 0);
        func.setWorkgroupAttributionAttr(i, name, b.getI64IntegerAttr(align));
      }
    });
  }
};

/// The constant global that `get` reads (a memref.global with `constant`
/// and contents: what bufferization makes of a dense tensor constant); null
/// otherwise.
static memref::GlobalOp constantGlobal(memref::GetGlobalOp get) {
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  return global && global.getConstantInitValue() ? global : nullptr;
}

/// The most bytes of a constant global (not a splat) copied into the
/// kernels' modules: its PTX spells out each element (about 4.4 bytes of
/// text a byte: a 1 MiB weight gave 4.6 MB of PTX), once per module that
/// reads it. A larger one stays a host global, which the export refuses
/// (make it a parameter).
constexpr int64_t kMaxSunkGlobalBytes = int64_t(64) << 10;

/// Whether the constant global `get` reads is small enough to copy into a
/// kernel's module, or a splat (whose loads become its value).
static bool sinkableGlobal(memref::GetGlobalOp get) {
  memref::GlobalOp global = constantGlobal(get);
  if (!global)
    return false;
  if (auto dense = dyn_cast<DenseElementsAttr>(global.getConstantInitValue()))
    if (dense.isSplat())
      return true;
  MemRefType type = global.getType();
  if (!type.hasStaticShape())
    return false;
  std::optional<int64_t> bytes = kernelElementBytes(type.getElementType());
  return bytes && type.getNumElements() <= kMaxSunkGlobalBytes / *bytes;
}

/// A view `sinkViewsIntoLaunches` may clone into a launch: a pure view op
/// whose operands are constants, function arguments, buffers the function
/// allocates or such views; or a constant global (memref.get_global).
static bool isSinkableView(Value v, unsigned depth = 0) {
  if (depth > 16)
    return false;
  Operation *op = v.getDefiningOp();
  if (!op)
    return isa<BlockArgument>(v) &&
           isa<FunctionOpInterface>(
               cast<BlockArgument>(v).getOwner()->getParentOp());
  if (op->hasTrait<OpTrait::ConstantLike>() || isa<memref::AllocOp>(op))
    return true;
  if (auto get = dyn_cast<memref::GetGlobalOp>(op))
    return sinkableGlobal(get);
  if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp,
           memref::SubViewOp, memref::ReinterpretCastOp>(op))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return isSinkableView(operand, depth + 1);
  });
}

/// The element every load of `memref` reads when it is a view of a constant
/// global whose contents are one value repeated (`dense<0.5>`, a front
/// end's scalar operand or zero init); null otherwise.
static TypedAttr splatGlobalElement(Value memref) {
  for (unsigned depth = 0; depth <= 16; ++depth) {
    Operation *op = memref.getDefiningOp();
    if (auto get = dyn_cast_or_null<memref::GetGlobalOp>(op)) {
      memref::GlobalOp global = constantGlobal(get);
      auto dense = global ? dyn_cast<DenseElementsAttr>(
                                global.getConstantInitValue())
                          : DenseElementsAttr();
      return dense && dense.isSplat()
                 ? dyn_cast<TypedAttr>(dense.getSplatValue<Attribute>())
                 : TypedAttr();
    }
    auto view = dyn_cast_or_null<ViewLikeOpInterface>(op);
    if (!view)
      return {};
    memref = view.getViewSource();
  }
  return {};
}

/// Replaces the loads in `launch` of a splat constant global by the
/// constant: the kernel then reads nothing of it, and outlining copies no
/// global into the kernel's module (whose PTX would spell out every element
/// of a 1024 x 1024 `dense<0.5>`: 13 MB).
static void foldSplatGlobalLoads(gpu::LaunchOp launch) {
  SmallVector<Operation *> loads;
  launch.getBody().walk([&](Operation *op) {
    if (isa<memref::LoadOp, vector::LoadOp>(op))
      loads.push_back(op);
  });
  for (Operation *load : loads) {
    Value memref = isa<memref::LoadOp>(load)
                       ? cast<memref::LoadOp>(load).getMemRef()
                       : cast<vector::LoadOp>(load).getBase();
    TypedAttr element = splatGlobalElement(memref);
    Type type = load->getResult(0).getType();
    if (!element || getElementTypeOrSelf(type) != element.getType())
      continue;
    TypedAttr value = element;
    if (auto vector = dyn_cast<VectorType>(type))
      value = cast<TypedAttr>(
          DenseElementsAttr::get(vector, ArrayRef<Attribute>{element}));
    OpBuilder b(load);
    load->getResult(0).replaceAllUsesWith(
        arith::ConstantOp::create(b, load->getLoc(), value));
    load->erase();
  }
}

} // namespace

void mlir::tirx::sinkViewsIntoLaunches(Operation *root) {
  root->walk([](gpu::LaunchOp launch) {
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(launch.getBody(), above);
    IRMapping map;
    OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
    SmallVector<Operation *> cloned;
    // Clones `v`'s view chain at the top of the launch (operands first).
    std::function<Value(Value)> clone = [&](Value v) -> Value {
      if (Value m = map.lookupOrNull(v))
        return m;
      Operation *op = v.getDefiningOp();
      // A function argument or an allocation stays a kernel argument (a
      // parameter or a scratch buffer of the bundle).
      if (!op || isa<memref::AllocOp>(op) ||
          (!op->hasTrait<OpTrait::ConstantLike>() &&
           !isa<MemRefType>(v.getType())))
        return v;
      for (Value operand : op->getOperands())
        clone(operand);
      Operation *copy = b.clone(*op, map);
      cloned.push_back(copy);
      return copy->getResult(cast<OpResult>(v).getResultNumber());
    };
    for (Value v : above) {
      if (!isa<MemRefType>(v.getType()) || !v.getDefiningOp() ||
          v.getDefiningOp()->hasTrait<OpTrait::ConstantLike>() ||
          isa<memref::AllocOp>(v.getDefiningOp()) || !isSinkableView(v))
        continue;
      Value inside = clone(v);
      replaceAllUsesInRegionWith(v, inside, launch.getBody());
    }
    foldSplatGlobalLoads(launch);
    // What the folded loads no longer read (pure ops, latest first).
    for (Operation *op : llvm::reverse(cloned))
      if (op->use_empty())
        op->erase();
  });
}

namespace {

struct SinkConstantsPass
    : public tirx::impl::TIRxSinkConstantsBase<SinkConstantsPass> {
  void runOnOperation() override {
    tirx::sinkViewsIntoLaunches(getOperation());
    getOperation()->walk([](gpu::LaunchOp launch) {
      (void)sinkOperationsIntoLaunchOp(launch, [](Operation *op) {
        return op->hasTrait<OpTrait::ConstantLike>();
      });
    });
  }
};

struct PrepareLaunchesPass
    : public tirx::impl::TIRxPrepareLaunchesBase<PrepareLaunchesPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildPrepareLaunchesPipeline(pm);
    pm.getDependentDialects(registry);
  }
  void runOnOperation() override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildPrepareLaunchesPipeline(pm);
    if (failed(runPipelineStrictly(pm, getOperation(),
                                   [&](OpPassManager &pm, ModuleOp m) {
                                     return runPipeline(pm, m);
                                   })))
      signalPassFailure();
  }
};

struct LowerToNVVMPass
    : public tirx::impl::TIRxLowerToNVVMBase<LowerToNVVMPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildLowerToNVVMPipeline(pm, TIRxLowerToNVVMOptions());
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TIRxLowerToNVVMOptions options;
    options.chip = chip;
    options.features = features;
    options.format = format;
    options.barePtr = barePtr;
    options.optLevel = optLevel;
    options.ptxasOptions = ptxasOptions;
    if (failed(selectChipForKernels(module, options,
                                    [&] { return module.emitError(); })) ||
        failed(validateLowerToNVVMOptions(
            options, [&] { return module.emitError(); })))
      return signalPassFailure();

    bool hasKernel = false;
    module.walk([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::LaunchFuncOp, gpu::GPUModuleOp>(op)) {
        hasKernel = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!hasKernel) {
      module.emitError()
          << "tirx-lower-to-nvvm: the module has no gpu.launch or gpu.module: "
             "map the payload to blocks and threads first (e.g. "
             "examples/saxpy-vec4.transform.mlir)";
      return signalPassFailure();
    }

    // A cubin needs ptxas; PTX text only libdevice, where there is one.
    llvm::Expected<std::string> found =
        findCudaToolkit(toolkit, /*required=*/options.format != "isa");
    if (!found) {
      module.emitError() << "tirx-lower-to-nvvm: "
                         << llvm::toString(found.takeError());
      return signalPassFailure();
    }
    options.toolkit = *found;

    OpPassManager pm(ModuleOp::getOperationName());
    buildLowerToNVVMPipeline(pm, options);
    if (failed(runPipelineStrictly(
            pm, module, [&](OpPassManager &pm, ModuleOp m) {
              return runPipeline(pm, m);
            })))
      signalPassFailure();
  }
};
} // namespace
