//===- Manifest.cpp - kernel bundle manifest --------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Manifest.h"
#include "tirx/Runtime/JsonLimits.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Runtime/Integer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

using json = nlohmann::json;

namespace tirx {
namespace runtime {

unsigned elementBytes(ElementType type) {
  switch (type) {
  case ElementType::f64:
  case ElementType::i64:
    return 8;
  case ElementType::f32:
  case ElementType::i32:
    return 4;
  case ElementType::f16:
  case ElementType::bf16:
    return 2;
  case ElementType::i8:
    return 1;
  }
  return 4;
}

const char *elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::f32: return "f32";
  case ElementType::f64: return "f64";
  case ElementType::f16: return "f16";
  case ElementType::bf16: return "bf16";
  case ElementType::i8: return "i8";
  case ElementType::i32: return "i32";
  case ElementType::i64: return "i64";
  }
  return "?";
}

std::optional<ElementType> parseElementType(const std::string &name) {
  for (ElementType t : {ElementType::f32, ElementType::f64, ElementType::f16,
                        ElementType::bf16, ElementType::i8, ElementType::i32,
                        ElementType::i64})
    if (name == elementTypeName(t))
      return t;
  return std::nullopt;
}

bool isFloatType(ElementType type) {
  return type == ElementType::f32 || type == ElementType::f64 ||
         type == ElementType::f16 || type == ElementType::bf16;
}

const char *domainName(Domain domain) {
  switch (domain) {
  case Domain::signed_unit: return "signed_unit";
  case Domain::nonnegative: return "nonnegative";
  }
  return "signed_unit";
}

std::optional<Domain> parseDomain(const std::string &name) {
  if (name == "signed_unit")
    return Domain::signed_unit;
  if (name == "nonnegative")
    return Domain::nonnegative;
  return std::nullopt;
}

const char *roleName(Role role) {
  switch (role) {
  case Role::in: return "in";
  case Role::out: return "out";
  case Role::inout: return "inout";
  }
  return "?";
}

Param Manifest::tensorMapBuffer(const TensorMapArg &map) const {
  if (!map.scratch)
    return params.at(size_t(map.param));
  const Scratch &s = scratch.at(size_t(*map.scratch));
  Param p;
  p.name = s.name;
  p.isBuffer = true;
  p.type = s.type;
  p.shape = s.shape;
  p.shapeExprs = s.shapeExprs;
  p.bytes = s.bytes;
  return p;
}

size_t Manifest::tensorMapBufferIndex(const TensorMapArg &map) const {
  return map.scratch ? params.size() + size_t(*map.scratch) : size_t(map.param);
}

uint64_t Manifest::minimumBytesMoved() const {
  uint64_t total = 0;
  for (const Param &p : params)
    if (p.isBuffer)
      total += p.role == Role::inout ? 2 * p.bytes : p.bytes;
  return total;
}

uint64_t Manifest::totalFlops() const {
  uint64_t total = 0;
  for (const Kernel &k : kernels)
    total += k.flops;
  return total;
}

namespace {
/// A manifest error carrying the JSON path of the offending field.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &path, const std::string &what) {
  throw FieldError(path + ": " + what);
}

const json &field(const json &object, const std::string &path,
                  const char *key) {
  if (!object.is_object())
    fail(path, "expected an object");
  auto it = object.find(key);
  if (it == object.end())
    fail(path + "." + key, "missing");
  return *it;
}

int64_t integer(const json &value, const std::string &path, int64_t min,
                int64_t max) {
  if (!value.is_number_integer())
    fail(path, "expected an integer, got " + value.dump());
  // nlohmann keeps 2^63 .. 2^64 - 1 unsigned; read as int64_t they wrap
  // to negative numbers (18446744073709551615 passed as -1).
  if (value.is_number_unsigned() &&
      (max < 0 || value.get<uint64_t>() > uint64_t(max)))
    fail(path, "must lie in [" + std::to_string(min) + ", " +
                   std::to_string(max) + "], got " + value.dump());
  int64_t v = value.get<int64_t>();
  if (v < min || v > max)
    fail(path, "must lie in [" + std::to_string(min) + ", " +
                   std::to_string(max) + "], got " + std::to_string(v));
  return v;
}

std::string string(const json &value, const std::string &path) {
  if (!value.is_string())
    fail(path, "expected a string, got " + value.dump());
  return value.get<std::string>();
}

