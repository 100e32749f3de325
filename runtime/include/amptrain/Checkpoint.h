//===- Checkpoint.h - A run's state, saved and resumed ----------*- C++ -*-===//
//
// `--save=DIR` writes DIR/checkpoint.amp every `--save-every` steps and at
// the end; `--resume=DIR` goes on from it. A checkpoint holds everything
// the next steps depend on: every state argument of the step (the f32
// master params, optimizer state, the learning rate, the loss scale and its
// good-step counter, FP8 amax histories) by role and type, the step count,
// the random generator that draws batches, the epoch's example order, and
// what identifies the run (the step's signature, precision, data, seed,
// ranks), so a resumed run's steps are the uninterrupted run's, bit for bit.
//
// The file: "amp-checkpoint 1\n", a JSON header of HEADER bytes on one
// line after its length ("HEADER\n{...}\n"), every tensor's bytes in the
// header's order, then the FNV-1a 64 of everything before it as 16 hex
// digits and "\n". It is written to a temporary name and renamed over the
// last one, so a run killed while saving leaves the last checkpoint whole.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_CHECKPOINT_H
#define AMPTRAIN_CHECKPOINT_H

#include "amptrain/Result.h"
#include "amptrain/StepSpec.h"
#include <cstdint>
#include <string>
#include <vector>

namespace amp::train {

struct Checkpoint {
  static constexpr int64_t kVersion = 1;
  static constexpr const char *kMagic = "amp-checkpoint";
  static constexpr const char *kFileName = "checkpoint.amp";

  /// One saved state argument: its number in the step's signature, its
  /// role and type, and its bytes as the runtime holds them.
  struct Tensor {
    int64_t argument = 0;
    Role role = Role::Param;
    TensorSpec type;
    std::string bytes;
  };

  /// Steps done: the run goes on with this step.
  int64_t step = 0;
  /// What the run was: its precision, --data, --seed, ranks and global
  /// batch (examples a step takes over all ranks, micro-batches included),
  /// and the fingerprint of its step's signature (every argument's and
  /// result's role and type).
  std::string precision, data;
  int64_t seed = 0, ranks = 1, batch = 0;
  std::string signature;
  std::vector<Tensor> tensors;
  /// The batches' generator (std::mt19937's state as it prints) and the
  /// epoch's example order (none for text).
  std::string generator;
  std::vector<int64_t> order;
  /// The report's counts so far: skipped steps, and each FP8 history's
  /// saturated steps.
  int64_t skippedSteps = 0;
  std::vector<int64_t> fp8Saturated;

  /// DIR/checkpoint.amp.
  static std::string pathIn(const std::string &dir);
  /// Writes the checkpoint into `dir` (made if missing). `halfway`, when
  /// set, is called once half the bytes are written (a fault injected
  /// there shows what a kill mid-write leaves).
  Status save(const std::string &dir, void (*halfway)(void *) = nullptr,
              void *context = nullptr) const;
  /// Reads DIR/checkpoint.amp: a missing, truncated, corrupt (checksum) or
  /// malformed file, or one of another version, is a failure naming it.
  static Expected<Checkpoint> load(const std::string &dir);
};

/// The fingerprint of `f`'s roles and types, as a checkpoint records it.
std::string signatureFingerprint(const FunctionSpec &f);

} // namespace amp::train

#endif // AMPTRAIN_CHECKPOINT_H
