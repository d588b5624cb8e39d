/*===-- tirx-c/Harness.h - C API of the TIRx harness --------------*- C -*-===*\
|*                                                                            *|
|* Part of TIRx, an open compiler harness for agentic GPU programming.        *|
|*                                                                            *|
|* The harness for other languages, in the style of mlir-c: opaque handles,   *|
|* plain C types, every request returns a TirxOutcome that owns its strings.  *|
|* A refusal is data: its code, message, hint, payload op and location.      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TIRX_C_HARNESS_H
#define TIRX_C_HARNESS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A session on a workspace (see tirx/Harness/Session.h). */
typedef struct TirxSessionImpl *TirxSession;
/** The outcome of one request: a result or a refusal. */
typedef struct TirxOutcomeImpl *TirxOutcome;

/*===----------------------------------------------------------------------===*
 * Registration
 *===----------------------------------------------------------------------===*/

/** Registers TIRx's dialect, its transform ops and every dialect and
 * extension its tools use (linalg's external models included). */
MLIR_CAPI_EXPORTED void tirxRegisterAllDialects(MlirDialectRegistry registry);

/** Registers TIRx's passes (tirx-lower-to-nvvm, tirx-export-bundle, ...). */
MLIR_CAPI_EXPORTED void tirxRegisterAllPasses(void);

/*===----------------------------------------------------------------------===*
 * Sessions
 *===----------------------------------------------------------------------===*/

/** Creates the workspace `dir` with `payload` (MLIR text, named `name` in
 * messages) as v1 for `target` (e.g. "sm_90"); on success `*session` is set
 * (destroy it with tirxSessionDestroy). */
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionInit(const char *dir,
                                               const char *payload,
                                               const char *name,
                                               const char *target,
                                               TirxSession *session);

/** Opens the workspace `dir` for `actor`; on success `*session` is set. */
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionOpen(const char *dir,
                                               const char *actor,
                                               TirxSession *session);

MLIR_CAPI_EXPORTED void tirxSessionDestroy(TirxSession session);

/** Applies an action ({"transform": ..., "params": ..., "target": ...}). */
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionApplyAction(TirxSession session,
                                                      const char *version,
                                                      const char *actionJSON);

/** Applies a transform script under `policy` ("strict" or "open"). */
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionApplyScript(TirxSession session,
                                                      const char *version,
                                                      const char *script,
                                                      const char *policy);

/** Applies a recipe (a JSON array of actions). */
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionApplyRecipe(TirxSession session,
                                                      const char *version,
                                                      const char *recipeJSON);

MLIR_CAPI_EXPORTED TirxOutcome tirxSessionShow(TirxSession session,
                                               const char *version);
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionView(TirxSession session,
                                               const char *version,
                                               const char *what);
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionDiff(TirxSession session,
                                               const char *from,
                                               const char *to);
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionLog(TirxSession session);
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionCheckout(TirxSession session,
                                                   const char *version);
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionRun(TirxSession session,
                                              const char *version);
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionReplay(TirxSession session);
MLIR_CAPI_EXPORTED TirxOutcome tirxSessionFsck(TirxSession session);

/** The JSON Schema of every action (the outcome's JSON). */
MLIR_CAPI_EXPORTED TirxOutcome tirxActionSchema(void);

/*===----------------------------------------------------------------------===*
 * Outcomes: strings stay valid until tirxOutcomeDestroy.
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED bool tirxOutcomeIsOk(TirxOutcome outcome);
/** The version made or concerned; "" when none. */
MLIR_CAPI_EXPORTED const char *tirxOutcomeVersion(TirxOutcome outcome);
/** Text for people. */
MLIR_CAPI_EXPORTED const char *tirxOutcomeText(TirxOutcome outcome);
/** The whole outcome as JSON: the result's data with "ok", or "ok": false
 * with "error": the refusal. */
MLIR_CAPI_EXPORTED const char *tirxOutcomeJSON(TirxOutcome outcome);
/** The refusal's fields; NULL when the outcome is ok. */
MLIR_CAPI_EXPORTED const char *tirxOutcomeRefusalCode(TirxOutcome outcome);
MLIR_CAPI_EXPORTED const char *tirxOutcomeRefusalMessage(TirxOutcome outcome);
MLIR_CAPI_EXPORTED const char *tirxOutcomeRefusalHint(TirxOutcome outcome);
MLIR_CAPI_EXPORTED const char *tirxOutcomeRefusalPayloadOp(TirxOutcome outcome);
MLIR_CAPI_EXPORTED const char *tirxOutcomeRefusalLocation(TirxOutcome outcome);
/** 0 ok, 1 refused, 2 usage, 3 workspace damaged, 4 resource limit. */
MLIR_CAPI_EXPORTED int tirxOutcomeExitStatus(TirxOutcome outcome);
MLIR_CAPI_EXPORTED void tirxOutcomeDestroy(TirxOutcome outcome);

#ifdef __cplusplus
}
#endif

#endif /* TIRX_C_HARNESS_H */
