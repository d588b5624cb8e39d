//===- WorkspaceTest.cpp - Workspace locking ------------------------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// A reader must never see a line that a writer is still appending. Another
// process holds the exclusive lock and writes half of an index line, waits,
// then completes it and records the new chain head; readIndex, started in
// between, must wait for the lock and read the whole line (without the
// shared lock it reads the half line and reports the index damaged).
//
// A writer killed (SIGKILL) inside an append, between its line and
// chain.json's new head, leaves the append pending in chain.json: the next
// exclusive lock completes it or rolls it back (the fault point
// TIRX_TEST_KILL_APPEND stops a writer at each step; the last test kills
// at random moments).
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Harness/Store.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir::tirx;

namespace {

/// A fresh directory, removed with everything in it at the end of a test.
class ScratchDir {
public:
  ScratchDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tirx-ws", dir));
  }
  ~ScratchDir() { llvm::sys::fs::remove_directories(dir); }
  std::string workspace() const { return std::string(dir) + "/ws"; }

  std::string path(const std::string &name) const {
    return std::string(dir) + "/" + name;
  }

private:
  llvm::SmallString<128> dir;
};

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeText(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

TEST(WorkspaceTest, ReaderWaitsForAHalfWrittenLine) {
  ScratchDir scratch;
  std::string error;
  auto ws = Workspace::create(scratch.workspace(), "sm_90", "", error);
  ASSERT_TRUE(ws) << error;
  // The exact line (chained to the genesis) and chain.json that an append
  // makes, taken from a copy of the fresh workspace (the same
  // workspace.json, so the same genesis).
  std::string copy = scratch.path("copy");
  ASSERT_FALSE(llvm::sys::fs::create_directories(copy + "/objects"));
  writeText(copy + "/workspace.json", readText(ws->path("workspace.json")));
  writeText(copy + "/chain.json", readText(ws->path("chain.json")));
  auto twin = Workspace::open(copy, error);
  ASSERT_TRUE(twin) << error;
  VersionEntry entry;
  entry.id = "v1";
  entry.digest = "sha256:" + std::string(64, 'a');
  entry.kind = "init";
  ASSERT_TRUE(twin->appendVersion(entry, error)) << error;
  std::string line = readText(copy + "/index.jsonl");
  std::string chain = readText(copy + "/chain.json");
  ASSERT_NE(line.find("\"prev\":\"sha256:"), std::string::npos) << line;

  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string err;
    Workspace::Lock lock = ws->lock(err);
    if (!lock.held())
      _exit(2);
    int fd = ::open(ws->path("index.jsonl").c_str(),
                    O_WRONLY | O_CREAT | O_APPEND, 0644);
    size_t half = line.size() / 2;
    if (::write(fd, line.data(), half) != (ssize_t)half)
      _exit(3);
    char go = 'g';
    if (::write(ready[1], &go, 1) != 1)
      _exit(4);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (::write(fd, line.data() + half, line.size() - half) !=
        (ssize_t)(line.size() - half))
      _exit(5);
    ::close(fd);
    writeText(ws->path("chain.json.new"), chain);
    if (std::rename(ws->path("chain.json.new").c_str(),
                    ws->path("chain.json").c_str()) != 0)
      _exit(6);
    _exit(0);
  }
  char go;
  ASSERT_EQ(::read(ready[0], &go, 1), 1);
  std::vector<VersionEntry> entries;
  bool ok = ws->readIndex(entries, error);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ASSERT_TRUE(ok) << error;
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].id, "v1");
}

