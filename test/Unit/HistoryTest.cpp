//===- HistoryTest.cpp - the tamper-evident workspace history ------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// Each test tampers with a workspace the way an agent or a person could
// (delete, edit, forge, swap, symlink) and checks that Workspace::check()
// names the file and line, that the reads serving data refuse, and that
// nothing lands outside the workspace. Before the chained history (format
// version 2) every one of these went unnoticed or, for the deep line,
// crashed the reader.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Harness/Store.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tirx;

namespace {

class HistoryTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tirx-history", dir));
    std::string error;
    auto created = Workspace::create(root(), "sm_90", "task", error);
    ASSERT_TRUE(created) << error;
    ws.emplace(*created);
    populate();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string root() const { return std::string(dir) + "/ws"; }
  std::string outside(const std::string &name) const {
    return std::string(dir) + "/" + name;
  }

  /// v1 (init), v2 and v3 (apply from v1); two accepted requests and a
  /// rejected one; three audit lines; HEAD v3.
  void populate() {
    std::string error, script;
    ASSERT_TRUE(ws->writeObject("script\n", script, error)) << error;
    for (int i = 1; i <= 3; ++i) {
      VersionEntry e;
      ASSERT_TRUE(ws->writeObject("payload " + std::to_string(i) + "\n",
                                  e.digest, error))
          << error;
      e.id = "v" + std::to_string(i);
      e.kind = i == 1 ? "init" : "apply";
      e.parent = i == 1 ? "" : "v1";
      e.script = i == 1 ? "" : script;
      e.message = "step " + std::to_string(i);
      ASSERT_TRUE(ws->appendVersion(e, error)) << error;
    }
    ASSERT_TRUE(ws->appendRequest({"sig-a", "accepted", "v2", "", ""}, error))
        << error;
    ASSERT_TRUE(ws->appendRequest(
        {"sig-b", "rejected", "", "script_failed", "it failed"}, error))
        << error;
    ASSERT_TRUE(ws->appendRequest({"sig-c", "accepted", "v3", "", ""}, error))
        << error;
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(ws->appendAudit(
          llvm::json::Object{{"command", "apply"}, {"n", int64_t(i)}}, error))
          << error;
    ASSERT_TRUE(ws->setHead("v3", error)) << error;
  }

  std::string read(const std::string &name) const {
    std::ifstream in(ws->path(name), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write(const std::string &name, const std::string &text) const {
    std::ofstream(ws->path(name), std::ios::binary | std::ios::trunc)
        << text;
  }
  std::vector<std::string> lines(const std::string &name) const {
    std::vector<std::string> out;
    std::string text = read(name);
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(text).split(parts, '\n', -1, false);
    for (llvm::StringRef p : parts)
      out.push_back(p.str());
    return out;
  }
  void writeLines(const std::string &name,
                  const std::vector<std::string> &ls) const {
    std::string text;
    for (const std::string &l : ls)
      text += l + "\n";
    write(name, text);
  }

  /// check()'s damages as "relative-file:line: problem" lines.
  std::string damages() const {
    std::string out;
    for (const Damage &d : ws->check()) {
      std::string file = d.file;
      if (llvm::StringRef(file).starts_with(root() + "/"))
        file = file.substr(root().size() + 1);
      out += file + ":" + std::to_string(d.line) + ": " + d.problem + "\n";
    }
    return out;
  }

  llvm::SmallString<128> dir;
  std::optional<Workspace> ws;
};

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)            \
      << "expected \"" << (needle) << "\" in:\n"                              \
      << (haystack)

TEST_F(HistoryTest, SoundWorkspaceHasNoDamage) {
  EXPECT_EQ(damages(), "");
  std::string error;
  std::vector<VersionEntry> entries;
  std::vector<RequestRecord> records;
  ASSERT_TRUE(ws->readHistory(entries, records, error)) << error;
  EXPECT_EQ(entries.size(), 3u);
  EXPECT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].code, "script_failed");
  std::vector<llvm::json::Object> audit;
  ASSERT_TRUE(ws->readAudit(audit, error)) << error;
  ASSERT_EQ(audit.size(), 3u);
  EXPECT_FALSE(audit[0].get("prev")); // the chain is the store's business
  // Every line is chained; the first to the genesis.
  for (const char *file : {"index.jsonl", "requests.jsonl", "audit.jsonl"})
    for (const std::string &line : lines(file))
      EXPECT_CONTAINS(line, "\"prev\":\"sha256:");
  // And it reopens.
  auto again = Workspace::open(root(), error);
  ASSERT_TRUE(again) << error;
  EXPECT_TRUE(again->readIndex(entries, error)) << error;
}

