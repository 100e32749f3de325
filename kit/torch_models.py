"""PyTorch twins of amp's example models, for side-by-side rows: the same
layers, initialisers, optimizers and hyperparameters as the MLIR amp
trains, so a row compares two ways of running one model rather than two
models.

- mlp_adam: python-bindings-free-examples/mlp_adam.mlir (784 -> 128 -> 10,
  Adam). No width.
- cnn: python-bindings-free-examples/cnn.mlir and bench/cnn_model.py;
  width multiplies its 16/32 channels (1 = the example).
- transformer_block: python-bindings-free-examples/transformer_block.mlir
  and bench/transformer_model.py; width is the model width (32 = the
  example), the feed-forward 2x wide.
- resnet18: python-bindings-free-examples/resnet18.mlir and
  scripts/models/resnet.py; width is the first stage's channels (64 =
  ResNet-18's).
- gpt_char: python-bindings-free-examples/gpt_char.mlir and
  scripts/models/gpt.py; width is the model width (256 = the example, 4
  layers, 4 heads, context 128; GPT_SHAPES gives others). A language model:
  its examples are windows of bytes (Spec.text).

What the MLIR fixes and these follow (the tg op definitions in
include/amp/Dialect/TG/IR/TGOps.td and amp-run's initialisers in
runtime/train/TrainingStep.cpp):
- tg.init "glorot_uniform" on [in, out] weights is xavier_uniform_ on
  PyTorch's [out, in]; "he_normal" on OHWI filters (fan in 3*3*in) is
  kaiming_normal_ (fan_in, relu gain, untruncated); biases and batch/layer
  norm offsets start at 0, scales at 1.
- tg.batch_norm and tg.layer_norm: epsilon 1e-5. tg.batch_norm always
  normalises with the batch's statistics (amp keeps no running statistics,
  and @predict normalises each test batch by its own), hence
  track_running_stats=False.
- tg.gelu is the exact, erf-based GELU (F.gelu's default).
- tg.adam_update: beta1 0.9, beta2 0.999, epsilon 1e-5 (not PyTorch's
  1e-8), no weight decay.
- cnn.mlir: tg.momentum_update (momentum 0.9, v = 0.9 v + g, p -= lr v:
  torch.optim.SGD's momentum without dampening) for the convolutions and
  the dense layer, but plain tg.sgd_update for batch norm's gamma and beta.
- resnet18.mlir: tg.momentum_update with weight_decay 5e-4 on every
  parameter (torch.optim.SGD(momentum=0.9, weight_decay=5e-4)); its
  convolutions have no bias.
- transformer_block.mlir: plain SGD for every parameter; attention scores
  are scaled by 1/sqrt(width) rounded to 8 decimals, as the MLIR's constant.
- The learning rate is amp-run's --lr default, 0.01, unless a caller
  passes another (none of the examples gives its lr argument a
  tg.init_value; README.md trains mlp_adam at 0.001, bench/step_time.py
  uses 0.001 / 0.01 / 0.05): give both sides the same one. The batch is
  the MLIR's leading input dimension, 32 in every example.

Layouts are PyTorch's own: mlp (B, 784), cnn (B, 1, 28, 28) in NCHW (amp
runs NHWC, and flattens before the dense layer in NHWC order: same shapes,
other order of the same randomly initialised weights), transformer
(B, 28, 28), rows as tokens.
"""
import math
from typing import Callable, NamedTuple, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

AMP_RUN_DEFAULT_LR = 0.01
FEATURES, SIDE, CLASSES = 784, 28, 10
ADAM_EPS = 1e-5
MOMENTUM = 0.9


def glorot(*linears):
    """amp's glorot_uniform weights and zero biases on `linears`."""
    for layer in linears:
        nn.init.xavier_uniform_(layer.weight)
        if layer.bias is not None:
            nn.init.zeros_(layer.bias)


def he(*convs):
    """amp's he_normal filters (N(0, 2 / fan_in)) and zero biases."""
    for conv in convs:
        nn.init.kaiming_normal_(conv.weight, mode="fan_in",
                                nonlinearity="relu")
        if conv.bias is not None:
            nn.init.zeros_(conv.bias)


