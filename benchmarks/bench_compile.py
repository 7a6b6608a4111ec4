"""Compile speed: a new text of a known shape, a new shape, the lexer, worst cases.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_compile.py [--texts 2000] [--repeat 5]

A broker's subscriptions are a few shapes with many constants. For each SQL dialect and
each realistic shape this times, per text (best of --repeat runs, microseconds):

- known shape: texts of a shape already compiled once, each with new constants, built by
  the dialect's factory (no compile cache in the way) and through `msgfilter.compile`;
- new shape: each text of a shape never seen (identifier names made fresh);
- full pipeline: the same new-constant texts with the shape cache bypassed (what every
  new text paid before compile by shape);
- the lexer on the first text: the fast scanner and the careful loop;
- worst cases: a 500-item IN list, 40 literals, and more shapes in rotation than the
  shape cache keeps (every compile a miss).

Times are CPU time of this process (`time.process_time`): on a shared machine, wall
time counts the waits for a core as well.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections.abc import Callable
from typing import Any

import msgfilter
from msgfilter import dialects, engine, shapes
from msgfilter.limits import DEFAULT_LIMITS
from msgfilter.syntax.lexer import _tokenize, scan

DIALECTS = ("jms", "rocketmq", "activemq", "artemis", "qpid")

# Realistic shapes: `{}` take fresh constants, `{n}` a fresh identifier suffix.
SHAPES: dict[str, str] = {
    "tenant/type/price": (
        "tenant{n} = '{s}' AND type IN ('{s}', '{s}') AND price > {f} AND region <> '{s}'"
    ),
    "priority range": "JMSPriority BETWEEN {i} AND {j} AND color{n} = '{s}'",
    "or of equalities": "qty{n} = {i} OR qty{n} = {i} OR region = '{s}' OR JMSPriority = {i}",
    "negative and null": "discount{n} IS NULL OR discount{n} < {f} AND weight > -{i}",
}
LIKE_SHAPE = "name{n} LIKE '{s}%' AND region = '{s}'"


def fill(template: str, rng: random.Random, suffix: str = "") -> str:
    out = template.replace("{n}", suffix)
    while True:
        for key, make in (
            ("{s}", lambda: f"v{rng.randrange(10**6)}"),
            ("{f}", lambda: f"{rng.randrange(10**4)}.{rng.randrange(100)}"),
            ("{i}", lambda: str(rng.randrange(1, 50))),
            ("{j}", lambda: str(rng.randrange(50, 100))),
        ):
            if key in out:
                out = out.replace(key, make(), 1)
                break
        else:
            return out


def per_call(texts: list[str], build: Callable[[str], Any], repeat: int,
             before: Callable[[], None] | None = None) -> float:
    """Best over `repeat` runs of the mean time per text, in microseconds."""
    best = float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.process_time()
        for text in texts:
            build(text)
        best = min(best, (time.process_time() - start) / len(texts))
    return best * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    count, repeat = args.texts, args.repeat
    print(f"{count} texts per figure, best of {repeat}; microseconds per compile\n")
    header = (f"{'dialect':9} {'shape':20} {'known':>7} {'compile()':>9} {'new':>7} "
              f"{'full':>7} {'scan':>6} {'lexer':>6}")
    print(header)
    for name in DIALECTS:
        dialect = dialects.get(name)

        def build(text: str, dialect: Any = dialect) -> Any:
            return dialect.build(text, DEFAULT_LIMITS)

        def unshaped(text: str, name: str = name) -> Any:
            return engine.compile_unshaped(text, name)

        for label, template in SHAPES.items():
            build(fill(template, rng))  # the shape is known from here on
            known = [fill(template, rng) for _ in range(count)]
            # Fresh texts each run: msgfilter.compile would serve repeats from its cache.
            runs = iter([[fill(template, rng) for _ in range(count)] for _ in range(repeat)])
            batch: list[str] = []

            def next_batch(runs: Any = runs, batch: list[str] = batch) -> None:
                batch[:] = next(runs)

            through = per_call_batch(batch, msgfilter.compile, repeat, next_batch)
            fresh = itertools.count()
            news = iter([fill(template, rng, f"_{next(fresh)}")
                         for _ in range(count // 4 * repeat)])
            new = per_call(
                [""] * (count // 4), lambda _, news=news, build=build: build(next(news)), repeat
            )
            full = per_call(known[: count // 4], unshaped, repeat)
            first = known[0]
            grammar = dialect.grammar
            assert grammar is not None
            lex_fast = per_call(
                [first] * count, lambda t, g=grammar: scan(t, g, DEFAULT_LIMITS), repeat
            )
            lex_slow = per_call(
                [first] * (count // 4), lambda t, g=grammar: _tokenize(t, g, DEFAULT_LIMITS),
                repeat,
            )
            print(
                f"{name:9} {label:20} {per_call(known, build, repeat):7.1f} {through:9.1f} "
                f"{new:7.1f} {full:7.1f} {lex_fast:6.1f} {lex_slow:6.1f}"
            )
    print(f"\ntext lengths: {', '.join(str(len(fill(t, rng))) for t in SHAPES.values())} chars")

    print("\nLIKE patterns of two kinds (prefix, general) in one shape, jms:")
    jms = dialects.get("jms")
    jms.build("name LIKE 'a%' AND region = 'x'", DEFAULT_LIMITS)
    jms.build("name LIKE 'a_b%' AND region = 'x'", DEFAULT_LIMITS)
    mixed = [
        f"name LIKE '{'p' if i % 2 else 'p_q'}{i}%' AND region = 'r{i}'" for i in range(count)
    ]
    print("  known shape, alternating variants: "
          f"{per_call(mixed, lambda t: jms.build(t, DEFAULT_LIMITS), repeat):.1f}")

    print("\nworst cases (jms):")
    items = ", ".join("'{s}'" for _ in range(500))
    long_in = f"region IN ({items})"
    jms.build(fill(long_in, rng), DEFAULT_LIMITS)
    texts = [fill(long_in, rng) for _ in range(count // 20)]

    def shaped(text: str) -> Any:
        return jms.build(text, DEFAULT_LIMITS)

    def whole(text: str) -> Any:
        return engine.compile_unshaped(text, "jms")

    print(f"  500-item IN list, known shape: {per_call(texts, shaped, repeat):.1f}; "
          f"full pipeline: {per_call(texts[:10], whole, repeat):.1f}")
    many = " AND ".join(f"p{i} > {{f}}" for i in range(40))
    jms.build(fill(many, rng), DEFAULT_LIMITS)
    texts = [fill(many, rng) for _ in range(count // 10)]
    print(f"  40 literals, known shape: {per_call(texts, shaped, repeat):.1f}; "
          f"full pipeline: {per_call(texts[:20], whole, repeat):.1f}")
    size = shapes.SHAPE_CACHE_SIZE
    rotation = [fill(SHAPES["tenant/type/price"], rng, f"_r{i}") for i in range(2 * size)]
    # Every shape leaves the LRU before it comes round again: every compile is a miss.
    for text in rotation:
        jms.build(text, DEFAULT_LIMITS)
    print(f"  {2 * size} shapes in rotation, cache of {size}: "
          f"{per_call(rotation, lambda t: jms.build(t, DEFAULT_LIMITS), 2):.1f} per compile "
          f"(shape cache {shapes.cache_info().currsize} entries)")
    engine.purge()


def per_call_batch(batch: list[str], build: Callable[[str], Any], repeat: int,
                   before: Callable[[], None]) -> float:
    best = float("inf")
    for _ in range(repeat):
        before()
        start = time.process_time()
        for text in batch:
            build(text)
        best = min(best, (time.process_time() - start) / len(batch))
    return best * 1e6


if __name__ == "__main__":
    main()
