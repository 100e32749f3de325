//===- Json.h - JSON values, printing and strict parsing --------*- C++ -*-===//
//
// A small JSON library on the C++ standard library alone, so that the
// runtime-only training tool builds where LLVM (and llvm::json) is absent.
// Objects keep their keys in insertion order so that reports read in the
// order they were written; parsing is strict RFC 8259 so that a malformed
// config is an error with a position, never a guess.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_JSON_H
#define AMPTRAIN_JSON_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace amp::train::json {

class Value;
/// Nest with Value(...): Array{Array{1}} copies the inner array under Clang
/// (CWG 2137) where GCC nests it; Array{Value(Array{1})} nests under both.
using Array = std::vector<Value>;
namespace detail {
class Parser;
} // namespace detail

/// Keys in insertion order (reports read in the order written). Lookup is
/// linear: objects in configs and reports are small, and the parser checks
/// duplicates with its own set, so parsing stays linear.
class Object {
public:
  using Member = std::pair<std::string, Value>;
  using iterator = std::vector<Member>::iterator;
  using const_iterator = std::vector<Member>::const_iterator;

  Object() = default;
  /// A repeated key keeps its first position and takes the last value, as
  /// assignments through operator[] would.
  Object(std::initializer_list<Member> init);

  /// Inserts null if absent.
  Value &operator[](const std::string &key);
  /// nullptr if absent.
  const Value *find(std::string_view key) const;
  Value *find(std::string_view key);
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  // Defined after Value: the vector's members need the element complete.
  size_t size() const;
  bool empty() const;
  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;

private:
  // The parser appends members directly: it checks duplicates with a hash
  // set, and a lookup per key here would make parsing quadratic.
  friend class detail::Parser;
  std::vector<Member> members;
};

class Value {
public:
  /// The order matches the alternatives of `storage`.
  enum class Kind { Null, Bool, Integer, Number, String, Array, Object };

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : storage(b) {}
  Value(int i) : storage(int64_t(i)) {}
  Value(long i) : storage(int64_t(i)) {}
  Value(long long i) : storage(int64_t(i)) {}
  Value(unsigned u) : storage(int64_t(u)) {}
  Value(unsigned long u) : Value((unsigned long long)u) {}
  /// Above INT64_MAX the value becomes a Number (rounded), not a wrapped
  /// negative Integer.
  Value(unsigned long long u);
  /// JSON has no NaN or infinity: a non-finite double is stored as Null.
  Value(double d);
  Value(float f) : Value(double(f)) {}
  Value(const char *s) : storage(std::string(s)) {}
  Value(std::string s) : storage(std::move(s)) {}
  Value(std::string_view s) : storage(std::string(s)) {}
  Value(Array a) : storage(std::move(a)) {}
  Value(Object o) : storage(std::move(o)) {}
  // Out of line: inlined std::variant moves set off GCC 12's
  // -Wmaybe-uninitialized in every caller.
  Value(const Value &other);
  Value(Value &&other) noexcept;
  Value &operator=(const Value &other);
  Value &operator=(Value &&other) noexcept;
  ~Value();

  Kind kind() const { return Kind(storage.index()); }
  bool isNull() const { return kind() == Kind::Null; }

  std::optional<bool> asBool() const;
  /// Integer or Number.
  std::optional<double> asNumber() const;
  /// Integer, or a Number that is integral and fits in int64_t.
  std::optional<int64_t> asInteger() const;
  const std::string *asString() const {
    return std::get_if<std::string>(&storage);
  }
  const Array *asArray() const { return std::get_if<Array>(&storage); }
  const Object *asObject() const { return std::get_if<Object>(&storage); }
  Array *asArray() { return std::get_if<Array>(&storage); }
  Object *asObject() { return std::get_if<Object>(&storage); }

  /// Structural; Integer 3 == Number 3.0, and objects compare as maps (key
  /// order does not matter).
  friend bool operator==(const Value &lhs, const Value &rhs);
  friend bool operator!=(const Value &lhs, const Value &rhs) {
    return !(lhs == rhs);
  }

private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Array,
               Object>
      storage;
};

inline size_t Object::size() const { return members.size(); }
inline bool Object::empty() const { return members.empty(); }
inline Object::iterator Object::begin() { return members.begin(); }
inline Object::iterator Object::end() { return members.end(); }
inline Object::const_iterator Object::begin() const { return members.begin(); }
inline Object::const_iterator Object::end() const { return members.end(); }

/// Pretty-printed with `indent` spaces per level (0: compact, one line, no
/// spaces after ':' or ','), object keys in insertion order; empty arrays and
/// objects as [] and {}. Numbers print in the shortest form that reads back
/// to the same double, always with a '.' or an exponent so that they read
/// back as Numbers; Integers print as integers. Strings are escaped per
/// RFC 8259; valid UTF-8 passes through and invalid bytes become U+FFFD, so
/// the output always parses.
std::string print(const Value &value, int indent = 2);

/// Prints `head` as print(head) does, with one more member `key` last: an
/// array of `count` elements that `element(i)` makes one at a time, each on
/// its own line in compact form. The text goes to `out` in pieces of about
/// 64 KiB, so a long array (a report's per-step records) is never held
/// whole; false as soon as `out` refuses a piece.
bool printWithLongArray(const Object &head, std::string_view key,
                        size_t count,
                        const std::function<Value(size_t)> &element,
                        const std::function<bool(std::string_view)> &out);

/// Strict RFC 8259 parsing of a whole document (leading/trailing whitespace
/// allowed, nothing else after). On failure returns std::nullopt and sets
/// *error (if non-null) to "line L, column C: what" (1-based, column in
/// bytes). Rejects trailing commas, comments, single quotes, leading zeros,
/// NaN/Infinity, lone surrogates, invalid UTF-8 in strings, control
/// characters in strings, nesting deeper than 256 and duplicate keys in one
/// object. Integers without fraction or exponent that fit int64_t parse as
/// Integer, other numbers as Number; a number beyond the double range (1e999)
/// is an error, one too small for it (1e-999) reads as 0.0.
std::optional<Value> parse(std::string_view text, std::string *error = nullptr);

} // namespace amp::train::json

#endif // AMPTRAIN_JSON_H
