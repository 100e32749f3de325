//===- Result.h - Errors as values, without LLVM ----------------*- C++ -*-===//
//
// The training library builds where LLVM does not exist (the GPU kit), so
// it cannot use llvm::Error. These two types carry a one-line message the
// tools print as their diagnostic: `Status` for work that returns nothing,
// `Expected<T>` for work that returns a T. Both say whether they failed when
// tested, as llvm::Error and llvm::Expected do.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_RESULT_H
#define AMPTRAIN_RESULT_H

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace amp::train {

/// Success, or a failure with its message. `if (Status s = f()) return s;`
/// passes a failure on.
class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status failure(std::string message) {
    Status s;
    s.why = std::move(message);
    return s;
  }
  /// True when it failed.
  explicit operator bool() const { return why.has_value(); }
  const std::string &message() const { return *why; }

private:
  std::optional<std::string> why;
};

inline Status failure(std::string message) {
  return Status::failure(std::move(message));
}

/// A T, or the failure that kept it from being made.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : held(std::move(value)) {}
  /// A failed Status; a successful one is not a T.
  Expected(Status failed) : held(Failure{failed.message()}) {}
  explicit operator bool() const { return held.index() == 0; }
  T &operator*() { return std::get<0>(held); }
  const T &operator*() const { return std::get<0>(held); }
  T *operator->() { return &std::get<0>(held); }
  const T *operator->() const { return &std::get<0>(held); }
  const std::string &message() const { return std::get<1>(held).message; }
  /// The failure, to pass on.
  Status status() const { return failure(message()); }

private:
  // Its own type, so that an Expected<std::string> is not ambiguous.
  struct Failure {
    std::string message;
  };
  std::variant<T, Failure> held;
};

} // namespace amp::train

#endif // AMPTRAIN_RESULT_H
