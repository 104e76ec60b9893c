#!/usr/bin/env python3
"""One line per `trainyard-cli run --events` stream: outcome, test accuracy, the seconds (since the run started)
at which val/accuracy first reached each threshold, the median of speed/samples_per_s and the largest
speed/peak_cuda_mb.
Usage: summarize_run.py EVENTS.jsonl [THRESHOLD...]"""
import json
import statistics
import sys

path, thresholds = sys.argv[1], [float(t) for t in sys.argv[2:]]
status, message, summary, val, speed, device, steps = "no finished event", "", {}, [], [], "?", 0
gpu_peak = []
with open(path) as stream:
    for line in stream:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        kind = event.get("event")
        if kind == "started":
            device = event.get("device", "?")
        elif kind == "metrics":
            for name, step, epoch, time, value in event["rows"]:
                if name == "val/accuracy" and value is not None:
                    val.append((time, value))
                elif name == "speed/samples_per_s" and value is not None:
                    speed.append(value)
                elif name == "speed/peak_cuda_mb" and value is not None:
                    gpu_peak.append(value)
        elif kind == "finished":
            status, message, summary, steps = event["status"], event.get("message", ""), event.get("summary", {}), event.get("steps", 0)
        elif kind == "error":
            message = event.get("message", "")
reached = []
for threshold in thresholds:
    hit = next((t for t, v in val if v >= threshold), None)
    reached.append(f"val>={threshold}: {hit:.1f} s" if hit is not None else f"val>={threshold}: never")
best = max((v for _, v in val), default=float("nan"))
print(f"{path.rsplit('/', 1)[-1]}: {status} on {device}, {steps} steps, test/accuracy {summary.get('test/accuracy', float('nan')):.4f}, "
      f"best val/accuracy {best:.4f}, last val at {val[-1][0] if val else float('nan'):.1f} s, "
      f"samples/s median {statistics.median(speed) if speed else float('nan'):.0f}, "
      f"GPU peak {max(gpu_peak) if gpu_peak else float('nan'):.0f} MB; " + "; ".join(reached)
      + (f" [{message[:200]}]" if status != "finished" else ""))
