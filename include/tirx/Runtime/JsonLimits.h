//===- JsonLimits.h - nesting checked before nlohmann parses ----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The runner parses JSON with nlohmann (no LLVM inside it), whose copies of
// a value recurse once per level: a request, feedback or manifest nested
// 200000 deep crashed the process that copied it. The text's nesting is
// measured first, without building anything.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_JSONLIMITS_H
#define TIRX_RUNTIME_JSONLIMITS_H

#include <string>

namespace tirx {
namespace runtime {

/// The deepest nesting that the runner's JSON inputs may have ("[[1]]" is
/// 2): the tirx::parseJSON default on the MLIR side.
constexpr unsigned kMaxJsonDepth = 64;

/// Whether `text` nests arrays and objects at most `maxDepth` deep (brackets
/// inside strings not counted); else `error` names the limit passed. Says
/// nothing of whether the text is valid JSON: the parser does that.
bool jsonDepthWithin(const std::string &text, std::string &error,
                     unsigned maxDepth = kMaxJsonDepth);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_JSONLIMITS_H
