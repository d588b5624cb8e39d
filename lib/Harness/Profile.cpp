//===- Profile.cpp - which kernels of a payload take the time ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The split runs in a child (it parses agent-supplied IR); scheduling and
// running each kernel are Session calls on the kernel's own workspace, so
// every step is a version and an audit line there.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Profile.h"
#include "Isolation.h"

#include "tirx/Analysis/Domains.h"
#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Harness/Auto.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Support/JSON.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdio>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;
using llvm::Expected;

json::Object ProfileKernel::toJSON() const {
  json::Array opList;
  for (const std::string &op : ops)
    opList.push_back(op);
  json::Object o{{"name", name},       {"ops", std::move(opList)},
                 {"version", version}, {"status", status},
                 {"workspace", "kernels/" + name}};
  o["duration_us"] = durationUs ? json::Value(*durationUs) : json::Value(nullptr);
  if (!detail.empty())
    o["detail"] = detail;
  return o;
}

//===----------------------------------------------------------------------===//
// The split (in the child)
//===----------------------------------------------------------------------===//

namespace {
bool cloned(Operation *op) {
  return op && isa<arith::ConstantOp, tensor::EmptyOp>(op);
}

/// matmul, transpose, reduce, elementwise, or the op's name.
std::string kindOf(Operation *op) {
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return "matmul";
  if (isa<linalg::TransposeOp>(op))
    return "transpose";
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return generic.getNumReductionLoops() ? "reduce" : "elementwise";
  return op->getName().stripDialect().str();
}

std::string where(Operation *op) {
  std::string s = op->getName().getStringRef().str();
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    s += llvm::formatv(" at {0}:{1}:{2}", loc.getFilename().getValue(),
                       loc.getLine(), loc.getColumn())
             .str();
  return s;
}

/// The op groups of `fn`'s body: a fill whose only use is the init of a
/// later linalg op joins that op.
Expected<std::vector<std::vector<Operation *>>>
groupsOf(func::FuncOp fn) {
  std::vector<std::vector<Operation *>> groups;
  llvm::DenseMap<Operation *, Operation *> fillOf; // consumer -> fill
  for (Operation &op : fn.getBody().front().without_terminator()) {
    if (cloned(&op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
    if (!linalgOp)
      return refuse(RefusalCode::not_applicable,
                    "profile splits linalg ops on tensors; " + where(&op) +
                        " is not one",
                    "give the payload as a front end emits it: linalg ops, "
                    "arith.constant and tensor.empty in one function");
    if (!linalgOp.hasPureTensorSemantics())
      return refuse(RefusalCode::not_applicable,
                    where(&op) + " works on buffers; profile takes linalg on "
                                 "tensors",
                    "give the payload before bufferization");
    if (isa<linalg::FillOp>(op) && op.getResult(0).hasOneUse()) {
      Operation *user = *op.getResult(0).getUsers().begin();
      auto consumer = dyn_cast<linalg::LinalgOp>(user);
      if (consumer && user->getBlock() == op.getBlock() &&
          llvm::is_contained(consumer.getDpsInits(), op.getResult(0))) {
        fillOf[user] = &op;
        continue;
      }
    }
    std::vector<Operation *> group;
    if (Operation *fill = fillOf.lookup(&op))
      group.push_back(fill);
    group.push_back(&op);
    groups.push_back(std::move(group));
  }
  return groups;
}

/// Calls `f` on each value `op` reads: its operands and the values its
/// regions use from above.
void forEachRead(Operation *op, llvm::function_ref<void(Value)> f) {
  for (Value v : op->getOperands())
    f(v);
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  for (Value v : above)
    f(v);
}

/// The group as a function of its own: what it reads from outside becomes
/// arguments (a function argument keeps its attributes), what is used
/// outside becomes results; constants and tensor.empty are copied in.
func::FuncOp kernelOf(func::FuncOp fn, const std::vector<Operation *> &group,
                      const std::string &name, OpBuilder &b) {
  llvm::SmallPtrSet<Operation *, 4> inGroup(group.begin(), group.end());
  llvm::SetVector<Value> inputs;
  auto read = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!inGroup.count(def) && !cloned(def))
      inputs.insert(v);
  };
  for (Operation *op : group)
    forEachRead(op, read);
  std::vector<Value> results;
  for (Operation *op : group)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *u) { return !inGroup.count(u); }))
        results.push_back(r);
  llvm::SmallVector<Type> argTypes, resultTypes;
  for (Value v : inputs)
    argTypes.push_back(v.getType());
  for (Value v : results)
    resultTypes.push_back(v.getType());
  auto kernel = func::FuncOp::create(b, fn.getLoc(), name,
                                     b.getFunctionType(argTypes, resultTypes));
  Block *entry = kernel.addEntryBlock();
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    map.map(v, entry->getArgument(i));
    if (auto arg = dyn_cast<BlockArgument>(v))
      if (DictionaryAttr attrs = fn.getArgAttrDict(arg.getArgNumber()))
        kernel.setArgAttrs(i, attrs);
  }
  OpBuilder inner = OpBuilder::atBlockBegin(entry);
  auto copyIn = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (cloned(def) && !map.contains(v))
      inner.clone(*def, map);
  };
  for (Operation *op : group) {
    forEachRead(op, copyIn);
    inner.clone(*op, map);
  }
  llvm::SmallVector<Value> returned;
  for (Value v : results)
    returned.push_back(map.lookup(v));
  func::ReturnOp::create(inner, fn.getLoc(), returned);
  return kernel;
}

