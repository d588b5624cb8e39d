//===- tirx.cpp - the TIRx harness CLI --------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Git-like access to a workspace of immutable payload versions: argument
// parsing and printing over the harness library (tirx/Harness/Session.h).
// Every command has --json output; every request is one audit line.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Auto.h"
#include "tirx/Harness/Profile.h"
#include "tirx/Harness/Report.h"
#include "tirx/Harness/Mcp.h"
#include "tirx/Harness/Session.h"
#include "tirx/Tune/Kernels.h"
#include "tirx/Version.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Runtime/Integer.h"
#include "tirx/Support/JSON.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <unistd.h>
#include <iostream>
#include <map>
#include <set>

using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;
using llvm::Expected;


static const char *kHelp = R"(usage: tirx COMMAND [ARGS] [--workspace DIR] [--json]

  init PAYLOAD.mlir [--target sm_90] [--task TEXT] [-m MSG]
                                 start a workspace; the payload becomes v1
  commit FILE.mlir --parent vN [-m MSG]
                                 record an edited payload as a child of vN
  apply vN --script SCRIPT.mlir [--policy strict|open] [-m MSG]
                                 run a transform script on vN; commit the result
  apply vN --action '{"transform": "vectorize", "params": {"width": 4}}'
                                 the same from an action (tirx schema lists them)
  apply vN --recipe RECIPE.json|NAME
                                 a list of actions, order-checked first, each a child
  auto vN [--max-steps N]        actions chosen by rules from vN's loops and types
                                 (bufferize, tiles, vectors, reductions, mma),
                                 a refusal steering to the next candidate, until a
                                 version mapped to the GPU; each step a version
  auto vN --suggest [--skip KEY]...
                                 the rules' next steps and their candidate
                                 actions, best first; nothing applied
  schema                         the JSON Schema of every action
  log                            the version tree
  show vN                        the payload text of vN (digest verified)
  diff vA vB                     unified diff and structural summary
  view vN [--what VIEW] [--device PROFILE.json]
                                 loop_structure, thread_binding, memory_footprint,
                                 access_pattern, call_graph, roofline, summary, all
  checkout vN                    set the head an agent continues from
  export --session FILE          session.json: task, versions, steps
  export --mlir FILE             the whole history as tirx.session
  replay [--mlir FILE [--policy strict|open]]
                                 re-apply every step and check its digest
  fsck                           check every object, the index and the log
  profile PAYLOAD.mlir [--compile-only] [--samples N] [--timeout S] [--seed N]
         [--runner TIRX-RUN]     one kernel per op of a tensor payload, each
                                 scheduled by auto and run; ranked by time share
                                 (WS/profile.json, WS/kernels/; docs/report.md)
  report [-o FILE.html] [--peer NAME=MS]... [--device PROFILE.json]
                                 one self-contained HTML page: version tree with
                                 times and speed-ups, roofline, kernel shares,
                                 refusals, the best schedule (docs/report.md)
  serve                          MCP (JSON-RPC 2.0) over stdio; tools/call
                                 requests run in worker processes, so the
                                 server answers (and cancels) meanwhile
  tune vN [--budget N] [--time S] [--policy evolutionary|mcts|random|greedy]
         [--seed N] [--db FILE] [--compile-only] [--jobs N] [--top-k K] [--batch N]
         [--measure worker|run] [--runner TIRX-RUN] [--counters] [--gpus all|0,1,...]
         [--executor slurm [--partition P] [--gres gpu:1] [--max-jobs N]
                           [--shared DIR] [--slurm-pending-timeout S]
                           [--slurm-status-retries N]]
                                 search schedules from vN (each candidate a version),
                                 build them in parallel, screen each with tirx-run,
                                 check and time the best k in full, rank the leaders
                                 by paired runs; a rerun resumes (docs/tune.md);
                                 --counters: the best k also through Nsight
                                 Compute (docs/counters.md);
                                 --gpus: a worker per GPU; --executor slurm:
                                 sbatch job arrays (docs/scale-out.md); jobs
                                 left PENDING S s (default 3600) cancelled,
                                 N failed squeue calls in a row (default 20)
                                 stop the tune
  tune --kernels [the options of tune]
                                 a profiled workspace (tirx profile): its kernels
                                 tuned down the ranking, hottest first, each its
                                 time share of --time and --budget; the block's
                                 time before and after (docs/tune.md)
  run vN [--reference vR] [--timeout S] [--samples N] [--seed N] [--inputs N]
         [--counters]            lower vN and its reference (default: the seed
                                 of its chain, mapped plainly), bundle both, run
                                 them with tirx-run, keep the feedback; with
                                 --counters also Nsight Compute's figures

  --workspace DIR   default: $TIRX_WORKSPACE, else ./tirx-workspace
  --json            machine-readable output
  --actor NAME      who asks (default: $TIRX_ACTOR, else $USER); --session ID likewise
  --child-seconds S, --child-memory-mb M
                    limits of every child process: MLIR work (default
                    300 s, 16384 MiB), tirx-run (the seconds, plus 4x --timeout)
  --version         the TIRx version
