//===- Worker.cpp - the persistent measurement worker -----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Worker.h"
#include "tirx/Runtime/JsonLimits.h"

#include "DeviceCheck.h"
#include "Measure.h"

#include "tirx/Runtime/Files.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <istream>
#include <limits>
#include <map>
#include <ostream>

#include <unistd.h>

namespace tirx {
namespace runtime {

using namespace gpu;
using json = nlohmann::json;

//===----------------------------------------------------------------------===//
// Requests
//===----------------------------------------------------------------------===//

bool parseWorkerRequest(const std::string &line, WorkerRequest &r,
                        std::string &error) {
  json j;
  if (!jsonDepthWithin(line, error))
    return false;
  try {
    j = json::parse(line);
  } catch (const std::exception &e) {
    error = std::string("not valid JSON: ") + e.what();
    return false;
  }
  if (!j.is_object()) {
    error = "a request is a JSON object, got " + std::string(j.type_name());
    return false;
  }
  if (j.contains("id"))
    r.id = j["id"];
  static const char *known[] = {"id",      "op",     "bundle",  "reference",
                                "mode",    "inputs", "samples", "warmup",
                                "checked_launches",  "seed",    "timeout",
                                "ir_version", "determinism", "adversarial",
                                "sizes"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::none_of(std::begin(known), std::end(known),
                     [&](const char *k) { return it.key() == k; })) {
      error = "unknown field \"" + it.key() + "\"";
      return false;
    }
  auto text = [&](const char *key, std::string &into) {
    if (!j.contains(key))
      return true;
    if (!j[key].is_string()) {
      error = std::string(key) + ": expects a string";
      return false;
    }
    into = j[key].get<std::string>();
    return true;
  };
  auto integer = [&](const char *key, int64_t min, int64_t max,
                     auto &into) -> bool {
    if (!j.contains(key))
      return true;
    const json &v = j[key];
    bool fits = v.is_number_integer() &&
                (v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(max)
                                        : v.get<int64_t>() >= min &&
                                              v.get<int64_t>() <= max);
    if (!fits || (v.is_number_unsigned() && int64_t(v.get<uint64_t>()) < min)) {
      error = std::string(key) + ": expects an integer in [" +
              std::to_string(min) + ", " + std::to_string(max) + "], got " +
              v.dump();
      return false;
    }
    into = static_cast<std::remove_reference_t<decltype(into)>>(
        v.is_number_unsigned() ? int64_t(v.get<uint64_t>()) : v.get<int64_t>());
    return true;
  };
  if (!text("op", r.op) || !text("bundle", r.bundle) ||
      !text("reference", r.reference) || !text("mode", r.mode) ||
      !text("ir_version", r.irVersion) || !text("adversarial", r.adversarial))
    return false;
  if (r.adversarial != "on" && r.adversarial != "off" &&
      r.adversarial != "auto") {
    error = "adversarial: expects \"on\", \"off\" or \"auto\", got \"" +
            r.adversarial + "\"";
    return false;
  }
  if (r.op != "measure" && r.op != "ping" && r.op != "quit") {
    error = "op: expects \"measure\", \"ping\" or \"quit\", got \"" + r.op +
            "\"";
    return false;
  }
  if (r.mode == "screen") {
    r.inputs = 1;
    r.samples = 10;
    r.warmup = 1;
    r.checkedLaunches = 1;
    r.determinism = 1;
    if (!j.contains("adversarial"))
      r.adversarial = "off";
  } else if (r.mode != "full") {
    error = "mode: expects \"screen\" or \"full\", got \"" + r.mode + "\"";
    return false;
  }
  int64_t seed = -1;
  if (!integer("inputs", 1, 100, r.inputs) ||
      !integer("samples", 1, 1000000, r.samples) ||
      !integer("warmup", 0, 100, r.warmup) ||
      !integer("checked_launches", 0, 100, r.checkedLaunches) ||
      !integer("determinism", 0, 100, r.determinism) ||
      !integer("seed", 0, INT64_MAX, seed))
    return false;
  if (seed >= 0)
    r.seed = uint64_t(seed);
  if (j.contains("timeout") &&
      (!j["timeout"].is_number() || j["timeout"].get<double>() <= 0)) {
    error = "timeout: expects a positive number of seconds";
    return false;
  }
  if (j.contains("sizes")) {
    if (!j["sizes"].is_object()) {
      error = "sizes: expects an object of NAME: N";
      return false;
    }
    for (auto it = j["sizes"].begin(); it != j["sizes"].end(); ++it) {
      // 2^63 and above are unsigned to nlohmann, negative as int64_t.
      if (!it.value().is_number_integer() ||
          (it.value().is_number_unsigned() &&
           it.value().get<uint64_t>() > uint64_t(INT64_MAX))) {
        error = "sizes." + it.key() + ": expects an integer, got " +
                it.value().dump();
        return false;
      }
      r.sizes.emplace_back(it.key(), it.value().get<int64_t>());
    }
  }
  if (r.op == "measure" && r.bundle.empty()) {
    error = "bundle: a measure request names the bundle directory";
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// What the worker keeps on the device
//===----------------------------------------------------------------------===//

namespace {

/// One input set of a payload: the inputs as generated, the reference's
/// outputs on them, and checksums of both (a stray write of a candidate
/// into them shows).
struct KeptSet {
  uint64_t seed = 0;
  DeviceBuffers pristine; // per parameter: `in` and `inout`
  DeviceBuffers want;     // per parameter: `out` and `inout` (a reference)
  std::vector<double> wantRms;
  std::map<std::string, bool> blind; // the ghost check, by `math`
  std::vector<uint64_t> sums;        // pristine[i], want[i]: 2i, 2i + 1
  uint64_t bytes = 0;
  uint64_t lastUse = 0;
};

/// A payload signature (parameters and reference): the candidate's
/// buffers, the outputs kept after a checked launch, and its input sets.
struct KeptPayload {
  std::string key;
  DeviceBuffers work, kept;
  std::vector<std::unique_ptr<KeptSet>> sets;
  uint64_t bytes = 0;
  uint64_t lastUse = 0;
};

/// The key of what a candidate may share with earlier ones: its parameters
/// and the reference bundle's contents.
std::string payloadKey(const Manifest &candidate, const std::string *refDir,
                       const Manifest *reference) {
  std::string key;
  for (const Param &p : candidate.params) {
    key += std::string(elementTypeName(p.type)) + (p.isBuffer ? "[" : "=");
    if (p.isBuffer) {
      for (int64_t d : p.shape)
        key += std::to_string(d) + ",";
      key += std::string("]") + roleName(p.role);
      if (p.domain != Domain::signed_unit)
        key += std::string(":") + domainName(p.domain);
    } else {
      // A seeded scalar's value comes from the input set's seed.
      key += p.seeded ? std::string("seeded") : std::to_string(p.value);
    }
    key += ";";
  }
  if (!reference)
    return key + "|no reference";
  std::error_code ec;
  std::string dir = std::filesystem::weakly_canonical(*refDir, ec).string();
  std::string contents = serializeManifest(*reference);
  for (const Kernel &k : reference->kernels) {
    std::string image, ignored;
    readFile(*refDir + "/" + k.ptxFile, image, ignored);
    contents += image;
    if (!k.cubinFile.empty() && readFile(*refDir + "/" + k.cubinFile, image,
                                         ignored))
      contents += image;
  }
  return key + "|" + (ec ? *refDir : dir) + "|" +
         std::to_string(std::hash<std::string>()(contents));
}

/// Puts input set `s` into the buffers of `m` at `at`: `in` and `inout`
/// copied from the kept inputs, `out` and scratch poisoned.
void loadKept(const Manifest &m, const KeptSet &s,
              const std::vector<CUdeviceptr> &at) {
  for (size_t i = 0; i < m.params.size(); ++i) {
    const Param &p = m.params[i];
    if (!p.isBuffer)
      continue;
    if (p.role == Role::out)
      poisonDevice(at[i], p.bytes, p.type);
    else
      CU(cuMemcpyDtoD(at[i], s.pristine[i]->ptr, p.bytes));
  }
  poisonScratch(m, at);
}

class Worker;

/// The worker's data path: inputs copied from the kept input set, outputs
/// compared with the kept reference outputs, all on the device.
class DeviceData : public DataPath {
public:
  DeviceData(Worker &worker, KeptPayload &payload, const Manifest &candidate,
             const std::string *refDir, const Manifest *reference);
  const std::vector<CUdeviceptr> &buffers() override { return addresses; }
  bool hasReference() const override { return reference != nullptr; }
  int64_t referenceTerms() const override {
    return reference ? reference->reductionLength : 0;
  }
  void loadInputs(uint64_t seed) override;
  const std::vector<double> &scalars() const override { return scalarSet; }
  void keepOutputs() override;
  Comparison checkInputs() override;
  void referenceOutputs() override {} // kept with the input set
  bool ghostBlind() override;
  Comparison compareKept(size_t i, const Tolerance &tol) override;
  RelaunchCheck compareNow(size_t i, const Tolerance &tol) override;
  CUdeviceptr pristine(size_t i) override { return set->pristine[i]->ptr; }
  std::vector<std::vector<uint8_t>>
  referenceOn(const std::vector<std::vector<uint8_t>> &inputs,
              const std::vector<double> &scalars) override;

  std::vector<uint64_t> seedsUsed;
  bool generated = false; // an input set was made for this candidate

private:
  Worker &worker;
  KeptPayload &payload;
  const Manifest &candidate;
  const std::string *refDir;
  const Manifest *reference;
  DeviceBuffers scratch;
  std::vector<CUdeviceptr> addresses;
  KeptSet *set = nullptr;
  std::vector<double> scalarSet; // the loaded input set's scalars
  std::vector<double> keptRms; // without a reference, by parameter
  // The reference, loaded for the adversarial sets only.
  std::unique_ptr<LoadedBundle> ref;
  DeviceBuffers refOwned;
};

class Worker {
public:
  explicit Worker(const WorkerOptions &options) : options(options) {
    deviceError =
        loadOrMeasureProfile(options.device, options.profileDir, profile);
    seed = freshSeed();
    if (!deviceError.empty())
      return;
    try {
      checker = std::make_unique<DeviceChecker>(profile.smCount);
    } catch (const CudaError &e) {
      deviceError = "the worker's check kernels do not load: " + e.what;
    }
    int fd = options.busyFd;
    if (fd >= 0)
      busy = [fd](bool on) {
        char c = on ? '1' : '0';
        (void)!write(fd, &c, 1);
      };
    if (checker)
      checker->busy = busy;
  }

  json handle(const std::string &line, int64_t number, bool &quit,
              bool &fatal);

  DeviceChecker &check() { return *checker; }
  bool hasDevice() const { return deviceError.empty(); }
  std::function<void(bool)> busy;

  KeptSet &inputSet(KeptPayload &p, uint64_t seed, const Manifest &candidate,
                    const std::string *refDir, const Manifest *reference,
                    bool &generated);

private:
  json measure(const WorkerRequest &r, bool &fatal);
  KeptPayload &payloadFor(const std::string &key, const Manifest &candidate);
  /// Frees the least recently used input sets and payloads (never
  /// `current`) until `more` bytes fit under the cap.
  void makeRoom(uint64_t more, const KeptPayload *current);
  /// "" or what changed in the kept sets of `seeds` since they were made.
  std::string verifyKept(KeptPayload &p, const Manifest &candidate,
                         const std::vector<uint64_t> &seeds);

  WorkerOptions options;
  DeviceProfile profile;
  std::string deviceError;
  uint64_t seed = 0;
  std::unique_ptr<DeviceChecker> checker;
  std::vector<std::unique_ptr<KeptPayload>> payloads;
  uint64_t clock = 0; // for least-recently-used
  int64_t requests = 0;
};

DeviceData::DeviceData(Worker &worker, KeptPayload &payload,
                       const Manifest &candidate, const std::string *refDir,
                       const Manifest *reference)
    : worker(worker), payload(payload), candidate(candidate), refDir(refDir),
      reference(reference), keptRms(candidate.params.size(), -1) {
  addresses = addressesOf(payload.work);
  for (const Scratch &s : candidate.scratch) {
    scratch.push_back(std::make_unique<DeviceBuffer>(s.bytes));
    addresses.push_back(scratch.back()->ptr);
  }
}

void DeviceData::loadInputs(uint64_t seed) {
  set = &worker.inputSet(payload, seed, candidate, refDir, reference,
                         generated);
  seedsUsed.push_back(seed);
  scalarSet = scalarValues(candidate, seed);
  loadKept(candidate, *set, addresses);
}

void DeviceData::keepOutputs() {
  for (size_t i = 0; i < candidate.params.size(); ++i) {
    const Param &p = candidate.params[i];
    if (p.isBuffer && p.role != Role::in)
      CU(cuMemcpyDtoD(payload.kept[i]->ptr, addresses[i], p.bytes));
  }
}

Comparison DeviceData::checkInputs() {
  for (size_t i = 0; i < candidate.params.size(); ++i) {
    const Param &p = candidate.params[i];
    if (!p.isBuffer || p.role != Role::in)
      continue;
    Comparison c = worker.check().unchanged(p.name, p.type, addresses[i],
                                            set->pristine[i]->ptr, p.bytes);
    if (!c.pass)
      return c;
  }
  return Comparison();
}

bool DeviceData::ghostBlind() {
  auto known = set->blind.find(candidate.math);
  if (known != set->blind.end())
    return known->second;
  // The buffers as loaded with no launch: `out` poisoned (the candidate's
  // own buffer, poisoned again: its outputs are kept), `inout` as made.
  bool blind = true;
  for (size_t i = 0; i < candidate.params.size() && blind; ++i) {
    const Param &p = candidate.params[i];
    if (!p.isBuffer || p.role == Role::in)
      continue;
    CUdeviceptr image = set->pristine[i] ? set->pristine[i]->ptr : addresses[i];
    if (p.role == Role::out)
      poisonDevice(image, p.bytes, p.type);
    blind = worker.check()
                .compare(p.name, p.type, image, set->want[i]->ptr, p.bytes,
                         toleranceFor(p.type, candidate.math,
                                      candidate.reductionLength,
                                      p.bytes / elementBytes(p.type)),
                         set->wantRms[i])
                .pass;
  }
  set->blind[candidate.math] = blind;
  return blind;
}

Comparison DeviceData::compareKept(size_t i, const Tolerance &tol) {
  const Param &p = candidate.params[i];
  return worker.check().compare(p.name, p.type, payload.kept[i]->ptr,
                                set->want[i]->ptr, p.bytes, tol,
                                set->wantRms[i]);
}

RelaunchCheck DeviceData::compareNow(size_t i, const Tolerance &tol) {
  const Param &p = candidate.params[i];
  CUdeviceptr kept = payload.kept[i]->ptr;
  if (reference)
    return worker.check().relaunch(p.name, p.type, addresses[i], kept,
                                   set->want[i]->ptr, p.bytes, tol,
                                   set->wantRms[i]);
  if (keptRms[i] < 0)
    keptRms[i] = worker.check().rms(kept, p.bytes, p.type);
  return worker.check().relaunch(p.name, p.type, addresses[i], kept, kept,
                                 p.bytes, tol, keptRms[i]);
}

std::vector<std::vector<uint8_t>>
DeviceData::referenceOn(const std::vector<std::vector<uint8_t>> &inputs,
                        const std::vector<double> &scalars) {
  if (!ref) {
    ref = std::make_unique<LoadedBundle>(*refDir, *reference);
    refOwned = allocate(*reference);
  }
  return runOnImages(*ref, *reference, addressesOf(refOwned), inputs, scalars,
                     worker.busy);
}

KeptPayload &Worker::payloadFor(const std::string &key,
                                const Manifest &candidate) {
  for (auto &p : payloads)
    if (p->key == key) {
      p->lastUse = ++clock;
      return *p;
    }
  // Two copies of the parameters: the candidate's buffers and the outputs
  // kept after a checked launch.
  uint64_t bytes = 2 * parameterBytes(candidate);
  makeRoom(bytes, nullptr);
  auto p = std::make_unique<KeptPayload>();
  p->key = key;
  // Scratch buffers are each candidate's own (DeviceData).
  for (const Param &param : candidate.params) {
    p->work.push_back(param.isBuffer
                          ? std::make_unique<DeviceBuffer>(param.bytes)
                          : nullptr);
    p->kept.push_back(param.isBuffer && param.role != Role::in
                          ? std::make_unique<DeviceBuffer>(param.bytes)
                          : nullptr);
  }
  p->bytes = bytes;
  p->lastUse = ++clock;
  payloads.push_back(std::move(p));
  return *payloads.back();
}

void Worker::makeRoom(uint64_t more, const KeptPayload *current) {
  auto total = [&]() {
    uint64_t sum = 0;
    for (auto &p : payloads) {
      sum += p->bytes;
      for (auto &s : p->sets)
        sum += s->bytes;
    }
    return sum;
  };
  while (total() + more > options.cacheBytes) {
    // The least recently used input set, else payload, other than `current`.
    KeptPayload *oldestSetOwner = nullptr;
    size_t oldestSet = 0;
    uint64_t oldest = UINT64_MAX;
    for (auto &p : payloads)
      for (size_t s = 0; s < p->sets.size(); ++s)
        if (p->sets[s]->lastUse < oldest) {
          oldest = p->sets[s]->lastUse;
          oldestSetOwner = p.get();
          oldestSet = s;
        }
    if (oldestSetOwner) {
      oldestSetOwner->sets.erase(oldestSetOwner->sets.begin() + oldestSet);
      continue;
    }
    auto victim = std::min_element(
        payloads.begin(), payloads.end(), [&](auto &a, auto &b) {
          return (a.get() == current ? UINT64_MAX : a->lastUse) <
                 (b.get() == current ? UINT64_MAX : b->lastUse);
        });
    if (victim == payloads.end() || victim->get() == current)
      return; // nothing left to free: go over the cap rather than fail
    payloads.erase(victim);
  }
}

KeptSet &Worker::inputSet(KeptPayload &p, uint64_t seed,
                          const Manifest &candidate, const std::string *refDir,
                          const Manifest *reference, bool &generated) {
  for (auto &s : p.sets)
    if (s->seed == seed) {
      s->lastUse = ++clock;
      return *s;
    }
  uint64_t bytes = 0;
  for (const Param &param : candidate.params)
    if (param.isBuffer)
      bytes += (param.role == Role::inout ? 2 : 1) * param.bytes;
  makeRoom(bytes, &p);
  generated = true;
  auto s = std::make_unique<KeptSet>();
  s->seed = seed;
  s->bytes = bytes;
  size_t n = candidate.params.size();
  s->pristine.resize(n);
  s->want.resize(n);
  s->wantRms.assign(n, 0);
  // Inputs on the device, as makeInputs makes them on the host.
  for (size_t i = 0; i < n; ++i) {
    const Param &param = candidate.params[i];
    if (!param.isBuffer || param.role == Role::out)
      continue;
    s->pristine[i] = std::make_unique<DeviceBuffer>(param.bytes);
    checker->fill(s->pristine[i]->ptr, param.bytes, param.type,
                  seed * 1000003ull + i, param.domain);
  }
  if (reference) {
    // The reference, once, on a copy of them; its outputs are kept.
    LoadedBundle ref(*refDir, *reference);
    DeviceBuffers buffers = allocate(*reference);
    std::vector<CUdeviceptr> at = addressesOf(buffers);
    loadKept(*reference, *s, at);
    ref.launch(at, scalarValues(*reference, seed));
    synchronize(busy);
    for (size_t i = 0; i < n; ++i) {
      const Param &param = reference->params[i];
      if (!param.isBuffer || param.role == Role::in)
        continue;
      s->want[i] = std::move(buffers[i]);
      s->wantRms[i] = checker->rms(s->want[i]->ptr, param.bytes, param.type);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const Param &param = candidate.params[i];
    for (DeviceBuffer *b : {s->pristine[i].get(), s->want[i].get()})
      s->sums.push_back(b ? checker->checksum(b->ptr, param.bytes, param.type)
                          : 0);
  }
  s->lastUse = ++clock;
  p.sets.push_back(std::move(s));
  return *p.sets.back();
}

std::string Worker::verifyKept(KeptPayload &p, const Manifest &candidate,
                               const std::vector<uint64_t> &seeds) {
  for (auto it = p.sets.begin(); it != p.sets.end(); ++it) {
    KeptSet &s = **it;
    if (std::find(seeds.begin(), seeds.end(), s.seed) == seeds.end())
      continue;
    for (size_t i = 0; i < candidate.params.size(); ++i) {
      const Param &param = candidate.params[i];
      for (int which = 0; which < 2; ++which) {
        DeviceBuffer *b = which ? s.want[i].get() : s.pristine[i].get();
        if (!b || checker->checksum(b->ptr, param.bytes, param.type) ==
                      s.sums[2 * i + which])
          continue;
        std::string what = (which ? "reference outputs " : "inputs ") +
                           param.name + " (seed " + std::to_string(s.seed) +
                           ")";
        p.sets.erase(it); // made again for the next candidate
        return "the kernel writes outside its buffers: the worker's kept " +
               what + " changed while it ran";
      }
    }
  }
  return "";
}

json Worker::measure(const WorkerRequest &r, bool &fatal) {
  Manifest candidate, reference;
  std::string error;
  if (!readManifest(r.bundle, candidate, error) ||
      !bindSizes(candidate, r.sizes, error))
    throw std::runtime_error(error);
  bool haveReference = !r.reference.empty();
  if (haveReference) {
    if (!readManifest(r.reference, reference, error) ||
        !bindSizes(reference, boundSizes(candidate), error))
      throw std::runtime_error("reference: " + error);
    std::string mismatch = compareSignatures(candidate, reference);
    if (!mismatch.empty())
      throw std::runtime_error(r.bundle + ": " + mismatch);
    adoptReferenceContract(candidate, reference);
  }
  RunOptions run;
  run.device = options.device;
  run.seed = r.seed ? *r.seed : seed;
  run.inputSets = r.inputs;
  run.samples = r.samples;
  run.warmup = r.warmup;
  run.checkedTimedLaunches = r.checkedLaunches;
  run.determinismRuns = r.determinism;
  run.adversarial = r.adversarial;
  run.busy = busy;

  Feedback f;
  beginFeedback(candidate, f);
  if (!r.irVersion.empty())
    f.irVersion = r.irVersion;
  f.seed = run.seed;
  json cache = json::object();
  if (!deviceError.empty()) {
    f.launchStatus = "no_device";
    f.error = deviceError;
  } else {
    const std::string *refDir = haveReference ? &r.reference : nullptr;
    const Manifest *ref = haveReference ? &reference : nullptr;
    try {
      LoadedBundle bundle(r.bundle, candidate);
      readResources(bundle, candidate, profile, f);
      KeptPayload &p = payloadFor(payloadKey(candidate, refDir, ref), candidate);
      DeviceData data(*this, p, candidate, refDir, ref);
      measureLoaded(run, candidate, bundle, data, profile, f);
      if (f.launchStatus == "ok") {
        std::string stray = verifyKept(p, candidate, data.seedsUsed);
        if (!stray.empty()) {
          f.correctness = "fail";
          f.correctnessReason = "stray_write";
          f.correctnessDetail = stray;
        }
      }
      cache["inputs"] = data.generated ? "generated" : "kept";
    } catch (const CudaError &e) {
      recordFault(e, f);
      // A fault that leaves the context unusable (an illegal address, a
      // trap) ends the worker after this answer: its client starts another.
      fatal = driver().cuCtxSynchronize() != CUDA_SUCCESS;
    }
  }
  if (!r.irVersion.empty())
    f.irVersion = r.irVersion;
  json answer = {{"status", "ok"},
                 {"feedback", json::parse(serializeFeedback(f))}};
  if (!cache.empty())
    answer["cache"] = cache;
  if (fatal)
    answer["fatal"] = true;
  return answer;
}

json Worker::handle(const std::string &line, int64_t number, bool &quit,
                    bool &fatal) {
  auto start = std::chrono::steady_clock::now();
  WorkerRequest r;
  std::string error;
  json answer;
  if (!parseWorkerRequest(line, r, error)) {
    answer = {{"status", "error"},
              {"error", "line " + std::to_string(number) + ": " + error}};
  } else if (r.op == "ping") {
    answer = {{"status", "ok"}, {"seed", seed}, {"pid", int64_t(getpid())}};
    if (deviceError.empty())
      answer["device"] = json::parse(serializeDeviceProfile(profile));
    else
      answer["device_error"] = deviceError;
  } else if (r.op == "quit") {
    quit = true;
    answer = {{"status", "ok"}};
  } else {
    ++requests;
    try {
      answer = measure(r, fatal);
    } catch (const std::exception &e) {
      // A bundle that cannot be read, a reference on other parameters:
      // nothing ran, the worker goes on.
      answer = {{"status", "error"}, {"error", e.what()}};
    }
  }
  answer["protocol"] = kWorkerProtocolVersion;
  answer["id"] = r.id;
  answer["seconds"] = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  return answer;
}

} // namespace

namespace {
/// The longest request line read: a request is a short object (paths, a
/// few numbers); a line of hundreds of MB once took five times its size in
/// memory and came back whole as the answer's id.
constexpr size_t kMaxRequestBytes = size_t(1) << 20;

/// The next line of `in` (without its newline) into `buffer`: its length,
/// or, with `tooLong`, kMaxRequestBytes of it, the rest read and dropped.
/// False at the end of the input.
bool readRequestLine(std::istream &in, std::vector<char> &buffer,
                     size_t &length, bool &tooLong) {
  in.getline(buffer.data(), std::streamsize(buffer.size()));
  size_t got = size_t(in.gcount()); // with the newline, when one was read
  if (got == 0)
    return false;
  tooLong = in.fail() && !in.eof();
  length = tooLong ? buffer.size() - 1 : in.eof() ? got : got - 1;
  if (tooLong) {
    in.clear();
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return true;
}
} // namespace

int serveWorker(const WorkerOptions &options, std::istream &in,
                std::ostream &out) {
  Worker worker(options);
  std::vector<char> buffer(kMaxRequestBytes + 1);
  size_t length = 0;
  bool tooLong = false;
  int64_t number = 0;
  while (readRequestLine(in, buffer, length, tooLong)) {
    ++number;
    if (tooLong) {
      out << json({{"status", "error"},
                   {"error", "line " + std::to_string(number) +
                                 ": longer than " +
                                 std::to_string(kMaxRequestBytes) +
                                 " bytes: a request is one short JSON "
                                 "object per line"},
                   {"protocol", kWorkerProtocolVersion},
                   {"id", nullptr},
                   {"seconds", 0.0}})
                 .dump()
          << "\n"
          << std::flush;
      continue;
    }
    std::string line(buffer.data(), length);
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    bool quit = false, fatal = false;
    json answer = worker.handle(line, number, quit, fatal);
    out << answer.dump() << "\n" << std::flush;
    if (fatal)
      return kExitFailed;
    if (quit)
      break;
  }
  return worker.hasDevice() ? 0 : kExitNoDevice;
}

} // namespace runtime
} // namespace tirx
