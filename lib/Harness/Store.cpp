//===- Store.cpp - the versioned workspace ----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Store.h"
#include "tirx/Dialect/TIRx/IR/TIRxAttrs.h"
#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
constexpr const char *kFormat = "tirx-workspace";
constexpr const char *kChainFormat = "tirx-chain";
constexpr int64_t kVersion = Workspace::kFormatVersion;
/// The chained, append-only files, in the order check() reports them.
constexpr const char *kChained[] = {"index.jsonl", "requests.jsonl",
                                    "audit.jsonl"};

std::string objectPath(const std::string &digest) {
  return "objects/" + digest.substr(std::strlen("sha256:")) + ".mlir";
}

std::string str(const json::Object &o, llvm::StringRef key) {
  if (auto v = o.getString(key))
    return v->str();
  return "";
}

std::string symlinkRefused(const std::string &path) {
  return path + ": is a symbolic link; refused (a workspace file must be a "
                "regular file inside the workspace, never followed elsewhere)";
}

/// `error` without its leading "PATH: " (a Damage names the file apart).
std::string withoutPath(const std::string &error, const std::string &path) {
  llvm::StringRef e = error;
  if (e.consume_front(path) && e.consume_front(": "))
    return e.str();
  return error;
}

/// What readRegular found.
enum class Read { ok, missing, failed };

/// Reads the regular file `path` whole without following a symlink: a
/// symlink, a FIFO or a directory is an error naming the path.
Read readRegular(const std::string &path, std::string &text,
                 std::string &error) {
  text.clear();
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT)
      return Read::missing;
    error = errno == ELOOP ? symlinkRefused(path)
                           : path + ": cannot be read: " + std::strerror(errno);
    return Read::failed;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + ": is not a regular file";
    ::close(fd);
    return Read::failed;
  }
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = path + ": cannot be read: " + std::strerror(errno);
      ::close(fd);
      return Read::failed;
    }
    if (n == 0)
      break;
    text.append(buffer, size_t(n));
  }
  ::close(fd);
  return Read::ok;
}

/// Replaces `path` with `text` so that readers see the old file or the new
/// one: a fresh temporary file beside it (O_EXCL, O_NOFOLLOW: a planted
/// symlink is not followed), fsync, rename (which replaces a symlink at
/// `path` itself, never its target), fsync of the directory (the rename on
/// disk). `durable` false skips both fsyncs (Workspace::setDurable).
bool writeAtomically(const std::string &path, const std::string &text,
                     std::string &error, bool durable = true,
                     bool *renamed = nullptr) {
  static std::atomic<unsigned> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(counter++);
  int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::open(tmp.c_str(), flags, 0644);
  if (fd < 0 && errno == EEXIST && ::unlink(tmp.c_str()) == 0)
    fd = ::open(tmp.c_str(), flags, 0644); // left by a crashed process
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
      ::unlink(tmp.c_str());
      return false;
    }
    done += size_t(n);
  }
  if ((durable && ::fsync(fd) != 0) || ::close(fd) != 0) {
    error = tmp + ": fsync failed: " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    error = path + ": rename failed: " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  if (renamed)
    *renamed = true;
  return !durable || ::tirx::runtime::syncParentDirectory(path, error);
}

//===----------------------------------------------------------------------===//
// Chains
//===----------------------------------------------------------------------===//

/// Where a chained file ends, as chain.json records it, and the append in
/// flight, if any.
struct ChainHead {
  int64_t lines = 0;
  int64_t bytes = 0;
  std::string head; // digest of the last line; the genesis while empty
  /// The line (without its newline) an append is writing at `bytes`:
  /// recorded before the line is written, cleared with the new head.
  std::optional<std::string> pending;
};
using ChainHeads = std::map<std::string, ChainHead>;

std::string genesisOf(llvm::StringRef file, llvm::StringRef meta) {
  return digestOf(("tirx-chain-genesis\n" + file + "\n" + meta).str());
}

std::string headsText(const ChainHeads &heads) {
  json::Object o{{"format", kChainFormat}};
  for (const auto &[file, h] : heads) {
    json::Object record{
        {"lines", h.lines}, {"bytes", h.bytes}, {"head", h.head}};
    if (h.pending)
      record["pending"] = json::Object{{"offset", h.bytes},
                                       {"digest", digestOf(*h.pending)},
                                       {"line", *h.pending}};
    o[file] = std::move(record);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(o))) << "\n";
  return text;
}

