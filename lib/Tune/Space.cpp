//===- Space.cpp - the search space of `tirx tune` --------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Space.h"
#include "Lines.h"

#include "tirx/Harness/Actions.h"
#include "tirx/InitAllTIRx.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Support/JSON.h"
#include "tirx/Version.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <tuple>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;

namespace {

json::Array ints(const std::vector<int64_t> &v) {
  json::Array a;
  for (int64_t x : v)
    a.push_back(x);
  return a;
}

std::vector<int64_t> intsOf(const json::Value *v) {
  std::vector<int64_t> out;
  if (const json::Array *a = v ? v->getAsArray() : nullptr)
    for (const json::Value &x : *a)
      out.push_back(x.getAsInteger().value_or(0));
  return out;
}

bool validThreads(int64_t t) { return t >= 32 && t <= 1024 && t % 32 == 0; }

std::vector<int64_t> powersOfTwo(int64_t upTo) {
  std::vector<int64_t> out;
  for (int64_t p = 1; p <= upTo; p *= 2)
    out.push_back(p);
  return out;
}

//===----------------------------------------------------------------------===//
// The schema's parameters
//===----------------------------------------------------------------------===//

/// transform -> the schema of its params object.
const std::map<std::string, json::Object> &paramSchemas() {
  static const std::map<std::string, json::Object> schemas = [] {
    std::map<std::string, json::Object> out;
    json::Object schema = actionsSchema();
    if (const json::Array *variants = schema.getArray("oneOf"))
      for (const json::Value &v : *variants) {
        const json::Object *o = v.getAsObject();
        const json::Object *props = o ? o->getObject("properties") : nullptr;
        const json::Object *transform =
            props ? props->getObject("transform") : nullptr;
        const json::Object *params =
            props ? props->getObject("params") : nullptr;
        auto name = transform ? transform->getString("const") : std::nullopt;
        if (name && params)
          if (const json::Object *p = params->getObject("properties"))
            out[name->str()] = *p;
      }
    return out;
  }();
  return schemas;
}

/// Whether `value` is within the bounds the schema gives `param`.
bool withinSchema(const json::Object &param, const json::Value &value) {
  auto check = [&](const json::Object &s, const json::Value &x) {
    auto n = x.getAsNumber();
    if (!n)
      return true;
    if (auto lo = s.getNumber("minimum"); lo && *n < *lo)
      return false;
    if (auto hi = s.getNumber("maximum"); hi && *n > *hi)
      return false;
    return true;
  };
  if (const json::Array *a = value.getAsArray()) {
    const json::Object *items = param.getObject("items");
    for (const json::Value &x : *a)
      if (items && !check(*items, x))
        return false;
    return true;
  }
  return check(param, value);
}
} // namespace

bool mlir::tirx::schemaDeclares(const json::Object &action) {
  auto transform = action.getString("transform");
  if (!transform)
    return false;
  auto it = paramSchemas().find(transform->str());
  if (it == paramSchemas().end())
    return false;
  if (const json::Object *params = action.getObject("params"))
    for (const auto &[key, value] : *params) {
      const json::Object *p = it->second.getObject(key);
      if (!p || !withinSchema(*p, value))
        return false;
    }
  return true;
}

//===----------------------------------------------------------------------===//
// Decisions
//===----------------------------------------------------------------------===//

namespace {
json::Object withParam(const json::Object &action, llvm::StringRef key,
                       json::Value value) {
  json::Object out = action;
  json::Object params;
  if (const json::Object *p = action.getObject("params"))
    params = *p;
  params[key] = std::move(value);
  out["params"] = std::move(params);
  return out;
}

const OpFacts *targetOf(const PayloadFacts &facts, const json::Object &action) {
  const json::Object *target = action.getObject("target");
  if (!target)
    return nullptr;
  auto name = target->getString("op");
  int64_t index = target->getInteger("index").value_or(0);
  for (const OpFacts &op : facts.ops)
    if (name && op.name == *name && op.index == index)
      return &op;
  return nullptr;
}

bool isMatmul(const OpFacts &op) {
  return op.name == "linalg.matmul" || op.name == "linalg.batch_matmul";
}

/// The tiled parallel loops of `sizes` (non-zero, static, not reduction),
/// innermost last: the innermost, the one before it (if any), all of them.
using Positions =
    std::optional<std::tuple<size_t, size_t, bool, std::vector<size_t>>>;
Positions positionsOf(const OpFacts &op, const std::vector<int64_t> &sizes) {
  std::vector<size_t> free;
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 0 && op.extents[i] > 0 && !op.reduction[i])
      free.push_back(i);
  if (free.empty())
    return std::nullopt;
  bool hasOuter = free.size() >= 2;
  size_t inner = free.back();
  return std::make_tuple(inner, hasOuter ? free[free.size() - 2] : inner,
                         hasOuter, free);
}

