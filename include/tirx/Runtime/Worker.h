//===- Worker.h - the persistent measurement worker -------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// `tirx-run --worker`: one process, one CUDA context, many candidates. It
// reads one JSON request per line on stdin and answers each with one JSON
// line on stdout (docs/worker.md). Inputs are generated on the GPU once per
// payload signature and seed and kept there, with the reference's outputs
// on them; candidates are compared with them on the GPU. The worker does no
// isolation of its own: a hung kernel hangs it and a fault may end it.
// WorkerClient (WorkerClient.h) runs it under a watchdog and replaces it.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_WORKER_H
#define TIRX_RUNTIME_WORKER_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tirx {
namespace runtime {

/// The version of the request/answer lines (not of the feedback inside,
/// which keeps its own schema_version).
constexpr int kWorkerProtocolVersion = 1;

struct WorkerOptions {
  int device = 0;
  std::string profileDir;
  /// Where to write '1' before waiting for the GPU and '0' after (-1: none).
  int busyFd = -1;
  /// Device memory kept for inputs and reference outputs; the least
  /// recently used input sets go first beyond it.
  uint64_t cacheBytes = uint64_t(16) << 30;
};

/// One request line, parsed.
struct WorkerRequest {
  nlohmann::json id;          // echoed in the answer (null when absent)
  std::string op = "measure"; // measure | ping | quit
  std::string bundle;
  std::string reference;      // "" for none
  std::string mode = "full";  // screen | full
  int inputs = 3;             // input sets compared with the reference
  int64_t samples = 0;        // 0: chosen from a 1 s budget
  int warmup = 3;
  int checkedLaunches = 3;    // random timed launches read back, besides the last
  int determinism = 2;        // relaunches compared bit for bit (screen: 1)
  std::string adversarial = "auto"; // on | off | auto (screen: off)
  std::optional<uint64_t> seed; // of input set 0; none: the worker's
  std::string irVersion;      // overrides the manifest's
  /// Dynamic dimensions' extents ("sizes": {"m": 1000}); the rest take
  /// their defaults. The reference runs at the candidate's.
  std::vector<std::pair<std::string, int64_t>> sizes;
};

/// Parses one request line; on failure returns false and sets `error` to a
/// message naming the field. Mode screen defaults to 1 input set, 10
/// samples, 1 warm-up and 1 random checked launch; full to today's one-shot
/// defaults (3 input sets, a 1 s budget, 3 warm-ups, 3 checked launches).
bool parseWorkerRequest(const std::string &line, WorkerRequest &request,
                        std::string &error);

/// Serves requests from `in` until end of input or a quit request, one
/// answer line on `out` each. Returns the exit status: 0, or
/// kExitNoDevice when no device answered, or kExitFailed after a fault that
/// left the CUDA context unusable (its answer says "fatal": true).
int serveWorker(const WorkerOptions &options, std::istream &in,
                std::ostream &out);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_WORKER_H
