//===- MeasureTest.cpp - the worker as LLVM code calls it -----------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Measure.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <sys/stat.h>

using namespace mlir::tirx;
namespace rt = ::tirx::runtime;

namespace {

/// A stand-in worker: answers the greeting, then each request with `answer`.
std::string fakeWorker(const std::string &name, const std::string &answer) {
  llvm::SmallString<128> path;
  llvm::sys::fs::createTemporaryFile(name, "sh", path);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  os << "#!/bin/sh\nread line\n"
     << "echo '{\"id\":\"hello\",\"status\":\"ok\",\"seed\":5}'\n"
     << "while read line; do echo '" << answer << "'; done\n";
  os.close();
  chmod(path.c_str(), 0755);
  return path.str().str();
}

std::string bundle() {
  // A bundle the client can read (it reads the manifest before it asks).
  return std::string(TIRX_TEST_SOURCE_DIR) + "/test/Runner/Inputs/worker/ok";
}

TEST(Measure, FeedbackAsLLVMJson) {
  rt::WorkerConfig config;
  config.program = fakeWorker(
      "tirx-measure-ok",
      R"({"id":1,"status":"ok","feedback":{"launch_status":"ok","duration_us":12.5}})");
  rt::WorkerClient client(config);
  auto feedback = measure(client, bundle(), rt::MeasureOptions());
  ASSERT_TRUE(bool(feedback)) << llvm::toString(feedback.takeError());
  const llvm::json::Object *object = feedback->getAsObject();
  ASSERT_TRUE(object);
  EXPECT_EQ(object->getString("launch_status"), "ok");
  EXPECT_EQ(object->getNumber("duration_us"), 12.5);
}

TEST(Measure, NoFeedbackIsAnError) {
  rt::WorkerConfig config;
  config.program = fakeWorker(
      "tirx-measure-refused",
      R"({"id":1,"status":"error","error":"bundle: not a bundle"})");
  rt::WorkerClient client(config);
  auto feedback = measure(client, bundle(), rt::MeasureOptions());
  ASSERT_FALSE(bool(feedback));
  EXPECT_EQ(llvm::toString(feedback.takeError()), "bundle: not a bundle");
}

} // namespace