/// A tensor map of a 16- or 32-bit buffer parameter: a box of at most 256
/// elements per dimension, one per dimension of the buffer, and swizzle
/// and L2 promotion sizes cuTensorMapEncodeTiled knows.
TensorMapArg tensorMapArg(const json &value, const std::string &path,
                          const Manifest &m) {
  TensorMapArg map;
  std::string which = path + ".param";
  if (value.is_object() && value.contains("scratch") && value.contains("param"))
    fail(path, "a tensor map maps a parameter or a scratch buffer, not both");
  if (value.is_object() && value.contains("scratch")) {
    which = path + ".scratch";
    if (m.scratch.empty())
      fail(which, "the manifest has no scratch buffers");
    map.param = -1;
    map.scratch = int(integer(value["scratch"], which, 0,
                              int64_t(m.scratch.size()) - 1));
  } else {
    if (m.params.empty())
      fail(which, "the manifest has no parameters");
    map.param = int(integer(field(value, path, "param"), which, 0,
                            int64_t(m.params.size()) - 1));
  }
  const Param p = m.tensorMapBuffer(map);
  if (!p.isBuffer ||
      !(p.type == ElementType::f16 || p.type == ElementType::bf16 ||
        p.type == ElementType::f32))
    fail(which, "a tensor map needs an f16, bf16 or f32 buffer");
  if (p.shape.empty() || p.shape.size() > 5)
    fail(which, "a tensor map needs a buffer of 1 to 5 dimensions");
  // A reshaped view of a static buffer: the same elements, row-major.
  std::vector<int64_t> shape = p.shape;
  if (value.contains("shape")) {
    const json &s = value["shape"];
    if (!s.is_array() || s.empty() || s.size() > 5)
      fail(path + ".shape", "expected 1 to 5 sizes");
    bool dynamic = std::any_of(p.shapeExprs.begin(), p.shapeExprs.end(),
                               [](const std::string &e) { return !e.empty(); });
    if (dynamic)
      fail(path + ".shape", "a reshaped tensor map needs a static buffer");
    uint64_t elements = 1, want = 1;
    map.shape.clear();
    for (size_t d = 0; d < s.size(); ++d) {
      map.shape.push_back(integer(s[d], path + ".shape[" + std::to_string(d) +
                                            "]",
                                  1, int64_t(1) << 40));
      // Tested before multiplying: a product that wraps modulo 2^64 could
      // equal the buffer's count ([4562284561, 61681, 241, 17, 16] over 16
      // elements) and map far more memory than the buffer has.
      if (uint64_t(map.shape.back()) > (uint64_t(1) << 40) / elements)
        fail(path + ".shape", "more than 2^40 elements");
      elements *= uint64_t(map.shape.back());
    }
    for (int64_t e : p.shape)
      want *= uint64_t(e);
    if (elements != want)
      fail(path + ".shape", "holds " + std::to_string(elements) +
                                " elements, the buffer " +
                                std::to_string(want));
    shape = map.shape;
  }
  const json &box = field(value, path, "box");
  if (!box.is_array() || box.size() != shape.size())
    fail(path + ".box", "expected one size per dimension of the " +
                            std::string(map.shape.empty() ? "buffer"
                                                          : "map's shape") +
                            " (" + std::to_string(shape.size()) + ")");
  for (size_t d = 0; d < box.size(); ++d)
    map.box.push_back(integer(
        box[d], path + ".box[" + std::to_string(d) + "]", 1,
        // A run-time extent is bound later (bindSizes checks the box then).
        map.shape.empty() && d < p.shapeExprs.size() &&
                !p.shapeExprs[d].empty()
            ? 256
            : std::min<int64_t>(256, shape[d])));
  map.swizzle = int(integer(field(value, path, "swizzle"), path + ".swizzle",
                            0, 128));
  if (map.swizzle != 0 && map.swizzle != 32 && map.swizzle != 64 &&
      map.swizzle != 128)
    fail(path + ".swizzle", "must be 0, 32, 64 or 128");
  if (map.swizzle &&
      map.box.back() * int64_t(elementBytes(p.type)) > map.swizzle)
    fail(path + ".box", "the innermost box dimension is wider than the "
                        "swizzle");
  if (value.contains("l2_promotion")) {
    map.l2Promotion = int(integer(value["l2_promotion"],
                                  path + ".l2_promotion", 0, 256));
    if (map.l2Promotion != 0 && map.l2Promotion != 64 &&
        map.l2Promotion != 128 && map.l2Promotion != 256)
      fail(path + ".l2_promotion", "must be 0, 64, 128 or 256");
  }
  return map;
}

/// A file name inside the bundle: no directories, no "..".
std::string bundleFile(const json &value, const std::string &path) {
  std::string name = string(value, path);
  if (!plainFileName(name))
    fail(path, "must be a plain file name inside the bundle, got \"" + name +
                   "\"");
  return name;
}

ElementType elementType(const json &value, const std::string &path) {
  std::string name = string(value, path);
  if (auto t = parseElementType(name))
    return *t;
  fail(path, "unknown element type \"" + name +
                 "\" (expected f32, f64, f16, bf16, i8, i32 or i64)");
}