// Without an fsync each (a tune's build processes), writes are as atomic
// and chained as ever: a writer killed between appends leaves a sound
// workspace, the chain head follows every line, and sync() flushes.
TEST(WorkspaceTest, WritesWithoutAnFsyncEachStayAtomicAndChained) {
  ScratchDir scratch;
  std::string error;
  auto ws = Workspace::create(scratch.workspace(), "sm_90", "", error);
  ASSERT_TRUE(ws) << error;
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto mine = Workspace::open(scratch.workspace(), error);
    if (!mine)
      _exit(2);
    mine->setDurable(false);
    for (int i = 1;; ++i) { // until killed
      std::string digest;
      if (!mine->writeObject("payload " + std::to_string(i) + "\n", digest, error))
        _exit(3);
      VersionEntry e;
      e.id = "v" + std::to_string(i);
      e.digest = digest;
      e.kind = "init";
      if (!mine->appendVersion(e, error) || !mine->setHead(e.id, error))
        _exit(4);
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // SIGTERM, which the write lock defers to the end of a whole append (a
  // SIGKILL there leaves an interrupted append, which the next writer
  // recovers: SigkillAtAnyMomentLeavesARecoverableWorkspace).
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped: " << status;
  std::vector<VersionEntry> entries;
  ASSERT_TRUE(ws->readIndex(entries, error)) << error;
  EXPECT_GT(entries.size(), 2u);
  std::vector<Damage> damages = ws->check();
  for (const Damage &d : damages)
    ADD_FAILURE() << d.message();
  for (const VersionEntry &e : entries) {
    std::string text;
    EXPECT_TRUE(ws->readObject(e.digest, text, error)) << error;
  }
  EXPECT_TRUE(ws->sync(error)) << error;
}

namespace {
/// The history as one text: ids, parents, digests, messages, requests.
std::string historyOf(const std::vector<VersionEntry> &entries,
                      const std::vector<RequestRecord> &records) {
  std::string out;
  for (const VersionEntry &e : entries)
    out += e.id + " " + e.parent + " " + e.digest + " " + e.message + "\n";
  for (const RequestRecord &r : records)
    out += r.signature + " " + r.outcome + " " + r.version + "\n";
  return out;
}

void appendSome(const Workspace &ws, int from, int to) {
  std::string error;
  for (int i = from; i <= to; ++i) {
    std::string digest;
    ASSERT_TRUE(ws.writeObject("payload " + std::to_string(i) + "\n", digest,
                               error))
        << error;
    VersionEntry e;
    e.id = "v" + std::to_string(i);
    e.parent = i > 1 ? "v" + std::to_string(i - 1) : "";
    e.digest = digest;
    e.kind = i > 1 ? "apply" : "init";
    e.message = "m" + std::to_string(i);
    ASSERT_TRUE(ws.appendVersion(e, error)) << error;
    ASSERT_TRUE(ws.appendRequest({"sig" + std::to_string(i), "accepted", e.id,
                                  "", ""},
                                 error))
        << error;
  }
}
} // namespace

// A Workspace remembers the logs it last read sound (their bytes) and
// parses only what was appended since; every byte is compared, so a read
// reports exactly what a fresh one does: appends by others, a line edited
// in place (same length), a line removed, each as a new Workspace reports
// it.
TEST(WorkspaceTest, AReadAfterAnotherAgreesWithAFreshRead) {
  ScratchDir scratch;
  std::string error;
  auto ws = Workspace::create(scratch.workspace(), "sm_90", "", error);
  ASSERT_TRUE(ws) << error;
  auto fresh = [&](std::string &why) {
    std::vector<VersionEntry> entries;
    std::vector<RequestRecord> records;
    auto other = Workspace::open(scratch.workspace(), why);
    if (!other || !other->readHistory(entries, records, why))
      return std::string("damaged");
    return historyOf(entries, records);
  };
  auto mine = [&](std::string &why) {
    std::vector<VersionEntry> entries;
    std::vector<RequestRecord> records;
    if (!ws->readHistory(entries, records, why))
      return std::string("damaged");
    return historyOf(entries, records);
  };
  appendSome(*ws, 1, 3);
  std::string a, b;
  ASSERT_EQ(mine(a), fresh(b)) << a << " / " << b;

  // Appended by another writer: seen.
  auto writer = Workspace::open(scratch.workspace(), error);
  ASSERT_TRUE(writer) << error;
  appendSome(*writer, 4, 6);
  std::string now = mine(a);
  EXPECT_EQ(now, fresh(b));
  EXPECT_NE(now.find("v6 v5"), std::string::npos) << now;

  // Line 2 edited in place, the same length: the same damage as a fresh
  // read finds (the bytes differ from the remembered ones).
  std::string index = scratch.workspace() + "/index.jsonl";
  std::string original = readText(index);
  std::string edited = original;
  size_t at = edited.find("\"m2\"");
  ASSERT_NE(at, std::string::npos);
  edited[at + 1] = 'x';
  writeText(index, edited);
  a.clear();
  b.clear();
  EXPECT_EQ(mine(a), "damaged");
  EXPECT_EQ(fresh(b), "damaged");
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("index.jsonl:3: chain broken"), std::string::npos) << a;

  // Restored: sound again, for both.
  writeText(index, original);
  EXPECT_EQ(mine(a), fresh(b));
  EXPECT_NE(mine(a), "damaged");

  // The last line removed: missing, as a fresh read says.
  writeText(index, original.substr(
                       0, original.rfind('\n', original.size() - 2) + 1));
  a.clear();
  b.clear();
  EXPECT_EQ(mine(a), "damaged");
  fresh(b);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("missing"), std::string::npos) << a;
  writeText(index, original);

  // A request line edited: the same damage in requests.jsonl.
  std::string requests = scratch.workspace() + "/requests.jsonl";
  std::string log = readText(requests);
  EXPECT_NE(mine(a), "damaged");
  std::string changed = log;
  changed[changed.find("sig5") + 3] = '9';
  writeText(requests, changed);
  a.clear();
  b.clear();
  EXPECT_EQ(mine(a), "damaged");
  fresh(b);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("requests.jsonl:6: chain broken"), std::string::npos) << a;
  writeText(requests, log);
  EXPECT_EQ(mine(a), fresh(b));
}

