//===- ForeignFromBytes.cpp - Foreign IR decoded from bytes ---------------===//
//
// Every value the writer keeps is an f32 tensor of shape [B, H] (B static or
// dynamic, H static): each construct takes such values and makes one, so any
// sequence of choices is a valid module.
//
//===----------------------------------------------------------------------===//

#include "ForeignFromBytes.h"
#include "ByteReader.h"
#include <cstdio>
#include <vector>

using namespace amp::fuzz;

namespace {

class ForeignWriter {
public:
  explicit ForeignWriter(ByteReader &in) : in(in) {}

  DecodedForeign write() {
    dynamic = in.pick(2);
    batch = 1 + in.pick(4);
    hidden = 1 + in.pick(6);
    bool tosaOnly = !dynamic && in.pick(4) == 0;
    std::string x = "%x";
    if (dynamic)
      emit("%n = tensor.dim %x, %c0 : " + act());
    std::vector<std::string> values = {x};
    bool useCf = !tosaOnly && in.pick(5) == 0;
    if (useCf) {
      emit("cf.br ^loop(" + x + " : " + act() + ")");
      body += "^loop(%carried: " + act() + "):\n";
      values = {"%carried"};
    }
    for (unsigned i = 0, e = 1 + in.pick(10); i < e; ++i)
      values.push_back(tosaOnly ? tosaOp(values) : op(values, /*depth=*/0));
    std::string result = values.back();
    if (useCf) {
      emit("cf.cond_br %p, ^loop(" + result + " : " + act() + "), ^exit");
      body += "^exit:\n";
    }
    emit("return " + result + " : " + act());

    DecodedForeign out;
    out.text = "func.func @forward(%p: i1, %x: " + act() +
               ", %w: " + tensor(hidden, hidden) + ", %b: tensor<" +
               std::to_string(hidden) + "xf32>) -> " + act() + " {\n" +
               "  %c0 = arith.constant 0 : index\n" + body + "}\n";
    static const char *precisions[] = {"f16", "bf16"};
    static const char *levels[] = {"default", "tensor-cores-only",
                                   "infer-as-deny", "force-all"};
    static const char *castOps[] = {"auto", "amp", "arith", "tosa"};
    out.options =
        std::string("precision=") + precisions[in.pick(2)] +
        " level=" + levels[in.pick(4)] + " cast-op=" + castOps[in.pick(4)] +
        " keep-io-types=" + (in.pick(2) ? "true" : "false") +
        " constant-overflow=" + (in.pick(2) ? "saturate" : "keep-f32");
    return out;
  }

private:
  std::string tensor(int64_t rows, int64_t cols) const {
    return "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) +
           "xf32>";
  }
  std::string act() const {
    return std::string("tensor<") + (dynamic ? "?" : std::to_string(batch)) +
           "x" + std::to_string(hidden) + "xf32>";
  }
  std::string empty() {
    return fresh("tensor.empty(" + std::string(dynamic ? "%n" : "") +
                 ") : " + act());
  }
  std::string fresh(const std::string &rhs) {
    std::string name = "%v" + std::to_string(next++);
    emit(name + " = " + rhs);
    return name;
  }
  void emit(const std::string &line) {
    body += std::string(2 + 2 * indent, ' ') + line + "\n";
  }
  std::string pickValue(const std::vector<std::string> &values) {
    return values[values.size() - 1 - in.pick(values.size())];
  }
  std::string zeroFilled() {
    return fresh("linalg.fill ins(" + scalar(0.0) + " : f32) outs(" + empty() +
                 " : " + act() + ") -> " + act());
  }
  std::string scalar(double value) {
    char text[32];
    snprintf(text, sizeof text, "%.9e", value);
    return fresh(std::string("arith.constant ") + text + " : f32");
  }

  std::string matmul(const std::string &a) {
    return fresh("linalg.matmul ins(" + a + ", %w : " + act() + ", " +
                 tensor(hidden, hidden) + ") outs(" + zeroFilled() + " : " +
                 act() + ") -> " + act());
  }

