//===- WorkerClient.cpp - measure candidates through a worker -------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/WorkerClient.h"
#include "tirx/Runtime/JsonLimits.h"

#include "tirx/Runtime/Isolation.h"
#include "tirx/Runtime/Runner.h"

#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace tirx {
namespace runtime {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Writes all of `text` to `fd`; false when the reader is gone. SIGPIPE is
/// blocked for the call, and one it raised is taken back, so that a dead
/// worker does not end this process.
bool writeAll(int fd, const std::string &text) {
  sigset_t pipeSet, old;
  sigemptyset(&pipeSet);
  sigaddset(&pipeSet, SIGPIPE);
  sigset_t pendingBefore;
  sigpending(&pendingBefore);
  bool wasPending = sigismember(&pendingBefore, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeSet, &old);
  size_t done = 0;
  bool ok = true;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    done += size_t(n);
  }
  if (!ok && !wasPending) {
    struct timespec zero = {0, 0};
    sigtimedwait(&pipeSet, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

/// Makes `fd` descriptor `target` of the exec'd program.
void moveTo(int fd, int target) {
  if (fd == target)
    fcntl(fd, F_SETFD, 0); // keep it across exec
  else
    dup2(fd, target); // the copy does not close on exec
}
} // namespace

WorkerClient::WorkerClient(WorkerConfig config) : config(std::move(config)) {}

WorkerClient::~WorkerClient() { stop(); }

void WorkerClient::kill() {
  if (pid > 0) {
    ::kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
  }
  pid = -1;
  for (int *fd : {&toWorker, &fromWorker, &busyFd})
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
  pending.clear();
  hello = json();
}

void WorkerClient::stop() {
  if (pid <= 0)
    return;
  writeAll(toWorker, json{{"op", "quit"}}.dump() + "\n");
  close(toWorker);
  toWorker = -1;
  // A worker that waits on the GPU does not read its input: a grace period,
  // then SIGKILL.
  for (int i = 0; i < 100; ++i) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      pid = -1;
      break;
    }
    usleep(20 * 1000);
  }
  kill();
}

