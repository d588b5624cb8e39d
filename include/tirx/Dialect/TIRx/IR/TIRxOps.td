//===- TIRxOps.td - TIRx history ops -----------------------*- tablegen -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A whole session as MLIR: the snapshots (each a payload module with its
// digest and parent) and the steps that produced them.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_IR_TIRXOPS_TD
#define TIRX_DIALECT_TIRX_IR_TIRXOPS_TD

include "tirx/Dialect/TIRx/IR/TIRxDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/OpAsmInterface.td"

class TIRx_Op<string mnemonic, list<Trait> traits = []>
    : Op<TIRx_Dialect, mnemonic, traits>;

def TIRx_SessionOp : TIRx_Op<"session", [
    SymbolTable, Symbol, NoTerminator, SingleBlock, IsolatedFromAbove,
    NoRegionArguments]> {
  let summary = "the history of one workspace";
  let description = [{
    Holds every snapshot of a workspace and every step between them, in the
    order they were made. `tirx export --mlir` writes it and `tirx replay
    --mlir` re-applies its steps.

    ```mlir
    tirx.session @saxpy attributes {task = "optimize saxpy", target = "sm_90"} {
      tirx.snapshot @v1 digest "sha256:..." {
        module { ... }
      }
      tirx.snapshot @v2 parent @v1 digest "sha256:..." {
        module { ... }
      }
      tirx.step @v1 -> @v2 kind "apply" script "module attributes ... {...}"
    }
    ```

    The verifier checks that every parent exists and that the parent links
    have no cycle.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def TIRx_SnapshotOp : TIRx_Op<"snapshot", [
    Symbol, NoTerminator, SingleBlock, IsolatedFromAbove, NoRegionArguments,
    HasParent<"SessionOp">, DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getDefaultDialect"]>]> {
  let summary = "one immutable payload version";
  let description = [{
    A payload module with its version id (the symbol name), its parent's id
    (absent for a root) and the digest of its canonical text (the module
    printed without locations, as the store writes it). The verifier
    recomputes the digest: a snapshot whose payload was edited does not
    verify.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<FlatSymbolRefAttr>:$parent,
                       StrAttr:$digest,
                       OptionalAttr<StrAttr>:$message);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`parent` $parent^)? `digest` $digest attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The payload module of the snapshot, or null when malformed.
    ::mlir::ModuleOp getPayload();
  }];
}

def TIRx_StepOp : TIRx_Op<"step", [
    HasParent<"SessionOp">, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "how a snapshot was made from its parent";
  let description = [{
    `kind` is `apply` (a transform script, held in `script`, applied to
    `from` gave `to`: replay re-derives it) or `commit` (an edited payload
    committed by hand: replay can only check its digest). `action` holds the
    action's JSON when the step came from one.
  }];
  let arguments = (ins FlatSymbolRefAttr:$from, FlatSymbolRefAttr:$to,
                       StrAttr:$kind,
                       OptionalAttr<StrAttr>:$script,
                       OptionalAttr<StrAttr>:$action);
  let assemblyFormat = "$from `->` $to `kind` $kind attr-dict";
  let hasVerifier = 1;
}

#endif // TIRX_DIALECT_TIRX_IR_TIRXOPS_TD
