//===- ReportTest.cpp - the report's data and page ------------------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The report from data alone (no workspace): escaping, which version is
// best, the path to it, speed-ups, and that every text of the data reaches
// the page escaped.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Profile.h"
#include "tirx/Harness/Report.h"

#include "gtest/gtest.h"

using namespace mlir::tirx;

namespace {
ReportVersion version(const std::string &id, const std::string &parent,
                      std::optional<double> us,
                      const std::string &correctness = "pass") {
  ReportVersion v;
  v.entry.id = id;
  v.entry.parent = parent;
  v.entry.message = "step " + id;
  v.hasFeedback = us.has_value();
  v.compileStatus = "ok";
  v.launchStatus = us ? "ok" : "not_run";
  v.correctness = correctness;
  v.durationUs = us;
  v.bytes = 1 << 20;
  v.flops = 1 << 18;
  return v;
}

ReportData tree() {
  ReportData d;
  d.target = "sm_90";
  d.versions = {version("v1", "", 200.0), version("v2", "v1", std::nullopt),
                version("v3", "v2", 100.0), version("v4", "v1", 50.0, "fail"),
                version("v5", "v1", 150.0)};
  d.versions[2].entry.action = R"({"transform":"vectorize"})";
  return d;
}
} // namespace

TEST(ReportTest, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(escapeHtml(R"(<a href="x" title='y'>&</a>)"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  EXPECT_EQ(escapeHtml("tab\tline\nbell\x07"), "tab\tline\nbell&#xFFFD;");
  EXPECT_EQ(escapeHtml(""), "");
}

TEST(ReportTest, BestIsTheFastestCorrectVersion) {
  ReportData d = tree();
  // v4 is faster but fails correctness; v2 is unmeasured.
  ASSERT_TRUE(d.best());
  EXPECT_EQ(d.versions[*d.best()].entry.id, "v3");
  EXPECT_EQ(d.seedUs(), 200.0);
  std::vector<size_t> path = d.pathTo(*d.best());
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(d.versions[path[0]].entry.id, "v1");
  EXPECT_EQ(d.versions[path[1]].entry.id, "v2");
  EXPECT_EQ(d.versions[path[2]].entry.id, "v3");
  EXPECT_EQ(d.versions[3].state(), "fail");
  EXPECT_EQ(d.versions[1].state(), "unmeasured");
  // An implausible timing is never ranked.
  d.versions[2].plausible = false;
  EXPECT_EQ(d.versions[*d.best()].entry.id, "v5");
  EXPECT_EQ(d.versions[2].state(), "fail");
}

TEST(ReportTest, NoBestWithoutACorrectTiming) {
  ReportData d;
  d.versions = {version("v1", "", std::nullopt)};
  EXPECT_FALSE(d.best());
  EXPECT_FALSE(d.seedUs());
  std::string page = renderReport(d);
  EXPECT_NE(page.find("No version is measured correct yet."), std::string::npos);
  EXPECT_FALSE(reportSummary(d).get("best"));
}

TEST(ReportTest, SummaryHasSpeedups) {
  ReportData d = tree();
  d.peers = {{"torch", 0.3}};
  llvm::json::Object s = reportSummary(d);
  EXPECT_EQ(s.getString("best"), llvm::StringRef("v3"));
  EXPECT_DOUBLE_EQ(*s.getNumber("speedup_over_seed"), 2.0);
  EXPECT_DOUBLE_EQ(*s.getObject("speedup_over_peers")->getNumber("torch"), 3.0);
  EXPECT_EQ(s.getInteger("ranked"), 3);
}

TEST(ReportTest, EveryTextReachesThePageEscaped) {
  ReportData d = tree();
  const std::string evil = "<script>alert('x')</script>";
  d.task = evil;
  d.target = evil;
  d.versions[2].entry.message = evil;
  d.versions[2].entry.action = evil;
  d.versions[2].bottleneck = evil;
  d.peers = {{evil, 1.0}};
  d.device.name = evil;
  d.kernels = {{evil, evil, 10.0, evil}};
  d.refusals = {{evil, evil, evil, evil, evil, evil, evil}};
  std::string page = renderReport(d);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"),
            std::string::npos);
}

TEST(ReportTest, PeersAreParsed) {
  llvm::Expected<ReportPeer> p = parsePeer("torch.compile=0.151");
  ASSERT_TRUE(bool(p));
  EXPECT_EQ(p->name, "torch.compile");
  EXPECT_DOUBLE_EQ(p->ms, 0.151);
  for (const char *bad : {"torch", "=1", "torch=", "torch=0", "torch=-2",
                          "torch=abc", "torch=inf", "torch=nan"}) {
    llvm::Expected<ReportPeer> q = parsePeer(bad);
    EXPECT_FALSE(bool(q)) << bad;
    if (!q)
      llvm::consumeError(q.takeError());
  }
}

TEST(ReportTest, ProfileTableRanksByShare) {
  std::vector<ProfileKernel> kernels(3);
  kernels[0].name = "k01-reduce";
  kernels[0].durationUs = 100;
  kernels[0].status = "timed";
  kernels[1].name = "k02-matmul";
  kernels[1].durationUs = 300;
  kernels[1].status = "timed";
  kernels[2].name = "k03-elementwise";
  kernels[2].status = "correctness_fail";
  kernels[2].detail = "run: y[0]: got 1, want 2";
  std::string table = profileTable(kernels);
  size_t first = table.find("k02-matmul"), second = table.find("k01-reduce"),
         third = table.find("k03-elementwise");
  ASSERT_NE(first, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_NE(table.find("75.0%"), std::string::npos);
  EXPECT_NE(table.find("25.0%"), std::string::npos);
  EXPECT_NE(table.find("run: y[0]: got 1, want 2"), std::string::npos);
  EXPECT_NE(table.find("total 400.0 us over the timed kernels"),
            std::string::npos);
}
