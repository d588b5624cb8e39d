//===- SearchTest.cpp - `tirx tune`: policies, database, resume ------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The search loop against a synthetic space (a deterministic cost model of
// six decisions with interactions between neighbours), so that policies,
// the database warm start and resuming are tested without a workspace or a
// GPU; and the decisions of a real payload's facts.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Kernels.h"
#include "tirx/Tune/Search.h"
#include "tirx/Tune/Space.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "gtest/gtest.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <set>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
std::string tempPath(const char *suffix) {
  llvm::SmallString<128> path;
  int fd;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("tirx-search", suffix, fd, path));
  ::close(fd);
  std::remove(path.c_str());
  return path.str().str();
}

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
double unit(uint64_t x) { return double(mix(x) % 1000000) / 1e6; }

/// Six decisions of 4 to 8 alternatives; the cost of a schedule is a
/// product of factors of each decision and its predecessor. Alternative 3
/// of decision 2 is always refused (not_divisible).
class Landscape : public ScheduleBuilder, public Measurer {
public:
  explicit Landscape(uint64_t salt = 0, int64_t rows = 1024)
      : salt(salt), rows(rows) {}

  static constexpr unsigned kDepth = 6;
  bool overlap = false; // pretend to build in the background
  bool concurrent() const override { return overlap; }
  static unsigned arity(unsigned d) { return 4 + (d * 3) % 5; }

  std::vector<Built> build(const std::vector<Proposal> &proposals) override {
    std::vector<Built> out;
    for (const Proposal &p : proposals) {
      ++builds;
      Built b;
      std::vector<unsigned> c;
      size_t hint = 0;
      for (unsigned d = 0; d < kDepth; ++d) {
        unsigned n = arity(d);
        unsigned want = d < p.genome.size() ? p.genome[d] % n : 0;
        if (p.hint && hint < p.hint->size()) {
          std::vector<json::Object> alts;
          for (unsigned a = 0; a < n; ++a)
            alts.push_back(action(d, a));
          int near = nearestAlternative(alts, *(*p.hint)[hint].getAsObject());
          if (near >= 0) {
            want = unsigned(near);
            ++hint;
          }
        }
        if (d == 2 && want == 3) {
          ++b.refusals["not_divisible"];
          want = (want + 1) % n; // the next alternative, as the builder does
        }
        c.push_back(want);
        b.path.push_back({n, want, transformOf(d)});
        b.schedule.push_back(action(d, want));
      }
      b.mapped = true;
      b.digest = "d";
      for (unsigned x : c)
        b.digest += "." + std::to_string(x);
      b.version = "v" + b.digest;
      costs[b.version] = cost(c);
      out.push_back(std::move(b));
    }
    return out;
  }

  Workload workload() override {
    Workload w;
    w.ops = {"linalg.generic"};
    w.iterators = {"pr"};
    w.shapes = {{rows, 4096}, {rows}};
    w.elementTypes = {"f32", "f32"};
    w.target = "sm_90";
    return w;
  }

  llvm::Expected<Measurement> measure(const MeasureRequest &r) override {
    ++measures;
    Measurement m;
    m.correctness = "pass";
    // A little noise, deterministic, different for each measurement.
    // The version names the choices: "vd.C0.C1...".
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(r.version).split(parts, '.');
    std::vector<unsigned> c;
    for (size_t i = 1; i < parts.size(); ++i)
      c.push_back(unsigned(std::stoul(parts[i].str())));
    m.medianUs = cost(c) * (1 + 0.002 * unit(measures + salt));
    m.samples = r.samples.value_or(100);
    m.bottleneck = bottleneck;
    return m;
  }

  Fingerprint fingerprint() override {
    Fingerprint f;
    f.gpu = "synthetic";
    f.uuid = "GPU-0";
    f.smCount = 132;
    return f;
  }

  double cost(const std::vector<unsigned> &c) const {
    double x = 100;
    for (unsigned d = 0; d < c.size(); ++d) {
      unsigned prev = d ? c[d - 1] : 0;
      x *= 0.6 + 0.5 * unit(d * 31 + c[d] + 1000 * salt) +
           0.4 * unit(d * 977 + prev * 13 + c[d] * 7 + 100000 * salt);
    }
    return x;
  }

  /// The best cost of the whole space (by enumeration).
  double optimum() const {
    double best = INFINITY;
    std::vector<unsigned> c(kDepth, 0);
    while (true) {
      if (c[2] != 3)
        best = std::min(best, cost(c));
      unsigned d = 0;
      while (d < kDepth && ++c[d] == arity(d))
        c[d++] = 0;
      if (d == kDepth)
        return best;
    }
  }

  /// Decision 3 is a vector width (the knowledge base's remedy of narrow
  /// accesses); the others are named by their depth.
  static std::string transformOf(unsigned d) {
    return d == 3 ? "vectorize" : "t" + std::to_string(d);
  }
  static json::Object action(unsigned d, unsigned a) {
    return json::Object{{"transform", transformOf(d)},
                        {"params", json::Object{{"v", int64_t(a + 1)}}}};
  }

