//===- Refusal.cpp - a refusal, as data -------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Support/Refusal.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <unordered_map>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
struct CodeInfo {
  const char *name;
  RefusalKind kind;
};
const CodeInfo kCodes[] = {
#define TIRX_REFUSAL(NAME, KIND) {#NAME, RefusalKind::KIND},
#include "tirx/Support/RefusalCodes.def"
};
} // namespace

llvm::StringRef mlir::tirx::codeName(RefusalCode code) {
  return kCodes[static_cast<size_t>(code)].name;
}

RefusalKind mlir::tirx::kindOf(RefusalCode code) {
  return kCodes[static_cast<size_t>(code)].kind;
}

std::optional<RefusalCode> mlir::tirx::codeNamed(llvm::StringRef name) {
  static const llvm::StringMap<RefusalCode> byName = [] {
    llvm::StringMap<RefusalCode> map;
    for (size_t i = 0; i < std::size(kCodes); ++i)
      map[kCodes[i].name] = static_cast<RefusalCode>(i);
    return map;
  }();
  auto it = byName.find(name);
  if (it == byName.end())
    return std::nullopt;
  return it->second;
}

Refusal::Refusal(const Refusal &other)
    : code(other.code), message(other.message), hint(other.hint),
      payloadOp(other.payloadOp), location(other.location),
      details(json::Object(other.details)) {}

Refusal &Refusal::operator=(const Refusal &other) {
  if (this != &other) {
    Refusal copy(other);
    *this = std::move(copy);
  }
  return *this;
}

json::Object Refusal::toJSON() const {
  json::Object o{{"code", codeName(code)}, {"message", message}};
  if (!hint.empty())
    o["hint"] = hint;
  if (!payloadOp.empty())
    o["payload_op"] = payloadOp;
  if (!location.empty())
    o["location"] = location;
  return o;
}

std::optional<Refusal> Refusal::fromJSON(const json::Value &v) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return std::nullopt;
  auto name = o->getString("code");
  std::optional<RefusalCode> code = name ? codeNamed(*name) : std::nullopt;
  if (!code)
    return std::nullopt;
  Refusal r(*code, o->getString("message").value_or("").str(),
            o->getString("hint").value_or("").str());
  r.payloadOp = o->getString("payload_op").value_or("").str();
  r.location = o->getString("location").value_or("").str();
  return r;
}

char RefusalError::ID = 0;

void RefusalError::log(llvm::raw_ostream &os) const {
  os << codeName(refusal.code) << ": " << refusal.message;
}

std::error_code RefusalError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error mlir::tirx::refuse(RefusalCode code, const llvm::Twine &message,
                               const llvm::Twine &hint) {
  return llvm::make_error<RefusalError>(
      Refusal(code, message.str(), hint.str()));
}

llvm::Error mlir::tirx::refuse(Refusal refusal) {
  return llvm::make_error<RefusalError>(std::move(refusal));
}

Refusal mlir::tirx::toRefusal(llvm::Error error) {
  Refusal out;
  llvm::handleAllErrors(
      std::move(error), [&](RefusalError &r) { out = std::move(r.get()); },
      [&](llvm::ErrorInfoBase &other) {
        out = Refusal(RefusalCode::internal, other.message());
      });
  return out;
}

//===----------------------------------------------------------------------===//
// RefusalSink
//===----------------------------------------------------------------------===//

namespace {
/// The innermost sink of each context. Contexts are few and sinks live for
/// one request, so a map under a mutex is enough.
std::mutex sinksMutex;
std::unordered_map<MLIRContext *, RefusalSink *> &sinks() {
  static std::unordered_map<MLIRContext *, RefusalSink *> map;
  return map;
}
} // namespace

RefusalSink::RefusalSink(MLIRContext *context) : context(context) {
  std::lock_guard<std::mutex> guard(sinksMutex);
  RefusalSink *&slot = sinks()[context];
  previous = slot;
  slot = this;
}

RefusalSink::~RefusalSink() {
  std::lock_guard<std::mutex> guard(sinksMutex);
  if (previous)
    sinks()[context] = previous;
  else
    sinks().erase(context);
}

void mlir::tirx::reportRefusal(MLIRContext *context, Refusal refusal) {
  std::lock_guard<std::mutex> guard(sinksMutex);
  auto it = sinks().find(context);
  if (it == sinks().end() || it->second->firstRefusal)
    return;
  it->second->firstRefusal = std::move(refusal);
}
