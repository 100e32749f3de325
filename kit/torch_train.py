#!/usr/bin/env python3
"""Trains one of amp's example models in PyTorch (kit/torch_models.py) as
amp-run trains the MLIR: the same data and scaling, batches drawn as amp-run
draws them, its learning rate, its warm-up convention for step times, and
test accuracy the way amp-run scores it. Writes one JSON row to stand beside
amp-run's report.

Usage: torch_train.py --model=NAME [--width=W] --batch=B --steps=S
    --precision=f32|f16|bf16[,...] --mode=eager|compile --device=cuda|cpu
    --data=DIR|fashion-mnist[:DIR]|synthetic [--lr=0.01] [--seed=0]
    [--profile] --json=OUT.json

One precision writes one JSON object; a comma-separated list trains each
in turn in this one process (one import, one CUDA start-up) and writes a
list of them. A precision this PyTorch or device cannot run gets a row
{..., "skipped": reason}, and the exit status stays 0.

Precision: f16 and bf16 are torch.autocast; f16 adds a GradScaler (whose
defaults, 65536 / x2 / x0.5 / 2000 steps, are amp's dynamic loss scaling's),
bf16 has none (as amp's bf16 has no loss scaling). f32 turns TF32 off for
matmuls and cuDNN so it is real f32, as amp's f32 is.

Batches: like amp-run, each epoch visits the training set in a fresh
shuffle (seeded by --seed) and drops the last partial batch; the order is
not amp's (that comes from std::mt19937 in C++). Timing: the first 5 steps
are warm-up (compilation, cuDNN's autotuning); step_ms is the median of the
rest, each step bracketed by torch.cuda.synchronize(), the batch already on
the device. --profile runs the timed steps under torch.profiler and adds
op_ms to the row: each op's self time per timed step, ops between steps
left out (on cuda each GPU kernel's time). Test accuracy: batches of the
training batch size in test-set order, the last one wrapped round to the
first examples, each example scored once (amp-run's scheme; it matters for
the CNN's batch norm, which normalises with each batch's statistics), in
the training precision.
"""
import argparse
import contextlib
import gzip
import math
import os
import platform
import resource
import statistics
import struct
import sys
import time
import warnings

import torch
import torch.nn.functional as F

import torch_models
from files import write_json

WARMUP = 5
DEFAULT_DATA_DIR = "/usr/share/datasets/fashion-mnist"
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}


class Skip(Exception):
    """A combination this PyTorch or device cannot run: reported in the
    JSON, not an error (the kit's table shows why the row is empty)."""


# ---------------------------------------------------------------- data


def idx_bytes(directory, name):
    """IDX file `name` of `directory`: the plain file when there, else the
    .gz (amp-run's order)."""
    path = os.path.join(directory, name)
    if os.path.exists(path):
        with open(path, "rb") as f:
            return f.read()
    if not os.path.exists(path + ".gz"):
        raise FileNotFoundError(f"{path}.gz: no such file (nor {path})")
    with gzip.open(path + ".gz", "rb") as f:
        return f.read()


def read_images(directory, name):
    """An IDX image file as float32 [count, rows * cols] in [0, 1]: bytes
    / 255 in float32, as runtime/train/Dataset.cpp scales them."""
    data = idx_bytes(directory, name)
    magic, count, rows, cols = struct.unpack(">IIII", data[:16])
    if magic != 0x803:
        raise ValueError(f"{name}: not an IDX image file")
    # torch.frombuffer, not numpy: the GPU machine's PyTorch may have no
    # numpy beside it.
    pixels = torch.frombuffer(bytearray(data), dtype=torch.uint8,
                              count=count * rows * cols, offset=16)
    return pixels.reshape(count, rows * cols).to(torch.float32) / 255


def read_labels(directory, name):
    """An IDX label file as int64 [count]."""
    data = idx_bytes(directory, name)
    magic, count = struct.unpack(">II", data[:8])
    if magic != 0x801:
        raise ValueError(f"{name}: not an IDX label file")
    return torch.frombuffer(bytearray(data), dtype=torch.uint8, count=count,
                            offset=8).to(torch.int64)


def fashion_mnist(directory):
    """(train x, train y, test x, test y), images flattened to 784."""
    return (read_images(directory, "train-images-idx3-ubyte"),
            read_labels(directory, "train-labels-idx1-ubyte"),
            read_images(directory, "t10k-images-idx3-ubyte"),
            read_labels(directory, "t10k-labels-idx1-ubyte"))


