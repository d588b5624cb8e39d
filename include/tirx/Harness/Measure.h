//===- Measure.h - the measurement worker for LLVM code ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// WorkerClient (include/tirx/Runtime/WorkerClient.h, no LLVM: the runner
// builds without it) as the harness and `tirx tune` call it: the feedback as
// llvm::json, or an llvm::Error when there is none.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_HARNESS_MEASURE_H
#define TIRX_HARNESS_MEASURE_H

#include "tirx/Runtime/WorkerClient.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace mlir {
namespace tirx {

/// Measures the bundle at `bundleDir` through `client` (docs/worker.md): the
/// candidate's feedback, also for a timeout or a fault (after which the
/// client replaces its worker), or an error naming why there is none (a
/// malformed bundle, a reference on other parameters, no worker).
inline llvm::Expected<llvm::json::Value>
measure(::tirx::runtime::WorkerClient &client, const std::string &bundleDir,
        const ::tirx::runtime::MeasureOptions &options) {
  ::tirx::runtime::Measurement m = client.measure(bundleDir, options);
  if (!m.ok)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), m.error);
  return llvm::json::parse(m.feedback.dump());
}

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_MEASURE_H
