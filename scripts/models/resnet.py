#!/usr/bin/env python3
"""A ResNet training step for 28x28x1 images (Fashion-MNIST), NHWC, as tg IR:
conv 3x3 (1 -> W, stride 1), batch norm, ReLU; four stages of BasicBlocks
(conv 3x3, BN, ReLU, conv 3x3, BN, add, ReLU) with W, 2W, 4W and 8W
channels and strides 1, 2, 2, 2, a 1x1 conv + BN projection where the shape
changes; global average pool; linear to the classes; softmax cross-entropy;
SGD with momentum 0.9 and weight decay 5e-4 on every parameter (as
torch.optim.SGD(model.parameters(), momentum=0.9, weight_decay=5e-4)).
Convolutions feeding batch norm have no bias, as torchvision's. A @predict
gives the logits for amp-run's test accuracy; batch norm there uses each
batch's own statistics (amp's batch norm keeps no running averages).

The defaults are ResNet-18 (W 64, two blocks a stage) at batch 64:
python-bindings-free-examples/resnet18.mlir is this script's output.

usage: resnet.py OUT.mlir [--width=W] [--blocks=B1,B2,B3,B4] [--batch=N]
                 [--classes=C] [--lit]

--lit adds the example's header and RUN lines (resnet18.mlir has them).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "kit"))
from files import write_text  # noqa: E402

SIDE = 28
MOMENTUM = "{momentum = 0.9 : f64, weight_decay = 5.0e-4 : f64}"


def t(*dims):
    """An f32 tensor type of `dims`."""
    return f"tensor<{'x'.join(str(d) for d in dims)}xf32>"


def conv_out(side, stride):
    """A 3x3 (padding 1) or 1x1 (padding 0) convolution's output side."""
    return (side - 1) // stride + 1


class Model:
    """The parameters in order (name, type, initialiser) and the forward
    pass's lines, built once for both functions."""

    def __init__(self, width, blocks, batch, classes):
        self.batch, self.classes = batch, classes
        self.params, self.lines = [], []
        self.counter = 0
        x = self.stem(width)
        channels, side = width, SIDE
        for stage, count in enumerate(blocks):
            out = width * 2 ** stage
            stride = 1 if stage == 0 else 2
            for block in range(count):
                x, side = self.basic_block(
                    f"s{stage + 1}b{block + 1}", x, channels, out, side,
                    stride if block == 0 else 1)
                channels = out
        self.head(x, channels, side)

    def param(self, name, ty, init):
        self.params.append((name, ty, init))
        return f"%{name}"

    def value(self):
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, line):
        self.lines.append("  " + line)

    def act(self, channels, side):
        return t(self.batch, side, side, channels)

    def conv(self, name, x, cin, cout, side, stride, kernel):
        w = self.param(name, t(cout, kernel, kernel, cin), "he_normal")
        y = self.value()
        attrs = (["padding = array<i64: 1, 1, 1, 1>"] if kernel == 3 else [])
        if stride != 1:
            attrs.append(f"strides = array<i64: {stride}, {stride}>")
        self.emit(f"{y} = tg.conv2d {x}, {w} {{{', '.join(attrs)}}} : "
                  f"{self.act(cin, side)}, {t(cout, kernel, kernel, cin)}")
        return y, conv_out(side, stride)

    def batch_norm(self, name, x, channels, side):
        g = self.param(f"{name}_g", t(channels), "ones")
        b = self.param(f"{name}_b", t(channels), "zeros")
        y, mean, inv = self.value(), self.value(), self.value()
        self.emit(f"{y}, {mean}, {inv} = tg.batch_norm {x}, {g}, {b} : "
                  f"{self.act(channels, side)}, {t(channels)}")
        return y

    def relu(self, x, channels, side):
        y = self.value()
        self.emit(f"{y} = tg.relu {x} : {self.act(channels, side)}")
        return y

    def stem(self, width):
        y, _ = self.conv("stem_k", "%x", 1, width, SIDE, 1, 3)
        return self.relu(self.batch_norm("stem_bn", y, width, SIDE), width,
                         SIDE)

    def basic_block(self, name, x, cin, cout, side, stride):
        y, out_side = self.conv(f"{name}_k1", x, cin, cout, side, stride, 3)
        y = self.relu(self.batch_norm(f"{name}_bn1", y, cout, out_side), cout,
                      out_side)
        y, _ = self.conv(f"{name}_k2", y, cout, cout, out_side, 1, 3)
        y = self.batch_norm(f"{name}_bn2", y, cout, out_side)
        shortcut = x
        if stride != 1 or cin != cout:
            shortcut, _ = self.conv(f"{name}_kp", x, cin, cout, side, stride, 1)
            shortcut = self.batch_norm(f"{name}_bnp", shortcut, cout, out_side)
        s = self.value()
        self.emit(f"{s} = tg.add {y}, {shortcut} : "
                  f"{self.act(cout, out_side)}")
        return self.relu(s, cout, out_side), out_side

    def head(self, x, channels, side):
        pooled = self.value()
        self.emit(f"{pooled} = tg.reduce_mean {x} "
                  "{dims = array<i64: 1, 2>} : "
                  f"{self.act(channels, side)}")
        w = self.param("fc_w", t(channels, self.classes), "glorot_uniform")
        b = self.param("fc_b", t(self.classes), "zeros")
        z = self.value()
        self.emit(f"{z} = tg.matmul {pooled}, {w} : "
                  f"{t(self.batch, channels)}, {t(channels, self.classes)}")
        self.emit(f"%logits = tg.bias_add {z}, {b} : "
                  f"{t(self.batch, self.classes)}, {t(self.classes)}")

    def train_step(self):
        n = len(self.params)
        types = ", ".join(ty for _, ty, _ in self.params)
        args = [f'    %{p}: {ty} {{tg.role = "param", tg.init = "{init}"}}'
                for p, ty, init in self.params]
        args += [f'    %m_{p}: {ty} {{tg.role = "opt_state"}}'
                 for p, ty, _ in self.params]
        args += [f'    %x: {self.act(1, SIDE)} {{tg.role = "input"}}',
                 f'    %y: tensor<{self.batch}xi32> {{tg.role = "label"}}',
                 '    %lr: tensor<f32> {tg.role = "lr"}']
        results = [f'        {ty} {{tg.role = "param"}}'
                   for _, ty, _ in self.params]
        results += [f'        {ty} {{tg.role = "opt_state"}}'
                    for _, ty, _ in self.params]
        names = ", ".join(f"%{p}" for p, _, _ in self.params)
        updates = [f"  %n_{p}, %nm_{p} = tg.momentum_update %{p}, %g#{i}, "
                   f"%m_{p}, %lr {MOMENTUM} : {ty}"
                   for i, (p, ty, _) in enumerate(self.params)]
        outs = [f"%n_{p}" for p, _, _ in self.params]
        outs += [f"%nm_{p}" for p, _, _ in self.params]
        logits = t(self.batch, self.classes)
        return "\n".join([
            "func.func @train_step(", ",\n".join(args) + ")",
            '    -> (tensor<f32> {tg.role = "loss"},',
            ",\n".join(results) + ") {"] + self.lines + [
            f"  %ce = tg.softmax_cross_entropy %logits, %y : {logits}, "
            f"tensor<{self.batch}xi32>",
            "  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : "
            f"{t(self.batch)}",
            f"  %g:{n} = tg.gradients %loss wrt {names}",
            f"      : tensor<f32>, {types}"] + updates + [
            f"  return %loss, {', '.join(outs)}",
            f"      : tensor<f32>, {types}, {types}", "}", ""])

    def predict(self):
        args = ", ".join(f"%{p}: {ty}" for p, ty, _ in self.params)
        return "\n".join([
            f"func.func @predict({args}, "
            f'%x: {self.act(1, SIDE)} {{tg.role = "input"}}) -> '
            f'({t(self.batch, self.classes)} {{tg.role = "logits"}}) {{']
            + self.lines + [
            f"  return %logits : {t(self.batch, self.classes)}", "}", ""])


