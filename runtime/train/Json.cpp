//===- Json.cpp - JSON values, printing and strict parsing ----------------===//
//
// The parser is recursive descent bounded by the nesting limit (256), so
// hostile input cannot exhaust the stack, and every step consumes input or
// fails, so it cannot loop; errors are returned, never thrown. Numbers go
// through std::from_chars / std::to_chars, which are locale-independent and
// round-trip exactly.
//
//===----------------------------------------------------------------------===//

#include "amptrain/Json.h"
#include <algorithm>
#include <charconv>
#include <cmath>
#include <type_traits>
#include <unordered_set>

namespace amp::train::json {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Object::Object(std::initializer_list<Member> init) {
  for (const Member &member : init)
    (*this)[member.first] = member.second;
}

Value &Object::operator[](const std::string &key) {
  if (Value *value = find(key))
    return *value;
  members.emplace_back(key, Value());
  return members.back().second;
}

const Value *Object::find(std::string_view key) const {
  for (const Member &member : members)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

Value *Object::find(std::string_view key) {
  return const_cast<Value *>(std::as_const(*this).find(key));
}

Value::Value(const Value &other) = default;
Value::Value(Value &&other) noexcept = default;
Value &Value::operator=(const Value &other) = default;
Value &Value::operator=(Value &&other) noexcept = default;
Value::~Value() = default;

Value::Value(unsigned long long u) {
  if (u <= uint64_t(INT64_MAX))
    storage = int64_t(u);
  else
    storage = double(u);
}

Value::Value(double d) {
  if (std::isfinite(d))
    storage = d;
}

std::optional<bool> Value::asBool() const {
  if (const bool *b = std::get_if<bool>(&storage))
    return *b;
  return std::nullopt;
}

std::optional<double> Value::asNumber() const {
  if (const int64_t *i = std::get_if<int64_t>(&storage))
    return double(*i);
  if (const double *d = std::get_if<double>(&storage))
    return *d;
  return std::nullopt;
}

std::optional<int64_t> Value::asInteger() const {
  if (const int64_t *i = std::get_if<int64_t>(&storage))
    return *i;
  const double *d = std::get_if<double>(&storage);
  // 2^63 is exact as a double; every integral double below it fits.
  constexpr double twoTo63 = 9223372036854775808.0;
  if (!d || *d < -twoTo63 || *d >= twoTo63 || std::trunc(*d) != *d)
    return std::nullopt;
  return int64_t(*d);
}

/// Objects are maps: compare in order while the keys line up (the usual
/// case, linear) and look keys up only where they do not.
static bool objectsEqual(const Object &lhs, const Object &rhs) {
  if (lhs.size() != rhs.size())
    return false;
  auto other = rhs.begin();
  for (const auto &[key, value] : lhs) {
    const Value *match = other->first == key ? &other->second : rhs.find(key);
    if (!match || !(value == *match))
      return false;
    ++other;
  }
  return true;
}

bool operator==(const Value &lhs, const Value &rhs) {
  if (lhs.kind() != rhs.kind()) {
    // Integer 3 == Number 3.0, compared as integers so that large values
    // are not rounded into equality.
    std::optional<int64_t> l = lhs.asInteger(), r = rhs.asInteger();
    return l && r && *l == *r;
  }
  return std::visit(
      [&](const auto &l) {
        using T = std::decay_t<decltype(l)>;
        const T &r = std::get<T>(rhs.storage);
        if constexpr (std::is_same_v<T, Object>)
          return objectsEqual(l, r);
        else
          return l == r;
      },
      lhs.storage);
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {

/// Characters with a short escape, and the letter after their backslash.
constexpr std::string_view escapedChars = "\"\\\b\f\n\r\t";
constexpr std::string_view escapeLetters = "\"\\bfnrt";

/// Length of the well-formed UTF-8 sequence at s[i], with its code point in
/// `cp`; 0 for a bad one (truncated, overlong, a surrogate, > U+10FFFF).
size_t decodeUtf8(std::string_view s, size_t i, uint32_t &cp) {
  unsigned char lead = s[i];
  if (lead < 0x80) {
    cp = lead;
    return 1;
  }
  size_t length = lead < 0xC0   ? 0
                  : lead < 0xE0 ? 2
                  : lead < 0xF0 ? 3
                  : lead < 0xF8 ? 4
                                : 0;
  if (length == 0 || s.size() - i < length)
    return 0;
  cp = lead & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) {
    unsigned char next = s[i + k];
    if ((next & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (next & 0x3F);
  }
  static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  bool valid =
      cp >= least[length] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
  return valid ? length : 0;
}

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
    return;
  }
  static const unsigned char leadMarks[] = {0, 0, 0xC0, 0xE0, 0xF0};
  int length = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  out += char(leadMarks[length] | cp >> (6 * (length - 1)));
  for (int k = length - 2; k >= 0; --k)
    out += char(0x80 | ((cp >> (6 * k)) & 0x3F));
}

/// Invalid UTF-8 becomes U+FFFD so that the output is always valid JSON.
void printString(std::string_view s, std::string &out) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    uint32_t cp;
    size_t length = 1, escape = escapedChars.find(char(c));
    if (c >= 0x80) {
      length = decodeUtf8(s, i, cp);
      out += length ? s.substr(i, length) : "\xEF\xBF\xBD";
      length = std::max<size_t>(length, 1);
    } else if (escape != std::string_view::npos) {
      out.append(1, '\\').append(1, escapeLetters[escape]);
    } else if (c < 0x20) {
      out.append("\\u00").append(1, hex[c >> 4]).append(1, hex[c & 15]);
    } else {
      out += char(c);
    }
    i += length;
  }
  out += '"';
}

/// Shortest round-trip form, with ".0" added where it would read back as an
/// integer, so that a Number stays a Number.
void printNumber(double d, std::string &out) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), d);
  std::string_view text(buffer, result.ptr - buffer);
  out += text;
  if (text.find_first_of(".e") == std::string_view::npos)
    out += ".0";
}

