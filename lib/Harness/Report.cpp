//===- Report.cpp - a tuning session as one HTML page -----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The page is plain HTML with inline SVG and a <style> block: no script,
// no external resource, so it opens from a file, a mail or an MCP client
// alike. Every text from the workspace goes through escapeHtml.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Report.h"
#include "tirx/Analysis/View.h"
#include "tirx/Runtime/Feedback.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

Expected<ReportPeer> mlir::tirx::parsePeer(llvm::StringRef text) {
  auto [name, ms] = text.split('=');
  double value = 0;
  if (name.empty() || ms.empty() || ms.getAsDouble(value) ||
      !std::isfinite(value) || value <= 0)
    return refuse(RefusalCode::usage,
                  "--peer takes NAME=MS (a positive time in milliseconds), "
                  "not \"" + text + "\"",
                  "--peer torch=0.19");
  return ReportPeer{name.str(), value};
}

bool ReportVersion::ranked() const {
  return durationUs && *durationUs > 0 && correctness == "pass" &&
         launchStatus == "ok" && plausible != false;
}

std::string ReportVersion::state() const {
  if (!hasFeedback)
    return "unmeasured";
  if (compileStatus == "error" ||
      (launchStatus != "ok" && launchStatus != "no_device" &&
       launchStatus != "not_run"))
    return "error";
  if (correctness == "fail" || plausible == false)
    return "fail";
  if (ranked())
    return "pass";
  return "unmeasured";
}

std::optional<size_t> ReportData::best() const {
  std::optional<size_t> best;
  for (size_t i = 0; i < versions.size(); ++i)
    if (versions[i].ranked() &&
        (!best || *versions[i].durationUs < *versions[*best].durationUs))
      best = i;
  return best;
}

std::optional<double> ReportData::seedUs() const {
  if (versions.empty() || !versions.front().ranked())
    return std::nullopt;
  return versions.front().durationUs;
}

std::vector<size_t> ReportData::pathTo(size_t index) const {
  std::map<std::string, size_t> byId;
  for (size_t i = 0; i < versions.size(); ++i)
    byId[versions[i].entry.id] = i;
  std::vector<size_t> path;
  // Parents come earlier (the index guarantees it): the walk ends.
  for (std::optional<size_t> at = index; at;) {
    path.push_back(*at);
    auto it = byId.find(versions[*at].entry.parent);
    at = it == byId.end() || it->second >= *at
             ? std::nullopt
             : std::optional<size_t>(it->second);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::string mlir::tirx::escapeHtml(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&#39;"; break;
    default:
      // Control characters other than tab and newline are not valid in
      // HTML text: shown as U+FFFD.
      if ((unsigned char)c < 0x20 && c != '\t' && c != '\n')
        out += "&#xFFFD;";
      else
        out += c;
    }
  }
  return out;
}

