//===- JSON.cpp - bounded JSON parsing --------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Support/JSON.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <string>

using namespace mlir;
using namespace mlir::tirx;

std::string mlir::tirx::checkJSONLimits(llvm::StringRef text,
                                        const JSONLimits &limits) {
  if (text.size() > limits.maxBytes)
    return "JSON text of " + std::to_string(text.size()) +
           " bytes is larger than the limit of " +
           std::to_string(limits.maxBytes) + " bytes";
  // One pass: depth counts the open arrays and objects outside strings. A
  // malformed text (an unmatched bracket, an unterminated string) is left
  // to llvm::json::parse, which reports it; this scan only has to make sure
  // that the parse stays shallow and its numbers finite.
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character, whatever it is, does not end the string
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
    case '"':
      inString = true;
      break;
    case '[':
    case '{':
      if (++depth > limits.maxDepth)
        return "JSON nested deeper than " + std::to_string(limits.maxDepth) +
               " levels at byte " + std::to_string(i);
      break;
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9': {
      // A number token (true, false and null hold no digits). llvm::json
      // reads one that is not an int64/uint64 with strtod: read it the same
      // way and refuse what would become inf.
      size_t end = i;
      while (end < n && llvm::StringRef("0123456789+-.eE").contains(text[end]))
        ++end;
      std::string token = text.slice(i, end).str();
      double value = std::strtod(token.c_str(), nullptr);
      if (std::isinf(value))
        return "JSON number " +
               (token.size() > 40 ? token.substr(0, 40) + "..." : token) +
               " at byte " + std::to_string(i) +
               " is outside the range of a double";
      i = end - 1;
      break;
    }
    default:
      break;
    }
  }
  return "";
}

llvm::Expected<llvm::json::Value>
mlir::tirx::parseJSON(llvm::StringRef text, const JSONLimits &limits) {
  std::string problem = checkJSONLimits(text, limits);
  if (!problem.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), problem);
  return llvm::json::parse(text);
}

std::string mlir::tirx::compactJSON(const llvm::json::Value &v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << v;
  return s;
}
