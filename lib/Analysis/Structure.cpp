//===- Structure.cpp - what a payload is made of ----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/Structure.h"
#include "tirx/Analysis/Access.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/StringExtras.h"

#include <sstream>

using namespace mlir;
using namespace mlir::tirx;

static std::string mappingText(ArrayAttr mapping) {
  if (!mapping)
    return "";
  std::vector<std::string> parts;
  for (Attribute a : mapping)
    parts.push_back(mappingName(a));
  return llvm::join(parts, ", ");
}

static int64_t product(ArrayRef<std::optional<int64_t>> values) {
  int64_t p = 1;
  for (auto v : values) {
    if (!v)
      return -1;
    p *= *v;
  }
  return p;
}

StructureSummary mlir::tirx::summarizeStructure(ModuleOp module) {
  StructureSummary s;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == module.getOperation())
      return;
    s.opCounts[op->getName().getStringRef().str()]++;
    unsigned depth = 0;
    for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
      if (isa<scf::ForallOp, scf::ForOp, scf::ParallelOp, gpu::LaunchOp>(p))
        ++depth;
    if (auto forall = dyn_cast<scf::ForallOp>(op)) {
      SmallVector<std::optional<int64_t>> trips;
      for (auto [lb, ub, step] :
           llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                     forall.getMixedStep())) {
        auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
             st = getConstantIntValue(step);
        trips.push_back(l && u && st && *st > 0
                            ? std::optional<int64_t>((*u - *l + *st - 1) / *st)
                            : std::nullopt);
      }
      s.loops.push_back({"scf.forall",
                         mappingText(forall.getMapping().value_or(ArrayAttr())),
                         product(trips), depth});
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      auto l = getConstantIntValue(loop.getLowerBound());
      auto u = getConstantIntValue(loop.getUpperBound());
      auto st = getConstantIntValue(loop.getStep());
      s.loops.push_back({"scf.for", "",
                         l && u && st && *st > 0 ? (*u - *l + *st - 1) / *st
                                                 : -1,
                         depth});
    } else if (isa<scf::ParallelOp>(op)) {
      s.loops.push_back({"scf.parallel", "", -1, depth});
    } else if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      auto g = launch.getGridSizeOperandValues();
      auto b = launch.getBlockSizeOperandValues();
      auto c = [](Value v) {
        auto x = getConstantIntValue(v);
        return x ? std::to_string(*x) : std::string("?");
      };
      s.launches.push_back("grid " + c(g.x) + "x" + c(g.y) + "x" + c(g.z) +
                           ", block " + c(b.x) + "x" + c(b.y) + "x" + c(b.z));
      s.loops.push_back({"gpu.launch", "", -1, depth});
    } else if (isa<gpu::BarrierOp>(op)) {
      s.barriers++;
    } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      s.buffersBySpace[memorySpaceName(alloc.getType())]++;
    } else if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      s.buffersBySpace[memorySpaceName(alloca.getType())]++;
    }
    VectorType vector;
    if (auto r = dyn_cast<vector::TransferReadOp>(op))
      vector = r.getVectorType();
    else if (auto w = dyn_cast<vector::TransferWriteOp>(op))
      vector = w.getVectorType();
    else if (auto l = dyn_cast<vector::LoadOp>(op))
      vector = l.getVectorType();
    else if (auto st = dyn_cast<vector::StoreOp>(op))
      vector = st.getVectorType();
    if (vector && vector.getRank() >= 1)
      s.vectorWidths.insert(vector.getShape().back());
  });
  return s;
}

static std::string widths(const std::set<int64_t> &w) {
  if (w.empty())
    return "1";
  std::vector<std::string> parts;
  for (int64_t x : w)
    parts.push_back(std::to_string(x));
  return llvm::join(parts, "/");
}

static std::string loopName(const LoopInfo &l, size_t index) {
  std::string name = l.kind + "#" + std::to_string(index);
  if (!l.mapping.empty())
    name += " (" + l.mapping + ")";
  return name;
}

