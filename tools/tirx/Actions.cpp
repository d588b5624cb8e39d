//===- Actions.cpp - actions, their schema, script policy -------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Actions.h"

#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "llvm/ADT/StringExtras.h"
#include <set>
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
struct Action {
  std::string name, target;
  json::Value schema;
};

std::vector<Action> actions() {
  std::vector<Action> list;
  for (const ActionInfo &info : actionInfos()) {
    auto parsed = json::parse(info.schema);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      continue; // a malformed ODS schema is caught by the schema test
    }
    list.push_back({info.name, info.target, std::move(*parsed)});
  }
  return list;
}

/// The target index an action takes when it names none: fuse_into's
/// producer comes before its consumer, so the first op; others all ops.
std::optional<int64_t> defaultIndex(const std::string &transform) {
  if (transform == "fuse_into")
    return 0;
  return std::nullopt;
}

bool intList(const json::Value *v, std::vector<int64_t> &out) {
  const json::Array *a = v ? v->getAsArray() : nullptr;
  if (!a)
    return false;
  for (const json::Value &e : *a) {
    auto i = e.getAsInteger();
    if (!i)
      return false;
    out.push_back(*i);
  }
  return true;
}

std::string list(const std::vector<int64_t> &v) {
  std::vector<std::string> parts;
  for (int64_t x : v)
    parts.push_back(std::to_string(x));
  return "[" + llvm::join(parts, ", ") + "]";
}
/// The transform IR that binds %t to the action's target: every op of the
/// kind, or its index-th in program order. split_handle with an overflow
/// result wants at least as many payloads as results, so the module itself
/// is appended as a last, never selected, payload: with fewer than index+1
/// ops of the kind the split fails and names the counts. (Upstream's
/// fail_on_payload_too_small = false crashes in that case.)
std::string selectTarget(const std::string &op, std::optional<int64_t> index) {
  std::string match = "transform.structured.match ops{[\"" + op +
                      "\"]} in %root : (!transform.any_op) -> "
                      "!transform.any_op";
  if (!index)
    return "%t = " + match;
  std::vector<std::string> names, types;
  for (int64_t i = 0; i <= *index + 1; ++i) {
    names.push_back(i == *index ? "%t" : "%part" + std::to_string(i));
    types.push_back("!transform.any_op");
  }
  return "%all = " + match +
         "\n    %padded = transform.merge_handles %all, %root : "
         "!transform.any_op\n    " +
         llvm::join(names, ", ") +
         " = transform.split_handle %padded {overflow_result = " +
         std::to_string(*index + 1) + " : i64} : (!transform.any_op) -> (" +
         llvm::join(types, ", ") + ")";
}
} // namespace

json::Object mlir::tirx::actionsSchema() {
  json::Array oneOf;
  for (Action &a : actions()) {
    const json::Object *schema = a.schema.getAsObject();
    json::Value params = schema && schema->get("params")
                             ? *schema->get("params")
                             : json::Value(json::Object{});
    json::Array preconditions;
    if (schema && schema->getArray("preconditions"))
      preconditions = *schema->getArray("preconditions");
    std::string description = "Preconditions: ";
    std::vector<std::string> words;
    for (const json::Value &p : preconditions)
      if (auto s = p.getAsString())
        words.push_back(s->str());
    description += llvm::join(words, "; ") + ".";
    oneOf.push_back(json::Object{
        {"title", a.name},
        {"description", description},
        {"type", "object"},
        {"required", json::Array{"transform", "params"}},
        {"additionalProperties", false},
        {"properties",
         json::Object{
             {"transform", json::Object{{"const", a.name}}},
             {"params", std::move(params)},
             {"target",
              json::Object{{"type", "object"},
                           {"additionalProperties", false},
                           {"properties",
                            json::Object{
                                {"op", json::Object{
                                           {"type", "string"},
                                           {"pattern", "^[a-z_]+\\.[a-z_.]+$"},
                                           {"default", a.target}}},
                                {"index",
                                 json::Object{
                                     {"type", "integer"},
                                     {"minimum", 0},
                                     {"maximum", 255},
                                     {"description",
                                      "only the index-th op of that kind, "
                                      "in program order (default: " +
                                          (defaultIndex(a.name)
                                               ? std::to_string(
                                                     *defaultIndex(a.name)) +
                                                     ", the first"
                                               : std::string("all")) +
                                          ")"}}}}}}}}},
        {"x-tirx-preconditions", std::move(preconditions)}});
  }
  return json::Object{
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", "https://tirx.dev/schemas/actions.schema.json"},
      {"title", "TIRx action"},
      {"description", "One request to change a payload: a transform, its "
                      "parameters and the payload ops it applies to. "
                      "Generated from the transform.tirx ops' ODS."},
      {"oneOf", std::move(oneOf)}};
}

