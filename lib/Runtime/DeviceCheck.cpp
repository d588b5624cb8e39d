//===- DeviceCheck.cpp - inputs and comparisons on the device ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "DeviceCheck.h"

#include <cmath>
#include <cstring>

namespace tirx {
namespace runtime {

using namespace gpu;

namespace {

constexpr const char *kTypes[] = {"f32", "f64", "f16", "bf16",
                                  "i8",  "i32", "i64"};

std::string replaceAll(std::string text, const std::string &from,
                       const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

unsigned log2Bytes(unsigned bytes) {
  return bytes == 8 ? 3 : bytes == 4 ? 2 : bytes == 2 ? 1 : 0;
}

/// Loads the element at [ADDR] of `type` into the f64 register OUT (its
/// value as elementAt gives it) and sets predicate BAD where it is NaN or
/// the integer poison (isPoison).
std::string loadSnippet(ElementType type) {
  switch (type) {
  case ElementType::f32:
    return "ld.global.f32 %f7, [ADDR];\n\tcvt.f64.f32 OUT, %f7;\n\t"
           "setp.nan.f64 BAD, OUT, OUT;";
  case ElementType::f64:
    return "ld.global.f64 OUT, [ADDR];\n\tsetp.nan.f64 BAD, OUT, OUT;";
  case ElementType::f16:
    return "ld.global.b16 %h7, [ADDR];\n\tcvt.f32.f16 %f7, %h7;\n\t"
           "cvt.f64.f32 OUT, %f7;\n\tsetp.nan.f64 BAD, OUT, OUT;";
  case ElementType::bf16:
    return "ld.global.u16 %r30, [ADDR];\n\tshl.b32 %r30, %r30, 16;\n\t"
           "mov.b32 %f7, %r30;\n\tcvt.f64.f32 OUT, %f7;\n\t"
           "setp.nan.f64 BAD, OUT, OUT;";
  case ElementType::i8:
    return "ld.global.s8 %r30, [ADDR];\n\tsetp.eq.s32 BAD, %r30, 122;\n\t"
           "cvt.rn.f64.s32 OUT, %r30;";
  case ElementType::i32:
    return "ld.global.s32 %r30, [ADDR];\n\t"
           "setp.eq.s32 BAD, %r30, 2054847098;\n\tcvt.rn.f64.s32 OUT, %r30;";
  case ElementType::i64:
    return "ld.global.s64 %rd60, [ADDR];\n\t"
           "setp.eq.s64 BAD, %rd60, 8825501086245354106;\n\t"
           "cvt.rn.f64.s64 OUT, %rd60;";
  }
  return "";
}

/// Stores fillRandom's element for the uniform draw in %fd1 at [ADDR]:
/// floats %fd1 * %fd20 - %fd21 (2u - 1, or u * 1 - 0 = u exactly for the
/// nonnegative domain, as fillRandom rounds them).
std::string storeSnippet(ElementType type) {
  const char *signedUnit = "mul.rn.f64 %fd2, %fd1, %fd20;\n\t"
                           "sub.rn.f64 %fd2, %fd2, %fd21;\n\t";
  const char *integer = "mul.rn.f64 %fd2, %fd1, 0d4069200000000000;\n\t"
                        "cvt.rmi.s64.f64 %rd16, %fd2;\n\t"
                        "sub.s64 %rd16, %rd16, 100;\n\t";
  std::string f = signedUnit;
  std::string i = integer;
  switch (type) {
  case ElementType::f64: return f + "st.global.f64 [ADDR], %fd2;";
  case ElementType::f32:
    return f + "cvt.rn.f32.f64 %f1, %fd2;\n\tst.global.f32 [ADDR], %f1;";
  case ElementType::f16:
    return f + "cvt.rn.f32.f64 %f1, %fd2;\n\tcvt.rn.f16.f32 %h1, %f1;\n\t"
               "st.global.b16 [ADDR], %h1;";
  case ElementType::bf16:
    return f + "cvt.rn.f32.f64 %f1, %fd2;\n\tcvt.rn.bf16.f32 %h1, %f1;\n\t"
               "st.global.b16 [ADDR], %h1;";
  case ElementType::i8:
    return i + "cvt.u32.u64 %r20, %rd16;\n\tst.global.u8 [ADDR], %r20;";
  case ElementType::i32:
    return i + "cvt.u32.u64 %r20, %rd16;\n\tst.global.b32 [ADDR], %r20;";
  case ElementType::i64: return i + "st.global.s64 [ADDR], %rd16;";
  }
  return "";
}

/// Reduces 64-bit register REG over the warp with OP (min.u64, max.u64,
/// add.u64, add.f64), through 32-bit halves.
std::string warpReduce(const std::string &reg, const std::string &op,
                       const std::string &tmp) {
  std::string out;
  for (int offset : {16, 8, 4, 2, 1}) {
    std::string o = std::to_string(offset);
    out += "\tmov.b64 {%r10, %r11}, " + reg + ";\n" +
           "\tshfl.sync.bfly.b32 %r12, %r10, " + o + ", 31, -1;\n" +
           "\tshfl.sync.bfly.b32 %r13, %r11, " + o + ", 31, -1;\n" +
           "\tmov.b64 " + tmp + ", {%r12, %r13};\n" + "\t" + op + " " + reg +
           ", " + reg + ", " + tmp + ";\n";
  }
  return out;
}

/// After a warp's reduction: only its first lane goes on (to $L_end else).
const char *kLaneZero = "\tand.b32 %r5, %r3, 31;\n"
                        "\tsetp.ne.u32 %p6, %r5, 0;\n"
                        "\t@%p6 bra $L_end;\n";

/// splitmix64's finalizer of %rd14 (constants in %rd11, %rd12).
const char *kMix = R"(
	shr.u64 %rd15, %rd14, 30;
	xor.b64 %rd14, %rd14, %rd15;
	mul.lo.u64 %rd14, %rd14, %rd11;
	shr.u64 %rd15, %rd14, 27;
	xor.b64 %rd14, %rd14, %rd15;
	mul.lo.u64 %rd14, %rd14, %rd12;
	shr.u64 %rd15, %rd14, 31;
	xor.b64 %rd14, %rd14, %rd15;)";
const char *kMixConstants = R"(
	mov.u64 %rd10, 0x9E3779B97F4A7C15;
	mov.u64 %rd11, 0xBF58476D1CE4E5B9;
	mov.u64 %rd12, 0x94D049BB133111EB;)";

struct PtxParam {
  const char *type; // u64 or f64
  const char *reg;
  bool pointer;     // made a global address
};

/// A kernel whose threads share the elements [0, n) (n in %rd3) in a
/// grid-stride loop: %rd20 is the element, %rd23 its byte offset (element
/// size 2^`log2`), %r3 the thread's index in its block. `setup` runs once,
/// `body` for each element (it may branch to $L_next), `finish` once the
/// thread is done (it may branch to $L_end).
std::string loopKernel(const std::string &name,
                       const std::vector<PtxParam> &params, unsigned log2,
                       const std::string &setup, const std::string &body,
                       const std::string &finish) {
  std::string k = "\n.visible .entry " + name + "(";
  for (size_t i = 0; i < params.size(); ++i)
    k += std::string(i ? ", " : "") + ".param ." + params[i].type + " p" +
         std::to_string(i);
  k += R"()
{
	.reg .pred %p<16>;
	.reg .b16 %h<8>;
	.reg .b32 %r<32>;
	.reg .b64 %rd<64>;
	.reg .f32 %f<8>;
	.reg .f64 %fd<32>;
)";
  for (size_t i = 0; i < params.size(); ++i) {
    std::string reg = params[i].reg;
    k += std::string("\tld.param.") + params[i].type + " " + reg + ", [p" +
         std::to_string(i) + "];\n";
    if (params[i].pointer)
      k += "\tcvta.to.global.u64 " + reg + ", " + reg + ";\n";
  }
  k += R"(	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %nctaid.x;
	mul.wide.u32 %rd20, %r1, %r2;
	cvt.u64.u32 %rd21, %r3;
	add.u64 %rd20, %rd20, %rd21;
	mul.wide.u32 %rd22, %r4, %r2;)";
  k += setup + R"(
$L_loop:
	setp.ge.u64 %p1, %rd20, %rd3;
	@%p1 bra $L_done;
	shl.b64 %rd23, %rd20, )" +
       std::to_string(log2) + ";\n" + body + R"(
$L_next:
	add.u64 %rd20, %rd20, %rd22;
	bra $L_loop;
$L_done:
)" + finish + R"($L_end:
	ret;
}
)";
  return k;
}

