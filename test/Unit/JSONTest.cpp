//===- JSONTest.cpp - bounded JSON parsing --------------------------------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//
//
// llvm::json::parse recurses per nesting level: 100000 '[' overflow the
// stack (exit 139) before it reports anything. parseJSON refuses them by a
// linear scan first; without the scan these tests crash instead of failing.
//
//===----------------------------------------------------------------------===//

#include "tirx/Support/JSON.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir::tirx;

namespace {

/// parseJSON's error message, or "" when it parsed.
std::string errorOf(const std::string &text, const JSONLimits &limits = {}) {
  auto parsed = parseJSON(text, limits);
  if (parsed)
    return "";
  return llvm::toString(parsed.takeError());
}

TEST(JSONTest, DeepArraysAreRefusedNotACrash) {
  EXPECT_EQ(errorOf(std::string(100000, '[')),
            "JSON nested deeper than 64 levels at byte 64");
}

TEST(JSONTest, DeepObjectsAreRefused) {
  std::string text;
  for (int i = 0; i < 100000; ++i)
    text += "{\"a\":";
  // The 65th '{' starts at byte 64 * 5.
  EXPECT_EQ(errorOf(text), "JSON nested deeper than 64 levels at byte 320");
}

TEST(JSONTest, SixtyFourLevelsPassSixtyFiveDoNot) {
  std::string ok = std::string(64, '[') + std::string(64, ']');
  EXPECT_EQ(errorOf(ok), "");
  std::string deep = std::string(65, '[') + std::string(65, ']');
  EXPECT_EQ(errorOf(deep), "JSON nested deeper than 64 levels at byte 64");
  JSONLimits three;
  three.maxDepth = 3;
  EXPECT_EQ(errorOf("[{\"a\":[1]}]", three), "");
  EXPECT_EQ(errorOf("[{\"a\":[[1]]}]", three),
            "JSON nested deeper than 3 levels at byte 7");
}

TEST(JSONTest, BracketsInsideStringsAreNotCounted) {
  // 100000 brackets inside a string, one with escaped quotes and
  // backslashes before them: the string never ends early.
  std::string text = "[\"" + std::string(100000, '[') + "\"]";
  auto parsed = parseJSON(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  std::string escaped = "{\"k\":\"\\\"\\\\\\\"" + std::string(1000, '{') +
                        "\",\"n\":[1]}";
  parsed = parseJSON(escaped);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->getAsObject()->getString("k")->size(), 1003u);
  // After the string, depth counts again.
  std::string after = "[\"]]]]\"," + std::string(100, '[');
  EXPECT_EQ(errorOf(after), "JSON nested deeper than 64 levels at byte 71");
}

TEST(JSONTest, NumbersOutsideDoubleRangeAreRefused) {
  EXPECT_EQ(errorOf("{\"x\":1e400}"),
            "JSON number 1e400 at byte 5 is outside the range of a double");
  EXPECT_EQ(errorOf("[-1E+400]"),
            "JSON number -1E+400 at byte 1 is outside the range of a double");
  std::string huge = "[1" + std::string(400, '0') + "]";
  EXPECT_NE(errorOf(huge).find("is outside the range of a double"),
            std::string::npos);
  // Inside a string it is text.
  EXPECT_EQ(errorOf("[\"1e400\"]"), "");
  // Underflow is a (tiny or zero) finite number; 1e308 is in range.
  EXPECT_EQ(errorOf("[1e-400, 1e308, -2.5e-3, 9223372036854775807]"), "");
}

TEST(JSONTest, SizeLimit) {
  JSONLimits small;
  small.maxBytes = 10;
  EXPECT_EQ(errorOf("[1,2,3,4,5]", small),
            "JSON text of 11 bytes is larger than the limit of 10 bytes");
  EXPECT_EQ(errorOf("[1,2,3,45]", small), "");
  // The default is 8 MiB.
  std::string big = "\"" + std::string((8 << 20) - 1, 'x') + "\"";
  EXPECT_EQ(errorOf(big), "JSON text of 8388609 bytes is larger than the "
                          "limit of 8388608 bytes");
}

TEST(JSONTest, ValidJSONParsesAndSyntaxErrorsPassThrough) {
  auto parsed = parseJSON("{\"a\": [1, 2.5, {\"b\": \"c\\\"]\"}], "
                          "\"t\": true, \"n\": null}");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *o = parsed->getAsObject();
  ASSERT_TRUE(o);
  EXPECT_EQ(o->getArray("a")->size(), 3u);
  EXPECT_EQ(*(*o->getArray("a"))[2].getAsObject()->getString("b"), "c\"]");
  EXPECT_NE(errorOf("{\"a\": [1, 2"), "");
  EXPECT_NE(errorOf("]]]]"), ""); // unmatched closers: the parser's error
  EXPECT_NE(errorOf(""), "");
}

} // namespace

namespace {
/// The text of the top-level number member `key`, or "-" when none.
std::string numberText(const std::string &text, const char *key = "id") {
  auto span = numberMember(text, key);
  return span ? text.substr(span->first, span->second - span->first) : "-";
}

TEST(JSONTest, NumberMemberFindsTheTopLevelNumberExactly) {
  EXPECT_EQ(numberText(R"({"jsonrpc":"2.0","id":1e400,"method":"ping"})"),
            "1e400");
  EXPECT_EQ(numberText(R"( { "id" : 12345678901234567890123 } )"),
            "12345678901234567890123");
  EXPECT_EQ(numberText(R"({"a":{"id":1},"b":["id",2],"id":-0.5E+3})"),
            "-0.5E+3");
  // Nested ids, strings, and malformed numbers are not top-level numbers.
  EXPECT_EQ(numberText(R"({"a":{"id":1}})"), "-");
  EXPECT_EQ(numberText(R"({"id":"7"})"), "-");
  EXPECT_EQ(numberText(R"({"id":01})"), "-");
  EXPECT_EQ(numberText(R"({"id":1.})"), "-");
  EXPECT_EQ(numberText(R"({"id":--1})"), "-");
  EXPECT_EQ(numberText(R"([1])"), "-");
  // The last of two members of one name is the one parsers keep.
  EXPECT_EQ(numberText(R"({"id":1,"id":2})"), "2");
  EXPECT_EQ(numberText(R"({"x":"\"id\":3","id":4})"), "4");
  // A deep or unterminated text is not a crash.
  EXPECT_EQ(numberText("{\"a\":" + std::string(100000, '[')), "-");
  EXPECT_EQ(numberText("{\"a\":\"" + std::string(10, '\\')), "-");
}
} // namespace

TEST(JSONTest, NonFiniteNumbersAreWrittenAsNull) {
  // An interval of one pair is [0, inf]: llvm::json would print `inf`,
  // which no JSON reader takes (tirx tune --json's vs_runner_up did).
  llvm::json::Object o{{"low", mlir::tirx::finiteOrNull(0.0)},
                       {"high", mlir::tirx::finiteOrNull(INFINITY)},
                       {"nan", mlir::tirx::finiteOrNull(NAN)},
                       {"ratio", mlir::tirx::finiteOrNull(1.5)}};
  std::string text = mlir::tirx::compactJSON(llvm::json::Value(std::move(o)));
  EXPECT_EQ(text, R"({"high":null,"low":0,"nan":null,"ratio":1.5})");
  EXPECT_TRUE(static_cast<bool>(mlir::tirx::parseJSON(text)));
}