/// A constant: a JSON number, or "inf", "-inf" or "nan" (JSON has no
/// literal for them; a max reduction starts from -inf).
double number(const json &value, const std::string &path) {
  if (value.is_string()) {
    const std::string &s = value.get_ref<const std::string &>();
    if (s == "inf")
      return INFINITY;
    if (s == "-inf")
      return -INFINITY;
    if (s == "nan")
      return NAN;
  }
  if (!value.is_number())
    fail(path, "expected a number (or \"inf\", \"-inf\", \"nan\"), got " +
                   value.dump());
  double v = value.get<double>();
  if (!std::isfinite(v))
    fail(path, "must be finite");
  return v;
}

/// A constant of element type `type` (a scalar parameter's or a kernel
/// argument's value): `number`, and representable, since the launch converts
/// the double to `type` and out-of-range conversions are undefined (an i32 of
/// 1e10, an i8 of "nan", an i64 of 2^63, which INT64_MAX becomes as a
/// double). Integers are whole and in their type's range; f32, f16 and bf16
/// constants finite within f32's ("inf" says infinity).
double constant(const json &value, const std::string &path, ElementType type) {
  double v = number(value, path);
  if (isFloatType(type)) {
    // Refused from where the conversion rounds to infinity: FLT_MAX plus
    // half its last place (2^103; the tie rounds to the even infinity).
    // Below, a value rounds to FLT_MAX, as "3.40282347e38", the FLT_MAX
    // that printers write, does.
    if (type != ElementType::f64 && std::isfinite(v) &&
        std::fabs(v) >= double(FLT_MAX) + std::ldexp(1.0, 103))
      fail(path, value.dump() + " overflows " +
                     std::string(elementTypeName(type)) +
                     " (write \"inf\" or \"-inf\" for an infinity)");
    return v;
  }
  // The type's range is [-2^(bits-1), 2^(bits-1)): powers of two, exact.
  int bits = int(elementBytes(type)) * 8;
  double end = std::ldexp(1.0, bits - 1);
  if (!std::isfinite(v) || v != std::floor(v) || v < -end || v >= end)
    fail(path, "an " + std::string(elementTypeName(type)) +
                   " constant is a whole number in [-2^" +
                   std::to_string(bits - 1) + ", 2^" +
                   std::to_string(bits - 1) + " - 1], got " + value.dump());
  return v;
}

/// `v` as numbers above read it: non-finite values as strings (nlohmann
/// writes them as null).
json numberJSON(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

/// An expression of the declared sizes (a string); fails naming `path`.
std::string sizeExpression(const json &value, const std::string &path,
                           const std::vector<std::string> &sizes) {
  std::string text = string(value, path);
  if (sizes.empty())
    fail(path, "\"" + text + "\" names sizes, but the manifest declares none");
  std::string error = checkSizeExpression(text, sizes);
  if (!error.empty())
    fail(path, error);
  return text;
}

/// Three launch dimensions, each within CUDA's limit for it (`max`: x, y, z)
/// or, with `exprs`, an expression of the sizes (checked when bound).
void parseDims(const json &value, const std::string &path, int64_t out[3],
               const int64_t (&max)[3], std::string *exprs = nullptr,
               const std::vector<std::string> *sizes = nullptr) {
  if (!value.is_array() || value.size() != 3)
    fail(path, "expected an array of 3 integers");
  for (int i = 0; i < 3; ++i) {
    std::string at = path + "[" + std::to_string(i) + "]";
    if (exprs && value[i].is_string())
      exprs[i] = sizeExpression(value[i], at, *sizes);
    else
      out[i] = integer(value[i], at, 1, max[i]);
  }
}

/// A buffer's "shape" (at most 2^40 elements) and optional "bytes";
/// returns the bytes. An extent may be an expression of the declared
/// sizes (`exprs` then has one entry per dimension, "" where static; the
/// bytes are known once bound, 0 until then).
uint64_t bufferShape(const json &j, const std::string &path, ElementType type,
                     std::vector<int64_t> &out, std::vector<std::string> &exprs,
                     const std::vector<std::string> &sizes) {
  const json &shape = field(j, path, "shape");
  if (!shape.is_array())
    fail(path + ".shape", "expected an array");
  uint64_t elements = 1;
  bool dynamic = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string at = path + ".shape[" + std::to_string(d) + "]";
    if (shape[d].is_string()) {
      exprs.resize(shape.size());
      exprs[d] = sizeExpression(shape[d], at, sizes);
      out.push_back(1);
      dynamic = true;
      continue;
    }
    int64_t extent = integer(shape[d], at, 1, int64_t(1) << 40);
    out.push_back(extent);
    if (uint64_t(extent) > (uint64_t(1) << 40) / elements)
      fail(path + ".shape", "more than 2^40 elements");
    elements *= uint64_t(extent);
  }
  if (dynamic) {
    if (j.contains("bytes"))
      fail(path + ".bytes", "a shape of run-time sizes has no static bytes");
    return 0;
  }
  uint64_t bytes = elements * elementBytes(type);
  if (j.contains("bytes") &&
      uint64_t(integer(j["bytes"], path + ".bytes", 0, INT64_MAX)) != bytes)
    fail(path + ".bytes", "does not match shape x element size (" +
                              std::to_string(bytes) + ")");
  return bytes;
}

