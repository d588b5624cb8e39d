//===- SessionTest.cpp - the harness library ------------------------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// The Session API as a C++ embedder uses it: refusals arrive as data
// (RefusalError holding a Refusal with its payload op and hint), actions are
// built from the ODS ops, a resource limit is never remembered as the
// request's outcome, a repeated request returns the earlier one.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Actions.h"
#include "tirx/Harness/Session.h"
#include "tirx/InitAllTIRx.h"
#include "tirx/Support/Refusal.h"
// The isolation of MLIR work is internal to the harness library.
#include "../../lib/Harness/Isolation.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
const char *kSaxpy = R"mlir(
#map = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: memref<4096xf32>, %y: memref<4096xf32>, %out: memref<4096xf32>) {
  %a = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y : memref<4096xf32>, memref<4096xf32>) outs(%out : memref<4096xf32>) {
  ^bb0(%xi: f32, %yi: f32, %o: f32):
    %m = arith.mulf %a, %xi : f32
    %s = arith.addf %m, %yi : f32
    linalg.yield %s : f32
  }
  return
}
)mlir";

class ScratchDir {
public:
  ScratchDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tirx-session", dir));
  }
  ~ScratchDir() { llvm::sys::fs::remove_directories(dir); }
  std::string workspace() const { return std::string(dir) + "/ws"; }

private:
  llvm::SmallString<128> dir;
};

json::Value action(const char *text) {
  auto parsed = json::parse(text);
  EXPECT_TRUE(bool(parsed));
  return parsed ? std::move(*parsed) : json::Value(nullptr);
}

Session makeSession(const ScratchDir &dir) {
  llvm::Expected<Initialized> made =
      Session::init(dir.workspace(), kSaxpy, "saxpy", {}, {"test", ""});
  EXPECT_TRUE(bool(made)) << (made ? "" : toRefusal(made.takeError()).message);
  return std::move(made->session);
}

TEST(Refusal, EveryCodeHasOneName) {
  for (unsigned i = 0; i <= unsigned(RefusalCode::check_blind); ++i) {
    auto code = RefusalCode(i);
    EXPECT_EQ(codeNamed(codeName(code)), code) << codeName(code).str();
  }
  EXPECT_FALSE(codeNamed("no_such_code"));
  EXPECT_EQ(kindOf(RefusalCode::workspace_damaged), RefusalKind::Damaged);
  EXPECT_EQ(kindOf(RefusalCode::resource_limit), RefusalKind::Limit);
  // A cancelled request may succeed another time: never remembered, exit 4.
  EXPECT_EQ(codeNamed("cancelled"), RefusalCode::cancelled);
  EXPECT_EQ(kindOf(RefusalCode::cancelled), RefusalKind::Limit);
  EXPECT_EQ(exitStatusOf(Refusal(RefusalCode::cancelled, "")), 4);
}