bool mlir::tirx::buildActionScript(const std::string &text, std::string &script,
                                   std::string &canonical, ActionError &error) {
  auto parsed = json::parse(text);
  if (!parsed || !parsed->getAsObject()) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    error = {"bad_action", "the action is not a JSON object", ""};
    return false;
  }
  const json::Object &action = *parsed->getAsObject();
  for (auto &entry : action)
    if (entry.first != "transform" && entry.first != "params" &&
        entry.first != "target") {
      error = {"bad_action",
               "unknown key \"" + entry.first.str() + "\" in the action",
               "an action has transform, params and target"};
      return false;
    }
  auto name = action.getString("transform");
  std::vector<Action> known = actions();
  std::vector<std::string> names;
  for (const Action &a : known)
    names.push_back(a.name);
  const Action *found = nullptr;
  for (const Action &a : known)
    if (name && a.name == *name)
      found = &a;
  if (!found) {
    error = {"unknown_transform",
             "no transform named \"" + (name ? name->str() : "") + "\"",
             "known: " + llvm::join(names, ", ")};
    return false;
  }
  json::Object empty;
  const json::Object *params = action.getObject("params");
  if (!params)
    params = &empty;
  // Unknown parameters are refused (additionalProperties: false).
  const json::Object *schema = found->schema.getAsObject();
  const json::Object *props =
      schema && schema->getObject("params")
          ? schema->getObject("params")->getObject("properties")
          : nullptr;
  for (auto &entry : *params)
    if (!props || !props->get(entry.first)) {
      error = {"invalid_parameter",
               "\"" + found->name + "\" has no parameter \"" +
                   entry.first.str() + "\"",
               "see `tirx schema`"};
      return false;
    }
  std::string target = found->target;
  std::optional<int64_t> index;
  if (const json::Object *t = action.getObject("target")) {
    auto op = t->getString("op");
    if (!op || op->empty() ||
        !llvm::all_of(*op, [](char c) {
          return llvm::isLower(c) || c == '_' || c == '.' || llvm::isDigit(c);
        }) ||
        !op->contains('.')) {
      error = {"invalid_parameter",
               "target.op must be an op name such as linalg.generic", ""};
      return false;
    }
    target = op->str();
    if (const json::Value *i = t->get("index")) {
      std::optional<int64_t> v = i->getAsInteger();
      if (!v || *v < 0 || *v > 255) {
        error = {"invalid_parameter",
                 "target.index must be an integer in [0, 255] (the i-th op "
                 "of target.op in program order)",
                 ""};
        return false;
      }
      index = *v;
    }
  }
  if (!index)
    index = defaultIndex(found->name);

  auto needInts = [&](const char *key, std::vector<int64_t> &out) {
    if (!intList(params->get(key), out)) {
      error = {"invalid_parameter",
               "\"" + found->name + "\" needs \"" + key +
                   "\": a list of integers",
               ""};
      return false;
    }
    return true;
  };
  auto needInt = [&](const char *key, int64_t &out) {
    auto v = params->getInteger(key);
    if (!v) {
      error = {"invalid_parameter",
               "\"" + found->name + "\" needs \"" + key + "\": an integer", ""};
      return false;
    }
    out = *v;
    return true;
  };

  std::string body;
  const std::string &n = found->name;
  if (n == "tile_to_blocks") {
    std::vector<int64_t> sizes;
    if (!needInts("tile_sizes", sizes))
      return false;
    body = "%r0, %r1 = transform.tirx.tile_to_blocks %t tile_sizes " +
           list(sizes) +
           " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)";
  } else if (n == "tile_to_threads") {
    std::vector<int64_t> elements;
    if (!needInts("elements_per_thread", elements))
      return false;
    int64_t maxThreads = params->getInteger("max_threads").value_or(1024);
    body = "%r0, %r1 = transform.tirx.tile_to_threads %t elements_per_thread " +
           list(elements) + " {max_threads = " + std::to_string(maxThreads) +
           " : i64} : (!transform.any_op) -> (!transform.any_op, "
           "!transform.any_op)";
  } else if (n == "vectorize") {
    int64_t width;
    if (!needInt("width", width))
      return false;
    body = "transform.tirx.vectorize %t width = " + std::to_string(width) +
           " : !transform.any_op";
  } else if (n == "unroll") {
    int64_t factor;
    if (!needInt("factor", factor))
      return false;
    body = "transform.tirx.unroll %t factor = " + std::to_string(factor) +
           " : !transform.any_op";
  } else if (n == "interchange") {
    std::vector<int64_t> perm;
    if (!needInts("permutation", perm))
      return false;
    body = "%r0 = transform.tirx.interchange %t permutation " + list(perm) +
           " : (!transform.any_op) -> !transform.any_op";
  } else if (n == "peel") {
    body = "%r0, %r1 = transform.tirx.peel %t : (!transform.any_op) -> "
           "(!transform.any_op, !transform.any_op)";
  } else if (n == "tile_reduction") {
    std::vector<int64_t> sizes;
    if (!needInts("tile_sizes", sizes))
      return false;
    body = "%r0, %r1 = transform.tirx.tile_reduction %t tile_sizes " +
           list(sizes) +
           " : (!transform.any_op) -> (!transform.any_op, !transform.any_op)";
  } else if (n == "promote_to_shared") {
    std::vector<int64_t> operands;
    if (!needInts("operands", operands))
      return false;
    int64_t maxShared = params->getInteger("max_shared_bytes").value_or(49152);
    int64_t padding = params->getInteger("padding").value_or(0);
    body = "%r0 = transform.tirx.promote_to_shared %t operands " +
           list(operands) + " {max_shared_bytes = " +
           std::to_string(maxShared) + " : i64, padding = " +
           std::to_string(padding) +
           " : i64} : (!transform.any_op) -> !transform.any_op";
  } else if (n == "fuse_into") {
    body = "%r0 = transform.tirx.fuse_into %t : (!transform.any_op) -> "
           "!transform.any_op";
  } else if (n == "use_mma") {
    std::vector<int64_t> warps{1, 1};
    if (params->get("warps") && (warps.clear(), !needInts("warps", warps)))
      return false;
    body = "%r0 = transform.tirx.use_mma %t warps " + list(warps) +
           " : (!transform.any_op) -> !transform.any_op";
  } else if (n == "split_reduction") {
    int64_t parts;
    if (!needInt("parts", parts))
      return false;
    const json::Value *chunked = params->get("chunked");
    if (chunked && !chunked->getAsBoolean()) {
      error = {"invalid_parameter",
               "\"split_reduction\" takes \"chunked\": true or false", ""};
      return false;
    }
    bool isChunked = chunked && *chunked->getAsBoolean();
    body = "%r0, %r1, %r2 = transform.tirx.split_reduction %t parts = " +
           std::to_string(parts) + (isChunked ? " {chunked}" : "") +
           " : (!transform.any_op) -> (!transform.any_op, !transform.any_op, "
           "!transform.any_op)";
  } else if (n == "reduce_in_block") {
    int64_t threads;
    if (!needInt("threads", threads))
      return false;
    int64_t maxShared = params->getInteger("max_shared_bytes").value_or(49152);
    body = "%r0 = transform.tirx.reduce_in_block %t threads = " +
           std::to_string(threads) + " {max_shared_bytes = " +
           std::to_string(maxShared) +
           " : i64} : (!transform.any_op) -> !transform.any_op";
  } else if (n == "remove_barrier") {
    body = "transform.tirx.remove_barrier %t : !transform.any_op";
  } else if (n == "map_to_gpu") {
    std::vector<int64_t> dims;
    if (params->get("block_dims") && !needInts("block_dims", dims))
      return false;
    body = "transform.tirx.map_to_gpu %t" +
           (dims.empty() ? std::string() : " block_dims " + list(dims)) +
           " : !transform.any_op";
  }
  script = "// action: " + found->name + "\n"
           "module attributes {transform.with_named_sequence} {\n"
           "  transform.named_sequence @__transform_main(%root: "
           "!transform.any_op {transform.readonly}) {\n"
           "    " + selectTarget(target, index) + "\n"
           "    " + body + "\n"
           "    transform.yield\n"
           "  }\n"
           "}\n";
  json::Object canonicalTarget{{"op", target}};
  if (index)
    canonicalTarget["index"] = *index;
  json::Object c{{"transform", found->name},
                 {"params", json::Object(*params)},
                 {"target", std::move(canonicalTarget)}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << json::Value(std::move(c));
  canonical = out;
  return true;
}