void printScalar(const Value &value, std::string &out) {
  if (const std::string *s = value.asString())
    printString(*s, out);
  else if (std::optional<bool> b = value.asBool())
    out += *b ? "true" : "false";
  else if (value.kind() == Value::Kind::Integer)
    out += std::to_string(*value.asInteger());
  else if (value.kind() == Value::Kind::Number)
    printNumber(*value.asNumber(), out);
  else
    out += "null";
}

class Printer {
public:
  Printer(std::string &out, int indent) : out(out), indent(indent) {}

  void print(const Value &value, int level) {
    auto printElement = [&](const Value &element) {
      print(element, level + 1);
    };
    auto printMember = [&](const Object::Member &member) {
      printString(member.first, out);
      out += indent ? ": " : ":";
      print(member.second, level + 1);
    };
    if (const Array *array = value.asArray())
      printContainer('[', ']', *array, level, printElement);
    else if (const Object *object = value.asObject())
      printContainer('{', '}', *object, level, printMember);
    else
      printScalar(value, out);
  }

private:
  void newline(int level) {
    if (indent == 0)
      return;
    out += '\n';
    out.append(size_t(indent) * size_t(level), ' ');
  }

  /// Empty containers stay on one line: [] and {}.
  template <typename Range, typename PrintElement>
  void printContainer(char open, char close, const Range &range, int level,
                      PrintElement printElement) {
    out += open;
    bool first = true;
    for (const auto &element : range) {
      if (!first)
        out += ',';
      first = false;
      newline(level + 1);
      printElement(element);
    }
    if (!first)
      newline(level);
    out += close;
  }

  std::string &out;
  int indent;
};

} // namespace

std::string print(const Value &value, int indent) {
  std::string out;
  Printer(out, std::max(indent, 0)).print(value, 0);
  return out;
}

