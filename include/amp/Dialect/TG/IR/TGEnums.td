//===- TGEnums.td - Closed sets of names in tg IR ----------*- tablegen -*-===//
//
// Every closed set of names that tg IR spells as a string -- comparison
// directions, tensor layouts, step roles, initialisers -- is declared here
// once. TableGen generates the C++ enum and its string conversions; the
// attribute constraints below make an unknown name a verifier error, typed
// accessors hand C++ code the enum, and the lowering maps each enumerant to
// the runtime's code in one exhaustive switch (a new enumerant without a
// runtime code fails to build).
//
// The IR keeps storing plain strings (`predicate = "lt"`, `layout = "NCHW"`,
// `tg.role = "param"`): SPEC section 2 fixes that spelling, and the generic
// form stays readable by tools that do not load the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_TG_IR_TGENUMS_TD
#define AMP_DIALECT_TG_IR_TGENUMS_TD

include "mlir/IR/EnumAttr.td"

def TG_ComparisonDirection : I32Enum<"ComparisonDirection",
    "comparison direction", [
      I32EnumCase<"EQ", 0, "eq">, I32EnumCase<"NE", 1, "ne">,
      I32EnumCase<"LT", 2, "lt">, I32EnumCase<"LE", 3, "le">,
      I32EnumCase<"GT", 4, "gt">, I32EnumCase<"GE", 5, "ge">]> {
  let cppNamespace = "::amp::tg";
}

def TG_LayoutEnum : I32Enum<"Layout",
    "tensor layout", [
      I32EnumCase<"NHWC", 0>, I32EnumCase<"NCHW", 1>]> {
  let cppNamespace = "::amp::tg";
}

def TG_RoleEnum : I32Enum<"Role",
    "what a training step's argument or result is (tg.role)", [
      I32EnumCase<"Param", 0, "param">,
      I32EnumCase<"OptState", 1, "opt_state">,
      I32EnumCase<"Input", 2, "input">,
      I32EnumCase<"Label", 3, "label">,
      I32EnumCase<"LearningRate", 4, "lr">,
      I32EnumCase<"LossScale", 5, "loss_scale">,
      I32EnumCase<"GoodSteps", 6, "good_steps">,
      I32EnumCase<"Loss", 7, "loss">,
      I32EnumCase<"Logits", 8, "logits">,
      I32EnumCase<"Output", 9, "output">,
      I32EnumCase<"Communicator", 10, "communicator">,
      I32EnumCase<"AmaxHistory", 11, "amax_history">,
      I32EnumCase<"Applied", 12, "step_applied">]> {
  let cppNamespace = "::amp::tg";
}

def TG_ReductionEnum : I32Enum<"Reduction",
    "how tg.all_reduce combines the ranks' values", [
      I32EnumCase<"Sum", 0, "sum">, I32EnumCase<"Mean", 1, "mean">,
      I32EnumCase<"Min", 2, "min">, I32EnumCase<"Max", 3, "max">]> {
  let cppNamespace = "::amp::tg";
}

def TG_InitializerEnum : I32Enum<"Initializer",
    "how a parameter starts (tg.init)", [
      I32EnumCase<"GlorotUniform", 0, "glorot_uniform">,
      I32EnumCase<"HeNormal", 1, "he_normal">,
      I32EnumCase<"Zeros", 2, "zeros">,
      I32EnumCase<"Ones", 3, "ones">]> {
  let cppNamespace = "::amp::tg";
}

/// A string attribute whose value must name a case of `info`; its accessor
/// returns the enum. Type inference reads these attributes before the
/// verifier runs, so the inference functions that read one verify their
/// adaptor first (`checkAttrs` in TGOps.cpp).
class TG_StrEnumAttr<EnumInfo info>
    : Attr<And<[CPred<"::llvm::isa<::mlir::StringAttr>($_self)">,
                CPred<info.cppNamespace # "::" # info.stringToSymbolFnName #
                      "(::llvm::cast<::mlir::StringAttr>($_self).getValue())"
                      ".has_value()">]>,
           "one of " #
           !interleave(!foreach(c, info.enumerants, "\"" # c.str # "\""),
                       ", ") # " (" # info.summary # ")"> {
  let storageType = "::mlir::StringAttr";
  let returnType = info.cppType;
  let convertFromStorage = "*" # info.cppNamespace # "::" #
                           info.stringToSymbolFnName # "($_self.getValue())";
  let constBuilderCall = "$_builder.getStringAttr(" # info.cppNamespace #
                         "::" # info.symbolToStringFnName # "($0))";
}

def TG_ComparisonDirectionAttr : TG_StrEnumAttr<TG_ComparisonDirection>;
def TG_LayoutAttr : TG_StrEnumAttr<TG_LayoutEnum>;
def TG_ReductionAttr : TG_StrEnumAttr<TG_ReductionEnum>;

#endif // AMP_DIALECT_TG_IR_TGENUMS_TD
