#!/usr/bin/env python3
"""A GPT-style character language model's training step as tg IR: a
byte-level vocabulary (256), learned token and position embeddings
(tg.gather, tg.add), pre-LayerNorm blocks of causal multi-head
self-attention (tg.softmax {causal}: the mask holds in f16 and bf16) and a
GELU MLP (4x), a final LayerNorm and a linear head to the logits of the
next byte at every position; cross-entropy over every position; AdamW
(beta1 0.9, beta2 0.95, epsilon 1e-8, decoupled weight decay on the
embeddings and the weight matrices, none on biases and LayerNorm, as
nanoGPT). A @predict entry takes the same batch and returns the loss, for
amp-run's validation loss (--data=text).

The input is the batch's bytes [batch, context] (tg.role "input", i32) and
the label the next byte of each, flattened [batch * context] (tg.role
"label"), as amp-run's text data gives them.

The defaults are the example: width 256, 4 layers, 4 heads, context 128,
batch 32 (python-bindings-free-examples/gpt_char.mlir is this script's
output); the GPU kit's is width 768, 12 layers, 12 heads, context 256.

usage: gpt.py OUT.mlir [--width=D] [--layers=L] [--heads=H] [--context=T]
              [--batch=B] [--weight-decay=WD] [--lit]

--lit adds the example's header and RUN lines (gpt_char.mlir has them).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "kit"))
from files import write_text  # noqa: E402

VOCAB = 256


def t(*dims, element="f32"):
    """A tensor type of `dims`."""
    return f"tensor<{'x'.join(str(d) for d in dims)}x{element}>"


class Model:
    """The parameters in order (name, type, initialiser, decayed) and the
    forward pass's lines up to the loss, built once for both functions."""

    def __init__(self, width, layers, heads, context, batch):
        if width % heads:
            raise ValueError(f"--width {width} is not a multiple of --heads "
                             f"{heads}")
        self.d, self.h, self.tt, self.b = width, heads, context, batch
        self.dh, self.rows = width // heads, batch * context
        self.params, self.lines, self.counter = [], [], 0
        x = self.embed()
        for layer in range(layers):
            x = self.block(f"l{layer}", x)
        self.head(x)

    def param(self, name, ty, init, decay):
        self.params.append((name, ty, init, decay))
        return f"%{name}"

    def value(self):
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, line):
        self.lines.append("  " + line)

    def act(self):
        return t(self.b, self.tt, self.d)

    def flat(self, cols=None):
        return t(self.rows, cols or self.d)

    def embed(self):
        wte = self.param("wte", t(VOCAB, self.d), "glorot_uniform", True)
        wpe = self.param("wpe", t(self.tt, self.d), "glorot_uniform", True)
        tok, x = self.value(), self.value()
        self.emit(f"{tok} = tg.gather {wte}, %x : {t(VOCAB, self.d)}, "
                  f"{t(self.b, self.tt, element='i32')}")
        self.emit(f"{x} = tg.add {tok}, {wpe} : {self.act()}, "
                  f"{t(self.tt, self.d)}")
        return x

    def layer_norm(self, name, x):
        g = self.param(f"{name}_g", t(self.d), "ones", False)
        b = self.param(f"{name}_b", t(self.d), "zeros", False)
        y, mean, inv = self.value(), self.value(), self.value()
        self.emit(f"{y}, {mean}, {inv} = tg.layer_norm {x}, {g}, {b} : "
                  f"{self.act()}, {t(self.d)}")
        return y

    def reshape(self, x, src, dst):
        y = self.value()
        self.emit(f"{y} = tg.reshape {x} : {src} -> {dst}")
        return y

    def linear(self, name, x, cin, cout, bias=True):
        w = self.param(f"{name}_w", t(cin, cout), "glorot_uniform", True)
        y = self.value()
        self.emit(f"{y} = tg.matmul {x}, {w} : {self.flat(cin)}, "
                  f"{t(cin, cout)}")
        if not bias:
            return y
        b = self.param(f"{name}_b", t(cout), "zeros", False)
        z = self.value()
        self.emit(f"{z} = tg.bias_add {y}, {b} : {self.flat(cout)}, {t(cout)}")
        return z

    def heads(self, qkv, part):
        """Part `part` (0 q, 1 k, 2 v) of the fused projection as
        [batch, heads, context, head width]."""
        d, s = self.d, self.value()
        self.emit(f"{s} = tg.slice {qkv} {{offsets = array<i64: 0, "
                  f"{part * d}>, sizes = array<i64: {self.rows}, {d}>}} : "
                  f"{self.flat(3 * d)}")
        split = t(self.b, self.tt, self.h, self.dh)
        y = self.value()
        self.emit(f"{y} = tg.transpose "
                  f"{self.reshape(s, self.flat(), split)} "
                  f"{{perm = array<i64: 0, 2, 1, 3>}} : {split}")
        return y

    def attention(self, name, x):
        n = self.reshape(x, self.act(), self.flat())
        qkv = self.linear(f"{name}_qkv", n, self.d, 3 * self.d)
        q, k, v = (self.heads(qkv, part) for part in range(3))
        per_head = t(self.b, self.h, self.tt, self.dh)
        scores_type = t(self.b, self.h, self.tt, self.tt)
        scale, qs, s, p, o = (self.value() for _ in range(5))
        # Scaling q (context x head width) rather than the scores (context
        # squared) is less work and keeps the product's inputs small.
        self.emit(f"{scale} = arith.constant dense<{1 / math.sqrt(self.dh):.8e}>"
                  " : tensor<f32>")
        self.emit(f"{qs} = tg.mul {q}, {scale} : {per_head}, tensor<f32>")
        self.emit(f"{s} = tg.batch_matmul {qs}, {k} {{transpose_b = true}} : "
                  f"{per_head}, {per_head}")
        self.emit(f"{p} = tg.softmax {s} {{causal}} : {scores_type}")
        self.emit(f"{o} = tg.batch_matmul {p}, {v} : {scores_type}, "
                  f"{per_head}")
        merged = t(self.b, self.tt, self.h, self.dh)
        ot = self.value()
        self.emit(f"{ot} = tg.transpose {o} {{perm = array<i64: 0, 2, 1, 3>}} "
                  f": {per_head}")
        of = self.reshape(ot, merged, self.flat())
        out = self.linear(f"{name}_proj", of, self.d, self.d)
        return self.reshape(out, self.flat(), self.act())

    def mlp(self, name, x):
        n = self.reshape(x, self.act(), self.flat())
        up = self.linear(f"{name}_fc", n, self.d, 4 * self.d)
        g = self.value()
        self.emit(f"{g} = tg.gelu {up} : {self.flat(4 * self.d)}")
        down = self.linear(f"{name}_out", g, 4 * self.d, self.d)
        return self.reshape(down, self.flat(), self.act())

    def residual(self, x, y):
        z = self.value()
        self.emit(f"{z} = tg.add {x}, {y} : {self.act()}")
        return z

    def block(self, name, x):
        x = self.residual(x, self.attention(
            f"{name}_attn", self.layer_norm(f"{name}_ln1", x)))
        return self.residual(x, self.mlp(
            f"{name}_mlp", self.layer_norm(f"{name}_ln2", x)))

    def head(self, x):
        n = self.reshape(self.layer_norm("lnf", x), self.act(), self.flat())
        logits = self.linear("head", n, self.d, VOCAB, bias=False)
        self.emit(f"%ce = tg.softmax_cross_entropy {logits}, %y : "
                  f"{self.flat(VOCAB)}, {t(self.rows, element='i32')}")
        self.emit(f"%loss = tg.reduce_mean %ce {{dims = array<i64: 0>}} : "
                  f"{t(self.rows)}")

    def data_args(self):
        return [f'    %x: {t(self.b, self.tt, element="i32")} '
                '{tg.role = "input"}',
                f'    %y: {t(self.rows, element="i32")} {{tg.role = "label"}}']

    def train_step(self, weight_decay):
        n = len(self.params)
        types = ", ".join(ty for _, ty, _, _ in self.params)
        args = [f'    %{p}: {ty} {{tg.role = "param", tg.init = "{init}"}}'
                for p, ty, init, _ in self.params]
        for kind in ("m", "s"):
            args += [f'    %{kind}_{p}: {ty} {{tg.role = "opt_state"}}'
                     for p, ty, _, _ in self.params]
        args += ['    %step: tensor<i64> {tg.role = "opt_state"}']
        args += self.data_args() + ['    %lr: tensor<f32> {tg.role = "lr"}']
        results = [f'        {ty} {{tg.role = "param"}}'
                   for _, ty, _, _ in self.params]
        results += [f'        {ty} {{tg.role = "opt_state"}}'
                    for _ in ("m", "s") for _, ty, _, _ in self.params]
        results += ['        tensor<i64> {tg.role = "opt_state"}']
        names = ", ".join(f"%{p}" for p, _, _, _ in self.params)
        updates = []
        for i, (p, ty, _, decay) in enumerate(self.params):
            attrs = ("{beta1 = 0.9 : f64, beta2 = 0.95 : f64, epsilon = 1.0e-8 "
                     f": f64, weight_decay = {weight_decay if decay else 0.0} "
                     ": f64}")
            updates.append(f"  %n_{p}, %nm_{p}, %ns_{p} = tg.adam_update %{p}, "
                           f"%g#{i}, %m_{p}, %s_{p}, %t, %lr {attrs} : {ty}")
        outs = [f"%n_{p}" for p, _, _, _ in self.params]
        outs += [f"%n{kind}_{p}" for kind in ("m", "s")
                 for p, _, _, _ in self.params]
        return "\n".join([
            "func.func @train_step(", ",\n".join(args) + ")",
            '    -> (tensor<f32> {tg.role = "loss"},',
            ",\n".join(results) + ") {"] + self.lines + [
            f"  %g:{n} = tg.gradients %loss wrt {names}",
            f"      : tensor<f32>, {types}",
            "  %one = arith.constant dense<1> : tensor<i64>",
            "  %t = tg.add %step, %one : tensor<i64>"] + updates + [
            f"  return %loss, {', '.join(outs)}, %t",
            f"      : tensor<f32>, {types}, {types}, {types}, tensor<i64>",
            "}", ""])

    def predict(self):
        args = ",\n".join(f"    %{p}: {ty}" for p, ty, _, _ in self.params)
        return "\n".join([
            "func.func @predict(", args + ",", ",\n".join(self.data_args()) +
            ")", '    -> (tensor<f32> {tg.role = "loss"}) {'] + self.lines + [
            "  return %loss : tensor<f32>", "}", ""])


