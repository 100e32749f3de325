#!/usr/bin/env python3
"""Emits the forward pass of a real model as other front ends hand it to amp.

usage: generate_model.py MODEL DIALECT [--batch N] [--weights args|constants|resources]
                         [--width W] [--seed S] [-o FILE]

MODEL:   resnet18 or resnet50 (ImageNet, 224x224) or bert-base (one encoder
         layer, sequence 128, hidden 768, 12 heads, FFN 3072).
DIALECT: linalg - the form torch-mlir's linalg-on-tensors output takes:
                  NCHW, dynamic batch, tensor.pad + linalg.conv_2d_nchw_fchw
                  into linalg.fill, batch norm / relu / residuals / softmax /
                  layer norm / GELU as linalg.generic with their bodies,
                  tensor.expand_shape / collapse_shape, linalg.transpose,
                  linalg.matmul and batch_matmul;
         tosa   - TOSA as torch or TFLite export emits it: NHWC, static
                  batch, tosa.conv2d with bias and zero points, clamp for
                  relu, pooling, tosa.matmul on rank-3 tensors, reshape and
                  transpose, decomposed softmax / layer norm / GELU.
--batch: the batch size; for linalg, 0 (the default) makes it dynamic.
--weights: args (default: every parameter is a function argument),
         constants (dense constants in the IR) or resources (dense_resource
         blobs, as torch-mlir stores trained weights); constants are drawn
         from N(0, std) with He / BERT scales, with about 1% exact zeros and
         0.1% values below f16's smallest normal.
--width: scales the ResNets' channel counts (1 = the real model), for
         small test models with the same structure.
"""
import argparse
import array
import math
import random
import sys