def synthetic(seed):
    """amp-run's synthetic set in kind (4096 train and 1024 test examples
    of 784 N(0, 1) features, labelled by a random linear teacher), not in
    value: amp draws it from std::mt19937."""
    gen = torch.Generator().manual_seed(seed)
    teacher = torch.randn(torch_models.FEATURES, torch_models.CLASSES,
                          generator=gen)
    x = torch.randn(4096 + 1024, torch_models.FEATURES, generator=gen)
    y = (x @ teacher).argmax(1)
    return x[:4096], y[:4096], x[4096:], y[4096:]


DEFAULT_TEXT = "/usr/share/doc/jargon-text/jargon.txt.gz"


def load_text(spec):
    """--data=text[:FILE] (amp-run's spelling): the file's bytes (gzipped
    when it ends in .gz), the first 90% to train on, the last 10% held out."""
    path = DEFAULT_TEXT if spec == "text" else spec[len("text:"):]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = torch.frombuffer(bytearray(f.read()), dtype=torch.uint8)
    if len(data) == 0:
        raise ValueError(f"--data={spec}: {path} is empty")
    cut = len(data) - len(data) // 10
    return data[:cut].long(), data[cut:].long()


def load_data(spec, seed):
    """--data: synthetic, fashion-mnist[:DIR] (amp-run's spelling) or a
    directory holding the IDX files; text[:FILE] for a language model."""
    if spec == "text" or spec.startswith("text:"):
        return load_text(spec)
    if spec == "synthetic":
        return synthetic(seed)
    directory = spec
    if spec == "fashion-mnist":
        directory = DEFAULT_DATA_DIR
    elif spec.startswith("fashion-mnist:"):
        directory = spec[len("fashion-mnist:"):]
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"--data={spec}: {directory} is not a "
                                "directory (want the Fashion-MNIST IDX "
                                "files, or 'synthetic')")
    return fashion_mnist(directory)


def batch_order(count, batch, steps, seed):
    """The training examples of each step: a fresh shuffle per epoch, the
    partial batch at an epoch's end dropped (amp-run's BatchSource)."""
    gen = torch.Generator().manual_seed(seed)
    per_epoch = count // batch
    order = None
    for s in range(steps):
        slot = s % per_epoch
        if slot == 0:
            order = torch.randperm(count, generator=gen)
        yield order[slot * batch:(slot + 1) * batch]


# ---------------------------------------------------------------- precision


def autocast_works(device, dtype):
    """Whether torch.autocast really runs a matmul in `dtype` on `device`:
    PyTorch 1.13's CPU autocast refuses f16 (Debian's build raises, others
    warn and turn autocast off)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autocast(device_type=device, dtype=dtype):
                a = torch.ones(2, 2, device=device)
                return (a @ a).dtype == dtype
    except RuntimeError:
        return False


@torch.no_grad()
def check_autocast_forward(model, args, autocast):
    """Runs the model on two examples under autocast: PyTorch 1.13's CPU
    autocast leaves layer norm out, which then fails on a bf16 input with
    f32 weights; that is a gap in that PyTorch, not an error here."""
    text = torch_models.MODELS[args.model].text
    x = torch.zeros(torch_models.input_shape(args.model, 2, args.width),
                    device=args.device, dtype=torch.long if text else None)
    try:
        with autocast():
            model(x)
    except RuntimeError as e:
        raise Skip(f"{args.model} under torch.autocast({args.device}, "
                   f"{args.precision}) fails in PyTorch {torch.__version__}: "
                   f"{e}")


def grad_scaler(device):
    """A GradScaler with PyTorch's defaults on `device`: torch.amp's
    (PyTorch >= 2.3, any device), else torch.cuda.amp's (CUDA only)."""
    if hasattr(torch.amp, "GradScaler"):
        return torch.amp.GradScaler(device)
    if device == "cuda":
        return torch.cuda.amp.GradScaler()
    raise Skip(f"f16 on the CPU needs torch.amp.GradScaler "
               f"(PyTorch >= 2.3; found {torch.__version__})")


def set_tf32(enabled):
    """TF32 on or off for cuBLAS matmuls and cuDNN alike. PyTorch >= 2.9
    has per-backend fp32_precision settings and refuses a mix of those and
    the older allow_tf32 flags, so set one kind only: the new where it
    exists."""
    try:
        torch.backends.cuda.matmul.fp32_precision
    except (AttributeError, AssertionError):  # 1.x asserts on the unknown
        torch.backends.cuda.matmul.allow_tf32 = enabled
        torch.backends.cudnn.allow_tf32 = enabled
        return
    value = "tf32" if enabled else "ieee"
    torch.backends.cuda.matmul.fp32_precision = value
    cudnn = torch.backends.cudnn
    for backend in (cudnn, getattr(cudnn, "conv", None),
                    getattr(cudnn, "rnn", None)):
        if hasattr(backend, "fp32_precision"):
            backend.fp32_precision = value