LIT_HEADER = """\
// A GPT-style character language model (bytes, width 256, 4 pre-LayerNorm
// blocks of 4-head causal attention and a GELU MLP, context 128) at batch
// 32, written forward-only with AdamW: generated by scripts/models/gpt.py
// (which says what it holds; test/Models/gpt-example-current.test keeps
// this file its output). amp-run trains it on text: --data=text.
//
// RUN: amp-opt %s --amp-pipeline | FileCheck %s
// RUN: amp-opt %s --amp-pipeline=precision=bf16 | FileCheck %s --check-prefix=BF16

// The products run in f16; the causal softmax keeps its mask (no -inf in
// the f16 data); the embeddings' scatter-add gradients and the loss stay
// f32, and every update is f32 behind the finite check.
// CHECK-LABEL: func.func @train_step
// CHECK-NOT: tg.gradients
// CHECK-DAG: tg.matmul {{.*}} : tensor<4096x256xf16>, tensor<256x768xf16>
// CHECK-DAG: tg.batch_matmul {{.*}} {transpose_b = true} : tensor<32x4x128x64xf16>{{$}}
// CHECK-DAG: tg.softmax {{.*}} {causal} : tensor<32x4x128x128x{{(f16|f32)}}>
// CHECK-DAG: tg.gather_grad {{.*}} {num_rows = 256 : i64} : tensor<32x128x256xf32>, tensor<32x128xi32>
// CHECK-DAG: tg.softmax_cross_entropy {{.*}} : tensor<4096x256xf32>, tensor<4096xi32>
// CHECK: amp.all_finite
// CHECK-COUNT-53: tg.adam_update {{.*}} : tensor<{{[0-9x]+}}xf32>
// CHECK: amp.update_scale
// CHECK-LABEL: func.func @predict
// CHECK: return {{.*}} : tensor<f32>

// BF16-LABEL: func.func @train_step
// BF16: tg.matmul {{.*}} : tensor<4096x256xbf16>, tensor<256x768xbf16>
// BF16-NOT: amp.update_scale

"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--weight-decay", type=float, default=0.1)
    parser.add_argument("--lit", action="store_true")
    args = parser.parse_args()
    if min(args.width, args.layers, args.heads, args.context, args.batch) < 1 \
            or not args.weight_decay >= 0:
        parser.error("sizes must be at least 1 and --weight-decay >= 0")
    try:
        model = Model(args.width, args.layers, args.heads, args.context,
                      args.batch)
    except ValueError as e:
        parser.error(str(e))
    text = (LIT_HEADER if args.lit else
            f"// Generated by scripts/models/gpt.py: width {args.width}, "
            f"{args.layers} layers, {args.heads} heads, context "
            f"{args.context}, batch {args.batch}.\n")
    write_text(args.out, text + model.train_step(args.weight_decay) + "\n" +
               model.predict())


if __name__ == "__main__":
    main()