std::string mlir::tirx::checkRecipeOrder(const json::Array &recipe) {
  // Each transform and the stages it needs before it in the recipe.
  // "a|b": either will do.
  static const std::pair<const char *, const char *> needs[] = {
      {"tile_to_threads", "tile_to_blocks"},
      {"use_mma", "tile_to_blocks"},
      {"reduce_in_block", "tile_to_blocks|fuse_into"},
      {"vectorize", "tile_to_threads"},
      {"map_to_gpu", "tile_to_threads|use_mma|reduce_in_block"},
      {"unroll", "map_to_gpu"},
  };
  std::set<std::string> done;
  for (size_t i = 0; i < recipe.size(); ++i) {
    const json::Object *action = recipe[i].getAsObject();
    auto name = action ? action->getString("transform") : std::nullopt;
    if (!name)
      return "stage " + std::to_string(i) + ": not an action object";
    for (auto [what, before] : needs) {
      llvm::SmallVector<llvm::StringRef> options;
      llvm::StringRef(before).split(options, '|');
      if (*name == what && llvm::none_of(options, [&](llvm::StringRef o) {
            return done.count(o.str());
          }))
        return "stage " + std::to_string(i) + " (" + name->str() +
               "): needs " + llvm::join(options, " or ") +
               " earlier in the recipe (" +
               (std::string(what) == "unroll"
                    ? "unroll only after the loops are bound to the GPU"
                    : std::string(what) + " works on what " +
                          llvm::join(options, " or ") +
                          " produces") +
               ")";
    }
    done.insert(name->str());
  }
  return "";
}

