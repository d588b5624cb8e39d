//===- Strict.cpp - adversarial input sets ----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Besides random inputs, each candidate meets inputs made to break it:
// large magnitudes, values that cancel, subnormals (Check.h). The tolerance
// follows the reference's own sensitivity: the reference runs on the set
// and on the set moved by one ulp (all up; in random directions), and an
// output may differ from the reference's by kSensitivityFactor times what
// those moves changed it by (docs/correctness.md).
//
//===----------------------------------------------------------------------===//

#include "Measure.h"

#include <cmath>
#include <sstream>

namespace tirx {
namespace runtime {

using namespace gpu;

std::vector<std::vector<uint8_t>>
runOnImages(LoadedBundle &bundle, const Manifest &m,
            const std::vector<CUdeviceptr> &at,
            const std::vector<std::vector<uint8_t>> &inputs,
            const std::vector<double> &scalars,
            const std::function<void(bool)> &busy) {
  for (size_t i = 0; i < m.params.size(); ++i)
    if (m.params[i].isBuffer && at[i])
      CU(cuMemcpyHtoD(at[i], inputs[i].data(), inputs[i].size()));
  poisonScratch(m, at);
  bundle.launch(at, scalars);
  synchronize(busy);
  std::vector<std::vector<uint8_t>> out(m.params.size());
  for (size_t i = 0; i < m.params.size(); ++i) {
    const Param &p = m.params[i];
    if (!p.isBuffer || p.role == Role::in)
      continue;
    out[i].resize(p.bytes);
    CU(cuMemcpyDtoH(out[i].data(), at[i], p.bytes));
  }
  return out;
}

namespace {
/// "" when every output element is a finite number, else the first that
/// is not.
std::string describeNonFinite(const Manifest &m,
                              const std::vector<std::vector<uint8_t>> &out) {
  for (size_t i = 0; i < m.params.size(); ++i) {
    const Param &p = m.params[i];
    if (!p.isBuffer || p.role == Role::in || !isFloatType(p.type))
      continue;
    int64_t e = firstNonFinite(out[i], p.type);
    if (e >= 0) {
      std::ostringstream os;
      os << p.name << "[" << e
         << "] = " << elementAt(out[i], p.type, size_t(e));
      return os.str();
    }
  }
  return "";
}
} // namespace

uint64_t parameterBytes(const Manifest &m) {
  uint64_t total = 0;
  for (const Param &p : m.params)
    if (p.isBuffer)
      total += p.bytes;
  return total;
}

void checkAdversarial(const RunOptions &options, const Manifest &candidate,
                      LoadedBundle &bundle, DataPath &data, Feedback &f,
                      int64_t &launches,
                      const std::function<void(const std::string &,
                                               const std::string &)> &fail) {
  auto skipAll = [&](const std::string &why) {
    for (InputKind kind : adversarialKinds())
      f.adversarial.push_back({inputKindName(kind), "skipped", -1, 0,
                               std::nullopt, why});
  };
  if (options.adversarial == "off")
    return;
  if (!data.hasReference())
    return skipAll("no reference to compare with");
  uint64_t bytes = parameterBytes(candidate);
  if (options.adversarial == "auto" && bytes > options.adversarialMaxBytes)
    return skipAll("the parameters take " + std::to_string(bytes >> 20) +
                   " MiB, above the " +
                   std::to_string(options.adversarialMaxBytes >> 20) +
                   " MiB of --adversarial auto (--adversarial on forces it)");
  const Param *firstFloat = nullptr;
  for (const Param &p : candidate.params)
    if (p.isBuffer && p.role != Role::out && isFloatType(p.type) && !firstFloat)
      firstFloat = &p;
  if (!firstFloat)
    return skipAll("no float input buffer");

  for (size_t k = 0; k < adversarialKinds().size(); ++k) {
    InputKind kind = adversarialKinds()[k];
    // Seeds apart from the random sets' (seed, seed + 1, ...).
    uint64_t seed = options.seed + 1000003ull * (k + 1);
    std::vector<double> scalars = scalarValues(candidate, seed);
    AdversarialCheck check{inputKindName(kind), "skipped", -1, 0,
                           std::nullopt, ""};
    for (int level = 0; level < adversarialLevels(kind); ++level) {
      std::vector<std::vector<uint8_t>> inputs =
          makeAdversarialInputs(candidate, kind, level, seed);
      std::vector<std::vector<uint8_t>> want =
          data.referenceOn(inputs, scalars);
      std::string bad = describeNonFinite(candidate, want);
      if (bad.empty()) {
        // The reference's sensitivity: every input one ulp up, and each in
        // a random direction.
        for (uint64_t direction : {uint64_t(0), seed | 1}) {
          std::vector<std::vector<uint8_t>> moved = inputs;
          for (size_t i = 0; i < candidate.params.size(); ++i) {
            const Param &p = candidate.params[i];
            if (p.isBuffer && p.role != Role::out)
              perturbUlps(moved[i], p.type,
                          sensitivityUlps(p.type, candidate.math),
                          direction + i);
          }
          std::vector<std::vector<uint8_t>> out =
              data.referenceOn(moved, scalars);
          if (bad.empty())
            bad = describeNonFinite(candidate, out);
          for (size_t i = 0; i < candidate.params.size(); ++i)
            if (!out[i].empty())
              want.push_back(std::move(out[i]));
        }
      }
      if (!bad.empty()) {
        check.detail = "the reference's outputs are not finite at any "
                       "magnitude tried (at the smallest: " + bad + ")";
        continue;
      }
      // want: the reference's outputs by parameter, then the two moved
      // runs' `out`/`inout` images in parameter order.
      std::vector<size_t> outs;
      for (size_t i = 0; i < candidate.params.size(); ++i)
        if (candidate.params[i].isBuffer && candidate.params[i].role != Role::in)
          outs.push_back(i);
      std::vector<std::vector<uint8_t>> got = runOnImages(
          bundle, candidate, data.buffers(), inputs, scalars, options.busy);
      f.checkedLaunches.push_back(++launches);
      check.status = "pass";
      check.level = level;
      check.scale = adversarialScale(kind, level, firstFloat->type);
      check.detail.clear();
      double worst = 0;
      size_t base = candidate.params.size();
      for (size_t o = 0; o < outs.size(); ++o) {
        size_t i = outs[o];
        const Param &p = candidate.params[i];
        std::vector<double> delta = referenceSensitivity(
            p.type, want[i], {want[base + o], want[base + outs.size() + o]});
        Comparison c = compareSensitive(p.name, p.type, got[i], want[i], delta,
                                        candidate.math, data.hasReference()
                                            ? data.referenceTerms()
                                            : candidate.reductionLength);
        worst = std::max(worst, c.maxAbsError);
        if (!c.pass && check.status == "pass") {
          check.status = "fail";
          std::ostringstream os;
          os << c.detail << " (adversarial inputs '" << check.kind
             << "' at scale " << check.scale << ", seed " << seed << ")";
          check.detail = os.str();
        }
      }
      check.maxAbsError = worst;
      break;
    }
    f.adversarial.push_back(check);
    if (check.status == "fail")
      fail("adversarial", check.detail);
  }
}

} // namespace runtime
} // namespace tirx
