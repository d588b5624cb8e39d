//===- Runner.cpp - run one candidate bundle on the GPU ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Runner.h"
#include "Measure.h"
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

#include <unistd.h>

namespace tirx {
namespace runtime {

using namespace gpu;

namespace {

void upload(const std::vector<CUdeviceptr> &buffers,
            const std::vector<std::vector<uint8_t>> &host) {
  for (size_t i = 0; i < host.size(); ++i)
    if (buffers[i])
      CU(cuMemcpyHtoD(buffers[i], host[i].data(), host[i].size()));
}

/// Reads back parameter `i` of `m`.
std::vector<uint8_t> download(const Manifest &m,
                              const std::vector<CUdeviceptr> &buffers,
                              size_t i) {
  std::vector<uint8_t> host(m.params[i].bytes);
  CU(cuMemcpyDtoH(host.data(), buffers[i], host.size()));
  return host;
}

/// Reads back the outputs (`out` and `inout` buffers), or with `inputs`
/// the `in` buffers.
std::vector<std::vector<uint8_t>>
download(const Manifest &m, const std::vector<CUdeviceptr> &buffers,
         bool inputs = false) {
  std::vector<std::vector<uint8_t>> host(m.params.size());
  for (size_t i = 0; i < m.params.size(); ++i)
    if (m.params[i].isBuffer && (m.params[i].role == Role::in) == inputs)
      host[i] = download(m, buffers, i);
  return host;
}

/// Input set 0 as raw arrays, for a comparison with a host computation.
void dumpInputsAndOutputs(const std::string &dir, const Manifest &m,
                          const std::vector<std::vector<uint8_t>> &in,
                          const std::vector<std::vector<uint8_t>> &out) {
  for (size_t i = 0; i < m.params.size(); ++i) {
    if (!m.params[i].isBuffer)
      continue;
    for (const auto &[suffix, bytes] :
         {std::make_pair(".in", &in[i]), std::make_pair(".out", &out[i])}) {
      std::string error;
      std::string path = dir + "/" + m.params[i].name + suffix;
      if (!writeFileAtomically(
              path, std::string(bytes->begin(), bytes->end()), error))
        throw CudaError{"--dump-io: " + error};
    }
  }
}

/// The one-shot runner's data path: inputs made on the host and uploaded,
/// the reference run again on each input set, outputs read back and
/// compared on the host.
class HostData : public DataPath {
public:
  HostData(const RunOptions &options, const Manifest &candidate,
           const std::string *referenceDir, const Manifest *reference)
      : options(options), candidate(candidate), reference(reference),
        owned(allocate(candidate)), addresses(addressesOf(owned)) {
    if (reference) {
      ref = std::make_unique<LoadedBundle>(*referenceDir, *reference);
      refOwned = allocate(*reference);
      refAddresses = addressesOf(refOwned);
    }
  }
  const std::vector<CUdeviceptr> &buffers() override { return addresses; }
  bool hasReference() const override { return reference != nullptr; }
  int64_t referenceTerms() const override {
    return reference ? reference->reductionLength : 0;
  }
  const std::vector<double> &scalars() const override { return scalarSet; }
  void loadInputs(uint64_t seed) override {
    host = makeInputs(candidate, seed);
    scalarSet = scalarValues(candidate, seed);
    upload(addresses, host);
    poisonScratch(candidate, addresses);
    pristineCopies.clear();
  }
  void keepOutputs() override {
    got = download(candidate, addresses);
    if (!dumped && !options.dumpDir.empty()) {
      // Every buffer after the launch, inputs too (`got` holds outputs
      // only): the host check also asks whether an input changed.
      std::vector<std::vector<uint8_t>> after =
          download(candidate, addresses, /*inputs=*/true);
      for (size_t i = 0; i < after.size(); ++i)
        if (after[i].empty())
          after[i] = got[i];
      dumpInputsAndOutputs(options.dumpDir, candidate, host, after);
    }
    dumped = true;
  }
  Comparison checkInputs() override {
    auto now = download(candidate, addresses, /*inputs=*/true);
    for (size_t i = 0; i < candidate.params.size(); ++i) {
      const Param &p = candidate.params[i];
      if (!p.isBuffer || p.role != Role::in)
        continue;
      Comparison c = compareUnchanged(p.name, p.type, now[i], host[i]);
      if (!c.pass)
        return c;
    }
    return Comparison();
  }
  void referenceOutputs() override {
    upload(refAddresses, host);
    poisonScratch(*reference, refAddresses);
    ref->launch(refAddresses, scalarSet);
    synchronize(options.busy);
    want = download(*reference, refAddresses);
  }
  bool ghostBlind() override {
    // The ghost: the same inputs with no launch at all (what the buffers
    // then hold is `host` itself).
    return checkIsBlind(candidate, host, want);
  }
  Comparison compareKept(size_t i, const Tolerance &tol) override {
    const Param &p = candidate.params[i];
    return compareBuffers(p.name, p.type, got[i], want[i], tol);
  }
  RelaunchCheck compareNow(size_t i, const Tolerance &tol) override {
    const Param &p = candidate.params[i];
    return compareRelaunch(p.name, p.type, download(candidate, addresses, i),
                           got[i], reference ? want[i] : got[i], tol);
  }
  CUdeviceptr pristine(size_t i) override {
    if (pristineCopies.size() != candidate.params.size())
      pristineCopies.resize(candidate.params.size());
    if (!pristineCopies[i]) {
      pristineCopies[i] = std::make_unique<DeviceBuffer>(host[i].size());
      CU(cuMemcpyHtoD(pristineCopies[i]->ptr, host[i].data(), host[i].size()));
    }
    return pristineCopies[i]->ptr;
  }
  std::vector<std::vector<uint8_t>>
  referenceOn(const std::vector<std::vector<uint8_t>> &inputs,
              const std::vector<double> &scalars) override {
    return runOnImages(*ref, *reference, refAddresses, inputs, scalars,
                       options.busy);
  }

private:
  const RunOptions &options;
  const Manifest &candidate;
  const Manifest *reference;
  bool dumped = false; // input set 0 written for --dump-io
  std::vector<double> scalarSet; // the loaded input set's scalars
  DeviceBuffers owned;
  std::vector<CUdeviceptr> addresses;
  std::unique_ptr<LoadedBundle> ref;
  DeviceBuffers refOwned;
  std::vector<CUdeviceptr> refAddresses;
  // The last input set's images: what the timed launches run on and are
  // checked against.
  std::vector<std::vector<uint8_t>> host, got, want;
  DeviceBuffers pristineCopies;
};

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
    // Dense f16/bf16 (f32 sums): twice the tf32 rate on sm_80 and sm_90
    // (A100 312, H100/H200 989 TFLOP/s).
    p.peakF16Tflops = 2 * p.peakTf32Tflops;

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
    // A candidate may read back what it wrote itself where the reference
    // says the initial contents do not matter: it runs on poison, as the
    // reference says (adoptReferenceContract). The other way round (the
    // reference reads them, the candidate never does) is a difference.
    bool readsBack = a.role == Role::inout && b.role == Role::out;
    if (a.isBuffer && (a.shape != b.shape || (a.role != b.role && !readsBack)))
      return where + ": shape or role differs from the reference";
    if (!a.isBuffer &&
        (a.seeded != b.seeded || (!a.seeded && a.value != b.value)))
      return where + ": scalar value differs from the reference";
  }
  return "";
}

void adoptReferenceContract(Manifest &candidate, const Manifest &reference) {
  size_t n = std::min(candidate.params.size(), reference.params.size());
  for (size_t i = 0; i < n; ++i) {
    candidate.params[i].domain = reference.params[i].domain;
    if (candidate.params[i].isBuffer &&
        candidate.params[i].role == Role::inout &&
        reference.params[i].role == Role::out)
      candidate.params[i].role = Role::out;
  }
}

void beginFeedback(const Manifest &candidate, Feedback &f) {
  f.payload = candidate.payload;
  f.irVersion = candidate.irVersion;
  f.compileStatus = "ok";
  f.launchStatus = "not_run";
  f.bytesMoved = candidate.minimumBytesMoved();
  f.flops = candidate.totalFlops();
  f.math = candidate.math;
  f.sizes = boundSizes(candidate);
  for (const Param &p : candidate.params)
    if (p.isBuffer && p.domain != Domain::signed_unit)
      f.inputDomains.emplace_back(p.name, domainName(p.domain));
  const Kernel &first = candidate.kernels.front();
  if (first.ptxas.spillStoreBytes >= 0)
    f.spillBytes = first.ptxas.spillStoreBytes + first.ptxas.spillLoadBytes;
}

void readResources(const LoadedBundle &cand, const Manifest &candidate,
                   const DeviceProfile &profile, Feedback &f) {
  // Resources of the first kernel, from the driver.
  const Kernel &first = candidate.kernels.front();
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
}

void recordFault(const CudaError &e, Feedback &f) {
  f.launchStatus = "error";
  f.error = e.what;
  f.correctness = "not_checked";
  f.duration.reset();
}

void measureLoaded(const RunOptions &options, const Manifest &candidate,
                   LoadedBundle &cand, DataPath &data,
                   const DeviceProfile &profile, Feedback &f) {
  const std::vector<CUdeviceptr> &buffers = data.buffers();
  bool reference = data.hasReference();
  // The longest sum either side declares; the f32 slack grows with it.
  // The reference's sum length where there is one (the seed's, not what the
  // candidate claims), else the candidate's.
  int64_t terms = data.hasReference() ? data.referenceTerms()
                                      : candidate.reductionLength;
  auto tolerance = [&](const Param &p) {
    return toleranceFor(p.type, candidate.math, terms,
                        p.bytes / elementBytes(p.type));
  };
  f.seed = options.seed;
  f.copyBandwidthGBs = profile.copyBandwidthGBs;
  int64_t launches = 0; // runs of the candidate (each: all its kernels)
  auto fail = [&](const std::string &reason, const std::string &detail) {
    // The first failure explains; later ones add nothing.
    if (f.correctness != "fail") {
      f.correctness = "fail";
      f.correctnessReason = reason;
      f.correctnessDetail = detail;
    }
  };

  // Correctness on fresh inputs each time, against the reference.
  int sets = reference ? std::max(1, options.inputSets) : 1;
  bool allPass = true;
  double worstAbs = 0, worstL2 = 0;
  int64_t lastSetLaunch = 0;
  std::string lastSetName;
  f.inputsUnchanged = true;
  auto checkInputs = [&](const std::string &when) {
    Comparison c = data.checkInputs();
    if (!c.pass && *f.inputsUnchanged) {
      f.inputsUnchanged = false;
      fail("input_changed", c.detail + " (" + when + ")");
    }
  };
  for (int s = 0; s < sets; ++s) {
    uint64_t seed = options.seed + uint64_t(s);
    std::string setName = "input set " + std::to_string(s) + ", seed " +
                          std::to_string(seed);
    data.loadInputs(seed);
    cand.launch(buffers, data.scalars());
    synchronize(options.busy);
    ++launches;
    f.checkedLaunches.push_back(launches);
    f.launchStatus = "ok";
    data.keepOutputs();
    lastSetLaunch = launches;
    lastSetName = setName;
    checkInputs("after launch " + std::to_string(launches) + ", " + setName);
    if (!reference)
      continue;
    data.referenceOutputs();
    // The ghost: if the buffers as loaded, with no launch at all, pass the
    // comparison, the check cannot see the kernel.
    if (s == 0)
      f.ghostCheck = data.ghostBlind() ? "blind" : "caught";
    for (size_t i = 0; i < candidate.params.size(); ++i) {
      const Param &p = candidate.params[i];
      if (!p.isBuffer || p.role == Role::in)
        continue;
      Comparison c =
          data.compareKept(i, tolerance(p));
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
        fail("mismatch", c.detail + " (" + setName + ")");
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

  // A wrong kernel is not timed: its speed means nothing.
  if (f.correctness == "fail") {
    f.launchCount = launches;
    return;
  }

  // Every timed launch starts from the last input set's state: `inout`
  // buffers restored from pristine device copies, `out` and scratch
  // buffers poisoned (memsets, outside the timed events). So any of them
  // can be checked, and a kernel cannot tell a checked launch from
  // another. `in` buffers are not restored: a write to one persists and
  // the read-back at the end sees it.
  std::vector<CUdeviceptr> pristine(candidate.params.size(), 0);
  for (size_t i = 0; i < candidate.params.size(); ++i) {
    const Param &p = candidate.params[i];
    if (p.isBuffer && p.role == Role::inout)
      pristine[i] = data.pristine(i);
  }
  auto prepare = [&]() {
    for (size_t i = 0; i < candidate.params.size(); ++i) {
      const Param &p = candidate.params[i];
      if (!p.isBuffer)
        continue;
      if (p.role == Role::inout)
        CU(cuMemcpyDtoD(buffers[i], pristine[i], p.bytes));
      else if (p.role == Role::out)
        poisonDevice(buffers[i], p.bytes, p.type);
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
    for (size_t i = 0; i < candidate.params.size(); ++i) {
      const Param &p = candidate.params[i];
      if (!p.isBuffer || p.role == Role::in)
        continue;
      RelaunchCheck r =
          data.compareNow(i, tolerance(p));
      if (r.bitEqual)
        continue;
      f.bitwiseReproducible = false;
      std::string differs = "output " + p.name + " of launch " +
                            std::to_string(n) + " (" + kind +
                            ") differs from launch " +
                            std::to_string(lastSetLaunch) +
                            " on the same inputs (" + lastSetName + ")";
      if (!r.comparison.pass && !*f.stateful) {
        f.stateful = true;
        fail(options.determinismRuns > 0 ? "nondeterministic" : "stateful",
             differs + ": the kernel keeps state across launches or races; " +
                 r.comparison.detail);
      } else if (options.determinismRuns > 0) {
        fail("nondeterministic",
             differs + " bit for bit, though within tolerance of the "
                       "reference: a race, or a reduction whose order "
                       "changes from launch to launch");
      }
    }
  };

  // Determinism: the last input set again, compared bit for bit with its
  // first launch; then the adversarial sets, after which the last random
  // set is loaded again for the timed launches.
  for (int r = 0; r < options.determinismRuns && f.correctness != "fail";
       ++r) {
    prepare();
    cand.launch(buffers, data.scalars());
    synchronize(options.busy);
    ++launches;
    checkLaunch(launches, "determinism");
    f.determinismRuns = int64_t(r) + 2;
  }
  if (f.correctness != "fail") {
    checkAdversarial(options, candidate, cand, data, f, launches, fail);
    if (!f.adversarial.empty() &&
        std::any_of(f.adversarial.begin(), f.adversarial.end(),
                    [](const AdversarialCheck &a) { return a.level >= 0; })) {
      data.loadInputs(options.seed + uint64_t(sets - 1));
      for (size_t i = 0; i < candidate.params.size(); ++i)
        if (pristine[i])
          pristine[i] = data.pristine(i); // loadInputs may make new ones
    }
  }
  f.launchCount = launches;
  if (f.correctness == "fail")
    return;

  // Timing: warm-up, then samples with an L2 flush before each.
  size_t flushBytes =
      std::max<size_t>(size_t(2 * profile.l2Bytes), size_t(64) << 20);
  DeviceBuffer flush(flushBytes);
  for (int i = 0; i < options.warmup; ++i) {
    prepare();
    cand.launch(buffers, data.scalars());
    ++launches;
  }
  synchronize(options.busy);
  auto timeOne = [&](unsigned salt) {
    prepare();
    CU(cuMemsetD32Async(flush.ptr, salt, flushBytes / 4, nullptr));
    Event start, stop;
    CU(cuEventRecord(start.e, nullptr));
    cand.launch(buffers, data.scalars());
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
}

void runCandidate(const RunOptions &options, const std::string &candidateDir,
                  const Manifest &candidate, const std::string *referenceDir,
                  const Manifest *reference, const DeviceProfile &profile,
                  Feedback &f) {
  beginFeedback(candidate, f);
  try {
    openDevice(options.device);
    LoadedBundle cand(candidateDir, candidate);
    readResources(cand, candidate, profile, f);
    HostData data(options, candidate, reference ? referenceDir : nullptr,
                  reference);
    measureLoaded(options, candidate, cand, data, profile, f);
  } catch (const CudaError &e) {
    recordFault(e, f);
  }
}

} // namespace runtime
} // namespace tirx