/// Opens the chained file `p` with `flags`, refusing, with nothing written,
/// a symlink, a file that is not regular, one with other hard links (an
/// append would change a file outside the workspace) and one whose size is
/// not the `bytes` chain.json records. -1 with `error` when refused. With
/// `size`, any size is accepted and stored there.
int openChainedFile(const std::string &p, int flags, int64_t bytes,
                    std::string &error, int64_t *size = nullptr) {
  int fd = ::open(p.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
                  0644);
  if (fd < 0) {
    error = errno == ELOOP
                ? symlinkRefused(p)
                : p + ": cannot be opened for append: " + std::strerror(errno);
    return -1;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    error = p + ": is not a regular file; refused";
  else if (st.st_nlink != 1)
    error = p + ": has " + std::to_string(st.st_nlink) +
            " hard links; refused (an append would change a file outside the "
            "workspace)";
  else if (size) {
    *size = int64_t(st.st_size);
    return fd;
  } else if (int64_t(st.st_size) != bytes)
    error = p + ": damaged: " + std::to_string(st.st_size) +
            " bytes where chain.json records " + std::to_string(bytes) +
            " (changed since the last append; run 'tirx fsck'); nothing "
            "appended";
  else
    return fd;
  ::close(fd);
  return -1;
}

/// Reads chain.json into `heads`; false with a damage naming it.
bool readHeads(const std::string &root, ChainHeads &heads,
               std::vector<Damage> &damages) {
  std::string path = root + "/chain.json", text, error;
  Read read = readRegular(path, text, error);
  if (read == Read::missing) {
    damages.push_back({path, 0,
                       "missing (it records the head of index.jsonl, "
                       "requests.jsonl and audit.jsonl; deleted?)"});
    return false;
  }
  if (read == Read::failed) {
    damages.push_back({path, 0, withoutPath(error, path)});
    return false;
  }
  auto parsed = parseJSON(text);
  if (!parsed) {
    damages.push_back({path, 0,
                       "damaged (not JSON: " +
                           llvm::toString(parsed.takeError()) + ")"});
    return false;
  }
  const json::Object *o = parsed->getAsObject();
  if (!o || str(*o, "format") != kChainFormat) {
    damages.push_back(
        {path, 0, "damaged (not a JSON object of format tirx-chain)"});
    return false;
  }
  for (const char *file : kChained) {
    const json::Object *h = o->getObject(file);
    std::optional<int64_t> lines = h ? h->getInteger("lines") : std::nullopt;
    std::optional<int64_t> bytes = h ? h->getInteger("bytes") : std::nullopt;
    std::string head = h ? str(*h, "head") : "";
    if (!lines || !bytes || *lines < 0 || *bytes < 0 || !isValidDigest(head)) {
      damages.push_back({path, 0,
                         std::string("damaged (no valid record for ") + file +
                             ": lines, bytes, head)"});
      return false;
    }
    heads[file] = {*lines, *bytes, head, std::nullopt};
    if (const json::Value *pending = h->get("pending")) {
      const json::Object *p = pending->getAsObject();
      std::optional<int64_t> offset =
          p ? p->getInteger("offset") : std::nullopt;
      std::optional<llvm::StringRef> line =
          p ? p->getString("line") : std::nullopt;
      if (!offset || *offset != *bytes || !line || line->contains('\n') ||
          str(*p, "digest") != digestOf(*line)) {
        damages.push_back(
            {path, 0,
             std::string("damaged (the pending append of ") + file +
                 " is not an object with offset (its recorded bytes), line "
                 "and the line's digest)"});
        return false;
      }
      heads[file].pending = line->str();
    }
  }
  return true;
}

/// What a chained file holds beyond the end chain.json records.
enum class Beyond {
  nothing, // it ends there
  whole,   // exactly the pending line and its newline
  prefix,  // a proper prefix of them: the line's write was cut short
  other,   // anything else (or the file is shorter): damage
};

Beyond classifyBeyond(const ChainHead &h, int64_t size, llvm::StringRef tail) {
  if (size < h.bytes)
    return Beyond::other;
  if (tail.empty())
    return Beyond::nothing;
  if (!h.pending)
    return Beyond::other;
  std::string whole = *h.pending + "\n";
  if (tail == whole)
    return Beyond::whole;
  if (tail.size() < whole.size() && llvm::StringRef(whole).starts_with(tail))
    return Beyond::prefix;
  return Beyond::other;
}

/// What lies beyond the recorded end in the open chained file `fd` of
/// `size` bytes: its bytes are read only when they could be the pending
/// line (no longer than it).
Beyond beyondOf(int fd, int64_t size, const ChainHead &h) {
  if (size <= h.bytes)
    return classifyBeyond(h, size, "");
  if (!h.pending || size - h.bytes > int64_t(h.pending->size()) + 1)
    return Beyond::other;
  std::string tail(size_t(size - h.bytes), '\0');
  size_t done = 0;
  while (done < tail.size()) {
    ssize_t n = ::pread(fd, &tail[done], tail.size() - done,
                        off_t(h.bytes + int64_t(done)));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return Beyond::other;
    done += size_t(n);
  }
  return classifyBeyond(h, size, tail);
}

/// A recoverable Damage describing the interrupted append to `path` found
/// as `beyond`, and what recovery does (or, with `done`, did) about it.
Damage interruptedAppend(const std::string &path, const ChainHead &h,
                         Beyond beyond, int64_t size, bool done) {
  std::string bytes = std::to_string(h.pending->size() + 1);
  std::string what;
  switch (beyond) {
  case Beyond::whole:
    what = done ? "completed: its whole line (" + bytes +
                      " bytes) was there, and is now the recorded head"
                : "its whole line (" + bytes +
                      " bytes) is there, not yet the recorded head; the next "
                      "write (any tirx command, or 'tirx fsck') completes it";
    break;
  case Beyond::prefix:
    what = std::to_string(size - h.bytes) + " of its " + bytes + " bytes " +
           (done ? "were there, and were truncated away (rolled back)"
                 : "are there; the next write (any tirx command, or 'tirx "
                   "fsck') truncates them away (rolls it back)");
    break;
  default:
    what = done ? "nothing of its line was written; the record was cleared"
                : "nothing of its line was written; the next write clears "
                  "the record";
    break;
  }
  return {path, int(h.lines) + 1,
          "an append interrupted between its line and chain.json (pending "
          "there, digest " +
              digestOf(*h.pending) + "): " + what,
          /*recoverable=*/true};
}

/// One well-formed line of a chained file, its "prev" removed.
struct ChainLine {
  int number;
  json::Object object;
};

/// Reads the chained file `file`: every line a complete JSON object (bounded
/// parse) whose "prev" is the digest of the line before (`genesis` for the
/// first); then the file must end where `recorded` says (when known).
/// Well-formed lines go to `lines` (even when their link is broken: the
/// damage is reported either way); every problem to `damages`. An
/// interrupted append (the pending line of `recorded`, or a prefix of it,
/// beyond the recorded end) is not read: the recorded head is what is
/// committed; it goes to `interrupted` when given.
/// A chained file as a read found it, every line sound and the file ending
/// where chain.json recorded: its bytes (whole lines), how many lines, the
/// last one's digest.
struct ChainMemo {
  std::string genesis;
  std::string text;
  int number = 0;
  std::string previous;
};

/// With `memo`: when the file begins with the memo's bytes (compared, of a
/// chain of the same genesis), those lines are not parsed again: `lines`
/// gets only the lines after them, and `resumed` is set. A read that finds
/// no damage becomes the memo (else it is cleared).
void readChain(const std::string &root, const std::string &file,
               const std::string &genesis, const ChainHead *recorded,
               std::vector<ChainLine> &lines, std::vector<Damage> &damages,
               std::vector<Damage> *interrupted = nullptr,
               ChainMemo *memo = nullptr, bool *resumed = nullptr) {
  size_t damagesBefore = damages.size();
  if (resumed)
    *resumed = false;
  std::string path = root + "/" + file, text, error;
  Read read = readRegular(path, text, error);
  if (read == Read::failed) {
    damages.push_back({path, 0, withoutPath(error, path)});
    return;
  }
  bool foreignTail = false; // beyond the head, not the pending line
  if (recorded && recorded->pending) {
    int64_t size = int64_t(text.size());
    Beyond beyond = classifyBeyond(
        *recorded, size,
        size > recorded->bytes
            ? llvm::StringRef(text).drop_front(size_t(recorded->bytes))
            : llvm::StringRef());
    if (beyond == Beyond::other) {
      foreignTail = size > recorded->bytes;
    } else {
      if (interrupted)
        interrupted->push_back(
            interruptedAppend(path, *recorded, beyond, size, false));
      text.resize(size_t(recorded->bytes));
    }
  }
  // A missing file is an empty chain: the workspace has not appended yet.
  llvm::StringRef rest = text;
  int number = 0;
  std::string previous = genesis;
  if (memo && !memo->text.empty() && memo->genesis == genesis &&
      llvm::StringRef(text).starts_with(memo->text)) {
    rest = rest.drop_front(memo->text.size());
    number = memo->number;
    previous = memo->previous;
    if (resumed)
      *resumed = true;
  }
  while (!rest.empty()) {
    auto [line, tail] = rest.split('\n');
    ++number;
    bool complete = line.size() < rest.size(); // a newline ended it
    rest = tail;
    std::string digest = digestOf(line);
    auto damaged = [&](std::string problem) {
      damages.push_back({path, number, std::move(problem)});
    };
    std::string limit = checkJSONLimits(line);
    if (!limit.empty()) {
      damaged("damaged line (" + limit + ")");
      previous = digest;
      continue;
    }
    auto parsed = json::parse(line);
    if (!parsed || !parsed->getAsObject() || !complete) {
      std::string why;
      if (!parsed)
        why = llvm::toString(parsed.takeError());
      damaged("damaged line (not a complete JSON object; truncated write or "
              "edit)" +
              (why.empty() ? std::string() : ": " + why));
      previous = digest;
      continue;
    }
    json::Object object = std::move(*parsed->getAsObject());
    std::string prev = str(object, "prev");
    if (prev.empty())
      damaged("no \"prev\" (every line names the digest of the line before "
              "it): an unchained line, edited or inserted");
    else if (prev != previous)
      damaged(number == 1
                  ? "chain broken: \"prev\" is " + prev +
                        ", not this file's genesis " + previous +
                        " (lines removed from the start, the line replaced, "
                        "or workspace.json changed)"
                  : "chain broken: \"prev\" is " + prev +
                        ", not the digest of line " +
                        std::to_string(number - 1) + " (" + previous +
                        "): line " + std::to_string(number - 1) +
                        " or this line was edited, or lines were removed, "
                        "inserted or reordered before it");
    object.erase("prev");
    lines.push_back({number, std::move(object)});
    previous = digest;
  }
  if (!recorded) {
    if (memo) // nothing vouches for where the file ends
      *memo = ChainMemo();
    return;
  }
  if (number < recorded->lines)
    damages.push_back({path, number + 1,
                       "missing: the file ends after " +
                           std::to_string(number) + " line(s), chain.json "
                           "records " + std::to_string(recorded->lines) +
                           " (lines removed from the end)"});
  else if (number > recorded->lines)
    damages.push_back(
        {path, int(recorded->lines) + 1,
         "line(s) beyond the recorded head: chain.json records " +
             std::to_string(recorded->lines) + " line(s), the file has " +
             std::to_string(number) +
             (foreignTail ? " (not the append pending in chain.json: "
                            "appended or changed by something other "
                            "than the workspace's writer)"
                          : " (no append is pending in chain.json: "
                            "appended by something other than the "
                            "workspace's writer)")});
  else if (previous != recorded->head)
    damages.push_back({path, number,
                       number == 0
                           ? "chain.json records head " + recorded->head +
                                 ", not this file's genesis " + previous +
                                 " (chain.json or workspace.json changed)"
                           : "its digest " + previous +
                                 " is not the head chain.json records (" +
                                 recorded->head +
                                 "): the last line was changed"});
  else if (int64_t(text.size()) != recorded->bytes)
    damages.push_back({path, 0,
                       std::to_string(text.size()) + " bytes where chain.json "
                       "records " + std::to_string(recorded->bytes) +
                       " (bytes added or removed outside the lines)"});
  if (memo) {
    if (damages.size() == damagesBefore &&
        (text.empty() || text.back() == '\n'))
      *memo = {genesis, std::move(text), number, previous};
    else
      *memo = ChainMemo();
  }
}

/// Index lines to entries: ids v1, v2, ... by line, valid digests, parents
/// earlier. Problems go to `damages`.
void toEntries(const std::string &path, std::vector<ChainLine> &lines,
               std::vector<VersionEntry> &entries,
               std::vector<Damage> &damages) {
  llvm::StringSet<> seen; // the entries already there (a memo's)
  for (const VersionEntry &e : entries)
    seen.insert(e.id);
  for (ChainLine &line : lines) {
    const json::Object &o = line.object;
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
    auto damaged = [&](std::string problem) {
      damages.push_back({path, line.number, std::move(problem)});
    };
    std::string expected = "v" + std::to_string(line.number);
    if (e.id != expected)
      damaged("version id \"" + e.id + "\" where \"" + expected +
              "\" was expected (ids are unique and in order)");
    else if (!isValidDigest(e.digest))
      damaged("invalid digest \"" + e.digest + "\"");
    else if (!e.script.empty() && !isValidDigest(e.script))
      damaged("invalid script digest \"" + e.script + "\"");
    else if (!e.parent.empty() && !seen.contains(e.parent))
      damaged("parent \"" + e.parent + "\" of " + e.id + " is not earlier");
    seen.insert(e.id);
    entries.push_back(std::move(e));
  }
}

/// Request lines to records: a signature, and outcome accepted (with a
/// version id) or rejected.
void toRecords(const std::string &path, std::vector<ChainLine> &lines,
               std::vector<RequestRecord> &records,
               std::vector<Damage> &damages) {
  for (ChainLine &line : lines) {
    const json::Object &o = line.object;
    RequestRecord r{str(o, "signature"), str(o, "outcome"),
                    str(o, "version"),   str(o, "code"),
                    str(o, "reason"),    str(o, "hint"),
                    str(o, "payload_op"), str(o, "payload_loc")};
    if (r.signature.empty())
      damages.push_back({path, line.number, "request without a signature"});
    else if (r.outcome == "accepted" ? !isValidVersionId(r.version)
                                     : r.outcome != "rejected")
      damages.push_back({path, line.number,
                         "outcome \"" + r.outcome + "\" with version \"" +
                             r.version + "\" (accepted names a version id; "
                             "or rejected)"});
    records.push_back(std::move(r));
  }
}

/// Accepted requests must name versions of the index.
/// `first` records came before `lines` (a memo's: one a line, in order).
void crossCheck(const std::string &path, const std::vector<ChainLine> &lines,
                const std::vector<RequestRecord> &records,
                const std::vector<VersionEntry> &entries,
                std::vector<Damage> &damages, size_t first = 0) {
  llvm::StringSet<> ids;
  for (const VersionEntry &e : entries)
    ids.insert(e.id);
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].outcome == "accepted" &&
        isValidVersionId(records[i].version) &&
        !ids.contains(records[i].version))
      damages.push_back({path,
                         i < first ? int(i + 1) : lines[i - first].number,
                         "accepted request names version \"" +
                             records[i].version +
                             "\", which the index does not have"});
}