/// The manifest's "sizes": names, bindings and constraints. The bindings
/// are checked against the parameters once those are read.
void parseSizes(const json &root, Manifest &m, std::vector<std::string> &names) {
  if (!root.contains("sizes"))
    return;
  const json &sizes = root["sizes"];
  if (!sizes.is_array())
    fail("sizes", "expected an array");
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::string path = "sizes[" + std::to_string(i) + "]";
    const json &j = sizes[i];
    Size s;
    s.name = string(field(j, path, "name"), path + ".name");
    bool identifier = !s.name.empty() &&
                      (std::isalpha(static_cast<unsigned char>(s.name[0])) ||
                       s.name[0] == '_');
    for (char c : s.name)
      identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) ||
                                  c == '_' || c == '.');
    if (!identifier || s.name == "ceildiv" || s.name == "floordiv" ||
        s.name == "mod" || s.name == "min" || s.name == "max")
      fail(path + ".name", "expected an identifier (letters, digits, _ and "
                           "., not a function's name), got \"" + s.name + "\"");
    if (std::find(names.begin(), names.end(), s.name) != names.end())
      fail(path + ".name", "size " + s.name + " is declared twice");
    s.param = int(integer(field(j, path, "param"), path + ".param", 0, 1 << 20));
    s.dim = int(integer(field(j, path, "dim"), path + ".dim", 0, 64));
    if (j.contains("min"))
      s.min = integer(j["min"], path + ".min", 1, int64_t(1) << 40);
    if (j.contains("max"))
      s.max = integer(j["max"], path + ".max", s.min, int64_t(1) << 40);
    if (j.contains("multiple_of"))
      s.multipleOf = integer(j["multiple_of"], path + ".multiple_of", 1,
                             int64_t(1) << 40);
    if (j.contains("default")) {
      s.defaultValue = integer(j["default"], path + ".default", s.min, s.max);
      if (*s.defaultValue % s.multipleOf != 0)
        fail(path + ".default", "is no multiple of " +
                                    std::to_string(s.multipleOf));
    }
    names.push_back(s.name);
    m.sizes.push_back(s);
  }
}

/// Each size is the extent of the dimension it names.
void checkSizeBindings(const Manifest &m) {
  for (size_t i = 0; i < m.sizes.size(); ++i) {
    const Size &s = m.sizes[i];
    std::string path = "sizes[" + std::to_string(i) + "]";
    if (size_t(s.param) >= m.params.size() || !m.params[s.param].isBuffer)
      fail(path + ".param", "names no buffer parameter");
    const Param &p = m.params[s.param];
    if (size_t(s.dim) >= p.shape.size())
      fail(path + ".dim", "parameter " + p.name + " has " +
                              std::to_string(p.shape.size()) + " dimensions");
    if (p.shapeExprs.empty() || p.shapeExprs[s.dim] != s.name)
      fail(path, "parameter " + p.name + "'s dimension " +
                     std::to_string(s.dim) + " is not \"" + s.name + "\"");
  }
}