/// Other block tilings: the (at most two) innermost tiled parallel loops
/// over powers of two (dividing the extent, or any size where no tile
/// divides: tails), between 32 and 64 Ki elements a block.
void blockTiles(const OpFacts &op, const json::Object &first,
                std::vector<json::Object> &out) {
  std::vector<int64_t> sizes = intsOf(first.getObject("params")
                                          ? first.getObject("params")->get("tile_sizes")
                                          : nullptr);
  if (sizes.empty() || sizes.size() > op.extents.size())
    return;
  Positions at = positionsOf(op, sizes);
  if (!at)
    return;
  auto [inner, outer, hasOuter, free] = *at;
  bool divides = op.extents[inner] % sizes[inner] == 0;
  auto values = [&](size_t i, int64_t cap) {
    std::vector<int64_t> v;
    for (int64_t p : powersOfTwo(cap))
      if (op.extents[i] % p == 0 || (!divides && p < op.extents[i]))
        v.push_back(p);
    return v;
  };
  std::vector<int64_t> inners = values(inner, isMatmul(op) ? 128 : 8192);
  std::vector<int64_t> outers =
      hasOuter ? values(outer, isMatmul(op) ? 128 : 64) : std::vector<int64_t>{1};
  struct Tile {
    std::vector<int64_t> sizes;
    double distance;
  };
  std::vector<Tile> tiles;
  double base = std::log2(double(sizes[inner]) *
                          double(hasOuter ? sizes[outer] : 1));
  for (int64_t ti : inners)
    for (int64_t to : outers) {
      int64_t elements = ti * to;
      if (elements < (isMatmul(op) ? 256 : 32) || elements > 65536)
        continue;
      std::vector<int64_t> s = sizes;
      s[inner] = ti;
      if (hasOuter)
        s[outer] = to;
      tiles.push_back({s, std::fabs(std::log2(double(elements)) - base)});
    }
  std::stable_sort(tiles.begin(), tiles.end(),
                   [](const Tile &a, const Tile &b) {
                     return a.distance < b.distance;
                   });
  for (const Tile &t : tiles)
    out.push_back(withParam(first, "tile_sizes", ints(t.sizes)));
}

/// Other elements per thread: the innermost dims over powers of two,
/// threads a multiple of 32 up to 1024; several vectors a thread also
/// cyclic (tile_to_threads `chunk`).
void threadTiles(const OpFacts &op, const json::Object &first,
                 std::vector<json::Object> &out) {
  const json::Object *params = first.getObject("params");
  std::vector<int64_t> per =
      intsOf(params ? params->get("elements_per_thread") : nullptr);
  if (per.empty() || per.size() > op.extents.size())
    return;
  Positions at = positionsOf(op, per);
  if (!at)
    return;
  auto [inner, outer, hasOuter, free] = *at;
  for (int64_t ei : powersOfTwo(16))
    for (int64_t eo : hasOuter ? powersOfTwo(8) : std::vector<int64_t>{1}) {
      if (op.extents[inner] % ei || (hasOuter && op.extents[outer] % eo))
        continue;
      int64_t threads = 1;
      std::vector<int64_t> p = per;
      p[inner] = ei;
      if (hasOuter)
        p[outer] = eo;
      for (size_t i : free)
        threads *= op.extents[i] / p[i];
      if (!validThreads(threads))
        continue;
      // Each count blocked (no chunk) and, where a thread holds several
      // vectors, cyclic (chunk: a vector's width).
      json::Object blocked = withParam(first, "elements_per_thread", ints(p));
      if (json::Object *params = blocked.getObject("params"))
        params->erase("chunk");
      bool dynamic = llvm::is_contained(op.extents, int64_t(-1));
      if (int64_t run =
              dynamic ? 0 : cyclicChunk(ei, op.elementBytes, op.contiguous))
        out.push_back(withParam(blocked, "chunk", run));
      out.push_back(std::move(blocked));
    }
}

