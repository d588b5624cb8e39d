/*===- harness.c - a C program using the TIRx C API ---------------*- C -*-===*\
|*                                                                            *|
|* Part of TIRx. Usage: tirx-capi-test WORKSPACE PAYLOAD.mlir                 *|
|* Registers TIRx into an MLIR C registry and parses the payload with it,     *|
|* then starts a session, has an action refused and reads the refusal as      *|
|* data, applies a legal one, repeats it (deduplicated), and reads the log.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tirx-c/Harness.h"

#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  size_t got = fread(text, 1, (size_t)n, f);
  text[got] = 0;
  fclose(f);
  return text;
}

static void print(const char *what, TirxOutcome o) {
  if (tirxOutcomeIsOk(o)) {
    printf("%s: ok %s\n", what, tirxOutcomeVersion(o));
    return;
  }
  printf("%s: refused %s (exit %d)\n", what, tirxOutcomeRefusalCode(o),
         tirxOutcomeExitStatus(o));
  printf("  message: %s\n", tirxOutcomeRefusalMessage(o));
  printf("  payload op: %s\n", tirxOutcomeRefusalPayloadOp(o));
  printf("  hint: %s\n", tirxOutcomeRefusalHint(o));
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s WORKSPACE PAYLOAD.mlir\n", argv[0]);
    return 2;
  }
  char *payload = slurp(argv[2]);
  if (!payload) {
    fprintf(stderr, "cannot read %s\n", argv[2]);
    return 2;
  }

  /* Registration into a registry of the caller's. */
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tirxRegisterAllDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(payload));
  printf("parsed with the registry: %s\n",
         mlirModuleIsNull(module) ? "no" : "yes");
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  mlirContextDestroy(context);
  mlirDialectRegistryDestroy(registry);

  TirxSession session = NULL;
  TirxOutcome o = tirxSessionInit(argv[1], payload, argv[2], "sm_90", &session);
  print("init", o);
  tirxOutcomeDestroy(o);
  if (!session)
    return 1;

  o = tirxSessionApplyAction(
      session, "v1", "{\"transform\": \"vectorize\", \"params\": {\"width\": 4}}");
  print("vectorize", o);
  tirxOutcomeDestroy(o);

  o = tirxSessionApplyAction(
      session, "v1", "{\"transform\": \"vectorize\", \"params\": {\"width\": 3}}");
  print("vectorize 3", o);
  tirxOutcomeDestroy(o);

  const char *tile =
      "{\"transform\": \"tile_to_blocks\", \"params\": {\"tile_sizes\": [1024]}}";
  o = tirxSessionApplyAction(session, "v1", tile);
  print("tile_to_blocks", o);
  tirxOutcomeDestroy(o);
  o = tirxSessionApplyAction(session, "v1", tile);
  print("tile_to_blocks again", o);
  printf("  json: %s\n", tirxOutcomeJSON(o));
  tirxOutcomeDestroy(o);

  o = tirxSessionApplyAction(session, "v1", "{not json");
  print("garbage", o);
  tirxOutcomeDestroy(o);

  o = tirxSessionLog(session);
  printf("log:\n%s", tirxOutcomeText(o));
  tirxOutcomeDestroy(o);

  tirxSessionDestroy(session);
  free(payload);
  return 0;
}
