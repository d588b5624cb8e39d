//===- FakeDriver.cpp - a stand-in libcuda.so.1 without a GPU ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// Exports the driver entry points libtirx_cuda_runtime.so binds, so that the
// CPU tests can load it through TIRX_CUDA_DRIVER and check how the runtime
// reports failures, and tirx-run (lib/Runtime) through the same variable to
// test its worker's protocol. TIRX_FAKE_CUDA picks the behaviour:
//   no-device    cuInit fails with CUDA_ERROR_NO_DEVICE;
//   bad-image    a device answers, loading a module fails with
//                CUDA_ERROR_INVALID_IMAGE and using it with
//                CUDA_ERROR_INVALID_HANDLE; every other call succeeds and
//                does nothing;
//   memory       a device whose memory is host memory: allocations, copies
//                and memsets work (those of 64 MiB or more do nothing, to
//                keep the tests light), modules load, every event is 1 ms
//                apart, and kernels do nothing but for their names: one
//                named *fault* makes the next wait fail with
//                CUDA_ERROR_ILLEGAL_ADDRESS and every call after it too (a
//                sticky error), one named *hang* makes the next wait block
//                for ever, one named *abort* ends the process (SIGABRT).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

namespace {
constexpr int kNoDevice = 100, kInvalidImage = 200, kInvalidHandle = 400,
              kIllegalAddress = 700;
constexpr size_t kSkippedBytes = size_t(64) << 20;

bool mode(const char *name) {
  const char *m = std::getenv("TIRX_FAKE_CUDA");
  return m && std::strcmp(m, name) == 0;
}

// The memory mode's state: a sticky error, a pending hang.
int sticky = 0;
bool hangPending = false;

/// A wait for the device in memory mode.
int wait() {
  while (hangPending)
    sleep(1);
  return sticky;
}

template <typename T> int fill(uint64_t dst, T value, size_t n) {
  if (sticky)
    return sticky;
  if (n * sizeof(T) < kSkippedBytes)
    for (size_t i = 0; i < n; ++i)
      std::memcpy(reinterpret_cast<char *>(dst) + i * sizeof(T), &value,
                  sizeof(T));
  return 0;
}

int copy(void *dst, const void *src, size_t bytes) {
  if (sticky)
    return sticky;
  if (bytes < kSkippedBytes)
    std::memmove(dst, src, bytes);
  return 0;
}
} // namespace

#define FAKE extern "C" __attribute__((visibility("default"))) int

#define FAKE_OK(symbol)                                                        \
  extern "C" __attribute__((visibility("default"))) int symbol(...) {          \
    return 0;                                                                  \
  }

extern "C" __attribute__((visibility("default"))) int cuInit(unsigned) {
  return mode("no-device") ? kNoDevice : 0;
}
extern "C" __attribute__((visibility("default"))) int
cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
extern "C" __attribute__((visibility("default"))) int
cuGetErrorName(int error, const char **name) {
  switch (error) {
  case kNoDevice:
    *name = "CUDA_ERROR_NO_DEVICE";
    return 0;
  case kInvalidImage:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    return 0;
  case kInvalidHandle:
    *name = "CUDA_ERROR_INVALID_HANDLE";
    return 0;
  case kIllegalAddress:
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return 0;
  }
  *name = nullptr;
  return 1;
}
extern "C" __attribute__((visibility("default"))) int
cuGetErrorString(int error, const char **text) {
  *text = error == kNoDevice         ? "no CUDA-capable device is detected"
          : error == kInvalidImage   ? "device kernel image is invalid"
          : error == kIllegalAddress ? "an illegal memory access was encountered"
                                     : "invalid resource handle";
  return 0;
}
extern "C" __attribute__((visibility("default"))) int
cuModuleLoadDataEx(void **module, const void *, unsigned, int *, void **) {
  *module = nullptr;
  return kInvalidImage;
}
extern "C" __attribute__((visibility("default"))) int
cuModuleLoadData(void **module, const void *) {
  static int loaded;
  *module = mode("memory") && !sticky ? &loaded : nullptr;
  return *module ? 0 : sticky ? sticky : kInvalidImage;
}
extern "C" __attribute__((visibility("default"))) int
cuModuleGetFunction(void **function, void *module, const char *name) {
  // In memory mode a function is its name (kept for the process's life).
  *function = module && mode("memory") ? new std::string(name) : nullptr;
  return module ? 0 : kInvalidHandle;
}
extern "C" __attribute__((visibility("default"))) int
cuModuleUnload(void *module) {
  return module ? 0 : kInvalidHandle;
}
extern "C" __attribute__((visibility("default"))) int
cuLaunchKernel(void *function, ...) {
  if (!function)
    return kInvalidHandle;
  if (!mode("memory"))
    return 0;
  if (sticky)
    return sticky;
  const std::string &name = *static_cast<std::string *>(function);
  if (name.find("abort") != std::string::npos)
    std::abort();
  if (name.find("fault") != std::string::npos)
    sticky = kIllegalAddress;
  if (name.find("hang") != std::string::npos)
    hangPending = true;
  return 0;
}
extern "C" __attribute__((visibility("default"))) int
cuLaunchKernelEx(const void *, void *function, ...) {
  return function ? 0 : kInvalidHandle;
}

