//===- AccessTest.cpp - wgmma written as inline PTX -----------------------===//
//
// tirx::inlineWgmma and opFlops on llvm.inline_asm ops: use_wgmma's form
// with A in registers is a warpgroup's M x N x K (its math type read from
// the text); other inline PTX, or a text whose shape wgmma does not have
// (a hand kernel's), is not taken for one.
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/Access.h"
#include "tirx/InitAllTIRx.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {
class InlineWgmmaTest : public ::testing::Test {
protected:
  InlineWgmmaTest() {
    DialectRegistry registry;
    mlir::tirx::registerTIRxToolDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(UnknownLoc::get(&context));
  }

  /// An llvm.inline_asm of `text` returning an f32.
  Operation *asmOf(StringRef text) {
    OpBuilder b(module->getBodyRegion());
    return LLVM::InlineAsmOp::create(
        b, b.getUnknownLoc(), b.getF32Type(), ValueRange{}, text, "=f",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(&context, LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};
} // namespace

TEST_F(InlineWgmmaTest, UseWgmmasRegisterForm) {
  Operation *op = asmOf(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {$0}, "
      "{$1, $2, $3, $4}, $5, p, 1, 1;\n}");
  std::optional<mlir::tirx::InlineWgmma> w = mlir::tirx::inlineWgmma(op);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->m, 64);
  EXPECT_EQ(w->n, 128);
  EXPECT_EQ(w->k, 8);
  EXPECT_EQ(w->typeA, "tf32");
  mlir::tirx::OpFlops flops = mlir::tirx::opFlops(op);
  EXPECT_EQ(flops.flops, 2 * 64 * 128 * 8);
  EXPECT_EQ(flops.threads, 128);
}

TEST_F(InlineWgmmaTest, OtherTextIsNotAWgmma) {
  // Other PTX, and texts that only look like wgmma's.
  for (StringRef text :
       {"ld.global.nc.b32 $0, [$1];",
        "wgmma.fence.sync.aligned;",
        "wgmma.mma_async.sync.aligned.m64n99999999999999999999k8.f32.tf32.tf32",
        "wgmma.mma_async.sync.aligned.m64n4096k4096.f32.f16.f16 {$0}",
        "wgmma.mma_async.sync.aligned.m128n128k8.f32.tf32.tf32 {$0}",
        "wgmma.mma_async.sync.aligned.m64nk8.f32.tf32.tf32",
        "wgmma.mma_async.sync.aligned.m64n128k8",
        "wgmma.mma_async.sync.aligned.m64n128k8.f32"}) {
    Operation *op = asmOf(text);
    EXPECT_FALSE(mlir::tirx::inlineWgmma(op)) << text.str();
    EXPECT_EQ(mlir::tirx::opFlops(op).flops, 0) << text.str();
  }
}
