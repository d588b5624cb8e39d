//===- Cuda.h - the CUDA driver as the runner uses it -----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Internal to lib/Runtime: the driver loaded at run time (dlopen
// "libcuda.so.1", or $TIRX_CUDA_DRIVER: tests point it at a stand-in), with
// the device memory, events and loaded bundles that the one-shot runner
// (Runner.cpp) and the persistent worker (Worker.cpp) share. Only the ABI is
// declared here: no CUDA header is needed to build the runner.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_RUNTIME_CUDA_H
#define TIRX_LIB_RUNTIME_CUDA_H

#include "tirx/Runtime/Manifest.h"

// The driver's types, declared once for TIRx (and checked against cuda.h
// where a toolkit is installed: test/CudaRuntime/DriverAbiCheck.cpp).
#include "../CudaRuntime/Driver.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tirx {
namespace runtime {
namespace gpu {

using cuda::CUcontext;
using cuda::CUDA_SUCCESS;
using cuda::CUdevice;
using cuda::CUdeviceptr;
using cuda::CUevent;
using cuda::CUfunction;
using cuda::CUmodule;
using cuda::CUresult;
using cuda::CUstream;
// CUdevice_attribute values (cuda.h).
constexpr int ATTR_MAX_THREADS_PER_BLOCK = 1;
constexpr int ATTR_MAX_REGISTERS_PER_BLOCK = 12;
constexpr int ATTR_CLOCK_RATE = 13;
constexpr int ATTR_MULTIPROCESSOR_COUNT = 16;
constexpr int ATTR_L2_CACHE_SIZE = 38;
constexpr int ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39;
constexpr int ATTR_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int ATTR_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81;
constexpr int ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82;
constexpr int ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
// CUfunction_attribute values.
constexpr int FUNC_MAX_THREADS_PER_BLOCK = 0;
constexpr int FUNC_SHARED_SIZE_BYTES = 1;
constexpr int FUNC_LOCAL_SIZE_BYTES = 3;
constexpr int FUNC_NUM_REGS = 4;
constexpr int FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

struct Driver {
  void *handle = nullptr;
#define TIRX_CU(name, ...) CUresult (*name)(__VA_ARGS__) = nullptr;
  TIRX_CU(cuInit, unsigned)
  TIRX_CU(cuDeviceGetCount, int *)
  TIRX_CU(cuDeviceGet, CUdevice *, int)
  TIRX_CU(cuDeviceGetName, char *, int, CUdevice)
  TIRX_CU(cuDeviceGetUuid, unsigned char *, CUdevice)
  TIRX_CU(cuDeviceGetAttribute, int *, int, CUdevice)
  TIRX_CU(cuDevicePrimaryCtxRetain, CUcontext *, CUdevice)
  TIRX_CU(cuCtxSetCurrent, CUcontext)
  TIRX_CU(cuCtxSynchronize, void)
  TIRX_CU(cuModuleLoadData, CUmodule *, const void *)
  TIRX_CU(cuModuleUnload, CUmodule)
  TIRX_CU(cuModuleGetFunction, CUfunction *, CUmodule, const char *)
  TIRX_CU(cuFuncGetAttribute, int *, int, CUfunction)
  TIRX_CU(cuFuncSetAttribute, CUfunction, int, int)
  TIRX_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, int *, CUfunction, int,
          size_t)
  TIRX_CU(cuMemAlloc, CUdeviceptr *, size_t)
  TIRX_CU(cuMemFree, CUdeviceptr)
  TIRX_CU(cuMemcpyHtoD, CUdeviceptr, const void *, size_t)
  TIRX_CU(cuMemcpyDtoH, void *, CUdeviceptr, size_t)
  TIRX_CU(cuMemcpyDtoD, CUdeviceptr, CUdeviceptr, size_t)
  TIRX_CU(cuMemsetD32Async, CUdeviceptr, unsigned, size_t, CUstream)
  TIRX_CU(cuMemsetD16Async, CUdeviceptr, unsigned short, size_t, CUstream)
  TIRX_CU(cuMemsetD8Async, CUdeviceptr, unsigned char, size_t, CUstream)
  TIRX_CU(cuLaunchKernel, CUfunction, unsigned, unsigned, unsigned, unsigned,
          unsigned, unsigned, unsigned, CUstream, void **, void **)
  TIRX_CU(cuLaunchKernelEx, const cuda::CUlaunchConfig *, CUfunction,
          void **, void **)
  TIRX_CU(cuEventCreate, CUevent *, unsigned)
  TIRX_CU(cuEventDestroy, CUevent)
  TIRX_CU(cuEventRecord, CUevent, CUstream)
  TIRX_CU(cuEventSynchronize, CUevent)
  TIRX_CU(cuEventElapsedTime, float *, CUevent, CUevent)
  TIRX_CU(cuGetErrorName, CUresult, const char **)
  TIRX_CU(cuGetErrorString, CUresult, const char **)
#undef TIRX_CU

  /// Loads the driver and every entry point (cuLaunchKernelEx only where
  /// the driver has it: null before CUDA 11.8); "" or the reason it failed.
  std::string load();
  std::string describe(CUresult r) const;
};

Driver &driver();

/// A failed CUDA call: its name and what the driver said.
struct CudaError {
  std::string what;
};

void check(CUresult r, const char *call);
#define CU(call) ::tirx::runtime::gpu::check(driver().call, #call)

/// A device attribute, 0 where the driver does not answer.
int attribute(int attr, CUdevice dev);

/// Loads the driver, retains the primary context of device `ordinal` and
/// makes it current.
CUdevice openDevice(int ordinal);

/// Device memory that frees itself.
struct DeviceBuffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t n);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};
using DeviceBuffers = std::vector<std::unique_ptr<DeviceBuffer>>;

/// The device address of each buffer (0 for a null entry: a scalar).
std::vector<CUdeviceptr> addressesOf(const DeviceBuffers &buffers);

struct Event {
  CUevent e = nullptr;
  Event();
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
};

/// A loaded bundle: its modules and functions.
struct LoadedBundle {
  const Manifest *manifest = nullptr;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;
  /// The tensor maps of its kernels' TMA loads (TensorMap.h), made on
  /// first use.
  std::unique_ptr<class TensorMaps> tensorMaps;

  LoadedBundle(const std::string &dir, const Manifest &m);
  ~LoadedBundle();
  LoadedBundle(const LoadedBundle &) = delete;
  LoadedBundle &operator=(const LoadedBundle &) = delete;

  /// Enqueues every launch of one run on the default stream. `buffers`:
  /// one address per parameter (0 for scalars), then one per scratch buffer;
  /// `scalars`: each scalar parameter's value for this input set
  /// (scalarValues).
  void launch(const std::vector<CUdeviceptr> &buffers,
              const std::vector<double> &scalars);
};

/// Waits for the device; `busy` (when set) is told before and after, for the
/// watchdog of the process that supervises this one.
void synchronize(const std::function<void(bool)> &busy);

/// One device buffer per buffer parameter (null for scalars), then one per
/// scratch buffer.
DeviceBuffers allocate(const Manifest &m);

/// Fills a device buffer with the poison of `type`, on the device.
void poisonDevice(CUdeviceptr ptr, uint64_t bytes, ElementType type);

/// Poisons the scratch buffers (addresses after the parameters').
void poisonScratch(const Manifest &m, const std::vector<CUdeviceptr> &buffers);

} // namespace gpu
} // namespace runtime
} // namespace tirx

#endif // TIRX_LIB_RUNTIME_CUDA_H
