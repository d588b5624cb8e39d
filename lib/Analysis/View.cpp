//===- View.cpp - what an agent can ask of a snapshot -----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/View.h"
#include "tirx/Analysis/Access.h"
#include "tirx/Analysis/Branches.h"
#include "tirx/Analysis/Structure.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <set>
#include <sstream>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
json::Value number(std::optional<int64_t> v) {
  return v ? json::Value(*v) : json::Value("unknown");
}
json::Value real(std::optional<double> v) {
  return v && std::isfinite(*v) ? json::Value(*v) : json::Value("unknown");
}

/// The bytes of a static memref, or of a static tensor (a front end's
/// payload: the buffer it becomes once bufferized).
std::optional<int64_t> staticBytes(Type type) {
  if (!isa<MemRefType, RankedTensorType>(type))
    return std::nullopt;
  auto shaped = cast<ShapedType>(type);
  if (!shaped.hasStaticShape() || !shaped.getElementType().isIntOrFloat())
    return std::nullopt;
  return shaped.getNumElements() *
         int64_t(std::max(1u, shaped.getElementTypeBitWidth() / 8));
}

json::Array shapeOf(Type type) {
  json::Array shape;
  if (auto shaped = dyn_cast<ShapedType>(type))
    for (int64_t d : shaped.getShape())
      shape.push_back(ShapedType::isDynamic(d) ? json::Value("?")
                                               : json::Value(d));
  return shape;
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// A buffer's name: the argument's tirx.name or argN, else the op's path.
std::string bufferName(Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    if (auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())) {
      if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                        "tirx.name"))
        return name.str();
      return "arg" + std::to_string(arg.getArgNumber());
    }
    return "block argument";
  }
  if (auto global = root.getDefiningOp<memref::GetGlobalOp>())
    return "@" + global.getName().str();
  return irPath(root.getDefiningOp());
}

json::Object base(Operation *op) {
  return json::Object{{"path", irPath(op)}, {"loc", locationText(op->getLoc())}};
}

std::optional<int64_t> constantOf(Value v) {
  if (!v)
    return std::nullopt;
  return getConstantIntValue(v);
}

struct LaunchDims {
  Operation *op;
  std::optional<int64_t> grid[3], block[3];
  std::optional<int64_t> blocks() const {
    if (!grid[0] || !grid[1] || !grid[2])
      return std::nullopt;
    return *grid[0] * *grid[1] * *grid[2];
  }
  std::optional<int64_t> threadsPerBlock() const {
    if (!block[0] || !block[1] || !block[2])
      return std::nullopt;
    return *block[0] * *block[1] * *block[2];
  }
  std::optional<int64_t> threads() const {
    auto b = blocks(), t = threadsPerBlock();
    if (!b || !t)
      return std::nullopt;
    return *b * *t;
  }
};

std::vector<LaunchDims> launchesOf(ModuleOp module) {
  std::vector<LaunchDims> out;
  auto record = [&](Operation *op, gpu::KernelDim3 g, gpu::KernelDim3 b) {
    LaunchDims d{op, {}, {}};
    d.grid[0] = constantOf(g.x), d.grid[1] = constantOf(g.y),
    d.grid[2] = constantOf(g.z);
    d.block[0] = constantOf(b.x), d.block[1] = constantOf(b.y),
    d.block[2] = constantOf(b.z);
    out.push_back(d);
  };
  module.walk([&](Operation *op) {
    if (auto launch = dyn_cast<gpu::LaunchOp>(op))
      record(op, launch.getGridSizeOperandValues(),
             launch.getBlockSizeOperandValues());
    else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      record(op, launch.getGridSizeOperandValues(),
             launch.getBlockSizeOperandValues());
  });
  return out;
}

json::Array dims(const std::optional<int64_t> (&v)[3]) {
  return json::Array{number(v[0]), number(v[1]), number(v[2])};
}

//===----------------------------------------------------------------------===//
// The views
//===----------------------------------------------------------------------===//

