"""The gpu_profile part: where amp's step spends the GPU's time.

amp-train runs each large model's mixed and f32 steps with AMPRT_PROFILE
(the runtime times every op from a synchronised device to a synchronised
device; docs/runtime.md) twice, for PROFILE_WARMUP steps and for
PROFILE_WARMUP + PROFILE_STEPS: the difference of the two tables is
PROFILE_STEPS steady steps, without the first steps' kernel loading and
algorithm searches or the evaluation after the last step. The report keeps
each difference's longest ops. The synchronisations serialise the step, so the tables say
which ops hold the device, not how fast the unprofiled step is (gpu_speed
says that). Where Nsight Systems (nsys) is on the machine it also profiles
one step's kernels, into OUT/logs/nsys.log.
"""
import os
import shutil

from parts import (KIT_DIR, amp_train, data_flag, failed, needs_gpu, ok,
                   out_of_time)

PROFILE_WARMUP = 4
PROFILE_STEPS = 8
PROFILED_PRECISIONS = ("bf16", "f32")
TOP_OPS = 15


def read_profile(path):
    """The AMPRT_PROFILE table as dicts (op, calls, total_ms, mean_us,
    share), longest first."""
    with open(path) as f:
        lines = f.read().splitlines()
    names = lines[0].split("\t")
    rows = []
    for line in lines[1:]:
        values = line.split("\t")
        row = dict(zip(names, values))
        row["calls"] = int(row["calls"])
        for key in ("total_ms", "mean_us", "share"):
            row[key] = float(row[key])
        rows.append(row)
    return rows


def steady_rows(short, long):
    """The ops of the steps the long run has beyond the short one: calls
    and times subtracted, op by op, longest first."""
    before = {r["op"]: r for r in short}
    rows = []
    for r in long:
        b = before.get(r["op"], {"calls": 0, "total_ms": 0.0})
        calls = r["calls"] - b["calls"]
        if calls > 0:
            rows.append({"op": r["op"], "calls": calls,
                         "total_ms": max(0.0, r["total_ms"] - b["total_ms"])})
    total = sum(r["total_ms"] for r in rows)
    for r in rows:
        r["mean_us"] = round(r["total_ms"] * 1e3 / r["calls"], 2)
        r["share"] = round(r["total_ms"] / total, 4) if total else 0.0
        r["total_ms"] = round(r["total_ms"], 3)
    return sorted(rows, key=lambda r: -r["total_ms"])


def profiled_run(kit, model, precision, steps):
    """amp-train for `steps` steps with AMPRT_PROFILE: (rows, why)."""
    table = os.path.join(kit.out, "profiles",
                         f"{model['name']}-{precision}-{steps}.tsv")
    os.makedirs(os.path.dirname(table), exist_ok=True)
    report, why = amp_train(kit, model, precision, "cuda", steps,
                            "gpu-profile.log", timeout=120,
                            env={"AMPRT_PROFILE": table})
    if report is None:
        return None, why
    if not os.path.exists(table):
        return None, "amp-train wrote no AMPRT_PROFILE table"
    return read_profile(table), None


def profile_model(kit, model, precision):
    """One model's steady steps, op by op: their longest ops."""
    entry = {"model": model["name"], "precision": precision}
    long = None
    short, why = profiled_run(kit, model, precision, PROFILE_WARMUP)
    if short is not None:
        long, why = profiled_run(kit, model, precision,
                                 PROFILE_WARMUP + PROFILE_STEPS)
    if short is None or long is None:
        return {**entry, "status": "failed", "reason": why}
    rows = steady_rows(short, long)
    total = sum(r["total_ms"] for r in rows)
    return {**entry, "status": "ok", "steps": PROFILE_STEPS,
            "ops": len(rows), "total_ms": round(total, 3),
            "ms_per_step": round(total / PROFILE_STEPS, 3),
            "top": rows[:TOP_OPS]}


def nsys_step(kit, model):
    """Nsight Systems' kernel summary of a few steps of `model` in bf16,
    when nsys is on the machine; None when it is not."""
    nsys = shutil.which("nsys") or next(
        (p for p in ("/usr/local/cuda/bin/nsys",) if os.path.exists(p)), None)
    if not nsys:
        return None
    step = os.path.join(KIT_DIR, "steps", f"{model['name']}-bf16.o")
    cmd = [nsys, "profile", "--stats=true", "--force-overwrite=true",
           "--output=" + os.path.join(kit.out, "nsys-" + model["name"]),
           kit.binary("amp-train"), step, "--device=cuda", "--steps=8",
           f"--data={data_flag(kit, model)}", "--seed=1",
           f"--lr={model['lr']}"]
    rc, seconds = kit.sh(cmd, "nsys.log", timeout=120)
    return {"nsys": nsys, "exit": rc, "seconds": round(seconds, 1)}


@needs_gpu
def gpu_profile_part(kit):
    """The large models' mixed (bf16) and f32 steps, op by op."""
    models = [m for m in kit.facts["kit"]["models"] if not m["small"]]
    profiles = []
    for model in models:
        for precision in PROFILED_PRECISIONS:
            if kit.left() < 5:
                profiles.append({"model": model["name"],
                                 "precision": precision, "status": "skipped",
                                 "reason": out_of_time(kit)})
                continue
            profiles.append(profile_model(kit, model, precision))
    nsys = nsys_step(kit, models[0]) if models and kit.left() > 60 else None
    problems = [f"{p['model']} {p['precision']}: {p['reason']}"
                for p in profiles if p["status"] == "failed"]
    result = {"profiles": profiles, "nsys": nsys}
    return failed("; ".join(problems), **result) if problems \
        else ok(**result)