bool fail(std::vector<Damage> &damages, std::string &error) {
  if (damages.empty())
    return true;
  error = damages.front().message();
  return false;
}

//===----------------------------------------------------------------------===//
// Appends
//===----------------------------------------------------------------------===//

std::string lineText(json::Object object) {
  std::string line;
  llvm::raw_string_ostream os(line);
  os << json::Value(std::move(object));
  return line;
}

} // namespace

struct Workspace::LogMemo {
  std::mutex mutex;
  ChainMemo index, requests;
  std::vector<VersionEntry> entries;  // of index's bytes
  std::vector<RequestRecord> records; // of requests'
  LogMemo &operator=(LogMemo &&other) {
    index = std::move(other.index);
    requests = std::move(other.requests);
    entries = std::move(other.entries);
    records = std::move(other.records);
    return *this;
  }
};

std::string Damage::message() const {
  if (line <= 0)
    return file + ": " + problem;
  return file + ":" + std::to_string(line) + ": " + problem;
}

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
  // The chains start at genesis values derived from workspace.json's bytes;
  // chain.json first, so that a workspace.json always has one.
  ChainHeads heads;
  for (const char *file : kChained)
    heads[file] = {0, 0, genesisOf(file, text)};
  // The directory's own entry (and objects/'s) on disk too.
  if (!writeAtomically(dir + "/chain.json", headsText(heads), error) ||
      !writeAtomically(dir + "/workspace.json", text, error) ||
      !::tirx::runtime::syncParentDirectory(dir, error))
    return std::nullopt;
  return open(dir, error);
}