exit status: 0 done, 1 refused, 2 usage, 3 workspace damaged, 4 resource limit
)";

namespace {
/// A parsed command line.
struct Invocation {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> options; // "--script" -> value
  std::vector<std::string> peers;             // --peer, repeatable
  std::vector<std::string> skips;             // auto --skip, repeatable
  bool suggest = false;                       // auto --suggest
  bool json = false;
  bool compileOnly = false;
  bool kernels = false; // tune --kernels
  std::string workspace;
  Identity who;

  std::string option(const std::string &name,
                     const std::string &fallback = "") const {
    auto it = options.find(name);
    return it == options.end() ? fallback : it->second;
  }
  bool has(const std::string &name) const { return options.count(name); }
};

llvm::Error usage(const std::string &message) {
  return refuse(RefusalCode::usage, message, "tirx --help lists the commands");
}

Expected<std::string> readText(const std::string &path) {
  std::string text, error;
  if (!rt::readFile(path, text, error))
    return refuse(RefusalCode::not_found, error);
  return text;
}

Expected<json::Value> parseInput(const std::string &text,
                                 const std::string &problem, RefusalCode code) {
  auto parsed = parseJSON(text);
  if (!parsed)
    return refuse(code, problem + " (" + llvm::toString(parsed.takeError()) +
                            ")");
  return std::move(*parsed);
}

Expected<int64_t> intOption(const Invocation &inv, const std::string &name) {
  const std::string v = inv.option(name);
  std::optional<int64_t> n = ::tirx::runtime::parseInteger(v);
  if (!n || *n < 0 || *n > (int64_t(1) << 31))
    return usage(name + " takes a non-negative integer, not \"" + v + "\"");
  return *n;
}

/// --timeout, --samples, --seed, --inputs, --counters into `options`.
llvm::Error runFlags(const Invocation &inv, RunOptions &options) {
  options.counters = inv.has("--counters");
  for (auto [flag, field] : {std::pair{"--timeout", &options.timeout},
                             std::pair{"--samples", &options.samples},
                             std::pair{"--seed", &options.seed},
                             std::pair{"--inputs", &options.inputs}})
    if (inv.has(flag)) {
      Expected<int64_t> n = intOption(inv, flag);
      if (!n)
        return n.takeError();
      *field = *n;
    }
  options.runner = inv.option("--runner", options.runner);
  return llvm::Error::success();
}

/// --child-seconds and --child-memory-mb over the defaults.
Expected<ChildLimits> childLimits(const Invocation &inv) {
  ChildLimits limits;
  if (inv.has("--child-seconds")) {
    Expected<int64_t> n = intOption(inv, "--child-seconds");
    if (!n)
      return n.takeError();
    limits.seconds = unsigned(*n);
  }
  if (inv.has("--child-memory-mb")) {
    Expected<int64_t> n = intOption(inv, "--child-memory-mb");
    if (!n)
      return n.takeError();
    limits.addressSpaceBytes = uint64_t(*n) << 20;
  }
  return limits;
}

Expected<Result> written(Expected<Result> result, const std::string &path) {
  if (!result)
    return result;
  std::string error;
  if (!rt::writeFileAtomically(path, result->text, error))
    return refuse(RefusalCode::io_error, error);
  result->text = "wrote " + path + "\n";
  return result;
}

Expected<Result> apply(Session &s, const Invocation &inv) {
  if (inv.positional.size() != 1)
    return usage("apply takes vN and --script, --action or --recipe");
  ApplyOptions options;
  options.message = inv.option("-m");
  std::optional<ScriptPolicy> policy =
      policyNamed(inv.option("--policy", "strict"));
  if (!policy)
    return usage("--policy is strict or open");
  options.policy = *policy;
  const std::string &version = inv.positional[0];
  if (inv.has("--recipe")) {
    // A recipe file, or the name of one kept in the workspace.
    std::string path = inv.option("--recipe");
    std::string named = s.workspace().path("recipes/" + path + ".json");
    if (!llvm::StringRef(path).ends_with(".json") &&
        llvm::sys::fs::exists(named))
      path = named;
    Expected<std::string> text = readText(path);
    if (!text)
      return text.takeError();
    Expected<json::Value> recipe = parseInput(*text, path + " is not JSON", RefusalCode::bad_json);
    if (!recipe)
      return recipe.takeError();
    return s.applyRecipe(version, *recipe,
                         llvm::sys::path::filename(path).str(), options);
  }
  if (inv.has("--action") && !inv.has("--script")) {
    Expected<json::Value> action = parseInput(inv.option("--action"), "the action is not a JSON object",
                  RefusalCode::bad_action);
    if (!action)
      return action.takeError();
    return s.applyAction(version, *action, options);
  }
  if (!inv.has("--script"))
    return usage("apply takes vN and --script SCRIPT.mlir, --action JSON or "
                 "--recipe FILE");
  Expected<std::string> script = readText(inv.option("--script"));
  if (!script)
    return script.takeError();
  return s.applyScript(version, *script, inv.option("--script"), options);
}

Expected<Result> tune(Session &s, const Invocation &inv) {
  if (inv.positional.size() != (inv.kernels ? 0 : 1))
    return usage(inv.kernels ? "tune --kernels takes no version: the "
                               "workspace's profile names the kernels"
                             : "tune takes one version id (or init a payload "
                               "first)");
  WorkspaceTuneOptions options;
  TuneOptions &search = options.search;
  search.policy = inv.option("--policy", search.policy);
  search.compileOnly = inv.compileOnly;
  search.dbPath = inv.option("--db");
  options.runner = inv.option("--runner");
  options.measure = inv.option("--measure", options.measure);
  search.full.counters = inv.has("--counters");
  options.gpus = inv.option("--gpus");
  options.executor = inv.option("--executor");
  options.slurm.partition = inv.option("--partition");
  options.slurm.gres = inv.option("--gres");
  options.slurm.shared = inv.option("--shared");
  for (auto [flag, field] :
       {std::pair{"--budget", &search.budget}, std::pair{"--top-k", &search.topK},
        std::pair{"--jobs", &options.jobs}, std::pair{"--batch", &search.batch},
        std::pair{"--max-jobs", &options.slurm.maxJobs},
        std::pair{"--slurm-status-retries", &options.slurm.statusRetries}})
    if (inv.has(flag)) {
      Expected<int64_t> n = intOption(inv, flag);
      if (!n)
        return n.takeError();
      *field = unsigned(*n);
    }
  for (auto [flag, field] : {std::pair{"--seed", &search.seed}})
    if (inv.has(flag)) {
      Expected<int64_t> n = intOption(inv, flag);
      if (!n)
        return n.takeError();
      *field = uint64_t(*n);
    }
  for (auto [flag, field] :
       {std::pair{"--time", &search.seconds},
        std::pair{"--slurm-pending-timeout", &options.slurm.pendingTimeout}})
    if (inv.has(flag)) {
      Expected<int64_t> n = intOption(inv, flag);
      if (!n)
        return n.takeError();
      *field = double(*n);
    }
  if (inv.json)
    options.jsonLines = &llvm::outs();
  else if (llvm::errs().is_displayed())
    options.bar = &llvm::errs();
  if (inv.kernels)
    return tuneKernels(s, options, inv.who);
  return tuneWorkspace(s, inv.positional[0], options);
}

Expected<Result> runOn(Session &s, const Invocation &inv) {
  const std::string &c = inv.command;
  const auto &p = inv.positional;
  if (c == "commit") {
    if (p.size() != 1 || !inv.has("--parent"))
      return usage("commit takes FILE.mlir --parent vN");
    Expected<std::string> text = readText(p[0]);
    if (!text)
      return text.takeError();
    return s.commit(inv.option("--parent"), *text, p[0], inv.option("-m"));
  }
  if (c == "apply")
    return apply(s, inv);
  if (c == "auto") {
    if (p.size() != 1)
      return usage("auto takes one version id");
    if (inv.suggest)
      return suggestSteps(s, p[0], inv.skips);
    if (!inv.skips.empty())
      return usage("--skip goes with auto --suggest");
    AutoOptions options;
    if (inv.has("--max-steps")) {
      Expected<int64_t> n = intOption(inv, "--max-steps");
      if (!n)
        return n.takeError();
      options.maxSteps = unsigned(*n);
    }
    bool json = inv.json;
    return autoSchedule(s, p[0], options, [json](llvm::StringRef line) {
      if (!json) {
        llvm::outs() << line << "\n";
        llvm::outs().flush();
      }
    });
  }
  if (c == "tune")
    return tune(s, inv);
  if (c == "log")
    return s.log();
  if (c == "show")
    return p.size() == 1 ? s.show(p[0]) : usage("show takes one version id");
  if (c == "diff")
    return p.size() == 2 ? s.diff(p[0], p[1])
                         : usage("diff takes two version ids");
  if (c == "checkout")
    return p.size() == 1 ? s.checkout(p[0])
                         : usage("checkout takes one version id");
  if (c == "view")
    return p.size() == 1
               ? s.view(p[0], inv.option("--what", "summary"),
                        inv.option("--device"))
               : usage("view takes one version id and --what VIEW");
  if (c == "export") {
    if (inv.has("--mlir"))
      return written(s.exportHistory(), inv.option("--mlir"));
    if (inv.has("--session"))
      return written(s.exportSession(), inv.option("--session"));
    return usage("export takes --session FILE or --mlir FILE");
  }
  if (c == "replay")
    return s.replay();
  if (c == "report") {
    ReportOptions options;
    options.deviceProfile = inv.option("--device");
    for (const std::string &text : inv.peers) {
      Expected<ReportPeer> peer = parsePeer(text);
      if (!peer)
        return peer.takeError();
      options.peers.push_back(*peer);
    }
    return inv.has("-o") ? written(report(s, options), inv.option("-o"))
                         : report(s, options);
  }
  if (c == "fsck")
    return s.fsck();
  if (c == "run") {
    if (p.size() != 1)
      return usage("run takes one version id");
    RunOptions options;
    options.reference = inv.option("--reference");
    if (llvm::Error e = runFlags(inv, options))
      return std::move(e);
    return s.run(p[0], options);
  }
  return usage("unknown command '" + c + "'");
}

/// Runs the command; the workspace is opened for all but init, schema and
/// replay --mlir.
Expected<Result> dispatch(const Invocation &inv) {
  if (inv.command == "schema") {
    Result out;
    out.data = actionsSchema();
    out.text = llvm::formatv("{0:2}", json::Value(json::Object(out.data))).str() + "\n";
    return out;
  }
  if (inv.command == "init") {
    if (inv.positional.size() != 1)
      return usage("init takes one payload file");
    Expected<std::string> text = readText(inv.positional[0]);
    if (!text)
      return text.takeError();
    InitOptions options;
    options.target = inv.option("--target", "sm_90");
    options.task = inv.option("--task");
    options.message = inv.option("-m");
    Expected<Initialized> made = Session::init(
        inv.workspace, *text, inv.positional[0], options, inv.who);
    if (!made)
      return made.takeError();
    return std::move(made->seed);
  }
  if (inv.command == "profile") {
    if (inv.positional.size() != 1)
      return usage("profile takes one payload file");
    Expected<std::string> text = readText(inv.positional[0]);
    if (!text)
      return text.takeError();
    ProfileOptions options;
    options.compileOnly = inv.compileOnly;
    if (llvm::Error e = runFlags(inv, options.run))
      return std::move(e);
    bool json = inv.json;
    return profilePayload(inv.workspace, *text, inv.positional[0], options,
                          inv.who, [json](llvm::StringRef line) {
                            if (!json)
                              llvm::errs() << line << "\n";
                          });
  }
  if (inv.command == "replay" && inv.has("--mlir")) {
    Expected<std::string> text = readText(inv.option("--mlir"));
    if (!text)
      return text.takeError();
    // A history from elsewhere: its scripts under the strict policy
    // unless --policy open, each in a child under --child-seconds.
    std::optional<ScriptPolicy> policy =
        policyNamed(inv.option("--policy", "strict"));
    if (!policy)
      return usage("--policy is strict or open");
    Expected<ChildLimits> limits = childLimits(inv);
    if (!limits)
      return limits.takeError();
    return Session::replayHistory(*text, inv.option("--mlir"), *policy,
                                  *limits);
  }
  Expected<Session> s = Session::open(inv.workspace, inv.who);
  if (!s)
    return s.takeError();
  Expected<ChildLimits> limits = childLimits(inv);
  if (!limits)
    return limits.takeError();
  s->limits() = *limits;
  unsigned before = s->requestCount();
  Expected<Result> out = runOn(*s, inv);
  // A request the front door refused (bad arguments, unreadable input) is
  // audited too.
  if (!out && s->requestCount() == before) {
    json::Array args;
    for (const std::string &p : inv.positional)
      args.push_back(p);
    return s->recordRefusal(inv.command, json::Object{{"args", std::move(args)}},
                            out.takeError());
  }
  return out;
}

/// Prints a result or a refusal; returns the exit status.
int print(const Invocation &inv, Expected<Result> result) {
  Outcome out = outcomeOf(std::move(result));
  if (inv.json && inv.command == "tune") { // the last of its JSON lines
    out.json["event"] = "result";
    llvm::outs() << json::Value(std::move(out.json)) << "\n";
  } else if (inv.json && !(out.ok && inv.command == "schema"))
    llvm::outs() << llvm::formatv("{0:2}", json::Value(std::move(out.json)))
                 << "\n";
  else
    llvm::outs() << out.text;
  llvm::outs().flush();
  if (out.ok || inv.json)
    return out.exitStatus;
  const Refusal &refusal = *out.refusal;
  llvm::errs() << "tirx: " << inv.command << ": " << codeName(refusal.code)
               << ": " << refusal.message << "\n";
  if (!refusal.payloadOp.empty())
    llvm::errs() << "  at " << refusal.payloadOp
                 << (refusal.location.empty() ? "" : " (" + refusal.location + ")")
                 << "\n";
  else if (!refusal.location.empty())
    llvm::errs() << "  at " << refusal.location << "\n";
  if (!refusal.hint.empty())
    llvm::errs() << "  hint: " << refusal.hint << "\n";
  return out.exitStatus;
}
} // namespace