json::Object loopStructure(const ViewInputs &in) {
  json::Array loops;
  in.payload.walk<WalkOrder::PreOrder>([&](Operation *op) {
    json::Array axes;
    std::string kind = op->getName().getStringRef().str();
    unsigned depth = 0;
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (isa<scf::ForOp, scf::ForallOp, scf::ParallelOp, gpu::LaunchOp>(p))
        ++depth;
    auto axis = [&](std::string name, std::optional<int64_t> lb,
                    std::optional<int64_t> ub, std::optional<int64_t> step,
                    std::string iterator, std::string mapping) {
      std::optional<int64_t> extent;
      if (lb && ub && step && *step > 0)
        extent = (*ub - *lb + *step - 1) / *step;
      axes.push_back(json::Object{{"name", name},
                                  {"lower", number(lb)},
                                  {"upper", number(ub)},
                                  {"step", number(step)},
                                  {"extent", number(extent)},
                                  {"iterator", iterator},
                                  {"mapping", mapping}});
    };
    std::string prefix = "i" + std::to_string(depth);
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      axis(prefix, constantOf(loop.getLowerBound()),
           constantOf(loop.getUpperBound()), constantOf(loop.getStep()),
           loop.getInitArgs().empty() ? "sequential" : "reduction", "none");
    } else if (auto forall = dyn_cast<scf::ForallOp>(op)) {
      auto mapping = forall.getMapping();
      unsigned i = 0;
      for (auto [lb, ub, st] :
           llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                     forall.getMixedStep())) {
        std::string m = mapping && i < mapping->size()
                            ? mappingName((*mapping)[i])
                            : "none";
        axis(prefix + "_" + std::to_string(i), getConstantIntValue(lb),
             getConstantIntValue(ub), getConstantIntValue(st), "parallel", m);
        ++i;
      }
    } else if (auto par = dyn_cast<scf::ParallelOp>(op)) {
      std::string iterator =
          par.getInitVals().empty() ? "parallel" : "reduction";
      for (unsigned i = 0; i < par.getNumLoops(); ++i)
        axis(prefix + "_" + std::to_string(i), constantOf(par.getLowerBound()[i]),
             constantOf(par.getUpperBound()[i]), constantOf(par.getStep()[i]),
             iterator, "none");
    } else if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      auto g = launch.getGridSizeOperandValues();
      auto b = launch.getBlockSizeOperandValues();
      const char *xyz[] = {"x", "y", "z"};
      Value gs[] = {g.x, g.y, g.z}, bs[] = {b.x, b.y, b.z};
      for (int d = 0; d < 3; ++d)
        axis(std::string("bid.") + xyz[d], 0, constantOf(gs[d]), 1, "parallel",
             std::string("block ") + xyz[d]);
      for (int d = 0; d < 3; ++d)
        axis(std::string("tid.") + xyz[d], 0, constantOf(bs[d]), 1, "parallel",
             std::string("thread ") + xyz[d]);
    } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
      auto iterators = linalgOp.getIteratorTypesArray();
      for (unsigned i = 0; i < iterators.size(); ++i) {
        std::optional<int64_t> extent;
        if (i < ranges.size() && !ShapedType::isDynamic(ranges[i]))
          extent = ranges[i];
        axis("d" + std::to_string(i), 0, extent, 1,
             utils::stringifyIteratorType(iterators[i]).str(), "none");
      }
    } else {
      return;
    }
    json::Object entry = base(op);
    entry["kind"] = kind;
    entry["depth"] = int64_t(depth);
    entry["axes"] = std::move(axes);
    loops.push_back(std::move(entry));
  });
  return json::Object{{"view", "loop_structure"}, {"loops", std::move(loops)}};
}

