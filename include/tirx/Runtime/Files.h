//===- Files.h - whole-file reads and atomic writes -------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_FILES_H
#define TIRX_RUNTIME_FILES_H

#include <string>

namespace tirx {
namespace runtime {

/// Reads `path` whole into `text`; on failure sets `error` to
/// "<path>: cannot be read".
bool readFile(const std::string &path, std::string &text, std::string &error);

/// fsyncs the directory that holds `path`: a rename into it, or a file
/// created in it, survives a power loss only once the directory is on disk.
/// A filesystem that cannot sync a directory (EINVAL, EROFS) is not an
/// error.
bool syncParentDirectory(const std::string &path, std::string &error);

/// Writes `text` to `path` so that readers see the old file or the new one,
/// never a part, and keeps it across a power loss: a temporary file beside
/// it, fsync, rename, fsync of the directory.
bool writeFileAtomically(const std::string &path, const std::string &text,
                         std::string &error);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_FILES_H
