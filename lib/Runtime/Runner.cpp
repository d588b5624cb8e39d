//===- Runner.cpp - run one candidate bundle on the GPU ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Runner.h"
#include "tirx/Runtime/Check.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Runtime/Stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <sys/stat.h>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

namespace tirx {
namespace runtime {

//===----------------------------------------------------------------------===//
// The CUDA driver, loaded at run time. Only the ABI is declared here: no
// CUDA header is needed to build the runner.
//===----------------------------------------------------------------------===//

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
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
  TIRX_CU(cuEventCreate, CUevent *, unsigned)
  TIRX_CU(cuEventDestroy, CUevent)
  TIRX_CU(cuEventRecord, CUevent, CUstream)
  TIRX_CU(cuEventSynchronize, CUevent)
  TIRX_CU(cuEventElapsedTime, float *, CUevent, CUevent)
  TIRX_CU(cuGetErrorName, CUresult, const char **)
  TIRX_CU(cuGetErrorString, CUresult, const char **)
#undef TIRX_CU

  /// Loads libcuda.so.1 and every entry point; "" or the reason it failed.
  std::string load() {
    if (handle)
      return "";
    handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return std::string("no CUDA driver: cannot load libcuda.so.1 (") +
             dlerror() + ")";
    std::string missing;
    auto bind = [&](auto &fn, std::initializer_list<const char *> names) {
      for (const char *name : names)
        if (void *sym = dlsym(handle, name)) {
          fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
          return;
        }
      missing += std::string(*names.begin()) + " ";
    };
    bind(cuInit, {"cuInit"});
    bind(cuDeviceGetCount, {"cuDeviceGetCount"});
    bind(cuDeviceGet, {"cuDeviceGet"});
    bind(cuDeviceGetName, {"cuDeviceGetName"});
    bind(cuDeviceGetUuid, {"cuDeviceGetUuid_v2", "cuDeviceGetUuid"});
    bind(cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
    bind(cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
    bind(cuCtxSetCurrent, {"cuCtxSetCurrent"});
    bind(cuCtxSynchronize, {"cuCtxSynchronize"});
    bind(cuModuleLoadData, {"cuModuleLoadData"});
    bind(cuModuleUnload, {"cuModuleUnload"});
    bind(cuModuleGetFunction, {"cuModuleGetFunction"});
    bind(cuFuncGetAttribute, {"cuFuncGetAttribute"});
    bind(cuFuncSetAttribute, {"cuFuncSetAttribute"});
    bind(cuOccupancyMaxActiveBlocksPerMultiprocessor,
         {"cuOccupancyMaxActiveBlocksPerMultiprocessor"});
    bind(cuMemAlloc, {"cuMemAlloc_v2"});
    bind(cuMemFree, {"cuMemFree_v2"});
    bind(cuMemcpyHtoD, {"cuMemcpyHtoD_v2"});
    bind(cuMemcpyDtoH, {"cuMemcpyDtoH_v2"});
    bind(cuMemcpyDtoD, {"cuMemcpyDtoD_v2"});
    bind(cuMemsetD32Async, {"cuMemsetD32Async"});
    bind(cuMemsetD16Async, {"cuMemsetD16Async"});
    bind(cuMemsetD8Async, {"cuMemsetD8Async"});
    bind(cuLaunchKernel, {"cuLaunchKernel"});
    bind(cuEventCreate, {"cuEventCreate"});
    bind(cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
    bind(cuEventRecord, {"cuEventRecord"});
    bind(cuEventSynchronize, {"cuEventSynchronize"});
    bind(cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
    bind(cuGetErrorName, {"cuGetErrorName"});
    bind(cuGetErrorString, {"cuGetErrorString"});
    if (!missing.empty())
      return "the CUDA driver lacks: " + missing;
    return "";
  }

  std::string describe(CUresult r) const {
    const char *name = nullptr, *text = nullptr;
    if (cuGetErrorName)
      cuGetErrorName(r, &name);
    if (cuGetErrorString)
      cuGetErrorString(r, &text);
    return std::string(name ? name : "CUDA_ERROR_" + std::to_string(r)) +
           (text ? std::string(": ") + text : "");
  }
};

Driver &driver() {
  static Driver d;
  return d;
}

/// A failed CUDA call: its name and what the driver said.
struct CudaError {
  std::string what;
};

void check(CUresult r, const char *call) {
  if (r != CUDA_SUCCESS)
    throw CudaError{std::string(call) + ": " + driver().describe(r)};
}
#define CU(call) check(driver().call, #call)

int attribute(int attr, CUdevice dev) {
  int v = 0;
  if (driver().cuDeviceGetAttribute(&v, attr, dev) != CUDA_SUCCESS)
    return 0;
  return v;
}

CUdevice openDevice(int ordinal) {
  std::string error = driver().load();
  if (!error.empty())
    throw CudaError{error};
  CU(cuInit(0));
  int count = 0;
  CU(cuDeviceGetCount(&count));
  if (ordinal < 0 || ordinal >= count)
    throw CudaError{"no CUDA device " + std::to_string(ordinal) + " (" +
                    std::to_string(count) + " present)"};
  CUdevice dev;
  CU(cuDeviceGet(&dev, ordinal));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  return dev;
}

/// Device memory that frees itself.
struct DeviceBuffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t n) : bytes(n) {
    CU(cuMemAlloc(&ptr, std::max<size_t>(n, 16)));
    // The bundle ABI: kernels were compiled assuming this alignment of
    // every buffer (cuMemAlloc guarantees 256 bytes or more).
    if (ptr % kBundleBufferAlignment != 0) {
      driver().cuMemFree(ptr);
      throw CudaError{"cuMemAlloc returned an address that is not " +
                      std::to_string(kBundleBufferAlignment) +
                      "-byte aligned, which the bundle ABI promises"};
    }
  }
  ~DeviceBuffer() {
    if (ptr)
      driver().cuMemFree(ptr);
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};

struct Event {
  CUevent e = nullptr;
  Event() { CU(cuEventCreate(&e, 0)); }
  ~Event() {
    if (e)
      driver().cuEventDestroy(e);
  }
};


/// A loaded bundle: its module and functions.
struct LoadedBundle {
  const Manifest *manifest = nullptr;
  std::vector<CUmodule> modules;
  std::vector<CUfunction> functions;

  LoadedBundle(const std::string &dir, const Manifest &m) : manifest(&m) {
    for (const Kernel &k : m.kernels) {
      std::string image, error;
      bool ok = !k.cubinFile.empty() &&
                readFile(dir + "/" + k.cubinFile, image, error);
      if (!ok) {
        if (!readFile(dir + "/" + k.ptxFile, image, error))
          throw CudaError{error};
        image.push_back('\0'); // the driver reads PTX as a C string
      }
      CUmodule module;
      CU(cuModuleLoadData(&module, image.data()));
      modules.push_back(module);
      CUfunction fn;
      check(driver().cuModuleGetFunction(&fn, module, k.name.c_str()),
            ("cuModuleGetFunction(" + k.name + ")").c_str());
      if (k.dynamicSharedBytes > 48 * 1024)
        CU(cuFuncSetAttribute(fn, FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              int(k.dynamicSharedBytes)));
      functions.push_back(fn);
    }
  }
  ~LoadedBundle() {
    for (CUmodule m : modules)
      driver().cuModuleUnload(m);
  }

  /// Enqueues every launch of one run on the default stream; `scalars`
  /// holds each scalar parameter's value (scalarValues).
  void launch(const std::vector<std::unique_ptr<DeviceBuffer>> &buffers,
              const std::vector<double> &scalars) {
    const Manifest &m = *manifest;
    for (size_t i = 0; i < m.kernels.size(); ++i) {
      const Kernel &k = m.kernels[i];
      // Arguments, each in storage of its own type.
      std::vector<std::array<uint8_t, 8>> storage(k.args.size());
      std::vector<void *> pointers(k.args.size());
      for (size_t a = 0; a < k.args.size(); ++a) {
        const KernelArg &arg = k.args[a];
        uint8_t *slot = storage[a].data();
        std::memset(slot, 0, 8);
        if (arg.scratch || (arg.param && m.params[*arg.param].isBuffer)) {
          // Scratch buffers follow the parameters' (see allocate).
          CUdeviceptr p = arg.scratch
                              ? buffers[m.params.size() + *arg.scratch]->ptr
                              : buffers[*arg.param]->ptr;
          std::memcpy(slot, &p, sizeof(p));
        } else {
          ElementType type = arg.param ? m.params[*arg.param].type : arg.type;
          double value = arg.param ? scalars[*arg.param] : arg.value;
          switch (type) {
          case ElementType::f32: { float v = float(value); std::memcpy(slot, &v, 4); break; }
          case ElementType::f64: std::memcpy(slot, &value, 8); break;
          case ElementType::f16: { uint16_t v = floatToHalf(float(value)); std::memcpy(slot, &v, 2); break; }
          case ElementType::bf16: { uint16_t v = floatToBFloat16(float(value)); std::memcpy(slot, &v, 2); break; }
          case ElementType::i8: { int8_t v = int8_t(value); std::memcpy(slot, &v, 1); break; }
          case ElementType::i32: { int32_t v = int32_t(value); std::memcpy(slot, &v, 4); break; }
          case ElementType::i64: { int64_t v = int64_t(value); std::memcpy(slot, &v, 8); break; }
          }
        }
        pointers[a] = slot;
      }
      CU(cuLaunchKernel(functions[i], unsigned(k.grid[0]), unsigned(k.grid[1]),
                        unsigned(k.grid[2]), unsigned(k.block[0]),
                        unsigned(k.block[1]), unsigned(k.block[2]),
                        unsigned(k.dynamicSharedBytes), nullptr,
                        pointers.data(), nullptr));
    }
  }
};

void synchronize(const RunOptions &options) {
  if (options.busy)
    options.busy(true);
  CUresult r = driver().cuCtxSynchronize();
  if (options.busy)
    options.busy(false);
  check(r, "cuCtxSynchronize (kernel execution)");
}

/// One device buffer per buffer parameter (null for scalars), then one per
/// scratch buffer.
std::vector<std::unique_ptr<DeviceBuffer>> allocate(const Manifest &m) {
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  for (const Param &p : m.params)
    buffers.push_back(p.isBuffer ? std::make_unique<DeviceBuffer>(p.bytes)
                                 : nullptr);
  for (const Scratch &s : m.scratch)
    buffers.push_back(std::make_unique<DeviceBuffer>(s.bytes));
  return buffers;
}

/// Fills a device buffer with the poison of `type`, on the device (a
/// memset: cheap enough before every timed launch).
void poisonDevice(CUdeviceptr ptr, uint64_t bytes, ElementType type) {
  uint32_t word = poisonWord(type);
  if (bytes % 4 == 0)
    CU(cuMemsetD32Async(ptr, word, bytes / 4, nullptr));
  else if (bytes % 2 == 0)
    CU(cuMemsetD16Async(ptr, (unsigned short)(word & 0xFFFF), bytes / 2,
                        nullptr));
  else
    CU(cuMemsetD8Async(ptr, (unsigned char)(word & 0xFF), bytes, nullptr));
}

/// Poisons the scratch buffers: a kernel reading what none wrote then
/// yields NaN (or the integer sentinel), which the check catches; and no
/// state survives in them from one run to the next.
void poisonScratch(const Manifest &m,
                   const std::vector<std::unique_ptr<DeviceBuffer>> &buffers) {
  for (size_t i = 0; i < m.scratch.size(); ++i)
    poisonDevice(buffers[m.params.size() + i]->ptr, m.scratch[i].bytes,
                 m.scratch[i].type);
}

void upload(const std::vector<std::unique_ptr<DeviceBuffer>> &buffers,
            const std::vector<std::vector<uint8_t>> &host) {
  for (size_t i = 0; i < host.size(); ++i)
    if (buffers[i])
      CU(cuMemcpyHtoD(buffers[i]->ptr, host[i].data(), host[i].size()));
}

/// Reads back the outputs (`out` and `inout` buffers), or with `inputs`
/// the `in` buffers.
std::vector<std::vector<uint8_t>>
download(const Manifest &m,
         const std::vector<std::unique_ptr<DeviceBuffer>> &buffers,
         bool inputs = false) {
  std::vector<std::vector<uint8_t>> host(m.params.size());
  for (size_t i = 0; i < m.params.size(); ++i)
    if (m.params[i].isBuffer && (m.params[i].role == Role::in) == inputs) {
      host[i].resize(m.params[i].bytes);
      CU(cuMemcpyDtoH(host[i].data(), buffers[i]->ptr, host[i].size()));
    }
  return host;
}

double peakFp32PerSmPerClock(int major, int minor) {
  if (major == 8 && minor == 0)
    return 64 * 2;
  if (major >= 8 || (major == 7 && minor == 5))
    return major == 7 ? 64 * 2 : 128 * 2;
  return 64 * 2;
}
} // namespace

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

std::string probeDevice(int device) {
  try {
    openDevice(device);
    return "";
  } catch (const CudaError &e) {
    return e.what;
  }
}

std::string loadOrMeasureProfile(int device, const std::string &cacheDir,
                                 DeviceProfile &p) {
  try {
    CUdevice dev = openDevice(device);
    char name[256] = {0};
    CU(cuDeviceGetName(name, sizeof(name) - 1, dev));
    unsigned char uuid[16] = {0};
    CU(cuDeviceGetUuid(uuid, dev));
    std::ostringstream id;
    for (unsigned char c : uuid) {
      static const char *hex = "0123456789abcdef";
      id << hex[c >> 4] << hex[c & 15];
    }
    std::string cachePath =
        cacheDir.empty() ? "" : cacheDir + "/device-" + id.str() + ".json";
    // Measured afresh in every runner process, never read back from the
    // cache: the plausibility gate rests on the copy bandwidth, and a file
    // that anyone can edit must not move it. The file is only written, for
    // readers outside the runner.
    p = DeviceProfile();
    p.name = name;
    p.uuid = id.str();
    p.ccMajor = attribute(ATTR_COMPUTE_CAPABILITY_MAJOR, dev);
    p.ccMinor = attribute(ATTR_COMPUTE_CAPABILITY_MINOR, dev);
    p.smCount = attribute(ATTR_MULTIPROCESSOR_COUNT, dev);
    p.l2Bytes = attribute(ATTR_L2_CACHE_SIZE, dev);
    p.sharedPerBlockOptin = attribute(ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
    p.sharedPerSm = attribute(ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, dev);
    p.registersPerBlock = attribute(ATTR_MAX_REGISTERS_PER_BLOCK, dev);
    p.registersPerSm = attribute(ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR, dev);
    p.maxThreadsPerSm = attribute(ATTR_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    p.maxThreadsPerBlock = attribute(ATTR_MAX_THREADS_PER_BLOCK, dev);
    p.clockGHz = attribute(ATTR_CLOCK_RATE, dev) / 1e6;
    p.peakFp32Tflops = p.smCount * peakFp32PerSmPerClock(p.ccMajor, p.ccMinor) *
                       p.clockGHz / 1e3;
    // Dense tf32 multiply-adds on tensor cores, flops per SM per clock:
    // 1024 on sm_80 (A100: 156 TFLOP/s), 2048 on sm_90 (H100/H200: 495).
    double tf32PerSmPerClock =
        p.ccMajor == 9 ? 2048 : (p.ccMajor == 8 && p.ccMinor == 0) ? 1024 : 0;
    p.peakTf32Tflops = p.smCount * tf32PerSmPerClock * p.clockGHz / 1e3;

    // Device-to-device copy of 512 MiB: bytes read plus bytes written.
    const size_t bytes = size_t(512) << 20;
    DeviceBuffer a(bytes), b(bytes);
    CU(cuMemcpyDtoD(b.ptr, a.ptr, bytes));
    CU(cuCtxSynchronize());
    std::vector<double> seconds;
    for (int i = 0; i < 10; ++i) {
      Event start, stop;
      CU(cuEventRecord(start.e, nullptr));
      CU(cuMemcpyDtoD(b.ptr, a.ptr, bytes));
      CU(cuEventRecord(stop.e, nullptr));
      CU(cuEventSynchronize(stop.e));
      float ms = 0;
      CU(cuEventElapsedTime(&ms, start.e, stop.e));
      seconds.push_back(ms * 1e-3);
    }
    p.copyBandwidthGBs = 2.0 * double(bytes) / summarize(seconds).median / 1e9;

    if (!cachePath.empty()) {
      // A cache that cannot be written only costs a measurement next time.
      std::error_code ec;
      std::filesystem::create_directories(cacheDir, ec);
      std::string ignored;
      writeFileAtomically(cachePath, serializeDeviceProfile(p), ignored);
    }
    return "";
  } catch (const CudaError &e) {
    return e.what;
  }
}

std::string compareSignatures(const Manifest &c, const Manifest &r) {
  if (c.params.size() != r.params.size())
    return "the reference has " + std::to_string(r.params.size()) +
           " parameters, the candidate " + std::to_string(c.params.size());
  for (size_t i = 0; i < c.params.size(); ++i) {
    const Param &a = c.params[i], &b = r.params[i];
    std::string where = "parameter #" + std::to_string(i) + " (" + a.name + ")";
    if (a.isBuffer != b.isBuffer || a.type != b.type)
      return where + ": kind or element type differs from the reference";
    if (a.isBuffer && (a.shape != b.shape || a.role != b.role))
      return where + ": shape or role differs from the reference";
    if (!a.isBuffer &&
        (a.seeded != b.seeded || (!a.seeded && a.value != b.value)))
      return where + ": scalar value differs from the reference";
  }
  return "";
}

void runCandidate(const RunOptions &options, const std::string &candidateDir,
                  const Manifest &candidate, const std::string *referenceDir,
                  const Manifest *reference, const DeviceProfile &profile,
                  Feedback &f) {
  f.payload = candidate.payload;
  f.irVersion = candidate.irVersion;
  f.compileStatus = "ok";
  f.launchStatus = "not_run";
  f.bytesMoved = candidate.minimumBytesMoved();
  f.flops = candidate.totalFlops();
  const Kernel &first = candidate.kernels.front();
  if (first.ptxas.spillStoreBytes >= 0)
    f.spillBytes = first.ptxas.spillStoreBytes + first.ptxas.spillLoadBytes;
  try {
    openDevice(options.device);
    LoadedBundle cand(candidateDir, candidate);

    // Resources of the first kernel, from the driver.
    int regs = 0, smem = 0, local = 0, maxThreads = 0;
    CU(cuFuncGetAttribute(&regs, FUNC_NUM_REGS, cand.functions[0]));
    CU(cuFuncGetAttribute(&smem, FUNC_SHARED_SIZE_BYTES, cand.functions[0]));
    CU(cuFuncGetAttribute(&local, FUNC_LOCAL_SIZE_BYTES, cand.functions[0]));
    CU(cuFuncGetAttribute(&maxThreads, FUNC_MAX_THREADS_PER_BLOCK,
                          cand.functions[0]));
    f.registersPerThread = regs;
    f.sharedMemBytes = smem;
    if (!f.spillBytes)
      f.spillBytes = local;
    int threads = int(first.block[0] * first.block[1] * first.block[2]);
    if (threads > maxThreads)
      throw CudaError{"block of " + std::to_string(threads) +
                      " threads exceeds the kernel's limit of " +
                      std::to_string(maxThreads)};
    int active = 0;
    CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(
        &active, cand.functions[0], threads, size_t(first.dynamicSharedBytes)));
    if (profile.maxThreadsPerSm > 0)
      f.theoreticalOccupancy =
          std::min(1.0, double(active * threads) / profile.maxThreadsPerSm);

    auto buffers = allocate(candidate);
    f.seed = options.seed;
    f.copyBandwidthGBs = profile.copyBandwidthGBs;
    int64_t launches = 0; // runs of the candidate (each: all its kernels)
    auto note = [&](const std::string &detail) {
      // The first failure explains; later ones add nothing.
      if (f.correctness != "fail") {
        f.correctness = "fail";
        f.correctnessDetail = detail;
      }
    };

    // Correctness on fresh inputs each time, against the reference.
    std::unique_ptr<LoadedBundle> ref;
    std::vector<std::unique_ptr<DeviceBuffer>> refBuffers;
    if (reference) {
      ref = std::make_unique<LoadedBundle>(*referenceDir, *reference);
      refBuffers = allocate(*reference);
    }
    int sets = reference ? std::max(1, options.inputSets) : 1;
    bool allPass = true;
    double worstAbs = 0, worstL2 = 0;
    // The last input set's images: what the timed launches run on and are
    // checked against.
    std::vector<std::vector<uint8_t>> host, got, want;
    std::vector<double> scalars; // the input set's scalar parameters
    int64_t lastSetLaunch = 0;
    std::string lastSetName;
    f.inputsUnchanged = true;
    auto checkInputs = [&](const std::string &when) {
      auto now = download(candidate, buffers, /*inputs=*/true);
      for (size_t i = 0; i < candidate.params.size(); ++i) {
        const Param &p = candidate.params[i];
        if (!p.isBuffer || p.role != Role::in)
          continue;
        Comparison c = compareUnchanged(p.name, p.type, now[i], host[i]);
        if (!c.pass && *f.inputsUnchanged) {
          f.inputsUnchanged = false;
          note(c.detail + " (" + when + ")");
        }
      }
    };
    for (int s = 0; s < sets; ++s) {
      uint64_t seed = options.seed + uint64_t(s);
      std::string setName = "input set " + std::to_string(s) + ", seed " +
                            std::to_string(seed);
      host = makeInputs(candidate, seed);
      scalars = scalarValues(candidate, seed);
      upload(buffers, host);
      poisonScratch(candidate, buffers);
      cand.launch(buffers, scalars);
      synchronize(options);
      ++launches;
      f.checkedLaunches.push_back(launches);
      f.launchStatus = "ok";
      got = download(candidate, buffers);
      lastSetLaunch = launches;
      lastSetName = setName;
      checkInputs("after launch " + std::to_string(launches) + ", " + setName);
      if (!reference)
        continue;
      upload(refBuffers, host);
      poisonScratch(*reference, refBuffers);
      ref->launch(refBuffers, scalars);
      synchronize(options);
      want = download(*reference, refBuffers);
      // The ghost: the same inputs with no launch at all (what the buffers
      // then hold is `host` itself). If that passes the comparison, the
      // check cannot see the kernel.
      if (s == 0)
        f.ghostCheck = checkIsBlind(candidate, host, want) ? "blind" : "caught";
      for (size_t i = 0; i < candidate.params.size(); ++i) {
        const Param &p = candidate.params[i];
        if (!p.isBuffer || p.role == Role::in)
          continue;
        Comparison c = compareBuffers(p.name, p.type, got[i], want[i],
                                      toleranceFor(p.type, candidate.math));
        worstAbs = std::max(worstAbs, c.maxAbsError);
        worstL2 = std::max(worstL2, c.relL2Error);
        if (s == 0)
          f.buffers.push_back({p.name, c.maxAbsError, c.relL2Error, c.pass});
        else
          for (BufferCheck &b : f.buffers)
            if (b.name == p.name) {
              b.maxAbsError = std::max(b.maxAbsError, c.maxAbsError);
              b.relL2Error = std::max(b.relL2Error, c.relL2Error);
              b.pass = b.pass && c.pass;
            }
        if (!c.pass && allPass) {
          allPass = false;
          note(c.detail + " (" + setName + ")");
        }
      }
      f.correctnessInputs = s + 1;
    }
    if (reference) {
      if (f.correctness != "fail")
        f.correctness = allPass ? "pass" : "fail";
      f.maxAbsError = std::isfinite(worstAbs) ? worstAbs : 1e308;
      f.relL2Error = std::isfinite(worstL2) ? worstL2 : 1e308;
    }
    f.launchCount = launches;

    // A wrong kernel is not timed: its speed means nothing.
    if (f.correctness == "fail")
      return;

    // Every timed launch starts from the last input set's state: `inout`
    // buffers restored from pristine device copies, `out` and scratch
    // buffers poisoned (memsets, outside the timed events). So any of them
    // can be checked, and a kernel cannot tell a checked launch from
    // another. `in` buffers are not restored: a write to one persists and
    // the read-back at the end sees it.
    std::vector<std::unique_ptr<DeviceBuffer>> pristine(candidate.params.size());
    for (size_t i = 0; i < candidate.params.size(); ++i) {
      const Param &p = candidate.params[i];
      if (p.isBuffer && p.role == Role::inout) {
        pristine[i] = std::make_unique<DeviceBuffer>(p.bytes);
        CU(cuMemcpyHtoD(pristine[i]->ptr, host[i].data(), host[i].size()));
      }
    }
    auto prepare = [&]() {
      for (size_t i = 0; i < candidate.params.size(); ++i) {
        const Param &p = candidate.params[i];
        if (!p.isBuffer)
          continue;
        if (p.role == Role::inout)
          CU(cuMemcpyDtoD(buffers[i]->ptr, pristine[i]->ptr, p.bytes));
        else if (p.role == Role::out)
          poisonDevice(buffers[i]->ptr, p.bytes, p.type);
      }
      poisonScratch(candidate, buffers);
    };
    // Compares the outputs of launch `n` with those of `lastSetLaunch` (the
    // same inputs): bit-equal passes at once; otherwise the tolerance
    // decides, against the reference (or, without one, launch 1's own).
    f.stateful = false;
    f.bitwiseReproducible = true;
    auto checkLaunch = [&](int64_t n, const char *kind) {
      f.checkedLaunches.push_back(n);
      auto now = download(candidate, buffers);
      for (size_t i = 0; i < candidate.params.size(); ++i) {
        const Param &p = candidate.params[i];
        if (!p.isBuffer || p.role == Role::in)
          continue;
        RelaunchCheck r =
            compareRelaunch(p.name, p.type, now[i], got[i],
                            reference ? want[i] : got[i],
                            toleranceFor(p.type, candidate.math));
        if (r.bitEqual)
          continue;
        f.bitwiseReproducible = false;
        if (!r.comparison.pass && !*f.stateful) {
          f.stateful = true;
          note("output of launch " + std::to_string(n) + " (" + kind +
               ") differs from launch " + std::to_string(lastSetLaunch) +
               " on the same inputs (" + lastSetName +
               "): the kernel keeps state across launches; " +
               r.comparison.detail);
        }
      }
    };

    // Timing: warm-up, then samples with an L2 flush before each.
    size_t flushBytes =
        std::max<size_t>(size_t(2 * profile.l2Bytes), size_t(64) << 20);
    DeviceBuffer flush(flushBytes);
    for (int i = 0; i < options.warmup; ++i) {
      prepare();
      cand.launch(buffers, scalars);
      ++launches;
    }
    synchronize(options);
    auto timeOne = [&](unsigned salt) {
      prepare();
      CU(cuMemsetD32Async(flush.ptr, salt, flushBytes / 4, nullptr));
      Event start, stop;
      CU(cuEventRecord(start.e, nullptr));
      cand.launch(buffers, scalars);
      CU(cuEventRecord(stop.e, nullptr));
      ++launches;
      if (options.busy)
        options.busy(true);
      CUresult r = driver().cuEventSynchronize(stop.e);
      if (options.busy)
        options.busy(false);
      check(r, "cuEventSynchronize (kernel execution)");
      float ms = 0;
      CU(cuEventElapsedTime(&ms, start.e, stop.e));
      return double(ms) * 1e3; // microseconds
    };
    double estimate = timeOne(1);
    int64_t n = options.samples > 0
                    ? options.samples
                    : chooseSampleCount(estimate * 1e-6, options.budgetSeconds,
                                        options.minSamples, options.maxSamples);
    // Which timed launches are read back: a few at random (the kernel
    // cannot know which) and the last one.
    Rng pick(freshSeed());
    std::vector<int64_t> checked =
        chooseCheckedSamples(n, options.checkedTimedLaunches, pick);
    std::vector<double> samples;
    for (int64_t i = 0; i < n && f.correctness != "fail"; ++i) {
      samples.push_back(timeOne(unsigned(i + 2)));
      if (std::binary_search(checked.begin(), checked.end(), i))
        checkLaunch(launches, i + 1 == n ? "the last timed" : "timed");
    }
    checkInputs("after " + std::to_string(launches) + " launches");
    f.launchCount = launches;
    f.duration = summarize(samples);
    double seconds = f.duration->median * 1e-6;
    if (seconds > 0) {
      f.achievedBandwidthGBs = double(f.bytesMoved) / seconds / 1e9;
      if (f.flops > 0)
        f.achievedTflops = double(f.flops) / seconds / 1e12;
      // Uncapped: above 1 is what an impossible timing looks like.
      if (profile.copyBandwidthGBs > 0)
        f.bandwidthUtilization =
            *f.achievedBandwidthGBs / profile.copyBandwidthGBs;
    }
    judgePlausibility(f, candidate, profile);
    classify(f, candidate, profile);
  } catch (const CudaError &e) {
    // A run that faulted proves nothing about correctness or speed.
    f.launchStatus = "error";
    f.error = e.what;
    f.correctness = "not_checked";
    f.duration.reset();
  }
}

} // namespace runtime
} // namespace tirx