/// `snippet` with its ADDR, OUT and BAD placeholders filled in.
std::string fillIn(std::string snippet, const std::string &addr,
                   const std::string &out = "", const std::string &bad = "") {
  snippet = replaceAll(snippet, "ADDR", addr);
  snippet = replaceAll(snippet, "OUT", out);
  return replaceAll(snippet, "BAD", bad);
}

std::string fillKernel(ElementType type) {
  // %rd1 buffer, %rd3 elements, %rd2 seed, %rd5 nonzero for the
  // nonnegative domain.
  std::string setup = std::string(kMixConstants) + R"(
	setp.ne.u64 %p7, %rd5, 0;
	selp.f64 %fd20, 0d3FF0000000000000, 0d4000000000000000, %p7;
	selp.f64 %fd21, 0d0000000000000000, 0d3FF0000000000000, %p7;)";
  std::string body = R"(	add.u64 %rd13, %rd20, 1;
	mad.lo.u64 %rd14, %rd13, %rd10, %rd2;)" +
                     std::string(kMix) + R"(
	shr.u64 %rd15, %rd14, 11;
	cvt.rn.f64.u64 %fd1, %rd15;
	mul.rn.f64 %fd1, %fd1, 0d3CA0000000000000;
	add.u64 %rd24, %rd1, %rd23;
	)" + fillIn(storeSnippet(type), "%rd24");
  return loopKernel(std::string("tirx_fill_") + elementTypeName(type),
                    {{"u64", "%rd1", true}, {"u64", "%rd3", false},
                     {"u64", "%rd2", false}, {"u64", "%rd5", false}},
                    log2Bytes(elementBytes(type)), setup, body, "");
}

