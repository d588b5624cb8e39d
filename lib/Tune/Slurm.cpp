//===- Slurm.cpp - measuring through Slurm job arrays -----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A batch of measurements is one `sbatch --array` job in a run directory
// under the shared directory:
//
//   RUN/bundles/NAME/        the candidates' and the reference's bundles
//   RUN/jN/job.sh            the job script
//   RUN/jN/tK/run.S          array task K's tirx-run command lines, run in
//                            order: one per task for a batch (spread over
//                            the nodes), all in task 0 for a series (full
//                            checks, paired runs: one GPU, no gaps)
//   RUN/jN/tK/where          the host and CUDA_VISIBLE_DEVICES it ran on
//   RUN/jN/tK/feedback.S.json  a run's feedback, renamed into place whole
//   RUN/profiles/HOST-GPU/   the device profile tirx-run measured there
//
// A task ends with a feedback (the candidate's outcome, whatever it is) or
// without one (cancelled, killed, timed out, its node lost): then it is
// submitted once more in a job of its own, and a second loss is the
// candidate's outcome (`worker_lost`).
//
// Status comes from squeue, then sacct, their compressed array records
// ("J_[2-5%2]") expanded to tasks. A call that fails or prints what does
// not parse is no answer: no task is judged on it; it is retried with a
// growing pause, and after SlurmOptions::statusRetries in a row the tune
// stops. Tasks all left PENDING (none running, no result) for
// SlurmOptions::pendingTimeout are cancelled and the tune stops with
// Slurm's reason. The run directory goes into sbatch's --output with its
// '%' doubled (slurm::filenamePattern).
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Executor.h"

#include "WorkerCall.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Support/JSON.h"
#include "tirx/Support/Refusal.h"
#include "tirx/Tune/Space.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <set>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace fs = llvm::sys::fs;
namespace rt = ::tirx::runtime;

namespace {

std::string quote(llvm::StringRef s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string readText(const std::string &path) {
  std::string text, error;
  return rt::readFile(path, text, error) ? text : std::string();
}

} // namespace

int mlir::tirx::capture(const std::vector<std::string> &argv,
                        const std::string &tmp, std::string &out,
                        std::string &err) {
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(argv[0]);
  if (!program) {
    err = argv[0] + " is not on PATH";
    return -1;
  }
  std::string o = tmp + ".out", e = tmp + ".err";
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""),
                                                llvm::StringRef(o),
                                                llvm::StringRef(e)};
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*program, args, std::nullopt, redirects,
                                     60, 0, &message);
  out = readText(o);
  err = readText(e);
  if (rc < 0 && err.empty())
    err = message;
  fs::remove(o);
  fs::remove(e);
  return rc;
}

