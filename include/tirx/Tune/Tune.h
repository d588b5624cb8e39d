//===- Tune.h - `tirx tune` on a workspace ----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The search of Search.h over a workspace: candidates built as versions
// (Space.h), measured with tirx-run, the state kept in the workspace
// (tune/<id>.jsonl, <id> derived from the start version and the options
// that decide the proposals, so that rerunning the same command resumes),
// progress on a terminal or as JSON lines.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TUNE_TUNE_H
#define TIRX_TUNE_TUNE_H

#include "tirx/Harness/Session.h"
#include "tirx/Tune/Executor.h"
#include "tirx/Tune/Search.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::tirx {

struct WorkspaceTuneOptions {
  TuneOptions search;
  unsigned jobs = 0;       // build processes; 0: every core
  std::string runner;      // tirx-run; default: beside tirx, or PATH
  /// worker: a persistent tirx-run --worker (fast); run: one tirx-run
  /// process per measurement (Session::run).
  std::string measure = "worker";
  /// Where measurements run (docs/scale-out.md): "" (one worker, one GPU),
  /// local (one worker per GPU of `gpus`) or slurm (job arrays).
  std::string executor;
  std::string gpus;   // all | 0,1,...: implies executor local
  SlurmOptions slurm;
  /// Where progress goes: JSON lines (one per event), a progress bar (a
  /// terminal), or nothing.
  llvm::raw_ostream *jsonLines = nullptr;
  llvm::raw_ostream *bar = nullptr;
};

/// Tunes from `version`; the Result's data is the report (Search.h), its
/// text a summary for people.
llvm::Expected<Result> tuneWorkspace(Session &session,
                                     const std::string &version,
                                     WorkspaceTuneOptions options);

} // namespace mlir::tirx

#endif // TIRX_TUNE_TUNE_H
