//===- tirx-run.cpp - run kernel bundles, check and time them ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//   tirx-run [options] BUNDLE... [--reference REF] [-o feedback.json]
//   tirx-run --persistent [--mode screen|full] [options] BUNDLE...
//   tirx-run --worker [--busy-fd N]
//
// Each candidate runs in a child process under a watchdog: a kernel that
// hangs is killed and reported `launch_status: timeout`, a fault is reported
// with the CUDA error's name, and the next candidate still runs. This
// program never touches the GPU itself (CUDA does not survive fork()).
// With --persistent the candidates run one after another in one worker
// process (WorkerClient), replaced after a fault or a timeout; --worker is
// that worker (Worker.h, docs/worker.md), which does touch the GPU.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Check.h"
#include "tirx/Runtime/Counters.h"
#include "tirx/Runtime/Feedback.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Runtime/Integer.h"
#include "tirx/Runtime/Isolation.h"
#include "tirx/Runtime/Manifest.h"
#include "tirx/Runtime/Parallel.h"
#include "tirx/Runtime/Runner.h"
#include "tirx/Runtime/Worker.h"
#include "tirx/Runtime/WorkerClient.h"
#include "tirx/Version.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tirx::runtime;
using Clock = std::chrono::steady_clock;

namespace {
const char *kUsage =
    "usage: tirx-run [options] BUNDLE_DIR...\n"
    "  --reference DIR     bundle of the reference (the seed version); enables\n"
    "                      the correctness check\n"
    "  --seed N            seed of the first input set (default: fresh from\n"
    "                      /dev/urandom on every run; recorded in the feedback)\n"
    "  --inputs N          input sets compared with the reference (default 3)\n"
    "  --samples N         timed samples (default: about 1 s, at least 10)\n"
    "  --timeout SECONDS   longest a kernel may run before it is killed (default 10)\n"
    "  --device N          CUDA device ordinal (default 0)\n"
    "  --profile-dir DIR   device profile cache (default ~/.cache/tirx)\n"
    "  --ir-version ID     snapshot id to put in the feedback\n"
    "  --size NAME=N       a dynamic dimension's extent (repeat, or NAME=N,M=K);\n"
    "                      the bundle's manifest declares them (\"sizes\"), each\n"
    "                      with a default used when not given\n"
    "  -o FILE             write the feedback JSON there (default: stdout)\n"
    "  --persistent        run the bundles one after another in one persistent\n"
    "                      worker (inputs and the reference's outputs made once\n"
    "                      on the GPU, compared there); prints candidates/s\n"
    "  --mode screen|full  with --persistent: screen = 1 input set, 10 samples;\n"
    "                      full = the checks of a one-shot run (default)\n"
    "  --worker            serve JSON-line requests on stdin (docs/worker.md)\n"
    "  --busy-fd N         with --worker: write 1/0 there around GPU waits\n"
    "  --determinism N     relaunches on one input set compared bit for bit with\n"
    "                      the first (default 2; 0: off); a difference fails\n"
    "                      with correctness_reason nondeterministic\n"
    "  --adversarial on|off|auto\n"
    "                      adversarial input sets (large, cancelling, subnormal\n"
    "                      values; docs/correctness.md); auto (default): when the\n"
    "                      parameters take at most 256 MiB\n"
    "  --counters          profile each candidate that ran with Nsight Compute\n"
    "                      (ncu: $TIRX_NCU, $PATH, /usr/local/cuda/bin/ncu):\n"
    "                      achieved occupancy, DRAM/SM throughput, stall reasons\n"
    "                      (docs/counters.md); null with a note when unavailable\n"
    "  --counters-only     only the counters: no check, no timing (exit 1 when\n"
    "                      ncu gave none)\n"
    "  --dump-io DIR       write input set 0's buffers there, raw: <param>.in\n"
    "                      before the first launch, <param>.out after it\n"
    "                      (one bundle only)\n"
    "  --version           print the TIRx version and exit\n"
    "environment: TIRX_RUN_THREADS=N  host threads that make the inputs and\n"
    "             compare the outputs (default: the machine's, at most 16;\n"
    "             1: all on one); results are the same bits for any N\n"
    "exit status: 0 all ran and passed, 1 a candidate failed, timed out, was\n"
    "             implausibly fast or its check was blind,\n"
    "             2 bad input, 3 no CUDA driver or device\n";

struct Options {
  std::vector<std::string> bundles;
  std::string reference;
  RunOptions run;
  double timeout = 10;
  std::string profileDir;
  std::string irVersion;
  std::string output;
  bool seedGiven = false;
  bool worker = false;
  int busyFd = -1;
  bool persistent = false;
  std::string mode = "full";
  bool inputsGiven = false;
  bool counters = false;
  bool countersOnly = false; // no run: ncu alone
  bool determinismGiven = false;
  bool adversarialGiven = false;
  SizeValues sizes; // --size
};

[[noreturn]] void badInput(const std::string &message) {
  std::cerr << "tirx-run: " << message << "\n";
  std::exit(kExitBadInput);
}

int64_t parseInt(const std::string &flag, const char *text, int64_t min,
                 int64_t max) {
  std::optional<int64_t> v = tirx::runtime::parseInteger(text);
  if (!v || *v < min || *v > max)
    badInput(flag + " expects an integer in [" + std::to_string(min) + ", " +
             std::to_string(max) + "], got '" + text + "'");
  return *v;
}

Options parseArgs(int argc, char **argv) {
  Options o;
  const char *home = std::getenv("HOME");
  const char *cache = std::getenv("XDG_CACHE_HOME");
  o.profileDir = cache ? std::string(cache) + "/tirx"
                       : std::string(home ? home : "/tmp") + "/.cache/tirx";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc)
        badInput(a + " needs a value");
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--version") {
      std::cout << "tirx-run (TIRx) " TIRX_VERSION_STRING "\n";
      std::exit(0);
    } else if (a == "--reference") {
      o.reference = value();
    } else if (a == "--seed") {
      o.run.seed = uint64_t(parseInt(a, value(), 0, INT64_MAX));
      o.seedGiven = true;
    } else if (a == "--inputs") {
      o.run.inputSets = int(parseInt(a, value(), 1, 100));
      o.inputsGiven = true;
    } else if (a == "--worker") {
      o.worker = true;
    } else if (a == "--busy-fd") {
      o.busyFd = int(parseInt(a, value(), 0, 1 << 20));
    } else if (a == "--persistent") {
      o.persistent = true;
    } else if (a == "--mode") {
      o.mode = value();
      if (o.mode != "screen" && o.mode != "full")
        badInput("--mode expects screen or full, got '" + o.mode + "'");
    } else if (a == "--samples") {
      o.run.samples = parseInt(a, value(), 1, 1000000);
    } else if (a == "--timeout") {
      o.timeout = double(parseInt(a, value(), 1, 86400));
    } else if (a == "--device") {
      o.run.device = int(parseInt(a, value(), 0, 1024));
    } else if (a == "--profile-dir") {
      o.profileDir = value();
    } else if (a == "--ir-version") {
      o.irVersion = value();
    } else if (a == "--size") {
      std::string error;
      if (!parseSizeAssignments(value(), o.sizes, error))
        badInput("--size " + error);
    } else if (a == "-o") {
      o.output = value();
    } else if (a == "--determinism") {
      o.run.determinismRuns = int(parseInt(a, value(), 0, 100));
      o.determinismGiven = true;
    } else if (a == "--adversarial") {
      o.run.adversarial = value();
      if (o.run.adversarial != "on" && o.run.adversarial != "off" &&
          o.run.adversarial != "auto")
        badInput("--adversarial expects on, off or auto, got '" +
                 o.run.adversarial + "'");
      o.adversarialGiven = true;
    } else if (a == "--counters") {
      o.counters = true;
    } else if (a == "--counters-only") {
      o.counters = o.countersOnly = true;
    } else if (a == "--dump-io") {
      o.run.dumpDir = value();
    } else if (!a.empty() && a[0] == '-') {
      badInput("unknown option '" + a + "'\n" + kUsage);
    } else {
      o.bundles.push_back(a);
    }
  }
  if (std::string error = checkHostThreadsVariable(); !error.empty())
    badInput(error);
  if (o.worker) {
    if (!o.bundles.empty() || o.persistent)
      badInput("--worker takes its bundles as requests on stdin");
    return o;
  }
  if (o.bundles.empty())
    badInput(std::string("no bundle given\n") + kUsage);
  if (!o.run.dumpDir.empty() && o.bundles.size() != 1)
    badInput("--dump-io takes one bundle, got " +
             std::to_string(o.bundles.size()));
  if (!o.run.dumpDir.empty() && !std::filesystem::is_directory(o.run.dumpDir))
    badInput("--dump-io: '" + o.run.dumpDir + "' is not a directory");
  // Fresh inputs on every run, so that no candidate is tuned to one input
  // set; the feedback records the seed to replay a check with --seed.
  if (!o.seedGiven)
    o.run.seed = freshSeed();
  return o;
}

