//===- TuneTest.cpp - tuning database, statistics, knowledge --------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/InitAllTIRx.h"
#include "tirx/Tune/Database.h"
#include "tirx/Tune/Knowledge.h"
#include "tirx/Tune/Stats.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <fstream>
#include <random>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
std::string tempFile() {
  llvm::SmallString<128> path;
  int fd;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("tirx-db", "jsonl", fd, path));
  ::close(fd);
  return path.str().str();
}

Workload rowSum(int64_t rows, int64_t cols) {
  Workload w;
  w.ops = {"linalg.generic"};
  w.iterators = {"pr"};
  w.shapes = {{rows, cols}, {rows}};
  w.elementTypes = {"f32", "f32"};
  w.target = "sm_90";
  return w;
}

Fingerprint h200() {
  Fingerprint f;
  f.gpu = "NVIDIA H200";
  f.uuid = "GPU-1";
  f.smCount = 132;
  f.driver = "580";
  f.cuda = "13.0";
  f.tirx = "0.2.0";
  return f;
}

TuningRecord record(const Workload &w, double us, int threads,
                    const Fingerprint &where, const char *correctness = "pass") {
  TuningRecord r;
  r.workload = w;
  r.schedule = json::Array{json::Object{
      {"transform", "reduce_in_block"},
      {"params", json::Object{{"threads", threads}}}}};
  r.medianUs = us;
  r.samples = 100;
  r.correctness = correctness;
  r.where = where;
  return r;
}

TEST(TuningDatabase, BestIsTheFastestCorrectOnTheSameMachine) {
  std::string path = tempFile();
  TuningDatabase db(path);
  Workload w = rowSum(1024, 16384);
  Fingerprint other = h200();
  other.uuid = "GPU-2"; // another card: its figures are not ours
  ASSERT_FALSE(bool(db.append(record(w, 30.0, 256, h200()))));
  ASSERT_FALSE(bool(db.append(record(w, 20.0, 512, h200()))));
  ASSERT_FALSE(bool(db.append(record(w, 10.0, 128, h200(), "fail"))));
  ASSERT_FALSE(bool(db.append(record(w, 5.0, 1024, other))));
  std::vector<TuningRecord> best = db.best(w, h200());
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].medianUs, 20.0);
  EXPECT_EQ(best[1].medianUs, 30.0);
  std::remove(path.c_str());
}

TEST(TuningDatabase, AnotherShapeStartsFromItsFamily) {
  std::string path = tempFile();
  TuningDatabase db(path);
  ASSERT_FALSE(bool(db.append(record(rowSum(1024, 16384), 20.0, 512, h200()))));
  Workload other = rowSum(4096, 4096);
  EXPECT_NE(other.signature(), rowSum(1024, 16384).signature());
  EXPECT_EQ(other.family(), rowSum(1024, 16384).family());
  std::vector<TuningRecord> best = db.best(other, h200());
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].workload.shapes[0][0], 1024);
  std::remove(path.c_str());
}

TEST(TuningDatabase, DamagedLinesAreSkippedAndNamed) {
  std::string path = tempFile();
  TuningDatabase db(path);
  ASSERT_FALSE(bool(db.append(record(rowSum(8, 8), 1.0, 32, h200()))));
  {
    std::ofstream out(path, std::ios::app);
    out << "{\"schema\": 1, \"workload\": \n";         // torn line
    out << std::string(100000, '[') << "\n";             // hostile depth
    out << "{\"schema\": 99}\n";                         // a future schema
  }
  ASSERT_FALSE(bool(db.append(record(rowSum(8, 8), 2.0, 64, h200()))));
  std::vector<std::string> skipped;
  std::vector<TuningRecord> all = db.read(&skipped);
  EXPECT_EQ(all.size(), 2u);
  ASSERT_EQ(skipped.size(), 3u);
  EXPECT_EQ(skipped[0].rfind("line 2:", 0), 0u);
  std::remove(path.c_str());
}

