//===- TIRxOps.cpp - TIRx history ops ---------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Dialect/TIRx/IR/TIRxAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SHA256.h"

using namespace mlir;
using namespace mlir::tirx;

#define GET_OP_CLASSES
#include "tirx/Dialect/TIRx/IR/TIRxOps.cpp.inc"

void TIRxDialect::registerOperations() {
  addOperations<
#define GET_OP_LIST
#include "tirx/Dialect/TIRx/IR/TIRxOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Canonical text and digests
//===----------------------------------------------------------------------===//

std::string mlir::tirx::canonicalText(ModuleOp module) {
  // A detached copy prints the same whether the module stands alone or is
  // nested in a snapshot.
  OwningOpRef<ModuleOp> copy = module.clone();
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os, OpPrintingFlags().enableDebugInfo(false));
  return text; // ends with a newline, as a file should
}

std::string mlir::tirx::digestOf(StringRef text) {
  llvm::SHA256 hash;
  hash.update(text);
  std::array<uint8_t, 32> bytes = hash.final();
  return "sha256:" + llvm::toHex(bytes, /*LowerCase=*/true);
}

//===----------------------------------------------------------------------===//
// SessionOp
//===----------------------------------------------------------------------===//

LogicalResult SessionOp::verifyRegions() {
  // Parent links must end at a root: no cycle.
  llvm::StringMap<StringRef> parentOf;
  for (auto snapshot : getBody().getOps<SnapshotOp>())
    if (auto parent = snapshot.getParentAttr())
      parentOf[snapshot.getSymName()] = parent.getValue();
  for (auto &entry : parentOf) {
    llvm::StringSet<> seen;
    StringRef at = entry.getKey();
    while (true) {
      if (!seen.insert(at).second)
        return emitOpError() << "snapshot @" << entry.getKey()
                             << " is its own ancestor (a cycle through @" << at
                             << ")";
      auto it = parentOf.find(at);
      if (it == parentOf.end())
        break;
      at = it->second;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SnapshotOp
//===----------------------------------------------------------------------===//

// The payload inside reads as it does on its own: `module { ... }`.
StringRef SnapshotOp::getDefaultDialect() { return "builtin"; }

ModuleOp SnapshotOp::getPayload() {
  Block &block = getBody().front();
  if (!llvm::hasSingleElement(block))
    return {};
  return dyn_cast<ModuleOp>(block.front());
}

LogicalResult SnapshotOp::verifyRegions() {
  if (!isValidVersionId(getSymName()))
    return emitOpError() << "version id \"" << getSymName()
                         << "\" is invalid: use 1 to 64 characters of "
                            "[A-Za-z0-9_.-], not starting with '.'";
  ModuleOp payload = getPayload();
  if (!payload)
    return emitOpError() << "must hold exactly one builtin.module, the payload";
  if (!isValidDigest(getDigest()))
    return emitOpError() << "digest \"" << getDigest()
                         << "\" is invalid: expected 'sha256:' followed by 64 "
                            "lower-case hex digits";
  std::string actual = digestOf(canonicalText(payload));
  if (actual != getDigest())
    return emitOpError() << "digest mismatch: recorded " << getDigest()
                         << ", the payload's canonical text has " << actual;
  return success();
}

LogicalResult
SnapshotOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto parent = getParentAttr();
  if (!parent)
    return success();
  if (parent.getValue() == getSymName())
    return emitOpError() << "@" << getSymName() << " cannot be its own parent";
  auto session = (*this)->getParentOfType<SessionOp>();
  if (!symbolTable.lookupSymbolIn<SnapshotOp>(session, parent))
    return emitOpError() << "parent " << parent
                         << " is not a snapshot of this session";
  return success();
}

//===----------------------------------------------------------------------===//
// StepOp
//===----------------------------------------------------------------------===//

LogicalResult StepOp::verify() {
  if (getKind() != "apply" && getKind() != "commit")
    return emitOpError() << "kind must be \"apply\" or \"commit\", got \""
                         << getKind() << "\"";
  if (getKind() == "apply" && !getScript())
    return emitOpError() << "an apply step needs its script";
  return success();
}

LogicalResult StepOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto session = (*this)->getParentOfType<SessionOp>();
  auto from = symbolTable.lookupSymbolIn<SnapshotOp>(session, getFromAttr());
  auto to = symbolTable.lookupSymbolIn<SnapshotOp>(session, getToAttr());
  if (!from)
    return emitOpError() << getFromAttr() << " is not a snapshot of this session";
  if (!to)
    return emitOpError() << getToAttr() << " is not a snapshot of this session";
  if (!to.getParentAttr() || to.getParentAttr() != getFromAttr())
    return emitOpError() << "@" << to.getSymName() << " is not a child of "
                         << getFromAttr();
  return success();
}
