//===- Files.cpp - whole-file reads and atomic writes -----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tirx {
namespace runtime {

bool readFile(const std::string &path, std::string &text, std::string &error,
              unsigned long long maxBytes) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once (and is
  // refused below) instead of waiting for one.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": cannot be read";
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = path + ": cannot be read: " + std::strerror(errno);
    ::close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    error = path + (S_ISDIR(st.st_mode) ? ": a directory, not a file"
                                        : ": not a regular file");
    return false;
  }
  if ((unsigned long long)st.st_size > maxBytes) {
    ::close(fd);
    error = path + ": " + std::to_string((long long)st.st_size) +
            " bytes, more than the limit of " + std::to_string(maxBytes);
    return false;
  }
  text.clear();
  text.reserve(size_t(st.st_size));
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = path + ": cannot be read: " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0)
      break;
    // A file that grows while read is held to the same limit.
    if (text.size() + size_t(n) > maxBytes) {
      ::close(fd);
      error = path + ": more than the limit of " + std::to_string(maxBytes) +
              " bytes";
      return false;
    }
    text.append(buffer, size_t(n));
  }
  ::close(fd);
  return true;
}

namespace {
/// removeTree's step: `name` in the directory `parent` (an open descriptor,
/// or AT_FDCWD), never through a link: a directory is opened with
/// O_NOFOLLOW, so a link swapped in after the check is not followed either.
void removeAt(int parent, const char *name) {
  struct stat st;
  if (::fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (!S_ISDIR(st.st_mode)) {
    ::unlinkat(parent, name, 0); // a file, or a link itself
    return;
  }
  int fd = ::openat(parent, name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    // Replaced by a link (or a file) since: that is removed, not followed.
    if (errno == ELOOP || errno == ENOTDIR)
      ::unlinkat(parent, name, 0);
    return;
  }
  DIR *dir = ::fdopendir(fd);
  if (!dir) {
    ::close(fd);
    return;
  }
  // The names first: entries removed while readdir runs may be skipped.
  std::vector<std::string> names;
  while (struct dirent *entry = ::readdir(dir)) {
    std::string n = entry->d_name;
    if (n != "." && n != "..")
      names.push_back(std::move(n));
  }
  for (const std::string &n : names)
    removeAt(::dirfd(dir), n.c_str());
  ::closedir(dir);
  ::unlinkat(parent, name, AT_REMOVEDIR);
}
} // namespace

void removeTree(const std::string &path) { removeAt(AT_FDCWD, path.c_str()); }

bool syncParentDirectory(const std::string &path, std::string &error) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "."
                    : slash == 0               ? "/"
                                               : path.substr(0, slash);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    error = dir + ": cannot be opened to sync: " + std::strerror(errno);
    return false;
  }
  bool ok = ::fsync(fd) == 0 || errno == EINVAL || errno == EROFS;
  if (!ok)
    error = dir + ": fsync failed: " + std::strerror(errno);
  ::close(fd);
  return ok;
}

bool writeFileAtomically(const std::string &path, const std::string &text,
                         std::string &error) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = tmp + ": cannot be written: " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = tmp + ": write failed: " + std::strerror(errno);
      ::close(fd);
      std::remove(tmp.c_str());
      return false;
    }
    done += size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    error = tmp + ": fsync failed: " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = path + ": rename failed: " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return syncParentDirectory(path, error); // the rename on disk
}

} // namespace runtime
} // namespace tirx