/// The other values of the first candidate's parameters.
void widen(const PayloadFacts &facts, const Step &step,
           std::vector<json::Object> &out) {
  for (const json::Object &first : step.candidates) {
    llvm::StringRef transform = first.getString("transform").value_or("");
    if (transform == "pipeline") { // a loop, not a linalg op
      for (int64_t stages : {2, 3, 4})
        out.push_back(withParam(first, "stages", stages));
      continue;
    }
    const OpFacts *op = targetOf(facts, first);
    if (!op)
      continue;
    if (transform == "tile_to_blocks")
      blockTiles(*op, first, out);
    else if (transform == "tile_to_threads")
      threadTiles(*op, first, out);
    else if (transform == "reduce_in_block")
      for (int64_t t : {32, 64, 128, 256, 512, 1024})
        out.push_back(withParam(first, "threads", t));
    else if (transform == "split_reduction") {
      int64_t extent = 0;
      for (size_t i = 0; i < op->extents.size(); ++i)
        if (op->reduction[i])
          extent = op->extents[i];
      for (int64_t p : powersOfTwo(1024))
        if (p >= 2 && extent > 0 && extent % p == 0 && extent / p >= 256)
          out.push_back(withParam(first, "parts", p));
    } else if (transform == "tile_reduction") {
      std::vector<int64_t> sizes(op->extents.size(), 0);
      int64_t k = op->extents.empty() ? 0 : op->extents.back();
      for (int64_t t : {8, 16, 32, 64})
        if (k > t && k % t == 0) {
          sizes.back() = t;
          out.push_back(withParam(first, "tile_sizes", ints(sizes)));
        }
    } else if (transform == "promote_to_shared") {
      out.push_back(withParam(first, "padding", 4));
      out.push_back(withParam(first, "padding", 8));
      out.push_back(withParam(first, "operands", json::Array{0}));
      out.push_back(withParam(first, "operands", json::Array{1}));
    } else if (transform == "use_mma") {
      size_t lead = op->name == "linalg.batch_matmul" ? 1 : 0;
      int64_t bm = op->extents.size() > lead + 1 ? op->extents[lead] : 0;
      int64_t bn = op->extents.size() > lead + 1 ? op->extents[lead + 1] : 0;
      for (int64_t wm : {1, 2, 4})
        for (int64_t wn : {1, 2, 4})
          if (bm > 0 && bn > 0 && bm % (16 * wm) == 0 && bn % (8 * wn) == 0)
            out.push_back(withParam(first, "warps", json::Array{wm, wn}));
    }
  }
}
} // namespace

namespace {
bool skippedKey(const std::vector<std::string> &skipped, const std::string &k) {
  return std::find(skipped.begin(), skipped.end(), k) != skipped.end();
}

std::string opName(const OpFacts &op) {
  return op.name + "#" + std::to_string(op.index);
}

bool isFill(const OpFacts &op) { return op.name == "linalg.fill"; }

/// Decisions `tirx auto` does not make about fusion (`fuse_into`), "skip"
/// first where auto would go on without them:
/// - in a payload of several ops none of which is scheduled yet, start from
///   the last one (a consumer) in blocks, auto's tiles or a row per block,
///   rather than from the first;
/// - once an op is in blocks, fuse into its loop the nearest producer not
///   scheduled yet (fuse first, then skip: reached only by the above).
std::optional<Choice> fusionChoice(const PayloadFacts &facts,
                                   const std::vector<std::string> &skipped) {
  if (facts.tensors || facts.launched)
    return std::nullopt;
  const OpFacts *consumer = nullptr, *producer = nullptr;
  unsigned top = 0;
  for (const OpFacts &op : facts.ops) {
    if (isFill(op))
      continue;
    if (op.stage == Stage::Top) {
      ++top;
      if (!consumer)
        producer = &op;
    } else if (!consumer && op.stage == Stage::Block && producer) {
      consumer = &op;
    }
  }
  if (consumer && producer) {
    std::string key = "fuse_into:" + opName(*producer);
    if (skippedKey(skipped, key) || producer->name != "linalg.generic")
      return std::nullopt;
    Choice c;
    c.why = opName(*producer) + ": fused into the loop of " + opName(*consumer);
    c.optional = true;
    c.key = key;
    c.alternatives.push_back(json::Object{
        {"transform", "fuse_into"},
        {"params", json::Object{}},
        {"target", json::Object{{"op", producer->name}, {"index", producer->index}}}});
    c.alternatives.push_back(json::Object{}); // skip
    return c;
  }
  // Nothing scheduled yet, two ops or more: the last one first?
  if (top < 2 || top != facts.ops.size() - std::count_if(facts.ops.begin(),
                                                           facts.ops.end(),
                                                           isFill))
    return std::nullopt;
  const OpFacts *last = nullptr;
  for (const OpFacts &op : facts.ops)
    if (!isFill(op))
      last = &op;
  std::string key = "consumer_first:" + opName(*last);
  if (skippedKey(skipped, key) || last->name != "linalg.generic" ||
      last->extents.empty())
    return std::nullopt;
  bool reduces = std::find(last->reduction.begin(), last->reduction.end(),
                           true) != last->reduction.end();
  if (reduces)
    return std::nullopt; // a reduction's producers fuse only into a row loop
  Choice c;
  c.why = opName(*last) + ": the last op in blocks first, its producers fused";
  c.optional = true;
  c.key = key;
  c.alternatives.push_back(json::Object{}); // skip: program order (auto)
  json::Object target{{"op", last->name}, {"index", last->index}};
  auto tile = [&](std::vector<int64_t> sizes) {
    json::Object a{{"transform", "tile_to_blocks"},
                   {"params", json::Object{{"tile_sizes", ints(sizes)}}},
                   {"target", json::Object(target)}};
    if (schemaDeclares(a))
      c.alternatives.push_back(std::move(a));
  };
  // Auto's own tiles for it.
  PayloadFacts alone;
  alone.ops.push_back(*last);
  std::vector<Step> steps = nextSteps(alone, {});
  if (!steps.empty())
    for (const json::Object &a : steps.front().candidates)
      if (a.getString("transform") == "tile_to_blocks") {
        json::Object copy = a;
        copy["target"] = json::Object(target);
        if (schemaDeclares(copy))
          c.alternatives.push_back(std::move(copy));
      }
  // Rows per block: what a row-wise producer (a norm's statistics) needs.
  if (last->extents.size() >= 2)
    for (int64_t rows : {1, 2, 4})
      if (last->extents[0] % rows == 0)
        tile({rows});
  if (c.alternatives.size() < 2)
    return std::nullopt;
  return c;
}

/// Pipelining the staged copies of a loop that `tirx auto` leaves alone
/// (f32 tiles): "skip" first.
std::optional<Choice> pipelineChoice(const PayloadFacts &facts,
                                     const std::vector<std::string> &skipped) {
  for (const StagedLoop &loop : facts.staged) {
    Step s = pipelineStep(loop, {2, 3, 4});
    if (skippedKey(skipped, s.key))
      continue;
    Choice c;
    c.why = s.why;
    c.optional = true;
    c.key = s.key;
    c.alternatives.push_back(json::Object{}); // skip
    for (json::Object &a : s.candidates)
      c.alternatives.push_back(std::move(a));
    return c;
  }
  return std::nullopt;
}
} // namespace

