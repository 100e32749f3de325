"""Runs amp-run on an example with a JSON report: what every bench table
that times a training step shares."""
import json
import os
import statistics
import subprocess
import tempfile


def run_report(amp_run, example, precision, steps, lr, warmup=5, device=None,
               data=None):
    """Trains `example` for `steps` steps (on --data=`data` when given);
    returns the report and the median step time in ms after `warmup`
    steps."""
    cmd = [amp_run, example, f"--precision={precision}", f"--steps={steps}",
           f"--lr={lr}", "--log-every=1000000"]
    if data:
        cmd.append(f"--data={data}")
    if device:
        cmd.append(f"--device={device}")
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run(cmd + [f"--report={report}"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r = json.load(open(report))
    times = [s["time_ms"] for s in r["per_step"][warmup:]]
    return r, statistics.median(times)