namespace {

/// Copies a bundle directory (flat: manifest and kernel files).
llvm::Error copyTree(const std::string &from, const std::string &to) {
  if (fs::exists(to + "/manifest.json"))
    return llvm::Error::success();
  std::string part = to + ".part" + std::to_string(getpid());
  rt::removeTree(part);
  if (std::error_code ec = fs::create_directories(part))
    return refuse(RefusalCode::internal, part + ": " + ec.message());
  std::error_code ec;
  for (fs::directory_iterator it(from, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = llvm::sys::path::filename(it->path()).str();
    fs::file_status st;
    if (fs::status(it->path(), st) || st.type() != fs::file_type::regular_file)
      continue; // bundles are flat
    if (std::error_code c = fs::copy_file(it->path(), part + "/" + name))
      return refuse(RefusalCode::internal,
                    "copying " + it->path() + ": " + c.message());
  }
  if (ec)
    return refuse(RefusalCode::internal, from + ": " + ec.message());
  if (std::error_code c = fs::rename(part, to)) {
    rt::removeTree(part);
    if (!fs::exists(to + "/manifest.json"))
      return refuse(RefusalCode::internal, to + ": " + c.message());
  }
  return llvm::Error::success();
}

/// A Slurm command's '|'-separated lines as its tasks' rows (a table only
/// when it exited 0, or as statusAnswer says).
slurm::StatusAnswer status(const std::vector<std::string> &argv,
                           const std::string &tmp, unsigned fields) {
  std::string out, err;
  int rc = capture(argv, tmp, out, err);
  return slurm::statusAnswer(argv[0], rc, out, err, fields);
}

bool isNumber(llvm::StringRef s) {
  return !s.empty() && s.size() <= 18 &&
         s.find_first_not_of("0123456789") == llvm::StringRef::npos;
}

bool terminal(llvm::StringRef state) {
  return state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" &&
         state != "COMPLETING" && state != "REQUEUED" && state != "RESIZING" &&
         state != "SUSPENDED" && state != "SIGNALING" && state != "STAGE_OUT" &&
         !state.empty();
}
} // namespace

llvm::Expected<std::vector<std::string>>
slurm::expandJobIds(llvm::StringRef id) {
  auto bad = [&](const std::string &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "job id \"" + id.str() + "\": " + why);
  };
  auto [job, task] = id.split('_');
  if (!isNumber(job))
    return bad("not a job id");
  if (!id.contains('_'))
    return std::vector<std::string>{job.str()};
  if (isNumber(task))
    return std::vector<std::string>{id.str()};
  if (!task.consume_front("[") || !task.consume_back("]"))
    return bad("neither a task nor a [list] of tasks");
  // "%N": the array's throttle, not a task.
  task = task.split('%').first;
  if (task.empty())
    return bad("an empty task list");
  std::vector<std::string> ids;
  llvm::SmallVector<llvm::StringRef> parts;
  task.split(parts, ',');
  for (llvm::StringRef part : parts) {
    auto [range, step] = part.split(':');
    auto [from, to] = range.split('-');
    if (!range.contains('-'))
      to = from;
    uint64_t a = 0, b = 0, by = 1;
    if (!isNumber(from) || !isNumber(to) || from.getAsInteger(10, a) ||
        to.getAsInteger(10, b) || a > b ||
        (part.contains(':') &&
         (!isNumber(step) || step.getAsInteger(10, by) || by == 0)))
      return bad("\"" + part.str() + "\" is not a task, a range a-b or a-b:step");
    if ((b - a) / by + 1 > 100000 - ids.size())
      return bad("more than 100000 tasks");
    for (uint64_t k = a; k <= b; k += by)
      ids.push_back(job.str() + "_" + std::to_string(k));
  }
  return ids;
}

/// The most tasks one squeue/sacct answer may name (a tune submits far
/// fewer; beyond, the answer is refused rather than held in memory).
static constexpr size_t kMaxStatusRows = 200000;

llvm::Expected<std::map<std::string, slurm::StatusRow>>
slurm::parseStatus(llvm::StringRef text, unsigned fields) {
  std::map<std::string, StatusRow> rows;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n', -1, false);
  unsigned number = 0;
  for (llvm::StringRef line : lines) {
    ++number;
    if (line.trim().empty())
      continue;
    auto bad = [&](const std::string &why) {
      std::string shown = line.take_front(120).str();
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "line " + std::to_string(number) +
                                         " (\"" + shown +
                                         "\") does not parse: " + why);
    };
    // The last field (squeue's reason) may hold anything: the rest.
    llvm::SmallVector<llvm::StringRef> f;
    line.split(f, '|', int(fields) - 1);
    if (f.size() < fields)
      return bad(std::to_string(f.size()) + " field(s) where " +
                 std::to_string(fields) + " were asked for");
    StatusRow row;
    row.state = f[1].trim().split(' ').first.str();
    if (row.state.empty() ||
        row.state.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") !=
            std::string::npos)
      return bad("\"" + f[1].trim().str() + "\" is not a job state");
    if (fields > 2)
      row.node = f[2].trim().str();
    if (fields > 3)
      row.reason = f[3].trim().take_front(300).str(); // shown, not parsed
    llvm::Expected<std::vector<std::string>> ids =
        expandJobIds(f[0].trim());
    if (!ids)
      return bad(llvm::toString(ids.takeError()));
    // Over the whole answer too: hostile output must not grow without bound.
    if (rows.size() + ids->size() > kMaxStatusRows)
      return bad("more than " + std::to_string(kMaxStatusRows) +
                 " tasks in one answer");
    for (const std::string &id : *ids)
      rows[id] = row;
  }
  return rows;
}