def precision_setup(precision, device):
    """The autocast context factory and the GradScaler (or None) of
    `precision`; for f32, TF32 is turned off so f32 matmuls and
    convolutions are IEEE f32."""
    if precision == "f32":
        set_tf32(False)
        return contextlib.nullcontext, None
    dtype = DTYPES[precision]
    if not autocast_works(device, dtype):
        raise Skip(f"torch.autocast on {device} does not run {precision} in "
                   f"PyTorch {torch.__version__}")

    def autocast():
        return torch.autocast(device_type=device, dtype=dtype)
    return autocast, grad_scaler(device) if precision == "f16" else None


# ---------------------------------------------------------------- device


def device_name(device):
    if device == "cuda":
        return torch.cuda.get_device_name()
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def synchronize(device):
    if device == "cuda":
        torch.cuda.synchronize()


def peak_memory(device):
    """(bytes, what they measure)."""
    if device == "cuda":
        return (torch.cuda.max_memory_allocated(),
                "torch.cuda.max_memory_allocated over training: params, "
                "gradients, optimizer state, activations, the batch")
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "resource.getrusage ru_maxrss: the whole process's peak "
            "resident memory (Python, PyTorch, the dataset)")


# ---------------------------------------------------------------- training


def example_batches(data, args):
    """Batches of examples as amp-run's ExampleBatches draws them."""
    x_train, y_train = data[0], data[1]
    shape = torch_models.input_shape(args.model, args.batch)
    for idx in batch_order(len(x_train), args.batch, args.steps, args.seed):
        yield (x_train[idx].view(shape).to(args.device),
               y_train[idx].to(args.device))


def windows(text, starts, context):
    """The windows of context + 1 bytes at `starts`: input [n, context],
    label the next byte of each, flattened."""
    span = starts[:, None] + torch.arange(context + 1)[None, :]
    w = text[span]
    return w[:, :-1], w[:, 1:].reshape(-1)


def text_batches(data, args):
    """Random windows of the training text, as amp-run's TextBatches draws
    them (seeded; the generator is not amp's std::mt19937)."""
    train_text = data[0]
    context = torch_models.input_shape(args.model, args.batch, args.width)[1]
    gen = torch.Generator().manual_seed(args.seed)
    for _ in range(args.steps):
        starts = torch.randint(0, len(train_text) - context, (args.batch,),
                               generator=gen)
        x, y = windows(train_text, starts, context)
        yield x.to(args.device), y.to(args.device)


# --profile's name for a timed step's range: only ops inside one count.
STEP_RANGE = "torch_train.timed_step"


def start_profiler(device):
    """torch.profiler over the host's ops (and the GPU's kernels)."""
    from torch.profiler import ProfilerActivity, profile
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    prof = profile(activities=activities)
    prof.start()
    return prof


def in_timed_step(event):
    """Whether a host op ran inside a timed step's range (not the next
    batch's indexing or the loss's read-back between steps)."""
    parent = event.cpu_parent
    while parent is not None and parent.cpu_parent is not None:
        parent = parent.cpu_parent
    return parent is not None and parent.name == STEP_RANGE


def self_time_us(event, device):
    """A host op's own time inside a timed step; on cuda a GPU kernel's
    time (the host op that launched it has its own entry, so only kernels
    count there)."""
    if device != "cuda":
        return event.self_cpu_time_total if in_timed_step(event) else 0
    if str(event.device_type) != "DeviceType.CUDA":
        return 0
    # PyTorch 2.x names it self_device_time_total, 1.13 self_cuda_time_total.
    us = getattr(event, "self_device_time_total", None)
    return event.self_cuda_time_total if us is None else us


def op_ms(prof, device, steps):
    """{op: ms per step} from a stopped profiler over `steps` steps."""
    totals = {}
    for e in prof.events():
        us = self_time_us(e, device)
        if us > 0:
            totals[e.key] = totals.get(e.key, 0) + us
    return {op: round(us / 1e3 / steps, 4) for op, us in totals.items()}


