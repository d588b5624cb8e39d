//===- tirx.cpp - the TIRx harness CLI --------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Git-like access to a workspace of immutable payload versions. Every
// command has --json output; every request is one audit line.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <iostream>
#include <set>

using namespace mlir::tirx;

static const char *kHelp = R"(usage: tirx COMMAND [ARGS] [--workspace DIR] [--json]

  init PAYLOAD.mlir [--target sm_90] [--task TEXT] [-m MSG]
                                 start a workspace; the payload becomes v1
  commit FILE.mlir --parent vN [-m MSG]
                                 record an edited payload as a child of vN
  apply vN --script SCRIPT.mlir [--policy strict|open] [-m MSG]
                                 run a transform script on vN; commit the result
  apply vN --action '{"transform": "vectorize", "params": {"width": 4}}'
                                 the same from an action (tirx schema lists them)
  apply vN --recipe RECIPE.json|NAME
                                 a list of actions, order-checked first, each a child
  schema                         the JSON Schema of every action
  log                            the version tree
  show vN                        the payload text of vN (digest verified)
  diff vA vB                     unified diff and structural summary
  view vN [--what VIEW] [--device PROFILE.json]
                                 loop_structure, thread_binding, memory_footprint,
                                 access_pattern, call_graph, roofline, summary, all
  checkout vN                    set the head an agent continues from
  export --session FILE          session.json: task, versions, steps
  export --mlir FILE             the whole history as tirx.session
  replay [--mlir FILE]           re-apply every step and check its digest
  fsck                           check every object, the index and the log
  serve                          MCP (JSON-RPC 2.0) over stdio: the tools of docs/agents.md
  run vN [--reference vR] [--timeout S] [--samples N] [--seed N] [--inputs N]
                                 lower vN and its reference (default: the seed
                                 of its chain, mapped plainly), bundle both, run
                                 them with tirx-run, keep the feedback

  --workspace DIR   default: $TIRX_WORKSPACE, else ./tirx-workspace
  --json            machine-readable output
  --actor NAME      who asks (default: $TIRX_ACTOR, else $USER); --session ID likewise
exit status: 0 done, 1 refused, 2 usage, 3 workspace damaged
)";

int main(int argc, char **argv) {
  Invocation inv;
  const char *env = std::getenv("TIRX_WORKSPACE");
  inv.workspace = env ? env : "tirx-workspace";
  const char *actor = std::getenv("TIRX_ACTOR");
  const char *user = std::getenv("USER");
  inv.actor = actor ? actor : user ? user : "unknown";
  const char *session = std::getenv("TIRX_SESSION");
  inv.session = session ? session : "";

  static const std::set<std::string> valued = {
      "--workspace", "--target", "--task", "-m", "--parent", "--script",
      "--session", "--mlir", "--actor", "--reference", "--timeout",
      "--samples", "--seed", "--inputs", "--what", "--device", "--action",
      "--policy", "--recipe"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << kHelp;
      return kOk;
    }
    if (a == "--json") {
      inv.json = true;
    } else if (valued.count(a)) {
      if (i + 1 >= argc) {
        std::cerr << "tirx: " << a << " needs a value\n";
        return kUsage;
      }
      std::string v = argv[++i];
      if (a == "--workspace")
        inv.workspace = v;
      else if (a == "--actor")
        inv.actor = v;
      else if (a == "--session" && inv.command != "export")
        inv.session = v;
      else
        inv.options[a] = v;
    } else if (a.size() > 1 && a[0] == '-') {
      std::cerr << "tirx: unknown option '" << a << "'\n" << kHelp;
      return kUsage;
    } else if (inv.command.empty()) {
      inv.command = a;
    } else {
      inv.positional.push_back(a);
    }
  }
  if (inv.command.empty()) {
    std::cerr << kHelp;
    return kUsage;
  }

  if (inv.command == "serve")
    return serve(inv.workspace, inv.actor, inv.session);
  Outcome out = runCommand(inv);
  if (inv.json && inv.command == "schema") {
    llvm::outs() << out.text;
  } else if (inv.json) {
    llvm::json::Object o = std::move(out.data);
    o["ok"] = out.exit == kOk;
    if (!out.code.empty())
      o["error"] = rejectionJSON(out);
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(o)))
                 << "\n";
  } else {
    llvm::outs() << out.text;
    if (out.exit != kOk) {
      llvm::errs() << "tirx: " << inv.command << ": "
                   << (out.code.empty() ? "" : out.code + ": ") << out.reason
                   << "\n";
      if (!out.payloadOp.empty())
        llvm::errs() << "  at " << out.payloadOp
                     << (out.payloadLoc.empty() ? "" : " (" + out.payloadLoc + ")")
                     << "\n";
      else if (!out.payloadLoc.empty())
        llvm::errs() << "  at " << out.payloadLoc << "\n";
      if (!out.hint.empty())
        llvm::errs() << "  hint: " << out.hint << "\n";
    }
  }
  llvm::outs().flush();
  return out.exit;
}
