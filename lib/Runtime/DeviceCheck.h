//===- DeviceCheck.h - inputs and comparisons on the device -----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Internal to lib/Runtime: the persistent worker's numerics on the GPU, by
// hand-written PTX kernels loaded with cuModuleLoadData. They compute what
// Check.cpp computes on the host, so that only a few scalars cross the bus:
//  - fill: the inputs of fillRandom, bit for bit (splitmix64 is counter
//    based: element i of seed s is mix(s + (i + 1) * golden), whatever
//    thread draws it);
//  - compare: compareBuffers' first bad element, largest absolute error and
//    L2 sums, under the same tolerance;
//  - sumsq: the reference's squares over its finite elements (the RMS that
//    the tolerance's rmsRel scales);
//  - diff: the first element where two buffers differ bit for bit (inputs
//    unchanged, relaunches bit-equal);
//  - checksum: a position-dependent sum of a buffer's elements (the
//    worker's kept inputs and reference outputs, watched for stray writes).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_RUNTIME_DEVICECHECK_H
#define TIRX_LIB_RUNTIME_DEVICECHECK_H

#include "Cuda.h"

#include "tirx/Runtime/Check.h"

#include <functional>

namespace tirx {
namespace runtime {

/// The PTX module of the kernels: tirx_fill_<type>, tirx_compare_<type>,
/// tirx_sumsq_<type> for each element type, tirx_diff_<bytes> and
/// tirx_checksum_<bytes> for 1, 2, 4 and 8 bytes per element.
std::string deviceCheckPtx();

class DeviceChecker {
public:
  /// Loads the module on the current context.
  explicit DeviceChecker(int smCount);
  ~DeviceChecker();
  DeviceChecker(const DeviceChecker &) = delete;
  DeviceChecker &operator=(const DeviceChecker &) = delete;

  /// Told before and after each wait for the device (the watchdog).
  std::function<void(bool)> busy;

  /// `bytes` of `type` at `ptr` as fillRandom(bytes, type, seed, domain)
  /// makes them.
  void fill(gpu::CUdeviceptr ptr, uint64_t bytes, ElementType type,
            uint64_t seed, Domain domain);
  /// The root mean square of the finite elements.
  double rms(gpu::CUdeviceptr ptr, uint64_t bytes, ElementType type);
  /// compareBuffers(name, type, got, want, tol) where `wantRms` is the RMS
  /// of `want` (used when tol.rmsRel > 0).
  Comparison compare(const std::string &name, ElementType type,
                     gpu::CUdeviceptr got, gpu::CUdeviceptr want,
                     uint64_t bytes, const Tolerance &tol, double wantRms);
  /// The first element where the two differ bit for bit, or -1.
  int64_t firstDifference(gpu::CUdeviceptr a, gpu::CUdeviceptr b,
                          uint64_t bytes, ElementType type);
  /// A checksum of the elements, which changes when one changes.
  uint64_t checksum(gpu::CUdeviceptr ptr, uint64_t bytes, ElementType type);
  /// compareUnchanged on the device.
  Comparison unchanged(const std::string &name, ElementType type,
                       gpu::CUdeviceptr now, gpu::CUdeviceptr uploaded,
                       uint64_t bytes);
  /// compareRelaunch on the device.
  RelaunchCheck relaunch(const std::string &name, ElementType type,
                         gpu::CUdeviceptr now, gpu::CUdeviceptr first,
                         gpu::CUdeviceptr want, uint64_t bytes,
                         const Tolerance &tol, double wantRms);

private:
  gpu::CUfunction function(const std::string &name);
  void launch(const std::string &name, uint64_t n, void **args);
  /// Element `i` at `ptr` as a one-element host image.
  std::vector<uint8_t> element(gpu::CUdeviceptr ptr, ElementType type,
                               uint64_t i);

  gpu::CUmodule module = nullptr;
  int smCount;
  gpu::DeviceBuffer result; // the kernels' few scalars
};

} // namespace runtime
} // namespace tirx

#endif // TIRX_LIB_RUNTIME_DEVICECHECK_H
