//===- TensorMap.cpp - TMA tensor maps for the runner -----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "TensorMap.h"

#include <dlfcn.h>

namespace tirx {
namespace runtime {
namespace gpu {

namespace {
// CUtensorMapDataType values (cuda.h).
constexpr int kFloat16 = 6, kFloat32 = 7, kBFloat16 = 9;

/// cuTensorMapEncodeTiled (CUDA 12.0 and newer), looked up in the loaded
/// driver when a bundle first needs it: older drivers and the CPU tests'
/// stand-in lack it, and only bundles with tensor maps need it.
using EncodeTiled = CUresult (*)(void *map, int dataType, unsigned rank,
                                 void *address, const uint64_t *dims,
                                 const uint64_t *strides, const uint32_t *box,
                                 const uint32_t *elementStrides,
                                 int interleave, int swizzle, int l2Promotion,
                                 int oobFill);

EncodeTiled encodeTiled() {
  static EncodeTiled fn = driver().handle
                              ? reinterpret_cast<EncodeTiled>(dlsym(
                                    driver().handle, "cuTensorMapEncodeTiled"))
                              : nullptr;
  if (!fn)
    throw CudaError{"the CUDA driver lacks cuTensorMapEncodeTiled (CUDA 12 "
                    "or newer): this bundle's kernels load with TMA"};
  return fn;
}

int log2Bytes(int bytes) {
  int code = 0;
  for (int b = bytes; b > 16; b /= 2)
    ++code;
  return code;
}
} // namespace

TensorMapEncoding tensorMapEncoding(const TensorMapArg &map,
                                    const Param &param) {
  TensorMapEncoding e;
  e.dataType = param.type == ElementType::f16    ? kFloat16
               : param.type == ElementType::bf16 ? kBFloat16
                                                 : kFloat32;
  const std::vector<int64_t> &shape =
      map.shape.empty() ? param.shape : map.shape;
  e.rank = unsigned(shape.size());
  uint64_t stride = elementBytes(param.type);
  for (unsigned d = 0; d < e.rank; ++d) {
    unsigned from = e.rank - 1 - d; // innermost first
    e.dims[d] = uint64_t(shape[from]);
    e.box[d] = uint32_t(map.box[from]);
    e.elementStrides[d] = 1;
    if (d > 0)
      e.strides[d - 1] = stride;
    stride *= e.dims[d];
  }
  // CU_TENSOR_MAP_SWIZZLE_{NONE,32B,64B,128B} = 0..3 and
  // CU_TENSOR_MAP_L2_PROMOTION_{NONE,L2_64B,L2_128B,L2_256B} = 0..3.
  e.swizzle = map.swizzle ? log2Bytes(map.swizzle) : 0;
  e.l2Promotion = map.l2Promotion ? log2Bytes(map.l2Promotion) - 1 : 0;
  return e;
}

TensorMaps::~TensorMaps() {
  for (auto &[key, ptr] : maps)
    driver().cuMemFree(ptr);
}

CUdeviceptr TensorMaps::address(size_t kernel, size_t arg,
                                const TensorMapArg &map, const Param &param,
                                CUdeviceptr buffer) {
  auto key = std::make_tuple(kernel, arg, buffer);
  auto it = maps.find(key);
  if (it != maps.end())
    return it->second;
  TensorMapEncoding e = tensorMapEncoding(map, param);
  alignas(64) unsigned char encoded[128] = {};
  check(encodeTiled()(encoded, e.dataType, e.rank,
                      reinterpret_cast<void *>(buffer), e.dims, e.strides,
                      e.box, e.elementStrides, /*interleave=*/0, e.swizzle,
                      e.l2Promotion, /*oobFill=*/0),
        "cuTensorMapEncodeTiled");
  CUdeviceptr ptr = 0;
  CU(cuMemAlloc(&ptr, sizeof(encoded)));
  CUresult copied = driver().cuMemcpyHtoD(ptr, encoded, sizeof(encoded));
  if (copied != CUDA_SUCCESS) {
    driver().cuMemFree(ptr);
    check(copied, "cuMemcpyHtoD (tensor map)");
  }
  maps[key] = ptr;
  return ptr;
}

} // namespace gpu
} // namespace runtime
} // namespace tirx