std::optional<Choice> mlir::tirx::nextChoice(
    const PayloadFacts &facts, const std::vector<std::string> &skipped) {
  if (std::optional<Choice> c = fusionChoice(facts, skipped))
    return c;
  std::vector<Step> steps = nextSteps(facts, skipped);
  if (steps.empty())
    return std::nullopt;
  const Step &step = steps.front();
  if (!step.candidates.empty() &&
      step.candidates.front().getString("transform") == "map_to_gpu")
    if (std::optional<Choice> c = pipelineChoice(facts, skipped))
      return c;
  // A decision `tirx auto` does not make: a block whose accesses are not
  // contiguous (a transpose) stages its input in shared memory first
  // (padding against bank conflicts). "Skip" first: genome 0 stays auto.
  if (!step.candidates.empty() &&
      step.candidates.front().getString("transform") == "tile_to_threads") {
    const OpFacts *op = targetOf(facts, step.candidates.front());
    if (op && !op->contiguous && !op->promoted && !isMatmul(*op)) {
      std::string key = "promote_to_shared:" + op->name + "#" +
                        std::to_string(op->index);
      if (std::find(skipped.begin(), skipped.end(), key) == skipped.end()) {
        Choice c;
        c.why = op->name + "#" + std::to_string(op->index) +
                ": a strided input staged in shared memory";
        c.optional = true;
        c.key = key;
        c.alternatives.push_back(json::Object{}); // skip
        json::Object target = *step.candidates.front().getObject("target");
        for (int64_t padding : {0, 1, 4}) {
          json::Object a{{"transform", "promote_to_shared"},
                         {"params", json::Object{{"operands", json::Array{0}},
                                                 {"padding", padding}}},
                         {"target", json::Object(target)}};
          if (schemaDeclares(a))
            c.alternatives.push_back(std::move(a));
        }
        if (c.alternatives.size() > 1)
          return c;
      }
    }
  }
  Choice c;
  c.why = step.why;
  c.optional = step.optional;
  c.key = step.key;
  std::set<std::string> seen;
  auto add = [&](const json::Object &a) {
    if (schemaDeclares(a) && seen.insert(compactJSON(json::Object(a))).second)
      c.alternatives.push_back(a);
  };
  for (const json::Object &a : step.candidates) // the automatic order first
    add(a);
  std::vector<json::Object> more;
  widen(facts, step, more);
  for (const json::Object &a : more)
    if (c.alternatives.size() < 32)
      add(a);
  if (step.optional)
    c.alternatives.push_back(json::Object{}); // skip
  if (c.alternatives.empty())
    return std::nullopt;
  return c;
}