TEST(WorkspaceTest, SecondLockInOneProcessIsRefused) {
  ScratchDir scratch;
  std::string error;
  auto ws = Workspace::create(scratch.workspace(), "sm_90", "", error);
  ASSERT_TRUE(ws) << error;
  Workspace::Lock first = ws->lock(error);
  ASSERT_TRUE(first.held()) << error;
  // flock(2) on a new descriptor would wait on `first` forever.
  Workspace::Lock second = ws->lock(error);
  EXPECT_FALSE(second.held());
  EXPECT_NE(error.find("already locked by this process"), std::string::npos)
      << error;
  // Reads under the writer's own lock do not take another one.
  std::vector<VersionEntry> entries;
  EXPECT_TRUE(ws->readIndex(entries, error)) << error;
  first.release();
  Workspace::Lock again = ws->lock(error);
  EXPECT_TRUE(again.held()) << error;
}

} // namespace

TEST(WorkspaceTest, TerminationWaitsForTheExclusiveLock) {
  // A request cancelled (tirx serve sends SIGTERM) or interrupted (Ctrl-C)
  // while it appends must end after the append, never between a line and
  // chain.json: the exclusive lock defers SIGTERM, SIGINT and SIGHUP.
  ScratchDir scratch;
  std::string error;
  auto ws = Workspace::create(scratch.workspace(), "sm_90", "", error);
  ASSERT_TRUE(ws) << error;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    std::string e;
    Workspace::Lock lock = ws->lock(e);
    kill(getpid(), SIGTERM);
    // Still alive under the lock: it appends.
    bool appended = ws->appendAudit(llvm::json::Object{{"command", "x"}}, e);
    (void)!write(fds[1], appended ? "appended " : "failed ", appended ? 9 : 7);
    lock.release(); // the deferred SIGTERM ends the process here
    (void)!write(fds[1], "after", 5);
    _exit(0);
  }
  close(fds[1]);
  std::string said;
  char buffer[64];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0)
    said.append(buffer, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_EQ(said, "appended ");
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(ws->check().empty()) << ws->check().front().message();
}

namespace {

/// Appends one line to `file` in a child process that the fault point
/// TIRX_TEST_KILL_APPEND kills (SIGKILL) at `stage` of the append.
void killedAppend(const std::string &root, const std::string &file,
                  const std::string &stage) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::setenv("TIRX_TEST_KILL_APPEND", (file + ":" + stage).c_str(), 1);
    std::string e;
    auto mine = Workspace::open(root, e);
    if (!mine)
      _exit(2);
    bool ok;
    if (file == "index.jsonl") {
      VersionEntry v{"v3", "v1", digestOf("payload 3\n"), "commit"};
      ok = mine->appendVersion(v, e);
    } else if (file == "requests.jsonl") {
      ok = mine->appendRequest({"sig-killed", "accepted", "v2", "", ""}, e);
    } else {
      ok = mine->appendAudit(llvm::json::Object{{"command", "killed"}}, e);
    }
    _exit(ok ? 0 : 3);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "not killed: " << status;
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

/// A workspace with v1 and v2 (v2 from v1), a request and an audit line,
/// HEAD v2, and the objects "payload N\n" for N up to 4.
std::optional<Workspace> twoVersions(const std::string &root) {
  std::string error;
  auto ws = Workspace::create(root, "sm_90", "", error);
  EXPECT_TRUE(ws) << error;
  if (!ws)
    return ws;
  for (int i = 1; i <= 4; ++i) {
    std::string digest;
    EXPECT_TRUE(
        ws->writeObject("payload " + std::to_string(i) + "\n", digest, error))
        << error;
  }
  for (int i = 1; i <= 2; ++i) {
    VersionEntry e{"v" + std::to_string(i), i == 1 ? "" : "v1",
                   digestOf("payload " + std::to_string(i) + "\n"),
                   i == 1 ? "init" : "commit"};
    EXPECT_TRUE(ws->appendVersion(e, error)) << error;
  }
  EXPECT_TRUE(ws->setHead("v2", error)) << error;
  EXPECT_TRUE(ws->appendRequest({"sig-a", "accepted", "v2", "", ""}, error))
      << error;
  EXPECT_TRUE(ws->appendAudit(llvm::json::Object{{"command", "a"}}, error))
      << error;
  return ws;
}

/// The problems check() finds, each of them expected to be recoverable
/// (an interrupted append): a failure names any other.
std::vector<Damage> interruptedOnly(const Workspace &ws) {
  std::vector<Damage> recoverable;
  for (Damage &d : ws.check()) {
    if (d.recoverable)
      recoverable.push_back(d);
    else
      ADD_FAILURE() << d.message();
  }
  return recoverable;
}

std::string lineCount(const std::string &path) {
  std::string text = readText(path);
  return std::to_string(std::count(text.begin(), text.end(), '\n'));
}

} // namespace