def train(model, opt, data, args, autocast, scaler):
    """Trains --steps steps; returns (losses, timed step ms, skipped, each
    op's ms per timed step under --profile or None)."""
    losses, times, skipped, prof = [], [], 0, None
    scale = scaler.get_scale() if scaler else None
    batches = text_batches if torch_models.MODELS[args.model].text \
        else example_batches
    for s, (x, y) in enumerate(batches(data, args)):
        if s == WARMUP and args.profile:
            prof = start_profiler(args.device)
        synchronize(args.device)
        start = time.perf_counter()
        with torch.profiler.record_function(STEP_RANGE) if prof \
                else contextlib.nullcontext():
            opt.zero_grad(set_to_none=True)
            with autocast():
                loss = F.cross_entropy(model(x), y)
            if scaler:
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            else:
                loss.backward()
                opt.step()
            synchronize(args.device)
        if s >= WARMUP:
            times.append((time.perf_counter() - start) * 1e3)
        losses.append(loss.item())
        if scaler:
            # GradScaler skips the step and halves the scale on inf/NaN.
            skipped += scaler.get_scale() < scale
            scale = scaler.get_scale()
    if prof is None:
        return losses, times, skipped, None
    prof.stop()
    return losses, times, skipped, op_ms(prof, args.device, len(times))


@torch.no_grad()
def test_accuracy(model, data, args, autocast):
    """amp-run's scoring: batches of --batch in test-set order, the last
    wrapped round to the first examples, each example counted once."""
    x_test, y_test = data[2], data[3]
    count = len(x_test)
    shape = torch_models.input_shape(args.model, args.batch)
    correct = 0
    for start in range(0, count, args.batch):
        idx = torch.arange(start, start + args.batch) % count
        x = x_test[idx].view(shape).to(args.device)
        with autocast():
            guess = model(x).argmax(1).cpu()
        real = min(args.batch, count - start)
        correct += int((guess[:real] == y_test[start:start + real]).sum())
    return correct / count


