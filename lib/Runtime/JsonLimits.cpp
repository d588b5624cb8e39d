//===- JsonLimits.cpp - nesting checked before nlohmann parses --*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/JsonLimits.h"

namespace tirx {
namespace runtime {

bool jsonDepthWithin(const std::string &text, std::string &error,
                     unsigned maxDepth) {
  unsigned depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth) {
        error = "JSON nested more than " + std::to_string(maxDepth) +
                " levels deep";
        return false;
      }
    } else if ((c == ']' || c == '}') && depth) {
      --depth;
    }
  }
  return true;
}

} // namespace runtime
} // namespace tirx
