//===- Isolation.h - MLIR work in a child process ---------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Anything that parses or transforms agent-supplied IR runs in a forked
// child with its own MLIRContext: a crash of upstream code (Debian's LLVM
// has no assertions) becomes a refusal, never a dead harness or a
// half-written workspace. The child is limited in wall time and address
// space, dies with its parent (and takes its own children along), writes
// nothing to the process's output, may be denied every file and program,
// and hands its result back through a pipe (no temporary files).
//
// Internal to the TIRxHarness library.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_HARNESS_ISOLATION_H
#define TIRX_LIB_HARNESS_ISOLATION_H

#include "tirx/Harness/Session.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tirx {

/// The registry every harness context uses: TIRx's tool dialects, and the
/// passes a script may name.
DialectRegistry &harnessRegistry();

/// What the child may touch besides memory and its result pipe.
enum class ChildAccess {
  /// Files and programs: lowering (ptxas, a bundle directory), views.
  Files,
  /// Nothing: opening, creating, renaming or deleting a file, running a
  /// program and opening a socket fail with EPERM (a seccomp filter). For
  /// work on agent-supplied scripts, whatever pass or op they name.
  None,
};

/// Runs `work` in a child limited by `limits`; returns its text, or its
/// refusal: the first one reported to the context's RefusalSink when the
/// work failed without a refusal of its own, `interpreter_crashed` for a
/// signal, `resource_limit` for a limit hit. The child leads a process
/// group of its own: whatever it starts (ptxas) is killed with it, and the
/// group dies with this process.
/// Makes, once per process, the context every child starts from (a copy,
/// by fork): the harness's registry with every dialect loaded. Making it in
/// each child took about 23 ms, half of an apply's or a facts' child. The
/// parent never parses or runs anything in it. runIsolated calls it; a
/// process that forks workers which will run children (tirx tune's
/// builders) calls it first, so they inherit it too.
void warmIsolation();

llvm::Expected<std::string>
runIsolated(llvm::function_ref<llvm::Expected<std::string>(MLIRContext &)> work,
            const ChildLimits &limits, ChildAccess access = ChildAccess::Files);

/// Runs the program argv[0] with `argv` in a process group of its own,
/// killed with this process, and after `seconds` of wall time (0: no
/// limit): its exit status, or a `resource_limit` refusal when the time
/// ran out. stdout goes to /dev/null: a front door's output is its own.
/// With `tmpDir`, the program's TMPDIR is that directory. With
/// `stderrTail`, the program's stderr still reaches this process's, and its
/// last `kStderrTailBytes` are kept there too: what a program that fails
/// before writing its result said (a front door with no terminal, the MCP
/// server, has nothing else to show).
constexpr size_t kStderrTailBytes = 4096;
llvm::Expected<int> runProgram(llvm::ArrayRef<std::string> argv,
                               unsigned seconds,
                               const std::string &tmpDir = "",
                               std::string *stderrTail = nullptr);

} // namespace mlir::tirx

#endif // TIRX_LIB_HARNESS_ISOLATION_H