// A writer killed (SIGKILL, as the clean-clone CI's kill once did) between
// an append's line and chain.json's update: the whole line is there, and
// pending in chain.json. Readers serve the recorded head; check() names it
// recoverable; the next writer's lock completes it (the line becomes the
// head), and its own append follows: the history is whole, fsck clean.
// For each of the three chained files.
TEST(WorkspaceTest, AppendKilledAfterItsLineIsCompletedByTheNextWriter) {
  for (const char *file : {"index.jsonl", "requests.jsonl", "audit.jsonl"}) {
    SCOPED_TRACE(file);
    ScratchDir scratch;
    auto ws = twoVersions(scratch.workspace());
    ASSERT_TRUE(ws);
    std::string before = lineCount(ws->path(file));
    killedAppend(scratch.workspace(), file, "line");
    EXPECT_EQ(lineCount(ws->path(file)), std::to_string(std::stoi(before) + 1));

    std::string error;
    std::vector<VersionEntry> entries;
    std::vector<RequestRecord> records;
    std::vector<llvm::json::Object> audit;
    ASSERT_TRUE(ws->readHistory(entries, records, error)) << error;
    ASSERT_TRUE(ws->readAudit(audit, error)) << error;
    EXPECT_EQ(entries.size(), 2u); // not v3: pending, not committed
    EXPECT_EQ(records.size(), 1u);
    EXPECT_EQ(audit.size(), 1u);
    std::vector<Damage> recoverable = interruptedOnly(*ws);
    ASSERT_EQ(recoverable.size(), 1u);
    EXPECT_EQ(recoverable[0].file, ws->path(file));
    EXPECT_EQ(recoverable[0].line, std::stoi(before) + 1);
    EXPECT_NE(recoverable[0].problem.find("its whole line"), std::string::npos)
        << recoverable[0].problem;
    // The appendRefusal a request asks first does not refuse it.
    EXPECT_EQ(ws->appendRefusal(file), "");

    // The next writer: under its lock the killed append is committed.
    {
      Workspace::Lock lock = ws->lock(error);
      ASSERT_TRUE(lock.held()) << error;
      ASSERT_TRUE(ws->readHistory(entries, records, error)) << error;
      ASSERT_TRUE(ws->readAudit(audit, error)) << error;
      bool index = std::string(file) == "index.jsonl";
      EXPECT_EQ(entries.size(), index ? 3u : 2u);
      EXPECT_EQ(records.size(),
                std::string(file) == "requests.jsonl" ? 2u : 1u);
      EXPECT_EQ(audit.size(), std::string(file) == "audit.jsonl" ? 2u : 1u);
      VersionEntry next{"v" + std::to_string(entries.size() + 1), "v1",
                        digestOf("payload 4\n"), "commit"};
      ASSERT_TRUE(ws->appendVersion(next, error)) << error;
      ASSERT_TRUE(ws->appendAudit(llvm::json::Object{{"command", "b"}}, error))
          << error;
    }
    ASSERT_TRUE(ws->readIndex(entries, error)) << error;
    EXPECT_EQ(entries.back().id,
              std::string(file) == "index.jsonl" ? "v4" : "v3");
    std::vector<Damage> damages = ws->check();
    for (const Damage &d : damages)
      ADD_FAILURE() << d.message();
    EXPECT_EQ(readText(ws->path("chain.json")).find("pending"),
              std::string::npos);
  }
}

