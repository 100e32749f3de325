//===- StepRunner.cpp - Compile a step and bind it, from the IR -----------===//

#include "amp/Runner/StepRunner.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMP.h"
#include "amptrain/Trainer.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include <algorithm>

using namespace mlir;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;

namespace amp::runner {

Error toError(const train::Status &status) {
  if (!status)
    return Error::success();
  return createStringError(status.message());
}

Expected<ContextPtr> createContext(amprt_device device, int ordinal) {
  return toExpected(train::createContext(device, ordinal));
}

std::optional<amprt_dtype> dtypeOf(Type element) {
  if (std::optional<int32_t> code = runtimeDtypeCode(element))
    return static_cast<amprt_dtype>(*code);
  return std::nullopt;
}

train::TensorSpec specOf(RankedTensorType type) {
  return {*dtypeOf(type.getElementType()),
          std::vector<int64_t>(type.getShape().begin(), type.getShape().end())};
}

Expected<TensorPtr> makeTensor(amprt_context *context, RankedTensorType type) {
  if (!dtypeOf(type.getElementType()))
    return createStringError("the runtime holds no tensors of this type");
  return toExpected(train::makeTensor(context, specOf(type)));
}

Expected<TensorPtr> tensorFromFloats(amprt_context *context,
                                     RankedTensorType type,
                                     const float *values) {
  if (!dtypeOf(type.getElementType()))
    return createStringError("the runtime holds no tensors of this type");
  return toExpected(train::tensorFromFloats(context, specOf(type), values));
}

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

Signature Signature::of(func::FuncOp f) {
  Signature s;
  for (unsigned i = 0; i < f.getNumArguments(); ++i) {
    s.argTypes.push_back(cast<RankedTensorType>(f.getArgumentTypes()[i]));
    s.argRoles.push_back(tg::getArgumentRole(f, i));
    auto init = f.getArgAttrOfType<StringAttr>(i, "tg.init");
    // The module is verified, so a present tg.init names an initialiser.
    s.argInits.push_back(init ? *tg::symbolizeInitializer(init.getValue())
                              : tg::Initializer::GlorotUniform);
    s.argInitValues.push_back(tg::getInitValue(f, i));
  }
  for (unsigned i = 0; i < f.getNumResults(); ++i) {
    s.resultTypes.push_back(cast<RankedTensorType>(f.getResultTypes()[i]));
    s.resultRoles.push_back(tg::getResultRole(f, i));
  }
  return s;
}

Error checkSignature(func::FuncOp f, uint64_t memory) {
  uint64_t total = 0;
  auto check = [&](Type type, const char *what,
                   unsigned i) -> std::optional<std::string> {
    std::string where = std::string(what) + " #" + std::to_string(i) + " of @" +
                        f.getSymName().str();
    std::string typeText;
    llvm::raw_string_ostream(typeText) << type;
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || !ranked.hasStaticShape())
      return where + " has type " + typeText +
             "; amp-run needs statically shaped tensors";
    std::optional<amprt_dtype> dtype = dtypeOf(ranked.getElementType());
    if (!dtype)
      return where + " has type " + typeText +
             "; the runtime holds f16, bf16, f32, f64, i32, i64 and i1";
    if (llvm::is_contained(ranked.getShape(), 0))
      return where + " (" + typeText +
             ") has no elements; amp-run trains on non-empty tensors (a "
             "batch of at least 1)";
    uint64_t bytes = amprt_dtype_size(*dtype);
    for (int64_t d : ranked.getShape())
      if (__builtin_mul_overflow(bytes, (uint64_t)d, &bytes))
        return where + " (" + typeText + ") is too large to allocate";
    if (bytes > memory)
      return where + " (" + typeText + ") needs " + std::to_string(bytes) +
             " bytes; the device has " + std::to_string(memory);
    if (__builtin_add_overflow(total, bytes, &total) || total > memory)
      return std::string("the ") + what + "s of @" + f.getSymName().str() +
             " up to #" + std::to_string(i) + " need more than " +
             std::to_string(memory) + " bytes, the device's memory";
    return std::nullopt;
  };
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (auto error = check(f.getArgumentTypes()[i], "argument", i))
      return createStringError(*error);
  total = 0; // results replace arguments; each must fit on its own
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    if (auto error = check(f.getResultTypes()[i], "result", i))
      return createStringError(*error);
  return Error::success();
}

