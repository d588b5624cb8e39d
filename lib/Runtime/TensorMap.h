//===- TensorMap.h - TMA tensor maps for the runner -------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Internal to lib/Runtime: the tensor maps a bundle's kernels load through
// (manifest args {"tensor_map": ...}, from use_wgmma), encoded with the
// driver's cuTensorMapEncodeTiled and copied to global memory; the kernel
// gets the copy's address (tirx-tensor-map-params).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_RUNTIME_TENSORMAP_H
#define TIRX_LIB_RUNTIME_TENSORMAP_H

#include "Cuda.h"

#include <map>
#include <tuple>

namespace tirx {
namespace runtime {
namespace gpu {

/// The parameters of cuTensorMapEncodeTiled for `map` over a buffer of
/// `param`'s type and shape: dimensions, strides and box innermost first.
struct TensorMapEncoding {
  int dataType = 0; // CUtensorMapDataType
  unsigned rank = 0;
  uint64_t dims[5] = {};
  uint64_t strides[4] = {}; // bytes, of dimensions 1 .. rank - 1
  uint32_t box[5] = {};
  uint32_t elementStrides[5] = {};
  int swizzle = 0;     // CUtensorMapSwizzle
  int l2Promotion = 0; // CUtensorMapL2promotion
};
TensorMapEncoding tensorMapEncoding(const TensorMapArg &map,
                                    const Param &param);

/// The encoded tensor maps of a loaded bundle, in device memory: one per
/// (kernel, argument, buffer address), made on first use.
class TensorMaps {
public:
  TensorMaps() = default;
  ~TensorMaps();
  TensorMaps(const TensorMaps &) = delete;
  TensorMaps &operator=(const TensorMaps &) = delete;

  /// The device address of the tensor map of argument `arg` of kernel
  /// `kernel` over the buffer at `buffer`.
  CUdeviceptr address(size_t kernel, size_t arg, const TensorMapArg &map,
                      const Param &param, CUdeviceptr buffer);

private:
  std::map<std::tuple<size_t, size_t, CUdeviceptr>, CUdeviceptr> maps;
};

} // namespace gpu
} // namespace runtime
} // namespace tirx

#endif // TIRX_LIB_RUNTIME_TENSORMAP_H