// Killed after half of its line (or before any of it): the next writer
// rolls the append back (truncates to the recorded head); nothing of it is
// ever served. recover() says what it did.
TEST(WorkspaceTest, AppendKilledBeforeItsWholeLineIsRolledBack) {
  for (const char *stage : {"half", "pending"}) {
    for (const char *file : {"index.jsonl", "requests.jsonl", "audit.jsonl"}) {
      SCOPED_TRACE(std::string(file) + ":" + stage);
      ScratchDir scratch;
      auto ws = twoVersions(scratch.workspace());
      ASSERT_TRUE(ws);
      std::string before = readText(ws->path(file));
      killedAppend(scratch.workspace(), file, stage);
      std::string after = readText(ws->path(file));
      if (std::string(stage) == "half") {
        EXPECT_GT(after.size(), before.size());
        EXPECT_EQ(after.back() == '\n', false);
      } else {
        EXPECT_EQ(after, before);
      }
      EXPECT_NE(readText(ws->path("chain.json")).find("\"pending\""),
                std::string::npos);

      std::string error;
      std::vector<VersionEntry> entries;
      std::vector<RequestRecord> records;
      ASSERT_TRUE(ws->readHistory(entries, records, error)) << error;
      EXPECT_EQ(entries.size(), 2u);
      std::vector<Damage> recoverable = interruptedOnly(*ws);
      ASSERT_EQ(recoverable.size(), 1u);
      EXPECT_NE(recoverable[0].problem.find(std::string(stage) == "half"
                                                ? "truncates them away"
                                                : "nothing of its line"),
                std::string::npos)
          << recoverable[0].problem;

      std::vector<Damage> recovered;
      ASSERT_TRUE(ws->recover(recovered, error)) << error;
      ASSERT_EQ(recovered.size(), 1u);
      EXPECT_TRUE(recovered[0].recoverable);
      EXPECT_NE(recovered[0].problem.find(std::string(stage) == "half"
                                              ? "rolled back"
                                              : "record was cleared"),
                std::string::npos)
          << recovered[0].problem;
      EXPECT_EQ(readText(ws->path(file)), before);
      EXPECT_TRUE(ws->check().empty()) << ws->check().front().message();
      // Nothing left to do.
      ASSERT_TRUE(ws->recover(recovered, error)) << error;
      EXPECT_TRUE(recovered.empty());
      VersionEntry next{"v3", "v1", digestOf("payload 4\n"), "commit"};
      ASSERT_TRUE(ws->appendVersion(next, error)) << error;
      EXPECT_TRUE(ws->check().empty()) << ws->check().front().message();
    }
  }
}

// SIGKILL at any moment of a writer's loop of appends (the signal the
// write lock cannot defer): the next lock recovers whatever append it cut,
// and the workspace is sound, every time.
TEST(WorkspaceTest, SigkillAtAnyMomentLeavesARecoverableWorkspace) {
  ScratchDir scratch;
  auto ws = twoVersions(scratch.workspace());
  ASSERT_TRUE(ws);
  std::string error;
  int interrupted = 0;
  for (int round = 0; round < 40; ++round) {
    int started[2];
    ASSERT_EQ(::pipe(started), 0);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(started[0]);
      auto mine = Workspace::open(scratch.workspace(), error);
      if (!mine)
        _exit(2);
      for (int i = 0;; ++i) { // until killed
        if (i == 1 && ::write(started[1], "s", 1) != 1)
          _exit(4);
        llvm::json::Object line{{"round", round}, {"i", i}};
        if (!mine->appendAudit(line, error) ||
            !mine->appendRequest(
                {"sig-" + std::to_string(round) + "-" + std::to_string(i),
                 "rejected", "", "x", "y"},
                error))
          _exit(3);
      }
    }
    ::close(started[1]);
    char s;
    ASSERT_EQ(::read(started[0], &s, 1), 1); // in its loop of appends
    ::close(started[0]);
    std::this_thread::sleep_for(std::chrono::microseconds(97 * round));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped: " << status;
    for (const Damage &d : interruptedOnly(*ws))
      interrupted += d.recoverable;
    {
      Workspace::Lock lock = ws->lock(error);
      ASSERT_TRUE(lock.held()) << error;
    }
    std::vector<Damage> damages = ws->check();
    for (const Damage &d : damages)
      ADD_FAILURE() << "round " << round << ": " << d.message();
    ASSERT_TRUE(damages.empty());
  }
  std::vector<llvm::json::Object> audit;
  ASSERT_TRUE(ws->readAudit(audit, error)) << error;
  EXPECT_GT(audit.size(), 40u);
  // Most kills land inside an append (two chain.json replacements each):
  // the test kills where the journal matters.
  EXPECT_GT(interrupted, 0);
  std::cerr << interrupted << " of 40 kills interrupted an append\n";
}