train::FunctionSpec specOf(func::FuncOp f) {
  Signature s = Signature::of(f);
  train::FunctionSpec spec;
  spec.name = f.getSymName().str();
  auto role = [](std::optional<tg::Role> r) -> std::optional<train::Role> {
    if (!r)
      return std::nullopt;
    // The two role lists name the same roles (StepRunnerTest checks it).
    return train::roleNamed(tg::stringifyRole(*r).str());
  };
  for (size_t i = 0; i < s.argTypes.size(); ++i) {
    train::ValueSpec v;
    v.type = specOf(s.argTypes[i]);
    v.role = role(s.argRoles[i]);
    v.init =
        *train::initializerNamed(tg::stringifyInitializer(s.argInits[i]).str());
    v.initValue = s.argInitValues[i];
    spec.args.push_back(v);
  }
  for (size_t i = 0; i < s.resultTypes.size(); ++i) {
    train::ValueSpec v;
    v.type = specOf(s.resultTypes[i]);
    v.role = role(s.resultRoles[i]);
    spec.results.push_back(v);
  }
  return spec;
}

std::vector<train::Fp8History> fp8HistoriesOf(func::FuncOp step) {
  std::vector<train::Fp8History> histories;
  if (!step)
    return histories;
  for (unsigned i = 0, e = step.getNumArguments(); i < e; ++i) {
    if (tg::getArgumentRole(step, i) != tg::Role::AmaxHistory)
      continue;
    for (Operation *user : step.getArgument(i).getUsers()) {
      auto scale = dyn_cast<Fp8ScaleOp>(user);
      if (!scale)
        continue;
      train::Fp8History h;
      h.argument = i;
      llvm::raw_string_ostream(h.format) << scale.getFormat();
      h.margin = static_cast<int>(scale.getMargin());
      histories.push_back(h);
      break;
    }
  }
  return histories;
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

Expected<JitModule> JitModule::create(ModuleOp module, const Options &options) {
  ExecutionEngineOptions engineOptions;
  engineOptions.jitCodeGenOptLevel = options.optLevel;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return createStringError("JIT compilation failed: " +
                             llvm::toString(engine.takeError()));
  (*engine)->initialize();
  JitModule jit;
  jit.engine = std::move(*engine);
  return jit;
}

Expected<StepFn> JitModule::lookup(StringRef name) const {
  auto symbol = engine->lookup(name);
  if (!symbol)
    return symbol.takeError();
  return reinterpret_cast<StepFn>(*symbol);
}

/// A target machine for `cpu` on this machine's triple that emits
/// position-independent code, so the object links into a shared library.
static Expected<std::unique_ptr<llvm::TargetMachine>>
objectTarget(const llvm::Triple &triple, StringRef cpu) {
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return createStringError("no target for " + triple.str() + ": " + error);
  std::string name =
      cpu == "host" ? llvm::sys::getHostCPUName().str() : cpu.str();
  std::string features;
  if (cpu == "host")
    for (const auto &[feature, on] : llvm::sys::getHostCPUFeatures())
      features += (on ? "+" : "-") + feature.str() + ",";
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, name, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Default));
  if (!machine || !machine->getMCSubtargetInfo()->isCPUStringValid(name))
    return createStringError("--emit-obj-cpu: '" + name +
                             "' is not a CPU LLVM knows (try x86-64, "
                             "x86-64-v3 or host)");
  return machine;
}

Expected<std::string> emitObjectFile(ModuleOp module, StringRef path,
                                     StringRef cpu) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return createStringError("translating the step to LLVM IR failed");
  llvm::Triple triple(llvm::sys::getProcessTriple());
  auto machine = objectTarget(triple, cpu);
  if (!machine)
    return machine.takeError();
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  if ((*machine)->addPassesToEmitFile(passes, os, nullptr,
                                      llvm::CodeGenFileType::ObjectFile))
    return createStringError("this LLVM cannot emit object files for " +
                             triple.str());
  passes.run(*llvmModule);
  if (Error error = toError(
          train::writeFile(path.str(), "--emit-obj",
                           std::string_view(buffer.data(), buffer.size()))))
    return std::move(error);
  return triple.str();
}

Error writeManifest(const train::Manifest &manifest, StringRef path) {
  return toError(
      train::writeJson(path.str(), "the manifest", manifest.toJson()));
}

} // namespace amp::runner
