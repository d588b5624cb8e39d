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
/// f32, f64, f16 or bf16.
bool isFloatType(ElementType type);

enum class Role { in, out, inout };
const char *roleName(Role role);

/// Where the runner draws a float input buffer's random elements
/// (docs/bundle.md, "Input domains"): `signed_unit`, uniform in [-1, 1)
/// (the default), or `nonnegative`, uniform in [0, 1) with the adversarial
/// sets' magnitudes, for an input whose negative values are outside the
/// payload's domain (a sum of squares under a square root). The payload
/// says so by `{tirx.domain = "nonnegative"}` on the function argument.
enum class Domain { signed_unit, nonnegative };
const char *domainName(Domain domain);
std::optional<Domain> parseDomain(const std::string &name);

/// A dimension whose extent is given at run time (a `?` of the payload's
/// memref types): `tirx-run --size NAME=N`, else its default. It is the
/// extent of dimension `dim` of parameter `param`; other shapes, launch
/// dimensions and kernel arguments may name it (docs/bundle.md, "Dynamic
/// sizes").
struct Size {
  std::string name;
  int param = 0;
  int dim = 0;
  std::optional<int64_t> defaultValue;
  int64_t min = 1;
  int64_t max = int64_t(1) << 31;
  int64_t multipleOf = 1; // what the schedule needs (1: any, guarded tails)
  std::optional<int64_t> value; // set by bindSizes
};

/// One parameter of the payload function, in signature order.
struct Param {
  std::string name;  // e.g. "x" (from the IR name hint) or "arg1"
  bool isBuffer = true;
  ElementType type = ElementType::f32;
  // Buffers. With dynamic sizes, `shapeExprs` holds one entry per dimension
  // ("" where static, else a size's name or an expression of sizes) and
  // `shape`/`bytes` are known once the sizes are bound.
  std::vector<int64_t> shape;
  std::vector<std::string> shapeExprs;
  uint64_t bytes = 0;
  Role role = Role::in;
  Domain domain = Domain::signed_unit; // of the elements drawn (inputs)
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
  std::vector<std::string> shapeExprs; // as Param's
  uint64_t bytes = 0;
};

/// A TMA tensor map of a buffer parameter or of a scratch buffer
/// (use_wgmma's loads): the runner encodes it with cuTensorMapEncodeTiled
/// and passes the kernel the address of a copy in global memory
/// (lib/Runtime/TensorMap.cpp).
struct TensorMapArg {
  int param = 0;            // the buffer parameter it maps
  std::vector<int64_t> box; // elements a load copies per dimension, outermost first
  int swizzle = 0;          // bytes: 0 (none), 32, 64 or 128
  int l2Promotion = 0;      // bytes: 0 (none), 64, 128 or 256
  /// Or the scratch buffer it maps (a matmul operand the function copied
  /// into a buffer of its own: transpose_operand); `param` is then -1.
  std::optional<int> scratch;
  /// The shape the map sees its buffer as, outermost first: a row-major
  /// reshape of a static buffer (a batch matmul's (batch, M, K) operand
  /// as (batch * M, K)); empty: the buffer's own shape.
  std::vector<int64_t> shape;
};

/// A kernel argument: a payload parameter, a scratch buffer, a tensor map
/// or a constant scalar.
struct KernelArg {
  std::optional<int> param;   // index into Manifest::params
  std::optional<int> scratch; // index into Manifest::scratch
  std::optional<TensorMapArg> tensorMap;
  ElementType type = ElementType::i64; // for constants
  double value = 0;                    // for constants
  /// A constant computed from the sizes ("ceildiv(m, 64)"): `value` once
  /// bound.
  std::string valueExpr;
  /// Buffers: passed as a memref descriptor (allocated and aligned
  /// pointers, offset 0, the sizes, the row-major strides: 3 + 2 x rank
  /// values) instead of one bare pointer; kernels on dynamic shapes take
  /// them so.
  bool descriptor = false;
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
  std::string gridExprs[3]; // "" where static, else an expression of sizes
  int64_t block[3] = {1, 1, 1};
  int64_t dynamicSharedBytes = 0;
  /// The kernel waits for the grid before it (griddepcontrol.wait) ahead of
  /// any memory access, so the runner may launch it while that grid still
  /// runs (programmatic dependent launch). Absent: launched after it ends.
  bool earlyLaunch = false;
  std::vector<KernelArg> args;
  PtxasReport ptxas;
  std::vector<Access> accesses;
  uint64_t flops = 0; // floating-point operations per launch (counted)
  std::string flopsExpr; // with dynamic sizes: flops as an expression
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
  std::vector<Size> sizes; // dynamic dimensions, given at run time
  std::vector<Param> params;
  std::vector<Scratch> scratch;
  std::vector<Kernel> kernels; // launched in this order

