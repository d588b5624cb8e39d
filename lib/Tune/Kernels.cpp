//===- Kernels.cpp - `tirx tune` of a profiled multi-op payload -*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Kernels.h"

#include "tirx/Runtime/Files.h"
#include "tirx/Support/JSON.h"
#include "tirx/Support/Refusal.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;

std::vector<RankedKernel>
mlir::tirx::rankKernels(const json::Object &profile) {
  std::vector<RankedKernel> out;
  if (const json::Array *list = profile.getArray("kernels"))
    for (const json::Value &v : *list) {
      const json::Object *k = v.getAsObject();
      if (!k || !k->getString("name"))
        continue;
      RankedKernel r;
      r.name = k->getString("name")->str();
      r.status = k->getString("status").value_or("").str();
      if (auto us = k->getNumber("duration_us"); us && *us > 0)
        r.profileUs = *us;
      out.push_back(std::move(r));
    }
  std::stable_sort(out.begin(), out.end(),
                   [](const RankedKernel &a, const RankedKernel &b) {
                     return a.profileUs.value_or(-1) > b.profileUs.value_or(-1);
                   });
  // Shares of the timed total; a kernel without a time among timed ones
  // (its check failed) has none; a profile with no times at all (compile
  // only) shares equally.
  double total = 0;
  for (const RankedKernel &k : out)
    total += k.profileUs.value_or(0);
  for (RankedKernel &k : out)
    k.share = total > 0 ? k.profileUs.value_or(0) / total
                        : 1.0 / double(out.size());
  return out;
}

std::vector<double> mlir::tirx::splitBudget(const std::vector<RankedKernel> &ranked,
                                            double budget, double least) {
  std::vector<double> out;
  double left = budget, sharesLeft = 0;
  for (const RankedKernel &k : ranked)
    sharesLeft += k.share;
  for (const RankedKernel &k : ranked) {
    double mine = sharesLeft > 0 ? left * k.share / sharesLeft : left;
    mine = std::max(least, mine);
    out.push_back(mine);
    left = std::max(0.0, left - mine);
    sharesLeft -= k.share;
  }
  return out;
}

std::vector<unsigned>
mlir::tirx::splitCandidates(const std::vector<RankedKernel> &ranked,
                            unsigned budget) {
  std::vector<unsigned> out;
  std::vector<double> shares = splitBudget(ranked, double(budget), 1.0);
  double sum = 0;
  long long taken = 0, total = budget, n = (long long)shares.size();
  for (long long i = 0; i < n; ++i) {
    sum += shares[i];
    // What the kernels after this one need (one each) is kept for them:
    // splitBudget's floor of one may have lifted late shares past what
    // the earlier ones left.
    long long most = total - taken - (n - i - 1);
    long long mine = std::max(1LL, std::min(std::llround(sum) - taken, most));
    out.push_back(unsigned(mine));
    taken += mine;
  }
  return out;
}

namespace {
std::optional<double> fullUs(const json::Object *candidate) {
  const json::Object *full = candidate ? candidate->getObject("full") : nullptr;
  if (!full || full->getString("correctness") != "pass")
    return std::nullopt;
  auto us = full->getNumber("median_us");
  return us && *us > 0 ? us : std::nullopt;
}

std::string fmtUs(std::optional<double> us) {
  return us ? llvm::formatv("{0:f1} us", *us).str() : std::string("-");
}
} // namespace

