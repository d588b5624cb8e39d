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
//                apart. Kernels run by their names: the persistent worker's
//                own (tirx_fill_*, tirx_compare_*, ...: computed here as its
//                PTX computes them), saxpy (*saxpy*: y = a * x + y over y's
//                allocation, arguments x, y, a) with planted faults
//                (*off*: the last element not written; *clobber*: x[0]
//                changed; *stateful*: nothing from the 4th launch of the
//                loaded function on; *stray*: the newest other allocation
//                overwritten; *racy*: every other launch one element one
//                ulp off; *xxx*: x as x * x / x; *ftz*: subnormals flushed
//                to zero), and: one named *fault* makes the next wait
//                fail with CUDA_ERROR_ILLEGAL_ADDRESS and every call after it
//                too (a sticky error), one named *hang* makes the next wait
//                block for ever, one named *abort* ends the process
//                (SIGABRT); *dynadd_desc* (z = x + y on 2-D memref
//                descriptors: 7 values each, checked against the
//                allocations) and *dynadd_bare* (the same on bare pointers
//                with the element count last) test run-time sizes. Other
//                kernels do nothing. cuLaunchKernelEx (early launches,
//                clusters) runs them as cuLaunchKernel does. With
//                $TIRX_FAKE_LAUNCH_LOG, each launch appends "NAME early=0|1"
//                to that file (early: a programmatic dependent launch).
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Check.h"

// The driver's launch configuration, as the runtimes declare it.
#include "../../lib/CudaRuntime/Driver.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

