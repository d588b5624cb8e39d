//===- HostCheckBench.cpp - the one-shot runner's host work, timed ------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Not a test and not installed: times what tirx-run's one-shot path does on
// the host per buffer (input generation, poison, the comparisons of
// Check.h, the adversarial sets' perturbation and sensitivity rule) on
// large f32 and f16 buffers, so that the cost of the host path can be
// measured on any machine. The thread count comes from TIRX_RUN_THREADS
// (docs/correctness.md). Usage:
//   TIRX_RUN_THREADS=2 build/bin/tirx-host-check-bench [ELEMENTS] [f32|f16]...
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Check.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include <time.h>

using namespace tirx::runtime;

namespace {
double cpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

/// Wall and CPU seconds of `work`, the best of three (the machine may be
/// shared): the CPU time is the work, whatever the threads.
std::pair<double, double> secondsOf(const std::function<void()> &work) {
  double best = 1e30, cpu = 1e30;
  for (int r = 0; r < 3; ++r) {
    auto start = std::chrono::steady_clock::now();
    double cpuStart = cpuSeconds();
    work();
    best = std::min(best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count());
    cpu = std::min(cpu, cpuSeconds() - cpuStart);
  }
  return {best, cpu};
}

void bench(ElementType type, size_t n) {
  size_t bytes = n * elementBytes(type);
  std::vector<uint8_t> want(bytes), got(bytes), poison(bytes), moved;
  std::vector<std::vector<uint8_t>> perturbed(2);
  Tolerance tol = toleranceFor(type, "ieee", 4096, n);
  double total = 0, totalCpu = 0;
  auto row = [&](const char *what, const std::function<void()> &work) {
    auto [wall, cpu] = secondsOf(work);
    total += wall;
    totalCpu += cpu;
    std::printf("  %-34s %8.1f ms wall %8.1f ms cpu\n", what, wall * 1e3,
                cpu * 1e3);
  };
  std::printf("%s, %zu elements (%zu MiB):\n", elementTypeName(type),
              n, bytes >> 20);
  row("fillRandom (makeInputs)", [&] { fillRandom(want, type, 42); });
  row("fillAdversarial cancel", [&] {
    fillAdversarial(got, type, InputKind::cancel, 0, 43);
  });
  row("fillPoison", [&] { fillPoison(poison, type); });
  got = want;
  // A correct output: every element moved by one ulp.
  perturbUlps(got, type, 1, 7);
  row("compareBuffers (pass)", [&] {
    if (!compareBuffers("y", type, got, want, tol).pass)
      std::abort();
  });
  row("compareBuffers (ghost: poison)", [&] {
    if (compareBuffers("y", type, poison, want, tol).pass)
      std::abort();
  });
  row("compareUnchanged (equal)", [&] {
    if (!compareUnchanged("x", type, want, want).pass)
      std::abort();
  });
  row("compareRelaunch (bit-equal)", [&] {
    if (!compareRelaunch("y", type, want, want, want, tol).bitEqual)
      std::abort();
  });
  row("compareRelaunch (differs)", [&] {
    if (!compareRelaunch("y", type, got, want, want, tol).comparison.pass)
      std::abort();
  });
  row("firstBitDifference (equal)", [&] {
    if (firstBitDifference(want, want, type) != -1)
      std::abort();
  });
  row("perturbUlps x2 (copy + move)", [&] {
    for (int d = 0; d < 2; ++d) {
      perturbed[size_t(d)] = want;
      perturbUlps(perturbed[size_t(d)], type, 1, d ? 13 : 0);
    }
  });
  std::vector<double> delta;
  row("referenceSensitivity (2 runs)",
      [&] { delta = referenceSensitivity(type, want, perturbed); });
  row("compareSensitive", [&] {
    if (!compareSensitive("y", type, got, want, delta, "ieee", 4096).pass)
      std::abort();
  });
  std::printf("  %-34s %8.1f ms wall %8.1f ms cpu\n", "total", total * 1e3,
              totalCpu * 1e3);
}
} // namespace

int main(int argc, char **argv) {
  size_t n = size_t(1) << 24;
  int first = 1;
  if (argc > 1 && std::strcmp(argv[1], "f32") && std::strcmp(argv[1], "f16")) {
    n = std::strtoull(argv[1], nullptr, 10);
    first = 2;
  }
  const char *threads = std::getenv("TIRX_RUN_THREADS");
  std::printf("TIRX_RUN_THREADS=%s\n", threads ? threads : "(unset)");
  if (first >= argc) {
    bench(ElementType::f32, n);
    bench(ElementType::f16, n);
  }
  for (int a = first; a < argc; ++a)
    bench(std::string(argv[a]) == "f16" ? ElementType::f16 : ElementType::f32,
          n);
  return 0;
}