llvm::Expected<Result> mlir::tirx::tuneKernels(Session &session,
                                               WorkspaceTuneOptions options,
                                               Identity who) {
  const Workspace &ws = session.workspace();
  std::string path = ws.path("profile.json");
  std::string text, error;
  if (!llvm::sys::fs::exists(path))
    return refuse(RefusalCode::not_found,
                  ws.dir() + " has no profile.json: not a profiled payload",
                  "tirx profile PAYLOAD.mlir --workspace " + ws.dir() +
                      " first (on a GPU host, to rank its kernels by time)");
  if (!rt::readFile(path, text, error))
    return refuse(RefusalCode::io_error, error);
  llvm::Expected<json::Value> parsed = parseJSON(text);
  if (!parsed)
    return refuse(RefusalCode::bad_json,
                  path + ": " + llvm::toString(parsed.takeError()));
  const json::Object *profile = parsed->getAsObject();
  if (!profile || profile->getString("format") != "tirx-profile")
    return refuse(RefusalCode::bad_json, path + " is not a tirx profile");
  std::vector<RankedKernel> ranked = rankKernels(*profile);
  if (ranked.empty())
    return refuse(RefusalCode::not_applicable, path + " lists no kernel");
  // Kernels the profile could not schedule are not tuned (their shares go
  // to the others).
  std::vector<RankedKernel> tunable;
  for (const RankedKernel &k : ranked)
    if (k.status == "scheduled" || k.status == "timed")
      tunable.push_back(k);
  double total = 0;
  for (const RankedKernel &k : tunable)
    total += k.share;
  for (RankedKernel &k : tunable)
    k.share = total > 0 ? k.share / total : 1.0 / double(tunable.size());

  TuneOptions base = options.search;
  auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         started)
        .count();
  };
  std::vector<unsigned> candidates = splitCandidates(tunable, base.budget);
  json::Array rows;
  std::optional<double> before = 0.0, after = 0.0;
  unsigned evaluated = 0;
  std::string table = llvm::formatv("{0,-4} {1,-16} {2,6} {3,-12} {4,-12} "
                                    "{5,-12} {6,-6} {7}\n",
                                    "rank", "kernel", "share", "profile",
                                    "auto", "best", "cands", "best version")
                          .str();
  for (size_t i = 0; i < tunable.size(); ++i) {
    const RankedKernel &k = tunable[i];
    WorkspaceTuneOptions mine = options;
    mine.search.budget = candidates[i];
    if (base.seconds > 0) {
      // What is left of the time, by this kernel's share of the shares
      // left (a kernel that stops early leaves its time to the colder).
      double sharesLeft = 0;
      for (size_t j = i; j < tunable.size(); ++j)
        sharesLeft += tunable[j].share;
      double left = std::max(0.0, base.seconds - elapsed());
      mine.search.seconds =
          std::max(1.0, sharesLeft > 0 ? left * k.share / sharesLeft : left);
    }
    json::Object row{{"rank", int64_t(i + 1)},
                     {"kernel", k.name},
                     {"share", k.share},
                     {"workspace", "kernels/" + k.name},
                     {"budget", int64_t(mine.search.budget)},
                     {"seconds", mine.search.seconds}};
    row["profile_us"] = k.profileUs ? json::Value(*k.profileUs) : json::Value(nullptr);
    if (options.jsonLines) {
      json::Object e{{"event", "kernel"}};
      for (const auto &[key, value] : row)
        e[key] = value;
      *options.jsonLines << compactJSON(json::Value(std::move(e))) << "\n";
      options.jsonLines->flush();
    }
    // The name comes from profile.json: a plain file name, never a path
    // out of the workspace.
    llvm::Expected<Session> s =
        k.name.empty() || k.name.find_first_of("/\\") != std::string::npos ||
                k.name == "." || k.name == ".."
            ? llvm::Expected<Session>(refuse(
                  RefusalCode::workspace_damaged,
                  "profile.json: kernel name '" + k.name +
                      "' is not a plain name (no '/', not '.' or '..')"))
            : Session::open(ws.path("kernels/" + k.name), who);
    if (!s) {
      Refusal r = toRefusal(s.takeError());
      row["error"] = r.toJSON();
      before = after = std::nullopt;
      rows.push_back(std::move(row));
      continue;
    }
    s->limits() = session.limits();
    llvm::Expected<Result> tuned = tuneWorkspace(*s, "v1", mine);
    if (!tuned) {
      Refusal r = toRefusal(tuned.takeError());
      if (r.kind() != RefusalKind::Refused || r.code == RefusalCode::no_device ||
          r.code == RefusalCode::no_runner)
        return refuse(std::move(r)); // no GPU, damage: nothing else would go
      row["error"] = r.toJSON();
      before = after = std::nullopt;
      rows.push_back(std::move(row));
      continue;
    }
    const json::Object &report = tuned->data;
    evaluated += unsigned(report.getInteger("candidates").value_or(0));
    std::optional<double> autoUs = fullUs(report.getObject("baseline"));
    std::optional<double> bestUs = fullUs(report.getObject("best"));
    if (!autoUs)
      autoUs = k.profileUs;
    if (!bestUs)
      bestUs = autoUs;
    if (before && autoUs)
      *before += *autoUs;
    else
      before.reset();
    if (after && bestUs)
      *after += *bestUs;
    else
      after.reset();
    std::string bestVersion =
        report.getObject("best")
            ? report.getObject("best")->getString("version").value_or("").str()
            : "";
    row["candidates"] = report.getInteger("candidates").value_or(0);
    row["auto_us"] = autoUs ? json::Value(*autoUs) : json::Value(nullptr);
    row["best_us"] = bestUs ? json::Value(*bestUs) : json::Value(nullptr);
    row["best_version"] = bestVersion;
    if (const json::Object *vs = report.getObject("speedup_vs_baseline"))
      row["speedup_vs_auto"] = json::Object(*vs);
    row["summary"] = report.getString("summary").value_or("").str();
    row["state"] = report.getString("state").value_or("").str();
    table += llvm::formatv("{0,-4} {1,-16} {2,5:f1}% {3,-12} {4,-12} {5,-12} "
                           "{6,-6} {7}\n",
                           i + 1, k.name, 100 * k.share, fmtUs(k.profileUs),
                           fmtUs(autoUs), fmtUs(bestUs),
                           report.getInteger("candidates").value_or(0),
                           bestVersion.empty() ? "-" : bestVersion)
                 .str();
    rows.push_back(std::move(row));
    if (tuneInterrupted()) // the signal stops the block's tune, not one kernel's
      break;
  }
  json::Array skipped;
  for (const RankedKernel &k : ranked)
    if (k.status != "scheduled" && k.status != "timed") {
      skipped.push_back(json::Object{{"kernel", k.name}, {"status", k.status}});
      before = after = std::nullopt; // the block's time is not known whole
      table += "     " + k.name + ": not tuned (" + k.status + " in the profile)\n";
    }
  bool timed = !options.search.compileOnly && before && after && *before > 0;
  json::Object out{{"kernels", std::move(rows)},
                   {"not_tuned", std::move(skipped)},
                   {"order", profile->getNumber("total_us") ? "time share"
                                                            : "program order"},
                   {"candidates", int64_t(evaluated)},
                   {"seconds", elapsed()},
                   {"compile_only", options.search.compileOnly},
                   {"interrupted", tuneInterrupted()}};
  out["block_auto_us"] = timed ? json::Value(*before) : json::Value(nullptr);
  out["block_best_us"] = timed ? json::Value(*after) : json::Value(nullptr);
  out["block_speedup"] = timed && *after > 0 ? json::Value(*before / *after)
                                             : json::Value(nullptr);
  Result result;
  result.text = table;
  if (timed)
    result.text += llvm::formatv("block: {0:f1} us with the automatic "
                                 "schedules, {1:f1} us tuned ({2:f3}x), sum "
                                 "of the kernels' full timings\n",
                                 *before, *after, *before / *after)
                       .str();
  else if (options.search.compileOnly)
    result.text += "compile only: the kernels explored and lowered, none "
                   "timed (order: " +
                   std::string(*out.getString("order")) + ")\n";
  result.data = std::move(out);
  return result;
}
