//===- Database.cpp - the tuning database -----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Database.h"
#include "Lines.h"

#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Runtime/Files.h"
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
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

//===----------------------------------------------------------------------===//
// Workload
//===----------------------------------------------------------------------===//

namespace {

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

std::string Workload::signature() const { return digestOf(compactJSON(toJSON())); }

std::string Workload::family() const {
  json::Object shapeless{{"ops", stringArray(ops)},
                         {"element_types", stringArray(elementTypes)},
                         {"iterators", stringArray(iterators)},
                         {"target", target}};
  return digestOf(compactJSON(json::Value(std::move(shapeless))));
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

bool mlir::tirx::writeAll(int fd, llvm::StringRef bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}

llvm::Error mlir::tirx::appendLine(const std::string &path,
                                   llvm::StringRef line) {
  return appendLines(path, {line.str()});
}

llvm::Error mlir::tirx::appendLines(const std::string &path,
                                    llvm::ArrayRef<std::string> lines) {
  if (lines.empty())
    return llvm::Error::success();
  std::string text;
  for (const std::string &line : lines)
    text += line + "\n";
  int fd = ::open(path.c_str(),
                  O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return refuse(RefusalCode::io_error,
                  path + ": cannot open: " + std::strerror(errno));
  // One writer at a time, each line written whole.
  if (flock(fd, LOCK_EX) != 0) {
    ::close(fd);
    return refuse(RefusalCode::io_error, path + ": cannot lock");
  }
  // The first line: the file is new, its directory entry synced too.
  struct stat st;
  bool fresh = ::fstat(fd, &st) == 0 && st.st_size == 0;
  // A last line torn by a writer killed mid-write (no newline) is ended
  // first, so that it does not swallow this one: readers skip it alone.
  char last = '\n';
  if (!fresh && ::pread(fd, &last, 1, st.st_size - 1) != 1)
    last = '\n';
  bool ok = writeAll(fd, (last == '\n' ? "" : "\n") + text) &&
            ::fsync(fd) == 0;
  ::close(fd);
  std::string error;
  if (!ok)
    return refuse(RefusalCode::io_error, path + ": write failed");
  if (fresh && !::tirx::runtime::syncParentDirectory(path, error))
    return refuse(RefusalCode::io_error, error);
  return llvm::Error::success();
}

llvm::Error TuningDatabase::append(const TuningRecord &record) const {
  return appendLine(file, compactJSON(json::Value(record.toJSON())));
}

void mlir::tirx::readLines(
    const std::string &path,
    llvm::function_ref<void(int, llvm::Expected<json::Value>)> each) {
  std::ifstream in(path);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!llvm::StringRef(line).trim().empty())
      each(number, parseJSON(line));
  }
}

std::vector<TuningRecord>
TuningDatabase::read(std::vector<std::string> *skipped) const {
  std::vector<TuningRecord> records;
  readLines(file, [&](int number, llvm::Expected<json::Value> parsed) {
    std::string at = "line " + std::to_string(number) + ": ";
    if (!parsed) {
      std::string why = llvm::toString(parsed.takeError());
      if (skipped)
        skipped->push_back(at + why);
      return;
    }
    if (std::optional<TuningRecord> r = TuningRecord::fromJSON(*parsed))
      records.push_back(std::move(*r));
    else if (skipped)
      skipped->push_back(at + "not a tuning record of schema " +
                         std::to_string(TuningRecord::kSchema));
  });
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
      if (seen.insert(compactJSON(json::Value(json::Array(r.schedule)))).second &&
          distinct.size() < limit)
        distinct.push_back(std::move(r));
    return distinct;
  };
  std::vector<TuningRecord> exact = pick(true);
  return exact.empty() ? pick(false) : exact;
}
