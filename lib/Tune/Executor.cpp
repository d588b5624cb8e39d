//===- Executor.cpp - measuring on every local GPU --------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// One persistent tirx-run worker per GPU, each in a thread of its own while
// a batch is measured; the workspace (Session) is used only on the calling
// thread: the bundles are found before the threads start.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Executor.h"

#include "WorkerCall.h"
#include "tirx/Support/Refusal.h"
#include "tirx/Tune/Space.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;

llvm::Expected<std::vector<std::string>>
mlir::tirx::parseGpus(llvm::StringRef spec) {
  std::vector<std::string> gpus;
  if (spec == "all") {
    if (const char *visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
      llvm::SmallVector<llvm::StringRef> parts;
      llvm::StringRef(visible).split(parts, ',', -1, false);
      for (llvm::StringRef p : parts)
        gpus.push_back(p.trim().str());
    } else {
      std::error_code ec;
      unsigned n = 0;
      for (llvm::sys::fs::directory_iterator it("/proc/driver/nvidia/gpus", ec),
           end;
           !ec && it != end; it.increment(ec))
        ++n;
      if (n == 0) { // no /proc entries (some containers): nvidia-smi's list
        llvm::SmallString<128> tmp;
        llvm::sys::path::system_temp_directory(true, tmp);
        std::string out, err;
        if (capture({"nvidia-smi", "-L"},
                    (tmp + "/tirx-gpus-" + std::to_string(getpid())).str(),
                    out, err) == 0)
        {
          llvm::SmallVector<llvm::StringRef> lines;
          llvm::StringRef(out).split(lines, '\n');
          for (llvm::StringRef line : lines)
            n += line.starts_with("GPU ");
        }
      }
      for (unsigned i = 0; i < n; ++i)
        gpus.push_back(std::to_string(i));
    }
    if (gpus.empty())
      return refuse(RefusalCode::no_device,
                    "--gpus all: no GPU here (CUDA_VISIBLE_DEVICES is unset "
                    "and /proc/driver/nvidia/gpus lists none)",
                    "name the GPUs (--gpus 0,1) or tune with --compile-only");
    return gpus;
  }
  llvm::SmallVector<llvm::StringRef> parts;
  spec.split(parts, ',', -1, true);
  std::set<unsigned> seen;
  for (llvm::StringRef p : parts) {
    unsigned id = 0;
    if (p.trim().getAsInteger(10, id) || id > 1023)
      return refuse(RefusalCode::usage,
                    "--gpus: '" + p.str() + "' is not a GPU id",
                    "--gpus all, or ids separated by commas: --gpus 0,1,3");
    if (!seen.insert(id).second)
      return refuse(RefusalCode::usage,
                    "--gpus: GPU " + std::to_string(id) +
                        " is named twice (two workers would share it)",
                    "name each GPU once");
    gpus.push_back(std::to_string(id));
  }
  return gpus;
}

double mlir::tirx::bandwidthScale(double deviceGBps, double referenceGBps) {
  if (!(deviceGBps > 0) || !(referenceGBps > 0))
    return 1;
  double ratio = deviceGBps / referenceGBps;
  // Within 3%: the same kind of device, the difference noise.
  return std::fabs(ratio - 1) <= 0.03 ? 1 : ratio;
}

namespace {
/// Whether `m` says the worker was lost (killed, died, silent) rather than
/// that the candidate failed: retried once on another worker.
bool workerLost(const Measurement &m) {
  llvm::StringRef why = m.message;
  return m.code == "runner_failed" ||
         (m.code == "launch_error" && why.starts_with("the worker") &&
          (why.contains("died of signal") || why.contains("without an answer") ||
           why.contains("gave no answer")));
}
} // namespace

struct LocalExecutor::Worker {
  std::string gpu;
  std::unique_ptr<rt::WorkerClient> client;
  double gbps = 0;
};

LocalExecutor::LocalExecutor(Session &session, std::string runner,
                             std::vector<std::string> gpus)
    : session(session) {
  for (const std::string &gpu : gpus) {
    auto w = std::make_unique<Worker>();
    w->gpu = gpu;
    rt::WorkerConfig config;
    config.program = runner.empty() ? findRunner() : runner;
    config.device = 0; // the only one it sees
    config.environment = {"CUDA_VISIBLE_DEVICES=" + gpu};
    w->client = std::make_unique<rt::WorkerClient>(config);
    workers.push_back(std::move(w));
  }
}

LocalExecutor::~LocalExecutor() = default;

unsigned LocalExecutor::slots() const { return unsigned(workers.size()); }

int LocalExecutor::workersStarted() const {
  int n = 0;
  for (const auto &w : workers)
    n += w->client->workersStarted();
  return n;
}

llvm::Expected<Measurement> LocalExecutor::runOn(Worker &w,
                                                 const PreparedRequest &p) {
  llvm::Expected<Measurement> m = measureOn(*w.client, p);
  if (!m || p.failed)
    return m;
  if (!(w.gbps > 0))
    w.gbps = workerCopyGBps(*w.client);
  m->device = "gpu" + w.gpu;
  if (!(m->copyGBps > 0))
    m->copyGBps = w.gbps;
  return m;
}

