//===- Integer.h - A decimal integer read whole -----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// One definition of "this text is a base-10 integer" for everything that
// reads numbers from people or tools: tirx-run's flags and --size values,
// TIRX_RUN_THREADS, size expressions in a manifest, the counts in ptxas's
// and Nsight Compute's reports, tirx's integer options. std::stoll throws
// (out of a pass, or out of tirx-run); strtoll saturates on overflow and
// stops at the first other character, so each caller had to check errno
// and the end pointer itself.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_INTEGER_H
#define TIRX_RUNTIME_INTEGER_H

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace tirx {
namespace runtime {

/// `text` as a base-10 integer: all of it (leading white space and a sign
/// allowed, as strtoll takes them), within int64_t. nullopt for an empty
/// text, any character after the digits, or a value that does not fit.
inline std::optional<int64_t> parseInteger(const std::string &text) {
  const char *begin = text.c_str();
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(begin, &end, 10);
  if (errno || end == begin || *end || end != begin + text.size())
    return std::nullopt;
  return int64_t(v);
}

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_INTEGER_H