/// A fresh file (mode 0600) in $TMPDIR (tirx sets it to the workspace's
/// tmp/), else /tmp; its user removes it.
std::string tempPath() {
  const char *dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir && *dir ? dir : "/tmp") + "/tirx-run-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0)
    badInput("cannot create a temporary file in " +
             path.substr(0, path.rfind('/')));
  close(fd);
  return path;
}

std::string slurp(const std::string &path) {
  std::string text, ignored;
  readFile(path, text, ignored); // a missing result reads as empty: an error
  return text;
}

/// Runs `work` in a child process. The child reports '1' on `busy` before it
/// blocks on the GPU and '0' after; if it stays busy longer than `timeout`
/// seconds, it is killed. Returns the child's waitpid() status, or
/// `kTimedOut`.
constexpr int kTimedOut = -1;
int runIsolated(double timeout, const std::function<int(int busyFd)> &work,
                double *killedAfter = nullptr, double *teardown = nullptr) {
  int pipefd[2];
  if (pipe(pipefd) != 0)
    badInput("pipe() failed");
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid < 0)
    badInput("fork() failed");
  if (pid == 0) {
    close(pipefd[0]);
    // Killed with tirx-run (which tirx kills with itself).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int code = work(pipefd[1]);
    std::cout.flush();
    std::cerr.flush();
    _exit(code);
  }
  close(pipefd[1]);
  BusyWatch watch;
  bool open = true;
  while (true) {
    int status = 0;
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      close(pipefd[0]);
      return status;
    }
    if (watch.busy() && watch.busyFor() > timeout) {
      if (killedAfter)
        *killedAfter = watch.busyFor();
      kill(pid, SIGKILL);
      // The process is gone only once the driver has torn its context down,
      // which stops the runaway kernel; the next candidate must not share
      // the GPU with it.
      auto killed = Clock::now();
      waitpid(pid, &status, 0);
      if (teardown)
        *teardown = std::chrono::duration<double>(Clock::now() - killed).count();
      close(pipefd[0]);
      return kTimedOut;
    }
    if (open) {
      struct pollfd p = {pipefd[0], POLLIN, 0};
      if (poll(&p, 1, 50) > 0) {
        char buf[64];
        ssize_t n = read(pipefd[0], buf, sizeof(buf));
        if (n <= 0)
          open = false;
        else
          watch.feed(buf, size_t(n));
      }
    } else {
      usleep(50 * 1000);
    }
  }
}