class Mlp(nn.Module):
    """mlp_adam.mlir: 784 -> 128 relu -> 10."""

    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(FEATURES, 128), nn.Linear(128, CLASSES)
        glorot(self.l1, self.l2)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class Cnn(nn.Module):
    """cnn.mlir at `width` x its channels: conv + bias, batch norm, relu,
    pool; conv + bias, relu, pool; dense."""

    def __init__(self, width=1):
        super().__init__()
        c1, c2 = 16 * width, 32 * width
        self.c1 = nn.Conv2d(1, c1, 3, padding=1)
        self.bn = nn.BatchNorm2d(c1, eps=1e-5, track_running_stats=False)
        self.c2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.fc = nn.Linear((SIDE // 4) ** 2 * c2, CLASSES)
        he(self.c1, self.c2)
        glorot(self.fc)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.c1(x))), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


class Block(nn.Module):
    """transformer_block.mlir at model width `width`: row embedding, layer
    norm, single-head attention, residual, layer norm, GELU feed-forward,
    residual, mean over tokens, classifier. The attention is written op for
    op as the MLIR has it (matmul, scale, softmax, matmul), not as
    F.scaled_dot_product_attention."""

    def __init__(self, width=32):
        super().__init__()
        d = width
        self.embed = nn.Linear(SIDE, d, bias=False)
        self.n1, self.n2 = nn.LayerNorm(d, eps=1e-5), nn.LayerNorm(d, eps=1e-5)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False)
                                          for _ in range(4))
        self.f1, self.f2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.cls = nn.Linear(d, CLASSES, bias=False)
        self.scale = float(f"{1 / d ** 0.5:.8f}")
        glorot(self.embed, self.q, self.k, self.v, self.o, self.f1, self.f2,
               self.cls)

    def forward(self, x):
        # The residual stream in f32 (as GptChar's, from its embeddings):
        # PyTorch 1.13's CPU autocast leaves layer_norm alone, and its
        # kernel refuses a bf16 input with f32 weights. A no-op in f32.
        x = self.embed(x).float()
        n = self.n1(x)
        s = self.q(n) @ self.k(n).transpose(1, 2) * self.scale
        h = x + self.o(torch.softmax(s, -1) @ self.v(n))
        out = h + self.f2(F.gelu(self.f1(self.n2(h))))
        return self.cls(out.mean(1))


def conv_bn(cin, cout, kernel, stride):
    """A bias-free convolution (padding 1 for 3x3) and its batch norm."""
    conv = nn.Conv2d(cin, cout, kernel, stride=stride, padding=kernel // 2,
                     bias=False)
    he(conv)
    return nn.Sequential(conv, nn.BatchNorm2d(cout, eps=1e-5,
                                              track_running_stats=False))


class BasicBlock(nn.Module):
    """conv 3x3, BN, ReLU, conv 3x3, BN, plus the input (through a 1x1
    conv + BN where the shape changes), ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.a = conv_bn(cin, cout, 3, stride)
        self.b = conv_bn(cout, cout, 3, 1)
        self.proj = (conv_bn(cin, cout, 1, stride)
                     if stride != 1 or cin != cout else nn.Identity())

    def forward(self, x):
        return F.relu(self.b(F.relu(self.a(x))) + self.proj(x))


class ResNet(nn.Module):
    """resnet18.mlir at first-stage width `width`: conv 3x3 (stride 1), BN,
    ReLU; two BasicBlocks at width, 2, 4 and 8 x width with strides 1, 2,
    2, 2; global average pool; linear to the classes."""

    def __init__(self, width=64, blocks=(2, 2, 2, 2)):
        super().__init__()
        self.stem = conv_bn(1, width, 3, 1)
        layers, cin = [], width
        for stage, count in enumerate(blocks):
            cout = width * 2 ** stage
            for block in range(count):
                layers.append(BasicBlock(cin, cout, 1 if stage == 0 or
                                         block > 0 else 2))
                cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, CLASSES)
        glorot(self.fc)

    def forward(self, x):
        x = self.layers(F.relu(self.stem(x)))
        return self.fc(x.mean((2, 3)))


class GptBlock(nn.Module):
    """gpt.py's block: pre-LayerNorm causal self-attention (fused q, k, v
    projection with bias; q scaled by 1/sqrt(head width) before the
    product, as the MLIR scales it) and a 4x GELU MLP, each added back."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-5), nn.LayerNorm(d, eps=1e-5)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        glorot(self.qkv, self.proj, self.fc, self.out)

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = (part.view(b, t, self.heads, self.dh).transpose(1, 2)
                   for part in self.qkv(x).split(d, dim=2))
        s = (q * (1 / math.sqrt(self.dh))) @ k.transpose(2, 3)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        p = torch.softmax(s.masked_fill(mask, float("-inf")), -1)
        return self.proj((p @ v).transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


# width -> (layers, heads, context): the example's and the GPU kit's.
GPT_SHAPES = {256: (4, 4, 128), 768: (12, 12, 256)}


class GptChar(nn.Module):
    """gpt_char.mlir at `width`: byte and position embeddings, blocks, a
    final LayerNorm and a bias-free head to 256 byte logits at every
    position (flattened, as the MLIR's cross-entropy takes them)."""

    def __init__(self, width=256):
        super().__init__()
        layers, heads, context = GPT_SHAPES.get(width, (4, max(1, width // 64),
                                                        128))
        self.tok = nn.Embedding(256, width)
        self.pos = nn.Parameter(torch.empty(context, width))
        self.blocks = nn.Sequential(*(GptBlock(width, heads)
                                      for _ in range(layers)))
        self.lnf = nn.LayerNorm(width, eps=1e-5)
        self.head = nn.Linear(width, 256, bias=False)
        nn.init.xavier_uniform_(self.tok.weight)
        nn.init.xavier_uniform_(self.pos)
        glorot(self.head)

    def forward(self, x):
        h = self.blocks(self.tok(x) + self.pos[:x.shape[1]])
        return self.head(self.lnf(h)).flatten(0, 1)


def gpt_adamw(model, lr):
    """gpt.py's AdamW: betas (0.9, 0.95), epsilon 1e-8, weight decay 0.1 on
    the weight matrices and embeddings, none on biases and LayerNorm."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                              {"params": rest, "weight_decay": 0.0}],
                             lr=lr, betas=(0.9, 0.95), eps=1e-8)


def resnet_sgd(model, lr):
    """resnet18.mlir's momentum SGD with weight decay on every parameter."""
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=MOMENTUM,
                           weight_decay=5e-4)


def adam(model, lr):
    """mlp_adam.mlir's tg.adam_update on every parameter."""
    return torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.999),
                            eps=ADAM_EPS)


