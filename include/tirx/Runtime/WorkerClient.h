//===- WorkerClient.h - measure candidates through a worker -----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Runs `tirx-run --worker` (Worker.h) in a child process and measures
// candidates through it, one at a time, under a watchdog: a candidate whose
// kernels keep the GPU busy past its timeout is killed with its worker and
// reported `launch_status: timeout`; a worker that dies or reports a fatal
// fault is reported as that candidate's `launch_status: error`. Either way
// the next candidate runs in a fresh worker. This is what a search loop
// (`tirx tune`) calls; it never touches the GPU itself.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_WORKERCLIENT_H
#define TIRX_RUNTIME_WORKERCLIENT_H

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace tirx {
namespace runtime {

struct MeasureOptions {
  std::string reference;       // bundle of the reference ("": none)
  std::string mode = "screen"; // screen | full (Worker.h)
  int inputs = 0;              // 0: the mode's
  int64_t samples = 0;         // 0: the mode's
  std::optional<uint64_t> seed; // none: the worker's (fixed for its life)
  double timeout = 10;         // seconds a kernel may keep the GPU busy
  std::string irVersion;       // "": the manifest's
  int determinism = -1;        // relaunches compared bitwise; -1: the mode's
  std::string adversarial;     // on | off | auto; "": the mode's
  /// Dynamic dimensions' extents; the rest take the manifest's defaults.
  std::vector<std::pair<std::string, int64_t>> sizes;
};

struct WorkerConfig {
  std::string program;       // tirx-run
  int device = 0;
  std::string profileDir;    // "": tirx-run's default
  /// Seconds a worker may go without an answer while not waiting for the
  /// GPU (its start, reading bundles, making inputs) before it is killed.
  double idleLimit = 300;
  /// Extra NAME=VALUE entries of the worker's environment.
  std::vector<std::string> environment;
};

/// One candidate's outcome. `ok`: a feedback came back (passing or not,
/// also for a timeout or a fault); otherwise `error` says why there is none
/// (a malformed bundle or request, a worker that cannot start).
struct Measurement {
  bool ok = false;
  nlohmann::json feedback;
  std::string error;
  bool workerReplaced = false; // the worker was ended after this candidate
};

/// One candidate at a time: not to be shared between threads.
class WorkerClient {
public:
  explicit WorkerClient(WorkerConfig config);
  ~WorkerClient();
  WorkerClient(const WorkerClient &) = delete;
  WorkerClient &operator=(const WorkerClient &) = delete;

  /// Starts a worker if none runs and waits for its greeting; "" or why
  /// none could start.
  std::string start();
  Measurement measure(const std::string &bundleDir, const MeasureOptions &options);
  /// Ends the worker (a quit request, then SIGKILL after a grace period).
  void stop();

  /// Workers started so far (1 + replacements).
  int workersStarted() const { return started; }
  /// The running worker's greeting: its seed and device profile.
  const nlohmann::json &greeting() const { return hello; }

private:
  /// Sends `request` and waits for its answer under the watchdog. Without
  /// an answer the worker is gone: killed for a timeout (`timedOut`), for
  /// misbehaving (`error`), or dead by itself (`status`).
  struct Exchange {
    bool answered = false;
    nlohmann::json answer;
    bool timedOut = false;
    double killedAfter = 0, teardown = 0;
    int status = 0; // waitpid status of a dead worker
    std::string error;
  };
  Exchange exchange(const nlohmann::json &request, double timeout);
  void kill();

  WorkerConfig config;
  pid_t pid = -1;
  int toWorker = -1, fromWorker = -1, busyFd = -1;
  std::string pending; // bytes read past the last answer line
  nlohmann::json hello;
  int started = 0;
  int64_t nextId = 1;
};

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_WORKERCLIENT_H
