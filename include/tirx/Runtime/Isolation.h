//===- Isolation.h - candidates in processes that may hang or die -*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// What the one-shot runner (a child per candidate) and WorkerClient (a
// persistent worker) share to supervise a process that touches the GPU:
// the busy protocol (the process writes '1' before it blocks on the GPU and
// '0' after, so that only the kernels' time counts against the limit) and
// the feedback of a candidate whose process was killed or died.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_ISOLATION_H
#define TIRX_RUNTIME_ISOLATION_H

#include "tirx/Runtime/Feedback.h"

#include <chrono>
#include <cstddef>
#include <string>

namespace tirx {
namespace runtime {

/// Follows the busy bytes of a supervised process.
class BusyWatch {
public:
  using Clock = std::chrono::steady_clock;
  /// Reads '1' (busy from now on) and '0' (idle) bytes; others are ignored.
  void feed(const char *bytes, size_t n);
  bool busy() const { return isBusy; }
  /// Seconds since the current wait began; 0 when idle.
  double busyFor() const;

private:
  bool isBusy = false;
  Clock::time_point since = Clock::now();
};

/// A candidate killed for running past `limit` seconds (after
/// `killedAfter`; the driver released the device `teardown` s later).
void recordTimeout(Feedback &f, double limit, double killedAfter,
                   double teardown);

/// A candidate whose process ended without an answer: `status` as a
/// waitpid() status; `who` names the process ("the runner's child").
void recordDeath(Feedback &f, const std::string &who, int status);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_ISOLATION_H
