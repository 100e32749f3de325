//===- GraphFromBytes.cpp - A random training step decoded from bytes -----===//

#include "GraphFromBytes.h"
#include "ByteReader.h"
#include <vector>

using namespace amp::fuzz;

namespace {

std::string tensor(std::vector<int64_t> shape, const char *element = "f32") {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + element + ">";
}

class StepWriter {
public:
  explicit StepWriter(ByteReader &in) : in(in) {}

  std::string write() {
    batch = 1 + in.pick(8);
    hidden = 2 + in.pick(15);
    std::string x = convolutionalFront() ? convOutput : denseFront();
    values.push_back(x);
    for (unsigned i = 0, e = in.pick(14); i < e; ++i)
      values.push_back(addOp());
    std::string loss = addLoss(values.back());
    return finish(loss);
  }

private:
  std::string fresh() { return "%v" + std::to_string(next++); }
  std::string act() { return tensor({batch, hidden}); }
  std::string param(std::vector<int64_t> shape) {
    std::string name = "%p" + std::to_string(params.size());
    params.push_back({name, tensor(shape)});
    return name;
  }
  /// Usually the newest value, so graphs grow deep as well as wide.
  std::string operand() {
    unsigned back = in.pick(4) == 0 ? in.pick(values.size()) : 0;
    return values[values.size() - 1 - back];
  }
  void emit(const std::string &line) { body += "  " + line + "\n"; }

  std::string denseFront() {
    features = 1 + in.pick(16);
    inputType = tensor({batch, features});
    std::string w = param({features, hidden});
    std::string h = fresh();
    emit(h + " = tg.matmul %x, " + w + " : " + inputType + ", " +
         tensor({features, hidden}));
    return h;
  }

  /// conv2d (+ batch_norm) + relu (+ max_pool2d), flattened into a matmul.
  bool convolutionalFront() {
    if (in.pick(3) != 0)
      return false;
    int64_t side = 2 * (1 + in.pick(3)), channels = 1 + in.pick(3),
            filters = 1 + in.pick(4);
    inputType = tensor({batch, side, side, channels});
    std::string k = param({filters, 3, 3, channels});
    std::string c = fresh();
    std::string cType = tensor({batch, side, side, filters});
    emit(c + " = tg.conv2d %x, " + k +
         " {padding = array<i64: 1, 1, 1, 1>} : " + inputType + ", " +
         tensor({filters, 3, 3, channels}));
    if (in.pick(2)) {
      std::string g = param({filters}), b = param({filters});
      std::string n = fresh();
      emit(n + ", %bm" + std::to_string(next) + ", %bi" + std::to_string(next) +
           " = tg.batch_norm " + c + ", " + g + ", " + b + " : " + cType +
           ", " + tensor({filters}));
      c = n;
    }
    std::string r = fresh();
    emit(r + " = tg.relu " + c + " : " + cType);
    if (in.pick(2)) {
      std::string p = fresh();
      emit(p + " = tg.max_pool2d " + r +
           " {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : " +
           cType);
      side /= 2;
      cType = tensor({batch, side, side, filters});
      r = p;
    }
    int64_t flat = side * side * filters;
    std::string f = fresh();
    emit(f + " = tg.reshape " + r + " : " + cType + " -> " +
         tensor({batch, flat}));
    std::string w = param({flat, hidden});
    convOutput = fresh();
    emit(convOutput + " = tg.matmul " + f + ", " + w + " : " +
         tensor({batch, flat}) + ", " + tensor({flat, hidden}));
    return true;
  }

  std::string unary(const char *op) {
    std::string r = fresh();
    emit(r + " = tg." + op + " " + operand() + " : " + act());
    return r;
  }
  std::string binary(const char *op) {
    std::string a = operand(), b = values[in.pick(values.size())];
    std::string r = fresh();
    emit(r + " = tg." + op + " " + a + ", " + b + " : " + act() + ", " + act());
    return r;
  }