std::string compareKernel(ElementType type) {
  // %rd1 got, %rd2 want, %rd3 elements, %fd1 rtol, %fd2 slack, %rd4 the
  // result: first bad element, largest error's bits, the two sums.
  std::string load = loadSnippet(type);
  std::string body = "\tadd.u64 %rd24, %rd2, %rd23;\n\t" +
                     fillIn(load, "%rd24", "%fd6", "%p2") +
                     "\n\tadd.u64 %rd25, %rd1, %rd23;\n\t" +
                     fillIn(load, "%rd25", "%fd7", "%p3") + R"(
	@%p2 bra $L_bad;
	@%p3 bra $L_gotbad;
	sub.rn.f64 %fd8, %fd7, %fd6;
	abs.f64 %fd8, %fd8;
	setp.nan.f64 %p4, %fd8, %fd8;
	selp.f64 %fd8, 0d7FF0000000000000, %fd8, %p4;
	max.f64 %fd3, %fd3, %fd8;
	mul.rn.f64 %fd9, %fd8, %fd8;
	add.rn.f64 %fd4, %fd4, %fd9;
	mul.rn.f64 %fd9, %fd6, %fd6;
	add.rn.f64 %fd5, %fd5, %fd9;
	abs.f64 %fd10, %fd6;
	mul.rn.f64 %fd10, %fd1, %fd10;
	add.rn.f64 %fd10, %fd2, %fd10;
	setp.gt.f64 %p5, %fd8, %fd10;
	@%p5 bra $L_bad;
	bra $L_next;
$L_gotbad:
	mov.f64 %fd3, 0d7FF0000000000000;
$L_bad:
	min.u64 %rd5, %rd5, %rd20;)";
  std::string finish = "\tmov.b64 %rd6, %fd3;\n" +
                       warpReduce("%rd5", "min.u64", "%rd7") +
                       warpReduce("%rd6", "max.u64", "%rd7") +
                       warpReduce("%fd4", "add.f64", "%fd11") +
                       warpReduce("%fd5", "add.f64", "%fd11") + kLaneZero +
                       R"(	red.global.min.u64 [%rd4], %rd5;
	red.global.max.u64 [%rd4+8], %rd6;
	red.global.add.f64 [%rd4+16], %fd4;
	red.global.add.f64 [%rd4+24], %fd5;
)";
  return loopKernel(std::string("tirx_compare_") + elementTypeName(type),
                    {{"u64", "%rd1", true}, {"u64", "%rd2", true},
                     {"u64", "%rd3", false}, {"f64", "%fd1", false},
                     {"f64", "%fd2", false}, {"u64", "%rd4", true}},
                    log2Bytes(elementBytes(type)), R"(
	mov.u64 %rd5, -1;
	mov.f64 %fd3, 0d0000000000000000;
	mov.f64 %fd4, 0d0000000000000000;
	mov.f64 %fd5, 0d0000000000000000;)",
                    body, finish);
}