def cnn_sgd(model, lr):
    """cnn.mlir's updates: momentum for all but batch norm's scale and
    offset, which it updates with plain SGD."""
    norm = set(id(p) for p in model.bn.parameters())
    rest = [p for p in model.parameters() if id(p) not in norm]
    return torch.optim.SGD([{"params": rest, "momentum": MOMENTUM},
                            {"params": list(model.bn.parameters()),
                             "momentum": 0.0}], lr=lr)


def sgd(model, lr):
    """transformer_block.mlir's plain tg.sgd_update on every parameter."""
    return torch.optim.SGD(model.parameters(), lr=lr)


class Spec(NamedTuple):
    """What a trainer needs of one model."""
    cls: type
    default_width: Optional[int]  # None: the model has no width
    input_shape: Tuple[int, ...]  # one example, in PyTorch's layout
    make_optimizer: Callable
    optimizer: str  # in words, for the JSON row
    text: bool = False  # a byte-level language model (windows of text)


MODELS = {
    "mlp_adam": Spec(Mlp, None, (FEATURES,), adam,
                     "Adam(betas=(0.9, 0.999), eps=1e-5)"),
    "cnn": Spec(Cnn, 1, (1, SIDE, SIDE), cnn_sgd,
                "SGD(momentum=0.9; batch norm gamma/beta momentum=0)"),
    "transformer_block": Spec(Block, 32, (SIDE, SIDE), sgd, "SGD"),
    "resnet18": Spec(ResNet, 64, (1, SIDE, SIDE), resnet_sgd,
                     "SGD(momentum=0.9, weight_decay=5e-4)"),
    "gpt_char": Spec(GptChar, 256, (128,), gpt_adamw,
                     "AdamW(betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1 "
                     "on matrices and embeddings)", text=True),
}


def build(name, width=None):
    """Model `name` at `width` (its example's when None), freshly
    initialised from torch's current seed."""
    spec = MODELS[name]
    if spec.default_width is None:
        if width is not None:
            raise ValueError(f"{name} has no width")
        return spec.cls()
    return spec.cls(spec.default_width if width is None else width)


def optimizer(name, model, lr=AMP_RUN_DEFAULT_LR):
    """Model `name`'s optimizer over `model`, as its MLIR updates."""
    return MODELS[name].make_optimizer(model, lr)


def input_shape(name, batch, width=None):
    """One batch of model `name`'s input, in PyTorch's layout (a language
    model's context follows its width)."""
    if MODELS[name].text:
        return (batch, GPT_SHAPES.get(width or 256, (0, 0, 128))[2])
    return (batch,) + MODELS[name].input_shape
