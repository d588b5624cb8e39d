//===- Search.cpp - the loop of `tirx tune` ---------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Batches of proposals are built together (the builder spreads them over
// the CPU cores), then measured one at a time. The state file gets a line
// per build and per measurement, written whole (one write, fsync'd) before
// the next step, so a tune killed at any moment loses at most the work in
// flight; a rerun with the same state replays the policy (deterministic)
// and finds each outcome already recorded.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Search.h"
#include "Lines.h"
#include "tirx/Tune/Knowledge.h"
#include "tirx/Tune/Stats.h"

#include "tirx/Support/JSON.h"
#include "tirx/Support/Refusal.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

namespace {

json::Array genomeJSON(const Genome &g) {
  json::Array a;
  for (unsigned x : g)
    a.push_back(int64_t(x));
  return a;
}

} // namespace

Proposal::Proposal(const Proposal &other)
    : genome(other.genome), origin(other.origin) {
  if (other.hint)
    hint = json::Array(*other.hint);
}

Proposal &Proposal::operator=(const Proposal &other) {
  if (this != &other) {
    Proposal copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Built::Built(const Built &other)
    : path(other.path), schedule(json::Array(other.schedule)),
      version(other.version), digest(other.digest), mapped(other.mapped),
      error(other.error), refusals(other.refusals), phasesMs(other.phasesMs) {}

Built &Built::operator=(const Built &other) {
  if (this != &other) {
    Built copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Genome Built::genome() const {
  Genome g;
  for (const Decision &d : path)
    g.push_back(d.chosen);
  return g;
}

json::Object Built::toJSON() const {
  json::Array decisions;
  for (const Decision &d : path)
    decisions.push_back(
        json::Array{int64_t(d.chosen), int64_t(d.arity), d.transform});
  json::Object refused;
  for (const auto &[code, n] : refusals)
    refused[code] = int64_t(n);
  json::Object phases;
  for (const auto &[phase, ms] : phasesMs)
    phases[phase] = ms;
  json::Object o{{"decisions", std::move(decisions)},
                 {"schedule", json::Array(schedule)},
                 {"version", version},
                 {"digest", digest},
                 {"mapped", mapped},
                 {"refusals", std::move(refused)}};
  if (!phasesMs.empty())
    o["phases_ms"] = std::move(phases);
  if (!error.empty())
    o["error"] = error;
  return o;
}

std::optional<Built> Built::fromJSON(const json::Value &v) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return std::nullopt;
  Built b;
  const json::Array *decisions = o->getArray("decisions");
  const json::Array *schedule = o->getArray("schedule");
  if (!decisions || !schedule)
    return std::nullopt;
  for (const json::Value &d : *decisions) {
    const json::Array *pair = d.getAsArray();
    if (!pair || pair->size() < 2 || pair->size() > 3)
      return std::nullopt;
    auto chosen = (*pair)[0].getAsInteger(), arity = (*pair)[1].getAsInteger();
    if (!chosen || !arity || *chosen < 0 || *arity < 0 || *chosen >= *arity)
      return std::nullopt;
    std::string transform =
        pair->size() == 3 ? (*pair)[2].getAsString().value_or("").str() : "";
    b.path.push_back({unsigned(*arity), unsigned(*chosen), transform});
  }
  b.schedule = *schedule;
  b.version = o->getString("version").value_or("").str();
  b.digest = o->getString("digest").value_or("").str();
  b.mapped = o->getBoolean("mapped").value_or(false);
  b.error = o->getString("error").value_or("").str();
  if (const json::Object *r = o->getObject("refusals"))
    for (const auto &[code, n] : *r)
      b.refusals[code.str()] = unsigned(n.getAsInteger().value_or(0));
  if (const json::Object *p = o->getObject("phases_ms"))
    for (const auto &[phase, ms] : *p)
      b.phasesMs[phase.str()] = ms.getAsNumber().value_or(0);
  return b;
}

json::Object Measurement::toJSON() const {
  json::Object o{{"correctness", correctness},
                 {"median_us", medianUs},
                 {"samples", samples}};
  if (!code.empty())
    o["code"] = code;
  if (!message.empty())
    o["message"] = message;
  if (!bottleneck.empty())
    o["bottleneck"] = bottleneck;
  if (!math.empty())
    o["math"] = math;
  if (counters)
    o["counters"] = json::Object(*counters);
  if (!device.empty())
    o["device"] = device;
  if (copyGBps > 0)
    o["copy_gbps"] = copyGBps;
  if (scale != 1)
    o["scale"] = scale;
  if (attempts != 1)
    o["attempts"] = int64_t(attempts);
  if (!retried.empty())
    o["retried"] = retried;
  return o;
}

Measurement Measurement::ofFeedback(const json::Object &f) {
  Measurement m;
  m.correctness = f.getString("correctness").value_or("not_checked").str();
  m.medianUs = f.getNumber("duration_us").value_or(0);
  m.samples = f.getInteger("sample_count").value_or(0);
  m.bottleneck = f.getString("bottleneck").value_or("").str();
  m.math = f.getString("math").value_or("").str();
  if (const json::Object *c = f.getObject("counters"))
    if (c->getString("status").value_or("not_requested") != "not_requested")
      m.counters = *c;
  m.copyGBps = f.getNumber("copy_bandwidth_gbs").value_or(0);
  llvm::StringRef launch = f.getString("launch_status").value_or("");
  std::string error = f.getString("error").value_or("").str();
  if (f.getString("compile_status") == "error") {
    m.code = "compile_error";
  } else if (launch == "timeout") {
    m.code = "launch_timeout";
  } else if (launch != "ok") {
    m.code = launch == "no_device" ? "no_device" : "launch_error";
  } else if (m.correctness == "fail") {
    m.code = "correctness_fail";
    error = f.getString("correctness_detail").value_or("").str();
  } else if (f.getString("ghost_check") == "blind") {
    m.code = "check_blind";
  } else if (f.getBoolean("plausible") == false) {
    m.code = "implausible";
    error = f.getString("implausible_reason").value_or("").str();
  }
  if (!m.code.empty())
    m.message = error;
  return m;
}

Measurement Measurement::fromJSON(const json::Object &o) {
  Measurement m;
  m.correctness = o.getString("correctness").value_or("not_checked").str();
  m.medianUs = o.getNumber("median_us").value_or(0);
  m.samples = o.getInteger("samples").value_or(0);
  m.code = o.getString("code").value_or("").str();
  m.message = o.getString("message").value_or("").str();
  m.bottleneck = o.getString("bottleneck").value_or("").str();
  m.math = o.getString("math").value_or("").str();
  if (const json::Object *c = o.getObject("counters"))
    m.counters = *c;
  m.device = o.getString("device").value_or("").str();
  m.copyGBps = o.getNumber("copy_gbps").value_or(0);
  m.scale = o.getNumber("scale").value_or(1);
  m.attempts = unsigned(o.getInteger("attempts").value_or(1));
  m.retried = o.getString("retried").value_or("").str();
  return m;
}

llvm::Expected<std::vector<Measurement>>
Measurer::measureBatch(const std::vector<MeasureRequest> &requests) {
  return measureSeries(requests);
}

llvm::Expected<std::vector<Measurement>>
Measurer::measureSeries(const std::vector<MeasureRequest> &requests) {
  std::vector<Measurement> out;
  for (const MeasureRequest &r : requests) {
    if (tuneInterrupted()) {
      Measurement m;
      m.code = "interrupted";
      out.push_back(std::move(m));
      continue;
    }
    llvm::Expected<Measurement> m = measure(r);
    if (!m)
      return m.takeError();
    if (tuneInterrupted()) { // possibly cut short (the worker got SIGINT too)
      m->code = "interrupted";
      m->message.clear();
    }
    out.push_back(std::move(*m));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// The state file
//===----------------------------------------------------------------------===//

namespace {
std::atomic<bool> interrupted{false};

void onInterrupt(int) { interrupted = true; }
} // namespace

bool mlir::tirx::tuneInterrupted() { return interrupted; }

namespace {

/// SIGINT and SIGTERM stop the loop between steps (the work in flight
/// finishes and is recorded); restored when the tune ends.
class InterruptGuard {
public:
  InterruptGuard() {
    interrupted = false;
    struct sigaction sa = {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &oldInt);
    sigaction(SIGTERM, &sa, &oldTerm);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &oldInt, nullptr);
    sigaction(SIGTERM, &oldTerm, nullptr);
  }

private:
  struct sigaction oldInt = {}, oldTerm = {};
};

std::string proposalKey(const Proposal &p) {
  std::string k = compactJSON(genomeJSON(p.genome));
  if (p.hint)
    k += " hint " + compactJSON(json::Array(*p.hint));
  return k;
}

/// What an earlier run of this tune recorded.
struct State {
  std::map<std::string, Built> built;             // by proposal key
  std::map<std::string, Measurement> screened;    // by digest
  std::map<std::string, Measurement> full;        // by digest
  std::vector<std::string> skipped;               // unreadable lines
  unsigned lines = 0;
};

State readState(const std::string &path) {
  State s;
  readLines(path, [&](int number, llvm::Expected<json::Value> v) {
    const json::Object *o = v ? v->getAsObject() : nullptr;
    if (!v)
      llvm::consumeError(v.takeError());
    llvm::StringRef kind = o ? o->getString("kind").value_or("") : "";
    std::optional<Built> built;
    if (kind == "built" && o->getString("key") && o->get("built") &&
        (built = Built::fromJSON(*o->get("built")))) {
      s.built[o->getString("key")->str()] = std::move(*built);
      ++s.lines;
    } else if (kind == "measured" && o->getString("digest") &&
               o->getObject("measurement")) {
      Measurement m = Measurement::fromJSON(*o->getObject("measurement"));
      (o->getString("phase") == "full" ? s.full : s.screened)
          [o->getString("digest")->str()] = m;
      ++s.lines;
    } else if (kind != "start" && kind != "done") {
      s.skipped.push_back("line " + std::to_string(number) +
                          ": not a tune state line");
    }
  });
  return s;
}

double costOf(const Measurement &m) {
  return m.ok() ? m.medianUs : INFINITY;
}

/// One distinct candidate (a final payload digest).
struct Candidate {
  Built built;
  Proposal proposal;
  std::optional<Measurement> screened, full;
  unsigned index = 0; // 1-based, in the order found
};

json::Object candidateJSON(const Candidate &c) {
  json::Object o{{"index", int64_t(c.index)},
                 {"version", c.built.version},
                 {"origin", c.proposal.origin},
                 {"mapped", c.built.mapped},
                 {"schedule", json::Array(c.built.schedule)}};
  if (!c.built.error.empty())
    o["error"] = c.built.error;
  if (c.screened)
    o["screening"] = c.screened->toJSON();
  if (c.full)
    o["full"] = c.full->toJSON();
  return o;
}

json::Object comparisonJSON(const Comparison &c, const std::string &a,
                            const std::string &b, size_t pairs) {
  std::string verdict =
      c.winner() > 0   ? a + " is faster than " + b
      : c.winner() < 0 ? b + " is faster than " + a
                       : "no difference shown between " + a + " and " + b;
  return json::Object{{"a", a},
                      {"b", b},
                      {"ratio", finiteOrNull(c.ratio)},
                      {"low", finiteOrNull(c.low)},
                      {"high", finiteOrNull(c.high)},
                      {"confidence", c.confidence},
                      {"pairs", int64_t(pairs)},
                      {"winner", c.winner() > 0   ? a
                                 : c.winner() < 0 ? b
                                                  : std::string()},
                      {"verdict", verdict}};
}
} // namespace

//===----------------------------------------------------------------------===//
// The loop
//===----------------------------------------------------------------------===//

llvm::Error mlir::tirx::checkTuneOptions(const TuneOptions &options) {
  if (options.budget == 0)
    return refuse(RefusalCode::usage, "the budget is 0: nothing to tune",
                  "--budget N takes a positive number of candidates");
  if (!makePolicy(options.policy, options.seed)) {
    std::string names;
    for (const std::string &n : policyNames())
      names += (names.empty() ? "" : ", ") + n;
    return refuse(RefusalCode::usage, "unknown policy '" + options.policy + "'",
                  "--policy is one of " + names);
  }
  return llvm::Error::success();
}

llvm::Expected<json::Object>
mlir::tirx::tune(ScheduleBuilder &builder, Measurer *measurer,
                 const TuneOptions &options,
                 llvm::function_ref<void(const TuneEvent &)> progress) {
  if (llvm::Error e = checkTuneOptions(options))
    return std::move(e);
  std::unique_ptr<Policy> policy = makePolicy(options.policy, options.seed);
  bool measuring = measurer && !options.compileOnly;
  auto say = [&](const char *kind, json::Object data) {
    if (progress)
      progress(TuneEvent{kind, std::move(data)});
  };
  auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         started)
        .count();
  };
  InterruptGuard guard;

  // The database: read once; a damaged line is named and skipped.
  std::optional<TuningDatabase> db;
  std::vector<std::string> dbSkipped;
  std::vector<TuningRecord> dbRecords;
  if (!options.dbPath.empty()) {
    db.emplace(options.dbPath);
    dbRecords = db->read(&dbSkipped);
    if (!dbSkipped.empty())
      return refuse(RefusalCode::bad_json,
                    options.dbPath + ": " + dbSkipped.front() +
                        (dbSkipped.size() > 1
                             ? " (and " + std::to_string(dbSkipped.size() - 1) +
                                   " more)"
                             : ""),
                    "repair or remove the damaged line(s); nothing was tuned");
  }

  State state;
  if (!options.statePath.empty())
    state = readState(options.statePath);
  unsigned resumed = state.lines;
  auto record = [&](json::Object line) -> llvm::Error {
    if (options.statePath.empty())
      return llvm::Error::success();
    return appendLine(options.statePath, compactJSON(std::move(line)));
  };
  if (llvm::Error e = record(json::Object{
          {"kind", "start"},
          {"policy", options.policy},
          {"seed", int64_t(options.seed)},
          {"budget", int64_t(options.budget)},
          {"compile_only", !measuring},
          {"resumed_lines", int64_t(resumed)}}))
    return std::move(e);

  Workload workload = builder.workload();
  std::optional<Fingerprint> where;
  unsigned appended = 0;
  bool seeded = false;
  std::vector<TuningRecord> deferred; // measured before the seeds were read
  auto remember = [&](const Candidate &c, const Measurement &m,
                      bool fresh) -> llvm::Error {
    if (!db || !fresh || !c.built.mapped || !m.code.empty() ||
        m.medianUs <= 0)
      return llvm::Error::success();
    if (!where)
      where = measurer->fingerprint();
    TuningRecord r;
    r.workload = workload;
    r.schedule = json::Array(c.built.schedule);
    r.medianUs = m.deviceUs(); // as measured, on the device that measured it
    r.samples = m.samples;
    r.correctness = m.correctness;
    r.where = m.device.empty() ? *where : measurer->fingerprintOf(m);
    r.time = "";
    ++appended;
    if (!seeded) { // this tune's own figures are no starting point
      deferred.push_back(std::move(r));
      return llvm::Error::success();
    }
    return db->append(r);
  };

  std::vector<Candidate> candidates;
  std::map<std::string, size_t> byDigest;   // digest -> candidate
  std::map<std::string, unsigned> refusals; // code -> count
  std::set<std::string> failedBuilds;       // distinct errors
  std::map<std::string, double> phases;     // build time by phase, ms
  unsigned proposals = 0, duplicates = 0, idle = 0, built = 0;
  unsigned processes = 0; // builds that took a build process
  bool exhausted = false;
  std::vector<Proposal> queue;
  queue.emplace_back(Genome{}, "auto");
  unsigned seeds = 0;

  auto seedFromDatabase = [&] {
    seeded = true;
    if (!db)
      return;
    std::vector<TuningRecord> best;
    if (measuring) {
      if (!where)
        where = measurer->fingerprint();
      best = db->best(workload, *where, 8);
    } else {
      // Compile only: no figure is compared; the best schedule known on
      // each machine is a starting point.
      std::map<std::string, Fingerprint> machines;
      for (const TuningRecord &r : dbRecords)
        machines[r.where.key()] = r.where;
      for (const auto &[key, fp] : machines)
        for (TuningRecord &r : db->best(workload, fp, 4))
          best.push_back(std::move(r));
    }
    // Ahead of anything queued (the knowledge base's remedies).
    std::vector<Proposal> fromDb;
    for (const TuningRecord &r : best) {
      Proposal p(Genome{}, "db");
      p.hint = json::Array(r.schedule);
      fromDb.push_back(std::move(p));
      ++seeds;
    }
    queue.insert(queue.begin(), fromDb.begin(), fromDb.end());
  };

  // Seconds a screening measurement took on one device, one entry per
  // batch (its mean) or single measurement: the reserve of timeLeft.
  std::vector<double> measureSeconds;
  // The knowledge base: when a new best shows a bottleneck, the decisions
  // its remedies name (Knowledge.h) are tried with their other values, the
  // rest of the best kept, before the policy's next proposals.
  unsigned remedies = 0;
  auto queueRemedies = [&](const Candidate &c) {
    std::set<std::string> actions;
    for (const Remedy &r : remediesFor(c.screened->bottleneck))
      actions.insert(r.action);
    Genome g = c.built.genome();
    unsigned added = 0;
    for (size_t d = 0; d < c.built.path.size() && added < 8; ++d) {
      const Decision &decision = c.built.path[d];
      if (!actions.count(decision.transform))
        continue;
      for (unsigned a = 1; a < decision.arity && added < 8; ++a) {
        Genome n = g;
        n[d] = (decision.chosen + a) % decision.arity;
        n.resize(std::max(n.size(), d + 1));
        queue.emplace_back(std::move(n), "knowledge");
        ++added;
      }
    }
    remedies += added;
  };

  // Whether the search may go on: the full checks and paired runs that
  // follow it (about 3 screenings' time for each leader and the automatic
  // schedule, 4 for each pair) must still fit in --time. A measurement's
  // time is the median of those seen: the first includes the runner's
  // start (a CUDA context, its copy-bandwidth probe), which made a 25 s
  // matmul tune on the H200 stop after its first candidate. However slow
  // the measurements, the search keeps at least half the time.
  auto timeLeft = [&] {
    if (options.seconds <= 0)
      return true;
    double reserve = 0;
    if (measuring && !measureSeconds.empty()) {
      std::vector<double> sorted = measureSeconds;
      std::sort(sorted.begin(), sorted.end());
      double typical = sorted[(sorted.size() - 1) / 2];
      reserve = std::min(typical * (3.0 * (options.topK + 1) + 4.0 * options.pairs),
                         options.seconds / 2);
    }
    return elapsed() + reserve < options.seconds;
  };
  auto bestSoFar = [&]() -> const Candidate * {
    const Candidate *best = nullptr;
    for (const Candidate &c : candidates)
      if (c.screened && c.screened->ok() &&
          (!best || c.screened->medianUs < best->screened->medianUs))
        best = &c;
    return best;
  };

  // A batch in building: its proposals, which of them the state held, and
  // whether the builder works on the rest.
  struct InFlight {
    std::vector<Proposal> batch;
    std::vector<Built> results;
    std::vector<size_t> slots;   // of the proposals being built
    std::vector<Proposal> toBuild;
  };
  auto assemble = [&]() {
    std::vector<Proposal> batch;
    while (!queue.empty() && batch.size() < options.batch) {
      batch.push_back(std::move(queue.front()));
      queue.erase(queue.begin());
    }
    if (batch.size() < options.batch && (seeded || batch.empty()))
      for (Proposal &p : policy->propose(options.batch - unsigned(batch.size())))
        batch.push_back(std::move(p));
    return batch;
  };
  // Starts building what the state does not hold yet.
  auto launch = [&](std::vector<Proposal> batch) {
    InFlight f;
    f.results.resize(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      auto it = state.built.find(proposalKey(batch[i]));
      if (it != state.built.end()) {
        f.results[i] = it->second;
      } else {
        f.slots.push_back(i);
        f.toBuild.push_back(batch[i]);
      }
    }
    f.batch = std::move(batch);
    if (!f.toBuild.empty())
      builder.start(f.toBuild);
    return f;
  };
  // Waits for a batch; records what was built.
  auto land = [&](InFlight &f) -> llvm::Error {
    if (f.toBuild.empty())
      return llvm::Error::success();
    std::vector<Built> made = builder.finish();
    std::vector<std::string> lines; // the batch's, with one fsync
    for (size_t j = 0; j < made.size() && j < f.slots.size(); ++j) {
      for (const auto &[phase, ms] : made[j].phasesMs)
        phases[phase] += ms;
      processes += made[j].phasesMs.count("process");
      f.results[f.slots[j]] = made[j];
      state.built[proposalKey(f.toBuild[j])] = made[j];
      built += 1;
      lines.push_back(compactJSON(json::Object{
          {"kind", "built"},
          {"key", proposalKey(f.toBuild[j])},
          {"origin", f.toBuild[j].origin},
          {"built", made[j].toJSON()}}));
    }
    if (options.statePath.empty())
      return llvm::Error::success();
    return appendLines(options.statePath, lines);
  };
  auto budgetLeft = [&] {
    return candidates.size() + failedBuilds.size() < options.budget;
  };

  std::optional<InFlight> next;
  while (budgetLeft() && timeLeft() && !interrupted) {
    InFlight current;
    if (next) {
      current = std::move(*next);
      next.reset();
    } else {
      std::vector<Proposal> batch = assemble();
      if (batch.empty()) {
        exhausted = true;
        break;
      }
      current = launch(std::move(batch));
    }
    if (llvm::Error e = land(current))
      return std::move(e);
    proposals += unsigned(current.batch.size());
    // The next batch builds while this one is measured (once the database
    // has seeded the queue: its seeds need the baseline's fingerprint).
    if (seeded && measuring && builder.concurrent()) {
      std::vector<Proposal> batch = assemble();
      if (!batch.empty())
        next = launch(std::move(batch));
    }
    std::vector<Proposal> &batch = current.batch;
    std::vector<Built> &results = current.results;
    bool progressMade = false;
    // The batch's screening runs, submitted together: an executor
    // (Executor.h) runs them on all its devices at once.
    std::map<std::string, Measurement> screenedNow; // by digest
    if (measuring) {
      std::vector<MeasureRequest> requests;
      std::vector<std::string> digests;
      std::set<std::string> failed = failedBuilds;
      size_t count = candidates.size() + failedBuilds.size();
      for (const Built &b : results) {
        if (count >= options.budget)
          break;
        if (!b.mapped) {
          count += failed.insert(b.digest + " " + b.error.substr(0, b.error.find(':'))).second;
          continue;
        }
        if (byDigest.count(b.digest) ||
            std::find(digests.begin(), digests.end(), b.digest) != digests.end())
          continue;
        if (state.screened.count(b.digest)) { // resumed: counted, not measured
          ++count;
          continue;
        }
        MeasureRequest request = options.screening;
        request.version = b.version;
        requests.push_back(std::move(request));
        digests.push_back(b.digest);
        ++count;
      }
      if (requests.size() > 1) {
        double before = elapsed();
        llvm::Expected<std::vector<Measurement>> ms =
            measurer->measureBatch(requests);
        if (!ms)
          return ms.takeError();
        // The mean time of one measurement on one device (the reserve of
        // timeLeft: the full checks run on one).
        measureSeconds.push_back((elapsed() - before) *
                                 std::min<double>(requests.size(), measurer->slots()) /
                                 double(requests.size()));
        for (size_t k = 0; k < ms->size() && k < digests.size(); ++k)
          screenedNow[digests[k]] = std::move((*ms)[k]);
      }
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      const Built &b = results[i];
      for (const auto &[code, n] : b.refusals)
        refusals[code] += n;
      bool full = candidates.size() + failedBuilds.size() >= options.budget;
      if (!b.mapped) {
        bool fresh = failedBuilds.insert(b.digest + " " + b.error.substr(0, b.error.find(':'))).second &&
                     !full;
        progressMade |= fresh;
        policy->observe(batch[i], b, INFINITY);
        if (fresh)
          say("candidate",
              json::Object{{"index", int64_t(candidates.size() +
                                             failedBuilds.size())},
                           {"origin", batch[i].origin},
                           {"mapped", false},
                           {"error", b.error}});
        continue;
      }
      auto seen = byDigest.find(b.digest);
      if (seen != byDigest.end()) {
        ++duplicates; // the same kernel: its outcome, nothing re-run
        const Candidate &c = candidates[seen->second];
        policy->observe(batch[i], b,
                        c.screened ? costOf(*c.screened) : NAN);
        continue;
      }
      auto measuredNow = screenedNow.find(b.digest);
      bool done = measuredNow != screenedNow.end() &&
                  measuredNow->second.code != "interrupted";
      if (full || (interrupted && !done))
        continue; // beyond the budget: not observed, proposed again later
      progressMade = true;
      Candidate c;
      c.built = b;
      c.proposal = batch[i];
      c.index = unsigned(candidates.size() + failedBuilds.size() + 1);
      double cost = NAN;
      if (measuring) {
        auto known = state.screened.find(b.digest);
        bool fresh = known == state.screened.end();
        if (fresh) {
          MeasureRequest request = options.screening;
          request.version = b.version;
          auto now = measuredNow;
          double before = elapsed();
          llvm::Expected<Measurement> m =
              now != screenedNow.end() ? llvm::Expected<Measurement>(now->second)
                                       : measurer->measure(request);
          if (now == screenedNow.end())
            measureSeconds.push_back(elapsed() - before);
          if (!m)
            return m.takeError();
          if (m->code == "interrupted") {
            interrupted = true; // the executor saw it first
            continue; // not run before the interrupt: measured by a rerun
          }
          if (interrupted && now == screenedNow.end())
            break; // a run cut short by the interrupt: not recorded
          c.screened = *m;
          if (llvm::Error e = record(json::Object{
                  {"kind", "measured"},
                  {"digest", b.digest},
                  {"version", b.version},
                  {"phase", "screen"},
                  {"measurement", m->toJSON()}}))
            return std::move(e);
        } else {
          c.screened = known->second;
        }
        if (llvm::Error e = remember(c, *c.screened, fresh))
          return std::move(e);
        cost = costOf(*c.screened);
      }
      policy->observe(batch[i], b, cost);
      byDigest[b.digest] = candidates.size();
      candidates.push_back(std::move(c));
      const Candidate *best = bestSoFar();
      if (best == &candidates.back() && !best->screened->bottleneck.empty())
        queueRemedies(*best);
      json::Object event = candidateJSON(candidates.back());
      event["elapsed_s"] = elapsed();
      if (best) {
        event["best_us"] = best->screened->medianUs;
        event["best_version"] = best->built.version;
      }
      say("candidate", std::move(event));
    }
    if (!seeded) { // after the baseline: its fingerprint is known
      seedFromDatabase();
      for (const TuningRecord &r : deferred)
        if (llvm::Error e = db->append(r))
          return std::move(e);
      deferred.clear();
    }
    idle = progressMade ? 0 : idle + 1;
    if (idle >= 16) { // the policy keeps finding known kernels
      exhausted = true;
      break;
    }
  }
  if (next) { // built while the last batch was measured: kept for a rerun
    if (llvm::Error e = land(*next))
      return std::move(e);
    proposals += unsigned(next->batch.size());
  }
  double searchSeconds = elapsed();
  seeded = true;
  for (const TuningRecord &r : deferred) // stopped before the seeds were read
    if (llvm::Error e = db->append(r))
      return std::move(e);

  // The report.
  json::Object report{{"policy", options.policy},
                      {"seed", int64_t(options.seed)},
                      {"compile_only", !measuring},
                      {"candidates", int64_t(candidates.size())},
                      {"failed_builds", int64_t(failedBuilds.size())},
                      {"proposals", int64_t(proposals)},
                      {"duplicates", int64_t(duplicates)},
                      {"built", int64_t(built)},
                      {"build_processes", int64_t(processes)},
                      {"resumed_lines", int64_t(resumed)},
                      {"exhausted", exhausted},
                      {"interrupted", bool(interrupted)},
                      {"search_seconds", searchSeconds},
                      {"candidates_per_second",
                       searchSeconds > 0
                           ? double(candidates.size()) / searchSeconds
                           : 0.0},
                      {"workload", workload.signature()},
                      {"family", workload.family()}};
  json::Object refusalCounts;
  for (const auto &[code, n] : refusals)
    refusalCounts[code] = int64_t(n);
  report["refusals"] = std::move(refusalCounts);
  report["knowledge_proposals"] = int64_t(remedies);
  // Where the builds' time went (each build process's phases, summed over
  // this run's builds: with --jobs N, N at a time).
  json::Object phaseTotals;
  for (const auto &[phase, ms] : phases)
    phaseTotals[phase] = ms;
  report["build_phases_ms"] = std::move(phaseTotals);
  if (db)
    report["database"] = json::Object{{"path", db->path()},
                                      {"seeds", int64_t(seeds)},
                                      {"appended", int64_t(appended)}};
  if (!state.skipped.empty()) {
    json::Array lines;
    for (const std::string &s : state.skipped)
      lines.push_back(s);
    report["state_skipped"] = std::move(lines);
  }
  const Candidate *baseline =
      !candidates.empty() && candidates.front().proposal.origin == "auto"
          ? &candidates.front()
          : nullptr;
  if (baseline) // rewritten after the full phase, which adds its full check
    report["baseline"] = candidateJSON(*baseline);
  json::Array all;
  for (const Candidate &c : candidates)
    all.push_back(json::Object{{"index", int64_t(c.index)},
                               {"version", c.built.version},
                               {"origin", c.proposal.origin},
                               {"median_us", c.screened && c.screened->ok()
                                                 ? json::Value(c.screened->medianUs)
                                                 : json::Value(nullptr)}});
  report["all"] = std::move(all);

  if (!measuring) {
    // Compile only: every mapped candidate lowered; nothing ranked.
    json::Array versions;
    for (const Candidate &c : candidates)
      versions.push_back(c.built.version);
    report["versions"] = std::move(versions);
    if (llvm::Error e = record(json::Object{{"kind", "done"}}))
      return std::move(e);
    say("done", json::Object(report));
    return report;
  }

  // The leaders: the best k by screening, checked and timed in full.
  std::vector<Candidate *> leaders;
  for (Candidate &c : candidates)
    if (c.screened && c.screened->ok())
      leaders.push_back(&c);
  std::stable_sort(leaders.begin(), leaders.end(),
                   [](const Candidate *a, const Candidate *b) {
                     return a->screened->medianUs < b->screened->medianUs;
                   });
  if (leaders.size() > options.topK)
    leaders.resize(options.topK);
  if (baseline && baseline->screened && baseline->screened->ok() &&
      std::find(leaders.begin(), leaders.end(), baseline) == leaders.end())
    leaders.push_back(const_cast<Candidate *>(baseline));
  say("phase", json::Object{{"phase", "full"},
                            {"leaders", int64_t(leaders.size())}});
  // The full checks in one series on the reference device (an executor
  // submits them together).
  std::map<std::string, Measurement> fullNow; // by digest
  {
    std::vector<MeasureRequest> requests;
    std::vector<std::string> digests;
    for (Candidate *c : leaders)
      if (!state.full.count(c->built.digest)) {
        MeasureRequest request = options.full;
        request.version = c->built.version;
        requests.push_back(std::move(request));
        digests.push_back(c->built.digest);
      }
    if (requests.size() > 1 && !interrupted) {
      llvm::Expected<std::vector<Measurement>> ms =
          measurer->measureSeries(requests);
      if (!ms)
        return ms.takeError();
      for (size_t k = 0; k < ms->size() && k < digests.size(); ++k)
        fullNow[digests[k]] = std::move((*ms)[k]);
    }
  }
  for (Candidate *c : leaders) {
    auto now = fullNow.find(c->built.digest);
    if (interrupted && now == fullNow.end())
      break;
    auto known = state.full.find(c->built.digest);
    bool fresh = known == state.full.end();
    if (fresh) {
      MeasureRequest request = options.full;
      request.version = c->built.version;
      llvm::Expected<Measurement> m =
          now != fullNow.end() ? llvm::Expected<Measurement>(now->second)
                               : measurer->measure(request);
      if (!m)
        return m.takeError();
      if (m->code == "interrupted" || (interrupted && now == fullNow.end())) {
        interrupted = true;
        break;
      }
      c->full = *m;
      if (llvm::Error e = record(json::Object{{"kind", "measured"},
                                              {"digest", c->built.digest},
                                              {"version", c->built.version},
                                              {"phase", "full"},
                                              {"measurement", m->toJSON()}}))
        return std::move(e);
    } else {
      c->full = known->second;
    }
    if (llvm::Error e = remember(*c, *c->full, fresh))
      return std::move(e);
  }
  // The automatic schedule as timed in full in this same run (the greedy
  // baseline a table compares with).
  if (baseline)
    report["baseline"] = candidateJSON(*baseline);
  std::vector<Candidate *> ranked;
  for (Candidate *c : leaders)
    if (c->full && c->full->ok())
      ranked.push_back(c);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Candidate *a, const Candidate *b) {
                     return a->full->medianUs < b->full->medianUs;
                   });
  if (ranked.empty()) {
    report["best"] = nullptr;
    report["summary"] = "no candidate passed the full check";
    if (llvm::Error e = record(json::Object{{"kind", "done"}}))
      return std::move(e);
    say("done", json::Object(report));
    return report;
  }
  Candidate *best = ranked.front();
  report["best"] = candidateJSON(*best);

  // Paired, interleaved runs: A B A B ... so that drifts hit both.
  auto compare = [&](Candidate *a, Candidate *b) -> llvm::Expected<json::Object> {
    std::vector<double> sa, sb;
    std::vector<MeasureRequest> series;
    for (unsigned i = 0; i < options.pairs; ++i)
      for (Candidate *x : {a, b}) {
        MeasureRequest request = options.paired;
        request.version = x->built.version;
        series.push_back(std::move(request));
      }
    llvm::Expected<std::vector<Measurement>> runs =
        measurer->measureSeries(series);
    if (!runs)
      return runs.takeError();
    for (size_t i = 0; i + 1 < runs->size(); i += 2) {
      const Measurement &ma = (*runs)[i], &mb = (*runs)[i + 1];
      if (!ma.ok() || !mb.ok())
        continue;
      sa.push_back(ma.medianUs);
      sb.push_back(mb.medianUs);
    }
    Comparison c = comparePaired(sa, sb, 0.95, 2000, options.seed);
    json::Object o = comparisonJSON(c, a->built.version, b->built.version,
                                    sa.size());
    say("compare", json::Object(o));
    return o;
  };
  say("phase", json::Object{{"phase", "paired"}});
  std::string summary = "best " + best->built.version + ": " +
                        llvm::formatv("{0:f2}", best->full->medianUs).str() +
                        " us";
  // The precision it won at: an f32 payload's best may run its products as
  // tf32 on the tensor cores (use_mma, use_wgmma), so its peers are timed at tf32.
  if (!best->full->math.empty() && best->full->math != "ieee")
    summary += " (" + best->full->math + " math)";
  if (baseline && baseline != best && baseline->full && baseline->full->ok()) {
    llvm::Expected<json::Object> vs = compare(best, const_cast<Candidate *>(baseline));
    if (!vs)
      return vs.takeError();
    report["speedup_vs_baseline"] = json::Object{
        {"ratio", baseline->full->medianUs / best->full->medianUs},
        {"paired", std::move(*vs)}};
    const json::Object &paired =
        *report.getObject("speedup_vs_baseline")->getObject("paired");
    summary += "; vs the automatic schedule " + baseline->built.version +
               ": " + paired.getString("verdict").value_or("").str() +
               llvm::formatv(" (ratio {0:f3}, 95% interval [{1:f3}, {2:f3}])",
                             paired.getNumber("ratio").value_or(NAN),
                             paired.getNumber("low").value_or(0),
                             paired.getNumber("high").value_or(INFINITY))
                   .str();
  } else if (baseline == best) {
    summary += "; the automatic schedule is the best found";
  }
  if (ranked.size() > 1) {
    // The runner-up may be the automatic schedule: compared already.
    const json::Object *already =
        ranked[1] == baseline && report.getObject("speedup_vs_baseline")
            ? report.getObject("speedup_vs_baseline")->getObject("paired")
            : nullptr;
    llvm::Expected<json::Object> vs =
        already ? llvm::Expected<json::Object>(json::Object(*already))
                : compare(best, ranked[1]);
    if (!vs)
      return vs.takeError();
    summary += "; vs the runner-up " + ranked[1]->built.version + ": " +
               vs->getString("verdict").value_or("").str();
    report["vs_runner_up"] = std::move(*vs);
  }
  report["summary"] = summary;
  if (llvm::Error e = record(json::Object{{"kind", "done"}}))
    return std::move(e);
  say("done", json::Object(report));
  return report;
}
