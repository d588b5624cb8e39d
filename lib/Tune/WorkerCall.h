//===- WorkerCall.h - one measurement through tirx-run ----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// What WorkerMeasurer, the local executor and the Slurm executor share: a
// request's bundles (found by Session::compile: the builder lowered them)
// and the worker's answer as a Measurement. Internal to lib/Tune; includes
// nlohmann::json through WorkerClient.h.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_TUNE_WORKERCALL_H
#define TIRX_LIB_TUNE_WORKERCALL_H

#include "tirx/Harness/Session.h"
#include "tirx/Runtime/WorkerClient.h"
#include "tirx/Tune/Search.h"

#include <optional>

namespace mlir::tirx {

/// A request ready to run: its bundle and the runner's options, or the
/// candidate's failure (no bundle: a compile error).
struct PreparedRequest {
  std::string bundle;
  ::tirx::runtime::MeasureOptions options;
  std::optional<Measurement> failed;
};

/// The bundles of `request.version`; an Error for a damaged workspace.
llvm::Expected<PreparedRequest> prepareRequest(Session &session,
                                               const MeasureRequest &request);

/// Runs a prepared request on `client`: the candidate's Measurement, or an
/// Error when the worker cannot start or the device is missing.
llvm::Expected<Measurement> measureOn(::tirx::runtime::WorkerClient &client,
                                      const PreparedRequest &prepared);

/// The fingerprint of the device `client`'s worker greeted with.
Fingerprint workerFingerprint(::tirx::runtime::WorkerClient &client,
                              const std::string &target);

/// The device of a runner's profile (docs/worker.md: name, uuid, sm_count,
/// clock_ghz) into `f`.
void applyDeviceProfile(Fingerprint &f, const llvm::json::Object &device);

/// The copy bandwidth in `client`'s greeting (0: none).
double workerCopyGBps(::tirx::runtime::WorkerClient &client);

/// Runs `argv` (argv[0] found on PATH; at most 60 s); its exit status (-1:
/// not run), stdout in `out`, stderr in `err` (through TMP.out, TMP.err).
int capture(const std::vector<std::string> &argv, const std::string &tmp,
            std::string &out, std::string &err);

} // namespace mlir::tirx

#endif // TIRX_LIB_TUNE_WORKERCALL_H
