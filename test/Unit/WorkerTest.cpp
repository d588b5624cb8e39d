//===- WorkerTest.cpp - the persistent worker without a GPU -----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The worker's requests, the premise of its device-side inputs (splitmix64
// is counter based, so element i can be drawn by any thread), its PTX
// (assembled by ptxas where one is installed), the busy protocol, and
// WorkerClient against programs that misbehave and against tirx-run on the
// stand-in driver (test/CudaRuntime/FakeDriver.cpp).
//
//===----------------------------------------------------------------------===//

#include "DeviceCheck.h"

#include "tirx/Runtime/Check.h"
#include "tirx/Runtime/Isolation.h"
#include "tirx/Runtime/Worker.h"
#include "tirx/Runtime/WorkerClient.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

using namespace tirx::runtime;

namespace {

WorkerRequest parsed(const std::string &line) {
  WorkerRequest r;
  std::string error;
  EXPECT_TRUE(parseWorkerRequest(line, r, error)) << line << ": " << error;
  return r;
}

std::string refused(const std::string &line) {
  WorkerRequest r;
  std::string error;
  EXPECT_FALSE(parseWorkerRequest(line, r, error)) << line;
  return error;
}

TEST(WorkerRequest, ModesSetTheirDefaults) {
  WorkerRequest screen = parsed(R"({"bundle": "b", "mode": "screen"})");
  EXPECT_EQ(screen.op, "measure");
  EXPECT_EQ(screen.inputs, 1);
  EXPECT_EQ(screen.samples, 10);
  EXPECT_EQ(screen.warmup, 1);
  EXPECT_EQ(screen.checkedLaunches, 1);
  EXPECT_FALSE(screen.seed);
  EXPECT_TRUE(screen.id.is_null());
  WorkerRequest full = parsed(R"({"bundle": "b", "id": "c1"})");
  EXPECT_EQ(full.mode, "full");
  EXPECT_EQ(full.inputs, 3);
  EXPECT_EQ(full.samples, 0); // from the time budget
  EXPECT_EQ(full.checkedLaunches, 3);
  EXPECT_EQ(full.id, "c1");
  WorkerRequest given = parsed(
      R"({"bundle": "b", "reference": "r", "mode": "screen", "inputs": 2,
          "samples": 5, "warmup": 0, "checked_launches": 0, "seed": 9007199254740993,
          "timeout": 2.5, "ir_version": "v3", "id": 4})");
  EXPECT_EQ(given.reference, "r");
  EXPECT_EQ(given.inputs, 2);
  EXPECT_EQ(given.samples, 5);
  EXPECT_EQ(given.warmup, 0);
  EXPECT_EQ(given.checkedLaunches, 0);
  EXPECT_EQ(*given.seed, 9007199254740993ull);
  EXPECT_EQ(given.irVersion, "v3");
  EXPECT_EQ(parsed(R"({"op": "ping"})").op, "ping");
}