json::Object threadBinding(const ViewInputs &in) {
  json::Array launches;
  std::vector<LaunchDims> payloadLaunches = launchesOf(in.payload);
  std::vector<LaunchDims> preparedLaunches = launchesOf(in.prepared);
  for (size_t i = 0; i < payloadLaunches.size(); ++i) {
    const LaunchDims &d = payloadLaunches[i];
    // Accesses are read in the analysed form of the same launch.
    Operation *analysed = preparedLaunches.size() == payloadLaunches.size()
                              ? preparedLaunches[i].op
                              : d.op;
    json::Object entry = base(d.op);
    entry["grid"] = dims(d.grid);
    entry["block"] = dims(d.block);
    entry["threads_per_block"] = number(d.threadsPerBlock());
    entry["blocks"] = number(d.blocks());
    entry["total_threads"] = number(d.threads());
    entry["sm_count"] = in.device.smCount ? json::Value(in.device.smCount)
                                          : json::Value("unknown");
    if (d.blocks() && in.device.smCount)
      entry["blocks_per_sm"] = double(*d.blocks()) / in.device.smCount;
    else
      entry["blocks_per_sm"] = "unknown";
    // Which ids drive the accesses, and how many elements each thread
    // writes (the largest buffer stored, over the threads).
    std::set<std::string> ids;
    std::optional<int64_t> stored;
    for (const AccessInfo &a : collectAccesses(analysed)) {
      if (a.offset)
        for (auto &[term, c] : a.offset->terms)
          if (c != 0 && (llvm::StringRef(term).starts_with("tid.") ||
                         llvm::StringRef(term).starts_with("bid.")))
            ids.insert(term);
      if (a.isStore && a.space == "global")
        if (auto memref = dyn_cast<MemRefType>(a.root.getType()))
          if (memref.hasStaticShape())
            stored = std::max(stored.value_or(0), memref.getNumElements());
    }
    json::Array used;
    for (const std::string &id : ids)
      used.push_back(id);
    entry["ids_used"] = std::move(used);
    if (stored && d.threads() && *d.threads() > 0)
      entry["elements_per_thread"] = double(*stored) / double(*d.threads());
    else
      entry["elements_per_thread"] = "unknown";
    launches.push_back(std::move(entry));
  }
  // Loops an agent has mapped but not yet turned into launches.
  json::Array mapped;
  in.payload.walk([&](scf::ForallOp forall) {
    auto mapping = forall.getMapping();
    if (!mapping)
      return;
    json::Array ms;
    for (Attribute a : *mapping)
      ms.push_back(mappingName(a));
    json::Object entry = base(forall);
    entry["mapping"] = std::move(ms);
    entry["iterations"] = number(tripsOf(forall));
    mapped.push_back(std::move(entry));
  });
  return json::Object{{"view", "thread_binding"},
                      {"launches", std::move(launches)},
                      {"mapped_loops", std::move(mapped)}};
}

/// Bytes read and written per run: each global buffer read once if any
/// kernel loads it, written once if any stores it.
std::pair<std::optional<int64_t>, std::optional<int64_t>>
trafficOf(const ViewInputs &in) {
  llvm::DenseMap<Value, std::pair<bool, bool>> rw;
  Operation *scope = in.prepared;
  bool any = false;
  for (const LaunchDims &d : launchesOf(in.prepared)) {
    any = true;
    for (const AccessInfo &a : collectAccesses(d.op))
      if (a.space == "global")
        (a.isStore ? rw[a.root].second : rw[a.root].first) = true;
  }
  if (!any)
    for (const AccessInfo &a : collectAccesses(scope))
      if (a.space == "global")
        (a.isStore ? rw[a.root].second : rw[a.root].first) = true;
  // TMA's loads (use_wgmma's A and B tiles) read global memory through a
  // tensor map made on the host, which no load of collectAccesses names:
  // the buffer the map describes is read. (Before, a wgmma matmul's bytes
  // were C's alone: 64 MiB of the 192 that 4096^2 f32 move.)
  scope->walk([&](nvgpu::TmaAsyncLoadOp load) {
    if (auto map = load.getTensorMapDescriptor()
                       .getDefiningOp<nvgpu::TmaCreateDescriptorOp>())
      rw[accessRoot(map.getTensor())].first = true;
  });
  std::optional<int64_t> read = 0, written = 0;
  for (auto &[root, flags] : rw) {
    auto bytes = staticBytes(root.getType());
    if (flags.first)
      read = bytes && read ? std::optional<int64_t>(*read + *bytes) : std::nullopt;
    if (flags.second)
      written = bytes && written ? std::optional<int64_t>(*written + *bytes)
                                 : std::nullopt;
  }
  return {read, written};
}