int mlir::tirx::nearestAlternative(const std::vector<json::Object> &alternatives,
                                   const json::Object &wanted) {
  std::string wantedText = compactJSON(json::Object(wanted));
  auto transform = wanted.getString("transform");
  int best = -1;
  double bestDistance = INFINITY;
  for (size_t i = 0; i < alternatives.size(); ++i) {
    const json::Object &a = alternatives[i];
    if (compactJSON(json::Object(a)) == wantedText)
      return int(i);
    if (!transform || a.getString("transform") != transform)
      continue;
    // Distance: log2 ratios of the numbers of the parameters.
    double d = 0;
    const json::Object *pa = a.getObject("params");
    const json::Object *pw = wanted.getObject("params");
    if (pa && pw)
      for (const auto &[key, value] : *pw) {
        std::vector<int64_t> x = value.getAsArray()
                                     ? intsOf(&value)
                                     : std::vector<int64_t>{value.getAsInteger().value_or(0)};
        const json::Value *other = pa->get(key);
        if (!other) {
          d += 4;
          continue;
        }
        std::vector<int64_t> y = other->getAsArray()
                                     ? intsOf(other)
                                     : std::vector<int64_t>{other->getAsInteger().value_or(0)};
        for (size_t j = 0; j < std::max(x.size(), y.size()); ++j) {
          double u = j < x.size() ? double(x[j]) : 0;
          double v = j < y.size() ? double(y[j]) : 0;
          d += std::fabs(std::log2(u + 1) - std::log2(v + 1));
        }
      }
    if (d < bestDistance) {
      bestDistance = d;
      best = int(i);
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Building in a workspace
//===----------------------------------------------------------------------===//

std::optional<Built> WorkspaceBuilder::realize(Session *session,
                                               const Proposal &proposal,
                                               json::Object &learnt) {
  Built b;
  auto timed = [&](const char *phase, auto &&f) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    b.phasesMs[phase] += std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - t0)
                             .count();
    return r;
  };
  json::Object newFacts, newRefused, newSteps;
  json::Array newLowered;
  auto finish = [&]() -> std::optional<Built> {
    learnt["facts"] = std::move(newFacts);
    learnt["refused"] = std::move(newRefused);
    learnt["steps"] = std::move(newSteps);
    learnt["lowered"] = std::move(newLowered);
    if (!seedVersion.empty())
      learnt["seed"] = json::Array{seedVersion, seedDigest};
    return std::move(b);
  };
  // The seed is shown (and audited) once, by the first build; each step's
  // version and digest come with its apply's result (or from an earlier
  // build's, `steps`), and its text is read (verified against its digest)
  // only when its facts are not known yet.
  auto digestIn = [](const Result &r) {
    const json::Object *v = r.data.getObject("version");
    return v ? v->getString("digest").value_or("").str() : std::string();
  };
  std::optional<std::string> text;
  if (seedVersion.empty()) {
    if (!session)
      return std::nullopt;
    llvm::Expected<Result> shown =
        timed("show", [&] { return session->show(seed); });
    if (!shown) {
      b.error = "show: " + llvm::toString(shown.takeError());
      return finish();
    }
    seedVersion = shown->version;
    seedDigest = digestIn(*shown);
    text = shown->text;
  }
  std::string at = seedVersion, digest = seedDigest;
  std::vector<std::string> skipped;
  size_t hint = 0;
  for (unsigned step = 0; step < options.maxSteps; ++step) {
    b.version = at;
    b.digest = digest;
    auto known = facts.find(digest);
    if (known == facts.end()) {
      if (!session)
        return std::nullopt;
      if (!text) {
        std::string read, error;
        if (!timed("show", [&] {
              return session->workspace().readObject(digest, read, error);
            })) {
          b.error = "show: " + error;
          return finish();
        }
        text = std::move(read);
      }
      llvm::Expected<PayloadFacts> f = timed("facts", [&] {
        return inspectPayload(*text, at, session->limits());
      });
      if (!f) {
        Refusal r = toRefusal(f.takeError());
        b.error = std::string(codeName(r.code)) + ": " + r.message;
        return finish();
      }
      f->chip = workspaceChip(*session); // use_wgmma on sm_90, as auto
      newFacts[digest] = f->toJSON();
      known = facts.emplace(digest, std::move(*f)).first;
    }
    // The decision: a function of the facts and the steps skipped, made
    // once for each (its alternatives are many JSON objects).
    std::string choiceKey = digest;
    for (const std::string &k : skipped)
      choiceKey += "\n" + k;
    auto decided = choices.find(choiceKey);
    if (decided == choices.end())
      decided = choices
                    .emplace(choiceKey, nextChoice(known->second, skipped))
                    .first;
    const std::optional<Choice> &choice = decided->second;
    if (!choice) {
      b.mapped = known->second.launched;
      if (!b.mapped)
        b.error = "no_choice: nothing maps " + at + " to the GPU";
      break;
    }
    unsigned n = unsigned(choice->alternatives.size());
    size_t d = b.path.size();
    unsigned want = d < proposal.genome.size() ? proposal.genome[d] % n : 0;
    // Following a known schedule: the alternative nearest its next action.
    if (proposal.hint && hint < proposal.hint->size()) {
      const json::Object *wanted = (*proposal.hint)[hint].getAsObject();
      int near = wanted ? nearestAlternative(choice->alternatives, *wanted) : -1;
      if (near >= 0) {
        want = unsigned(near);
        ++hint;
      } else if (choice->optional) {
        want = n - 1; // the schedule skipped this step
      }
    }
    std::string kind = choice->alternatives.front()
                           .getString("transform")
                           .value_or("")
                           .str();
    bool taken = false;
    std::string lastRefusal;
    for (unsigned k = 0; k < n && !taken; ++k) {
      unsigned i = (want + k) % n;
      const json::Object &alt = choice->alternatives[i];
      if (alt.empty()) { // skip an optional step
        skipped.push_back(choice->key);
        b.path.push_back({n, i, kind});
        taken = true;
        break;
      }
      std::string key = digest + " " + compactJSON(json::Object(alt));
      auto before = refused.find(key);
      if (before != refused.end()) { // refused before: not tried again
        lastRefusal = before->second + " (refused before)";
        continue;
      }
      // Made before (the workspace would answer the same request with the
      // same version, deduplicated): not asked again.
      if (auto made = steps.find(key); made != steps.end()) {
        b.schedule.push_back(json::Object(alt));
        b.path.push_back({n, i, kind});
        at = made->second.first;
        digest = made->second.second;
        text.reset();
        taken = true;
        break;
      }
      if (!session)
        return std::nullopt;
      llvm::Expected<Result> made = timed("apply", [&] {
        return session->applyAction(at, json::Value(json::Object(alt)));
      });
      if (made) {
        b.schedule.push_back(json::Object(alt));
        b.path.push_back({n, i, kind});
        at = made->version;
        digest = digestIn(*made);
        text.reset();
        steps[key] = {at, digest};
        newSteps[key] = json::Array{at, digest};
        taken = true;
        break;
      }
      Refusal r = toRefusal(made.takeError());
      std::string code(codeName(r.code));
      ++b.refusals[code];
      lastRefusal = code + ": " + r.message;
      if (r.kind() != RefusalKind::Refused) { // a limit, damage: stop here
        b.error = lastRefusal;
        return finish();
      }
      refused[key] = lastRefusal;
      newRefused[key] = lastRefusal;
    }
    if (watch && getppid() != watch) { // the tune is gone: stop cleanly
      b.error = "interrupted: the tune stopped";
      return finish();
    }
    if (!taken) {
      b.error = lastRefusal.empty() ? "every alternative refused" : lastRefusal;
      return finish();
    }
  }
  if (!b.mapped && b.error.empty())
    b.error = "too_many_steps: not mapped after " +
              std::to_string(options.maxSteps) + " steps";
  if (b.mapped && options.lower && !lowered.count(b.version)) {
    if (!session)
      return std::nullopt;
    llvm::Expected<Result> lowering =
        timed("compile", [&] { return session->compile(b.version); });
    if (!lowering) {
      Refusal r = toRefusal(lowering.takeError());
      b.mapped = false;
      b.error = std::string(codeName(r.code)) + ": " + r.message;
    } else {
      lowered.insert(b.version);
      newLowered.push_back(b.version);
    }
  }
  return finish();
}

void WorkspaceBuilder::learn(const json::Object &learnt) {
  if (const json::Object *f = learnt.getObject("facts"))
    for (const auto &[digest, value] : *f)
      if (std::optional<PayloadFacts> p = PayloadFacts::fromJSON(value))
        facts.emplace(digest.str(), std::move(*p));
  if (const json::Object *r = learnt.getObject("refused"))
    for (const auto &[key, why] : *r)
      refused[key.str()] = why.getAsString().value_or("").str();
  auto pair = [](const json::Value *v) -> std::optional<std::pair<std::string, std::string>> {
    const json::Array *a = v ? v->getAsArray() : nullptr;
    if (!a || a->size() != 2 || !(*a)[0].getAsString() || !(*a)[1].getAsString())
      return std::nullopt;
    return std::make_pair((*a)[0].getAsString()->str(), (*a)[1].getAsString()->str());
  };
  if (const json::Object *s = learnt.getObject("steps"))
    for (const auto &[key, made] : *s)
      if (auto p = pair(&made))
        steps.emplace(key.str(), std::move(*p));
  if (const json::Array *l = learnt.getArray("lowered"))
    for (const json::Value &v : *l)
      if (auto version = v.getAsString())
        lowered.insert(version->str());
  if (seedVersion.empty())
    if (auto p = pair(learnt.get("seed"))) {
      seedVersion = p->first;
      seedDigest = p->second;
    }
}


namespace {
Built failedBuild(const std::string &why) {
  Built b;
  b.error = why;
  return b;
}
} // namespace

void WorkspaceBuilder::spawn() {
  while (batch.next < batch.proposals.size() &&
         batch.running.size() < std::max(1u, options.jobs)) {
    size_t index = batch.next++;
    if (batch.known[index])
      continue;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      batch.out[index] = failedBuild(std::string("pipe: ") + std::strerror(errno));
      continue;
    }
    llvm::outs().flush();
    llvm::errs().flush();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
      ::close(fds[0]);
      setpgid(0, 0);
      watch = parent;
      json::Object reply;
      auto started = std::chrono::steady_clock::now();
      // The tune's session, copied by fork: its memo of the history
      // (Workspace::readLogs) read up to this batch.
      llvm::Expected<Session> s =
          opened ? llvm::Expected<Session>(*opened) : Session::open(dir, who);
      if (s) {
        s->limits() = limits;
        // Atomic writes without an fsync each (Workspace::setDurable): the
        // fsyncs under the workspace lock serialized the build processes;
        // one syncfs when the build is done makes it durable before the
        // tune records it.
        s->setDurable(false);
        json::Object learnt;
        Built b = *realize(&*s, batch.proposals[index], learnt);
        std::string synced;
        auto t0 = std::chrono::steady_clock::now();
        if (!s->workspace().sync(synced) && b.error.empty()) {
          b.mapped = false;
          b.error = "io_error: " + synced;
        }
        b.phasesMs["sync"] = std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - t0)
                                 .count();
        b.phasesMs["process"] = std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - started)
                                    .count();
        reply["built"] = b.toJSON();
        reply["learnt"] = std::move(learnt);
      } else {
        reply["error"] = llvm::toString(s.takeError());
      }
      _exit(getppid() == parent && writeAll(fds[1], compactJSON(std::move(reply))) ? 0
                                                                           : 1);
    }
    ::close(fds[1]);
    if (pid < 0) {
      ::close(fds[0]);
      batch.out[index] = failedBuild(std::string("fork: ") + std::strerror(errno));
      continue;
    }
    batch.running.push_back({pid, fds[0], index, ""});
  }
}

