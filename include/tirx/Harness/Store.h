//===- Store.h - the versioned workspace ------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A workspace directory holds every snapshot an agent saw or made:
//
//   workspace.json   format, version, target, task
//   objects/<hex>    content-addressed, write-once texts (payloads, scripts)
//   index.jsonl      append-only: one line per version
//   requests.jsonl   append-only: one line per distinct request (dedup)
//   audit.jsonl      append-only: one line per request, accepted or not
//   HEAD             the version an agent continues from
//   lock             flock(2) target: one writer at a time
//
// Reading an object verifies its digest; reading the index verifies every
// line. Damage is reported with the path, never used.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_HARNESS_STORE_H
#define TIRX_HARNESS_STORE_H

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace tirx {

/// One version in the index.
struct VersionEntry {
  std::string id;      // "v3"
  std::string parent;  // "" for the root
  std::string digest;  // of the canonical payload text
  std::string kind;    // init | commit | apply
  std::string script;  // digest of the transform script (apply)
  std::string action;  // the action's JSON, when the step came from one
  std::string message;
  std::string time;
  std::string actor;
  std::string session;

  llvm::json::Object toJSON() const;
};

/// A remembered request: its signature and what came of it.
struct RequestRecord {
  std::string signature; // parent digest + script digest
  std::string outcome;   // accepted | rejected
  std::string version;   // when accepted
  std::string code;      // when rejected: not_found, script_failed, ...
  std::string reason;
  std::string hint, payloadOp, payloadLoc;
};

class Workspace {
public:
  /// Creates the directory layout; fails if `dir` already holds a workspace.
  static std::optional<Workspace> create(const std::string &dir,
                                         const std::string &target,
                                         const std::string &task,
                                         std::string &error);
  /// Opens an existing workspace.
  static std::optional<Workspace> open(const std::string &dir,
                                       std::string &error);

  const std::string &dir() const { return root; }
  std::string path(const std::string &relative) const {
    return root + "/" + relative;
  }
  const std::string &target() const { return targetChip; }
  const std::string &task() const { return taskText; }

  /// Every version, in id order, verified line by line.
  bool readIndex(std::vector<VersionEntry> &entries, std::string &error) const;
  bool readRequests(std::vector<RequestRecord> &records,
                    std::string &error) const;

  /// The text of an object, checked against its digest.
  bool readObject(const std::string &digest, std::string &text,
                  std::string &error) const;
  /// Stores `text` (once: an existing object is checked, not rewritten) and
  /// returns its digest.
  bool writeObject(const std::string &text, std::string &digest,
                   std::string &error) const;

  bool appendVersion(const VersionEntry &entry, std::string &error) const;
  bool appendRequest(const RequestRecord &record, std::string &error) const;
  bool appendAudit(const llvm::json::Object &line, std::string &error) const;

  std::string head() const;
  bool setHead(const std::string &id, std::string &error) const;

  /// The version named `id`, or an error naming it (unknown, or not an id).
  static const VersionEntry *find(const std::vector<VersionEntry> &entries,
                                  const std::string &id, std::string &error);

  /// A lock on the workspace (flock(2) on its `lock` file), released when
  /// destroyed. Writers hold it exclusive for their whole read-check-append;
  /// readIndex and readRequests take it shared for the read itself unless
  /// this process already holds a lock on the workspace, so a reader never
  /// sees a line that a writer is still appending.
  class Lock {
  public:
    Lock() = default;
    Lock(int fd, std::string root);
    Lock(Lock &&other);
    Lock(const Lock &) = delete;
    Lock &operator=(Lock &&other);
    ~Lock();
    /// Gives the lock up before destruction (idempotent).
    void release();
    bool held() const { return fd >= 0; }

  private:
    int fd = -1;
    std::string root;
  };
  Lock lock(std::string &error, bool shared = false) const;

private:
  /// Takes a shared lock into `reading` for one read, unless this process
  /// already holds a lock on the workspace.
  bool readLock(Lock &reading, std::string &error) const;

public:

private:
  std::string root;
  std::string targetChip;
  std::string taskText;
};

/// Current UTC time, ISO 8601 with milliseconds.
std::string nowUtc();

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_STORE_H