TEST_F(HistoryTest, DeletedLastIndexLine) {
  auto ls = lines("index.jsonl");
  ls.pop_back();
  writeLines("index.jsonl", ls);
  std::string error;
  std::vector<VersionEntry> entries;
  EXPECT_FALSE(ws->readIndex(entries, error));
  EXPECT_TRUE(entries.empty());
  EXPECT_CONTAINS(error, "index.jsonl:3: missing: the file ends after 2 "
                         "line(s), chain.json records 3");
  std::string d = damages();
  EXPECT_CONTAINS(d, "index.jsonl:3: missing");
  EXPECT_CONTAINS(d, "HEAD:0: names \"v3\", not a version");
  EXPECT_CONTAINS(d, "requests.jsonl:3: accepted request names version "
                     "\"v3\", which the index does not have");
  // The next append refuses to build on it.
  VersionEntry e{"v3", "v1", "sha256:" + std::string(64, 'b'), "commit"};
  EXPECT_FALSE(ws->appendVersion(e, error));
  EXPECT_CONTAINS(error, "where chain.json records");
  EXPECT_EQ(lines("index.jsonl").size(), 2u);
}

TEST_F(HistoryTest, EditedRequestLine) {
  auto ls = lines("requests.jsonl");
  size_t at = ls[1].find("it failed");
  ASSERT_NE(at, std::string::npos);
  ls[1].replace(at, 9, "it passed");
  writeLines("requests.jsonl", ls);
  std::string error;
  std::vector<RequestRecord> records;
  EXPECT_FALSE(ws->readRequests(records, error));
  EXPECT_TRUE(records.empty());
  EXPECT_CONTAINS(error, "requests.jsonl:3: chain broken: \"prev\" is");
  std::vector<VersionEntry> entries;
  EXPECT_FALSE(ws->readHistory(entries, records, error));
  EXPECT_CONTAINS(damages(), "requests.jsonl:3: chain broken");

  // The last line, edited: its digest is not the recorded head.
  ls = lines("requests.jsonl");
  ls[1].replace(at, 9, "it failed");
  ls[2].replace(ls[2].find("sig-c"), 5, "sig-d");
  writeLines("requests.jsonl", ls);
  EXPECT_FALSE(ws->readRequests(records, error));
  EXPECT_CONTAINS(error, "requests.jsonl:3: its digest");
  EXPECT_CONTAINS(error, "the last line was changed");
}

TEST_F(HistoryTest, ForgedWellFormedIndexLineAppended) {
  // Correctly chained to the last line, an existing object, the next id:
  // only chain.json's head tells it apart.
  auto ls = lines("index.jsonl");
  std::string forged =
      "{\"digest\":\"" + digestOf("payload 2\n") +
      "\",\"id\":\"v4\",\"kind\":\"commit\",\"parent\":\"v1\",\"prev\":\"" +
      digestOf(ls.back()) + "\"}";
  ls.push_back(forged);
  writeLines("index.jsonl", ls);
  std::string error;
  std::vector<VersionEntry> entries;
  EXPECT_FALSE(ws->readIndex(entries, error));
  EXPECT_CONTAINS(error, "index.jsonl:4: line(s) beyond the recorded head: "
                         "chain.json records 3 line(s), the file has 4");
  EXPECT_CONTAINS(damages(), "index.jsonl:4: line(s) beyond the recorded head");
}

