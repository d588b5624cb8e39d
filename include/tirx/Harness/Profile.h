//===- Profile.h - which kernels of a payload take the time -----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// `tirx profile PAYLOAD --workspace WS`: a payload of many ops as front ends
// emit it (linalg on tensors: matmuls, norms, softmax, elementwise) is
// split into one kernel per op (a linalg.fill goes with the op whose init
// it is), each kernel gets the default schedule of `tirx auto` in a
// workspace of its own (WS/kernels/kNN-KIND), is run with Session::run (on
// a GPU host) and the kernels are ranked by their share of the summed
// times: Amdahl's law says which to tune first. WS itself is a workspace
// whose seed is the whole payload; WS/profile.json holds the ranking (and
// `tirx report` draws it).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_HARNESS_PROFILE_H
#define TIRX_HARNESS_PROFILE_H

#include "tirx/Harness/Session.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace tirx {

/// One kernel of a profiled payload.
struct ProfileKernel {
  std::string name;             // k01-reduce
  std::vector<std::string> ops; // "linalg.matmul at FILE:LINE:COL"
  std::string payload;          // the kernel as a payload of its own
  std::string version;          // the scheduled version in its workspace
  std::string status = "split"; // split | scheduled | timed | a refusal code
  std::string detail;           // the refusal's message
  std::optional<double> durationUs;

  llvm::json::Object toJSON() const;
};

/// Splits a payload (linalg on tensors, one function) into one payload per
/// op group, in program order. Runs in a child process. Refused: a payload
/// that does not parse, has no function with linalg ops, or holds ops other
/// than linalg ops, constants and tensor.empty (`not_applicable`).
llvm::Expected<std::vector<ProfileKernel>>
splitPayload(const std::string &payloadText, const std::string &name,
             const ChildLimits &limits);

struct ProfileOptions {
  bool compileOnly = false; // split and schedule; no run
  RunOptions run;
};

/// Profiles `payloadText` into the workspace `dir` (created with the payload
/// as its seed when absent; a workspace profiled with another payload is
/// refused). Writes dir/profile.json; the Result's data is its content,
/// the text a table ranked by time share. `progress` gets a line per
/// kernel.
llvm::Expected<Result>
profilePayload(const std::string &dir, const std::string &payloadText,
               const std::string &name, const ProfileOptions &options,
               Identity who = {},
               llvm::function_ref<void(llvm::StringRef)> progress = {});

/// The ranking as a table: timed kernels by share, then the others.
std::string profileTable(const std::vector<ProfileKernel> &kernels);

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_PROFILE_H
