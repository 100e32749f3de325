//===- Tensors.h - Runtime handles and host copies -------------*- C++ -*-===//
//
// Runtime contexts and tensors owned by RAII handles, so that every exit
// path -- an error in the middle of training included -- frees them, and
// the copies every host makes: a batch of floats into a tensor of the
// step's type, a scalar out of a result.
//
//===----------------------------------------------------------------------===//

#ifndef AMPTRAIN_TENSORS_H
#define AMPTRAIN_TENSORS_H

#include "amprt/amprt.h"
#include "amptrain/Result.h"
#include "amptrain/StepSpec.h"
#include <memory>

namespace amp::train {

struct ContextDeleter {
  void operator()(amprt_context *context) const {
    amprt_context_destroy(context);
  }
};
struct TensorDeleter {
  void operator()(amprt_tensor *tensor) const { amprt_tensor_release(tensor); }
};
using ContextPtr = std::unique_ptr<amprt_context, ContextDeleter>;
using TensorPtr = std::unique_ptr<amprt_tensor, TensorDeleter>;

/// A runtime context on `device`; the failure says why there is none.
Expected<ContextPtr> createContext(amprt_device device, int ordinal = 0);

/// A new, uninitialised runtime tensor of `type`.
Expected<TensorPtr> makeTensor(amprt_context *context, const TensorSpec &type);

/// A tensor of `type` holding `values` (one per element, row-major):
/// integers are written as they are, 16- and 8-bit floats are cast from an
/// f32 copy on the device, as the step's own casts round.
Expected<TensorPtr> tensorFromFloats(amprt_context *context,
                                     const TensorSpec &type,
                                     const float *values);

/// A batch: the input and label tensors of `inputType` and `labelType`
/// holding `x` and `y` (tensorFromFloats).
Expected<std::pair<TensorPtr, TensorPtr>>
batchFromFloats(amprt_context *context, const TensorSpec &inputType,
                const float *x, const TensorSpec &labelType, const float *y);

/// The single value of a one-element f32 or i64 tensor.
Expected<float> readScalar(amprt_tensor *tensor);

/// Every element of `tensor` as f32 (cast on the device when it is not).
Expected<std::vector<float>> readFloats(amprt_context *context,
                                        amprt_tensor *tensor);

/// Owns the tensors a compiled function stored as its results.
std::vector<TensorPtr> ownResults(const std::vector<void *> &raw);

/// A failure carrying the runtime's last error message after `what`.
Status runtimeError(const std::string &what);

} // namespace amp::train

#endif // AMPTRAIN_TENSORS_H
