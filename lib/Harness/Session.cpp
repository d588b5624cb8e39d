//===- Session.cpp - the harness as a library -------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The parent only reads and appends under the workspace lock; anything that
// parses or transforms IR runs in an isolated child (Isolation.h).
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Session.h"
#include "tirx/Harness/Actions.h"
#include "Isolation.h"

#include "tirx/Analysis/Domains.h"
#include "tirx/Analysis/Structure.h"
#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Runtime/Feedback.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Support/JSON.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <map>

#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;
using llvm::Expected;

namespace {
/// JSON a child computed from a payload (a view, a summary): nested as
/// deep as the payload's loops, so bounded more loosely than requests, but
/// bounded (a payload of 100000 nested loops must not overflow the
/// parent's stack).
const JSONLimits kChildJSON = {1024, size_t(1) << 30};

//===----------------------------------------------------------------------===//
// MLIR work (in the child)
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> parseModule(MLIRContext &ctx, const std::string &text,
                                  const std::string &name) {
  ParserConfig config(&ctx);
  return parseSourceString<ModuleOp>(text, config, name);
}

/// Parses and verifies a seed; marks the inputs that must be drawn
/// nonnegative (tirx.domain, which every version made from it and its
/// reference inherit); returns its canonical text.
Expected<std::string> canonicalize(MLIRContext &ctx, const std::string &text,
                                   const std::string &name) {
  OwningOpRef<ModuleOp> module = parseModule(ctx, text, name);
  if (!module)
    return refuse(RefusalCode::parse_error, name + " does not parse as MLIR");
  if (failed(verify(*module)))
    return refuse(RefusalCode::verify_error, name + " does not verify");
  if (failed(annotateDomainsUnder(*module)))
    return refuse(RefusalCode::verify_error,
                  name + " has a malformed tirx.domain");
  return canonicalText(*module);
}

/// Every access a kernel of `module` makes must be proven in bounds.
llvm::Error checkBounds(MLIRContext &ctx, ModuleOp module) {
  PassManager bounds(&ctx);
  bounds.addPass(createTIRxCheckBounds());
  if (failed(bounds.run(module)))
    return refuse(RefusalCode::unsafe_bounds,
                  "the result has an access that cannot be proven in bounds");
  return llvm::Error::success();
}

/// A payload committed by hand passes the checks an applied one does.
Expected<std::string> canonicalizeChecked(MLIRContext &ctx,
                                          const std::string &text,
                                          const std::string &name) {
  OwningOpRef<ModuleOp> module = parseModule(ctx, text, name);
  if (!module)
    return refuse(RefusalCode::parse_error, name + " does not parse as MLIR");
  if (failed(verify(*module)))
    return refuse(RefusalCode::verify_error, name + " does not verify");
  if (failed(annotateDomainsUnder(*module, /*infer=*/false)))
    return refuse(RefusalCode::verify_error,
                  name + " has a malformed tirx.domain");
  if (llvm::Error e = checkBounds(ctx, *module))
    return std::move(e);
  return canonicalText(*module);
}

/// The payload ops an action targets.
struct ActionTarget {
  std::string op;
  std::optional<int64_t> index;
};

/// An action's target must exist before its script runs: an empty match
/// would change nothing, an index past the ops would fail deep in the
/// interpreter.
llvm::Error checkTarget(ModuleOp payload, const std::string &payloadName,
                        const ActionTarget &target) {
  int64_t count = 0;
  payload->walk([&](Operation *op) {
    count += op->getName().getStringRef() == target.op;
  });
  if (count == 0)
    return refuse(RefusalCode::no_such_target,
                  payloadName + " has no " + target.op + " op",
                  "target an op the payload has (tirx view " + payloadName +
                      " shows its loops and ops)");
  if (target.index && *target.index >= count)
    return refuse(RefusalCode::no_such_target,
                  "target.index " + std::to_string(*target.index) + ", but " +
                      payloadName + " has " + std::to_string(count) + " " +
                      target.op + " op" + (count == 1 ? "" : "s"),
                  "use an index from 0 to " + std::to_string(count - 1));
  return llvm::Error::success();
}

/// Applies `script` to `payload` (texts); returns the canonical result.
Expected<std::string> applyScriptText(MLIRContext &ctx,
                                      const std::string &payloadText,
                                      const std::string &payloadName,
                                      const std::string &scriptText,
                                      const std::string &scriptName,
                                      ScriptPolicy policy,
                                      std::optional<ActionTarget> target) {
  OwningOpRef<ModuleOp> payload = parseModule(ctx, payloadText, payloadName);
  if (!payload)
    return refuse(RefusalCode::parse_error, payloadName + " does not parse");
  OwningOpRef<ModuleOp> script = parseModule(ctx, scriptText, scriptName);
  if (!script)
    return refuse(RefusalCode::script_invalid,
                  scriptName + " does not parse as MLIR");
  if (!(*script)->hasAttr(
          transform::TransformDialect::kWithNamedSequenceAttrName))
    return refuse(RefusalCode::script_invalid,
                  scriptName + ": the script module needs the attribute "
                               "transform.with_named_sequence");
  if (llvm::Error e = checkScriptPolicy(*script, policy))
    return std::move(e);
  if (target)
    if (llvm::Error e = checkTarget(*payload, payloadName, *target))
      return std::move(e);
  // The interpreter pass loads the dialects transforms generate ops of
  // (vector, ub, gpu, ...) before it runs; running the interpreter
  // directly, so must we, or new ops would be of unloaded dialects.
  ctx.loadAllAvailableDialects();
  transform::TransformOpInterface entry =
      transform::detail::findTransformEntryPoint(
          script.get(), *script,
          transform::TransformDialect::kTransformEntryPointSymbolName);
  if (!entry)
    return refuse(RefusalCode::script_invalid,
                  scriptName +
                      " has no transform.named_sequence @__transform_main");
  if (failed(transform::applyTransformNamedSequence(
          payload.get(), entry, *script, transform::TransformOptions())))
    return refuse(RefusalCode::script_failed,
                  "the transform script failed on " + payloadName);
  if (failed(verify(*payload)))
    return refuse(RefusalCode::verify_error,
                  "the transformed payload does not verify");
  if (llvm::Error e = checkBounds(ctx, *payload))
    return std::move(e);
  return canonicalText(*payload);
}

/// Lowers `text` and writes its bundle into `dir`; maps it first when it is
/// an unscheduled seed (the reference).
llvm::Error exportBundle(MLIRContext &ctx, const std::string &text,
                         const std::string &name, const std::string &dir,
                         const std::string &chip) {
  OwningOpRef<ModuleOp> module = parseModule(ctx, text, name);
  if (!module)
    return refuse(RefusalCode::parse_error, name + " does not parse");
  bool mapped = module
                    ->walk([](Operation *op) {
                      return isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op)
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    })
                    .wasInterrupted();
  PassManager pm(&ctx);
  if (!mapped)
    pm.addPass(createTIRxMapReference());
  TIRxExportBundleOptions options;
  options.dir = dir;
  options.chip = chip;
  options.irVersion = name;
  options.reference = !mapped; // upstream's passes alone
  pm.addPass(createTIRxExportBundle(options));
  if (failed(pm.run(*module)))
    return refuse(RefusalCode::compile_error, "lowering " + name + " failed");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Versions and requests
//===----------------------------------------------------------------------===//

llvm::Error damaged(const std::string &reason) {
  return refuse(RefusalCode::workspace_damaged, reason);
}

json::Object entryJSON(const VersionEntry &e, const std::string &head) {
  json::Object o = e.toJSON();
  o["head"] = e.id == head;
  return o;
}

std::string shortDigest(const std::string &digest) {
  return digest.substr(std::strlen("sha256:"), 12);
}

/// `text` (a version's message: anyone's words) on one line of a
/// terminal: control characters (a newline that would forge a version
/// line, an ESC that would drive the terminal, a NUL) and Unicode's
/// direction overrides (U+202A to U+202E, U+2066 to U+2069: text shown in
/// another order than stored) written as escapes, the rest as it is.
std::string oneLine(llvm::StringRef text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = text[i];
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += llvm::formatv("\\x{0:x-2}", unsigned(c)).str();
    } else if (c == 0xe2 && i + 2 < text.size() &&
               ((uint8_t(text[i + 1]) == 0x80 && uint8_t(text[i + 2]) >= 0xaa &&
                 uint8_t(text[i + 2]) <= 0xae) ||
                (uint8_t(text[i + 1]) == 0x81 && uint8_t(text[i + 2]) >= 0xa6 &&
                 uint8_t(text[i + 2]) <= 0xa9))) {
      unsigned code = ((c & 0x0f) << 12) | ((uint8_t(text[i + 1]) & 0x3f) << 6) |
                      (uint8_t(text[i + 2]) & 0x3f);
      out += llvm::formatv("\\u{0:X-4}", code).str();
      i += 2;
    } else {
      out += char(c);
    }
  }
  return out;
}