std::optional<Workspace> Workspace::open(const std::string &dir,
                                         std::string &error) {
  std::string path = dir + "/workspace.json";
  std::string text;
  Read read = readRegular(path, text, error);
  if (read == Read::missing) {
    error = dir + ": not a TIRx workspace (" + path + ": cannot be read: " +
            std::strerror(ENOENT) + "); create one with 'tirx init "
            "PAYLOAD.mlir --workspace " + dir + "'";
    return std::nullopt;
  }
  if (read == Read::failed) {
    error = dir + ": not a usable TIRx workspace (" + error + ")";
    return std::nullopt;
  }
  auto parsed = parseJSON(text);
  if (!parsed || !parsed->getAsObject()) {
    std::string why = parsed ? "not a JSON object"
                             : llvm::toString(parsed.takeError());
    error = path + ": damaged (" + why + ")";
    return std::nullopt;
  }
  const json::Object &meta = *parsed->getAsObject();
  std::optional<int64_t> version = meta.getInteger("version");
  if (str(meta, "format") != kFormat || !version) {
    error = path + ": not a TIRx workspace description (format \"" +
            str(meta, "format") + "\")";
    return std::nullopt;
  }
  if (*version != kVersion) {
    error = path + ": a version " + std::to_string(*version) +
            " TIRx workspace; this tirx reads version " +
            std::to_string(kVersion) + " only" +
            (*version < kVersion
                 ? " (version 2 chains index.jsonl, requests.jsonl and "
                   "audit.jsonl by digest; an older, unchained history is "
                   "not converted, since nothing vouches for it: start a new "
                   "workspace with 'tirx init')"
                 : "");
    return std::nullopt;
  }
  Workspace ws;
  ws.root = dir;
  ws.targetChip = str(meta, "target");
  ws.taskText = str(meta, "task");
  ws.metaText = std::move(text);
  ws.memo = std::make_shared<LogMemo>();
  return ws;
}