  uint64_t salt;
  int64_t rows;
  std::string bottleneck; // what every measurement reports
  unsigned builds = 0, measures = 0;
  std::map<std::string, double> costs;
};

TuneOptions options(const std::string &policy, unsigned budget, uint64_t seed) {
  TuneOptions o;
  o.policy = policy;
  o.budget = budget;
  o.seed = seed;
  o.batch = 8;
  o.topK = 3;
  o.pairs = 4;
  return o;
}

double bestOf(const json::Object &report) {
  const json::Object *best = report.getObject("best");
  if (!best || !best->getObject("full"))
    return INFINITY;
  return best->getObject("full")->getNumber("median_us").value_or(INFINITY);
}

/// The 1-based index of the first candidate at most `target`.
int64_t reached(const json::Object &report, double target) {
  for (const json::Value &v : *report.getArray("all")) {
    const json::Object &c = *v.getAsObject();
    auto us = c.getNumber("median_us");
    if (us && *us <= target * 1.01)
      return *c.getInteger("index");
  }
  return -1;
}
} // namespace

TEST(TunePolicies, EvolutionAndTreeSearchBeatRandom) {
  // Over ten landscapes, the mean best cost found with 96 candidates.
  std::map<std::string, double> sum;
  for (uint64_t salt = 1; salt <= 10; ++salt)
    for (const char *policy : {"random", "evolutionary", "mcts", "greedy"}) {
      Landscape land(salt);
      llvm::Expected<json::Object> report =
          tune(land, &land, options(policy, 96, salt), {});
      ASSERT_TRUE(bool(report)) << llvm::toString(report.takeError());
      sum[policy] += bestOf(*report) / land.optimum();
    }
  for (auto &[policy, s] : sum)
    llvm::errs() << policy << ": mean best / optimum " << s / 10 << "\n";
  EXPECT_LT(sum["evolutionary"], sum["random"]);
  EXPECT_LT(sum["mcts"], sum["random"]);
}

TEST(TunePolicies, DeterministicGivenTheSeed) {
  for (const char *policy : {"random", "evolutionary", "mcts", "greedy"}) {
    Landscape a(3), b(3);
    auto ra = tune(a, &a, options(policy, 40, 7), {});
    auto rb = tune(b, &b, options(policy, 40, 7), {});
    ASSERT_TRUE(ra && rb);
    EXPECT_EQ(json::Value(json::Array(*ra->getArray("all"))),
              json::Value(json::Array(*rb->getArray("all"))))
        << policy;
  }
}

TEST(TunePolicies, TheAutomaticScheduleIsTheBaseline) {
  Landscape land(2);
  auto report = tune(land, &land, options("random", 20, 1), {});
  ASSERT_TRUE(bool(report));
  const json::Object *baseline = report->getObject("baseline");
  ASSERT_TRUE(baseline);
  EXPECT_EQ(baseline->getString("version"), "vd.0.0.0.0.0.0");
  EXPECT_EQ(baseline->getInteger("index"), 1);
  // Timed in full in the same run (tune-suite's greedy column), whether or
  // not it is among the leaders.
  const json::Object *full = baseline->getObject("full");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->getString("correctness"), "pass");
  EXPECT_GT(full->getNumber("median_us").value_or(0), 0);
  // The report says how sure it is: a paired comparison with an interval.
  const json::Object *best = report->getObject("best");
  ASSERT_TRUE(best);
  if (best->getString("version") != baseline->getString("version")) {
    const json::Object *vs = report->getObject("speedup_vs_baseline");
    ASSERT_TRUE(vs);
    const json::Object *paired = vs->getObject("paired");
    ASSERT_TRUE(paired);
    EXPECT_EQ(paired->getInteger("pairs"), 4);
    EXPECT_LE(*paired->getNumber("low"), *paired->getNumber("ratio"));
    EXPECT_GE(*paired->getNumber("high"), *paired->getNumber("ratio"));
    EXPECT_TRUE(paired->getString("verdict"));
  }
}

TEST(TunePolicies, RefusalsAreCountedAndNotRetried) {
  Landscape land(4);
  auto report = tune(land, &land, options("evolutionary", 30, 1), {});
  ASSERT_TRUE(bool(report));
  const json::Object *refusals = report->getObject("refusals");
  ASSERT_TRUE(refusals);
  EXPECT_GT(refusals->getInteger("not_divisible").value_or(0), 0);
  for (const auto &[version, cost] : land.costs) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(version).split(parts, '.');
    ASSERT_EQ(parts.size(), 7u);
    EXPECT_NE(parts[3], "3") << version; // the refused alternative: never taken
  }
}

