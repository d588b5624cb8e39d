//===- Store.h - the versioned workspace ------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A workspace directory holds every snapshot an agent saw or made:
//
//   workspace.json   format, version (2), target, task; written once
//   objects/<hex>    content-addressed, write-once texts (payloads, scripts)
//   index.jsonl      append-only: one line per version
//   requests.jsonl   append-only: one line per distinct request (dedup)
//   audit.jsonl      append-only: one line per request, accepted or not
//   chain.json       the head of each of the three chains (below)
//   HEAD             the version an agent continues from
//   lock             flock(2) target: one writer at a time
//
// Reading an object verifies its digest; reading the index verifies every
// line. Damage is reported with the path, never used.
//
// The history is tamper-evident: every line of index.jsonl, requests.jsonl
// and audit.jsonl carries "prev", the digest ("sha256:<hex>") of the exact
// bytes of the line before it (without its newline); the first line's prev
// is the file's genesis, digestOf("tirx-chain-genesis\n" + FILE + "\n" +
// the bytes of workspace.json). chain.json records, for each file, its
// line count, byte size and the digest of its last line (the genesis while
// empty); it is replaced atomically under the exclusive lock at each
// append. So any edit, deletion, insertion, reordering or truncation of a
// chained file, and a forged line appended to it, breaks a link or
// disagrees with chain.json (see check()). Appends and the lock never
// follow a symbolic link.
//
// An append is journaled: chain.json first records it as pending (the
// offset where its line starts, the line and its digest), then the line is
// written, then chain.json records the new head and no pending append. A
// writer killed in between (SIGKILL, a power loss) leaves the pending
// record; the next exclusive lock completes the append (the whole line is
// there) or rolls it back (a prefix of it, or nothing); bytes beyond the
// head that are not the pending line stay damage. Readers serve the
// recorded head only.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_HARNESS_STORE_H
#define TIRX_HARNESS_STORE_H

#include "llvm/Support/JSON.h"

#include <memory>
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

/// One problem found in a workspace by Workspace::check().
struct Damage {
  std::string file;    // the path (workspace dir + "/" + relative name)
  int line = 0;        // 1-based line of a chained file; 0: the whole file
  std::string problem; // what is wrong, and what probably happened
  /// An append interrupted between its line and chain.json (pending in
  /// chain.json, with nothing or only its own line's bytes beyond the
  /// head): not damage; the next exclusive lock (Workspace::recover)
  /// completes or rolls it back.
  bool recoverable = false;

  /// "FILE:LINE: PROBLEM", or "FILE: PROBLEM" for line 0.
  std::string message() const;
};

class Workspace {
public:
  /// Creates the directory layout; fails if `dir` already holds a workspace.
  static std::optional<Workspace> create(const std::string &dir,
                                         const std::string &target,
                                         const std::string &task,
                                         std::string &error);
  /// Opens an existing workspace. A workspace of an older format (version
  /// 1, without chained history) is refused with an error naming both
  /// versions; so is a workspace.json that is a symlink or not well formed.
  static std::optional<Workspace> open(const std::string &dir,
                                       std::string &error);

  /// The workspace format this code reads and writes (workspace.json's
  /// "version").
  static constexpr int64_t kFormatVersion = 2;

  const std::string &dir() const { return root; }
  std::string path(const std::string &relative) const {
    return root + "/" + relative;
  }
  const std::string &target() const { return targetChip; }
  const std::string &task() const { return taskText; }

  /// Every version, in id order, verified line by line: well-formed lines
  /// (bounded JSON), the chain of "prev" digests from the genesis to the
  /// head recorded in chain.json, ids v1, v2, ... in order, valid digests,
  /// parents earlier. On any damage returns false with `error` =
  /// the first Damage's message() and `entries` empty: a damaged history is
  /// never served.
  bool readIndex(std::vector<VersionEntry> &entries, std::string &error) const;
  /// Every request record, verified as readIndex verifies the index (chain,
  /// head, and each line: a signature, outcome accepted with a version id
  /// or rejected).
  bool readRequests(std::vector<RequestRecord> &records,
                    std::string &error) const;
  /// readIndex and readRequests under ONE shared lock (or under the lock
  /// this process already holds), so that the two agree: a writer cannot
  /// append between the two reads. Also checks that each accepted request
  /// names a version of the index. On damage both vectors are empty.
  bool readHistory(std::vector<VersionEntry> &entries,
                   std::vector<RequestRecord> &records,
                   std::string &error) const;
  /// Every audit line (without its "prev"), verified as the index is.
  bool readAudit(std::vector<llvm::json::Object> &lines,
                 std::string &error) const;

  /// Verifies the whole workspace and lists every problem, each naming its
  /// file and line (empty: sound). Checks: workspace.json well formed and of
  /// this format; no file or directory in the workspace is a symbolic link
  /// or other non-regular file (lstat, never followed); chain.json well
  /// formed; the three chains, line by line and against chain.json; index
  /// ids v1, v2, ... in order without gaps or repeats, valid digests,
  /// parents that exist and come earlier; every object referenced by the
  /// index exists and every file under objects/ matches its digest; each
  /// accepted request names an existing version; HEAD names an existing
  /// version. Takes the lock shared for the reads (unless this process holds
  /// one); a lock that cannot be taken is itself reported, and the check
  /// goes on. An interrupted append (see recover) is listed as a Damage
  /// with `recoverable` set, at the line it would add.
  std::vector<Damage> check() const;

