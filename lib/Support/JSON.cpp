//===- JSON.cpp - bounded JSON parsing --------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Support/JSON.h"

#include "llvm/ADT/StringExtras.h"
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

llvm::json::Value mlir::tirx::finiteOrNull(double x) {
  if (std::isfinite(x))
    return x;
  return nullptr;
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

namespace {
size_t skipSpace(llvm::StringRef text, size_t i) {
  while (i < text.size() && llvm::StringRef(" \t\r\n").contains(text[i]))
    ++i;
  return i;
}

/// The end of the string starting at `i` (a '"'), or npos.
size_t skipString(llvm::StringRef text, size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return i + 1;
  }
  return llvm::StringRef::npos;
}

/// The end of the value starting at `i` (strings, brackets and scalars,
/// not validated: the parser does that), or npos.
size_t skipValue(llvm::StringRef text, size_t i) {
  if (i >= text.size())
    return llvm::StringRef::npos;
  if (text[i] == '"')
    return skipString(text, i);
  if (text[i] != '[' && text[i] != '{') {
    while (i < text.size() && !llvm::StringRef(",]} \t\r\n").contains(text[i]))
      ++i;
    return i;
  }
  size_t depth = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      i = skipString(text, i);
      if (i == llvm::StringRef::npos)
        return i;
      --i;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && --depth == 0) {
      return i + 1;
    }
  }
  return llvm::StringRef::npos;
}

/// A JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool isNumberToken(llvm::StringRef t) {
  size_t i = 0, n = t.size();
  auto digits = [&] {
    size_t start = i;
    while (i < n && llvm::isDigit(t[i]))
      ++i;
    return i > start;
  };
  if (i < n && t[i] == '-')
    ++i;
  if (i < n && t[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < n && t[i] == '.' && (++i, !digits()))
    return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-'))
      ++i;
    if (!digits())
      return false;
  }
  return i == n;
}
} // namespace

std::optional<std::pair<size_t, size_t>>
mlir::tirx::numberMember(llvm::StringRef text, llvm::StringRef key) {
  constexpr size_t npos = llvm::StringRef::npos;
  size_t i = skipSpace(text, 0);
  if (i >= text.size() || text[i] != '{')
    return std::nullopt;
  std::optional<std::pair<size_t, size_t>> found;
  for (i = skipSpace(text, i + 1); i < text.size() && text[i] == '"';) {
    size_t keyEnd = skipString(text, i);
    if (keyEnd == npos)
      return std::nullopt;
    llvm::StringRef name = text.slice(i + 1, keyEnd - 1);
    i = skipSpace(text, keyEnd);
    if (i >= text.size() || text[i] != ':')
      return std::nullopt;
    size_t begin = skipSpace(text, i + 1), end = skipValue(text, begin);
    if (end == npos)
      return std::nullopt;
    // The last member of a name is the one a parser keeps.
    if (name == key)
      found = isNumberToken(text.slice(begin, end))
                  ? std::optional(std::make_pair(begin, end))
                  : std::nullopt;
    i = skipSpace(text, end);
    if (i < text.size() && text[i] == ',')
      i = skipSpace(text, i + 1);
  }
  return found;
}