@torch.no_grad()
def validation_loss(model, data, args, autocast):
    """amp-run's validation: the mean loss over the held-out text's
    non-overlapping windows, in whole batches; (loss, windows)."""
    text = data[1]
    context = torch_models.input_shape(args.model, args.batch, args.width)[1]
    count = (len(text) - 1) // context // args.batch * args.batch
    total = 0.0
    for first in range(0, count, args.batch):
        starts = torch.arange(first, first + args.batch) * context
        x, y = windows(text, starts, context)
        with autocast():
            total += float(F.cross_entropy(model(x.to(args.device)),
                                           y.to(args.device)))
    return total / (count // args.batch), count


def evaluation(model, data, args, autocast):
    """The row's held-out figures: test accuracy, or for a language model
    the validation loss in nats and bits per byte."""
    if not torch_models.MODELS[args.model].text:
        return {"test_accuracy": test_accuracy(model, data, args, autocast)}
    loss, count = validation_loss(model, data, args, autocast)
    return {"val_loss": loss, "val_bits_per_byte": loss / math.log(2),
            "val_windows": count}


def finite_or_none(value):
    """JSON has no NaN or infinity."""
    return value if math.isfinite(value) else None


def framework(args):
    if args.mode == "compile":
        return "torch.compile"
    return "pytorch-eager-f32" if args.precision == "f32" \
        else "pytorch-eager-amp"


def identity(args):
    """The fields that name a row, skipped or not."""
    return {"model": args.model, "width": args.width, "batch": args.batch,
            "precision": args.precision, "framework": framework(args),
            "torch_version": torch.__version__, "device": args.device}


def run(args, data):
    """Trains and scores as `args` say; returns the JSON row."""
    if args.mode == "compile" and not hasattr(torch, "compile"):
        raise Skip(f"torch.compile needs PyTorch 2 (found "
                   f"{torch.__version__})")
    autocast, scaler = precision_setup(args.precision, args.device)
    torch.manual_seed(args.seed)
    model = torch_models.build(args.model, args.width).to(args.device)
    if args.precision != "f32":
        check_autocast_forward(model, args, autocast)
    opt = torch_models.optimizer(args.model, model, args.lr)
    if args.mode == "compile":
        model = torch.compile(model)
    if args.device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    losses, times, skipped, ops = train(model, opt, data, args, autocast,
                                        scaler)
    peak, peak_source = peak_memory(args.device)
    step_ms = statistics.median(times)
    return dict(identity(args), **{
        "device_name": device_name(args.device),
        "steps": args.steps,
        "final_loss": finite_or_none(losses[-1]),
        "step_ms": step_ms,
        "samples_per_s": args.batch / step_ms * 1e3,
        "peak_bytes": peak,
        "peak_bytes_source": peak_source,
        **evaluation(model, data, args, autocast),
        "losses": [finite_or_none(v) for v in losses],
        "lr": args.lr,
        "seed": args.seed,
        "optimizer": torch_models.MODELS[args.model].optimizer,
        "data": args.data,
        "warmup_steps": WARMUP,
        "timed_steps": len(times),
        "skipped_steps": skipped,
        "autocast": args.precision != "f32",
        "grad_scaler": scaler is not None,
        "tf32": False if args.precision == "f32" else None,
        "threads": torch.get_num_threads() if args.device == "cpu" else None,
        **({"op_ms": ops} if ops is not None else {}),
    })


def row(args, precision, data):
    """The row of one precision: trained, or why it was skipped. Each run
    starts afresh (seed, compiled graphs, the allocator's cache), so
    running several in one process changes none of them."""
    args = argparse.Namespace(**dict(vars(args), precision=precision))
    if args.mode == "compile" and hasattr(torch, "_dynamo"):
        torch._dynamo.reset()
    if args.device == "cuda":
        torch.cuda.empty_cache()
    try:
        return run(args, data)
    except Skip as why:
        print(f"torch_train.py: {precision}: skipped: {why}",
              file=sys.stderr)
        return dict(identity(args), skipped=str(why))


def precisions_arg(text):
    names = text.split(",")
    for name in names:
        if name not in ("f32", "f16", "bf16"):
            raise argparse.ArgumentTypeError(
                f"'{name}': want f32, f16 or bf16")
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"'{text}' names one twice")
    return names


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True,
                   choices=sorted(torch_models.MODELS))
    p.add_argument("--width", type=int,
                   help="cnn: channel multiplier (1 = 16/32, the example); "
                        "transformer_block: model width (32 = the example); "
                        "mlp_adam has none")
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--steps", type=int, required=True,
                   help=f"training steps, the first {WARMUP} untimed")
    p.add_argument("--precision", required=True, type=precisions_arg,
                   help="f32, f16 or bf16, or a comma-separated list of "
                        "them: one process trains each in turn and the "
                        "file holds a list of rows")
    p.add_argument("--mode", default="eager", choices=["eager", "compile"])
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--data", required=True,
                   help="a directory of Fashion-MNIST IDX files (.gz or "
                        "plain), fashion-mnist[:DIR], or synthetic; "
                        "text[:FILE] for gpt_char")
    p.add_argument("--lr", type=float,
                   default=torch_models.AMP_RUN_DEFAULT_LR,
                   help="learning rate (default: amp-run's, %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--profile", action="store_true",
                   help="run the timed steps under torch.profiler and add "
                        "op_ms to each row: every op's self time per timed "
                        "step (on cuda every GPU kernel's); step_ms then "
                        "includes the profiler's overhead")
    p.add_argument("--json", required=True, help="the rows' file")
    args = p.parse_args(argv)
    spec = torch_models.MODELS[args.model]
    if spec.default_width is None and args.width not in (None, 1):
        p.error(f"--width: {args.model} has no width")
    if spec.default_width is None:
        args.width = None
    elif args.width is None:
        args.width = spec.default_width
    if args.width is not None and args.width < 1:
        p.error("--width must be >= 1")
    if args.batch < 1:
        p.error("--batch must be >= 1")
    if args.steps <= WARMUP:
        p.error(f"--steps must be more than the {WARMUP} warm-up steps")
    if not (math.isfinite(args.lr) and args.lr >= 0):
        p.error("--lr must be a finite value >= 0")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device=cuda: torch.cuda.is_available() is False")
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.json))):
        p.error(f"--json={args.json}: its directory does not exist")
    return args


def main(argv):
    args = parse_args(argv)
    if args.device == "cpu":
        # Debian's build starts with one thread; amp's CPU runtime uses
        # every core this process may run on.
        torch.set_num_threads(len(os.sched_getaffinity(0)))
    try:
        data = load_data(args.data, args.seed)
        if not torch_models.MODELS[args.model].text and \
                len(data[0]) < args.batch:
            raise ValueError(f"--batch={args.batch} is larger than the "
                             f"training set ({len(data[0])} examples)")
        rows = [row(args, p, data) for p in args.precision]
    except (OSError, ValueError, struct.error) as e:
        sys.exit(f"torch_train.py: error: {e}")
    write_json(args.json, rows[0] if len(rows) == 1 else rows)


if __name__ == "__main__":
    main(sys.argv[1:])