json::Object memoryFootprint(const ViewInputs &in) {
  json::Array buffers;
  in.payload.walk([&](Operation *op) {
    if (auto func = dyn_cast<FunctionOpInterface>(op)) {
      if (func.isExternal())
        return;
      for (BlockArgument arg : func.getArguments()) {
        if (!isa<BaseMemRefType, TensorType>(arg.getType()))
          continue;
        json::Object entry = base(op);
        entry["name"] = bufferName(arg);
        entry["kind"] = "argument";
        entry["type"] = typeText(arg.getType());
        entry["element_type"] =
            typeText(cast<ShapedType>(arg.getType()).getElementType());
        entry["shape"] = shapeOf(arg.getType());
        entry["bytes"] = number(staticBytes(arg.getType()));
        entry["space"] = isa<TensorType>(arg.getType())
                             ? std::string("global")
                             : memorySpaceName(arg.getType());
        buffers.push_back(std::move(entry));
      }
      // A tensor result: the out-parameter bufferize makes of it.
      for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
        if (!isa<TensorType>(type))
          continue;
        json::Object entry = base(op);
        entry["name"] = "result" + std::to_string(i);
        entry["kind"] = "result";
        entry["type"] = typeText(type);
        entry["element_type"] =
            typeText(cast<ShapedType>(type).getElementType());
        entry["shape"] = shapeOf(type);
        entry["bytes"] = number(staticBytes(type));
        entry["space"] = "global";
        buffers.push_back(std::move(entry));
      }
    } else if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
      Type type = op->getResult(0).getType();
      json::Object entry = base(op);
      entry["name"] = irPath(op);
      entry["kind"] = "allocation";
      entry["type"] = typeText(type);
      entry["element_type"] = typeText(cast<MemRefType>(type).getElementType());
      entry["shape"] = shapeOf(type);
      entry["bytes"] = number(staticBytes(type));
      entry["space"] = memorySpaceName(type);
      buffers.push_back(std::move(entry));
    } else if (auto global = dyn_cast<memref::GlobalOp>(op)) {
      json::Object entry = base(op);
      entry["name"] = "@" + global.getSymName().str();
      entry["kind"] = "global";
      entry["type"] = typeText(global.getType());
      entry["element_type"] = typeText(global.getType().getElementType());
      entry["shape"] = shapeOf(global.getType());
      entry["bytes"] = number(staticBytes(global.getType()));
      entry["space"] = memorySpaceName(global.getType());
      buffers.push_back(std::move(entry));
    }
  });
  // Shared memory per block and private memory per thread, per launch.
  std::optional<int64_t> shared = 0, privateBytes = 0;
  for (const LaunchDims &d : launchesOf(in.payload)) {
    d.op->walk([&](Operation *op) {
      Type type;
      if (isa<memref::AllocOp, memref::AllocaOp>(op))
        type = op->getResult(0).getType();
      else if (auto get = dyn_cast<memref::GetGlobalOp>(op))
        type = get.getType();
      if (!type)
        return;
      std::string space = memorySpaceName(type);
      auto bytes = staticBytes(type);
      auto &sum = space == "workgroup" ? shared : privateBytes;
      if (space == "workgroup" || space == "private")
        sum = bytes && sum ? std::optional<int64_t>(*sum + *bytes) : std::nullopt;
    });
    if (auto launch = dyn_cast<gpu::LaunchOp>(d.op))
      for (BlockArgument arg : launch.getWorkgroupAttributions()) {
        auto bytes = staticBytes(arg.getType());
        shared = bytes && shared ? std::optional<int64_t>(*shared + *bytes)
                                 : std::nullopt;
      }
  }
  auto [read, written] = trafficOf(in);
  json::Value compiled("unknown");
  if (!in.compiled.empty()) {
    json::Array kernels;
    for (const CompiledFigures &c : in.compiled)
      kernels.push_back(json::Object{{"kernel", c.kernel},
                                     {"registers", c.registers},
                                     {"shared_bytes", c.sharedBytes},
                                     {"spill_bytes", c.spillBytes}});
    compiled = std::move(kernels);
  }
  int barriers = 0;
  in.payload.walk([&](gpu::BarrierOp) { ++barriers; });
  return json::Object{{"view", "memory_footprint"},
                      {"buffers", std::move(buffers)},
                      {"shared_bytes_per_block", number(shared)},
                      {"private_bytes_per_thread", number(privateBytes)},
                      {"barriers", barriers},
                      {"bytes_read", number(read)},
                      {"bytes_written", number(written)},
                      {"compiled", std::move(compiled)}};
}

