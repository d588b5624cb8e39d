//===- Isolation.h - MLIR work in a child process ---------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Anything that parses or transforms agent-supplied IR runs in a forked
// child with its own MLIRContext: a crash of upstream code (Debian's LLVM
// has no assertions) becomes a refusal, never a dead harness or a
// half-written workspace. The child is limited in wall time and address
// space, dies with its parent, writes nothing to the process's output and
// hands its result back through a pipe (no temporary files).
//
// Internal to the TIRxHarness library.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_HARNESS_ISOLATION_H
#define TIRX_LIB_HARNESS_ISOLATION_H

#include "tirx/Harness/Session.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tirx {

/// The registry every harness context uses: TIRx's tool dialects, and the
/// passes a script may name.
DialectRegistry &harnessRegistry();

/// Runs `work` in a child limited by `limits`; returns its text, or its
/// refusal: the first one reported to the context's RefusalSink when the
/// work failed without a refusal of its own, `interpreter_crashed` for a
/// signal, `resource_limit` for a limit hit.
llvm::Expected<std::string>
runIsolated(llvm::function_ref<llvm::Expected<std::string>(MLIRContext &)> work,
            const ChildLimits &limits);

} // namespace mlir::tirx

#endif // TIRX_LIB_HARNESS_ISOLATION_H