  /// An elementwise generic over one or two values, with a random body.
  std::string generic(const std::string &a, const std::string &b) {
    static const char *bodies[] = {
        "%r = arith.addf %in0, %in1 : f32",
        "%r = arith.maximumf %in0, %k : f32",
        "%e = math.exp %in0 : f32\n%r = arith.mulf %e, %in1 : f32",
        "%r = math.tanh %in0 : f32",
        "%m = arith.mulf %in0, %k : f32\n%r = arith.divf %m, %k : f32",
        "%c = arith.cmpf ogt, %in0, %in1 : f32\n%r = arith.select %c, %in0, "
        "%in1 : f32",
        "%i = linalg.index 1 : index\n%j = arith.index_cast %i : index to "
        "i32\n%f = arith.sitofp %j : i32 to f32\n%r = arith.addf %in0, %f : "
        "f32",
        "%d = arith.extf %in0 : f32 to f64\n%r = arith.truncf %d : f64 to f32",
    };
    static const double constants[] = {0.0, 0.5, 1.0e5, -3.0e38, 1.0e-9};
    std::string k = scalar(constants[in.pick(5)]);
    std::string map = "affine_map<(i, j) -> (i, j)>";
    std::string text = bodies[in.pick(8)];
    std::string out = empty();
    std::string name = "%v" + std::to_string(next++);
    emit(name + " = linalg.generic {indexing_maps = [" + map + ", " + map +
         ", " + map + "], iterator_types = [\"parallel\", \"parallel\"]} ins(" +
         a + ", " + b + " : " + act() + ", " + act() + ") outs(" + out + " : " +
         act() + ") {");
    emit("^bb0(%in0: f32, %in1: f32, %o: f32):");
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      std::string line = text.substr(start, end - start);
      // Body names are local: rename %k to the captured constant.
      size_t at = line.find("%k");
      if (at != std::string::npos)
        line.replace(at, 2, k);
      emit("  " + line);
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
    emit("  linalg.yield %r : f32");
    emit("} -> " + act());
    return name;
  }

  /// A row reduction (sum or max) broadcast back to [B, H].
  std::string reduction(const std::string &a) {
    bool max = in.pick(2);
    std::string rowType = std::string("tensor<") +
                          (dynamic ? "?" : std::to_string(batch)) + "xf32>";
    std::string rowEmpty = fresh(std::string("tensor.empty(") +
                                 (dynamic ? "%n" : "") + ") : " + rowType);
    std::string init =
        fresh("linalg.fill ins(" + scalar(max ? -3.0e38 : 0.0) +
              " : f32) outs(" + rowEmpty + " : " + rowType + ") -> " + rowType);
    std::string r = "%v" + std::to_string(next++);
    emit(r + " = linalg.reduce ins(" + a + " : " + act() + ") outs(" + init +
         " : " + rowType + ") dimensions = [1]");
    emit("  (%in: f32, %acc: f32) {");
    emit(std::string("    %s = ") + (max ? "arith.maximumf" : "arith.addf") +
         " %in, %acc : f32");
    emit("    linalg.yield %s : f32");
    emit("  }");
    return fresh("linalg.broadcast ins(" + r + " : " + rowType + ") outs(" +
                 empty() + " : " + act() + ") dimensions = [1]");
  }

  std::string op(std::vector<std::string> &values, int depth) {
    std::string a = pickValue(values);
    switch (in.pick(depth < 2 ? 12 : 9)) {
    case 0:
    case 1:
      return matmul(a);
    case 2:
    case 3:
      return generic(a, pickValue(values));
    case 4:
      return reduction(a);
    case 5: {
      // Through an unranked or a static/dynamic view and back.
      std::string other = in.pick(2) ? "tensor<*xf32>"
                          : dynamic
                              ? tensor(batch, hidden)
                              : "tensor<?x" + std::to_string(hidden) + "xf32>";
      std::string v =
          fresh("tensor.cast " + a + " : " + act() + " to " + other);
      return fresh("tensor.cast " + v + " : " + other + " to " + act());
    }
    case 6:
      return fresh((in.pick(2) ? "math.exp " : "math.absf ") + a + " : " +
                   act());
    case 7:
      return fresh("arith.addf " + a + ", " + pickValue(values) + " : " +
                   act());
    case 8: {
      if (hidden == 1 || dynamic)
        return matmul(a);
      std::string sq = tensor(batch, hidden);
      return fresh("linalg.transpose ins(" + a + " : " + sq + ") outs(" +
                   empty() + " : " + sq + ") permutation = [0, 1]");
    }
    case 9: {
      // A loop carrying a value through a few ops.
      std::string r = "%v" + std::to_string(next++);
      std::string acc = "%acc" + std::to_string(next++);
      emit("%lb" + r.substr(1) + " = arith.constant 0 : index");
      emit("%ub" + r.substr(1) + " = arith.constant 3 : index");
      emit("%st" + r.substr(1) + " = arith.constant 1 : index");
      emit(r + " = scf.for %i" + r.substr(1) + " = %lb" + r.substr(1) +
           " to %ub" + r.substr(1) + " step %st" + r.substr(1) + " iter_args(" +
           acc + " = " + a + ") -> (" + act() + ") {");
      ++indent;
      std::vector<std::string> inner = values;
      inner.push_back(acc);
      for (unsigned i = 0, e = 1 + in.pick(3); i < e; ++i)
        inner.push_back(op(inner, depth + 1));
      emit("scf.yield " + inner.back() + " : " + act());
      --indent;
      emit("}");
      return r;
    }
    case 10: {
      std::string r = "%v" + std::to_string(next++);
      emit(r + " = scf.if %p -> (" + act() + ") {");
      ++indent;
      std::vector<std::string> thenValues = values;
      thenValues.push_back(op(thenValues, depth + 1));
      emit("scf.yield " + thenValues.back() + " : " + act());
      --indent;
      emit("} else {");
      ++indent;
      std::vector<std::string> elseValues = values;
      elseValues.push_back(op(elseValues, depth + 1));
      emit("scf.yield " + elseValues.back() + " : " + act());
      --indent;
      emit("}");
      return r;
    }
    default: {
      std::string padded = std::string("tensor<") +
                           (dynamic ? "?" : std::to_string(batch)) + "x" +
                           std::to_string(hidden + 2) + "xf32>";
      std::string p = "%v" + std::to_string(next++);
      emit(p + " = tensor.pad " + a + " low[0, 1] high[0, 1] {");
      emit("^bb0(%i0: index, %i1: index):");
      emit("  tensor.yield " + scalar(0.0) + " : f32");
      emit("} : " + act() + " to " + padded);
      std::string sizes = dynamic ? "%n" : std::to_string(batch);
      return fresh("tensor.extract_slice " + p + "[0, 1] [" + sizes + ", " +
                   std::to_string(hidden) + "] [1, 1] : " + padded + " to " +
                   act());
    }
    }
  }

