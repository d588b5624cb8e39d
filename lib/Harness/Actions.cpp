//===- Actions.cpp - actions, their schema, script policy -------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Actions.h"

#include "tirx/Analysis/Access.h"
#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.h"
#include "tirx/Support/Refusal.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
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

/// Parsed once a process (every apply looked its action up in them).
const std::vector<Action> &actions() {
  static const std::vector<Action> list = [] {
    std::vector<Action> out;
    for (const ActionInfo &info : actionInfos()) {
      auto parsed = json::parse(info.schema);
      if (!parsed) {
        llvm::consumeError(parsed.takeError());
        continue; // a malformed ODS schema is caught by the schema test
      }
      out.push_back({info.name, info.target, std::move(*parsed)});
    }
    return out;
  }();
  return list;
}

/// The target index an action takes when it names none: fuse_into's
/// producer comes before its consumer, so the first op; others all ops.
std::optional<int64_t> defaultIndex(const std::string &transform) {
  if (transform == "fuse_into")
    return 0;
  return std::nullopt;
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
  for (const Action &a : actions()) {
    const json::Object *schema = a.schema.getAsObject();
    json::Value params = schema && schema->get("params")
                             ? *schema->get("params")
                             : json::Value(json::Object{});
    if (json::Object *o = params.getAsObject())
      if (!o->get("description"))
        (*o)["description"] = "the parameters of " + a.name;
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
             {"transform",
              json::Object{{"const", a.name},
                           {"description", "the transform: " + a.name}}},
             {"params", std::move(params)},
             {"target",
              json::Object{{"type", "object"},
                           {"description",
                            "the payload ops it applies to (default: every " +
                                a.target + ")"},
                           {"additionalProperties", false},
                           {"properties",
                            json::Object{
                                {"op", json::Object{
                                           {"type", "string"},
                                           {"pattern", "^[a-z_]+\\.[a-z_.]+$"},
                                           {"default", a.target},
                                           {"description",
                                            "the kind of payload op, e.g. " +
                                                a.target}}},
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

namespace {
/// The number of results of the registered op `name` (from its ODS traits).
std::optional<unsigned> resultCount(RegisteredOperationName name) {
  if (name.hasTrait<OpTrait::ZeroResults>())
    return 0;
  if (name.hasTrait<OpTrait::OneResult>())
    return 1;
  if (name.hasTrait<OpTrait::NResults<2>::Impl>())
    return 2;
  if (name.hasTrait<OpTrait::NResults<3>::Impl>())
    return 3;
  return std::nullopt;
}

/// A parameter's JSON value as the attribute its ODS definition takes. The
/// schema's type decides: integer -> I64Attr, array of integers ->
/// DenseI64ArrayAttr, boolean -> UnitAttr (false: absent).
llvm::Expected<Attribute> paramAttr(MLIRContext &ctx, llvm::StringRef action,
                                    llvm::StringRef key,
                                    const json::Object &propertySchema,
                                    const json::Value &value) {
  llvm::StringRef type = propertySchema.getString("type").value_or("");
  // An enum of integers is an integer parameter.
  if (const json::Array *choices = propertySchema.getArray("enum"))
    if (type.empty() && !choices->empty() &&
        llvm::all_of(*choices, [](const json::Value &c) {
          return c.getAsInteger().has_value();
        }))
      type = "integer";
  auto wrong = [&](llvm::StringRef what) {
    return refuse(RefusalCode::invalid_parameter,
                  "\"" + action + "\" " +
                      (type == "boolean" ? "takes" : "needs") + " \"" + key +
                      "\": " + what,
                  "see `tirx schema`");
  };
  Builder b(&ctx);
  if (type == "integer") {
    std::optional<int64_t> v = value.getAsInteger();
    if (!v)
      return wrong("an integer");
    return b.getI64IntegerAttr(*v);
  }
  if (type == "array") {
    const json::Array *list = value.getAsArray();
    if (!list || list->size() > 16)
      return wrong("a list of at most 16 integers");
    SmallVector<int64_t> ints;
    for (const json::Value &e : *list) {
      std::optional<int64_t> v = e.getAsInteger();
      if (!v)
        return wrong("a list of integers");
      ints.push_back(*v);
    }
    return b.getDenseI64ArrayAttr(ints);
  }
  if (type == "boolean") {
    std::optional<bool> v = value.getAsBoolean();
    if (!v)
      return wrong("true or false");
    return *v ? Attribute(b.getUnitAttr()) : Attribute();
  }
  return refuse(RefusalCode::internal, "the schema of \"" + action +
                                           "\" gives \"" + key +
                                           "\" an unknown type");
}

} // namespace

llvm::Expected<ActionScript>
mlir::tirx::buildActionScript(MLIRContext &ctx, const json::Value &value) {
  const json::Object *actionObject = value.getAsObject();
  if (!actionObject)
    return refuse(RefusalCode::bad_action, "the action is not a JSON object",
                  "an action is {\"transform\": NAME, \"params\": {...}, "
                  "\"target\": {...}}");
  const json::Object &action = *actionObject;
  for (auto &entry : action)
    if (entry.first != "transform" && entry.first != "params" &&
        entry.first != "target")
      return refuse(RefusalCode::bad_action,
                    "unknown key \"" + entry.first.str() + "\" in the action",
                    "an action has transform, params and target");
  auto name = action.getString("transform");
  const std::vector<Action> &known = actions();
  std::vector<std::string> names;
  const Action *found = nullptr;
  for (const Action &a : known) {
    names.push_back(a.name);
    if (name && a.name == *name)
      found = &a;
  }
  if (!found)
    return refuse(RefusalCode::unknown_transform,
                  "no transform named \"" + (name ? name->str() : "") + "\"",
                  "known: " + llvm::join(names, ", "));
  json::Object empty;
  const json::Object *params = action.getObject("params");
  if (action.get("params") && !params)
    return refuse(RefusalCode::bad_action, "\"params\" must be an object");
  if (!params)
    params = &empty;

  // Parameters: names and types from the ODS schema, values checked by the
  // op's verifier below.
  const json::Object *schema = found->schema.getAsObject();
  const json::Object *props =
      schema && schema->getObject("params")
          ? schema->getObject("params")->getObject("properties")
          : nullptr;
  NamedAttrList attrs;
  for (auto &entry : *params) {
    const json::Object *prop = props ? props->getObject(entry.first) : nullptr;
    if (!prop)
      return refuse(RefusalCode::invalid_parameter,
                    "\"" + found->name + "\" has no parameter \"" +
                        entry.first.str() + "\"",
                    "see `tirx schema`");
    llvm::Expected<Attribute> attr =
        paramAttr(ctx, found->name, entry.first, *prop, entry.second);
    if (!attr)
      return attr.takeError();
    if (*attr)
      attrs.set(entry.first, *attr);
  }
  if (const json::Array *required = schema && schema->getObject("params")
                                        ? schema->getObject("params")
                                              ->getArray("required")
                                        : nullptr)
    for (const json::Value &r : *required)
      if (auto key = r.getAsString(); key && !params->get(*key))
        return refuse(RefusalCode::invalid_parameter,
                      "\"" + found->name + "\" needs \"" + *key + "\"",
                      "see `tirx schema`");

  std::string target = found->target;
  std::optional<int64_t> index;
  if (action.get("target") && !action.getObject("target"))
    return refuse(RefusalCode::bad_action, "\"target\" must be an object");
  if (const json::Object *t = action.getObject("target")) {
    for (auto &entry : *t)
      if (entry.first != "op" && entry.first != "index")
        return refuse(RefusalCode::bad_action,
                      "unknown key \"" + entry.first.str() + "\" in target",
                      "a target has op and index");
    auto op = t->getString("op");
    if (t->get("op") &&
        (!op || op->empty() || op->size() > 64 ||
         !llvm::all_of(*op,
                       [](char c) {
                         return llvm::isLower(c) || c == '_' || c == '.' ||
                                llvm::isDigit(c);
                       }) ||
         !op->contains('.')))
      return refuse(RefusalCode::invalid_parameter,
                    "target.op must be an op name such as linalg.generic");
    if (op)
      target = op->str();
    if (const json::Value *i = t->get("index")) {
      std::optional<int64_t> v = i->getAsInteger();
      if (!v || *v < 0 || *v > 255)
        return refuse(RefusalCode::invalid_parameter,
                      "target.index must be an integer in [0, 255] (the i-th "
                      "op of target.op in program order)");
      index = *v;
    }
  }
  if (!index)
    index = defaultIndex(found->name);

  // The op itself, in generic form: its attributes printed by MLIR, its
  // results counted from its ODS traits.
  std::string opName = "transform.tirx." + found->name;
  ctx.getOrLoadDialect<transform::TransformDialect>();
  std::optional<RegisteredOperationName> registered =
      RegisteredOperationName::lookup(opName, &ctx);
  std::optional<unsigned> results =
      registered ? resultCount(*registered) : std::nullopt;
  if (!results)
    return refuse(RefusalCode::internal,
                  opName + " is not registered in this context");
  std::string body;
  llvm::raw_string_ostream os(body);
  std::vector<std::string> resultNames, resultTypes;
  for (unsigned i = 0; i < *results; ++i) {
    resultNames.push_back("%r" + std::to_string(i));
    resultTypes.push_back("!transform.any_op");
  }
  if (*results)
    os << llvm::join(resultNames, ", ") << " = ";
  os << "\"" << opName << "\"(%t) ";
  if (!attrs.empty())
    os << "<" << attrs.getDictionary(&ctx) << "> ";
  os << ": (!transform.any_op) -> (" << llvm::join(resultTypes, ", ") << ")";

  std::string text = "module attributes {transform.with_named_sequence} {\n"
                     "  transform.named_sequence @__transform_main(%root: "
                     "!transform.any_op {transform.readonly}) {\n"
                     "    " + selectTarget(target, index) + "\n"
                     "    " + body + "\n"
                     "    transform.yield\n"
                     "  }\n"
                     "}\n";
  // Parsed here so that the op's verifier checks the parameters; its
  // refusal arrives as data through the sink.
  RefusalSink sink(&ctx);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "\n") + diag.str();
    return success();
  });
  ParserConfig config(&ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      text, config, ("action " + found->name).c_str());
  if (!module) {
    if (sink.first())
      return refuse(*sink.first());
    return refuse(RefusalCode::internal,
                  "the script of the action does not parse: " + diagnostics);
  }
  ActionScript out;
  llvm::raw_string_ostream script(out.script);
  script << "// action: " << found->name << "\n";
  module->print(script, OpPrintingFlags().enableDebugInfo(false));
  json::Object canonicalTarget{{"op", target}};
  if (index)
    canonicalTarget["index"] = *index;
  json::Object c{{"transform", found->name},
                 {"params", json::Object(*params)},
                 {"target", std::move(canonicalTarget)}};
  llvm::raw_string_ostream canonical(out.canonical);
  canonical << json::Value(std::move(c));
  out.targetOp = target;
  out.targetIndex = index;
  return out;
}

llvm::Error mlir::tirx::checkRecipeOrder(const json::Array &recipe) {
  // Each transform and the stages it needs before it in the recipe.
  // "a|b": either will do.
  static const std::pair<const char *, const char *> needs[] = {
      {"tile_to_threads", "tile_to_blocks"},
      {"use_mma", "tile_to_blocks"},
      {"use_wgmma", "tile_to_blocks"},
      {"reduce_in_block", "tile_to_blocks|fuse_into"},
      {"vectorize", "tile_to_threads"},
      {"map_to_gpu", "tile_to_threads|use_mma|use_wgmma|reduce_in_block"},
      {"unroll", "map_to_gpu"},
  };
  std::set<std::string> done;
  auto refused = [](const std::string &message) {
    return refuse(RefusalCode::bad_order, message,
                  "reorder the recipe; tirx schema lists each transform's "
                  "preconditions");
  };
  for (size_t i = 0; i < recipe.size(); ++i) {
    const json::Object *action = recipe[i].getAsObject();
    auto name = action ? action->getString("transform") : std::nullopt;
    if (!name)
      return refuse(RefusalCode::bad_action,
                    "stage " + std::to_string(i) + ": not an action object");
    for (auto [what, before] : needs) {
      llvm::SmallVector<llvm::StringRef> options;
      llvm::StringRef(before).split(options, '|');
      if (*name == what && llvm::none_of(options, [&](llvm::StringRef o) {
            return done.count(o.str());
          }))
        return refused(
            "stage " + std::to_string(i) + " (" + name->str() + "): needs " +
            llvm::join(options, " or ") + " earlier in the recipe (" +
            (std::string(what) == "unroll"
                 ? "unroll only after the loops are bound to the GPU"
                 : std::string(what) + " works on what " +
                       llvm::join(options, " or ") + " produces") +
            ")");
    }
    done.insert(name->str());
  }
  return llvm::Error::success();
}

std::optional<ScriptPolicy> mlir::tirx::policyNamed(llvm::StringRef name) {
  if (name == "strict")
    return ScriptPolicy::Strict;
  if (name == "open")
    return ScriptPolicy::Open;
  return std::nullopt;
}

llvm::StringRef mlir::tirx::policyName(ScriptPolicy policy) {
  return policy == ScriptPolicy::Strict ? "strict" : "open";
}

namespace {
/// Ops refused under every policy: they print to the process's output.
const char *kNeverAllowed[] = {"transform.print"};

/// Ops refused under the strict policy: they run arbitrary passes, load
/// outside code or emit remarks.
const char *kStrictRefused[] = {
    "transform.apply_registered_pass", "transform.debug.emit_remark_at",
    "transform.debug.emit_param_as_remark", "transform.irdl.collect_matching",
    "transform.with_pdl_patterns", "transform.pdl_match",
};

const char *kStrictAllowedPrefixes[] = {"transform.tirx.",
                                        "transform.apply_patterns."};

const char *kStrictAllowed[] = {
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

/// Passes that read or write files, run programs or print, refused by name
/// under the open policy too.
const char *kPassesWithEffects[] = {
    "snapshot-op-locations", "tirx-export-bundle", "tirx-attach-feedback",
    "tirx-view", "tirx-lower-to-nvvm", "gpu-module-to-binary",
    "print-ir", "print-op-stats", "view-op-graph", "print-op-graph",
    "print-ir-after-all", "generate-runtime-verification",
    "test-print-liveness", "mlir-print-debuginfo",
    // They run transform scripts found in the payload or in files, which
    // no policy has checked.
    "transform-interpreter", "transform-preload-library",
    "test-transform-dialect-interpreter",
};

/// Pass option names that name files, directories or programs.
bool optionNamesAFile(llvm::StringRef options) {
  std::string lower = options.lower();
  for (const char *word : {"file", "dir", "path", "output", "toolkit",
                           "link", "bundle", "device", "l="})
    if (llvm::StringRef(lower).contains(word))
      return true;
  return false;
}

/// The attributes of the vetted upstream ops that hold sizes or thread
/// counts, each at least 0 (or kDynamic).
bool isSizeAttribute(llvm::StringRef op, llvm::StringRef attr) {
  static const std::pair<const char *, const char *> kSizes[] = {
      {"transform.structured.tile_using_forall", "static_tile_sizes"},
      {"transform.structured.tile_using_forall", "static_num_threads"},
      {"transform.structured.tile_using_for", "static_sizes"},
      {"transform.structured.fuse", "static_tile_sizes"},
      {"transform.structured.tile_reduction_using_for", "tile_sizes"},
      {"transform.structured.tile_reduction_using_forall", "tile_sizes"},
      {"transform.structured.tile_reduction_using_forall", "num_threads"},
      {"transform.structured.vectorize", "static_vector_sizes"},
      {"transform.structured.pad", "static_pad_to_multiple_of"},
      {"transform.gpu.map_forall_to_blocks", "grid_dims"},
      {"transform.gpu.map_nested_forall_to_threads", "block_dims"},
  };
  return llvm::any_of(kSizes, [&](const auto &s) {
    return op == s.first && attr == s.second;
  });
}

/// transform.annotate may add markers (names under "tirx.note."), never an
/// attribute that carries semantics (indexing_maps, llvm.align, ...).
bool harmlessAnnotation(llvm::StringRef name) {
  return name.starts_with("tirx.note.");
}
} // namespace

llvm::Error mlir::tirx::checkScriptPolicy(ModuleOp script,
                                          ScriptPolicy policy) {
  std::optional<Refusal> refusal;
  auto refuseAt = [&](Operation *op, const std::string &message) {
    refusal = Refusal(RefusalCode::policy_refused, message,
                      policy == ScriptPolicy::Strict
                          ? "use transform.tirx.* and the vetted upstream ops "
                            "(tirx schema lists the actions), or ask for the "
                            "open policy"
                          : "the open policy runs any transform, but nothing "
                            "that reads or writes files, runs programs or "
                            "prints");
    refusal->location = locationText(op->getLoc());
    return WalkResult::interrupt();
  };
  script.walk([&](Operation *op) {
    llvm::StringRef name = op->getName().getStringRef();
    if (llvm::is_contained(kNeverAllowed, name))
      return refuseAt(op, name.str() + " is not allowed by any policy (it "
                                       "prints to the process's output)");
    // A named sequence without a body links code from outside the script.
    if (auto seq = dyn_cast<transform::NamedSequenceOp>(op))
      if (seq.isExternal())
        return refuseAt(op, "transform.named_sequence @" +
                                seq.getSymName().str() +
                                " is declared without a body: the script "
                                "would link outside code");
    if (policy == ScriptPolicy::Strict) {
      if (llvm::is_contained(kStrictRefused, name))
        return refuseAt(op, name.str() + " is not allowed by the strict "
                                         "policy (it reads or writes outside "
                                         "the payload, or runs arbitrary "
                                         "passes)");
      if (!llvm::is_contained(kStrictAllowed, name) &&
          llvm::none_of(kStrictAllowedPrefixes,
                        [&](const char *p) { return name.starts_with(p); }))
        return refuseAt(op, name.str() + " is not allowed by the strict "
                                         "policy (it is not on the vetted "
                                         "list)");
    }
    // Upstream's tiling ops take a negative static size and make loops of
    // negative trip counts (a version that computes nothing, accepted by
    // replay and fsck alike). Under the strict policy their sizes and
    // thread counts are at least 0 (a size given by a handle is kDynamic
    // there), and so is any integer a transform.param.constant makes (a
    // size given by a param). Other ops' negative numbers mean something
    // (get_operand's -1: the last operand).
    if (policy == ScriptPolicy::Strict) {
      for (NamedAttribute attr : op->getAttrs()) {
        if (!isSizeAttribute(name, attr.getName()))
          continue;
        auto sizes = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
        for (int64_t v : sizes ? sizes.asArrayRef() : ArrayRef<int64_t>())
          if (v < 0 && !ShapedType::isDynamic(v))
            return refuseAt(op, name.str() + " has a negative value (" +
                                    std::to_string(v) + ") in " +
                                    attr.getName().str() +
                                    ": sizes and counts are at least 0");
      }
      if (name == "transform.param.constant")
        if (auto value = op->getAttrOfType<IntegerAttr>("value");
            value && value.getType().isSignlessInteger() &&
            value.getValue().isNegative())
          return refuseAt(op, "transform.param.constant makes a negative "
                              "integer (" +
                                  std::to_string(value.getInt()) +
                                  "): the strict policy's params are sizes "
                                  "and counts, at least 0");
    }
    if (name == "transform.annotate") {
      auto attr = op->getAttrOfType<StringAttr>("name");
      if (!attr || !harmlessAnnotation(attr.getValue()))
        return refuseAt(op, "transform.annotate may only add markers named "
                            "tirx.note.*, not \"" +
                                (attr ? attr.getValue().str() : "") +
                                "\" (an attribute may carry semantics)");
    }
    if (name == "transform.apply_registered_pass") {
      auto pass = op->getAttrOfType<StringAttr>("pass_name");
      std::string options;
      if (Attribute o = op->getAttr("options")) {
        llvm::raw_string_ostream os(options);
        os << o;
      }
      if (!pass || llvm::is_contained(kPassesWithEffects, pass.getValue()) ||
          optionNamesAFile(options))
        return refuseAt(op, "transform.apply_registered_pass \"" +
                                (pass ? pass.getValue().str() : "") +
                                "\" is not allowed: the pass or its options "
                                "read or write files, run programs or print");
    }
    return WalkResult::advance();
  });
  if (refusal)
    return refuse(std::move(*refusal));
  return llvm::Error::success();
}