bool Workspace::readLogs(std::vector<VersionEntry> *entries,
                         std::vector<RequestRecord> *records,
                         std::string &error) const {
  if (entries)
    entries->clear();
  if (records)
    records->clear();
  Lock reading;
  if (!readLock(reading, error))
    return false;
  std::vector<Damage> damages;
  ChainHeads heads;
  bool known = readHeads(root, heads, damages);
  std::lock_guard<std::mutex> hold(memo->mutex);
  // Each file read from where its memo's bytes end, if it begins with them
  // (same bytes, same lines: every byte is compared, every new line parsed
  // and chained as a whole read would).
  auto read = [&](const char *file, std::vector<ChainLine> &lines,
                  ChainMemo &chain) {
    bool resumed = false;
    readChain(root, file, genesisOf(file, metaText),
              known ? &heads[file] : nullptr, lines, damages, nullptr,
              &chain, &resumed);
    return resumed;
  };
  std::vector<ChainLine> indexLines, requestLines;
  size_t firstRecord = 0;
  if (entries) {
    if (read("index.jsonl", indexLines, memo->index))
      *entries = memo->entries;
    toEntries(path("index.jsonl"), indexLines, *entries, damages);
  }
  if (records) {
    if (read("requests.jsonl", requestLines, memo->requests))
      *records = memo->records;
    firstRecord = records->size();
    toRecords(path("requests.jsonl"), requestLines, *records, damages);
  }
  if (entries && records)
    crossCheck(path("requests.jsonl"), requestLines, *records, *entries,
               damages, firstRecord);
  if (!fail(damages, error)) {
    if (entries)
      entries->clear();
    if (records)
      records->clear();
    *memo = LogMemo();
    return false;
  }
  if (entries)
    memo->entries = *entries;
  if (records)
    memo->records = *records;
  return true;
}

bool Workspace::readIndex(std::vector<VersionEntry> &entries,
                          std::string &error) const {
  return readLogs(&entries, nullptr, error);
}

bool Workspace::readRequests(std::vector<RequestRecord> &records,
                             std::string &error) const {
  return readLogs(nullptr, &records, error);
}

bool Workspace::readHistory(std::vector<VersionEntry> &entries,
                            std::vector<RequestRecord> &records,
                            std::string &error) const {
  return readLogs(&entries, &records, error);
}

bool Workspace::readAudit(std::vector<json::Object> &out,
                          std::string &error) const {
  out.clear();
  Lock reading;
  if (!readLock(reading, error))
    return false;
  std::vector<Damage> damages;
  ChainHeads heads;
  bool known = readHeads(root, heads, damages);
  std::vector<ChainLine> lines;
  readChain(root, "audit.jsonl", genesisOf("audit.jsonl", metaText),
            known ? &heads["audit.jsonl"] : nullptr, lines, damages);
  if (!fail(damages, error))
    return false;
  for (ChainLine &line : lines)
    out.push_back(std::move(line.object));
  return true;
}

namespace {
/// Calls `each` with every entry under `dir` (relative names), depth first,
/// without following symlinks (lstat); does not descend into a symlink.
void walkTree(const std::string &dir, const std::string &relative,
              const std::function<void(const std::string &,
                                       const std::string &,
                                       const struct stat &)> &each) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return;
  std::vector<std::string> names;
  while (struct dirent *entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..")
      names.push_back(name);
  }
  ::closedir(d);
  llvm::sort(names);
  for (const std::string &name : names) {
    std::string full = dir + "/" + name;
    std::string rel = relative.empty() ? name : relative + "/" + name;
    struct stat st;
    if (::lstat(full.c_str(), &st) != 0)
      continue;
    each(full, rel, st);
    if (S_ISDIR(st.st_mode))
      walkTree(full, rel, each);
  }
}

bool isTemporary(llvm::StringRef name) { return name.contains(".tmp."); }
} // namespace