/// chain.json with `file`'s append of `line` recorded as pending, as an
/// append records it before writing its line; `digest` replaces the
/// line's digest when given.
void setPending(const std::string &chainPath, const std::string &file,
                const std::string &line, const std::string &digest = "") {
  std::ifstream in(chainPath, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  auto parsed = llvm::json::parse(s.str());
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  llvm::json::Object *record = parsed->getAsObject()->getObject(file);
  ASSERT_TRUE(record);
  (*record)["pending"] =
      llvm::json::Object{{"offset", *record->getInteger("bytes")},
                         {"digest", digest.empty() ? digestOf(line) : digest},
                         {"line", line}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(*parsed));
  std::ofstream(chainPath, std::ios::binary | std::ios::trunc) << text;
}

/// The next index line a writer would append: v4, chained to v3's line.
std::string nextIndexLine(const std::vector<std::string> &ls) {
  return "{\"digest\":\"" + digestOf("payload 2\n") +
         "\",\"id\":\"v4\",\"kind\":\"commit\",\"parent\":\"v1\",\"prev\":\"" +
         digestOf(ls.back()) + "\"}";
}

TEST_F(HistoryTest, ForgedLineIsNotRecoveredByTheNextWriter) {
  // No append pending: a writer's lock and recover() leave the forged line
  // alone, and appends still refuse.
  auto ls = lines("index.jsonl");
  ls.push_back(nextIndexLine(ls));
  writeLines("index.jsonl", ls);
  std::string index = read("index.jsonl"), error;
  {
    Workspace::Lock lock = ws->lock(error);
    ASSERT_TRUE(lock.held()) << error;
  }
  std::vector<Damage> recovered;
  EXPECT_TRUE(ws->recover(recovered, error)) << error;
  EXPECT_TRUE(recovered.empty());
  EXPECT_EQ(read("index.jsonl"), index);
  std::string d = damages();
  EXPECT_CONTAINS(d, "index.jsonl:4: line(s) beyond the recorded head");
  EXPECT_CONTAINS(d, "no append is pending in chain.json");
  for (const Damage &damage : ws->check())
    EXPECT_FALSE(damage.recoverable) << damage.message();
  VersionEntry e{"v4", "v1", digestOf("payload 1\n"), "commit"};
  EXPECT_FALSE(ws->appendVersion(e, error));
  EXPECT_CONTAINS(error, "where chain.json records");
  EXPECT_NE(ws->appendRefusal("index.jsonl"), "");
  EXPECT_EQ(read("index.jsonl"), index);
}

TEST_F(HistoryTest, PendingAppendWhoseLineDiffersIsDamage) {
  // chain.json records an append of one line; another, well formed and
  // chained, is what follows the head: not the interrupted append.
  auto ls = lines("index.jsonl");
  std::string pending = nextIndexLine(ls), forged = pending;
  forged.replace(forged.find("\"parent\":\"v1\""), 13, "\"parent\":\"v2\"");
  setPending(ws->path("chain.json"), "index.jsonl", pending);
  ls.push_back(forged);
  writeLines("index.jsonl", ls);
  std::string index = read("index.jsonl"), error;
  std::vector<VersionEntry> entries;
  EXPECT_FALSE(ws->readIndex(entries, error));
  EXPECT_CONTAINS(error, "index.jsonl:4: line(s) beyond the recorded head: "
                         "chain.json records 3 line(s), the file has 4 (not "
                         "the append pending in chain.json");
  for (const Damage &damage : ws->check())
    EXPECT_FALSE(damage.recoverable) << damage.message();
  std::vector<Damage> recovered;
  EXPECT_TRUE(ws->recover(recovered, error)) << error;
  EXPECT_TRUE(recovered.empty());
  EXPECT_EQ(read("index.jsonl"), index);
  VersionEntry e{"v4", "v1", digestOf("payload 1\n"), "commit"};
  EXPECT_FALSE(ws->appendVersion(e, error));
  EXPECT_CONTAINS(error, "where chain.json records");
  EXPECT_EQ(read("index.jsonl"), index);

  // Nor a changed prefix of it (a cut-short line whose bytes differ).
  ls.pop_back();
  std::string cut = pending.substr(0, pending.size() / 2);
  cut[cut.size() - 1] ^= 1;
  writeLines("index.jsonl", ls);
  write("index.jsonl", read("index.jsonl") + cut);
  EXPECT_FALSE(ws->readIndex(entries, error));
  EXPECT_CONTAINS(error, "index.jsonl:4: damaged line");
  EXPECT_CONTAINS(damages(), "not the append pending in chain.json");
  EXPECT_TRUE(ws->recover(recovered, error)) << error;
  EXPECT_TRUE(recovered.empty());
  EXPECT_CONTAINS(read("index.jsonl"), cut);
}

TEST_F(HistoryTest, PendingAppendBuiltByHandIsRecovered) {
  // The documented journal format, written by hand: the pending line whole
  // beyond the head is completed; a prefix of it is rolled back.
  auto ls = lines("index.jsonl");
  std::string line = nextIndexLine(ls), index = read("index.jsonl");
  std::string chain = read("chain.json");
  setPending(ws->path("chain.json"), "index.jsonl", line);
  write("index.jsonl", index + line + "\n");
  std::string error;
  std::vector<VersionEntry> entries;
  ASSERT_TRUE(ws->readIndex(entries, error)) << error;
  EXPECT_EQ(entries.size(), 3u); // v4 is not committed yet
  std::vector<Damage> found = ws->check();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].recoverable);
  EXPECT_CONTAINS(found[0].message(), "index.jsonl:4: an append interrupted "
                                      "between its line and chain.json");
  std::vector<Damage> recovered;
  ASSERT_TRUE(ws->recover(recovered, error)) << error;
  ASSERT_EQ(recovered.size(), 1u);
  EXPECT_CONTAINS(recovered[0].problem, "completed");
  ASSERT_TRUE(ws->readIndex(entries, error)) << error;
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[3].id, "v4");
  EXPECT_EQ(damages(), "");

  // From the start again: a third of the line only.
  write("chain.json", chain);
  setPending(ws->path("chain.json"), "index.jsonl", line);
  write("index.jsonl", index + line.substr(0, line.size() / 3));
  ASSERT_TRUE(ws->readIndex(entries, error)) << error;
  EXPECT_EQ(entries.size(), 3u);
  ASSERT_TRUE(ws->recover(recovered, error)) << error;
  ASSERT_EQ(recovered.size(), 1u);
  EXPECT_CONTAINS(recovered[0].problem, "rolled back");
  EXPECT_EQ(read("index.jsonl"), index);
  EXPECT_EQ(read("chain.json").find("pending"), std::string::npos);
  EXPECT_EQ(damages(), "");
}