TEST(TunePolicies, TheKnowledgeBaseProposesRemedies) {
  // Narrow accesses: after each new best, its vector width (decision 3) is
  // tried with the other values, the rest of the best kept.
  Landscape land(3);
  land.bottleneck = "narrow_global_access";
  auto report = tune(land, &land, options("random", 24, 1), {});
  ASSERT_TRUE(bool(report));
  EXPECT_GT(report->getInteger("knowledge_proposals").value_or(0), 0);
  const json::Array &all = *report->getArray("all");
  std::vector<std::string> remedies;
  for (const json::Value &v : all)
    if (v.getAsObject()->getString("origin") == "knowledge")
      remedies.push_back(v.getAsObject()->getString("version")->str());
  ASSERT_FALSE(remedies.empty());
  // Each differs from the automatic schedule (the first best) in decision
  // 3 alone: "vd.0.0.0.X.0.0".
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(remedies.front()).split(parts, '.');
  ASSERT_EQ(parts.size(), 7u);
  EXPECT_NE(parts[4], "0");
  for (size_t i : {1, 2, 3, 5, 6})
    EXPECT_EQ(parts[i], "0") << remedies.front();
  // Without a bottleneck: none.
  Landscape plain(3);
  auto none = tune(plain, &plain, options("random", 24, 1), {});
  ASSERT_TRUE(bool(none));
  EXPECT_EQ(none->getInteger("knowledge_proposals"), 0);
}

TEST(TuneDatabase, ASecondTuneStartsFromTheFirstsBest) {
  std::string db = tempPath("jsonl");
  Landscape first(5);
  TuneOptions o = options("evolutionary", 80, 1);
  o.dbPath = db;
  auto one = tune(first, &first, o, {});
  ASSERT_TRUE(bool(one));
  double best = bestOf(*one);
  ASSERT_TRUE(std::isfinite(best));
  EXPECT_GT(one->getObject("database")->getInteger("appended").value_or(0), 0);

  Landscape second(5);
  o.seed = 99; // another search: only the database connects the two
  auto two = tune(second, &second, o, {});
  ASSERT_TRUE(bool(two));
  EXPECT_GT(two->getObject("database")->getInteger("seeds").value_or(0), 0);
  int64_t at = reached(*two, best);
  EXPECT_GE(at, 1);
  EXPECT_LE(at, 80 / 10); // in a tenth of the first run's candidates
  std::remove(db.c_str());
}

TEST(TuneDatabase, AnotherShapeOfTheSameOpStartsFromItsFamily) {
  std::string db = tempPath("jsonl");
  Landscape first(6, 1024);
  TuneOptions o = options("evolutionary", 60, 1);
  o.dbPath = db;
  auto one = tune(first, &first, o, {});
  ASSERT_TRUE(bool(one));
  Landscape other(6, 4096); // the same costs, another shape
  ASSERT_NE(first.workload().signature(), other.workload().signature());
  o.budget = 4;
  o.seed = 5;
  auto two = tune(other, &other, o, {});
  ASSERT_TRUE(bool(two));
  EXPECT_GT(two->getObject("database")->getInteger("seeds").value_or(0), 0);
  const json::Array &all = *two->getArray("all");
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all[1].getAsObject()->getString("origin"), "db");
  EXPECT_LE(bestOf(*two), bestOf(*one) * 1.01);
  std::remove(db.c_str());
}

TEST(TuneDatabase, FiguresOfAnotherMachineAreNotUsed) {
  std::string db = tempPath("jsonl");
  Landscape first(7);
  TuneOptions o = options("random", 30, 1);
  o.dbPath = db;
  ASSERT_TRUE(bool(tune(first, &first, o, {})));
  class Elsewhere : public Landscape {
  public:
    using Landscape::Landscape;
    Fingerprint fingerprint() override {
      Fingerprint f = Landscape::fingerprint();
      f.uuid = "GPU-1";
      return f;
    }
  } second(7);
  auto two = tune(second, &second, o, {});
  ASSERT_TRUE(bool(two));
  EXPECT_EQ(two->getObject("database")->getInteger("seeds"), 0);
  std::remove(db.c_str());
}

TEST(TuneDatabase, ADamagedLineIsAClearError) {
  std::string db = tempPath("jsonl");
  std::ofstream(db) << "{\"schema\": 1, \"workload\":\n";
  Landscape land(1);
  TuneOptions o = options("random", 10, 1);
  o.dbPath = db;
  auto report = tune(land, &land, o, {});
  ASSERT_FALSE(bool(report));
  Refusal r = toRefusal(report.takeError());
  EXPECT_EQ(r.code, RefusalCode::bad_json);
  EXPECT_NE(r.message.find("line 1"), std::string::npos) << r.message;
  EXPECT_EQ(land.builds, 0u); // nothing tuned
  std::remove(db.c_str());
}

