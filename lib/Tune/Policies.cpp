//===- Policies.cpp - the search policies of `tirx tune` --------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Each policy proposes genomes (the alternative taken at each decision) and
// learns from what they realized to: the decisions actually taken (a
// refused alternative falls to the next) and the measured cost. All
// randomness comes from one generator seeded by --seed, so a tune is
// deterministic given its seed and its measurements (this is what lets a
// rerun resume: the same proposals meet the outcomes already recorded).
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Search.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

using namespace mlir::tirx;

namespace {
std::string keyOf(const Genome &g) {
  std::string k;
  for (unsigned x : g)
    k += std::to_string(x) + ".";
  return k;
}

/// What every policy keeps: the generator, the genomes proposed, the
/// outcomes by realized genome.
class Base : public Policy {
public:
  explicit Base(uint64_t seed) : rng(seed) {}

protected:
  struct Seen {
    std::vector<Decision> path;
    double cost;
  };

  void observe(const Proposal &, const Built &built, double cost) override {
    record(built, cost);
  }

  /// Records an outcome; returns its realized genome.
  Genome record(const Built &built, double cost) {
    Genome g = built.genome();
    std::string k = keyOf(g);
    if (!outcomes.count(k))
      order.push_back(k);
    outcomes[k] = Seen{built.path, cost};
    maxDepth = std::max<size_t>(maxDepth, built.path.size());
    return g;
  }

  /// A uniformly random genome, using the arities learnt so far.
  Genome randomGenome() {
    Genome g(std::max<size_t>(maxDepth + 2, 8));
    for (unsigned &x : g)
      x = unsigned(rng() % 1024);
    return g;
  }

  /// True the first time `g` is offered.
  bool fresh(const Genome &g) { return offered.insert(keyOf(g)).second; }

  /// Outcomes sorted by cost (failures and unmeasured last).
  std::vector<const Seen *> ranked() const {
    std::vector<const Seen *> out;
    for (const std::string &k : order)
      out.push_back(&outcomes.at(k));
    std::stable_sort(out.begin(), out.end(), [](const Seen *a, const Seen *b) {
      double ca = std::isnan(a->cost) ? INFINITY : a->cost;
      double cb = std::isnan(b->cost) ? INFINITY : b->cost;
      return ca < cb;
    });
    return out;
  }

  std::mt19937_64 rng;
  std::map<std::string, Seen> outcomes;
  std::vector<std::string> order; // first seen first
  std::set<std::string> offered;
  size_t maxDepth = 0;
};

//===----------------------------------------------------------------------===//
// random: uniform genomes
//===----------------------------------------------------------------------===//

class RandomPolicy : public Base {
public:
  using Base::Base;
  llvm::StringRef name() const override { return "random"; }
  std::vector<Proposal> propose(unsigned n) override {
    std::vector<Proposal> out;
    for (unsigned tries = 0; out.size() < n && tries < 20 * n; ++tries) {
      Genome g = randomGenome();
      if (fresh(g))
        out.emplace_back(std::move(g), "random");
    }
    return out;
  }
};

//===----------------------------------------------------------------------===//
// greedy: from the automatic schedule, one decision changed at a time,
// moving to the best neighbour while it improves
//===----------------------------------------------------------------------===//

class GreedyPolicy : public Base {
public:
  using Base::Base;
  llvm::StringRef name() const override { return "greedy"; }
  std::vector<Proposal> propose(unsigned n) override {
    std::vector<Proposal> out;
    if (!started) {
      started = true;
      if (fresh({}))
        out.emplace_back(Genome{}, "auto");
      return out;
    }
    while (out.size() < n) {
      if (queue.empty() && !refill())
        break;
      Genome g = std::move(queue.front());
      queue.erase(queue.begin());
      if (fresh(g))
        out.emplace_back(std::move(g), "neighbour");
    }
    return out;
  }
  void observe(const Proposal &, const Built &built, double cost) override {
    Genome g = record(built, cost);
    if (!haveCurrent) { // the automatic schedule: where the climb starts
      haveCurrent = true;
      current = g;
      currentCost = cost;
      currentPath = built.path;
      neighbours(currentPath, current);
      return;
    }
    double c = std::isnan(cost) ? INFINITY : cost;
    double cc = std::isnan(currentCost) ? INFINITY : currentCost;
    if (c < cc && (!bestNext || c < bestNextCost)) {
      bestNext = true;
      bestNextCost = c;
      next = g;
      nextPath = built.path;
    }
  }

private:
  /// Every genome one decision away from `g`, the rest left automatic.
  void neighbours(const std::vector<Decision> &path, const Genome &g) {
    for (size_t d = 0; d < path.size(); ++d)
      for (unsigned a = 0; a < path[d].arity; ++a) {
        if (a == path[d].chosen)
          continue;
        Genome n(g.begin(), g.begin() + d);
        n.push_back(a);
        queue.push_back(std::move(n));
      }
  }
  /// The neighbourhood is spent: climb, or restart from a random point.
  bool refill() {
    if (!haveCurrent)
      return false;
    if (bestNext) {
      current = next;
      currentCost = bestNextCost;
      currentPath = nextPath;
      bestNext = false;
      neighbours(currentPath, current);
      return !queue.empty();
    }
    if (++restarts > 64)
      return false;
    queue.push_back(randomGenome());
    haveCurrent = false; // its outcome becomes the new start
    return true;
  }

