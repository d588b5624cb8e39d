//===- SlurmTest.cpp - what Slurm's tools print, parsed ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The Slurm executor's readings (docs/scale-out.md): job ids as squeue and
// sacct print them (an array's pending tasks compressed into one record),
// their tables (a failed or unparsable call is no answer, never "no
// jobs"), and paths in sbatch's filename patterns. The executor itself
// runs against a stand-in Slurm in test/Tune/slurm-fake.test and a real
// one in test/Tune/slurm.test.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Executor.h"

#include "gtest/gtest.h"

using namespace mlir::tirx;

namespace {

std::vector<std::string> ids(llvm::StringRef id) {
  llvm::Expected<std::vector<std::string>> v = slurm::expandJobIds(id);
  if (!v) {
    ADD_FAILURE() << id.str() << ": " << llvm::toString(v.takeError());
    return {};
  }
  return *v;
}

std::string refusal(llvm::StringRef id) {
  llvm::Expected<std::vector<std::string>> v = slurm::expandJobIds(id);
  if (v)
    return "expanded to " + std::to_string(v->size()) + " ids";
  return llvm::toString(v.takeError());
}

using Ids = std::vector<std::string>;

TEST(Slurm, JobIdsAsTheyArePrinted) {
  EXPECT_EQ(ids("42"), Ids({"42"}));
  EXPECT_EQ(ids("42_7"), Ids({"42_7"}));
}

TEST(Slurm, CompressedArrayRecordsAreExpanded) {
  EXPECT_EQ(ids("42_[1-3%2]"), Ids({"42_1", "42_2", "42_3"}));
  EXPECT_EQ(ids("42_[1,3,5-7]"),
            Ids({"42_1", "42_3", "42_5", "42_6", "42_7"}));
  EXPECT_EQ(ids("42_[1,3,5-7%4]"),
            Ids({"42_1", "42_3", "42_5", "42_6", "42_7"}));
  EXPECT_EQ(ids("42_[2%2]"), Ids({"42_2"}));
  EXPECT_EQ(ids("42_[0-12:4]"), Ids({"42_0", "42_4", "42_8", "42_12"}));
}

TEST(Slurm, MalformedJobIdsAreRefused) {
  for (const char *bad : {"", "x", "42_", "42_x", "42_[", "42_[]", "42_[%2]",
                          "42_[3-1]", "42_[1-]", "42_[a-b]", "42_[1-3:0]",
                          "42_[1,,2]", "42_1]", "42+1", "42.batch",
                          "42_[0-1000000]"})
    EXPECT_NE(refusal(bad).find("job id"), std::string::npos) << bad;
  EXPECT_NE(refusal("42_[0-1000000]").find("more than 100000 tasks"),
            std::string::npos);
}

TEST(Slurm, SqueueRowsOnePerTask) {
  // squeue -h -t all -o "%i|%T|%N|%r", as Slurm 22.05 prints it.
  llvm::Expected<std::map<std::string, slurm::StatusRow>> rows =
      slurm::parseStatus("1_1|COMPLETED|vm|None\n"
                         "1_3|RUNNING|vm|None\n"
                         "1_[4-5%1]|PENDING||JobArrayTaskLimit\n"
                         "2|PENDING||ReqNodeNotAvail, UnavailableNodes:n[1-2]|x\n",
                         4);
  ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
  ASSERT_EQ(rows->size(), 5u);
  EXPECT_EQ((*rows)["1_1"].state, "COMPLETED");
  EXPECT_EQ((*rows)["1_3"].node, "vm");
  EXPECT_EQ((*rows)["1_4"].state, "PENDING");
  EXPECT_EQ((*rows)["1_5"].reason, "JobArrayTaskLimit");
  EXPECT_EQ((*rows)["2"].reason, "ReqNodeNotAvail, UnavailableNodes:n[1-2]|x");
}

TEST(Slurm, SacctRowsOnePerTask) {
  // sacct -n -P -X -o JobID,State: pending array tasks compressed.
  llvm::Expected<std::map<std::string, slurm::StatusRow>> rows =
      slurm::parseStatus("7_0|COMPLETED\n7_2|CANCELLED by 0\n"
                         "7_[1,3,5-6%2]|PENDING\n\n",
                         2);
  ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
  EXPECT_EQ(rows->size(), 6u);
  EXPECT_EQ((*rows)["7_2"].state, "CANCELLED");
  for (const char *pending : {"7_1", "7_3", "7_5", "7_6"})
    EXPECT_EQ((*rows)[pending].state, "PENDING") << pending;
  EXPECT_EQ(rows->count("7_4"), 0u);
}

TEST(Slurm, OutputThatDoesNotParseIsAnError) {
  for (const char *bad :
       {"slurm_load_jobs: Socket timed out on send/recv operation\n",
        "1_1|RUNN", "1_1|running|vm|None", "1_1||vm|None",
        "<html>|502|Bad|Gateway", "1_[1-|PENDING||None"}) {
    llvm::Expected<std::map<std::string, slurm::StatusRow>> rows =
        slurm::parseStatus(bad, 4);
    ASSERT_FALSE(bool(rows)) << bad;
    std::string why = llvm::toString(rows.takeError());
    EXPECT_NE(why.find("line 1"), std::string::npos) << why;
    EXPECT_NE(why.find("does not parse"), std::string::npos) << why;
  }
}

TEST(Slurm, HostileOutputIsBounded) {
  // Many lines of 100000 tasks each (each line within the per-id cap): the
  // whole answer is capped, and a reason is kept to 300 characters.
  std::string many;
  for (int job = 1; job <= 3; ++job)
    many += std::to_string(job) + "_[0-99999]|PENDING||None\n";
  llvm::Expected<std::map<std::string, slurm::StatusRow>> rows =
      slurm::parseStatus(many, 4);
  ASSERT_FALSE(bool(rows));
  EXPECT_NE(llvm::toString(rows.takeError()).find("tasks in one answer"),
            std::string::npos);
  auto one = slurm::parseStatus("5_1|PENDING|n|" + std::string(5000, 'x') +
                                    "\n",
                                4);
  ASSERT_TRUE(bool(one)) << llvm::toString(one.takeError());
  EXPECT_EQ(one->at("5_1").reason.size(), 300u);
}

TEST(Slurm, AFailedCallIsNoAnswer) {
  // Not "no jobs": the executor retries, then stops (slurm-fake.test).
  slurm::StatusAnswer a = slurm::statusAnswer(
      "squeue", 1, "",
      "slurm_load_jobs error: Unable to contact slurm controller (connect "
      "failure)\n",
      4);
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(a.rows.empty());
  EXPECT_EQ(a.error, "squeue failed (exit status 1): slurm_load_jobs error: "
                     "Unable to contact slurm controller (connect failure)");
  a = slurm::statusAnswer("squeue", -1, "", "squeue is not on PATH", 4);
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.error, "squeue failed (did not run): squeue is not on PATH");
  a = slurm::statusAnswer("squeue", 0, "garbage\n", "", 4);
  EXPECT_FALSE(a.ok);
  EXPECT_NE(a.error.find("squeue printed what does not parse: line 1"),
            std::string::npos)
      << a.error;
  a = slurm::statusAnswer("sacct", 1, "", "sacct: error: slurmdbd: Connection refused\n", 2);
  EXPECT_FALSE(a.ok);
  EXPECT_FALSE(a.disabled);
}

