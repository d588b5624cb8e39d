//===- Driver.h - the CUDA driver ABI, declared without cuda.h --*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// The few driver types, enum values and entry points the mgpu* wrappers use,
// declared here so that the library builds without a CUDA toolkit. Values are
// those of cuda.h (CUDA 12/13); test/CudaRuntime/DriverAbiCheck.cpp checks
// them against cuda.h where a toolkit is installed.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_CUDARUNTIME_DRIVER_H
#define TIRX_LIB_CUDARUNTIME_DRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tirx {
namespace cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned CU_MEM_ATTACH_GLOBAL = 0x1;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_JIT_OPTIMIZATION_LEVEL = 7;
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;

/// CUlaunchAttribute: an id padded to 8 bytes, then a 64-byte value union.
struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  union {
    char pad[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
    int programmaticStreamSerializationAllowed;
  } value;
};

struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};

/// A cuLaunchKernelEx configuration with one attribute: the one place the
/// CUDA runtime's cluster launches and tirx-run's early launches fill it.
inline CUlaunchConfig launchConfig(const unsigned grid[3],
                                   const unsigned block[3],
                                   unsigned sharedMemBytes, CUstream stream,
                                   CUlaunchAttribute *attribute) {
  CUlaunchConfig config = {};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = sharedMemBytes;
  config.hStream = stream;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

/// CUtensorMap: 128 opaque bytes, aligned as cuda.h of CUDA 13 does (the
/// driver needs 64).
struct alignas(128) CUtensorMap {
  uint64_t opaque[16];
};

/// Bytes per element of each CUtensorMapDataType, UINT8 (0) to
/// TFLOAT32_FTZ (12); the sub-byte types after them are not supported.
constexpr int kTensorMapElementBytes[] = {1, 2, 4, 4, 8, 8, 2,
                                          4, 8, 2, 4, 4, 4};

/// The driver's entry points, bound by name at first use. Each entry names
/// the versioned symbol that cuda.h maps the plain name to.
#define TIRX_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuInit, "cuInit", unsigned)                                                \
  X(cuGetErrorName, "cuGetErrorName", CUresult, const char **)                 \
  X(cuGetErrorString, "cuGetErrorString", CUresult, const char **)             \
  X(cuDeviceGetCount, "cuDeviceGetCount", int *)                               \
  X(cuDeviceGet, "cuDeviceGet", CUdevice *, int)                               \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUcontext *,         \
    CUdevice)                                                                  \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", CUcontext)                        \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", CUcontext *)                        \
  X(cuModuleLoadData, "cuModuleLoadData", CUmodule *, const void *)            \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", CUmodule *, const void *,        \
    unsigned, int *, void **)                                                  \
  X(cuModuleUnload, "cuModuleUnload", CUmodule)                                \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUfunction *, CUmodule,        \
    const char *)                                                              \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUfunction, int, int)            \
  X(cuLaunchKernel, "cuLaunchKernel", CUfunction, unsigned, unsigned,          \
    unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **,       \
    void **)                                                                   \
  X(cuLaunchKernelEx, "cuLaunchKernelEx", const CUlaunchConfig *, CUfunction,  \
    void **, void **)                                                          \
  X(cuStreamCreate, "cuStreamCreate", CUstream *, unsigned)                    \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUstream)                           \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUstream)                      \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", CUstream, CUevent, unsigned)       \
  X(cuEventCreate, "cuEventCreate", CUevent *, unsigned)                       \
  X(cuEventDestroy, "cuEventDestroy_v2", CUevent)                              \
  X(cuEventSynchronize, "cuEventSynchronize", CUevent)                         \
  X(cuEventRecord, "cuEventRecord", CUevent, CUstream)                         \
  X(cuMemAlloc, "cuMemAlloc_v2", CUdeviceptr *, size_t)                        \
  X(cuMemAllocManaged, "cuMemAllocManaged", CUdeviceptr *, size_t, unsigned)   \
  X(cuMemFree, "cuMemFree_v2", CUdeviceptr)                                    \
  X(cuMemcpy, "cuMemcpy", CUdeviceptr, CUdeviceptr, size_t)                    \
  X(cuMemcpyAsync, "cuMemcpyAsync", CUdeviceptr, CUdeviceptr, size_t,          \
    CUstream)                                                                  \
  X(cuMemsetD32Async, "cuMemsetD32Async", CUdeviceptr, unsigned, size_t,       \
    CUstream)                                                                  \
  X(cuMemsetD16Async, "cuMemsetD16Async", CUdeviceptr, unsigned short, size_t, \
    CUstream)                                                                  \
  X(cuMemHostRegister, "cuMemHostRegister_v2", void *, size_t, unsigned)       \
  X(cuMemHostUnregister, "cuMemHostUnregister", void *)                        \
  X(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", CUtensorMap *, int,      \
    unsigned, void *, const uint64_t *, const uint64_t *, const unsigned *,    \
    const unsigned *, int, int, int, int)

/// Index of each entry point in the table of bound symbols.
enum class Fn {
#define TIRX_CUDA_ENUM(name, symbol, ...) name,
  TIRX_CUDA_DRIVER_FUNCTIONS(TIRX_CUDA_ENUM)
#undef TIRX_CUDA_ENUM
      Count
};

/// The symbol each entry point binds to.
const char *symbolName(Fn fn);

/// The address of `fn` in the driver, loading the driver on first use. Where
/// the driver cannot be loaded (or lacks the symbol) this reports which
/// wrapper needed it and why, and ends the process with status 1: nothing
/// the module does after that could run.
void *lookup(Fn fn, const char *wrapper);

/// Prints `tirx_cuda_runtime: wrapper: why` on stderr and ends the process
/// with status 1 (after flushing stdout), without running static destructors
/// under the JIT-compiled code that called.
[[noreturn]] void fatal(const char *wrapper, const std::string &why);

/// The driver's name and description of `result`, e.g.
/// `CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)`.
std::string describe(CUresult result, const char *wrapper);

/// Reports a failed driver call (`wrapper: call failed: NAME (text)`) on
/// stderr, counts it, and returns false; returns true on CUDA_SUCCESS.
bool check(CUresult result, const char *call, const char *wrapper);

/// Calls driver function `name` with `args...` from `wrapper`.
#define TIRX_CUDA_TYPEDEF(name, symbol, ...)                                   \
  using name##_t = CUresult (*)(__VA_ARGS__);
TIRX_CUDA_DRIVER_FUNCTIONS(TIRX_CUDA_TYPEDEF)
#undef TIRX_CUDA_TYPEDEF

} // namespace cuda
} // namespace tirx

/// `CUDA_CALL(wrapper, cuX, args...)`: calls cuX through the bound pointer
/// and reports a failure; evaluates to true on success.
#define TIRX_CUDA_CALL(wrapper, name, ...)                                     \
  ::tirx::cuda::check(                                                         \
      reinterpret_cast<::tirx::cuda::name##_t>(                                \
          ::tirx::cuda::lookup(::tirx::cuda::Fn::name, wrapper))(__VA_ARGS__), \
      #name, wrapper)

#endif // TIRX_LIB_CUDARUNTIME_DRIVER_H