bool printWithLongArray(const Object &head, std::string_view key,
                        size_t count,
                        const std::function<Value(size_t)> &element,
                        const std::function<bool(std::string_view)> &out) {
  constexpr size_t kPiece = 64 * 1024;
  // The head without its closing brace (and the line break before it).
  std::string text = print(head);
  text.pop_back();
  if (!head.empty())
    text.back() = ',';
  text += "\n  ";
  printString(key, text);
  text += ": [";
  for (size_t i = 0; i < count; ++i) {
    text += i ? ",\n    " : "\n    ";
    Printer(text, 0).print(element(i), 0);
    if (text.size() >= kPiece) {
      if (!out(text))
        return false;
      text.clear();
    }
  }
  text += count ? "\n  ]\n}" : "]\n}";
  return out(text);
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {

constexpr unsigned maxDepth = 256;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// Whether a number from_chars found out of range is too small for a double
/// rather than too large: the decimal exponent of its leading significant
/// digit is negative. (Out-of-range values are far from 10^0 either way.)
bool underflows(std::string_view number) {
  size_t i = number[0] == '-';
  long long lead = -1;
  if (number[i] != '0') {
    size_t start = i;
    while (i < number.size() && isDigit(number[i]))
      ++i;
    lead = (long long)(i - start) - 1;
  } else if (++i < number.size() && number[i] == '.') {
    while (++i < number.size() && number[i] == '0')
      --lead;
  }
  size_t e = number.find_first_of("eE");
  if (e == std::string_view::npos)
    return lead < 0;
  long long exponent = 0;
  for (size_t k = e + 1; k < number.size(); ++k)
    if (isDigit(number[k])) // Saturate: beyond any input length.
      exponent = std::min(exponent * 10 + (number[k] - '0'), 1LL << 50);
  return lead + (number[e + 1] == '-' ? -exponent : exponent) < 0;
}

} // namespace

namespace detail {

class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  std::optional<Value> parseDocument(std::string *error) {
    Value value;
    skipWhitespace();
    bool ok = parseValue(value, 0);
    skipWhitespace();
    if (ok && pos < text.size())
      ok = text[pos] == '/' ? fail(pos, "comments are not allowed")
                            : fail(pos, "unexpected text after the document");
    if (ok)
      return value;
    if (error)
      *error = location(errorPos) + errorWhat;
    return std::nullopt;
  }

private:
  bool fail(size_t at, std::string what) {
    errorPos = at;
    errorWhat = std::move(what);
    return false;
  }

  /// Fails at `pos` naming what was expected, or the common non-JSON habit
  /// found there instead.
  bool expected(const std::string &what) {
    std::string_view rest = text.substr(pos);
    if (rest.empty())
      return fail(pos, "unexpected end of input, expected " + what);
    if (rest[0] == '/')
      return fail(pos, "comments are not allowed");
    if (rest[0] == '\'')
      return fail(pos, "single-quoted strings are not allowed");
    if (rest.substr(0, 3) == "NaN" || rest.substr(0, 8) == "Infinity")
      return fail(pos, "NaN and Infinity are not allowed");
    return fail(pos, "expected " + what);
  }

  std::string location(size_t at) const {
    size_t line = 1, lineStart = 0;
    for (size_t i = 0; i < at; ++i)
      if (text[i] == '\n')
        ++line, lineStart = i + 1;
    return "line " + std::to_string(line) + ", column " +
           std::to_string(at - lineStart + 1) + ": ";
  }

  char peek() const { return pos < text.size() ? text[pos] : '\0'; }

  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos;
    return true;
  }

  bool skipDigits() {
    if (!isDigit(peek()))
      return false;
    while (isDigit(peek()))
      ++pos;
    return true;
  }

  void skipWhitespace() {
    while (consume(' ') || consume('\t') || consume('\n') || consume('\r'))
      ;
  }

  bool parseValue(Value &out, unsigned depth) {
    switch (peek()) {
    case '{':
      return parseObject(out, depth + 1);
    case '[':
      return parseArray(out, depth + 1);
    case '"':
      return parseStringValue(out);
    case 't':
      return parseLiteral("true", true, out);
    case 'f':
      return parseLiteral("false", false, out);
    case 'n':
      return parseLiteral("null", nullptr, out);
    default:
      return peek() == '-' || isDigit(peek()) ? parseNumber(out)
                                              : expected("a value");
    }
  }

  bool parseLiteral(std::string_view word, Value literal, Value &out) {
    if (text.substr(pos, word.size()) != word)
      return expected("a value");
    pos += word.size();
    out = std::move(literal);
    return true;
  }

  bool parseNumber(Value &out) {
    size_t start = pos;
    consume('-');
    if (consume('0')) {
      if (isDigit(peek()))
        return fail(start, "leading zeros are not allowed");
    } else if (!skipDigits()) {
      return expected("a digit");
    }
    bool integral = !consume('.');
    if (!integral && !skipDigits())
      return expected("a digit after '.'");
    if (consume('e') || consume('E')) {
      integral = false;
      if (!consume('+'))
        consume('-');
      if (!skipDigits())
        return expected("a digit in the exponent");
    }
    return convertNumber(text.substr(start, pos - start), integral, out);
  }

  /// `number` is well-formed; a fraction or exponent makes it a Number, as
  /// does an integer beyond int64_t.
  bool convertNumber(std::string_view number, bool integral, Value &out) {
    const char *first = number.data(), *last = first + number.size();
    int64_t integer;
    if (integral && std::from_chars(first, last, integer).ec == std::errc()) {
      out = integer;
      return true;
    }
    double d = 0;
    std::errc ec = std::from_chars(first, last, d).ec;
    if (ec == std::errc::result_out_of_range && !underflows(number))
      return fail(pos - number.size(), "number out of range");
    if (ec == std::errc::result_out_of_range)
      d = number[0] == '-' ? -0.0 : 0.0;
    out = d;
    return true;
  }

  bool parseHex4(uint32_t &cp) {
    std::string_view hex = text.substr(pos, 4);
    const char *first = hex.data();
    size_t read =
        std::from_chars(first, first + hex.size(), cp, 16).ptr - first;
    pos += read;
    return read == 4 || fail(pos, "expected four hex digits after \\u");
  }

  /// `at` is the backslash and pos is past the 'u'. A high surrogate must be
  /// followed by an escaped low one; either alone is not a character.
  bool parseUnicodeEscape(size_t at, std::string &out) {
    uint32_t cp, low;
    if (!parseHex4(cp))
      return false;
    if (cp >= 0xD800 && cp <= 0xDBFF && text.substr(pos, 2) == "\\u") {
      pos += 2;
      if (!parseHex4(low))
        return false;
      if (low >= 0xDC00 && low <= 0xDFFF)
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
      return fail(at, "unpaired surrogate in \\u escape");
    appendUtf8(out, cp);
    return true;
  }

  bool parseEscape(std::string &out) {
    size_t at = pos++;
    if (consume('u'))
      return parseUnicodeEscape(at, out);
    if (consume('/')) {
      out += '/';
      return true;
    }
    size_t k = escapeLetters.find(peek());
    if (k == std::string_view::npos)
      return fail(at, "invalid escape");
    out += escapedChars[k];
    ++pos;
    return true;
  }

  bool parseString(std::string &out) {
    size_t open = pos++;
    while (pos < text.size()) {
      unsigned char c = text[pos];
      uint32_t cp;
      if (c == '"') {
        ++pos;
        return true;
      }
      if (c == '\\') {
        if (!parseEscape(out))
          return false;
      } else if (c < 0x20) {
        return fail(pos, "control character in string (must be escaped)");
      } else if (size_t length = decodeUtf8(text, pos, cp)) {
        out += text.substr(pos, length);
        pos += length;
      } else {
        return fail(pos, "invalid UTF-8 in string");
      }
    }
    return fail(open, "unterminated string");
  }

  bool parseStringValue(Value &out) {
    std::string s;
    if (!parseString(s))
      return false;
    out = std::move(s);
    return true;
  }

  /// The elements of an array or object, from its opening bracket on;
  /// `parseElement` parses one.
  template <typename ParseElement>
  bool parseElements(char close, unsigned depth, ParseElement parseElement) {
    if (depth > maxDepth)
      return fail(pos, "nesting deeper than " + std::to_string(maxDepth));
    ++pos;
    skipWhitespace();
    if (consume(close))
      return true;
    for (;;) {
      if (!parseElement())
        return false;
      skipWhitespace();
      if (consume(close))
        return true;
      if (!consume(','))
        return expected(std::string("',' or '") + close + "'");
      skipWhitespace();
      if (peek() == close)
        return fail(pos, "trailing comma");
    }
  }

  bool parseArray(Value &out, unsigned depth) {
    Array array;
    bool ok = parseElements(']', depth, [&] {
      array.emplace_back();
      return parseValue(array.back(), depth);
    });
    out = std::move(array);
    return ok;
  }

  /// Duplicates are found with a hash set; Object::find would make parsing
  /// quadratic in the number of keys.
  bool parseMember(Object &object, std::unordered_set<std::string> &seen,
                   unsigned depth) {
    size_t keyAt = pos;
    std::string key;
    if (peek() != '"')
      return expected("a string key");
    if (!parseString(key))
      return false;
    if (!seen.insert(key).second) {
      std::string quoted;
      printString(key, quoted);
      return fail(keyAt, "duplicate key " + quoted);
    }
    skipWhitespace();
    if (!consume(':'))
      return expected("':'");
    skipWhitespace();
    Object::Member &member = object.members.emplace_back();
    member.first = std::move(key);
    return parseValue(member.second, depth);
  }

  bool parseObject(Value &out, unsigned depth) {
    Object object;
    std::unordered_set<std::string> seen;
    bool ok = parseElements('}', depth,
                            [&] { return parseMember(object, seen, depth); });
    out = std::move(object);
    return ok;
  }

  std::string_view text;
  size_t pos = 0;
  size_t errorPos = 0;
  std::string errorWhat;
};

} // namespace detail

std::optional<Value> parse(std::string_view text, std::string *error) {
  return detail::Parser(text).parseDocument(error);
}

} // namespace amp::train::json
