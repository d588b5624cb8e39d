//===- Store.cpp - the versioned workspace ----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Store.h"
#include "tirx/Dialect/TIRx/IR/TIRxAttrs.h"
#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Runtime/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <ctime>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
constexpr const char *kFormat = "tirx-workspace";
constexpr int64_t kVersion = 1;

std::string objectPath(const std::string &digest) {
  return "objects/" + digest.substr(std::strlen("sha256:")) + ".mlir";
}

bool appendLine(const std::string &path, const json::Object &object,
                std::string &error) {
  std::string line;
  llvm::raw_string_ostream os(line);
  os << json::Value(json::Object(object));
  line += "\n";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = path + ": cannot be opened for append: " + std::strerror(errno);
    return false;
  }
  // One write() of the whole line: with O_APPEND it lands at the end intact.
  ssize_t n = ::write(fd, line.data(), line.size());
  bool ok = n == ssize_t(line.size()) && ::fsync(fd) == 0;
  int saved = errno;
  ::close(fd);
  if (!ok)
    error = path + ": append failed: " + std::strerror(saved);
  return ok;
}

/// Reads a JSON-lines file; calls `each` with every parsed line. A line that
/// is not a JSON object (a truncated write, an edit) is an error naming it.
bool readLines(const std::string &path,
               const std::function<bool(const json::Object &, size_t,
                                        std::string &)> &each,
               std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    if (buffer.getError() == std::errc::no_such_file_or_directory)
      return true; // nothing appended yet
    error = path + ": cannot be read: " + buffer.getError().message();
    return false;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  size_t number = 0;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    ++number;
    bool lastWithoutNewline = rest.empty() && !text.ends_with("\n");
    text = rest;
    if (line.empty() && !lastWithoutNewline)
      continue;
    auto parsed = json::parse(line);
    if (!parsed || !parsed->getAsObject() || lastWithoutNewline) {
      if (!parsed)
        llvm::consumeError(parsed.takeError());
      error = path + ":" + std::to_string(number) +
              ": damaged line (not a complete JSON object; truncated write or "
              "edit)";
      return false;
    }
    if (!each(*parsed->getAsObject(), number, error)) {
      error = path + ":" + std::to_string(number) + ": " + error;
      return false;
    }
  }
  return true;
}

std::string str(const json::Object &o, llvm::StringRef key) {
  if (auto v = o.getString(key))
    return v->str();
  return "";
}
} // namespace

std::string mlir::tirx::nowUtc() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  int ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                   now.time_since_epoch())
                   .count() %
               1000);
  char buf[64];
  std::tm tm;
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char out[80];
  std::snprintf(out, sizeof(out), "%s.%03dZ", buf, ms);
  return out;
}

json::Object VersionEntry::toJSON() const {
  json::Object o{{"id", id},         {"parent", parent}, {"digest", digest},
                 {"kind", kind},     {"message", message}, {"time", time},
                 {"actor", actor},   {"session", session}};
  if (!script.empty())
    o["script"] = script;
  if (!action.empty())
    o["action"] = action;
  return o;
}

std::optional<Workspace> Workspace::create(const std::string &dir,
                                           const std::string &target,
                                           const std::string &task,
                                           std::string &error) {
  if (llvm::sys::fs::exists(dir + "/workspace.json")) {
    error = dir + ": already holds a workspace (workspace.json exists)";
    return std::nullopt;
  }
  if (auto ec = llvm::sys::fs::create_directories(dir + "/objects")) {
    error = dir + ": cannot be created: " + ec.message();
    return std::nullopt;
  }
  json::Object meta{{"format", kFormat}, {"version", kVersion},
                    {"target", target},  {"task", task},
                    {"created", nowUtc()}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(meta))) << "\n";
  if (!::tirx::runtime::writeFileAtomically(dir + "/workspace.json", text,
                                            error))
    return std::nullopt;
  return open(dir, error);
}

