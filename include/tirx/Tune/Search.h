//===- Search.h - `tirx tune`: searching schedules --------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A schedule is a sequence of actions from the seed to a version mapped to
// the GPU. At each step the version's facts (Auto.h) give a decision: the
// alternatives for the next action, the automatic schedule's choice first,
// then the other legal parameters (tile sizes, threads, vector widths,
// parts, warps), and "skip" for an optional step. A point of the search is
// a genome: the index of the alternative taken at each decision (0 beyond
// its end: the automatic choice). A refused alternative falls to the next
// one, as `tirx auto` does, and is never tried again on that version.
//
// The policies (random, greedy, evolutionary, mcts) propose genomes; a
// ScheduleBuilder realizes them (in parallel: each a chain of workspace versions);
// a Measurer times them one at a time (screening: one input set, few
// samples); the best k get the full check and timing; the winner is chosen
// by paired interleaved measurements (Stats.h) and the report says how sure
// it is. Every outcome is a line of the tune's state file (resumed by a
// rerun) and, with a database, a tuning record.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TUNE_SEARCH_H
#define TIRX_TUNE_SEARCH_H

#include "tirx/Tune/Database.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tirx {

/// The alternative taken at each decision; missing entries are 0.
using Genome = std::vector<unsigned>;

/// One decision met while realizing a genome.
struct Decision {
  unsigned arity = 0;    // how many alternatives it had
  unsigned chosen = 0;   // the one taken (after refusals)
  std::string transform; // what it decides: its first alternative's transform
};

/// What a policy asks the builder for: a genome, or a known schedule to
/// follow (a tuning record's; a step it cannot follow falls back to the
/// genome's choice, the nearest alternative of the same transform first).
struct Proposal {
  Genome genome;
  std::optional<llvm::json::Array> hint;
  std::string origin; // auto | random | mutation | crossover | tree | db

  Proposal() = default;
  Proposal(Genome genome, std::string origin)
      : genome(std::move(genome)), origin(std::move(origin)) {}
  Proposal(const Proposal &other);
  Proposal &operator=(const Proposal &other);
  Proposal(Proposal &&) = default;
  Proposal &operator=(Proposal &&) = default;
};

/// A realized genome.
struct Built {
  std::vector<Decision> path;  // the decisions, as taken
  llvm::json::Array schedule;  // the actions applied, in order
  std::string version;         // the last version reached
  std::string digest;          // its payload's digest
  bool mapped = false;         // a complete schedule
  std::string error;           // why not, "code: message"
  /// Refusals met on the way: "code" -> how many.
  std::map<std::string, unsigned> refusals;
  /// Where the build's time went, milliseconds by phase (show, facts,
  /// apply, compile, and the whole build process's wall time).
  std::map<std::string, double> phasesMs;

  Genome genome() const;
  llvm::json::Object toJSON() const;
  static std::optional<Built> fromJSON(const llvm::json::Value &v);

  Built() = default;
  Built(const Built &other);
  Built &operator=(const Built &other);
  Built(Built &&) = default;
  Built &operator=(Built &&) = default;
};

/// Realizes proposals: every one a chain of versions from the seed.
class ScheduleBuilder {
public:
  virtual ~ScheduleBuilder() = default;
  /// Builds `proposals` (in parallel where it can); results in order.
  virtual std::vector<Built> build(const std::vector<Proposal> &proposals) = 0;
  /// The same in two halves, so that the tune measures one batch while the
  /// next builds: start() returns at once, finish() waits for the batch.
  virtual void start(const std::vector<Proposal> &proposals) {
    started = proposals;
  }
  /// Whether start() builds in the background (then the tune overlaps
  /// building with measuring, its policy seeing outcomes one batch late).
  virtual bool concurrent() const { return false; }
  virtual std::vector<Built> finish() {
    std::vector<Proposal> batch = std::move(started);
    started.clear();
    return build(batch);
  }
  /// The workload of the seed (for the database).
  virtual Workload workload() = 0;

private:
  std::vector<Proposal> started;
};

/// How a candidate is measured.
struct MeasureRequest {
  std::string version;
  std::optional<int64_t> inputs, samples; // unset: the mode's defaults
  std::string mode = "full";              // screen | full (docs/worker.md)
  bool counters = false; // and Nsight Compute's figures (docs/counters.md)
};

/// What a measurement gave.
struct Measurement {
  std::string correctness = "not_checked"; // pass | fail | not_checked
  double medianUs = 0;                     // 0: not timed
  int64_t samples = 0;
  std::string code;                        // a refusal code when it failed
  std::string message;
  std::string bottleneck; // the runner's classifier (Knowledge.h)
  /// The candidate's math mode, as the runner read it from its manifest
  /// (ieee, tf32, f16, bf16): a peer is timed at this precision.
  std::string math;
  /// The feedback's `counters` object when they were asked for.
  std::optional<llvm::json::Object> counters;
  /// Where it ran, for an executor with several devices (Executor.h):
  /// "gpu1", "slurm:node7/gpu0"; "" for a measurer with one device.
  std::string device;
  double copyGBps = 0; // that device's measured copy bandwidth (0: unknown)
  /// medianUs is the device's time times `scale`: 1 on the reference device
  /// (and devices within 3% of its copy bandwidth), else the ratio of the
  /// bandwidths, so that screening times of different GPUs compare.
  double scale = 1;
  unsigned attempts = 1; // 2: its first worker or job failed (retried once)
  std::string retried;   // why the first attempt gave nothing