slurm::StatusAnswer slurm::statusAnswer(llvm::StringRef tool, int rc,
                                        llvm::StringRef out,
                                        llvm::StringRef err, unsigned fields) {
  StatusAnswer a;
  std::string said = err.trim().take_front(300).str();
  if (rc != 0) {
    if (tool == "squeue" && err.contains("Invalid job id specified")) {
      a.ok = true; // the one job asked for is gone
      return a;
    }
    a.disabled = tool == "sacct" && err.contains("accounting storage is disabled");
    a.error = tool.str() + " failed (" +
              (rc < 0 ? std::string("did not run")
                      : "exit status " + std::to_string(rc)) +
              ")" + (said.empty() ? "" : ": " + said);
    return a;
  }
  llvm::Expected<std::map<std::string, StatusRow>> rows =
      parseStatus(out, fields);
  if (!rows) {
    a.error = tool.str() + " printed what does not parse: " +
              llvm::toString(rows.takeError());
    return a;
  }
  a.ok = true;
  a.rows = std::move(*rows);
  return a;
}

llvm::Expected<std::string> slurm::filenamePattern(llvm::StringRef path) {
  std::string out;
  for (char c : path) {
    if (c == '\\' || (unsigned char)c < 0x20 || c == 0x7f)
      return refuse(
          RefusalCode::usage,
          "the shared directory " + path.str() + " has a " +
              (c == '\\' ? std::string("backslash")
                          : std::string("control character")) +
              ", which sbatch's --output pattern cannot carry (a backslash "
              "turns off all of its %-expansions)",
          "--shared DIR: a path without backslashes or control characters");
    out += c == '%' ? std::string("%%") : std::string(1, c);
  }
  return out;
}

/// One measurement in flight.
struct SlurmExecutor::Task {
  size_t index = 0;          // in the batch
  PreparedRequest prepared;
  std::string dir;           // RUN/jN/tK of the current attempt
  std::string slot;          // S of its run.S and feedback.S.json
  std::string job;           // "J_K"
  unsigned attempts = 0;
  std::string lostWhy;       // the first attempt's loss
  std::string lostOn;        // and its node, when known
  std::optional<Measurement> result;
  int unseen = 0;            // polls with no trace of the task
  bool pinned = false;
};

SlurmExecutor::SlurmExecutor(Session &session, SlurmOptions opts)
    : session(session), options(std::move(opts)) {
  if (options.shared.empty())
    options.shared = session.workspace().path("slurm");
  if (options.runner.empty())
    options.runner = findRunner();
  if (!options.maxJobs)
    options.maxJobs = 1;
}

SlurmExecutor::~SlurmExecutor() { cancelAll(); }

llvm::Error SlurmExecutor::check() {
  for (const char *tool : {"sbatch", "squeue", "scancel"})
    if (!llvm::sys::findProgramByName(tool))
      return refuse(RefusalCode::no_runner,
                    std::string("--executor slurm: ") + tool +
                        " is not on PATH",
                    "run tirx tune on a Slurm login node (or install "
                    "slurm-client), or use --gpus for local GPUs");
  return llvm::Error::success();
}

json::Object SlurmExecutor::summary() const {
  return json::Object{{"jobs", int64_t(jobs)},
                      {"runs", int64_t(tasks)},
                      {"retried", int64_t(retried)},
                      {"cancelled", int64_t(cancelled)},
                      {"reference_node", node},
                      {"shared", runDir}};
}