  /// TOSA programs: static shapes, rank 2 (tosa.matmul takes rank 3).
  std::string tosaOp(std::vector<std::string> &values) {
    std::string a = pickValue(values), t = act();
    switch (in.pick(5)) {
    case 0:
      return fresh("tosa.add " + a + ", " + pickValue(values) + " : (" + t +
                   ", " + t + ") -> " + t);
    case 1:
      return fresh("tosa.exp " + a + " : (" + t + ") -> " + t);
    case 2:
      return fresh("tosa.clamp " + a +
                   " {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : "
                   "(" +
                   t + ") -> " + t);
    case 3: {
      std::string zp = fresh("\"tosa.const\"() <{values = dense<0.0> : "
                             "tensor<1xf32>}> : () -> tensor<1xf32>");
      std::string t3 = "tensor<1x" + std::to_string(batch) + "x" +
                       std::to_string(hidden) + "xf32>";
      std::string w3 = "tensor<1x" + std::to_string(hidden) + "x" +
                       std::to_string(hidden) + "xf32>";
      std::string s3 =
          fresh("tosa.const_shape {values = dense<[1, " +
                std::to_string(batch) + ", " + std::to_string(hidden) +
                "]> : tensor<3xindex>} : () -> !tosa.shape<3>");
      std::string sw =
          fresh("tosa.const_shape {values = dense<[1, " +
                std::to_string(hidden) + ", " + std::to_string(hidden) +
                "]> : tensor<3xindex>} : () -> !tosa.shape<3>");
      std::string s2 =
          fresh("tosa.const_shape {values = dense<[" + std::to_string(batch) +
                ", " + std::to_string(hidden) +
                "]> : tensor<2xindex>} : () -> !tosa.shape<2>");
      std::string a3 = fresh("tosa.reshape " + a + ", " + s3 + " : (" + t +
                             ", !tosa.shape<3>) -> " + t3);
      std::string w =
          fresh("tosa.reshape %w, " + sw + " : (" + tensor(hidden, hidden) +
                ", !tosa.shape<3>) -> " + w3);
      std::string m = fresh("tosa.matmul " + a3 + ", " + w + ", " + zp + ", " +
                            zp + " : (" + t3 + ", " + w3 +
                            ", tensor<1xf32>, tensor<1xf32>) -> " + t3);
      return fresh("tosa.reshape " + m + ", " + s2 + " : (" + t3 +
                   ", !tosa.shape<2>) -> " + t);
    }
    default:
      return fresh("tosa.sigmoid " + a + " : (" + t + ") -> " + t);
    }
  }

  ByteReader &in;
  bool dynamic = false;
  int64_t batch = 1, hidden = 1;
  unsigned next = 0;
  int indent = 0;
  std::string body;
};

} // namespace

DecodedForeign amp::fuzz::decodeForeign(llvm::ArrayRef<uint8_t> bytes) {
  ByteReader in(bytes);
  return ForeignWriter(in).write();
}
