//===- JSON.h - bounded JSON parsing ----------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// llvm::json::parse recurses once per nesting level, so a line of 100000
// '[' overflows the stack (exit 139) before it can report anything, and it
// turns a number outside the range of a double (1e400) into inf, which
// llvm::json then prints as the non-JSON `inf`. parseJSON checks the text
// first with a linear scan that counts nesting outside strings (escapes
// included) and reads every number, then parses it: deep, huge or
// out-of-range input is a clear error, never a crash or non-JSON output.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_SUPPORT_JSON_H
#define TIRX_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstddef>
#include <optional>
#include <utility>

namespace mlir {
namespace tirx {

/// What parseJSON accepts.
struct JSONLimits {
  /// Arrays and objects nested at most this deep ("[[1]]" is 2).
  unsigned maxDepth = 64;
  /// The text's size in bytes.
  size_t maxBytes = size_t(8) << 20;
};

/// Parses `text` as JSON after checking it against `limits`. Errors:
///   "JSON text of N bytes is larger than the limit of M bytes"
///   "JSON nested deeper than 64 levels at byte N"
///   "JSON number 1e400 at byte N is outside the range of a double"
/// and llvm::json's own syntax errors ("[1:5, byte=4]: Expected ...").
/// Byte offsets count from 0.
llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef text,
                                            const JSONLimits &limits = {});

/// The check alone (no llvm::json::parse): an empty string when `text` is
/// within `limits`, else the error parseJSON would give.
std::string checkJSONLimits(llvm::StringRef text,
                            const JSONLimits &limits = {});

/// `x` as a JSON number, or null when it is not finite: JSON has no
/// infinity or NaN, and llvm::json would print `inf` or `nan`, which no
/// JSON reader takes (an interval of one pair is unbounded: [0, inf]).
llvm::json::Value finiteOrNull(double x);

/// `v` as compact JSON text (object keys sorted, as llvm::json prints).
std::string compactJSON(const llvm::json::Value &v);
/// Where the value of the top-level member `key` of the object `text` lies,
/// as [begin, end) byte offsets, when that value is a JSON number token:
/// JSON-RPC answers must echo a request's id exactly, and a number such as
/// 12345678901234567890123 or 1e400 does not survive a round trip through
/// a double. nullopt when `text` is not an object or has no such number.
std::optional<std::pair<size_t, size_t>> numberMember(llvm::StringRef text,
                                                      llvm::StringRef key);

} // namespace tirx
} // namespace mlir

#endif // TIRX_SUPPORT_JSON_H
