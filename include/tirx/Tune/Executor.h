//===- Executor.h - measuring on several GPUs and on Slurm ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Executors are Measurers (Search.h) with several measurements in flight:
// the tune's CPU side (the ScheduleBuilder) compiles the next batch while
// an executor measures this one (measureBatch), each request on a device of
// its own. A failure of a worker or a job (killed, node lost, timed out)
// gives nothing for its candidate: the request is retried once elsewhere,
// and only a second failure becomes the candidate's outcome
// (`worker_lost`); a request is never lost and never counted twice (one
// result each, recorded once by the tune).
//
// - LocalExecutor: one persistent `tirx-run --worker` per local GPU, each
//   started with CUDA_VISIBLE_DEVICES=<id>; a worker measures one candidate
//   at a time, so no two measurements share a GPU.
// - SlurmExecutor: a batch becomes one `sbatch --array` job, a task per
//   candidate running the one-shot `tirx-run` (a series, such as paired
//   runs, is one task running them in order); bundles, the job script and
//   the feedback travel through a shared directory; `squeue` (then `sacct`)
//   says how the tasks end; `scancel` ends them when the tune stops.
//
// Timings stay comparable: each result keeps its device and that device's
// measured copy bandwidth; single measurements (full checks, paired runs)
// run on the reference device (the first GPU; on Slurm, the node of the
// first result), and screening times from other devices are scaled by the
// ratio of copy bandwidths when it differs by more than 3% (docs/scale-out.md).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TUNE_EXECUTOR_H
#define TIRX_TUNE_EXECUTOR_H

#include "tirx/Harness/Session.h"
#include "tirx/Tune/Search.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir::tirx {

/// The GPUs of `spec`: "all" (CUDA_VISIBLE_DEVICES when set, else the
/// driver's /proc/driver/nvidia/gpus, else `nvidia-smi -L`), or ids
/// "0,1,3" (distinct, 0 to 1023).
llvm::Expected<std::vector<std::string>> parseGpus(llvm::StringRef spec);

/// The screening scale of a device against the reference (Measurement::scale).
double bandwidthScale(double deviceGBps, double referenceGBps);

class LocalExecutor : public Measurer {
public:
  LocalExecutor(Session &session, std::string runner,
                std::vector<std::string> gpus);
  ~LocalExecutor() override;

  llvm::Expected<Measurement> measure(const MeasureRequest &request) override;
  llvm::Expected<std::vector<Measurement>>
  measureBatch(const std::vector<MeasureRequest> &requests) override;
  unsigned slots() const override;
  Fingerprint fingerprint() override;
  Fingerprint fingerprintOf(const Measurement &m) override;

  /// Workers started (1 + replacements each), retried requests.
  int workersStarted() const;
  unsigned retries() const { return retried; }

private:
  struct Worker;
  /// One request on worker `w`, its device and scale noted.
  llvm::Expected<Measurement> runOn(Worker &w, const struct PreparedRequest &p);

  Session &session;
  std::vector<std::unique_ptr<Worker>> workers;
  unsigned retried = 0;
};

struct SlurmOptions {
  std::string partition;  // -p; "": the cluster's default
  std::string gres;       // --gres, e.g. gpu:1; "": none
  unsigned maxJobs = 8;   // array tasks running at once (%N)
  std::string shared;     // the shared directory; "": WORKSPACE/slurm
  std::string runner;     // tirx-run as the nodes see it
  double poll = 0.5;      // seconds between squeue calls
  double jobTimeout = 0;  // seconds a task may take (--time); 0: none
  /// Seconds the open tasks may all stay PENDING, none running and no
  /// result coming, before they are cancelled and the tune stops with
  /// Slurm's reason (--slurm-pending-timeout); 0: no deadline.
  double pendingTimeout = 3600;
  /// squeue/sacct calls that may fail in a row (non-zero exit, output that
  /// does not parse), retried with a growing pause, before the tune stops
  /// (--slurm-status-retries). A failed call never counts as "no jobs".
  unsigned statusRetries = 20;
  std::vector<std::string> extra; // more sbatch arguments
};

