//===- Wrappers.cpp - the mgpu* functions over the CUDA driver --*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// Each wrapper makes the primary context of the default device current for
// the call (and restores what was current before), calls the driver, and
// reports a failed call with the wrapper's and the driver call's names and the
// driver's error name. A failed call returns a null handle and the module
// goes on (as upstream's wrappers do); the process then exits with status 1
// (see Driver.cpp). Not reaching the driver at all, or its cuInit failing,
// ends the process at once.
//
//===----------------------------------------------------------------------===//

#include "tirx/CudaRuntime/CudaRuntime.h"

#include "Driver.h"

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

using namespace tirx::cuda;

namespace {

thread_local int32_t defaultDevice = 0;

/// The primary context of `device`, retained once per process.
CUcontext primaryContext(int device, const char *wrapper) {
  static std::mutex mutex;
  static std::vector<CUcontext> contexts;
  static bool initialized = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (!initialized) {
    CUresult r = reinterpret_cast<cuInit_t>(lookup(Fn::cuInit, wrapper))(0);
    if (r != CUDA_SUCCESS)
      fatal(wrapper, "cuInit failed: " + describe(r, wrapper));
    int count = 0;
    r = reinterpret_cast<cuDeviceGetCount_t>(
        lookup(Fn::cuDeviceGetCount, wrapper))(&count);
    if (r != CUDA_SUCCESS)
      fatal(wrapper, "cuDeviceGetCount failed: " + describe(r, wrapper));
    contexts.assign(count, nullptr);
    initialized = true;
  }
  if (device < 0 || device >= static_cast<int>(contexts.size()))
    fatal(wrapper, "no CUDA device " + std::to_string(device) + " (" +
                       std::to_string(contexts.size()) + " present)");
  if (!contexts[device]) {
    CUdevice dev = 0;
    CUcontext ctx = nullptr;
    if (!TIRX_CUDA_CALL(wrapper, cuDeviceGet, &dev, device) ||
        !TIRX_CUDA_CALL(wrapper, cuDevicePrimaryCtxRetain, &ctx, dev))
      fatal(wrapper, "no context on CUDA device " + std::to_string(device));
    contexts[device] = ctx;
  }
  return contexts[device];
}

/// Makes the default device's primary context current for one wrapper call.
class ScopedContext {
public:
  explicit ScopedContext(const char *wrapper) : wrapper(wrapper) {
    pushed = TIRX_CUDA_CALL(wrapper, cuCtxPushCurrent,
                            primaryContext(defaultDevice, wrapper));
  }
  ~ScopedContext() {
    CUcontext previous = nullptr;
    if (pushed)
      TIRX_CUDA_CALL(wrapper, cuCtxPopCurrent, &previous);
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  const char *wrapper;
  bool pushed = false;
};

CUdeviceptr devicePtr(const void *ptr) {
  return reinterpret_cast<CUdeviceptr>(ptr);
}

/// Dynamic shared memory above the default 48 KiB must be opted into.
void allowSharedMemory(CUfunction function, int32_t smemBytes,
                       const char *wrapper) {
  if (smemBytes > 48 * 1024)
    TIRX_CUDA_CALL(wrapper, cuFuncSetAttribute, function,
                   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smemBytes);
}

/// A ranked memref descriptor as the LLVM lowering lays it out:
/// {allocated, aligned, offset, sizes[rank], strides[rank]}.
struct MemRefView {
  char *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;