TEST_F(HistoryTest, PendingRecordNotMatchingItsLineIsDamage) {
  // A pending record whose digest is not its line's: chain.json is damaged
  // (never recovered from).
  auto ls = lines("index.jsonl");
  std::string line = nextIndexLine(ls);
  setPending(ws->path("chain.json"), "index.jsonl", line,
             digestOf("another line"));
  write("index.jsonl", read("index.jsonl") + line + "\n");
  std::string chain = read("chain.json"), index = read("index.jsonl");
  EXPECT_CONTAINS(damages(), "chain.json:0: damaged (the pending append of "
                             "index.jsonl is not an object with offset");
  std::string error;
  std::vector<VersionEntry> entries;
  EXPECT_FALSE(ws->readIndex(entries, error));
  std::vector<Damage> recovered;
  EXPECT_TRUE(ws->recover(recovered, error)) << error;
  EXPECT_TRUE(recovered.empty());
  EXPECT_FALSE(ws->appendAudit(llvm::json::Object{{"a", 1}}, error));
  EXPECT_EQ(read("chain.json"), chain);
  EXPECT_EQ(read("index.jsonl"), index);
}

TEST_F(HistoryTest, LineTooLongForTheJournalIsRefused) {
  std::string audit = read("audit.jsonl"), chain = read("chain.json"), error;
  EXPECT_FALSE(ws->appendAudit(
      llvm::json::Object{
          {"reason", std::string(Workspace::kMaxLineBytes, '"')}},
      error));
  EXPECT_CONTAINS(error, "audit.jsonl: a line of ");
  EXPECT_CONTAINS(error, "nothing appended");
  EXPECT_EQ(read("audit.jsonl"), audit);
  EXPECT_EQ(read("chain.json"), chain);
  // About the longest line accepted, of quotes (escaped in the line, and
  // escaped again in chain.json's record: four times as long there), is
  // appended and read back.
  std::string longest(Workspace::kMaxLineBytes / 2 - 100, '"');
  ASSERT_TRUE(ws->appendAudit(llvm::json::Object{{"reason", longest}}, error))
      << error;
  std::vector<llvm::json::Object> lines;
  ASSERT_TRUE(ws->readAudit(lines, error)) << error;
  EXPECT_EQ(lines.back().getString("reason")->str(), longest);
  EXPECT_EQ(damages(), "");
}

TEST_F(HistoryTest, SwappedDigestsBetweenTwoIndexLines) {
  auto ls = lines("index.jsonl");
  std::string d2 = digestOf("payload 2\n"), d3 = digestOf("payload 3\n");
  ASSERT_NE(ls[1].find(d2), std::string::npos);
  ls[1].replace(ls[1].find(d2), d2.size(), d3);
  ls[2].replace(ls[2].find(d3), d3.size(), d2);
  writeLines("index.jsonl", ls);
  std::string error;
  std::vector<VersionEntry> entries;
  EXPECT_FALSE(ws->readIndex(entries, error));
  EXPECT_CONTAINS(error, "index.jsonl:3: chain broken: \"prev\" is");
  std::string d = damages();
  EXPECT_CONTAINS(d, "index.jsonl:3: chain broken");
  EXPECT_CONTAINS(d, "index.jsonl:3: its digest"); // and v3's line changed
}