Expected<std::string> splitText(MLIRContext &ctx, const std::string &text,
                                const std::string &name) {
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config, name);
  if (!module)
    return refuse(RefusalCode::parse_error, name + " does not parse as MLIR");
  func::FuncOp fn;
  module->walk([&](func::FuncOp f) {
    bool hasLinalg = false;
    f.walk([&](linalg::LinalgOp) { hasLinalg = true; });
    if (!fn && hasLinalg && !f.isExternal())
      fn = f;
  });
  if (!fn)
    return refuse(RefusalCode::not_applicable,
                  name + " has no function with linalg ops");
  for (Type t : fn.getArgumentTypes())
    if (isa<MemRefType>(t))
      return refuse(RefusalCode::not_applicable,
                    "@" + fn.getName().str() +
                        " takes buffers (memref); profile takes linalg on "
                        "tensors, as front ends emit it",
                    "give the payload before bufferization");
  if (!fn.getBody().hasOneBlock())
    return refuse(RefusalCode::not_applicable,
                  "@" + fn.getName().str() + " has more than one block");
  Expected<std::vector<std::vector<Operation *>>> groups = groupsOf(fn);
  if (!groups)
    return groups.takeError();
  json::Array out;
  for (auto [i, group] : llvm::enumerate(*groups)) {
    char label[64];
    std::snprintf(label, sizeof label, "k%02zu-%s", i + 1,
                  kindOf(group.back()).c_str());
    OpBuilder b(&ctx);
    OwningOpRef<ModuleOp> kernelModule = ModuleOp::create(fn.getLoc());
    b.setInsertionPointToEnd(kernelModule->getBody());
    std::string fnName =
        fn.getName().str() + "_" + std::string(label).substr(0, 3);
    kernelOf(fn, group, fnName, b);
    // What was an intermediate (a sum of squares) is an input now, drawn
    // from [-1, 1) unless its domain says otherwise.
    if (failed(annotateDomainsUnder(*kernelModule)))
      return refuse(RefusalCode::verify_error,
                    "kernel " + std::string(label) + " of " + name +
                        " has a malformed tirx.domain");
    std::string payload;
    llvm::raw_string_ostream os(payload);
    kernelModule->print(os);
    json::Array ops;
    for (Operation *op : group)
      ops.push_back(where(op));
    out.push_back(json::Object{
        {"name", std::string(label)}, {"ops", std::move(ops)},
        {"payload", payload}});
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << json::Value(std::move(out));
  return s;
}
} // namespace