TEST(Slurm, AnswersThatAreNotFailures) {
  // One purged job id: squeue exits 1 (Slurm 22.05); the job is gone.
  slurm::StatusAnswer a = slurm::statusAnswer(
      "squeue", 1, "", "slurm_load_jobs error: Invalid job id specified\n", 4);
  EXPECT_TRUE(a.ok);
  EXPECT_TRUE(a.rows.empty());
  // Several, all purged: exit 0, nothing printed.
  a = slurm::statusAnswer("squeue", 0, "", "", 4);
  EXPECT_TRUE(a.ok);
  // No accounting on this cluster: known, not retried.
  a = slurm::statusAnswer("sacct", 1, "",
                          "Slurm accounting storage is disabled\n", 2);
  EXPECT_FALSE(a.ok);
  EXPECT_TRUE(a.disabled);
}

TEST(Slurm, PercentInAFilenamePatternIsDoubled) {
  llvm::Expected<std::string> p = slurm::filenamePattern("/s/%j/a%%b/%u");
  ASSERT_TRUE(bool(p));
  EXPECT_EQ(*p, "/s/%%j/a%%%%b/%%u");
  p = slurm::filenamePattern("/plain/dir");
  ASSERT_TRUE(bool(p));
  EXPECT_EQ(*p, "/plain/dir");
}

TEST(Slurm, BackslashOrControlCharacterInAPathIsRefused) {
  for (const char *bad : {"/s/a\\b", "/s/a\nb", "/s/\tb"}) {
    llvm::Expected<std::string> p = slurm::filenamePattern(bad);
    ASSERT_FALSE(bool(p)) << bad;
    EXPECT_NE(llvm::toString(p.takeError()).find("--output pattern"),
              std::string::npos);
  }
}

} // namespace
