//===- CudaRuntime.h - the mgpu* C ABI of TIRx's CUDA runtime ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// The functions that MLIR's `gpu-to-llvm` lowering (LLVM 22) and the LLVM IR
// translation of `gpu.binary` / `gpu.launch_func` emit calls to, with the
// signatures they emit: libtirx_cuda_runtime.so implements them, so that
// `mlir-runner-22 --shared-libs=libtirx_cuda_runtime.so,...` runs a module
// lowered by upstream's `gpu-lower-to-nvvm-pipeline`. Debian packages no
// libmlir_cuda_runtime; this is TIRx's own implementation of that ABI.
//
// Handles are opaque pointers to CUDA driver objects (CUmodule, CUfunction,
// CUstream, CUevent); device pointers are CUdeviceptr values. No CUDA header
// is needed to use or build this: the driver (libcuda.so.1) is loaded at the
// first call. See docs/cuda-runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_CUDARUNTIME_CUDARUNTIME_H
#define TIRX_CUDARUNTIME_CUDARUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TIRX_MGPU_EXPORT __attribute__((visibility("default")))
#else
#define TIRX_MGPU_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

// Modules and kernels (emitted by the translation of gpu.binary and
// gpu.launch_func, SelectObjectAttr).
TIRX_MGPU_EXPORT void *mgpuModuleLoad(void *data, uint64_t sizeBytes);
TIRX_MGPU_EXPORT void *mgpuModuleLoadJIT(void *ptx, int32_t optLevel);
TIRX_MGPU_EXPORT void mgpuModuleUnload(void *module);
TIRX_MGPU_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
TIRX_MGPU_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                       intptr_t gridY, intptr_t gridZ,
                                       intptr_t blockX, intptr_t blockY,
                                       intptr_t blockZ, int32_t smemBytes,
                                       void *stream, void **params,
                                       void **extra, size_t paramsCount);
TIRX_MGPU_EXPORT void
mgpuLaunchClusterKernel(void *function, intptr_t clusterX, intptr_t clusterY,
                        intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                        intptr_t blockZ, int32_t smemBytes, void *stream,
                        void **params, void **extra);

// Streams and events (async tokens).
TIRX_MGPU_EXPORT void *mgpuStreamCreate(void);
TIRX_MGPU_EXPORT void mgpuStreamDestroy(void *stream);
TIRX_MGPU_EXPORT void mgpuStreamSynchronize(void *stream);
TIRX_MGPU_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
TIRX_MGPU_EXPORT void *mgpuEventCreate(void);
TIRX_MGPU_EXPORT void mgpuEventDestroy(void *event);
TIRX_MGPU_EXPORT void mgpuEventSynchronize(void *event);
TIRX_MGPU_EXPORT void mgpuEventRecord(void *event, void *stream);

// Memory. `isHostShared` (gpu.alloc host_shared) allocates managed memory.
TIRX_MGPU_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                    int8_t isHostShared);
TIRX_MGPU_EXPORT void mgpuMemFree(void *ptr, void *stream);
TIRX_MGPU_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                 void *stream);
TIRX_MGPU_EXPORT void mgpuMemset32(void *dst, uint32_t value, size_t count,
                                   void *stream);
TIRX_MGPU_EXPORT void mgpuMemset16(void *dst, uint16_t value, size_t count,
                                   void *stream);
TIRX_MGPU_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
TIRX_MGPU_EXPORT void mgpuMemHostUnregister(void *ptr);
/// `descriptor` points at a ranked memref descriptor {allocated, aligned,
/// offset, sizes[rank], strides[rank]}; only dense (identity) layouts.
TIRX_MGPU_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                                int64_t elementSizeBytes);
TIRX_MGPU_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank,
                                                  void *descriptor,
                                                  int64_t elementSizeBytes);

// Devices.
TIRX_MGPU_EXPORT void mgpuSetDefaultDevice(int32_t device);

// TMA (nvgpu.tma.create.descriptor): encodes a CUtensorMap for the memref
// that `descriptor` describes (row-major, box dims outermost first) and
// returns a device pointer to a copy of it.
TIRX_MGPU_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *boxDims);

#ifdef __cplusplus
}
#endif

#endif // TIRX_CUDARUNTIME_CUDARUNTIME_H