TEST(TuneState, AKilledTuneResumesWhereItStopped) {
  std::string state = tempPath("jsonl");
  Landscape whole(8);
  TuneOptions o = options("mcts", 48, 3);
  auto reference = tune(whole, &whole, o, {}); // uninterrupted, no state
  ASSERT_TRUE(bool(reference));

  Landscape killed(8);
  o.statePath = state;
  ASSERT_TRUE(bool(tune(killed, &killed, o, {})));
  // Keep the first 40 lines and half of the next: a kill mid-write.
  std::ifstream in(state);
  std::string line, kept;
  for (int i = 0; i < 40 && std::getline(in, line); ++i)
    kept += line + "\n";
  std::getline(in, line);
  kept += line.substr(0, line.size() / 2);
  in.close();
  std::ofstream(state, std::ios::trunc) << kept;

  Landscape resumed(8);
  auto again = tune(resumed, &resumed, o, {});
  ASSERT_TRUE(bool(again));
  EXPECT_GT(again->getInteger("resumed_lines").value_or(0), 30);
  EXPECT_LT(resumed.builds, killed.builds); // the recorded builds are reused
  EXPECT_LT(resumed.measures, killed.measures);
  EXPECT_EQ(json::Value(json::Array(*again->getArray("all"))).getAsArray()->size(),
            reference->getArray("all")->size());
  // The same search: the same candidates, in the same order.
  const json::Array &a = *again->getArray("all"), &b = *reference->getArray("all");
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    EXPECT_EQ(a[i].getAsObject()->getString("version"),
              b[i].getAsObject()->getString("version"));
  EXPECT_TRUE(again->getArray("state_skipped")); // the torn line, named
  std::remove(state.c_str());
}

TEST(TuneState, OverlappedBuildsAreDeterministicAndResume) {
  // The next batch builds while this one is measured: the policy sees
  // outcomes a batch late, still deterministic, still resumable.
  std::string state = tempPath("jsonl");
  Landscape a(9), b(9), c(9);
  a.overlap = b.overlap = c.overlap = true;
  TuneOptions o = options("evolutionary", 40, 2);
  auto ra = tune(a, &a, o, {});
  o.statePath = state;
  auto rb = tune(b, &b, o, {});
  ASSERT_TRUE(ra && rb);
  EXPECT_EQ(json::Value(json::Array(*ra->getArray("all"))),
            json::Value(json::Array(*rb->getArray("all"))));
  EXPECT_LT(bestOf(*ra), a.cost(std::vector<unsigned>(6, 0))); // beats auto
  auto rc = tune(c, &c, o, {}); // everything recorded: nothing rebuilt
  ASSERT_TRUE(bool(rc));
  EXPECT_EQ(c.builds, 0u);
  EXPECT_EQ(json::Value(json::Array(*rc->getArray("all"))),
            json::Value(json::Array(*rb->getArray("all"))));
  std::remove(state.c_str());
}

TEST(TuneOptionsCheck, BadOptionsAreRefused) {
  Landscape land(1);
  auto zero = tune(land, &land, options("random", 0, 1), {});
  ASSERT_FALSE(bool(zero));
  EXPECT_EQ(toRefusal(zero.takeError()).code, RefusalCode::usage);
  auto unknown = tune(land, &land, options("annealing", 10, 1), {});
  ASSERT_FALSE(bool(unknown));
  Refusal r = toRefusal(unknown.takeError());
  EXPECT_EQ(r.code, RefusalCode::usage);
  EXPECT_NE(r.hint.find("mcts"), std::string::npos);
  EXPECT_EQ(land.builds, 0u);
}

TEST(TuneOptionsCheck, CompileOnlyRanksNothing) {
  Landscape land(2);
  TuneOptions o = options("evolutionary", 20, 1);
  o.compileOnly = true;
  auto report = tune(land, nullptr, o, {});
  ASSERT_TRUE(bool(report));
  EXPECT_EQ(report->getInteger("candidates"), 20);
  EXPECT_FALSE(report->get("best"));
  EXPECT_EQ(land.measures, 0u);
  EXPECT_EQ(report->getBoolean("compile_only"), true);
}

namespace {
size_t linesOf(const std::string &path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);)
    ++n;
  return n;
}

/// A build without its timings (they differ from run to run).
json::Value untimed(Built b) {
  b.phasesMs.clear();
  return json::Value(b.toJSON());
}
} // namespace