  /// Whether every dimension is known: no sizes, or bindSizes ran.
  bool bound() const;

  /// Bytes a run must move at least: inputs read once, outputs written
  /// once, inout buffers both.
  uint64_t minimumBytesMoved() const;
  uint64_t totalFlops() const;

  /// The buffer a tensor map maps, as a buffer parameter (a scratch
  /// buffer's type and shape), and its index among the buffers a launch
  /// gets (the parameters, then the scratch buffers).
  Param tensorMapBuffer(const TensorMapArg &map) const;
  size_t tensorMapBufferIndex(const TensorMapArg &map) const;
};

/// Whether `chip` ("sm_90", "sm_90a", "sm_100", ...) runs griddepcontrol,
/// which an early_launch kernel needs: sm_90 and newer.
inline bool chipRunsGridDependency(const std::string &chip) {
  if (chip.compare(0, 3, "sm_") != 0)
    return false;
  size_t digits = 3;
  int number = 0;
  while (digits < chip.size() && digits < 6 && chip[digits] >= '0' &&
         chip[digits] <= '9')
    number = number * 10 + (chip[digits++] - '0');
  return digits > 3 && number >= 90;
}

/// Whether the runner launches kernel `i` of `m` with programmatic
/// dependent launch: it follows another kernel of the bundle and waits for
/// it (early_launch). The first kernel follows the runner's own work (the
/// L2 flush, the inputs' copies) and is launched after it ends.
inline bool launchesEarly(const Manifest &m, size_t i) {
  return i > 0 && i < m.kernels.size() && m.kernels[i].earlyLaunch;
}

/// CUDA's limits on a launch (every GPU since compute capability 3.0):
/// blocks along x, y and z of a grid, threads along x, y and z of a block
/// (and at most 1024 threads a block). tirx-run checks a manifest against
/// them; map_to_gpu, tirx-map-reference and the export keep to them.
inline constexpr int64_t kGridMax[3] = {INT32_MAX, 65535, 65535};
inline constexpr int64_t kBlockMax[3] = {1024, 1024, 64};

/// Adds a kernel's flops to `sum`, the kernels' total that
/// Manifest::totalFlops returns (the feedback's flops, the plausibility
/// gate's); false where the total would pass 2^63 - 1.
inline bool addFlops(uint64_t &sum, uint64_t flops) {
  return !__builtin_add_overflow(sum, flops, &sum) && sum <= uint64_t(INT64_MAX);
}

/// Whether `name` names a file in a directory, not another directory (no
/// '/', not "." or "..", no NUL): a bundle's file names, and its
/// parameters' names, which `--dump-io` writes files after.
bool plainFileName(const std::string &name);

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

/// Sizes given at run time, by name.
using SizeValues = std::vector<std::pair<std::string, int64_t>>;

/// Parses "NAME=N[,NAME=N...]" (tirx-run --size) into `values`; false and
/// `error` on a malformed one.
bool parseSizeAssignments(const std::string &text, SizeValues &values,
                          std::string &error);

/// Gives each of the manifest's sizes its value from `given` (else its
/// default) and evaluates every shape, byte count, launch dimension and
/// kernel argument that depends on them. Fails naming the dimension: a
/// name the manifest does not declare, a value out of its range or no
/// multiple of what it must be, no value and no default, a launch
/// dimension out of CUDA's limits. A manifest without sizes accepts only
/// an empty `given`.
bool bindSizes(Manifest &manifest, const SizeValues &given,
               std::string &error);

/// The values the manifest's sizes are bound to ({} when it has none).
SizeValues boundSizes(const Manifest &manifest);

/// Checks that `expression` is an expression of the integers and the
/// `names` (+ - * ceildiv floordiv mod min max, parentheses); "" or why not.
std::string checkSizeExpression(const std::string &expression,
                                const std::vector<std::string> &names);

/// Parses the report of `ptxas -v` into `report` for kernel `name`.
void parsePtxasReport(const std::string &log, const std::string &name,
                      PtxasReport &report);

} // namespace runtime
} // namespace tirx

#endif // TIRX_RUNTIME_MANIFEST_H