TEST(Refusal, JSONRoundTrip) {
  Refusal r(RefusalCode::not_divisible, "4 does not divide 10", "try 2 or 5");
  r.payloadOp = "func @f / linalg.generic#0";
  r.location = "f.mlir:3:5";
  std::optional<Refusal> back = Refusal::fromJSON(json::Value(r.toJSON()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->code, r.code);
  EXPECT_EQ(back->message, r.message);
  EXPECT_EQ(back->hint, r.hint);
  EXPECT_EQ(back->payloadOp, r.payloadOp);
  EXPECT_EQ(back->location, r.location);
}

TEST(Refusal, SinkKeepsTheFirstAndNests) {
  MLIRContext ctx;
  reportRefusal(&ctx, Refusal(RefusalCode::internal, "nobody listens"));
  RefusalSink outer(&ctx);
  {
    RefusalSink inner(&ctx);
    reportRefusal(&ctx, Refusal(RefusalCode::not_divisible, "first"));
    reportRefusal(&ctx, Refusal(RefusalCode::bad_order, "second"));
    ASSERT_TRUE(inner.first());
    EXPECT_EQ(inner.first()->message, "first");
  }
  EXPECT_FALSE(outer.first());
  reportRefusal(&ctx, Refusal(RefusalCode::bad_order, "to the outer"));
  ASSERT_TRUE(outer.first());
  EXPECT_EQ(outer.first()->code, RefusalCode::bad_order);
}

TEST(Actions, VerifierRefusalArrivesAsData) {
  DialectRegistry registry;
  registerTIRxToolDialects(registry);
  MLIRContext ctx(registry);
  llvm::Expected<ActionScript> script = buildActionScript(
      ctx, action(R"({"transform": "vectorize", "params": {"width": 3}})"));
  ASSERT_FALSE(bool(script));
  Refusal r = toRefusal(script.takeError());
  EXPECT_EQ(r.code, RefusalCode::invalid_parameter);
  EXPECT_EQ(r.message, "width must be 1, 2, 4, 8 or 16, got 3");
}

TEST(Actions, OpsAndDefaultsComeFromODS) {
  DialectRegistry registry;
  registerTIRxToolDialects(registry);
  MLIRContext ctx(registry);
  // No template per action: the op is built from its name, its attributes
  // from the params; omitted parameters take the ODS defaults.
  llvm::Expected<ActionScript> script = buildActionScript(
      ctx, action(R"({"transform": "promote_to_shared",
                      "params": {"operands": [0, 1]}})"));
  ASSERT_TRUE(bool(script)) << toRefusal(script.takeError()).message;
  EXPECT_NE(script->script.find("transform.tirx.promote_to_shared"),
            std::string::npos);
  EXPECT_EQ(script->script.find("49152"), std::string::npos)
      << "a default was written out by the harness:\n" << script->script;
  for (const char *bad :
       {R"({"transform": "vectorize", "params": {"width": "4"}})",
        R"({"transform": "vectorize", "params": {"depth": 4}})",
        R"({"transform": "tile_to_blocks", "params": {}})",
        R"({"transform": "tile_to_blocks", "params": {"tile_sizes": [1, "x"]}})"}) {
    llvm::Expected<ActionScript> refused = buildActionScript(ctx, action(bad));
    ASSERT_FALSE(bool(refused)) << bad;
    EXPECT_EQ(toRefusal(refused.takeError()).code,
              RefusalCode::invalid_parameter)
        << bad;
  }
  llvm::Expected<ActionScript> unknown =
      buildActionScript(ctx, action(R"({"transform": "frobnicate"})"));
  ASSERT_FALSE(bool(unknown));
  EXPECT_EQ(toRefusal(unknown.takeError()).code,
            RefusalCode::unknown_transform);
}

TEST(Session, PreconditionRefusalCarriesThePayloadOp) {
  ScratchDir dir;
  Session s = makeSession(dir);
  llvm::Expected<Result> out = s.applyAction(
      "v1", action(R"({"transform": "vectorize", "params": {"width": 4}})"));
  ASSERT_FALSE(bool(out));
  Refusal r = toRefusal(out.takeError());
  EXPECT_EQ(r.code, RefusalCode::bad_order);
  EXPECT_EQ(r.payloadOp, "func @saxpy / linalg.generic#0");
  EXPECT_EQ(r.hint, "apply tile_to_threads first");
  EXPECT_EQ(exitStatusOf(r), 1);
}

TEST(Session, RepeatedRequestsReturnTheEarlierOutcome) {
  ScratchDir dir;
  Session s = makeSession(dir);
  json::Value tile =
      action(R"({"transform": "tile_to_blocks", "params": {"tile_sizes": [256]}})");
  llvm::Expected<Result> first = s.applyAction("v1", tile);
  ASSERT_TRUE(bool(first)) << toRefusal(first.takeError()).message;
  EXPECT_EQ(first->version, "v2");
  llvm::Expected<Result> again = s.applyAction("v1", tile);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(again->version, "v2");
  EXPECT_TRUE(again->data.getBoolean("deduplicated").value_or(false));
  EXPECT_EQ(s.requestCount(), 3u); // init and the two applies
}

TEST(Session, AResourceLimitIsNotRemembered) {
  ScratchDir dir;
  // saxpy and a function of 40000 constants: parsing it needs tens of MiB
  // more than the child starts with (its context is a copy of the
  // parent's, every dialect loaded already: warmIsolation).
  std::string big = kSaxpy;
  big += "func.func @big() {\n";
  for (int i = 0; i < 40000; ++i)
    big += "  %c" + std::to_string(i) + " = arith.constant " +
           std::to_string(i) + " : i64\n";
  big += "  return\n}\n";
  llvm::Expected<Initialized> made =
      Session::init(dir.workspace(), big, "big", {}, {"test", ""});
  ASSERT_TRUE(bool(made)) << toRefusal(made.takeError()).message;
  Session s = std::move(made->session);
  json::Value tile =
      action(R"({"transform": "tile_to_blocks", "params": {"tile_sizes": [256]}})");
  // 64 MiB of address space, less than the child has mapped already: it
  // cannot grow, and the payload does not parse within it.
  s.limits().addressSpaceBytes = uint64_t(64) << 20;
  llvm::Expected<Result> limited = s.applyAction("v1", tile);
  ASSERT_FALSE(bool(limited));
  Refusal r = toRefusal(limited.takeError());
  EXPECT_EQ(r.code, RefusalCode::resource_limit) << r.message;
  EXPECT_EQ(exitStatusOf(r), 4);
  // The same request with room enough runs (it was not cached as refused).
  s.limits() = ChildLimits();
  llvm::Expected<Result> done = s.applyAction("v1", tile);
  ASSERT_TRUE(bool(done)) << toRefusal(done.takeError()).message;
  EXPECT_EQ(done->version, "v2");
}

TEST(Session, RecipeOrderIsCheckedBeforeAnythingRuns) {
  ScratchDir dir;
  Session s = makeSession(dir);
  llvm::Expected<Result> out = s.applyRecipe(
      "v1", action(R"([{"transform": "vectorize", "params": {"width": 4}},
                       {"transform": "tile_to_blocks", "params": {"tile_sizes": [256]}}])"),
      "bad-order");
  ASSERT_FALSE(bool(out));
  EXPECT_EQ(toRefusal(out.takeError()).code, RefusalCode::bad_order);
  llvm::Expected<Result> log = s.log();
  ASSERT_TRUE(bool(log));
  EXPECT_EQ(log->data.getArray("versions")->size(), 1u);
}
} // namespace

