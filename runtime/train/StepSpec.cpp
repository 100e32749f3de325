//===- StepSpec.cpp - A compiled step's signature, without MLIR -----------===//

#include "amptrain/StepSpec.h"

namespace amp::train {

namespace {
struct RoleInfo {
  Role role;
  std::string_view name;
  bool onArgument, onResult;
};
constexpr RoleInfo kRoles[] = {
#define AMPTRAIN_ROLE_INFO(name, text, onArg, onResult)                        \
  {Role::name, text, onArg, onResult},
    AMPTRAIN_ROLES(AMPTRAIN_ROLE_INFO)
#undef AMPTRAIN_ROLE_INFO
};

struct InitInfo {
  Initializer init;
  std::string_view name;
};
constexpr InitInfo kInitializers[] = {
#define AMPTRAIN_INIT_INFO(name, text) {Initializer::name, text},
    AMPTRAIN_INITIALIZERS(AMPTRAIN_INIT_INFO)
#undef AMPTRAIN_INIT_INFO
};

struct DtypeInfo {
  amprt_dtype dtype;
  std::string_view name;
};
constexpr DtypeInfo kDtypes[] = {
    {AMPRT_F32, "f32"}, {AMPRT_F16, "f16"},           {AMPRT_BF16, "bf16"},
    {AMPRT_F64, "f64"}, {AMPRT_I32, "i32"},           {AMPRT_I64, "i64"},
    {AMPRT_I1, "i1"},   {AMPRT_F8E4M3FN, "f8E4M3FN"}, {AMPRT_F8E5M2, "f8E5M2"}};
} // namespace

std::string_view roleName(Role role) {
  return kRoles[static_cast<int>(role)].name;
}

std::optional<Role> roleNamed(std::string_view name) {
  for (const RoleInfo &info : kRoles)
    if (info.name == name)
      return info.role;
  return std::nullopt;
}

bool isArgumentRole(Role role) {
  return kRoles[static_cast<int>(role)].onArgument;
}
bool isResultRole(Role role) { return kRoles[static_cast<int>(role)].onResult; }
bool isCarriedRole(Role role) {
  return isArgumentRole(role) && isResultRole(role);
}

std::string_view initializerName(Initializer init) {
  return kInitializers[static_cast<int>(init)].name;
}

std::optional<Initializer> initializerNamed(std::string_view name) {
  for (const InitInfo &info : kInitializers)
    if (info.name == name)
      return info.init;
  return std::nullopt;
}

std::string_view dtypeName(amprt_dtype dtype) {
  for (const DtypeInfo &info : kDtypes)
    if (info.dtype == dtype)
      return info.name;
  return "?";
}

std::optional<amprt_dtype> dtypeNamed(std::string_view name) {
  for (const DtypeInfo &info : kDtypes)
    if (info.name == name)
      return info.dtype;
  return std::nullopt;
}

int64_t TensorSpec::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string TensorSpec::str() const {
  std::string text = "tensor<";
  for (int64_t d : shape)
    text += std::to_string(d) + "x";
  return text + std::string(dtypeName(dtype)) + ">";
}

std::vector<TensorSpec> FunctionSpec::argTypes() const {
  std::vector<TensorSpec> types;
  for (const ValueSpec &arg : args)
    types.push_back(arg.type);
  return types;
}

std::vector<std::optional<Role>> FunctionSpec::argRoles() const {
  std::vector<std::optional<Role>> roles;
  for (const ValueSpec &arg : args)
    roles.push_back(arg.role);
  return roles;
}

static int lastWith(const std::vector<ValueSpec> &values, Role role) {
  for (int i = (int)values.size() - 1; i >= 0; --i)
    if (values[i].role == role)
      return i;
  return -1;
}

int FunctionSpec::lastArgWithRole(Role role) const {
  return lastWith(args, role);
}
int FunctionSpec::lastResultWithRole(Role role) const {
  return lastWith(results, role);
}

} // namespace amp::train