Expected<std::vector<ProfileKernel>>
mlir::tirx::splitPayload(const std::string &text, const std::string &name,
                         const ChildLimits &limits) {
  Expected<std::string> r = runIsolated(
      [&](MLIRContext &ctx) { return splitText(ctx, text, name); }, limits);
  if (!r)
    return r.takeError();
  Expected<json::Value> v = json::parse(*r);
  if (!v)
    return refuse(RefusalCode::internal,
                  "profile: the split is not JSON: " +
                      llvm::toString(v.takeError()));
  std::vector<ProfileKernel> kernels;
  for (const json::Value &k : *v->getAsArray()) {
    const json::Object &o = *k.getAsObject();
    ProfileKernel kernel;
    kernel.name = o.getString("name")->str();
    kernel.payload = o.getString("payload")->str();
    for (const json::Value &op : *o.getArray("ops"))
      kernel.ops.push_back(op.getAsString()->str());
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

//===----------------------------------------------------------------------===//
// Schedule, run, rank
//===----------------------------------------------------------------------===//

namespace {
/// The workspace `dir` for `payloadText`: the existing one when its task
/// names the payload's digest (another is refused: it is not `what`), else
/// a new one with the payload as its seed and `task` (and the digest), made
/// once `beforeInit` succeeds.
Expected<Session> workspaceFor(const std::string &dir,
                               const std::string &payloadText,
                               const std::string &name, const std::string &task,
                               const std::string &what, Identity who,
                               llvm::function_ref<llvm::Error()> beforeInit) {
  std::string digest = digestOf(payloadText);
  if (llvm::sys::fs::exists(dir + "/workspace.json")) {
    Expected<Session> s = Session::open(dir, who);
    if (s && s->workspace().task().find(digest) == std::string::npos)
      return refuse(RefusalCode::workspace_exists,
                    dir + " is not a " + what,
                    "profile each payload into a workspace of its own");
    return s;
  }
  if (llvm::Error e = beforeInit())
    return std::move(e);
  InitOptions init;
  init.task = task + " (" + digest + ")";
  Expected<Initialized> made = Session::init(dir, payloadText, name, init, who);
  if (!made)
    return made.takeError();
  return std::move(made->session);
}

void scheduleAndRun(const std::string &dir, ProfileKernel &kernel,
                    const ProfileOptions &options, const Identity &who) {
  auto refused = [&](llvm::Error e, const char *stage) {
    Refusal r = toRefusal(std::move(e));
    kernel.status = codeName(r.code).str();
    kernel.detail = std::string(stage) + ": " + r.message;
  };
  Expected<Session> s = workspaceFor(
      dir, kernel.payload, kernel.name + ".mlir",
      "kernel " + kernel.name + " of a profiled payload",
      "workspace of this kernel", who,
      [] { return llvm::Error::success(); });
  if (!s)
    return refused(s.takeError(), "init");
  Expected<Result> scheduled = autoSchedule(*s, "v1");
  if (!scheduled)
    return refused(scheduled.takeError(), "auto");
  kernel.version = scheduled->version;
  kernel.status = "scheduled";
  if (options.compileOnly)
    return;
  Expected<Result> ran = s->run(kernel.version, options.run);
  if (!ran)
    return refused(ran.takeError(), "run");
  const json::Object *feedback = ran->data.getObject("feedback");
  if (std::optional<double> us =
          feedback ? feedback->getNumber("duration_us") : std::nullopt) {
    kernel.durationUs = *us;
    kernel.status = "timed";
  }
}

std::string fmtTime(double us) {
  char buffer[32];
  if (us >= 1000)
    std::snprintf(buffer, sizeof buffer, "%.3f ms", us / 1000);
  else
    std::snprintf(buffer, sizeof buffer, "%.1f us", us);
  return buffer;
}
} // namespace

std::string mlir::tirx::profileTable(const std::vector<ProfileKernel> &kernels) {
  std::vector<const ProfileKernel *> order;
  double total = 0;
  for (const ProfileKernel &k : kernels) {
    order.push_back(&k);
    total += k.durationUs.value_or(0);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const ProfileKernel *a, const ProfileKernel *b) {
                     return a->durationUs.value_or(-1) >
                            b->durationUs.value_or(-1);
                   });
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0,-4} {1,-16} {2,-10} {3,6}  {4,-10} {5,-8} {6}\n",
                      "rank", "kernel", "time", "share", "status", "version",
                      "ops");
  for (auto [i, k] : llvm::enumerate(order)) {
    std::string time = k->durationUs ? fmtTime(*k->durationUs) : "-";
    std::string share =
        k->durationUs && total > 0
            ? llvm::formatv("{0:F1}%", 100 * *k->durationUs / total).str()
            : "-";
    os << llvm::formatv("{0,-4} {1,-16} {2,-10} {3,6}  {4,-10} {5,-8} ", i + 1,
                        k->name, time, share, k->status,
                        k->version.empty() ? "-" : k->version);
    for (auto [j, op] : llvm::enumerate(k->ops))
      os << (j ? ", " : "") << op;
    os << "\n";
    if (!k->detail.empty())
      os << "     " << k->detail << "\n";
  }
  if (total > 0)
    os << "total " << fmtTime(total) << " over the timed kernels\n";
  return out;
}