void WorkspaceBuilder::start(const std::vector<Proposal> &proposals) {
  // One process per proposal, `jobs` at a time (one at least: even then
  // apart from the tune, so that an interrupt at the terminal cannot cut
  // an MLIR child short and have its death recorded as a refusal). Each
  // starts from the facts and refusals known when the batch began (the
  // batch's outcome does not depend on which finishes first), in its own
  // process group (an interrupt at the terminal reaches the tune, which
  // lets them finish: no apply is cut halfway), and stops when the tune
  // is gone.
  // Every build process forks from a process with the harness's contexts
  // made (no IR parsed here): each would make them itself otherwise.
  Session::warm();
  if (!opened) {
    llvm::Expected<Session> s = Session::open(dir, who);
    if (s)
      opened.emplace(std::move(*s));
    else
      llvm::consumeError(s.takeError()); // each build process says why
  }
  if (opened) { // the history read here once (parsed: what is new)
    std::vector<VersionEntry> entries;
    std::vector<RequestRecord> requests;
    std::string error;
    opened->workspace().readHistory(entries, requests, error);
  }
  batch = Batch();
  batch.proposals = proposals;
  batch.out.resize(proposals.size());
  batch.replies.resize(proposals.size());
  batch.known.assign(proposals.size(), false);
  // A proposal whose every step (and lowering) an earlier build made is
  // realized here, from what the builds taught: the same decisions and
  // versions a build process would reach (the workspace deduplicates each
  // of its requests), without a process.
  for (size_t i = 0; i < proposals.size(); ++i) {
    json::Object unused;
    if (std::optional<Built> b = realize(nullptr, proposals[i], unused)) {
      batch.out[i] = std::move(*b);
      batch.known[i] = true;
    }
  }
  spawn();
}