llvm::Expected<Measurement>
LocalExecutor::measure(const MeasureRequest &request) {
  llvm::Expected<PreparedRequest> p = prepareRequest(session, request);
  if (!p)
    return p.takeError();
  // The reference device; a lost worker is replaced and the request run
  // again there (the same device: pairs of runs must not mix devices).
  llvm::Expected<Measurement> m = runOn(*workers.front(), *p);
  if (m && workerLost(*m)) {
    std::string why = m->message;
    ++retried;
    m = runOn(*workers.front(), *p);
    if (m) {
      m->attempts = 2;
      m->retried = why;
    }
  }
  return m;
}

llvm::Expected<std::vector<Measurement>>
LocalExecutor::measureBatch(const std::vector<MeasureRequest> &requests) {
  std::vector<PreparedRequest> prepared;
  for (const MeasureRequest &r : requests) {
    llvm::Expected<PreparedRequest> p = prepareRequest(session, r);
    if (!p)
      return p.takeError();
    prepared.push_back(std::move(*p));
  }
  // The reference worker first: its copy bandwidth scales the others'.
  workers.front()->client->start();
  workers.front()->gbps = workerCopyGBps(*workers.front()->client);

  struct Slot {
    std::optional<Measurement> result;
    std::optional<Refusal> error; // the executor cannot go on
    std::string lostOn;         // the worker whose loss it was
    std::string lostWhy;
  };
  std::vector<Slot> slots(requests.size());
  std::deque<size_t> queue;
  for (size_t i = 0; i < requests.size(); ++i)
    queue.push_back(i);
  std::mutex lock;
  std::atomic<bool> stop{false};
  size_t running = 0; // requests being measured (under `lock`)
  // Workers with a thread: one per request at most (a retry must find one).
  size_t n = std::min(workers.size(), requests.size());
  auto work = [&](Worker &w) {
    while (!stop) {
      size_t i;
      {
        std::unique_lock<std::mutex> g(lock);
        // The next request this worker may take: not one it lost before
        // (unless it is the only worker).
        auto it = std::find_if(queue.begin(), queue.end(), [&](size_t k) {
          return n == 1 || slots[k].lostOn != w.gpu;
        });
        if (it == queue.end()) {
          if (queue.empty() && running == 0)
            return;
          // Another worker's request may come back (its worker lost).
          g.unlock();
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          continue;
        }
        i = *it;
        queue.erase(it);
        ++running;
      }
      if (tuneInterrupted()) {
        Measurement m;
        m.code = "interrupted";
        std::lock_guard<std::mutex> g(lock);
        slots[i].result = std::move(m);
        --running;
        continue;
      }
      llvm::Expected<Measurement> m = runOn(w, prepared[i]);
      std::lock_guard<std::mutex> g(lock);
      --running;
      if (!m) {
        slots[i].error = toRefusal(m.takeError());
        stop = true;
        return;
      }
      if (tuneInterrupted()) { // possibly cut short: the worker got SIGINT too
        m->code = "interrupted";
        slots[i].result = std::move(*m);
        continue;
      }
      if (workerLost(*m) && slots[i].lostOn.empty()) {
        // Retried once, elsewhere.
        slots[i].lostOn = w.gpu;
        slots[i].lostWhy = "gpu" + w.gpu + ": " + m->message;
        ++retried;
        queue.push_front(i);
        continue;
      }
      if (!slots[i].lostOn.empty()) {
        m->attempts = 2;
        m->retried = slots[i].lostWhy;
      }
      slots[i].result = std::move(*m);
    }
  };
  std::vector<std::thread> threads;
  for (size_t k = 1; k < n; ++k)
    threads.emplace_back(work, std::ref(*workers[k]));
  work(*workers.front());
  for (std::thread &t : threads)
    t.join();

  std::vector<Measurement> out;
  for (Slot &s : slots) {
    if (s.error) // the executor cannot go on: no runner, no device
      return refuse(std::move(*s.error));
    if (!s.result) { // left in the queue after a stop
      Measurement m;
      m.code = "interrupted";
      s.result = m;
    }
    Measurement &m = *s.result;
    if (!m.device.empty() && m.device != "gpu" + workers.front()->gpu &&
        m.code.empty()) {
      m.scale = bandwidthScale(m.copyGBps, workers.front()->gbps);
      m.medianUs *= m.scale;
    }
    out.push_back(std::move(m));
  }
  return out;
}

Fingerprint LocalExecutor::fingerprint() {
  return workerFingerprint(*workers.front()->client,
                           session.workspace().target());
}

Fingerprint LocalExecutor::fingerprintOf(const Measurement &m) {
  for (const auto &w : workers)
    if (m.device == "gpu" + w->gpu)
      return workerFingerprint(*w->client, session.workspace().target());
  return fingerprint();
}
