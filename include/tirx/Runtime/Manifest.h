//===- Manifest.h - kernel bundle manifest ----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A bundle is a directory: manifest.json plus the PTX and cubin of each
// kernel. This header is the one definition of the manifest schema: the
// export pass (MLIR side) fills these structs, the runner reads them. No MLIR
// header may be included here (see docs/bundle.md).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_RUNTIME_MANIFEST_H
#define TIRX_RUNTIME_MANIFEST_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tirx {
namespace runtime {

constexpr int kManifestVersion = 1;

/// The bundle ABI's promise on buffers: the runner allocates every buffer
/// parameter (and scratch buffer) at an address that is a multiple of this
/// many bytes (cuMemAlloc gives 256 at least), so the compiler may assume it
/// of the payload function's memref arguments (docs/bundle.md).
constexpr uint64_t kBundleBufferAlignment = 256;

/// Element types a buffer or scalar may have.
enum class ElementType { f32, f64, f16, bf16, i8, i32, i64 };

/// Bytes of one element; the name as written in the manifest ("f32", ...).
unsigned elementBytes(ElementType type);
const char *elementTypeName(ElementType type);
std::optional<ElementType> parseElementType(const std::string &name);

enum class Role { in, out, inout };
const char *roleName(Role role);

/// One parameter of the payload function, in signature order.
struct Param {
  std::string name;  // e.g. "x" (from the IR name hint) or "arg1"
  bool isBuffer = true;
  ElementType type = ElementType::f32;
  // Buffers.
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
  Role role = Role::in;
  // Scalars: the payload's value (`tirx.value`), or, when `seeded`, one the
  // runner draws from the run's seed for each input set (kernel and
  // reference get the same).
  double value = 0;
  bool seeded = false;
};

/// A buffer the kernels pass results through that the payload function
/// allocates itself (split_reduction's partial results, an unfused
/// intermediate): the runner allocates it on the device, poisoned before
/// each checked run so that reading an element no kernel wrote shows.
struct Scratch {
  std::string name; // "scratch0", ...
  ElementType type = ElementType::f32;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};

/// A kernel argument: a payload parameter, a scratch buffer or a constant
/// scalar.
struct KernelArg {
  std::optional<int> param;   // index into Manifest::params
  std::optional<int> scratch; // index into Manifest::scratch
  ElementType type = ElementType::i64; // for constants
  double value = 0;                    // for constants
};

/// A global-memory access the export analysis saw in a kernel.
struct Access {
  std::string buffer;   // payload parameter name
  bool isStore = false;
  unsigned width = 1;   // elements per access
  unsigned bytes = 4;   // bytes per access
  unsigned alignment = 0; // proven byte alignment (0: none)
  bool contiguous = true; // consecutive threads touch consecutive elements
  std::string path;     // IR path: "func @saxpy / gpu.launch / vector.load"
  std::string loc;      // MLIR location, "file:line:col"
};

/// Resources ptxas reported for a kernel (-1: not reported).
struct PtxasReport {
  int64_t registers = -1;
  int64_t sharedBytes = -1;
  int64_t spillStoreBytes = -1;
  int64_t spillLoadBytes = -1;
  int64_t stackBytes = -1;
};

struct Kernel {
  std::string name;      // kernel symbol
  std::string ptxFile;   // relative to the bundle directory
  std::string cubinFile; // empty when no cubin was built
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t dynamicSharedBytes = 0;
  std::vector<KernelArg> args;
  PtxasReport ptxas;
  std::vector<Access> accesses;
  uint64_t flops = 0; // floating-point operations per launch (counted)
};

struct Manifest {
  int version = kManifestVersion;
  std::string payload;   // payload function name
  std::string irVersion; // snapshot id, when known
  std::string chip;
  std::string features;
  /// The arithmetic of the kernels: "ieee" (f32 is f32), "tf32" (some f32
  /// products were taken on tensor cores with 10-bit mantissas), "f16" or
  /// "bf16" (16-bit products on tensor cores, mma.sync m16n8k16, summed in
  /// f32, or in f16 into an f16 C); the correctness check allows for it.
  std::string math = "ieee";
  /// The most terms summed into one output element by the payload (its
  /// longest reduction), 0 when unknown: the reference's bundle, made from
  /// the seed, knows it. The check's slack for f32 sums grows with it.
  int64_t reductionLength = 0;
  std::vector<Param> params;
  std::vector<Scratch> scratch;
  std::vector<Kernel> kernels; // launched in this order

  /// Bytes a run must move at least: inputs read once, outputs written
  /// once, inout buffers both.
  uint64_t minimumBytesMoved() const;
  uint64_t totalFlops() const;
};

/// Parses manifest JSON. On failure returns false and sets `error` to a
/// message naming the offending field ("kernels[0].grid[1]: ...").
bool parseManifest(const std::string &text, Manifest &manifest,
                   std::string &error);

/// Reads `dir`/manifest.json.
bool readManifest(const std::string &dir, Manifest &manifest,
                  std::string &error);

std::string serializeManifest(const Manifest &manifest);

/// Writes `dir`/manifest.json atomically (temporary file, then rename).
bool writeManifest(const std::string &dir, const Manifest &manifest,
                   std::string &error);

/// Parses the report of `ptxas -v` into `report` for kernel `name`.
void parsePtxasReport(const std::string &log, const std::string &name,
                      PtxasReport &report);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_MANIFEST_H