std::vector<Built> WorkspaceBuilder::finish() {
  while (!batch.running.empty()) {
    std::vector<pollfd> fds;
    for (const Child &c : batch.running)
      fds.push_back({c.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) <= 0)
      continue; // EINTR
    for (size_t k = fds.size(); k-- > 0;) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      Child &c = batch.running[k];
      char buffer[1 << 15];
      ssize_t n = ::read(c.fd, buffer, sizeof(buffer));
      if (n > 0) {
        c.bytes.append(buffer, size_t(n));
        continue;
      }
      if (n < 0 && errno == EINTR)
        continue;
      ::close(c.fd);
      int status = 0;
      while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
      }
      batch.replies[c.index] = std::move(c.bytes);
      batch.running.erase(batch.running.begin() + k);
    }
    spawn();
  }
  // The batch's lessons, in proposal order.
  for (size_t i = 0; i < batch.proposals.size(); ++i) {
    if (batch.known[i])
      continue;
    if (batch.replies[i].empty()) {
      if (batch.out[i].error.empty())
        batch.out[i] = failedBuild("the build process left no result");
      continue;
    }
    llvm::Expected<json::Value> v = parseJSON(batch.replies[i]);
    const json::Object *o = v ? v->getAsObject() : nullptr;
    if (!v)
      llvm::consumeError(v.takeError());
    std::optional<Built> b =
        o && o->get("built") ? Built::fromJSON(*o->get("built")) : std::nullopt;
    if (!b) {
      batch.out[i] = failedBuild(o && o->getString("error")
                                     ? o->getString("error")->str()
                                     : "the build process's result is unreadable");
      continue;
    }
    batch.out[i] = std::move(*b);
    if (const json::Object *learnt = o->getObject("learnt"))
      learn(*learnt);
  }
  std::vector<Built> out = std::move(batch.out);
  batch = Batch();
  return out;
}

std::vector<Built>
WorkspaceBuilder::build(const std::vector<Proposal> &proposals) {
  start(proposals);
  return finish();
}