class Emitter:
    """SSA names, lines and the function's parameters."""

    def __init__(self, weights, seed):
        self.lines = []
        self.params = []  # (name, type)
        self.counter = 0
        self.weights = weights
        self.rng = random.Random(seed)
        self.consts = {}
        self.blobs = []  # (name, hex) of dense_resource weights

    def fresh(self, hint="v"):
        self.counter += 1
        return f"%{hint}{self.counter}"

    def emit(self, line):
        self.lines.append("  " + line)

    def op(self, text, hint="v"):
        name = self.fresh(hint)
        self.emit(f"{name} = {text}")
        return name

    def param(self, shape, std, hint="p", kind="weight"):
        """A parameter of `shape`: an argument, or a constant (dense or a
        dense_resource blob) of trained-like values."""
        ty = tensor(shape)
        if self.weights == "args":
            name = f"%{hint}{len(self.params)}"
            self.params.append((name, ty))
            return name
        n = 1
        for d in shape:
            n *= d
        data = self.sample(n, std, kind).tobytes().hex().upper()
        if self.weights == "resources":
            blob = f"{hint}_{len(self.blobs)}"
            # A blob starts with its alignment (4 bytes, little-endian).
            self.blobs.append((blob, "04000000" + data))
            return self.op(f"arith.constant dense_resource<{blob}> : {ty}", hint)
        return self.op(f'arith.constant dense<"0x{data}"> : {ty}', hint)

    def sample(self, n, std, kind):
        """n values like trained weights: N(0, std) with about 1% exact
        zeros and 0.1% magnitudes below f16's smallest normal; scales near
        1 and positive variances for normalisation parameters."""
        gauss = self.rng.gauss
        if kind == "ones":
            return array.array("f", [1.0 + gauss(0, 0.02) for _ in range(n)])
        if kind == "var":
            return array.array("f", [abs(gauss(1.0, 0.2)) + 1e-3
                                     for _ in range(n)])
        values = array.array("f", [gauss(0.0, std) for _ in range(n)])
        for i in self.rng.sample(range(n), n // 100):
            values[i] = 0.0
        for i in self.rng.sample(range(n), n // 1000):
            values[i] = self.rng.choice((-1, 1)) * self.rng.uniform(1e-8, 6e-5)
        return values

    def scalar(self, value, ty="f32"):
        key = (value, ty)
        if key not in self.consts:
            self.consts[key] = self.op(f"arith.constant {fmt(value)} : {ty}",
                                       "cst")
        return self.consts[key]


def fmt(value):
    if value == float("-inf"):
        return "0xFF800000"
    return repr(float(value)) if abs(value) >= 1e-3 or value == 0 else f"{value:e}"


def tensor(shape, elem="f32"):
    # A dynamic dimension is the name of the SSA value that holds it.
    return "tensor<" + "x".join("?" if isinstance(d, str) else str(d)
                                for d in shape) + \
        ("x" if shape else "") + elem + ">"


def affine(rank, dims):
    ds = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({ds}) -> ({', '.join(f'd{i}' for i in dims)})>"


# ----------------------------------------------------------------------------
# linalg-on-tensors (torch-mlir's form)
# ----------------------------------------------------------------------------


class Linalg(Emitter):
    def __init__(self, weights, seed, batch):
        super().__init__(weights, seed)
        # A dynamic batch is the SSA value that holds it.
        self.batch = batch or "%n"

    def empty(self, shape):
        dyn = [d for d in shape if isinstance(d, str)]
        return self.op(f"tensor.empty({', '.join(dyn)}) : {tensor(shape)}", "e")

    def dynamic(self):
        return isinstance(self.batch, str)

    def output_shape(self, shape):
        return "output_shape [" + ", ".join(str(d) for d in shape) + "]"

    def filled(self, shape, value):
        e = self.empty(shape)
        c = self.scalar(value)
        return self.op(f"linalg.fill ins({c} : f32) outs({e} : {tensor(shape)}) "
                       f"-> {tensor(shape)}", "f")

    def generic(self, ins, out_shape, body, maps, iterators, init=None):
        """ins: [(value, shape, dims)], body: lines using %a0.. and %out."""
        rank = len(iterators)
        out = init or self.empty(out_shape)
        in_list = ", ".join(v for v, _, _ in ins)
        in_types = ", ".join(tensor(s) for _, s, _ in ins)
        indexing = ", ".join([affine(rank, d) for _, _, d in ins] +
                             [affine(rank, maps)])
        its = ", ".join(f'"{i}"' for i in iterators)
        name = self.fresh("g")
        ins_clause = f"ins({in_list} : {in_types}) " if ins else ""
        self.emit(f"{name} = linalg.generic {{indexing_maps = [{indexing}], "
                  f"iterator_types = [{its}]}} {ins_clause}"
                  f"outs({out} : {tensor(out_shape)}) {{")
        args = ", ".join([f"%a{i}: f32" for i in range(len(ins))] + ["%out: f32"])
        self.emit(f"^bb0({args}):")
        for line in body:
            self.emit("  " + line)
        self.emit(f"}} -> {tensor(out_shape)}")
        return name

    def elementwise(self, ins, shape, body):
        rank = len(shape)
        return self.generic([(v, s, d) for v, s, d in ins], shape, body,
                            list(range(rank)), ["parallel"] * rank)


RESNETS = {"resnet18": ([2, 2, 2, 2], False), "resnet50": ([3, 4, 6, 3], True)}


def residual_stages(e, x, shape, channel_dim, conv, batch_norm, relu, add):
    """ResNet's four stages: basic blocks (ResNet-18) or bottlenecks
    (ResNet-50, 4x expansion); returns the output and its shape."""
    blocks, bottleneck = RESNETS[e.model]
    for stage, base in enumerate((64, 128, 256, 512)):
        width = e.width(base)
        cout = width * 4 if bottleneck else width
        for block in range(blocks[stage]):
            stride = 2 if stage > 0 and block == 0 else 1
            if bottleneck:
                y, ys = conv(x, shape, width, 1, 1, 0)
                y = relu(batch_norm(y, ys), ys)
                y, ys = conv(y, ys, width, 3, stride, 1)
                y = relu(batch_norm(y, ys), ys)
                y, ys = conv(y, ys, cout, 1, 1, 0)
            else:
                y, ys = conv(x, shape, cout, 3, stride, 1)
                y = relu(batch_norm(y, ys), ys)
                y, ys = conv(y, ys, cout, 3, 1, 1)
            y = batch_norm(y, ys)
            if stride != 1 or shape[channel_dim] != cout:
                x, shape = conv(x, shape, cout, 1, stride, 0)
                x = batch_norm(x, shape)
            x = relu(add(y, x, ys), ys)
            shape = ys
    return x, shape


def linalg_resnet(e):
    n = e.batch
    x = "%input"
    shape = [n, 3, 224, 224]
    if e.dynamic():
        e.emit(f"%n = tensor.dim {x}, {e.op('arith.constant 0 : index', 'c')} : "
               f"{tensor(shape)}")
    zero = e.scalar(0.0)

    def conv(x, shape, cout, k, stride, pad):
        cin = shape[1]
        w = e.param([cout, cin, k, k], math.sqrt(2.0 / (cin * k * k)), "w")
        if pad:
            padded = [shape[0], cin, shape[2] + 2 * pad, shape[3] + 2 * pad]
            p = e.fresh("pad")
            e.emit(f"{p} = tensor.pad {x} low[0, 0, {pad}, {pad}] "
                   f"high[0, 0, {pad}, {pad}] {{")
            e.emit("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
            e.emit(f"  tensor.yield {zero} : f32")
            e.emit(f"}} : {tensor(shape)} to {tensor(padded)}")
            x, shape = p, padded
        ho = (shape[2] - k) // stride + 1
        out = [shape[0], cout, ho, ho]
        init = e.filled(out, 0.0)
        c = e.op(f"linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, "
                 f"strides = dense<{stride}> : tensor<2xi64>}} ins({x}, {w} : "
                 f"{tensor(shape)}, {tensor([cout, cin, k, k])}) outs({init} : "
                 f"{tensor(out)}) -> {tensor(out)}", "conv")
        return c, out

    def batch_norm(x, shape):
        c = shape[1]
        ps = [e.param([c], 0.1, "bn", kind) for kind in
              ("weight", "var", "ones", "weight")]  # mean, var, gamma, beta
        eps = e.scalar(1e-5)
        chan = [1]
        return e.elementwise(
            [(x, shape, [0, 1, 2, 3])] + [(p, [c], chan) for p in ps], shape,
            [f"%s = arith.subf %a0, %a1 : f32",
             f"%v = arith.addf %a2, {eps} : f32",
             "%r = math.sqrt %v : f32",
             "%d = arith.divf %s, %r : f32",
             "%m = arith.mulf %d, %a3 : f32",
             "%y = arith.addf %m, %a4 : f32",
             "linalg.yield %y : f32"])

    def relu(x, shape):
        return e.elementwise([(x, shape, list(range(len(shape))))], shape,
                             [f"%y = arith.maximumf %a0, {zero} : f32",
                              "linalg.yield %y : f32"])

    def add(a, b, shape):
        ids = list(range(len(shape)))
        return e.elementwise([(a, shape, ids), (b, shape, ids)], shape,
                             ["%y = arith.addf %a0, %a1 : f32",
                              "linalg.yield %y : f32"])

    stem = e.width(64)
    x, shape = conv(x, shape, stem, 7, 2, 3)
    x = relu(batch_norm(x, shape), shape)
    # Max pool 3x3 / 2, padding 1 with -inf.
    ninf = e.scalar(float("-inf"))
    padded = [shape[0], stem, shape[2] + 2, shape[3] + 2]
    p = e.fresh("pad")
    e.emit(f"{p} = tensor.pad {x} low[0, 0, 1, 1] high[0, 0, 1, 1] {{")
    e.emit("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
    e.emit(f"  tensor.yield {ninf} : f32")
    e.emit(f"}} : {tensor(shape)} to {tensor(padded)}")
    out = [shape[0], stem, 56, 56]
    init = e.filled(out, float("-inf"))
    win = e.op(f"tensor.empty() : {tensor([3, 3])}", "win")
    x = e.op(f"linalg.pooling_nchw_max {{dilations = dense<1> : tensor<2xi64>, "
             f"strides = dense<2> : tensor<2xi64>}} ins({p}, {win} : "
             f"{tensor(padded)}, {tensor([3, 3])}) outs({init} : {tensor(out)}) "
             f"-> {tensor(out)}", "pool")
    shape = out
    x, shape = residual_stages(e, x, shape, 1, conv, batch_norm, relu, add)
    # Global average pool: a 7x7 sum window, then a division.
    features = shape[1]
    out = [shape[0], features, 1, 1]
    init = e.filled(out, 0.0)
    win = e.op(f"tensor.empty() : {tensor([7, 7])}", "win")
    s = e.op(f"linalg.pooling_nchw_sum {{dilations = dense<1> : tensor<2xi64>, "
             f"strides = dense<1> : tensor<2xi64>}} ins({x}, {win} : "
             f"{tensor(shape)}, {tensor([7, 7])}) outs({init} : {tensor(out)}) "
             f"-> {tensor(out)}", "sum")
    d = e.scalar(49.0)
    avg = e.elementwise([(s, out, [0, 1, 2, 3])], out,
                        [f"%y = arith.divf %a0, {d} : f32", "linalg.yield %y : f32"])
    flat = e.op(f"tensor.collapse_shape {avg} [[0], [1, 2, 3]] : {tensor(out)} "
                f"into {tensor([shape[0], features])}", "flat")
    w = e.param([1000, features], math.sqrt(1.0 / features), "fc")
    b = e.param([1000], 0.01, "fcb")
    wt_init = e.empty([features, 1000])
    wt = e.op(f"linalg.transpose ins({w} : {tensor([1000, features])}) outs({wt_init} : "
              f"{tensor([features, 1000])}) permutation = [1, 0]", "wt")
    init = e.filled([shape[0], 1000], 0.0)
    m = e.op(f"linalg.matmul ins({flat}, {wt} : {tensor([shape[0], features])}, "
             f"{tensor([features, 1000])}) outs({init} : {tensor([shape[0], 1000])}) "
             f"-> {tensor([shape[0], 1000])}", "fc")
    logits = e.elementwise([(m, [shape[0], 1000], [0, 1]), (b, [1000], [1])],
                           [shape[0], 1000],
                           ["%y = arith.addf %a0, %a1 : f32", "linalg.yield %y : f32"])
    return [("%input", tensor([n, 3, 224, 224]))], logits, tensor([n, 1000])


def linalg_bert(e):
    n, s, h, heads, dh, ff = e.batch, 128, 768, 12, 64, 3072
    x = "%hidden"
    xs = [n, s, h]
    if e.dynamic():
        e.emit(f"%n = tensor.dim {x}, {e.op('arith.constant 0 : index', 'c')} : "
               f"{tensor(xs)}")
        e.emit(f"%rows = arith.muli %n, {e.op('arith.constant 128 : index', 'c')} "
               f": index")
        e.emit(f"%bh = arith.muli %n, {e.op('arith.constant 12 : index', 'c')} "
               f": index")
        rows, bh = "%rows", "%bh"
    else:
        rows, bh = n * s, n * heads
    std = 0.02

    def ew(ins, shape, body):
        return e.elementwise(ins, shape, body)

    def reduce_last(x2, shape, init_value, body):
        init = e.filled(shape[:-1], init_value)
        rank = len(shape)
        return e.generic([(x2, shape, list(range(rank)))], shape[:-1], body,
                         list(range(rank - 1)),
                         ["parallel"] * (rank - 1) + ["reduction"], init=init)

    def linear(x2, k, m):
        """x2: [rows, k] -> [rows, m], torch's W[m, k] transposed."""
        w = e.param([m, k], std, "w")
        b = e.param([m], std, "b")
        wt_init = e.empty([k, m])
        wt = e.op(f"linalg.transpose ins({w} : {tensor([m, k])}) outs({wt_init} : "
                  f"{tensor([k, m])}) permutation = [1, 0]", "wt")
        init = e.filled([rows, m], 0.0)
        y = e.op(f"linalg.matmul ins({x2}, {wt} : {tensor([rows, k])}, "
                 f"{tensor([k, m])}) outs({init} : {tensor([rows, m])}) -> "
                 f"{tensor([rows, m])}", "mm")
        return ew([(y, [rows, m], [0, 1]), (b, [m], [1])], [rows, m],
                  ["%y = arith.addf %a0, %a1 : f32", "linalg.yield %y : f32"])

    def layer_norm(x2):
        gamma = e.param([h], std, "g", "ones")
        beta = e.param([h], std, "be")
        total = reduce_last(x2, [rows, h], 0.0,
                            ["%y = arith.addf %a0, %out : f32",
                             "linalg.yield %y : f32"])
        inv_h = e.scalar(1.0 / h)
        centered = ew([(x2, [rows, h], [0, 1]), (total, [rows], [0])], [rows, h],
                      [f"%m = arith.mulf %a1, {inv_h} : f32",
                       "%y = arith.subf %a0, %m : f32", "linalg.yield %y : f32"])
        sq = reduce_last(centered, [rows, h], 0.0,
                         ["%q = arith.mulf %a0, %a0 : f32",
                          "%y = arith.addf %q, %out : f32",
                          "linalg.yield %y : f32"])
        eps = e.scalar(1e-12)
        return ew([(centered, [rows, h], [0, 1]), (sq, [rows], [0]),
                   (gamma, [h], [1]), (beta, [h], [1])], [rows, h],
                  [f"%v = arith.mulf %a1, {inv_h} : f32",
                   f"%ve = arith.addf %v, {eps} : f32",
                   "%r = math.rsqrt %ve : f32",
                   "%nm = arith.mulf %a0, %r : f32",
                   "%g = arith.mulf %nm, %a2 : f32",
                   "%y = arith.addf %g, %a3 : f32", "linalg.yield %y : f32"])

    def heads_view(t2, transpose_kt=False):
        """[rows, h] -> [n*heads, s, dh] (or [n*heads, dh, s] for K^T)."""
        four = [n, s, heads, dh]
        ex = e.op(f"tensor.expand_shape {t2} [[0, 1], [2, 3]] "
                  f"{e.output_shape(four)} : {tensor([rows, h])} into "
                  f"{tensor(four)}", "ex")
        perm = [0, 2, 3, 1] if transpose_kt else [0, 2, 1, 3]
        tshape = [four[p] for p in perm]
        init = e.empty(tshape)
        tr = e.op(f"linalg.transpose ins({ex} : {tensor(four)}) outs({init} : "
                  f"{tensor(tshape)}) permutation = [{', '.join(map(str, perm))}]",
                  "tr")
        return e.op(f"tensor.collapse_shape {tr} [[0, 1], [2], [3]] : "
                    f"{tensor(tshape)} into {tensor([bh] + tshape[2:])}", "hv")

    x2 = e.op(f"tensor.collapse_shape {x} [[0, 1], [2]] : {tensor(xs)} into "
              f"{tensor([rows, h])}", "x2")
    q = heads_view(linear(x2, h, h))
    k = heads_view(linear(x2, h, h), transpose_kt=True)
    v = heads_view(linear(x2, h, h))
    init = e.filled([bh, s, s], 0.0)
    scores = e.op(f"linalg.batch_matmul ins({q}, {k} : {tensor([bh, s, dh])}, "
                  f"{tensor([bh, dh, s])}) outs({init} : {tensor([bh, s, s])}) -> "
                  f"{tensor([bh, s, s])}", "qk")
    scale = e.scalar(1.0 / math.sqrt(dh))
    scaled = ew([(scores, [bh, s, s], [0, 1, 2]), ("%mask", [s], [2])],
                [bh, s, s],
                [f"%m = arith.mulf %a0, {scale} : f32",
                 "%y = arith.addf %m, %a1 : f32", "linalg.yield %y : f32"])
    # Softmax as torch-mlir decomposes it.
    mx = reduce_last(scaled, [bh, s, s], float("-inf"),
                     ["%y = arith.maximumf %a0, %out : f32",
                      "linalg.yield %y : f32"])
    ex = ew([(scaled, [bh, s, s], [0, 1, 2]), (mx, [bh, s], [0, 1])],
            [bh, s, s],
            ["%d = arith.subf %a0, %a1 : f32", "%y = math.exp %d : f32",
             "linalg.yield %y : f32"])
    sm = reduce_last(ex, [bh, s, s], 0.0,
                     ["%y = arith.addf %a0, %out : f32", "linalg.yield %y : f32"])
    probs = ew([(ex, [bh, s, s], [0, 1, 2]), (sm, [bh, s], [0, 1])],
               [bh, s, s],
               ["%y = arith.divf %a0, %a1 : f32", "linalg.yield %y : f32"])
    init = e.filled([bh, s, dh], 0.0)
    ctx = e.op(f"linalg.batch_matmul ins({probs}, {v} : {tensor([bh, s, s])}, "
               f"{tensor([bh, s, dh])}) outs({init} : {tensor([bh, s, dh])}) -> "
               f"{tensor([bh, s, dh])}", "ctx")
    c4 = e.op(f"tensor.expand_shape {ctx} [[0, 1], [2], [3]] "
              f"{e.output_shape([n, heads, s, dh])} : {tensor([bh, s, dh])} into "
              f"{tensor([n, heads, s, dh])}", "c4")
    tinit = e.empty([n, s, heads, dh])
    ct = e.op(f"linalg.transpose ins({c4} : {tensor([n, heads, s, dh])}) outs({tinit} "
              f": {tensor([n, s, heads, dh])}) permutation = [0, 2, 1, 3]", "ct")
    c2 = e.op(f"tensor.collapse_shape {ct} [[0, 1], [2, 3]] : "
              f"{tensor([n, s, heads, dh])} into {tensor([rows, h])}", "c2")
    attn = linear(c2, h, h)
    res = ew([(attn, [rows, h], [0, 1]), (x2, [rows, h], [0, 1])], [rows, h],
             ["%y = arith.addf %a0, %a1 : f32", "linalg.yield %y : f32"])
    h1 = layer_norm(res)
    up = linear(h1, h, ff)
    half, one, rsqrt2 = e.scalar(0.5), e.scalar(1.0), e.scalar(1 / math.sqrt(2))
    gelu = ew([(up, [rows, ff], [0, 1])], [rows, ff],
              [f"%s = arith.mulf %a0, {rsqrt2} : f32", "%r = math.erf %s : f32",
               f"%p = arith.addf %r, {one} : f32", "%m = arith.mulf %a0, %p : f32",
               f"%y = arith.mulf %m, {half} : f32", "linalg.yield %y : f32"])
    down = linear(gelu, ff, h)
    res2 = ew([(down, [rows, h], [0, 1]), (h1, [rows, h], [0, 1])], [rows, h],
              ["%y = arith.addf %a0, %a1 : f32", "linalg.yield %y : f32"])
    out2 = layer_norm(res2)
    out = e.op(f"tensor.expand_shape {out2} [[0, 1], [2]] {e.output_shape(xs)} : "
               f"{tensor([rows, h])} into {tensor(xs)}", "out")
    return ([("%hidden", tensor(xs)), ("%mask", tensor([s]))], out, tensor(xs))


# ----------------------------------------------------------------------------
# TOSA
# ----------------------------------------------------------------------------


class Tosa(Emitter):
    def __init__(self, weights, seed, batch):
        super().__init__(weights, seed)
        self.batch = batch or 1
        self.shared = {}

    def const(self, shape, value):
        key = (tuple(shape), value)
        if key not in self.shared:
            self.shared[key] = self.op(
                f'"tosa.const"() <{{values = dense<{fmt(value)}> : {tensor(shape)}}}> '
                f": () -> {tensor(shape)}", "k")
        return self.shared[key]

    def shape_const(self, dims):
        key = ("shape", tuple(dims))
        if key not in self.shared:
            self.shared[key] = self.op(
                f"tosa.const_shape {{values = dense<[{', '.join(map(str, dims))}]> : "
                f"tensor<{len(dims)}xindex>}} : () -> !tosa.shape<{len(dims)}>", "sh")
        return self.shared[key]

    def shift(self):
        key = ("shift",)
        if key not in self.shared:
            self.shared[key] = self.op(
                '"tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> '
                "tensor<1xi8>", "k")
        return self.shared[key]

    def binary(self, opname, a, sa, b, sb, out):
        extra = f", {self.shift()}" if opname == "mul" else ""
        extra_t = ", tensor<1xi8>" if opname == "mul" else ""
        return self.op(f"tosa.{opname} {a}, {b}{extra} : ({tensor(sa)}, {tensor(sb)}"
                       f"{extra_t}) -> {tensor(out)}", opname)

    def unary(self, opname, a, shape):
        return self.op(f"tosa.{opname} {a} : ({tensor(shape)}) -> {tensor(shape)}",
                       opname)

    def reshape(self, a, sa, sb):
        return self.op(f"tosa.reshape {a}, {self.shape_const(sb)} : ({tensor(sa)}, "
                       f"!tosa.shape<{len(sb)}>) -> {tensor(sb)}", "rs")

    def transpose(self, a, sa, perm):
        sb = [sa[p] for p in perm]
        return self.op(f"tosa.transpose {a} {{perms = array<i32: "
                       f"{', '.join(map(str, perm))}>}} : ({tensor(sa)}) -> "
                       f"{tensor(sb)}", "tr"), sb

    def matmul(self, a, sa, b, sb):
        zp = self.const([1], 0.0)
        out = [sa[0], sa[1], sb[2]]
        return self.op(f"tosa.matmul {a}, {b}, {zp}, {zp} : ({tensor(sa)}, "
                       f"{tensor(sb)}, tensor<1xf32>, tensor<1xf32>) -> "
                       f"{tensor(out)}", "mm"), out

    def reduce(self, opname, a, sa, axis):
        sb = list(sa)
        sb[axis] = 1
        return self.op(f"tosa.reduce_{opname} {a} {{axis = {axis} : i32}} : "
                       f"({tensor(sa)}) -> {tensor(sb)}", "red"), sb


def asymmetric_padding(size, k, stride, pad):
    """(low, high) padding whose window steps tile the input exactly; a
    negative high means the input must be cropped by that much."""
    high = pad
    while (size - 1 + pad + high - (k - 1)) % stride:
        high -= 1
    return pad, high


def tosa_resnet(e):
    n = e.batch
    x = "%input"
    shape = [n, 224, 224, 3]

    def conv(x, shape, cout, k, stride, pad):
        cin = shape[3]
        w = e.param([cout, k, k, cin], math.sqrt(2.0 / (cin * k * k)), "w")
        b = e.const([cout], 0.0)
        zp = e.const([1], 0.0)
        ho = (shape[1] + 2 * pad - k) // stride + 1
        out = [n, ho, ho, cout]
        # TOSA wants the window to tile the padded input exactly, as
        # exporters arrange: less padding at the bottom and right, or a
        # cropped input where even no padding leaves a remainder.
        low, high = asymmetric_padding(shape[1], k, stride, pad)
        if high < 0:
            crop = shape[1] + high
            x = e.op(f"tosa.slice {x}, {e.shape_const([0, 0, 0, 0])}, "
                     f"{e.shape_const([n, crop, crop, cin])} : ({tensor(shape)}, "
                     f"!tosa.shape<4>, !tosa.shape<4>) -> "
                     f"{tensor([n, crop, crop, cin])}", "crop")
            shape, high = [n, crop, crop, cin], 0
        return e.op(f"tosa.conv2d {x}, {w}, {b}, {zp}, {zp} {{acc_type = f32, "
                    f"dilation = array<i64: 1, 1>, pad = array<i64: {low}, {high}, "
                    f"{low}, {high}>, stride = array<i64: {stride}, {stride}>}} : "
                    f"({tensor(shape)}, {tensor([cout, k, k, cin])}, "
                    f"{tensor([cout])}, tensor<1xf32>, tensor<1xf32>) -> "
                    f"{tensor(out)}", "conv"), out

    def batch_norm(x, shape):
        c = shape[3]
        scale = e.param([1, 1, 1, c], 0.1, "bns", "ones")
        shift = e.param([1, 1, 1, c], 0.1, "bnb")
        y = e.binary("mul", x, shape, scale, [1, 1, 1, c], shape)
        return e.binary("add", y, shape, shift, [1, 1, 1, c], shape)

    def relu(x, shape):
        return e.op(f"tosa.clamp {x} {{max_val = 3.40282347E+38 : f32, "
                    f"min_val = 0.0 : f32}} : ({tensor(shape)}) -> {tensor(shape)}",
                    "relu")

    stem = e.width(64)
    x, shape = conv(x, shape, stem, 7, 2, 3)
    x = relu(batch_norm(x, shape), shape)
    out = [n, 56, 56, stem]
    low, high = asymmetric_padding(shape[1], 3, 2, 1)
    x = e.op(f"tosa.max_pool2d {x} {{kernel = array<i64: 3, 3>, pad = array<i64: "
             f"{low}, {high}, {low}, {high}>, stride = array<i64: 2, 2>}} : "
             f"({tensor(shape)}) -> "
             f"{tensor(out)}", "pool")
    shape = out
    x, shape = residual_stages(
        e, x, shape, 3, conv, batch_norm, relu,
        lambda a, b, sh: e.binary("add", a, sh, b, sh, sh))
    zp = e.const([1], 0.0)
    features = shape[3]
    out = [n, 1, 1, features]
    avg = e.op(f"tosa.avg_pool2d {x}, {zp}, {zp} {{acc_type = f32, kernel = "
               f"array<i64: 7, 7>, pad = array<i64: 0, 0, 0, 0>, stride = "
               f"array<i64: 1, 1>}} : ({tensor(shape)}, tensor<1xf32>, "
               f"tensor<1xf32>) -> {tensor(out)}", "avg")
    flat = e.reshape(avg, out, [1, n, features])
    w = e.param([1, features, 1000], math.sqrt(1.0 / features), "fc")
    m, ms = e.matmul(flat, [1, n, features], w, [1, features, 1000])
    b = e.param([1, 1, 1000], 0.01, "fcb")
    logits = e.binary("add", m, ms, b, [1, 1, 1000], ms)
    return [("%input", tensor([n, 224, 224, 3]))], logits, tensor(ms)


def tosa_bert(e):
    n, s, h, heads, dh, ff = e.batch, 128, 768, 12, 64, 3072
    rows = n * s
    std = 0.02

    def linear(x, k, m):
        w = e.param([1, k, m], std, "w")
        b = e.param([1, 1, m], std, "b")
        y, ys = e.matmul(x, [1, rows, k], w, [1, k, m])
        return e.binary("add", y, ys, b, [1, 1, m], ys)

    def layer_norm(x):
        sh = [1, rows, h]
        gamma = e.param([1, 1, h], std, "g", "ones")
        beta = e.param([1, 1, h], std, "be")
        inv_h = e.const([1, 1, 1], 1.0 / h)
        total, ts = e.reduce("sum", x, sh, 2)
        mean = e.binary("mul", total, ts, inv_h, [1, 1, 1], ts)
        c = e.binary("sub", x, sh, mean, ts, sh)
        sq = e.binary("mul", c, sh, c, sh, sh)
        var, vs = e.reduce("sum", sq, sh, 2)
        var = e.binary("mul", var, vs, inv_h, [1, 1, 1], vs)
        var = e.binary("add", var, vs, e.const([1, 1, 1], 1e-12), [1, 1, 1], vs)
        r = e.unary("rsqrt", var, vs)
        y = e.binary("mul", c, sh, r, vs, sh)
        y = e.binary("mul", y, sh, gamma, [1, 1, h], sh)
        return e.binary("add", y, sh, beta, [1, 1, h], sh)

    def heads_view(t, kt=False):
        four = e.reshape(t, [1, rows, h], [n, s, heads, dh])
        perm = [0, 2, 3, 1] if kt else [0, 2, 1, 3]
        tr, ts = e.transpose(four, [n, s, heads, dh], perm)
        return e.reshape(tr, ts, [n * heads] + ts[2:]), [n * heads] + ts[2:]

    x = e.reshape("%hidden", [n, s, h], [1, rows, h])
    q, qs = heads_view(linear(x, h, h))
    k, ks = heads_view(linear(x, h, h), kt=True)
    v, vs = heads_view(linear(x, h, h))
    sc, ss = e.matmul(q, qs, k, ks)
    sc = e.binary("mul", sc, ss, e.const([1, 1, 1], 1 / math.sqrt(dh)),
                  [1, 1, 1], ss)
    mask = e.reshape("%mask", [s], [1, 1, s])
    sc = e.binary("add", sc, ss, mask, [1, 1, s], ss)
    mx, ms = e.reduce("max", sc, ss, 2)
    d = e.binary("sub", sc, ss, mx, ms, ss)
    ex = e.unary("exp", d, ss)
    sm, sms = e.reduce("sum", ex, ss, 2)
    inv = e.unary("reciprocal", sm, sms)
    probs = e.binary("mul", ex, ss, inv, sms, ss)
    ctx, cs = e.matmul(probs, ss, v, vs)
    c4 = e.reshape(ctx, cs, [n, heads, s, dh])
    ct, cts = e.transpose(c4, [n, heads, s, dh], [0, 2, 1, 3])
    c2 = e.reshape(ct, cts, [1, rows, h])
    attn = linear(c2, h, h)
    h1 = layer_norm(e.binary("add", attn, [1, rows, h], x, [1, rows, h],
                             [1, rows, h]))
    up = linear(h1, h, ff)
    us = [1, rows, ff]
    t = e.binary("mul", up, us, e.const([1, 1, 1], 1 / math.sqrt(2)), [1, 1, 1], us)
    t = e.unary("erf", t, us)
    t = e.binary("add", t, us, e.const([1, 1, 1], 1.0), [1, 1, 1], us)
    t = e.binary("mul", up, us, t, us, us)
    gelu = e.binary("mul", t, us, e.const([1, 1, 1], 0.5), [1, 1, 1], us)
    down = linear(gelu, ff, h)
    out = layer_norm(e.binary("add", down, [1, rows, h], h1, [1, rows, h],
                              [1, rows, h]))
    out = e.reshape(out, [1, rows, h], [n, s, h])
    return ([("%hidden", tensor([n, s, h])), ("%mask", tensor([s]))], out,
            tensor([n, s, h]))


MODELS = {("resnet18", "linalg"): (Linalg, linalg_resnet),
          ("resnet50", "linalg"): (Linalg, linalg_resnet),
          ("bert-base", "linalg"): (Linalg, linalg_bert),
          ("resnet18", "tosa"): (Tosa, tosa_resnet),
          ("resnet50", "tosa"): (Tosa, tosa_resnet),
          ("bert-base", "tosa"): (Tosa, tosa_bert)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=["resnet18", "resnet50", "bert-base"])
    parser.add_argument("dialect", choices=["linalg", "tosa"])
    parser.add_argument("--batch", type=int, default=0)
    parser.add_argument("--weights", choices=["args", "constants", "resources"],
                        default="args")
    parser.add_argument("--width", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    if args.batch < 0:
        parser.error("--batch must be >= 0")
    if not 0 < args.width <= 1:
        parser.error("--width must be in (0, 1]")
    if args.model == "bert-base" and args.width != 1:
        parser.error("--width applies to the ResNets")
    cls, build = MODELS[(args.model, args.dialect)]
    e = cls(args.weights, args.seed, args.batch)
    e.model = args.model
    e.width = lambda c: max(1, int(c * args.width))
    inputs, result, result_type = build(e)
    params = inputs + e.params
    signature = ", ".join(f"{name}: {ty}" for name, ty in params)
    name = args.model.replace("-", "_")
    text = [f"// {args.model} forward pass in {args.dialect}, generated by "
            f"scripts/models/generate_model.py",
            f"func.func @{name}({signature}) -> {result_type} {{"]
    text += e.lines
    text.append(f"  return {result} : {result_type}")
    text.append("}")
    if e.blobs:
        text.append("{-#\n  dialect_resources: {\n    builtin: {")
        text.append(",\n".join(f'      {name}: "0x{data}"' for name, data in e.blobs))
        text.append("    }\n  }\n#-}")
    out = sys.stdout if args.output == "-" else open(args.output, "w")
    out.write("\n".join(text) + "\n")


if __name__ == "__main__":
    main()