  /// Completes or rolls back every append that chain.json records as
  /// pending (its writer was killed between the line and chain.json's
  /// update): the pending line whole beyond the head is made the head (the
  /// file fsync'd first); a prefix of it is truncated away; a record with
  /// nothing written is cleared. Bytes beyond the head that are not the
  /// pending line, or a prefix of it, are left as they are (damage, which
  /// check() names). Each append recovered goes to `recovered` (file, the
  /// line it concerned, what was done). Runs under the exclusive lock: this
  /// process's own if it holds one, else one taken for it; taking the
  /// exclusive lock (lock()) recovers too, so a writer always starts from a
  /// committed history. False with `error` when a file or chain.json could
  /// not be written (the pending record then stays, for the next writer).
  bool recover(std::vector<Damage> &recovered, std::string &error) const;

  /// The text of an object, checked against its digest.
  bool readObject(const std::string &digest, std::string &text,
                  std::string &error) const;
  /// Stores `text` (once: an existing object is checked, not rewritten) and
  /// returns its digest.
  bool writeObject(const std::string &text, std::string &digest,
                   std::string &error) const;

  /// Appends one line, chained: adds "prev" (the digest of the file's last
  /// line, from chain.json; a "prev" in `line` is replaced), records the
  /// append as pending in chain.json (atomic replace), appends with one
  /// write(2) (O_APPEND, O_NOFOLLOW, fsync), then records the new head and
  /// no pending append in chain.json. Refused, with nothing written, when
  /// the file is a symlink, not a regular file, has other hard links, or
  /// does not have the size chain.json records (changed since the last
  /// append: run check()), or the line is too long for chain.json's
  /// record (kMaxLineBytes). Runs under the exclusive lock: this process's
  /// own if it holds one (a shared one is refused), else one taken for the
  /// append. A failed write or head update truncates the file back and
  /// clears the pending record; a process killed in between leaves it to
  /// recover().
  bool appendVersion(const VersionEntry &entry, std::string &error) const;
  bool appendRequest(const RequestRecord &record, std::string &error) const;
  bool appendAudit(const llvm::json::Object &line, std::string &error) const;
  /// Why an append to the chained file `file` would be refused (see
  /// appendVersion), or "" when it would not (an interrupted append that
  /// the append's lock will recover is no refusal); nothing is written.
  std::string appendRefusal(const std::string &file) const;
  /// The longest line appendVersion, appendRequest and appendAudit write
  /// (without its newline): chain.json holds a pending line as a JSON
  /// string (at most twice as long escaped) and is read with parseJSON's
  /// 8 MiB limit.
  static constexpr size_t kMaxLineBytes = size_t(3) << 20;

  /// Whether each write waits for the disk (fsync) before the next one, the
  /// default. Without it every write is still atomic (a temporary file and
  /// a rename, one write(2) of a whole line with O_APPEND): a process killed
  /// at any moment leaves a sound workspace; only a crash of the machine
  /// before the data reaches the disk may lose or damage the latest lines.
  /// A tune's build processes write that way and sync() once, when their
  /// build is done (the fsyncs under the workspace lock serialized them).
  void setDurable(bool on) { durable = on; }
  /// Flushes every write of the file system the workspace is on to the disk
  /// (syncfs(2)).
  bool sync(std::string &error) const;

  /// HEAD's content, trimmed ("" when missing, unreadable or a symlink).
  std::string head() const;
  /// Replaces HEAD atomically (never through a symlink); `id` must look
  /// like a version id.
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
    Lock(int fd, std::string root, bool shared = false);
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
    bool shared = false;
  };
  /// Opens `lock` without following a symlink (a symlinked or non-regular
  /// lock file is refused) and flock(2)s it. An exclusive lock then
  /// recovers interrupted appends (recover()); a failure to is left for
  /// the appends, which refuse a file whose size is not the recorded one.
  Lock lock(std::string &error, bool shared = false) const;

private:
  /// Takes a shared lock into `reading` for one read, unless this process
  /// already holds a lock on the workspace.
  bool readLock(Lock &reading, std::string &error) const;
  /// The index and/or the request log (those not null), verified, read
  /// under one lock.
  bool readLogs(std::vector<VersionEntry> *entries,
                std::vector<RequestRecord> *records, std::string &error) const;
  /// Takes the exclusive lock into `writing` for one append, unless this
  /// process already holds it (holding only a shared one is an error).
  bool writeLock(Lock &writing, std::string &error) const;
  /// Appends `line` to the chained file `file` (see appendVersion).
  bool appendChained(const std::string &file, llvm::json::Object line,
                     std::string &error) const;
  /// lock(), recovering interrupted appends after an exclusive one only
  /// when `recoverAfter`.
  Lock takeLock(std::string &error, bool shared, bool recoverAfter) const;
  /// recover()'s work, under the exclusive lock this process holds.
  bool recoverHeld(std::vector<Damage> *recovered, std::string &error) const;

  std::string root;
  bool durable = true; // fsync each write (setDurable)
  std::string targetChip;
  std::string taskText;
  std::string metaText; // workspace.json's bytes: the chains' genesis
  /// The index and the request log as last read and found sound (their
  /// bytes and entries), shared by copies of this Workspace: a later read
  /// compares the files' bytes with them and parses only what was
  /// appended since (readLogs).
  struct LogMemo;
  std::shared_ptr<LogMemo> memo;
};

/// Current UTC time, ISO 8601 with milliseconds.
std::string nowUtc();

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_STORE_H
