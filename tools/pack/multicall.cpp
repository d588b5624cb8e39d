//===- multicall.cpp - tirx and tirx-opt in one static binary ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The binary of `make pack` (cmake/TIRxPack.cmake): tirx and tirx-opt share
// almost all of MLIR and LLVM, so one statically linked executable holds
// both and the pack carries that code once. It is tirx-opt when called by
// that name (bin/tirx-opt is a link to bin/tirx) or as `tirx opt ARGS...`,
// and tirx otherwise.
//
//===----------------------------------------------------------------------===//

#include <cstring>
#include <string>

int tirxMain(int argc, char **argv);
int tirxOptMain(int argc, char **argv);

namespace {
std::string baseName(const char *path) {
  const char *slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 1)
    return tirxMain(argc, argv);
  if (baseName(argv[0]) == "tirx-opt")
    return tirxOptMain(argc, argv);
  if (argc >= 2 && (std::strcmp(argv[1], "opt") == 0 ||
                    std::strcmp(argv[1], "tirx-opt") == 0)) {
    // `tirx opt ARGS`: tirx-opt sees itself as argv[0] and ARGS after it.
    static char name[] = "tirx-opt";
    argv[1] = name;
    return tirxOptMain(argc - 1, argv + 1);
  }
  return tirxMain(argc, argv);
}
