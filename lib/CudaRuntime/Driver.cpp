//===- Driver.cpp - load libcuda.so.1 and report its failures ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// The driver is opened with dlopen at the first mgpu* call, so the library
// builds and loads on a machine without one, and says so when a module first
// needs it. TIRX_CUDA_DRIVER names another driver library (tests use it to
// run without a driver, or with a stand-in that has no device).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include <dlfcn.h>
#include <unistd.h>

namespace tirx {
namespace cuda {
namespace {

constexpr const char *kLibrary = "libcuda.so.1";

const char *const kSymbols[] = {
#define TIRX_CUDA_SYMBOL(name, symbol, ...) symbol,
    TIRX_CUDA_DRIVER_FUNCTIONS(TIRX_CUDA_SYMBOL)
#undef TIRX_CUDA_SYMBOL
};
static_assert(sizeof(kSymbols) / sizeof(kSymbols[0]) ==
                  static_cast<size_t>(Fn::Count),
              "one symbol per entry point");

struct Library {
  std::once_flag opened;
  void *handle = nullptr;
  std::string error; // why it could not be opened
  std::atomic<void *> bound[static_cast<size_t>(Fn::Count)] = {};
};

Library &library() {
  static Library lib;
  return lib;
}

std::atomic<unsigned> failedCalls{0};

/// A module whose CUDA calls failed must not look like a success: upstream's
/// wrappers print and go on, so the runner exits 0 after wrong results.
/// This library prints and goes on too, then turns the exit status into 1.
__attribute__((destructor)) void exitWithFailureStatus() {
  unsigned failed = failedCalls.load();
  if (failed == 0)
    return;
  std::fflush(stdout);
  std::fprintf(stderr,
               "tirx_cuda_runtime: %u CUDA driver call(s) failed; exit "
               "status 1\n",
               failed);
  std::fflush(stderr);
  _exit(1);
}

} // namespace

[[noreturn]] void fatal(const char *wrapper, const std::string &why) {
  std::fflush(stdout);
  std::fprintf(stderr, "tirx_cuda_runtime: %s: %s\n", wrapper, why.c_str());
  std::fflush(stderr);
  // Not exit(): this runs inside JIT-compiled code, and static destructors
  // of the host program must not run under it.
  _exit(1);
}

const char *symbolName(Fn fn) { return kSymbols[static_cast<size_t>(fn)]; }

void *lookup(Fn fn, const char *wrapper) {
  Library &lib = library();
  size_t index = static_cast<size_t>(fn);
  if (void *sym = lib.bound[index].load(std::memory_order_acquire))
    return sym;
  std::call_once(lib.opened, [&] {
    const char *path = std::getenv("TIRX_CUDA_DRIVER");
    if (!path || !*path)
      path = kLibrary;
    lib.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle) {
      const char *why = dlerror();
      lib.error = std::string("no CUDA driver: cannot load ") + path + " (" +
                  (why ? why : "unknown error") + ")";
    }
  });
  if (!lib.handle)
    fatal(wrapper, lib.error);
  void *sym = dlsym(lib.handle, kSymbols[index]);
  if (!sym)
    fatal(wrapper, std::string("the CUDA driver has no ") + kSymbols[index] +
                       " (too old for this call?)");
  lib.bound[index].store(sym, std::memory_order_release);
  return sym;
}

std::string describe(CUresult result, const char *wrapper) {
  const char *name = nullptr, *text = nullptr;
  // Plain lookups in the driver's tables: they cannot fail once it loaded.
  reinterpret_cast<cuGetErrorName_t>(lookup(Fn::cuGetErrorName, wrapper))(
      result, &name);
  reinterpret_cast<cuGetErrorString_t>(lookup(Fn::cuGetErrorString, wrapper))(
      result, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

bool check(CUresult result, const char *call, const char *wrapper) {
  if (result == CUDA_SUCCESS)
    return true;
  failedCalls.fetch_add(1);
  std::string what = describe(result, wrapper);
  std::fflush(stdout);
  std::fprintf(stderr, "tirx_cuda_runtime: %s: %s failed: %s\n", wrapper, call,
               what.c_str());
  return false;
}

} // namespace cuda
} // namespace tirx