Workload WorkspaceBuilder::workload() {
  // The seed is parsed in a child: agent-supplied IR never in this process.
  Workload w;
  w.target = "sm_90";
  llvm::Expected<Session> s = Session::open(dir, who);
  if (!s) {
    llvm::consumeError(s.takeError());
    return w;
  }
  w.target = s->workspace().target().empty() ? "sm_90" : s->workspace().target();
  llvm::Expected<Result> shown = s->show(seed);
  if (!shown) {
    llvm::consumeError(shown.takeError());
    return w;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return w;
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = fork();
  if (pid == 0) {
    ::close(fds[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(limits.seconds ? limits.seconds : 60);
    DialectRegistry registry;
    registerTIRxToolDialects(registry);
    MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
    ctx.loadAllAvailableDialects();
    ctx.printOpOnDiagnostic(false);
    ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
    OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(shown->text, &ctx);
    std::string reply =
        m ? compactJSON(workloadOf(*m, w.target).toJSON()) : std::string("null");
    _exit(writeAll(fds[1], reply) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string bytes;
  char buffer[1 << 15];
  while (pid > 0) {
    ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    bytes.append(buffer, size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  llvm::Expected<json::Value> v = parseJSON(bytes);
  if (!v) {
    llvm::consumeError(v.takeError());
    return w;
  }
  if (std::optional<Workload> parsed = Workload::fromJSON(*v))
    return *parsed;
  return w;
}

//===----------------------------------------------------------------------===//
// Measuring with Session::run
//===----------------------------------------------------------------------===//

llvm::Expected<Measurement>
SessionMeasurer::measure(const MeasureRequest &request) {
  RunOptions options;
  options.inputs = request.inputs;
  options.samples = request.samples;
  options.runner = runner;
  options.reuseBundles = true;
  options.counters = request.counters;
  llvm::Expected<Result> r = session.run(request.version, options);
  if (r) {
    const json::Object *feedback = r->data.getObject("feedback");
    return feedback ? Measurement::ofFeedback(*feedback) : Measurement();
  }
  Refusal refusal = toRefusal(r.takeError());
  if (refusal.code == RefusalCode::no_device ||
      refusal.code == RefusalCode::no_runner ||
      refusal.kind() == RefusalKind::Damaged) {
    if (refusal.kind() != RefusalKind::Damaged)
      refusal.hint = "tirx tune --compile-only explores and lowers "
                     "without a GPU (ranking nothing)";
    refusal.details = json::Object{};
    return refuse(std::move(refusal));
  }
  const json::Object *feedback = refusal.details.getObject("feedback");
  Measurement m = feedback ? Measurement::ofFeedback(*feedback) : Measurement();
  m.code = codeName(refusal.code); // the session's verdict
  m.message = refusal.message;
  return m;
}

Fingerprint SessionMeasurer::fingerprint() {
  return localFingerprint(session.workspace().target());
}

Fingerprint mlir::tirx::localFingerprint(const std::string &target) {
  Fingerprint f;
  f.tirx = TIRX_VERSION_STRING;
  f.lowering = "chip=" + (target.empty() ? std::string("sm_90") : target);
  // The runner's device profile (cached by tirx-run): the newest one.
  const char *cache = std::getenv("XDG_CACHE_HOME");
  const char *home = std::getenv("HOME");
  std::string dir = cache ? std::string(cache) + "/tirx"
                          : std::string(home ? home : "/tmp") + "/.cache/tirx";
  std::error_code ec;
  std::string newest;
  llvm::sys::TimePoint<> newestTime;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (!name.starts_with("device-") || !name.ends_with(".json"))
      continue;
    llvm::sys::fs::file_status st;
    if (llvm::sys::fs::status(it->path(), st))
      continue;
    if (newest.empty() || st.getLastModificationTime() > newestTime) {
      newest = it->path();
      newestTime = st.getLastModificationTime();
    }
  }
  std::string profile, error;
  if (!newest.empty() && rt::readFile(newest, profile, error)) {
    llvm::Expected<json::Value> v = parseJSON(profile);
    if (v && v->getAsObject()) {
      const json::Object &o = *v->getAsObject();
      f.gpu = o.getString("name").value_or("").str();
      f.uuid = o.getString("uuid").value_or("").str();
      f.smCount = int(o.getInteger("sm_count").value_or(0));
      f.clockGHz = o.getNumber("clock_ghz").value_or(0);
    } else if (!v) {
      llvm::consumeError(v.takeError());
    }
  }
  std::ifstream driver("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(driver, line)) {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  ..."
    llvm::SmallVector<llvm::StringRef> words;
    llvm::StringRef(line).split(words, ' ', -1, false);
    for (size_t i = 0; i + 1 < words.size(); ++i)
      if (words[i] == "Module")
        f.driver = words[i + 1].str();
  }
  if (f.gpu.empty())
    f.gpu = "unknown";
  return f;
}
