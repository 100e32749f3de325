//===- JsonTest.cpp - JSON printing, parsing and their round trips --------===//
//
// amp::train::json without LLVM: values print and read back equal (numbers
// keep their kind and bits, strings their bytes, objects their key order),
// the exact compact and indented layouts, and every strict-parsing rejection
// with its position. Hostile input (deep nesting, mutations of a valid
// document, large documents) fails or succeeds without crashing.
//
//===----------------------------------------------------------------------===//

#include "amptrain/Json.h"
#include <chrono>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>

using namespace amp::train::json;

namespace amp::train::json {
/// Failures show values as JSON.
void PrintTo(const Value &value, std::ostream *os) { *os << print(value, 0); }
} // namespace amp::train::json

namespace {

/// Parses text that must be rejected and returns the message.
std::string errorOf(std::string_view text) {
  std::string error;
  std::optional<Value> value = parse(text, &error);
  EXPECT_FALSE(value) << "accepted: " << text;
  EXPECT_FALSE(error.empty());
  return error;
}

/// Parses text that must be accepted.
Value parsed(std::string_view text) {
  std::string error;
  std::optional<Value> value = parse(text, &error);
  EXPECT_TRUE(value) << text << ": " << error;
  return value ? *value : Value();
}

/// print then parse gives an equal value, at several indents, and printing
/// what was read gives the same text again.
void expectRoundTrip(const Value &value) {
  for (int indent : {0, 2, 4}) {
    std::string text = print(value, indent);
    std::optional<Value> back = parse(text);
    ASSERT_TRUE(back) << text;
    EXPECT_EQ(*back, value) << text;
    EXPECT_EQ(back->kind(), value.kind()) << text;
    EXPECT_EQ(print(*back, indent), text);
  }
}

/// The number after one print/parse round trip.
Value numberRoundTrip(const Value &value) {
  std::optional<Value> back = parse(print(value));
  EXPECT_TRUE(back) << print(value);
  return back ? *back : Value();
}

std::string nested(std::string_view open, std::string_view close, int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i)
    text += open;
  text += "0";
  for (int i = 0; i < depth; ++i)
    text += close;
  return text;
}

TEST(JsonTest, NestedValuesRoundTrip) {
  Value value = Object{
      {"name", "run-7"},
      {"ok", true},
      {"skipped", false},
      {"none", nullptr},
      {"steps", 1200},
      {"loss", 0.03125},
      {"layers", Array{Object{{"w", Array{1, 2.5, -3}}, {"b", Object{}}},
                       Array{}, Array{Value(Array{Value(Array{"deep"})})}}},
      {"empty", ""},
  };
  expectRoundTrip(value);
  expectRoundTrip(Array{});
  expectRoundTrip(Object{});
  expectRoundTrip("just a string");
  expectRoundTrip(nullptr);
  expectRoundTrip(42);
}

TEST(JsonTest, NumbersRoundTripExactly) {
  for (double d :
       {0.1, 1e-300, 1e300, 123.456, -2.5, 5e-324, 2.2250738585072014e-308,
        std::numeric_limits<double>::max(), 1.0, 1e16, 1e21, 0.0}) {
    Value back = numberRoundTrip(d);
    EXPECT_EQ(back.kind(), Value::Kind::Number) << d;
    EXPECT_EQ(back.asNumber(), d);
  }
  Value negativeZero = numberRoundTrip(-0.0);
  EXPECT_EQ(negativeZero.kind(), Value::Kind::Number);
  EXPECT_TRUE(std::signbit(*negativeZero.asNumber()));
  EXPECT_EQ(print(-0.0), "-0.0");

  // 1.0 must not read back as the Integer 1.
  EXPECT_EQ(print(1.0), "1.0");
  EXPECT_EQ(print(1e300), "1e+300");
  EXPECT_EQ(print(0.1), "0.1");

  for (int64_t i :
       {std::numeric_limits<int64_t>::min(),
        std::numeric_limits<int64_t>::max(), int64_t(0), int64_t(-1)}) {
    Value back = numberRoundTrip(i);
    EXPECT_EQ(back.kind(), Value::Kind::Integer);
    EXPECT_EQ(back.asInteger(), i);
  }
  EXPECT_EQ(print(std::numeric_limits<int64_t>::min()), "-9223372036854775808");

  // A float is widened exactly; the double prints in full and reads back.
  Value widened = numberRoundTrip(0.1f);
  EXPECT_EQ(widened.asNumber(), double(0.1f));
  EXPECT_NE(widened.asNumber(), 0.1);
  EXPECT_EQ(print(0.1f), "0.10000000149011612");
}