std::string sumsqKernel(ElementType type) {
  // %rd2 buffer, %rd3 elements, %rd4 the result: sum of squares, count.
  std::string body = "\tadd.u64 %rd24, %rd2, %rd23;\n\t" +
                     fillIn(loadSnippet(type), "%rd24", "%fd6", "%p2") + R"(
	testp.finite.f64 %p3, %fd6;
	@!%p3 bra $L_next;
	mul.rn.f64 %fd9, %fd6, %fd6;
	add.rn.f64 %fd4, %fd4, %fd9;
	add.u64 %rd5, %rd5, 1;)";
  std::string finish = warpReduce("%fd4", "add.f64", "%fd11") +
                       warpReduce("%rd5", "add.u64", "%rd7") + kLaneZero +
                       R"(	red.global.add.f64 [%rd4], %fd4;
	red.global.add.u64 [%rd4+8], %rd5;
)";
  return loopKernel(std::string("tirx_sumsq_") + elementTypeName(type),
                    {{"u64", "%rd2", true}, {"u64", "%rd3", false},
                     {"u64", "%rd4", true}},
                    log2Bytes(elementBytes(type)), R"(
	mov.f64 %fd4, 0d0000000000000000;
	mov.u64 %rd5, 0;)",
                    body, finish);
}

/// Loads the `bytes`-wide element at [ADDR] zero-extended into OUT (a
/// 64-bit register) or, below 8 bytes, into the 32-bit register TMP.
std::string loadBits(unsigned bytes, const std::string &addr,
                     const std::string &out, const std::string &tmp) {
  if (bytes == 8)
    return "ld.global.u64 " + out + ", [" + addr + "];";
  return "ld.global.u" + std::to_string(bytes * 8) + " " + tmp + ", [" +
         addr + "];";
}

std::string diffKernel(unsigned bytes) {
  // %rd1 and %rd2 the buffers, %rd3 elements, %rd4 the result: the first
  // element where they differ.
  std::string compare =
      bytes == 8 ? "setp.ne.u64 %p2, %rd26, %rd27;"
                 : "setp.ne.u32 %p2, %r20, %r21;";
  std::string body = "\tadd.u64 %rd24, %rd1, %rd23;\n\tadd.u64 %rd25, %rd2, "
                     "%rd23;\n\t" +
                     loadBits(bytes, "%rd24", "%rd26", "%r20") + "\n\t" +
                     loadBits(bytes, "%rd25", "%rd27", "%r21") + "\n\t" +
                     compare + "\n\t@%p2 min.u64 %rd5, %rd5, %rd20;";
  std::string finish = warpReduce("%rd5", "min.u64", "%rd7") + kLaneZero +
                       "\tred.global.min.u64 [%rd4], %rd5;\n";
  return loopKernel("tirx_diff_" + std::to_string(bytes),
                    {{"u64", "%rd1", true}, {"u64", "%rd2", true},
                     {"u64", "%rd3", false}, {"u64", "%rd4", true}},
                    log2Bytes(bytes), "\n\tmov.u64 %rd5, -1;", body, finish);
}

