//===- DriverAbiCheck.cpp - Driver.h against cuda.h, at compile time ------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// lib/CudaRuntime/Driver.h declares the driver's types, values and symbol
// names without cuda.h. Where a CUDA toolkit is installed this file is
// compiled (target tirx-cuda-abi-check, part of `all`) and fails to compile
// when one of them differs from cuda.h: a layout, an enum value, or the
// versioned symbol that cuda.h maps a plain name to (cuMemAlloc ->
// cuMemAlloc_v2).
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include "../../lib/CudaRuntime/Driver.h"

#include <cstddef>

namespace {
namespace t = tirx::cuda;

constexpr bool same(const char *a, const char *b) {
  return *a == *b && (*a == '\0' || same(a + 1, b + 1));
}
#define TIRX_STR2(x) #x
#define TIRX_STR(x) TIRX_STR2(x)

// Each entry point: cuda.h declares it, and maps its plain name to the
// symbol Driver.h binds.
#define TIRX_CHECK_SYMBOL(name, symbol, ...)                                   \
  static_assert(same(TIRX_STR(name), symbol),                                  \
                "cuda.h maps " #name " to " TIRX_STR(name) ", not " symbol);   \
  static_assert(sizeof(&name) == sizeof(void *), #name " is declared");
TIRX_CUDA_DRIVER_FUNCTIONS(TIRX_CHECK_SYMBOL)
#undef TIRX_CHECK_SYMBOL

static_assert(t::CUDA_SUCCESS == CUDA_SUCCESS, "");
static_assert(t::CU_STREAM_NON_BLOCKING == CU_STREAM_NON_BLOCKING, "");
static_assert(t::CU_EVENT_DISABLE_TIMING == CU_EVENT_DISABLE_TIMING, "");
static_assert(t::CU_MEM_ATTACH_GLOBAL == CU_MEM_ATTACH_GLOBAL, "");
static_assert(t::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              "");
static_assert(t::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED ==
                  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
              "");
static_assert(t::CU_JIT_ERROR_LOG_BUFFER == CU_JIT_ERROR_LOG_BUFFER, "");
static_assert(t::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES ==
                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
              "");
static_assert(t::CU_JIT_OPTIMIZATION_LEVEL == CU_JIT_OPTIMIZATION_LEVEL, "");
static_assert(t::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION ==
                  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
              "");
static_assert(t::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION ==
                  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
              "");

static_assert(sizeof(t::CUlaunchAttribute) == sizeof(CUlaunchAttribute), "");
static_assert(offsetof(t::CUlaunchAttribute, value) ==
                  offsetof(CUlaunchAttribute, value),
              "");
static_assert(offsetof(t::CUlaunchAttribute, value.clusterDim.z) ==
                  offsetof(CUlaunchAttribute, value.clusterDim.z),
              "");
static_assert(
    offsetof(t::CUlaunchAttribute,
             value.programmaticStreamSerializationAllowed) ==
        offsetof(CUlaunchAttribute,
                 value.programmaticStreamSerializationAllowed),
    "");
static_assert(sizeof(t::CUlaunchConfig) == sizeof(CUlaunchConfig), "");
static_assert(offsetof(t::CUlaunchConfig, sharedMemBytes) ==
                  offsetof(CUlaunchConfig, sharedMemBytes),
              "");
static_assert(offsetof(t::CUlaunchConfig, hStream) ==
                  offsetof(CUlaunchConfig, hStream),
              "");
static_assert(offsetof(t::CUlaunchConfig, attrs) ==
                  offsetof(CUlaunchConfig, attrs),
              "");
static_assert(offsetof(t::CUlaunchConfig, numAttrs) ==
                  offsetof(CUlaunchConfig, numAttrs),
              "");
static_assert(sizeof(t::CUtensorMap) == sizeof(CUtensorMap), "");
static_assert(alignof(t::CUtensorMap) == alignof(CUtensorMap), "");
static_assert(sizeof(t::CUdeviceptr) == sizeof(CUdeviceptr), "");

// The element sizes are indexed by CUtensorMapDataType.
static_assert(CU_TENSOR_MAP_DATA_TYPE_UINT8 == 0 &&
                  t::kTensorMapElementBytes[CU_TENSOR_MAP_DATA_TYPE_UINT8] == 1,
              "");
static_assert(t::kTensorMapElementBytes[CU_TENSOR_MAP_DATA_TYPE_UINT16] == 2,
              "");
static_assert(t::kTensorMapElementBytes[CU_TENSOR_MAP_DATA_TYPE_INT32] == 4,
              "");
static_assert(t::kTensorMapElementBytes[CU_TENSOR_MAP_DATA_TYPE_INT64] == 8,
              "");
static_assert(t::kTensorMapElementBytes[CU_TENSOR_MAP_DATA_TYPE_FLOAT16] == 2,
              "");
static_assert(t::kTensorMapElementBytes[CU_TENSOR_MAP_DATA_TYPE_FLOAT32] == 4,
              "");
static_assert(t::kTensorMapElementBytes[CU_TENSOR_MAP_DATA_TYPE_FLOAT64] == 8,
              "");
static_assert(t::kTensorMapElementBytes[CU_TENSOR_MAP_DATA_TYPE_BFLOAT16] == 2,
              "");
static_assert(sizeof(t::kTensorMapElementBytes) / sizeof(int) ==
                  CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ + 1,
              "");
} // namespace
