//===- Harness.cpp - C API of the TIRx harness ------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx-c/Harness.h"

#include "tirx/Harness/Session.h"
#include "tirx/InitAllTIRx.h"

#include "mlir/CAPI/IR.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

struct TirxSessionImpl {
  Session session;
};

struct TirxOutcomeImpl {
  bool ok = false;
  std::string version, text, json;
  std::optional<Refusal> refusal;
  int exitStatus = 0;
};

namespace {
std::string str(const char *s) { return s ? s : ""; }

TirxOutcome outcomeOf(llvm::Expected<Result> result) {
  auto *out = new TirxOutcomeImpl;
  json::Object o;
  if (result) {
    out->ok = true;
    out->version = result->version;
    out->text = result->text;
    o = std::move(result->data);
    o["ok"] = true;
  } else {
    Refusal refusal = toRefusal(result.takeError());
    out->exitStatus = exitStatusOf(refusal);
    out->text = refusal.details.getString("text").value_or("").str();
    o = json::Object(refusal.details);
    o.erase("text");
    o["ok"] = false;
    o["error"] = refusal.toJSON();
    out->refusal = std::move(refusal);
  }
  llvm::raw_string_ostream os(out->json);
  os << json::Value(std::move(o));
  return out;
}

llvm::Expected<json::Value> parsed(const char *text, RefusalCode code,
                                   const char *what) {
  auto value = json::parse(str(text));
  if (!value)
    return refuse(code, std::string(what) + " is not JSON (" +
                            llvm::toString(value.takeError()) + ")");
  return std::move(*value);
}

const char *refusalField(TirxOutcome o, const std::string Refusal::*field) {
  return o && o->refusal ? ((*o->refusal).*field).c_str() : nullptr;
}
} // namespace

void tirxRegisterAllDialects(MlirDialectRegistry registry) {
  registerTIRxToolDialects(*unwrap(registry));
}

void tirxRegisterAllPasses(void) { registerAllTIRxPasses(); }

TirxOutcome tirxSessionInit(const char *dir, const char *payload,
                            const char *name, const char *target,
                            TirxSession *session) {
  InitOptions options;
  if (target && *target)
    options.target = target;
  llvm::Expected<Initialized> made =
      Session::init(str(dir), str(payload), str(name), options);
  if (!made)
    return outcomeOf(made.takeError());
  if (session)
    *session = new TirxSessionImpl{std::move(made->session)};
  return outcomeOf(std::move(made->seed));
}

TirxOutcome tirxSessionOpen(const char *dir, const char *actor,
                            TirxSession *session) {
  Identity who;
  if (actor && *actor)
    who.actor = actor;
  llvm::Expected<Session> opened = Session::open(str(dir), who);
  if (!opened)
    return outcomeOf(opened.takeError());
  Result result;
  result.text = "opened " + str(dir) + "\n";
  result.data = json::Object{{"workspace", str(dir)}};
  if (session)
    *session = new TirxSessionImpl{std::move(*opened)};
  return outcomeOf(std::move(result));
}

void tirxSessionDestroy(TirxSession session) { delete session; }

TirxOutcome tirxSessionApplyAction(TirxSession s, const char *version,
                                   const char *actionJSON) {
  llvm::Expected<json::Value> action =
      parsed(actionJSON, RefusalCode::bad_action, "the action");
  if (!action)
    return outcomeOf(action.takeError());
  return outcomeOf(s->session.applyAction(str(version), *action));
}

TirxOutcome tirxSessionApplyScript(TirxSession s, const char *version,
                                   const char *script, const char *policy) {
  ApplyOptions options;
  if (policy && *policy) {
    std::optional<ScriptPolicy> p = policyNamed(policy);
    if (!p)
      return outcomeOf(
          refuse(RefusalCode::usage, "the policy is \"strict\" or \"open\""));
    options.policy = *p;
  }
  return outcomeOf(
      s->session.applyScript(str(version), str(script), "script", options));
}

TirxOutcome tirxSessionApplyRecipe(TirxSession s, const char *version,
                                   const char *recipeJSON) {
  llvm::Expected<json::Value> recipe =
      parsed(recipeJSON, RefusalCode::bad_json, "the recipe");
  if (!recipe)
    return outcomeOf(recipe.takeError());
  return outcomeOf(s->session.applyRecipe(str(version), *recipe, "recipe"));
}

TirxOutcome tirxSessionShow(TirxSession s, const char *version) {
  return outcomeOf(s->session.show(str(version)));
}

TirxOutcome tirxSessionView(TirxSession s, const char *version,
                            const char *what) {
  return outcomeOf(
      s->session.view(str(version), what && *what ? what : "summary"));
}

TirxOutcome tirxSessionDiff(TirxSession s, const char *from, const char *to) {
  return outcomeOf(s->session.diff(str(from), str(to)));
}

TirxOutcome tirxSessionLog(TirxSession s) { return outcomeOf(s->session.log()); }

TirxOutcome tirxSessionCheckout(TirxSession s, const char *version) {
  return outcomeOf(s->session.checkout(str(version)));
}

TirxOutcome tirxSessionRun(TirxSession s, const char *version) {
  return outcomeOf(s->session.run(str(version)));
}

TirxOutcome tirxSessionReplay(TirxSession s) {
  return outcomeOf(s->session.replay());
}

TirxOutcome tirxSessionFsck(TirxSession s) { return outcomeOf(s->session.fsck()); }

TirxOutcome tirxActionSchema(void) {
  Result schema;
  schema.data = actionsSchema();
  return outcomeOf(std::move(schema));
}

bool tirxOutcomeIsOk(TirxOutcome o) { return o && o->ok; }
const char *tirxOutcomeVersion(TirxOutcome o) { return o->version.c_str(); }
const char *tirxOutcomeText(TirxOutcome o) { return o->text.c_str(); }
const char *tirxOutcomeJSON(TirxOutcome o) { return o->json.c_str(); }

const char *tirxOutcomeRefusalCode(TirxOutcome o) {
  return o && o->refusal ? codeName(o->refusal->code).data() : nullptr;
}
const char *tirxOutcomeRefusalMessage(TirxOutcome o) {
  return refusalField(o, &Refusal::message);
}
const char *tirxOutcomeRefusalHint(TirxOutcome o) {
  return refusalField(o, &Refusal::hint);
}
const char *tirxOutcomeRefusalPayloadOp(TirxOutcome o) {
  return refusalField(o, &Refusal::payloadOp);
}
const char *tirxOutcomeRefusalLocation(TirxOutcome o) {
  return refusalField(o, &Refusal::location);
}
int tirxOutcomeExitStatus(TirxOutcome o) { return o ? o->exitStatus : 1; }
void tirxOutcomeDestroy(TirxOutcome o) { delete o; }