std::string SlurmExecutor::cancelAll() {
  if (live.empty())
    return "";
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), live.begin(), live.end());
  std::string out, err, ids;
  int rc = capture(argv, runDir + "/scancel", out, err);
  for (const std::string &j : live)
    ids += " " + j;
  cancelled += unsigned(live.size());
  live.clear();
  if (rc == 0)
    return "";
  return "scancel failed too (" + llvm::StringRef(err).trim().str() +
         "): cancel them by hand, scancel" + ids;
}

llvm::Error SlurmExecutor::submit(std::vector<Task *> &batch, bool pinned,
                                  bool oneAtATime, const std::string &exclude) {
  if (runDir.empty()) {
    // Refused before anything is written: a path sbatch cannot carry.
    if (llvm::Expected<std::string> p = slurm::filenamePattern(options.shared);
        !p)
      return p.takeError();
    // One directory per tune process: nothing of another run is reused.
    runDir = options.shared + "/run-" + std::to_string(getpid()) + "-" +
             std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count());
    if (std::error_code ec = fs::create_directories(runDir + "/bundles"))
      return refuse(RefusalCode::internal,
                    "the shared directory " + runDir + ": " + ec.message(),
                    "--shared DIR: a directory every node can read and write");
  }
  std::string dir = runDir + "/j" + std::to_string(++batches);
  std::string script = "#!/bin/bash\n"
                       "# tirx tune: one measurement per array task "
                       "(docs/scale-out.md)\n"
                       "T=" + quote(dir) + "/t$SLURM_ARRAY_TASK_ID\n"
                       "G=${CUDA_VISIBLE_DEVICES:-none}\n"
                       "P=" + quote(runDir) + "/profiles/$(hostname -s)-${G//,/_}\n"
                       "mkdir -p \"$P\"\n"
                       "echo \"$(hostname -s) $G $P\" > \"$T/where\"\n"
                       "for R in \"$T\"/run.*; do\n"
                       "  S=${R##*.}\n"
                       "  bash \"$R\" \"$T\" \"$P\" \"$S\" > \"$T/runner.$S.log\" 2>&1\n"
                       "  echo $? > \"$T/exit.$S\"\n"
                       "  if [ -s \"$T/feedback.$S.part\" ]; then\n"
                       "    mv \"$T/feedback.$S.part\" \"$T/feedback.$S.json\"\n"
                       "  fi\n"
                       "done\n";
  for (size_t k = 0; k < batch.size(); ++k) {
    Task &t = *batch[k];
    t.dir = dir + "/t" + std::to_string(oneAtATime ? 0 : k);
    t.slot = llvm::formatv("{0:D4}", oneAtATime ? k : size_t(0)).str();
    t.unseen = 0;
    t.pinned = pinned;
    ++t.attempts;
    if (std::error_code ec = fs::create_directories(t.dir))
      return refuse(RefusalCode::internal, t.dir + ": " + ec.message());
    // What travels: the bundles, copied into the shared directory.
    std::string bundle =
        runDir + "/bundles/" + llvm::sys::path::filename(t.prepared.bundle).str();
    if (llvm::Error e = copyTree(t.prepared.bundle, bundle))
      return e;
    std::string cmd = "exec " + quote(options.runner) + " " + quote(bundle);
    const rt::MeasureOptions &o = t.prepared.options;
    if (!o.reference.empty()) {
      std::string ref = runDir + "/bundles/" +
                        llvm::sys::path::filename(o.reference).str();
      if (llvm::Error e = copyTree(o.reference, ref))
        return e;
      cmd += " --reference " + quote(ref);
    }
    cmd += " -o \"$1/feedback.$3.part\" --profile-dir \"$2\"";
    if (!o.irVersion.empty())
      cmd += " --ir-version " + quote(o.irVersion);
    if (o.samples > 0)
      cmd += " --samples " + std::to_string(o.samples);
    if (o.inputs > 0)
      cmd += " --inputs " + std::to_string(o.inputs);
    std::string error;
    if (!rt::writeFileAtomically(t.dir + "/run." + t.slot, cmd + "\n", error))
      return refuse(RefusalCode::internal, error);
  }
  std::string error;
  if (!rt::writeFileAtomically(dir + "/job.sh", script, error))
    return refuse(RefusalCode::internal, error);
  // Slurm expands %j, %u, ... in --output: the path's own '%' doubled.
  llvm::Expected<std::string> pattern = slurm::filenamePattern(dir);
  if (!pattern)
    return pattern.takeError();
  std::vector<std::string> argv = {
      "sbatch", "--parsable", "--job-name=tirx-tune",
      "--output=" + *pattern + "/t%a/slurm.out",
      "--array=0-" + std::to_string(oneAtATime ? 0 : batch.size() - 1) +
          "%" + std::to_string(options.maxJobs)};
  if (!options.partition.empty())
    argv.push_back("--partition=" + options.partition);
  if (!options.gres.empty())
    argv.push_back("--gres=" + options.gres);
  if (pinned && !node.empty())
    argv.push_back("--nodelist=" + node);
  if (!exclude.empty())
    argv.push_back("--exclude=" + exclude);
  argv.insert(argv.end(), options.extra.begin(), options.extra.end());
  argv.push_back(dir + "/job.sh");
  std::string out, err;
  int rc = capture(argv, dir + "/sbatch", out, err);
  std::string id = llvm::StringRef(out).trim().split(';').first.str();
  if (rc != 0 || id.empty() ||
      id.find_first_not_of("0123456789") != std::string::npos)
    return refuse(RefusalCode::runner_failed,
                  "sbatch failed (status " + std::to_string(rc) +
                      "): " + llvm::StringRef(err).trim().str(),
                  "check --partition and --gres against sinfo; the job "
                  "script is " + dir + "/job.sh");
  ++jobs;
  tasks += unsigned(batch.size());
  live.push_back(id);
  for (size_t k = 0; k < batch.size(); ++k)
    batch[k]->job = id + "_" + std::to_string(oneAtATime ? 0 : k);
  return llvm::Error::success();
}

