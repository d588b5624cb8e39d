//===- Serve.h - tirx serve: MCP over stdio ---------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TOOLS_TIRX_SERVE_H
#define TIRX_TOOLS_TIRX_SERVE_H

#include "tirx/Harness/Session.h"

#include <string>

namespace mlir::tirx {
/// Serves MCP over stdin/stdout until EOF.
int serve(const std::string &workspace, const Identity &who);
} // namespace mlir::tirx

#endif // TIRX_TOOLS_TIRX_SERVE_H
