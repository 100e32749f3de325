//===- StepSpec.h - A compiled step's signature, without MLIR ---*- C++ -*-===//
//
// What a host needs to know of a compiled function to run it: each
// argument's and result's element type and shape, its tg.role, and how an
// argument starts (tg.init, tg.init_value). amp-run reads it off the IR
// (amp::runner::specOf); amp-train reads it from a step's manifest. The
// role and initialiser names are tg's own (TGEnums.td); a unit test checks
// that the two lists agree.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_STEPSPEC_H
#define AMPTRAIN_STEPSPEC_H

#include "amprt/amprt.h"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amp::train {

/// The loss scale a step scaled by hand starts at when it names none
/// (loss_scaling::kInitScale in the compiler).
constexpr double kDefaultInitScale = 65536.0;

// X(enumerator, tg.role name, on arguments, on results). A role on both
// sides is carried: the step returns its next value.
#define AMPTRAIN_ROLES(X)                                                      \
  X(Param, "param", true, true)                                                \
  X(OptState, "opt_state", true, true)                                         \
  X(Input, "input", true, false)                                               \
  X(Label, "label", true, false)                                               \
  X(LearningRate, "lr", true, false)                                           \
  X(LossScale, "loss_scale", true, true)                                       \
  X(GoodSteps, "good_steps", true, true)                                       \
  X(Loss, "loss", false, true)                                                 \
  X(Logits, "logits", false, true)                                             \
  X(Output, "output", false, true)                                             \
  X(Communicator, "communicator", true, false)                                 \
  X(AmaxHistory, "amax_history", true, true)                                   \
  X(Applied, "step_applied", false, true)

enum class Role {
#define AMPTRAIN_ROLE_ENUM(name, text, onArg, onResult) name,
  AMPTRAIN_ROLES(AMPTRAIN_ROLE_ENUM)
#undef AMPTRAIN_ROLE_ENUM
};

std::string_view roleName(Role role);
std::optional<Role> roleNamed(std::string_view name);
bool isArgumentRole(Role role);
bool isResultRole(Role role);
/// On arguments and results: the step returns its next value.
bool isCarriedRole(Role role);

#define AMPTRAIN_INITIALIZERS(X)                                               \
  X(GlorotUniform, "glorot_uniform")                                           \
  X(HeNormal, "he_normal")                                                     \
  X(Zeros, "zeros")                                                            \
  X(Ones, "ones")

enum class Initializer {
#define AMPTRAIN_INIT_ENUM(name, text) name,
  AMPTRAIN_INITIALIZERS(AMPTRAIN_INIT_ENUM)
#undef AMPTRAIN_INIT_ENUM
};

std::string_view initializerName(Initializer init);
std::optional<Initializer> initializerNamed(std::string_view name);

/// The runtime's element type names, as the IR spells them ("f32", "bf16",
/// "f8E4M3FN", "i1", ...).
std::string_view dtypeName(amprt_dtype dtype);
std::optional<amprt_dtype> dtypeNamed(std::string_view name);

/// A statically shaped tensor type.
struct TensorSpec {
  amprt_dtype dtype = AMPRT_F32;
  std::vector<int64_t> shape;

  int64_t numel() const;
  int64_t rank() const { return (int64_t)shape.size(); }
  /// "tensor<8x4xf32>", as the IR prints it.
  std::string str() const;
  TensorSpec withDtype(amprt_dtype other) const { return {other, shape}; }
  friend bool operator==(const TensorSpec &a, const TensorSpec &b) {
    return a.dtype == b.dtype && a.shape == b.shape;
  }
  friend bool operator!=(const TensorSpec &a, const TensorSpec &b) {
    return !(a == b);
  }
};

/// One argument or result.
struct ValueSpec {
  TensorSpec type;
  std::optional<Role> role;
  /// How a param starts (tg.init; glorot_uniform when absent).
  Initializer init = Initializer::GlorotUniform;
  /// tg.init_value: the first value of step state.
  std::optional<double> initValue;
};

/// One compiled function's signature.
struct FunctionSpec {
  std::string name;
  std::vector<ValueSpec> args, results;

  std::vector<TensorSpec> argTypes() const;
  std::vector<std::optional<Role>> argRoles() const;
  /// The last argument (result) with `role`, or -1.
  int lastArgWithRole(Role role) const;
  int lastResultWithRole(Role role) const;
};

} // namespace amp::train

#endif // AMPTRAIN_STEPSPEC_H