std::vector<Damage> Workspace::check() const {
  std::vector<Damage> damages;
  std::string error;
  Lock reading;
  if (!readLock(reading, error))
    damages.push_back({path("lock"), 0, error});

  // workspace.json: well formed, this format. Its current bytes are the
  // genesis of the chains, so any change to it breaks their first links.
  std::string meta = metaText;
  {
    std::string file = path("workspace.json"), text;
    Read read = readRegular(file, text, error);
    if (read == Read::missing)
      damages.push_back({file, 0, "missing"});
    else if (read == Read::failed)
      damages.push_back({file, 0, withoutPath(error, file)});
    else {
      meta = text;
      auto parsed = parseJSON(text);
      if (!parsed)
        damages.push_back({file, 0,
                           "damaged (" + llvm::toString(parsed.takeError()) +
                               ")"});
      else if (const json::Object *o = parsed->getAsObject();
               !o || str(*o, "format") != kFormat ||
               o->getInteger("version") != kVersion ||
               !o->getString("target") || !o->getString("task"))
        damages.push_back({file, 0,
                           "damaged (not an object with format "
                           "\"tirx-workspace\", version " +
                               std::to_string(kVersion) +
                               ", target and task)"});
    }
  }

  // Nothing in the workspace is a symlink or other special file.
  walkTree(root, "", [&](const std::string &full, const std::string &rel,
                         const struct stat &st) {
    if (S_ISLNK(st.st_mode))
      damages.push_back({full, 0,
                         "is a symbolic link (a workspace holds only regular "
                         "files and directories; reads and appends refuse "
                         "to follow it)"});
    else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
      damages.push_back({full, 0, "is not a regular file or directory"});
    (void)rel;
  });

  // The three chains.
  ChainHeads heads;
  bool known = readHeads(root, heads, damages);
  std::vector<ChainLine> indexLines, requestLines, auditLines;
  std::vector<VersionEntry> entries;
  std::vector<RequestRecord> records;
  // An interrupted append is listed with them, marked recoverable.
  readChain(root, "index.jsonl", genesisOf("index.jsonl", meta),
            known ? &heads["index.jsonl"] : nullptr, indexLines, damages,
            &damages);
  toEntries(path("index.jsonl"), indexLines, entries, damages);
  readChain(root, "requests.jsonl", genesisOf("requests.jsonl", meta),
            known ? &heads["requests.jsonl"] : nullptr, requestLines, damages,
            &damages);
  toRecords(path("requests.jsonl"), requestLines, records, damages);
  crossCheck(path("requests.jsonl"), requestLines, records, entries, damages);
  readChain(root, "audit.jsonl", genesisOf("audit.jsonl", meta),
            known ? &heads["audit.jsonl"] : nullptr, auditLines, damages,
            &damages);

  // The objects of every version, then every other file under objects/.
  std::set<std::string> verified;
  for (size_t i = 0; i < entries.size(); ++i) {
    const VersionEntry &e = entries[i];
    for (const std::string *digest : {&e.digest, &e.script}) {
      if (!isValidDigest(*digest))
        continue; // reported with the line, or no script
      std::string text;
      if (!readObject(*digest, text, error))
        damages.push_back({path("index.jsonl"), indexLines[i].number,
                           e.id + (digest == &e.script ? " (script)" : "") +
                               ": " + error});
      verified.insert(objectPath(*digest));
    }
  }
  struct stat objectsStat;
  if (::lstat(path("objects").c_str(), &objectsStat) == 0 &&
      S_ISDIR(objectsStat.st_mode)) { // a symlink is reported above
    walkTree(path("objects"), "objects",
             [&](const std::string &full, const std::string &rel,
                 const struct stat &st) {
               if (!S_ISREG(st.st_mode) || verified.count(rel) ||
                   isTemporary(rel))
                 return;
               llvm::StringRef name = llvm::StringRef(rel).drop_front(8);
               std::string digest =
                   "sha256:" + name.drop_back(name.ends_with(".mlir") ? 5 : 0)
                                   .str();
               if (!name.ends_with(".mlir") || !isValidDigest(digest)) {
                 damages.push_back({full, 0, "not an object's name "
                                             "(<sha256 hex>.mlir)"});
                 return;
               }
               std::string text;
               if (!readObject(digest, text, error))
                 damages.push_back({full, 0, withoutPath(error, full)});
             });
  }

  // HEAD names a version.
  {
    std::string file = path("HEAD"), text;
    Read read = readRegular(file, text, error);
    std::string id = llvm::StringRef(text).trim().str();
    if (read == Read::missing) {
      if (!entries.empty())
        damages.push_back({file, 0, "missing (the workspace has versions)"});
    } else if (read == Read::failed)
      damages.push_back({file, 0, withoutPath(error, file)});
    else if (!llvm::any_of(entries,
                           [&](const VersionEntry &e) { return e.id == id; }))
      damages.push_back(
          {file, 0,
           "names \"" + (id.size() > 40 ? id.substr(0, 40) + "..." : id) +
               "\", not a version of this workspace (it has " +
               std::to_string(entries.size()) + ")"});
  }
  return damages;
}

