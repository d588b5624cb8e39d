//===- ExecutorTest.cpp - `tirx tune` with several measurements in flight -===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The tune loop through the executor interface (Measurer::measureBatch,
// measureSeries, slots): the same search as one measurement at a time,
// every candidate screened once, results kept in order whatever order the
// devices finish in, runs cut short by an interrupt measured again (once)
// by a rerun; and the helpers of the local executor (docs/scale-out.md).
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Executor.h"
#include "tirx/Tune/Search.h"

#include "tirx/Support/Refusal.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {

std::string tempPath() {
  llvm::SmallString<128> path;
  int fd;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("tirx-executor", "jsonl", fd, path));
  ::close(fd);
  std::remove(path.c_str());
  return path.str().str();
}

/// Three decisions of four alternatives; cost from the choices, no noise.
class Cube : public ScheduleBuilder {
public:
  std::vector<Built> build(const std::vector<Proposal> &proposals) override {
    std::vector<Built> out;
    for (const Proposal &p : proposals) {
      Built b;
      b.digest = "d";
      for (unsigned d = 0; d < 3; ++d) {
        unsigned c = d < p.genome.size() ? p.genome[d] % 4 : 0;
        b.path.push_back({4, c, "t" + std::to_string(d)});
        b.schedule.push_back(json::Object{
            {"transform", "t" + std::to_string(d)},
            {"params", json::Object{{"v", int64_t(c)}}}});
        b.digest += "." + std::to_string(c);
      }
      b.mapped = true;
      b.version = "v" + b.digest;
      out.push_back(std::move(b));
    }
    return out;
  }
  Workload workload() override {
    Workload w;
    w.ops = {"linalg.generic"};
    w.iterators = {"p"};
    w.shapes = {{1024}};
    w.elementTypes = {"f32"};
    w.target = "sm_90";
    return w;
  }
};

double costOf(const std::string &version) {
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(version).split(parts, '.');
  double x = 100;
  for (size_t i = 1; i < parts.size(); ++i)
    x *= 0.7 + 0.1 * double((std::stoul(parts[i].str()) * (i + 2)) % 5);
  return x;
}

/// Times from the cost model. With `devices` > 1 it is an executor: a batch
/// runs "on" its devices in reverse order (the results still in order).
class Model : public Measurer {
public:
  explicit Model(unsigned devices) : devices(devices) {}
  llvm::Expected<Measurement> measure(const MeasureRequest &r) override {
    ++runs[r.mode + " " + r.version];
    Measurement m;
    m.correctness = "pass";
    m.medianUs = costOf(r.version);
    m.samples = 10;
    return m;
  }
  llvm::Expected<std::vector<Measurement>>
  measureBatch(const std::vector<MeasureRequest> &requests) override {
    if (devices == 1)
      return Measurer::measureBatch(requests);
    ++batches;
    largest = std::max(largest, requests.size());
    std::vector<Measurement> out(requests.size());
    for (size_t k = requests.size(); k-- > 0;) {
      if (interruptAfter && measured == interruptAfter)
        std::raise(SIGINT); // as at a terminal: the tune's handler sees it
      if (tuneInterrupted()) {
        out[k].code = "interrupted";
        continue;
      }
      ++measured;
      llvm::Expected<Measurement> m = measure(requests[k]);
      if (!m)
        return m.takeError();
      out[k] = *m;
      out[k].device = "gpu" + std::to_string(k % devices);
    }
    return out;
  }
  unsigned slots() const override { return devices; }
  Fingerprint fingerprint() override {
    Fingerprint f;
    f.gpu = "model";
    return f;
  }

  unsigned devices;
  unsigned batches = 0, measured = 0, interruptAfter = 0;
  size_t largest = 0;
  std::map<std::string, unsigned> runs; // "mode version" -> count
};

TuneOptions small(const std::string &state = "") {
  TuneOptions o;
  o.policy = "evolutionary";
  o.budget = 20;
  o.batch = 6;
  o.topK = 2;
  o.pairs = 3;
  o.statePath = state;
  return o;
}

std::vector<std::string> versions(const json::Object &report) {
  std::vector<std::string> v;
  for (const json::Value &c : *report.getArray("all"))
    v.push_back(c.getAsObject()->getString("version").value_or("").str());
  return v;
}

} // namespace