std::vector<std::string>
mlir::tirx::describeChanges(const StructureSummary &a,
                            const StructureSummary &b) {
  std::vector<std::string> lines;
  // Loops, position by position.
  size_t n = std::max(a.loops.size(), b.loops.size());
  for (size_t i = 0; i < n; ++i) {
    if (i >= a.loops.size()) {
      lines.push_back("loop added: " + loopName(b.loops[i], i) +
                      (b.loops[i].iterations >= 0
                           ? ", " + std::to_string(b.loops[i].iterations) +
                                 " iterations"
                           : ""));
      continue;
    }
    if (i >= b.loops.size()) {
      lines.push_back("loop removed: " + loopName(a.loops[i], i));
      continue;
    }
    const LoopInfo &x = a.loops[i], &y = b.loops[i];
    if (x.kind != y.kind || x.mapping != y.mapping)
      lines.push_back("loop " + std::to_string(i) + ": " + loopName(x, i) +
                      " -> " + loopName(y, i));
    else if (x.iterations != y.iterations)
      lines.push_back(loopName(y, i) + ": " + std::to_string(x.iterations) +
                      " -> " + std::to_string(y.iterations) + " iterations");
  }
  if (a.launches != b.launches) {
    for (size_t i = 0; i < std::max(a.launches.size(), b.launches.size());
         ++i) {
      std::string x = i < a.launches.size() ? a.launches[i] : "none";
      std::string y = i < b.launches.size() ? b.launches[i] : "none";
      if (x != y)
        lines.push_back("gpu.launch#" + std::to_string(i) + ": " + x + " -> " +
                        y);
    }
  }
  if (a.vectorWidths != b.vectorWidths)
    lines.push_back("vector width " + widths(a.vectorWidths) + " -> " +
                    widths(b.vectorWidths));
  if (a.barriers != b.barriers)
    lines.push_back("barriers " + std::to_string(a.barriers) + " -> " +
                    std::to_string(b.barriers));
  std::set<std::string> spaces;
  for (auto &[k, v] : a.buffersBySpace)
    spaces.insert(k);
  for (auto &[k, v] : b.buffersBySpace)
    spaces.insert(k);
  for (const std::string &space : spaces) {
    int x = a.buffersBySpace.count(space) ? a.buffersBySpace.at(space) : 0;
    int y = b.buffersBySpace.count(space) ? b.buffersBySpace.at(space) : 0;
    if (x != y)
      lines.push_back(space + " buffers " + std::to_string(x) + " -> " +
                      std::to_string(y));
  }
  // Op counts.
  std::vector<std::string> added, removed;
  std::set<std::string> names;
  for (auto &[k, v] : a.opCounts)
    names.insert(k);
  for (auto &[k, v] : b.opCounts)
    names.insert(k);
  for (const std::string &name : names) {
    int x = a.opCounts.count(name) ? a.opCounts.at(name) : 0;
    int y = b.opCounts.count(name) ? b.opCounts.at(name) : 0;
    if (y > x)
      added.push_back("+" + std::to_string(y - x) + " " + name);
    else if (x > y)
      removed.push_back("-" + std::to_string(x - y) + " " + name);
  }
  if (!added.empty() || !removed.empty()) {
    std::vector<std::string> all = added;
    all.insert(all.end(), removed.begin(), removed.end());
    lines.push_back("ops: " + llvm::join(all, ", "));
  }
  return lines;
}

std::string mlir::tirx::unifiedDiff(llvm::StringRef before,
                                    llvm::StringRef after,
                                    llvm::StringRef beforeName,
                                    llvm::StringRef afterName) {
  if (before == after)
    return "";
  SmallVector<llvm::StringRef> a, b;
  before.split(a, '\n');
  after.split(b, '\n');
  size_t n = a.size(), m = b.size();
  if (n * m > 50'000'000)
    return "--- " + beforeName.str() + "\n+++ " + afterName.str() +
           "\n(too large for a line diff: " + std::to_string(n) + " and " +
           std::to_string(m) + " lines)\n";
  // Longest common subsequence table, from the ends.
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1
                               : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  // The edit script: ' ' keep, '-' remove, '+' add.
  struct Edit {
    char kind;
    size_t i, j;
  };
  std::vector<Edit> edits;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j])
      edits.push_back({' ', i++, j++});
    else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]))
      edits.push_back({'-', i++, j});
    else
      edits.push_back({'+', i, j++});
  }
  // Hunks with 3 lines of context.
  std::ostringstream out;
  out << "--- " << beforeName.str() << "\n+++ " << afterName.str() << "\n";
  const size_t context = 3;
  size_t k = 0;
  while (k < edits.size()) {
    while (k < edits.size() && edits[k].kind == ' ')
      ++k;
    if (k == edits.size())
      break;
    size_t start = k >= context ? k - context : 0;
    size_t end = k;
    size_t lastChange = k;
    while (end < edits.size()) {
      if (edits[end].kind != ' ')
        lastChange = end;
      else if (end - lastChange > 2 * context)
        break;
      ++end;
    }
    end = std::min(edits.size(), lastChange + context + 1);
    size_t aStart = edits[start].i, bStart = edits[start].j, aLen = 0, bLen = 0;
    for (size_t e = start; e < end; ++e) {
      aLen += edits[e].kind != '+';
      bLen += edits[e].kind != '-';
    }
    out << "@@ -" << aStart + 1 << "," << aLen << " +" << bStart + 1 << ","
        << bLen << " @@\n";
    for (size_t e = start; e < end; ++e) {
      const Edit &ed = edits[e];
      out << ed.kind << (ed.kind == '+' ? b[ed.j] : a[ed.i]).str() << "\n";
    }
    k = end;
  }
  return out.str();
}
