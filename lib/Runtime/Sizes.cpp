//===- Sizes.cpp - dimensions given at run time ------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A bundle compiled for memref<?x?xf32> declares its dynamic dimensions as
// `sizes`; its shapes, launch dimensions and kernel arguments may be
// expressions of them ("ceildiv(m, 1024)"). Binding gives each size its
// value (tirx-run --size, else the default) and evaluates them all, so that
// everything after it sees a static manifest.
//
//===----------------------------------------------------------------------===//

#include "tirx/Runtime/Integer.h"
#include "tirx/Runtime/Manifest.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

namespace tirx {
namespace runtime {

namespace {
/// A recursive-descent reader and evaluator of size expressions:
///   expr   := term (('+' | '-') term)*
///   term   := factor ('*' factor)*
///   factor := INT | NAME | FN '(' expr ',' expr ')' | '(' expr ')'
///   FN     := ceildiv | floordiv | mod | min | max
/// With `values` null it only checks names and syntax. It recurses once per
/// parenthesis or call, so their nesting is bounded: a manifest's string of
/// 300000 '(' once overflowed the stack (a segmentation fault).
class Expression {
public:
  Expression(const std::string &text,
             const std::map<std::string, int64_t> *values,
             const std::vector<std::string> *names)
      : text(text), values(values), names(names) {}

  /// The value (0 when only checking); `error` set on failure.
  int64_t evaluate(std::string &error) {
    int64_t v = expr();
    skipSpace();
    if (this->error.empty() && pos != text.size())
      fail("unexpected '" + text.substr(pos, 1) + "'");
    if (this->error.empty() && text.find_first_not_of(" ") == std::string::npos)
      fail("empty expression");
    // The text quoted in full up to a line's worth (a hostile one may be
    // as long as the manifest).
    error = this->error.empty() ? ""
            : text.size() > 80
                ? "\"" + text.substr(0, 77) + "...\": " + this->error
                : "\"" + text + "\": " + this->error;
    return v;
  }

private:
  void fail(const std::string &what) {
    if (error.empty())
      error = what;
  }
  void skipSpace() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool eat(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  int64_t combine(char op, int64_t a, int64_t b) {
    if (!values)
      return 0;
    int64_t r = 0;
    bool overflow = op == '+'   ? __builtin_add_overflow(a, b, &r)
                    : op == '-' ? __builtin_sub_overflow(a, b, &r)
                                : __builtin_mul_overflow(a, b, &r);
    if (overflow)
      fail("overflows 64 bits");
    return r;
  }
  int64_t expr() {
    int64_t v = term();
    while (error.empty()) {
      if (eat('+'))
        v = combine('+', v, term());
      else if (eat('-'))
        v = combine('-', v, term());
      else
        break;
    }
    return v;
  }
  int64_t term() {
    int64_t v = factor();
    while (error.empty() && eat('*'))
      v = combine('*', v, factor());
    return v;
  }
  int64_t call(const std::string &fn) {
    if (!eat('(')) {
      fail("expected '(' after " + fn);
      return 0;
    }
    int64_t a = expr();
    if (!eat(','))
      fail("expected ',' in " + fn);
    int64_t b = expr();
    if (!eat(')'))
      fail("expected ')' closing " + fn);
    if (!values || !error.empty())
      return 0;
    if (fn == "min")
      return std::min(a, b);
    if (fn == "max")
      return std::max(a, b);
    if (b <= 0) {
      fail(fn + " by " + std::to_string(b));
      return 0;
    }
    int64_t q = a / b, r = a % b;
    if (r < 0) { // floor
      q -= 1;
      r += b;
    }
    if (fn == "floordiv")
      return q;
    if (fn == "mod")
      return r;
    return q + (r != 0); // ceildiv
  }
  /// Whether one more level of parentheses or calls is allowed.
  bool deeper() {
    if (depth < kMaxDepth) {
      ++depth;
      return true;
    }
    fail("nested more than " + std::to_string(kMaxDepth) + " levels deep");
    return false;
  }
  int64_t factor() {
    // After a failure nothing more is read: a call's second operand would
    // otherwise descend again from where the first one stopped.
    if (!error.empty())
      return 0;
    skipSpace();
    if (pos >= text.size()) {
      fail("expression ends early");
      return 0;
    }
    char c = text[pos];
    if (eat('(')) {
      if (!deeper())
        return 0;
      int64_t v = expr();
      --depth;
      if (!eat(')'))
        fail("expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos])))
        ++pos;
      std::string digits = text.substr(start, pos - start);
      std::optional<int64_t> v = parseInteger(digits);
      if (!v)
        fail("integer " + digits + " overflows 64 bits");
      return *v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos;
      while (pos < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[pos])) ||
              text[pos] == '_' || text[pos] == '.'))
        ++pos;
      std::string name = text.substr(start, pos - start);
      if (name == "ceildiv" || name == "floordiv" || name == "mod" ||
          name == "min" || name == "max") {
        if (!deeper())
          return 0;
        int64_t v = call(name);
        --depth;
        return v;
      }
      if (names &&
          std::find(names->begin(), names->end(), name) == names->end()) {
        fail("'" + name + "' is not a declared size");
        return 0;
      }
      if (!values)
        return 0;
      auto it = values->find(name);
      if (it == values->end()) {
        fail("'" + name + "' is not a declared size");
        return 0;
      }
      return it->second;
    }
    fail("unexpected '" + std::string(1, c) + "'");
    return 0;
  }