std::optional<Workspace> Workspace::open(const std::string &dir,
                                         std::string &error) {
  std::string path = dir + "/workspace.json";
  std::string text;
  if (!::tirx::runtime::readFile(path, text, error)) {
    error = dir + ": not a TIRx workspace (" + error + "); create one with "
            "'tirx init PAYLOAD.mlir --workspace " + dir + "'";
    return std::nullopt;
  }
  auto parsed = json::parse(text);
  if (!parsed || !parsed->getAsObject()) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    error = path + ": damaged (not a JSON object)";
    return std::nullopt;
  }
  const json::Object &meta = *parsed->getAsObject();
  if (str(meta, "format") != kFormat ||
      meta.getInteger("version").value_or(0) != kVersion) {
    error = path + ": not a version " + std::to_string(kVersion) +
            " TIRx workspace";
    return std::nullopt;
  }
  Workspace ws;
  ws.root = dir;
  ws.targetChip = str(meta, "target");
  ws.taskText = str(meta, "task");
  return ws;
}

bool Workspace::readIndex(std::vector<VersionEntry> &entries,
                          std::string &error) const {
  entries.clear();
  Lock reading;
  if (!readLock(reading, error))
    return false;
  return readLines(
      path("index.jsonl"),
      [&](const json::Object &o, size_t, std::string &err) {
        VersionEntry e;
        e.id = str(o, "id");
        e.parent = str(o, "parent");
        e.digest = str(o, "digest");
        e.kind = str(o, "kind");
        e.script = str(o, "script");
        e.action = str(o, "action");
        e.message = str(o, "message");
        e.time = str(o, "time");
        e.actor = str(o, "actor");
        e.session = str(o, "session");
        std::string expected = "v" + std::to_string(entries.size() + 1);
        if (e.id != expected) {
          err = "version id \"" + e.id + "\" where \"" + expected +
                "\" was expected (ids are unique and in order)";
          return false;
        }
        if (!isValidDigest(e.digest)) {
          err = "invalid digest \"" + e.digest + "\"";
          return false;
        }
        if (!e.parent.empty() &&
            llvm::none_of(entries, [&](const VersionEntry &p) {
              return p.id == e.parent;
            })) {
          err = "parent \"" + e.parent + "\" of " + e.id + " is not earlier";
          return false;
        }
        entries.push_back(std::move(e));
        return true;
      },
      error);
}

bool Workspace::readRequests(std::vector<RequestRecord> &records,
                             std::string &error) const {
  records.clear();
  Lock reading;
  if (!readLock(reading, error))
    return false;
  return readLines(
      path("requests.jsonl"),
      [&](const json::Object &o, size_t, std::string &) {
        records.push_back({str(o, "signature"), str(o, "outcome"),
                           str(o, "version"), str(o, "code"),
                           str(o, "reason"), str(o, "hint"),
                           str(o, "payload_op"), str(o, "payload_loc")});
        return true;
      },
      error);
}

bool Workspace::readObject(const std::string &digest, std::string &text,
                           std::string &error) const {
  if (!isValidDigest(digest)) {
    error = "invalid digest \"" + digest + "\"";
    return false;
  }
  std::string file = path(objectPath(digest));
  if (!llvm::sys::fs::exists(file)) {
    error = file + ": missing (the object of " + digest + ")";
    return false;
  }
  if (!::tirx::runtime::readFile(file, text, error))
    return false;
  std::string actual = digestOf(text);
  if (actual != digest) {
    error = file + ": damaged: its content has digest " + actual +
            ", not the recorded " + digest + " (changed or truncated)";
    return false;
  }
  return true;
}

bool Workspace::writeObject(const std::string &text, std::string &digest,
                            std::string &error) const {
  digest = digestOf(text);
  std::string file = path(objectPath(digest));
  if (llvm::sys::fs::exists(file)) {
    std::string existing;
    return readObject(digest, existing, error); // write-once: verify only
  }
  return ::tirx::runtime::writeFileAtomically(file, text, error);
}