TEST(TuneSpace, AKnownRealizationIsTheOneABuildProcessMakes) {
  std::string dir = tempPath("-ws");
  std::ifstream in(std::string(TIRX_TEST_SOURCE_DIR) +
                   "/test/Tune/Inputs/saxpy_2e20.mlir");
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  auto init = Session::init(dir, text, "saxpy", {}, {"test", ""});
  ASSERT_TRUE(bool(init)) << llvm::toString(init.takeError());
  BuilderOptions options;
  options.jobs = 2;
  std::vector<Proposal> proposals = {Proposal(Genome{}, "auto"),
                                     Proposal(Genome{1, 1}, "random"),
                                     Proposal(Genome{2, 0, 1}, "random")};
  WorkspaceBuilder builder(dir, "v1", {"test", ""}, ChildLimits{}, options);
  std::vector<Built> made = builder.build(proposals);
  ASSERT_EQ(made.size(), proposals.size());
  for (const Built &b : made) {
    EXPECT_TRUE(b.mapped) << b.error;
    EXPECT_TRUE(b.phasesMs.count("process")); // a build process each
  }
  EXPECT_NE(made[0].digest, made[1].digest);

  // Again: every step was made before; realized in the tune, with the same
  // decisions, schedule and versions, and nothing asked of the workspace.
  size_t audited = linesOf(dir + "/audit.jsonl");
  size_t versions = linesOf(dir + "/index.jsonl");
  std::vector<Built> again = builder.build(proposals);
  ASSERT_EQ(again.size(), proposals.size());
  for (size_t i = 0; i < made.size(); ++i) {
    EXPECT_FALSE(again[i].phasesMs.count("process")) << i;
    EXPECT_EQ(untimed(again[i]), untimed(made[i])) << i;
  }
  EXPECT_EQ(linesOf(dir + "/audit.jsonl"), audited);
  EXPECT_EQ(linesOf(dir + "/index.jsonl"), versions);

  // A builder that knows nothing asks the workspace (processes), which
  // answers each step with the same version: the same builds.
  WorkspaceBuilder fresh(dir, "v1", {"test", ""}, ChildLimits{}, options);
  std::vector<Built> anew = fresh.build(proposals);
  for (size_t i = 0; i < made.size(); ++i) {
    EXPECT_TRUE(anew[i].phasesMs.count("process")) << i;
    EXPECT_EQ(untimed(anew[i]), untimed(made[i])) << i;
  }
  EXPECT_EQ(linesOf(dir + "/index.jsonl"), versions);

  // A decision taken differently is a step not made before: a process, a
  // new version, from the same known prefix. (Another tile size at the
  // first decision.)
  std::vector<Built> other = builder.build({Proposal(Genome{3}, "random")});
  ASSERT_EQ(other.size(), 1u);
  EXPECT_TRUE(other[0].mapped) << other[0].error;
  EXPECT_TRUE(other[0].phasesMs.count("process"));
  for (const Built &b : made)
    EXPECT_NE(other[0].digest, b.digest);
  EXPECT_GT(linesOf(dir + "/index.jsonl"), versions);

  // Lowering: what a builder that lowers knows is lowered only once its
  // own build lowered it (a builder that did not lower knows no bundle).
  BuilderOptions lowering = options;
  lowering.lower = true;
  if (llvm::sys::findProgramByName("ptxas") ||
      llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas")) {
    WorkspaceBuilder lowers(dir, "v1", {"test", ""}, ChildLimits{}, lowering);
    std::vector<Built> one = lowers.build({proposals[0]});
    ASSERT_EQ(one.size(), 1u);
    EXPECT_TRUE(one[0].mapped) << one[0].error;
    EXPECT_TRUE(one[0].phasesMs.count("compile")); // lowered in a process
    EXPECT_TRUE(llvm::sys::fs::exists(dir + "/bundles/" + one[0].version +
                                      "/manifest.json"));
    std::vector<Built> twice = lowers.build({proposals[0]});
    EXPECT_FALSE(twice[0].phasesMs.count("process"));
    EXPECT_EQ(untimed(twice[0]), untimed(one[0]));
    // Not lowered yet: the second proposal's version takes a process.
    std::vector<Built> next = lowers.build({proposals[1]});
    EXPECT_TRUE(next[0].phasesMs.count("compile"));
  }
  llvm::sys::fs::remove_directories(dir);
}

TEST(TuneSpace, TheFirstAlternativesAreTheAutomaticSchedules) {
  // saxpy: 2^20 f32 elements, not tiled yet.
  PayloadFacts facts;
  OpFacts op;
  op.name = "linalg.generic";
  op.extents = {1 << 20};
  op.reduction = {false};
  op.elementType = "f32";
  facts.ops.push_back(op);
  std::optional<Choice> c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  std::vector<Step> steps = nextSteps(facts, {});
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(json::Value(json::Object(c->alternatives.front())),
            json::Value(json::Object(steps.front().candidates.front())));
  EXPECT_GT(c->alternatives.size(), 4u); // other tile sizes
  for (const json::Object &a : c->alternatives)
    EXPECT_TRUE(schemaDeclares(a));
  // In threads: vector widths, then "skip".
  facts.ops[0].stage = Stage::Thread;
  facts.ops[0].extents = {4};
  c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->optional);
  EXPECT_TRUE(c->alternatives.back().empty());
  EXPECT_EQ(c->alternatives.front().getString("transform"), "vectorize");
}

/// One f32 op of two parallel loops, in a block.
static PayloadFacts blockOf(const char *name, std::vector<int64_t> extents,
                            bool contiguous = true) {
  OpFacts op;
  op.name = name;
  op.extents = std::move(extents);
  op.reduction = {false, false};
  op.elementType = "f32";
  op.stage = Stage::Block;
  op.contiguous = contiguous;
  PayloadFacts facts;
  facts.ops.push_back(op);
  return facts;
}

