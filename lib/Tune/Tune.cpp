//===- Tune.cpp - `tirx tune` on a workspace --------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Tune.h"
#include "tirx/Tune/Space.h"

#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Support/JSON.h"
#include "tirx/Support/Refusal.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <thread>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {

/// One line of the progress bar.
void drawBar(llvm::raw_ostream &os, const TuneEvent &e, unsigned budget) {
  const json::Object &d = e.data;
  if (e.kind == "candidate") {
    int64_t n = d.getInteger("index").value_or(0);
    double seconds = d.getNumber("elapsed_s").value_or(0);
    os << llvm::formatv("\r[tune] {0}/{1} candidates", n, budget);
    if (auto best = d.getNumber("best_us"))
      os << llvm::formatv("  best {0:f2} us ({1})", *best,
                          d.getString("best_version").value_or(""));
    if (seconds > 0)
      os << llvm::formatv("  {0:f2} cand/s", double(n) / seconds);
    os << "   ";
  } else if (e.kind == "phase") {
    os << "\n[tune] " << d.getString("phase").value_or("") << " phase";
  } else if (e.kind == "compare") {
    os << "\n[tune] " << d.getString("verdict").value_or("")
       << llvm::formatv(" (ratio {0:f3}, 95% [{1:f3}, {2:f3}])",
                        d.getNumber("ratio").value_or(1),
                        d.getNumber("low").value_or(0),
                        d.getNumber("high").value_or(INFINITY));
  } else if (e.kind == "done") {
    os << "\n";
  }
  os.flush();
}
} // namespace

llvm::Expected<Result> mlir::tirx::tuneWorkspace(Session &session,
                                                 const std::string &version,
                                                 WorkspaceTuneOptions options) {
  TuneOptions &search = options.search;
  if (llvm::Error e = checkTuneOptions(search))
    return std::move(e);
  llvm::Expected<Result> start = session.show(version);
  if (!start)
    return start.takeError();
  const json::Object *entry = start->data.getObject("version");
  std::string digest =
      entry ? entry->getString("digest").value_or("").str() : "";
  unsigned jobs = options.jobs ? options.jobs
                               : std::max(1u, std::thread::hardware_concurrency());
  if (!search.batch)
    search.batch = 16;
  search.target = session.workspace().target();

  // The state: one file per start and the options that decide proposals.
  std::string id =
      digestOf(digest + " " + search.policy + " " + std::to_string(search.seed) +
               " " + std::to_string(search.batch) +
               (search.compileOnly ? " compile-only" : ""))
          .substr(std::strlen("sha256:"), 12);
  std::string dir = session.workspace().path("tune");
  llvm::sys::fs::create_directories(dir);
  search.statePath = dir + "/" + id + ".jsonl";

  if (options.measure != "worker" && options.measure != "run")
    return refuse(RefusalCode::usage,
                  "unknown measurement '" + options.measure + "'",
                  "--measure is worker (a persistent tirx-run) or run (one "
                  "tirx-run a measurement)");
  BuilderOptions building;
  building.jobs = jobs;
  building.lower = true; // in parallel; measuring then only runs bundles
  WorkspaceBuilder builder(session.workspace().dir(), start->version,
                           Identity{"tirx-tune", "tune-" + id}, session.limits(),
                           building);
  std::unique_ptr<Measurer> measurer;
  WorkerMeasurer *worker = nullptr;
  LocalExecutor *local = nullptr;
  SlurmExecutor *slurm = nullptr;
  if (!options.gpus.empty() && options.executor.empty())
    options.executor = "local";
  if (!options.executor.empty() && options.executor != "local" &&
      options.executor != "slurm")
    return refuse(RefusalCode::usage,
                  "unknown executor '" + options.executor + "'",
                  "--executor is local (--gpus all|0,1,...) or slurm");
  if (options.executor == "slurm" && !options.gpus.empty())
    return refuse(RefusalCode::usage,
                  "--gpus names local GPUs; with --executor slurm each job "
                  "gets its GPU from Slurm",
                  "--gres gpu:1 asks Slurm for one GPU per task");
  if (!options.executor.empty() && options.measure != "worker")
    return refuse(RefusalCode::usage,
                  "--measure run measures on this host only",
                  "leave --measure out with --gpus or --executor");
  if (search.compileOnly) {
    // nothing measured
  } else if (options.executor == "local") {
    llvm::Expected<std::vector<std::string>> gpus =
        parseGpus(options.gpus.empty() ? "all" : options.gpus);
    if (!gpus)
      return gpus.takeError();
    auto e = std::make_unique<LocalExecutor>(session, options.runner, *gpus);
    local = e.get();
    measurer = std::move(e);
  } else if (options.executor == "slurm") {
    if (llvm::Error e = SlurmExecutor::check())
      return std::move(e);
    SlurmOptions so = options.slurm;
    if (so.runner.empty())
      so.runner = options.runner;
    auto e = std::make_unique<SlurmExecutor>(session, so);
    slurm = e.get();
    measurer = std::move(e);
  } else if (options.measure == "run") {
    measurer = std::make_unique<SessionMeasurer>(session, options.runner);
  } else {
    auto w = std::make_unique<WorkerMeasurer>(session, options.runner);
    worker = w.get();
    measurer = std::move(w);
  }
  auto progress = [&](const TuneEvent &e) {
    if (options.jsonLines) {
      json::Object line = e.data;
      line["event"] = e.kind;
      *options.jsonLines << compactJSON(json::Value(std::move(line))) << "\n";
      options.jsonLines->flush();
    }
    if (options.bar)
      drawBar(*options.bar, e, search.budget);
  };
  llvm::Expected<json::Object> report =
      tune(builder, measurer.get(), search, progress);
  if (!report)
    return report.takeError();
  Result out;
  out.version = start->version;
  const json::Object *best = report->getObject("best");
  if (best)
    out.version = best->getString("version").value_or("").str();
  (*report)["state"] = search.statePath;
  (*report)["measure"] = search.compileOnly ? "none" : options.measure;
  if (worker)
    (*report)["workers_started"] = worker->workersStarted();
  if (local)
    (*report)["executor"] =
        json::Object{{"kind", "local"},
                     {"gpus", int64_t(local->slots())},
                     {"workers_started", local->workersStarted()},
                     {"retried", int64_t(local->retries())}};
  if (slurm) {
    json::Object s = slurm->summary();
    s["kind"] = "slurm";
    (*report)["executor"] = std::move(s);
  }
  out.text = llvm::formatv("tune {0} from {1} ({2}): {3} candidates, {4} "
                           "failed builds, {5} duplicates in {6:f1} s\n",
                           id, start->version, search.policy,
                           report->getInteger("candidates").value_or(0),
                           report->getInteger("failed_builds").value_or(0),
                           report->getInteger("duplicates").value_or(0),
                           report->getNumber("search_seconds").value_or(0))
                 .str();
  if (search.compileOnly) {
    out.text += "compile only: every candidate lowered, none ranked\n";
  } else if (auto summary = report->getString("summary")) {
    out.text += summary->str() + "\n";
  }
  if (report->getBoolean("interrupted").value_or(false))
    out.text += "interrupted: rerun the same command to resume\n";
  out.text += "state: " + search.statePath + "\n";
  out.data = std::move(*report);
  return out;
}