/// Reads the index, with the request log (nothing is served from a
/// damaged history: either damaged is refused) and HEAD (it must name a
/// version, unless `checkHead` is false: checkout repairs it).
Expected<std::vector<VersionEntry>> readEntries(const Workspace &ws,
                                                bool checkHead = true) {
  std::vector<VersionEntry> entries;
  std::vector<RequestRecord> requests;
  std::string error;
  if (!ws.readHistory(entries, requests, error))
    return damaged(error);
  std::string head = ws.head();
  if (checkHead && !head.empty() && !Workspace::find(entries, head, error))
    return damaged(ws.path("HEAD") + ": names \"" + head +
                   "\", not a version of this workspace (run 'tirx fsck')");
  return entries;
}

/// The entry named `id`.
Expected<VersionEntry> findEntry(const std::vector<VersionEntry> &entries,
                                 const std::string &id) {
  std::string error;
  const VersionEntry *e = Workspace::find(entries, id, error);
  if (!e)
    return refuse(RefusalCode::unknown_version, error,
                  "tirx log lists the versions");
  return *e;
}

/// Version `id` and its text (index checked, object digest verified).
Expected<std::pair<VersionEntry, std::string>>
loadVersion(const Workspace &ws, const std::string &id) {
  Expected<std::vector<VersionEntry>> entries = readEntries(ws);
  if (!entries)
    return entries.takeError();
  Expected<VersionEntry> e = findEntry(*entries, id);
  if (!e)
    return e.takeError();
  std::string text, error;
  if (!ws.readObject(e->digest, text, error))
    return damaged(error);
  return std::make_pair(*e, text);
}

/// Commits `text` as a new version under the lock the caller holds: writes
/// the object, appends the index line and the request record.
Expected<Result> commitVersion(const Workspace &ws,
                               std::vector<VersionEntry> &entries,
                               VersionEntry entry, const std::string &text,
                               const std::string &signature) {
  std::string error;
  if (!ws.writeObject(text, entry.digest, error))
    return damaged(error);
  entry.id = "v" + std::to_string(entries.size() + 1);
  entry.time = nowUtc();
  if (!ws.appendVersion(entry, error))
    return refuse(RefusalCode::io_error, error);
  if (!signature.empty() &&
      !ws.appendRequest({signature, "accepted", entry.id, "", ""}, error))
    return refuse(RefusalCode::io_error, error);
  entries.push_back(entry);
  Result out;
  out.version = entry.id;
  out.data = json::Object{{"version", entryJSON(entry, ws.head())}};
  out.text = entry.id + " " + shortDigest(entry.digest) + " (" + entry.kind +
             (entry.parent.empty() ? "" : " from " + entry.parent) + ")\n";
  return out;
}

const RequestRecord *findRequest(const std::vector<RequestRecord> &records,
                                 const std::string &signature) {
  for (const RequestRecord &r : records)
    if (r.signature == signature)
      return &r;
  return nullptr;
}

/// The earlier outcome of a repeated request.
Expected<Result> repeated(const RequestRecord &r,
                          const std::vector<VersionEntry> &entries,
                          const std::string &head) {
  if (r.outcome == "accepted") {
    const VersionEntry *e = nullptr;
    for (const VersionEntry &entry : entries)
      if (entry.id == r.version)
        e = &entry;
    if (!e)
      return damaged("requests.jsonl names " + r.version +
                     ", which the index does not have");
    Result out;
    out.version = r.version;
    out.data = json::Object{{"version", entryJSON(*e, head)},
                            {"deduplicated", true}};
    out.text = r.version + " (the same request was made before: its "
                           "earlier result, nothing re-run)\n";
    return out;
  }
  Refusal refusal(codeNamed(r.code).value_or(RefusalCode::internal),
                  r.reason + " (refused before: the earlier refusal, nothing "
                             "re-run)",
                  r.hint);
  refusal.payloadOp = r.payloadOp;
  refusal.location = r.payloadLoc;
  refusal.details["deduplicated"] = true;
  return refuse(std::move(refusal));
}

} // namespace

