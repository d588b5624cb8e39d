//===- Counters.cpp - hardware counters from Nsight Compute -----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Counters.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Runtime/Integer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tirx {
namespace runtime {

namespace {
const char *kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
const char *kDram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
const char *kSm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
const char *kStallPrefix = "smsp__average_warps_issue_stalled_";
const char *kStallSuffix = "_per_issue_active.ratio";
const char *kStallReasons[] = {
    "long_scoreboard", "short_scoreboard", "barrier",        "membar",
    "mio_throttle",    "lg_throttle",      "math_pipe_throttle", "wait",
    "not_selected",    "no_instruction",   "branch_resolving", "dispatch_stall",
    "drain",           "imc_miss",         "tex_throttle",   "sleeping"};

/// One CSV line split into fields ("" quoting, commas inside quotes).
std::vector<std::string> splitCsv(const std::string &line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        fields.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.emplace_back();
    } else if (ch != '\r') {
      fields.back() += ch;
    }
  }
  return fields;
}

/// A metric value: "1,234.5" (thousands separators) or "n/a".
std::optional<double> parseValue(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (!end || *end || !std::isfinite(v))
    return std::nullopt;
  return v;
}

bool executable(const std::string &path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 &&
         S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}
} // namespace

const std::vector<std::string> &counterMetrics() {
  static const std::vector<std::string> metrics = [] {
    std::vector<std::string> m = {kOccupancy, kDram, kSm};
    for (const char *r : kStallReasons)
      m.push_back(std::string(kStallPrefix) + r + kStallSuffix);
    return m;
  }();
  return metrics;
}

std::string findNcu() {
  if (const char *forced = std::getenv("TIRX_NCU"))
    return executable(forced) ? forced : "";
  if (const char *path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty() && executable(dir + "/ncu"))
        return dir + "/ncu";
  }
  return executable("/usr/local/cuda/bin/ncu") ? "/usr/local/cuda/bin/ncu"
                                               : "";
}

bool parseNcuCsv(const std::string &text,
                 const std::vector<std::string> &kernels, HardwareCounters &c,
                 std::string &error) {
  std::stringstream lines(text);
  std::string line;
  std::map<std::string, size_t> column;
  std::map<std::string, std::pair<double, int>> sums; // metric: sum, count
  std::map<std::string, std::string> units;
  std::set<std::string> launches;
  std::regex passes("- ([0-9]+) pass");
  int64_t maxPasses = -1;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (line.rfind("==PROF==", 0) == 0 &&
        std::regex_search(line, m, passes)) {
      // Digits only, but any number of them: a count that does not fit
      // is ignored.
      if (std::optional<int64_t> n = parseInteger(m.str(1)))
        maxPasses = std::max<int64_t>(maxPasses, *n);
    }
    if (line.rfind("\"ID\"", 0) == 0) {
      column.clear();
      std::vector<std::string> names = splitCsv(line);
      for (size_t i = 0; i < names.size(); ++i)
        column[names[i]] = i;
      continue;
    }
    if (column.empty() || line.empty() || line[0] != '"')
      continue;
    for (const char *need : {"Kernel Name", "Metric Name", "Metric Value"})
      if (!column.count(need)) {
        error = std::string("ncu's CSV has no \"") + need +
                "\" column (a --page raw report? TIRx reads the details "
                "page)";
        return false;
      }
    std::vector<std::string> f = splitCsv(line);
    auto at = [&](const char *name) -> std::string {
      auto it = column.find(name);
      return it != column.end() && it->second < f.size() ? f[it->second] : "";
    };
    std::string kernel = at("Kernel Name");
    // ncu may show a C++ signature; the manifest has the symbol.
    std::string base = kernel.substr(0, kernel.find('('));
    if (!kernels.empty() &&
        std::find(kernels.begin(), kernels.end(), base) == kernels.end())
      continue;
    std::optional<double> v = parseValue(at("Metric Value"));
    launches.insert(at("ID") + "/" + base);
    if (c.kernel.empty())
      c.kernel = base;
    std::string metric = at("Metric Name");
    units[metric] = at("Metric Unit");
    if (!v)
      continue;
    auto &s = sums[metric];
    s.first += *v;
    s.second += 1;
  }
  if (launches.empty()) {
    error = column.empty() ? "no CSV report in ncu's output"
                           : "ncu's report has no launch of the candidate's "
                             "kernels";
    return false;
  }
  auto figure = [&](const std::string &metric) -> std::optional<double> {
    auto it = sums.find(metric);
    if (it == sums.end() || it->second.second == 0)
      return std::nullopt;
    double v = it->second.first / it->second.second;
    if (units[metric] == "%" || metric.find(".pct") != std::string::npos)
      v /= 100;
    return v;
  };
  c.achievedOccupancy = figure(kOccupancy);
  c.dramThroughput = figure(kDram);
  c.smThroughput = figure(kSm);
  if (c.achievedOccupancy)
    c.achievedOccupancy = std::clamp(*c.achievedOccupancy, 0.0, 1.0);
  double total = 0;
  std::vector<std::pair<std::string, double>> stalls;
  for (const char *r : kStallReasons) {
    std::optional<double> v =
        figure(std::string(kStallPrefix) + r + kStallSuffix);
    if (v && *v > 0) {
      stalls.emplace_back(r, *v);
      total += *v;
    }
  }
  std::sort(stalls.begin(), stalls.end(),
            [](auto &a, auto &b) { return a.second > b.second; });
  c.stalls.clear();
  for (size_t i = 0; i < stalls.size() && i < 3; ++i)
    c.stalls.emplace_back(stalls[i].first, stalls[i].second / total);
  if (maxPasses >= 0)
    c.passes = maxPasses;
  c.samples = int64_t(launches.size());
  std::vector<std::string> missing;
  for (const char *m : {kOccupancy, kDram, kSm})
    if (!figure(m))
      missing.push_back(m);
  if (stalls.empty())
    missing.push_back(std::string(kStallPrefix) + "*" + kStallSuffix);
  c.status = "ok";
  c.note.clear();
  if (!missing.empty()) {
    c.note = "ncu reported no value for";
    for (const std::string &m : missing)
      c.note += " " + m;
  }
  return true;
}