json::Object accessPattern(const ViewInputs &in) {
  json::Array accesses;
  for (const AccessInfo &a : collectAccesses(in.prepared)) {
    json::Object entry = base(a.op);
    entry["op"] = a.op->getName().getStringRef().str();
    entry["kind"] = a.isStore ? "store" : "load";
    entry["buffer"] = bufferName(a.root);
    entry["space"] = a.space;
    entry["index"] = a.offset ? json::Value(a.offset->str()) : json::Value("unknown");
    entry["stride_x"] = number(a.strideX);
    entry["pattern"] = a.pattern;
    entry["vector_width"] = int64_t(a.width);
    entry["element_bytes"] = int64_t(a.elementBytes);
    entry["alignment"] = int64_t(a.alignment);
    if (a.space == "global" && a.pattern != "host")
      entry["coalesced"] = a.pattern == "unknown"
                               ? json::Value("unknown")
                               : json::Value(a.pattern != "strided");
    else
      entry["coalesced"] = "n/a";
    entry["bank_conflict_risk"] =
        a.bankConflictRisk.empty() ? "n/a" : a.bankConflictRisk;
    accesses.push_back(std::move(entry));
  }
  return json::Object{{"view", "access_pattern"},
                      {"note", "paths are those of the analysed form (vector "
                               "transfers lowered, views folded); loc points "
                               "at the payload's op"},
                      {"accesses", std::move(accesses)}};
}

json::Object callGraph(const ViewInputs &in) {
  json::Array functions, external;
  in.payload.walk([&](FunctionOpInterface func) {
    json::Object entry = base(func);
    entry["name"] = SymbolTable::getSymbolName(func).str();
    std::string kind = "host";
    if (func.isExternal())
      kind = "declaration";
    else if (auto gpuFunc = dyn_cast<gpu::GPUFuncOp>(func.getOperation()))
      kind = gpuFunc.isKernel() ? "kernel" : "device";
    entry["kind"] = kind;
    if (func.isExternal())
      external.push_back(SymbolTable::getSymbolName(func).str());
    json::Array calls, launches;
    func->walk([&](Operation *op) {
      if (auto call = dyn_cast<CallOpInterface>(op)) {
        if (auto sym = dyn_cast_if_present<SymbolRefAttr>(
                call.getCallableForCallee()))
          calls.push_back(sym.getLeafReference().str());
      } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        launches.push_back(launch.getKernelName().str());
      } else if (isa<gpu::LaunchOp>(op)) {
        launches.push_back(irPath(op));
      }
    });
    entry["calls"] = std::move(calls);
    entry["launches"] = std::move(launches);
    functions.push_back(std::move(entry));
  });
  return json::Object{{"view", "call_graph"},
                      {"functions", std::move(functions)},
                      {"external", std::move(external)}};
}

/// Floating-point operations of one run: per op lanes x trips x threads.
std::optional<int64_t> flopsOf(ModuleOp module) {
  std::optional<int64_t> total = 0;
  // A thread runs one branch of an if/else: the heavier one is counted.
  llvm::DenseSet<Region *> skipped = lighterBranches(module);
  module.walk([&](Operation *op) {
    if (!total)
      return;
    OpFlops f = opFlops(op);
    if (!f.flops || insideAny(op, skipped))
      return;
    int64_t count = f.flops;
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
      if (isa<scf::ForOp, scf::ForallOp, scf::ParallelOp>(p)) {
        auto trips = tripsOf(p);
        if (!trips) {
          total = std::nullopt;
          return;
        }
        count *= *trips;
      } else if (isa<gpu::LaunchOp>(p)) {
        LaunchDims d = launchesOf(cast<ModuleOp>(module))[0];
        for (const LaunchDims &l : launchesOf(module))
          if (l.op == p)
            d = l;
        auto threads = d.threads();
        if (!threads) {
          total = std::nullopt;
          return;
        }
        count *= *threads;
        // A warp's (or warpgroup's) op, executed by each of its threads.
        count /= f.threads;
      }
    }
    *total += count;
  });
  return total;
}

