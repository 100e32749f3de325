//===- Tensors.cpp - Owning runtime handles and host <-> tensor copies ----===//

#include "amptrain/Tensors.h"

namespace amp::train {

Status runtimeError(const std::string &what) {
  return failure(what + ": " + amprt_last_error());
}

std::vector<TensorPtr> ownResults(const std::vector<void *> &raw) {
  std::vector<TensorPtr> results;
  for (void *r : raw)
    results.emplace_back(static_cast<amprt_tensor *>(r));
  return results;
}

Expected<ContextPtr> createContext(amprt_device device, int ordinal) {
  amprt_context *context = nullptr;
  if (amprt_context_create(device, ordinal, &context) != AMPRT_OK)
    return failure(amprt_last_error());
  return ContextPtr(context);
}

Expected<TensorPtr> makeTensor(amprt_context *context, const TensorSpec &type) {
  amprt_tensor *tensor = nullptr;
  if (amprt_tensor_create(context, type.dtype, (int)type.shape.size(),
                          type.shape.data(), &tensor) != AMPRT_OK)
    return failure(amprt_last_error());
  return TensorPtr(tensor);
}

/// Writes `count` values of type T converted from `values`.
template <typename T>
static amprt_status writeAs(amprt_tensor *tensor, const float *values,
                            int64_t count) {
  std::vector<T> converted(values, values + count);
  return amprt_tensor_write(tensor, converted.data(), count * sizeof(T));
}

Expected<TensorPtr> tensorFromFloats(amprt_context *context,
                                     const TensorSpec &type,
                                     const float *values) {
  int64_t n = type.numel();
  Expected<TensorPtr> tensor = makeTensor(context, type);
  if (!tensor)
    return tensor.status();
  amprt_status status = AMPRT_OK;
  switch (type.dtype) {
  case AMPRT_I64:
    status = writeAs<int64_t>(tensor->get(), values, n);
    break;
  case AMPRT_I32:
    status = writeAs<int32_t>(tensor->get(), values, n);
    break;
  case AMPRT_I1:
    status = writeAs<uint8_t>(tensor->get(), values, n);
    break;
  case AMPRT_F64:
    status = writeAs<double>(tensor->get(), values, n);
    break;
  case AMPRT_F32:
    status = amprt_tensor_write(tensor->get(), values, n * sizeof(float));
    break;
  default: {
    Expected<TensorPtr> staging =
        tensorFromFloats(context, type.withDtype(AMPRT_F32), values);
    if (!staging)
      return staging.status();
    status = amprt_cast(context, staging->get(), tensor->get());
  }
  }
  if (status != AMPRT_OK)
    return failure(amprt_last_error());
  return tensor;
}

Expected<std::pair<TensorPtr, TensorPtr>>
batchFromFloats(amprt_context *context, const TensorSpec &inputType,
                const float *x, const TensorSpec &labelType, const float *y) {
  Expected<TensorPtr> xt = tensorFromFloats(context, inputType, x);
  if (!xt)
    return xt.status();
  Expected<TensorPtr> yt = tensorFromFloats(context, labelType, y);
  if (!yt)
    return yt.status();
  return std::make_pair(std::move(*xt), std::move(*yt));
}

Expected<float> readScalar(amprt_tensor *tensor) {
  if (amprt_tensor_numel(tensor) != 1)
    return failure("expected a tensor of one value");
  amprt_status status;
  float value = 0;
  switch (amprt_tensor_dtype(tensor)) {
  case AMPRT_I64: {
    int64_t wide = 0;
    status = amprt_tensor_read(tensor, &wide, sizeof(wide));
    value = (float)wide;
    break;
  }
  case AMPRT_F32:
    status = amprt_tensor_read(tensor, &value, sizeof(value));
    break;
  case AMPRT_I1: {
    uint8_t flag = 0; // one byte, as the runtime stores i1
    status = amprt_tensor_read(tensor, &flag, sizeof(flag));
    value = flag != 0;
    break;
  }
  default:
    return failure("expected an f32, i64 or i1 scalar");
  }
  if (status != AMPRT_OK)
    return failure(amprt_last_error());
  return value;
}

Expected<std::vector<float>> readFloats(amprt_context *context,
                                        amprt_tensor *tensor) {
  std::vector<float> values(amprt_tensor_numel(tensor));
  amprt_tensor *source = tensor;
  TensorPtr wide;
  if (amprt_tensor_dtype(tensor) != AMPRT_F32) {
    const int64_t *dims = amprt_tensor_shape(tensor);
    std::vector<int64_t> shape(dims, dims + amprt_tensor_rank(tensor));
    Expected<TensorPtr> made = makeTensor(context, {AMPRT_F32, shape});
    if (!made)
      return made.status();
    wide = std::move(*made);
    if (amprt_cast(context, tensor, wide.get()) != AMPRT_OK)
      return runtimeError("widening a tensor to f32");
    source = wide.get();
  }
  if (amprt_tensor_read(source, values.data(), values.size() * 4) != AMPRT_OK)
    return runtimeError("reading a tensor");
  return values;
}

} // namespace amp::train
