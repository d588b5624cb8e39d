//===- DomainsTest.cpp - which inputs a payload needs nonnegative ---------===//
//
// tirx::inferNonnegativeArguments and annotateDomains on small payloads:
// what the proof reports (the argument and the op that needs it), that the
// analysis leaves the IR alone, that a user's attribute wins, and the
// limits of the proof (a chain deeper than it looks, shared terms proven
// once, a factor of unknown sign).
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/Domains.h"
#include "tirx/InitAllTIRx.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {
class DomainsTest : public ::testing::Test {
protected:
  DomainsTest() {
    DialectRegistry registry;
    mlir::tirx::registerTIRxToolDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The first func.func of `text`.
  func::FuncOp parse(StringRef text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    func::FuncOp func;
    if (module)
      module->walk([&](func::FuncOp f) {
        if (!func)
          func = f;
      });
    return func;
  }

  std::string domainOf(func::FuncOp func, unsigned i) {
    auto attr =
        func.getArgAttrOfType<StringAttr>(i, mlir::tirx::kDomainAttrName);
    return attr ? attr.str() : "";
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

constexpr const char *kNormalize = R"mlir(
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @norm(%x: tensor<4x8xf32>, %ss: tensor<4xf32>) -> tensor<4x8xf32> {
  %c = arith.constant 0.125 : f32
  %eps = arith.constant 1.0e-6 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %s, %c : f32
    %m1 = arith.addf %m, %eps : f32
    %inv = math.rsqrt %m1 : f32
    %y = arith.mulf %a, %inv : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}
)mlir";

TEST_F(DomainsTest, ReportsTheArgumentAndTheOpThatNeedsIt) {
  func::FuncOp func = parse(kNormalize);
  ASSERT_TRUE(func);
  SmallVector<mlir::tirx::InferredDomain> found =
      mlir::tirx::inferNonnegativeArguments(func);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].argument, 1u);
  EXPECT_EQ(found[0].use->getName().getStringRef(), "math.rsqrt");
  // Analysis only.
  EXPECT_EQ(domainOf(func, 1), "");
}

TEST_F(DomainsTest, AnnotatesOnceAndKeepsTheUsersAttribute) {
  func::FuncOp func = parse(kNormalize);
  ASSERT_TRUE(func);
  FailureOr<unsigned> marked = mlir::tirx::annotateDomains(func);
  ASSERT_TRUE(succeeded(marked));
  EXPECT_EQ(*marked, 1u);
  EXPECT_EQ(domainOf(func, 0), "");
  EXPECT_EQ(domainOf(func, 1), "nonnegative");
  marked = mlir::tirx::annotateDomains(func);
  ASSERT_TRUE(succeeded(marked));
  EXPECT_EQ(*marked, 0u);

  // The user's signed_unit stays, and stops the inference through it.
  func.setArgAttr(1, mlir::tirx::kDomainAttrName,
                  StringAttr::get(&context, "signed_unit"));
  EXPECT_TRUE(mlir::tirx::inferNonnegativeArguments(func).empty());
  marked = mlir::tirx::annotateDomains(func);
  ASSERT_TRUE(succeeded(marked));
  EXPECT_EQ(*marked, 0u);
  EXPECT_EQ(domainOf(func, 1), "signed_unit");
}