  /// The time as measured on `device`.
  double deviceUs() const { return scale > 0 ? medianUs / scale : medianUs; }

  bool ok() const { return code.empty() && correctness == "pass" && medianUs > 0; }
  llvm::json::Object toJSON() const;
  static Measurement fromJSON(const llvm::json::Object &o);
  /// What a runner's feedback (docs/feedback.md) says; `code` set when the
  /// candidate failed (launch_timeout, launch_error, correctness_fail,
  /// check_blind, implausible, compile_error).
  static Measurement ofFeedback(const llvm::json::Object &feedback);
};

/// Times candidates, one at a time. A failure of the candidate (wrong
/// results, a fault, a timeout) is a Measurement with `code` set; an Error
/// means the measurer itself cannot go on (no device, no runner).
class Measurer {
public:
  virtual ~Measurer() = default;
  virtual llvm::Expected<Measurement> measure(const MeasureRequest &request) = 0;
  /// Where the figures come from; known after the first measurement.
  virtual Fingerprint fingerprint() = 0;

  // An executor (Executor.h) has several measurements in flight: single
  // measure() calls (full checks, paired runs) go to its reference device,
  // batches are spread over all of them, never two on one GPU at a time.

  /// How many measurements run at once.
  virtual unsigned slots() const { return 1; }
  /// Measures `requests`; the results in their order. Once the tune is
  /// interrupted (tuneInterrupted()), those not done come back with code
  /// "interrupted" (not recorded: measured again by a rerun). This one
  /// measures them one after the other.
  virtual llvm::Expected<std::vector<Measurement>>
  measureBatch(const std::vector<MeasureRequest> &requests);
  /// Measures `requests` in their order, one at a time, on the reference
  /// device (paired runs: A B A B ...); interrupted ones as measureBatch's.
  /// This one calls measure() for each.
  virtual llvm::Expected<std::vector<Measurement>>
  measureSeries(const std::vector<MeasureRequest> &requests);
  /// The fingerprint of the device that took `m` (its tuning record's).
  virtual Fingerprint fingerprintOf(const Measurement &m) {
    return fingerprint();
  }
};

/// Whether SIGINT or SIGTERM asked the running tune to stop.
bool tuneInterrupted();

/// A search policy: proposes genomes, learns from outcomes. Deterministic
/// given its seed and the outcomes it observes.
class Policy {
public:
  virtual ~Policy() = default;
  virtual llvm::StringRef name() const = 0;
  /// Up to `n` proposals (fewer when it has nothing new to offer).
  virtual std::vector<Proposal> propose(unsigned n) = 0;
  /// The outcome of a proposal: `cost` in microseconds; +inf for a
  /// candidate that failed; NaN when nothing was measured (compile only:
  /// the policies then explore by structure alone).
  virtual void observe(const Proposal &proposal, const Built &built,
                       double cost) = 0;
};

/// The policies by name: random, greedy, evolutionary, mcts; null for an
/// unknown name.
std::unique_ptr<Policy> makePolicy(llvm::StringRef name, uint64_t seed);
/// The names makePolicy knows.
std::vector<std::string> policyNames();

struct TuneOptions {
  std::string policy = "evolutionary";
  unsigned budget = 64;       // candidates (distinct versions)
  double seconds = 0;         // 0: no time limit
  uint64_t seed = 1;
  unsigned batch = 8;         // proposals built together (the jobs)
  unsigned topK = 4;          // fully checked and timed
  unsigned pairs = 6;         // paired A B runs to rank the leaders
  bool compileOnly = false;
  MeasureRequest screening{"", 1, 10, "screen"};
  MeasureRequest full{"", std::nullopt, std::nullopt, "full"};
  MeasureRequest paired{"", 1, 20, "full"};
  std::string statePath;      // the tune's JSON lines (resumed)
  std::string dbPath;         // the tuning database, if any
  std::string target = "sm_90";
};

/// Refuses (usage) options no tune can run with: a budget of 0, an
/// unknown policy.
llvm::Error checkTuneOptions(const TuneOptions &options);

/// One event of a tune, for the progress bar and --json lines.
struct TuneEvent {
  std::string kind; // candidate | phase | compare | done
  llvm::json::Object data;
};

/// Runs a tune. `measurer` is null for compile only. Returns the report:
/// candidates, best, baseline (the automatic schedule), comparisons.
llvm::Expected<llvm::json::Object>
tune(ScheduleBuilder &builder, Measurer *measurer, const TuneOptions &options,
     llvm::function_ref<void(const TuneEvent &)> progress = {});

} // namespace mlir::tirx

#endif // TIRX_TUNE_SEARCH_H
