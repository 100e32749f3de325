//===- Evaluation.cpp - Test accuracy and validation loss -----------------===//
//
// After training, rank 0 runs the compiled eval entry on the held-out data:
// classifiers' test accuracy (logits, every test example once), language
// models' validation loss (the loss over the validation text's windows).
//
//===----------------------------------------------------------------------===//

#include "amptrain/Trainer.h"
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace amp::train {

Expected<std::vector<TensorPtr>>
runEval(amprt_context *ctx, const EvalFunction &eval,
        const std::vector<amprt_tensor *> &params, amprt_tensor *input,
        amprt_tensor *label) {
  const FunctionSpec &sig = eval.signature;
  int inputIndex = sig.lastArgWithRole(Role::Input);
  int labelIndex = sig.lastArgWithRole(Role::Label);
  size_t data = 1 + (labelIndex >= 0);
  if (inputIndex < 0 || params.size() + data != sig.args.size() ||
      (labelIndex >= 0 && !label))
    return failure("@" + sig.name +
                   " must take the params in order and an input (tg.role "
                   "\"input\"), and for text a label (tg.role \"label\")");
  std::vector<amprt_tensor *> args;
  size_t p = 0;
  for (size_t i = 0; i < sig.args.size(); ++i)
    args.push_back((int)i == inputIndex   ? input
                   : (int)i == labelIndex ? label
                                          : params[p++]);
  std::vector<void *> raw(sig.results.size(), nullptr);
  int32_t status = eval.fn(ctx, (void **)args.data(), raw.data());
  std::vector<TensorPtr> results = ownResults(raw);
  if (status != AMPRT_OK)
    return failure(amprt_context_error(ctx));
  return results;
}

/// The index of the highest of `n` scores.
static int64_t argmax(const float *scores, int64_t n) {
  return std::max_element(scores, scores + n) - scores;
}

/// The fraction of `test` that `eval` classifies right with `params`, and
/// the number of examples scored.
static Expected<std::pair<double, int64_t>>
testAccuracy(amprt_context *ctx, const EvalFunction &eval,
             const std::vector<amprt_tensor *> &params, const Split &test,
             int64_t features) {
  const FunctionSpec &sig = eval.signature;
  int evalInput = sig.lastArgWithRole(Role::Input);
  int logitsIndex = sig.lastResultWithRole(Role::Logits);
  if (evalInput < 0 || logitsIndex < 0 || params.size() + 1 != sig.args.size())
    return failure("@" + sig.name +
                   " must take the params in order and an input (tg.role "
                   "\"input\") and return tg.role \"logits\"");
  const TensorSpec &inputType = sig.args[evalInput].type;
  int64_t evalBatch = inputType.shape[0];
  int64_t classes = sig.results[logitsIndex].type.shape[1];
  int64_t correct = 0, seen = 0;
  // The last batch wraps around to the first examples so every test
  // example is scored once and batch statistics see real images.
  std::vector<float> xEval(evalBatch * features);
  for (int64_t start = 0; start < test.count; start += evalBatch) {
    int64_t real = std::min(evalBatch, test.count - start);
    for (int64_t b = 0; b < evalBatch; ++b)
      std::copy_n(&test.x[((start + b) % test.count) * features], features,
                  &xEval[b * features]);
    Expected<TensorPtr> x = tensorFromFloats(ctx, inputType, xEval.data());
    if (!x)
      return x.status();
    auto results = runEval(ctx, eval, params, x->get());
    if (!results)
      return failure("evaluation failed: " + results.message());
    auto logits = readFloats(ctx, (*results)[logitsIndex].get());
    if (!logits)
      return failure("reading the logits: " + logits.message());
    for (int64_t b = 0; b < real; ++b)
      correct += argmax(&(*logits)[b * classes], classes) == test.y[start + b];
    seen += real;
  }
  return std::make_pair(seen ? double(correct) / seen : 0.0, seen);
}

/// The mean of `eval`'s loss over the validation text's non-overlapping
/// windows of context + 1 bytes, in whole batches (a partial last batch
/// would count some windows twice), and the number of windows.
static Expected<std::pair<double, int64_t>>
validationLoss(amprt_context *ctx, const EvalFunction &eval,
               const std::vector<amprt_tensor *> &params,
               const std::string &text) {
  const FunctionSpec &sig = eval.signature;
  int input = sig.lastArgWithRole(Role::Input);
  int label = sig.lastArgWithRole(Role::Label);
  int loss = sig.lastResultWithRole(Role::Loss);
  if (input < 0 || label < 0 || loss < 0 || sig.results[loss].type.numel() != 1)
    return failure("@" + sig.name +
                   " must take the params in order, an input (tg.role "
                   "\"input\") and a label (tg.role \"label\") and return "
                   "the loss (tg.role \"loss\", a scalar) for --data=text");
  const TensorSpec &inputType = sig.args[input].type;
  const TensorSpec &labelType = sig.args[label].type;
  int64_t batch = inputType.shape[0], context = inputType.shape[1];
  int64_t windows = (int64_t(text.size()) - 1) / context;
  int64_t batches = windows / batch;
  if (batches == 0)
    return failure("the validation text (" + std::to_string(text.size()) +
                   " bytes) holds fewer than one batch of windows");
  std::vector<float> x(batch * context), y(batch * context);
  double total = 0;
  for (int64_t n = 0; n < batches; ++n) {
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t t = 0; t < context; ++t) {
        int64_t at = ((n * batch + b) * context) + t;
        x[b * context + t] = (float)(uint8_t)text[at];
        y[b * context + t] = (float)(uint8_t)text[at + 1];
      }
    auto batch =
        batchFromFloats(ctx, inputType, x.data(), labelType, y.data());
    if (!batch)
      return batch.status();
    auto results =
        runEval(ctx, eval, params, batch->first.get(), batch->second.get());
    if (!results)
      return failure("evaluation failed: " + results.message());
    Expected<float> value = readScalar((*results)[loss].get());
    if (!value)
      return value.status();
    total += *value;
  }
  return std::make_pair(total / batches, batches * batch);
}

Expected<Evaluation> evaluate(amprt_context *ctx, const EvalFunction &eval,
                              const std::vector<amprt_tensor *> &params,
                              const RunData &data) {
  Evaluation result;
  if (data.text) {
    auto loss = validationLoss(ctx, eval, params, data.text->validation);
    if (!loss)
      return loss.status();
    result.validationLoss = loss->first;
    result.scored = loss->second;
    std::fprintf(stderr,
                 "validation loss %.4f nats, %.4f bits per byte "
                 "(%lld windows)\n",
                 loss->first, loss->first / M_LN2, (long long)loss->second);
    return result;
  }
  const Split &test = data.examples->test;
  if (test.count == 0) {
    std::fprintf(stderr, "no test accuracy: the test split is empty\n");
    return result;
  }
  int64_t features = data.examples->train.features;
  auto scored = testAccuracy(ctx, eval, params, test, features);
  if (!scored)
    return scored.status();
  result.accuracy = scored->first;
  result.scored = scored->second;
  std::fprintf(stderr, "test accuracy %.4f (%lld examples)\n", scored->first,
               (long long)scored->second);
  return result;
}

} // namespace amp::train
