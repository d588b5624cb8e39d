//===- Refusal.h - a refusal, as data ---------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// One type for every "no" TIRx says: a transform's precondition, a
// verifier's parameter check, the policy, the workspace. It travels as data
// from where it is decided to the JSON an agent reads: the transform ops
// report it to a RefusalSink installed on their MLIRContext (besides the
// diagnostic a person at mlir-opt reads), the harness returns it inside an
// llvm::Error. Nothing parses it back from diagnostic text.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_SUPPORT_REFUSAL_H
#define TIRX_SUPPORT_REFUSAL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir {
class MLIRContext;

namespace tirx {

/// Every refusal code (RefusalCodes.def).
enum class RefusalCode : uint8_t {
#define TIRX_REFUSAL(NAME, KIND) NAME,
#include "tirx/Support/RefusalCodes.def"
};

/// What kind of "no" a code is.
enum class RefusalKind : uint8_t {
  Refused, // understood and declined
  Usage,   // malformed request
  Damaged, // the workspace is damaged
  Limit,   // a resource limit was hit: never remembered as a refusal
};

/// The code as agents see it ("not_divisible").
llvm::StringRef codeName(RefusalCode code);
/// The code named `name`, if there is one.
std::optional<RefusalCode> codeNamed(llvm::StringRef name);
RefusalKind kindOf(RefusalCode code);

/// A refusal: a stable code, a message, what would be accepted instead, the
/// payload op it concerns (an IR path such as "func @f / forall (block x) /
/// linalg.generic") and its location ("file:line:col"). `details` holds
/// what a request did before it was refused (e.g. the versions a recipe
/// made) and whether it was deduplicated.
struct Refusal {
  RefusalCode code = RefusalCode::internal;
  std::string message;
  std::string hint;
  std::string payloadOp;
  std::string location;
  llvm::json::Object details;

  Refusal() = default;
  Refusal(RefusalCode code, std::string message, std::string hint = "")
      : code(code), message(std::move(message)), hint(std::move(hint)) {}
  Refusal(const Refusal &other);
  Refusal &operator=(const Refusal &other);
  Refusal(Refusal &&) = default;
  Refusal &operator=(Refusal &&) = default;

  RefusalKind kind() const { return kindOf(code); }
  /// {code, message, hint?, payload_op?, location?}.
  llvm::json::Object toJSON() const;
  /// The inverse of toJSON (details are not part of it); nullopt when `v` is
  /// not a refusal with a known code.
  static std::optional<Refusal> fromJSON(const llvm::json::Value &v);
};

/// A Refusal inside an llvm::Error, for llvm::Expected results.
class RefusalError : public llvm::ErrorInfo<RefusalError> {
public:
  static char ID;
  explicit RefusalError(Refusal refusal) : refusal(std::move(refusal)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  const Refusal &get() const { return refusal; }
  Refusal &get() { return refusal; }

private:
  Refusal refusal;
};

/// An Error holding a refusal.
llvm::Error refuse(RefusalCode code, const llvm::Twine &message,
                   const llvm::Twine &hint = "");
llvm::Error refuse(Refusal refusal);
/// The refusal inside `error` (consumed); any other error becomes `internal`
/// with its message.
Refusal toRefusal(llvm::Error error);

/// Collects the refusals reported for one MLIRContext while it lives (one
/// sink per context at a time; sinks nest: the innermost collects).
class RefusalSink {
public:
  explicit RefusalSink(MLIRContext *context);
  ~RefusalSink();
  RefusalSink(const RefusalSink &) = delete;
  RefusalSink &operator=(const RefusalSink &) = delete;

  /// The first refusal reported, if any: the one that decided the outcome.
  const std::optional<Refusal> &first() const { return firstRefusal; }
  void clear() { firstRefusal.reset(); }

private:
  friend void reportRefusal(MLIRContext *, Refusal);
  MLIRContext *context;
  RefusalSink *previous;
  std::optional<Refusal> firstRefusal;
};

/// Hands `refusal` to the sink installed on `context`; without one it is
/// dropped (the caller emits the diagnostic people read either way).
void reportRefusal(MLIRContext *context, Refusal refusal);

} // namespace tirx
} // namespace mlir

#endif // TIRX_SUPPORT_REFUSAL_H
