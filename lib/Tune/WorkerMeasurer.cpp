//===- WorkerMeasurer.cpp - measuring through tirx-run --worker -*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Kept apart from Space.cpp: the worker's client speaks nlohmann::json,
// this file alone includes it (through Harness/Measure.h).
//
//===----------------------------------------------------------------------===//

#include "WorkerCall.h"
#include "tirx/Tune/Space.h"

#include "tirx/Harness/Measure.h"
#include "tirx/Runtime/Counters.h"
#include "tirx/Support/JSON.h"
#include "tirx/Support/Refusal.h"

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;

llvm::Expected<PreparedRequest>
mlir::tirx::prepareRequest(Session &session, const MeasureRequest &request) {
  PreparedRequest p;
  // The bundles (lowered by the builder: found, not lowered again).
  llvm::Expected<Result> bundles = session.compile(request.version);
  if (!bundles) {
    Refusal r = toRefusal(bundles.takeError());
    if (r.kind() == RefusalKind::Damaged)
      return refuse(std::move(r));
    Measurement m;
    m.code = codeName(r.code);
    m.message = r.message;
    p.failed = std::move(m);
    return p;
  }
  p.options.reference =
      bundles->data.getString("reference_bundle").value_or("").str();
  p.options.mode = request.mode;
  p.options.inputs = int(request.inputs.value_or(0));
  p.options.samples = request.samples.value_or(0);
  p.options.irVersion = request.version;
  p.bundle = bundles->data.getString("bundle").value_or("").str();
  return p;
}

llvm::Expected<Measurement>
mlir::tirx::measureOn(rt::WorkerClient &client, const PreparedRequest &prepared) {
  if (prepared.failed)
    return *prepared.failed;
  llvm::Expected<json::Value> feedback =
      mlir::tirx::measure(client, prepared.bundle, prepared.options);
  if (!feedback) {
    std::string why = llvm::toString(feedback.takeError());
    if (client.workersStarted() == 0 || llvm::StringRef(why).contains("start"))
      return refuse(RefusalCode::no_runner,
                    "the measurement worker could not start: " + why,
                    "tirx-run beside tirx or on PATH (or --runner PATH), on "
                    "a host with a CUDA device; --compile-only without one");
    Measurement m;
    m.code = "runner_failed";
    m.message = why;
    return m;
  }
  const json::Object *f = feedback->getAsObject();
  if (!f)
    return refuse(RefusalCode::runner_failed, "the worker's feedback is not an object");
  Measurement m = Measurement::ofFeedback(*f);
  if (m.code == "no_device")
    return refuse(RefusalCode::no_device,
                  "no CUDA device here: " + m.message,
                  "tirx tune --compile-only explores and lowers without a GPU "
                  "(ranking nothing)");
  return m;
}

namespace {
const json::Object *greetedDevice(rt::WorkerClient &client,
                                  std::optional<json::Value> &hello) {
  llvm::Expected<json::Value> v = parseJSON(client.greeting().dump());
  if (!v) {
    llvm::consumeError(v.takeError());
    return nullptr;
  }
  hello = std::move(*v);
  const json::Object *o = hello->getAsObject();
  return o ? o->getObject("device") : nullptr;
}
} // namespace

Fingerprint mlir::tirx::workerFingerprint(rt::WorkerClient &client,
                                          const std::string &target) {
  Fingerprint f = localFingerprint(target);
  // The worker's own device profile, when it has greeted.
  std::optional<json::Value> hello;
  if (const json::Object *device = greetedDevice(client, hello))
    applyDeviceProfile(f, *device);
  return f;
}

void mlir::tirx::applyDeviceProfile(Fingerprint &f, const json::Object &device) {
  f.gpu = device.getString("name").value_or(f.gpu).str();
  f.uuid = device.getString("uuid").value_or(f.uuid).str();
  f.smCount = int(device.getInteger("sm_count").value_or(f.smCount));
  f.clockGHz = device.getNumber("clock_ghz").value_or(f.clockGHz);
}

double mlir::tirx::workerCopyGBps(rt::WorkerClient &client) {
  std::optional<json::Value> hello;
  const json::Object *device = greetedDevice(client, hello);
  return device ? device->getNumber("copy_bandwidth_gbs").value_or(0) : 0;
}

WorkerMeasurer::WorkerMeasurer(Session &session, std::string runner)
    : session(session) {
  rt::WorkerConfig config;
  config.program = runner.empty() ? findRunner() : runner;
  program = config.program;
  client = std::make_unique<rt::WorkerClient>(config);
}

WorkerMeasurer::~WorkerMeasurer() = default;

int WorkerMeasurer::workersStarted() const { return client->workersStarted(); }

llvm::Expected<Measurement>
WorkerMeasurer::measure(const MeasureRequest &request) {
  llvm::Expected<PreparedRequest> prepared = prepareRequest(session, request);
  if (!prepared)
    return prepared.takeError();
  llvm::Expected<Measurement> measured = measureOn(*client, *prepared);
  if (!measured || !request.counters || !measured->ok())
    return measured;
  // ncu wraps a process of its own: a worker started for it alone.
  Measurement m = std::move(*measured);
  rt::Manifest manifest;
  std::string error;
  rt::HardwareCounters c;
  c.status = "unavailable";
  c.note = "the bundle's manifest: ";
  if (rt::readManifest(prepared->bundle, manifest, error)) {
    rt::CounterRequest r;
    r.program = program;
    r.bundle = prepared->bundle;
    r.manifest = &manifest;
    c = rt::collectCounters(r);
  } else {
    c.note += error;
  }
  if (llvm::Expected<json::Value> v = parseJSON(rt::serializeCounters(c))) {
    if (const json::Object *o = v->getAsObject())
      m.counters = *o;
  } else {
    llvm::consumeError(v.takeError());
  }
  return m;
}

Fingerprint WorkerMeasurer::fingerprint() {
  return workerFingerprint(*client, session.workspace().target());
}
