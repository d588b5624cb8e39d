//===- Report.h - a tuning session as one HTML page -------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// `tirx report`: a workspace as one self-contained HTML file (inline SVG
// and CSS, no script, nothing fetched): the version tree with each
// version's median time and its speed-up over the seed and over the peers
// given, the roofline of the device with each measured version as a point,
// per-kernel time shares (from `tirx profile`), the refusals of the audit
// log, and the best schedule as the actions from the seed to the fastest
// correct version. Every text that comes from a payload, an agent or a
// feedback file is escaped (escapeHtml) before it reaches the page.
//
// Collecting (workspace -> ReportData) and rendering (ReportData -> HTML)
// are separate so that the page can be tested from data alone.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_HARNESS_REPORT_H
#define TIRX_HARNESS_REPORT_H

#include "tirx/Harness/Session.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace tirx {

/// A peer implementation's time of the same task (torch, Triton, cuBLAS).
struct ReportPeer {
  std::string name;
  double ms = 0;
};

/// "NAME=MS" (MS a positive number of milliseconds), or a usage refusal.
llvm::Expected<ReportPeer> parsePeer(llvm::StringRef text);

struct ReportOptions {
  std::vector<ReportPeer> peers;
  /// The runner's device profile (`$XDG_CACHE_HOME/tirx/device-*.json`);
  /// empty: the copy bandwidth the feedback measured, the chip's datasheet
  /// for the rest.
  std::string deviceProfile;
};

/// One version and what its feedback says.
struct ReportVersion {
  VersionEntry entry;
  bool hasFeedback = false;
  std::string compileStatus, launchStatus, correctness, bottleneck;
  std::string problem; // why it failed: correctness detail, error, reason
  std::optional<double> durationUs;
  uint64_t bytes = 0, flops = 0;
  std::optional<bool> plausible;

  /// Timed, correct and plausible: a time that may be ranked.
  bool ranked() const;
  /// pass | fail | error | unmeasured (the colour of its node).
  std::string state() const;
};

/// The device's ceilings for the roofline.
struct ReportDevice {
  std::string name = "unknown", source = "none";
  double copyGBs = 0;        // GB/s
  double peakFp32Tflops = 0; // 0: unknown
  double peakTf32Tflops = 0; // 0: unknown
  double peakF16Tflops = 0;  // dense f16/bf16; 0: unknown
};

struct ReportKernel {
  std::string name;
  std::string ops;
  std::optional<double> durationUs;
  std::string status;
};

struct ReportRefusal {
  std::string time, command, version, code, message, hint, action;
};

struct ReportData {
  std::string task, target;
  std::vector<ReportVersion> versions; // in id order; versions[0] the seed
  ReportDevice device;
  std::vector<ReportPeer> peers;
  std::vector<ReportKernel> kernels; // from profile.json; empty: none
  std::vector<ReportRefusal> refusals; // the newest kMaxRefusals
  size_t refusalsOmitted = 0;

  /// The fastest ranked version (its index), if any.
  std::optional<size_t> best() const;
  /// The seed's time: the root's, if ranked.
  std::optional<double> seedUs() const;
  /// Indices from the root to `index`, root first.
  std::vector<size_t> pathTo(size_t index) const;
};

/// The refusals a report lists at most (the newest).
constexpr size_t kMaxRefusals = 200;

/// `text` with & < > " ' replaced by entities: safe in element content and
/// in quoted attributes of HTML and inline SVG.
std::string escapeHtml(llvm::StringRef text);

/// Reads the index, the feedback of every version, the audit log, the
/// device profile and profile.json. A damaged workspace is refused.
llvm::Expected<ReportData> collectReport(const Workspace &ws,
                                         const ReportOptions &options);

/// The page.
std::string renderReport(const ReportData &data);

/// The figures of the page as JSON: versions, measured, best, speed-ups.
llvm::json::Object reportSummary(const ReportData &data);

/// The report as a request (audited): text the HTML, data the summary.
llvm::Expected<Result> report(Session &session, const ReportOptions &options);

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_REPORT_H
