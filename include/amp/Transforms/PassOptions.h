//===- PassOptions.h - The passes' enum-valued options ----------*- C++ -*-===//
//
// Every option that takes one of a few words is an enum, and each enum has
// one table of its words: the passes' ODS options (Passes.td names
// `amp::optionValues<T>()` as their values) and --amp-pipeline's options
// parse from it, so a bad word is refused by the option parser and `--help`
// lists the words; reports and messages print from it. amp-run converts its
// flags with parseOption once they are checked (--precision and --grad-comm
// by the training library, which amp-train shares and which knows no LLVM;
// --loss-scaling against this table).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_PASSOPTIONS_H
#define AMP_TRANSFORMS_PASSOPTIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include <optional>
#include <string>
#include <utility>

namespace amp {

/// The type a mixed step computes in (fp8: bf16 with FP8 contraction
/// operands).
enum class LowPrecision { F16, BF16, FP8 };
/// FP8 formats: E5M2 for gradients and E4M3 for the rest, or E4M3 for all.
enum class Fp8Format { Hybrid, E4M3 };
/// FP8 scales from an amax history the step carries, or each tensor's own.
enum class Fp8Scaling { Delayed, Current };
/// How far the colouring goes (TensorFlow's levels).
enum class PrecisionLevel { Default, TensorCoresOnly, InferAsDeny, ForceAll };
/// The op a precision conversion is written as.
enum class CastOpChoice { Auto, Amp, Arith, Tosa };
/// What a constant operand with values past the low type's range does.
enum class ConstantOverflow {
  /// Its ops keep f32 (the default: nothing changes value silently).
  KeepF32,
  /// Values past the range become the largest finite value of the type.
  Saturate,
};
/// Loss scaling: a scale that adapts to overflows, a fixed one, or none.
enum class LossScalingMode { Dynamic, Static, None };
/// The type gradients travel in between ranks.
enum class GradComm { F32, F16, BF16 };
/// The step --amp-pipeline builds: the mixed-precision step, the f32 step
/// (its baseline), or the f32 step with validation probes where the
/// colouring would put low precision (amp-run --validate's reference).
enum class PipelineStep { Mixed, F32, Probed };

/// One word of an enum option.
template <typename T>
struct OptionWord {
  T value;
  const char *name;
  const char *help;
};

/// The words of each enum, specialised once per enum below.
template <typename T>
struct OptionWords;

#define AMP_OPTION_WORDS(T, ...)                                               \
  template <>                                                                  \
  struct OptionWords<T> {                                                      \
    static constexpr OptionWord<T> words[] = {__VA_ARGS__};                    \
  };

AMP_OPTION_WORDS(LowPrecision,
                 {LowPrecision::F16, "f16", "IEEE half precision"},
                 {LowPrecision::BF16, "bf16", "bfloat16"},
                 {LowPrecision::FP8, "fp8",
                  "bf16 with FP8 contraction operands"})
AMP_OPTION_WORDS(Fp8Format,
                 {Fp8Format::Hybrid, "hybrid",
                  "E5M2 gradients, E4M3 the rest"},
                 {Fp8Format::E4M3, "e4m3", "E4M3 everywhere"})
AMP_OPTION_WORDS(Fp8Scaling,
                 {Fp8Scaling::Delayed, "delayed",
                  "amax history carried by the step"},
                 {Fp8Scaling::Current, "current", "each tensor's own amax"})
AMP_OPTION_WORDS(PrecisionLevel,
                 {PrecisionLevel::Default, "default",
                  "allow, infer, clear and deny as listed"},
                 {PrecisionLevel::TensorCoresOnly, "tensor-cores-only",
                  "only the allow list converts"},
                 {PrecisionLevel::InferAsDeny, "infer-as-deny",
                  "infer ops are treated as deny"},
                 {PrecisionLevel::ForceAll, "force-all",
                  "every op that supports the type converts"})
AMP_OPTION_WORDS(CastOpChoice,
                 {CastOpChoice::Auto, "auto",
                  "amp.cast with tg/amp ops, else tosa.cast or arith"},
                 {CastOpChoice::Amp, "amp", "amp.cast"},
                 {CastOpChoice::Arith, "arith", "arith.truncf/extf"},
                 {CastOpChoice::Tosa, "tosa", "tosa.cast"})
AMP_OPTION_WORDS(ConstantOverflow,
                 {ConstantOverflow::KeepF32, "keep-f32",
                  "the constant's ops stay f32"},
                 {ConstantOverflow::Saturate, "saturate",
                  "values past the range become the largest finite value"})
AMP_OPTION_WORDS(LossScalingMode,
                 {LossScalingMode::Dynamic, "dynamic",
                  "a scale that backs off on overflow and grows"},
                 {LossScalingMode::Static, "static", "a fixed scale"},
                 {LossScalingMode::None, "none", "no loss scaling"})
AMP_OPTION_WORDS(GradComm, {GradComm::F32, "f32", "f32 on the wire"},
                 {GradComm::F16, "f16", "f16 on the wire"},
                 {GradComm::BF16, "bf16", "bf16 on the wire"})
AMP_OPTION_WORDS(PipelineStep,
                 {PipelineStep::Mixed, "mixed", "the mixed-precision step"},
                 {PipelineStep::F32, "f32",
                  "autodiff, accumulation and data parallelism only"},
                 {PipelineStep::Probed, "probed",
                  "f32 with validation probes, loss-scaled as the mixed "
                  "step"})
#undef AMP_OPTION_WORDS

namespace detail {
template <typename T, size_t... I>
llvm::cl::ValuesClass optionValues(std::index_sequence<I...>) {
  constexpr auto &words = OptionWords<T>::words;
  return llvm::cl::values(llvm::cl::OptionEnumValue{
      words[I].name, static_cast<int>(words[I].value), words[I].help}...);
}
} // namespace detail

/// The words of `T` for an option's parser (`llvm::cl::values`).
template <typename T>
llvm::cl::ValuesClass optionValues() {
  constexpr size_t n = std::size(OptionWords<T>::words);
  return detail::optionValues<T>(std::make_index_sequence<n>());
}

/// The word of `value`.
template <typename T>
llvm::StringRef optionName(T value) {
  for (const OptionWord<T> &word : OptionWords<T>::words)
    if (word.value == value)
      return word.name;
  return "?";
}

/// The value `name` is the word of, if any.
template <typename T>
std::optional<T> parseOption(llvm::StringRef name) {
  for (const OptionWord<T> &word : OptionWords<T>::words)
    if (name == word.name)
      return word.value;
  return std::nullopt;
}

/// "a, b or c": the words of `T`, for messages.
template <typename T>
std::string optionChoices() {
  std::string text;
  constexpr size_t n = std::size(OptionWords<T>::words);
  for (size_t i = 0; i < n; ++i) {
    if (i)
      text += i + 1 == n ? " or " : ", ";
    text += OptionWords<T>::words[i].name;
  }
  return text;
}

} // namespace amp

#endif // AMP_TRANSFORMS_PASSOPTIONS_H