TEST(WorkerRequest, MalformedRequestsSayWhat) {
  EXPECT_NE(refused("{").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(refused("3"), "a request is a JSON object, got number");
  EXPECT_EQ(refused(R"({"bundle": "b", "colour": 1})"),
            "unknown field \"colour\"");
  EXPECT_EQ(refused(R"({"bundle": 3})"), "bundle: expects a string");
  EXPECT_EQ(refused(R"({"id": 1})"),
            "bundle: a measure request names the bundle directory");
  EXPECT_EQ(refused(R"({"bundle": "b", "mode": "quick"})"),
            "mode: expects \"screen\" or \"full\", got \"quick\"");
  EXPECT_EQ(refused(R"({"op": "reboot"})"),
            "op: expects \"measure\", \"ping\" or \"quit\", got \"reboot\"");
  EXPECT_EQ(refused(R"({"bundle": "b", "inputs": 0})"),
            "inputs: expects an integer in [1, 100], got 0");
  EXPECT_EQ(refused(R"({"bundle": "b", "samples": 2.5})"),
            "samples: expects an integer in [1, 1000000], got 2.5");
  EXPECT_EQ(refused(R"({"bundle": "b", "seed": -1})"),
            "seed: expects an integer in [0, 9223372036854775807], got -1");
  EXPECT_EQ(refused(R"({"bundle": "b", "seed": 18446744073709551615})"),
            "seed: expects an integer in [0, 9223372036854775807], got "
            "18446744073709551615");
  EXPECT_EQ(refused(R"({"bundle": "b", "timeout": 0})"),
            "timeout: expects a positive number of seconds");
}

/// What the fill kernel computes for element `i` (DeviceCheck.cpp, PTX):
/// splitmix64 at counter i + 1, then the conversions of fillRandom.
void drawDirectly(std::vector<uint8_t> &bytes, ElementType type,
                  uint64_t seed, size_t i) {
  uint64_t z = seed + (uint64_t(i) + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  double u = double(z >> 11) * 0x1.0p-53;
  double f = u * 2.0 - 1.0;
  int64_t k = int64_t(std::floor(u * 201.0)) - 100;
  unsigned w = elementBytes(type);
  uint8_t *at = bytes.data() + i * w;
  switch (type) {
  case ElementType::f32: { float v = float(f); std::memcpy(at, &v, 4); break; }
  case ElementType::f64: std::memcpy(at, &f, 8); break;
  case ElementType::f16: { uint16_t v = floatToHalf(float(f)); std::memcpy(at, &v, 2); break; }
  case ElementType::bf16: { uint16_t v = floatToBFloat16(float(f)); std::memcpy(at, &v, 2); break; }
  case ElementType::i8: *at = uint8_t(int8_t(k)); break;
  case ElementType::i32: { int32_t v = int32_t(k); std::memcpy(at, &v, 4); break; }
  case ElementType::i64: std::memcpy(at, &k, 8); break;
  }
}

TEST(DeviceInputs, EveryElementCanBeDrawnOnItsOwn) {
  for (const char *name : {"f32", "f64", "f16", "bf16", "i8", "i32", "i64"}) {
    ElementType type = *parseElementType(name);
    for (uint64_t seed : std::initializer_list<uint64_t>{0, 42 * 1000003ull + 2,
                          (uint64_t(1) << 53) - 1}) {
      std::vector<uint8_t> sequential(4099 * elementBytes(type));
      fillRandom(sequential, type, seed);
      std::vector<uint8_t> direct(sequential.size());
      // Out of order, as threads of a grid-stride loop draw them.
      for (size_t i = 4099; i-- > 0;)
        drawDirectly(direct, type, seed, i);
      EXPECT_EQ(sequential, direct) << name << " seed " << seed;
    }
  }
}

TEST(DeviceCheckPtx, HasEveryKernel) {
  std::string ptx = deviceCheckPtx();
  for (const char *name : {"f32", "f64", "f16", "bf16", "i8", "i32", "i64"})
    for (const char *kind : {"fill", "compare", "sumsq"})
      EXPECT_NE(ptx.find(std::string(".entry tirx_") + kind + "_" + name + "("),
                std::string::npos)
          << kind << " " << name;
  for (const char *bytes : {"1", "2", "4", "8"}) {
    EXPECT_NE(ptx.find(std::string(".entry tirx_diff_") + bytes + "("),
              std::string::npos);
    EXPECT_NE(ptx.find(std::string(".entry tirx_checksum_") + bytes + "("),
              std::string::npos);
  }
  // Divergent branches are never marked uniform.
  EXPECT_EQ(ptx.find("bra.uni"), std::string::npos);
}

TEST(DeviceCheckPtx, AssemblesForTheH200) {
  std::string ptxas = TIRX_TEST_PTXAS;
  if (access(ptxas.c_str(), X_OK) != 0)
    GTEST_SKIP() << "no ptxas at " << ptxas;
  std::string dir = testing::TempDir();
  std::string ptx = dir + "/tirx-worker-check.ptx";
  std::ofstream(ptx) << deviceCheckPtx();
  std::string log = dir + "/tirx-worker-check.log";
  std::string command = ptxas + " -arch=sm_90 " + ptx + " -o " + dir +
                        "/tirx-worker-check.cubin > " + log + " 2>&1";
  int status = std::system(command.c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  EXPECT_EQ(status, 0) << text;
  EXPECT_EQ(text.find("warning"), std::string::npos) << text;
}

TEST(BusyWatch, CountsOnlyTheWaits) {
  BusyWatch watch;
  EXPECT_FALSE(watch.busy());
  EXPECT_EQ(watch.busyFor(), 0);
  watch.feed("x1", 2);
  EXPECT_TRUE(watch.busy());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(watch.busyFor(), 0.015);
  watch.feed("1", 1); // still the same wait
  EXPECT_GE(watch.busyFor(), 0.015);
  watch.feed("10", 2);
  EXPECT_FALSE(watch.busy());
  EXPECT_EQ(watch.busyFor(), 0);
}

//===----------------------------------------------------------------------===//
// WorkerClient
//===----------------------------------------------------------------------===//

std::string script(const std::string &name, const std::string &body) {
  std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

std::string inputs(const std::string &bundle) {
  return std::string(TIRX_TEST_WORKER_INPUTS) + "/" + bundle;
}

TEST(WorkerClient, AWorkerThatCannotStartIsAnError) {
  WorkerConfig config;
  config.program = script("tirx-worker-garbage", "echo hello; exec sleep 5");
  WorkerClient garbage(config);
  std::string error = garbage.start();
  EXPECT_NE(error.find("did not start: the worker wrote a line that is not "
                       "JSON: hello"),
            std::string::npos)
      << error;

  config.program = script("tirx-worker-exits", "exit 3");
  WorkerClient exits(config);
  Measurement m = exits.measure(inputs("ok"), MeasureOptions());
  EXPECT_FALSE(m.ok);
  EXPECT_NE(m.error.find("did not start: it exited with status 3"),
            std::string::npos)
      << m.error;

  config.program = testing::TempDir() + "/no-such-program";
  WorkerClient missing(config);
  EXPECT_NE(missing.start().find("exited with status 127"), std::string::npos);
}

TEST(WorkerClient, ASilentWorkerIsKilled) {
  WorkerConfig config;
  config.program = script("tirx-worker-silent", "exec sleep 30");
  config.idleLimit = 0.3;
  WorkerClient silent(config);
  auto begin = std::chrono::steady_clock::now();
  std::string error = silent.start();
  EXPECT_NE(error.find("gave no answer in 0 s"), std::string::npos) << error;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          begin)
                .count(),
            5);
}

TEST(WorkerClient, ReplacesTheWorkerAfterATimeoutAndReportsErrors) {
  WorkerConfig config;
  config.program = TIRX_TEST_TIRX_RUN;
  config.environment = {std::string("TIRX_CUDA_DRIVER=") + TIRX_TEST_FAKE_CUDA,
                        "TIRX_FAKE_CUDA=memory",
                        "XDG_CACHE_HOME=" + testing::TempDir()};
  WorkerClient client(config);
  MeasureOptions options;
  options.reference = inputs("ok");
  options.timeout = 1;

  // A bundle that cannot be read: an error, no worker needed.
  Measurement missing = client.measure(inputs("missing"), options);
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.error.find("cannot be read"), std::string::npos);
  EXPECT_EQ(client.workersStarted(), 0);

  Measurement first = client.measure(inputs("ok"), options);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(first.feedback["launch_status"], "ok");
  EXPECT_EQ(first.feedback["correctness_inputs"], 1); // screen by default
  EXPECT_EQ(first.feedback["sample_count"], 10);
  EXPECT_EQ(first.feedback["seed"], client.greeting()["seed"]);
  EXPECT_EQ(client.workersStarted(), 1);

  // A reference on other parameters: the worker refuses, and stays.
  MeasureOptions other = options;
  other.reference = inputs("../other-shape");
  Measurement refused = client.measure(inputs("ok"), other);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("shape or role differs from the reference"),
            std::string::npos)
      << refused.error;

  Measurement hang = client.measure(inputs("hang"), options);
  ASSERT_TRUE(hang.ok);
  EXPECT_TRUE(hang.workerReplaced);
  EXPECT_EQ(hang.feedback["launch_status"], "timeout");
  EXPECT_EQ(hang.feedback["payload"], "saxpy");
  EXPECT_GE(hang.feedback["killed_after_s"].get<double>(), 1.0);
  EXPECT_LT(hang.feedback["killed_after_s"].get<double>(), 2.0);
  EXPECT_EQ(client.workersStarted(), 1);

  options.mode = "full";
  options.samples = 4;
  options.seed = 11;
  Measurement after = client.measure(inputs("ok"), options);
  ASSERT_TRUE(after.ok) << after.error;
  EXPECT_EQ(after.feedback["launch_status"], "ok");
  EXPECT_EQ(after.feedback["correctness_inputs"], 3);
  EXPECT_EQ(after.feedback["sample_count"], 4);
  EXPECT_EQ(after.feedback["seed"], 11);
  EXPECT_EQ(client.workersStarted(), 2);
}

} // namespace