TEST_F(DomainsTest, DeclaredDomainsAndTheirProblems) {
  func::FuncOp func = parse(R"mlir(
func.func @f(%a: tensor<4xf32> {tirx.domain = "nonnegative"},
             %b: memref<4xf16> {tirx.domain = "signed_unit"},
             %c: tensor<4xf32>, %d: tensor<4xf32> {tirx.domain = "Nonnegative"},
             %e: f32 {tirx.domain = "nonnegative"},
             %f: tensor<4xi8> {tirx.domain = "nonnegative"},
             %g: tensor<4xf32> {tirx.domain = ["nonnegative"]}) {
  return
}
)mlir");
  ASSERT_TRUE(func);
  namespace rt = ::tirx::runtime;
  std::string problem;
  auto a = mlir::tirx::declaredDomain(func, 0, problem);
  ASSERT_TRUE(succeeded(a));
  EXPECT_EQ(*a, rt::Domain::nonnegative);
  auto b = mlir::tirx::declaredDomain(func, 1, problem);
  ASSERT_TRUE(succeeded(b));
  EXPECT_EQ(*b, rt::Domain::signed_unit);
  auto c = mlir::tirx::declaredDomain(func, 2, problem);
  ASSERT_TRUE(succeeded(c));
  EXPECT_FALSE(c->has_value());
  EXPECT_TRUE(failed(mlir::tirx::declaredDomain(func, 3, problem)));
  EXPECT_EQ(problem, "its tirx.domain is \"Nonnegative\"; expected "
                     "\"signed_unit\" or \"nonnegative\"");
  EXPECT_TRUE(failed(mlir::tirx::declaredDomain(func, 4, problem)));
  EXPECT_NE(problem.find("the scalar 'f32'"), std::string::npos) << problem;
  EXPECT_TRUE(failed(mlir::tirx::declaredDomain(func, 5, problem)));
  EXPECT_NE(problem.find("'tensor<4xi8>'"), std::string::npos) << problem;
  EXPECT_TRUE(failed(mlir::tirx::declaredDomain(func, 6, problem)));
  EXPECT_NE(problem.find("[\"nonnegative\"]"), std::string::npos) << problem;

  // annotateDomains refuses the first malformed one, naming it.
  std::string diagnostics;
  ScopedDiagnosticHandler handler(
      &context, [&](Diagnostic &diag) { diagnostics += diag.str(); });
  EXPECT_TRUE(failed(mlir::tirx::annotateDomains(func)));
  EXPECT_EQ(diagnostics.rfind("argument #3 (arg3) of @f: its tirx.domain", 0),
            0u)
      << diagnostics;
}

TEST_F(DomainsTest, AProofTooDeepOrOfUnknownSignMarksNothing) {
  // 100 positive scalings before the square root: beyond the proof's depth,
  // so nothing is marked (conservative), while 10 are followed.
  auto chain = [](int n) {
    std::string body;
    std::string v = "%x";
    for (int i = 0; i < n; ++i) {
      std::string next = "%v" + std::to_string(i);
      body += "  " + next + " = arith.mulf " + v + ", %c : tensor<4xf32>\n";
      v = next;
    }
    return "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  %c = arith.constant dense<2.0> : tensor<4xf32>\n" +
           body + "  %r = math.sqrt " + v + " : tensor<4xf32>\n" +
           "  return %r : tensor<4xf32>\n}\n";
  };
  func::FuncOp shallow = parse(chain(10));
  ASSERT_TRUE(shallow);
  EXPECT_EQ(mlir::tirx::inferNonnegativeArguments(shallow).size(), 1u);
  func::FuncOp deep = parse(chain(100));
  ASSERT_TRUE(deep);
  EXPECT_TRUE(mlir::tirx::inferNonnegativeArguments(deep).empty());

  // 60 doublings x + x, each term shared by both operands of the next: a
  // proof that visited each term once per use would take 2^60 steps.
  std::string doubling = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n";
  std::string v = "%x";
  for (int i = 0; i < 60; ++i) {
    std::string next = "%d" + std::to_string(i);
    doubling +=
        "  " + next + " = arith.addf " + v + ", " + v + " : tensor<4xf32>\n";
    v = next;
  }
  doubling += "  %r = math.log " + v +
              " : tensor<4xf32>\n"
              "  return %r : tensor<4xf32>\n}\n";
  func::FuncOp shared = parse(doubling);
  ASSERT_TRUE(shared);
  EXPECT_EQ(mlir::tirx::inferNonnegativeArguments(shared).size(), 1u);

  // x * y under a log: the product's sign is both factors' together.
  func::FuncOp product = parse(R"mlir(
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %p = arith.mulf %x, %y : tensor<4xf32>
  %r = math.log %p : tensor<4xf32>
  return %r : tensor<4xf32>
}
)mlir");
  ASSERT_TRUE(product);
  EXPECT_TRUE(mlir::tirx::inferNonnegativeArguments(product).empty());
}
} // namespace