llvm::Expected<std::vector<Measurement>>
SlurmExecutor::run(const std::vector<MeasureRequest> &requests, bool pinned,
                   bool oneAtATime) {
  std::vector<Task> all(requests.size());
  std::vector<Task *> toSubmit;
  for (size_t i = 0; i < requests.size(); ++i) {
    llvm::Expected<PreparedRequest> p = prepareRequest(session, requests[i]);
    if (!p)
      return p.takeError();
    all[i].index = i;
    all[i].prepared = std::move(*p);
    if (all[i].prepared.failed)
      all[i].result = *all[i].prepared.failed;
    else
      toSubmit.push_back(&all[i]);
  }
  if (!toSubmit.empty())
    if (llvm::Error e = submit(toSubmit, pinned, oneAtATime))
      return std::move(e);

  // "J_K" -> its row, from the last squeue
  std::map<std::string, slurm::StatusRow> states;
  auto lose = [&](Task &t, const std::string &why,
                  std::vector<Task *> &again) {
    if (t.attempts < 2) { // retried once, in another job
      t.lostWhy = why;
      // Its node: squeue's, else what the job wrote.
      auto s = states.find(t.job);
      t.lostOn = s != states.end() ? s->second.node : "";
      if (t.lostOn.empty())
        t.lostOn = llvm::StringRef(readText(t.dir + "/where")).split(' ').first.str();
      ++retried;
      again.push_back(&t);
      return;
    }
    Measurement m;
    m.code = "worker_lost";
    m.message = why + "; before that: " + t.lostWhy;
    m.attempts = t.attempts;
    m.retried = t.lostWhy;
    t.result = std::move(m);
  };
  // The pending deadline counts from the last sign of life: a submission,
  // a task seen past PENDING, a result.
  auto lastProgress = std::chrono::steady_clock::now();
  unsigned statusFailures = 0; // squeue or sacct calls failed in a row
  while (true) {
    std::vector<Task *> open;
    for (Task &t : all)
      if (!t.result)
        open.push_back(&t);
    if (open.empty())
      break;
    if (tuneInterrupted()) {
      cancelAll();
      for (Task *t : open) {
        Measurement m;
        m.code = "interrupted";
        t->result = std::move(m);
      }
      break;
    }
    // Where each task stands: squeue (jobs the controller still holds),
    // then sacct (finished ones, where accounting is kept). A call that
    // fails or prints what does not parse tells nothing: no task is judged
    // on it (known false), and it is retried.
    std::string ids;
    for (const std::string &j : live)
      ids += (ids.empty() ? "" : ",") + j;
    states.clear();
    bool known = true, progress = false;
    std::string statusError;
    if (!ids.empty()) {
      slurm::StatusAnswer q =
          status({"squeue", "-h", "-t", "all", "-j", ids, "-o", "%i|%T|%N|%r"},
                 runDir + "/squeue", 4);
      known = q.ok;
      statusError = q.error;
      states = std::move(q.rows);
    }
    std::vector<Task *> again, pending;
    bool needAccounting = false;
    for (Task *t : open) {
      std::string feedback = readText(t->dir + "/feedback." + t->slot + ".json");
      if (!feedback.empty()) {
        llvm::Expected<json::Value> v = parseJSON(feedback);
        const json::Object *f = nullptr;
        if (v) {
          f = v->getAsObject();
          if (!f && v->getAsArray() && !v->getAsArray()->empty())
            f = (*v->getAsArray())[0].getAsObject();
        } else {
          llvm::consumeError(v.takeError());
        }
        if (!f) {
          lose(*t, "job " + t->job + ": unreadable feedback", again);
          continue;
        }
        Measurement m = Measurement::ofFeedback(*f);
        std::string whereText = readText(t->dir + "/where");
        llvm::SmallVector<llvm::StringRef> where;
        llvm::StringRef(whereText).trim().split(where, ' ');
        std::string host = where.size() > 0 ? where[0].str() : "?";
        std::string gpu = where.size() > 1 ? where[1].str() : "none";
        if (m.code == "no_device") {
          cancelAll();
          return refuse(RefusalCode::no_device,
                        "job " + t->job + " on " + host +
                            " found no CUDA device: " + m.message +
                            " (the runner's output: " + t->dir + "/runner." +
                            t->slot + ".log)",
                        "--gres gpu:1 (and a GPU partition) so that each "
                        "task gets a GPU");
        }
        m.device = "slurm:" + host + (gpu == "none" ? "" : "/gpu" + gpu);
        if (!devices.count(m.device)) {
          // The device profile tirx-run measured on that node.
          Fingerprint fp = localFingerprint(session.workspace().target());
          std::string profiles = where.size() > 2 ? where[2].str() : "";
          std::error_code ec;
          for (fs::directory_iterator it(profiles, ec), end;
               !profiles.empty() && !ec && it != end; it.increment(ec)) {
            llvm::StringRef name = llvm::sys::path::filename(it->path());
            if (!name.starts_with("device-") || !name.ends_with(".json"))
              continue;
            llvm::Expected<json::Value> p = parseJSON(readText(it->path()));
            const json::Object *o = p ? p->getAsObject() : nullptr;
            if (!p)
              llvm::consumeError(p.takeError());
            if (!o)
              continue;
            applyDeviceProfile(fp, *o);
          }
          devices[m.device] = fp;
        }
        if (node.empty() && m.code.empty()) {
          node = host; // the reference node: single measurements go there
          referenceGBps = m.copyGBps;
        }
        if (host != node && m.code.empty()) {
          m.scale = bandwidthScale(m.copyGBps, referenceGBps);
          m.medianUs *= m.scale;
        }
        m.attempts = t->attempts;
        m.retried = t->lostWhy;
        t->result = std::move(m);
        progress = true;
        continue;
      }
      if (!known)
        continue;
      auto s = states.find(t->job);
      if (s != states.end()) {
        const std::string &state = s->second.state, &on = s->second.node;
        if (state == "PENDING")
          pending.push_back(t);
        else
          progress = true;
        if (!terminal(state))
          t->unseen = 0; // seen queued or running: the grace counts from its end
        if (terminal(state)) {
          // A finished task's feedback may lag on a network filesystem.
          if (state == "COMPLETED" && ++t->unseen < 10)
            continue;
          lose(*t,
               "job " + t->job + " " + state + (on.empty() ? "" : " on " + on) +
                   " without a feedback",
               again);
        }
        continue;
      }
      // Gone from the controller (or never there): accounting decides.
      if (++t->unseen >= 6)
        needAccounting = true;
    }
    if (known && needAccounting) {
      // Gone from the controller: what accounting says, else lost.
      slurm::StatusAnswer acct;
      if (!ids.empty())
        acct = status({"sacct", "-n", "-P", "-X", "-j", ids, "-o", "JobID,State"},
                      runDir + "/sacct", 2);
      if (!acct.ok && !acct.disabled) {
        known = false; // neither "finished" nor "lost" on a failed call
        statusError = acct.error;
      }
      for (Task *t : open)
        if (known && !t->result && t->unseen >= 6 &&
            std::find(again.begin(), again.end(), t) == again.end()) {
          auto a = acct.rows.find(t->job);
          std::string state = a != acct.rows.end() ? a->second.state : "";
          if (a != acct.rows.end() && state == "PENDING")
            pending.push_back(t);
          else if (a != acct.rows.end())
            progress = true;
          if (a != acct.rows.end() && !terminal(state))
            continue;
          if (readText(t->dir + "/feedback." + t->slot + ".json").empty())
            lose(*t,
                 "job " + t->job + " " +
                     (a != acct.rows.end()
                          ? state
                          : std::string("vanished (neither squeue "
                                        "nor sacct knows it)")) +
                     " without a feedback",
                 again);
        }
    }
    if (!again.empty()) {
      // Elsewhere: not on the nodes that lost them, where the partition has
      // others (a pinned one too: its node may be the one lost).
      std::set<std::string> lost;
      for (Task *t : again)
        if (!t->lostOn.empty() && t->lostOn != "(null)")
          lost.insert(t->lostOn);
      std::vector<std::string> sinfo = {"sinfo", "-h", "-N", "-o", "%N"};
      if (!options.partition.empty())
        sinfo.push_back("--partition=" + options.partition);
      std::string exclude, nodes, err;
      // sinfo failing: no other node known, no --exclude.
      if (capture(sinfo, runDir + "/sinfo", nodes, err) == 0) {
        llvm::SmallVector<llvm::StringRef> names;
        llvm::StringRef(nodes).split(names, '\n', -1, false);
        for (llvm::StringRef name : names)
          if (!name.trim().empty() && !lost.count(name.trim().str()))
            exclude = " "; // another node exists
      }
      if (!exclude.empty()) {
        exclude.clear();
        for (const std::string &n : lost)
          exclude += (exclude.empty() ? "" : ",") + n;
      }
      if (llvm::Error e = submit(again, false, oneAtATime, exclude))
        return std::move(e);
      lastProgress = std::chrono::steady_clock::now();
      continue;
    }
    if (!known) {
      // Bounded retries with a growing pause (poll, 2 poll, ... at most
      // 10 s); then the tune stops, its open requests unrecorded.
      if (++statusFailures > options.statusRetries) {
        std::string notCancelled = cancelAll();
        size_t still = 0;
        for (Task &t : all)
          still += !t.result;
        return refuse(
            RefusalCode::runner_failed,
            "Slurm's job status could not be read " +
                std::to_string(statusFailures) + " times in a row (last: " +
                statusError + "); the tune's jobs were cancelled" +
                (notCancelled.empty() ? "" : " (" + notCancelled + ")") +
                " and its " + std::to_string(still) +
                " open measurement(s) not recorded (none counted as lost)",
            "check the controller (squeue, sinfo; slurmctld's log), then "
            "rerun the same command: the tune resumes (docs/scale-out.md); "
            "--slurm-status-retries N allows more failures in a row");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(int64_t(
          std::min(options.poll * statusFailures, 10.0) * 1000)));
      continue;
    }
    statusFailures = 0;
    auto now = std::chrono::steady_clock::now();
    if (progress)
      lastProgress = now;
    double waited = std::chrono::duration<double>(now - lastProgress).count();
    if (options.pendingTimeout > 0 && !pending.empty() &&
        waited > options.pendingTimeout) {
      // Nothing ran for that long, and Slurm keeps them queued: cancelled,
      // with Slurm's reasons, rather than waited on for ever.
      std::set<std::string> jobsPending, reasons;
      for (Task *t : pending) {
        jobsPending.insert(llvm::StringRef(t->job).split('_').first.str());
        auto s = states.find(t->job);
        if (s != states.end() && !s->second.reason.empty() &&
            s->second.reason != "None")
          reasons.insert(s->second.reason);
      }
      std::string jobList, reasonList;
      for (const std::string &j : jobsPending)
        jobList += (jobList.empty() ? "" : ", ") + j;
      for (const std::string &r : reasons)
        reasonList += (reasonList.empty() ? "" : "; ") + r;
      std::string notCancelled = cancelAll();
      return refuse(
          RefusalCode::runner_failed,
          llvm::formatv("{0} task(s) of job {1} still PENDING after {2:f0} s "
                        "with none running (Slurm's reason: {3}); cancelled{4}",
                        pending.size(), jobList, waited,
                        reasonList.empty() ? std::string("none given")
                                           : reasonList,
                        notCancelled.empty() ? "" : " (" + notCancelled + ")")
              .str(),
          "see the reason in squeue's REASON column and sinfo: --partition "
          "and --gres must name what the cluster has; a busy queue needs a "
          "longer --slurm-pending-timeout S (0: no deadline); the same "
          "command resumes the tune");
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(int64_t(options.poll * 1000)));
  }
  // Every task has ended (or was cancelled with its job); cancel anything
  // still known (a task judged lost may still be queued): harmless for
  // finished jobs.
  cancelAll();
  std::vector<Measurement> out;
  for (Task &t : all)
    out.push_back(std::move(*t.result));
  return out;
}

llvm::Expected<Measurement>
SlurmExecutor::measure(const MeasureRequest &request) {
  llvm::Expected<std::vector<Measurement>> m = run({request}, true, true);
  if (!m)
    return m.takeError();
  return std::move(m->front());
}

llvm::Expected<std::vector<Measurement>>
SlurmExecutor::measureBatch(const std::vector<MeasureRequest> &requests) {
  return run(requests, false, false);
}

llvm::Expected<std::vector<Measurement>>
SlurmExecutor::measureSeries(const std::vector<MeasureRequest> &requests) {
  return run(requests, true, true);
}

Fingerprint SlurmExecutor::fingerprint() {
  for (const auto &[device, fp] : devices)
    if (device == "slurm:" + node ||
        llvm::StringRef(device).starts_with("slurm:" + node + "/"))
      return fp;
  return localFingerprint(session.workspace().target());
}

Fingerprint SlurmExecutor::fingerprintOf(const Measurement &m) {
  auto it = devices.find(m.device);
  return it != devices.end() ? it->second : fingerprint();
}
