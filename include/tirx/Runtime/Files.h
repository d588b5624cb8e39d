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

/// The most bytes readFile reads by default: more than any payload, bundle
/// file or result TIRx writes; a larger file is refused before it is read.
constexpr unsigned long long kMaxFileBytes = 1ull << 30;

/// Reads `path` whole into `text`. A regular file only, of at most
/// `maxBytes`: a FIFO, a device (/dev/zero) or a directory is refused at
/// once, without blocking or reading. On failure `error` names the path
/// and why ("<path>: cannot be read", "<path>: not a regular file",
/// "<path>: N bytes, more than the limit of M").
bool readFile(const std::string &path, std::string &text, std::string &error,
              unsigned long long maxBytes = kMaxFileBytes);

/// Removes `path` and, when it is a directory, everything under it, never
/// through a symbolic link: a link (at `path` or inside) is removed itself,
/// not what it points to. Missing is not an error.
void removeTree(const std::string &path);

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