bool exitedWith(int status, int code) {
  return status != kTimedOut && WIFEXITED(status) &&
         WEXITSTATUS(status) == code;
}

/// Each bundle in a child of its own (the one-shot runner). Returns false
/// when no device answered.
bool runOneShot(const Options &o, const std::vector<Manifest> &manifests,
                const Manifest &reference, std::vector<Feedback> &results) {
  // The device profile, measured in a child.
  std::string profileFile = tempPath();
  int code = runIsolated(120, [&](int) {
    DeviceProfile profile;
    std::string error = loadOrMeasureProfile(o.run.device, o.profileDir, profile);
    if (!error.empty()) {
      std::cerr << "tirx-run: " << error << "\n";
      return int(kExitNoDevice);
    }
    std::ofstream(profileFile) << serializeDeviceProfile(profile);
    return 0;
  });
  DeviceProfile profile;
  std::string profileError;
  bool haveDevice = exitedWith(code, 0) &&
                    parseDeviceProfile(slurp(profileFile), profile, profileError);
  std::remove(profileFile.c_str());

  for (size_t i = 0; i < o.bundles.size(); ++i) {
    Feedback &f = results[i];
    if (!haveDevice) {
      f.launchStatus = "no_device";
      f.error = "no CUDA device answered (see the message above)";
      continue;
    }
    std::string resultFile = tempPath();
    double killedAfter = 0, teardown = 0;
    int status = runIsolated(o.timeout, [&](int busyFd) {
      RunOptions run = o.run;
      run.busy = [busyFd](bool busy) {
        char c = busy ? '1' : '0';
        (void)!write(busyFd, &c, 1);
      };
      Feedback child;
      runCandidate(run, o.bundles[i], manifests[i],
                   o.reference.empty() ? nullptr : &o.reference,
                   o.reference.empty() ? nullptr : &reference, profile, child);
      child.irVersion = f.irVersion;
      std::ofstream(resultFile) << serializeFeedback(child);
      return 0;
    }, &killedAfter, &teardown);
    std::string error;
    if (exitedWith(status, 0) && parseFeedback(slurp(resultFile), f, error)) {
      // The child's feedback stands.
    } else if (status == kTimedOut) {
      recordTimeout(f, o.timeout, killedAfter, teardown);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      f.launchStatus = "error";
      f.error = "the runner's child failed (" + error + ")";
    } else {
      recordDeath(f, "the runner's child", status);
    }
    std::remove(resultFile.c_str());
  }
  return haveDevice;
}