TEST(TuneSpace, ThreadTilesBlockedAndCyclic) {
  // A row of 8192 f32 in a block: auto's [1, 8] in runs of 4 first; the
  // space has each count blocked and, with several vectors a thread,
  // cyclic (chunk: the vector's width).
  PayloadFacts facts = blockOf("linalg.generic", {1, 8192});
  std::optional<Choice> c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  const json::Object *first = c->alternatives.front().getObject("params");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->getInteger("chunk"), 4);
  int cyclic = 0, blocked8 = 0;
  for (const json::Object &a : c->alternatives) {
    EXPECT_TRUE(schemaDeclares(a));
    const json::Object *p = a.getObject("params");
    if (!p || a.getString("transform") != "tile_to_threads")
      continue;
    const json::Array *per = p->getArray("elements_per_thread");
    ASSERT_TRUE(per);
    int64_t inner = *per->back().getAsInteger();
    if (std::optional<int64_t> chunk = p->getInteger("chunk")) {
      ++cyclic;
      EXPECT_EQ(*chunk, 4);
      EXPECT_GT(inner, 4);
    } else if (inner == 8) {
      ++blocked8;
    }
  }
  EXPECT_GE(cyclic, 2); // 8 and 16 a thread at least
  EXPECT_EQ(blocked8, 1);
}

TEST(TuneSpace, AStridedBlockMayStageItsInputInSharedMemory) {
  // A transpose in a block: before its threads, an optional decision auto
  // does not make (skip first, so genome 0 stays the automatic schedule).
  PayloadFacts facts = blockOf("linalg.transpose", {32, 32}, false);
  std::optional<Choice> c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->optional);
  ASSERT_EQ(c->alternatives.size(), 4u);
  EXPECT_TRUE(c->alternatives.front().empty());
  EXPECT_EQ(c->alternatives[1].getString("transform"), "promote_to_shared");
  // Skipped: the threads come next, as auto has them.
  c = nextChoice(facts, {c->key});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->alternatives.front().getString("transform"), "tile_to_threads");
  // Promoted already: no such decision.
  facts.ops[0].promoted = true;
  c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->alternatives.front().getString("transform"), "tile_to_threads");
}

namespace {
OpFacts opOf(std::string name, int64_t index, std::vector<int64_t> extents,
             std::vector<bool> reduction, Stage stage = Stage::Top) {
  OpFacts op;
  op.name = std::move(name);
  op.index = index;
  op.extents = std::move(extents);
  op.reduction = std::move(reduction);
  op.elementType = op.inputType = "f32";
  op.stage = stage;
  return op;
}
} // namespace

TEST(TuneSpace, FusionIsADecisionOfTheSearch) {
  // RMSNorm as a fill, a row reduction and an elementwise op: auto goes in
  // program order (skip first); the search may put the last op in blocks
  // first (a row per block among the tiles).
  PayloadFacts facts;
  facts.ops.push_back(opOf("linalg.fill", 0, {1024}, {false}));
  facts.ops.push_back(opOf("linalg.generic", 0, {1024, 1024}, {false, true}));
  facts.ops.push_back(opOf("linalg.generic", 1, {1024, 1024}, {false, false}));
  std::optional<Choice> c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->optional);
  EXPECT_TRUE(c->alternatives.front().empty());
  bool rowPerBlock = false;
  for (const json::Object &a : c->alternatives) {
    if (a.empty())
      continue;
    EXPECT_EQ(a.getString("transform"), "tile_to_blocks");
    EXPECT_EQ(a.getObject("target")->getInteger("index"), 1);
    rowPerBlock |= json::Value(*a.getObject("params")->get("tile_sizes")) ==
                   json::Value(json::Array{1});
    EXPECT_TRUE(schemaDeclares(a));
  }
  EXPECT_TRUE(rowPerBlock);
  // Skipped: auto's first step. Auto now schedules a normalization as one
  // kernel itself (the last op a row per block, its producers fused: the
  // suite's one-kernel recipes), so its first step is the last op's blocks.
  std::optional<Choice> skipped = nextChoice(facts, {c->key});
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->alternatives.front().getString("transform"), "tile_to_blocks");
  EXPECT_EQ(skipped->alternatives.front().getObject("target")->getString("op"),
            "linalg.generic");
  // The consumer in blocks, its producer not yet: fuse it first, else skip.
  facts.ops[2].stage = Stage::Block;
  c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  ASSERT_EQ(c->alternatives.size(), 2u);
  EXPECT_EQ(c->alternatives[0].getString("transform"), "fuse_into");
  EXPECT_EQ(c->alternatives[0].getObject("target")->getInteger("index"), 0);
  EXPECT_TRUE(c->alternatives[1].empty());
  // One op alone: no such decision.
  PayloadFacts one;
  one.ops.push_back(facts.ops[1]);
  c = nextChoice(one, {});
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->alternatives.front().empty());
}