std::string mlir::tirx::checkScriptPolicy(ModuleOp script,
                                          llvm::StringRef policy,
                                          Location &loc) {
  if (policy == "open")
    return "";
  // Ops that read or write files, load outside code or run passes.
  static const char *refused[] = {
      "transform.apply_registered_pass", "transform.print",
      "transform.debug.emit_remark_at",  "transform.debug.emit_param_as_remark",
      "transform.irdl.collect_matching", "transform.with_pdl_patterns",
      "transform.pdl_match",
  };
  static const char *allowedPrefixes[] = {
      "transform.tirx.", "transform.apply_patterns.",
  };
  static const char *allowed[] = {
      "builtin.module", "transform.named_sequence", "transform.yield",
      "transform.sequence", "transform.include", "transform.structured.match",
      "transform.match.operation_name", "transform.get_parent_op",
      "transform.get_producer_of_operand", "transform.get_consumers_of_result",
      "transform.merge_handles", "transform.split_handle", "transform.select",
      "transform.foreach", "transform.alternatives", "transform.annotate",
      "transform.param.constant", "transform.num_associations",
      "transform.apply_patterns", "transform.apply_cse", "transform.apply_dce",
      "transform.apply_licm", "transform.structured.tile_using_forall",
      "transform.structured.tile_using_for", "transform.structured.vectorize",
      "transform.structured.vectorize_children_and_apply_patterns",
      "transform.structured.fuse_into_containing_op",
      "transform.structured.fuse", "transform.structured.interchange",
      "transform.structured.promote", "transform.structured.pad",
      "transform.structured.generalize", "transform.structured.split",
      "transform.structured.tile_reduction_using_for",
      "transform.structured.tile_reduction_using_forall",
      "transform.gpu.map_forall_to_blocks",
      "transform.gpu.map_nested_forall_to_threads",
      "transform.loop.unroll", "transform.loop.peel",
      "transform.loop.hoist_loop_invariant_subsets",
      "transform.nvgpu.rewrite_matmul_as_mma_sync",
  };
  std::string problem;
  script.walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    bool ok = false;
    for (const char *p : allowedPrefixes)
      ok |= name.starts_with(p);
    for (const char *a : allowed)
      ok |= name == a;
    for (const char *r : refused)
      if (name == r)
        ok = false;
    // A named sequence without a body links code from outside the script.
    if (auto seq = dyn_cast<transform::NamedSequenceOp>(op))
      if (seq.isExternal()) {
        problem = "transform.named_sequence @" + seq.getSymName().str() +
                  " is declared without a body: the script would link "
                  "outside code";
        loc = op->getLoc();
        return WalkResult::interrupt();
      }
    if (!ok) {
      problem = name.str() + " is not allowed by the strict policy (it " +
                (llvm::is_contained(refused, name)
                     ? std::string("reads or writes outside the payload, or "
                                   "runs arbitrary passes")
                     : std::string("is not on the vetted list")) +
                ")";
      loc = op->getLoc();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return problem;
}