json::Object roofline(const ViewInputs &in) {
  auto [read, written] = trafficOf(in);
  std::optional<int64_t> bytes;
  if (read && written)
    bytes = *read + *written;
  std::optional<int64_t> flops = flopsOf(in.prepared);
  std::optional<double> intensity, memoryFloor, computeFloor;
  if (bytes && flops && *bytes > 0)
    intensity = double(*flops) / double(*bytes);
  if (bytes && in.device.bandwidthGBs > 0)
    memoryFloor = double(*bytes) / (in.device.bandwidthGBs * 1e9) * 1e6;
  // Products taken on tensor cores (use_mma's mma.sync) run at the
  // tensor-core rate of their type (H200: tf32 495, f16 and bf16 989
  // TFLOP/s), the rest at the FP32 rate (67).
  std::string rate = "fp32";
  double peak = in.device.peakFp32Tflops;
  in.prepared.walk([&](Operation *op) {
    if (op->getName().getStringRef() != "nvgpu.mma.sync" || op->getNumOperands() == 0)
      return;
    Type a = op->getOperand(0).getType();
    if (auto v = dyn_cast<ShapedType>(a))
      a = v.getElementType();
    if (op->hasAttr("tf32Enabled") && in.device.peakTf32Tflops > 0 &&
        rate == "fp32") {
      rate = "tf32_tensor_cores";
      peak = in.device.peakTf32Tflops;
    } else if ((a.isF16() || a.isBF16()) && in.device.peakF16Tflops > 0) {
      rate = a.isF16() ? "f16_tensor_cores" : "bf16_tensor_cores";
      peak = in.device.peakF16Tflops;
    }
  });
  if (flops && peak > 0)
    computeFloor = double(*flops) / (peak * 1e12) * 1e6;
  json::Value bound("unknown");
  std::optional<double> floor;
  if (memoryFloor && computeFloor) {
    floor = std::max(*memoryFloor, *computeFloor);
    bound = *memoryFloor >= *computeFloor ? "memory" : "compute";
  }
  return json::Object{
      {"view", "roofline"},
      {"flops", number(flops)},
      {"bytes", number(bytes)},
      {"arithmetic_intensity", real(intensity)},
      {"device",
       json::Object{{"name", in.device.name},
                    {"source", in.device.source},
                    {"bandwidth_gbs", in.device.bandwidthGBs},
                    {"peak_fp32_tflops", in.device.peakFp32Tflops},
                    {"peak_tf32_tflops", in.device.peakTf32Tflops},
                    {"peak_f16_tflops", in.device.peakF16Tflops}}},
      {"compute_rate", rate},
      {"memory_floor_us", real(memoryFloor)},
      {"compute_floor_us", real(computeFloor)},
      {"time_floor_us", real(floor)},
      {"bound", std::move(bound)}};
}
} // namespace

DeviceFigures mlir::tirx::datasheetFigures(llvm::StringRef chip) {
  DeviceFigures d;
  if (chip.starts_with("sm_90"))
    d = {"NVIDIA H200 SXM (datasheet)", "datasheet", 4800, 67, 132, 494.7,
         989.4};
  else if (chip == "sm_80")
    d = {"NVIDIA A100 SXM 80GB (datasheet)", "datasheet", 2039, 19.5, 108,
         156, 312};
  return d;
}

const std::vector<std::string> &mlir::tirx::viewNames() {
  static const std::vector<std::string> names = {
      "loop_structure", "thread_binding", "memory_footprint",
      "access_pattern", "call_graph",     "roofline",
      "summary"};
  return names;
}

std::optional<json::Object> mlir::tirx::buildView(llvm::StringRef what,
                                                  const ViewInputs &in) {
  if (what == "loop_structure")
    return loopStructure(in);
  if (what == "thread_binding")
    return threadBinding(in);
  if (what == "memory_footprint")
    return memoryFootprint(in);
  if (what == "access_pattern")
    return accessPattern(in);
  if (what == "call_graph")
    return callGraph(in);
  if (what == "roofline")
    return roofline(in);
  if (what == "summary")
    return json::Object{{"view", "summary"}, {"text", summaryText(in)}};
  if (what == "all") {
    json::Object all{{"view", "all"}};
    for (const std::string &name : viewNames())
      all[name] = *buildView(name, in);
    return all;
  }
  return std::nullopt;
}