LIT_HEADER = """\
// ResNet-18 for Fashion-MNIST (28x28x1, NHWC) at batch 64, written
// forward-only: generated by scripts/models/resnet.py (which says what it
// holds; test/Models/resnet-example-current.test keeps this file its
// output). 11.2M parameters, SGD with momentum 0.9 and weight decay 5e-4.
//
// RUN: amp-opt %s --amp-pipeline | FileCheck %s
// RUN: amp-opt %s --amp-pipeline=precision=bf16 | FileCheck %s --check-prefix=BF16

// Every convolution and its backward ops run in f16, batch norm keeps its
// statistics in f32, and the updates stay f32 behind the finite check.
// CHECK-LABEL: func.func @train_step
// CHECK-NOT: tg.gradients
// CHECK-DAG: tg.conv2d {{.*}} : tensor<64x28x28x1xf16>, tensor<64x3x3x1xf16>
// CHECK-DAG: tg.conv2d {{.*}} {strides = array<i64: 2, 2>} : tensor<64x28x28x64xf16>, tensor<128x1x1x64xf16>
// CHECK-DAG: tg.conv2d_backward_filter {{.*}} -> tensor<512x3x3x512xf16>
// CHECK-DAG: tg.batch_norm {{.*}} : tensor<64x4x4x512xf16>, tensor<512xf32>
// CHECK: amp.all_finite
// CHECK-COUNT-62: tg.momentum_update {{.*}}weight_decay = 5.000000e-04 : f64} : tensor<{{[0-9x]+}}xf32>
// CHECK: amp.update_scale
// CHECK-LABEL: func.func @predict
// CHECK: return {{.*}} : tensor<64x10xf32>

// BF16-LABEL: func.func @train_step
// BF16: tg.conv2d {{.*}} : tensor<64x28x28x1xbf16>, tensor<64x3x3x1xbf16>
// BF16-NOT: amp.update_scale

"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--blocks", default="2,2,2,2")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--lit", action="store_true")
    args = parser.parse_args()
    try:
        blocks = [int(b) for b in args.blocks.split(",")]
    except ValueError:
        parser.error(f"--blocks: expected four counts like 2,2,2,2, got "
                     f"'{args.blocks}'")
    if len(blocks) != 4 or min(blocks) < 1 or args.width < 1 \
            or args.batch < 1 or args.classes < 2:
        parser.error("--blocks needs four counts >= 1; --width and --batch "
                     "at least 1; --classes at least 2")
    model = Model(args.width, blocks, args.batch, args.classes)
    text = (LIT_HEADER if args.lit else
            f"// Generated by scripts/models/resnet.py: width {args.width}, "
            f"blocks {args.blocks}, batch {args.batch}.\n")
    write_text(args.out, text + model.train_step() + "\n" + model.predict())


if __name__ == "__main__":
    main()