std::string describeNcuFailure(int exitStatus, const std::string &output) {
  if (output.find("ERR_NVGPUCTRPERM") != std::string::npos)
    return "ncu may not read the GPU's performance counters "
           "(ERR_NVGPUCTRPERM): run as root, or load the driver with "
           "NVreg_RestrictProfilingToAdminUsers=0";
  if (output.find("No kernels were profiled") != std::string::npos)
    return "ncu profiled no kernel (the candidate's kernels did not launch "
           "under it, or their names did not match)";
  std::string lastError;
  std::stringstream lines(output);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("==ERROR==", 0) == 0)
      lastError = line.substr(9);
  while (!lastError.empty() && lastError.front() == ' ')
    lastError.erase(0, 1);
  if (!lastError.empty())
    return "ncu failed: " + lastError;
  if (exitStatus != 0)
    return "ncu exited with status " + std::to_string(exitStatus) +
           " and no report";
  return "ncu printed no report";
}

namespace {
/// One ncu run over `metrics`.
HardwareCounters runNcu(const CounterRequest &r,
                        const std::vector<std::string> &metricList) {
  HardwareCounters c;
  c.status = "unavailable";
  std::string ncu = r.ncu.empty() ? findNcu() : r.ncu;
  if (ncu.empty()) {
    c.note = "ncu not found ($TIRX_NCU, $PATH, /usr/local/cuda/bin/ncu)";
    return c;
  }
  if (!r.manifest || r.manifest->kernels.empty()) {
    c.note = "the bundle has no kernel to profile";
    return c;
  }
  const char *tmp = std::getenv("TMPDIR");
  std::string base = std::string(tmp && *tmp ? tmp : "/tmp") + "/tirx-ncu-XXXXXX";
  char *dir = mkdtemp(base.data());
  if (!dir) {
    c.note = "cannot make a temporary directory for ncu";
    return c;
  }
  std::string work = dir, in = work + "/request.jsonl", out = work + "/ncu.txt";
  // One screen-mode measurement without a reference: one launch of each
  // kernel, the first, is what ncu profiles.
  nlohmann::json request = {{"op", "measure"},   {"bundle", r.bundle},
                            {"mode", "screen"},  {"inputs", 1},
                            {"samples", 1},      {"warmup", 0},
                            {"checked_launches", 0}, {"determinism", 0},
                            {"adversarial", "off"},  {"seed", r.seed}};
  std::string ignored;
  writeFileAtomically(in, request.dump() + "\n{\"op\": \"quit\"}\n", ignored);
  std::string metrics, names;
  for (const std::string &m : metricList)
    metrics += (metrics.empty() ? "" : ",") + m;
  std::vector<std::string> kernels;
  for (const Kernel &k : r.manifest->kernels)
    if (std::find(kernels.begin(), kernels.end(), k.name) == kernels.end()) {
      kernels.push_back(k.name);
      names += (names.empty() ? "" : "|") + k.name;
    }
  std::vector<std::string> args = {
      ncu, "--csv", "--metrics", metrics, "--kernel-name",
      "regex:^(" + names + ")$", "--launch-count",
      std::to_string(r.manifest->kernels.size()), "--target-processes", "all",
      r.program, "--worker", "--device", std::to_string(r.device)};
  if (!r.profileDir.empty()) {
    args.push_back("--profile-dir");
    args.push_back(r.profileDir);
  }
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int fdIn = open(in.c_str(), O_RDONLY);
    int fdOut = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fdIn < 0 || fdOut < 0)
      _exit(127);
    dup2(fdIn, 0);
    dup2(fdOut, 1);
    dup2(fdOut, 2);
    std::vector<char *> argv;
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  bool timedOut = false;
  if (pid > 0) {
    auto start = std::chrono::steady_clock::now();
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                        start)
              .count() > r.timeoutSeconds) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        timedOut = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  std::string text;
  readFile(out, text, ignored);
  std::remove(in.c_str());
  std::remove(out.c_str());
  rmdir(work.c_str());
  if (pid < 0) {
    c.note = "fork() failed";
    return c;
  }
  if (timedOut) {
    c.note = "ncu ran longer than " +
             std::to_string(int(r.timeoutSeconds)) + " s and was killed";
    return c;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code == 127 && text.empty()) {
    c.note = "ncu (" + ncu + ") could not be started";
    return c;
  }
  std::string error;
  if (parseNcuCsv(text, kernels, c, error))
    return c;
  c = HardwareCounters();
  c.status = "unavailable";
  c.note = describeNcuFailure(code, text);
  if (c.note == "ncu printed no report" ||
      c.note.rfind("ncu exited with status", 0) == 0)
    c.note += " (" + error + ")";
  return c;
}
} // namespace