TEST(TuneSpace, SixteenBitMatmulsOnTensorCoresPipelined) {
  // f16 x f16 -> f32, 256^3: auto's tiles are 128x128 (the recipe's).
  PayloadFacts facts;
  facts.ops.push_back(opOf("linalg.matmul", 0, {256, 256, 256},
                           {false, false, true}));
  facts.ops[0].inputType = "f16";
  facts.ops[0].elementBytes = 4;
  std::optional<Choice> c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  EXPECT_EQ(json::Value(*c->alternatives.front().getObject("params")->get("tile_sizes")),
            json::Value(json::Array{128, 128}));
  // In a block, in the K loop, A and B in shared memory: warps on the
  // tensor cores first, other warp counts among the alternatives.
  facts.ops[0].extents = {128, 128, 32};
  facts.ops[0].stage = Stage::Block;
  facts.ops[0].inLoop = true;
  c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->alternatives.front().getString("transform"), "promote_to_shared");
  EXPECT_EQ(c->alternatives.front().getObject("params")->getInteger("padding"), 8);
  facts.ops[0].promoted = true;
  c = nextChoice(facts, {});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->alternatives.front().getString("transform"), "use_mma");
  unsigned warps = 0;
  for (const json::Object &a : c->alternatives)
    warps += a.getString("transform") == "use_mma";
  EXPECT_GT(warps, 4u);
  // Its staged loop of 16-bit tiles: pipelined (2 stages first), or not.
  PayloadFacts after;
  after.staged.push_back(StagedLoop{1, 2});
  c = nextChoice(after, {});
  ASSERT_TRUE(c);
  EXPECT_EQ(json::Value(json::Object(c->alternatives.front())),
            json::Value(pipelineAction(StagedLoop{1, 2}, 2)));
  EXPECT_TRUE(c->alternatives.back().empty());
  std::set<int64_t> stages;
  for (const json::Object &a : c->alternatives)
    if (!a.empty())
      stages.insert(*a.getObject("params")->getInteger("stages"));
  EXPECT_EQ(stages, (std::set<int64_t>{2, 3, 4}));
  // f32 tiles: auto does not pipeline them (skip first), the search may.
  after.staged[0].elementBytes = 4;
  std::vector<Step> steps = nextSteps(after, {});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].candidates.front().getString("transform"), "map_to_gpu");
  c = nextChoice(after, {});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->alternatives.front().empty());
  EXPECT_EQ(c->alternatives[1].getString("transform"), "pipeline");
  c = nextChoice(after, {c->key});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->alternatives.front().getString("transform"), "map_to_gpu");
}

TEST(TuneKernels, HottestFirstWithTheirShares) {
  json::Object profile{
      {"format", "tirx-profile"},
      {"kernels", json::Array{
                      json::Object{{"name", "k01-reduce"}, {"duration_us", 100.0},
                                   {"status", "timed"}},
                      json::Object{{"name", "k02-matmul"}, {"duration_us", 300.0},
                                   {"status", "timed"}},
                      json::Object{{"name", "k03-elementwise"},
                                   {"duration_us", 100.0}, {"status", "timed"}}}}};
  std::vector<RankedKernel> ranked = rankKernels(profile);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].name, "k02-matmul");
  EXPECT_DOUBLE_EQ(ranked[0].share, 0.6);
  EXPECT_EQ(ranked[1].name, "k01-reduce"); // ties keep program order
  // 100 s: 60, 20, 20; what the hottest leaves unused is not lost (the
  // tune passes what is left, so each split is of the rest).
  std::vector<double> seconds = splitBudget(ranked, 100, 1);
  EXPECT_DOUBLE_EQ(seconds[0], 60);
  EXPECT_DOUBLE_EQ(seconds[1], 20);
  EXPECT_DOUBLE_EQ(seconds[2], 20);
  // At least one candidate each, the rest by share.
  std::vector<double> few = splitBudget(ranked, 4, 1);
  EXPECT_GE(few[2], 1);
  EXPECT_EQ(std::llround(few[0]) + std::llround(few[1]) + std::llround(few[2]), 4);
  // Whole candidates: rounding each share alone can lose one (16 by
  // shares .405, .218, .218, .159: 6.5, 3.5, 3.0, 3.0 round to 15); the
  // running sum keeps all 16.
  auto withShares = [](std::vector<double> shares) {
    std::vector<RankedKernel> kernels(shares.size());
    for (size_t i = 0; i < shares.size(); ++i)
      kernels[i].share = shares[i];
    return kernels;
  };
  std::vector<RankedKernel> four = withShares({0.405, 0.218, 0.218, 0.159});
  std::vector<unsigned> whole = splitCandidates(four, 16);
  EXPECT_EQ(whole[0] + whole[1] + whole[2] + whole[3], 16u);
  for (unsigned c : whole)
    EXPECT_GE(c, 1u);
  EXPECT_GE(whole[0], whole[3]);
  std::vector<unsigned> least = splitCandidates(four, 2); // one each, at least
  EXPECT_EQ(least, (std::vector<unsigned>{1, 1, 1, 1}));
  // A hot kernel takes nearly all: the floor of one for the cold ones must
  // not come on top of the budget (shares .98, .01, .01 of 3 were 3, 1, 1).
  std::vector<RankedKernel> hot = withShares({0.98, 0.01, 0.01});
  EXPECT_EQ(splitCandidates(hot, 3), (std::vector<unsigned>{1, 1, 1}));
  EXPECT_EQ(splitCandidates(hot, 10), (std::vector<unsigned>{8, 1, 1}));
  std::vector<unsigned> eight =
      splitCandidates(withShares({0.9, 0.05, 0.03, 0.02}), 8);
  EXPECT_EQ(eight[0] + eight[1] + eight[2] + eight[3], 8u);
  // Without times (a compile-only profile): program order, equal shares.
  json::Object untimed{{"format", "tirx-profile"},
                       {"kernels", json::Array{
                                       json::Object{{"name", "a"}, {"status", "scheduled"}},
                                       json::Object{{"name", "b"}, {"status", "scheduled"}}}}};
  ranked = rankKernels(untimed);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].name, "a");
  EXPECT_DOUBLE_EQ(ranked[1].share, 0.5);
  // A kernel the profile could not time (its check failed) does not make
  // the others' shares equal: the timed ones keep theirs, it gets none.
  // (The transformer block's first H200 run: two of 20 kernels failed and
  // the 8 matmuls, 97% of the time, got 8 of 18 equal shares.)
  json::Object failed{
      {"format", "tirx-profile"},
      {"kernels", json::Array{
                      json::Object{{"name", "k01-matmul"}, {"duration_us", 900.0},
                                   {"status", "timed"}},
                      json::Object{{"name", "k02-elementwise"},
                                   {"status", "correctness_fail"}},
                      json::Object{{"name", "k03-reduce"}, {"duration_us", 100.0},
                                   {"status", "timed"}}}}};
  ranked = rankKernels(failed);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].name, "k01-matmul");
  EXPECT_DOUBLE_EQ(ranked[0].share, 0.9);
  EXPECT_DOUBLE_EQ(ranked[1].share, 0.1);
  EXPECT_EQ(ranked[2].name, "k02-elementwise");
  EXPECT_DOUBLE_EQ(ranked[2].share, 0);
}