std::string mlir::tirx::findRunner() {
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::SmallString<256> beside(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(beside, "tirx-run");
  if (llvm::sys::fs::can_execute(beside))
    return beside.str().str();
  if (auto onPath = llvm::sys::findProgramByName("tirx-run"))
    return *onPath;
  return "";
}

namespace {

std::string jsonText(json::Value value, bool pretty = false) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (pretty)
    os << llvm::formatv("{0:2}", value) << "\n";
  else
    os << value;
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

int mlir::tirx::exitStatusOf(const Refusal &refusal) {
  switch (refusal.kind()) {
  case RefusalKind::Usage:
    return 2;
  case RefusalKind::Damaged:
    return 3;
  case RefusalKind::Limit:
    return 4;
  case RefusalKind::Refused:
    break;
  }
  return 1;
}

Outcome mlir::tirx::outcomeOf(Expected<Result> result) {
  Outcome out;
  if (result) {
    out.ok = true;
    out.version = result->version;
    out.text = std::move(result->text);
    out.json = std::move(result->data);
    out.json["ok"] = true;
    return out;
  }
  Refusal refusal = toRefusal(result.takeError());
  out.exitStatus = exitStatusOf(refusal);
  out.text = refusal.details.getString("text").value_or("").str();
  out.json = json::Object(refusal.details);
  out.json.erase("text");
  out.json["ok"] = false;
  out.json["error"] = refusal.toJSON();
  out.refusal = std::move(refusal);
  return out;
}

Expected<Session> Session::open(const std::string &dir, Identity who) {
  std::string error;
  std::optional<Workspace> ws = Workspace::open(dir, error);
  if (!ws)
    return refuse(RefusalCode::no_workspace, error,
                  "tirx init PAYLOAD.mlir --workspace DIR makes one");
  return Session(std::move(*ws), std::move(who));
}

Expected<Initialized> Session::init(const std::string &dir,
                                const std::string &payloadText,
                                const std::string &name,
                                const InitOptions &options, Identity who) {
  // The target is kept for the workspace's life: a chip the lowering does
  // not know would fail every later run.
  if (!options.target.empty() && !lookupChip(options.target))
    return refuse(RefusalCode::invalid_parameter,
                  "--target '" + oneLine(options.target) +
                      "' is not a chip TIRx lowers for",
                  "one of: " + supportedChipList());
  ChildLimits limits;
  Expected<std::string> canonical = runIsolated(
      [&](MLIRContext &ctx) { return canonicalize(ctx, payloadText, name); },
      limits, ChildAccess::None);
  if (!canonical)
    return canonical.takeError();
  std::string error;
  std::optional<Workspace> ws =
      Workspace::create(dir, options.target, options.task, error);
  if (!ws) {
    llvm::Error exists = refuse(RefusalCode::workspace_exists, error);
    // A workspace already there gets the refused request's audit line.
    if (Expected<Session> there = open(dir, who))
      return there->recordRefusal("init", json::Object{{"payload", name}},
                                  std::move(exists));
    else
      llvm::consumeError(there.takeError());
    return exists;
  }
  Session session(std::move(*ws), std::move(who));
  // The init request is audited like any other, once the workspace exists.
  Expected<Result> made = session.audited(
      "init", json::Object{{"payload", name}, {"target", options.target}},
      [&]() -> Expected<Result> {
        Workspace::Lock lock = session.ws.lock(error);
        if (!lock.held())
          return refuse(RefusalCode::io_error, error);
        std::vector<VersionEntry> entries;
        VersionEntry e;
        e.kind = "init";
        e.message = options.message.empty() ? "seed: " + name : options.message;
        e.actor = session.who.actor;
        e.session = session.who.session;
        Expected<Result> out =
            commitVersion(session.ws, entries, e, *canonical, "");
        if (out && !session.ws.setHead(out->version, error))
          return refuse(RefusalCode::io_error, error);
        return out;
      });
  if (!made)
    return made.takeError();
  return Initialized{std::move(session), std::move(*made)};
}

Expected<Result>
Session::audited(llvm::StringRef command, json::Object args,
                 llvm::function_ref<Expected<Result>()> body) {
  auto started = std::chrono::steady_clock::now();
  ++requests;
  // An append a killed writer left between its line and chain.json is
  // completed or rolled back first, so that the request reads a committed
  // history (the readers serve the recorded head only). fsck reports it
  // before it recovers it.
  if (command != "fsck") {
    std::vector<Damage> recovered;
    std::string ignored; // a failure: the appends refuse, as damage
    (void)ws.recover(recovered, ignored);
  }
  // A request whose audit line could not be appended is not made: the
  // audit log is checked first (a damaged one is refused, as damage).
  // fsck runs regardless: it reports the damage itself.
  std::string unauditable =
      command == "fsck" ? "" : ws.appendRefusal("audit.jsonl");
  if (!unauditable.empty())
    return damaged(unauditable);
  Expected<Result> out = body();
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - started)
                  .count();
  json::Object line{{"time", nowUtc()},
                    {"actor", who.actor},
                    {"session", who.session},
                    {"command", command},
                    {"args", std::move(args)},
                    {"outcome", out ? "accepted" : "rejected"},
                    {"duration_ms", ms}};
  std::optional<Refusal> refusal;
  if (out) {
    if (!out->version.empty())
      line["version"] = out->version;
    if (out->data.get("deduplicated"))
      line["deduplicated"] = true;
  } else {
    refusal = toRefusal(out.takeError());
    line["code"] = codeName(refusal->code);
    line["reason"] = refusal->message;
    if (!refusal->hint.empty())
      line["hint"] = refusal->hint;
    if (!refusal->payloadOp.empty())
      line["payload_op"] = refusal->payloadOp;
    if (refusal->details.get("deduplicated"))
      line["deduplicated"] = true;
  }
  // Every string of the line cut to 64 KiB: a refusal quoting a 4 MiB
  // token (or a 4 MiB message in the arguments) made a line longer than an
  // append takes, and the request went unrecorded.
  std::function<void(json::Value &)> clip = [&](json::Value &v) {
    constexpr size_t kMost = size_t(64) << 10;
    if (std::optional<llvm::StringRef> text = v.getAsString()) {
      if (text->size() > kMost)
        v = text->take_front(kMost).str() + "... (" +
            std::to_string(text->size()) + " bytes, cut)";
    } else if (json::Object *o = v.getAsObject()) {
      for (auto &kv : *o)
        clip(kv.second);
    } else if (json::Array *a = v.getAsArray()) {
      for (json::Value &x : *a)
        clip(x);
    }
  };
  json::Value whole(std::move(line));
  clip(whole);
  line = std::move(*whole.getAsObject());
  std::string error;
  Workspace::Lock lock = ws.lock(error);
  bool written = lock.held() && ws.appendAudit(line, error);
  if (refusal) {
    if (!written)
      refusal->message +=
          " (and its audit line could not be written: " + error + ")";
    return refuse(std::move(*refusal));
  }
  if (!written)
    return refuse(RefusalCode::io_error,
                  "the request was done but its audit line could not be "
                  "written: " + error);
  return out;
}

llvm::Error Session::recordRefusal(llvm::StringRef command,
                                   json::Object args, llvm::Error error) {
  Expected<Result> out =
      audited(command, std::move(args),
              [&]() -> Expected<Result> { return std::move(error); });
  return out ? llvm::Error::success() : out.takeError();
}

Expected<Result> Session::commit(const std::string &parentId,
                                 const std::string &payloadText,
                                 const std::string &name,
                                 const std::string &message) {
  return audited(
      "commit", json::Object{{"parent", parentId}, {"payload", name}},
      [&]() -> Expected<Result> {
        Expected<std::vector<VersionEntry>> entries = readEntries(ws);
        if (!entries)
          return entries.takeError();
        Expected<VersionEntry> parent = findEntry(*entries, parentId);
        if (!parent)
          return parent.takeError();
        Expected<std::string> canonical = runIsolated(
            [&](MLIRContext &ctx) {
              return canonicalizeChecked(ctx, payloadText, name);
            },
            childLimits, ChildAccess::None);
        if (!canonical)
          return canonical.takeError();
        std::string error;
        Workspace::Lock lock = ws.lock(error);
        if (!lock.held())
          return refuse(RefusalCode::io_error, error);
        entries = readEntries(ws);
        if (!entries)
          return entries.takeError();
        if (digestOf(*canonical) == parent->digest)
          return refuse(RefusalCode::no_change,
                        name + " is the same payload as " + parent->id);
        VersionEntry e;
        e.parent = parent->id;
        e.kind = "commit";
        e.message = message.empty() ? "commit " + name : message;
        e.actor = who.actor;
        e.session = who.session;
        return commitVersion(ws, *entries, e, *canonical, "");
      });
}

Expected<Result> Session::applyLocked(const std::string &parentId,
                                      const std::string &scriptText,
                                      const std::string &scriptName,
                                      const std::string &message,
                                      const ApplyOptions &options,
                                      const ActionScript *action) {
  std::string error;
  std::vector<VersionEntry> entries;
  std::vector<RequestRecord> requests;
  // The index and the requests, read under one lock: a writer between two
  // reads would leave a request naming a version not yet seen.
  if (!ws.readHistory(entries, requests, error))
    return damaged(error);
  Expected<VersionEntry> parent = findEntry(entries, parentId);
  if (!parent)
    return parent.takeError();
  std::string scriptDigest = digestOf(scriptText);
  // The policy is part of the request: the same script may be refused
  // under strict and run under open.
  std::string signature =
      parent->digest + " " + scriptDigest +
      (options.policy == ScriptPolicy::Open ? " open" : "");
  if (const RequestRecord *earlier = findRequest(requests, signature))
    return repeated(*earlier, entries, ws.head());

  std::string parentText;
  if (!ws.readObject(parent->digest, parentText, error))
    return damaged(error);
  std::optional<ActionTarget> target;
  if (action)
    target = ActionTarget{action->targetOp, action->targetIndex};
  Expected<std::string> result = runIsolated(
      [&](MLIRContext &ctx) {
        return applyScriptText(ctx, parentText, parent->id, scriptText,
                               scriptName, options.policy, target);
      },
      childLimits, ChildAccess::None);

  Workspace::Lock lock = ws.lock(error);
  if (!lock.held())
    return refuse(RefusalCode::io_error, error);
  if (!ws.readHistory(entries, requests, error))
    return damaged(error);
  // Another writer may have made the same request meanwhile.
  if (const RequestRecord *earlier = findRequest(requests, signature)) {
    if (!result)
      llvm::consumeError(result.takeError());
    return repeated(*earlier, entries, ws.head());
  }
  if (result && digestOf(*result) == parent->digest)
    result = refuse(RefusalCode::no_change,
                    "the script did not change " + parent->id);
  if (!result) {
    Refusal refusal = toRefusal(result.takeError());
    // A limit hit says nothing about the request: it is not remembered.
    if (refusal.kind() != RefusalKind::Limit &&
        !ws.appendRequest({signature, "rejected", "", std::string(codeName(refusal.code)),
                           refusal.message, refusal.hint, refusal.payloadOp,
                           refusal.location},
                          error))
      return refuse(RefusalCode::io_error, error);
    return refuse(std::move(refusal));
  }
  std::string stored;
  if (!ws.writeObject(scriptText, stored, error))
    return damaged(error);
  VersionEntry e;
  e.parent = parent->id;
  e.kind = "apply";
  e.script = scriptDigest;
  e.action = action ? action->canonical : "";
  e.message = message;
  e.actor = who.actor;
  e.session = who.session;
  return commitVersion(ws, entries, e, *result, signature);
}

Expected<Result> Session::applyScript(const std::string &version,
                                      const std::string &scriptText,
                                      const std::string &scriptName,
                                      const ApplyOptions &options) {
  return audited("apply",
                 json::Object{{"version", version},
                              {"script", scriptName},
                              {"policy", policyName(options.policy)}},
                 [&]() {
                   return applyLocked(version, scriptText, scriptName,
                                      options.message.empty()
                                          ? "apply " + scriptName
                                          : options.message,
                                      options, nullptr);
                 });
}

namespace {
/// An action's script, built in a context of the harness's registry: one
/// context per process and thread, made once (a context with every dialect
/// registered took 13 ms to make, each apply; the script is built from
/// the action's data and the harness's own ops, never from payload IR).
MLIRContext &scriptContext() {
  static thread_local std::unique_ptr<MLIRContext> ctx;
  if (!ctx) {
    ctx = std::make_unique<MLIRContext>(harnessRegistry(),
                                        MLIRContext::Threading::DISABLED);
    ctx->printOpOnDiagnostic(false);
    // Every dialect loaded once here (building a script loaded the
    // transform dialect and its extensions lazily: 8% of a tune's build
    // processes' time when each made its own).
    ctx->loadAllAvailableDialects();
  }
  return *ctx;
}

Expected<ActionScript> scriptOf(const json::Value &action) {
  return buildActionScript(scriptContext(), action);
}
} // namespace

void Session::warm() {
  warmIsolation();
  scriptContext();
  actionsSchema(); // the actions' schemas, parsed once
}

Expected<Result> Session::applyAction(const std::string &version,
                                      const json::Value &action,
                                      const ApplyOptions &options) {
  return audited(
      "apply", json::Object{{"version", version}, {"action", action}},
      [&]() -> Expected<Result> {
        Expected<ActionScript> script = scriptOf(action);
        if (!script)
          return script.takeError();
        return applyLocked(version, script->script, "action",
                           options.message.empty()
                               ? "action " + script->canonical
                               : options.message,
                           options, &*script);
      });
}

Expected<Result> Session::applyRecipe(const std::string &version,
                                      const json::Value &recipe,
                                      const std::string &name,
                                      const ApplyOptions &options) {
  return audited(
      "apply", json::Object{{"version", version}, {"recipe", name}},
      [&]() -> Expected<Result> {
        const json::Array *steps = recipe.getAsArray();
        if (!steps)
          return refuse(RefusalCode::bad_action,
                        name + ": a recipe is a JSON array of actions");
        if (llvm::Error e = checkRecipeOrder(*steps))
          return std::move(e);
        std::string at = version;
        Result last;
        json::Array versions;
        std::string text;
        for (const json::Value &step : *steps) {
          auto stageRefusal = [&](llvm::Error error) {
            Refusal r = toRefusal(std::move(error));
            r.message = "stage " + std::to_string(versions.size()) + ": " +
                        r.message;
            r.details["versions"] = json::Array(versions);
            return refuse(std::move(r));
          };
          Expected<ActionScript> script = scriptOf(step);
          if (!script)
            return stageRefusal(script.takeError());
          Expected<Result> made =
              applyLocked(at, script->script, "action",
                          "recipe " + name + ": " + script->canonical,
                          options, &*script);
          if (!made)
            return stageRefusal(made.takeError());
          last = std::move(*made);
          versions.push_back(last.version);
          text += last.text;
          at = last.version;
        }
        last.text = text;
        last.data["versions"] = std::move(versions);
        return std::move(last);
      });
}

Expected<Result> Session::log() {
  return audited("log", json::Object{}, [&]() -> Expected<Result> {
    Expected<std::vector<VersionEntry>> entries = readEntries(ws);
    if (!entries)
      return entries.takeError();
    std::string head = ws.head();
    Result out;
    json::Array list;
    std::map<std::string, std::vector<const VersionEntry *>> children;
    for (const VersionEntry &e : *entries) {
      list.push_back(entryJSON(e, head));
      children[e.parent].push_back(&e);
    }
    out.data = json::Object{{"head", head}, {"versions", std::move(list)}};
    std::function<void(const VersionEntry &, const std::string &, bool, bool)>
        print = [&](const VersionEntry &e, const std::string &prefix,
                    bool last, bool root) {
          out.text += prefix + (root ? "" : last ? "└─ " : "├─ ") + e.id +
                      "  " + shortDigest(e.digest) + "  " + e.kind + ": " +
                      oneLine(e.message) + (e.id == head ? "  [HEAD]" : "") +
                      "\n";
          const auto &kids = children[e.id];
          for (size_t i = 0; i < kids.size(); ++i)
            print(*kids[i], prefix + (root ? "" : last ? "   " : "│  "),
                  i + 1 == kids.size(), false);
        };
    for (const VersionEntry *root : children[""])
      print(*root, "", true, true);
    return out;
  });
}

Expected<Result> Session::show(const std::string &version) {
  return audited("show", json::Object{{"version", version}},
                 [&]() -> Expected<Result> {
                   auto loaded = loadVersion(ws, version);
                   if (!loaded)
                     return loaded.takeError();
                   Result out;
                   out.version = loaded->first.id;
                   out.text = loaded->second;
                   out.data = json::Object{
                       {"version", entryJSON(loaded->first, ws.head())},
                       {"ir", loaded->second}};
                   return out;
                 });
}

Expected<Result> Session::diff(const std::string &from,
                               const std::string &to) {
  return audited(
      "diff", json::Object{{"from", from}, {"to", to}},
      [&]() -> Expected<Result> {
        auto a = loadVersion(ws, from);
        if (!a)
          return a.takeError();
        auto b = loadVersion(ws, to);
        if (!b)
          return b.takeError();
        const std::string &ida = a->first.id, &idb = b->first.id;
        // The structural summary is computed in the child: the texts are
        // verified objects, but parsing them is still MLIR work.
        Expected<std::string> summaryText = runIsolated(
            [&](MLIRContext &ctx) -> Expected<std::string> {
              OwningOpRef<ModuleOp> ma = parseModule(ctx, a->second, ida);
              OwningOpRef<ModuleOp> mb = parseModule(ctx, b->second, idb);
              json::Array lines;
              if (ma && mb)
                for (const std::string &line : describeChanges(
                         summarizeStructure(*ma), summarizeStructure(*mb)))
                  lines.push_back(line);
              else
                lines.push_back("(structure unknown: a version does not "
                                "parse)");
              return jsonText(std::move(lines));
            },
            childLimits, ChildAccess::None);
        if (!summaryText)
          return summaryText.takeError();
        auto parsed = parseJSON(*summaryText, kChildJSON);
        if (!parsed)
          return parsed.takeError();
        json::Array summary = *parsed->getAsArray();
        std::string unified = unifiedDiff(a->second, b->second, ida, idb);
        Result out;
        out.text = "structure " + ida + " -> " + idb + ":\n";
        for (const json::Value &line : summary)
          out.text += "  " + line.getAsString().value_or("").str() + "\n";
        if (summary.empty())
          out.text += "  (no structural change)\n";
        out.text += unified;
        out.data = json::Object{{"from", ida},
                                {"to", idb},
                                {"summary", std::move(summary)},
                                {"unified", unified}};
        return out;
      });
}

Expected<Result> Session::checkout(const std::string &version) {
  return audited("checkout", json::Object{{"version", version}},
                 [&]() -> Expected<Result> {
                   std::string error;
                   Workspace::Lock lock = ws.lock(error);
                   if (!lock.held())
                     return refuse(RefusalCode::io_error, error);
                   auto entries = readEntries(ws, /*checkHead=*/false);
                   if (!entries)
                     return entries.takeError();
                   Expected<VersionEntry> e = findEntry(*entries, version);
                   if (!e)
                     return e.takeError();
                   if (!ws.setHead(e->id, error))
                     return refuse(RefusalCode::io_error, error);
                   Result out;
                   out.version = e->id;
                   out.text = "HEAD is now " + e->id + "\n";
                   out.data = json::Object{{"head", e->id}};
                   return out;
                 });
}

Expected<Result> Session::view(const std::string &version,
                               const std::string &what,
                               const std::string &deviceProfile) {
  return audited(
      "view", json::Object{{"version", version}, {"what", what}},
      [&]() -> Expected<Result> {
        auto loaded = loadVersion(ws, version);
        if (!loaded)
          return loaded.takeError();
        std::string id = loaded->first.id;
        std::string bundle = ws.path("bundles/" + id);
        bool compiled = llvm::sys::fs::exists(bundle + "/manifest.json");
        std::string chip = ws.target().empty() ? "sm_90" : ws.target();
        // The view pass writes its JSON to a file: one inside the
        // workspace, private to this request.
        std::string dir = ws.path("tmp");
        llvm::sys::fs::create_directories(dir);
        llvm::SmallString<128> path;
        int fd;
        if (llvm::sys::fs::createUniqueFile(dir + "/view-%%%%%%%%.json", fd,
                                            path, llvm::sys::fs::OF_None,
                                            0600))
          return refuse(RefusalCode::io_error,
                        "cannot create a file in " + dir);
        ::close(fd);
        std::string output = path.str().str();
        Expected<std::string> r = runIsolated(
            [&](MLIRContext &ctx) -> Expected<std::string> {
              OwningOpRef<ModuleOp> module =
                  parseModule(ctx, loaded->second, id);
              if (!module)
                return refuse(RefusalCode::parse_error, id + " does not parse");
              TIRxViewOptions options;
              options.what = what;
              options.chip = chip;
              options.device = deviceProfile;
              options.bundle = compiled ? bundle : "";
              options.output = output;
              PassManager pm(&ctx);
              pm.addPass(createTIRxView(options));
              if (failed(pm.run(*module)))
                return refuse(RefusalCode::view_failed,
                              "the view could not be built");
              std::string json, error;
              if (!rt::readFile(output, json, error)) // (no temporary name)
                return refuse(RefusalCode::view_failed,
                              "the view pass wrote no result");
              return json;
            },
            childLimits);
        std::remove(output.c_str());
        if (!r)
          return r.takeError();
        auto parsed = parseJSON(*r, kChildJSON);
        if (!parsed || !parsed->getAsObject()) {
          if (!parsed)
            llvm::consumeError(parsed.takeError());
          return refuse(RefusalCode::internal, "the view is not JSON");
        }
        Result out;
        out.version = id;
        const json::Object &view = *parsed->getAsObject();
        out.text = what == "summary" ? view.getString("text").value_or("").str()
                                     : *r;
        out.data = json::Object{{"version", id}, {"view", json::Object(view)}};
        return out;
      });
}

namespace {
/// Lowers `text` into `dir` through a private directory renamed into place
/// (then `dir`'s parent fsync'd), so that a bundle directory, once there,
/// is whole: one killed halfway leaves only its private directory behind. With `reuse`, a bundle already
/// there is kept.
llvm::Error exportBundleWhole(MLIRContext &ctx, const std::string &text,
                              const std::string &name, const std::string &dir,
                              const std::string &chip, bool reuse) {
  if (reuse && llvm::sys::fs::exists(dir + "/manifest.json"))
    return llvm::Error::success();
  std::string partial = dir + ".partial-" + std::to_string(::getpid());
  rt::removeTree(partial);
  if (llvm::Error e = exportBundle(ctx, text, name, partial, chip)) {
    rt::removeTree(partial);
    return e;
  }
  if (std::rename(partial.c_str(), dir.c_str()) != 0) {
    // Another process put it there first (reuse: its bundle is as good),
    // or an older bundle is replaced.
    if (!(reuse && llvm::sys::fs::exists(dir + "/manifest.json")))
      rt::removeTree(dir);
    if (llvm::sys::fs::exists(dir) ||
        std::rename(partial.c_str(), dir.c_str()) != 0) {
      rt::removeTree(partial);
      if (!llvm::sys::fs::exists(dir + "/manifest.json"))
        return refuse(RefusalCode::io_error, "cannot put the bundle in " + dir);
    }
  }
  // The rename on disk (the bundle's files were fsync'd as written).
  std::string error;
  if (!rt::syncParentDirectory(dir, error))
    return refuse(RefusalCode::io_error, error);
  return llvm::Error::success();
}
} // namespace

Expected<Session::Lowered> Session::lower(const std::string &version,
                                          const std::string &referenceId,
                                          bool reuse) {
  auto entries = readEntries(ws);
  if (!entries)
    return entries.takeError();
  Expected<VersionEntry> v = findEntry(*entries, version);
  if (!v)
    return v.takeError();
  // The reference: the root of the version's chain (its seed), unless
  // named.
  std::string refId = referenceId;
  if (refId.empty()) {
    VersionEntry at = *v;
    while (!at.parent.empty()) {
      Expected<VersionEntry> up = findEntry(*entries, at.parent);
      if (!up)
        return up.takeError();
      at = *up;
    }
    refId = at.id;
  }
  Expected<VersionEntry> reference = findEntry(*entries, refId);
  if (!reference)
    return reference.takeError();
  std::string text, refText, error;
  if (!ws.readObject(v->digest, text, error) ||
      !ws.readObject(reference->digest, refText, error))
    return damaged(error);
  Lowered out;
  out.version = v->id;
  out.reference = reference->id;
  out.bundle = ws.path("bundles/" + v->id);
  out.referenceBundle = ws.path("bundles/" + reference->id + "-reference");
  llvm::sys::fs::create_directories(ws.path("bundles"));
  std::string chip = ws.target().empty() ? "sm_90" : ws.target();
  if (reuse && llvm::sys::fs::exists(out.bundle + "/manifest.json") &&
      llvm::sys::fs::exists(out.referenceBundle + "/manifest.json"))
    return out; // both lowered before: no MLIR work at all
  Expected<std::string> lowered = runIsolated(
      [&](MLIRContext &ctx) -> Expected<std::string> {
        if (llvm::Error e =
                exportBundleWhole(ctx, text, v->id, out.bundle, chip, reuse))
          return std::move(e);
        if (llvm::Error e = exportBundleWhole(ctx, refText, reference->id,
                                              out.referenceBundle, chip, reuse))
          return std::move(e);
        return std::string();
      },
      childLimits);
  if (!lowered) {
    Refusal refusal = toRefusal(lowered.takeError());
    refusal.details["lowering"] = v->id; // the lowering failed, not a lookup
    return refuse(std::move(refusal));
  }
  return out;
}

Expected<Result> Session::compile(const std::string &version,
                                  const std::string &reference) {
  json::Object args{{"version", version}};
  if (!reference.empty())
    args["reference"] = reference;
  return audited("compile", std::move(args), [&]() -> Expected<Result> {
    Expected<Lowered> l = lower(version, reference, /*reuse=*/true);
    if (!l)
      return l.takeError();
    Result out;
    out.version = l->version;
    out.text = l->version + ": lowered into " + l->bundle + " (reference " +
               l->reference + ": " + l->referenceBundle + ")\n";
    out.data = json::Object{{"bundle", l->bundle},
                            {"reference", l->reference},
                            {"reference_bundle", l->referenceBundle}};
    return out;
  });
}

Expected<Result> Session::run(const std::string &version,
                              const RunOptions &options) {
  json::Object args{{"version", version}};
  if (!options.reference.empty())
    args["reference"] = options.reference;
  return audited("run", std::move(args), [&]() -> Expected<Result> {
    Expected<Lowered> lowered =
        lower(version, options.reference, options.reuseBundles);
    std::string error;
    llvm::sys::fs::create_directories(ws.path("feedback"));
    if (!lowered) {
      Refusal refusal = toRefusal(lowered.takeError());
      std::optional<llvm::StringRef> id = refusal.details.getString("lowering");
      if (!id)
        return refuse(std::move(refusal));
      // A version that does not compile is feedback too.
      std::string feedbackFile = ws.path("feedback/" + id->str() + ".json");
      rt::Feedback f;
      f.irVersion = id->str();
      refusal.details.erase("lowering");
      f.compileStatus = "error";
      f.error = refusal.message;
      rt::writeFileAtomically(feedbackFile, rt::serializeFeedback(f), error);
      refusal.details["feedback"] = feedbackFile;
      return refuse(std::move(refusal));
    }
    const std::string &id = lowered->version;
    const std::string &bundle = lowered->bundle;
    const std::string &refBundle = lowered->referenceBundle;
    std::string feedbackFile = ws.path("feedback/" + id + ".json");

    std::string runner = options.runner.empty() ? findRunner() : options.runner;
    if (runner.empty())
      return refuse(RefusalCode::no_runner,
                    "tirx-run was found neither beside tirx nor on PATH");
    std::vector<std::string> argv = {runner, bundle, "--reference", refBundle,
                                     "-o", feedbackFile, "--ir-version",
                                     id};
    auto flag = [&](const char *name, const std::optional<int64_t> &value) {
      if (value) {
        argv.push_back(name);
        argv.push_back(std::to_string(*value));
      }
    };
    flag("--timeout", options.timeout);
    flag("--samples", options.samples);
    flag("--seed", options.seed);
    flag("--inputs", options.inputs);
    if (options.counters)
      argv.push_back("--counters");
    std::string message;
    std::remove(feedbackFile.c_str());
    // The runner is limited in wall time (its launches' --timeout each,
    // then the rest) and dies with this process; not in address space:
    // the CUDA driver reserves the GPU's whole virtual address range.
    // Its temporary files (mode 0600, removed) stay inside the workspace.
    llvm::sys::fs::create_directories(ws.path("tmp"));
    std::string said;
    Expected<int> ran = runProgram(
        argv,
        childLimits.seconds
            ? childLimits.seconds + 4 * unsigned(options.timeout.value_or(0))
            : 0,
        ws.path("tmp"), &said);
    if (!ran)
      return ran.takeError();
    int status = *ran;
    if (status == 127)
      message = runner + " could not be started";
    std::string feedbackText;
    if (!rt::readFile(feedbackFile, feedbackText, error)) {
      // What the runner said is the reason (a flag it refused, a bundle it
      // could not read): its last line in the message, its tail in details.
      llvm::StringRef tail = llvm::StringRef(said).rtrim();
      llvm::StringRef last = tail.substr(tail.find_last_of('\n') + 1);
      Refusal refusal(RefusalCode::runner_failed,
                      "tirx-run exited with " + std::to_string(status) +
                          (message.empty() ? "" : " (" + message + ")") +
                          " and wrote no feedback" +
                          (last.empty() ? "" : ": " + oneLine(last)));
      if (!tail.empty())
        refusal.details["stderr"] =
            json::isUTF8(tail) ? tail.str() : json::fixUTF8(tail);
      return refuse(std::move(refusal));
    }
    rt::Feedback f;
    rt::parseFeedback(feedbackText, f, error);
    Result out;
    out.version = id;
    auto parsed = parseJSON(feedbackText);
    if (parsed && parsed->getAsObject())
      out.data = json::Object{{"feedback", std::move(*parsed->getAsObject())}};
    else if (!parsed)
      llvm::consumeError(parsed.takeError());
    out.text =
        id + ": compile " + f.compileStatus + ", launch " + f.launchStatus +
        ", correctness " + f.correctness + " (reference: " + lowered->reference +
        ")" +
        (f.duration ? ", median " + std::to_string(f.duration->median) +
                          " us over " + std::to_string(f.duration->count) +
                          " samples"
                    : "") +
        (f.bottleneck != "unknown" ? ", bottleneck " + f.bottleneck : "") +
        "\n  feedback: " + feedbackFile + "\n";
    if (status == 0)
      return out;
    Refusal refusal;
    if (status == 3) {
      refusal = Refusal(RefusalCode::no_device,
                        "no CUDA device here: the bundle is compiled and "
                        "ready (" + bundle + ")");
    } else {
      if (f.launchStatus == "timeout" || f.launchStatus != "ok") {
        refusal.code = f.launchStatus == "timeout" ? RefusalCode::launch_timeout
                                                   : RefusalCode::launch_error;
        refusal.message = f.error;
      } else if (f.correctness == "fail") {
        refusal.code = RefusalCode::correctness_fail;
        refusal.message = f.correctnessDetail;
      } else if (f.ghostCheck == "blind") {
        refusal.code = RefusalCode::check_blind;
        refusal.message = "the outputs pass the check with no kernel launched: "
                          "the check cannot see this kernel";
        refusal.hint = "give the reference inputs for which the kernel "
                       "changes its outputs";
      } else if (f.plausible == false) {
        refusal.code = RefusalCode::implausible;
        refusal.message = f.implausibleReason;
        refusal.hint = "a timing faster than the device allows is never "
                       "ranked; check the kernel for skipped work";
      } else {
        refusal.code = RefusalCode::runner_failed;
        refusal.message = f.error.empty() ? f.correctnessDetail : f.error;
      }
      if (refusal.message.empty())
        refusal.message = "tirx-run exited with " + std::to_string(status);
    }
    refusal.details = std::move(out.data);
    refusal.details["text"] = out.text;
    return refuse(std::move(refusal));
  });
}

Expected<Result> Session::exportSession() {
  return audited("export", json::Object{{"as", "session"}},
                 [&]() -> Expected<Result> {
    auto entries = readEntries(ws);
    if (!entries)
      return entries.takeError();
    json::Array steps;
    for (const VersionEntry &e : *entries) {
      if (e.parent.empty())
        continue;
      json::Object step{{"from", e.parent}, {"to", e.id},
                        {"kind", e.kind},   {"message", e.message},
                        {"time", e.time},   {"actor", e.actor}};
      if (!e.script.empty())
        step["script"] = e.script;
      if (!e.action.empty()) {
        auto action = parseJSON(e.action);
        if (action)
          step["action"] = std::move(*action);
        else
          llvm::consumeError(action.takeError());
      }
      // Feedback deltas, where both versions were measured.
      std::string fa, fb, ignored;
      if (rt::readFile(ws.path("feedback/" + e.parent + ".json"), fa,
                       ignored) &&
          rt::readFile(ws.path("feedback/" + e.id + ".json"), fb, ignored)) {
        auto pa = parseJSON(fa), pb = parseJSON(fb);
        if (pa && pb && pa->getAsObject() && pb->getAsObject()) {
          json::Object delta;
          for (const char *key : {"duration_us", "bandwidth_utilization"}) {
            auto x = pa->getAsObject()->getNumber(key);
            auto y = pb->getAsObject()->getNumber(key);
            if (x && y)
              delta[key] = *y - *x;
          }
          step["feedback_delta"] = std::move(delta);
        }
        if (!pa)
          llvm::consumeError(pa.takeError());
        if (!pb)
          llvm::consumeError(pb.takeError());
      }
      steps.push_back(std::move(step));
    }
    json::Object session{
        {"task", ws.task()},
        {"target", ws.target()},
        {"initial_ir_version", entries->empty() ? "" : entries->front().id},
        {"final_ir_version", ws.head()},
        {"versions", int64_t(entries->size())},
        {"steps", std::move(steps)}};
    Result out;
    out.text = jsonText(json::Object(session), /*pretty=*/true);
    out.data = json::Object{{"session", std::move(session)}};
    return out;
  });
}

namespace {
/// The history as a tirx.session module (in the child).
Expected<std::string> historyModule(MLIRContext &ctx, const Workspace &ws,
                                    const std::vector<VersionEntry> &entries,
                                    std::map<std::string, std::string> &payloads,
                                    std::map<std::string, std::string> &scripts) {
  ctx.getOrLoadDialect<TIRxDialect>(); // ops are created, not parsed, here
  OpBuilder b(&ctx);
  Location loc = UnknownLoc::get(&ctx);
  OwningOpRef<ModuleOp> top = ModuleOp::create(loc);
  b.setInsertionPointToEnd(top->getBody());
  auto session = SessionOp::create(b, loc, b.getStringAttr("session"));
  if (!ws.task().empty())
    session->setAttr("task", b.getStringAttr(ws.task()));
  session->setAttr("target", b.getStringAttr(ws.target()));
  Block *body = new Block();
  session.getBody().push_back(body);
  b.setInsertionPointToEnd(body);
  for (const VersionEntry &e : entries) {
    OwningOpRef<ModuleOp> payload = parseModule(ctx, payloads[e.id], e.id);
    if (!payload)
      return refuse(RefusalCode::parse_error, e.id + " does not parse");
    auto snapshot = SnapshotOp::create(
        b, loc, b.getStringAttr(e.id),
        e.parent.empty() ? FlatSymbolRefAttr()
                         : FlatSymbolRefAttr::get(&ctx, e.parent),
        b.getStringAttr(e.digest),
        e.message.empty() ? StringAttr() : b.getStringAttr(e.message));
    Block *inner = new Block();
    snapshot.getBody().push_back(inner);
    inner->push_back(payload.release());
  }
  for (const VersionEntry &e : entries) {
    if (e.parent.empty())
      continue;
    StepOp::create(
        b, loc, FlatSymbolRefAttr::get(&ctx, e.parent),
        FlatSymbolRefAttr::get(&ctx, e.id),
        b.getStringAttr(e.kind == "apply" ? "apply" : "commit"),
        e.kind == "apply" ? b.getStringAttr(scripts[e.id]) : StringAttr(),
        e.action.empty() ? StringAttr() : b.getStringAttr(e.action));
  }
  if (failed(verify(*top)))
    return refuse(RefusalCode::verify_error, "the history does not verify");
  std::string out;
  llvm::raw_string_ostream os(out);
  top->print(os, OpPrintingFlags().enableDebugInfo(false));
  return out;
}

/// One step to re-derive.
struct ReplayStep {
  std::string id, parentText, script, digest, kind;
};

/// Re-applies every step, its script under `policy`; a mismatch is a
/// replay_mismatch refusal whose details list the steps.
Expected<Result> replaySteps(const std::vector<ReplayStep> &steps,
                             const ChildLimits &limits, ScriptPolicy policy) {
  Result out;
  json::Array results;
  int failedCount = 0, replayed = 0;
  for (const ReplayStep &s : steps) {
    std::string problem;
    std::string status = "reproduced";
    if (s.kind != "apply") {
      status = "checked";
    } else {
      ++replayed;
      Expected<std::string> r = runIsolated(
          [&](MLIRContext &ctx) {
            return applyScriptText(ctx, s.parentText, "parent of " + s.id,
                                   s.script, "script of " + s.id, policy,
                                   std::nullopt);
          },
          limits, ChildAccess::None);
      if (!r) {
        Refusal refusal = toRefusal(r.takeError());
        problem = std::string(codeName(refusal.code)) + ": " + refusal.message;
      } else if (digestOf(*r) != s.digest) {
        problem = "digest mismatch: recorded " + s.digest +
                  ", replay gives " + digestOf(*r);
      }
      if (!problem.empty()) {
        status = "failed";
        ++failedCount;
      }
    }
    out.text += s.id + ": " + status +
                (s.kind != "apply" ? " (a hand commit: digest checked, "
                                     "nothing to re-derive)"
                                   : "") +
                (problem.empty() ? "" : ": " + problem) + "\n";
    json::Object o{{"version", s.id}, {"status", status}};
    if (!problem.empty())
      o["problem"] = problem;
    results.push_back(std::move(o));
  }
  out.text += std::to_string(replayed - failedCount) + " of " +
              std::to_string(replayed) + " steps reproduced\n";
  out.data = json::Object{{"steps", std::move(results)},
                          {"reproduced", replayed - failedCount},
                          {"failed", failedCount}};
  if (!failedCount)
    return out;
  Refusal refusal(RefusalCode::replay_mismatch,
                  std::to_string(failedCount) + " step(s) did not reproduce");
  refusal.details = std::move(out.data);
  refusal.details["text"] = out.text;
  return refuse(std::move(refusal));
}
} // namespace

Expected<Result> Session::exportHistory() {
  return audited("export", json::Object{{"as", "mlir"}},
                 [&]() -> Expected<Result> {
    auto entries = readEntries(ws);
    if (!entries)
      return entries.takeError();
    std::map<std::string, std::string> payloads, scripts;
    std::string error;
    for (const VersionEntry &e : *entries) {
      if (!ws.readObject(e.digest, payloads[e.id], error))
        return damaged(error);
      if (!e.script.empty() && !ws.readObject(e.script, scripts[e.id], error))
        return damaged(error);
    }
    Expected<std::string> text = runIsolated(
        [&](MLIRContext &ctx) {
          return historyModule(ctx, ws, *entries, payloads, scripts);
        },
        childLimits, ChildAccess::None);
    if (!text) {
      Refusal r = toRefusal(text.takeError());
      r.code = RefusalCode::workspace_damaged;
      return refuse(std::move(r));
    }
    Result out;
    out.text = *text;
    out.data = json::Object{{"mlir", *text}};
    return out;
  });
}

Expected<Result> Session::replay() {
  return audited("replay", json::Object{}, [&]() -> Expected<Result> {
    auto entries = readEntries(ws);
    if (!entries)
      return entries.takeError();
    std::vector<ReplayStep> steps;
    std::string error;
    for (const VersionEntry &e : *entries) {
      std::string text;
      if (!ws.readObject(e.digest, text, error)) // every object verified
        return damaged(error);
      if (e.parent.empty())
        continue;
      ReplayStep s{e.id, "", "", e.digest, e.kind};
      Expected<VersionEntry> parent = findEntry(*entries, e.parent);
      if (!parent)
        return damaged(e.id + ": its parent " + e.parent + " is missing");
      if (!ws.readObject(parent->digest, s.parentText, error))
        return damaged(error);
      if (e.kind == "apply" && !ws.readObject(e.script, s.script, error))
        return damaged(error);
      steps.push_back(std::move(s));
    }
    // The workspace's own steps: each was accepted under its request's
    // policy when it was applied (an open one too), so none is refused now.
    return replaySteps(steps, childLimits, ScriptPolicy::Open);
  });
}

Expected<Result> Session::replayHistory(const std::string &historyText,
                                        const std::string &name,
                                        ScriptPolicy policy,
                                        const ChildLimits &limits) {
  // The history as MLIR: verify it (digests, parents, cycles), then
  // re-derive every apply step.
  Expected<std::string> list = runIsolated(
      [&](MLIRContext &ctx) -> Expected<std::string> {
        OwningOpRef<ModuleOp> top = parseModule(ctx, historyText, name);
        if (!top)
          return refuse(RefusalCode::parse_error,
                        name + " does not parse or verify");
        if (failed(verify(*top)))
          return refuse(RefusalCode::verify_error, name + " does not verify");
        json::Array steps;
        top->walk([&](StepOp step) {
          auto session = step->getParentOfType<SessionOp>();
          auto from = cast<SnapshotOp>(
              SymbolTable::lookupSymbolIn(session, step.getFromAttr()));
          auto to = cast<SnapshotOp>(
              SymbolTable::lookupSymbolIn(session, step.getToAttr()));
          steps.push_back(json::Object{
              {"id", to.getSymName()},
              {"parent_text", canonicalText(from.getPayload())},
              {"script", step.getScript().value_or("")},
              {"digest", to.getDigest()},
              {"kind", step.getKind()}});
        });
        return jsonText(std::move(steps));
      },
      limits, ChildAccess::None);
  if (!list)
    return list.takeError();
  auto parsed = parseJSON(*list, kChildJSON);
  if (!parsed || !parsed->getAsArray()) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    return refuse(RefusalCode::internal, "replay list unreadable");
  }
  std::vector<ReplayStep> steps;
  for (const json::Value &v : *parsed->getAsArray()) {
    const json::Object &o = *v.getAsObject();
    auto get = [&](const char *key) {
      return o.getString(key).value_or("").str();
    };
    steps.push_back({get("id"), get("parent_text"), get("script"),
                     get("digest"), get("kind")});
  }
  return replaySteps(steps, limits, policy);
}

