//===- Isolation.cpp - candidates in processes that may hang or die -------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Isolation.h"

#include <sys/wait.h>

namespace tirx {
namespace runtime {

void BusyWatch::feed(const char *bytes, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] != '0' && bytes[i] != '1')
      continue;
    bool nowBusy = bytes[i] == '1';
    if (nowBusy && !isBusy)
      since = Clock::now();
    isBusy = nowBusy;
  }
}

double BusyWatch::busyFor() const {
  if (!isBusy)
    return 0;
  return std::chrono::duration<double>(Clock::now() - since).count();
}

void recordTimeout(Feedback &f, double limit, double killedAfter,
                   double teardown) {
  f.launchStatus = "timeout";
  f.killedAfterSeconds = killedAfter;
  f.correctness = "not_checked";
  f.duration.reset();
  f.error = "a kernel ran longer than the " + std::to_string(int(limit)) +
            " s limit and was killed after " + std::to_string(killedAfter) +
            " s (the driver released it " + std::to_string(teardown) +
            " s later)";
}

void recordDeath(Feedback &f, const std::string &who, int status) {
  f.launchStatus = "error";
  f.correctness = "not_checked";
  f.duration.reset();
  if (WIFSIGNALED(status))
    f.error = who + " died of signal " + std::to_string(WTERMSIG(status));
  else
    f.error = who + " exited with status " +
              std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
              " without an answer";
}

} // namespace runtime
} // namespace tirx
