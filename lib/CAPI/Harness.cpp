//===- Harness.cpp - C API of the TIRx harness ------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx-c/Harness.h"

#include "tirx/Harness/Session.h"
#include "tirx/InitAllTIRx.h"
#include "tirx/Support/JSON.h"

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
  Outcome outcome;
  std::string json;
};

namespace {
std::string str(const char *s) { return s ? s : ""; }

TirxOutcome answer(llvm::Expected<Result> result) {
  auto *out = new TirxOutcomeImpl{outcomeOf(std::move(result)), ""};
  llvm::raw_string_ostream os(out->json);
  os << json::Value(json::Object(out->outcome.json));
  return out;
}

llvm::Expected<json::Value> parsed(const char *text, RefusalCode code,
                                   const char *what) {
  auto value = parseJSON(str(text)); // bounded: a deep text is an error
  if (!value)
    return refuse(code, std::string(what) + " is not JSON (" +
                            llvm::toString(value.takeError()) + ")");
  return std::move(*value);
}

const char *refusalField(TirxOutcome o, const std::string Refusal::*field) {
  return o && o->outcome.refusal ? ((*o->outcome.refusal).*field).c_str()
                                 : nullptr;
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
    return answer(made.takeError());
  if (session)
    *session = new TirxSessionImpl{std::move(made->session)};
  return answer(std::move(made->seed));
}

TirxOutcome tirxSessionOpen(const char *dir, const char *actor,
                            TirxSession *session) {
  Identity who;
  if (actor && *actor)
    who.actor = actor;
  llvm::Expected<Session> opened = Session::open(str(dir), who);
  if (!opened)
    return answer(opened.takeError());
  Result result;
  result.text = "opened " + str(dir) + "\n";
  result.data = json::Object{{"workspace", str(dir)}};
  if (session)
    *session = new TirxSessionImpl{std::move(*opened)};
  return answer(std::move(result));
}

void tirxSessionDestroy(TirxSession session) { delete session; }

TirxOutcome tirxSessionApplyAction(TirxSession s, const char *version,
                                   const char *actionJSON) {
  llvm::Expected<json::Value> action =
      parsed(actionJSON, RefusalCode::bad_action, "the action");
  if (!action)
    return answer(action.takeError());
  return answer(s->session.applyAction(str(version), *action));
}

TirxOutcome tirxSessionApplyScript(TirxSession s, const char *version,
                                   const char *script, const char *policy) {
  ApplyOptions options;
  if (policy && *policy) {
    std::optional<ScriptPolicy> p = policyNamed(policy);
    if (!p)
      return answer(
          refuse(RefusalCode::usage, "the policy is \"strict\" or \"open\""));
    options.policy = *p;
  }
  return answer(
      s->session.applyScript(str(version), str(script), "script", options));
}

TirxOutcome tirxSessionApplyRecipe(TirxSession s, const char *version,
                                   const char *recipeJSON) {
  llvm::Expected<json::Value> recipe =
      parsed(recipeJSON, RefusalCode::bad_json, "the recipe");
  if (!recipe)
    return answer(recipe.takeError());
  return answer(s->session.applyRecipe(str(version), *recipe, "recipe"));
}

TirxOutcome tirxSessionShow(TirxSession s, const char *version) {
  return answer(s->session.show(str(version)));
}

TirxOutcome tirxSessionView(TirxSession s, const char *version,
                            const char *what) {
  return answer(
      s->session.view(str(version), what && *what ? what : "summary"));
}

TirxOutcome tirxSessionDiff(TirxSession s, const char *from, const char *to) {
  return answer(s->session.diff(str(from), str(to)));
}

TirxOutcome tirxSessionLog(TirxSession s) { return answer(s->session.log()); }

TirxOutcome tirxSessionCheckout(TirxSession s, const char *version) {
  return answer(s->session.checkout(str(version)));
}

TirxOutcome tirxSessionRun(TirxSession s, const char *version) {
  return answer(s->session.run(str(version)));
}

TirxOutcome tirxSessionReplay(TirxSession s) {
  return answer(s->session.replay());
}

TirxOutcome tirxSessionFsck(TirxSession s) { return answer(s->session.fsck()); }

TirxOutcome tirxActionSchema(void) {
  Result schema;
  schema.data = actionsSchema();
  return answer(std::move(schema));
}

bool tirxOutcomeIsOk(TirxOutcome o) { return o && o->outcome.ok; }
const char *tirxOutcomeVersion(TirxOutcome o) {
  return o->outcome.version.c_str();
}
const char *tirxOutcomeText(TirxOutcome o) { return o->outcome.text.c_str(); }
const char *tirxOutcomeJSON(TirxOutcome o) { return o->json.c_str(); }

const char *tirxOutcomeRefusalCode(TirxOutcome o) {
  return o && o->outcome.refusal ? codeName(o->outcome.refusal->code).data()
                                 : nullptr;
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
int tirxOutcomeExitStatus(TirxOutcome o) {
  return o ? o->outcome.exitStatus : 1;
}
void tirxOutcomeDestroy(TirxOutcome o) { delete o; }