  /// As deep as the JSON around it may nest (kMaxJsonDepth).
  static constexpr unsigned kMaxDepth = 64;
  const std::string &text;
  const std::map<std::string, int64_t> *values;
  const std::vector<std::string> *names;
  size_t pos = 0;
  unsigned depth = 0;
  std::string error;
};

std::string sizeWhere(const Manifest &m, const Size &s) {
  std::string param = s.param >= 0 && size_t(s.param) < m.params.size()
                          ? m.params[s.param].name
                          : "?";
  return "size " + s.name + " (dimension " + std::to_string(s.dim) + " of " +
         param + ")";
}

/// Evaluates a shape with its expressions; false and `error` on failure.
bool bindShape(const std::vector<std::string> &exprs,
               const std::map<std::string, int64_t> &values,
               const std::string &path, ElementType type,
               std::vector<int64_t> &shape, uint64_t &bytes,
               std::string &error) {
  if (exprs.empty())
    return true;
  uint64_t elements = 1;
  for (size_t d = 0; d < exprs.size(); ++d) {
    if (!exprs[d].empty()) {
      std::string why;
      int64_t v = Expression(exprs[d], &values, nullptr).evaluate(why);
      if (!why.empty()) {
        error = path + ".shape[" + std::to_string(d) + "]: " + why;
        return false;
      }
      if (v < 1 || v > (int64_t(1) << 40)) {
        error = path + ".shape[" + std::to_string(d) + "] = " + exprs[d] +
                " is " + std::to_string(v) + ", outside [1, 2^40]";
        return false;
      }
      shape[d] = v;
    }
    // Both at most 2^40: test before multiplying (the product could wrap).
    if (uint64_t(shape[d]) > (uint64_t(1) << 40) / elements) {
      error = path + ".shape: more than 2^40 elements at these sizes";
      return false;
    }
    elements *= uint64_t(shape[d]);
  }
  bytes = elements * elementBytes(type);
  return true;
}
} // namespace

bool Manifest::bound() const {
  for (const Size &s : sizes)
    if (!s.value)
      return false;
  return true;
}

std::string checkSizeExpression(const std::string &expression,
                                const std::vector<std::string> &names) {
  std::string error;
  Expression(expression, nullptr, &names).evaluate(error);
  return error;
}

bool parseSizeAssignments(const std::string &text, SizeValues &values,
                          std::string &error) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t eq = item.find('=');
    std::string name = eq == std::string::npos ? "" : item.substr(0, eq);
    std::string number = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::optional<int64_t> v = parseInteger(number);
    if (name.empty() || !v) {
      error = "expects NAME=N (e.g. m=1000003), got '" + item + "'";
      return false;
    }
    for (const auto &[known, _] : values)
      if (known == name) {
        error = "size " + name + " given twice";
        return false;
      }
    values.emplace_back(name, *v);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return true;
}

SizeValues boundSizes(const Manifest &manifest) {
  SizeValues values;
  for (const Size &s : manifest.sizes)
    if (s.value)
      values.emplace_back(s.name, *s.value);
  return values;
}

