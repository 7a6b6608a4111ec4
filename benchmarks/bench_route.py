"""`msgfilter route` wall time against the number of subscriptions.

    python benchmarks/bench_route.py [--rows 200000] [--counts 10,100,1000,10000]
                                     [--native-counts 10,100,1000] [--work DIR]

Makes the demo archive (`msgfilter demo-data`) and selective subscription files
(`msgfilter demo-subscriptions`: a message goes to at most four of them whatever their
number), then runs `msgfilter route` in a fresh process for each count with `--plan auto`,
and with `--plan native` for the `--native-counts`, and prints the wall time of each run
(Spark's start included), the plan that ran, and the deliveries. The goal (issue 13):
10 000 subscriptions in under 3x the 10-subscription time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def _msgfilter(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "msgfilter.cli", *args],
        capture_output=True, text=True, check=False,
    )


def _counts(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--counts", type=_counts, default=[10, 100, 1_000, 10_000])
    parser.add_argument("--native-counts", type=_counts, default=[10, 100, 1_000])
    parser.add_argument("--work", default="out/bench-route")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per point; the fastest counts (the machine may be shared)")
    args = parser.parse_args()

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    archive = work / "archive.parquet"
    made = _msgfilter("demo-data", "--rows", str(args.rows), "--out", str(archive))
    if made.returncode:
        print(made.stderr, file=sys.stderr)
        return 1
    runs = [(count, "auto") for count in args.counts]
    runs += [(count, "native") for count in args.native_counts]
    print(f"msgfilter route on {args.rows:,} demo messages (wall time, a fresh process each, "
          f"best of {args.repeat}); load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs")
    print(f"{'subscriptions':>13}  {'--plan':<6}  {'ran':<6}  {'seconds':>8}  "
          f"{'deliveries':>11}  {'per message':>11}")
    seconds: dict[tuple[int, str], float] = {}
    for count, plan in runs:
        subs = work / f"subs-{count}.yaml"
        if not subs.exists():
            _msgfilter("demo-subscriptions", "--count", str(count), "--out", str(subs))
        out = work / f"route-{count}-{plan}"
        times: list[float] = []
        for _ in range(max(1, args.repeat)):
            started = time.perf_counter()
            done = _msgfilter("route", "--archive", str(archive), "--subscriptions", str(subs),
                              "--out", str(out), "--plan", plan)
            times.append(time.perf_counter() - started)
            if done.returncode:
                break
        if done.returncode:
            print(f"{count:>13,}  {plan:<6}  failed ({done.returncode}): "
                  f"{done.stderr.strip().splitlines()[-1:]}")
            continue
        report = json.loads((out / "report.json").read_text())
        delivered = report["totals"]["delivered_messages"]
        elapsed = min(times)
        seconds[count, plan] = elapsed
        print(f"{count:>13,}  {plan:<6}  {report['plan']:<6}  {elapsed:>8.1f}  "
              f"{delivered:>11,}  {delivered / max(1, report['published_messages']):>11.2f}",
              flush=True)
    low, high = min(args.counts), max(args.counts)
    # The fewest subscriptions run the same plan either way: the fastest of those runs.
    base = min((t for (count, _), t in seconds.items() if count == low), default=None)
    if base and (high, "auto") in seconds:
        ratio = seconds[high, "auto"] / base
        print(f"\n{high:,} subscriptions take {ratio:.2f}x the time of {low:,} "
              f"(goal: under 3x); load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