TEST(TuneExecutor, TheSameSearchAsOneAtATime) {
  Cube a, b;
  Model one(1), four(4);
  auto r1 = tune(a, &one, small());
  auto r4 = tune(b, &four, small());
  ASSERT_TRUE(bool(r1)) << llvm::toString(r1.takeError());
  ASSERT_TRUE(bool(r4)) << llvm::toString(r4.takeError());
  EXPECT_EQ(versions(*r1), versions(*r4));
  EXPECT_EQ(r1->getObject("best")->getString("version"),
            r4->getObject("best")->getString("version"));
  // The batches went to the executor, several requests at a time.
  EXPECT_GT(four.batches, 0u);
  EXPECT_GT(four.largest, 1u);
  // Every candidate screened exactly once.
  for (const auto &[key, n] : four.runs)
    if (llvm::StringRef(key).starts_with("screen ")) {
      EXPECT_EQ(n, 1u) << key;
    }
}

TEST(TuneExecutor, RunsCutShortAreMeasuredOnceByTheRerun) {
  std::string state = tempPath();
  Cube a, b;
  Model first(3);
  first.interruptAfter = 4; // the rest of that batch "interrupted"
  auto r1 = tune(a, &first, small(state));
  ASSERT_TRUE(bool(r1)) << llvm::toString(r1.takeError());
  EXPECT_TRUE(r1->getBoolean("interrupted").value_or(false));
  Model second(3);
  auto r2 = tune(b, &second, small(state));
  ASSERT_TRUE(bool(r2)) << llvm::toString(r2.takeError());
  // One screening line per digest in the state, across both runs.
  std::map<std::string, unsigned> lines;
  std::ifstream in(state);
  std::string line;
  while (std::getline(in, line)) {
    llvm::Expected<json::Value> v = json::parse(line);
    ASSERT_TRUE(bool(v));
    const json::Object &o = *v->getAsObject();
    if (o.getString("kind") == "measured" && o.getString("phase") == "screen")
      ++lines[o.getString("digest")->str()];
  }
  EXPECT_EQ(lines.size(), size_t(r2->getInteger("candidates").value_or(0)));
  for (const auto &[digest, n] : lines)
    EXPECT_EQ(n, 1u) << digest;
  // The first run's measured ones were not measured again.
  for (const auto &[key, n] : first.runs)
    if (llvm::StringRef(key).starts_with("screen ")) {
      EXPECT_EQ(second.runs.count(key), 0u) << key;
    }
  std::remove(state.c_str());
}

TEST(TuneExecutor, AMeasurementKeepsItsDevice) {
  Measurement m;
  m.correctness = "pass";
  m.medianUs = 150;
  m.device = "gpu3";
  m.copyGBps = 2000;
  m.scale = 1.5;
  m.attempts = 2;
  m.retried = "gpu1: the worker died of signal 9";
  Measurement back = Measurement::fromJSON(m.toJSON());
  EXPECT_EQ(back.device, "gpu3");
  EXPECT_EQ(back.copyGBps, 2000);
  EXPECT_EQ(back.scale, 1.5);
  EXPECT_EQ(back.attempts, 2u);
  EXPECT_EQ(back.retried, m.retried);
  EXPECT_DOUBLE_EQ(back.deviceUs(), 100);
  // One device: nothing of this in the JSON.
  Measurement plain;
  EXPECT_FALSE(plain.toJSON().get("device"));
  EXPECT_FALSE(plain.toJSON().get("scale"));
}

TEST(TuneExecutor, TheScaleOfAnotherDevice) {
  EXPECT_EQ(bandwidthScale(3000, 3000), 1);
  EXPECT_EQ(bandwidthScale(3080, 3000), 1); // within 3%: noise
  EXPECT_NEAR(bandwidthScale(2000, 3000), 2.0 / 3, 1e-12);
  EXPECT_EQ(bandwidthScale(0, 3000), 1);    // unknown: unscaled
  EXPECT_EQ(bandwidthScale(3000, 0), 1);
}

TEST(TuneExecutor, TheGpusOption) {
  auto ids = parseGpus("0,1,3");
  ASSERT_TRUE(bool(ids));
  EXPECT_EQ(*ids, (std::vector<std::string>{"0", "1", "3"}));
  auto twice = parseGpus("1,1");
  ASSERT_FALSE(bool(twice));
  EXPECT_NE(toRefusal(twice.takeError()).message.find("named twice"),
            std::string::npos);
  for (const char *bad : {"x", "", "0,", "-1", "2000"}) {
    auto e = parseGpus(bad);
    ASSERT_FALSE(bool(e)) << bad;
    EXPECT_EQ(toRefusal(e.takeError()).code, RefusalCode::usage) << bad;
  }
  const char *old = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string saved = old ? old : "";
  setenv("CUDA_VISIBLE_DEVICES", "2,5", 1);
  auto all = parseGpus("all");
  if (old)
    setenv("CUDA_VISIBLE_DEVICES", saved.c_str(), 1);
  else
    unsetenv("CUDA_VISIBLE_DEVICES");
  ASSERT_TRUE(bool(all));
  EXPECT_EQ(*all, (std::vector<std::string>{"2", "5"}));
}