  MemRefView(void *descriptor, int64_t rank) {
    auto *ptrs = static_cast<char **>(descriptor);
    aligned = ptrs[1];
    auto *ints = reinterpret_cast<const int64_t *>(ptrs + 2);
    offset = ints[0];
    sizes = ints + 1;
    strides = sizes + rank;
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

extern "C" void *mgpuModuleLoad(void *data, uint64_t sizeBytes) {
  const char *w = "mgpuModuleLoad";
  ScopedContext scope(w);
  CUmodule module = nullptr;
  TIRX_CUDA_CALL(w, cuModuleLoadData, &module, data);
  return module;
}

extern "C" void *mgpuModuleLoadJIT(void *ptx, int32_t optLevel) {
  const char *w = "mgpuModuleLoadJIT";
  ScopedContext scope(w);
  CUmodule module = nullptr;
  char log[8192] = {0};
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  if (!TIRX_CUDA_CALL(w, cuModuleLoadDataEx, &module, ptx, 3, options,
                      values) &&
      log[0])
    std::fprintf(stderr, "tirx_cuda_runtime: %s: the PTX JIT said:\n%s\n", w,
                 log);
  return module;
}

extern "C" void mgpuModuleUnload(void *module) {
  const char *w = "mgpuModuleUnload";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuModuleUnload, static_cast<CUmodule>(module));
}

extern "C" void *mgpuModuleGetFunction(void *module, const char *name) {
  const char *w = "mgpuModuleGetFunction";
  CUfunction function = nullptr;
  if (!TIRX_CUDA_CALL(w, cuModuleGetFunction, &function,
                      static_cast<CUmodule>(module), name))
    std::fprintf(stderr, "tirx_cuda_runtime: %s: kernel '%s'\n", w, name);
  return function;
}

extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                 intptr_t gridZ, intptr_t blockX,
                                 intptr_t blockY, intptr_t blockZ,
                                 int32_t smemBytes, void *stream, void **params,
                                 void **extra, size_t /*paramsCount*/) {
  const char *w = "mgpuLaunchKernel";
  ScopedContext scope(w);
  auto fn = static_cast<CUfunction>(function);
  allowSharedMemory(fn, smemBytes, w);
  TIRX_CUDA_CALL(w, cuLaunchKernel, fn, gridX, gridY, gridZ, blockX, blockY,
                 blockZ, smemBytes, static_cast<CUstream>(stream), params,
                 extra);
}

extern "C" void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                                        intptr_t clusterY, intptr_t clusterZ,
                                        intptr_t gridX, intptr_t gridY,
                                        intptr_t gridZ, intptr_t blockX,
                                        intptr_t blockY, intptr_t blockZ,
                                        int32_t smemBytes, void *stream,
                                        void **params, void **extra) {
  const char *w = "mgpuLaunchClusterKernel";
  ScopedContext scope(w);
  auto fn = static_cast<CUfunction>(function);
  allowSharedMemory(fn, smemBytes, w);
  // Clusters of more than 8 blocks are "non-portable" and must be allowed.
  if (clusterX * clusterY * clusterZ > 8)
    TIRX_CUDA_CALL(w, cuFuncSetAttribute, fn,
                   CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
  CUlaunchAttribute attribute = {};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = static_cast<unsigned>(clusterX);
  attribute.value.clusterDim.y = static_cast<unsigned>(clusterY);
  attribute.value.clusterDim.z = static_cast<unsigned>(clusterZ);
  const unsigned grid[3] = {static_cast<unsigned>(gridX),
                            static_cast<unsigned>(gridY),
                            static_cast<unsigned>(gridZ)};
  const unsigned block[3] = {static_cast<unsigned>(blockX),
                             static_cast<unsigned>(blockY),
                             static_cast<unsigned>(blockZ)};
  CUlaunchConfig config =
      launchConfig(grid, block, static_cast<unsigned>(smemBytes),
                   static_cast<CUstream>(stream), &attribute);
  TIRX_CUDA_CALL(w, cuLaunchKernelEx, &config, fn, params, extra);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

extern "C" void *mgpuStreamCreate() {
  const char *w = "mgpuStreamCreate";
  ScopedContext scope(w);
  CUstream stream = nullptr;
  TIRX_CUDA_CALL(w, cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
  return stream;
}

extern "C" void mgpuStreamDestroy(void *stream) {
  const char *w = "mgpuStreamDestroy";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuStreamDestroy, static_cast<CUstream>(stream));
}

extern "C" void mgpuStreamSynchronize(void *stream) {
  const char *w = "mgpuStreamSynchronize";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuStreamSynchronize, static_cast<CUstream>(stream));
}

extern "C" void mgpuStreamWaitEvent(void *stream, void *event) {
  const char *w = "mgpuStreamWaitEvent";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuStreamWaitEvent, static_cast<CUstream>(stream),
                 static_cast<CUevent>(event), 0);
}

extern "C" void *mgpuEventCreate() {
  const char *w = "mgpuEventCreate";
  ScopedContext scope(w);
  CUevent event = nullptr;
  TIRX_CUDA_CALL(w, cuEventCreate, &event, CU_EVENT_DISABLE_TIMING);
  return event;
}

extern "C" void mgpuEventDestroy(void *event) {
  const char *w = "mgpuEventDestroy";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuEventDestroy, static_cast<CUevent>(event));
}

extern "C" void mgpuEventSynchronize(void *event) {
  const char *w = "mgpuEventSynchronize";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuEventSynchronize, static_cast<CUevent>(event));
}

extern "C" void mgpuEventRecord(void *event, void *stream) {
  const char *w = "mgpuEventRecord";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuEventRecord, static_cast<CUevent>(event),
                 static_cast<CUstream>(stream));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/,
                              int8_t isHostShared) {
  const char *w = "mgpuMemAlloc";
  if (sizeBytes == 0)
    return nullptr; // the driver refuses 0 bytes; a 0-element memref is fine
  ScopedContext scope(w);
  CUdeviceptr ptr = 0;
  if (isHostShared)
    TIRX_CUDA_CALL(w, cuMemAllocManaged, &ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL);
  else
    TIRX_CUDA_CALL(w, cuMemAlloc, &ptr, sizeBytes);
  return reinterpret_cast<void *>(ptr);
}

extern "C" void mgpuMemFree(void *ptr, void * /*stream*/) {
  const char *w = "mgpuMemFree";
  if (!ptr)
    return;
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuMemFree, devicePtr(ptr));
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           void *stream) {
  const char *w = "mgpuMemcpy";
  ScopedContext scope(w);
  // Unified addressing: the driver tells host from device pointers.
  TIRX_CUDA_CALL(w, cuMemcpyAsync, devicePtr(dst), devicePtr(src), sizeBytes,
                 static_cast<CUstream>(stream));
}