TEST_F(HistoryTest, AnyEditOfTheAuditLog) {
  std::string original = read("audit.jsonl");
  std::vector<VersionEntry> entries;
  std::string error;
  // A changed byte in every position of the first line: each is found.
  size_t first = original.find('\n');
  for (size_t i = 0; i < first; ++i) {
    std::string changed = original;
    changed[i] = changed[i] == 'x' ? 'y' : 'x';
    write("audit.jsonl", changed);
    std::string d = damages();
    EXPECT_CONTAINS(d, "audit.jsonl:");
  }
  // A deleted middle line, two swapped lines, a truncation, a removal.
  auto ls = llvm::SmallVector<std::string>();
  {
    write("audit.jsonl", original);
    auto all = lines("audit.jsonl");
    writeLines("audit.jsonl", {all[0], all[2]});
    EXPECT_CONTAINS(damages(), "audit.jsonl:2: chain broken");
    writeLines("audit.jsonl", {all[1], all[0], all[2]});
    EXPECT_CONTAINS(damages(), "audit.jsonl:1: chain broken");
    write("audit.jsonl", original.substr(0, original.size() - 10));
    EXPECT_CONTAINS(damages(), "audit.jsonl:3: damaged line (not a complete "
                               "JSON object; truncated write or edit)");
    ::unlink(ws->path("audit.jsonl").c_str());
    EXPECT_CONTAINS(damages(), "audit.jsonl:1: missing: the file ends after 0 "
                               "line(s), chain.json records 3");
    // An append refuses to restart the log.
    EXPECT_FALSE(ws->appendAudit(llvm::json::Object{{"a", 1}}, error));
    EXPECT_CONTAINS(error, "0 bytes where chain.json records");
  }
  write("audit.jsonl", original);
  EXPECT_EQ(damages(), "");
  // An appended blank line: the bytes disagree.
  write("audit.jsonl", original + "\n");
  EXPECT_CONTAINS(damages(), "audit.jsonl:4: damaged line");
}

TEST_F(HistoryTest, HeadSetToGarbage) {
  write("HEAD", "garbage\n");
  EXPECT_CONTAINS(damages(), "HEAD:0: names \"garbage\", not a version of "
                             "this workspace (it has 3)");
  write("HEAD", "v9\n");
  EXPECT_CONTAINS(damages(), "HEAD:0: names \"v9\"");
  std::string error;
  EXPECT_FALSE(ws->setHead("../etc", error));
  EXPECT_CONTAINS(error, "not a version id");
  EXPECT_TRUE(ws->setHead("v2", error)) << error;
  EXPECT_EQ(damages(), "");
}

TEST_F(HistoryTest, SymlinkedAuditLogIsNotFollowed) {
  std::string target = outside("elsewhere.txt");
  std::ofstream(target) << "outside\n";
  ::unlink(ws->path("audit.jsonl").c_str());
  ASSERT_EQ(::symlink(target.c_str(), ws->path("audit.jsonl").c_str()), 0);
  std::string error;
  EXPECT_FALSE(ws->appendAudit(llvm::json::Object{{"a", 1}}, error));
  EXPECT_CONTAINS(error, "audit.jsonl: is a symbolic link; refused");
  std::ifstream in(target);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "outside\n");
  std::vector<llvm::json::Object> audit;
  EXPECT_FALSE(ws->readAudit(audit, error));
  EXPECT_CONTAINS(error, "is a symbolic link");
  EXPECT_CONTAINS(damages(), "audit.jsonl:0: is a symbolic link");

  // A dangling one: O_CREAT would have made its target.
  ::unlink(ws->path("audit.jsonl").c_str());
  std::string missing = outside("created.txt");
  ASSERT_EQ(::symlink(missing.c_str(), ws->path("audit.jsonl").c_str()), 0);
  EXPECT_FALSE(ws->appendAudit(llvm::json::Object{{"a", 1}}, error));
  EXPECT_FALSE(llvm::sys::fs::exists(missing));
  // Same for the index.
  ::unlink(ws->path("index.jsonl").c_str());
  ASSERT_EQ(::symlink(missing.c_str(), ws->path("index.jsonl").c_str()), 0);
  VersionEntry e{"v4", "v1", "sha256:" + std::string(64, 'b'), "commit"};
  EXPECT_FALSE(ws->appendVersion(e, error));
  EXPECT_FALSE(llvm::sys::fs::exists(missing));
}

