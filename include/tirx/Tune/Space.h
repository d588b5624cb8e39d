//===- Space.h - the search space of `tirx tune` ----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The decisions of a schedule, from the facts of a version (Auto.h): the
// automatic schedule's candidates first (so genome 0 is `tirx auto`), then
// the other values of the same parameters that the action schema declares
// and the loops allow (tile sizes dividing the extents, threads multiples of
// 32 up to 1024, vector widths up to 16 bytes, parts, warps), then, for an
// optional step, "skip". Every alternative names a transform of the schema
// with parameters the schema declares for it.
//
// A workspace builder realizes genomes as chains of versions (each step a
// Session::applyAction, deduplicated by the workspace), a batch at a time
// in forked processes; a measurer times a version with Session::run.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TUNE_SPACE_H
#define TIRX_TUNE_SPACE_H

#include "tirx/Harness/Auto.h"
#include "tirx/Harness/Session.h"
#include "tirx/Tune/Search.h"

#include <map>
#include <memory>
#include <sys/types.h>
#include <set>
#include <string>
#include <vector>

namespace tirx::runtime {
class WorkerClient;
} // namespace tirx::runtime

namespace mlir::tirx {

/// One decision: its alternatives (actions; an empty object is "skip").
struct Choice {
  std::string why;
  std::vector<llvm::json::Object> alternatives;
  bool optional = false;
  std::string key; // of an optional step
};

/// The next decision for `facts`; none when the version is mapped.
std::optional<Choice> nextChoice(const PayloadFacts &facts,
                                 const std::vector<std::string> &skipped);

/// The alternative nearest to `wanted` (the same transform and target, the
/// closest parameters); -1 when none has its transform.
int nearestAlternative(const std::vector<llvm::json::Object> &alternatives,
                       const llvm::json::Object &wanted);

/// Whether every parameter of `action` is one the action schema declares
/// for its transform.
bool schemaDeclares(const llvm::json::Object &action);

struct BuilderOptions {
  unsigned jobs = 1;          // processes building at once
  bool lower = false;         // lower each mapped candidate (compile only)
  unsigned maxSteps = 48;
};

/// Builds in a workspace, from `seed`.
class WorkspaceBuilder : public ScheduleBuilder {
public:
  WorkspaceBuilder(std::string dir, std::string seed, Identity who,
                   ChildLimits limits, BuilderOptions options)
      : dir(std::move(dir)), seed(std::move(seed)), who(std::move(who)),
        limits(limits), options(options) {}

  std::vector<Built> build(const std::vector<Proposal> &proposals) override;
  void start(const std::vector<Proposal> &proposals) override;
  std::vector<Built> finish() override;
  bool concurrent() const override { return true; }
  Workload workload() override;

private:
  struct Child {
    pid_t pid;
    int fd;
    size_t index;
    std::string bytes;
  };
  /// The batch in flight.
  struct Batch {
    std::vector<Proposal> proposals;
    std::vector<Built> out;
    std::vector<std::string> replies;
    std::vector<Child> running;
    std::vector<bool> known; // realized without a process
    size_t next = 0;
  };
  /// Starts build processes while fewer than `jobs` run.
  void spawn();

  /// Realizes one proposal; new facts, refusals, steps and lowerings go to
  /// `learnt`. Without a session, only from what is known (no request is
  /// made): none when a step, a version's facts or a lowering is not.
  std::optional<Built> realize(Session *session, const Proposal &proposal,
                               llvm::json::Object &learnt);
  void learn(const llvm::json::Object &learnt);

  std::string dir, seed;
  Identity who;
  ChildLimits limits;
  BuilderOptions options;
  std::map<std::string, PayloadFacts> facts;  // by payload digest
  std::map<std::string, std::string> refused; // "digest action" -> why
  /// "digest action" -> the version it made and that version's digest.
  std::map<std::string, std::pair<std::string, std::string>> steps;
  std::set<std::string> lowered; // versions whose bundles a build made
  /// "digest\nskipped..." -> its decision (nextChoice).
  std::map<std::string, std::optional<Choice>> choices;
  std::string seedVersion, seedDigest; // once a build has shown the seed
  pid_t watch = 0; // in a build process: the tune's pid
  /// The workspace as the tune reads it: build processes start from a
  /// copy (with what it has read of the history).
  std::optional<Session> opened;
  Batch batch;
};

/// Measures with Session::run (one tirx-run process per measurement).
class SessionMeasurer : public Measurer {
public:
  SessionMeasurer(Session &session, std::string runner = "")
      : session(session), runner(std::move(runner)) {}
  llvm::Expected<Measurement> measure(const MeasureRequest &request) override;
  Fingerprint fingerprint() override;

private:
  Session &session;
  std::string runner;
};

/// Measures through a persistent `tirx-run --worker` (docs/worker.md): one
/// CUDA context, the input sets made on the GPU once and kept, the
/// reference's outputs computed once; a worker that faults or hangs is
/// replaced and the candidate gets the outcome. Bundles come from
/// Session::compile (the builder lowered them already).
class WorkerMeasurer : public Measurer {
public:
  WorkerMeasurer(Session &session, std::string runner = "");
  ~WorkerMeasurer() override;
  llvm::Expected<Measurement> measure(const MeasureRequest &request) override;
  Fingerprint fingerprint() override;
  /// Workers started so far (1 + replacements).
  int workersStarted() const;

private:
  Session &session;
  std::string program; // tirx-run, also for ncu's own run (--counters)
  std::unique_ptr<::tirx::runtime::WorkerClient> client;
};

/// The fingerprint of this machine as far as it can be read without a
/// device (the runner's cached device profile, the driver's version).
Fingerprint localFingerprint(const std::string &target);

} // namespace mlir::tirx

#endif // TIRX_TUNE_SPACE_H
