//===- Session.h - the harness as a library ---------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A Session is one actor's access to a workspace of immutable payload
// versions: every operation an agent has (init, apply an action, a script
// or a recipe, run, view, diff, checkout, replay, export, fsck) as a call
// that returns llvm::Expected<Result>. A refusal is a RefusalError holding
// a tirx::Refusal (code, message, hint, payload op, location): data from
// the transform op that decided it to the caller, never parsed from text.
//
// Every call on a workspace appends one audit line, accepted or refused.
// Everything that parses or transforms IR runs in a limited child process.
// `tirx` (CLI), `tirx serve` (MCP) and the C API are front doors over it.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_HARNESS_SESSION_H
#define TIRX_HARNESS_SESSION_H

#include "tirx/Harness/Actions.h"
#include "tirx/Harness/Store.h"
#include "tirx/Support/Refusal.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace tirx {

/// Who asks: recorded with every version and audit line.
struct Identity {
  std::string actor = "unknown";
  std::string session;
};

/// Limits of every child process the harness starts (interpreter,
/// lowering, views). A limit hit is refused as `resource_limit` and never
/// remembered as the request's outcome.
struct ChildLimits {
  unsigned seconds = 300;
  uint64_t addressSpaceBytes = uint64_t(16) << 30;
};

/// What an operation produced: text for people, JSON for programs, and the
/// version it made or concerns.
struct Result {
  std::string version;
  std::string text;
  llvm::json::Object data;
};

struct InitOptions {
  std::string target = "sm_90";
  std::string task;
  std::string message; // default: "seed: <name>"
};

struct ApplyOptions {
  ScriptPolicy policy = ScriptPolicy::Strict;
  std::string message;
};

struct RunOptions {
  std::string reference; // default: the seed of the version's chain
  std::optional<int64_t> timeout, samples, seed, inputs;
  bool counters = false; // tirx-run --counters: Nsight Compute's figures
  std::string runner;    // tirx-run; default: beside this program, or PATH
  /// Keep bundles already lowered (by compile: a bundle directory is put in
  /// place whole) instead of lowering again.
  bool reuseBundles = false;
};

class Session;
/// A new workspace: its session and the seed version's result.
struct Initialized;

class Session {
public:
  /// Creates `dir` with `payloadText` (named `name` in messages) as v1.
  static llvm::Expected<Initialized> init(const std::string &dir,
                                      const std::string &payloadText,
                                      const std::string &name,
                                      const InitOptions &options,
                                      Identity who = {});
  /// Opens an existing workspace.
  static llvm::Expected<Session> open(const std::string &dir,
                                      Identity who = {});

  /// Makes, once per process, what applies and inspections start from:
  /// the context every isolated child is forked from and the one actions'
  /// scripts are built in, every dialect loaded (no IR is parsed). A
  /// process that forks workers which will apply (tirx tune's builders)
  /// calls it first, so that each inherits them instead of making its own.
  static void warm();

  const Workspace &workspace() const { return ws; }
  /// See Workspace::setDurable.
  void setDurable(bool on) { ws.setDurable(on); }
  /// How many requests this session has audited.
  unsigned requestCount() const { return requests; }
  ChildLimits &limits() { return childLimits; }

  /// Records an edited payload as a child of `parent`.
  llvm::Expected<Result> commit(const std::string &parent,
                                const std::string &payloadText,
                                const std::string &name,
                                const std::string &message = "");
  /// Applies a transform script (text) to `version`.
  llvm::Expected<Result> applyScript(const std::string &version,
                                     const std::string &scriptText,
                                     const std::string &scriptName,
                                     const ApplyOptions &options = {});
  /// Applies one action (JSON) to `version`.
  llvm::Expected<Result> applyAction(const std::string &version,
                                     const llvm::json::Value &action,
                                     const ApplyOptions &options = {});
  /// Applies a recipe (a JSON array of actions), order-checked first, each
  /// step a child of the last. `name` appears in the versions' messages.
  llvm::Expected<Result> applyRecipe(const std::string &version,
                                     const llvm::json::Value &recipe,
                                     const std::string &name,
                                     const ApplyOptions &options = {});

  llvm::Expected<Result> log();
  llvm::Expected<Result> show(const std::string &version);
  llvm::Expected<Result> diff(const std::string &from, const std::string &to);
  llvm::Expected<Result> checkout(const std::string &version);
  /// A view (loop_structure, thread_binding, ..., summary, all) of a version.
  llvm::Expected<Result> view(const std::string &version,
                              const std::string &what = "summary",
                              const std::string &deviceProfile = "");
  /// Lowers and bundles `version` and its reference, runs them with
  /// tirx-run, keeps the feedback.
  llvm::Expected<Result> run(const std::string &version,
                             const RunOptions &options = {});
  /// Lowers and bundles `version` and its reference (default: the seed of
  /// its chain) without running them; a bundle already there is kept.
  llvm::Expected<Result> compile(const std::string &version,
                                 const std::string &reference = "");
  /// session.json (task, versions, steps with feedback deltas): its text.
  llvm::Expected<Result> exportSession();
  /// The whole history as a tirx.session module: its text.
  llvm::Expected<Result> exportHistory();
  /// Re-applies every step, checking each digest.
  llvm::Expected<Result> replay();
  /// Checks every object, the index and the logs.
  llvm::Expected<Result> fsck();

  /// Records the audit line of a request refused before it reached the
  /// session (an unreadable input, a malformed command); returns `error`.
  llvm::Error recordRefusal(llvm::StringRef command, llvm::json::Object args,
                            llvm::Error error);

  /// Runs `body` as the request `command` and appends its audit line (for
  /// requests built over the session in other files: the report).
  llvm::Expected<Result>
  audited(llvm::StringRef command, llvm::json::Object args,
          llvm::function_ref<llvm::Expected<Result>()> body);

  /// Re-derives every step of a history exported as MLIR (no workspace),
  /// its scripts under `policy` (a file from elsewhere: strict unless
  /// asked) and each in a child under `limits`.
  static llvm::Expected<Result>
  replayHistory(const std::string &historyText, const std::string &name,
                ScriptPolicy policy = ScriptPolicy::Strict,
                const ChildLimits &limits = ChildLimits());

private:
  Session(Workspace ws, Identity who) : ws(std::move(ws)), who(std::move(who)) {}

  llvm::Expected<Result> applyLocked(const std::string &version,
                                     const std::string &scriptText,
                                     const std::string &scriptName,
                                     const std::string &message,
                                     const ApplyOptions &options,
                                     const ActionScript *action);

  /// Where lower() put a version's bundle and its reference's.
  struct Lowered {
    std::string version, reference, bundle, referenceBundle;
  };
  llvm::Expected<Lowered> lower(const std::string &version,
                                const std::string &reference, bool reuse);

  Workspace ws;
  Identity who;
  ChildLimits childLimits;
  unsigned requests = 0;
};

struct Initialized {
  Session session;
  Result seed;
};

/// A request's outcome as every front door answers it (CLI --json, MCP,
/// C API): `json` is the result's data with "ok": true, or the refusal's
/// details with "ok": false and "error": the refusal; `text` is for people.
struct Outcome {
  bool ok = false;
  std::string version, text;
  llvm::json::Object json;
  std::optional<Refusal> refusal;
  int exitStatus = 0;
};
Outcome outcomeOf(llvm::Expected<Result> result);

/// tirx-run beside this program, else on PATH; "" when neither.
std::string findRunner();

/// The exit status a front door gives a refusal: 1 refused, 2 usage, 3
/// damaged, 4 resource limit.
int exitStatusOf(const Refusal &refusal);

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_SESSION_H