Manifest parse(const json &root) {
  Manifest m;
  if (!root.is_object())
    fail("manifest", "expected a JSON object");
  if (string(field(root, "manifest", "format"), "format") != "tirx-bundle")
    fail("format", "expected \"tirx-bundle\"");
  m.version = integer(field(root, "manifest", "version"), "version", 1,
                      1 << 20);
  if (m.version != kManifestVersion)
    fail("version", "this runner reads version " +
                        std::to_string(kManifestVersion) + ", got " +
                        std::to_string(m.version));
  m.payload = string(field(root, "manifest", "payload"), "payload");
  if (root.contains("ir_version"))
    m.irVersion = string(root["ir_version"], "ir_version");
  m.chip = string(field(root, "manifest", "chip"), "chip");
  if (root.contains("features"))
    m.features = string(root["features"], "features");
  if (root.contains("reduction_length"))
    m.reductionLength = integer(root["reduction_length"], "reduction_length",
                                0, int64_t(1) << 40);
  if (root.contains("math")) {
    m.math = string(root["math"], "math");
    if (m.math != "ieee" && m.math != "tf32" && m.math != "f16" &&
        m.math != "bf16")
      fail("math", "expected \"ieee\", \"tf32\", \"f16\" or \"bf16\", got \"" +
                       m.math + "\"");
  }

  std::vector<std::string> sizeNames;
  parseSizes(root, m, sizeNames);

  const json &params = field(root, "manifest", "params");
  if (!params.is_array())
    fail("params", "expected an array");
  for (size_t i = 0; i < params.size(); ++i) {
    std::string path = "params[" + std::to_string(i) + "]";
    const json &p = params[i];
    Param param;
    param.name = string(field(p, path, "name"), path + ".name");
    // --dump-io writes <dir>/<name>.in and .out: "../x" would write outside.
    if (!plainFileName(param.name))
      fail(path + ".name", "must be a plain name (no /, not . or ..: "
                           "--dump-io writes files named after it), got \"" +
                               param.name + "\"");
    std::string kind = string(field(p, path, "kind"), path + ".kind");
    param.type = elementType(field(p, path, "type"), path + ".type");
    if (kind == "buffer") {
      param.isBuffer = true;
      param.bytes = bufferShape(p, path, param.type, param.shape,
                                param.shapeExprs, sizeNames);
      std::string role = string(field(p, path, "role"), path + ".role");
      if (role == "in")
        param.role = Role::in;
      else if (role == "out")
        param.role = Role::out;
      else if (role == "inout")
        param.role = Role::inout;
      else
        fail(path + ".role", "expected in, out or inout, got \"" + role +
                                 "\"");
      if (p.contains("domain")) {
        std::string name = string(p["domain"], path + ".domain");
        std::optional<Domain> domain = parseDomain(name);
        if (!domain)
          fail(path + ".domain",
               "expected signed_unit or nonnegative, got \"" + name + "\"");
        if (*domain != Domain::signed_unit && !isFloatType(param.type))
          fail(path + ".domain", "a domain other than signed_unit is for "
                                 "float buffers; this one is " +
                                     std::string(elementTypeName(param.type)));
        param.domain = *domain;
      }
    } else if (kind == "scalar") {
      param.isBuffer = false;
      if (p.contains("role") &&
          string(p["role"], path + ".role") != "scalar")
        fail(path + ".role", "a scalar's role is \"scalar\"");
      // Without a value, the runner seeds it.
      param.seeded = !p.contains("value");
      if (!param.seeded)
        param.value = constant(p["value"], path + ".value", param.type);
    } else {
      fail(path + ".kind", "expected buffer or scalar, got \"" + kind + "\"");
    }
    m.params.push_back(param);
  }
  checkSizeBindings(m);

  if (root.contains("scratch")) {
    const json &scratch = root["scratch"];
    if (!scratch.is_array())
      fail("scratch", "expected an array");
    for (size_t i = 0; i < scratch.size(); ++i) {
      std::string path = "scratch[" + std::to_string(i) + "]";
      Scratch s;
      s.name = string(field(scratch[i], path, "name"), path + ".name");
      s.type = elementType(field(scratch[i], path, "type"), path + ".type");
      s.bytes = bufferShape(scratch[i], path, s.type, s.shape, s.shapeExprs,
                            sizeNames);
      m.scratch.push_back(s);
    }
  }

  const json &kernels = field(root, "manifest", "kernels");
  if (!kernels.is_array() || kernels.empty())
    fail("kernels", "expected a non-empty array");
  uint64_t flops = 0; // of the kernels so far
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::string path = "kernels[" + std::to_string(i) + "]";
    const json &k = kernels[i];
    Kernel kernel;
    kernel.name = string(field(k, path, "name"), path + ".name");
    kernel.ptxFile = bundleFile(field(k, path, "ptx"), path + ".ptx");
    if (k.contains("cubin") && !k["cubin"].is_null())
      kernel.cubinFile = bundleFile(k["cubin"], path + ".cubin");
    parseDims(field(k, path, "grid"), path + ".grid", kernel.grid, kGridMax,
              kernel.gridExprs, &sizeNames);
    parseDims(field(k, path, "block"), path + ".block", kernel.block, kBlockMax);
    if (kernel.block[0] * kernel.block[1] * kernel.block[2] > 1024)
      fail(path + ".block", "more than 1024 threads per block");
    if (k.contains("dynamic_shared_bytes"))
      kernel.dynamicSharedBytes =
          integer(k["dynamic_shared_bytes"], path + ".dynamic_shared_bytes",
                  0, 1 << 30);
    if (k.contains("early_launch")) {
      if (!k["early_launch"].is_boolean())
        fail(path + ".early_launch", "expected a boolean");
      kernel.earlyLaunch = k["early_launch"].get<bool>();
      if (kernel.earlyLaunch && !chipRunsGridDependency(m.chip))
        fail(path + ".early_launch",
             "needs sm_90 or newer (griddepcontrol); the chip is '" + m.chip +
                 "'");
    }
    const json &args = field(k, path, "args");
    if (!args.is_array())
      fail(path + ".args", "expected an array");
    for (size_t a = 0; a < args.size(); ++a) {
      std::string apath = path + ".args[" + std::to_string(a) + "]";
      KernelArg arg;
      if (args[a].contains("descriptor")) {
        if (!args[a]["descriptor"].is_boolean())
          fail(apath + ".descriptor", "expected a boolean");
        arg.descriptor = args[a]["descriptor"].get<bool>();
        if (arg.descriptor && !args[a].contains("param") &&
            !args[a].contains("scratch"))
          fail(apath + ".descriptor", "only a buffer is passed as a descriptor");
      }
      if (args[a].contains("param")) {
        arg.param = int(integer(args[a]["param"], apath + ".param", 0,
                                int64_t(m.params.size()) - 1));
        if (arg.descriptor && !m.params[*arg.param].isBuffer)
          fail(apath + ".descriptor", "only a buffer is passed as a descriptor");
      } else if (args[a].contains("scratch")) {
        if (m.scratch.empty())
          fail(apath + ".scratch", "the manifest has no scratch buffers");
        arg.scratch = int(integer(args[a]["scratch"], apath + ".scratch", 0,
                                  int64_t(m.scratch.size()) - 1));
      } else if (args[a].contains("tensor_map")) {
        arg.tensorMap = tensorMapArg(args[a]["tensor_map"],
                                     apath + ".tensor_map", m);
      } else {
        arg.type = elementType(field(args[a], apath, "type"), apath + ".type");
        const json &value = field(args[a], apath, "value");
        if (value.is_string() && value != "inf" && value != "-inf" &&
            value != "nan") {
          if (arg.type != ElementType::i64 && arg.type != ElementType::i32)
            fail(apath + ".value", "an expression of sizes is an integer");
          arg.valueExpr = sizeExpression(value, apath + ".value", sizeNames);
        } else {
          arg.value = constant(value, apath + ".value", arg.type);
        }
      }
      kernel.args.push_back(arg);
    }
    if (k.contains("ptxas")) {
      const json &r = k["ptxas"];
      auto get = [&](const char *key, int64_t &out) {
        if (r.contains(key))
          out = integer(r[key], path + ".ptxas." + key, -1, INT64_MAX);
      };
      get("registers", kernel.ptxas.registers);
      get("shared_bytes", kernel.ptxas.sharedBytes);
      get("spill_store_bytes", kernel.ptxas.spillStoreBytes);
      get("spill_load_bytes", kernel.ptxas.spillLoadBytes);
      get("stack_bytes", kernel.ptxas.stackBytes);
    }
    if (k.contains("flops") && k["flops"].is_string())
      kernel.flopsExpr = sizeExpression(k["flops"], path + ".flops", sizeNames);
    else if (k.contains("flops"))
      kernel.flops = integer(k["flops"], path + ".flops", 0, INT64_MAX);
    if (!addFlops(flops, kernel.flops))
      fail(path + ".flops", "the kernels' flops add up to more than 2^63 - 1");
    if (k.contains("accesses")) {
      const json &accesses = k["accesses"];
      if (!accesses.is_array())
        fail(path + ".accesses", "expected an array");
      for (size_t a = 0; a < accesses.size(); ++a) {
        std::string apath = path + ".accesses[" + std::to_string(a) + "]";
        const json &j = accesses[a];
        Access access;
        access.buffer = string(field(j, apath, "buffer"), apath + ".buffer");
        access.isStore = string(field(j, apath, "op"), apath + ".op") == "store";
        access.width = unsigned(integer(field(j, apath, "width"),
                                        apath + ".width", 1, 64));
        access.bytes = unsigned(integer(field(j, apath, "bytes"),
                                        apath + ".bytes", 1, 512));
        if (j.contains("alignment"))
          access.alignment = unsigned(
              integer(j["alignment"], apath + ".alignment", 0, 1 << 20));
        if (j.contains("contiguous"))
          access.contiguous = j["contiguous"].is_boolean()
                                  ? j["contiguous"].get<bool>()
                                  : (fail(apath + ".contiguous",
                                          "expected a boolean"),
                                     false);
        if (j.contains("path"))
          access.path = string(j["path"], apath + ".path");
        if (j.contains("loc"))
          access.loc = string(j["loc"], apath + ".loc");
        kernel.accesses.push_back(access);
      }
    }
    m.kernels.push_back(kernel);
  }
  // The math mode and the sum length loosen the check's tolerance: a
  // manifest may only claim what its buffers allow (16-bit products need
  // 16-bit inputs, tf32 f32 ones; no sum of more terms than a buffer has
  // elements, a run-time one counted at its bound of 2^40).
  if (m.math != "ieee") {
    ElementType need = m.math == "f16"    ? ElementType::f16
                       : m.math == "bf16" ? ElementType::bf16
                                          : ElementType::f32;
    if (std::none_of(m.params.begin(), m.params.end(), [&](const Param &p) {
          return p.isBuffer && p.role != Role::out && p.type == need;
        }))
      fail("math", "\"" + m.math + "\" needs an input buffer of " +
                       elementTypeName(need));
  }
  if (m.reductionLength > 0) {
    uint64_t most = 0;
    for (const Param &p : m.params)
      if (p.isBuffer)
        most = std::max<uint64_t>(
            most, std::all_of(p.shapeExprs.begin(), p.shapeExprs.end(),
                              [](const std::string &e) { return e.empty(); })
                      ? p.bytes / elementBytes(p.type)
                      : uint64_t(1) << 40);
    if (uint64_t(m.reductionLength) > most)
      fail("reduction_length",
           std::to_string(m.reductionLength) +
               " terms, more than any buffer's " + std::to_string(most) +
               " elements");
  }
  return m;
}
} // namespace

