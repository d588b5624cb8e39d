//===- WorkerMeasurer.cpp - measuring through tirx-run --worker -*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Kept apart from Space.cpp: the worker's client speaks nlohmann::json,
// this file alone includes it (through Harness/Measure.h).
//
//===----------------------------------------------------------------------===//

#include "tirx/Tune/Space.h"

#include "tirx/Harness/Measure.h"
#include "tirx/Runtime/Counters.h"
#include "tirx/Support/JSON.h"
#include "tirx/Support/Refusal.h"

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;

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
  // The bundles (lowered by the builder: found, not lowered again).
  llvm::Expected<Result> bundles = session.compile(request.version);
  if (!bundles) {
    Refusal r = toRefusal(bundles.takeError());
    if (r.kind() == RefusalKind::Damaged)
      return refuse(std::move(r));
    Measurement m;
    m.code = codeName(r.code);
    m.message = r.message;
    return m;
  }
  rt::MeasureOptions options;
  options.reference =
      bundles->data.getString("reference_bundle").value_or("").str();
  options.mode = request.mode;
  options.inputs = int(request.inputs.value_or(0));
  options.samples = request.samples.value_or(0);
  options.irVersion = request.version;
  std::string bundle = bundles->data.getString("bundle").value_or("").str();
  llvm::Expected<json::Value> feedback = mlir::tirx::measure(*client, bundle, options);
  if (!feedback) {
    std::string why = llvm::toString(feedback.takeError());
    if (client->workersStarted() == 0 || llvm::StringRef(why).contains("start"))
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
  if (request.counters && m.ok()) {
    // ncu wraps a process of its own: a worker started for it alone.
    rt::Manifest manifest;
    std::string error;
    rt::HardwareCounters c;
    c.status = "unavailable";
    c.note = "the bundle's manifest: " + error;
    if (rt::readManifest(bundle, manifest, error)) {
      rt::CounterRequest r;
      r.program = program;
      r.bundle = bundle;
      r.manifest = &manifest;
      c = rt::collectCounters(r);
    } else {
      c.note += error;
    }
    if (llvm::Expected<json::Value> v = parseJSON(rt::serializeCounters(c)))
      if (const json::Object *o = v->getAsObject())
        m.counters = *o;
  }
  if (m.code == "no_device")
    return refuse(RefusalCode::no_device,
                  "no CUDA device here: " + m.message,
                  "tirx tune --compile-only explores and lowers without a GPU "
                  "(ranking nothing)");
  return m;
}

Fingerprint WorkerMeasurer::fingerprint() {
  Fingerprint f = localFingerprint(session.workspace().target());
  // The worker's own device profile, when it has greeted.
  llvm::Expected<json::Value> hello = parseJSON(client->greeting().dump());
  if (!hello) {
    llvm::consumeError(hello.takeError());
    return f;
  }
  const json::Object *o = hello->getAsObject();
  const json::Object *device = o ? o->getObject("device") : nullptr;
  if (device) {
    f.gpu = device->getString("name").value_or(f.gpu).str();
    f.uuid = device->getString("uuid").value_or(f.uuid).str();
    f.smCount = int(device->getInteger("sm_count").value_or(f.smCount));
    f.clockGHz = device->getNumber("clock_ghz").value_or(f.clockGHz);
  }
  return f;
}