namespace {
/// The profile's workspace: a new one only for a payload that splits
/// (`split` gets its kernels).
Expected<Session> profileWorkspace(const std::string &dir,
                                   const std::string &payloadText,
                                   const std::string &name, Identity who,
                                   std::optional<std::vector<ProfileKernel>> &split) {
  return workspaceFor(dir, payloadText, name, "profile of " + name,
                      "profile of this payload", who,
                      [&]() -> llvm::Error {
                        Expected<std::vector<ProfileKernel>> kernels =
                            splitPayload(payloadText, name, ChildLimits());
                        if (!kernels)
                          return kernels.takeError();
                        split = std::move(*kernels);
                        return llvm::Error::success();
                      });
}

json::Object profileJSON(const std::string &name, const std::string &digest,
                         const ProfileOptions &options,
                         const std::vector<ProfileKernel> &kernels) {
  json::Array list;
  double total = 0;
  for (const ProfileKernel &k : kernels) {
    list.push_back(k.toJSON());
    total += k.durationUs.value_or(0);
  }
  json::Object profile{{"format", "tirx-profile"},
                       {"version", 1},
                       {"payload", name},
                       {"payload_digest", digest},
                       {"compile_only", options.compileOnly},
                       {"kernels", std::move(list)}};
  profile["total_us"] = total > 0 ? json::Value(total) : json::Value(nullptr);
  return profile;
}
} // namespace

Expected<Result> mlir::tirx::profilePayload(
    const std::string &dir, const std::string &payloadText,
    const std::string &name, const ProfileOptions &options, Identity who,
    llvm::function_ref<void(llvm::StringRef)> progress) {
  std::optional<std::vector<ProfileKernel>> split;
  Expected<Session> session =
      profileWorkspace(dir, payloadText, name, who, split);
  if (!session)
    return session.takeError();
  json::Object args{{"payload", name}, {"compile_only", options.compileOnly}};
  return session->audited("profile", std::move(args), [&]() -> Expected<Result> {
    const Workspace &ws = session->workspace();
    Expected<std::vector<ProfileKernel>> kernels =
        split ? std::move(*split)
              : splitPayload(payloadText, name, session->limits());
    if (!kernels)
      return kernels.takeError();
    llvm::sys::fs::create_directories(ws.path("kernels"));
    for (ProfileKernel &k : *kernels) {
      scheduleAndRun(ws.path("kernels/" + k.name), k, options, who);
      if (progress)
        progress(k.name + ": " + k.status +
                 (k.durationUs ? " " + fmtTime(*k.durationUs) : "") +
                 (k.detail.empty() ? "" : " (" + k.detail + ")"));
    }
    json::Object profile =
        profileJSON(name, digestOf(payloadText), options, *kernels);
    std::string error;
    if (!rt::writeFileAtomically(
            ws.path("profile.json"),
            llvm::formatv("{0:2}\n", json::Value(json::Object(profile))).str(),
            error))
      return refuse(RefusalCode::io_error, error);
    Result out;
    out.text = profileTable(*kernels);
    out.data = json::Object{{"profile", std::move(profile)}};
    return out;
  });
}