/// A position-dependent checksum of a buffer of `bytes`-wide elements: the
/// sum of mix(element + (i + 1) * golden) over the elements (splitmix64's
/// finalizer), so that a changed or moved element changes it.
std::string checksumKernel(unsigned bytes) {
  // %rd1 buffer, %rd3 elements, %rd4 the result.
  std::string body = "\tadd.u64 %rd24, %rd1, %rd23;\n\t" +
                     loadBits(bytes, "%rd24", "%rd26", "%r20") +
                     (bytes == 8 ? "" : "\n\tcvt.u64.u32 %rd26, %r20;") + R"(
	add.u64 %rd13, %rd20, 1;
	mad.lo.u64 %rd14, %rd13, %rd10, %rd26;)" +
                     std::string(kMix) + "\n\tadd.u64 %rd5, %rd5, %rd14;";
  std::string finish = warpReduce("%rd5", "add.u64", "%rd7") + kLaneZero +
                       "\tred.global.add.u64 [%rd4], %rd5;\n";
  return loopKernel("tirx_checksum_" + std::to_string(bytes),
                    {{"u64", "%rd1", true}, {"u64", "%rd3", false},
                     {"u64", "%rd4", true}},
                    log2Bytes(bytes),
                    std::string(kMixConstants) + "\n\tmov.u64 %rd5, 0;", body,
                    finish);
}

} // namespace

std::string deviceCheckPtx() {
  // PTX 7.8 for sm_80 (cvt.rn.bf16.f32 needs both); the driver compiles it
  // for the device at hand.
  std::string ptx = "//\n// TIRx: the persistent worker's inputs and checks "
                    "(lib/Runtime/DeviceCheck.cpp)\n//\n"
                    ".version 7.8\n.target sm_80\n.address_size 64\n";
  for (const char *name : kTypes) {
    ElementType type = *parseElementType(name);
    ptx += fillKernel(type) + compareKernel(type) + sumsqKernel(type);
  }
  for (unsigned bytes : {1u, 2u, 4u, 8u})
    ptx += diffKernel(bytes) + checksumKernel(bytes);
  return ptx;
}

DeviceChecker::DeviceChecker(int smCount)
    : smCount(smCount > 0 ? smCount : 128), result(64) {
  std::string ptx = deviceCheckPtx();
  CU(cuModuleLoadData(&module, ptx.c_str()));
}

DeviceChecker::~DeviceChecker() {
  if (module)
    driver().cuModuleUnload(module);
}

CUfunction DeviceChecker::function(const std::string &name) {
  CUfunction fn;
  check(driver().cuModuleGetFunction(&fn, module, name.c_str()),
        ("cuModuleGetFunction(" + name + ")").c_str());
  return fn;
}

void DeviceChecker::launch(const std::string &name, uint64_t n, void **args) {
  // Grid-stride loops: enough blocks to fill the device, no more.
  uint64_t blocks = std::max<uint64_t>(
      1, std::min<uint64_t>((n + 255) / 256, uint64_t(smCount) * 8));
  CU(cuLaunchKernel(function(name), unsigned(blocks), 1, 1, 256, 1, 1, 0,
                    nullptr, args, nullptr));
  synchronize(busy);
}

std::vector<uint8_t> DeviceChecker::element(CUdeviceptr ptr, ElementType type,
                                            uint64_t i) {
  std::vector<uint8_t> one(elementBytes(type));
  CU(cuMemcpyDtoH(one.data(), ptr + i * one.size(), one.size()));
  return one;
}

void DeviceChecker::fill(CUdeviceptr ptr, uint64_t bytes, ElementType type,
                         uint64_t seed, Domain domain) {
  uint64_t n = bytes / elementBytes(type);
  if (n == 0)
    return;
  uint64_t nonnegative = domain == Domain::nonnegative;
  void *args[] = {&ptr, &n, &seed, &nonnegative};
  launch(std::string("tirx_fill_") + elementTypeName(type), n, args);
}

double DeviceChecker::rms(CUdeviceptr ptr, uint64_t bytes, ElementType type) {
  uint64_t n = bytes / elementBytes(type);
  struct {
    double sum;
    uint64_t count;
  } sums = {0, 0};
  CU(cuMemcpyHtoD(result.ptr, &sums, sizeof(sums)));
  CUdeviceptr out = result.ptr;
  void *args[] = {&ptr, &n, &out};
  if (n > 0)
    launch(std::string("tirx_sumsq_") + elementTypeName(type), n, args);
  CU(cuMemcpyDtoH(&sums, result.ptr, sizeof(sums)));
  return sums.count ? std::sqrt(sums.sum / double(sums.count)) : 0;
}

