//===- Parallel.cpp - the runner's host loops over fixed chunks -*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Parallel.h"
#include "tirx/Runtime/Integer.h"

#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace tirx {
namespace runtime {

namespace {
std::atomic<unsigned> overridden{0};

/// TIRX_RUN_THREADS's count, 0 when unset or not valid.
unsigned fromVariable(std::string *error) {
  const char *text = std::getenv("TIRX_RUN_THREADS");
  if (!text)
    return 0;
  std::optional<int64_t> v = parseInteger(text);
  if (!v || *v < 1 || *v > kMaxHostThreads) {
    if (error)
      *error = "TIRX_RUN_THREADS expects an integer in [1, " +
               std::to_string(kMaxHostThreads) + "], got '" + text + "'";
    return 0;
  }
  return unsigned(*v);
}
} // namespace

unsigned hostThreads() {
  if (unsigned n = overridden.load())
    return n;
  if (unsigned n = fromVariable(nullptr))
    return n;
  return std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
}

std::string checkHostThreadsVariable() {
  std::string error;
  fromVariable(&error);
  return error;
}

void setHostThreads(unsigned threads) {
  overridden.store(std::min(threads, kMaxHostThreads));
}

void forEachChunk(size_t chunks, const std::function<void(size_t)> &work) {
  size_t threads = chunks > 1 ? std::min<size_t>(hostThreads(), chunks) : 1;
  if (threads <= 1) {
    for (size_t c = 0; c < chunks; ++c)
      work(c);
    return;
  }
  // Chunks handed out one at a time: a thread that got cheap ones takes
  // more. Where each chunk's result goes is the caller's (by index), so
  // the order of execution changes nothing.
  std::atomic<size_t> next{0};
  std::mutex lock;
  std::exception_ptr error;
  auto drain = [&] {
    try {
      for (size_t c; (c = next.fetch_add(1)) < chunks;)
        work(c);
    } catch (...) {
      std::lock_guard<std::mutex> guard(lock);
      if (!error)
        error = std::current_exception();
      next.store(chunks); // the others stop after their current chunk
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(drain);
    } catch (const std::system_error &) {
      break; // no more threads to be had: those running do the rest
    }
  }
  drain();
  for (std::thread &t : pool)
    t.join();
  if (error)
    std::rethrow_exception(error);
}

} // namespace runtime
} // namespace tirx