namespace {
/// Whether `path` can be opened with `flags` from a child that runs with
/// `access`: "opened", or the refusal's message.
std::string openInChild(const std::string &path, int flags,
                        ChildAccess access) {
  llvm::Expected<std::string> r = runIsolated(
      [&](MLIRContext &) -> llvm::Expected<std::string> {
        int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
        if (fd < 0)
          return refuse(RefusalCode::internal,
                        std::string("open: ") + std::strerror(errno));
        ::close(fd);
        return std::string("opened");
      },
      ChildLimits(), access);
  return r ? *r : toRefusal(r.takeError()).message;
}

TEST(Isolation, ScriptWorkIsDeniedFilesAndPrograms) {
  ScratchDir dir;
  std::string file = dir.workspace() + "-written";
  // With files allowed (views, lowering), the child writes.
  EXPECT_EQ(openInChild(file, O_WRONLY | O_CREAT, ChildAccess::Files),
            "opened");
  ::unlink(file.c_str());
  // Script work may not write, create or read any file, whatever pass or
  // op the script names, nor run a program.
  EXPECT_EQ(openInChild(file, O_WRONLY | O_CREAT, ChildAccess::None),
            "open: Operation not permitted");
  EXPECT_FALSE(llvm::sys::fs::exists(file));
  EXPECT_EQ(openInChild("/etc/passwd", O_RDONLY, ChildAccess::None),
            "open: Operation not permitted");
  llvm::Expected<std::string> exec = runIsolated(
      [&](MLIRContext &) -> llvm::Expected<std::string> {
        char *argv[] = {const_cast<char *>("/bin/true"), nullptr};
        execv(argv[0], argv);
        return std::string(std::strerror(errno));
      },
      ChildLimits(), ChildAccess::None);
  ASSERT_TRUE(bool(exec)) << toRefusal(exec.takeError()).message;
  EXPECT_EQ(*exec, "Operation not permitted");
}

TEST(Isolation, ProgramPastItsWallTimeIsKilledAsALimit) {
  auto started = std::chrono::steady_clock::now();
  llvm::Expected<int> r = runProgram({"/bin/sleep", "30"}, 1);
  ASSERT_FALSE(bool(r));
  Refusal refusal = toRefusal(r.takeError());
  EXPECT_EQ(refusal.code, RefusalCode::resource_limit);
  EXPECT_EQ(refusal.message,
            "sleep ran past its wall-time limit of 1 s and was killed");
  EXPECT_LT(std::chrono::steady_clock::now() - started,
            std::chrono::seconds(10));
  llvm::Expected<int> exited = runProgram({"/bin/sh", "-c", "exit 3"}, 5);
  ASSERT_TRUE(bool(exited));
  EXPECT_EQ(*exited, 3);
}
} // namespace