  bool started = false, haveCurrent = false, bestNext = false;
  Genome current, next;
  std::vector<Decision> currentPath, nextPath;
  double currentCost = INFINITY, bestNextCost = INFINITY;
  std::vector<Genome> queue;
  unsigned restarts = 0;
};

//===----------------------------------------------------------------------===//
// evolutionary: tournament selection among the best, one-point crossover of
// realized genomes, mutation of one or more decisions
//===----------------------------------------------------------------------===//

class EvolutionaryPolicy : public Base {
public:
  using Base::Base;
  llvm::StringRef name() const override { return "evolutionary"; }
  std::vector<Proposal> propose(unsigned n) override {
    std::vector<Proposal> out;
    std::vector<const Seen *> pool = ranked();
    size_t usable = 0;
    for (const Seen *s : pool)
      usable += std::isfinite(s->cost) || std::isnan(s->cost);
    if (pool.size() > kPopulation)
      pool.resize(kPopulation);
    for (unsigned tries = 0; out.size() < n && tries < 50 * n; ++tries) {
      // Too few parents yet, or now and then: a random genome.
      if (usable < 4 || rng() % 10 == 0) {
        Genome g = randomGenome();
        if (fresh(g))
          out.emplace_back(std::move(g), "random");
        continue;
      }
      const Seen &a = *pool[tournament(pool.size())];
      Genome child = genomeOf(a.path);
      const char *origin = "mutation";
      if (rng() % 2) {
        const Seen &b = *pool[tournament(pool.size())];
        Genome other = genomeOf(b.path);
        size_t len = std::max(child.size(), other.size());
        child.resize(len, 0);
        other.resize(len, 0);
        size_t cut = len ? size_t(rng() % len) : 0;
        std::copy(other.begin() + cut, other.end(), child.begin() + cut);
        origin = "crossover";
      }
      mutate(child, a.path);
      if (fresh(child))
        out.emplace_back(std::move(child), origin);
    }
    return out;
  }
private:
  static constexpr size_t kPopulation = 16;

  size_t tournament(size_t size) {
    size_t best = size;
    for (int i = 0; i < 3; ++i)
      best = std::min(best, size_t(rng() % size));
    return best; // the pool is sorted: the lowest index is the fittest
  }
  static Genome genomeOf(const std::vector<Decision> &path) {
    Genome g;
    for (const Decision &d : path)
      g.push_back(d.chosen);
    return g;
  }
  /// Changes one decision (more with falling probability) to another of
  /// its alternatives.
  void mutate(Genome &g, const std::vector<Decision> &path) {
    if (path.empty()) {
      g = randomGenome();
      return;
    }
    do {
      size_t d = size_t(rng() % path.size());
      unsigned arity = path[d].arity;
      if (d >= g.size())
        g.resize(d + 1, 0);
      if (arity > 1)
        g[d] = (g[d] + 1 + unsigned(rng() % (arity - 1))) % arity;
    } while (rng() % 3 == 0);
  }
};

//===----------------------------------------------------------------------===//
// mcts: UCT over the decision tree; rollouts are random genomes
//===----------------------------------------------------------------------===//

class TreePolicy : public Base {
public:
  using Base::Base;
  llvm::StringRef name() const override { return "mcts"; }
  std::vector<Proposal> propose(unsigned n) override {
    std::vector<Proposal> out;
    for (unsigned tries = 0; out.size() < n && tries < 20 * n; ++tries) {
      Genome prefix;
      if (!select(prefix))
        break; // the whole tree is explored
      Genome g = prefix;
      Genome tail = randomGenome();
      g.insert(g.end(), tail.begin(), tail.end());
      if (!fresh(g))
        continue;
      // A virtual loss along the way, so that one batch spreads out.
      for (size_t d = 0; d <= prefix.size(); ++d)
        ++nodes[keyOf(Genome(prefix.begin(), prefix.begin() + d))].pending;
      prefixes[keyOf(g)] = prefix.size();
      out.emplace_back(std::move(g), "tree");
    }
    return out;
  }
  void observe(const Proposal &p, const Built &built, double cost) override {
    record(built, cost);
    auto it = prefixes.find(keyOf(p.genome));
    if (it != prefixes.end()) {
      for (size_t d = 0; d <= it->second; ++d) {
        Node &node = nodes[keyOf(Genome(p.genome.begin(), p.genome.begin() + d))];
        node.pending = node.pending ? node.pending - 1 : 0;
      }
      prefixes.erase(it);
    }
    // A proposed alternative that was not taken was refused (or skipped):
    // its subtree is closed.
    Genome realized;
    for (size_t d = 0; d < built.path.size() && d < p.genome.size(); ++d) {
      unsigned arity = built.path[d].arity;
      unsigned wanted = arity ? p.genome[d] % arity : 0;
      if (wanted != built.path[d].chosen && !p.hint) {
        Genome dead = realized;
        dead.push_back(wanted);
        nodes[keyOf(dead)].closed = true;
        break;
      }
      realized.push_back(built.path[d].chosen);
    }
    if (std::isfinite(cost) && !(baseline > 0))
      baseline = cost;
    double reward = std::isnan(cost) ? 0.5
                    : std::isfinite(cost) && cost > 0 && baseline > 0
                        ? std::min(2.0, baseline / cost) / 2
                        : 0;
    Genome prefix;
    for (size_t d = 0; d <= built.path.size(); ++d) {
      Node &node = nodes[keyOf(prefix)];
      ++node.visits;
      node.total += reward;
      node.best = std::max(node.best, reward);
      if (d == built.path.size()) {
        node.closed = true; // a complete schedule: nothing below it
        break;
      }
      node.arity = built.path[d].arity;
      prefix.push_back(built.path[d].chosen);
    }
  }

private:
  struct Node {
    unsigned arity = 0; // 0: not known yet
    unsigned visits = 0, pending = 0;
    double total = 0, best = 0;
    bool closed = false;
  };

