"""Compile speed on the index workloads: a new text of a known shape, a new shape, cold.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_compile_workloads.py \
        [--workload friendly,broker,device,rocketmq,mixed,amqp] [--subscriptions 10000] \
        [--texts 3000] [--cold 200] [--repeat 3]

For each workload of tests/index_workloads.py (`friendly` is the one the index was built
against, the others were reported slow: see that module) this compiles the
`--subscriptions` selectors of seed 1 (the shapes a broker has seen), then times
`msgfilter.compile` on up to `--texts` selectors of seed 7 that are not among them, each
once, with gc disabled (CPU time of this process; each figure the best of `--repeat`
runs, every cache emptied before each), and prints per text:

- known shape: texts whose shape the cache has (taught by the seed-1 selectors or an
  earlier text): lexing, the value rules, binding;
- new shape: texts of a shape the cache does not have (another reading, operator or
  identifier name: a shape is its tokens but the literal values), with the
  generated-code cache warm as a broker's is;
- tags / not shaped: texts of the tag dialects (no shapes: `msgfilter.tags`) and of
  amqp-sql (its own parser: compiled whole every time);
- cold: a sample of `--cold` texts each compiled after every cache is emptied (compile
  cache, shape cache, generated code): what the first selector of a shape costs in a
  fresh process, Python's `compile` of the generated source included.

It also counts why texts were not served by a template (`shapes.cache_info()` before and
after; a miss is a shape never seen).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import msgfilter
from msgfilter import shapes
from msgfilter.backends.python import runtime

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from index_workloads import WORKLOADS


def run(workload: str, count: int, texts: int, cold: int, repeat: int) -> None:
    """One line of figures: per column, the best of `repeat` runs (a shared machine's
    noise only ever adds time)."""
    runs = [_once(workload, count, texts, cold) for _ in range(repeat)]
    best = {column: min(run[column] for run in runs) for column in runs[0]}
    counts = runs[0]["counts"]
    print(
        f"{workload:9} {counts[0]:6} {_us(best['all'])} {counts[1]:6} {_us(best['known'])} "
        f"{counts[2]:5} {_us(best['new'])} {counts[3]:5} {_us(best['other'])} "
        f"{_us(best['cold'])} {counts[4]:6} {counts[5]:6}"
    )


def _us(value: float) -> str:
    return "      -" if value != value else f"{value * 1e6:7.1f}"  # NaN: no such texts


def _once(workload: str, count: int, texts: int, cold: int) -> dict[str, Any]:
    selectors, _ = WORKLOADS[workload]
    msgfilter.purge()
    shapes.purge()
    runtime.purge()
    seen = selectors(count, 1)
    for text, dialect in seen:
        msgfilter.compile(text, dialect)
    known_texts = {text for text, _ in seen}
    others = list(dict.fromkeys(
        (text, dialect) for text, dialect in selectors(count, 7) if text not in known_texts
    ))[:texts]
    before = shapes.cache_info()
    times: list[tuple[str, float]] = []
    gc.disable()
    try:
        for text, dialect in others:
            was = shapes.cache_info()
            start = time.process_time()
            msgfilter.compile(text, dialect)
            spent = time.process_time() - start
            now = shapes.cache_info()
            # Served by a template, or a shape the cache did not have.
            kind = ("known" if now.hits > was.hits else
                    "new" if now.misses > was.misses else "other")
            times.append((kind, spent))
    finally:
        gc.enable()
    after = shapes.cache_info()
    by = {k: [t for kind, t in times if kind == k] for k in ("known", "new", "other")}
    sample = random.Random(3).sample(others, min(cold, len(others)))
    cold_times = []
    for text, dialect in sample:
        msgfilter.purge()
        shapes.purge()
        runtime.purge()
        gc.collect()
        start = time.process_time()
        msgfilter.compile(text, dialect)
        cold_times.append(time.process_time() - start)
    def mean(values: list[float]) -> float:
        return statistics.fmean(values) if values else float("nan")

    return {
        "all": mean([t for _, t in times]), "known": mean(by["known"]),
        "new": mean(by["new"]), "other": mean(by["other"]), "cold": mean(cold_times),
        "counts": (len(others), len(by["known"]), len(by["new"]), len(by["other"]),
                   after.hits - before.hits, after.misses - before.misses),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workload", default="friendly,broker,device,rocketmq,mixed,amqp")
    parser.add_argument("--subscriptions", type=int, default=10_000)
    parser.add_argument("--texts", type=int, default=3000)
    parser.add_argument("--cold", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.subscriptions} selectors of seed 1 compiled first; then µs per compile "
          "of new texts (seed 7), CPU time, gc off\n")
    print(f"{'workload':9} {'texts':>6} {'all':>7} {'known':>6} {'µs':>7} {'new':>5} "
          f"{'µs':>7} {'other':>5} {'µs':>7} {'cold µs':>7} {'hits':>6} {'misses':>6}")
    for name in args.workload.split(","):
        if name not in WORKLOADS:
            raise SystemExit(f"unknown workload {name!r}: choose from {', '.join(WORKLOADS)}")
        run(name, args.subscriptions, args.texts, args.cold, args.repeat)
    print("\nknown: served by its shape's template; new: a shape not in the cache "
          "(generated code warm); other: tag dialects and amqp-sql (not compiled by shape); "
          "cold: every cache emptied before each compile")


if __name__ == "__main__":
    main()
