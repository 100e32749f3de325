#!/usr/bin/env python3
"""The example CNN (python-bindings-free-examples/cnn.mlir: conv 3x3 + bias +
batch norm + relu + 2x2 max pool, conv 3x3 + bias + relu + max pool, a dense
classifier, softmax cross-entropy, momentum SGD on the conv and dense
params and plain SGD on batch norm's scale and offset, and a @predict for
test accuracy) at any channel width and batch, so step-time benchmarks can
grow the convolutions until they, not the per-op overhead, dominate.

WIDTH multiplies the example's channels (1 = its 16 and 32); width 1,
batch 32 is the example's model op for op, so it trains as the example
does.

Usage: cnn_model.py OUT.mlir [WIDTH] [BATCH]
"""
import os
import sys

# The kit's atomic writer (temporary file, then rename): one for both.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "kit"))
from files import write_text  # noqa: E402

SIDE, CLASSES = 28, 10
POOL = '{window = array<i64: 2, 2>, strides = array<i64: 2, 2>}'
PAD = '{padding = array<i64: 1, 1, 1, 1>}'
MOMENTUM = '{momentum = 0.9 : f64}'


def t(*dims):
    """An f32 tensor type of `dims`."""
    return f"tensor<{'x'.join(str(d) for d in dims)}xf32>"


def shapes(width, batch):
    """The types the two functions share, by name."""
    c1, c2, b = 16 * width, 32 * width, batch
    half, quarter = SIDE // 2, SIDE // 4
    flat = quarter * quarter * c2
    return {
        "k1": t(c1, 3, 3, 1), "c1": t(c1), "k2": t(c2, 3, 3, c1),
        "c2": t(c2), "w": t(flat, CLASSES), "b": t(CLASSES),
        "x": t(b, SIDE, SIDE, 1), "y1": t(b, SIDE, SIDE, c1),
        "p1": t(b, half, half, c1), "y2": t(b, half, half, c2),
        "p2": t(b, quarter, quarter, c2), "flat": t(b, flat),
        "logits": t(b, CLASSES), "labels": f"tensor<{b}xi32>",
        "ce": t(b)}


def forward(s):
    """The forward pass from %x to %logits, the same in both functions."""
    return f"""\
  %y1 = tg.conv2d %x, %k1 {PAD} : {s['x']}, {s['k1']}
  %y1b = tg.bias_add %y1, %c1 : {s['y1']}, {s['c1']}
  %n1, %mean, %inv = tg.batch_norm %y1b, %gamma, %beta : {s['y1']}, {s['c1']}
  %r1 = tg.relu %n1 : {s['y1']}
  %p1 = tg.max_pool2d %r1 {POOL} : {s['y1']}
  %y2 = tg.conv2d %p1, %k2 {PAD} : {s['p1']}, {s['k2']}
  %y2b = tg.bias_add %y2, %c2 : {s['y2']}, {s['c2']}
  %r2 = tg.relu %y2b : {s['y2']}
  %p2 = tg.max_pool2d %r2 {POOL} : {s['y2']}
  %flat = tg.reshape %p2 : {s['p2']} -> {s['flat']}
  %z = tg.matmul %flat, %w : {s['flat']}, {s['w']}
  %logits = tg.bias_add %z, %b : {s['logits']}, {s['b']}
"""


def train_step(s):
    """@train_step: the example's params (with its initialisers), momentum
    velocities for all but batch norm's gamma and beta (which the example
    updates with plain SGD), the loss and the updates."""
    params = [("k1", s["k1"], "he_normal"), ("c1", s["c1"], "zeros"),
              ("gamma", s["c1"], "ones"), ("beta", s["c1"], "zeros"),
              ("k2", s["k2"], "he_normal"), ("c2", s["c2"], "zeros"),
              ("w", s["w"], "glorot_uniform"), ("b", s["b"], "zeros")]
    with_momentum = [(n, ty) for n, ty, _ in params
                     if n not in ("gamma", "beta")]
    types = ", ".join(ty for _, ty, _ in params)
    state_types = ", ".join(ty for _, ty in with_momentum)
    args = [f'    %{n}: {ty} {{tg.role = "param", tg.init = "{init}"}}'
            for n, ty, init in params]
    args += [f'    %v{n}: {ty} {{tg.role = "opt_state"}}'
             for n, ty in with_momentum]
    args += [f'    %x: {s["x"]} {{tg.role = "input"}}',
             f'    %y: {s["labels"]} {{tg.role = "label"}}',
             '    %lr: tensor<f32> {tg.role = "lr"}']
    results = [f'        {ty} {{tg.role = "param"}}' for _, ty, _ in params]
    results += [f'        {ty} {{tg.role = "opt_state"}}'
                for _, ty in with_momentum]
    updates = []
    for i, (n, ty, _) in enumerate(params):
        if n in ("gamma", "beta"):
            updates.append(f"  %{n}n = tg.sgd_update %{n}, %g#{i}, %lr : {ty}")
        else:
            updates.append(f"  %{n}n, %v{n}n = tg.momentum_update %{n}, "
                           f"%g#{i}, %v{n}, %lr {MOMENTUM} : {ty}")
    outs = [f"%{n}n" for n, _, _ in params]
    outs += [f"%v{n}n" for n, _ in with_momentum]
    names = ", ".join(f"%{n}" for n, _, _ in params)
    arg_text, result_text = ",\n".join(args), ",\n".join(results)
    update_text = "\n".join(updates)
    return f"""func.func @train_step(
{arg_text})
    -> (tensor<f32> {{tg.role = "loss"}},
{result_text}) {{
{forward(s)}\
  %ce = tg.softmax_cross_entropy %logits, %y : {s['logits']}, {s['labels']}
  %loss = tg.reduce_mean %ce {{dims = array<i64: 0>}} : {s['ce']}
  %g:{len(params)} = tg.gradients %loss wrt {names}
      : tensor<f32>, {types}
{update_text}
  return %loss, {", ".join(outs)}
      : tensor<f32>, {types}, {state_types}
}}
"""


def predict(s):
    """@predict: the params in order and a batch, to logits (amp-run's
    test accuracy; batch norm uses each test batch's own statistics)."""
    params = ", ".join(f"%{n}: {s[k]}" for n, k in
                       [("k1", "k1"), ("c1", "c1"), ("gamma", "c1"),
                        ("beta", "c1"), ("k2", "k2"), ("c2", "c2"),
                        ("w", "w"), ("b", "b")])
    return f"""func.func @predict(
    {params},
    %x: {s['x']} {{tg.role = "input"}})
    -> ({s['logits']} {{tg.role = "logits"}}) {{
{forward(s)}\
  return %logits : {s['logits']}
}}
"""


def text(width=1, batch=32):
    """The module: @train_step and @predict at `width` x the example's
    channels and `batch` images."""
    s = shapes(width, batch)
    return (f"// Generated by bench/cnn_model.py: width {width} "
            f"({16 * width}/{32 * width} channels), batch {batch}.\n"
            f"{train_step(s)}\n{predict(s)}")


def main(argv):
    if len(argv) < 2 or len(argv) > 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    try:
        width = int(argv[2]) if len(argv) > 2 else 1
        batch = int(argv[3]) if len(argv) > 3 else 32
    except ValueError:
        sys.exit("cnn_model.py: WIDTH and BATCH must be integers")
    if width < 1 or batch < 1:
        sys.exit("cnn_model.py: WIDTH and BATCH must be >= 1")
    write_text(argv[1], text(width, batch))


if __name__ == "__main__":
    main(sys.argv)
