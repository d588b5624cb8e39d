//===- Measure.h - one candidate's checks and timing ------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Internal to lib/Runtime: the measurement procedure of a loaded candidate
// (input sets checked against the reference, input read-back, the ghost
// check, timed launches of which some are read back, the plausibility gate),
// written once over a DataPath that says where inputs, reference outputs and
// comparisons live: on the host for one-shot runs (Runner.cpp), on the
// device for the persistent worker (Worker.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_RUNTIME_MEASURE_H
#define TIRX_LIB_RUNTIME_MEASURE_H

#include "Cuda.h"

#include "tirx/Runtime/Check.h"
#include "tirx/Runtime/Feedback.h"
#include "tirx/Runtime/Runner.h"

namespace tirx {
namespace runtime {

class DataPath {
public:
  virtual ~DataPath() = default;
  /// The candidate's device buffers: one address per parameter (0 for
  /// scalars), then one per scratch buffer.
  virtual const std::vector<gpu::CUdeviceptr> &buffers() = 0;
  virtual bool hasReference() const = 0;
  /// The longest sum the reference's manifest declares (0 without one):
  /// the reference, made from the seed, knows it; the check's f32 slack
  /// grows with it (toleranceFor).
  virtual int64_t referenceTerms() const = 0;
  /// Puts the input set of `seed` into the candidate's buffers: `in` and
  /// `inout` random (as makeInputs), `out` and scratch poisoned.
  virtual void loadInputs(uint64_t seed) = 0;
  /// The loaded input set's scalar parameters (scalarValues of its seed).
  virtual const std::vector<double> &scalars() const = 0;
  /// After the candidate ran on those inputs: keeps its outputs, the "first"
  /// of later relaunch checks.
  virtual void keepOutputs() = 0;
  /// The `in` buffers now against what was loaded: the first change, or a
  /// passing comparison.
  virtual Comparison checkInputs() = 0;
  /// Makes the reference's outputs on the loaded inputs available.
  virtual void referenceOutputs() = 0;
  /// The ghost check on the loaded inputs (see checkIsBlind).
  virtual bool ghostBlind() = 0;
  /// The kept outputs of parameter `param` against the reference's.
  virtual Comparison compareKept(size_t param, const Tolerance &tol) = 0;
  /// Parameter `param` now against the kept outputs and, beyond them, the
  /// reference's (the kept ones without a reference).
  virtual RelaunchCheck compareNow(size_t param, const Tolerance &tol) = 0;
  /// A device copy of `inout` parameter `param` as loaded, which the timed
  /// launches restore it from.
  virtual gpu::CUdeviceptr pristine(size_t param) = 0;
  /// The reference's outputs (host images, per parameter; empty for `in`)
  /// on host-made `inputs` and `scalars`: the adversarial sets
  /// (Strict.cpp). Only with a reference.
  virtual std::vector<std::vector<uint8_t>>
  referenceOn(const std::vector<std::vector<uint8_t>> &inputs,
              const std::vector<double> &scalars) = 0;
};

/// Runs `bundle` (of manifest `m`) once on host images `inputs` in its
/// device buffers `at`: uploads them (`out` ones are poison), poisons the
/// scratch, launches, waits; returns the `out` and `inout` images.
std::vector<std::vector<uint8_t>>
runOnImages(gpu::LoadedBundle &bundle, const Manifest &m,
            const std::vector<gpu::CUdeviceptr> &at,
            const std::vector<std::vector<uint8_t>> &inputs,
            const std::vector<double> &scalars,
            const std::function<void(bool)> &busy);

/// The bytes of all of `m`'s buffer parameters.
uint64_t parameterBytes(const Manifest &m);

/// The adversarial sets of `candidate` against the reference (Strict.cpp):
/// each kind at the largest magnitude the reference keeps finite, judged
/// by the sensitivity rule (compareSensitive). Fills `f.adversarial`;
/// `fail(reason, detail)` on the first that fails. Leaves the candidate's
/// buffers holding the last set: the caller loads its inputs again.
void checkAdversarial(const RunOptions &options, const Manifest &candidate,
                      gpu::LoadedBundle &bundle, DataPath &data, Feedback &f,
                      int64_t &launches,
                      const std::function<void(const std::string &,
                                               const std::string &)> &fail);

/// Registers, shared memory, spills and occupancy of the first kernel;
/// throws CudaError when its block exceeds what the kernel allows.
void readResources(const gpu::LoadedBundle &bundle, const Manifest &candidate,
                   const DeviceProfile &profile, Feedback &f);

/// Checks and times `bundle` over `data` (throws CudaError).
void measureLoaded(const RunOptions &options, const Manifest &candidate,
                   gpu::LoadedBundle &bundle, DataPath &data,
                   const DeviceProfile &profile, Feedback &f);

/// A run that faulted proves nothing about correctness or speed.
void recordFault(const gpu::CudaError &e, Feedback &f);

} // namespace runtime
} // namespace tirx

#endif // TIRX_LIB_RUNTIME_MEASURE_H