/// What Slurm's tools print, parsed (unit-tested on its own: SlurmTest.cpp).
namespace slurm {

/// A job id as squeue and sacct print it, as the ids of its tasks: "J" and
/// "J_K" as they are; an array's tasks that are still one record,
/// "J_[0-7%2]", "J_[1,3,5-7]", "J_[0-15:4]", expanded ("J_0", "J_1", ...;
/// the throttle "%N" dropped). An error (a message, no refusal code) for
/// anything else (at most 100000 tasks).
llvm::Expected<std::vector<std::string>> expandJobIds(llvm::StringRef id);

/// One task's row: its state (the first word: sacct's "CANCELLED by 0" is
/// CANCELLED), node and pending reason where the command gives them.
struct StatusRow {
  std::string state, node, reason;
};

/// The lines of `squeue -h -o %i|%T|%N|%r` (`fields` 4; the reason is the
/// rest of the line) or of `sacct -n -P -o JobID,State` (`fields` 2), one
/// row per task (expandJobIds). An error naming the line for one that does
/// not parse: too few fields, a bad id, a state that is not an upper-case
/// word. Blank lines are skipped.
llvm::Expected<std::map<std::string, StatusRow>>
parseStatus(llvm::StringRef text, unsigned fields);

/// How a squeue or sacct call ended: its table, or the reason it is not
/// one. squeue asked for one job id the controller has purged exits 1 with
/// "Invalid job id specified": that is an answer (no such job), not a
/// failure; sacct on a cluster without accounting ("accounting storage is
/// disabled") is `disabled`.
struct StatusAnswer {
  bool ok = false;       // `rows` is the answer
  bool disabled = false; // sacct: no accounting here
  std::map<std::string, StatusRow> rows;
  std::string error; // what failed, for the report
};
StatusAnswer statusAnswer(llvm::StringRef tool, int rc, llvm::StringRef out,
                          llvm::StringRef err, unsigned fields);

/// `path` for an sbatch filename pattern (--output): '%' doubled ("%%",
/// which Slurm reads as one '%', where "%j" would be the job id). An
/// error for a backslash (Slurm then expands nothing, not even "%a") or a
/// control character.
llvm::Expected<std::string> filenamePattern(llvm::StringRef path);

} // namespace slurm

class SlurmExecutor : public Measurer {
public:
  SlurmExecutor(Session &session, SlurmOptions options);
  ~SlurmExecutor() override; // cancels what is still queued or running

  llvm::Expected<Measurement> measure(const MeasureRequest &request) override;
  llvm::Expected<std::vector<Measurement>>
  measureBatch(const std::vector<MeasureRequest> &requests) override;
  /// One job on the reference node running them in order.
  llvm::Expected<std::vector<Measurement>>
  measureSeries(const std::vector<MeasureRequest> &requests) override;
  unsigned slots() const override { return options.maxJobs; }
  Fingerprint fingerprint() override;
  Fingerprint fingerprintOf(const Measurement &m) override;

  /// Jobs submitted, runs (measurements) in them, runs retried, jobs
  /// cancelled by the tune, the reference node, the run directory.
  llvm::json::Object summary() const;

  /// Refuses (no_runner) when sbatch, squeue or scancel is not on PATH.
  static llvm::Error check();

private:
  struct Task;
  llvm::Expected<std::vector<Measurement>>
  run(const std::vector<MeasureRequest> &requests, bool pinned,
      bool oneAtATime);
  llvm::Error submit(std::vector<Task *> &tasks, bool pinned,
                     bool oneAtATime, const std::string &exclude = "");
  /// scancel of every job that may still run; "" or what failed.
  std::string cancelAll();

  Session &session;
  SlurmOptions options;
  std::string runDir;             // SHARED/run-PID-TIME
  std::vector<std::string> live;  // job ids that may still run
  std::string node;               // the reference node (pinned requests)
  double referenceGBps = 0;
  std::map<std::string, Fingerprint> devices; // by Measurement::device
  unsigned jobs = 0, tasks = 0, retried = 0, cancelled = 0, batches = 0;
};

} // namespace mlir::tirx

#endif // TIRX_TUNE_EXECUTOR_H
