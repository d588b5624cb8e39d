//===- Database.cpp - the tuning database -----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Database.h"

#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Support/JSON.h"
#include "tirx/Support/Refusal.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

//===----------------------------------------------------------------------===//
// Workload
//===----------------------------------------------------------------------===//

namespace {
std::string text(const json::Value &v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << v;
  return s;
}

json::Array stringArray(const std::vector<std::string> &items) {
  json::Array out;
  for (const std::string &s : items)
    out.push_back(s);
  return out;
}

bool readStrings(const json::Object &o, llvm::StringRef key,
                 std::vector<std::string> &out) {
  const json::Array *a = o.getArray(key);
  if (!a)
    return false;
  for (const json::Value &v : *a) {
    auto s = v.getAsString();
    if (!s)
      return false;
    out.push_back(s->str());
  }
  return true;
}
} // namespace

json::Object Workload::toJSON() const {
  json::Array shapeList;
  for (const auto &shape : shapes) {
    json::Array dims;
    for (int64_t d : shape)
      dims.push_back(d);
    shapeList.push_back(std::move(dims));
  }
  return json::Object{{"ops", stringArray(ops)},
                      {"shapes", std::move(shapeList)},
                      {"element_types", stringArray(elementTypes)},
                      {"iterators", stringArray(iterators)},
                      {"target", target}};
}

std::optional<Workload> Workload::fromJSON(const json::Value &v) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return std::nullopt;
  Workload w;
  if (!readStrings(*o, "ops", w.ops) ||
      !readStrings(*o, "element_types", w.elementTypes) ||
      !readStrings(*o, "iterators", w.iterators))
    return std::nullopt;
  w.target = o->getString("target").value_or("").str();
  const json::Array *shapes = o->getArray("shapes");
  if (!shapes)
    return std::nullopt;
  for (const json::Value &s : *shapes) {
    const json::Array *dims = s.getAsArray();
    if (!dims)
      return std::nullopt;
    std::vector<int64_t> shape;
    for (const json::Value &d : *dims) {
      auto i = d.getAsInteger();
      if (!i)
        return std::nullopt;
      shape.push_back(*i);
    }
    w.shapes.push_back(std::move(shape));
  }
  return w;
}

std::string Workload::signature() const { return digestOf(text(toJSON())); }

std::string Workload::family() const {
  json::Object shapeless{{"ops", stringArray(ops)},
                         {"element_types", stringArray(elementTypes)},
                         {"iterators", stringArray(iterators)},
                         {"target", target}};
  return digestOf(text(json::Value(std::move(shapeless))));
}

Workload mlir::tirx::workloadOf(ModuleOp module, llvm::StringRef target) {
  Workload w;
  w.target = target.str();
  module->walk([&](linalg::LinalgOp op) {
    w.ops.push_back(op->getName().getStringRef().str());
    std::string iterators;
    for (utils::IteratorType t : op.getIteratorTypesArray())
      iterators += t == utils::IteratorType::parallel ? 'p' : 'r';
    w.iterators.push_back(iterators);
    for (Value operand : op->getOperands()) {
      auto shaped = dyn_cast<ShapedType>(operand.getType());
      std::vector<int64_t> shape;
      std::string element;
      llvm::raw_string_ostream os(element);
      if (shaped) {
        for (int64_t d : shaped.getShape())
          shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
        os << shaped.getElementType();
      } else {
        os << operand.getType();
      }
      w.shapes.push_back(std::move(shape));
      w.elementTypes.push_back(element);
    }
  });
  return w;
}

//===----------------------------------------------------------------------===//
// Fingerprint and record
//===----------------------------------------------------------------------===//

std::string Fingerprint::key() const {
  return gpu + "|" + uuid + "|" + std::to_string(smCount) + "|" + driver +
         "|" + cuda + "|" + tirx + "|" + lowering;
}

json::Object Fingerprint::toJSON() const {
  return json::Object{{"gpu", gpu},       {"uuid", uuid},
                      {"sm_count", smCount}, {"clock_ghz", clockGHz},
                      {"driver", driver}, {"cuda", cuda},
                      {"tirx", tirx},     {"lowering", lowering}};
}

Fingerprint Fingerprint::fromJSON(const json::Object &o) {
  Fingerprint f;
  auto str = [&](const char *key) {
    return o.getString(key).value_or("").str();
  };
  f.gpu = str("gpu");
  f.uuid = str("uuid");
  f.driver = str("driver");
  f.cuda = str("cuda");
  f.tirx = str("tirx");
  f.lowering = str("lowering");
  f.smCount = int(o.getInteger("sm_count").value_or(0));
  f.clockGHz = o.getNumber("clock_ghz").value_or(0);
  return f;
}