HardwareCounters collectCounters(const CounterRequest &r) {
  HardwareCounters c = runNcu(r, counterMetrics());
  // An ncu that does not know one of the stall metrics refuses them all:
  // once more with the three figures alone.
  if (c.status != "ok" && c.note.rfind("ncu failed:", 0) == 0 &&
      c.note.find("metric") != std::string::npos) {
    std::vector<std::string> core(counterMetrics().begin(),
                                  counterMetrics().begin() + 3);
    HardwareCounters again = runNcu(r, core);
    if (again.status == "ok") {
      again.note = "stall reasons left out (" + c.note + ")" +
                   (again.note.empty() ? "" : "; " + again.note);
      return again;
    }
  }
  return c;
}

namespace {
std::string percent(double v) {
  return std::to_string(int(std::lround(v * 100))) + "%";
}
} // namespace

void applyCounters(Feedback &f, const HardwareCounters &c) {
  f.counters = c;
  if (c.achievedOccupancy)
    f.achievedOccupancy = c.achievedOccupancy;
  if (c.status != "ok" || f.launchStatus != "ok" || !f.duration ||
      (f.plausible && !*f.plausible))
    return;
  std::string figures;
  if (c.dramThroughput)
    figures += "DRAM " + percent(*c.dramThroughput) + " of peak";
  if (c.smThroughput)
    figures += std::string(figures.empty() ? "" : ", ") + "SM " +
               percent(*c.smThroughput) + " of peak";
  if (c.achievedOccupancy)
    figures += std::string(figures.empty() ? "" : ", ") +
               "achieved occupancy " + percent(*c.achievedOccupancy);
  if (!c.stalls.empty()) {
    figures += std::string(figures.empty() ? "" : "; ") + "top stalls:";
    for (size_t i = 0; i < c.stalls.size(); ++i)
      figures += std::string(i ? "," : "") + " " + c.stalls[i].first + " " +
                 percent(c.stalls[i].second);
  }
  std::string measured = " (Nsight Compute: " + figures + ")";
  // Structural verdicts stand: the counters only say how they show.
  bool structural = f.bottleneck == "launch_bound" ||
                    f.bottleneck == "too_few_blocks";
  if (!structural && c.dramThroughput && *c.dramThroughput >= 0.8) {
    f.bottleneck = "memory_bound";
    f.bottleneckReason = "DRAM throughput at " + percent(*c.dramThroughput) +
                         " of peak: the memory side of the roofline";
  } else if (!structural && c.smThroughput && *c.smThroughput >= 0.8) {
    f.bottleneck = "compute_bound";
    f.bottleneckReason = "SM throughput at " + percent(*c.smThroughput) +
                         " of peak with DRAM below 80%";
  }
  f.bottleneckReason += measured;
}

} // namespace runtime
} // namespace tirx
