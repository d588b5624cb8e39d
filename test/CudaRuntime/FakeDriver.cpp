//===- FakeDriver.cpp - a stand-in libcuda.so.1 without a GPU ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// Exports the driver entry points libtirx_cuda_runtime.so binds, so that the
// CPU tests can load it through TIRX_CUDA_DRIVER and check how the runtime
// reports failures. TIRX_FAKE_CUDA picks the failure:
//   no-device    cuInit fails with CUDA_ERROR_NO_DEVICE;
//   bad-image    a device answers, loading a module fails with
//                CUDA_ERROR_INVALID_IMAGE and using it with
//                CUDA_ERROR_INVALID_HANDLE; every other call succeeds and
//                does nothing.
//
//===----------------------------------------------------------------------===//

#include <cstdlib>
#include <cstring>

namespace {
constexpr int kNoDevice = 100, kInvalidImage = 200, kInvalidHandle = 400;

bool mode(const char *name) {
  const char *m = std::getenv("TIRX_FAKE_CUDA");
  return m && std::strcmp(m, name) == 0;
}
} // namespace

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
  }
  *name = nullptr;
  return 1;
}
extern "C" __attribute__((visibility("default"))) int
cuGetErrorString(int error, const char **text) {
  *text = error == kNoDevice       ? "no CUDA-capable device is detected"
          : error == kInvalidImage ? "device kernel image is invalid"
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
  *module = nullptr;
  return kInvalidImage;
}
extern "C" __attribute__((visibility("default"))) int
cuModuleGetFunction(void **function, void *module, const char *) {
  *function = nullptr;
  return module ? 0 : kInvalidHandle;
}
extern "C" __attribute__((visibility("default"))) int
cuModuleUnload(void *module) {
  return module ? 0 : kInvalidHandle;
}
extern "C" __attribute__((visibility("default"))) int
cuLaunchKernel(void *function, ...) {
  return function ? 0 : kInvalidHandle;
}
extern "C" __attribute__((visibility("default"))) int
cuLaunchKernelEx(const void *, void *function, ...) {
  return function ? 0 : kInvalidHandle;
}

FAKE_OK(cuDeviceGet)
FAKE_OK(cuDevicePrimaryCtxRetain)
FAKE_OK(cuCtxPushCurrent_v2)
FAKE_OK(cuCtxPopCurrent_v2)
FAKE_OK(cuFuncSetAttribute)
FAKE_OK(cuStreamCreate)
FAKE_OK(cuStreamDestroy_v2)
FAKE_OK(cuStreamSynchronize)
FAKE_OK(cuStreamWaitEvent)
FAKE_OK(cuEventCreate)
FAKE_OK(cuEventDestroy_v2)
FAKE_OK(cuEventSynchronize)
FAKE_OK(cuEventRecord)
FAKE_OK(cuMemAlloc_v2)
FAKE_OK(cuMemAllocManaged)
FAKE_OK(cuMemFree_v2)
FAKE_OK(cuMemcpy)
FAKE_OK(cuMemcpyAsync)
FAKE_OK(cuMemsetD32Async)
FAKE_OK(cuMemsetD16Async)
FAKE_OK(cuMemHostRegister_v2)
FAKE_OK(cuMemHostUnregister)
FAKE_OK(cuTensorMapEncodeTiled)