Comparison DeviceChecker::compare(const std::string &name, ElementType type,
                                  CUdeviceptr got, CUdeviceptr want,
                                  uint64_t bytes, const Tolerance &tol,
                                  double wantRms) {
  uint64_t n = bytes / elementBytes(type);
  struct {
    uint64_t firstBad;
    uint64_t maxAbsBits;
    double diff2;
    double ref2;
  } sums = {~uint64_t(0), 0, 0, 0};
  CU(cuMemcpyHtoD(result.ptr, &sums, sizeof(sums)));
  double rtol = tol.rtol;
  double slack = tol.atol + (tol.rmsRel > 0 ? tol.rmsRel * wantRms : 0);
  CUdeviceptr out = result.ptr;
  void *args[] = {&got, &want, &n, &rtol, &slack, &out};
  if (n > 0)
    launch(std::string("tirx_compare_") + elementTypeName(type), n, args);
  CU(cuMemcpyDtoH(&sums, result.ptr, sizeof(sums)));
  Comparison c;
  ComparisonSums totals;
  std::memcpy(&totals.maxAbsError, &sums.maxAbsBits, 8);
  totals.diff2 = sums.diff2;
  totals.ref2 = sums.ref2;
  if (sums.firstBad != ~uint64_t(0)) {
    // The first bad element, read back to say what it holds.
    auto g = element(got, type, sums.firstBad);
    auto w = element(want, type, sums.firstBad);
    double wv = elementAt(w, type, 0);
    c.pass = false;
    c.firstBad = int64_t(sums.firstBad);
    c.detail = describeMismatch(name, sums.firstBad, elementAt(g, type, 0), wv,
                                isPoison(g, type, 0),
                                std::isnan(wv) || isPoison(w, type, 0));
  }
  finishComparison(name, totals, tol, c);
  return c;
}

int64_t DeviceChecker::firstDifference(CUdeviceptr a, CUdeviceptr b,
                                       uint64_t bytes, ElementType type) {
  unsigned width = elementBytes(type);
  uint64_t n = bytes / width;
  uint64_t first = ~uint64_t(0);
  CU(cuMemcpyHtoD(result.ptr, &first, sizeof(first)));
  CUdeviceptr out = result.ptr;
  void *args[] = {&a, &b, &n, &out};
  if (n > 0)
    launch("tirx_diff_" + std::to_string(width), n, args);
  CU(cuMemcpyDtoH(&first, result.ptr, sizeof(first)));
  return first == ~uint64_t(0) ? -1 : int64_t(first);
}

Comparison DeviceChecker::unchanged(const std::string &name, ElementType type,
                                    CUdeviceptr now, CUdeviceptr uploaded,
                                    uint64_t bytes) {
  int64_t i = firstDifference(now, uploaded, bytes, type);
  if (i < 0)
    return Comparison();
  return describeChange(name, size_t(i),
                        elementAt(element(now, type, i), type, 0),
                        elementAt(element(uploaded, type, i), type, 0));
}

uint64_t DeviceChecker::checksum(CUdeviceptr ptr, uint64_t bytes,
                                 ElementType type) {
  unsigned width = elementBytes(type);
  uint64_t n = bytes / width;
  uint64_t sum = 0;
  CU(cuMemcpyHtoD(result.ptr, &sum, sizeof(sum)));
  CUdeviceptr out = result.ptr;
  void *args[] = {&ptr, &n, &out};
  if (n > 0)
    launch("tirx_checksum_" + std::to_string(width), n, args);
  CU(cuMemcpyDtoH(&sum, result.ptr, sizeof(sum)));
  return sum;
}

RelaunchCheck DeviceChecker::relaunch(const std::string &name,
                                      ElementType type, CUdeviceptr now,
                                      CUdeviceptr first, CUdeviceptr want,
                                      uint64_t bytes, const Tolerance &tol,
                                      double wantRms) {
  RelaunchCheck r;
  if (firstDifference(now, first, bytes, type) < 0)
    return r;
  r.bitEqual = false;
  r.comparison = compare(name, type, now, want, bytes, tol, wantRms);
  return r;
}

} // namespace runtime
} // namespace tirx