TuningRecord::TuningRecord(const TuningRecord &other)
    : workload(other.workload), schedule(json::Array(other.schedule)),
      medianUs(other.medianUs), samples(other.samples),
      correctness(other.correctness), where(other.where), time(other.time) {}

TuningRecord &TuningRecord::operator=(const TuningRecord &other) {
  if (this != &other) {
    TuningRecord copy(other);
    *this = std::move(copy);
  }
  return *this;
}

json::Object TuningRecord::toJSON() const {
  return json::Object{{"schema", kSchema},
                      {"workload", workload.toJSON()},
                      {"signature", workload.signature()},
                      {"family", workload.family()},
                      {"schedule", json::Array(schedule)},
                      {"median_us", medianUs},
                      {"samples", samples},
                      {"correctness", correctness},
                      {"fingerprint", where.toJSON()},
                      {"time", time}};
}

std::optional<TuningRecord> TuningRecord::fromJSON(const json::Value &v) {
  const json::Object *o = v.getAsObject();
  if (!o || o->getInteger("schema") != kSchema)
    return std::nullopt;
  TuningRecord r;
  const json::Value *workload = o->get("workload");
  std::optional<Workload> w =
      workload ? Workload::fromJSON(*workload) : std::nullopt;
  const json::Array *schedule = o->getArray("schedule");
  const json::Object *where = o->getObject("fingerprint");
  auto median = o->getNumber("median_us");
  if (!w || !schedule || !where || !median)
    return std::nullopt;
  r.workload = std::move(*w);
  r.schedule = *schedule;
  r.medianUs = *median;
  r.samples = o->getInteger("samples").value_or(0);
  r.correctness = o->getString("correctness").value_or("").str();
  r.where = Fingerprint::fromJSON(*where);
  r.time = o->getString("time").value_or("").str();
  return r;
}

//===----------------------------------------------------------------------===//
// The file
//===----------------------------------------------------------------------===//

llvm::Error TuningDatabase::append(const TuningRecord &record) const {
  std::string line = text(json::Value(record.toJSON())) + "\n";
  int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
                                    O_NOFOLLOW,
                  0644);
  if (fd < 0)
    return refuse(RefusalCode::io_error,
                  file + ": cannot open: " + std::strerror(errno));
  // One writer at a time, each line written whole.
  if (flock(fd, LOCK_EX) != 0) {
    ::close(fd);
    return refuse(RefusalCode::io_error, file + ": cannot lock");
  }
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += size_t(n);
  }
  bool ok = done == line.size() && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok)
    return refuse(RefusalCode::io_error, file + ": write failed");
  return llvm::Error::success();
}

std::vector<TuningRecord>
TuningDatabase::read(std::vector<std::string> *skipped) const {
  std::vector<TuningRecord> records;
  std::ifstream in(file);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (llvm::StringRef(line).trim().empty())
      continue;
    llvm::Expected<json::Value> parsed = parseJSON(line);
    if (!parsed) {
      if (skipped)
        skipped->push_back("line " + std::to_string(number) + ": " +
                           llvm::toString(parsed.takeError()));
      else
        llvm::consumeError(parsed.takeError());
      continue;
    }
    std::optional<TuningRecord> r = TuningRecord::fromJSON(*parsed);
    if (!r) {
      if (skipped)
        skipped->push_back("line " + std::to_string(number) +
                           ": not a tuning record of schema " +
                           std::to_string(TuningRecord::kSchema));
      continue;
    }
    records.push_back(std::move(*r));
  }
  return records;
}

std::vector<TuningRecord> TuningDatabase::best(const Workload &workload,
                                               const Fingerprint &where,
                                               size_t limit) const {
  std::vector<TuningRecord> all = read();
  auto pick = [&](bool exact) {
    std::vector<TuningRecord> chosen;
    std::string signature = workload.signature(), family = workload.family();
    for (TuningRecord &r : all)
      if (r.correctness == "pass" && r.where.key() == where.key() &&
          (exact ? r.workload.signature() == signature
                 : r.workload.family() == family))
        chosen.push_back(r);
    std::stable_sort(chosen.begin(), chosen.end(),
                     [](const TuningRecord &a, const TuningRecord &b) {
                       return a.medianUs < b.medianUs;
                     });
    std::vector<TuningRecord> distinct;
    std::set<std::string> seen;
    for (TuningRecord &r : chosen)
      if (seen.insert(text(json::Value(json::Array(r.schedule)))).second &&
          distinct.size() < limit)
        distinct.push_back(std::move(r));
    return distinct;
  };
  std::vector<TuningRecord> exact = pick(true);
  return exact.empty() ? pick(false) : exact;
}