bool Workspace::appendVersion(const VersionEntry &entry,
                              std::string &error) const {
  return appendLine(path("index.jsonl"), entry.toJSON(), error);
}

bool Workspace::appendRequest(const RequestRecord &r,
                              std::string &error) const {
  json::Object o{{"signature", r.signature}, {"outcome", r.outcome}};
  if (!r.version.empty())
    o["version"] = r.version;
  if (!r.code.empty())
    o["code"] = r.code;
  if (!r.reason.empty())
    o["reason"] = r.reason;
  if (!r.hint.empty())
    o["hint"] = r.hint;
  if (!r.payloadOp.empty())
    o["payload_op"] = r.payloadOp;
  if (!r.payloadLoc.empty())
    o["payload_loc"] = r.payloadLoc;
  return appendLine(path("requests.jsonl"), o, error);
}

bool Workspace::appendAudit(const json::Object &line,
                            std::string &error) const {
  return appendLine(path("audit.jsonl"), line, error);
}

std::string Workspace::head() const {
  std::string text, error;
  if (!::tirx::runtime::readFile(path("HEAD"), text, error))
    return "";
  return llvm::StringRef(text).trim().str();
}

bool Workspace::setHead(const std::string &id, std::string &error) const {
  return ::tirx::runtime::writeFileAtomically(path("HEAD"), id + "\n", error);
}

const VersionEntry *Workspace::find(const std::vector<VersionEntry> &entries,
                                    const std::string &id,
                                    std::string &error) {
  if (!isValidVersionId(id)) {
    error = "\"" + id + "\" is not a version id (ids look like v3)";
    return nullptr;
  }
  for (const VersionEntry &e : entries)
    if (e.id == id)
      return &e;
  error = "unknown version \"" + id + "\" (the workspace has v1 to v" +
          std::to_string(entries.size()) + ")";
  return nullptr;
}

namespace {
/// Workspaces this process holds a lock on, with how many. flock(2) locks
/// belong to an open file description, so a second lock taken by the same
/// process through a new descriptor would wait on the first forever.
std::map<std::string, int> &locksHeld() {
  static std::map<std::string, int> held;
  return held;
}

bool lockHeldHere(const std::string &root) {
  auto it = locksHeld().find(root);
  return it != locksHeld().end() && it->second > 0;
}
} // namespace

Workspace::Lock Workspace::lock(std::string &error, bool shared) const {
  if (lockHeldHere(root)) {
    error = root + ": already locked by this process";
    return Lock();
  }
  std::string file = path("lock");
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = file + ": cannot be opened: " + std::strerror(errno);
    return Lock();
  }
  while (::flock(fd, shared ? LOCK_SH : LOCK_EX) != 0) {
    if (errno != EINTR) {
      error = file + ": cannot be locked: " + std::strerror(errno);
      ::close(fd);
      return Lock();
    }
  }
  return Lock(fd, root);
}

bool Workspace::readLock(Lock &reading, std::string &error) const {
  if (lockHeldHere(root))
    return true; // this process's lock already keeps writers out
  reading = lock(error, /*shared=*/true);
  return reading.held();
}

Workspace::Lock::Lock(int fd, std::string root)
    : fd(fd), root(std::move(root)) {
  ++locksHeld()[this->root];
}

Workspace::Lock::Lock(Lock &&other)
    : fd(other.fd), root(std::move(other.root)) {
  other.fd = -1;
}

Workspace::Lock &Workspace::Lock::operator=(Lock &&other) {
  if (this != &other) {
    release();
    fd = other.fd;
    root = std::move(other.root);
    other.fd = -1;
  }
  return *this;
}

void Workspace::Lock::release() {
  if (fd < 0)
    return;
  --locksHeld()[root];
  ::flock(fd, LOCK_UN);
  ::close(fd);
  fd = -1;
}

Workspace::Lock::~Lock() { release(); }
