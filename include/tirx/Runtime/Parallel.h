//===- Parallel.h - the runner's host loops over fixed chunks ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The one-shot runner makes its inputs and compares its outputs on the host
// (Check.h). Those loops run over chunks of kHostChunk elements, on up to
// hostThreads() threads; each chunk's result lands in its own slot and the
// slots are combined in chunk order, on the calling thread. So the outcome
// (the first bad element, the largest error, the relative L2 error to the
// last bit, the inputs byte for byte) does not depend on the thread count,
// and a buffer of at most one chunk gives what a plain sequential loop does.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_PARALLEL_H
#define TIRX_RUNTIME_PARALLEL_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tirx {
namespace runtime {

/// Elements per chunk: fixed, whatever the thread count (a multiple of
/// kSensitivityBlock, so that no block of Check.h straddles two chunks).
constexpr size_t kHostChunk = size_t(1) << 16;

/// The most threads TIRX_RUN_THREADS may ask for.
constexpr unsigned kMaxHostThreads = 1024;

/// The threads of the host loops: setHostThreads' count when one is set,
/// else TIRX_RUN_THREADS when it holds a valid count (1: every loop on the
/// calling thread), else the hardware's threads, at most 16.
unsigned hostThreads();

/// "" when TIRX_RUN_THREADS is unset or an integer in [1, kMaxHostThreads];
/// else why not ("TIRX_RUN_THREADS expects ..."). tirx-run refuses to start
/// on a bad value; hostThreads() ignores one.
std::string checkHostThreadsVariable();

/// Overrides the count for this process (tests compare thread counts);
/// 0 goes back to TIRX_RUN_THREADS or the default.
void setHostThreads(unsigned threads);

/// How many chunks cover `n` elements.
inline size_t chunkCount(size_t n) {
  return (n + kHostChunk - 1) / kHostChunk;
}

/// Runs work(c) once for every c in [0, chunks), on up to hostThreads()
/// threads (the calling one among them), in no particular order; returns
/// when all are done. An exception thrown by one is rethrown here after the
/// others stopped. Fewer threads, not failure, when the system refuses one.
void forEachChunk(size_t chunks, const std::function<void(size_t)> &work);

/// work(begin, end) over the chunks of [0, n).
template <typename Work> void parallelChunks(size_t n, Work &&work) {
  forEachChunk(chunkCount(n), [&](size_t c) {
    size_t begin = c * kHostChunk;
    work(begin, std::min(n, begin + kHostChunk));
  });
}

/// part(begin, end) over the chunks of [0, n), its results in chunk order
/// (for the caller to combine in that order).
template <typename Part, typename Work>
std::vector<Part> mapChunks(size_t n, Work &&part) {
  std::vector<Part> parts(chunkCount(n));
  forEachChunk(parts.size(), [&](size_t c) {
    size_t begin = c * kHostChunk;
    parts[c] = part(begin, std::min(n, begin + kHostChunk));
  });
  return parts;
}

/// The first index that first(begin, end) finds in its chunk of [0, n)
/// (-1 when it finds none), lowest over the chunks; -1 when none does.
template <typename First> int64_t firstInChunks(size_t n, First &&first) {
  for (int64_t hit : mapChunks<int64_t>(n, std::forward<First>(first)))
    if (hit >= 0)
      return hit;
  return -1;
}

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_PARALLEL_H