TEST(TuningDatabase, TornLastLineDoesNotSwallowTheNextRecord) {
  // A writer killed mid-write leaves a line without its newline: the next
  // append ends it first, so only the torn line is skipped.
  std::string path = tempFile();
  TuningDatabase db(path);
  ASSERT_FALSE(bool(db.append(record(rowSum(8, 8), 1.0, 32, h200()))));
  std::ofstream(path, std::ios::app) << "{\"schema\": 1, \"workl";
  ASSERT_FALSE(bool(db.append(record(rowSum(8, 8), 2.0, 64, h200()))));
  std::vector<std::string> skipped;
  std::vector<TuningRecord> all = db.read(&skipped);
  EXPECT_EQ(all.size(), 2u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].rfind("line 2:", 0), 0u) << skipped[0];
  std::remove(path.c_str());
}

TEST(TuningDatabase, ConcurrentWritersLoseNoLine) {
  std::string path = tempFile();
  const int writers = 8, each = 50;
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    pid_t pid = fork();
    if (pid == 0) {
      TuningDatabase db(path);
      for (int i = 0; i < each; ++i)
        if (db.append(record(rowSum(w + 1, i + 1), i, 32, h200())))
          _exit(1);
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::vector<std::string> skipped;
  EXPECT_EQ(TuningDatabase(path).read(&skipped).size(), size_t(writers * each));
  EXPECT_TRUE(skipped.empty());
  std::remove(path.c_str());
}

TEST(Workload, OfAPayload) {
  DialectRegistry registry;
  registerTIRxToolDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
      %0 = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x16xf16>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
      return %0 : tensor<64x16xf32>
    })mlir", &ctx);
  ASSERT_TRUE(m);
  Workload w = workloadOf(*m, "sm_90");
  ASSERT_EQ(w.ops.size(), 1u);
  EXPECT_EQ(w.ops[0], "linalg.matmul");
  EXPECT_EQ(w.iterators[0], "ppr");
  EXPECT_EQ(w.elementTypes, (std::vector<std::string>{"f16", "f16", "f32"}));
  EXPECT_EQ(w.shapes[2], (std::vector<int64_t>{64, 16}));
  std::optional<Workload> back = Workload::fromJSON(json::Value(w.toJSON()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->signature(), w.signature());
}

TEST(Stats, ConfidentOnlyWhenTheIntervalExcludesOne) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.5);
  std::vector<double> a, b, c;
  for (int i = 0; i < 40; ++i) {
    double drift = i * 0.05; // both drift together: pairing cancels it
    a.push_back(100 + drift + noise(rng));
    b.push_back(103 + drift + noise(rng)); // 3% slower
    c.push_back(100 + drift + noise(rng)); // the same
  }
  Comparison faster = comparePaired(a, b);
  EXPECT_EQ(faster.winner(), 1);
  EXPECT_NEAR(faster.ratio, 1.03, 0.01);
  EXPECT_GT(faster.low, 1.0);
  Comparison same = comparePaired(a, c);
  EXPECT_EQ(same.winner(), 0);
  EXPECT_LT(same.low, 1.0);
  EXPECT_GT(same.high, 1.0);
  EXPECT_EQ(comparePaired({1, 2}, {3, 4}).winner(), 0); // too few pairs
}

TEST(Knowledge, EveryClassifierBottleneckHasRemedies) {
  for (const char *b : {"memory_bound", "narrow_global_access",
                        "uncoalesced_access", "too_few_blocks", "launch_bound",
                        "compute_bound"})
    EXPECT_FALSE(remediesFor(b).empty()) << b;
  EXPECT_TRUE(remediesFor("unknown").empty());
  // Several vectors a thread, blocked: the cyclic distribution first.
  EXPECT_STREQ(remediesFor("uncoalesced_access").front().action,
               "tile_to_threads");
  json::Object kb = knowledgeJSON();
  EXPECT_EQ(kb.getArray("bottlenecks")->size(), 6u);
}
} // namespace
