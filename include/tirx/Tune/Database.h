//===- Database.h - the tuning database -------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// What tuning learned, as JSON lines (like TVM's tuning records): the
// workload (op kinds, shapes, element types, target), the schedule as
// actions, the median time and the correctness, and a fingerprint of where
// it was measured. Figures from different fingerprints are never compared
// as if they were one machine's. Appends are atomic lines under flock(2),
// so concurrent tuners can share one file; a damaged line is skipped and
// reported, never used.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TUNE_DATABASE_H
#define TIRX_TUNE_DATABASE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
namespace tirx {

/// What a schedule is for: the ops of a payload, their operand shapes and
/// element types, and the target chip. `signature` identifies this exact
/// workload; `family` the same ops and types at any shape (another size of
/// the same op starts from its family's best schedules).
struct Workload {
  std::vector<std::string> ops;                // "linalg.generic", ...
  std::vector<std::vector<int64_t>> shapes;    // per operand (-1: dynamic)
  std::vector<std::string> elementTypes;       // per operand
  std::vector<std::string> iterators;          // per op: "pp", "pr", ...
  std::string target;

  std::string signature() const;
  std::string family() const;
  llvm::json::Object toJSON() const;
  static std::optional<Workload> fromJSON(const llvm::json::Value &v);
};

/// The workload of a payload (its linalg ops, in program order).
Workload workloadOf(ModuleOp module, llvm::StringRef target);

/// Where a figure was measured. Two figures are comparable only when their
/// fingerprints' keys agree.
struct Fingerprint {
  std::string gpu, uuid, driver, cuda, tirx, lowering;
  int smCount = 0;
  double clockGHz = 0;

  /// The part that must agree: device model and identity, driver, CUDA,
  /// TIRx and lowering options.
  std::string key() const;
  llvm::json::Object toJSON() const;
  static Fingerprint fromJSON(const llvm::json::Object &o);
};

/// One tuning record.
struct TuningRecord {
  static constexpr int kSchema = 1;
  Workload workload;
  llvm::json::Array schedule; // actions
  double medianUs = 0;
  int64_t samples = 0;
  std::string correctness; // pass | fail | not_checked
  Fingerprint where;
  std::string time;

  TuningRecord() = default;
  TuningRecord(const TuningRecord &other);
  TuningRecord &operator=(const TuningRecord &other);
  TuningRecord(TuningRecord &&) = default;
  TuningRecord &operator=(TuningRecord &&) = default;

  llvm::json::Object toJSON() const;
  static std::optional<TuningRecord> fromJSON(const llvm::json::Value &v);
};

class TuningDatabase {
public:
  explicit TuningDatabase(std::string path) : file(std::move(path)) {}
  const std::string &path() const { return file; }

  /// Appends one record as one line, under an exclusive flock.
  llvm::Error append(const TuningRecord &record) const;
  /// Every readable record; `skipped` gets "line N: why" for the others.
  std::vector<TuningRecord> read(std::vector<std::string> *skipped = nullptr) const;

  /// The fastest correct schedules measured on `where` for `workload`, best
  /// first, at most `limit`, distinct schedules; when none is known for the
  /// exact workload, those of its family (other shapes of the same ops).
  std::vector<TuningRecord> best(const Workload &workload,
                                 const Fingerprint &where,
                                 size_t limit = 5) const;

private:
  std::string file;
};

} // namespace tirx
} // namespace mlir

#endif // TIRX_TUNE_DATABASE_H