std::string WorkerClient::start() {
  if (pid > 0)
    return "";
  int in[2], out[2], busy[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(busy, O_CLOEXEC))
    return std::string("cannot create pipes: ") + std::strerror(errno);
  std::vector<std::string> args = {config.program, "--worker", "--busy-fd",
                                   "3", "--device",
                                   std::to_string(config.device)};
  if (!config.profileDir.empty()) {
    args.push_back("--profile-dir");
    args.push_back(config.profileDir);
  }
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  // The inherited environment less the names config.environment sets
  // (getenv, and so the CUDA driver, takes the first of two entries).
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const std::string &c : config.environment)
      replaced |= !name.empty() && c.compare(0, name.size(), name) == 0;
    if (!replaced)
      env.push_back(entry);
  }
  env.insert(env.end(), config.environment.begin(), config.environment.end());
  std::vector<char *> envp;
  for (std::string &e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t child = fork();
  if (child < 0)
    return std::string("fork() failed: ") + std::strerror(errno);
  if (child == 0) {
    moveTo(in[0], 0);
    moveTo(out[1], 1);
    moveTo(busy[1], 3);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(busy[1]);
  pid = child;
  toWorker = in[1];
  fromWorker = out[0];
  busyFd = busy[0];
  ++started;
  // The greeting: the worker has its device (or knows it has none), its
  // profile and its seed.
  Exchange ex = exchange(json{{"op", "ping"}, {"id", "hello"}}, 1e9);
  if (!ex.answered || ex.answer.value("status", "") != "ok") {
    std::string why =
        !ex.error.empty() ? ex.error
        : ex.answered     ? ex.answer.dump()
        : WIFSIGNALED(ex.status)
            ? "it died of signal " + std::to_string(WTERMSIG(ex.status))
            : "it exited with status " +
                  std::to_string(WIFEXITED(ex.status) ? WEXITSTATUS(ex.status)
                                                      : -1);
    kill();
    return "the worker (" + config.program + " --worker) did not start: " +
           why;
  }
  hello = ex.answer;
  return "";
}

WorkerClient::Exchange WorkerClient::exchange(const json &request,
                                              double timeout) {
  Exchange ex;
  auto gone = [&]() {
    // The worker ended: how, then no trace of it.
    int status = 0;
    if (pid > 0 && waitpid(pid, &status, 0) == pid)
      ex.status = status;
    pid = -1;
    kill();
  };
  if (!writeAll(toWorker, request.dump() + "\n")) {
    gone();
    return ex;
  }
  BusyWatch watch;
  double idle = 0;
  Clock::time_point last = Clock::now();
  bool busyOpen = true;
  while (true) {
    size_t newline = pending.find('\n');
    if (newline != std::string::npos) {
      std::string line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      std::string deep;
      if (!jsonDepthWithin(line, deep)) {
        ex.error = "the worker wrote a line that is " + deep;
        kill();
        return ex;
      }
      try {
        ex.answer = json::parse(line);
      } catch (const std::exception &) {
        ex.error = "the worker wrote a line that is not JSON: " +
                   line.substr(0, 200);
        kill();
        return ex;
      }
      if (ex.answer.value("id", json()) != request.value("id", json())) {
        ex.error = "the worker answered request " +
                   ex.answer.value("id", json()).dump() + ", not " +
                   request.value("id", json()).dump();
        kill();
        return ex;
      }
      ex.answered = true;
      return ex;
    }
    struct pollfd fds[2] = {{fromWorker, POLLIN, 0},
                            {busyOpen ? busyFd : -1, POLLIN, 0}};
    poll(fds, 2, 50);
    char buf[65536];
    if (busyOpen && (fds[1].revents & (POLLIN | POLLHUP))) {
      ssize_t n = read(busyFd, buf, sizeof(buf));
      if (n > 0)
        watch.feed(buf, size_t(n));
      else if (n == 0)
        busyOpen = false;
    }
    if (fds[0].revents & (POLLIN | POLLHUP)) {
      ssize_t n = read(fromWorker, buf, sizeof(buf));
      if (n > 0) {
        pending.append(buf, size_t(n));
      } else if (n == 0) {
        gone();
        return ex;
      }
    }
    double dt = since(last);
    last = Clock::now();
    if (watch.busy() && watch.busyFor() > timeout) {
      ex.timedOut = true;
      ex.killedAfter = watch.busyFor();
      ::kill(pid, SIGKILL);
      // The process is gone only once the driver has torn its context down,
      // which stops the runaway kernel; the next worker must not share the
      // GPU with it.
      auto killed = Clock::now();
      int status;
      waitpid(pid, &status, 0);
      ex.teardown = since(killed);
      pid = -1;
      kill();
      return ex;
    }
    if (!watch.busy()) {
      idle += dt;
      if (idle > config.idleLimit) {
        ex.error = "the worker gave no answer in " +
                   std::to_string(int(config.idleLimit)) +
                   " s without waiting for the GPU; it was killed";
        kill();
        return ex;
      }
    }
  }
}

Measurement WorkerClient::measure(const std::string &bundleDir,
                                  const MeasureOptions &options) {
  Measurement m;
  // Read here too: a candidate whose worker dies still gets a feedback that
  // names its payload.
  Manifest manifest;
  if (!readManifest(bundleDir, manifest, m.error) ||
      !bindSizes(manifest, options.sizes, m.error))
    return m;
  m.error = start();
  if (!m.error.empty())
    return m;
  json request = {{"id", nextId++},
                  {"op", "measure"},
                  {"bundle", bundleDir},
                  {"mode", options.mode},
                  {"timeout", options.timeout}};
  if (!options.reference.empty())
    request["reference"] = options.reference;
  if (options.inputs > 0)
    request["inputs"] = options.inputs;
  if (options.samples > 0)
    request["samples"] = options.samples;
  if (options.determinism >= 0)
    request["determinism"] = options.determinism;
  if (!options.adversarial.empty())
    request["adversarial"] = options.adversarial;
  uint64_t seed = options.seed ? *options.seed
                               : hello.value("seed", uint64_t(0));
  request["seed"] = seed;
  if (!options.irVersion.empty())
    request["ir_version"] = options.irVersion;
  if (!options.sizes.empty()) {
    request["sizes"] = json::object();
    for (const auto &[name, value] : options.sizes)
      request["sizes"][name] = value;
  }

  Exchange ex = exchange(request, options.timeout);
  if (ex.answered) {
    if (ex.answer.value("status", "") != "ok") {
      m.error = ex.answer.value("error", ex.answer.dump());
      return m;
    }
    m.ok = true;
    m.feedback = ex.answer.value("feedback", json::object());
    if (ex.answer.value("fatal", false)) {
      // The worker ends after a fault that broke its context.
      m.workerReplaced = true;
      stop();
    }
    return m;
  }
  // No answer: the candidate took its worker down.
  Feedback f;
  beginFeedback(manifest, f);
  if (!options.irVersion.empty())
    f.irVersion = options.irVersion;
  f.seed = seed;
  if (ex.timedOut)
    recordTimeout(f, options.timeout, ex.killedAfter, ex.teardown);
  else if (!ex.error.empty()) {
    f.launchStatus = "error";
    f.error = ex.error;
  } else
    recordDeath(f, "the worker", ex.status);
  m.ok = true;
  m.workerReplaced = true;
  m.feedback = json::parse(serializeFeedback(f));
  return m;
}

} // namespace runtime
} // namespace tirx