namespace {
constexpr int kInvalidValue = 1, kNoDevice = 100, kInvalidImage = 200,
              kInvalidHandle = 400, kIllegalAddress = 700;
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

// Memory mode: the live allocations (address -> bytes, order of making).
struct Allocation {
  size_t bytes;
  uint64_t serial;
};
std::map<uint64_t, Allocation> &allocations() {
  static std::map<uint64_t, Allocation> live;
  return live;
}

/// A loaded function of the memory mode.
struct Function {
  std::string name;
  int launches = 0;
};

bool has(const std::string &name, const char *part) {
  return name.find(part) != std::string::npos;
}

template <typename T> T arg(void **params, int i) {
  T v;
  std::memcpy(&v, params[i], sizeof(T));
  return v;
}

std::vector<uint8_t> image(uint64_t ptr, size_t bytes) {
  const uint8_t *p = reinterpret_cast<const uint8_t *>(ptr);
  return std::vector<uint8_t>(p, p + bytes);
}

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

namespace rt = tirx::runtime;

/// The persistent worker's kernels (lib/Runtime/DeviceCheck.cpp), computed
/// as their PTX computes them, results combined as its atomics combine
/// them. False when `name` is not one of them.
bool workerKernel(const std::string &name, void **params) {
  auto typed = [&](const char *prefix, rt::ElementType &type) {
    size_t length = std::strlen(prefix);
    if (name.compare(0, length, prefix) != 0)
      return false;
    auto parsed = rt::parseElementType(name.substr(length));
    if (parsed)
      type = *parsed;
    return bool(parsed);
  };
  auto bad = [](const std::vector<uint8_t> &v, rt::ElementType t, size_t i) {
    return std::isnan(rt::elementAt(v, t, i)) || rt::isPoison(v, t, i);
  };
  rt::ElementType type;
  if (typed("tirx_fill_", type)) {
    uint64_t n = arg<uint64_t>(params, 1);
    std::vector<uint8_t> bytes(n * rt::elementBytes(type));
    rt::fillRandom(bytes, type, arg<uint64_t>(params, 2),
                   arg<uint64_t>(params, 3) ? rt::Domain::nonnegative
                                            : rt::Domain::signed_unit);
    std::memcpy(reinterpret_cast<void *>(arg<uint64_t>(params, 0)),
                bytes.data(), bytes.size());
    return true;
  }
  if (typed("tirx_compare_", type)) {
    uint64_t n = arg<uint64_t>(params, 2);
    auto got = image(arg<uint64_t>(params, 0), n * rt::elementBytes(type));
    auto want = image(arg<uint64_t>(params, 1), n * rt::elementBytes(type));
    double rtol = arg<double>(params, 3), slack = arg<double>(params, 4);
    uint64_t *out = reinterpret_cast<uint64_t *>(arg<uint64_t>(params, 5));
    double maxAbs, diff2, ref2;
    std::memcpy(&maxAbs, out + 1, 8);
    std::memcpy(&diff2, out + 2, 8);
    std::memcpy(&ref2, out + 3, 8);
    for (uint64_t i = 0; i < n; ++i) {
      double g = rt::elementAt(got, type, i), w = rt::elementAt(want, type, i);
      if (bad(want, type, i) || bad(got, type, i)) {
        out[0] = std::min<uint64_t>(out[0], i);
        if (!bad(want, type, i))
          maxAbs = INFINITY;
        continue;
      }
      double err = std::fabs(g - w);
      if (std::isnan(err))
        err = INFINITY;
      maxAbs = std::max(maxAbs, err);
      diff2 += err * err;
      ref2 += w * w;
      if (err > slack + rtol * std::fabs(w))
        out[0] = std::min<uint64_t>(out[0], i);
    }
    std::memcpy(out + 1, &maxAbs, 8);
    std::memcpy(out + 2, &diff2, 8);
    std::memcpy(out + 3, &ref2, 8);
    return true;
  }
  if (typed("tirx_sumsq_", type)) {
    uint64_t n = arg<uint64_t>(params, 1);
    auto v = image(arg<uint64_t>(params, 0), n * rt::elementBytes(type));
    uint64_t *out = reinterpret_cast<uint64_t *>(arg<uint64_t>(params, 2));
    double sum;
    std::memcpy(&sum, out, 8);
    for (uint64_t i = 0; i < n; ++i) {
      double x = rt::elementAt(v, type, i);
      if (std::isfinite(x)) {
        sum += x * x;
        ++out[1];
      }
    }
    std::memcpy(out, &sum, 8);
    return true;
  }
  bool diff = name.compare(0, 10, "tirx_diff_") == 0;
  if (diff || name.compare(0, 14, "tirx_checksum_") == 0) {
    unsigned width = unsigned(std::stoul(name.substr(diff ? 10 : 14)));
    const uint8_t *a = reinterpret_cast<const uint8_t *>(arg<uint64_t>(params, 0));
    const uint8_t *b = diff ? reinterpret_cast<const uint8_t *>(
                                  arg<uint64_t>(params, 1))
                            : nullptr;
    uint64_t n = arg<uint64_t>(params, diff ? 2 : 1);
    uint64_t *out = reinterpret_cast<uint64_t *>(arg<uint64_t>(params, diff ? 3 : 2));
    for (uint64_t i = 0; i < n; ++i) {
      if (diff) {
        if (std::memcmp(a + i * width, b + i * width, width) != 0)
          out[0] = std::min<uint64_t>(out[0], i);
        continue;
      }
      uint64_t value = 0;
      std::memcpy(&value, a + i * width, width);
      out[0] += mix(value + (i + 1) * 0x9E3779B97F4A7C15ull);
    }
    return true;
  }
  return false;
}

/// z = x + y, the kernels of the run-time-size tests: on three 2-D memref
/// descriptors (allocated, aligned, offset, 2 sizes, 2 strides each) that
/// must describe each allocation exactly (row-major, offset 0), or on three
/// pointers and the element count. Writes nothing on a bad descriptor.
void dynadd(const std::string &name, void **params) {
  float *at[3];
  uint64_t n = 0;
  if (has(name, "desc")) {
    for (int b = 0; b < 3; ++b) {
      uint64_t allocated = arg<uint64_t>(params, 7 * b);
      uint64_t aligned = arg<uint64_t>(params, 7 * b + 1);
      int64_t offset = arg<int64_t>(params, 7 * b + 2);
      int64_t rows = arg<int64_t>(params, 7 * b + 3);
      int64_t cols = arg<int64_t>(params, 7 * b + 4);
      int64_t rowStride = arg<int64_t>(params, 7 * b + 5);
      int64_t colStride = arg<int64_t>(params, 7 * b + 6);
      auto found = allocations().find(aligned);
      if (allocated != aligned || offset != 0 || colStride != 1 ||
          rowStride != cols || found == allocations().end() ||
          // (The runner allocates at least 16 bytes.)
          found->second.bytes != std::max<uint64_t>(uint64_t(rows * cols) * 4, 16))
        return;
      at[b] = reinterpret_cast<float *>(aligned);
      n = uint64_t(rows * cols);
    }
  } else {
    for (int b = 0; b < 3; ++b)
      at[b] = reinterpret_cast<float *>(arg<uint64_t>(params, b));
    n = arg<uint64_t>(params, 3);
  }
  for (uint64_t i = 0; i < n; ++i)
    at[2][i] = at[0][i] + at[1][i];
}

/// saxpy and its planted faults (see the top of this file).
void saxpy(Function &f, void **params) {
  ++f.launches;
  if (has(f.name, "stateful") && f.launches > 3)
    return;
  uint64_t xAt = arg<uint64_t>(params, 0), yAt = arg<uint64_t>(params, 1);
  float *x = reinterpret_cast<float *>(xAt), *y = reinterpret_cast<float *>(yAt);
  float a = arg<float>(params, 2);
  size_t n = allocations()[yAt].bytes / 4;
  // *ftz*: subnormal operands and results flushed to zero (as
  // -ftz=true code); *xxx*: x computed as x * x / x, which overflows for
  // large x and underflows for tiny ones.
  bool ftz = has(f.name, "ftz");
  auto flush = [&](float v) {
    return ftz && std::fpclassify(v) == FP_SUBNORMAL ? 0.0f : v;
  };
  for (size_t i = 0; i + (has(f.name, "off") ? 1 : 0) < n; ++i) {
    float xi = flush(x[i]);
    if (has(f.name, "xxx"))
      xi = xi * xi / xi;
    y[i] = flush(flush(a * xi) + flush(y[i]));
  }
  // *racy*: every other launch, one element one ulp off (a race that
  // loses the last addition's rounding now and then): within tolerance,
  // not bit for bit.
  if (has(f.name, "racy") && f.launches % 2 == 0 && n > 0)
    y[n / 2] = std::nextafter(y[n / 2], INFINITY);
  if (has(f.name, "clobber"))
    x[0] += 1;
  if (has(f.name, "stray")) {
    uint64_t newest = 0, serial = 0;
    for (auto &[at, allocation] : allocations())
      if (at != xAt && at != yAt && allocation.serial >= serial &&
          allocation.bytes >= 16) {
        newest = at;
        serial = allocation.serial;
      }
    if (newest)
      std::memset(reinterpret_cast<void *>(newest), 0x3F, 4);
  }
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
  // In memory mode a Function (kept for the process's life).
  *function = module && mode("memory") ? new Function{name} : nullptr;
  return module ? 0 : kInvalidHandle;
}
extern "C" __attribute__((visibility("default"))) int
cuModuleUnload(void *module) {
  return module ? 0 : kInvalidHandle;
}
/// A launch in memory mode; with $TIRX_FAKE_LAUNCH_LOG, a line "NAME
/// early=0|1" appended there for each (early: the launch allowed
/// programmatic dependent launch).
static int launchFake(void *function, void **params, bool early) {
  if (!function)
    return kInvalidHandle;
  if (!mode("memory"))
    return 0;
  if (sticky)
    return sticky;
  Function &f = *static_cast<Function *>(function);
  if (const char *log = std::getenv("TIRX_FAKE_LAUNCH_LOG"))
    if (FILE *out = std::fopen(log, "a")) {
      std::fprintf(out, "%s early=%d\n", f.name.c_str(), early ? 1 : 0);
      std::fclose(out);
    }
  if (has(f.name, "abort"))
    std::abort();
  if (has(f.name, "fault"))
    sticky = kIllegalAddress;
  if (has(f.name, "hang"))
    hangPending = true;
  if (workerKernel(f.name, params))
    return 0;
  if (has(f.name, "dynadd"))
    dynadd(f.name, params);
  else if (has(f.name, "saxpy"))
    saxpy(f, params);
  return 0; // a fault shows at the next wait, as on a GPU
}

extern "C" __attribute__((visibility("default"))) int
cuLaunchKernel(void *function, unsigned, unsigned, unsigned, unsigned,
               unsigned, unsigned, unsigned, void *, void **params, void **) {
  return launchFake(function, params, false);
}

extern "C" __attribute__((visibility("default"))) int
cuLaunchKernelEx(const void *config, void *function, void **params, void **) {
  if (!config)
    return kInvalidValue;
  namespace cuda = tirx::cuda;
  const auto &c = *static_cast<const cuda::CUlaunchConfig *>(config);
  bool early = false;
  for (unsigned i = 0; i < c.numAttrs; ++i)
    if (c.attrs[i].id ==
        cuda::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
      early = c.attrs[i].value.programmaticStreamSerializationAllowed != 0;
  return launchFake(function, params, early);
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
  static uint64_t serial = 0;
  if (sticky)
    return sticky;
  // 256-byte aligned, as the driver's cuMemAlloc (the bundle ABI).
  size_t rounded = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;
  void *p = mode("memory") ? std::aligned_alloc(256, rounded) : nullptr;
  if (p)
    std::memset(p, 0, rounded);
  *ptr = uint64_t(p);
  if (*ptr)
    allocations()[*ptr] = {bytes, ++serial};
  return 0;
}
FAKE cuMemFree_v2(uint64_t ptr) {
  if (mode("memory")) {
    allocations().erase(ptr);
    std::free(reinterpret_cast<void *>(ptr));
  }
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