// The multicall binary of `make pack` compiles this file with
// TIRX_MAIN=tirxMain and dispatches to it (tools/pack/multicall.cpp).
#ifndef TIRX_MAIN
#define TIRX_MAIN main
#endif

int TIRX_MAIN(int argc, char **argv) {
  Invocation inv;
  const char *env = std::getenv("TIRX_WORKSPACE");
  inv.workspace = env ? env : "tirx-workspace";
  const char *actor = std::getenv("TIRX_ACTOR");
  const char *user = std::getenv("USER");
  inv.who.actor = actor ? actor : user ? user : "unknown";
  const char *session = std::getenv("TIRX_SESSION");
  inv.who.session = session ? session : "";

  static const std::set<std::string> valued = {
      "--workspace", "--target",  "--task",    "-m",       "--parent",
      "--script",    "--session", "--mlir",    "--actor",  "--reference",
      "--timeout",   "--samples", "--seed",    "--inputs", "--what",
      "--device",    "--action",  "--policy",  "--recipe", "--child-seconds",
      "--child-memory-mb", "--max-steps", "--peer", "-o", "--budget",
      "--time", "--db", "--jobs", "--top-k", "--batch", "--runner",
      "--measure", "--gpus", "--executor", "--partition", "--gres",
      "--max-jobs", "--shared", "--slurm-pending-timeout",
      "--slurm-status-retries", "--skip"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << kHelp;
      return 0;
    }
    if (a == "--version") {
      std::cout << "tirx " << TIRX_VERSION_STRING << "\n";
      return 0;
    }
    if (a == "--json") {
      inv.json = true;
    } else if (a == "--compile-only") {
      inv.compileOnly = true;
    } else if (a == "--counters") {
      inv.options[a] = "on";
    } else if (a == "--kernels") {
      inv.kernels = true;
    } else if (a == "--suggest") {
      inv.suggest = true;
    } else if (valued.count(a)) {
      if (i + 1 >= argc) {
        std::cerr << "tirx: " << a << " needs a value\n";
        return 2;
      }
      std::string v = argv[++i];
      if (a == "--workspace")
        inv.workspace = v;
      else if (a == "--actor")
        inv.who.actor = v;
      else if (a == "--session" && inv.command != "export")
        inv.who.session = v;
      else if (a == "--peer")
        inv.peers.push_back(v);
      else if (a == "--skip")
        inv.skips.push_back(v);
      else
        inv.options[a] = v;
    } else if (a.size() > 1 && a[0] == '-') {
      std::cerr << "tirx: unknown option '" << a << "'\n" << kHelp;
      return 2;
    } else if (inv.command.empty()) {
      inv.command = a;
    } else {
      inv.positional.push_back(a);
    }
  }
  if (inv.command.empty()) {
    std::cerr << kHelp;
    return 2;
  }
  if (inv.command == "serve") {
    Expected<ChildLimits> limits = childLimits(inv);
    if (!limits)
      return print(inv, limits.takeError());
    return McpServer(inv.workspace, inv.who, *limits)
        .serve(STDIN_FILENO, STDOUT_FILENO);
  }
  return print(inv, dispatch(inv));
}