bool Workspace::readObject(const std::string &digest, std::string &text,
                           std::string &error) const {
  if (!isValidDigest(digest)) {
    error = "invalid digest \"" + digest + "\"";
    return false;
  }
  struct stat st;
  if (::lstat(path("objects").c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    error = symlinkRefused(path("objects"));
    return false;
  }
  std::string file = path(objectPath(digest));
  Read read = readRegular(file, text, error);
  if (read == Read::missing) {
    error = file + ": missing (the object of " + digest + ")";
    return false;
  }
  if (read == Read::failed)
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
  struct stat st;
  if (::lstat(path("objects").c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    error = S_ISLNK(st.st_mode) ? symlinkRefused(path("objects"))
                                : path("objects") + ": is not a directory";
    return false;
  }
  std::string file = path(objectPath(digest));
  if (::lstat(file.c_str(), &st) == 0) {
    std::string existing;
    return readObject(digest, existing, error); // write-once: verify only
  }
  return writeAtomically(file, text, error, durable);
}

namespace {
/// Fault injection for tests: TIRX_TEST_KILL_APPEND=FILE:STAGE kills this
/// process (SIGKILL, as a crash would) in an append to the chained file
/// FILE, at STAGE: "pending" (its record written to chain.json, nothing of
/// the line), "half" (half of its line written) or "line" (the whole line,
/// not yet the head).
bool killAt(const std::string &file, llvm::StringRef stage) {
  const char *spec = std::getenv("TIRX_TEST_KILL_APPEND");
  return spec && llvm::StringRef(spec) == (file + ":" + stage).str();
}
void killPoint(const std::string &file, llvm::StringRef stage) {
  if (killAt(file, stage))
    ::kill(::getpid(), SIGKILL);
}
} // namespace

bool Workspace::appendChained(const std::string &file, json::Object object,
                              std::string &error) const {
  Lock writing;
  if (!writeLock(writing, error))
    return false;
  std::vector<Damage> damages;
  ChainHeads heads;
  if (!readHeads(root, heads, damages))
    return fail(damages, error);
  ChainHead &h = heads[file];
  const ChainHeads before = heads;
  const ChainHead was = h;
  object["prev"] = h.head;
  std::string line = lineText(std::move(object));
  std::string p = path(file);
  if (line.size() > kMaxLineBytes) {
    error = p + ": a line of " + std::to_string(line.size()) +
            " bytes; refused (at most " + std::to_string(kMaxLineBytes) +
            "); nothing appended";
    return false;
  }
  std::string bytes = line + "\n";

  // The lock recovered any append interrupted here: the file must end
  // where chain.json says.
  int fd = openChainedFile(p, O_WRONLY | O_CREAT | O_APPEND, was.bytes, error);
  if (fd < 0)
    return false;
  // The journal: the append is recorded as pending (where its line starts,
  // the line) before the line is written, so that a process killed before
  // the head below leaves a state the next writer completes or rolls back.
  h.pending = line;
  if (!writeAtomically(path("chain.json"), headsText(heads), error, durable)) {
    ::close(fd);
    return false;
  }
  killPoint(file, "pending");
  if (killAt(file, "half")) {
    (void)!::write(fd, bytes.data(), bytes.size() / 2);
    (void)::fsync(fd);
    killPoint(file, "half");
  }
  // One write() of the whole line: with O_APPEND it lands at the end intact.
  ssize_t n = ::write(fd, bytes.data(), bytes.size());
  bool ok = n == ssize_t(bytes.size()) && (!durable || ::fsync(fd) == 0);
  if (ok)
    killPoint(file, "line");
  if (!ok) {
    error = p + ": append failed: " + std::strerror(errno);
  } else {
    h.lines += 1;
    h.bytes += int64_t(bytes.size());
    h.head = digestOf(line);
    h.pending.reset();
    // Its directory is synced after chain.json's rename: that covers the
    // entry of a file this append created.
    // Renamed into place but its directory not synced: committed all the
    // same (were the rename lost, the pending record would complete the
    // append: the line is on disk).
    bool renamed = false;
    ok = writeAtomically(path("chain.json"), headsText(heads), error, durable,
                         &renamed) ||
         renamed;
  }
  if (!ok) {
    // Undo a partial line, or one whose head was not recorded, then the
    // record: the file stays as chain.json describes it. Were the record
    // left (chain.json cannot be written), the next writer clears it.
    if (::ftruncate(fd, was.bytes) == 0 && (!durable || ::fsync(fd) == 0)) {
      std::string ignored;
      (void)writeAtomically(path("chain.json"), headsText(before), ignored,
                            durable);
    }
  }
  ::close(fd);
  return ok;
}

bool Workspace::recoverHeld(std::vector<Damage> *recovered,
                            std::string &error) const {
  std::vector<Damage> damages;
  ChainHeads heads;
  if (!readHeads(root, heads, damages))
    return true; // damage: check() names it, appends refuse
  bool changed = false;
  for (auto &[file, h] : heads) {
    if (!h.pending)
      continue;
    const ChainHead found = h;
    std::string p = path(file), why;
    int64_t size = 0;
    int fd = -1;
    Beyond beyond = Beyond::nothing;
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 && errno == ENOENT) {
      if (h.bytes != 0)
        continue; // a missing file: damage, left as it is
    } else {
      fd = openChainedFile(p, O_RDWR, h.bytes, why, &size);
      if (fd < 0)
        continue; // a symlink, a hard link, ...: damage, left as it is
      beyond = beyondOf(fd, size, h);
    }
    bool done = true;
    if (beyond == Beyond::whole) {
      // The line on disk before it is made the head.
      done = !durable || ::fsync(fd) == 0;
      if (done) {
        h.lines += 1;
        h.bytes = size;
        h.head = digestOf(*h.pending);
      }
    } else if (beyond == Beyond::prefix) {
      done = ::ftruncate(fd, h.bytes) == 0 && (!durable || ::fsync(fd) == 0);
    }
    if (!done)
      error = p + ": an interrupted append could not be recovered: " +
              std::strerror(errno);
    if (fd >= 0)
      ::close(fd);
    if (!done)
      return false;
    if (beyond == Beyond::other)
      continue; // damage, left as it is
    if (recovered)
      recovered->push_back(interruptedAppend(p, found, beyond, size, true));
    h.pending.reset();
    changed = true;
  }
  return !changed ||
         writeAtomically(path("chain.json"), headsText(heads), error, durable);
}

std::string Workspace::appendRefusal(const std::string &file) const {
  std::string error;
  Lock reading;
  if (!readLock(reading, error))
    return error;
  std::vector<Damage> damages;
  ChainHeads heads;
  if (!readHeads(root, heads, damages)) {
    fail(damages, error);
    return error;
  }
  const ChainHead &h = heads[file];
  std::string p = path(file);
  if (h.bytes == 0 && ::access(p.c_str(), F_OK) != 0 && errno == ENOENT)
    return "";
  int64_t size = 0;
  int fd =
      openChainedFile(p, O_RDONLY, h.bytes, error, h.pending ? &size : nullptr);
  if (fd < 0)
    return error;
  // An interrupted append: the append's exclusive lock recovers it.
  if (h.pending && beyondOf(fd, size, h) == Beyond::other) {
    ::close(fd);
    fd = openChainedFile(p, O_RDONLY, h.bytes, error);
    if (fd < 0)
      return error;
  }
  ::close(fd);
  return "";
}

bool Workspace::appendVersion(const VersionEntry &entry,
                              std::string &error) const {
  return appendChained("index.jsonl", entry.toJSON(), error);
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
  return appendChained("requests.jsonl", std::move(o), error);
}

bool Workspace::appendAudit(const json::Object &line,
                            std::string &error) const {
  return appendChained("audit.jsonl", json::Object(line), error);
}

std::string Workspace::head() const {
  std::string text, error;
  if (readRegular(path("HEAD"), text, error) != Read::ok)
    return "";
  return llvm::StringRef(text).trim().str();
}

bool Workspace::setHead(const std::string &id, std::string &error) const {
  if (!isValidVersionId(id)) {
    error = "\"" + id + "\" is not a version id (ids look like v3)";
    return false;
  }
  return writeAtomically(path("HEAD"), id + "\n", error, durable);
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
/// Locks this process holds per workspace: how many, and how many of them
/// exclusive. flock(2) locks belong to an open file description, so a
/// second lock taken by the same process through a new descriptor would
/// wait on the first forever.
struct Held {
  int count = 0;
  int exclusive = 0;
};
std::map<std::string, Held> &locksHeld() {
  static std::map<std::string, Held> held;
  return held;
}

bool lockHeldHere(const std::string &root) {
  auto it = locksHeld().find(root);
  return it != locksHeld().end() && it->second.count > 0;
}

bool exclusiveHeldHere(const std::string &root) {
  auto it = locksHeld().find(root);
  return it != locksHeld().end() && it->second.exclusive > 0;
}
} // namespace

Workspace::Lock Workspace::lock(std::string &error, bool shared) const {
  return takeLock(error, shared, /*recoverAfter=*/true);
}

Workspace::Lock Workspace::takeLock(std::string &error, bool shared,
                                    bool recoverAfter) const {
  if (lockHeldHere(root)) {
    error = root + ": already locked by this process";
    return Lock();
  }
  std::string file = path("lock");
  // Never through a symlink: O_CREAT would create its target, anywhere.
  int fd = ::open(file.c_str(),
                  O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0) {
    error = errno == ELOOP
                ? symlinkRefused(file)
                : file + ": cannot be opened: " + std::strerror(errno);
    return Lock();
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = file + ": is not a regular file; refused";
    ::close(fd);
    return Lock();
  }
  while (::flock(fd, shared ? LOCK_SH : LOCK_EX) != 0) {
    if (errno != EINTR) {
      error = file + ": cannot be locked: " + std::strerror(errno);
      ::close(fd);
      return Lock();
    }
  }
  Lock held(fd, root, shared);
  // A writer starts from a committed history: what it reads under this lock
  // is what it appends to. A failure is left to the appends (the file's
  // size is not the recorded one: refused, nothing written).
  std::string ignored;
  if (!shared && recoverAfter)
    (void)recoverHeld(nullptr, ignored);
  return held;
}

bool Workspace::readLock(Lock &reading, std::string &error) const {
  if (lockHeldHere(root))
    return true; // this process's lock already keeps writers out
  reading = lock(error, /*shared=*/true);
  return reading.held();
}

bool Workspace::writeLock(Lock &writing, std::string &error) const {
  if (exclusiveHeldHere(root))
    return true;
  if (lockHeldHere(root)) {
    error = root + ": this process holds only a shared lock on the "
                   "workspace; an append needs the exclusive one";
    return false;
  }
  writing = lock(error, /*shared=*/false);
  return writing.held();
}

bool Workspace::recover(std::vector<Damage> &recovered,
                        std::string &error) const {
  recovered.clear();
  if (exclusiveHeldHere(root))
    return recoverHeld(&recovered, error);
  // chain.json is replaced whole (rename): a look without the lock says
  // whether there is anything to recover, and spares the lock when not.
  std::vector<Damage> damages;
  ChainHeads heads;
  if (!readHeads(root, heads, damages) ||
      llvm::none_of(heads, [](const auto &h) { return h.second.pending; }))
    return true;
  if (lockHeldHere(root)) {
    error = root + ": this process holds only a shared lock on the "
                   "workspace; recovering an append needs the exclusive one";
    return false;
  }
  Lock writing = takeLock(error, /*shared=*/false, /*recoverAfter=*/false);
  return writing.held() && recoverHeld(&recovered, error);
}

namespace {
/// Exclusive locks this process holds, on any workspace, and the signal
/// mask from before the first.
int exclusiveLocks = 0;
sigset_t maskBefore;

/// While a process holds a workspace exclusively it writes (a line, then
/// chain.json): SIGTERM, SIGINT and SIGHUP wait until it lets go, so that a
/// request cancelled or interrupted then (tirx serve's cancel, Ctrl-C) ends
/// after a whole append, never between a line and its head.
void deferSignals(bool hold) {
  if (hold && exclusiveLocks++ == 0) {
    sigset_t deferred;
    sigemptyset(&deferred);
    sigaddset(&deferred, SIGTERM);
    sigaddset(&deferred, SIGINT);
    sigaddset(&deferred, SIGHUP);
    sigprocmask(SIG_BLOCK, &deferred, &maskBefore);
  } else if (!hold && --exclusiveLocks == 0) {
    sigprocmask(SIG_SETMASK, &maskBefore, nullptr);
  }
}
} // namespace

Workspace::Lock::Lock(int fd, std::string root, bool shared)
    : fd(fd), root(std::move(root)), shared(shared) {
  Held &held = locksHeld()[this->root];
  ++held.count;
  if (!shared) {
    ++held.exclusive;
    deferSignals(true);
  }
}

Workspace::Lock::Lock(Lock &&other)
    : fd(other.fd), root(std::move(other.root)), shared(other.shared) {
  other.fd = -1;
}

Workspace::Lock &Workspace::Lock::operator=(Lock &&other) {
  if (this != &other) {
    release();
    fd = other.fd;
    root = std::move(other.root);
    shared = other.shared;
    other.fd = -1;
  }
  return *this;
}

void Workspace::Lock::release() {
  if (fd < 0)
    return;
  Held &held = locksHeld()[root];
  --held.count;
  ::flock(fd, LOCK_UN);
  ::close(fd);
  fd = -1;
  if (!shared) {
    --held.exclusive;
    deferSignals(false);
  }
}

Workspace::Lock::~Lock() { release(); }

bool Workspace::sync(std::string &error) const {
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::syncfs(fd) != 0) {
    error = root + ": syncfs failed: " + std::strerror(errno);
    if (fd >= 0)
      ::close(fd);
    return false;
  }
  ::close(fd);
  return true;
}