TEST_F(HistoryTest, HardLinkedLogIsNotAppendedTo) {
  std::string target = outside("linked.txt");
  ASSERT_EQ(::link(ws->path("requests.jsonl").c_str(), target.c_str()), 0);
  std::string before = read("requests.jsonl"), error;
  EXPECT_FALSE(ws->appendRequest({"sig-e", "rejected", "", "x", "y"}, error));
  EXPECT_CONTAINS(error, "hard links; refused");
  EXPECT_EQ(read("requests.jsonl"), before);
}

TEST_F(HistoryTest, SymlinkedLockIsNotFollowed) {
  std::string target = outside("lock-elsewhere");
  ::unlink(ws->path("lock").c_str());
  ASSERT_EQ(::symlink(target.c_str(), ws->path("lock").c_str()), 0);
  std::string error;
  Workspace::Lock lock = ws->lock(error);
  EXPECT_FALSE(lock.held());
  EXPECT_CONTAINS(error, "lock: is a symbolic link; refused");
  EXPECT_FALSE(llvm::sys::fs::exists(target));
  std::vector<VersionEntry> entries;
  EXPECT_FALSE(ws->readIndex(entries, error));
  std::string index = read("index.jsonl");
  VersionEntry e{"v4", "v1", "sha256:" + std::string(64, 'b'), "commit"};
  EXPECT_FALSE(ws->appendVersion(e, error));
  EXPECT_EQ(read("index.jsonl"), index);
  EXPECT_FALSE(llvm::sys::fs::exists(target));
  // check() still runs, and says why it could not lock.
  EXPECT_CONTAINS(damages(), "lock:0: ");
}

TEST_F(HistoryTest, DeepJSONLineInTheIndex) {
  std::string index = read("index.jsonl");
  write("index.jsonl", index + std::string(100000, '[') + "\n");
  std::string error;
  std::vector<VersionEntry> entries;
  EXPECT_FALSE(ws->readIndex(entries, error)); // and no stack overflow
  EXPECT_CONTAINS(error, "index.jsonl:4: damaged line (JSON nested deeper "
                         "than 64 levels at byte 64)");
  EXPECT_CONTAINS(damages(), "index.jsonl:4: damaged line (JSON nested");
  // In workspace.json, open refuses it the same way.
  write("workspace.json", std::string(100000, '{'));
  auto reopened = Workspace::open(root(), error);
  EXPECT_FALSE(reopened);
  EXPECT_CONTAINS(error, "JSON nested deeper than 64 levels");
}

TEST_F(HistoryTest, HugeNumberInAnIndexLine) {
  auto ls = lines("index.jsonl");
  ls.push_back("{\"id\":\"v4\",\"n\":1e400}");
  writeLines("index.jsonl", ls);
  EXPECT_CONTAINS(damages(), "index.jsonl:4: damaged line (JSON number 1e400 "
                             "at byte 15 is outside the range of a double)");
}

TEST_F(HistoryTest, ChangedWorkspaceJsonBreaksTheGenesis) {
  std::string meta = read("workspace.json");
  size_t at = meta.find("sm_90");
  ASSERT_NE(at, std::string::npos);
  write("workspace.json", meta.replace(at, 5, "sm_80"));
  std::string d = damages();
  EXPECT_CONTAINS(d, "index.jsonl:1: chain broken: \"prev\" is");
  EXPECT_CONTAINS(d, "not this file's genesis");
}

TEST_F(HistoryTest, ChainJsonDeletedOrForged) {
  std::string chain = read("chain.json");
  ::unlink(ws->path("chain.json").c_str());
  std::string error;
  std::vector<VersionEntry> entries;
  EXPECT_FALSE(ws->readIndex(entries, error));
  EXPECT_CONTAINS(error, "chain.json: missing");
  write("chain.json", "[[[");
  EXPECT_CONTAINS(damages(), "chain.json:0: damaged (not JSON");
  write("chain.json", chain);
  EXPECT_EQ(damages(), "");
}

