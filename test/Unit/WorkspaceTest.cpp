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
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Store.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"
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
  // SIGKILL between a line and chain.json's update leaves a line past the
  // recorded head, which fsck names: the clean-clone CI's kill landed
  // there once).
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