TEST(JsonTest, IntegerAndNumberKinds) {
  EXPECT_EQ(Value(3).kind(), Value::Kind::Integer);
  EXPECT_EQ(Value(3u).kind(), Value::Kind::Integer);
  EXPECT_EQ(Value(size_t(7)).asInteger(), 7);
  EXPECT_EQ(Value(3.0).kind(), Value::Kind::Number);
  EXPECT_EQ(Value(3), Value(3.0));
  EXPECT_NE(Value(3), Value(3.5));
  EXPECT_NE(Value(3), Value("3"));
  EXPECT_EQ(Value(3.0).asInteger(), 3);
  EXPECT_EQ(Value(3.5).asInteger(), std::nullopt);
  EXPECT_EQ(Value(1e19).asInteger(), std::nullopt);
  EXPECT_EQ(Value(-9223372036854775808.0).asInteger(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Value(7).asNumber(), 7.0);
  EXPECT_EQ(Value("7").asNumber(), std::nullopt);

  // Above INT64_MAX an unsigned becomes a Number, not a negative Integer.
  Value huge(std::numeric_limits<unsigned long long>::max());
  EXPECT_EQ(huge.kind(), Value::Kind::Number);
  EXPECT_EQ(huge.asNumber(), 18446744073709551615.0);
  EXPECT_EQ(numberRoundTrip(huge), huge);
  // 2^63 as a Number is not INT64_MAX, though both round to the same double.
  EXPECT_NE(Value(std::numeric_limits<int64_t>::max()),
            Value(9223372036854775808.0));

  Value big = parsed("9223372036854775808");
  EXPECT_EQ(big.kind(), Value::Kind::Number);
  EXPECT_EQ(parsed("-9223372036854775808").asInteger(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(parsed("12").kind(), Value::Kind::Integer);
  EXPECT_EQ(parsed("-0").kind(), Value::Kind::Integer);
  EXPECT_EQ(parsed("12.0").kind(), Value::Kind::Number);
  EXPECT_EQ(parsed("1E2").kind(), Value::Kind::Number);
  EXPECT_EQ(parsed("1e-2").asNumber(), 0.01);
  EXPECT_EQ(parsed("1e+2").asNumber(), 100.0);
}

TEST(JsonTest, NonFiniteIsStoredAsNull) {
  EXPECT_TRUE(Value(std::nan("")).isNull());
  EXPECT_TRUE(Value(std::numeric_limits<double>::infinity()).isNull());
  EXPECT_TRUE(Value(-std::numeric_limits<double>::infinity()).isNull());
  EXPECT_TRUE(Value(std::numeric_limits<float>::quiet_NaN()).isNull());
  EXPECT_EQ(print(Array{1.5, std::nan("")}, 0), "[1.5,null]");
}

TEST(JsonTest, OutOfRangeNumbers) {
  EXPECT_EQ(errorOf("1e999"), "line 1, column 1: number out of range");
  EXPECT_EQ(errorOf("[0, -1e999]"), "line 1, column 5: number out of range");
  EXPECT_EQ(errorOf("1" + std::string(400, '0')),
            "line 1, column 1: number out of range");
  EXPECT_EQ(errorOf("0.00001e99999999999999999999"),
            "line 1, column 1: number out of range");
  // Too small for a double reads as zero, keeping the sign.
  for (const char *tiny : {"1e-999", "0.0000001e-330", "123e-99999999999999"}) {
    Value zero = parsed(tiny);
    EXPECT_EQ(zero.kind(), Value::Kind::Number);
    EXPECT_EQ(zero.asNumber(), 0.0);
  }
  EXPECT_TRUE(std::signbit(*parsed("-1e-999").asNumber()));
  EXPECT_EQ(parsed("0e999999").asNumber(), 0.0);
}

TEST(JsonTest, StringsEscapeAndRoundTrip) {
  EXPECT_EQ(print("a\"b\\c/\n\t\r\b\f\x01\x1f\x7f"),
            R"("a\"b\\c/\n\t\r\b\f\u0001\u001f)"
            "\x7f\"");
  std::string all;
  for (int c = 0; c < 0x80; ++c)
    all += char(c);
  all += "é€😀";
  expectRoundTrip(all);
  expectRoundTrip(std::string("nul\0inside", 10));
  // UTF-8 passes through unescaped.
  EXPECT_EQ(print("é€😀"), "\"é€😀\"");
  // Invalid UTF-8 prints as U+FFFD, so the output still parses.
  EXPECT_EQ(print("a\xff"
                  "b\xe2\x82"),
            "\"a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_TRUE(parse(print("\xc0\xaf\xed\xa0\x80")));
}

TEST(JsonTest, UnicodeEscapesDecodeToUtf8) {
  EXPECT_EQ(*parsed(R"("\u00e9\u20AC\ud83d\ude00\u0041\/")").asString(),
            "é€😀A/");
  EXPECT_EQ(*parsed(R"("\u0000")").asString(), std::string(1, '\0'));
  EXPECT_EQ(*parsed(R"("\b\f\n\r\t\"\\")").asString(), "\b\f\n\r\t\"\\");
}

TEST(JsonTest, InsertionOrderIsKept) {
  Object object;
  object["zeta"] = 1;
  object["alpha"] = 2;
  object["mid"] = 3;
  object["zeta"] = 4; // Reassigning keeps the first position.
  EXPECT_EQ(print(object, 0), R"({"zeta":4,"alpha":2,"mid":3})");

  Value back = parsed(R"({"b": 1, "a": 2, "c": {"y": 0, "x": 0}})");
  std::vector<std::string> keys;
  for (const auto &[key, value] : *back.asObject())
    keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(print(back, 0), R"({"b":1,"a":2,"c":{"y":0,"x":0}})");
}

TEST(JsonTest, ObjectEqualityIgnoresOrder) {
  EXPECT_EQ(parsed(R"({"a":1,"b":[2]})"), parsed(R"({"b":[2],"a":1})"));
  EXPECT_NE(parsed(R"({"a":1,"b":2})"), parsed(R"({"a":1,"c":2})"));
  EXPECT_NE(parsed(R"({"a":1})"), parsed(R"({"a":1,"b":2})"));
  EXPECT_NE(parsed("[1,2]"), parsed("[2,1]"));
}

TEST(JsonTest, ObjectAccess) {
  Object object{{"a", 1}, {"b", "x"}, {"a", 2}};
  EXPECT_EQ(object.size(), 2u);
  EXPECT_EQ(*object.find("a"), Value(2));
  EXPECT_TRUE(object.contains("b"));
  EXPECT_FALSE(object.contains("c"));
  EXPECT_EQ(object.find("c"), nullptr);
  EXPECT_TRUE(object["c"].isNull()); // Inserted.
  EXPECT_EQ(object.size(), 3u);
  Value value = object;
  EXPECT_EQ(*value.asObject()->find("b")->asString(), "x");
  EXPECT_EQ(value.asArray(), nullptr);
  EXPECT_EQ(value.asString(), nullptr);
  EXPECT_EQ(value.asBool(), std::nullopt);
  EXPECT_TRUE(Object().empty());
  Value array = Array{1};
  array.asArray()->push_back(true);
  EXPECT_EQ(print(array, 0), "[1,true]");
}

TEST(JsonTest, CompactOutputExactly) {
  Value value = Object{{"a", Array{1, 2.5, "x"}},
                       {"b", Object{}},
                       {"c", Array{}},
                       {"d", nullptr},
                       {"e", true}};
  EXPECT_EQ(print(value, 0),
            R"({"a":[1,2.5,"x"],"b":{},"c":[],"d":null,"e":true})");
  EXPECT_EQ(print(value, -3), print(value, 0));
  // Value(...) around an inner Array: Array{Array{}} alone is a copy under
  // Clang (CWG 2137), a nested array under GCC.
  EXPECT_EQ(print(Array{Value(Array{Value(Array{})})}, 0), "[[[]]]");
}

TEST(JsonTest, IndentedOutputExactly) {
  Value value = Object{
      {"a", Array{1, 2.5}}, {"b", Object{}}, {"c", Object{{"d", Array{}}}}};
  EXPECT_EQ(print(value), "{\n"
                          "  \"a\": [\n"
                          "    1,\n"
                          "    2.5\n"
                          "  ],\n"
                          "  \"b\": {},\n"
                          "  \"c\": {\n"
                          "    \"d\": []\n"
                          "  }\n"
                          "}");
  EXPECT_EQ(print(Array{1}, 4), "[\n    1\n]");
  EXPECT_EQ(print(7), "7");
}

/// printWithLongArray's text, gathered from its pieces (counted in `pieces`).
static std::string printedWithLongArray(const Object &head, size_t count,
                                        size_t *pieces = nullptr) {
  std::string text;
  size_t n = 0;
  bool ok = printWithLongArray(
      head, "steps", count,
      [](size_t i) { return Value(Object{{"i", (int64_t)i}}); },
      [&](std::string_view piece) {
        text += piece;
        ++n;
        return true;
      });
  EXPECT_TRUE(ok);
  if (pieces)
    *pieces = n;
  return text;
}

TEST(JsonTest, LongArrayPrintsLastAndReadsBackEqual) {
  Object head{{"a", 1}, {"b", Array{2}}};
  EXPECT_EQ(printedWithLongArray(head, 2), "{\n"
                                           "  \"a\": 1,\n"
                                           "  \"b\": [\n"
                                           "    2\n"
                                           "  ],\n"
                                           "  \"steps\": [\n"
                                           "    {\"i\":0},\n"
                                           "    {\"i\":1}\n"
                                           "  ]\n"
                                           "}");
  EXPECT_EQ(printedWithLongArray(Object{}, 0), "{\n  \"steps\": []\n}");
  // Many elements come in several pieces and parse back whole.
  size_t pieces = 0;
  std::optional<Value> back =
      parse(printedWithLongArray(head, 100000, &pieces));
  ASSERT_TRUE(back);
  EXPECT_GT(pieces, 1u);
  const Array *steps = back->asObject()->find("steps")->asArray();
  ASSERT_EQ(steps->size(), 100000u);
  EXPECT_EQ((*steps)[99999], Value(Object{{"i", 99999}}));
  EXPECT_EQ(*back->asObject()->find("a"), Value(1));
}

TEST(JsonTest, LongArrayStopsWhenTheOutputRefuses) {
  size_t calls = 0, made = 0;
  bool ok = printWithLongArray(
      Object{}, "steps", 100000,
      [&](size_t i) {
        ++made;
        return Value((int64_t)i);
      },
      [&](std::string_view) { return ++calls < 2; });
  EXPECT_FALSE(ok);
  EXPECT_EQ(calls, 2u);
  EXPECT_LT(made, 100000u);
}

TEST(JsonTest, WhitespaceAroundTheDocument) {
  EXPECT_EQ(parsed(" \t\r\n [ 1 , 2 ] \n"), Value(Array{1, 2}));
  EXPECT_EQ(errorOf("\f1"), "line 1, column 1: expected a value");
  EXPECT_EQ(errorOf(""), "line 1, column 1: unexpected end of input, "
                         "expected a value");
  EXPECT_EQ(errorOf("  \n "), "line 2, column 2: unexpected end of input, "
                              "expected a value");
  EXPECT_EQ(errorOf("1 2"),
            "line 1, column 3: unexpected text after the document");
  EXPECT_EQ(errorOf("{} x"),
            "line 1, column 4: unexpected text after the document");
}

TEST(JsonTest, RejectsTrailingCommas) {
  EXPECT_EQ(errorOf("[1,2,]"), "line 1, column 6: trailing comma");
  EXPECT_EQ(errorOf("{\"a\": 1,\n}"), "line 2, column 1: trailing comma");
  EXPECT_EQ(errorOf("[,]"), "line 1, column 2: expected a value");
  EXPECT_EQ(errorOf("{,}"), "line 1, column 2: expected a string key");
}

TEST(JsonTest, RejectsComments) {
  EXPECT_EQ(errorOf("[1, // one\n2]"),
            "line 1, column 5: comments are not allowed");
  EXPECT_EQ(errorOf("/* c */ 1"), "line 1, column 1: comments are not allowed");
  EXPECT_EQ(errorOf("[1 /* c */]"),
            "line 1, column 4: comments are not allowed");
  EXPECT_EQ(errorOf("1 // c"), "line 1, column 3: comments are not allowed");
}

TEST(JsonTest, RejectsSingleQuotes) {
  EXPECT_EQ(errorOf("['a']"),
            "line 1, column 2: single-quoted strings are not allowed");
  EXPECT_EQ(errorOf("{\n  'a': 1}"),
            "line 2, column 3: single-quoted strings are not allowed");
}

TEST(JsonTest, RejectsLeadingZeros) {
  EXPECT_EQ(errorOf("01"), "line 1, column 1: leading zeros are not allowed");
  EXPECT_EQ(errorOf("[-012]"),
            "line 1, column 2: leading zeros are not allowed");
  EXPECT_EQ(errorOf("00.5"), "line 1, column 1: leading zeros are not allowed");
  EXPECT_EQ(parsed("0.5").asNumber(), 0.5);
  EXPECT_EQ(parsed("-0.5").asNumber(), -0.5);
}

TEST(JsonTest, RejectsMalformedNumbers) {
  EXPECT_EQ(errorOf("-"), "line 1, column 2: unexpected end of input, "
                          "expected a digit");
  EXPECT_EQ(errorOf("1."), "line 1, column 3: unexpected end of input, "
                           "expected a digit after '.'");
  EXPECT_EQ(errorOf("[1.e5]"), "line 1, column 4: expected a digit after '.'");
  EXPECT_EQ(errorOf("1e"), "line 1, column 3: unexpected end of input, "
                           "expected a digit in the exponent");
  EXPECT_EQ(errorOf("1e+"), "line 1, column 4: unexpected end of input, "
                            "expected a digit in the exponent");
  EXPECT_EQ(errorOf(".5"), "line 1, column 1: expected a value");
  EXPECT_EQ(errorOf("+1"), "line 1, column 1: expected a value");
  EXPECT_EQ(errorOf("0x10"),
            "line 1, column 2: unexpected text after the document");
}

TEST(JsonTest, RejectsNaNAndInfinity) {
  EXPECT_EQ(errorOf("NaN"),
            "line 1, column 1: NaN and Infinity are not allowed");
  EXPECT_EQ(errorOf("[1, -Infinity]"),
            "line 1, column 6: NaN and Infinity are not allowed");
  EXPECT_EQ(errorOf("{\"x\": Infinity}"),
            "line 1, column 7: NaN and Infinity are not allowed");
}

TEST(JsonTest, RejectsLoneSurrogates) {
  EXPECT_EQ(errorOf(R"("\ud800")"),
            "line 1, column 2: unpaired surrogate in \\u escape");
  EXPECT_EQ(errorOf(R"(["ok", "x\udc00"])"),
            "line 1, column 10: unpaired surrogate in \\u escape");
  EXPECT_EQ(errorOf(R"("\ud800\u0041")"),
            "line 1, column 2: unpaired surrogate in \\u escape");
  EXPECT_EQ(errorOf(R"("\ud800\ud800")"),
            "line 1, column 2: unpaired surrogate in \\u escape");
  EXPECT_EQ(errorOf(R"("\ud800x")"),
            "line 1, column 2: unpaired surrogate in \\u escape");
}

TEST(JsonTest, RejectsInvalidUtf8) {
  EXPECT_EQ(errorOf("\"\xff\""), "line 1, column 2: invalid UTF-8 in string");
  EXPECT_EQ(errorOf("[\"ab\xc0\xaf\"]"),
            "line 1, column 5: invalid UTF-8 in string"); // Overlong '/'.
  EXPECT_EQ(errorOf("\"\xed\xa0\x80\""),
            "line 1, column 2: invalid UTF-8 in string"); // A surrogate.
  EXPECT_EQ(errorOf("\"\xe2\x82\""),
            "line 1, column 2: invalid UTF-8 in string"); // Truncated.
  EXPECT_EQ(errorOf("\"\xf4\x90\x80\x80\""),
            "line 1, column 2: invalid UTF-8 in string"); // > U+10FFFF.
  EXPECT_EQ(errorOf("\"\x80\""), "line 1, column 2: invalid UTF-8 in string");
  EXPECT_EQ(errorOf("\"\xe2\x82"), "line 1, column 2: invalid UTF-8 in string");
}

TEST(JsonTest, RejectsControlCharactersInStrings) {
  EXPECT_EQ(errorOf("\"a\tb\""), "line 1, column 3: control character in "
                                 "string (must be escaped)");
  EXPECT_EQ(errorOf("[\n\"x\ny\"]"), "line 2, column 3: control character in "
                                     "string (must be escaped)");
  EXPECT_EQ(errorOf(std::string_view("\"\0\"", 3)),
            "line 1, column 2: control character in string (must be escaped)");
}

TEST(JsonTest, RejectsBadStringsAndEscapes) {
  EXPECT_EQ(errorOf("[\"abc"), "line 1, column 2: unterminated string");
  EXPECT_EQ(errorOf("\"\\"), "line 1, column 2: invalid escape");
  EXPECT_EQ(errorOf(R"("\x41")"), "line 1, column 2: invalid escape");
  EXPECT_EQ(errorOf(R"("\u12")"),
            "line 1, column 6: expected four hex digits after \\u");
  EXPECT_EQ(errorOf(R"("\u12G4")"),
            "line 1, column 6: expected four hex digits after \\u");
}

TEST(JsonTest, RejectsOtherSyntaxErrors) {
  EXPECT_EQ(errorOf("[1 2]"), "line 1, column 4: expected ',' or ']'");
  EXPECT_EQ(errorOf("{\"a\" 1}"), "line 1, column 6: expected ':'");
  EXPECT_EQ(errorOf("{\"a\":1 \"b\":2}"),
            "line 1, column 8: expected ',' or '}'");
  EXPECT_EQ(errorOf("{1:2}"), "line 1, column 2: expected a string key");
  EXPECT_EQ(errorOf("[1"), "line 1, column 3: unexpected end of input, "
                           "expected ',' or ']'");
  EXPECT_EQ(errorOf("tru"), "line 1, column 1: expected a value");
  EXPECT_EQ(errorOf("True"), "line 1, column 1: expected a value");
  EXPECT_EQ(errorOf("nulll"),
            "line 1, column 5: unexpected text after the document");
  EXPECT_EQ(errorOf("{\"a\":}"), "line 1, column 6: expected a value");
}

TEST(JsonTest, RejectsDuplicateKeys) {
  EXPECT_EQ(errorOf(R"({"k":1,"k":2})"),
            "line 1, column 8: duplicate key \"k\"");
  // The same key spelled with an escape is still the same key.
  EXPECT_EQ(errorOf("{\n \"a\": 1,\n \"\\u0061\": 2}"),
            "line 3, column 2: duplicate key \"a\"");
  // The key in the message is escaped.
  EXPECT_EQ(errorOf(R"({"a\nb":1,"a\nb":2})"),
            "line 1, column 11: duplicate key \"a\\nb\"");
  // One key in different objects is fine.
  EXPECT_TRUE(parse(R"({"k":{"k":1},"j":{"k":2}})"));
}

TEST(JsonTest, NestingLimit) {
  EXPECT_TRUE(parse(nested("[", "]", 256)));
  EXPECT_EQ(errorOf(nested("[", "]", 257)),
            "line 1, column 257: nesting deeper than 256");
  EXPECT_TRUE(parse(nested("{\"a\":", "}", 256)));
  EXPECT_EQ(errorOf(nested("{\"a\":", "}", 257)),
            "line 1, column 1281: nesting deeper than 256");
  // Far deeper input is rejected at the limit, without exhausting the stack.
  EXPECT_EQ(errorOf(nested("[", "]", 10000)),
            "line 1, column 257: nesting deeper than 256");
  EXPECT_FALSE(parse(std::string(1000000, '[')));
  EXPECT_FALSE(parse(nested("[{\"a\":", "}]", 10000)));
}

TEST(JsonTest, LargeInputsParseInLinearTime) {
  std::string array = "[";
  for (int i = 0; i < 200000; ++i)
    array += std::to_string(i) + ".5,";
  array.back() = ']';
  std::string object = "{";
  for (int i = 0; i < 100000; ++i)
    object += "\"key" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  object.back() = '}';
  std::string string = "\"" + std::string(1 << 22, 'x') + "\"";

  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(parsed(array).asArray()->size(), 200000u);
  EXPECT_EQ(parsed(object).asObject()->size(), 100000u);
  EXPECT_EQ(parsed(string).asString()->size(), size_t(1) << 22);
  EXPECT_FALSE(parse(std::string(1 << 22, '1') + "e999"));
  auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_LT(seconds, 30.0); // Quadratic behaviour would take far longer.
}

/// Mutations of a valid document either parse, and then round-trip, or fail
/// with a positioned message; none may crash.
TEST(JsonTest, MutatedDocumentsNeverCrash) {
  Value object =
      Object{{"a", Array{1, -2.5e-3, "x\u00e9\\\"", nullptr, true}},
             {"b", Object{{"c", Array{}}, {"d", "\xF0\x9F\x98\x80"}}}};
  std::string seed = "[" + print(object, 1) +
                     R"(, ["\ud83d\ude00", 1e5, 0, -0.0, {"k": false}]])";
  ASSERT_TRUE(parse(seed)) << seed;
  const std::string alphabet = "[]{}\",:\\/'0123456789.eE+-truefalsn \n\t\x01"
                               "\x80\xc3\xa9\xed\xff";
  std::mt19937 random(12345);
  for (int i = 0; i < 20000; ++i) {
    std::string text = seed;
    int edits = 1 + random() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t at = random() % (text.size() + 1);
      char c = alphabet[random() % alphabet.size()];
      switch (random() % 3) {
      case 0:
        text.insert(text.begin() + at, c);
        break;
      case 1:
        if (at < text.size())
          text.erase(at, 1);
        break;
      default:
        if (at < text.size())
          text[at] = c;
      }
    }
    std::string error;
    if (std::optional<Value> value = parse(text, &error)) {
      std::optional<Value> back = parse(print(*value, i % 3));
      ASSERT_TRUE(back) << text;
      EXPECT_EQ(*back, *value) << text;
    } else {
      EXPECT_EQ(error.rfind("line ", 0), 0u) << error;
    }
  }
}

} // namespace
