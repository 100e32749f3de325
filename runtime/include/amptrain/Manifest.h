//===- Manifest.h - A step compiled ahead of time, described --*- C++ -*-===//
//
// `amp-run --emit-obj=step.o` writes `step.o.json` beside the object: the
// entries and every argument and result (role, shape, element type,
// initialiser), the loss-scaling state and its first values, the FP8 state,
// the precision and a fingerprint of the compiled options. amp-train reads
// it to train the object with no MLIR. The format is versioned: a reader
// refuses a version it does not know, and an object whose size or bytes do
// not match what its manifest recorded.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_MANIFEST_H
#define AMPTRAIN_MANIFEST_H

#include "amprt/amprt.h"
#include "amptrain/Fp8Scales.h"
#include "amptrain/Json.h"
#include "amptrain/StepSpec.h"

namespace amp::train {

struct Manifest {
  /// The version this build writes and reads.
  static constexpr int64_t kVersion = 3;
  static constexpr const char *kFormat = "amp-step-manifest";

  /// The object file, as written: its name (relative to the manifest's
  /// folder), size and FNV-1a fingerprint.
  std::string object;
  int64_t objectBytes = 0;
  std::string objectFingerprint;
  /// The code's target: an LLVM triple and CPU ("x86-64" runs on any).
  std::string triple, cpu;
  /// The runtime C API the code calls (AMPRT_ABI_VERSION when compiled).
  int64_t runtimeAbi = AMPRT_ABI_VERSION;
  /// The compiled source and how it was compiled.
  std::string source, precision;
  std::string lossScaling = "none"; // none, static or dynamic
  double initScale = kDefaultInitScale;
  bool dataParallel = false;
  std::string gradComm = "f32";
  int64_t bucketBytes = 0;
  bool reduceAmax = false;
  /// Every option that shaped the compiled code, as text, and its
  /// fingerprint (what ranks compare before training together).
  std::string options, optionsFingerprint;
  /// The classes of synthetic data (the loss's logits).
  int64_t lossClasses = 10;
  FunctionSpec train;
  std::optional<FunctionSpec> eval;
  std::vector<Fp8History> fp8;

  json::Value toJson() const;
  /// Reads a manifest; `path` names it in failures.
  static Expected<Manifest> fromJson(const json::Value &value,
                                     const std::string &path);
  /// Reads the manifest file at `path`.
  static Expected<Manifest> load(const std::string &path);
};

/// The size and fingerprint of the file at `path`, as a manifest records
/// them.
Expected<std::pair<int64_t, std::string>>
fingerprintFile(const std::string &path);

/// Fails unless the object at `path` is the one `manifest` describes and
/// calls the runtime C API this process has (amprt_abi_version()).
Status checkObject(const Manifest &manifest, const std::string &path);

} // namespace amp::train

#endif // AMPTRAIN_MANIFEST_H