Expected<Result> Session::fsck() {
  return audited("fsck", json::Object{}, [&]() -> Expected<Result> {
    // An interrupted append is no damage: reported, then completed or
    // rolled back (as the next write would anyway).
    std::vector<Damage> damages, recovered;
    bool interrupted = false;
    for (Damage &d : ws.check()) {
      if (d.recoverable)
        interrupted = true;
      else
        damages.push_back(std::move(d));
    }
    std::string error;
    if (interrupted && !ws.recover(recovered, error))
      damages.push_back({ws.path("chain.json"), 0, error});
    std::vector<VersionEntry> entries;
    bool indexRead = ws.readIndex(entries, error);
    if (damages.empty() && !indexRead)
      damages.push_back({ws.path("index.jsonl"), 0, error});
    Result out;
    json::Array problems, located;
    for (const Damage &d : damages) {
      out.text += d.message() + "\n";
      problems.push_back(d.problem);
      located.push_back(json::Object{
          {"file", d.file}, {"line", d.line}, {"problem", d.problem}});
    }
    json::Array completed;
    for (const Damage &d : recovered) {
      out.text += d.message() + "\n";
      completed.push_back(json::Object{
          {"file", d.file}, {"line", d.line}, {"problem", d.problem}});
    }
    out.text += std::to_string(entries.size()) + " versions, " +
                std::to_string(damages.size()) + " problem(s)" +
                (recovered.empty() ? std::string()
                                   : ", " + std::to_string(recovered.size()) +
                                         " interrupted append(s) recovered") +
                "\n";
    out.data = json::Object{{"versions", int64_t(entries.size())},
                            {"problems", std::move(problems)},
                            {"damages", std::move(located)},
                            {"recovered", std::move(completed)}};
    if (damages.empty())
      return out;
    Refusal refusal(RefusalCode::workspace_damaged, damages.front().message());
    refusal.details = std::move(out.data);
    refusal.details["text"] = out.text;
    return refuse(std::move(refusal));
  });
}