TEST_F(HistoryTest, DamagedAndStrayObjects) {
  std::string d2 = digestOf("payload 2\n");
  std::string file = "objects/" + d2.substr(7) + ".mlir";
  write(file, "payload 2 changed\n");
  write("objects/" + std::string(64, 'c') + ".mlir", "stray\n");
  write("objects/notes.txt", "hello\n");
  std::string d = damages();
  EXPECT_CONTAINS(d, "index.jsonl:2: v2: " + ws->path(file) +
                         ": damaged: its content has digest");
  EXPECT_CONTAINS(d, "objects/" + std::string(64, 'c') +
                         ".mlir:0: damaged: its content has digest");
  EXPECT_CONTAINS(d, "objects/notes.txt:0: not an object's name");
  // The changed object is reported once, with the version.
  EXPECT_EQ(std::count(d.begin(), d.end(), '\n'), 3) << d;
}

TEST_F(HistoryTest, AcceptedRequestWithoutItsVersion) {
  std::string error;
  ASSERT_TRUE(ws->appendRequest({"sig-z", "accepted", "v9", "", ""}, error));
  std::vector<VersionEntry> entries;
  std::vector<RequestRecord> records;
  EXPECT_FALSE(ws->readHistory(entries, records, error));
  EXPECT_CONTAINS(error, "requests.jsonl:4: accepted request names version "
                         "\"v9\", which the index does not have");
  EXPECT_TRUE(entries.empty() && records.empty());
}

TEST_F(HistoryTest, ReadHistoryUnderTheWritersLock) {
  std::string error;
  Workspace::Lock lock = ws->lock(error);
  ASSERT_TRUE(lock.held()) << error;
  std::vector<VersionEntry> entries;
  std::vector<RequestRecord> records;
  ASSERT_TRUE(ws->readHistory(entries, records, error)) << error;
  EXPECT_EQ(entries.size(), 3u);
  // Appends use the held exclusive lock.
  ASSERT_TRUE(ws->appendAudit(llvm::json::Object{{"a", 1}}, error)) << error;
  lock.release();
  // A shared lock is not enough to append.
  Workspace::Lock shared = ws->lock(error, /*shared=*/true);
  ASSERT_TRUE(shared.held()) << error;
  EXPECT_FALSE(ws->appendAudit(llvm::json::Object{{"a", 2}}, error));
  EXPECT_CONTAINS(error, "holds only a shared lock");
  EXPECT_TRUE(ws->readHistory(entries, records, error)) << error;
  shared.release();
  EXPECT_EQ(damages(), "");
}

TEST_F(HistoryTest, OldFormatIsRefusedByName) {
  std::string meta = read("workspace.json");
  size_t at = meta.find("\"version\": 2");
  ASSERT_NE(at, std::string::npos) << meta;
  write("workspace.json", meta.replace(at, 12, "\"version\": 1"));
  std::string error;
  EXPECT_FALSE(Workspace::open(root(), error));
  EXPECT_CONTAINS(error, "a version 1 TIRx workspace; this tirx reads "
                         "version 2 only");
}

TEST_F(HistoryTest, SymlinksAnywhereAreReported) {
  ASSERT_EQ(::symlink("/tmp", ws->path("bundles").c_str()), 0);
  std::string d = damages();
  EXPECT_CONTAINS(d, "bundles:0: is a symbolic link");

  // objects/ moved elsewhere and replaced by a symlink to it: reported (and
  // not walked through), objects neither read nor written through it.
  std::string moved = outside("objects-elsewhere");
  ASSERT_EQ(::rename(ws->path("objects").c_str(), moved.c_str()), 0);
  ASSERT_EQ(::symlink(moved.c_str(), ws->path("objects").c_str()), 0);
  d = damages();
  EXPECT_CONTAINS(d, "objects:0: is a symbolic link");
  EXPECT_CONTAINS(d, "index.jsonl:1: v1: " + ws->path("objects") +
                         ": is a symbolic link; refused");
  std::string error, digest, text;
  EXPECT_FALSE(ws->writeObject("new payload\n", digest, error));
  EXPECT_CONTAINS(error, "objects: is a symbolic link; refused");
  EXPECT_FALSE(llvm::sys::fs::exists(moved + "/" + digest.substr(7) +
                                     ".mlir"));
  EXPECT_FALSE(ws->readObject(digestOf("payload 1\n"), text, error));
}

} // namespace