/// This program's path, for the processes it starts.
std::string selfPath() {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  return n > 0 ? std::string(self, size_t(n)) : "/proc/self/exe";
}

/// All bundles through one persistent worker. Returns false when no device
/// answered.
bool runPersistent(const Options &o, std::vector<Feedback> &results) {
  WorkerConfig config;
  config.program = selfPath();
  config.device = o.run.device;
  config.profileDir = o.profileDir;
  WorkerClient client(config);
  auto begin = Clock::now();
  std::string error = client.start();
  if (error.empty() && client.greeting().contains("device_error"))
    error = client.greeting()["device_error"].get<std::string>();
  double startSeconds =
      std::chrono::duration<double>(Clock::now() - begin).count();
  if (!error.empty()) {
    std::cerr << "tirx-run: " << error << "\n";
    for (Feedback &f : results) {
      f.launchStatus = "no_device";
      f.error = "no CUDA device answered (see the message above)";
    }
    return false;
  }
  MeasureOptions measure;
  measure.reference = o.reference;
  measure.mode = o.mode;
  measure.inputs = o.inputsGiven ? o.run.inputSets : 0;
  measure.samples = o.run.samples;
  measure.seed = o.run.seed;
  measure.timeout = o.timeout;
  measure.irVersion = o.irVersion;
  if (o.determinismGiven)
    measure.determinism = o.run.determinismRuns;
  if (o.adversarialGiven)
    measure.adversarial = o.run.adversarial;
  measure.sizes = o.sizes;
  auto loop = Clock::now();
  for (size_t i = 0; i < o.bundles.size(); ++i) {
    Measurement m = client.measure(o.bundles[i], measure);
    std::string parseError;
    if (!m.ok || !parseFeedback(m.feedback.dump(), results[i], parseError)) {
      results[i].launchStatus = "error";
      results[i].error = m.ok ? parseError : m.error;
    }
  }
  double seconds = std::chrono::duration<double>(Clock::now() - loop).count();
  std::cerr << "tirx-run: " << o.bundles.size() << " candidates in " << seconds
            << " s (" << o.mode << " mode): "
            << (seconds > 0 ? double(o.bundles.size()) / seconds : 0)
            << " candidates/s; worker start " << startSeconds
            << " s not included; " << client.workersStarted()
            << " worker(s) started\n";
  return true;
}
} // namespace

