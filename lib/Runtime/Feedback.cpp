//===- Feedback.cpp - the runner's feedback and its classifier --*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Feedback.h"
#include "tirx/Runtime/JsonLimits.h"
#include "tirx/Runtime/Files.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

using json = nlohmann::json;

namespace tirx {
namespace runtime {

//===----------------------------------------------------------------------===//
// Classifier
//===----------------------------------------------------------------------===//

namespace {
std::string kernelPath(const Manifest &m, const Kernel &k) {
  return "func @" + m.payload + " / gpu.launch_func @" + k.name;
}

void blame(Feedback &f, const char *kind, std::string path, std::string loc,
           std::string reason) {
  f.bottleneck = kind;
  f.bottleneckLocation = std::move(path);
  f.bottleneckLoc = std::move(loc);
  f.bottleneckReason = std::move(reason);
}
} // namespace

namespace {
/// The highest arithmetic rate the kernels' types allow on this device,
/// TFLOP/s; 0 when unknown (no compute gate then).
double computeCeilingTflops(const Manifest &m, const DeviceProfile &d) {
  bool narrow = false;
  for (const Param &p : m.params)
    narrow |= p.type == ElementType::f16 || p.type == ElementType::bf16 ||
              p.type == ElementType::i8;
  for (const Scratch &s : m.scratch)
    narrow |= s.type == ElementType::f16 || s.type == ElementType::bf16 ||
              s.type == ElementType::i8;
  if (narrow) // 16- and 8-bit tensor-core rates: at most 4x the tf32 one
    return d.peakTf32Tflops > 0 ? 4 * d.peakTf32Tflops + d.peakFp32Tflops : 0;
  if (m.math == "f16" || m.math == "bf16")
    return d.peakF16Tflops > 0 ? d.peakF16Tflops + d.peakFp32Tflops : 0;
  if (m.math == "tf32")
    return d.peakTf32Tflops > 0 ? d.peakTf32Tflops + d.peakFp32Tflops : 0;
  return d.peakFp32Tflops;
}

/// The dense tensor-core rate of the bundle's math mode; 0 when its
/// products are not on tensor cores or the rate is unknown.
double tensorCorePeakTflops(const Manifest &m, const DeviceProfile &d) {
  if (m.math == "tf32")
    return d.peakTf32Tflops;
  if (m.math == "f16" || m.math == "bf16")
    return d.peakF16Tflops;
  return 0;
}

std::string formatFixed(double v, int digits) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(digits);
  os << v;
  return os.str();
}
} // namespace

void judgePlausibility(Feedback &f, const Manifest &m,
                       const DeviceProfile &device) {
  f.plausible.reset();
  f.implausibleReason.clear();
  if (f.launchStatus != "ok" || !f.duration || !(f.duration->median > 0))
    return;
  double seconds = f.duration->median * 1e-6;
  f.plausible = true;
  if (device.copyBandwidthGBs > 0) {
    double achieved = double(f.bytesMoved) / seconds / 1e9;
    double ratio = achieved / device.copyBandwidthGBs;
    if (ratio > kPlausibilityMargin) {
      f.plausible = false;
      f.implausibleReason =
          "moves at least " + std::to_string(f.bytesMoved) + " bytes in " +
          formatFixed(f.duration->median, 3) + " us: " +
          formatFixed(achieved, 0) + " GB/s, " + formatFixed(ratio, 2) +
          "x the device's measured copy bandwidth (" +
          formatFixed(device.copyBandwidthGBs, 0) +
          " GB/s); it skips work, or its manifest claims more traffic than "
          "it makes";
      return;
    }
  }
  double ceiling = computeCeilingTflops(m, device);
  if (ceiling > 0 && f.flops > 0) {
    double tflops = double(f.flops) / seconds / 1e12;
    if (tflops > kPlausibilityMargin * ceiling) {
      f.plausible = false;
      f.implausibleReason =
          std::to_string(f.flops) + " flops in " +
          formatFixed(f.duration->median, 3) + " us: " +
          formatFixed(tflops, 1) + " TFLOP/s, " +
          formatFixed(tflops / ceiling, 2) + "x the device's peak for " +
          (m.math != "ieee" ? m.math : "these types") + " (" +
          formatFixed(ceiling, 1) + " TFLOP/s); it skips work, or its "
          "manifest counts flops it does not do";
    }
  }
}

void classify(Feedback &f, const Manifest &m, const DeviceProfile &device) {
  f.bottleneck = "unknown";
  if (f.launchStatus != "ok" || !f.duration || m.kernels.empty())
    return;
  // A timing beyond what the device can do names no bottleneck.
  if (f.plausible && !*f.plausible) {
    blame(f, "unknown", kernelPath(m, m.kernels.front()), "",
          "implausible timing: " + f.implausibleReason);
    return;
  }
  double bandwidth = device.copyBandwidthGBs * 1e9;
  // A tf32, f16 or bf16 bundle's products run on tensor cores, at their
  // rate (H200: tf32 495, f16 and bf16 989 TFLOP/s; f32 SIMT 67).
  double tensorPeak = tensorCorePeakTflops(m, device);
  double peakFlops = (tensorPeak > 0 ? tensorPeak : device.peakFp32Tflops) * 1e12;
  double memoryFloor = bandwidth > 0 ? double(f.bytesMoved) / bandwidth : 0;
  double computeFloor = peakFlops > 0 ? double(f.flops) / peakFlops : 0;

  // 1. Too little work to hide a launch (a few microseconds).
  if (f.duration->median < 5.0 && std::max(memoryFloor, computeFloor) < 2e-6) {
    blame(f, "launch_bound", kernelPath(m, m.kernels.front()), "",
          "the whole run takes " + std::to_string(f.duration->median) +
              " us: launch overhead dominates; fuse launches or give each "
              "more work");
    return;
  }

  for (const Kernel &k : m.kernels) {
    int64_t blocks = k.grid[0] * k.grid[1] * k.grid[2];
    // 2. Not enough blocks to fill the machine.
    if (device.smCount > 0 && blocks < device.smCount) {
      blame(f, "too_few_blocks", kernelPath(m, k), "",
            std::to_string(blocks) + " blocks for " +
                std::to_string(device.smCount) +
                " SMs: most SMs idle; use smaller tiles per block");
      return;
    }
  }

  // 3. Low occupancy, and why.
  if (f.theoreticalOccupancy && *f.theoreticalOccupancy < 0.5) {
    const Kernel &k = m.kernels.front();
    int64_t threads = k.block[0] * k.block[1] * k.block[2];
    bool registers = f.registersPerThread && device.registersPerSm > 0 &&
                     *f.registersPerThread * threads * 2 >
                         device.registersPerSm;
    bool shared = f.sharedMemBytes && device.sharedPerSm > 0 &&
                  *f.sharedMemBytes * 2 > device.sharedPerSm;
    if (registers || shared) {
      blame(f, registers ? "low_occupancy_registers" : "low_occupancy_shared",
            kernelPath(m, k), "",
            "theoretical occupancy " +
                std::to_string(*f.theoreticalOccupancy) + " limited by " +
                (registers ? "registers per thread" : "shared memory"));
      return;
    }
  }

  // 4. Compute side of the roofline.
  if (computeFloor > memoryFloor && computeFloor > 0) {
    blame(f, "compute_bound", kernelPath(m, m.kernels.front()), "",
          std::string("arithmetic intensity above the ridge point: the floor "
                      "is the ") +
              (tensorPeak > 0 ? m.math + " tensor-core rate" : "FP32 rate"));
    return;
  }

  // 5. Memory side: at the copy rate there is nothing left to win.
  double utilization = f.bandwidthUtilization.value_or(0);
  if (utilization >= 0.85) {
    blame(f, "memory_bound", kernelPath(m, m.kernels.front()), "",
          "at " + std::to_string(int(utilization * 100)) +
              "% of the measured copy bandwidth");
    return;
  }
  for (const Kernel &k : m.kernels)
    for (const Access &a : k.accesses)
      if (!a.contiguous) {
        blame(f, "uncoalesced_access", a.path, a.loc,
              "consecutive threads touch non-consecutive elements of " +
                  a.buffer);
        return;
      }
  for (const Kernel &k : m.kernels)
    for (const Access &a : k.accesses)
      if (a.contiguous && a.bytes < 16) {
        blame(f, "narrow_global_access", a.path, a.loc,
              std::string(a.isStore ? "store to " : "load from ") + a.buffer +
                  " is " + std::to_string(a.bytes) +
                  " bytes wide on a contiguous axis; 16-byte vectors "
                  "(vectorize 4 for f32) move more per instruction");
        return;
      }
  blame(f, "memory_bound", kernelPath(m, m.kernels.front()), "",
        "memory side of the roofline at " +
            std::to_string(int(utilization * 100)) +
            "% of the copy bandwidth with wide, coalesced accesses");
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {
template <typename T> json optional(const std::optional<T> &v) {
  return v ? json(*v) : json(nullptr);
}
template <typename T>
void readOptional(const json &j, const char *key, std::optional<T> &out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null())
    out = it->get<T>();
}
} // namespace

namespace {
json countersJSON(const HardwareCounters &c) {
  json stalls = json::array();
  for (const auto &[reason, share] : c.stalls)
    stalls.push_back({{"reason", reason}, {"share", share}});
  return {{"status", c.status},
          {"note", c.note},
          {"kernel", c.kernel},
          {"achieved_occupancy", optional(c.achievedOccupancy)},
          {"dram_throughput", optional(c.dramThroughput)},
          {"sm_throughput", optional(c.smThroughput)},
          {"passes", optional(c.passes)},
          {"samples", optional(c.samples)},
          {"stalls", stalls}};
}
} // namespace

std::string serializeCounters(const HardwareCounters &c) {
  return countersJSON(c).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string serializeFeedback(const Feedback &f) {
  json j;
  j["schema_version"] = f.schemaVersion;
  j["ir_version"] = f.irVersion;
  j["payload"] = f.payload;
  j["compile_status"] = f.compileStatus;
  j["launch_status"] = f.launchStatus;
  if (!f.error.empty())
    j["error"] = f.error;
  if (f.killedAfterSeconds)
    j["killed_after_s"] = *f.killedAfterSeconds;
  if (f.duration) {
    j["duration_us"] = f.duration->median;
    j["duration_min_us"] = f.duration->min;
    j["duration_max_us"] = f.duration->max;
    j["duration_mean_us"] = f.duration->mean;
    j["duration_trimmed_mean_us"] = f.duration->trimmedMean;
    j["sample_count"] = f.duration->count;
  } else {
    j["duration_us"] = nullptr;
    j["sample_count"] = nullptr;
  }
  j["bytes_moved"] = f.bytesMoved;
  j["flops"] = f.flops;
  j["math"] = f.math;
  j["achieved_bandwidth_gbs"] = optional(f.achievedBandwidthGBs);
  j["bandwidth_utilization"] = optional(f.bandwidthUtilization);
  j["achieved_occupancy"] = optional(f.achievedOccupancy);
  j["theoretical_occupancy"] = optional(f.theoreticalOccupancy);
  j["resource_estimate"] = {{"registers_per_thread", optional(f.registersPerThread)},
                            {"shared_mem_bytes", optional(f.sharedMemBytes)},
                            {"spill_bytes", optional(f.spillBytes)}};
  j["correctness"] = f.correctness;
  j["correctness_inputs"] = f.correctnessInputs;
  j["max_abs_error"] = optional(f.maxAbsError);
  j["rel_l2_error"] = optional(f.relL2Error);
  j["correctness_detail"] = f.correctnessDetail;
  j["buffers"] = json::array();
  for (const BufferCheck &b : f.buffers)
    j["buffers"].push_back({{"name", b.name},
                            {"pass", b.pass},
                            {"max_abs_error", std::isfinite(b.maxAbsError)
                                                  ? json(b.maxAbsError)
                                                  : json(nullptr)},
                            {"rel_l2_error", std::isfinite(b.relL2Error)
                                                 ? json(b.relL2Error)
                                                 : json(nullptr)}});
  j["seed"] = optional(f.seed);
  if (!f.inputDomains.empty()) {
    j["input_domains"] = json::object();
    for (const auto &[name, domain] : f.inputDomains)
      j["input_domains"][name] = domain;
  }
  if (!f.sizes.empty()) {
    j["sizes"] = json::object();
    for (const auto &[name, value] : f.sizes)
      j["sizes"][name] = value;
  }
  j["checked_launches"] = f.checkedLaunches;
  j["launch_count"] = f.launchCount;
  j["stateful"] = optional(f.stateful);
  j["bitwise_reproducible"] = optional(f.bitwiseReproducible);
  j["inputs_unchanged"] = optional(f.inputsUnchanged);
  j["ghost_check"] = f.ghostCheck;
  j["plausible"] = optional(f.plausible);
  if (!f.implausibleReason.empty())
    j["implausible_reason"] = f.implausibleReason;
  j["copy_bandwidth_gbs"] = optional(f.copyBandwidthGBs);
  j["achieved_tflops"] = optional(f.achievedTflops);
  j["correctness_reason"] = f.correctnessReason;
  j["determinism_runs"] = optional(f.determinismRuns);
  j["adversarial"] = json::array();
  for (const AdversarialCheck &a : f.adversarial)
    j["adversarial"].push_back(
        {{"kind", a.kind},
         {"status", a.status},
         {"level", a.level},
         {"scale", a.scale},
         {"max_abs_error", a.maxAbsError && std::isfinite(*a.maxAbsError)
                               ? json(*a.maxAbsError)
                               : json(nullptr)},
         {"detail", a.detail}});
  j["dram_throughput"] = optional(f.counters.dramThroughput);
  j["sm_throughput"] = optional(f.counters.smThroughput);
  j["counters"] = countersJSON(f.counters);
  j["bottleneck"] = f.bottleneck;
  j["bottleneck_location"] = f.bottleneckLocation;
  j["bottleneck_loc"] = f.bottleneckLoc;
  j["bottleneck_reason"] = f.bottleneckReason;
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

bool parseFeedback(const std::string &text, Feedback &f, std::string &error) {
  if (!jsonDepthWithin(text, error)) {
    error = "feedback: " + error;
    return false;
  }
  try {
    json j = json::parse(text);
    if (j.is_array() && !j.empty())
      j = j[0]; // tirx-run writes an array for several candidates
    if (!j.is_object()) {
      error = "feedback: expected a JSON object (or an array of them)";
      return false;
    }
    f = Feedback();
    f.schemaVersion = j.value("schema_version", 1); // absent before 2
    f.irVersion = j.value("ir_version", "");
    f.payload = j.value("payload", "");
    f.compileStatus = j.value("compile_status", "not_run");
    f.launchStatus = j.value("launch_status", "not_run");
    f.error = j.value("error", "");
    readOptional(j, "killed_after_s", f.killedAfterSeconds);
    if (j.contains("duration_us") && !j["duration_us"].is_null()) {
      TimingStats s;
      s.median = j["duration_us"].get<double>();
      s.min = j.value("duration_min_us", s.median);
      s.max = j.value("duration_max_us", s.median);
      s.mean = j.value("duration_mean_us", s.median);
      s.trimmedMean = j.value("duration_trimmed_mean_us", s.median);
      s.count = j.value("sample_count", int64_t(0));
      f.duration = s;
    }
    f.bytesMoved = j.value("bytes_moved", uint64_t(0));
    f.flops = j.value("flops", uint64_t(0));
    f.math = j.value("math", std::string("ieee"));
    readOptional(j, "achieved_bandwidth_gbs", f.achievedBandwidthGBs);
    readOptional(j, "bandwidth_utilization", f.bandwidthUtilization);
    readOptional(j, "achieved_occupancy", f.achievedOccupancy);
    readOptional(j, "theoretical_occupancy", f.theoreticalOccupancy);
    if (j.contains("resource_estimate") && j["resource_estimate"].is_object()) {
      const json &r = j["resource_estimate"];
      readOptional(r, "registers_per_thread", f.registersPerThread);
      readOptional(r, "shared_mem_bytes", f.sharedMemBytes);
      readOptional(r, "spill_bytes", f.spillBytes);
    }
    f.correctness = j.value("correctness", "not_checked");
    f.correctnessInputs = j.value("correctness_inputs", int64_t(0));
    readOptional(j, "max_abs_error", f.maxAbsError);
    readOptional(j, "rel_l2_error", f.relL2Error);
    f.correctnessDetail = j.value("correctness_detail", "");
    readOptional(j, "seed", f.seed);
    if (j.contains("sizes") && j["sizes"].is_object())
      for (auto it = j["sizes"].begin(); it != j["sizes"].end(); ++it)
        if (it.value().is_number_integer())
          f.sizes.emplace_back(it.key(), it.value().get<int64_t>());
    if (j.contains("input_domains") && j["input_domains"].is_object())
      for (auto it = j["input_domains"].begin(); it != j["input_domains"].end();
           ++it)
        if (it.value().is_string())
          f.inputDomains.emplace_back(it.key(), it.value().get<std::string>());
    if (j.contains("checked_launches") && j["checked_launches"].is_array())
      f.checkedLaunches = j["checked_launches"].get<std::vector<int64_t>>();
    f.launchCount = j.value("launch_count", int64_t(0));
    readOptional(j, "stateful", f.stateful);
    readOptional(j, "bitwise_reproducible", f.bitwiseReproducible);
    readOptional(j, "inputs_unchanged", f.inputsUnchanged);
    f.ghostCheck = j.value("ghost_check", "not_run");
    readOptional(j, "plausible", f.plausible);
    f.implausibleReason = j.value("implausible_reason", "");
    readOptional(j, "copy_bandwidth_gbs", f.copyBandwidthGBs);
    readOptional(j, "achieved_tflops", f.achievedTflops);
    f.correctnessReason = j.value("correctness_reason", "");
    readOptional(j, "determinism_runs", f.determinismRuns);
    if (j.contains("adversarial") && j["adversarial"].is_array())
      for (const json &a : j["adversarial"]) {
        AdversarialCheck c;
        c.kind = a.value("kind", "");
        c.status = a.value("status", "");
        c.level = a.value("level", -1);
        c.scale = a.value("scale", 0.0);
        readOptional(a, "max_abs_error", c.maxAbsError);
        c.detail = a.value("detail", "");
        f.adversarial.push_back(c);
      }
    if (j.contains("counters") && j["counters"].is_object()) {
      const json &c = j["counters"];
      HardwareCounters &h = f.counters;
      h.status = c.value("status", "not_requested");
      h.note = c.value("note", "");
      h.kernel = c.value("kernel", "");
      readOptional(c, "achieved_occupancy", h.achievedOccupancy);
      readOptional(c, "dram_throughput", h.dramThroughput);
      readOptional(c, "sm_throughput", h.smThroughput);
      readOptional(c, "passes", h.passes);
      readOptional(c, "samples", h.samples);
      if (c.contains("stalls") && c["stalls"].is_array())
        for (const json &s : c["stalls"])
          h.stalls.emplace_back(s.value("reason", ""), s.value("share", 0.0));
    }
    f.bottleneck = j.value("bottleneck", "unknown");
    f.bottleneckLocation = j.value("bottleneck_location", "");
    f.bottleneckLoc = j.value("bottleneck_loc", "");
    f.bottleneckReason = j.value("bottleneck_reason", "");
    return true;
  } catch (const json::exception &e) {
    error = std::string("feedback: ") + e.what();
    return false;
  }
}

bool readFeedbackFile(const std::string &path, Feedback &f,
                      std::string &error) {
  std::string text;
  if (!readFile(path, text, error))
    return false;
  if (!parseFeedback(text, f, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

std::string serializeDeviceProfile(const DeviceProfile &p) {
  json j = {{"name", p.name},
            {"uuid", p.uuid},
            {"compute_capability", std::to_string(p.ccMajor) + "." +
                                       std::to_string(p.ccMinor)},
            {"cc_major", p.ccMajor},
            {"cc_minor", p.ccMinor},
            {"sm_count", p.smCount},
            {"l2_bytes", p.l2Bytes},
            {"shared_per_block_optin", p.sharedPerBlockOptin},
            {"shared_per_sm", p.sharedPerSm},
            {"registers_per_block", p.registersPerBlock},
            {"registers_per_sm", p.registersPerSm},
            {"max_threads_per_sm", p.maxThreadsPerSm},
            {"max_threads_per_block", p.maxThreadsPerBlock},
            {"clock_ghz", p.clockGHz},
            {"copy_bandwidth_gbs", p.copyBandwidthGBs},
            {"peak_fp32_tflops", p.peakFp32Tflops},
            {"peak_tf32_tflops", p.peakTf32Tflops},
            {"peak_f16_tflops", p.peakF16Tflops}};
  return j.dump(2) + "\n";
}

bool parseDeviceProfile(const std::string &text, DeviceProfile &p,
                        std::string &error) {
  if (!jsonDepthWithin(text, error))
    return false;
  try {
    json j = json::parse(text);
    p.name = j.at("name").get<std::string>();
    p.uuid = j.at("uuid").get<std::string>();
    p.ccMajor = j.at("cc_major").get<int>();
    p.ccMinor = j.at("cc_minor").get<int>();
    p.smCount = j.at("sm_count").get<int>();
    p.l2Bytes = j.at("l2_bytes").get<int64_t>();
    p.sharedPerBlockOptin = j.at("shared_per_block_optin").get<int64_t>();
    p.sharedPerSm = j.at("shared_per_sm").get<int64_t>();
    p.registersPerBlock = j.at("registers_per_block").get<int64_t>();
    p.registersPerSm = j.at("registers_per_sm").get<int64_t>();
    p.maxThreadsPerSm = j.at("max_threads_per_sm").get<int>();
    p.maxThreadsPerBlock = j.at("max_threads_per_block").get<int>();
    p.clockGHz = j.at("clock_ghz").get<double>();
    p.copyBandwidthGBs = j.at("copy_bandwidth_gbs").get<double>();
    p.peakFp32Tflops = j.at("peak_fp32_tflops").get<double>();
    p.peakTf32Tflops = j.value("peak_tf32_tflops", 0.0); // older caches lack it
    // f16/bf16: twice tf32 on the chips that have both (older caches).
    p.peakF16Tflops = j.value("peak_f16_tflops", 2 * p.peakTf32Tflops);
    if (!(p.copyBandwidthGBs > 0) || p.smCount <= 0) {
      error = "device profile: copy_bandwidth_gbs and sm_count must be "
              "positive";
      return false;
    }
    return true;
  } catch (const json::exception &e) {
    error = std::string("device profile: ") + e.what();
    return false;
  }
}

} // namespace runtime
} // namespace tirx