  /// Whether nothing is left to explore below `prefix`.
  bool spent(const Genome &prefix, unsigned depth = 0) {
    auto it = nodes.find(keyOf(prefix));
    if (it == nodes.end())
      return false;
    if (it->second.closed)
      return true;
    if (!it->second.arity || depth > 3) // deep: assume more to find
      return false;
    for (unsigned a = 0; a < it->second.arity; ++a) {
      Genome c = prefix;
      c.push_back(a);
      if (!spent(c, depth + 1))
        return false;
    }
    it->second.closed = true;
    return true;
  }

  /// Walks down by UCT to a node with an untried alternative; false when
  /// the whole tree is spent.
  bool select(Genome &prefix) {
    if (spent(prefix))
      return false;
    for (unsigned depth = 0; depth < 64; ++depth) {
      Node &node = nodes[keyOf(prefix)];
      if (!node.arity)
        return true; // unknown below: a rollout from here
      std::vector<unsigned> untried;
      for (unsigned a = 0; a < node.arity; ++a) {
        Genome c = prefix;
        c.push_back(a);
        auto it = nodes.find(keyOf(c));
        if (it == nodes.end() ||
            (!it->second.visits && !it->second.pending && !it->second.closed))
          untried.push_back(a);
      }
      if (!untried.empty()) {
        prefix.push_back(untried[rng() % untried.size()]);
        return true;
      }
      double parentVisits = node.visits + node.pending + 1;
      double bestScore = -INFINITY;
      int chosen = -1;
      for (unsigned a = 0; a < node.arity; ++a) {
        Genome c = prefix;
        c.push_back(a);
        if (spent(c))
          continue;
        const Node &child = nodes[keyOf(c)];
        double n = child.visits + child.pending;
        double mean = n ? (child.total / (n ? n : 1)) : 0;
        double score = 0.5 * mean + 0.5 * child.best +
                       kExplore * std::sqrt(std::log(parentVisits) / (n + 1));
        if (score > bestScore) {
          bestScore = score;
          chosen = int(a);
        }
      }
      if (chosen < 0) {
        node.closed = true;
        return !spent(Genome{}) && select(prefix = Genome{});
      }
      prefix.push_back(unsigned(chosen));
    }
    return true;
  }

  static constexpr double kExplore = 0.4;
  std::map<std::string, Node> nodes;
  std::map<std::string, size_t> prefixes;
  double baseline = 0;
};
} // namespace

std::unique_ptr<Policy> mlir::tirx::makePolicy(llvm::StringRef name,
                                               uint64_t seed) {
  if (name == "random")
    return std::make_unique<RandomPolicy>(seed);
  if (name == "greedy")
    return std::make_unique<GreedyPolicy>(seed);
  if (name == "evolutionary")
    return std::make_unique<EvolutionaryPolicy>(seed);
  if (name == "mcts")
    return std::make_unique<TreePolicy>(seed);
  return nullptr;
}

std::vector<std::string> mlir::tirx::policyNames() {
  return {"evolutionary", "mcts", "random", "greedy"};
}