bool parseManifest(const std::string &text, Manifest &manifest,
                   std::string &error) {
  if (!jsonDepthWithin(text, error)) {
    error = "manifest.json: " + error;
    return false;
  }
  try {
    manifest = parse(json::parse(text));
    return true;
  } catch (const FieldError &e) {
    error = std::string("manifest.json: ") + e.what();
  } catch (const json::exception &e) {
    error = std::string("manifest.json: not valid JSON: ") + e.what();
  }
  return false;
}

bool readManifest(const std::string &dir, Manifest &manifest,
                  std::string &error) {
  std::string text;
  if (!readFile(dir + "/manifest.json", text, error))
    return false;
  if (!parseManifest(text, manifest, error)) {
    error = dir + "/" + error;
    return false;
  }
  return true;
}

std::string serializeManifest(const Manifest &m) {
  json root;
  root["format"] = "tirx-bundle";
  root["version"] = m.version;
  root["payload"] = m.payload;
  if (!m.irVersion.empty())
    root["ir_version"] = m.irVersion;
  root["chip"] = m.chip;
  root["features"] = m.features;
  root["math"] = m.math;
  if (m.reductionLength > 0)
    root["reduction_length"] = m.reductionLength;
  /// A shape as written: a size's expression where it has one.
  auto shapeJSON = [](const std::vector<int64_t> &shape,
                      const std::vector<std::string> &exprs) {
    json j = json::array();
    for (size_t d = 0; d < shape.size(); ++d)
      if (d < exprs.size() && !exprs[d].empty())
        j.push_back(exprs[d]);
      else
        j.push_back(shape[d]);
    return j;
  };
  if (!m.sizes.empty()) {
    root["sizes"] = json::array();
    for (const Size &s : m.sizes) {
      json j = {{"name", s.name},       {"param", s.param},
                {"dim", s.dim},         {"min", s.min},
                {"max", s.max},         {"multiple_of", s.multipleOf}};
      if (s.defaultValue)
        j["default"] = *s.defaultValue;
      root["sizes"].push_back(j);
    }
  }
  root["params"] = json::array();
  for (const Param &p : m.params) {
    json j;
    j["name"] = p.name;
    j["kind"] = p.isBuffer ? "buffer" : "scalar";
    j["type"] = elementTypeName(p.type);
    if (p.isBuffer) {
      j["shape"] = shapeJSON(p.shape, p.shapeExprs);
      if (p.shapeExprs.empty())
        j["bytes"] = p.bytes;
      j["role"] = roleName(p.role);
      if (p.domain != Domain::signed_unit)
        j["domain"] = domainName(p.domain);
    } else {
      j["role"] = "scalar";
      if (!p.seeded)
        j["value"] = numberJSON(p.value);
    }
    root["params"].push_back(j);
  }
  if (!m.scratch.empty()) {
    root["scratch"] = json::array();
    for (const Scratch &s : m.scratch) {
      json j = {{"name", s.name},
                {"type", elementTypeName(s.type)},
                {"shape", shapeJSON(s.shape, s.shapeExprs)}};
      if (s.shapeExprs.empty())
        j["bytes"] = s.bytes;
      root["scratch"].push_back(j);
    }
  }
  root["kernels"] = json::array();
  for (const Kernel &k : m.kernels) {
    json j;
    j["name"] = k.name;
    j["ptx"] = k.ptxFile;
    j["cubin"] = k.cubinFile.empty() ? json(nullptr) : json(k.cubinFile);
    j["grid"] = json::array();
    for (int d = 0; d < 3; ++d)
      j["grid"].push_back(k.gridExprs[d].empty() ? json(k.grid[d])
                                                 : json(k.gridExprs[d]));
    j["block"] = {k.block[0], k.block[1], k.block[2]};
    j["dynamic_shared_bytes"] = k.dynamicSharedBytes;
    if (k.earlyLaunch)
      j["early_launch"] = true;
    j["args"] = json::array();
    for (const KernelArg &a : k.args) {
      json arg;
      if (a.param)
        arg = {{"param", *a.param}};
      else if (a.scratch)
        arg = {{"scratch", *a.scratch}};
      else if (a.tensorMap) {
        arg = {{"tensor_map", {{"box", a.tensorMap->box},
                               {"swizzle", a.tensorMap->swizzle},
                               {"l2_promotion", a.tensorMap->l2Promotion}}}};
        if (!a.tensorMap->shape.empty())
          arg["tensor_map"]["shape"] = a.tensorMap->shape;
        if (a.tensorMap->scratch)
          arg["tensor_map"]["scratch"] = *a.tensorMap->scratch;
        else
          arg["tensor_map"]["param"] = a.tensorMap->param;
      }
      else
        arg = {{"type", elementTypeName(a.type)},
               {"value", a.valueExpr.empty() ? numberJSON(a.value)
                                             : json(a.valueExpr)}};
      if (a.descriptor)
        arg["descriptor"] = true;
      j["args"].push_back(arg);
    }
    j["ptxas"] = {{"registers", k.ptxas.registers},
                  {"shared_bytes", k.ptxas.sharedBytes},
                  {"spill_store_bytes", k.ptxas.spillStoreBytes},
                  {"spill_load_bytes", k.ptxas.spillLoadBytes},
                  {"stack_bytes", k.ptxas.stackBytes}};
    j["flops"] = k.flopsExpr.empty() ? json(k.flops) : json(k.flopsExpr);
    j["accesses"] = json::array();
    for (const Access &a : k.accesses)
      j["accesses"].push_back({{"buffer", a.buffer},
                               {"op", a.isStore ? "store" : "load"},
                               {"width", a.width},
                               {"bytes", a.bytes},
                               {"alignment", a.alignment},
                               {"contiguous", a.contiguous},
                               {"path", a.path},
                               {"loc", a.loc}});
    root["kernels"].push_back(j);
  }
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

bool writeManifest(const std::string &dir, const Manifest &manifest,
                   std::string &error) {
  return writeFileAtomically(dir + "/manifest.json",
                             serializeManifest(manifest), error);
}

namespace {
/// A count of the report: digits only (the patterns say so), -1 (not
/// reported) when it does not fit.
int64_t ptxasCount(const std::string &digits) {
  return parseInteger(digits).value_or(-1);
}
} // namespace

void parsePtxasReport(const std::string &log, const std::string &name,
                      PtxasReport &report) {
  // ptxas -v prints, per function:
  //   ptxas info    : Compiling entry function 'k' for 'sm_90'
  //   ptxas info    : Function properties for k
  //       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  //   ptxas info    : Used 16 registers, used 0 barriers, 380 bytes cmem[0]
  // with "N bytes smem" on the Used line when shared memory is used.
  std::istringstream in(log);
  std::string line;
  bool inFunction = false;
  static const std::regex stack(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  while (std::getline(in, line)) {
    if (line.find("Compiling entry function '") != std::string::npos ||
        line.find("Function properties for ") != std::string::npos) {
      inFunction =
          line.find("'" + name + "'") != std::string::npos ||
          line.substr(line.find_last_of(' ') + 1) == name;
      continue;
    }
    if (!inFunction)
      continue;
    std::smatch match;
    if (std::regex_search(line, match, stack)) {
      report.stackBytes = ptxasCount(match[1]);
      report.spillStoreBytes = ptxasCount(match[2]);
      report.spillLoadBytes = ptxasCount(match[3]);
    }
    if (std::regex_search(line, match, used)) {
      report.registers = ptxasCount(match[1]);
      report.sharedBytes = 0;
      if (std::regex_search(line, match, smem))
        report.sharedBytes = ptxasCount(match[1]);
    }
  }
}

bool plainFileName(const std::string &name) {
  return !name.empty() && name.find('/') == std::string::npos &&
         name != "." && name != ".." && name.find('\0') == std::string::npos;
}

} // namespace runtime
} // namespace tirx
