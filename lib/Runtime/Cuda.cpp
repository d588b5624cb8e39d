//===- Cuda.cpp - the CUDA driver as the runner uses it ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"
#include "TensorMap.h"

#include "tirx/Runtime/Check.h"
#include "tirx/Runtime/Files.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>

namespace tirx {
namespace runtime {
namespace gpu {

std::string Driver::load() {
  if (handle)
    return "";
  // TIRX_CUDA_DRIVER names another driver library: the CPU tests point it
  // at a stand-in (test/CudaRuntime/FakeDriver.cpp).
  const char *path = std::getenv("TIRX_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return std::string("no CUDA driver: cannot load ") + path + " (" +
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
  // Only early_launch kernels need it (CUDA 11.8 and newer drivers have it).
  cuLaunchKernelEx = reinterpret_cast<decltype(cuLaunchKernelEx)>(
      dlsym(handle, "cuLaunchKernelEx"));
  return "";
}

std::string Driver::describe(CUresult r) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(r, &name);
  if (cuGetErrorString)
    cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA_ERROR_" + std::to_string(r)) +
         (text ? std::string(": ") + text : "");
}

Driver &driver() {
  static Driver d;
  return d;
}

void check(CUresult r, const char *call) {
  if (r != CUDA_SUCCESS)
    throw CudaError{std::string(call) + ": " + driver().describe(r)};
}

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

DeviceBuffer::DeviceBuffer(size_t n) : bytes(n) {
  CU(cuMemAlloc(&ptr, std::max<size_t>(n, 16)));
  // The bundle ABI: kernels were compiled assuming this alignment of every
  // buffer (cuMemAlloc guarantees 256 bytes or more).
  if (ptr % kBundleBufferAlignment != 0) {
    driver().cuMemFree(ptr);
    ptr = 0;
    throw CudaError{"cuMemAlloc returned an address that is not " +
                    std::to_string(kBundleBufferAlignment) +
                    "-byte aligned, which the bundle ABI promises"};
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr)
    driver().cuMemFree(ptr);
}

std::vector<CUdeviceptr> addressesOf(const DeviceBuffers &buffers) {
  std::vector<CUdeviceptr> out;
  for (const auto &b : buffers)
    out.push_back(b ? b->ptr : 0);
  return out;
}

Event::Event() { CU(cuEventCreate(&e, 0)); }

Event::~Event() {
  if (e)
    driver().cuEventDestroy(e);
}

LoadedBundle::LoadedBundle(const std::string &dir, const Manifest &m)
    : manifest(&m), tensorMaps(std::make_unique<TensorMaps>()) {
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel &k = m.kernels[i];
    std::string image, error;
    if (launchesEarly(m, i)) {
      // Launched before the kernel in front of it ends, it must wait for
      // it: a mark on a kernel built without the wait would race.
      std::string ptx;
      if (!readFile(dir + "/" + k.ptxFile, ptx, error))
        throw CudaError{error};
      if (ptx.find("griddepcontrol.wait") == std::string::npos)
        throw CudaError{"kernel " + k.name +
                        " is marked early_launch but its PTX (" + k.ptxFile +
                        ") has no griddepcontrol.wait: it would race the "
                        "kernel before it"};
      if (!driver().cuLaunchKernelEx)
        throw CudaError{"kernel " + k.name +
                        " is marked early_launch, which needs "
                        "cuLaunchKernelEx: the CUDA driver is older than 11.8"};
    }
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

LoadedBundle::~LoadedBundle() {
  for (CUmodule m : modules)
    driver().cuModuleUnload(m);
}

void LoadedBundle::launch(const std::vector<CUdeviceptr> &buffers,
                          const std::vector<double> &scalars) {
  const Manifest &m = *manifest;
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel &k = m.kernels[i];
    // Arguments, each in storage of its own type (a descriptor takes
    // 3 + 2 x rank slots).
    std::vector<std::array<uint8_t, 8>> storage;
    storage.reserve(k.args.size() * 8);
    for (size_t a = 0; a < k.args.size(); ++a) {
      const KernelArg &arg = k.args[a];
      storage.emplace_back();
      uint8_t *slot = storage.back().data();
      std::memset(slot, 0, 8);
      if (arg.tensorMap) {
        const TensorMapArg &map = *arg.tensorMap;
        CUdeviceptr p = tensorMaps->address(i, a, map, m.tensorMapBuffer(map),
                                            buffers[m.tensorMapBufferIndex(map)]);
        std::memcpy(slot, &p, sizeof(p));
      } else if (arg.scratch ||
                 (arg.param && m.params[*arg.param].isBuffer)) {
        // Scratch buffers follow the parameters' (see allocate).
        CUdeviceptr p = arg.scratch ? buffers[m.params.size() + *arg.scratch]
                                    : buffers[*arg.param];
        std::memcpy(slot, &p, sizeof(p));
        if (arg.descriptor) {
          // The memref descriptor, flattened as the kernel's signature
          // has it: allocated, aligned, offset, sizes..., strides...
          const std::vector<int64_t> &shape =
              arg.scratch ? m.scratch[*arg.scratch].shape
                          : m.params[*arg.param].shape;
          std::vector<int64_t> fields = {0};
          fields.insert(fields.end(), shape.begin(), shape.end());
          std::vector<int64_t> strides(shape.size(), 1);
          for (size_t d = shape.size(); d-- > 1;)
            strides[d - 1] = strides[d] * shape[d];
          fields.insert(fields.end(), strides.begin(), strides.end());
          storage.emplace_back();
          std::memcpy(storage.back().data(), &p, sizeof(p));
          for (int64_t field : fields) {
            storage.emplace_back();
            std::memcpy(storage.back().data(), &field, 8);
          }
        }
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
    }
    std::vector<void *> pointers;
    for (auto &slot : storage)
      pointers.push_back(slot.data());
    if (!launchesEarly(m, i)) {
      CU(cuLaunchKernel(functions[i], unsigned(k.grid[0]), unsigned(k.grid[1]),
                        unsigned(k.grid[2]), unsigned(k.block[0]),
                        unsigned(k.block[1]), unsigned(k.block[2]),
                        unsigned(k.dynamicSharedBytes), nullptr,
                        pointers.data(), nullptr));
      continue;
    }
    // Programmatic dependent launch: the kernel's blocks may be scheduled
    // once every block of the previous kernel has started, and wait at its
    // griddepcontrol.wait for that kernel's end and its writes.
    cuda::CUlaunchAttribute early = {};
    early.id = cuda::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    early.value.programmaticStreamSerializationAllowed = 1;
    const unsigned grid[3] = {unsigned(k.grid[0]), unsigned(k.grid[1]),
                              unsigned(k.grid[2])};
    const unsigned block[3] = {unsigned(k.block[0]), unsigned(k.block[1]),
                               unsigned(k.block[2])};
    cuda::CUlaunchConfig config = cuda::launchConfig(
        grid, block, unsigned(k.dynamicSharedBytes), nullptr, &early);
    CU(cuLaunchKernelEx(&config, functions[i], pointers.data(), nullptr));
  }
}

void synchronize(const std::function<void(bool)> &busy) {
  if (busy)
    busy(true);
  CUresult r = driver().cuCtxSynchronize();
  if (busy)
    busy(false);
  check(r, "cuCtxSynchronize (kernel execution)");
}

DeviceBuffers allocate(const Manifest &m) {
  DeviceBuffers buffers;
  for (const Param &p : m.params)
    buffers.push_back(p.isBuffer ? std::make_unique<DeviceBuffer>(p.bytes)
                                 : nullptr);
  for (const Scratch &s : m.scratch)
    buffers.push_back(std::make_unique<DeviceBuffer>(s.bytes));
  return buffers;
}

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

void poisonScratch(const Manifest &m, const std::vector<CUdeviceptr> &buffers) {
  // A kernel reading what none wrote then yields NaN (or the integer
  // sentinel), which the check catches; and no state survives in them from
  // one run to the next.
  for (size_t i = 0; i < m.scratch.size(); ++i)
    poisonDevice(buffers[m.params.size() + i], m.scratch[i].bytes,
                 m.scratch[i].type);
}

} // namespace gpu
} // namespace runtime
} // namespace tirx
