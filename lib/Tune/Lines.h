//===- Lines.h - whole lines into files and pipes ---------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Internal to the TIRxTune library: the tuning database and a tune's state
// file are JSON lines appended whole (one write(2) under flock, fsync'd);
// build processes answer through pipes.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_TUNE_LINES_H
#define TIRX_LIB_TUNE_LINES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::tirx {

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
bool writeAll(int fd, llvm::StringRef bytes);

/// Appends `line` and a newline to `path` (created if missing, never
/// through a symbolic link) with one write under an exclusive flock, then
/// fsyncs; io_error when it cannot. A last line without its newline (a
/// writer killed mid-write) gets one first, so it stays a line of its own.
llvm::Error appendLine(const std::string &path, llvm::StringRef line);
/// The same for several lines: one write(2) of them all, one fsync (a
/// writer killed mid-write leaves whole lines and at most one torn last
/// line, which readers skip).
llvm::Error appendLines(const std::string &path,
                        llvm::ArrayRef<std::string> lines);

/// Calls `each` with the 1-based number and the parse (parseJSON: bounded)
/// of every non-blank line of `path` (none if it cannot be read). `each`
/// must consume an error it gets.
void readLines(const std::string &path,
               llvm::function_ref<void(int, llvm::Expected<llvm::json::Value>)>
                   each);

} // namespace mlir::tirx

#endif // TIRX_LIB_TUNE_LINES_H