  std::string addOp() {
    switch (in.pick(16)) {
    case 0: {
      std::string w = param({hidden, hidden}), r = fresh();
      emit(r + " = tg.matmul " + operand() + ", " + w + " : " + act() + ", " +
           tensor({hidden, hidden}));
      return r;
    }
    case 1: {
      std::string b = param({hidden}), r = fresh();
      emit(r + " = tg.bias_add " + operand() + ", " + b + " : " + act() + ", " +
           tensor({hidden}));
      return r;
    }
    case 2:
      return unary("relu");
    case 3:
      return unary("tanh");
    case 4:
      return unary("sigmoid");
    case 5:
      return unary("gelu");
    case 6:
      return binary("add");
    case 7:
      return binary("mul");
    case 8:
      return binary("sub");
    case 9:
      return binary("maximum");
    case 10:
      return unary("softmax");
    case 11:
      return unary("log_softmax");
    case 12:
      return unary("neg");
    case 13: {
      // Over two features a normalised row is (-1, 1) whatever its input,
      // so the input's gradient cancels exactly in f32 and only roughly in
      // 16 bits: noise against noise, not a measure of the conversion.
      if (hidden <= 2)
        return unary("tanh");
      std::string g = param({hidden}), b = param({hidden}), r = fresh();
      emit(r + ", %lm" + std::to_string(next) + ", %li" + std::to_string(next) +
           " = tg.layer_norm " + operand() + ", " + g + ", " + b + " : " +
           act() + ", " + tensor({hidden}));
      return r;
    }
    case 14: {
      // Gate each row by its sum. (Adding the sum instead would feed
      // shift-invariant ops — softmax, layer_norm — a term whose gradient
      // cancels exactly in f32 and only roughly in 16 bits.)
      std::string s = fresh(), g = fresh(), r = fresh(), a = operand();
      emit(s + " = tg.reduce_sum " + a +
           " {dims = array<i64: 1>, keepdims = true} : " + act());
      emit(g + " = tg.sigmoid " + s + " : " + tensor({batch, 1}));
      emit(r + " = tg.mul " + a + ", " + g + " : " + act() + ", " +
           tensor({batch, 1}));
      return r;
    }
    default: {
      // sqrt and exp on bounded inputs, so the f32 values stay in range.
      std::string s = fresh(), r = fresh();
      emit(s + " = tg.sigmoid " + operand() + " : " + act());
      emit(r + " = tg." + (in.pick(2) ? "sqrt " : "exp ") + s + " : " + act());
      return r;
    }
    }
  }

  std::string addLoss(const std::string &h) {
    std::string l = "%loss";
    if (in.pick(2)) {
      std::string ce = fresh();
      emit(ce + " = tg.softmax_cross_entropy " + h + ", %y : " + act() + ", " +
           tensor({batch}, "i32"));
      emit(l + " = tg.reduce_mean " + ce +
           " {dims = array<i64: 0>} : " + tensor({batch}));
    } else {
      std::string sq = fresh();
      emit(sq + " = tg.mul " + h + ", " + h + " : " + act() + ", " + act());
      emit(l + " = tg.reduce_mean " + sq +
           " {dims = array<i64: 0, 1>} : " + act());
    }
    return l;
  }

  std::string finish(const std::string &loss) {
    std::string args, results = "tensor<f32> {tg.role = \"loss\"}",
                      resultTypes = "tensor<f32>", wrt, wrtTypes, updates,
                      returned = loss;
    for (size_t i = 0; i < params.size(); ++i) {
      const auto &[name, type] = params[i];
      args += name + ": " + type + " {tg.role = \"param\"}, ";
      results += ", " + type + " {tg.role = \"param\"}";
      resultTypes += ", " + type;
      wrt += (i ? ", " : "") + name;
      wrtTypes += ", " + type;
      std::string g = params.size() > 1 ? "%g#" + std::to_string(i) : "%g";
      std::string u = "%u" + std::to_string(i);
      updates += "  " + u + " = tg.sgd_update " + name + ", " + g +
                 ", %lr : " + type + "\n";
      returned += ", " + u;
    }
    std::string text = "func.func @train_step(" + args + "%x: " + inputType +
                       " {tg.role = \"input\"}, %y: " + tensor({batch}, "i32") +
                       " {tg.role = \"label\"}, %lr: tensor<f32> "
                       "{tg.role = \"lr\"}) -> (" +
                       results + ") {\n" + body;
    std::string count =
        params.size() > 1 ? ":" + std::to_string(params.size()) : "";
    text += "  %g" + count + " = tg.gradients " + loss + " wrt " + wrt +
            " : tensor<f32>" + wrtTypes + "\n" + updates;
    text += "  return " + returned + " : " + resultTypes + "\n}\n";
    return text;
  }

  ByteReader &in;
  int64_t batch = 1, hidden = 2, features = 1;
  std::string inputType, convOutput, body;
  std::vector<std::string> values;
  std::vector<std::pair<std::string, std::string>> params;
  unsigned next = 0;
};

} // namespace

DecodedStep amp::fuzz::decodeStep(llvm::ArrayRef<uint8_t> bytes) {
  ByteReader in(bytes);
  DecodedStep step;
  step.precision = in.pick(3) == 0 ? "bf16" : "f16";
  static const char *levels[] = {"default", "default", "tensor-cores-only",
                                 "infer-as-deny", "force-all"};
  step.level = levels[in.pick(5)];
  step.lossScale = double(1u << in.pick(11));
  step.dataSeed = in.pick(256);
  step.text = StepWriter(in).write();
  return step;
}