namespace {
/// A JSON file of the workspace, bounded; nullopt when absent or not an
/// object (a report shows what it can read).
std::optional<json::Object> readObjectFile(const std::string &path) {
  // Never through a symbolic link (a workspace's files are its own).
  llvm::sys::fs::file_status status;
  std::string text, error;
  if (llvm::sys::fs::status(path, status, /*follow=*/false) ||
      status.type() != llvm::sys::fs::file_type::regular_file ||
      !rt::readFile(path, text, error))
    return std::nullopt;
  auto parsed = parseJSON(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  if (json::Object *o = parsed->getAsObject())
    return std::move(*o);
  return std::nullopt;
}

void readFeedback(const Workspace &ws, ReportVersion &v) {
  std::optional<json::Object> f =
      readObjectFile(ws.path("feedback/" + v.entry.id + ".json"));
  if (!f)
    return;
  v.hasFeedback = true;
  auto str = [&](const char *key, const char *fallback) {
    return f->getString(key).value_or(fallback).str();
  };
  v.compileStatus = str("compile_status", "not_run");
  v.launchStatus = str("launch_status", "not_run");
  v.correctness = str("correctness", "not_checked");
  v.bottleneck = str("bottleneck", "unknown");
  v.durationUs = f->getNumber("duration_us");
  if (v.durationUs && !std::isfinite(*v.durationUs))
    v.durationUs.reset();
  v.bytes = uint64_t(std::max<int64_t>(0, f->getInteger("bytes_moved").value_or(0)));
  v.flops = uint64_t(std::max<int64_t>(0, f->getInteger("flops").value_or(0)));
  v.plausible = f->getBoolean("plausible");
  for (const char *key : {"error", "correctness_detail", "implausible_reason"})
    if (v.problem.empty() && v.state() != "pass")
      v.problem = str(key, "");
}

/// The ceilings: a runner's device profile when given, else the copy
/// bandwidth measured with the feedback and the datasheet's peaks.
Expected<ReportDevice> readDevice(const ReportData &data,
                                  const std::string &profilePath) {
  ReportDevice d;
  DeviceFigures sheet = datasheetFigures(data.target.empty() ? "sm_90"
                                                             : data.target);
  d.name = sheet.name;
  d.source = sheet.source;
  d.copyGBs = sheet.bandwidthGBs;
  d.peakFp32Tflops = sheet.peakFp32Tflops;
  d.peakTf32Tflops = sheet.peakTf32Tflops;
  d.peakF16Tflops = sheet.peakF16Tflops;
  if (!profilePath.empty()) {
    std::string text, error;
    rt::DeviceProfile p;
    if (!rt::readFile(profilePath, text, error))
      return refuse(RefusalCode::not_found, error);
    if (!rt::parseDeviceProfile(text, p, error))
      return refuse(RefusalCode::bad_json,
                    profilePath + " is not a device profile: " + error);
    d.name = p.name;
    d.source = "profile";
    if (p.copyBandwidthGBs > 0)
      d.copyGBs = p.copyBandwidthGBs;
    if (p.peakFp32Tflops > 0)
      d.peakFp32Tflops = p.peakFp32Tflops;
    if (p.peakTf32Tflops > 0)
      d.peakTf32Tflops = p.peakTf32Tflops;
    if (p.peakF16Tflops > 0)
      d.peakF16Tflops = p.peakF16Tflops;
    return d;
  }
  return d;
}

/// The copy bandwidth a run measured, if any feedback has it: the figure
/// the plausibility gate used on that device.
std::optional<double> measuredCopyBandwidth(const Workspace &ws,
                                            const ReportData &data) {
  for (const ReportVersion &v : data.versions) {
    std::optional<json::Object> f =
        readObjectFile(ws.path("feedback/" + v.entry.id + ".json"));
    if (!f)
      continue;
    std::optional<double> gbs = f->getNumber("copy_bandwidth_gbs");
    if (gbs && std::isfinite(*gbs) && *gbs > 0)
      return gbs;
  }
  return std::nullopt;
}

void readKernels(const Workspace &ws, ReportData &data) {
  std::optional<json::Object> profile = readObjectFile(ws.path("profile.json"));
  if (!profile)
    return;
  const json::Array *kernels = profile->getArray("kernels");
  if (!kernels)
    return;
  for (const json::Value &k : *kernels) {
    const json::Object *o = k.getAsObject();
    if (!o)
      continue;
    ReportKernel kernel;
    kernel.name = o->getString("name").value_or("?").str();
    kernel.status = o->getString("status").value_or("").str();
    if (const json::Array *ops = o->getArray("ops"))
      for (const json::Value &op : *ops)
        if (auto s = op.getAsString())
          kernel.ops += (kernel.ops.empty() ? "" : ", ") + s->str();
    kernel.durationUs = o->getNumber("duration_us");
    if (kernel.durationUs &&
        (!std::isfinite(*kernel.durationUs) || *kernel.durationUs < 0))
      kernel.durationUs.reset();
    data.kernels.push_back(std::move(kernel));
  }
}

Expected<std::vector<ReportRefusal>> readRefusals(const Workspace &ws,
                                                  size_t &omitted) {
  std::vector<json::Object> lines;
  std::string error;
  if (!ws.readAudit(lines, error))
    return refuse(RefusalCode::workspace_damaged, error);
  std::vector<ReportRefusal> out;
  for (const json::Object &line : lines) {
    if (line.getString("outcome") != llvm::StringRef("rejected"))
      continue;
    ReportRefusal r;
    auto str = [&](const char *key) {
      return line.getString(key).value_or("").str();
    };
    r.time = str("time");
    r.command = str("command");
    r.code = str("code");
    r.message = str("reason");
    r.hint = str("hint");
    if (const json::Object *args = line.getObject("args")) {
      r.version = args->getString("version").value_or("").str();
      if (const json::Value *action = args->get("action"))
        r.action = llvm::formatv("{0}", *action).str();
      else if (auto recipe = args->getString("recipe"))
        r.action = "recipe " + recipe->str();
    }
    out.push_back(std::move(r));
  }
  omitted = out.size() > kMaxRefusals ? out.size() - kMaxRefusals : 0;
  out.erase(out.begin(), out.begin() + omitted);
  return out;
}
} // namespace

Expected<ReportData> mlir::tirx::collectReport(const Workspace &ws,
                                               const ReportOptions &options) {
  ReportData data;
  data.task = ws.task();
  data.target = ws.target();
  data.peers = options.peers;
  std::vector<VersionEntry> entries;
  std::string error;
  if (!ws.readIndex(entries, error))
    return refuse(RefusalCode::workspace_damaged, error);
  for (VersionEntry &e : entries) {
    ReportVersion v;
    v.entry = std::move(e);
    readFeedback(ws, v);
    data.versions.push_back(std::move(v));
  }
  Expected<ReportDevice> device = readDevice(data, options.deviceProfile);
  if (!device)
    return device.takeError();
  data.device = std::move(*device);
  if (options.deviceProfile.empty())
    if (std::optional<double> gbs = measuredCopyBandwidth(ws, data)) {
      data.device.copyGBs = *gbs;
      data.device.source =
          "copy bandwidth measured by tirx-run, peaks from the datasheet";
    }
  readKernels(ws, data);
  Expected<std::vector<ReportRefusal>> refusals =
      readRefusals(ws, data.refusalsOmitted);
  if (!refusals)
    return refusals.takeError();
  data.refusals = std::move(*refusals);
  return data;
}

//===----------------------------------------------------------------------===//
// Rendering
//===----------------------------------------------------------------------===//

namespace {
const char *kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #1d2330; background: #ffffff; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 20px 0 6px; }
.sub { color: #5b6475; margin: 0 0 12px; }
.row { display: flex; gap: 16px; flex-wrap: wrap; }
.panel { flex: 0 0 auto; box-sizing: border-box; max-width: 540px; border: 1px solid #d8dde6; border-radius: 6px; padding: 8px; background: #fbfcfe; }
.panel h2 { margin-top: 0; }
table { border-collapse: collapse; }
td, th { border-bottom: 1px solid #e3e7ee; padding: 3px 8px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; }
.pass { color: #1e7a45; } .fail { color: #b3261e; } .error { color: #b35c00; } .unmeasured { color: #6b7280; }
svg text { font: 11px system-ui, sans-serif; fill: #1d2330; }
svg .axis { stroke: #8a93a3; stroke-width: 1; }
svg .grid { stroke: #e3e7ee; stroke-width: 1; }
)";

const char *stateColour(const std::string &state) {
  if (state == "pass")
    return "#2e9d5b";
  if (state == "fail")
    return "#d64541";
  if (state == "error")
    return "#e08a1e";
  return "#9aa0a6";
}

std::string fmt(double x, int digits = 3) {
  if (!std::isfinite(x))
    return "?";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
  return buffer;
}

std::string timeText(const std::optional<double> &us) {
  if (!us)
    return "-";
  return *us >= 1000 ? fmt(*us / 1000) + " ms" : fmt(*us) + " us";
}

/// seed / version, "1.31x"; "-" without both.
std::string speedup(std::optional<double> baseUs, std::optional<double> us) {
  if (!baseUs || !us || *us <= 0)
    return "-";
  return fmt(*baseUs / *us) + "x";
}

/// "v5  189 us  1.3x seed  1x torch", or "v2  unmeasured".
std::string nodeLabel(const ReportData &data, const ReportVersion &v) {
  if (!v.ranked())
    return v.entry.id + "  " + v.state();
  std::string label = v.entry.id + "  " + timeText(v.durationUs);
  if (std::optional<double> seed = data.seedUs())
    label += "  " + speedup(seed, v.durationUs) + " seed";
  for (const ReportPeer &p : data.peers)
    label += "  " + speedup(p.ms * 1000, v.durationUs) + " " + p.name;
  return label;
}

/// A tick of a log axis: 0.1, 1, 10, 100, 1k, 10k, 1M ...
std::string tickText(double v) {
  static const char *suffix[] = {"", "k", "M", "G", "T"};
  int i = 0;
  while (v >= 1000 && i < 4) {
    v /= 1000;
    ++i;
  }
  return fmt(v) + suffix[i];
}

/// Where each version of the tree stands: its depth and its row (rows in
/// depth-first order, children in id order).
struct TreeLayout {
  std::vector<std::pair<size_t, size_t>> place; // depth, row
  std::vector<std::optional<size_t>> parent;    // index of the parent
  size_t rows = 0, depth = 0;
};

TreeLayout layoutTree(const ReportData &data) {
  TreeLayout t;
  std::map<std::string, size_t> byId;
  std::map<size_t, std::vector<size_t>> children;
  std::vector<size_t> roots;
  t.place.resize(data.versions.size());
  t.parent.resize(data.versions.size());
  for (size_t i = 0; i < data.versions.size(); ++i) {
    auto p = byId.find(data.versions[i].entry.parent);
    if (p == byId.end()) {
      roots.push_back(i);
    } else {
      t.parent[i] = p->second;
      children[p->second].push_back(i);
    }
    byId[data.versions[i].entry.id] = i;
  }
  std::vector<std::pair<size_t, size_t>> stack; // index, depth
  for (auto it = roots.rbegin(); it != roots.rend(); ++it)
    stack.push_back({*it, 0});
  while (!stack.empty()) {
    auto [i, d] = stack.back();
    stack.pop_back();
    t.place[i] = {d, t.rows++};
    t.depth = std::max(t.depth, d);
    const std::vector<size_t> &kids = children[i];
    for (auto it = kids.rbegin(); it != kids.rend(); ++it)
      stack.push_back({*it, d + 1});
  }
  return t;
}

/// The tree: a row per version in depth-first order, a column per depth.
void renderTree(const ReportData &data, llvm::raw_ostream &os) {
  TreeLayout layout = layoutTree(data);
  const auto &place = layout.place;
  size_t rows = layout.rows, depth = layout.depth;
  std::vector<std::string> labels;
  size_t longest = 0;
  for (const ReportVersion &v : data.versions) {
    labels.push_back(nodeLabel(data, v));
    longest = std::max(longest, labels.back().size());
  }
  // Columns as wide as the longest label allows (about 6.5 px a character).
  const double width = 520, dy = 30, top = 24;
  double room = width - 48 - 6.5 * double(longest);
  double dx = depth ? std::clamp(room / double(depth), 24.0, 120.0) : 0;
  double height = top + double(std::max<size_t>(rows, 1)) * dy + 8;
  auto xy = [&](size_t i) {
    return std::pair<double, double>{24 + dx * double(place[i].first),
                                     top + dy * double(place[i].second)};
  };
  std::optional<size_t> best = data.best();
  os << llvm::formatv("<svg class=\"tree\" xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n",
                      width, height);
  for (size_t i = 0; i < data.versions.size(); ++i) {
    if (!layout.parent[i])
      continue;
    auto [x0, y0] = xy(*layout.parent[i]);
    auto [x1, y1] = xy(i);
    os << llvm::formatv("<path class=\"edge\" d=\"M{0} {1} V{3} H{2}\" "
                        "fill=\"none\" stroke=\"#9aa5b8\" stroke-width=\"2\"/>\n",
                        x0, y0, x1, y1);
  }
  for (size_t i = 0; i < data.versions.size(); ++i) {
    const ReportVersion &v = data.versions[i];
    auto [x, y] = xy(i);
    bool isBest = best && *best == i;
    os << "<g class=\"node " << v.state() << (isBest ? " best" : "")
       << "\" data-version=\"" << escapeHtml(v.entry.id) << "\">";
    os << "<title>"
       << escapeHtml(v.entry.id + ": " + v.entry.message +
                     (v.problem.empty() ? "" : "\n" + v.problem))
       << "</title>";
    os << llvm::formatv("<circle cx=\"{0}\" cy=\"{1}\" r=\"9\" fill=\"{2}\" "
                        "stroke=\"{3}\" stroke-width=\"{4}\"/>",
                        x, y, stateColour(v.state()),
                        isBest ? "#f2b705" : "#ffffff", isBest ? 4 : 1.5);
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\">", x + 14, y + 4)
       << escapeHtml(labels[i]) << "</text></g>\n";
  }
  os << "</svg>\n";
}

/// Log-scale axis: decades covering [lo, hi].
struct LogAxis {
  double lo, hi, from, to; // data range (decades) -> pixel range
  double at(double v) const {
    return from + (std::log10(v) - std::log10(lo)) /
                      (std::log10(hi) - std::log10(lo)) * (to - from);
  }
  static LogAxis over(double minV, double maxV, double from, double to) {
    double lo = std::pow(10, std::floor(std::log10(minV)));
    double hi = std::pow(10, std::ceil(std::log10(maxV)));
    if (hi <= lo)
      hi = lo * 10;
    return {lo, hi, from, to};
  }
};

void renderAxes(const LogAxis &x, const LogAxis &y, llvm::raw_ostream &os) {
  for (double v = x.lo; v <= x.hi * 1.001; v *= 10)
    os << llvm::formatv("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" "
                        "y2=\"{2}\"/><text x=\"{0}\" y=\"{3}\" "
                        "text-anchor=\"middle\">{4}</text>\n",
                        x.at(v), y.from, y.to, y.from + 14, tickText(v));
  for (double v = y.lo; v <= y.hi * 1.001; v *= 10)
    os << llvm::formatv("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" "
                        "y2=\"{1}\"/><text x=\"{3}\" y=\"{4}\" "
                        "text-anchor=\"end\">{5}</text>\n",
                        x.from, y.at(v), x.to, x.from - 4, y.at(v) + 4, tickText(v));
  os << llvm::formatv("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" "
                      "y2=\"{1}\"/><line class=\"axis\" x1=\"{0}\" y1=\"{1}\" "
                      "x2=\"{0}\" y2=\"{3}\"/>\n",
                      x.from, y.from, x.to, y.to);
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">"
                      "arithmetic intensity (FLOP/byte)</text>\n",
                      (x.from + x.to) / 2, y.from + 30);
  os << llvm::formatv("<text x=\"14\" y=\"{0}\" text-anchor=\"middle\" "
                      "transform=\"rotate(-90 14 {0})\">GFLOP/s</text>\n",
                      (y.from + y.to) / 2);
}

/// A text at (x, y), escaped.
void svgText(llvm::raw_ostream &os, double x, double y, const char *anchor,
             const std::string &text) {
  os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"{2}\">{3}"
                      "</text>\n",
                      x, y, anchor, escapeHtml(text));
}

/// A measured version on the roofline.
struct RooflinePoint {
  size_t index;
  double intensity, gflops;
};

/// The points, each with its version's tooltip; points within a label's
/// height share one label ("v1, v8").
void renderPoints(const ReportData &data,
                  const std::vector<RooflinePoint> &points, const LogAxis &x,
                  const LogAxis &y, llvm::raw_ostream &os) {
  std::optional<size_t> best = data.best();
  struct Label { double x, y; std::string text; };
  std::vector<Label> labels;
  for (const RooflinePoint &p : points) {
    const ReportVersion &v = data.versions[p.index];
    bool isBest = best && *best == p.index;
    double px = x.at(p.intensity), py = y.at(p.gflops);
    os << llvm::formatv("<g class=\"point\" data-version=\"{0}\"><title>{0}: "
                        "{1} FLOP/byte, {2} GFLOP/s</title><circle cx=\"{3}\" "
                        "cy=\"{4}\" r=\"6\" fill=\"{5}\" stroke=\"#1d2330\"/>"
                        "</g>\n",
                        escapeHtml(v.entry.id), fmt(p.intensity),
                        fmt(p.gflops), px, py, isBest ? "#f2b705" : "#2e9d5b");
    auto near = llvm::find_if(labels, [&](const Label &l) {
      return std::abs(l.x - px) < 12 && std::abs(l.y - py) < 14;
    });
    if (near != labels.end())
      near->text += ", " + v.entry.id;
    else
      labels.push_back({px, py, v.entry.id});
  }
  for (const Label &l : labels)
    svgText(os, l.x + 9, l.y + 4, "start", l.text);
}

/// The roofline: memory roof (copy bandwidth x intensity), the FP32 (and
/// tf32) roof, each ranked version with flops as a point.
void renderRoofline(const ReportData &data, llvm::raw_ostream &os) {
  const ReportDevice &d = data.device;
  double bw = d.copyGBs > 0 ? d.copyGBs : 1000;
  double peak = (d.peakFp32Tflops > 0 ? d.peakFp32Tflops : 50) * 1000;
  double top = std::max({peak, d.peakTf32Tflops * 1000, d.peakF16Tflops * 1000});
  double ridge = peak / bw;
  double minI = ridge / 100, maxI = ridge * 10, minG = bw * minI, maxG = top;
  std::vector<RooflinePoint> points;
  for (size_t i = 0; i < data.versions.size(); ++i) {
    const ReportVersion &v = data.versions[i];
    if (!v.ranked() || !v.flops || !v.bytes)
      continue;
    RooflinePoint p{i, double(v.flops) / double(v.bytes),
                    double(v.flops) / (*v.durationUs * 1e3)};
    minI = std::min(minI, p.intensity);
    maxI = std::max(maxI, p.intensity);
    minG = std::min(minG, p.gflops);
    maxG = std::max(maxG, p.gflops);
    points.push_back(p);
  }
  const double width = 520, height = 380;
  LogAxis x = LogAxis::over(minI, maxI, 64, width - 16);
  LogAxis y = LogAxis::over(minG, maxG * 1.5, height - 44, 12);
  os << llvm::formatv("<svg class=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n",
                      width, height);
  renderAxes(x, y, os);
  auto roof = [&](double ceiling, const char *cls, const char *colour,
                  const char *dash) {
    double knee = ceiling / bw;
    os << llvm::formatv("<polyline class=\"{0}\" fill=\"none\" stroke=\"{1}\" "
                        "stroke-width=\"3\" stroke-dasharray=\"{2}\" points=\""
                        "{3},{4} {5},{6} {7},{6}\"/>\n",
                        cls, colour, dash, x.at(x.lo), y.at(bw * x.lo),
                        x.at(std::min(knee, x.hi)),
                        y.at(std::min(ceiling, bw * x.hi)), x.at(x.hi));
  };
  roof(peak, "roof", "#3a6fd8", "none");
  if (d.peakTf32Tflops * 1000 > peak) {
    roof(d.peakTf32Tflops * 1000, "roof tf32", "#7b5cc4", "6 4");
    svgText(os, width - 20, y.at(d.peakTf32Tflops * 1000) - 6, "end",
            "TF32 tensor cores " + fmt(d.peakTf32Tflops, 4) + " TFLOP/s");
  }
  if (d.peakF16Tflops * 1000 > peak) {
    roof(d.peakF16Tflops * 1000, "roof f16", "#c45c9b", "2 3");
    svgText(os, width - 20, y.at(d.peakF16Tflops * 1000) - 6, "end",
            "F16/BF16 tensor cores " + fmt(d.peakF16Tflops, 4) + " TFLOP/s");
  }
  svgText(os, width - 20, y.at(peak) - 6, "end",
          "FP32 " + fmt(peak / 1000, 4) + " TFLOP/s");
  double middle = std::sqrt(x.lo * std::min(ridge, x.hi));
  svgText(os, x.at(middle) - 6, y.at(bw * middle) - 8, "end",
          "copy " + fmt(bw, 4) + " GB/s");
  renderPoints(data, points, x, y, os);
  os << "</svg>\n";
}

void renderVersionTable(const ReportData &data, llvm::raw_ostream &os) {
  std::optional<double> seed = data.seedUs();
  os << "<table class=\"versions\"><tr><th>version</th><th>parent</th>"
        "<th>state</th><th class=\"num\">median</th><th class=\"num\">vs "
        "seed</th>";
  for (const ReportPeer &p : data.peers)
    os << "<th class=\"num\">vs " << escapeHtml(p.name) << " ("
       << fmt(p.ms) << " ms)</th>";
  os << "<th class=\"num\">GB/s</th><th>bottleneck</th><th>message</th></tr>\n";
  for (const ReportVersion &v : data.versions) {
    std::optional<double> us =
        v.ranked() ? v.durationUs : std::optional<double>();
    os << "<tr><td>" << escapeHtml(v.entry.id) << "</td><td>"
       << escapeHtml(v.entry.parent) << "</td><td class=\"" << v.state()
       << "\">" << v.state() << "</td><td class=\"num\">" << timeText(us)
       << "</td><td class=\"num\">" << speedup(seed, us) << "</td>";
    for (const ReportPeer &p : data.peers)
      os << "<td class=\"num\">" << speedup(p.ms * 1000, us) << "</td>";
    os << "<td class=\"num\">"
       << (us && v.bytes ? fmt(double(v.bytes) / (*us * 1e3), 4) : "-")
       << "</td><td>" << escapeHtml(v.hasFeedback ? v.bottleneck : "")
       << "</td><td>" << escapeHtml(v.entry.message)
       << (v.problem.empty() ? ""
                             : "<br><span class=\"" + v.state() + "\">" +
                                   escapeHtml(v.problem) + "</span>")
       << "</td></tr>\n";
  }
  os << "</table>\n";
}

void renderKernels(const ReportData &data, llvm::raw_ostream &os) {
  os << "<h2>Per-kernel time shares</h2>\n";
  if (data.kernels.empty()) {
    os << "<p class=\"sub\">No profile: <code>tirx profile PAYLOAD "
          "--workspace WS</code> times each kernel of a payload.</p>\n";
    return;
  }
  double total = 0;
  for (const ReportKernel &k : data.kernels)
    total += k.durationUs.value_or(0);
  os << "<svg class=\"shares\" xmlns=\"http://www.w3.org/2000/svg\" "
        "width=\"560\" height=\""
     << 24 * data.kernels.size() + 8 << "\">\n";
  static const char *colours[] = {"#3a6fd8", "#2e9d5b", "#e08a1e", "#7b5cc4",
                                  "#d64541", "#1f9fb4"};
  for (size_t i = 0; i < data.kernels.size(); ++i) {
    const ReportKernel &k = data.kernels[i];
    double share = total > 0 ? k.durationUs.value_or(0) / total : 0;
    os << llvm::formatv("<g class=\"share\"><rect x=\"200\" y=\"{0}\" "
                        "width=\"{1}\" height=\"16\" fill=\"{2}\"/>"
                        "<text x=\"0\" y=\"{3}\">{4}</text><text x=\"{5}\" "
                        "y=\"{3}\">{6}</text></g>\n",
                        4 + 24 * i, std::max(1.0, 280 * share),
                        colours[i % 6], 16 + 24 * i, escapeHtml(k.name),
                        206 + 280 * share,
                        k.durationUs ? fmt(share * 100) + "% (" +
                                           timeText(k.durationUs) + ")"
                                     : escapeHtml(k.status.empty()
                                                      ? "not timed"
                                                      : k.status));
  }
  os << "</svg>\n<table class=\"kernels\"><tr><th>kernel</th><th>ops</th>"
        "<th class=\"num\">time</th><th>status</th></tr>\n";
  for (const ReportKernel &k : data.kernels)
    os << "<tr><td>" << escapeHtml(k.name) << "</td><td>"
       << escapeHtml(k.ops) << "</td><td class=\"num\">"
       << timeText(k.durationUs) << "</td><td>" << escapeHtml(k.status)
       << "</td></tr>\n";
  os << "</table>\n";
}

void renderBestSchedule(const ReportData &data, llvm::raw_ostream &os) {
  os << "<h2>Best schedule</h2>\n";
  std::optional<size_t> best = data.best();
  if (!best) {
    os << "<p class=\"sub\">No version is measured correct yet.</p>\n";
    return;
  }
  const ReportVersion &b = data.versions[*best];
  os << "<p class=\"best-summary\">" << escapeHtml(b.entry.id) << ": "
     << timeText(b.durationUs) << ", " << speedup(data.seedUs(), b.durationUs)
     << " over the seed</p>\n<ol class=\"actions\">\n";
  for (size_t i : data.pathTo(*best)) {
    const VersionEntry &e = data.versions[i].entry;
    if (e.parent.empty())
      continue;
    std::string what = !e.action.empty() ? e.action
                       : !e.script.empty() ? "script " + e.script
                                           : e.kind + " (an edited payload)";
    const ReportVersion &v = data.versions[i];
    os << "<li><code>" << escapeHtml(what) << "</code> &rarr; "
       << escapeHtml(e.id)
       << (v.ranked() ? " (" + timeText(v.durationUs) + ")" : "");
    if (e.action.empty() || e.message.find(e.action) == std::string::npos)
      os << " <span class=\"sub\">" << escapeHtml(e.message) << "</span>";
    os << "</li>\n";
  }
  os << "</ol>\n";
}

void renderRefusals(const ReportData &data, llvm::raw_ostream &os) {
  os << "<h2>Refusals (" << data.refusals.size() + data.refusalsOmitted
     << ")</h2>\n";
  if (data.refusalsOmitted)
    os << "<p class=\"sub\">The oldest " << data.refusalsOmitted
       << " are not shown.</p>\n";
  if (data.refusals.empty()) {
    os << "<p class=\"sub\">None.</p>\n";
    return;
  }
  os << "<table class=\"refusals\"><tr><th>time</th><th>request</th>"
        "<th>code</th><th>message</th><th>action</th></tr>\n";
  for (const ReportRefusal &r : data.refusals)
    os << "<tr class=\"refusal\"><td>" << escapeHtml(r.time) << "</td><td>"
       << escapeHtml(r.command + (r.version.empty() ? "" : " " + r.version))
       << "</td><td>" << escapeHtml(r.code) << "</td><td>"
       << escapeHtml(r.message)
       << (r.hint.empty() ? "" : "<br><span class=\"sub\">hint: " +
                                     escapeHtml(r.hint) + "</span>")
       << "</td><td><code>" << escapeHtml(r.action) << "</code></td></tr>\n";
  os << "</table>\n";
}
} // namespace

std::string mlir::tirx::renderReport(const ReportData &data) {
  std::string html;
  llvm::raw_string_ostream os(html);
  std::optional<size_t> best = data.best();
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<title>TIRx report" << (data.task.empty() ? "" : ": ")
     << escapeHtml(data.task) << "</title>\n<style>" << kStyle
     << "</style></head>\n<body>\n<h1>TIRx report"
     << (data.task.empty() ? "" : ": ") << escapeHtml(data.task) << "</h1>\n";
  os << "<p class=\"sub\">target " << escapeHtml(data.target) << ", "
     << data.versions.size() << " versions";
  if (best)
    os << ", best " << escapeHtml(data.versions[*best].entry.id) << " "
       << timeText(data.versions[*best].durationUs);
  if (best && data.seedUs())
    os << " (" << speedup(data.seedUs(), data.versions[*best].durationUs)
       << " over the seed)";
  if (!data.versions.empty() && !data.seedUs())
    os << "; the seed " << escapeHtml(data.versions.front().entry.id)
       << " has no correct time, so no speed-up over it (<code>tirx run "
       << escapeHtml(data.versions.front().entry.id) << "</code> on a GPU "
       << "host measures it)";
  os << "</p>\n<div class=\"row\">\n<div class=\"panel\"><h2>Version "
        "tree</h2>\n";
  renderTree(data, os);
  os << "</div>\n<div class=\"panel\"><h2>Roofline</h2>\n";
  renderRoofline(data, os);
  os << "<p class=\"sub\">device: " << escapeHtml(data.device.name) << " ("
     << escapeHtml(data.device.source) << ")</p></div>\n</div>\n";
  os << "<h2>Versions</h2>\n";
  renderVersionTable(data, os);
  renderBestSchedule(data, os);
  renderKernels(data, os);
  renderRefusals(data, os);
  os << "</body></html>\n";
  return html;
}

json::Object mlir::tirx::reportSummary(const ReportData &data) {
  size_t measured = 0;
  for (const ReportVersion &v : data.versions)
    measured += v.ranked();
  json::Object out{{"versions", int64_t(data.versions.size())},
                   {"ranked", int64_t(measured)},
                   {"refusals", int64_t(data.refusals.size() +
                                        data.refusalsOmitted)},
                   {"kernels", int64_t(data.kernels.size())},
                   {"device", json::Object{{"name", data.device.name},
                                           {"source", data.device.source},
                                           {"copy_bandwidth_gbs",
                                            data.device.copyGBs}}}};
  std::optional<size_t> best = data.best();
  if (!best)
    return out;
  const ReportVersion &b = data.versions[*best];
  out["best"] = b.entry.id;
  out["best_us"] = *b.durationUs;
  if (std::optional<double> seed = data.seedUs())
    out["speedup_over_seed"] = *seed / *b.durationUs;
  json::Object peers;
  for (const ReportPeer &p : data.peers)
    peers[p.name] = p.ms * 1000 / *b.durationUs;
  out["speedup_over_peers"] = std::move(peers);
  json::Array actions;
  for (size_t i : data.pathTo(*best))
    if (!data.versions[i].entry.parent.empty())
      actions.push_back(data.versions[i].entry.id);
  out["best_path"] = std::move(actions);
  return out;
}

Expected<Result> mlir::tirx::report(Session &session,
                                    const ReportOptions &options) {
  json::Array peers;
  for (const ReportPeer &p : options.peers)
    peers.push_back(p.name + "=" + fmt(p.ms, 6));
  json::Object args{{"peers", std::move(peers)}};
  if (!options.deviceProfile.empty())
    args["device"] = options.deviceProfile;
  return session.audited("report", std::move(args), [&]() -> Expected<Result> {
    Expected<ReportData> data = collectReport(session.workspace(), options);
    if (!data)
      return data.takeError();
    Result out;
    out.text = renderReport(*data);
    out.data = json::Object{{"report", reportSummary(*data)}};
    return out;
  });
}