TEST(TuneSpace, TheSchemaBoundsTheParameters) {
  EXPECT_TRUE(schemaDeclares(json::Object{
      {"transform", "reduce_in_block"}, {"params", json::Object{{"threads", 256}}}}));
  EXPECT_FALSE(schemaDeclares(json::Object{
      {"transform", "reduce_in_block"}, {"params", json::Object{{"lanes", 256}}}}));
  EXPECT_FALSE(schemaDeclares(json::Object{{"transform", "no_such_transform"}}));
}

TEST(TuneSpace, TheNearestAlternative) {
  std::vector<json::Object> alts;
  for (int64_t t : {32, 64, 128, 256})
    alts.push_back(json::Object{{"transform", "reduce_in_block"},
                                {"params", json::Object{{"threads", t}}}});
  json::Object wanted{{"transform", "reduce_in_block"},
                      {"params", json::Object{{"threads", 512}}}};
  EXPECT_EQ(nearestAlternative(alts, wanted), 3);
  wanted["params"] = json::Object{{"threads", 64}};
  EXPECT_EQ(nearestAlternative(alts, wanted), 1);
  EXPECT_EQ(nearestAlternative(alts, json::Object{{"transform", "vectorize"}}), -1);
}

TEST(TuneMeasurement, WhatAFeedbackSays) {
  auto of = [](const char *text) {
    return Measurement::ofFeedback(*json::parse(text)->getAsObject());
  };
  Measurement ok = of(R"({"launch_status": "ok", "correctness": "pass",
      "duration_us": 12.5, "sample_count": 10, "bottleneck": "memory_bound",
      "ghost_check": "caught", "plausible": true})");
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.medianUs, 12.5);
  EXPECT_EQ(ok.samples, 10);
  EXPECT_EQ(ok.bottleneck, "memory_bound");
  EXPECT_EQ(of(R"({"launch_status": "timeout", "error": "killed"})").code,
            "launch_timeout");
  EXPECT_EQ(of(R"({"launch_status": "error", "error": "illegal address"})").code,
            "launch_error");
  Measurement wrong = of(R"({"launch_status": "ok", "correctness": "fail",
      "correctness_detail": "y[0]: 1 != 2", "duration_us": 3})");
  EXPECT_EQ(wrong.code, "correctness_fail");
  EXPECT_EQ(wrong.message, "y[0]: 1 != 2");
  EXPECT_FALSE(wrong.ok());
  EXPECT_EQ(of(R"({"launch_status": "ok", "correctness": "pass",
      "ghost_check": "blind", "duration_us": 3})").code, "check_blind");
  EXPECT_EQ(of(R"({"launch_status": "ok", "correctness": "pass",
      "plausible": false, "implausible_reason": "faster than DRAM",
      "duration_us": 0.1})").code, "implausible");
  EXPECT_EQ(of(R"({"compile_status": "error"})").code, "compile_error");
}