bool bindSizes(Manifest &m, const SizeValues &given, std::string &error) {
  std::map<std::string, int64_t> values;
  for (const auto &[name, value] : given) {
    auto it = std::find_if(m.sizes.begin(), m.sizes.end(),
                           [&](const Size &s) { return s.name == name; });
    if (it == m.sizes.end()) {
      std::string declared;
      for (const Size &s : m.sizes)
        declared += (declared.empty() ? "" : ", ") + s.name;
      error = "size " + name + " is not a dimension of this bundle (" +
              (declared.empty() ? std::string("its shapes are all static")
                                : "it declares " + declared) +
              ")";
      return false;
    }
    values[name] = value;
  }
  for (Size &s : m.sizes) {
    auto it = values.find(s.name);
    if (it == values.end()) {
      if (!s.defaultValue) {
        error = sizeWhere(m, s) + " has no default: give it with --size " +
                s.name + "=N";
        return false;
      }
      it = values.emplace(s.name, *s.defaultValue).first;
    }
    int64_t v = it->second;
    if (v < s.min || v > s.max) {
      error = sizeWhere(m, s) + " = " + std::to_string(v) +
              " is outside its range [" + std::to_string(s.min) + ", " +
              std::to_string(s.max) + "]";
      return false;
    }
    if (v % s.multipleOf != 0) {
      error = sizeWhere(m, s) + " = " + std::to_string(v) +
              " is no multiple of " + std::to_string(s.multipleOf) +
              " (the schedule needs it)";
      return false;
    }
    s.value = v;
  }
  for (size_t i = 0; i < m.params.size(); ++i) {
    Param &p = m.params[i];
    if (!bindShape(p.shapeExprs, values, "params[" + std::to_string(i) + "]",
                   p.type, p.shape, p.bytes, error))
      return false;
  }
  for (size_t i = 0; i < m.scratch.size(); ++i) {
    Scratch &s = m.scratch[i];
    if (!bindShape(s.shapeExprs, values, "scratch[" + std::to_string(i) + "]",
                   s.type, s.shape, s.bytes, error))
      return false;
  }
  uint64_t flops = 0;
  for (size_t k = 0; k < m.kernels.size(); ++k) {
    Kernel &kernel = m.kernels[k];
    std::string path = "kernels[" + std::to_string(k) + "]";
    for (int d = 0; d < 3; ++d) {
      if (kernel.gridExprs[d].empty())
        continue;
      std::string why;
      int64_t v = Expression(kernel.gridExprs[d], &values, nullptr).evaluate(why);
      if (!why.empty()) {
        error = path + ".grid[" + std::to_string(d) + "]: " + why;
        return false;
      }
      if (v < 1 || v > kGridMax[d]) {
        error = path + ".grid[" + std::to_string(d) + "] = " +
                kernel.gridExprs[d] + " is " + std::to_string(v) +
                " at these sizes, outside [1, " + std::to_string(kGridMax[d]) +
                "]";
        return false;
      }
      kernel.grid[d] = v;
    }
    if (!kernel.flopsExpr.empty()) {
      std::string why;
      int64_t v = Expression(kernel.flopsExpr, &values, nullptr).evaluate(why);
      if (!why.empty()) {
        error = path + ".flops: " + why;
        return false;
      }
      kernel.flops = uint64_t(std::max<int64_t>(0, v));
    }
    if (!addFlops(flops, kernel.flops)) {
      error = path + ".flops: the kernels' flops add up to more than "
                     "2^63 - 1 at these sizes";
      return false;
    }
    for (size_t a = 0; a < kernel.args.size(); ++a) {
      KernelArg &arg = kernel.args[a];
      if (arg.tensorMap && arg.tensorMap->shape.empty()) {
        // A box no wider than the bound extent it tiles (a reshaped map's
        // buffer is static, its box checked when the manifest was read).
        const Param p = m.tensorMapBuffer(*arg.tensorMap);
        for (size_t d = 0; d < arg.tensorMap->box.size() && d < p.shape.size(); ++d)
          if (arg.tensorMap->box[d] > p.shape[d]) {
            error = path + ".args[" + std::to_string(a) + "].tensor_map.box[" +
                    std::to_string(d) + "] = " +
                    std::to_string(arg.tensorMap->box[d]) +
                    " is wider than the buffer's extent " +
                    std::to_string(p.shape[d]) + " at these sizes";
            return false;
          }
      }
      if (arg.valueExpr.empty())
        continue;
      std::string why;
      int64_t v = Expression(arg.valueExpr, &values, nullptr).evaluate(why);
      if (!why.empty()) {
        error = path + ".args[" + std::to_string(a) + "].value: " + why;
        return false;
      }
      // Not std::llabs(v): it overflows at INT64_MIN ("0 - 2^63").
      if ((arg.type == ElementType::i32 &&
           (v < INT32_MIN || v > INT32_MAX)) ||
          v < -(int64_t(1) << 53) || v > (int64_t(1) << 53)) {
        error = path + ".args[" + std::to_string(a) + "].value: " +
                arg.valueExpr + " is " + std::to_string(v) +
                ", outside what an " + elementTypeName(arg.type) +
                " argument holds exactly";
        return false;
      }
      arg.value = double(v);
    }
  }
  return true;
}

} // namespace runtime
} // namespace tirx