extern "C" void mgpuMemset32(void *dst, uint32_t value, size_t count,
                             void *stream) {
  const char *w = "mgpuMemset32";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuMemsetD32Async, devicePtr(dst), value, count,
                 static_cast<CUstream>(stream));
}

extern "C" void mgpuMemset16(void *dst, uint16_t value, size_t count,
                             void *stream) {
  const char *w = "mgpuMemset16";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuMemsetD16Async, devicePtr(dst), value, count,
                 static_cast<CUstream>(stream));
}

extern "C" void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  const char *w = "mgpuMemHostRegister";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuMemHostRegister, ptr, sizeBytes, 0);
}

extern "C" void mgpuMemHostUnregister(void *ptr) {
  const char *w = "mgpuMemHostUnregister";
  ScopedContext scope(w);
  TIRX_CUDA_CALL(w, cuMemHostUnregister, ptr);
}

extern "C" void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                          int64_t elementSizeBytes) {
  MemRefView m(descriptor, rank);
  // Only a dense row-major buffer is one contiguous range to register.
  int64_t elements = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (m.sizes[i] != 1 && m.strides[i] != elements) {
      std::fprintf(stderr,
                   "tirx_cuda_runtime: mgpuMemHostRegisterMemRef: the memref "
                   "is not dense (dimension %lld has stride %lld, expected "
                   "%lld); not registered\n",
                   static_cast<long long>(i),
                   static_cast<long long>(m.strides[i]),
                   static_cast<long long>(elements));
      return;
    }
    elements *= m.sizes[i];
  }
  if (elements == 0)
    return;
  mgpuMemHostRegister(m.aligned + m.offset * elementSizeBytes,
                      static_cast<uint64_t>(elements * elementSizeBytes));
}

extern "C" void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                            int64_t elementSizeBytes) {
  MemRefView m(descriptor, rank);
  int64_t elements = 1;
  for (int64_t i = 0; i < rank; ++i)
    elements *= m.sizes[i];
  if (elements == 0)
    return;
  mgpuMemHostUnregister(m.aligned + m.offset * elementSizeBytes);
}

//===----------------------------------------------------------------------===//
// Devices and TMA
//===----------------------------------------------------------------------===//

extern "C" void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

extern "C" void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *boxDims) {
  const char *w = "mgpuTensorMapEncodeTiledMemref";
  constexpr int64_t kTypes =
      sizeof(kTensorMapElementBytes) / sizeof(kTensorMapElementBytes[0]);
  if (rank < 1 || rank > 5 || dataType < 0 || dataType >= kTypes) {
    std::fprintf(stderr,
                 "tirx_cuda_runtime: %s: rank %lld or data type %lld not "
                 "supported (rank 1-5, CUtensorMapDataType 0-%lld)\n",
                 w, static_cast<long long>(rank),
                 static_cast<long long>(dataType),
                 static_cast<long long>(kTypes - 1));
    return nullptr;
  }
  MemRefView m(descriptor, rank);
  // The driver wants the innermost dimension first; strides in bytes, for
  // every dimension but the innermost.
  uint64_t globalDim[5] = {1, 1, 1, 1, 1}, globalStrides[5] = {0};
  unsigned boxDim[5] = {1, 1, 1, 1, 1}, elementStrides[5] = {1, 1, 1, 1, 1};
  int elementBytes = kTensorMapElementBytes[dataType];
  for (int64_t i = 0; i < rank; ++i) {
    globalDim[i] = static_cast<uint64_t>(m.sizes[rank - 1 - i]);
    boxDim[i] = static_cast<unsigned>(boxDims[rank - 1 - i]);
  }
  for (int64_t i = 0; i + 1 < rank; ++i)
    globalStrides[i] =
        static_cast<uint64_t>(m.strides[rank - 2 - i]) * elementBytes;
  ScopedContext scope(w);
  CUtensorMap map;
  if (!TIRX_CUDA_CALL(w, cuTensorMapEncodeTiled, &map,
                      static_cast<int>(dataType), static_cast<unsigned>(rank),
                      m.aligned + m.offset * elementBytes, globalDim,
                      globalStrides, boxDim, elementStrides,
                      static_cast<int>(interleave), static_cast<int>(swizzle),
                      static_cast<int>(l2Promotion), static_cast<int>(oobFill)))
    return nullptr;
  // The kernel reads the map through a global pointer: copy it to the device.
  // Like upstream's, the copy lives as long as the process.
  CUdeviceptr deviceMap = 0;
  if (!TIRX_CUDA_CALL(w, cuMemAlloc, &deviceMap, sizeof(map)) ||
      !TIRX_CUDA_CALL(w, cuMemcpy, deviceMap, devicePtr(&map), sizeof(map)))
    return nullptr;
  return reinterpret_cast<void *>(deviceMap);
}