std::string mlir::tirx::summaryText(const ViewInputs &in) {
  std::ostringstream os;
  auto show = [](std::optional<int64_t> v) {
    return v ? std::to_string(*v) : std::string("?");
  };
  std::vector<LaunchDims> launches = launchesOf(in.payload);
  if (launches.empty()) {
    os << "not mapped to the GPU yet";
    StructureSummary s = summarizeStructure(in.payload);
    // linalg.yield and linalg.index are parts of a linalg op, not ops of
    // their own.
    int linalgOps = 0;
    for (auto &[name, n] : s.opCounts)
      if (llvm::StringRef(name).starts_with("linalg.") &&
          name != "linalg.yield" && name != "linalg.index")
        linalgOps += n;
    os << " (" << linalgOps << " linalg ops, " << s.loops.size()
       << " loops).\n";
  }
  for (const LaunchDims &d : launches) {
    os << irPath(d.op) << ": grid " << show(d.grid[0]) << "x" << show(d.grid[1])
       << "x" << show(d.grid[2]) << ", block " << show(d.block[0]) << "x"
       << show(d.block[1]) << "x" << show(d.block[2]) << " ("
       << show(d.threads()) << " threads";
    if (d.blocks() && in.device.smCount) {
      if (*d.blocks() < in.device.smCount)
        os << ", fewer blocks than SMs: " << *d.blocks() << " blocks for "
           << in.device.smCount << " SMs";
      else
        os << ", " << *d.blocks() / in.device.smCount << " blocks per SM";
    }
    os << ").\n";
  }
  // Run-time sizes (tirx.dims on the arguments): what depends on them is
  // unknown here, not a guess.
  std::set<std::string> sizes;
  in.payload.walk([&](FunctionOpInterface func) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto dims = func.getArgAttrOfType<ArrayAttr>(i, "tirx.dims"))
        for (Attribute d : dims)
          if (auto name = dyn_cast<StringAttr>(d); name && !name.empty())
            sizes.insert(name.str());
  });
  if (!sizes.empty()) {
    os << "sizes known at run time: ";
    for (auto it = sizes.begin(); it != sizes.end(); ++it)
      os << (it == sizes.begin() ? "" : ", ") << *it;
    os << " (the figures that depend on them are shown as ? or unknown; the "
          "bundle's manifest gives them as expressions, tirx-run --size "
          "sets them).\n";
  }
  // Per buffer, its widest access (a tail's shorter vector aside).
  std::map<std::string, std::string> seen;
  std::map<std::string, unsigned> widest;
  for (const AccessInfo &a : collectAccesses(in.prepared)) {
    std::string key = std::string(a.isStore ? "store " : "load ") +
                      bufferName(a.root);
    std::string text = std::to_string(a.width * a.elementBytes) + " B, " +
                       a.pattern + (a.space != "global" ? " " + a.space : "") +
                       ", align " + std::to_string(a.alignment);
    if (!a.bankConflictRisk.empty())
      text += ", bank conflicts " + a.bankConflictRisk;
    unsigned bytes = a.width * a.elementBytes;
    if (widest.count(key) && widest[key] > bytes)
      continue;
    widest[key] = bytes;
    seen[key] = text;
  }
  for (auto &[key, text] : seen)
    os << "  " << key << ": " << text << "\n";
  json::Object mem = memoryFootprint(in);
  json::Object roof = roofline(in);
  auto figure = [](const json::Object &o, const char *key) -> std::string {
    const json::Value *v = o.get(key);
    if (!v)
      return "?";
    if (auto s = v->getAsString())
      return s->str();
    if (auto i = v->getAsInteger())
      return std::to_string(*i);
    if (auto d = v->getAsNumber()) {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.3g", *d);
      return buf;
    }
    return "?";
  };
  os << "shared " << figure(mem, "shared_bytes_per_block") << " B/block, "
     << figure(mem, "barriers") << " barriers; " << figure(roof, "bytes")
     << " bytes, " << figure(roof, "flops") << " flops, intensity "
     << figure(roof, "arithmetic_intensity") << " flop/B; floor "
     << figure(roof, "time_floor_us") << " us, " << figure(roof, "bound")
     << "-bound (" << in.device.name << ").\n";
  return os.str();
}