int main(int argc, char **argv) {
  Options o = parseArgs(argc, argv);
  if (o.worker) {
    WorkerOptions worker;
    worker.device = o.run.device;
    worker.profileDir = o.profileDir;
    worker.busyFd = o.busyFd;
    return serveWorker(worker, std::cin, std::cout);
  }

  // Every bundle is read and checked before anything runs.
  std::vector<Manifest> manifests(o.bundles.size());
  for (size_t i = 0; i < o.bundles.size(); ++i) {
    std::string error;
    if (!readManifest(o.bundles[i], manifests[i], error))
      badInput(error);
    if (!bindSizes(manifests[i], o.sizes, error))
      badInput(o.bundles[i] + ": " + error);
  }
  Manifest reference;
  if (!o.reference.empty()) {
    std::string error;
    if (!readManifest(o.reference, reference, error))
      badInput("reference: " + error);
    // The reference runs at the candidates' sizes (given or defaults).
    if (!bindSizes(reference, boundSizes(manifests.front()), error))
      badInput("reference: " + error);
    for (size_t i = 0; i < manifests.size(); ++i) {
      std::string mismatch = compareSignatures(manifests[i], reference);
      if (!mismatch.empty())
        badInput(o.bundles[i] + ": " + mismatch);
      adoptReferenceContract(manifests[i], reference);
    }
  }

  std::vector<Feedback> feedback(o.bundles.size());
  for (size_t i = 0; i < o.bundles.size(); ++i) {
    Feedback &f = feedback[i];
    beginFeedback(manifests[i], f);
    f.launchStatus = "not_run";
    if (!o.irVersion.empty())
      f.irVersion = o.irVersion;
    f.seed = o.run.seed; // also where nothing ran: the replay needs it
  }
  bool haveDevice = true;
  if (o.countersOnly)
    for (Feedback &f : feedback)
      f.launchStatus = "ok"; // what ncu's own run says decides
  else
    haveDevice = o.persistent ? runPersistent(o, feedback)
                              : runOneShot(o, manifests, reference, feedback);

  if (o.counters)
    for (size_t i = 0; i < o.bundles.size(); ++i) {
      Feedback &f = feedback[i];
      HardwareCounters c;
      c.status = "unavailable";
      c.note = f.correctness == "fail"
                   ? "the candidate failed correctness: not profiled"
                   : "the candidate did not run (launch " + f.launchStatus +
                         ")";
      if (f.launchStatus == "ok" && f.correctness != "fail") {
        CounterRequest r;
        r.program = selfPath();
        r.bundle = o.bundles[i];
        r.manifest = &manifests[i];
        r.device = o.run.device;
        r.profileDir = o.profileDir;
        r.seed = o.run.seed;
        r.timeoutSeconds = std::max(120.0, 30 * o.timeout);
        c = collectCounters(r);
      }
      if (o.countersOnly)
        f.launchStatus = c.status == "ok" ? "ok" : "not_run";
      applyCounters(f, c);
      if (c.status != "ok" || !c.note.empty())
        std::cerr << "tirx-run: " << o.bundles[i] << ": counters "
                  << c.status << (c.note.empty() ? "" : ": " + c.note)
                  << "\n";
    }

  nlohmann::json results = nlohmann::json::array();
  bool anyFailed = false;
  for (size_t i = 0; i < o.bundles.size(); ++i) {
    Feedback &f = feedback[i];
    // A timing the device cannot make, or a check that cannot see the
    // kernel, fails the run as much as a wrong result: neither may rank.
    bool implausible = f.plausible && !*f.plausible;
    bool blind = f.ghostCheck == "blind";
    if (f.launchStatus != "ok" || f.correctness == "fail" || implausible ||
        blind || (o.countersOnly && f.counters.status != "ok"))
      anyFailed = true;
    std::cerr << "tirx-run: " << o.bundles[i] << ": launch " << f.launchStatus
              << ", correctness " << f.correctness;
    if (f.seed && f.launchCount > 0)
      std::cerr << " (seed " << *f.seed << ", " << f.checkedLaunches.size()
                << " of " << f.launchCount << " launches checked)";
    if (implausible)
      std::cerr << ", IMPLAUSIBLE: " << f.implausibleReason;
    if (blind)
      std::cerr << ", CHECK BLIND: the outputs pass with no kernel launched "
                   "(the reference leaves them as the inputs are)";
    if (f.duration)
      std::cerr << ", median " << f.duration->median << " us over "
                << f.duration->count << " samples";
    if (f.bandwidthUtilization)
      std::cerr << ", " << int(*f.bandwidthUtilization * 100 + 0.5)
                << "% of copy bandwidth";
    if (f.inputsUnchanged && !*f.inputsUnchanged)
      std::cerr << ", an input buffer was overwritten";
    if (f.stateful && *f.stateful)
      std::cerr << ", outputs change across launches (stateful)";
    if (!f.correctnessReason.empty())
      std::cerr << " [" << f.correctnessReason << "]";
    if (!f.correctnessDetail.empty() && f.correctness == "fail")
      std::cerr << "; first mismatch " << f.correctnessDetail;
    if (!f.error.empty())
      std::cerr << "; " << f.error;
    std::cerr << "\n";
    results.push_back(nlohmann::json::parse(serializeFeedback(f)));
  }

  std::string text =
      (results.size() == 1 ? results[0] : results).dump(2) + "\n";
  if (o.output.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) {
      std::cerr << "tirx-run: cannot write " << o.output << "\n";
      return kExitBadInput;
    }
  }
  if (!haveDevice)
    return kExitNoDevice;
  return anyFailed ? kExitFailed : kExitOk;
}