FAKE_OK(cuDeviceGet)
FAKE_OK(cuDevicePrimaryCtxRetain)
FAKE_OK(cuCtxPushCurrent_v2)
FAKE_OK(cuCtxPopCurrent_v2)
FAKE_OK(cuCtxSetCurrent)
FAKE_OK(cuFuncSetAttribute)
FAKE_OK(cuStreamCreate)
FAKE_OK(cuStreamDestroy_v2)
FAKE_OK(cuStreamSynchronize)
FAKE_OK(cuStreamWaitEvent)
FAKE_OK(cuEventCreate)
FAKE_OK(cuEventDestroy_v2)
FAKE_OK(cuEventRecord)
FAKE_OK(cuMemAllocManaged)
FAKE_OK(cuMemcpy)
FAKE_OK(cuMemcpyAsync)
FAKE_OK(cuMemHostRegister_v2)
FAKE_OK(cuMemHostUnregister)
FAKE_OK(cuTensorMapEncodeTiled)

// Memory and waits: real in memory mode, no-ops otherwise.
FAKE cuMemAlloc_v2(uint64_t *ptr, size_t bytes) {
  if (sticky)
    return sticky;
  *ptr = mode("memory") ? uint64_t(std::calloc(1, bytes)) : 0;
  return 0;
}
FAKE cuMemFree_v2(uint64_t ptr) {
  if (mode("memory"))
    std::free(reinterpret_cast<void *>(ptr));
  return 0;
}
FAKE cuMemsetD32Async(uint64_t dst, unsigned value, size_t n, void *) {
  return mode("memory") ? fill<uint32_t>(dst, value, n) : 0;
}
FAKE cuMemsetD16Async(uint64_t dst, unsigned short value, size_t n, void *) {
  return mode("memory") ? fill<uint16_t>(dst, value, n) : 0;
}
FAKE cuMemsetD8Async(uint64_t dst, unsigned char value, size_t n, void *) {
  return mode("memory") ? fill<uint8_t>(dst, value, n) : 0;
}
FAKE cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t bytes) {
  return copy(reinterpret_cast<void *>(dst), src, bytes);
}
FAKE cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes) {
  if (int r = wait())
    return r;
  return copy(dst, reinterpret_cast<const void *>(src), bytes);
}
FAKE cuMemcpyDtoD_v2(uint64_t dst, uint64_t src, size_t bytes) {
  return copy(reinterpret_cast<void *>(dst),
              reinterpret_cast<const void *>(src), bytes);
}
FAKE cuCtxSynchronize() { return wait(); }
FAKE cuEventSynchronize(void *) { return mode("memory") ? wait() : 0; }
FAKE cuEventElapsedTime(float *ms, void *, void *) {
  *ms = 1.0f;
  return sticky;
}

// What the runner asks of the device: an H200-like answer.
FAKE cuDeviceGetName(char *name, int length, int) {
  std::strncpy(name, "TIRx fake CUDA device", size_t(length));
  return 0;
}
FAKE cuDeviceGetUuid_v2(unsigned char *uuid, int) {
  for (int i = 0; i < 16; ++i)
    uuid[i] = (unsigned char)(0xF0 + i);
  return 0;
}
FAKE cuDeviceGetAttribute(int *value, int attribute, int) {
  switch (attribute) {
  case 1: *value = 1024; break;    // max threads per block
  case 13: *value = 1980000; break; // clock, kHz
  case 16: *value = 132; break;    // SMs
  case 39: *value = 2048; break;   // max threads per SM
  case 75: *value = 9; break;      // compute capability
  default: *value = 0;
  }
  return 0;
}
FAKE cuFuncGetAttribute(int *value, int attribute, void *) {
  *value = attribute == 0 ? 1024 : attribute == 4 ? 16 : 0;
  return 0;
}
FAKE cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *, int,
                                                 size_t) {
  *blocks = 8;
  return 0;
}
